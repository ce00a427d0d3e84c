//! The result status every workflow ends with, and the exit code each status maps to.

use serde::{Deserialize, Serialize};

/// The public status of a run (`stanley.prompt-result/v1` `status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Everything that was planned was judged or decided.
    Complete,
    /// Some candidates were not judged (coverage incomplete, or an agent that did not finish).
    Incomplete,
    /// The shared Jev budget was exhausted.
    BudgetExhausted,
    /// No workflow could handle the request.
    Unsupported,
}

impl Status {
    /// The documented exit code of the status: 0, 10, 12 or 64.
    pub fn exit_code(self) -> i32 {
        match self {
            Status::Complete => 0,
            Status::Incomplete => 10,
            Status::BudgetExhausted => 12,
            Status::Unsupported => 64,
        }
    }

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Complete => "complete",
            Status::Incomplete => "incomplete",
            Status::BudgetExhausted => "budget_exhausted",
            Status::Unsupported => "unsupported",
        }
    }
}
