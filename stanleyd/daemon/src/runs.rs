//! Runs you can find again, on the daemon's side: the summary and result every persisted request
//! leaves in its run folder, retention after each request (never a run in progress), and the
//! `stanley.v1.Runs` service behind `stanleyctl runs list|show|export`.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use stanley_adapters::runs as stored;
use stanley_adapters::{FsRecorder, SystemClock};
use stanley_core::{RequestUsage, Tally};
use stanley_proto::exit::ErrorKind;
use stanley_proto::v1::{self, RunFindings, WatchRunsResponse, watch_runs_response};
use stanley_workflows::diff::Scope;
use stanley_workflows::ports::{Clock, Redactor, RunRecorder};
use stanley_workflows::run::run_id;
use stanley_workflows::runs::{
    FailureKind, RESULT_FILE, RunError, RunId, RunStatus, RunSummary, SUMMARY_FILE, SUMMARY_SCHEMA,
};

use crate::settings::RequestSettings;
use crate::state::DaemonState;

/// The run folders a request's built-ins opened (one, or several when a repository workflow's
/// nested prompts ran built-ins), with the built-in each one belongs to.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunSlot(Arc<Mutex<Vec<(RunId, String)>>>);

impl RunSlot {
    pub(crate) fn push(&self, id: &RunId, workflow: &str) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((id.clone(), workflow.to_owned()));
    }

    fn all(&self) -> Vec<(RunId, String)> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The folder of the built-in that answered the request, when one did.
    fn of(&self, workflow: &str) -> Option<RunId> {
        self.all()
            .into_iter()
            .find(|(_, w)| w == workflow)
            .map(|(id, _)| id)
    }
}

/// Ends every run a request opened when it is dropped: when the request ends, fails, panics
/// or is cancelled, its folders become ordinary runs that retention may remove.
pub(crate) struct Ending<'a> {
    pub(crate) state: &'a DaemonState,
    pub(crate) slot: RunSlot,
}

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        for (id, _) in self.slot.all() {
            self.state.runs().ended(&id);
        }
    }
}

/// What a request's parts report back to the request: its Jev usage and its run folder.
#[derive(Clone, Debug, Default)]
pub(crate) struct Track {
    pub(crate) tally: Tally,
    pub(crate) run: RunSlot,
}

/// What a finished request says about itself.
pub(crate) struct Finished<'a> {
    pub(crate) request: &'a str,
    pub(crate) result: &'a stanley_proto::v1::Result,
    /// The result's document as a value, when the caller has it (else it is read back from
    /// `result.document_json`).
    pub(crate) document: Option<Value>,
    pub(crate) usage: RequestUsage,
    pub(crate) started_at: stanley_workflows::time::Stamp,
    pub(crate) duration_ms: u64,
}

/// The diff scope a result's summary says it read (a diff analysis's `diff`, check's
/// `task.diff`).
fn scope_of(summary: &Value) -> Option<Scope> {
    [&summary["diff"]["scope"], &summary["task"]["diff"]["scope"]]
        .into_iter()
        .find_map(Value::as_str)
        .and_then(Scope::parse)
}

/// The run's words for a failure the wire names (the same words: `failure_kinds_are_the_wires`).
fn failure_kind(kind: ErrorKind) -> FailureKind {
    match kind {
        ErrorKind::Usage => FailureKind::Usage,
        ErrorKind::Input => FailureKind::Input,
        ErrorKind::Configuration => FailureKind::Configuration,
        ErrorKind::Unavailable => FailureKind::Unavailable,
        ErrorKind::Internal => FailureKind::Internal,
        ErrorKind::JevAuth => FailureKind::JevAuth,
        ErrorKind::JevUnreachable => FailureKind::JevUnreachable,
        ErrorKind::JevUnavailable => FailureKind::JevUnavailable,
        ErrorKind::Interrupted => FailureKind::Interrupted,
        ErrorKind::Terminated => FailureKind::Terminated,
    }
}

/// The summary of a finished request, from the result it gave.
fn summary(
    id: &RunId,
    f: &mut Finished<'_>,
    finished_at: stanley_workflows::time::Stamp,
) -> (RunSummary, Value) {
    let doc = match f.document.take() {
        Some(doc) => doc,
        None => serde_json::from_str(&f.result.document_json).unwrap_or(Value::Null),
    };
    let data = &doc["output"]["data"];
    // (A kind the daemon did not write itself cannot be in its own result; read as its fault.)
    let error = f.result.error.as_ref().map(|e| RunError {
        kind: failure_kind(
            ErrorKind::from_wire(e.resolved_error_kind()).unwrap_or(ErrorKind::Internal),
        ),
        message: e.message.clone(),
    });
    let summary = RunSummary {
        schema: SUMMARY_SCHEMA.to_owned(),
        run_id: id.clone(),
        started_at: Some(f.started_at),
        finished_at: Some(finished_at),
        duration_ms: f.duration_ms,
        request: f.request.to_owned(),
        workflow: f.result.workflow.clone(),
        status: match &error {
            Some(e) if e.kind == FailureKind::Interrupted => RunStatus::Interrupted,
            // `failed`, with its reason in `error` (issue 49: every unfinished run said "error").
            Some(_) => RunStatus::Failed,
            None => RunStatus::parse(doc["status"].as_str().unwrap_or("unknown")),
        },
        exit_code: f.result.exit_code,
        delegated: data["handledBy"] == "coding_agent",
        error,
        coverage: data.get("coverage").cloned().filter(|c| c.is_object()),
        findings: data["findings"].as_array().map_or(0, |a| a.len() as u64),
        usage: f.usage.to_json(),
        scope: scope_of(&data["summary"]),
    };
    (summary, doc)
}

/// Writes the request's summary and result into its run folder (the built-in's, or a new one
/// named for what happened), so `stanleyctl runs` finds it. Returns the run id, or None when it
/// could not be written (logged; the answer stands).
pub(crate) fn record(
    state: &DaemonState,
    slot: &RunSlot,
    redactor: Arc<dyn Redactor>,
    mut finished: Finished<'_>,
) -> Option<RunId> {
    let clock = SystemClock;
    let opened = slot.all();
    let own = slot.of(&finished.result.workflow).or_else(|| {
        // A built-in that failed answers with an error naming no workflow: its folder is the
        // request's when it is the only one.
        (finished.result.error.is_some() && opened.len() == 1).then(|| opened[0].0.clone())
    });
    let id = own.unwrap_or_else(|| {
        let name = match (&finished.result.workflow, &finished.result.error) {
            (w, _) if !w.is_empty() => w.clone(),
            (_, Some(_)) => "error".to_owned(),
            _ if finished.result.document_json.contains("\"coding_agent\"") => {
                "delegated".to_owned()
            }
            _ => "request".to_owned(),
        };
        run_id(&name, clock.now(), &stanley_adapters::clock::random_hex6())
    });
    let (summary, document) = summary(
        &id,
        &mut finished,
        stanley_workflows::time::Stamp(clock.now()),
    );
    let recorder = match FsRecorder::create(&state.config().files.root, &id, redactor) {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(run = %id, error = %e, "the run's summary could not be written");
            return None;
        }
    };
    recorder.write_json(
        SUMMARY_FILE,
        &serde_json::to_value(&summary).unwrap_or_default(),
    );
    // The document moves into the record (it is the largest part of it).
    let mut result = serde_json::Map::new();
    result.insert("document".into(), document);
    result.insert("human".into(), finished.result.human.clone().into());
    result.insert(
        "humanVerbose".into(),
        finished.result.human_verbose.clone().into(),
    );
    recorder.write_json(RESULT_FILE, &Value::Object(result));
    if let Some(failure) = recorder.failure() {
        tracing::warn!(run = %id, error = %failure, "the run's summary could not be written");
        return None;
    }
    // Every watcher hears of it (none listening is fine): an editor refreshes its diagnostics.
    state.runs().send(WatchRunsResponse {
        event: Some(watch_runs_response::Event::Ended(RunFindings {
            run: Some(typed(&summary)),
            findings: finished.result.findings.clone(),
            seen: Vec::new(),
        })),
    });
    Some(id)
}

/// A stored run with its typed findings (from its result document) and the ones marked seen.
pub(crate) fn with_findings(
    root: &std::path::Path,
    summary: &RunSummary,
    result: &Value,
) -> RunFindings {
    RunFindings {
        run: Some(typed(summary)),
        findings: crate::typed::findings(&result["document"]["output"], &summary.workflow),
        seen: stored::seen(root, &summary.run_id),
    }
}

/// Prunes `.stanley/runs/` by the request's retention on a blocking thread, after the answer;
/// what it removes goes to the log. When the last listing's census, with the runs written
/// since, leaves nothing due, the folder is not listed at all (`LiveRuns::nothing_due`).
pub(crate) fn prune_later(state: &DaemonState, settings: &RequestSettings) {
    let retention = settings.retention;
    let now = stanley_adapters::clock::unix_now();
    if state.runs().nothing_due(retention, now) {
        return;
    }
    let root = state.config().files.root.clone();
    let active = state.runs().active();
    let live = state.runs().clone();
    drop(tokio::task::spawn_blocking(move || {
        // A run that starts after `active` was taken is seen at the moment of removing.
        let set = live.active_set();
        let is_active = |id: &str| set.lock().unwrap_or_else(|e| e.into_inner()).contains(id);
        let pruned = stored::prune(&root, retention, now, &active, &is_active);
        live.counted(pruned.census);
        let removed = pruned.removed;
        if let Some(why) = stored::refused(&root) {
            tracing::warn!(reason = %why, "runs are not pruned");
        }
        if !removed.is_empty() {
            tracing::info!(
                count = removed.len(),
                keep = retention.keep,
                max_age_days = retention.max_age_days,
                runs = %removed.join(" "),
                "pruned old runs"
            );
        }
    }));
}

pub(crate) fn typed(s: &RunSummary) -> v1::RunSummary {
    let usage = &s.usage;
    let n = |k: &str| usage[k].as_u64().unwrap_or(0);
    v1::RunSummary {
        id: s.run_id.as_str().to_owned(),
        started_at: s.started_at.map(|t| t.to_string()).unwrap_or_default(),
        request: s.request.clone(),
        workflow: s.workflow.clone(),
        run_status: wire_status(s.status) as i32,
        exit_code: s.exit_code,
        findings: u32::try_from(s.findings).unwrap_or(u32::MAX),
        coverage: s.coverage.as_ref().map(crate::typed::coverage),
        usage: usage.is_object().then(|| v1::Usage {
            jev_requests: n("jevRequests"),
            cached_answers: n("cachedAnswers"),
            input_tokens: n("inputTokens"),
            output_tokens: n("outputTokens"),
            cached_input_tokens: n("cachedInputTokens"),
            models: usage["models"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| m.as_str().map(str::to_owned))
                .collect(),
            estimated_cost_usd: usage["estimatedCostUsd"].as_f64(),
            saved_cost_usd: usage["savedCostUsd"].as_f64(),
        }),
        duration_ms: s.duration_ms,
        delegated: s.delegated,
        summary_json: serde_json::to_string(s).unwrap_or_default(),
        diff_scope: s.scope.map_or(v1::Scope::Unspecified, wire_scope) as i32,
        ..Default::default()
    }
    .with_words()
}

/// A run's status on the wire (the same word: `run_words_are_the_wires`).
fn wire_status(status: RunStatus) -> v1::RunStatus {
    match status {
        RunStatus::Complete => v1::RunStatus::Complete,
        RunStatus::Incomplete => v1::RunStatus::Incomplete,
        RunStatus::BudgetExhausted => v1::RunStatus::BudgetExhausted,
        RunStatus::Unsupported => v1::RunStatus::Unsupported,
        RunStatus::Interrupted => v1::RunStatus::Interrupted,
        RunStatus::Failed => v1::RunStatus::Failed,
        RunStatus::Running => v1::RunStatus::Running,
        RunStatus::Unknown => v1::RunStatus::Unknown,
    }
}

/// A diff selection on the wire.
pub(crate) fn wire_scope(scope: Scope) -> v1::Scope {
    match scope {
        Scope::Worktree => v1::Scope::Worktree,
        Scope::Staged => v1::Scope::Staged,
        Scope::Branch => v1::Scope::Branch,
    }
}

#[cfg(test)]
mod failure_kind_tests {
    use super::*;

    /// Every kind on the wire has a run's kind of the same word, one each, and back: a summary
    /// written by this daemon reads as the kind its client was told.
    #[test]
    fn failure_kinds_are_the_wires() {
        assert_eq!(ErrorKind::ALL.len(), FailureKind::ALL.len());
        for kind in ErrorKind::ALL {
            let run = failure_kind(kind);
            assert_eq!(run.as_str(), kind.as_str());
            let json = serde_json::to_string(&run).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
            assert_eq!(serde_json::from_str::<FailureKind>(&json).unwrap(), run);
        }
    }

    /// A run's status and scope go on the wire as the value of the same word, every wire value
    /// has its run's word, and the summary's deprecated words are the run's.
    #[test]
    fn run_words_are_the_wires() {
        for &wire in v1::RunStatus::KNOWN {
            let status = RunStatus::parse(wire.word());
            assert_eq!(status.as_str(), wire.word());
            assert_eq!(wire_status(status), wire);
        }
        for &wire in v1::Scope::KNOWN {
            let scope = Scope::parse(wire.word()).unwrap();
            assert_eq!(wire_scope(scope), wire);
        }
    }
}
