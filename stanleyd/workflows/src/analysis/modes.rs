//! The six diff analyses' fixed taxonomies (`diff-analysis-policy@2`): labels and which of them
//! are concerns, the question and guidance, the importance rubric, the flag prefix, what each
//! does not check, and the terms that raise a hunk's priority.

/// One diff analysis.
#[derive(Debug)]
pub struct Mode {
    /// The workflow id.
    pub id: &'static str,
    /// Routing description; lowercased, the human section title.
    pub description: &'static str,
    /// `summary.description`.
    pub summary: &'static str,
    /// Choice labels with their descriptions, `cannot_tell` last.
    pub labels: &'static [(&'static str, &'static str)],
    /// The labels that are concerns.
    pub concerns: &'static [&'static str],
    /// The classification question.
    pub question: &'static str,
    /// The same question in a person's words, as a finding quotes it (issue 49).
    pub asks: &'static str,
    /// Guidance for the classification.
    pub guidance: &'static str,
    /// The importance question.
    pub importance: &'static str,
    /// Importance levels 0..=3.
    pub levels: [&'static str; 4],
    /// Flag prefix (`<prefix>_<label>`); None: the bare label.
    pub prefix: Option<&'static str>,
    /// What the analysis does not check.
    pub not_checked: [&'static str; 3],
    /// Terms that raise a hunk's priority.
    pub terms: &'static [&'static str],
}

const RISK_LEVELS: [&str; 4] = [
    "No meaningful risk or follow-up is visible in this hunk.",
    "A minor or local concern that ordinary review can settle.",
    "A material concern that could affect behavior, users or maintainability and deserves investigation.",
    "A high-impact concern: a plausible failure, vulnerability, regression or breaking change is visible in the evidence.",
];

/// `review`.
pub const REVIEW: Mode = Mode {
    id: "review",
    description: "Review findings",
    summary: "Review changed code for concrete correctness risks",
    labels: &[
        (
            "correctness_risk",
            "The change can plausibly compute or return the wrong result.",
        ),
        (
            "error_handling_risk",
            "Failures are swallowed, mishandled or newly possible without handling.",
        ),
        (
            "state_or_concurrency_risk",
            "Shared state, ordering, races or lifecycle can go wrong.",
        ),
        (
            "data_integrity_risk",
            "Stored or transmitted data can be lost, corrupted or inconsistent.",
        ),
        (
            "maintainability_only",
            "Only readability or structure is affected; behavior is not at risk.",
        ),
        (
            "no_issue_visible",
            "No concrete problem is visible in the shown change.",
        ),
        ("cannot_tell", "The shown evidence is not enough to decide."),
    ],
    concerns: &[
        "correctness_risk",
        "error_handling_risk",
        "state_or_concurrency_risk",
        "data_integrity_risk",
    ],
    question: "Which review disposition matters most for this changed hunk?",
    asks: "Could this change give wrong results, mishandle errors, race or lose data?",
    guidance: "Pick a risk only for a concrete behavioral problem the shown diff supports. Style preferences, speculation that needs unseen code, and missing hardening unrelated to the change are not risks, and a refactor is not a defect by itself.",
    importance: "How serious is the most plausible concrete review concern in this hunk?",
    levels: RISK_LEVELS,
    prefix: Some("review"),
    not_checked: [
        "runtime behavior outside the shown diff",
        "style-only and subjective design preferences",
        "whether tests, builds, or linters pass",
    ],
    terms: &[
        "catch",
        "throw",
        "return",
        "delete",
        "update",
        "null",
        "undefined",
        "await",
    ],
};

/// `test_gaps`.
pub const TEST_GAPS: Mode = Mode {
    id: "test_gaps",
    description: "Test gaps",
    summary: "Identify concrete changed behavior that lacks visible test evidence",
    labels: &[
        (
            "missing_behavior_test",
            "Changed behavior has no visible test.",
        ),
        (
            "missing_edge_case_test",
            "A new boundary or edge case has no visible test.",
        ),
        (
            "missing_error_path_test",
            "A new or changed failure path has no visible test.",
        ),
        (
            "missing_integration_test",
            "Changed wiring between components has no visible test.",
        ),
        (
            "test_evidence_present",
            "The shown test changes cover the changed behavior.",
        ),
        (
            "not_test_relevant",
            "The hunk changes nothing that a test should pin.",
        ),
        ("cannot_tell", "The shown evidence is not enough to decide."),
    ],
    concerns: &[
        "missing_behavior_test",
        "missing_edge_case_test",
        "missing_error_path_test",
        "missing_integration_test",
    ],
    question: "Which test-coverage disposition fits this implementation hunk and the test changes shown with it?",
    asks: "Is behavior this change makes left without a visible test?",
    guidance: "A missing-test label needs a concrete changed behavior or boundary. Tests outside the diff may already exist, so choose cannot_tell unless the diff itself supports the gap. Formatting, wiring and neutral refactors need no new tests.",
    importance: "How much would the possibly missing test matter for preventing a meaningful regression?",
    levels: RISK_LEVELS,
    prefix: None,
    not_checked: [
        "unchanged tests outside the diff",
        "runtime coverage measurements",
        "whether the test suite passes",
    ],
    terms: &[
        "if", "else", "switch", "catch", "throw", "validate", "fallback", "retry",
    ],
};

/// `summarize`.
pub const SUMMARIZE: Mode = Mode {
    id: "summarize",
    description: "Change summary",
    summary: "Classify the purpose and centrality of each changed hunk",
    labels: &[
        (
            "feature",
            "Adds or extends user-visible or caller-visible behavior.",
        ),
        (
            "bug_fix",
            "Corrects behavior that was wrong before the change.",
        ),
        (
            "refactor",
            "Restructures code without changing what it does.",
        ),
        (
            "test_change",
            "Adds, removes or changes tests or test fixtures.",
        ),
        (
            "configuration",
            "Changes build, CI, dependency or runtime configuration.",
        ),
        (
            "documentation",
            "Changes documentation, comments or other prose.",
        ),
        (
            "cleanup",
            "Removes dead code, renames or tidies without a new purpose.",
        ),
        (
            "mixed",
            "Two or more of these purposes are equally central to the hunk.",
        ),
        (
            "cannot_tell",
            "The shown hunk does not make its purpose clear.",
        ),
    ],
    concerns: &[],
    question: "What kind of change does this hunk primarily make?",
    asks: "What kind of change is this?",
    guidance: "Classify only what the hunk visibly does, by its primary purpose. Choose mixed only when two purposes are equally central, and cannot_tell when the shown lines do not reveal a purpose.",
    importance: "How central is this hunk to the overall diff?",
    levels: [
        "Incidental or purely mechanical support for the rest of the change.",
        "A secondary change that supports the main ones.",
        "A material part of the change.",
        "One of the primary changes of the diff.",
    ],
    prefix: Some("summary"),
    not_checked: [
        "a prose change description or release note",
        "the motivation beyond what the diff shows",
        "runtime correctness",
    ],
    terms: &[],
};

/// `security_review`.
pub const SECURITY: Mode = Mode {
    id: "security_review",
    description: "Security review findings",
    summary: "Review changed code for concrete security risks",
    labels: &[
        (
            "authorization_or_authentication",
            "Who may do what, or who someone is, can now be decided wrongly.",
        ),
        (
            "injection_or_unsafe_execution",
            "Input can reach a query, command, template or eval unsafely.",
        ),
        (
            "secret_or_sensitive_data_exposure",
            "Secrets or sensitive data can leak.",
        ),
        (
            "path_or_resource_access",
            "Files, URLs or other resources can be reached outside their intended bounds.",
        ),
        (
            "cryptography_or_session_risk",
            "Cryptography, tokens or sessions are weakened or misused.",
        ),
        (
            "credential_policy_risk",
            "Password, key or credential policy is weakened.",
        ),
        (
            "dependency_or_supply_chain_risk",
            "A dependency or build input becomes untrustworthy.",
        ),
        ("security_hardening", "The change makes the code safer."),
        (
            "security_relevant_no_issue",
            "Security-relevant code changed without a visible problem.",
        ),
        (
            "no_security_relevance",
            "The change does not touch anything security-relevant.",
        ),
        ("cannot_tell", "The shown evidence is not enough to decide."),
    ],
    concerns: &[
        "authorization_or_authentication",
        "injection_or_unsafe_execution",
        "secret_or_sensitive_data_exposure",
        "path_or_resource_access",
        "cryptography_or_session_risk",
        "credential_policy_risk",
        "dependency_or_supply_chain_risk",
    ],
    question: "Which security disposition fits this changed hunk?",
    asks: "Does this change open a concrete security weakness?",
    guidance: "Tell a concrete vulnerability apart from merely touching a sensitive area. Do not report hypothetical hardening without a plausible attack path.",
    importance: "How severe is the most plausible security impact visible in this hunk?",
    levels: RISK_LEVELS,
    prefix: Some("security"),
    not_checked: [
        "dependencies or configuration outside the diff",
        "dynamic exploitability or penetration testing",
        "a complete security audit",
    ],
    terms: &[
        "auth",
        "permission",
        "role",
        "token",
        "secret",
        "password",
        "session",
        "cookie",
        "exec",
        "query",
        "redirect",
        "crypto",
    ],
};

/// `performance_review`.
pub const PERFORMANCE: Mode = Mode {
    id: "performance_review",
    description: "Performance review findings",
    summary: "Review changed code for concrete performance risks",
    labels: &[
        (
            "algorithmic_complexity_risk",
            "The work grows worse than before with input size.",
        ),
        (
            "repeated_io_or_query_risk",
            "I/O or queries now repeat per item or per call.",
        ),
        (
            "blocking_or_serialization_risk",
            "Work that could overlap now blocks or runs one at a time.",
        ),
        (
            "memory_or_retention_risk",
            "Memory grows or is held longer than needed.",
        ),
        (
            "cache_or_batching_regression",
            "A cache or batch stops working or is bypassed.",
        ),
        (
            "performance_improvement",
            "The change makes the code faster or leaner.",
        ),
        (
            "performance_relevant_no_issue",
            "Performance-relevant code changed without a visible problem.",
        ),
        (
            "no_performance_relevance",
            "The change does not affect performance.",
        ),
        ("cannot_tell", "The shown evidence is not enough to decide."),
    ],
    concerns: &[
        "algorithmic_complexity_risk",
        "repeated_io_or_query_risk",
        "blocking_or_serialization_risk",
        "memory_or_retention_risk",
        "cache_or_batching_regression",
    ],
    question: "Which performance disposition fits this changed hunk?",
    asks: "Does this change make a likely hot path measurably costlier?",
    guidance: "Report only a concrete change in cost that is likely to matter on a plausible hot or scaling path; not every allocation, loop, await or database call is a risk.",
    importance: "How material is the most plausible performance impact visible in this hunk?",
    levels: RISK_LEVELS,
    prefix: Some("performance"),
    not_checked: [
        "runtime profiles, benchmarks, or production traffic",
        "performance behavior outside the changed lines",
        "whether the observed cost is acceptable for the deployment",
    ],
    terms: &[
        "for ", "while ", ".map(", ".filter(", "await ", "query", "fetch", "cache", "batch",
        "render",
    ],
};

/// `compatibility_review`.
pub const COMPATIBILITY: Mode = Mode {
    id: "compatibility_review",
    description: "Compatibility review findings",
    summary: "Review changed code for concrete compatibility risks",
    labels: &[
        (
            "breaking_source_api",
            "Callers of a public function, type or module must change.",
        ),
        (
            "breaking_behavior",
            "Existing callers get different behavior.",
        ),
        (
            "breaking_data_or_wire_format",
            "Stored data or messages no longer read or write as before.",
        ),
        (
            "breaking_configuration",
            "Existing configuration stops working or changes meaning.",
        ),
        (
            "migration_or_deprecation",
            "A compatible migration path or deprecation is added.",
        ),
        (
            "additive_compatible",
            "Only additions that existing users are unaffected by.",
        ),
        (
            "internal_only",
            "Only internals with no outside consumer changed.",
        ),
        (
            "no_compatibility_relevance",
            "Nothing a consumer depends on changed.",
        ),
        ("cannot_tell", "The shown evidence is not enough to decide."),
    ],
    concerns: &[
        "breaking_source_api",
        "breaking_behavior",
        "breaking_data_or_wire_format",
        "breaking_configuration",
    ],
    question: "Which compatibility disposition fits this changed hunk?",
    asks: "Does this change break a contract someone outside relies on?",
    guidance: "Breaking needs a visible contract that is used across a boundary. Consider source APIs, runtime behavior, persisted data, configuration and wire formats separately.",
    importance: "How severe is the most plausible compatibility impact visible in this hunk?",
    levels: RISK_LEVELS,
    prefix: Some("compatibility"),
    not_checked: [
        "external consumers not represented in the repository",
        "persisted data or deployed versions outside the diff",
        "a full semantic-versioning decision",
    ],
    terms: &[
        "export",
        "public",
        "api",
        "schema",
        "config",
        "version",
        "deprecated",
        "migration",
    ],
};

/// Every mode, in registration order.
pub const MODES: [&Mode; 6] = [
    &REVIEW,
    &TEST_GAPS,
    &SUMMARIZE,
    &SECURITY,
    &PERFORMANCE,
    &COMPATIBILITY,
];

/// The mode with this workflow id.
pub fn mode(id: &str) -> Option<&'static Mode> {
    MODES.iter().copied().find(|m| m.id == id)
}
