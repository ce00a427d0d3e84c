//! Routing: the deterministic facts, the routing frame (`route-intent@1`), the acceptance policy
//! `route-intent-policy@1`, and the texts of every fallback when no workflow is selected.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};
use stanley_core::{Answer, Cancelled, Denial, Frame, Pace, Question, Questions, Status};

use crate::triage::logs::{ParsedLog, Parsers, parse_log_paced};

use crate::run::to_value;
use crate::text::Action;

/// The label the router picks when no workflow clearly fits.
pub const CANNOT_TELL: &str = "cannot_tell";
/// The policy version recorded with routing decisions.
pub const POLICY: &str = "route-intent-policy@1";
/// Minimum confidence of an accepted pick.
pub const MIN_CONFIDENCE: f64 = 0.6;
/// Minimum probability of an accepted pick.
pub const MIN_PROBABILITY: f64 = 0.55;
/// Minimum margin over the runner-up (including `cannot_tell`).
pub const MIN_MARGIN: f64 = 0.15;

/// The recognized shape of a supplied input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputShape {
    ReviewComments,
    FailureLog,
    Text,
    /// No input (and, read from a record, a shape this version does not know).
    #[serde(other)]
    None,
}

impl InputShape {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            InputShape::None => "none",
            InputShape::ReviewComments => "review_comments",
            InputShape::FailureLog => "failure_log",
            InputShape::Text => "text",
        }
    }

    /// The shape of an input text, by structure, not by its first character:
    /// [`Reading::of`] without a cancellation (tests and benches).
    #[cfg(test)]
    pub fn of(input: Option<&str>) -> Self {
        let cancel = stanley_core::Cancel::new();
        match input {
            Some(text) => match Reading::of(text, Parsers::All, &Pace::new(&cancel)) {
                Ok(reading) => reading.shape,
                Err(Cancelled) => unreachable!("the signal was never fired"),
            },
            None => InputShape::None,
        }
    }
}

/// A supplied input read once per request: its shape, and the failure log it parses as, which
/// routing and triage share (D-162).
#[derive(Clone, Debug)]
pub struct Reading {
    /// Its shape.
    pub shape: InputShape,
    /// The text read as a failure log.
    pub log: Arc<ParsedLog>,
}

impl Reading {
    /// Reads `text`, by structure, not by its first character: `none` when blank;
    /// `review_comments` when it parses as review comments (an array of objects with a body; an
    /// empty array does); `failure_log` when the failure parser finds a failure in it (a log
    /// with any preamble, a runner's JSON or JSON-lines report, JUnit XML); then
    /// `review_comments` again for broken JSON that means to be comments (it names a `body`),
    /// so comment triage can name the parse error; else `text`. CPU-bound: it ends early with
    /// [`Cancelled`] once `pace`'s signal fires.
    pub fn of(text: &str, parsers: Parsers, pace: &Pace<'_>) -> Result<Self, Cancelled> {
        use crate::triage::review_comments::looks_like_broken_json;
        let log = Arc::new(parse_log_paced(text, parsers, pace)?);
        let shape = if text.trim().is_empty() {
            InputShape::None
        } else if too_many_comments_or_comments(text) {
            InputShape::ReviewComments
        } else if log
            .blocks
            .iter()
            // A step's error lines alone (a job that failed outside any test) are found in any
            // text with error words; they do not make it a log.
            .any(|b| !b.anchors.contains(&"job_failure"))
        {
            InputShape::FailureLog
        } else if looks_like_broken_json(text) && text.contains("\"body\"") {
            InputShape::ReviewComments
        } else {
            InputShape::Text
        };
        Ok(Self { shape, log })
    }
}

/// Whether `text` parses as review comments, or as a list of more comments than comment
/// triage takes (its first item has a `body`): triage then says the limit, where routing would
/// have called a pull request's long review no known input at all.
fn too_many_comments_or_comments(text: &str) -> bool {
    use crate::triage::review_comments::{CommentsError, parse_comments};
    match parse_comments(text) {
        Ok(_) => true,
        Err(CommentsError::TooMany(_)) => {
            let doc: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
            let items = doc.as_array().or_else(|| doc["comments"].as_array());
            items
                .and_then(|items| items.first())
                .is_some_and(|first| first["body"].is_string())
        }
        Err(_) => false,
    }
}

/// The deterministic facts one routing decision sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// Whether the selection has a diff.
    pub diff: bool,
    /// The input's shape.
    pub input: InputShape,
}

/// One routing candidate.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The workflow id.
    pub id: String,
    /// Redacted routing metadata.
    pub metadata: Value,
    /// Whether its gate passed.
    pub available: bool,
}

const INSTRUCTIONS: [&str; 5] = [
    "Pick the one workflow that directly satisfies the request.",
    "False capabilities are hard constraints: never pick a workflow that is unavailable.",
    "Do not invent another operation. Pick cannot_tell when the request is ambiguous or outside these workflows.",
    "Pick a workflow for a compound or action request only when its routing metadata clearly says it handles the whole request.",
    "Treat each workflow's routing JSON as selection guidance written by its author, whatever its field names.",
];
const CANNOT_TELL_TEXT: &str = "No available workflow clearly satisfies the complete request. Pick this fallback for unsupported, ambiguous or unavailable work.";

/// The state of the routing frame: the request and what Stanley can see around it.
#[derive(Serialize)]
struct RouteState<'a> {
    request: &'a str,
    context: RouteContext,
}

/// What routing sees around a request: whether there is a diff, the input's shape, and which
/// workflows are available.
#[derive(Serialize)]
struct RouteContext {
    diff: &'static str,
    input: &'static str,
    capabilities: Map<String, Value>,
}

/// The detail of the fallback for a diff workflow with no diff.
#[derive(Serialize)]
struct NoDiff<'a> {
    reason: &'static str,
    workflow: &'a str,
    scope: &'a str,
}

/// The detail of the `unroutable` fallback: the action asked for and whether input came.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Unroutable {
    reason: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    requested: Option<&'static str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    input_provided: bool,
}

/// The routing frame for a request (the executor redacts it before it is sent).
pub fn route_frame(request: &str, facts: Facts, candidates: &[Candidate]) -> Frame {
    let capabilities: Map<String, Value> = candidates
        .iter()
        .map(|c| (c.id.clone(), Value::Bool(c.available)))
        .collect();
    let mut criteria: Vec<(String, Value)> = candidates
        .iter()
        .map(|c| (c.id.clone(), c.metadata.clone()))
        .collect();
    criteria.push((CANNOT_TELL.into(), Value::from(CANNOT_TELL_TEXT)));
    Frame {
        template: "route-intent@1".into(),
        scope: "cli-request".into(),
        state: to_value(&RouteState {
            request,
            context: RouteContext {
                diff: if facts.diff { "present" } else { "absent" },
                input: facts.input.as_str(),
                capabilities,
            },
        }),
        questions: Questions::new().with(
            "route",
            Question::Choice {
                instructions: Value::from(INSTRUCTIONS.as_slice()),
                criteria,
            },
        ),
        provenance: Value::Array(Vec::new()),
    }
}

/// Why routing ended where it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteReason {
    Selected,
    Skipped,
    CannotTell,
    ModelUncertain,
    Unavailable,
    RoutingError,
    NoCandidates,
    ActionGuard,
}

impl RouteReason {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RouteReason::Selected => "selected",
            RouteReason::Skipped => "skipped",
            RouteReason::CannotTell => "cannot_tell",
            RouteReason::ModelUncertain => "model_uncertain",
            RouteReason::Unavailable => "unavailable",
            RouteReason::RoutingError => "routing_error",
            RouteReason::NoCandidates => "no_candidates",
            RouteReason::ActionGuard => "action_guard",
        }
    }
}

/// The policy's verdict on a validated `route` answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Acceptance {
    /// The accepted workflow, or None for `cannot_tell`.
    pub selected: Option<String>,
    /// Why.
    pub reason: RouteReason,
    /// The workflow Jev picked that is unavailable here (its gate failed), for `unavailable`.
    pub unavailable: Option<String>,
}

/// Applies `route-intent-policy@1` to a validated `route` answer.
pub fn accept(answer: &Answer, candidates: &[Candidate]) -> Acceptance {
    let Answer::Choice {
        choice,
        confidence,
        probabilities,
    } = answer
    else {
        return Acceptance {
            selected: None,
            reason: RouteReason::RoutingError,
            unavailable: None,
        };
    };
    let refuse = |reason| Acceptance {
        selected: None,
        reason,
        unavailable: None,
    };
    if choice == CANNOT_TELL {
        return refuse(RouteReason::CannotTell);
    }
    if !candidates.iter().any(|c| &c.id == choice && c.available) {
        return Acceptance {
            unavailable: Some(choice.clone()),
            ..refuse(RouteReason::Unavailable)
        };
    }
    let p = answer.p(choice);
    let runner_up = probabilities
        .iter()
        .filter(|(l, _)| l != choice)
        .map(|(_, p)| *p)
        .fold(0.0, f64::max);
    if *confidence < MIN_CONFIDENCE || p < MIN_PROBABILITY || p - runner_up < MIN_MARGIN {
        return refuse(RouteReason::ModelUncertain);
    }
    Acceptance {
        selected: Some(choice.clone()),
        reason: RouteReason::Selected,
        unavailable: None,
    }
}

/// The answer to a request for a diff workflow when there is nothing to look at: the scope
/// has no change at all. It completes (exit 0), saying so, rather than asking what was meant.
pub fn nothing_to_look_at(workflow: &str, scope: &str) -> Fallback {
    let what = match workflow {
        "summarize" => "summarize",
        "check" => "check",
        _ => "review",
    };
    let selection = match scope {
        "staged" => "nothing is staged",
        "branch" => "the branch has no commits beyond its base",
        _ => "the worktree has no changes against HEAD and no untracked files",
    };
    Fallback {
        status: Status::Complete,
        text: format!(
            "Nothing to {what}: there is no current diff ({selection}). Make a change, or pick \
             another selection with --scope staged or --scope branch."
        ),
        data: to_value(&NoDiff {
            reason: "no_diff",
            workflow,
            scope,
        }),
    }
}

/// A fallback result: status, text and the detail object.
#[derive(Clone, Debug, PartialEq)]
pub struct Fallback {
    pub status: Status,
    pub text: String,
    pub data: Value,
}

/// The notice that opens a code-change request's fallback when no agent can act.
pub const NO_AGENT_NOTICE: &str = "Stanley cannot implement or fix code without a coding agent \
(install Pi to enable delegation); no files were changed.";

/// The notice that opens the read-only analysis run instead of a code change.
pub const FIND_FALLBACK_NOTICE: &str = "Stanley cannot implement or fix code without a coding \
agent (install Pi to enable delegation); no files were changed; only read-only relevant-code \
analysis was run";

const CLARIFY: &str = "cannot tell what analysis you want. Should Stanley find relevant code; \
check, review or summarize the current diff; look at its test, security, performance or \
compatibility risks; or triage supplied failures or comments?";

/// The fallback for a top-level request that no workflow was selected for and that was not
/// delegated (reason `unroutable`).
pub fn fallback(
    action: Option<Action>,
    facts: Facts,
    input_provided: bool,
    exhausted: Option<Denial>,
) -> Fallback {
    let data = to_value(&Unroutable {
        reason: "unroutable",
        requested: action.map(Action::as_str),
        input_provided,
    });
    if let Some(denial) = exhausted {
        return Fallback {
            status: Status::BudgetExhausted,
            text: format!(
                "The request could not be routed because the shared {} budget was exhausted.",
                denial.as_str()
            ),
            data,
        };
    }
    let text = match action {
        Some(Action::CodeChange) => NO_AGENT_NOTICE.to_owned(),
        Some(Action::ExternalAction) => "No installed workflow can perform this action. Built-in workflows are read-only and cannot run commands, commit, push, deploy, reply, or resolve.".to_owned(),
        None => {
            let context = if facts.input == InputShape::Text {
                " The supplied input was not recognized as failures or review-comment JSON."
            } else if !facts.diff && facts.input == InputShape::None {
                " There is no current diff or recognized input to disambiguate the request."
            } else {
                ""
            };
            format!("No installed workflow can confidently handle the complete request. {CLARIFY}{context}")
        }
    };
    Fallback {
        status: Status::Unsupported,
        text: crate::text::paragraph(&text),
        data,
    }
}

#[cfg(test)]
#[path = "routing_tests.rs"]
mod tests;
