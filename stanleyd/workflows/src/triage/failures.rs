//! The `triage_failures` built-in (`triage-failures-policy@3`): failure blocks from a supplied
//! log, duplicates grouped by fingerprint, one frame per distinct failure asking how it relates
//! to the current diff and what kind of failure it is, one allowlisted follow-up probe chosen by
//! code, and the steps that would settle each question.

use serde::Serialize;
use serde_json::Value;
use stanley_core::{Answer, Executor, Frame, Question, Questions};

use crate::diff::{DiffEvidence, Hunk};
use crate::ladder::declared_names;
use crate::policy::SECTION_ROWS;
use crate::policy::{
    EVIDENCE_POLICY, Instructions, UNTRUSTED_INSTRUCTION_THRESHOLD, untrusted_instruction_question,
};
use crate::ports::Workspace;
use crate::run::{Disposition, Finding, Parked, Run, Section, Severity, to_value};
use crate::text::round3;
use crate::triage::logs::{FailureBlock, ParsedLog};

/// The policy version.
pub const POLICY: &str = "triage-failures-policy@3";
/// Failure blocks judged at most.
pub const DEFAULT_MAX_ITEMS: usize = 40;
const DECISIVE: f64 = 0.6;
const UNRELATED_CONFLICT: f64 = 0.7;
const NONDETERMINISM: f64 = 0.7;
const PROBE_MISSING_EVIDENCE: f64 = 0.5;
const PROBE_CONTEXT_LINES: u64 = 15;

const RERUN: &str = "rerun the failing test to check repeatability";
const BASE: &str = "run the same test on the base commit";

/// What the CLI passes.
#[derive(Clone, Debug)]
pub struct FailuresInput {
    /// The log text.
    pub text: String,
    /// `stdin` or the repository-relative path.
    pub source: String,
    /// The request, as the task.
    pub task: String,
    /// The repository root, to strip from absolute stack paths.
    pub root: String,
    /// Blocks judged at most.
    pub max_items: usize,
}

/// The inputs recorded in `inputs.json`.
pub fn recorded_inputs(
    input: &FailuresInput,
    parsed: &ParsedLog,
    diff: Option<&DiffEvidence>,
) -> Value {
    super::recorded_inputs(super::Brought {
        kind: "failures",
        source: &input.source,
        text: &input.text,
        items: parsed.blocks.len(),
        task: Some(&input.task),
        diff,
        max_items: input.max_items,
    })
}

/// What the frames are told about the diff: its paths, hunk headers and declared symbols.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DiffSummary<'a> {
    changed_paths: Vec<&'a str>,
    omitted_paths: usize,
    hunk_headers: Vec<String>,
    declared_symbols: Vec<String>,
}

/// A worked example of a choice: a case and the label it gets.
#[derive(Serialize)]
struct CaseExample {
    case: &'static str,
    answer: &'static str,
}

const RELATION_EXAMPLES: [CaseExample; 5] = [
    CaseExample {
        case: "the diff changes total() and the failing assertion compares total()",
        answer: "caused_by_diff",
    },
    CaseExample {
        case: "getaddrinfo ENOTFOUND while fetching a remote service",
        answer: "environment_or_infrastructure",
    },
    CaseExample {
        case: "the failing test and its code are untouched and the diff only edits docs",
        answer: "unrelated_to_diff",
    },
    CaseExample {
        case: "a timeout in a test near a changed file with no visible link",
        answer: "cannot_tell",
    },
    CaseExample {
        case: "a compile error in a file the diff renamed a symbol in",
        answer: "caused_by_diff",
    },
];

/// The state of a failure's frame.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FailureState<'a> {
    evidence_policy: &'static str,
    task: &'a str,
    failure: FailureShown<'a>,
    observed: Observed,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_summary: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_evidence: Option<&'a Value>,
}

/// The failure a frame shows: its log window.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FailureShown<'a> {
    id: &'a str,
    test_name: &'a Option<String>,
    message: &'a Option<String>,
    log_lines: String,
    omitted_lines: usize,
}

/// A log window a failure's frame was built from.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogWindow<'a> {
    kind: &'static str,
    path: &'a str,
    start_line: usize,
    end_line: usize,
    probe: &'static str,
}

/// A probe's result: the stack's source around the failing line.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SourceExcerpt {
    kind: &'static str,
    path: String,
    start_line: u64,
    end_line: u64,
    text: String,
}

/// A probe's result: the changed hunks of files on the stack.
#[derive(Serialize)]
struct ChangedHunks {
    kind: &'static str,
    hunks: Vec<Value>,
}

/// The candidates `failures` considered, as `candidates.json` records them.
#[derive(Serialize)]
struct FailureCandidates<'a> {
    kind: &'static str,
    source: &'a str,
    blocks: Vec<&'a str>,
}

/// `failures`' summary.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FailuresSummary<'a> {
    kind: &'static str,
    source: &'a str,
    log_lines: usize,
    failure_blocks: usize,
    families: usize,
    duplicates: usize,
    diff: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ci_log: Option<&'static str>,
    /// How the failures read agree with the count the log states: `agrees`, `differs`,
    /// `unstated` (issue 46).
    agreement: &'static str,
    /// The count the log states nearest to the failures read.
    #[serde(skip_serializing_if = "Option::is_none")]
    stated_failures: Option<usize>,
}

/// The `hard_conflict` decision: the stack touches a changed file, yet Jev says unrelated.
#[derive(Serialize)]
struct UnrelatedConflict {
    unrelated: f64,
}

/// The `failure_relation` decision.
#[derive(Serialize)]
struct RelationDecision<'a> {
    relation: &'a str,
    kind: &'a str,
}

/// Resolves a stack path to a tracked file: exact, else the unique tracked path that is a
/// `/`-suffix of it or of which it is a `/`-suffix.
pub fn resolve(path: &str, root: &str, tracked: &[String]) -> Option<String> {
    let mut p = path.replace('\\', "/");
    if let Some(r) = p.strip_prefix("file://") {
        p = r.to_owned();
    }
    let root = root.trim_end_matches('/');
    if !root.is_empty()
        && let Some(r) = p.strip_prefix(root)
    {
        p = r.trim_start_matches('/').to_owned();
    }
    let p = p.trim_start_matches("./").to_owned();
    if tracked.contains(&p) {
        return Some(p);
    }
    let matches: Vec<&String> = tracked
        .iter()
        .filter(|t| p.ends_with(&format!("/{t}")) || t.ends_with(&format!("/{p}")))
        .collect();
    (matches.len() == 1).then(|| matches[0].clone())
}

fn diff_summary(evidence: &DiffEvidence, run: &mut Run) -> Value {
    let mut paths: Vec<&str> = Vec::new();
    for f in &evidence.files {
        if !paths.contains(&f.path.as_str()) {
            paths.push(&f.path);
        }
    }
    if paths.len() > 200 {
        run.limits.push(format!(
            "diff summary lists 200 of {} changed paths",
            paths.len()
        ));
    }
    let headers: Vec<String> = evidence
        .hunks
        .iter()
        .take(100)
        .map(|h| {
            format!(
                "{} @@ -{} +{} @@ {}",
                h.path, h.old_start, h.new_start, h.section
            )
            .trim()
            .to_owned()
        })
        .collect();
    let mut symbols: Vec<String> = Vec::new();
    for h in &evidence.hunks {
        for name in declared_names(h) {
            if symbols.len() < 100 && !symbols.contains(&name) {
                symbols.push(name);
            }
        }
    }
    to_value(&DiffSummary {
        changed_paths: paths.iter().take(200).copied().collect(),
        omitted_paths: paths.len().saturating_sub(200),
        hunk_headers: headers,
        declared_symbols: symbols,
    })
}

fn questions(with_diff: bool) -> Questions {
    let mut q = Questions::new();
    if with_diff {
        q = q.with(
            "relation_to_diff",
            Question::choice(
                Instructions {
                    worked_examples: Some(to_value(&RELATION_EXAMPLES)),
                    ..Instructions::new("How does this failure relate to the current diff?")
                        .guidance("Pick the best-supported relation. caused_by_diff needs a concrete bridge from a changed path, symbol or behavior to the failure's mechanism; exit codes, timing, shared words or overlapping paths alone are not enough. Choose cannot_tell while several explanations remain viable, and remember that no overlap does not prove the failure unrelated.")
                },
                [
                    ("caused_by_diff", "A concrete change in the diff plausibly causes this failure."),
                    ("unrelated_to_diff", "The failure's mechanism does not involve the changed code."),
                    ("environment_or_infrastructure", "Network, resources, permissions or services caused it."),
                    ("cannot_tell", "Several explanations remain viable."),
                ],
            ),
        );
    }
    q.with(
        "failure_kind",
        Question::choice(
            "What kind of failure is this?",
            [
                (
                    "assertion_mismatch",
                    "A test's expected value differs from the actual one.",
                ),
                (
                    "runtime_exception",
                    "The code threw or panicked while running.",
                ),
                (
                    "compile_or_type_error",
                    "The code did not compile or type-check.",
                ),
                ("timeout", "Something took longer than allowed."),
                (
                    "environment_or_setup",
                    "The environment, fixtures or setup failed.",
                ),
                (
                    "snapshot_mismatch",
                    "A stored snapshot differs from the output.",
                ),
                (
                    "cannot_tell",
                    "The log does not show what kind of failure it is.",
                ),
            ],
        ),
    )
    .with(
        "nondeterminism_signature",
        Question::noul(
            "Does the failure look dependent on timing, ordering, randomness or shared state?",
            "The shown evidence points at timing, ordering, randomness or shared state.",
            "Nothing in the evidence suggests nondeterminism.",
        ),
    )
    .with(
        "missing_evidence",
        Question::choice(
            "Which missing evidence would most help explain this failure?",
            [
                ("none", "The shown evidence is enough."),
                (
                    "full_stack_trace",
                    "The complete error output or stack trace.",
                ),
                ("test_source", "The failing test's source code."),
                ("changed_code", "The changed code on the failure's stack."),
                (
                    "prior_run_history",
                    "Whether the test failed before or passes on a rerun.",
                ),
                ("cannot_tell", "It is not clear what would help."),
            ],
        ),
    )
    .with(
        "untrusted_instruction_text",
        untrusted_instruction_question(),
    )
}

fn decisive(answer: &Answer, threshold: f64) -> Option<String> {
    let Answer::Choice { probabilities, .. } = answer else {
        return None;
    };
    probabilities
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .filter(|(_, p)| *p >= threshold)
        .map(|(l, _)| l.clone())
}

fn key_lines(block: &FailureBlock) -> Vec<String> {
    let markers = [
        "FAIL",
        "not ok",
        "Error",
        "Exception",
        "panic",
        "Traceback",
        "expected",
        "received",
        "assert",
    ];
    let hits: Vec<String> = block
        .lines
        .iter()
        .filter(|l| {
            markers
                .iter()
                .any(|m| l.contains(m) || l.to_lowercase().contains(&m.to_lowercase()))
        })
        .take(8)
        .map(|l| l.chars().take(300).collect())
        .collect();
    if hits.is_empty() {
        block
            .lines
            .iter()
            .take(8)
            .map(|l| l.chars().take(300).collect())
            .collect()
    } else {
        hits
    }
}

struct Planned<'a> {
    block: &'a FailureBlock,
    resolved: Vec<Option<String>>,
    touches: Option<bool>,
}

/// What the triage needs from its input, shared by every phase.
struct Context<'a> {
    input: &'a FailuresInput,
    diff: Option<&'a DiffEvidence>,
    /// The diff summary sent with every frame (None without a diff).
    summary_of_diff: Option<Value>,
}

/// The limits a log's blocks impose, recorded in `run`.
fn record_limits(input: &FailuresInput, parsed: &ParsedLog, run: &mut Run) {
    run.limits.extend(parsed.left_out.iter().cloned());
    if parsed.blocks.is_empty() {
        run.limits
            .push("no failure anchors were recognized; the log format may be unsupported".into());
        run.incomplete = true;
    }
    if parsed.blocks.len() > input.max_items {
        run.limits.push(format!(
            "only the first {} of {} failure blocks are judged (policy item limit)",
            input.max_items,
            parsed.blocks.len()
        ));
    }
    // A reading that disagrees with the count the log states says so (issue 46).
    if let crate::triage::logs::stated::Agreement::Differs { stated } = parsed.agreement {
        run.limits.push(format!(
            "the log states {stated} failure(s) and {} were read: some may be missed, merged or split",
            parsed.failures_read()
        ));
    }
    let truncated = parsed.blocks.iter().filter(|b| b.omitted > 0).count();
    if truncated > 0 {
        run.limits.push(format!(
            "{truncated} failure block(s) exceeded the window cap; omitted line counts are reported"
        ));
    }
}

/// The deterministic findings of one block: a compile error and an environment signature.
fn signature_findings(block: &FailureBlock, source: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let finding = |flag| Finding::new(flag, &block.id, "deterministic", Severity::Info);
    if block.compile_error {
        out.push(
            finding("compile_error_signature")
                .says("The log shows a compile or type error: the code did not build, so the tests after it did not run as written.")
                .with("log", source),
        );
    }
    if let Some(sig) = block.env_signature {
        out.push(
            finding("environment_signature")
                .says(format!(
                    "The failure reads as the environment's ({}), not the code's: check the machine, the network or the installed tools before the change.",
                    sig.replace('_', " ")
                ))
                .with("signature", sig),
        );
    }
    out
}

/// One failure block's row in the results, serialized in this field order.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct FailureRow {
    id: String,
    family: String,
    duplicate_of: Option<String>,
    lines: String,
    test_name: Option<String>,
    message: Option<String>,
    /// The CI step the failure sits in, for a job log.
    #[serde(skip_serializing_if = "Option::is_none")]
    step: Option<String>,
    /// A tool's warning beside its errors: a finding shown after them (D-184).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    warning: bool,
    key_lines: Vec<String>,
    omitted_lines: usize,
    stack_locations: Vec<StackLocation>,
    observed: Observed,
    relation: Labelled,
    failure_kind: Labelled,
    nondeterminism_signature: Option<f64>,
    missing_evidence: Option<MissingEvidence>,
    would_settle: Vec<&'static str>,
    probes_run: Vec<&'static str>,
    disposition: Disposition,
    error: Option<String>,
}

/// A stack frame's place: the tracked path it resolved to (else as written) and its line.
#[derive(Clone, Debug, Serialize)]
struct StackLocation {
    path: String,
    line: u64,
    tracked: bool,
}

/// What code saw in the block before any question.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Observed {
    stack_touches_changed_file: Option<bool>,
    env_signature: Option<&'static str>,
    compile_error: bool,
    missing_module: bool,
    timeout_signature: bool,
}

/// A label, who decided it, and the answer's distribution (once asked).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Labelled {
    label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    determined_by: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    distribution: Option<Value>,
}

impl Labelled {
    fn new(label: impl Into<String>, determined_by: Option<&'static str>) -> Self {
        Self {
            label: label.into(),
            determined_by,
            distribution: None,
        }
    }

    fn judged(label: impl Into<String>, determined_by: &'static str, distribution: Value) -> Self {
        Self {
            distribution: Some(distribution),
            ..Self::new(label, Some(determined_by))
        }
    }
}

/// What evidence the answer said is missing.
#[derive(Clone, Debug, Serialize)]
struct MissingEvidence {
    label: Option<String>,
    distribution: Value,
}

/// The blocks planned: a row each (duplicates settled by code), their plans, and the indexes
/// of the rows to judge (distinct failures, up to the item limit).
struct Plan<'a> {
    rows: Vec<FailureRow>,
    plans: Vec<Planned<'a>>,
    judged: Vec<usize>,
}

/// Resolves each block's stack against the tracked files, groups duplicates by fingerprint, and
/// builds its starting row.
fn plan<'a>(
    cx: &Context<'_>,
    parsed: &'a ParsedLog,
    tracked: &[String],
    run: &mut Run,
) -> Plan<'a> {
    let changed: Vec<&str> = cx
        .diff
        .map(|d| d.files.iter().map(|f| f.path.as_str()).collect())
        .unwrap_or_default();
    let mut out = Plan {
        rows: Vec::new(),
        plans: Vec::new(),
        judged: Vec::new(),
    };
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for block in &parsed.blocks {
        let resolved: Vec<Option<String>> = block
            .stack
            .iter()
            .map(|(p, _)| resolve(p, &cx.input.root, tracked))
            .collect();
        let touches = cx.diff.map(|_| {
            resolved
                .iter()
                .flatten()
                .any(|p| changed.contains(&p.as_str()))
        });
        run.findings
            .extend(signature_findings(block, &cx.input.source));
        let duplicate = seen
            .iter()
            .find(|(fp, _)| *fp == block.fingerprint)
            .map(|(_, id)| (*id).to_owned());
        let (relation, determined) = if cx.diff.is_some() {
            ("unjudged", "jev")
        } else {
            ("unknown_no_diff_context", "code")
        };
        let mut row = FailureRow {
            id: block.id.clone(),
            family: block.family.clone(),
            duplicate_of: duplicate.clone(),
            lines: format!("{}-{}", block.start, block.end),
            test_name: block.test_name.clone(),
            message: block.message.clone(),
            step: block.step.clone(),
            warning: block.is_warning(),
            key_lines: key_lines(block),
            omitted_lines: block.omitted,
            stack_locations: block
                .stack
                .iter()
                .zip(&resolved)
                .map(|((p, l), r)| StackLocation {
                    path: r.clone().unwrap_or_else(|| p.clone()),
                    line: *l,
                    tracked: r.is_some(),
                })
                .collect(),
            observed: Observed {
                stack_touches_changed_file: touches,
                env_signature: block.env_signature,
                compile_error: block.compile_error,
                missing_module: block.missing_module,
                timeout_signature: block.timeout,
            },
            relation: Labelled::new(relation, Some(determined)),
            failure_kind: Labelled::new("unjudged", None),
            nondeterminism_signature: None,
            missing_evidence: None,
            would_settle: vec![RERUN, BASE],
            probes_run: Vec::new(),
            disposition: Disposition::Unjudged,
            error: None,
        };
        if duplicate.is_some() {
            run.set(&block.id, Disposition::Deterministic);
            row.disposition = Disposition::Deterministic;
        } else {
            seen.push((&block.fingerprint, &block.id));
            run.set(&block.id, Disposition::Unjudged);
            if out.judged.len() >= cx.input.max_items {
                row.error = Some("not judged: failure limit".to_owned());
            } else {
                out.judged.push(out.rows.len());
            }
        }
        out.rows.push(row);
        out.plans.push(Planned {
            block,
            resolved,
            touches,
        });
    }
    out
}

/// The frame for one failure, with a probe's result as additional evidence when given.
fn failure_frame(cx: &Context<'_>, p: &Planned<'_>, extra: Option<&Value>) -> Frame {
    let b = p.block;
    let log_lines: Vec<String> = b
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{}| {l}", b.start + i))
        .collect();
    let state = FailureState {
        evidence_policy: EVIDENCE_POLICY,
        task: &cx.input.task,
        failure: FailureShown {
            id: &b.id,
            test_name: &b.test_name,
            message: &b.message,
            log_lines: log_lines.join("\n"),
            omitted_lines: b.omitted,
        },
        observed: Observed {
            stack_touches_changed_file: p.touches,
            env_signature: b.env_signature,
            compile_error: b.compile_error,
            missing_module: b.missing_module,
            timeout_signature: b.timeout,
        },
        diff_summary: cx.summary_of_diff.as_ref(),
        additional_evidence: extra,
    };
    Frame {
        template: "failure_relation@3".into(),
        scope: b.id.clone(),
        state: to_value(&state),
        questions: questions(cx.diff.is_some()),
        provenance: to_value(&[LogWindow {
            kind: "log_window",
            path: &cx.input.source,
            start_line: b.start,
            end_line: b.end,
            probe: "log-anchor-window@1",
        }]),
    }
}

/// The one allowlisted probe for a failure, chosen by code from what evidence Jev said was
/// missing: the stack's source around the failing line, or the changed hunks of stack files.
fn probe_for(
    cx: &Context<'_>,
    p: &Planned<'_>,
    missing: &str,
    workspace: &dyn Workspace,
) -> Option<(Value, &'static str)> {
    match missing {
        "test_source" => {
            let (path, line) = p
                .block
                .stack
                .iter()
                .zip(&p.resolved)
                .find_map(|((_, line), r)| r.as_ref().map(|r| (r.clone(), *line)))?;
            let lines = workspace.read_lines(&path)?;
            let start = line.saturating_sub(PROBE_CONTEXT_LINES).max(1);
            let end = (line + PROBE_CONTEXT_LINES).min(lines.len() as u64);
            (start <= end).then(|| {
                let text: Vec<String> = (start..=end)
                    .map(|n| format!("{n}| {}", lines[(n - 1) as usize]))
                    .collect();
                (
                    to_value(&SourceExcerpt {
                        kind: "source_excerpt",
                        path,
                        start_line: start,
                        end_line: end,
                        text: text.join("\n"),
                    }),
                    "read-stack-source@1",
                )
            })
        }
        "changed_code" => {
            let hunks: Vec<&Hunk> = cx
                .diff?
                .hunks
                .iter()
                .filter(|h| p.resolved.iter().flatten().any(|r| *r == h.path))
                .take(2)
                .collect();
            (!hunks.is_empty()).then(|| {
                (
                    to_value(&ChangedHunks {
                        kind: "changed_hunks",
                        hunks: hunks.iter().map(|h| h.evidence_with_lines()).collect(),
                    }),
                    "changed-hunks-for-stack@1",
                )
            })
        }
        _ => None,
    }
}

/// Widest line of the human section.
const SECTION_WIDTH: usize = 100;

fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A judged label in words, when it says something (`cannot_tell` and `unjudged` say nothing).
fn in_words(label: &str) -> Option<String> {
    (!matches!(label, "cannot_tell" | "unjudged" | "") && !label.starts_with("unknown"))
        .then(|| label.replace('_', " "))
}

/// The human section: one entry per failure, or per group of failures with the same message,
/// in log order: the test, where it was raised and the CI step it sits in, then the message's
/// first lines, what was judged of it and what would settle it. A failure printed again (a
/// retried test) counts on its first entry. `brief` gives each entry one line: its head and the
/// message's first line (D-127).
fn section_lines(rows: &[FailureRow], brief: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut shown = 0;
    let mut grouped: Vec<bool> = vec![false; rows.len()];
    let mut left = 0;
    for (i, r) in rows.iter().enumerate() {
        if grouped[i] || r.duplicate_of.is_some() {
            continue;
        }
        if shown >= SECTION_ROWS {
            left += 1;
            continue;
        }
        shown += 1;
        // Failures of other tests with exactly this message, and reprints of this one.
        let same: Vec<usize> = rows
            .iter()
            .enumerate()
            .skip(i + 1)
            .filter(|(_, o)| {
                o.duplicate_of.is_none() && r.message.is_some() && o.message == r.message
            })
            .map(|(k, _)| k)
            .collect();
        for &k in &same {
            grouped[k] = true;
        }
        let reprints = rows
            .iter()
            .filter(|o| o.duplicate_of.as_deref() == Some(r.id.as_str()))
            .count();
        let name = r
            .test_name
            .clone()
            .unwrap_or_else(|| format!("unnamed failure (log lines {})", r.lines));
        // The repository's own frame first; then any frame that is not a framework's or the
        // standard library's; the first only when there is nothing else.
        let place = r
            .stack_locations
            .iter()
            .find(|s| s.tracked)
            .or_else(|| {
                r.stack_locations
                    .iter()
                    .find(|s| !crate::triage::logs::foreign_frame(&s.path))
            })
            .or(r.stack_locations.first())
            .map(|s| format!("  {}:{}", s.path, s.line))
            .unwrap_or_default();
        let step = r
            .step
            .as_ref()
            .map(|s| format!("  [step: {s}]"))
            .unwrap_or_default();
        let head = if same.is_empty() {
            format!("✗ {name}{place}{step}")
        } else {
            format!(
                "✗ {} failures with the same message{place}{step}",
                same.len() + 1
            )
        };
        if brief {
            let first = r
                .message
                .as_deref()
                .and_then(|m| m.lines().map(str::trim).find(|l| !l.is_empty()))
                .unwrap_or("(no message found)");
            // The message whole (the report wraps it), under its head when both do not fit
            // one line: never `As…` for an `AssertionError` (issue 49).
            let one = format!("{head}  {first}");
            if one.chars().count() + 2 <= SECTION_WIDTH {
                out.push(one);
            } else {
                out.push(clip(&head, SECTION_WIDTH));
                out.push(format!("    {first}"));
            }
            continue;
        }
        out.push(clip(&head, SECTION_WIDTH));
        if !same.is_empty() {
            let names: Vec<String> = std::iter::once(i)
                .chain(same.iter().copied())
                .map(|k| {
                    rows[k]
                        .test_name
                        .clone()
                        .unwrap_or_else(|| format!("log lines {}", rows[k].lines))
                })
                .collect();
            out.push(clip(
                &format!("    tests: {}", names.join(", ")),
                SECTION_WIDTH,
            ));
        }
        for line in r
            .message
            .as_deref()
            .unwrap_or("(no message found)")
            .lines()
            .take(3)
        {
            // Whole: the report wraps long lines at spaces.
            out.push(format!("    {}", line.trim_end()));
        }
        let judged: Vec<String> = [in_words(&r.failure_kind.label), in_words(&r.relation.label)]
            .into_iter()
            .flatten()
            .collect();
        if !judged.is_empty() {
            out.push(clip(
                &format!("    judged: {}", judged.join(", ")),
                SECTION_WIDTH,
            ));
        }
        if reprints > 0 {
            out.push(format!(
                "    printed again {reprints} time{}",
                if reprints == 1 { "" } else { "s" }
            ));
        }
        if !r.would_settle.is_empty() {
            out.push(clip(
                &format!("    would settle: {}", r.would_settle.join("; ")),
                SECTION_WIDTH,
            ));
        }
    }
    if left > 0 {
        out.push(format!(
            "… {left} more failures: --json, or `stanleyctl runs show latest --json`"
        ));
    }
    out
}

/// Runs the failures triage, recording into `run`.
pub async fn triage(
    input: &FailuresInput,
    parsed: &ParsedLog,
    sources: super::Sources<'_>,
    executor: &Executor,
    run: &mut Run,
) {
    let super::Sources {
        diff,
        tracked,
        workspace,
    } = sources;
    let cx = Context {
        input,
        diff,
        summary_of_diff: diff.map(|d| diff_summary(d, run)),
    };
    record_limits(input, parsed, run);
    let Plan {
        mut rows,
        plans,
        judged,
    } = plan(&cx, parsed, tracked, run);
    run.candidates(&to_value(&FailureCandidates {
        kind: "failures",
        source: &input.source,
        blocks: parsed.blocks.iter().map(|b| b.id.as_str()).collect(),
    }));
    // Each failure runs on its own: its first question, then (when the missing-evidence answer
    // asks for it) one allowlisted probe chosen by code, asked as soon as that answer arrives
    // rather than after every failure's first answer.
    let cx = &cx;
    let plans = &plans;
    let pipelines = judged.iter().map(|&i| async move {
        let first = executor.run(failure_frame(cx, &plans[i], None)).await;
        let probe = first.as_ref().ok().and_then(|ok| {
            let missing = ok
                .answers
                .get("missing_evidence")
                .and_then(|a| decisive(a, PROBE_MISSING_EVIDENCE))?;
            probe_for(cx, &plans[i], &missing, workspace)
        });
        let second = match &probe {
            Some((extra, _)) => Some(
                executor
                    .run(failure_frame(cx, &plans[i], Some(extra)))
                    .await,
            ),
            None => None,
        };
        (first, probe, second)
    });
    let mut first = Vec::new();
    let mut probes: Vec<(usize, Value, &'static str)> = Vec::new();
    let mut second = Vec::new();
    for (&i, (f, probe, answer)) in judged
        .iter()
        .zip(futures::future::join_all(pipelines).await)
    {
        first.push(f);
        if let (Some((extra, name)), Some(answer)) = (probe, answer) {
            probes.push((i, extra, name));
            second.push(answer);
        }
    }
    for (&i, outcome) in judged.iter().zip(&first) {
        let block = plans[i].block;
        let probe = probes.iter().zip(&second).find(|((j, _, _), _)| *j == i);
        let mut answers = match outcome {
            Ok(ok) => ok.answers.clone(),
            Err(f) => {
                let d = if f.reason.is_unjudged() {
                    Disposition::Unjudged
                } else {
                    Disposition::Failed
                };
                run.set(&block.id, d);
                rows[i].disposition = d;
                rows[i].error = Some(format!("{}: {}", f.reason.as_str(), f.detail));
                continue;
            }
        };
        if let Some(((_, _, name), result)) = probe {
            rows[i].probes_run = vec![*name];
            match result {
                Ok(ok) => answers = ok.answers.clone(),
                Err(f) => {
                    rows[i].error = Some(format!("follow-up {}: {}", f.reason.as_str(), f.detail))
                }
            }
        }
        decide(
            &mut rows[i],
            block,
            &answers,
            diff.is_some(),
            plans[i].touches,
            run,
        );
    }
    let families: Vec<&str> = {
        let mut f: Vec<&str> = parsed.blocks.iter().map(|b| b.family.as_str()).collect();
        f.sort();
        f.dedup();
        f
    };
    let duplicates = rows.iter().filter(|r| r.duplicate_of.is_some()).count();
    run.sections.push(
        Section::new("failures", section_lines(&rows, true)).with_full(section_lines(&rows, false)),
    );
    let mut not_checked = vec![
        "tests were not executed or rerun".to_owned(),
        "flakiness cannot be established from a single log".to_owned(),
        "root causes outside recognized failure windows".to_owned(),
    ];
    if diff.is_none() {
        not_checked.push("relation to code changes (no diff context)".into());
    }
    run.not_checked = not_checked;
    let mut rows = crate::run::to_values(&rows);
    super::tag_rows(&mut rows, "failures");
    run.results = rows;
    run.summary = to_value(&FailuresSummary {
        kind: "failures",
        source: &input.source,
        log_lines: parsed.line_count,
        failure_blocks: parsed.blocks.len(),
        families: families.len(),
        duplicates,
        diff: diff.map(|d| d.source.describe()),
        ci_log: parsed.wrapper.map(|w| w.name()),
        agreement: parsed.agreement.as_str(),
        stated_failures: parsed.agreement.stated(),
    });
}

fn decide(
    row: &mut FailureRow,
    block: &FailureBlock,
    answers: &stanley_core::Answers,
    with_diff: bool,
    touches: Option<bool>,
    run: &mut Run,
) {
    let dist = |name: &str| {
        answers
            .get(name)
            .map(|a| a.to_json()["probabilities"].clone())
            .unwrap_or(Value::Null)
    };
    let nondet = round3(answers.noul("nondeterminism_signature"));
    let untrusted = round3(answers.noul("untrusted_instruction_text"));
    let missing = answers.get("missing_evidence").and_then(|a| match a {
        Answer::Choice { choice, .. } => Some(choice.clone()),
        _ => None,
    });
    let kind = answers
        .get("failure_kind")
        .and_then(|a| decisive(a, DECISIVE))
        .unwrap_or_else(|| "uncertain".into());
    row.disposition = Disposition::Judged;
    run.set(&block.id, Disposition::Judged);
    row.nondeterminism_signature = Some(nondet);
    row.missing_evidence = Some(MissingEvidence {
        label: missing.clone(),
        distribution: dist("missing_evidence"),
    });
    row.failure_kind = Labelled::judged(kind.clone(), "jev", dist("failure_kind"));
    let mut relation = "unknown_no_diff_context".to_owned();
    if with_diff {
        let unrelated = answers
            .get("relation_to_diff")
            .map_or(0.0, |a| a.p("unrelated_to_diff"));
        if touches == Some(true) && unrelated >= UNRELATED_CONFLICT {
            relation = "conflict".into();
            row.relation = Labelled::judged("conflict", "code", dist("relation_to_diff"));
            run.parked.push(Parked {
                id: block.id.clone(),
                path: None,
                reason: "conflict: stack touches a changed file vs unrelated_to_diff".into(),
            });
            run.set(&block.id, Disposition::Parked);
            row.disposition = Disposition::Parked;
            run.decision(
                &block.id,
                "hard_conflict",
                UnrelatedConflict {
                    unrelated: round3(unrelated),
                },
                POLICY,
            );
        } else {
            relation = answers
                .get("relation_to_diff")
                .and_then(|a| decisive(a, DECISIVE))
                .unwrap_or_else(|| "uncertain".into());
            row.relation = Labelled::judged(relation.clone(), "jev", dist("relation_to_diff"));
        }
    }
    let mut settle: Vec<&str> = Vec::new();
    let mut add = |s: &'static str| {
        if !settle.contains(&s) {
            settle.push(s);
        }
    };
    let missing = missing.as_deref().unwrap_or("");
    if missing == "full_stack_trace" || block.omitted > 0 {
        add("provide a log with the complete error output");
    }
    if missing == "test_source" {
        add("inspect the failing test's source");
    }
    if missing == "changed_code" {
        add("inspect the changed code on the stack");
    }
    if missing == "prior_run_history" || nondet >= NONDETERMINISM {
        add("rerun the failing test at least three times");
        add(BASE);
    }
    if relation == "uncertain" || relation == "conflict" {
        add(BASE);
    }
    row.would_settle = settle;
    if relation == "caused_by_diff" {
        let p = answers
            .get("relation_to_diff")
            .map_or(0.0, |a| round3(a.p("caused_by_diff")));
        run.findings.push(
            Finding::new(
                "failure_likely_caused_by_diff",
                &block.id,
                "jev",
                Severity::Warn,
            )
            .says(format!(
                "{} likely fails because of this change: asked whether the failure follows from the changed code, Jev said so with {} confidence.",
                block.test_name.as_deref().map_or_else(|| "This test".to_owned(), |t| format!("`{t}`")),
                crate::analysis::percent(p)
            ))
            .scored(p)
            .with("p", p)
            .with("test", block.test_name.clone()),
        );
    }
    if nondet >= NONDETERMINISM {
        run.findings.push(
            Finding::new(
                "nondeterminism_signature_present",
                &block.id,
                "jev",
                Severity::Info,
            )
            .says(format!(
                "The failure shows signs of depending on timing, order or chance ({} confidence); one run cannot say it is flaky, so run it again before trusting either result.",
                crate::analysis::percent(nondet)
            ))
            .scored(nondet)
            .with("p", nondet)
            .with("note", "not a flakiness verdict; one run only"),
        );
    }
    if untrusted >= UNTRUSTED_INSTRUCTION_THRESHOLD {
        run.findings.push(
            Finding::new(
                "untrusted_instruction_text",
                &block.id,
                "jev",
                Severity::Info,
            )
            .says(crate::analysis::untrusted_reason(untrusted))
            .scored(untrusted)
            .with("p", untrusted),
        );
    }
    run.decision(
        &block.id,
        "failure_relation",
        RelationDecision {
            relation: &relation,
            kind: &kind,
        },
        POLICY,
    );
}

#[cfg(test)]
#[path = "failures_tests.rs"]
mod tests;
