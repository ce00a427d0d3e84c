//! What Jev sees and is asked at a flow stop: the curated state (goal, phase table, check
//! results, the agent's last words, changed files, recent decisions; file contents only with
//! `privacy.send_diff`) cut to `limits.state_char_budget`, the one set of fixed-choice questions,
//! and the mapping of the answers onto the policy's [`Judgment`].

use serde::Serialize;
use serde_json::Value;
use stanley_core::{Answer, Answers, Question, Questions};

use crate::flow::Flow;
use crate::flow::policy::{CheckRun, Judgment, NextAction};
use crate::flow::state::{Condition, FlowState};
use crate::run::to_value;
use crate::text::{tail_chars, truncate_chars};

/// How much of the agent's last message is kept at most.
pub const MESSAGE_TAIL_CHARS: usize = 4_000;
/// Decisions shown to Jev.
pub const RECENT_DECISIONS: usize = 5;

/// One changed file, by name and line counts only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChangedFile {
    pub path: String,
    pub added: u32,
    pub removed: u32,
}

/// The raw material of the curated state.
#[derive(Clone, Debug, Default)]
pub struct StopEvidence {
    /// Check results by phase id, in phase order.
    pub checks: Vec<(String, CheckRun)>,
    pub last_message: String,
    pub changed: Vec<ChangedFile>,
    /// The worktree diff; sent only when the flow allows it.
    pub diff: Option<String>,
}

/// The curated state of a stop, in the order Jev reads it; `diff` only when the flow sends it.
#[derive(Serialize)]
struct CuratedState<'a> {
    goal: &'a str,
    current_phase: &'a str,
    phases: &'a [PhaseShown<'a>],
    checks: Vec<CheckShown<'a>>,
    last_message_tail: String,
    changed_files: Vec<&'a ChangedFile>,
    changed_files_total: usize,
    recent_decisions: &'a [DecisionShown<'a>],
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
}

/// A phase of the plan and where it stands.
#[derive(Serialize)]
struct PhaseShown<'a> {
    id: &'a str,
    name: &'a str,
    done_when: &'a str,
    status: &'a str,
}

/// A recent decision of the flow.
#[derive(Serialize)]
struct DecisionShown<'a> {
    condition: Condition,
    action: &'a str,
    phase: &'a str,
}

/// A phase's check result; the output's tail only when it failed.
#[derive(Serialize)]
struct CheckShown<'a> {
    phase: &'a str,
    passed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_tail: Option<String>,
}

/// Why a stop has no judgment: the policy's type (it decides on checks alone then).
pub use crate::flow::policy::StopJudgeError;

/// Builds the curated state within the flow's character budget, shrinking in order the changed
/// file list (to 20), the message tail (to 1,000), the check output (to 500), the diff, and then
/// the rest, until it fits.
pub fn curated_state(flow: &Flow, state: &FlowState, evidence: &StopEvidence) -> Value {
    let budget = flow.limits.state_char_budget as usize;
    let phases: Vec<PhaseShown<'_>> = flow
        .phases
        .iter()
        .map(|p| PhaseShown {
            id: &p.id,
            name: &p.name,
            done_when: &p.done_when,
            status: state
                .phases
                .get(&p.id)
                .map_or("pending", |r| r.status.as_str()),
        })
        .collect();
    let decisions: Vec<DecisionShown<'_>> = state
        .recent(RECENT_DECISIONS)
        .iter()
        .map(|d| DecisionShown {
            condition: d.condition,
            action: d.action.as_str(),
            phase: &d.phase,
        })
        .collect();
    let mut message_max = MESSAGE_TAIL_CHARS;
    let mut check_max = 1_500usize;
    let mut files_max = 200usize;
    let mut diff_max = budget;
    loop {
        let checks: Vec<CheckShown<'_>> = evidence
            .checks
            .iter()
            .map(|(phase, run)| CheckShown {
                phase,
                passed: run.passed,
                output_tail: (!run.passed).then(|| tail_chars(&run.tail, check_max)),
            })
            .collect();
        let doc = to_value(&CuratedState {
            goal: &flow.goal,
            current_phase: &state.current_phase,
            phases: &phases,
            checks,
            last_message_tail: tail_chars(&evidence.last_message, message_max),
            changed_files: evidence.changed.iter().take(files_max).collect(),
            changed_files_total: evidence.changed.len(),
            recent_decisions: &decisions,
            diff: evidence
                .diff
                .as_deref()
                .filter(|_| flow.send_diff)
                .map(|diff| truncate_chars(diff, diff_max)),
        });
        let size = doc.to_string().chars().count();
        if size <= budget || (message_max == 0 && check_max == 0 && files_max == 0 && diff_max == 0)
        {
            return doc;
        }
        let over = size - budget;
        let cut = |max: usize, floor: usize| max.saturating_sub(over.max(64)).max(floor);
        let has_diff = flow.send_diff && evidence.diff.is_some();
        if files_max > 20 {
            files_max /= 2;
        } else if message_max > 1_000 {
            message_max = cut(message_max, 1_000);
        } else if check_max > 500 {
            check_max = cut(check_max, 500);
        } else if has_diff && diff_max > 0 {
            diff_max = cut(diff_max, 0);
        } else if message_max > 0 {
            message_max = cut(message_max, 0);
        } else if check_max > 0 {
            check_max = cut(check_max, 0);
        } else {
            files_max /= 2;
            diff_max = 0;
        }
    }
}

/// The one set of questions asked at a stop.
pub fn stop_questions(flow: &Flow) -> Questions {
    let mut phases: Vec<(String, Value)> = flow
        .phases
        .iter()
        .map(|p| {
            (
                p.id.clone(),
                Value::from(format!("The work is in phase {}: {}", p.name, p.done_when)),
            )
        })
        .collect();
    phases.push((
        crate::flow::UNCLEAR.to_owned(),
        Value::from("It cannot be told which phase the work is in"),
    ));
    Questions::new()
        .with(
            "current_phase",
            Question::choice(
                "Which phase of the plan is the agent's work in now?",
                phases,
            ),
        )
        .with(
            "phase_done",
            Question::noul(
                "Is the current phase's done_when condition met by the evidence?",
                "the condition is met",
                "the condition is not met yet",
            ),
        )
        .with(
            "next_action",
            Question::choice(
                "What should happen next?",
                NextAction::ALL.iter().map(|a| (a.as_str(), a.meaning())),
            ),
        )
        .with(
            "stuck",
            Question::noul(
                "Is the agent stuck, repeating itself without progress?",
                "stuck",
                "making progress",
            ),
        )
        .with(
            "off_goal",
            Question::noul(
                "Is the agent working on something other than the goal?",
                "off the goal",
                "on the goal",
            ),
        )
        .with(
            "claims_done",
            Question::noul(
                "Does the agent's last message claim that the work is finished?",
                "it claims to be finished",
                "it does not claim that",
            ),
        )
}

/// Maps the answers onto the policy's view; a missing or mistyped answer is a bad answer.
pub fn judgment(answers: &Answers) -> Result<Judgment, StopJudgeError> {
    let missing = |name: &str| StopJudgeError::NoAnswer {
        name: name.to_owned(),
    };
    let choice = |name: &str| match answers.get(name) {
        Some(Answer::Choice {
            choice, confidence, ..
        }) => Ok((choice.clone(), *confidence)),
        _ => Err(missing(name)),
    };
    let noul = |name: &str| match answers.get(name) {
        Some(Answer::Noul { probability }) => Ok(*probability),
        _ => Err(missing(name)),
    };
    let (current_phase, current_confidence) = choice("current_phase")?;
    let (next_action, next_confidence) = choice("next_action")?;
    // (Validation keeps a choice among the offered words; one outside them is no answer.)
    let next_action = NextAction::parse(&next_action).ok_or_else(|| missing("next_action"))?;
    Ok(Judgment {
        current_phase,
        current_confidence,
        phase_done: noul("phase_done")?,
        next_action,
        next_confidence,
        stuck: noul("stuck")?,
        off_goal: noul("off_goal")?,
        claims_done: noul("claims_done")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::parse_flow;

    fn flow(send_diff: bool, budget: u32) -> Flow {
        parse_flow(&format!(
            r#"{{"goal": "Ship it", "privacy": {{"send_diff": {send_diff}}}, "limits": {{"state_char_budget": {budget}}},
               "phases": [{{"id": "a", "name": "A", "done_when": "a exists", "check": "test -f a"}},
                          {{"id": "b", "name": "B", "done_when": "b exists"}}]}}"#
        ))
        .unwrap()
    }

    fn evidence() -> StopEvidence {
        StopEvidence {
            checks: vec![(
                "a".into(),
                CheckRun {
                    passed: false,
                    tail: format!("{}FINAL LINE", "x".repeat(5_000)),
                },
            )],
            last_message: format!("{}I am done", "m".repeat(10_000)),
            changed: (0..300)
                .map(|i| ChangedFile {
                    path: format!("src/f{i}.rs"),
                    added: i,
                    removed: 1,
                })
                .collect(),
            diff: Some("+secret body of the file\n".repeat(1_000)),
        }
    }

    #[test]
    fn the_state_fits_the_budget_and_keeps_file_contents_private() {
        let private = flow(false, 12_000);
        let state = FlowState::new(&private, crate::time::Stamp::EPOCH);
        let doc = curated_state(&private, &state, &evidence());
        assert!(doc.to_string().chars().count() <= 12_000);
        assert_eq!(doc["goal"], "Ship it");
        assert_eq!(doc["phases"][0]["status"], "active");
        assert!(
            doc["last_message_tail"]
                .as_str()
                .unwrap()
                .ends_with("I am done")
        );
        assert!(
            doc["checks"][0]["output_tail"]
                .as_str()
                .unwrap()
                .ends_with("FINAL LINE")
        );
        assert_eq!(doc["changed_files_total"], 300);
        assert!(
            doc.get("diff").is_none(),
            "no file contents without send_diff"
        );

        let shared = flow(true, 12_000);
        let doc = curated_state(&shared, &state, &evidence());
        assert!(doc["diff"].as_str().unwrap().contains("secret body"));
        assert!(doc.to_string().chars().count() <= 12_000);

        let tight = flow(false, 2_000);
        let doc = curated_state(&tight, &state, &evidence());
        assert!(
            doc.to_string().chars().count() <= 2_000,
            "{}",
            doc.to_string().len()
        );
    }

    #[test]
    fn questions_and_answers_map_onto_the_policy() {
        let flow = flow(false, 12_000);
        let questions = stop_questions(&flow);
        let names: Vec<&str> = questions.0.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "current_phase",
                "phase_done",
                "next_action",
                "stuck",
                "off_goal",
                "claims_done"
            ]
        );
        match &questions.0[0].1 {
            Question::Choice { criteria, .. } => {
                let labels: Vec<&str> = criteria.iter().map(|(l, _)| l.as_str()).collect();
                assert_eq!(labels, ["a", "b", "unclear"]);
            }
            other => panic!("{other:?}"),
        }
        let choice = |c: &str, p: f64| Answer::Choice {
            choice: c.into(),
            confidence: p,
            probabilities: vec![(c.into(), p)],
        };
        let noul = |p: f64| Answer::Noul { probability: p };
        let mut answers = Answers(vec![
            ("current_phase".into(), choice("a", 0.85)),
            ("phase_done".into(), noul(0.9)),
            ("next_action".into(), choice("advance", 0.8)),
            ("stuck".into(), noul(0.1)),
            ("off_goal".into(), noul(0.2)),
            ("claims_done".into(), noul(0.3)),
        ]);
        let j = judgment(&answers).unwrap();
        assert_eq!(
            (
                j.current_phase.as_str(),
                j.current_confidence,
                j.phase_done,
                j.claims_done
            ),
            ("a", 0.85, 0.9, 0.3)
        );
        answers.0.retain(|(n, _)| n != "stuck");
        assert_eq!(
            judgment(&answers).unwrap_err().to_string(),
            "Jev gave no stuck answer"
        );
    }
}

#[cfg(test)]
#[path = "judge_shape_tests.rs"]
mod shape_tests;
