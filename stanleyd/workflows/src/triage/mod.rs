//! Triage of what a person brings: failing test logs (`logs` parses them, `failures` judges
//! them) and review comments (`review_comments` parses them, `comments` judges them).

pub mod ci;
pub mod comments;
mod documents;
pub mod failures;
pub mod logs;
pub mod review_comments;
mod runners;
mod segment;

/// What a triage reads besides its input: the diff as context (when there is one), the tracked
/// files, and the files themselves.
#[derive(Clone, Copy)]
pub struct Sources<'a> {
    pub diff: Option<&'a crate::diff::DiffEvidence>,
    pub tracked: &'a [String],
    pub workspace: &'a dyn crate::ports::Workspace,
}

/// Puts `"kind": <kind>` first in every result row, as the documents have it.
pub(crate) fn tag_rows(rows: &mut [serde_json::Value], kind: &str) {
    for row in rows {
        if let Some(obj) = row.as_object_mut() {
            let mut tagged = serde_json::Map::new();
            tagged.insert("kind".into(), serde_json::Value::from(kind));
            tagged.extend(std::mem::take(obj));
            *obj = tagged;
        }
    }
}
