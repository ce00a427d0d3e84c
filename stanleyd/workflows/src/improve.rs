//! The improvement queue's model: job ids from the normalized redacted request (so rephrasings
//! share a job), the job record, the enqueue outcomes, the limits, and the `JobQueue` port the
//! sled adapter implements.

use serde::{Deserialize, Serialize};
use serde_json::json;
use stanley_core::stable_id;

/// Pending jobs allowed at once.
pub const MAX_PENDING_JOBS: usize = 20;
/// Attempts per job (a retry only after a timeout or crash).
pub const MAX_ATTEMPTS: u32 = 2;

/// The job id: `imp_` + 12 hex of the hash of the request trimmed, lowercased, with whitespace
/// runs collapsed (the hash is over the JSON-quoted text).
pub fn job_id(redacted_request: &str) -> String {
    let normalized = redacted_request
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    stable_id("imp", &json!(normalized), 12)
}

/// Where a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    Pending,
    Active,
    Done,
}

/// One diary entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiaryEntry {
    pub at: String,
    pub text: String,
}

/// An improvement job (`stanley.improvement-job/v1`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    pub schema: String,
    pub id: String,
    /// The redacted request.
    pub request: String,
    /// `none`, `failure_log`, `review_comments` or `text`.
    pub input_shape: String,
    pub source: String,
    pub created_at: String,
    pub attempts: u32,
    pub state: JobState,
    #[serde(default)]
    pub diary: Vec<DiaryEntry>,
}

impl Job {
    /// A new pending job.
    pub fn new(redacted_request: &str, input_shape: &str, now: &str) -> Self {
        Self {
            schema: "stanley.improvement-job/v1".into(),
            id: job_id(redacted_request),
            request: redacted_request.to_owned(),
            input_shape: input_shape.to_owned(),
            source: "agent_fallback".into(),
            created_at: now.to_owned(),
            attempts: 0,
            state: JobState::Pending,
            diary: vec![DiaryEntry {
                at: now.to_owned(),
                text: "queued after a delegation".into(),
            }],
        }
    }
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
    pub fn note(self, id: &str) -> String {
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

/// A failure of the queue's store.
#[derive(Clone, Debug, thiserror::Error, PartialEq)]
#[error("{0}")]
pub struct QueueError(pub String);

/// The durable improvement queue.
pub trait JobQueue: Send + Sync {
    /// Queues `job` unless it is queued, attempted, or the queue is full; durable on return.
    fn enqueue(&self, job: &Job) -> Result<Enqueued, QueueError>;
    /// Every job, by id.
    fn list(&self) -> Result<Vec<Job>, QueueError>;
    /// One job.
    fn get(&self, id: &str) -> Result<Option<Job>, QueueError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rephrasings_share_a_job() {
        let id = job_id("Audit the TODO comments");
        assert_eq!(id, job_id("  audit   THE todo comments "));
        assert!(
            id.starts_with("imp_")
                && id.len() == 16
                && id[4..].chars().all(|c| c.is_ascii_hexdigit())
        );
        assert_ne!(id, job_id("Audit the FIXME comments"));
    }
}
