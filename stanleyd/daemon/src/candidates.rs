//! The candidate records a person reviews (`.stanley/candidates/<id>/candidate.json`): read only
//! from folders Stanley made, never from what a commit brought, for the worker, the `Queue`
//! service, the page and the notice after a request.

use std::path::Path;

use stanley_workflows::improve::{CandidateRecord, CandidateStatus, JobId};

use crate::error::RequestError;

/// Whether `dir` is a real folder of this user's, closed to others: what Stanley makes. A
/// repository that commits `.stanley/candidates/` gets 0755 folders from a checkout.
fn ours(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir())
        && stanley_adapters::records::refuse_foreign_dir(dir).is_ok()
}

/// A candidate record Stanley wrote: in folders Stanley made, a regular file of at most 1 MiB
/// read without following a link or waiting on a FIFO, naming its own id.
pub(crate) fn read_record(root: &Path, id: &JobId) -> Option<CandidateRecord> {
    let folder = root.join(format!(".stanley/candidates/{id}"));
    if !ours(&root.join(".stanley/candidates")) || !ours(&folder) {
        return None;
    }
    // One a commit brought is not Stanley's, whatever its modes.
    if stanley_adapters::tracked::tracked(root, &format!(".stanley/candidates/{id}")) {
        return None;
    }
    stanley_adapters::records::read_bounded(&folder.join("candidate.json"), 1024 * 1024)
        .ok()
        .and_then(|b| serde_json::from_slice::<CandidateRecord>(&b).ok())
        .filter(|r| r.id == *id)
}

/// Every readable candidate record, by id.
pub(crate) fn candidates(root: &Path) -> Vec<CandidateRecord> {
    let Ok(entries) = stanley_adapters::records::list_dir(&root.join(".stanley/candidates")) else {
        return Vec::new();
    };
    let mut out: Vec<CandidateRecord> = entries
        .flatten()
        .filter_map(|e| {
            let id = e.file_name().to_str().and_then(JobId::parse)?;
            read_record(root, &id)
        })
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// One candidate record.
pub(crate) fn candidate(root: &Path, id: &JobId) -> Result<CandidateRecord, RequestError> {
    read_record(root, id)
        .ok_or_else(|| RequestError::not_found(format!("no candidate record for {id}")))
}

/// The candidate records that wait for review.
pub(crate) fn validated_candidates(root: &Path) -> Vec<JobId> {
    candidates(root)
        .into_iter()
        .filter(|r| r.status == CandidateStatus::Validated)
        .map(|r| r.id)
        .collect()
}
