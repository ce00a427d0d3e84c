//! The `summarize` built-in (`diff-analysis-policy@2`, mode summarize): one frame per changed
//! hunk asking what kind of change it is and how central it is, then a per-hunk decision in code.

use serde_json::{Map, Value, json};
use stanley_core::{Answer, Executor, Frame, Question, Questions, stable_hash};

use crate::diff::{DiffEvidence, Hunk};
use crate::policy::{
    EVIDENCE_POLICY, UNTRUSTED_INSTRUCTION_THRESHOLD, untrusted_instruction_question,
};
use crate::run::{Disposition, Finding, Parked, Run, Section, Severity};
use crate::text::round3;

/// The policy version recorded with every decision.
pub const POLICY: &str = "diff-analysis-policy@2";
/// Hunks judged at most (`defaultMaxHunks`).
pub const DEFAULT_MAX_HUNKS: usize = 150;
/// Top-label probability below which a summary classification is parked as uncertain.
pub const SUMMARY_CLASSIFICATION: f64 = 0.45;
/// `cannot_tell` probability at or above which a hunk is parked.
pub const CANNOT_TELL: f64 = 0.5;
/// Files listed in the diff manifest at most.
pub const MAX_MANIFEST_FILES: usize = 100;

/// What the summary reports under `summary.description`.
pub const DESCRIPTION: &str = "Classify the purpose and centrality of each changed hunk";

const LABELS: &[(&str, &str)] = &[
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
];

const IMPORTANCE: [&str; 4] = [
    "Incidental or purely mechanical support for the rest of the change.",
    "A secondary change that supports the main ones.",
    "A material part of the change.",
    "One of the primary changes of the diff.",
];

const NOT_CHECKED: [&str; 3] = [
    "a prose change description or release note",
    "the motivation beyond what the diff shows",
    "runtime correctness",
];

fn manifest(evidence: &DiffEvidence) -> Value {
    let files: Vec<Value> = evidence
        .files
        .iter()
        .take(MAX_MANIFEST_FILES)
        .map(|f| {
            json!({
                "path": f.path,
                "kind": f.kind.as_str(),
                "fileStatus": f.status.as_str(),
                "hunks": f.hunks.len(),
                "added": f.hunks.iter().map(|h| h.added).sum::<usize>(),
                "removed": f.hunks.iter().map(|h| h.removed).sum::<usize>(),
            })
        })
        .collect();
    json!({
        "files": files,
        "omittedFromManifest": evidence.files.len().saturating_sub(MAX_MANIFEST_FILES),
    })
}

fn questions(hunk: &Hunk) -> Questions {
    Questions::new()
        .with(
            "classification",
            Question::choice(
                json!({
                    "question": format!("What kind of change does this hunk primarily make? Candidate: {} ({}).", hunk.id, hunk.path),
                    "guidance": "Classify only what the hunk visibly does, by its primary purpose. Choose mixed only when two purposes are equally central, and cannot_tell when the shown lines do not reveal a purpose.",
                }),
                LABELS.iter().map(|(l, d)| (*l, *d)),
            ),
        )
        .with(
            "importance",
            Question::score("How central is this hunk to the overall diff?", IMPORTANCE),
        )
        .with(
            "evidence_sufficient",
            Question::noul(
                json!({
                    "question": "Is the shown diff evidence sufficient for the selected classification?",
                    "guidance": "Choose false when the classification depends on unseen callers, unchanged tests, runtime behavior, production scale, external consumers or surrounding code that is not shown.",
                }),
                "The hunk and manifest alone support the classification.",
                "The classification depends on context that is not shown.",
            ),
        )
        .with("untrusted_instruction_text", untrusted_instruction_question())
}

/// What the CLI passes to `summarize`.
#[derive(Clone, Debug)]
pub struct SummarizeInput {
    /// The request text (checked: non-blank, at most 4000 characters).
    pub request: String,
    /// Hunks judged at most.
    pub max_hunks: usize,
}

/// The inputs recorded in `inputs.json`.
pub fn recorded_inputs(input: &SummarizeInput, evidence: &DiffEvidence) -> Value {
    json!({
        "analysis": "summarize",
        "requestHash": stable_hash(&json!(input.request)),
        "taskHash": null,
        "diff": evidence.source.describe(),
        "maxHunks": input.max_hunks,
    })
}

fn distribution(answer: &Answer) -> Value {
    match answer {
        Answer::Choice { probabilities, .. } => Value::Object(
            probabilities
                .iter()
                .map(|(l, p)| (l.clone(), json!(round3(*p))))
                .collect(),
        ),
        Answer::Score { probabilities, .. } => {
            json!(probabilities.iter().map(|p| round3(*p)).collect::<Vec<_>>())
        }
        Answer::Noul { probability } => json!(round3(*probability)),
    }
}

/// Runs summarize over the diff evidence, recording into `run`.
pub async fn summarize(
    input: &SummarizeInput,
    evidence: &DiffEvidence,
    executor: &Executor,
    run: &mut Run,
) {
    let hunks = &evidence.hunks;
    let judged_n = hunks.len().min(input.max_hunks);
    for hunk in hunks {
        run.set(&hunk.id, Disposition::Unjudged);
    }
    for ex in &evidence.excluded {
        run.set(&ex.id, Disposition::Excluded);
    }
    run.excluded = evidence.excluded.clone();
    if hunks.len() > input.max_hunks {
        run.limits.push(format!(
            "only {} highest-priority hunks of {} eligible hunks were judged (policy hunk limit)",
            input.max_hunks,
            hunks.len()
        ));
    }
    if evidence.files.len() > MAX_MANIFEST_FILES {
        run.limits.push(format!(
            "diff manifest lists the first {MAX_MANIFEST_FILES} of {} files",
            evidence.files.len()
        ));
    }
    run.candidates(&json!({
        "analysis": "summarize",
        "hunks": hunks.iter().map(|h| h.id.clone()).collect::<Vec<_>>(),
        "excluded": evidence.excluded,
    }));
    let manifest = manifest(evidence);
    // Every hunk has priority 0 in summarize, so the judged ones are the first in diff order.
    let frames: Vec<Frame> = hunks[..judged_n]
        .iter()
        .map(|hunk| Frame {
            template: "diff-summarize@1".into(),
            scope: hunk.id.clone(),
            state: json!({
                "evidencePolicy": EVIDENCE_POLICY,
                "analysis": "summarize",
                "request": input.request,
                "task": null,
                "diffManifest": manifest,
                "hunk": hunk.evidence(),
                "relatedTestHunks": [],
            }),
            questions: questions(hunk),
            provenance: json!([hunk.reference(&evidence.source)]),
        })
        .collect();
    let outcomes = executor.run_all(frames).await;
    let mut classifications: Map<String, Value> = Map::new();
    let mut lines: Vec<(u8, String)> = Vec::new();
    for (i, hunk) in hunks.iter().enumerate() {
        let mut row = json!({
            "analysis": "summarize",
            "id": hunk.id,
            "path": hunk.path,
            "lines": hunk.line_range(),
            "kind": hunk.kind.as_str(),
            "fileStatus": hunk.file_status.as_str(),
            "added": hunk.added,
            "removed": hunk.removed,
            "disposition": "unjudged",
            "classification": null,
            "importance": null,
            "evidenceSufficient": null,
            "untrustedInstructionText": null,
            "flag": null,
            "error": null,
        });
        let label_key;
        match outcomes.get(i) {
            None => {
                row["error"] = json!("not judged: hunk limit");
                label_key = "unjudged".to_owned();
            }
            Some(Err(failure)) => {
                let disposition = if failure.reason.is_unjudged() {
                    Disposition::Unjudged
                } else {
                    Disposition::Failed
                };
                run.set(&hunk.id, disposition);
                row["disposition"] = json!(disposition);
                row["error"] = json!(format!("{}: {}", failure.reason.as_str(), failure.detail));
                lines.push((
                    2,
                    format!(
                        "{}:{} [{}] - ({})",
                        hunk.path,
                        hunk.line_range(),
                        row["disposition"].as_str().unwrap_or(""),
                        row["error"].as_str().unwrap_or("")
                    ),
                ));
                label_key = "unjudged".to_owned();
            }
            Some(Ok(ok)) => {
                let Some(class @ Answer::Choice { probabilities, .. }) =
                    ok.answers.get("classification")
                else {
                    continue;
                };
                let importance = ok
                    .answers
                    .get("importance")
                    .cloned()
                    .unwrap_or(Answer::Score {
                        score: 0.0,
                        confidence: 0.0,
                        probabilities: vec![],
                    });
                let evidence_p = round3(ok.answers.noul("evidence_sufficient"));
                let untrusted = round3(ok.answers.noul("untrusted_instruction_text"));
                let mut sorted = probabilities.clone();
                sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
                let (label, top) = sorted.first().cloned().unwrap_or_default();
                let high_mass = round3(importance.mass_at_least(2));
                let score = match &importance {
                    Answer::Score { score, .. } => *score,
                    _ => 0.0,
                };
                let uncertain =
                    class.p("cannot_tell") >= CANNOT_TELL || top < SUMMARY_CLASSIFICATION;
                let disposition = if uncertain {
                    Disposition::Parked
                } else {
                    Disposition::Judged
                };
                run.set(&hunk.id, disposition);
                if uncertain {
                    run.parked.push(Parked {
                        id: hunk.id.clone(),
                        path: Some(hunk.path.clone()),
                        reason: "summarize: classification uncertain".into(),
                    });
                }
                if untrusted >= UNTRUSTED_INSTRUCTION_THRESHOLD {
                    let mut detail = Map::new();
                    detail.insert("p".into(), json!(untrusted));
                    run.findings.push(Finding {
                        flag: "untrusted_instruction_text".into(),
                        id: hunk.id.clone(),
                        source: "jev",
                        severity: Severity::Info,
                        path: Some(hunk.path.clone()),
                        lines: Some(hunk.line_range()),
                        detail: Some(detail),
                    });
                }
                let classification = json!({"label": label, "confidence": round3(top), "concernMass": 0.0, "distribution": distribution(class)});
                let importance_json = json!({"score": round3(score), "highMass": high_mass, "distribution": distribution(&importance)});
                run.decision(&hunk.id, "diff_summarize", json!({"classification": classification, "importance": importance_json, "evidenceSufficient": evidence_p, "flag": null}), POLICY);
                row["disposition"] = json!(disposition);
                row["classification"] = classification;
                row["importance"] = importance_json;
                row["evidenceSufficient"] = json!(evidence_p);
                row["untrustedInstructionText"] = json!(untrusted);
                lines.push((
                    u8::from(!uncertain),
                    format!(
                        "{}:{} [{}] {label} importance={score:.2} evidence={evidence_p:.2}",
                        hunk.path,
                        hunk.line_range(),
                        if uncertain { "parked" } else { "judged" }
                    ),
                ));
                label_key = label;
            }
        }
        let count = classifications.entry(label_key).or_insert(json!(0));
        *count = json!(count.as_u64().unwrap_or(0) + 1);
        run.results.push(row);
    }
    // Parked rows first, then classified rows, then errors; stable within each group.
    lines.sort_by_key(|(group, _)| *group);
    run.sections.push(Section {
        title: "change summary".into(),
        lines: lines.into_iter().take(50).map(|(_, l)| l).collect(),
    });
    run.not_checked = NOT_CHECKED.iter().map(|s| (*s).to_owned()).collect();
    run.summary = json!({
        "analysis": "summarize",
        "description": DESCRIPTION,
        "diff": evidence.source.describe(),
        "eligibleHunks": hunks.len(),
        "contextTestHunks": 0,
        "classifications": classifications,
    });
}
