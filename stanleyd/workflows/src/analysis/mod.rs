//! The six diff analyses (`diff-analysis-policy@2`): `review`, `test_gaps`, `summarize`,
//! `security_review`, `performance_review`, `compatibility_review`. One frame per judged hunk,
//! chosen by a deterministic per-mode priority under the hunk cap; code combines the answers
//! into findings, parked items and a per-hunk row.

mod changed;
pub mod modes;
mod select;

use serde::Serialize;
use serde_json::{Map, Value};
use stanley_core::{
    Answer, Executor, Frame, Question, Questions, StableJson, WrittenFrame, stable_hash,
};

use crate::analysis::modes::Mode;
use crate::change::{ChangeContext, HunkChange};
use crate::diff::{DiffEvidence, Hunk, HunkEvidence};
use crate::paths::PathKind;
use crate::policy::{
    EVIDENCE_POLICY, Instructions, UNTRUSTED_INSTRUCTION_THRESHOLD, untrusted_instruction_question,
};
use crate::run::{Disposition, Finding, Parked, Run, Section, Severity, to_value};
use crate::text::{has_word, round3};
use select::{Selection, limit_lines, record_candidates, select};
#[cfg(test)]
use select::{related_tests, summary_scores};

/// The policy version recorded with every decision.
pub const POLICY: &str = "diff-analysis-policy@2";
/// Hunks judged at most (`defaultMaxHunks`): with lean frames, 500 fit the default budget.
pub const DEFAULT_MAX_HUNKS: usize = 500;
/// Concern-label mass at or above which a hunk is a concern.
pub const CONCERN_MASS: f64 = 0.7;
/// Top-label probability below which a summary classification is parked as uncertain.
pub const SUMMARY_CLASSIFICATION: f64 = 0.45;
/// `cannot_tell` probability at or above which a hunk is parked.
pub const CANNOT_TELL: f64 = 0.5;
/// Importance mass (levels 2 and 3) at or above which a concern is material.
pub const IMPORTANT: f64 = 0.6;
/// `evidence_sufficient` at or above which a material concern becomes a finding.
pub const EVIDENCE: f64 = 0.5;
/// Related test hunks shown with a `test_gaps` hunk at most.
pub const MAX_RELATED_TESTS: usize = 2;
/// Rows shown in the human section at most.
const HUNK_LIMIT_ERROR: &str = "not judged: hunk limit";
const PLAN_LIMIT_ERROR: &str = "not judged: budget plan";

/// What the CLI passes to an analysis.
#[derive(Clone, Debug)]
pub struct AnalysisInput {
    /// The request text (checked: non-blank, at most 4000 characters).
    pub request: String,
    /// Hunks judged at most.
    pub max_hunks: usize,
}

/// The inputs recorded in `inputs.json`.
pub fn recorded_inputs(mode: &Mode, input: &AnalysisInput, evidence: &DiffEvidence) -> Value {
    to_value(&RecordedInputs {
        analysis: mode.id,
        request_hash: stable_hash(&Value::from(input.request.as_str())),
        task_hash: None,
        diff: evidence.source.describe(),
        max_hunks: input.max_hunks,
    })
}

/// An analysis' inputs as `inputs.json` records them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RecordedInputs {
    analysis: &'static str,
    request_hash: String,
    task_hash: Option<String>,
    diff: Value,
    max_hunks: usize,
}

/// The state of an analysis' frame about one hunk. Its fields are declared in the order stable
/// JSON lists them, as are those of the rows in it: the frame's state is written straight from
/// it ([`StableJson::of`], D-230).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AnalysisState<'a> {
    analysis: &'static str,
    change: HunkChange<'a>,
    evidence_policy: &'static str,
    hunk: HunkEvidence<'a>,
    related_test_hunks: Vec<HunkEvidence<'a>>,
    request: &'a str,
    task: Option<&'a str>,
}

/// How Jev classified a hunk: the top label, its confidence, the mass on concern labels and the
/// whole distribution.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Classification {
    label: String,
    confidence: f64,
    concern_mass: f64,
    distribution: Value,
}

/// How important Jev judged a hunk's concern.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Importance {
    score: f64,
    high_mass: f64,
    distribution: Value,
}

/// The `diff_<analysis>` decision about one hunk.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HunkDecision<'a> {
    classification: &'a Classification,
    importance: &'a Importance,
    evidence_sufficient: f64,
    flag: &'a Option<String>,
}

/// An analysis' summary.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AnalysisSummary {
    analysis: &'static str,
    description: &'static str,
    diff: Value,
    eligible_hunks: usize,
    context_test_hunks: usize,
    classifications: Map<String, Value>,
}

const SECURITY_SUBJECTS: &[&str] = &[
    "auth",
    "authentication",
    "authorization",
    "permission",
    "role",
    "token",
    "secret",
    "password",
    "session",
    "cookie",
    "crypto",
    "cryptography",
    "cryptographic",
];
const GUARD_WORDS: &[&str] = &[
    "if",
    "require",
    "assert",
    "validate",
    "verify",
    "authorize",
    "deny",
    "allow",
];
const COMPAT_WORDS: &[&str] = &["export", "public", "api", "schema", "config", "version"];

fn removes_a_guard(removed: &str) -> bool {
    let compares_length = removed.match_indices("length").any(|(i, _)| {
        removed[i + "length".len()..]
            .trim_start()
            .starts_with(['<', '>', '=', '!'])
    });
    GUARD_WORDS.iter().any(|w| has_word(removed, w))
        || removed.contains("===")
        || removed.contains("!==")
        || compares_length
}

/// The deterministic priority of a hunk in a mode (higher is judged first).
pub fn priority(mode: &Mode, hunk: &Hunk) -> f64 {
    if mode.terms.is_empty() {
        return 0.0;
    }
    let base = match hunk.kind {
        PathKind::Source => 40.0,
        PathKind::Config | PathKind::Ci => 25.0,
        PathKind::Test => 10.0,
        PathKind::Documentation => -20.0,
        _ => 0.0,
    };
    let header = format!("{} {}", hunk.path, hunk.section).to_lowercase();
    let changed = hunk.changed_lines().to_lowercase();
    // The whole hunk is lowered only when a term is not among the changed lines.
    let mut all: Option<String> = None;
    let (mut path_hits, mut changed_hits, mut context_hits) = (0usize, 0usize, 0usize);
    for term in mode.terms {
        if header.contains(term) {
            path_hits += 1;
        }
        if changed.contains(term) {
            changed_hits += 1;
        } else if all
            .get_or_insert_with(|| hunk.content().to_lowercase())
            .contains(term)
        {
            context_hits += 1;
        }
    }
    let removed_text = || hunk.changed_text().1.join("\n").to_lowercase();
    let mut score = base
        + 8.0 * path_hits.min(3) as f64
        + 8.0 * changed_hits.min(4) as f64
        + 2.0 * context_hits.min(2) as f64;
    if mode.id == "security_review" {
        let removed = removed_text();
        if SECURITY_SUBJECTS.iter().any(|w| has_word(&removed, w)) && removes_a_guard(&removed) {
            score += 60.0;
        }
    }
    if mode.id == "compatibility_review" {
        let removed = removed_text();
        if COMPAT_WORDS.iter().any(|w| has_word(&removed, w)) {
            score += 20.0;
        }
    }
    score + (hunk.added + hunk.removed).min(40) as f64 / 40.0
}

fn questions(mode: &Mode, hunk: &Hunk) -> Questions {
    Questions::new()
        .with(
            "classification",
            Question::choice(
                Instructions::new(format!(
                    "{} Candidate: the hunk of {} shown.",
                    mode.question, hunk.path
                ))
                .guidance(mode.guidance),
                mode.labels.iter().map(|(l, d)| (*l, *d)),
            ),
        )
        .with("importance", Question::score(mode.importance, mode.levels))
        .with(
            "evidence_sufficient",
            Question::noul(
                Instructions::new("Is the shown diff evidence sufficient for the selected classification?")
                    .guidance("Choose false when the classification depends on unseen callers, unchanged tests, runtime behavior, production scale, external consumers or surrounding code that is not shown."),
                "The hunk, the change around it and any related tests shown are enough.",
                "The classification depends on context that is not shown.",
            ),
        )
        .with("untrusted_instruction_text", untrusted_instruction_question())
}

fn distribution(answer: &Answer) -> Value {
    match answer {
        Answer::Choice { probabilities, .. } => Value::Object(
            probabilities
                .iter()
                .map(|(l, p)| (l.clone(), Value::from(round3(*p))))
                .collect(),
        ),
        Answer::Score { probabilities, .. } => {
            Value::from(probabilities.iter().map(|p| round3(*p)).collect::<Vec<_>>())
        }
        Answer::Noul { probability } => Value::from(round3(*probability)),
    }
}

/// The decision on one judged hunk.
struct Decision {
    disposition: Disposition,
    parked: Option<String>,
    label: String,
    concern_mass: f64,
    high_mass: f64,
    evidence: f64,
    untrusted: f64,
    flag: Option<String>,
    classification: Classification,
    importance: Importance,
    p_label: f64,
}

fn decide(mode: &Mode, answers: &stanley_core::Answers) -> Option<Decision> {
    let class @ Answer::Choice { probabilities, .. } = answers.get("classification")? else {
        return None;
    };
    let importance = answers.get("importance")?;
    let mut sorted = probabilities.clone();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (top_label, top) = sorted.first().cloned()?;
    let concern_mass = round3(
        probabilities
            .iter()
            .filter(|(l, _)| mode.concerns.contains(&l.as_str()))
            .map(|(_, p)| p)
            .sum(),
    );
    let concern = !mode.concerns.is_empty() && concern_mass >= CONCERN_MASS;
    let label = if concern {
        sorted
            .iter()
            .find(|(l, _)| mode.concerns.contains(&l.as_str()))
            .map_or(top_label.clone(), |(l, _)| l.clone())
    } else {
        top_label
    };
    let high_mass = round3(importance.mass_at_least(2));
    let evidence = round3(answers.noul("evidence_sufficient"));
    let untrusted = round3(answers.noul("untrusted_instruction_text"));
    let material = concern && high_mass >= IMPORTANT;
    let uncertain = class.p("cannot_tell") >= CANNOT_TELL
        || (mode.concerns.is_empty() && top < SUMMARY_CLASSIFICATION);
    let parked = if uncertain {
        Some(format!("{}: classification uncertain", mode.id))
    } else if material && evidence < EVIDENCE {
        Some(format!(
            "{}: material concern needs evidence outside the diff",
            mode.id
        ))
    } else {
        None
    };
    let flag = (parked.is_none() && material).then(|| match mode.prefix {
        Some(prefix) => format!("{prefix}_{label}"),
        None => label.clone(),
    });
    let score = match importance {
        Answer::Score { score, .. } => *score,
        _ => 0.0,
    };
    Some(Decision {
        disposition: if parked.is_some() {
            Disposition::Parked
        } else {
            Disposition::Judged
        },
        p_label: round3(class.p(&label)),
        classification: Classification {
            label: label.clone(),
            confidence: round3(top),
            concern_mass,
            distribution: distribution(class),
        },
        importance: Importance {
            score: round3(score),
            high_mass,
            distribution: distribution(importance),
        },
        parked,
        label,
        concern_mass,
        high_mass,
        evidence,
        untrusted,
        flag,
    })
}

/// One hunk's row in the packet's `results`, serialized in this field order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AnalysisRow<'a> {
    analysis: &'a str,
    id: &'a str,
    path: &'a str,
    lines: String,
    kind: &'static str,
    file_status: &'static str,
    added: usize,
    removed: usize,
    disposition: Disposition,
    classification: Option<Classification>,
    importance: Option<Importance>,
    evidence_sufficient: Option<f64>,
    untrusted_instruction_text: Option<f64>,
    flag: Option<String>,
    error: Option<String>,
    /// The hunk with the same text whose question answered this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    judged_with: Option<&'a str>,
}

impl<'a> AnalysisRow<'a> {
    /// An unjudged row for `hunk`.
    fn new(mode: &'a Mode, hunk: &'a Hunk) -> Self {
        Self {
            analysis: mode.id,
            id: &hunk.id,
            path: &hunk.path,
            lines: hunk.line_range(),
            kind: hunk.kind.as_str(),
            file_status: hunk.file_status.as_str(),
            added: hunk.added,
            removed: hunk.removed,
            disposition: Disposition::Unjudged,
            classification: None,
            importance: None,
            evidence_sufficient: None,
            untrusted_instruction_text: None,
            flag: None,
            error: None,
            judged_with: None,
        }
    }
}

/// One frame per judged hunk, with the change around it and (for `test_gaps`) related tests.
fn frames(
    mode: &Mode,
    input: &AnalysisInput,
    evidence: &DiffEvidence,
    selection: &Selection<'_>,
) -> Vec<WrittenFrame> {
    let change = ChangeContext::new(evidence);
    selection.groups[..selection.offered]
        .iter()
        .map(|group| {
            let i = group[0];
            let hunk = selection.eligible[i];
            let related = &selection.related[i];
            let mut provenance = vec![hunk.reference(&evidence.source)];
            provenance.extend(related.iter().map(|t| t.reference(&evidence.source)));
            WrittenFrame {
                frame: Frame {
                    template: format!("diff-{}@2", mode.id),
                    scope: hunk.id.clone(),
                    state: Value::Null,
                    questions: questions(mode, hunk),
                    provenance: Value::Array(provenance),
                },
                state: StableJson::of(&AnalysisState {
                    analysis: mode.id,
                    change: change.typed(hunk),
                    evidence_policy: EVIDENCE_POLICY,
                    hunk: hunk.evidence_row(),
                    related_test_hunks: related.iter().map(|t| t.evidence_row()).collect(),
                    request: &input.request,
                    task: None,
                }),
            }
        })
        .collect()
}

/// The findings a decision makes: its flag (warn) and untrusted instruction text (info), each
/// placed on the hunk's changed lines and quoting them.
fn findings(mode: &Mode, hunk: &Hunk, d: &Decision) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(flag) = &d.flag {
        out.push(
            Finding::new(flag, &hunk.id, "jev", Severity::Warn)
                .on_change(hunk)
                .says(reason(mode, d))
                .scored(d.p_label * d.high_mass)
                .with("classification", d.label.as_str())
                .with("probability", d.p_label)
                .with("concernMass", d.concern_mass)
                .with("importanceHighMass", d.high_mass)
                .with("evidenceSufficient", d.evidence),
        );
    }
    if d.untrusted >= UNTRUSTED_INSTRUCTION_THRESHOLD {
        out.push(
            Finding::new(
                "untrusted_instruction_text",
                &hunk.id,
                "jev",
                Severity::Info,
            )
            .on_change(hunk)
            .says(untrusted_reason(d.untrusted))
            .scored(d.untrusted)
            .with("p", d.untrusted),
        );
    }
    out
}

/// A probability as a person reads it: `80%`.
pub(crate) fn percent(p: f64) -> String {
    format!("{:.0}%", (p * 100.0).clamp(0.0, 100.0))
}

/// Why a hunk was flagged, in words: the label and what it means, the question in a person's
/// words, and how sure Jev was of the label and of its weight.
fn reason(mode: &Mode, d: &Decision) -> String {
    let meaning = mode
        .labels
        .iter()
        .find(|(l, _)| *l == d.label)
        .map_or("", |(_, m)| m);
    let label = crate::text::capitalized(&d.label.replace('_', " "));
    let meaning = lowercase_first(meaning);
    // A flag raised by the concern labels together says so: 40% on this one can be 75% on some
    // concern.
    let together = if d.concern_mass - d.p_label >= 0.05 {
        format!(" ({} on any concern)", percent(d.concern_mass))
    } else {
        String::new()
    };
    format!(
        "{label}: {meaning} Asked \"{}\", Jev gave this answer {}{together}, and {} that it is \
         material.",
        mode.asks,
        percent(d.p_label),
        percent(d.high_mass)
    )
}

/// `text` with its first letter lower-cased, to follow a colon.
fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Why a hunk's text was marked as instructions to a model.
pub(crate) fn untrusted_reason(p: f64) -> String {
    format!(
        "Text in this change reads like instructions to an AI model ({} confidence); Stanley \
         treated it as data and did not follow it. Check that nothing here steers a reviewer or \
         an agent.",
        percent(p)
    )
}

/// The human line for a decided hunk, with its sort group (flagged 0, parked 1, other 3); None
/// when the mode shows only flagged and parked hunks and this is neither.
fn decided_line(mode: &Mode, where_: &str, d: &Decision) -> Option<(u8, String)> {
    let summarize = mode.concerns.is_empty();
    let group = if d.flag.is_some() {
        0
    } else if d.parked.is_some() {
        1
    } else {
        3
    };
    if group == 3 && !summarize {
        return None;
    }
    let concern = if summarize {
        String::new()
    } else {
        format!(" concern={:.2}", d.concern_mass)
    };
    let flag = d
        .flag
        .as_ref()
        .map(|f| format!(" flag={f}"))
        .unwrap_or_default();
    Some((
        group,
        format!(
            "{where_} [{}] {}{concern} importance={:.2} evidence={:.2}{flag}",
            d.disposition.as_str(),
            d.label,
            d.high_mass,
            d.evidence
        ),
    ))
}

/// What one hunk adds to the report: its row, its human line (with its sort group), and the
/// label it counts under.
type Recorded<'a> = (AnalysisRow<'a>, Option<(u8, String)>, String);

/// Records one hunk's outcome in `run`: its disposition, parked item, findings and decision.
/// None when the answers do not hold a decision (the hunk gets no row).
fn record<'a>(
    mode: &'a Mode,
    hunk: &'a Hunk,
    outcome: Slot<'_>,
    run: &mut Run,
) -> Option<Recorded<'a>> {
    let mut row = AnalysisRow::new(mode, hunk);
    let where_ = format!("{}:{}", hunk.path, hunk.line_range());
    let outcome = match outcome {
        Slot::Capped | Slot::LeftOut => {
            let error = if matches!(outcome, Slot::Capped) {
                HUNK_LIMIT_ERROR
            } else {
                PLAN_LIMIT_ERROR
            };
            row.error = Some(error.to_owned());
            return Some((row, None, "unjudged".to_owned()));
        }
        Slot::Sent(outcome) => outcome,
    };
    match outcome {
        Err(failure) => {
            let disposition = if failure.reason.is_unjudged() {
                Disposition::Unjudged
            } else {
                Disposition::Failed
            };
            let error = format!("{}: {}", failure.reason.as_str(), failure.detail);
            run.set(&hunk.id, disposition);
            let line = format!("{where_} [{}] - ({error})", disposition.as_str());
            row.disposition = disposition;
            row.error = Some(error);
            Some((row, Some((2, line)), "unjudged".to_owned()))
        }
        Ok(ok) => {
            let d = decide(mode, &ok.answers)?;
            run.set(&hunk.id, d.disposition);
            if let Some(reason) = &d.parked {
                run.parked.push(Parked {
                    id: hunk.id.clone(),
                    path: Some(hunk.path.clone()),
                    reason: reason.clone(),
                });
            }
            run.findings.extend(findings(mode, hunk, &d));
            run.decision(
                &hunk.id,
                &format!("diff_{}", mode.id),
                HunkDecision {
                    classification: &d.classification,
                    importance: &d.importance,
                    evidence_sufficient: d.evidence,
                    flag: &d.flag,
                },
                POLICY,
            );
            let line = decided_line(mode, &where_, &d);
            row.disposition = d.disposition;
            row.evidence_sufficient = Some(d.evidence);
            row.untrusted_instruction_text = Some(d.untrusted);
            row.flag = d.flag;
            row.classification = Some(d.classification);
            row.importance = Some(d.importance);
            Some((row, line, d.label))
        }
    }
}

/// What became of one eligible hunk.
#[derive(Clone, Copy)]
enum Slot<'a> {
    /// Past the hunk cap.
    Capped,
    /// Offered, and left out by the budget plan.
    LeftOut,
    /// Sent (or answered from the cache), with its outcome.
    Sent(&'a stanley_core::FrameOutcome),
}

/// The change summary by category: each category with its count of hunks and the first few
/// files, the most hunks first; hunks no answer placed are left to the coverage line.
fn summary_lines(rows: &[Value]) -> Vec<String> {
    let mut groups: Vec<(String, usize, Vec<String>)> = Vec::new();
    for row in rows {
        let label = row["classification"]["label"].as_str().unwrap_or("");
        if matches!(label, "" | "cannot_tell") {
            continue;
        }
        let path = row["path"].as_str().unwrap_or("").to_owned();
        match groups.iter_mut().find(|(l, _, _)| l == label) {
            Some((_, n, paths)) => {
                *n += 1;
                if !paths.contains(&path) {
                    paths.push(path);
                }
            }
            None => groups.push((label.to_owned(), 1, vec![path])),
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.1));
    let width = groups.iter().map(|(l, _, _)| l.len()).max().unwrap_or(0);
    groups
        .into_iter()
        .map(|(label, n, paths)| {
            let first: Vec<&str> = paths.iter().take(3).map(String::as_str).collect();
            let more = if paths.len() > 3 {
                format!(" and {} more", paths.len() - 3)
            } else {
                String::new()
            };
            let hunks = if n == 1 { "hunk " } else { "hunks" };
            format!(
                "{:<width$}  {n:>3} {hunks}  {}{more}",
                label.replace('_', " "),
                first.join(", ")
            )
        })
        .collect()
}

/// Runs `mode` over the diff evidence, recording into `run`.
pub async fn analyze(
    mode: &Mode,
    input: &AnalysisInput,
    evidence: &DiffEvidence,
    executor: &Executor,
    run: &mut Run,
) {
    let selection = select(mode, input, evidence, run);
    // The budget plan, before the first frame: the frames that fit, in judging order, are
    // charged and sent; the same input always sends the same frames.
    let (plan, outcomes) = executor
        .run_planned_written(frames(mode, input, evidence, &selection))
        .await;
    record_candidates(mode, &selection, &plan, run);
    let mut by_hunk: Vec<Slot<'_>> = vec![Slot::Capped; selection.eligible.len()];
    let mut judged_with: Vec<Option<&str>> = vec![None; selection.eligible.len()];
    for (g, group) in selection.groups[..selection.offered].iter().enumerate() {
        for &i in group {
            by_hunk[i] = outcomes.get(g).map_or(Slot::LeftOut, Slot::Sent);
            if i != group[0] {
                judged_with[i] = Some(&selection.eligible[group[0]].id);
            }
        }
    }
    let judged = selection.hunks_in(plan.chosen);
    run.limits
        .extend(limit_lines(input, &selection, &plan, judged));
    let mut classifications: Map<String, Value> = Map::new();
    let mut lines: Vec<(u8, String)> = Vec::new();
    for ((hunk, outcome), same) in selection.eligible.iter().zip(by_hunk).zip(judged_with) {
        let Some((mut row, line, key)) = record(mode, hunk, outcome, run) else {
            continue;
        };
        row.judged_with = same;
        lines.extend(line);
        let count = classifications.entry(key).or_insert(Value::from(0u64));
        *count = Value::from(count.as_u64().unwrap_or(0) + 1);
        run.results
            .push(serde_json::to_value(&row).unwrap_or(Value::Null));
    }
    lines.sort_by_key(|(group, _)| *group);
    if mode.id == "summarize" {
        // What changed, from facts in code first; then the kinds Jev judged the hunks to be.
        let facts = changed::sentences(evidence);
        if !facts.is_empty() {
            run.sections.push(Section::new("what changed", facts));
        }
        run.sections.push(Section::new(
            "by kind, as Jev judged each hunk",
            summary_lines(&run.results),
        ));
    }
    // A row per hunk: the findings and the coverage line sum them up; `--verbose` lists them.
    run.sections.push(Section::rows(
        format!("{} by hunk", mode.description.to_lowercase()),
        lines.into_iter().map(|(_, l)| l).collect(),
    ));
    run.not_checked = mode.not_checked.iter().map(|s| (*s).to_owned()).collect();
    run.summary = to_value(&AnalysisSummary {
        analysis: mode.id,
        description: mode.summary,
        diff: evidence.source.describe(),
        eligible_hunks: selection.eligible.len(),
        context_test_hunks: if mode.id == "test_gaps" {
            selection.context_tests.len()
        } else {
            0
        },
        classifications,
    });
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
