//! The `check` built-in: the diff against its task, and against project rules or acceptance
//! criteria given as input. Input is validated before any Jev request; the diff is loaded once;
//! the sections' frames are asked together where their inputs allow, and their answers applied
//! in a fixed order (task, rules, criteria) to one coverage map.

pub mod criteria;
pub mod rules;
pub mod task;

use serde::Serialize;
use serde_json::Value;
use stanley_core::{Executor, stable_hash};

use crate::check::criteria::Criterion;
use crate::check::rules::Rule;
use crate::diff::DiffEvidence;
use crate::run::{Run, to_value};
use crate::text::check_request_text;

/// What one section of `check` hands back.
pub struct SectionOutcome {
    /// The heading of its part of the human report.
    pub title: &'static str,
    pub rows: Vec<Value>,
    pub summary: Value,
    pub not_checked: Vec<String>,
    pub lines: Vec<String>,
    pub incomplete: bool,
}

impl SectionOutcome {
    /// Adds the section to the run and to `check`'s results (its rows tagged with `name`) and
    /// notes; gives back its summary.
    fn absorb(
        self,
        name: &str,
        run: &mut Run,
        results: &mut Vec<Value>,
        not_checked: &mut Vec<String>,
    ) -> Value {
        run.incomplete |= self.incomplete;
        results.extend(tag(self.rows, name));
        not_checked.extend(self.not_checked);
        // The criteria are the verdict a person asked for; the task's and the rules' rows per
        // hunk repeat what the findings say, for `--verbose`.
        run.sections.push(if name == "criteria" {
            crate::run::Section::new(self.title, self.lines)
        } else {
            crate::run::Section::rows(self.title, self.lines)
        });
        self.summary
    }
}

/// What `check` was asked, validated.
#[derive(Clone, Debug)]
pub struct CheckPlan {
    pub task: String,
    pub rules: Option<(Vec<Rule>, String, String)>,
    pub criteria: Option<(Vec<Criterion>, String, String)>,
}

/// Why a check cannot be planned: its task or its input (input errors, exit 65).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Task(#[from] crate::text::RequestTextError),
    #[error(transparent)]
    Rules(#[from] rules::RulesError),
    #[error(transparent)]
    Criteria(#[from] criteria::CriteriaError),
}

/// Validates the task and parses the input as rules or criteria (input errors, exit 65).
pub fn plan(task: &str, input: Option<(&str, &str)>) -> Result<CheckPlan, PlanError> {
    check_request_text(task, "task")?;
    let mut plan = CheckPlan {
        task: task.to_owned(),
        rules: None,
        criteria: None,
    };
    if let Some((text, source)) = input {
        let hash = stable_hash(&Value::from(text));
        if rules::is_rules_document(text) {
            plan.rules = Some((rules::parse_rules(text)?, source.to_owned(), hash));
        } else {
            let criteria = criteria::parse_criteria(text)?;
            plan.criteria = Some((criteria, source.to_owned(), hash));
        }
    }
    Ok(plan)
}

/// The inputs recorded in `inputs.json`.
pub fn recorded_inputs(plan: &CheckPlan, evidence: &DiffEvidence) -> Value {
    to_value(&RecordedInputs {
        task_hash: stable_hash(&Value::from(plan.task.as_str())),
        task_source: "user",
        rules: plan.rules.as_ref().map(|(_, source, hash)| RulesInput {
            source,
            hash,
            max_pairs: rules::DEFAULT_MAX_PAIRS,
        }),
        criteria: plan
            .criteria
            .as_ref()
            .map(|(_, source, hash)| CriteriaInput {
                source,
                hash,
                max_evidence_units: criteria::DEFAULT_MAX_EVIDENCE_UNITS,
            }),
        test_results: None,
        diff: evidence.source.describe(),
        diff_hash: stable_hash(&Value::from(evidence.source.diff.to_text())),
        max_hunks: task::DEFAULT_MAX_HUNKS,
    })
}

/// `check`'s inputs as `inputs.json` records them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RecordedInputs<'a> {
    task_hash: String,
    task_source: &'static str,
    rules: Option<RulesInput<'a>>,
    criteria: Option<CriteriaInput<'a>>,
    test_results: Option<Value>,
    diff: Value,
    diff_hash: String,
    max_hunks: usize,
}

/// The rules document `check` was given: where from, its hash and the pair limit.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RulesInput<'a> {
    source: &'a str,
    hash: &'a str,
    max_pairs: usize,
}

/// The acceptance criteria `check` was given: where from, its hash and the evidence limit.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CriteriaInput<'a> {
    source: &'a str,
    hash: &'a str,
    max_evidence_units: usize,
}

/// What `check` considered, as `candidates.json` records it: the sections it had input for.
#[derive(Serialize)]
struct CheckCandidates<'a> {
    diff: Value,
    excluded: &'a [crate::diff::Exclusion],
    task: TaskCandidates<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rules: Option<RuleCandidates<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    criteria: Option<CriteriaCandidates<'a>>,
}

/// The hunks the task section considered.
#[derive(Serialize)]
struct TaskCandidates<'a> {
    hunks: Vec<&'a str>,
}

/// The rules the rules section considered.
#[derive(Serialize)]
struct RuleCandidates<'a> {
    rules: Vec<&'a str>,
}

/// The criteria the criteria section considered.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CriteriaCandidates<'a> {
    criteria: Vec<CriterionShown<'a>>,
    test_records: usize,
}

/// A criterion by its id and text.
#[derive(Serialize)]
pub(crate) struct CriterionShown<'a> {
    pub(crate) id: &'a str,
    pub(crate) text: &'a str,
}

/// `check`'s summary: the diff, the sections run and each section's summary (`null` when the
/// section had no input).
#[derive(Serialize)]
struct CheckSummary<'a> {
    diff: Value,
    sections: &'a [&'static str],
    task: Value,
    rules: Value,
    criteria: Value,
}

fn tag(rows: Vec<Value>, section: &str) -> impl Iterator<Item = Value> + '_ {
    rows.into_iter().map(move |mut r| {
        r["section"] = Value::from(section);
        r
    })
}

/// Runs `check`, recording into `run`.
pub async fn check(plan: &CheckPlan, evidence: &DiffEvidence, executor: &Executor, run: &mut Run) {
    for ex in &evidence.excluded {
        run.set(&ex.id, crate::run::Disposition::Excluded);
    }
    run.excluded = evidence.excluded.clone();
    run.candidates(&to_value(&CheckCandidates {
        diff: evidence.source.describe(),
        excluded: &evidence.excluded,
        task: TaskCandidates {
            hunks: evidence.hunks.iter().map(|h| h.id.as_str()).collect(),
        },
        rules: plan.rules.as_ref().map(|(rules, ..)| RuleCandidates {
            rules: rules.iter().map(|r| r.id.as_str()).collect(),
        }),
        criteria: plan
            .criteria
            .as_ref()
            .map(|(criteria, ..)| CriteriaCandidates {
                criteria: criteria
                    .iter()
                    .map(|c| CriterionShown {
                        id: &c.id,
                        text: &c.text,
                    })
                    .collect(),
                test_records: 0,
            }),
    }));

    let mut sections = vec!["task"];
    let mut results = Vec::new();
    let mut not_checked: Vec<String> = Vec::new();
    // The rules' frames and the criteria's first frames depend only on the input and the diff:
    // they are asked alongside the task section's, and the sections that follow find their
    // answers (an executor asks an identical frame once), so a check costs the task section's
    // rounds plus at most one, not the sum of every section's.
    let (max_pairs, max_units) = (
        rules::DEFAULT_MAX_PAIRS,
        criteria::DEFAULT_MAX_EVIDENCE_UNITS,
    );
    let early = match (&plan.rules, &plan.criteria) {
        (Some((rules, ..)), _) => rules::frames(rules, evidence, max_pairs),
        (None, Some((criteria, ..))) => criteria::first_frames(criteria, evidence, max_units),
        (None, None) => Vec::new(),
    };
    let (task, _) = futures::join!(
        task::judge(&plan.task, evidence, executor, run, task::DEFAULT_MAX_HUNKS),
        executor.run_all(early)
    );
    let task_summary = task.absorb("task", run, &mut results, &mut not_checked);
    let mut rules_summary = Value::Null;
    if let Some((rules, ..)) = &plan.rules {
        sections.push("rules");
        let out = rules::judge(rules, evidence, executor, run, max_pairs).await;
        rules_summary = out.absorb("rules", run, &mut results, &mut not_checked);
    } else {
        not_checked.push("project rules (no rules supplied)".into());
    }
    let mut criteria_summary = Value::Null;
    if let Some((criteria, ..)) = &plan.criteria {
        sections.push("criteria");
        let out = criteria::judge(criteria, evidence, executor, run, max_units).await;
        criteria_summary = out.absorb("criteria", run, &mut results, &mut not_checked);
    } else {
        not_checked.push("acceptance criteria (no criteria supplied)".into());
    }
    let mut unique = Vec::new();
    for note in not_checked {
        if !unique.contains(&note) {
            unique.push(note);
        }
    }
    run.not_checked = unique;
    run.results = results;
    run.summary = to_value(&CheckSummary {
        diff: evidence.source.describe(),
        sections: &sections,
        task: task_summary,
        rules: rules_summary,
        criteria: criteria_summary,
    });
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
