//! The ten built-in workflows' descriptions: ids in their fixed order, routing metadata, the
//! capability gate of each, and whether it takes input. Only implemented built-ins are routable.

use serde_json::Value;

use crate::routing::{Facts, InputShape};

/// When a built-in can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// Always.
    Always,
    /// Only when the selection has a diff.
    DiffPresent,
    /// Only when there is input text that is not review comments: a log whose failures the
    /// parser finds, or any other text a person asks to triage (issue 46: a triage request with
    /// input is never refused; at worst it finds no failure and says why).
    FailureLog,
    /// Only when the input is review-comment JSON.
    ReviewComments,
}

impl Gate {
    /// Evaluates the gate against the routing facts.
    pub fn available(self, facts: &Facts) -> bool {
        match self {
            Gate::Always => true,
            Gate::DiffPresent => facts.diff,
            Gate::FailureLog => matches!(facts.input, InputShape::FailureLog | InputShape::Text),
            Gate::ReviewComments => facts.input == InputShape::ReviewComments,
        }
    }
}

/// What runs a built-in: the daemon dispatches on this, never on the id's spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `find`.
    Find,
    /// `check`.
    Check,
    /// `triage_failures`.
    TriageFailures,
    /// `triage_comments`.
    TriageComments,
    /// One of the six diff analyses (its taxonomy is `analysis::modes::mode(id)`).
    Analysis,
}

/// A built-in workflow's registration.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// The workflow id (a routing label).
    pub id: &'static str,
    /// Routing description.
    pub description: &'static str,
    /// Routing instructions.
    pub instructions: &'static str,
    /// Whether the workflow accepts `--input`.
    pub accepts_input: bool,
    /// The capability gate.
    pub gate: Gate,
    /// What runs it.
    pub kind: Kind,
    /// Whether this build runs it. A built-in that is not implemented is never offered to the
    /// router: Stanley does not register a stub that pretends.
    pub implemented: bool,
}

impl Builtin {
    /// The routing metadata object offered to the router.
    pub fn metadata(&self) -> Value {
        crate::run::to_value(&RoutingMetadata {
            description: self.description,
            instructions: self.instructions,
        })
    }
}

/// A built-in's routing metadata: what it does and when to pick it.
#[derive(serde::Serialize)]
struct RoutingMetadata {
    description: &'static str,
    instructions: &'static str,
}

/// The ten built-ins in registration order.
pub const BUILTINS: [Builtin; 10] = [
    Builtin {
        id: "find",
        description: "Find files that may be relevant to a task",
        instructions: "Rank existing repository files by how relevant they are to a task or question.",
        accepts_input: false,
        gate: Gate::Always,
        kind: Kind::Find,
        implemented: true,
    },
    Builtin {
        id: "check",
        description: "Check a diff against its task, and optionally against project rules or acceptance criteria",
        instructions: "Evaluate the current Git diff against the stated coding task and, when given as input, against project rules or acceptance criteria.",
        accepts_input: true,
        gate: Gate::DiffPresent,
        kind: Kind::Check,
        implemented: true,
    },
    Builtin {
        id: "triage_failures",
        description: "Sort test failures and show which need attention",
        instructions: "Classify failures from supplied test or CI output.",
        accepts_input: true,
        gate: Gate::FailureLog,
        kind: Kind::TriageFailures,
        implemented: true,
    },
    Builtin {
        id: "triage_comments",
        description: "Sort review comments and show which need attention",
        instructions: "Classify supplied review comments against the current repository.",
        accepts_input: true,
        gate: Gate::ReviewComments,
        kind: Kind::TriageComments,
        implemented: true,
    },
    Builtin {
        id: "review",
        description: "Review findings",
        instructions: "Review the current Git diff for concrete correctness, error-handling, state, concurrency or data-integrity risks; no stated task is needed.",
        accepts_input: false,
        gate: Gate::DiffPresent,
        kind: Kind::Analysis,
        implemented: true,
    },
    Builtin {
        id: "test_gaps",
        description: "Test gaps",
        instructions: "Find concrete changed behavior in the current Git diff that has no visible test evidence.",
        accepts_input: false,
        gate: Gate::DiffPresent,
        kind: Kind::Analysis,
        implemented: true,
    },
    Builtin {
        id: "summarize",
        description: "Change summary",
        instructions: "Classify and summarize what the current Git diff, changes or commit do; do not explain unchanged code or judge review quality.",
        accepts_input: false,
        gate: Gate::DiffPresent,
        kind: Kind::Analysis,
        implemented: true,
    },
    Builtin {
        id: "security_review",
        description: "Security review findings",
        instructions: "Review the current Git diff specifically for concrete security vulnerabilities or regressions.",
        accepts_input: false,
        gate: Gate::DiffPresent,
        kind: Kind::Analysis,
        implemented: true,
    },
    Builtin {
        id: "performance_review",
        description: "Performance review findings",
        instructions: "Review the current Git diff specifically for concrete performance regressions.",
        accepts_input: false,
        gate: Gate::DiffPresent,
        kind: Kind::Analysis,
        implemented: true,
    },
    Builtin {
        id: "compatibility_review",
        description: "Compatibility review findings",
        instructions: "Review the current Git diff specifically for breaking API, behavior, data, wire-format or configuration changes.",
        accepts_input: false,
        gate: Gate::DiffPresent,
        kind: Kind::Analysis,
        implemented: true,
    },
];

/// The built-in with this id.
pub fn builtin(id: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.id == id)
}

/// `<id>` with its first underscore replaced by a space, as usage messages name workflows.
pub fn display_id(id: &str) -> String {
    id.replacen('_', " ", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_has_what_runs_it() {
        for b in BUILTINS {
            let analysis = crate::analysis::modes::mode(b.id).is_some();
            assert_eq!(analysis, b.kind == Kind::Analysis, "{}", b.id);
        }
    }
}
