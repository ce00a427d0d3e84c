//! The `check` criteria section (`check-criteria-policy@1`): acceptance criteria given as a
//! numbered or bulleted list, evidence from each diff hunk (one frame per hunk, one noul per
//! criterion), then a strength judgment for criteria with accepted evidence.

use serde::Serialize;
use serde_json::Value;
use stanley_core::{Answer, Executor, Frame, Question, Questions, stable_hash};

use crate::check::CriterionShown;
use crate::check::SectionOutcome;
use crate::diff::{DiffEvidence, Hunk};
use crate::paths::PathKind;
use crate::policy::{EVIDENCE_POLICY, HunkState, Instructions};
use crate::run::{Disposition, Finding, Parked, Run, Severity, to_value};
use crate::text::round3;

/// The section's heading in the human report.
const TITLE: &str = "criteria";
/// The policy version of the criteria section.
pub const POLICY: &str = "check-criteria-policy@1";
/// Hunks used as evidence at most.
pub const DEFAULT_MAX_EVIDENCE_UNITS: usize = 80;
const MAX_CRITERIA: usize = 20;
const MAX_CRITERION_CHARS: usize = 300;
const ACCEPT: f64 = 0.6;
const UNSUPPORTED_BELOW: f64 = 0.3;
const MAX_EVIDENCE_PER_CRITERION: usize = 3;
const DECISIVE_LEVEL: f64 = 0.5;

/// One criterion.
#[derive(Clone, Debug)]
pub struct Criterion {
    /// `c<position>_<6 hex of the text's hash>`.
    pub id: String,
    pub text: String,
    /// 1-based line in the input.
    pub line: usize,
}

/// The text of a list item line, if the line is one: a bullet (`-`, `*`, `+`) or a 1–3 digit
/// number with `.` or `)`, whitespace, an optional checkbox, then the text.
fn list_item(line: &str) -> Option<&str> {
    let rest = line.trim_start();
    let after = if let Some(r) = rest.strip_prefix(['-', '*', '+']) {
        r
    } else {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if !(1..=3).contains(&digits) {
            return None;
        }
        rest[digits..].strip_prefix(['.', ')'])?
    };
    if !after.starts_with(char::is_whitespace) {
        return None;
    }
    let mut text = after.trim_start();
    for box_ in ["[ ]", "[x]", "[X]"] {
        if let Some(r) = text
            .strip_prefix(box_)
            .filter(|r| r.starts_with(char::is_whitespace))
        {
            text = r.trim_start();
        }
    }
    let text = text.trim_end();
    (!text.is_empty()).then_some(text)
}

/// Why a criteria list is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CriteriaError {
    #[error("criterion on line {line} is {chars} characters; the limit is {MAX_CRITERION_CHARS}")]
    TooLong { line: usize, chars: usize },
    #[error("no list items found; write criteria as a numbered or bulleted list")]
    NoItems,
    #[error("{0} criteria found; the limit is {MAX_CRITERIA}")]
    TooMany(usize),
}

/// Parses criteria; prose lines are ignored.
pub fn parse_criteria(text: &str) -> Result<Vec<Criterion>, CriteriaError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(item) = list_item(line) else {
            continue;
        };
        let len = item.chars().count();
        if len > MAX_CRITERION_CHARS {
            return Err(CriteriaError::TooLong {
                line: n + 1,
                chars: len,
            });
        }
        let position = out.len() + 1;
        out.push(Criterion {
            id: format!("c{position}_{}", &stable_hash(&Value::from(item))[..6]),
            text: item.to_owned(),
            line: n + 1,
        });
    }
    if out.is_empty() {
        return Err(CriteriaError::NoItems);
    }
    if out.len() > MAX_CRITERIA {
        return Err(CriteriaError::TooMany(out.len()));
    }
    Ok(out)
}

const STRENGTH_LEVELS: [&str; 4] = [
    "No shown evidence addresses the criterion.",
    "The criterion is only mentioned in names, comments or documentation.",
    "Code implements the criterion, but no shown test exercises it.",
    "Code implements the criterion and a shown test asserts it.",
];

fn status_rank(s: &str) -> u8 {
    match s {
        "unsupported" => 0,
        "unclear" => 1,
        "partial" => 2,
        _ => 3,
    }
}

/// One frame per evidence unit asking, for every criterion, whether the hunk addresses it.
/// The hunks that can be evidence: all but lockfiles and generated files.
fn evidence_units(evidence: &DiffEvidence) -> Vec<&Hunk> {
    evidence
        .hunks
        .iter()
        .filter(|h| !matches!(h.kind, PathKind::Lockfile | PathKind::Generated))
        .collect()
}

/// The section's first frames (one per evidence unit), from the criteria and the diff alone:
/// `check` starts them with the task section's, and `judge` then finds their answers. The
/// strength frames depend on every unit's answer and follow them.
pub fn first_frames(
    criteria: &[Criterion],
    evidence: &DiffEvidence,
    max_units: usize,
) -> Vec<Frame> {
    let units = evidence_units(evidence);
    unit_frames(criteria, &units[..units.len().min(max_units)], evidence)
}

fn unit_frames(criteria: &[Criterion], units: &[&Hunk], evidence: &DiffEvidence) -> Vec<Frame> {
    units
        .iter()
        .map(|h| {
            let mut q = Questions::new();
            for c in criteria {
                q = q.with(
                    format!("addresses_{}", c.id),
                    Question::noul(
                        Instructions {
                            criterion: Some(c.text.clone()),
                            ..Instructions::new(format!(
                                "Does the diff hunk shown contain code or tests that address criterion {}?",
                                c.id
                            ))
                        },
                        "The hunk's code or tests work toward this criterion.",
                        "The hunk does not address this criterion.",
                    ),
                );
            }
            Frame {
                template: "criterion_evidence@2".into(),
                scope: h.id.clone(),
                state: HunkState::hunk(h.evidence()).value(),
                questions: q,
                provenance: Value::Array(vec![h.reference(&evidence.source)]),
            }
        })
        .collect()
}

/// How the evidence units' requests went.
struct Coverage {
    failed: usize,
    answered: usize,
    capped: bool,
    units: usize,
}

/// One criterion's row in the criteria section's results, serialized in this field order.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CriterionRow {
    id: String,
    text: String,
    line: usize,
    status: &'static str,
    determined_by: &'static str,
    evidence: Vec<Evidence>,
    band_evidence: Vec<BandEvidence>,
    strength: Option<Strength>,
    capped_by: Option<&'static str>,
    linked_tests: Vec<String>,
    disposition: Disposition,
    error: Option<String>,
}

/// A hunk accepted as evidence for a criterion.
#[derive(Clone, Debug, Serialize)]
struct Evidence {
    hunk: String,
    path: String,
    lines: String,
    p: f64,
}

/// A hunk whose evidence probability is in the uncertain band.
#[derive(Clone, Debug, Serialize)]
struct BandEvidence {
    hunk: String,
    path: String,
    p: f64,
}

/// How strongly the accepted evidence establishes a criterion.
#[derive(Clone, Debug, Serialize)]
struct Strength {
    level: usize,
    expected: f64,
    distribution: Vec<f64>,
}

/// A criterion with no accepted evidence, settled by policy: unsupported when every unit was
/// judged and none came close, else unclear (parked) or unjudged.
fn settle_unevidenced(
    c: &Criterion,
    band_empty: bool,
    cov: &Coverage,
    row: &mut CriterionRow,
    run: &mut Run,
) {
    let (status, disposition, parked, error) = if cov.failed > 0 || cov.capped {
        let d = if cov.answered == 0 && cov.units > 0 {
            Disposition::Unjudged
        } else {
            Disposition::Parked
        };
        (
            "unclear",
            d,
            (d == Disposition::Parked).then_some("incomplete evidence coverage"),
            Some("not all evidence units were judged"),
        )
    } else if !band_empty {
        (
            "unclear",
            Disposition::Parked,
            Some("evidence probabilities only in the uncertain band"),
            None,
        )
    } else if cov.answered == 0 {
        ("unsupported", Disposition::Deterministic, None, None)
    } else {
        ("unsupported", Disposition::Judged, None, None)
    };
    row.status = status;
    row.disposition = disposition;
    row.error = error.map(str::to_owned);
    row.determined_by = if cov.answered > 0 { "jev" } else { "policy" };
    run.set(&c.id, disposition);
    if let Some(reason) = parked {
        run.parked.push(Parked {
            id: c.id.clone(),
            path: None,
            reason: reason.into(),
        });
    }
    run.decision(
        &c.id,
        "no_accepted_evidence",
        NoAcceptedEvidence { status },
        POLICY,
    );
}

/// The state of a criterion's strength frame: the criterion and its accepted evidence.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StrengthState<'a> {
    evidence_policy: &'static str,
    criterion: CriterionShown<'a>,
    evidence: Vec<Value>,
    linked_test_records: Vec<Value>,
}

/// A worked example of evidence strength: the evidence and the level it earns.
#[derive(Serialize)]
struct StrengthExample {
    evidence: &'static str,
    level: u8,
}

const STRENGTH_EXAMPLES: [StrengthExample; 4] = [
    StrengthExample {
        evidence: "only a README line promising the behavior",
        level: 1,
    },
    StrengthExample {
        evidence: "a handler that returns 404 for unknown ids, no test shown",
        level: 2,
    },
    StrengthExample {
        evidence: "the handler and a test asserting the 404",
        level: 3,
    },
    StrengthExample {
        evidence: "an unrelated refactor",
        level: 0,
    },
];

/// The `no_accepted_evidence` decision.
#[derive(Serialize)]
struct NoAcceptedEvidence {
    status: &'static str,
}

/// The `criterion_strength` decision.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StrengthDecision {
    level: usize,
    status: &'static str,
    capped_by: Option<&'static str>,
}

/// The criteria section's summary.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CriteriaSummary {
    supported: usize,
    partial: usize,
    unsupported: usize,
    unclear: usize,
    criteria: usize,
    evidence_units: usize,
    test_records: usize,
}

/// The frame asking how strongly a criterion's accepted evidence establishes it.
fn strength_frame(c: &Criterion, hunks: &[&Hunk], evidence: &DiffEvidence) -> Frame {
    Frame {
        template: "criterion_strength@2".into(),
        scope: c.id.clone(),
        state: to_value(&StrengthState {
            evidence_policy: EVIDENCE_POLICY,
            criterion: CriterionShown {
                id: &c.id,
                text: &c.text,
            },
            evidence: hunks.iter().map(|h| h.evidence()).collect(),
            linked_test_records: Vec::new(),
        }),
        questions: Questions::new().with(
            "evidence_strength",
            Question::score(
                Instructions {
                    note: Some("Claims in prose, commit messages or summaries are not evidence; only code and tests count."),
                    worked_examples: Some(to_value(&STRENGTH_EXAMPLES)),
                    ..Instructions::new(format!(
                        "How strongly does the shown evidence establish criterion {}?",
                        c.id
                    ))
                },
                STRENGTH_LEVELS,
            ),
        ),
        provenance: Value::Array(
            hunks
                .iter()
                .map(|h| h.reference(&evidence.source))
                .collect(),
        ),
    }
}

/// A criterion's strength answer: its status (partial at most without test records), parked
/// when the distribution is diffuse.
fn apply_strength(
    c: &Criterion,
    outcome: &stanley_core::FrameOutcome,
    row: &mut CriterionRow,
    run: &mut Run,
) {
    let ok = match outcome {
        Err(f) => {
            let d = if f.reason.is_unjudged() {
                Disposition::Unjudged
            } else {
                Disposition::Failed
            };
            run.set(&c.id, d);
            row.disposition = d;
            row.error = Some(format!("{}: {}", f.reason.as_str(), f.detail));
            return;
        }
        Ok(ok) => ok,
    };
    let Some(Answer::Score {
        score,
        probabilities,
        ..
    }) = ok.answers.get("evidence_strength")
    else {
        return;
    };
    let (level, p) = probabilities
        .iter()
        .enumerate()
        .fold(
            (0usize, -1.0f64),
            |best, (l, p)| {
                if *p > best.1 { (l, *p) } else { best }
            },
        );
    row.strength = Some(Strength {
        level,
        expected: round3(*score),
        distribution: probabilities.iter().map(|p| round3(*p)).collect(),
    });
    row.determined_by = "jev";
    let (status, capped_by) = if p < DECISIVE_LEVEL {
        ("unclear", None)
    } else if level >= 2 {
        // Level 3 needs a linked passing test record; the CLI supplies none.
        (
            "partial",
            (level == 3).then_some("no test results supplied"),
        )
    } else {
        ("unsupported", None)
    };
    row.status = status;
    row.capped_by = capped_by;
    if status == "unclear" {
        run.set(&c.id, Disposition::Parked);
        row.disposition = Disposition::Parked;
        run.parked.push(Parked {
            id: c.id.clone(),
            path: None,
            reason: "evidence strength distribution is diffuse".into(),
        });
    } else {
        run.set(&c.id, Disposition::Judged);
        row.disposition = Disposition::Judged;
    }
    run.decision(
        &c.id,
        "criterion_strength",
        StrengthDecision {
            level,
            status,
            capped_by,
        },
        POLICY,
    );
}

/// A warning for every criterion left unsupported or unclear.
fn status_findings(rows: &[CriterionRow]) -> Vec<Finding> {
    rows.iter()
        .filter_map(|row| {
            let flag = match row.status {
                "unsupported" => "criterion_unevidenced",
                "unclear" => "criterion_unclear",
                _ => return None,
            };
            let text: String = row.text.chars().take(120).collect();
            let source = if row.determined_by == "jev" {
                "jev"
            } else {
                "policy"
            };
            let says = if flag == "criterion_unevidenced" {
                format!("No change shows that this criterion is met: \"{text}\".")
            } else {
                format!(
                    "Whether this criterion is met could not be told from the change: \"{text}\"."
                )
            };
            Some(
                Finding::new(flag, &row.id, source, Severity::Warn)
                    .says(says)
                    .with("criterion", text),
            )
        })
        .collect()
}

/// One human line per criterion: its status, text, and up to three evidence locations.
fn section_lines(rows: &[CriterionRow]) -> Vec<String> {
    rows.iter()
        .map(|r| {
            let text: String = r.text.chars().take(100).collect();
            let capped = r
                .capped_by
                .map(|c| format!(" (capped: {c})"))
                .unwrap_or_default();
            let ev: Vec<String> = r
                .evidence
                .iter()
                .take(3)
                .map(|x| format!("{}:{}", x.path, x.lines))
                .collect();
            let arrow = if ev.is_empty() {
                String::new()
            } else {
                format!(" ← {}", ev.join(", "))
            };
            format!("{:<11} {text}{capped}{arrow}", r.status)
        })
        .collect()
}

/// Runs the criteria section.
pub async fn judge(
    criteria: &[Criterion],
    evidence: &DiffEvidence,
    executor: &Executor,
    run: &mut Run,
    max_units: usize,
) -> SectionOutcome {
    let units_all = evidence_units(evidence);
    let capped = units_all.len() > max_units;
    let units: Vec<&Hunk> = units_all.iter().take(max_units).copied().collect();
    if capped {
        run.limits.push(format!(
            "only {max_units} of {} diff hunks were used as evidence (policy evidence limit)",
            units_all.len()
        ));
    }
    if units_all.is_empty() {
        run.limits
            .push("the diff is empty; no criterion evidence exists".into());
    }
    for c in criteria {
        run.set(&c.id, Disposition::Unjudged);
    }
    let outcomes = executor
        .run_all(unit_frames(criteria, &units, evidence))
        .await;
    let failed = outcomes.iter().filter(|o| o.is_err()).count();
    let cov = Coverage {
        failed,
        answered: outcomes.len() - failed,
        capped,
        units: units.len(),
    };
    if failed > 0 {
        run.limits.push(format!(
            "{failed} evidence unit request(s) did not produce valid answers"
        ));
    }
    let mut rows: Vec<CriterionRow> = Vec::new();
    let mut strength_jobs: Vec<(usize, Vec<&Hunk>)> = Vec::new();
    for c in criteria {
        let key = format!("addresses_{}", c.id);
        let mut accepted: Vec<(&Hunk, f64)> = Vec::new();
        let mut band: Vec<(&Hunk, f64)> = Vec::new();
        for (h, o) in units.iter().zip(&outcomes) {
            if let Ok(ok) = o {
                let p = round3(ok.answers.noul(&key));
                if p >= ACCEPT {
                    accepted.push((h, p));
                } else if p >= UNSUPPORTED_BELOW {
                    band.push((h, p));
                }
            }
        }
        accepted.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.path.cmp(&b.0.path)));
        let mut row = CriterionRow {
            id: c.id.clone(),
            text: c.text.clone(),
            line: c.line,
            status: "unclear",
            determined_by: "policy",
            evidence: accepted
                .iter()
                .map(|(h, p)| Evidence {
                    hunk: h.id.clone(),
                    path: h.path.clone(),
                    lines: h.line_range(),
                    p: *p,
                })
                .collect(),
            band_evidence: band
                .iter()
                .map(|(h, p)| BandEvidence {
                    hunk: h.id.clone(),
                    path: h.path.clone(),
                    p: *p,
                })
                .collect(),
            strength: None,
            capped_by: None,
            linked_tests: Vec::new(),
            disposition: Disposition::Unjudged,
            error: None,
        };
        if accepted.is_empty() {
            settle_unevidenced(c, band.is_empty(), &cov, &mut row, run);
        } else {
            strength_jobs.push((
                rows.len(),
                accepted
                    .iter()
                    .take(MAX_EVIDENCE_PER_CRITERION)
                    .map(|(h, _)| *h)
                    .collect(),
            ));
        }
        rows.push(row);
    }
    let strengths = executor
        .run_all(
            strength_jobs
                .iter()
                .map(|(i, hunks)| strength_frame(&criteria[*i], hunks, evidence))
                .collect(),
        )
        .await;
    for ((i, _), outcome) in strength_jobs.iter().zip(&strengths) {
        apply_strength(&criteria[*i], outcome, &mut rows[*i], run);
    }
    run.findings.extend(status_findings(&rows));
    rows.sort_by(|a, b| {
        status_rank(a.status)
            .cmp(&status_rank(b.status))
            .then_with(|| a.line.cmp(&b.line))
    });
    let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
    let summary = to_value(&CriteriaSummary {
        supported: count("supported"),
        partial: count("partial"),
        unsupported: count("unsupported"),
        unclear: count("unclear"),
        criteria: criteria.len(),
        evidence_units: units.len(),
        test_records: 0,
    });
    let lines = section_lines(&rows);
    let not_checked = vec![
        "criteria satisfied by unchanged code are not detected".to_owned(),
        "only supplied test records are considered as test evidence".to_owned(),
        "agent summaries or PR prose are never treated as evidence".to_owned(),
    ];
    SectionOutcome {
        title: TITLE,
        rows: crate::run::to_values(&rows),
        summary,
        not_checked,
        lines,
        incomplete: capped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_and_ignores_prose() {
        let c = parse_criteria("Intro prose.\n- [ ] Returns 404 for unknown ids\n2) Logs each retry attempt\n  * [x] Supports cursor pagination\n-not an item\n").unwrap();
        let texts: Vec<(&str, usize)> = c.iter().map(|c| (c.text.as_str(), c.line)).collect();
        assert_eq!(
            texts,
            [
                ("Returns 404 for unknown ids", 2),
                ("Logs each retry attempt", 3),
                ("Supports cursor pagination", 4)
            ]
        );
        assert!(c[0].id.starts_with("c1_") && c[0].id.len() == 9);
        assert_eq!(
            parse_criteria("just prose").unwrap_err().to_string(),
            "no list items found; write criteria as a numbered or bulleted list"
        );
        let long = format!("- {}", "x".repeat(301));
        assert_eq!(
            parse_criteria(&long).unwrap_err().to_string(),
            "criterion on line 1 is 301 characters; the limit is 300"
        );
        let many: String = (0..21).map(|i| format!("- item {i}\n")).collect();
        assert_eq!(
            parse_criteria(&many).unwrap_err().to_string(),
            "21 criteria found; the limit is 20"
        );
    }
}
