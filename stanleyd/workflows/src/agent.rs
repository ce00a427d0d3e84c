//! Delegation to a coding agent: the `Agent` port, the instructions the agent gets, the
//! delegated result envelope, and the caveats of the workflow-folder guard. The Pi adapter lives
//! in `stanley-adapters`; when to delegate is decided by routing (§2.7).

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use stanley_core::{BoxFuture, Cancel, Status};

use crate::ports::Redactor;
use crate::run::{Output, to_value};
use crate::text::truncate_chars;

/// The fixed limit of one delegated agent run.
pub const AGENT_TIMEOUT: Duration = Duration::from_secs(600);
/// Largest instructions sent to an agent (128 KiB).
pub const MAX_INSTRUCTIONS_BYTES: usize = 131_072;
/// Longest agent text kept (64 KiB).
pub const MAX_TEXT_BYTES: usize = 65_536;

/// How an agent run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentOutcome {
    /// The agent finished its turn.
    Finished,
    /// Stopped at the time limit.
    Timeout,
    /// Cancelled by the caller.
    Aborted,
    /// The agent or its model failed.
    Failed,
}

impl AgentOutcome {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentOutcome::Finished => "finished",
            AgentOutcome::Timeout => "timeout",
            AgentOutcome::Aborted => "aborted",
            AgentOutcome::Failed => "failed",
        }
    }
}

/// What an agent run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentResult {
    pub outcome: AgentOutcome,
    /// The agent's final summary (may be empty).
    pub text: String,
    pub exit_code: Option<i32>,
    pub duration_ms: u64,
    pub tool_calls: u64,
    /// Why it failed, when it did.
    pub detail: Option<String>,
    /// The failure was the model's (its turn ended in an error), not the agent process's.
    pub model_error: bool,
}

/// Progress callback: tool calls so far.
pub type AgentProgress = Box<dyn Fn(u64) + Send + Sync>;

/// A coding agent that can be given a task in a repository.
pub trait Agent: Send + Sync {
    /// Runs the agent with `instructions` until it finishes, `timeout` passes, or `cancel` fires.
    fn run<'a>(
        &'a self,
        instructions: &'a str,
        timeout: Duration,
        cancel: Cancel,
        progress: AgentProgress,
    ) -> BoxFuture<'a, AgentResult>;
}

/// The instructions a delegated request sends to the agent (verbatim, not redacted).
pub fn delegation_instructions(request: &str, input: Option<&str>) -> String {
    let mut text = String::from(
        "Stanley delegated this task to you because none of its installed workflows supports it. \
Work inside the current repository only.\n\nRules:\n\
- Do the task and nothing more.\n\
- Do not commit, push, deploy, or change anything outside the repository.\n\
- Do not create or edit files under .stanley/; Stanley manages that directory.\n\
- Do not run the stanley command.\n\
- Finish with a short plain-text summary: what changed (file paths), what you verified, and what \
you could not do. Say so plainly if the task was not completed.\n\nTask:\n",
    );
    text.push_str(request.trim());
    if let Some(input) = input.filter(|i| !i.trim().is_empty()) {
        text.push_str("\n\nSupplied input:\n");
        text.push_str(input.trim_end());
    }
    text
}

/// The two items every delegated result lists first under "not checked".
pub const FIXED_NOT_CHECKED: [&str; 2] = [
    "Stanley did not verify the agent's work: run tests and review the diff before relying on it",
    "no deterministic or Jev workflow handled this request; it was delegated to a general coding agent",
];

/// The public result of a delegation: `complete` only when the agent finished.
pub fn delegated_result(
    result: &AgentResult,
    caveats: &[String],
    redactor: &dyn Redactor,
) -> (Status, Value) {
    let status = if result.outcome == AgentOutcome::Finished {
        Status::Complete
    } else {
        Status::Incomplete
    };
    let headline = match result.outcome {
        AgentOutcome::Finished => {
            "complete - handled by an external coding agent; Stanley did not verify the result"
                .to_owned()
        }
        other => format!(
            "incomplete - the external coding agent {}; review the repository state",
            match other {
                AgentOutcome::Timeout => "was stopped at the time limit",
                AgentOutcome::Aborted => "was cancelled",
                _ => "exited with an error",
            }
        ),
    };
    let summary = redactor.text(result.text.trim()).0;
    let summary = truncate_bytes(&summary, MAX_TEXT_BYTES);
    let mut not_checked: Vec<String> = FIXED_NOT_CHECKED.iter().map(|s| (*s).to_owned()).collect();
    not_checked.extend(caveats.iter().map(|c| redactor.text(c).0));
    let mut lines = vec![headline, String::new()];
    // Why a run did not finish (or never started) is said, not only kept in the data.
    if result.outcome != AgentOutcome::Finished
        && let Some(detail) = &result.detail
    {
        lines.push(redactor.text(detail).0);
        lines.push(String::new());
    }
    lines.push(if summary.is_empty() {
        "(the agent produced no final summary)".to_owned()
    } else {
        summary.clone()
    });
    lines.push(String::new());
    lines.push("not checked:".into());
    lines.extend(not_checked.iter().map(|n| format!("  - {n}")));
    let data = AgentData {
        handled_by: "coding_agent",
        outcome: result.outcome.as_str(),
        tool_calls: result.tool_calls,
        duration_ms: result.duration_ms,
        summary,
        not_checked,
        detail: result.detail.as_ref().map(|detail| {
            truncate_chars(&redactor.text(detail).0, 2000)
                .trim_end_matches('…')
                .to_owned()
        }),
    };
    (
        status,
        to_value(&Output {
            text: lines.join("\n"),
            data,
        }),
    )
}

/// The `data` of an agent-handled result: who handled it, how it ended, the agent's summary,
/// what was not checked, and the one-line detail when the run did not finish.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AgentData {
    handled_by: &'static str,
    outcome: &'static str,
    tool_calls: u64,
    duration_ms: u64,
    summary: String,
    not_checked: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

fn truncate_bytes(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// What changed under `.stanley/workflows/` while the agent ran.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkflowChanges {
    pub added: Vec<String>,
    pub modified: Vec<String>,
    pub removed: Vec<String>,
}

/// The caveats to print and list when the agent touched the trusted workflow folder.
pub fn guard_caveats(changes: &WorkflowChanges, quarantine: &str) -> Vec<String> {
    let mut out = Vec::new();
    if !changes.added.is_empty() {
        out.push(format!(
            "the agent added {} file(s) under .stanley/workflows/; they were moved to {quarantine}/ and are not active ({})",
            changes.added.len(),
            changes.added.join(", ")
        ));
    }
    if !changes.modified.is_empty() || !changes.removed.is_empty() {
        let list = |v: &[String]| {
            if v.is_empty() {
                "none".to_owned()
            } else {
                v.join(", ")
            }
        };
        out.push(format!(
            "the agent changed trusted workflow files that were not restored; review them with git before the next run (modified: {}; removed: {})",
            list(&changes.modified),
            list(&changes.removed)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Keep;
    impl Redactor for Keep {
        fn text(&self, t: &str) -> (String, u64) {
            (t.replace("ghp_secret", "[REDACTED:github_token]"), 0)
        }
        fn json(&self, v: &Value) -> (Value, u64) {
            (v.clone(), 0)
        }
    }

    /// An agent's outcome is kept in a candidate record as its wire word.
    #[test]
    fn agent_outcomes_keep_their_words() {
        for outcome in [
            AgentOutcome::Finished,
            AgentOutcome::Timeout,
            AgentOutcome::Aborted,
            AgentOutcome::Failed,
        ] {
            let word = serde_json::to_value(outcome).unwrap();
            assert_eq!(word, outcome.as_str());
            assert_eq!(
                serde_json::from_value::<AgentOutcome>(word).unwrap(),
                outcome
            );
        }
    }

    fn result(outcome: AgentOutcome, text: &str) -> AgentResult {
        AgentResult {
            outcome,
            text: text.into(),
            exit_code: Some(0),
            duration_ms: 5,
            tool_calls: 4,
            detail: None,
            model_error: false,
        }
    }

    #[test]
    fn instructions_carry_the_task_and_input() {
        let text = delegation_instructions("  Deploy this branch ", Some("target: staging\n"));
        assert!(text.contains("Task:\nDeploy this branch\n\nSupplied input:\ntarget: staging"));
        assert!(text.contains("Do not commit"));
        assert!(!delegation_instructions("x", Some("  ")).contains("Supplied input:"));
    }

    #[test]
    fn finished_is_complete_and_the_rest_incomplete() {
        let (status, out) = delegated_result(
            &result(AgentOutcome::Finished, "did it with ghp_secret"),
            &[],
            &Keep,
        );
        assert_eq!(status, Status::Complete);
        let text = out["text"].as_str().unwrap();
        assert!(
            text.starts_with(
                "complete - handled by an external coding agent; Stanley did not verify"
            )
        );
        assert!(text.contains("[REDACTED:github_token]") && !text.contains("ghp_secret"));
        assert_eq!(out["data"]["handledBy"], "coding_agent");
        assert_eq!(out["data"]["notChecked"], json!(FIXED_NOT_CHECKED));
        for key in ["workflow", "agent", "pi"] {
            assert!(out["data"].get(key).is_none());
        }
        let (status, out) = delegated_result(&result(AgentOutcome::Timeout, ""), &[], &Keep);
        assert_eq!(status, Status::Incomplete);
        let text = out["text"].as_str().unwrap();
        assert!(text.contains("stopped at the time limit") && text.contains("no final summary"));
    }

    #[test]
    fn caveats_name_the_quarantine() {
        let c = guard_caveats(
            &WorkflowChanges {
                added: vec!["a.ts".into(), "b.ts".into()],
                modified: vec!["c.ts".into()],
                removed: vec![],
            },
            ".stanley/quarantine/x",
        );
        assert_eq!(
            c[0],
            "the agent added 2 file(s) under .stanley/workflows/; they were moved to .stanley/quarantine/x/ and are not active (a.ts, b.ts)"
        );
        assert!(c[1].ends_with("(modified: c.ts; removed: none)"));
        assert!(guard_caveats(&WorkflowChanges::default(), "q").is_empty());
    }
}
