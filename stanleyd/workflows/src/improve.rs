//! The improvement queue's model: job ids from the normalized redacted request (so rephrasings
//! share a job), the job record, the enqueue outcomes, the limits, and the `JobQueue` port the
//! sled adapter implements.

use serde::{Deserialize, Serialize};
use stanley_core::stable_id;

/// Pending jobs allowed at once.
pub const MAX_PENDING_JOBS: usize = 20;
/// Attempts per job (a retry only after a timeout or crash).
pub const MAX_ATTEMPTS: u32 = 2;

/// A job's id, `imp_` + 12 lower-case hex: the name of its candidate's folder under
/// `.stanley/candidates/`, so one path component whatever made it. Made from the request
/// ([`JobId::of_request`]) or parsed from a client's or a store's text ([`JobId::parse`]);
/// a record whose id is anything else does not deserialize.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct JobId(String);

impl JobId {
    /// The job of a request: `imp_` + 12 hex of the hash of the request trimmed, lowercased,
    /// with whitespace runs collapsed (the hash is over the JSON-quoted text), so rephrasings
    /// that differ only in case and spacing share a job.
    pub fn of_request(redacted_request: &str) -> Self {
        let normalized = redacted_request
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        JobId(stable_id("imp", &serde_json::Value::String(normalized), 12))
    }

    /// A job id a person, a client or a store gave, or None when it is not one.
    pub fn parse(text: &str) -> Option<Self> {
        let valid = text.len() == 16
            && text.starts_with("imp_")
            && text[4..]
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase());
        valid.then(|| JobId(text.to_owned()))
    }
}

impl TryFrom<String> for JobId {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        JobId::parse(&text).ok_or_else(|| format!("not a job id: {text:?}"))
    }
}

impl From<JobId> for String {
    fn from(id: JobId) -> Self {
        id.0
    }
}

text_id!(JobId);

/// Where a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    Pending,
    Active,
    Done,
}

impl JobState {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Pending => "pending",
            JobState::Active => "active",
            JobState::Done => "done",
        }
    }
}

/// One diary entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiaryEntry {
    pub at: crate::time::Stamp,
    pub text: String,
}

/// An improvement job (`stanley.improvement-job/v1`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    pub schema: String,
    pub id: JobId,
    /// The redacted request.
    pub request: String,
    /// The shape of the input the request came with.
    pub input_shape: crate::routing::InputShape,
    pub source: String,
    pub created_at: crate::time::Stamp,
    pub attempts: u32,
    pub state: JobState,
    #[serde(default)]
    pub diary: Vec<DiaryEntry>,
    /// Where its candidate stood when the job was done (`validated` or `rejected` on disk; a
    /// word this version does not know reads as none, so the job is still read).
    #[serde(default, deserialize_with = "known_status")]
    pub result: Option<CandidateStatus>,
}

impl Job {
    /// A new pending job.
    pub fn new(
        redacted_request: &str,
        input_shape: crate::routing::InputShape,
        now: crate::time::Stamp,
    ) -> Self {
        Self {
            schema: "stanley.improvement-job/v1".into(),
            id: JobId::of_request(redacted_request),
            request: redacted_request.to_owned(),
            input_shape,
            source: "agent_fallback".into(),
            created_at: now,
            attempts: 0,
            state: JobState::Pending,
            diary: vec![DiaryEntry {
                at: now,
                text: "queued after a delegation".into(),
            }],
            result: None,
        }
    }
}

/// A job's result as written: a candidate's status, or none for a word this version does not
/// know.
fn known_status<'de, D>(deserializer: D) -> Result<Option<CandidateStatus>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let word: Option<String> = Option::deserialize(deserializer)?;
    Ok(word
        .and_then(|w| serde_json::from_value::<CandidateStatus>(serde_json::Value::String(w)).ok()))
}

/// What enqueueing did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    Queued,
    AlreadyQueued,
    AlreadyAttempted,
    QueueFull,
}

impl Enqueued {
    /// The stderr note after a delegation.
    pub fn note(self, id: &JobId) -> String {
        match self {
            Enqueued::Queued => format!("queued improvement job {id}"),
            Enqueued::AlreadyQueued => format!("improvement job {id} is already queued"),
            Enqueued::AlreadyAttempted => {
                format!("an improvement for this request was already attempted ({id})")
            }
            Enqueued::QueueFull => "the improvement queue is full; no job was queued".into(),
        }
    }
}

/// A failure of the queue's store, with its cause as the source.
#[derive(Clone, Debug, thiserror::Error)]
pub enum QueueError {
    /// The store failed (sled, the file system, an encoding).
    #[error("the improvement queue failed: {source}")]
    Store {
        /// Why.
        #[source]
        source: std::sync::Arc<dyn std::error::Error + Send + Sync>,
    },
    /// A file of the queue's could not be read, written or moved.
    #[error("the improvement queue failed: {what}: {source}")]
    File {
        /// What the queue was doing (`cannot read <path>`).
        what: String,
        /// Why.
        #[source]
        source: std::sync::Arc<std::io::Error>,
    },
    /// A file of the queue's is not the daemon's own.
    #[error(
        "the improvement queue cannot be used: {} is not the daemon's own file (a link, \
         another owner, or readable by others); move it aside",
        .path.display()
    )]
    NotOwn {
        /// The file.
        path: std::path::PathBuf,
    },
    /// The store was written by another version.
    #[error("the improvement queue has schema {found}, not {expected}; move .stanley/state/ aside")]
    Schema {
        /// The schema found.
        found: String,
        /// The schema this version writes.
        expected: &'static str,
    },
    /// The job log could not record a change (a full disk): the change is refused.
    #[error("the improvement queue could not record the change: {source}")]
    Unrecorded {
        /// Why.
        #[source]
        source: std::sync::Arc<std::io::Error>,
    },
}

impl QueueError {
    /// A file of the queue's failed: `what` it was doing, and why.
    pub fn file(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Self {
        let what = what.into();
        move |source| Self::File {
            what,
            source: std::sync::Arc::new(source),
        }
    }

    /// The store failed with `source`.
    pub fn store(source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Store {
            source: std::sync::Arc::new(source),
        }
    }
}

/// The durable improvement queue.
pub trait JobQueue: Send + Sync {
    /// Queues `job` unless it is queued, attempted, or the queue is full; durable on return.
    fn enqueue(&self, job: &Job) -> Result<Enqueued, QueueError>;
    /// Every job, by id.
    fn list(&self) -> Result<Vec<Job>, QueueError>;
    /// One job.
    fn get(&self, id: &JobId) -> Result<Option<Job>, QueueError>;
    /// Writes a job back (claim, requeue, finish); durable on return.
    fn put(&self, job: &Job) -> Result<(), QueueError>;
    /// Removes a job; durable on return. Returns whether it existed.
    fn remove(&self, id: &JobId) -> Result<bool, QueueError>;
    /// Writes whatever the store still holds in memory to disk (when the daemon stops).
    fn flush(&self) -> Result<(), QueueError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rephrasings_share_a_job() {
        let id = JobId::of_request("Audit the TODO comments");
        assert_eq!(id, JobId::of_request("  audit   THE todo comments "));
        assert_eq!(JobId::parse(id.as_str()), Some(id.clone()));
        assert_ne!(id, JobId::of_request("Audit the FIXME comments"));
    }

    /// A done job's result is its candidate's status, kept on disk as the same word a job
    /// written before it was typed holds.
    #[test]
    fn a_jobs_result_keeps_its_word_on_disk() {
        let mut job = Job::new(
            "Audit the TODO comments",
            crate::routing::InputShape::None,
            crate::time::Stamp::EPOCH,
        );
        job.state = JobState::Done;
        job.result = Some(CandidateStatus::Rejected);
        let text = serde_json::to_string(&job).unwrap();
        assert!(text.contains("\"result\":\"rejected\""), "{text}");
        let written_before = text.replace("\"rejected\"", "\"validated\"");
        let read: Job = serde_json::from_str(&written_before).unwrap();
        assert_eq!(read.result, Some(CandidateStatus::Validated));
        let unset: Job =
            serde_json::from_str(&text.replace(",\"result\":\"rejected\"", "")).unwrap();
        assert_eq!(unset.result, None);
        let unknown: Job =
            serde_json::from_str(&text.replace("\"rejected\"", "\"archived\"")).unwrap();
        assert_eq!(unknown.result, None);
    }
}

/// The reference workflow embedded in every improvement brief, byte for byte.
pub const REFERENCE_WORKFLOW: &str =
    include_str!("../../../examples/workflows/stale-todo-audit.ts");

/// The instructions an improvement job gives the agent: write one workflow file, in the
/// candidate folder, following the contract and the reference example.
pub fn improvement_brief(
    job: &Job,
    candidate_dir: &str,
    reserved: &[String],
    active_sources: &[String],
) -> String {
    let mut out = String::new();
    out.push_str("You are improving Stanley, a coding assistant. It just handled the request below by falling back to a slow, unverified general agent. Create ONE reusable workflow so that future requests of this kind run as deterministic code plus bounded Jev judgment.\n\n");
    out.push_str(&format!("Deliverable: write exactly one workflow file at {candidate_dir}/<workflow-id>.ts (create the folder if needed). Write nothing else: no other file changes, no state-changing git commands, no stanley command. If the request cannot become a bounded reusable workflow (it needs interactive judgment, external systems, or open-ended code generation), write NO file and explain why.\n\n"));
    out.push_str("The workflow contract:\n");
    out.push_str(
        "- The module default-exports an async factory ({ root, signal, log }) => workflow.\n",
    );
    out.push_str("- workflow.id is lowercase and matches /^[a-z][a-z0-9_-]{0,63}$/.\n");
    out.push_str("- workflow.run is async; run(context) receives { request, input, root, prompt, judge, signal, log }.\n");
    out.push_str("- Every other enumerable field is JSON routing metadata: use instructions and examples, specific enough that the original request would select this workflow.\n");
    out.push_str("- judge({ scope, state, questions }) asks Jev fixed-choice questions of type noul, choice (the answer has choice, confidence, probabilities) or score; it returns { ok: true, answers } or { ok: false, reason }. Never assume it succeeded.\n");
    out.push_str("- prompt(instructions, input?) hands a sub-request to Stanley and returns { status, output }.\n");
    out.push_str("- run returns text or JSON, preferably { text, data } with data.notChecked.\n\n");
    out.push_str("Design rules: deterministic code gathers bounded evidence and decides with fixed thresholds; Jev answers small fixed-choice questions; nothing free-form; every loop is bounded. Workflows are trusted code but must stay inside root, must not write files unless the request is explicitly about writing, and must not claim completion they did not verify.\n\n");
    out.push_str(&format!(
        "The id must not be one of: {}.\n\n",
        reserved.join(", ")
    ));
    if active_sources.is_empty() {
        out.push_str("There are no repository workflows yet under .stanley/workflows/.\n\n");
    } else {
        out.push_str(
            "Active workflows in this repository (read them as examples of the same API):\n",
        );
        for s in active_sources {
            out.push_str(&format!("- {s}\n"));
        }
        out.push('\n');
    }
    out.push_str("Reference workflow (complete, follows the required shape):\n```ts\n");
    out.push_str(REFERENCE_WORKFLOW);
    if !REFERENCE_WORKFLOW.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("```\n\nThe request Stanley could not handle:\n");
    out.push_str(&job.request);
    out.push_str(&format!(
        "\nSupplied input shape: {}\n\n",
        job.input_shape.as_str()
    ));
    out.push_str("Finish with a short plain-text summary naming the file you wrote (or saying you wrote none) and why.\n");
    out
}

stanley_core::words! {
    /// Whether the router selected a candidate for the request that queued it (`candidate.json`
    /// `checks.routing`); a word this version does not know reads as `Other`.
    #[derive(Default)]
    pub enum RoutingCheck {
        Selected = "selected",
        NotSelected = "not_selected",
        /// Not asked (the draft was rejected before, or routing failed).
        #[default]
        Skipped = "skipped",
        #[serde(other)]
        Other = "other",
    }
}

/// What validation found (`candidate.json` `checks`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checks {
    pub loaded: bool,
    pub quarantined: Vec<String>,
    pub duplicate_id: bool,
    pub outside_writes: Vec<String>,
    pub routing: RoutingCheck,
}

/// The agent's part of a candidate record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSummary {
    pub outcome: crate::agent::AgentOutcome,
    pub tool_calls: u64,
    pub duration_ms: u64,
}

/// Where a drafted candidate stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CandidateStatus {
    /// It passed validation and waits for a person.
    Validated,
    /// Validation or a person turned it down.
    Rejected,
    /// A person made it a repository workflow.
    Promoted,
}

impl CandidateStatus {
    /// The word the record, the queue's API and the page use.
    pub fn as_str(self) -> &'static str {
        match self {
            CandidateStatus::Validated => "validated",
            CandidateStatus::Rejected => "rejected",
            CandidateStatus::Promoted => "promoted",
        }
    }
}

impl std::fmt::Display for CandidateStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A candidate record (`stanley.candidate/v1`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CandidateRecord {
    pub schema: String,
    pub id: JobId,
    pub status: CandidateStatus,
    pub workflow_id: Option<String>,
    /// The candidate's repository-relative source path.
    pub source: Option<String>,
    pub request: String,
    pub created_at: crate::time::Stamp,
    pub checks: Checks,
    pub reasons: Vec<String>,
    pub agent: AgentSummary,
    pub summary: String,
}

/// What loading a candidate folder gave: (workflow id, source) of each loaded workflow and
/// the quarantine messages, or the loader's own error saying why it could not be loaded.
pub type DraftLoad<'a> = Result<(Vec<(String, String)>, Vec<String>), &'a dyn std::error::Error>;

/// What validation saw of a drafted candidate.
#[derive(Debug)]
pub struct Drafted<'a> {
    /// How the agent's run ended, and its one-line detail.
    pub outcome: crate::agent::AgentOutcome,
    pub detail: Option<&'a str>,
    /// What the agent (or the candidate's own code) changed outside the candidate folder.
    pub writes: Vec<String>,
    /// What loading the folder gave.
    pub load: DraftLoad<'a>,
    /// Ids a candidate may not take (built-ins, repository workflows, `cannot_tell`).
    pub reserved: &'a [String],
}

/// The verdict on a draft before the routing check: the reasons to reject it (none: it may be
/// validated), the checks, and the workflow it holds.
#[derive(Debug, PartialEq)]
pub struct DraftVerdict {
    pub reasons: Vec<String>,
    pub checks: Checks,
    pub workflow_id: Option<String>,
    pub source: Option<String>,
}

/// Judges a draft: the agent finished, wrote nothing outside its folder, and left exactly one
/// loadable workflow under a free id. The routing check (which needs Jev) comes after.
pub fn judge_draft(draft: &Drafted<'_>) -> DraftVerdict {
    let mut reasons: Vec<String> = Vec::new();
    if draft.outcome != crate::agent::AgentOutcome::Finished {
        let detail = draft.detail.map(|d| format!(": {d}")).unwrap_or_default();
        reasons.push(format!("agent {}{detail}", draft.outcome.as_str()));
    }
    if !draft.writes.is_empty() {
        reasons.push(format!(
            "agent changed files outside the candidate directory: {}",
            draft.writes.join(", ")
        ));
    }
    let mut checks = Checks {
        outside_writes: draft.writes.clone(),
        routing: RoutingCheck::Skipped,
        ..Checks::default()
    };
    let (mut workflow_id, mut source) = (None, None);
    match &draft.load {
        Err(e) => reasons.push(format!("the candidate could not be loaded: {e}")),
        Ok((loaded, quarantined)) => {
            checks.loaded = loaded.len() == 1;
            checks.quarantined = quarantined.clone();
            match loaded.len() {
                0 => reasons
                    .push("no loadable workflow was written to the candidate directory".into()),
                1 => {}
                _ => reasons.push("the candidate directory contains more than one workflow".into()),
            }
            if !quarantined.is_empty() {
                reasons.push(format!("quarantined: {}", quarantined.join("; ")));
            }
            if let [(id, src)] = loaded.as_slice() {
                workflow_id = Some(id.clone());
                source = Some(src.clone());
                if draft.reserved.contains(id) {
                    checks.duplicate_id = true;
                    reasons.push(format!(
                        "workflow id {id} is reserved or already registered"
                    ));
                }
            }
        }
    }
    DraftVerdict {
        reasons,
        checks,
        workflow_id,
        source,
    }
}

#[cfg(test)]
mod draft_tests {
    use super::*;
    use crate::agent::AgentOutcome;

    /// The host's failure to load a folder, as a loader error.
    #[derive(Debug, thiserror::Error)]
    #[error("host crashed")]
    struct HostCrashed;

    fn draft(load: DraftLoad<'static>) -> Drafted<'static> {
        Drafted {
            outcome: AgentOutcome::Finished,
            detail: None,
            writes: Vec::new(),
            load,
            reserved: &[],
        }
    }

    fn one(id: &str) -> DraftLoad<'static> {
        Ok((vec![(id.to_owned(), format!("{id}.ts"))], Vec::new()))
    }

    #[test]
    fn one_loadable_workflow_under_a_free_id_passes() {
        let v = judge_draft(&draft(one("todo_audit")));
        assert!(v.reasons.is_empty(), "{v:?}");
        assert_eq!(v.workflow_id.as_deref(), Some("todo_audit"));
        assert!(v.checks.loaded && !v.checks.duplicate_id);
        assert_eq!(v.checks.routing, RoutingCheck::Skipped);
    }

    #[test]
    fn every_reason_to_reject_is_named() {
        let reserved = ["summarize".to_owned()];
        let v = judge_draft(&Drafted {
            outcome: AgentOutcome::Timeout,
            detail: Some("the agent was stopped at the time limit"),
            writes: vec!["src/app.ts".into()],
            load: one("summarize"),
            reserved: &reserved,
        });
        assert_eq!(
            v.reasons,
            [
                "agent timeout: the agent was stopped at the time limit",
                "agent changed files outside the candidate directory: src/app.ts",
                "workflow id summarize is reserved or already registered",
            ]
        );
        assert!(v.checks.duplicate_id);
        assert_eq!(v.checks.outside_writes, ["src/app.ts"]);
        let two = Ok((
            vec![("a".into(), "a.ts".into()), ("b".into(), "b.ts".into())],
            vec!["c.ts: syntax error".into()],
        ));
        let v = judge_draft(&draft(two));
        assert_eq!(
            v.reasons,
            [
                "the candidate directory contains more than one workflow",
                "quarantined: c.ts: syntax error",
            ]
        );
        assert_eq!(v.workflow_id, None);
        let none = judge_draft(&draft(Ok((Vec::new(), Vec::new()))));
        assert_eq!(
            none.reasons,
            ["no loadable workflow was written to the candidate directory"]
        );
        let broken = judge_draft(&draft(Err(&HostCrashed)));
        assert_eq!(
            broken.reasons,
            ["the candidate could not be loaded: host crashed"]
        );
    }
}

#[cfg(test)]
mod brief_tests {
    use super::*;

    #[test]
    fn the_brief_names_what_the_agent_needs() {
        let job = Job::new(
            "Audit the TODO notes in src",
            crate::routing::InputShape::None,
            crate::time::Stamp::EPOCH,
        );
        let dir = format!(".stanley/candidates/{}", job.id);
        let brief = improvement_brief(
            &job,
            &dir,
            &["find".into(), "check".into(), "summarize".into()],
            &[".stanley/workflows/notes.ts".into()],
        );
        for needle in [
            format!("{dir}/<workflow-id>.ts"),
            "judge({ scope, state, questions })".into(),
            "prompt(instructions, input?)".into(),
            ".stanley/workflows/notes.ts".into(),
            "find, check, summarize".into(),
            "Audit the TODO notes in src".into(),
            "write NO file".into(),
            "stale_todo_audit".into(),
        ] {
            assert!(brief.contains(&needle), "missing {needle}");
        }
        assert!(
            brief.contains(REFERENCE_WORKFLOW),
            "the reference workflow is embedded byte for byte"
        );
        assert!(JobId::parse(job.id.as_str()).is_some());
        for not_an_id in [
            "../etc",
            "imp_ABCDEF123456",
            "imp_0123456789a",
            "imp_0123456789abc",
        ] {
            assert_eq!(JobId::parse(not_an_id), None, "{not_an_id}");
        }
        // A record whose id is no job id does not deserialize: it never names a folder.
        let mut record = serde_json::to_value(&job).unwrap();
        record["id"] = "../../etc".into();
        assert!(serde_json::from_value::<Job>(record).is_err());
    }
}
