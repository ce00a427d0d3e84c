//! The improvement worker and promotion: queued jobs are claimed one at a time, the agent is
//! asked to write one workflow into the job's candidate folder, the candidate is validated in a
//! separate, short-lived workflow host, and a person promotes it into `.stanley/workflows/`.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use stanley_adapters::records::{create_private_dir, write_atomic};
use stanley_core::{Budget, BudgetLimits, Cancel};
use stanley_workflows::agent::{Agent, AgentOutcome};
use stanley_workflows::diff::Scope;
use stanley_workflows::improve::{
    AgentSummary, CandidateRecord, CandidateStatus, DiaryEntry, DraftVerdict, Drafted, Job, JobId,
    JobQueue, JobState, MAX_ATTEMPTS, QueueError, RoutingCheck, improvement_brief, judge_draft,
};
use stanley_workflows::ports::{GitError, Redactor};
use stanley_workflows::registry::{BUILTINS, Builtin};
use stanley_workflows::routing::{CANNOT_TELL, Candidate, Facts, InputShape, RouteReason};

use crate::candidates::{candidate, read_record};
use crate::error::RequestError;
use crate::request::Ctx;
use crate::request::repository;
use crate::request::router::{candidates_for, route};
use crate::settings::RequestSettings;
use crate::state::{DaemonState, JevLink, QueueProblem};

/// The limit of one improvement agent run.
pub(crate) const JOB_TIMEOUT: Duration = Duration::from_secs(15 * 60);
const MAX_SUMMARY_BYTES: usize = 16_384;

stanley_core::words! {
    /// What became of a job the worker took.
    pub(crate) enum JobOutcome {
        /// Its candidate passed validation and waits for a person.
        Validated = "validated",
        /// Its candidate was turned down.
        Rejected = "rejected",
        /// The agent failed without writing anything: it goes back to the queue.
        Requeued = "requeued",
    }
}

/// What the worker did with one job.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Processed {
    pub(crate) id: JobId,
    pub(crate) status: JobOutcome,
}

/// A workflow loaded from a candidate folder by a separate host.
struct CandidateLoad {
    loaded: Vec<(String, String, Value)>,
    quarantined: Vec<String>,
    gate: HashMap<String, bool>,
    /// What the load hashed and ran: file name → SHA-256.
    files: stanley_workflows::trust::Files,
}

fn now() -> stanley_workflows::time::Stamp {
    stanley_workflows::time::Stamp(stanley_workflows::time::Timestamp::now())
}

fn diary(job: &mut Job, text: String) {
    job.diary.push(DiaryEntry { at: now(), text });
}

/// Why the worker stopped, or a promotion could not reach the queue: the daemon's own fault.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WorkError {
    /// The queue did not open.
    #[error(transparent)]
    NoQueue(Arc<QueueProblem>),
    /// The queue's store failed.
    #[error(transparent)]
    Queue(#[from] QueueError),
    /// The candidate's folder could not be made.
    #[error("cannot create {rel_dir}: {source}")]
    Folder {
        rel_dir: String,
        #[source]
        source: std::io::Error,
    },
    /// The worktree could not be read around the agent's run.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The candidate's record could not be written.
    #[error(transparent)]
    Record(#[from] RecordNotWritten),
}

impl From<WorkError> for RequestError {
    fn from(e: WorkError) -> Self {
        RequestError::caused(crate::error::Refusal::Internal, e)
    }
}

fn queue(state: &DaemonState) -> Result<&dyn JobQueue, WorkError> {
    state
        .improve()
        .store()
        .map(|q| &**q)
        .ok_or_else(|| WorkError::NoQueue(state.improve().unavailable()))
}

/// A failed write on disk: the repository's fault (a link planted under `.stanley/`) is an
/// input error, anything else (a full disk, permissions) is not the person's input.
fn disk_error(message: String, e: &std::io::Error) -> RequestError {
    if e.kind() == std::io::ErrorKind::InvalidInput {
        RequestError::input(message)
    } else {
        RequestError::internal(message)
    }
}

/// Loads a candidate folder in a host of its own (never the serving host), from a staged copy
/// in the daemon's private folder, asks its gates, runs its cleanups and stops the host.
async fn load_candidate(
    state: &DaemonState,
    settings: &RequestSettings,
    dir: &str,
    facts: Facts,
) -> Result<CandidateLoad, repository::HostUnavailable> {
    let staged = repository::stage_folder(state, dir)?;
    // The staged copy stays until the host is gone: gates and cleanups may still import from it.
    let repository::HostLoad {
        host,
        loaded,
        staged,
    } = repository::start_host(state, settings, staged, dir).await?;
    let gate = host
        .available(&repository::gate_facts(facts))
        .await
        .unwrap_or_default();
    let _ = host.unload().await;
    host.kill();
    Ok(CandidateLoad {
        loaded: loaded
            .workflows
            .into_iter()
            .map(|w| (w.id, w.source, w.metadata))
            .collect(),
        quarantined: loaded
            .diagnostics
            .into_iter()
            .map(|d| format!("{} ({}) {}", d.source, d.phase, d.message))
            .collect(),
        gate,
        files: staged.tree.files.clone(),
    })
}

fn outside(before: &BTreeSet<String>, after: &BTreeSet<String>) -> Vec<String> {
    after
        .difference(before)
        .filter_map(|e| e.split_once(' ').map(|(_, p)| p.to_owned()))
        .collect()
}

/// Processes pending jobs now, one at a time.
pub(crate) async fn work(
    state: &DaemonState,
    settings: &RequestSettings,
    agent: &dyn Agent,
    cancel: &Cancel,
) -> Result<Option<Vec<Processed>>, WorkError> {
    let Some(_turn) = state.improve().try_turn() else {
        return Ok(None);
    };
    let q = queue(state)?;
    // A job left active by a daemon that died goes back to the queue.
    for mut job in q
        .list()?
        .into_iter()
        .filter(|j| j.state == JobState::Active)
    {
        job.state = JobState::Pending;
        let text = format!("requeued {}: stale lease", job.id);
        diary(&mut job, text);
        q.put(&job)?;
    }
    let mut processed = Vec::new();
    let mut seen: BTreeSet<JobId> = BTreeSet::new();
    loop {
        if cancel.is_cancelled() {
            break;
        }
        let mut pending: Vec<Job> = q
            .list()?
            .into_iter()
            .filter(|j| j.state == JobState::Pending && !seen.contains(&j.id))
            .collect();
        pending.sort_by(|a, b| a.id.cmp(&b.id));
        let Some(mut job) = pending.into_iter().next() else {
            break;
        };
        job.attempts += 1;
        job.state = JobState::Active;
        let text = format!(
            "start {} attempt {}: {}",
            job.id,
            job.attempts,
            job.request.chars().take(200).collect::<String>()
        );
        diary(&mut job, text);
        q.put(&job)?;
        let status = run_job(state, settings, agent, &mut job, cancel).await?;
        if status != JobOutcome::Requeued {
            seen.insert(job.id.clone());
        }
        processed.push(Processed {
            id: job.id.clone(),
            status,
        });
    }
    Ok(Some(processed))
}

async fn run_job(
    state: &DaemonState,
    settings: &RequestSettings,
    agent: &dyn Agent,
    job: &mut Job,
    cancel: &Cancel,
) -> Result<JobOutcome, WorkError> {
    let q = queue(state)?;
    let root = &state.config().files.root;
    let rel_dir = format!(".stanley/candidates/{}", job.id);
    create_private_dir(&root.join(&rel_dir)).map_err(|source| WorkError::Folder {
        rel_dir: rel_dir.clone(),
        source,
    })?;
    let repo = repository::refresh(state, settings).await;
    let builtins: Vec<&Builtin> = BUILTINS.iter().filter(|b| b.implemented).collect();
    let mut reserved: Vec<String> = builtins.iter().map(|b| b.id.to_owned()).collect();
    reserved.extend(repo.workflows.iter().map(|w| w.id.clone()));
    reserved.push(CANNOT_TELL.to_owned());
    let sources: Vec<String> = repo.workflows.iter().map(|w| w.source.clone()).collect();
    let (before, before_hash) = state.git().snapshot()?;
    let brief = improvement_brief(job, &rel_dir, &reserved, &sources);
    let result = agent
        .run(&brief, JOB_TIMEOUT, cancel.clone(), Box::new(|_| {}))
        .await;
    let (after, after_hash) = state.git().snapshot()?;
    let mut writes = outside(&before, &after);
    if writes.is_empty() && after_hash != before_hash {
        writes.push("(tracked file contents)".into());
    }
    if matches!(result.outcome, AgentOutcome::Timeout | AgentOutcome::Failed)
        && writes.is_empty()
        && job.attempts < MAX_ATTEMPTS
    {
        job.state = JobState::Pending;
        let detail = result
            .detail
            .as_deref()
            .map(|d| format!(" ({})", d.chars().take(200).collect::<String>()))
            .unwrap_or_default();
        let text = format!(
            "requeued {}: agent {}{detail}",
            job.id,
            result.outcome.as_str()
        );
        diary(job, text);
        q.put(job)?;
        return Ok(JobOutcome::Requeued);
    }
    let diff_now = state
        .git()
        .diff(Scope::Worktree, None, None)
        .map(|d| d.is_present())
        .unwrap_or(false);
    let facts = Facts {
        diff: diff_now,
        input: job.input_shape,
    };
    let load = load_candidate(state, settings, &rel_dir, facts).await;
    // A second snapshot catches writes made by the candidate's own top-level code or factory.
    let (after2, after2_hash) = state.git().snapshot()?;
    for w in outside(&before, &after2) {
        if !writes.contains(&w) {
            writes.push(w);
        }
    }
    if after2_hash != after_hash && !writes.iter().any(|w| w == "(tracked file contents)") {
        writes.push("(tracked file contents)".into());
    }
    let redactor = settings.redactor();
    let DraftVerdict {
        mut reasons,
        mut checks,
        workflow_id,
        source,
    } = judge_draft(&Drafted {
        outcome: result.outcome,
        detail: result.detail.as_deref(),
        writes,
        load: load
            .as_ref()
            .map(|l| {
                (
                    l.loaded
                        .iter()
                        .map(|(id, src, _)| (id.clone(), src.clone()))
                        .collect(),
                    l.quarantined.clone(),
                )
            })
            .map_err(|e| e as &dyn std::error::Error),
        reserved: &reserved,
    });
    if reasons.is_empty()
        && let (Ok(load), Some(id)) = (&load, &workflow_id)
    {
        checks.routing = route_check(state, settings, &repo, job, facts, id, load).await;
        if checks.routing == RoutingCheck::NotSelected {
            reasons.push("the router did not select the candidate for the original request".into());
        }
    }
    let reasons: Vec<String> = reasons.iter().map(|r| redactor.text(r).0).collect();
    let (status, outcome) = if reasons.is_empty() {
        (CandidateStatus::Validated, JobOutcome::Validated)
    } else {
        (CandidateStatus::Rejected, JobOutcome::Rejected)
    };
    let summary: String = redactor.text(&result.text).0;
    let mut end = summary.len().min(MAX_SUMMARY_BYTES);
    while !summary.is_char_boundary(end) {
        end -= 1;
    }
    let record = CandidateRecord {
        schema: "stanley.candidate/v1".into(),
        id: job.id.clone(),
        status,
        workflow_id: workflow_id.clone(),
        source,
        request: job.request.clone(),
        created_at: now(),
        checks,
        reasons: reasons.clone(),
        agent: AgentSummary {
            outcome: result.outcome,
            tool_calls: result.tool_calls,
            duration_ms: result.duration_ms,
        },
        summary: summary[..end].to_owned(),
    };
    write_record(root, &record)?;
    job.state = JobState::Done;
    job.result = Some(status);
    let wf = workflow_id
        .map(|w| format!(" workflow {w}"))
        .unwrap_or_default();
    let why = if reasons.is_empty() {
        "ok".to_owned()
    } else {
        reasons.join("; ")
    };
    let text = format!("{status} {}{wf}: {why}", job.id);
    diary(job, text);
    q.put(job)?;
    Ok(outcome)
}

/// Why a candidate's record could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the candidate record: {0}")]
pub(crate) struct RecordNotWritten(#[from] std::io::Error);

impl From<RecordNotWritten> for RequestError {
    fn from(e: RecordNotWritten) -> Self {
        RequestError::caused(crate::error::Refusal::Internal, e)
    }
}

fn write_record(root: &Path, record: &CandidateRecord) -> Result<(), RecordNotWritten> {
    // A record of strings and numbers always serializes.
    let mut text = serde_json::to_string_pretty(record).map_err(std::io::Error::other)?;
    text.push('\n');
    write_atomic(
        &root.join(format!(".stanley/candidates/{}/candidate.json", record.id)),
        text.as_bytes(),
    )?;
    Ok(())
}

/// Whether the router picks the candidate for the job's request, beside every registered
/// workflow, with the router's own two-request budget. A routing error skips the check.
async fn route_check(
    state: &DaemonState,
    settings: &RequestSettings,
    repo: &repository::RepoSnapshot,
    job: &Job,
    facts: Facts,
    id: &str,
    load: &CandidateLoad,
) -> RoutingCheck {
    let Ok(JevLink {
        jev,
        model,
        base_url,
    }) = state.jev().link(&settings.jev)
    else {
        return RoutingCheck::Skipped;
    };
    let ctx = Ctx {
        state,
        cancel: Cancel::new(),
        jev,
        model,
        redactor: Arc::new(settings.redactor()),
        budget: Arc::new(Budget::new(BudgetLimits {
            requests: 2,
            input_tokens: 16_000,
            wall_ms: 30_000,
        })),
        scope: Scope::Worktree,
        base: None,
        no_persist: true,
        trouble: Default::default(),
        base_url,
        input_file: None,
        tally: Default::default(),
        // A draft is judged on fresh answers.
        cache: None,
        run_slot: Default::default(),
        triage_parsers: settings.triage_parsers,
        // The worker's validation runs are never remembered whole.
        settings_digest: None,
    };
    let builtins: Vec<&Builtin> = BUILTINS.iter().filter(|b| b.implemented).collect();
    let mut candidates = candidates_for(&ctx, &builtins, repo, facts).await;
    let metadata = load
        .loaded
        .first()
        .map(|(_, _, m)| ctx.redactor.json(m).0)
        .unwrap_or(Value::Null);
    candidates.push(Candidate {
        id: id.to_owned(),
        metadata,
        available: load.gate.get(id).copied().unwrap_or(true),
    });
    let builtin_ids: Vec<&str> = builtins.iter().map(|b| b.id).collect();
    match route(&ctx, &job.request, facts, &candidates, &builtin_ids, None).await {
        Ok(routed) if routed.selected.as_deref() == Some(id) => RoutingCheck::Selected,
        Ok(routed) if routed.reason == RouteReason::RoutingError => RoutingCheck::Skipped,
        Err(_) => RoutingCheck::Skipped,
        Ok(_) => RoutingCheck::NotSelected,
    }
}

/// Activates a validated candidate: re-validated, then moved into `.stanley/workflows/`.
pub(crate) async fn promote(
    state: &DaemonState,
    settings: &RequestSettings,
    id: &JobId,
) -> Result<(String, String), RequestError> {
    let root = &state.config().files.root;
    let mut record = read_record(root, id)
        .filter(|r| r.schema == "stanley.candidate/v1")
        .ok_or_else(|| RequestError::not_found(format!("no candidate record for {id}")))?;
    if record.status != CandidateStatus::Validated {
        return Err(RequestError::input(format!(
            "candidate {id} is {}, not validated",
            record.status
        )));
    }
    let source = record
        .source
        .clone()
        .filter(|s| source_in_folder(id, s, false))
        .ok_or_else(|| RequestError::input(format!("candidate {id} has no workflow source")))?;
    let facts = Facts {
        diff: false,
        input: InputShape::None,
    };
    let load = load_candidate(state, settings, &format!(".stanley/candidates/{id}"), facts)
        .await
        .map_err(|_| {
            RequestError::input(format!(
                "candidate {id} no longer validates; re-run the improvement"
            ))
        })?;
    if load.loaded.len() != 1 || !load.quarantined.is_empty() {
        return Err(RequestError::input(format!(
            "candidate {id} no longer validates; re-run the improvement"
        )));
    }
    let workflow = load.loaded[0].0.clone();
    let repo = repository::refresh(state, settings).await;
    let taken = BUILTINS.iter().any(|b| b.id == workflow)
        || repo.workflows.iter().any(|w| w.id == workflow)
        || workflow == CANNOT_TELL;
    if taken {
        return Err(RequestError::input(format!(
            "workflow id {workflow} is already registered"
        )));
    }
    create_private_dir(&root.join(".stanley/workflows"))
        .map_err(|e| disk_error(format!("cannot create .stanley/workflows/: {e}"), &e))?;
    let name = Path::new(&source)
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| RequestError::input(format!("candidate {id} has no workflow source")))?
        .to_owned();
    let destination = format!(".stanley/workflows/{name}");
    if root.join(&destination).exists() {
        return Err(RequestError::input(format!("{destination} already exists")));
    }
    stanley_adapters::records::rename(&root.join(&source), &root.join(&destination))
        .map_err(|e| disk_error(format!("cannot move {source} to {destination}: {e}"), &e))?;
    // Promoting is the person's review of this file: it is trusted by that act, as the bytes
    // that were just validated (a change made since is not).
    let Some(hash) = load.files.get(&name) else {
        return Err(RequestError::input(format!(
            "candidate {id} no longer validates; re-run the improvement"
        )));
    };
    if let Err(why) = crate::trust::trust_promoted(state, &name, hash) {
        tracing::warn!(%why, file = %destination, "the promoted workflow could not be trusted");
    }
    record.status = CandidateStatus::Promoted;
    record.source = Some(destination.clone());
    write_record(root, &record)?;
    Ok((workflow, destination))
}

/// Whether a record's `source` is a file directly inside its candidate's folder (promotion
/// moves it; a record must not name another file to move) or, once promoted, directly inside
/// `.stanley/workflows/`.
pub(crate) fn source_in_folder(id: &JobId, source: &str, promoted: bool) -> bool {
    let folder = if promoted {
        ".stanley/workflows/".to_owned()
    } else {
        format!(".stanley/candidates/{id}/")
    };
    source
        .strip_prefix(&folder)
        .is_some_and(|name| !name.is_empty() && !name.contains('/') && name != "." && name != "..")
}

/// Marks a validated candidate rejected by a person.
pub(crate) fn reject(root: &Path, id: &JobId) -> Result<CandidateRecord, RequestError> {
    let mut record = candidate(root, id)?;
    if record.status != CandidateStatus::Validated {
        return Err(RequestError::input(format!(
            "candidate {id} is {}, not validated",
            record.status
        )));
    }
    record.status = CandidateStatus::Rejected;
    record.reasons.push("rejected by a person".into());
    write_record(root, &record)?;
    Ok(record)
}

/// Puts a job back to pending with no attempts, clearing its candidate folder unless promoted.
pub(crate) fn retry(state: &DaemonState, id: &JobId) -> Result<Job, RequestError> {
    let Some(_turn) = state.improve().try_turn() else {
        return Err(RequestError::unavailable(
            "the improvement worker is running; try again when it finishes",
        ));
    };
    let q = queue(state)?;
    let mut job = q
        .get(id)
        .map_err(RequestError::from)?
        .ok_or_else(|| RequestError::not_found(format!("no improvement job {id}")))?;
    let root = &state.config().files.root;
    if read_record(root, id).is_some_and(|r| r.status == CandidateStatus::Promoted) {
        return Err(RequestError::input(format!(
            "the candidate of job {id} was promoted; nothing to retry"
        )));
    }
    let dir = root.join(format!(".stanley/candidates/{id}"));
    if dir.exists() {
        stanley_adapters::records::remove_tree(&dir).map_err(|e| {
            RequestError::context(
                crate::error::Refusal::Internal,
                format!("cannot clear .stanley/candidates/{id}"),
                e,
            )
        })?;
    }
    job.state = JobState::Pending;
    job.attempts = 0;
    job.result = None;
    diary(&mut job, format!("retry {id}: requested by a person"));
    q.put(&job).map_err(RequestError::from)?;
    Ok(job)
}

/// Removes a job from the queue.
pub(crate) fn drop_job(state: &DaemonState, id: &JobId) -> Result<(), RequestError> {
    let Some(_turn) = state.improve().try_turn() else {
        return Err(RequestError::unavailable(
            "the improvement worker is running; try again when it finishes",
        ));
    };
    let q = queue(state)?;
    if q.remove(id).map_err(RequestError::from)? {
        Ok(())
    } else {
        Err(RequestError::not_found(format!("no improvement job {id}")))
    }
}

/// The daemon's background worker: drains the queue whenever a request asks it to.
pub(crate) fn spawn_background(state: &Arc<DaemonState>) {
    let Some(mut kicks) = state.improve().take_kicks() else {
        return;
    };
    // The task holds the state only weakly between kicks, and ends when the daemon stops.
    let weak = Arc::downgrade(state);
    let stop = state.activity().stop_token();
    tokio::spawn(async move {
        loop {
            let env = tokio::select! {
                () = stop.cancelled() => break,
                env = kicks.recv() => match env {
                    Some(env) => env,
                    None => break,
                },
            };
            let Some(state) = weak.upgrade() else {
                break;
            };
            // Later kicks queued meanwhile add nothing: one drain sees every pending job.
            while kicks.try_recv().is_ok() {}
            let settings = state.settings(&env);
            let Ok(agent) = crate::agent::pi(&state, &settings, false) else {
                continue;
            };
            let (_guard, cancel) = state.activity().begin();
            match work(&state, &settings, &agent, &cancel).await {
                Ok(Some(done)) => {
                    for p in done {
                        tracing::info!(job = %p.id, status = %p.status, "improvement job processed");
                    }
                }
                Ok(None) => tracing::debug!("improvement worker already running"),
                Err(e) => tracing::warn!(error = %e, "improvement worker stopped"),
            }
        }
    });
}

#[cfg(test)]
#[path = "worker_tests.rs"]
mod tests;
