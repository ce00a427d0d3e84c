//! Triage of what a person brings: failing test logs (`logs` parses them, `failures` judges
//! them) and review comments (`review_comments` parses them, `comments` judges them).

pub mod comments;
pub mod failures;
pub mod review_comments;

/// Reading the logs, a crate of its own (issue 46).
pub use stanley_logs as logs;
/// The CI job-log formats a log is unwrapped from.
pub use stanley_logs::wrapper::ci;

/// What a triage reads besides its input: the diff as context (when there is one), the tracked
/// files, and the files themselves.
#[derive(Clone, Copy)]
pub struct Sources<'a> {
    pub diff: Option<&'a crate::diff::DiffEvidence>,
    pub tracked: &'a [String],
    pub workspace: &'a dyn crate::ports::Workspace,
}

/// What a triage was brought, as its `inputs.json` records it.
pub(crate) struct Brought<'a> {
    /// `failures` or `comments`.
    pub kind: &'static str,
    /// `stdin` or the repository-relative path.
    pub source: &'a str,
    /// The input's text (recorded by its hash).
    pub text: &'a str,
    /// How many items it held.
    pub items: usize,
    /// The request, when it is the triage's task (recorded by its hash).
    pub task: Option<&'a str>,
    /// The diff used as context, if any.
    pub diff: Option<&'a crate::diff::DiffEvidence>,
    /// Items judged at most.
    pub max_items: usize,
}

/// A triage's `inputs.json`.
pub(crate) fn recorded_inputs(brought: Brought<'_>) -> serde_json::Value {
    use stanley_core::stable_hash;
    let hash = |t: &str| stable_hash(&serde_json::Value::from(t));
    crate::run::to_value(&RecordedInputs {
        kind: brought.kind,
        source: brought.source,
        input_hash: hash(brought.text),
        items: brought.items,
        task_hash: brought.task.map(hash),
        diff: brought.diff.map(|d| d.source.describe()),
        max_items: brought.max_items,
    })
}

/// A triage's inputs as `inputs.json` records them.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct RecordedInputs<'a> {
    kind: &'static str,
    source: &'a str,
    input_hash: String,
    items: usize,
    task_hash: Option<String>,
    diff: Option<serde_json::Value>,
    max_items: usize,
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

#[cfg(test)]
mod captures_tests;
