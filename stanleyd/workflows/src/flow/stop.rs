//! One flow stop from evidence to journal: the stop frame asked through the executor, the
//! policy's decision, the decision applied to the journal (before it takes effect), and what the
//! agent is told under the flow's mode.

use serde::Serialize;
use stanley_core::{Executor, Frame};

use crate::flow::judge::{StopEvidence, StopJudgeError, curated_state, judgment, stop_questions};
use crate::flow::policy::{Action, Decision, Judgment};
use crate::flow::state::{
    Condition, DecisionEntry, FlowState, JevAsk, JournaledAction, PhaseStatus,
};
use crate::flow::{Flow, Mode};

/// The frame template of a stop.
pub const STOP_TEMPLATE: &str = "flow-stop@1";

/// The stop request for Jev.
pub fn stop_frame(flow: &Flow, state: &FlowState, evidence: &StopEvidence) -> Frame {
    Frame {
        template: STOP_TEMPLATE.into(),
        scope: format!("flow:{}", state.current_phase),
        state: curated_state(flow, state, evidence),
        questions: stop_questions(flow),
        provenance: crate::run::to_value(&StopProvenance {
            phase: &state.current_phase,
        }),
    }
}

/// A stop frame's provenance: the phase the work was in.
#[derive(Serialize)]
struct StopProvenance<'a> {
    phase: &'a str,
}

/// Asks Jev; any failure (no key, unreachable, budget, bad answer) is a reason to decide on
/// checks alone.
pub async fn ask(executor: &Executor, frame: Frame) -> Result<Judgment, StopJudgeError> {
    match executor.run(frame).await {
        Ok(ok) => judgment(&ok.answers),
        Err(failure) => Err(StopJudgeError::Failed {
            reason: failure.reason.as_str(),
            detail: failure.detail,
        }),
    }
}

fn action_name(action: &Action) -> JournaledAction {
    match action {
        Action::AllowStop => JournaledAction::AllowStop,
        Action::Block(_) => JournaledAction::Block,
        Action::Advance { .. } => JournaledAction::Advance,
        Action::AskHuman(_) => JournaledAction::AskHuman,
    }
}

/// What was observed at this stop besides the decision, for the journal's counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct StopFacts {
    /// Jev was asked (whatever the outcome).
    pub asked_jev: bool,
    /// The current phase's loop condition ran.
    pub loop_ran: bool,
    /// Jev flagged the agent stuck (at `limits.confidence.flag`).
    pub stuck: bool,
    /// The current phase's check result, when it has one.
    pub check_passed: Option<bool>,
}

/// Applies a decision to the journal; call before acting on it.
pub fn apply(
    flow: &Flow,
    state: &mut FlowState,
    decision: &Decision,
    facts: StopFacts,
    now: crate::time::Stamp,
) {
    let phase = state.current_phase.clone();
    if facts.asked_jev {
        state.count_jev(JevAsk::Stop);
    }
    state.last_stuck = facts.stuck;
    if facts.loop_ran
        && let Some(r) = state.phases.get_mut(&phase)
    {
        r.loop_iterations += 1;
    }
    for id in &decision.mark_done {
        if let Some(r) = state.phases.get_mut(id) {
            r.status = PhaseStatus::Done;
        }
    }
    let (to, reason) = match &decision.action {
        Action::Advance { to, reason } => (Some(to.clone()), reason.clone()),
        Action::Block(r) | Action::AskHuman(r) => (None, r.clone()),
        Action::AllowStop => (None, String::new()),
    };
    // Only a block that blocks spends the block budget and the hook cap; outside enforce mode
    // nothing was blocked, and the journal says what would have been.
    let enforced = flow.mode == crate::flow::Mode::Enforce;
    match &decision.action {
        Action::Block(_) if enforced => {
            state.blocks_in_session += 1;
            state.consecutive_blocks += 1;
        }
        _ => state.consecutive_blocks = 0,
    }
    if let Some(next) = &to
        && flow.phase(next).is_some()
    {
        if let Some(r) = state.phases.get_mut(&phase)
            && r.status == PhaseStatus::Active
        {
            r.status = PhaseStatus::Pending;
        }
        state.current_phase = next.clone();
        if let Some(r) = state.phases.get_mut(next) {
            // A regression re-opens a done phase; entering any phase counts an attempt.
            r.status = PhaseStatus::Active;
            r.attempts += 1;
            r.loop_iterations = 0;
        }
    }
    if decision.complete {
        state.complete = true;
    }
    state.record(DecisionEntry {
        at: now,
        condition: decision.condition,
        action: match &decision.action {
            Action::Block(_) if !enforced => JournaledAction::WouldBlock,
            action => action_name(action),
        },
        phase,
        to,
        reason,
        check_passed: facts.check_passed,
    });
}

/// What the agent hears at a stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Told {
    /// Keep the agent working (a block, or an advance into the next phase).
    pub keep_going: bool,
    /// What to tell it (or the person).
    pub message: Option<String>,
}

/// What the agent is told under `mode`: `observe` never interferes, `warn` never keeps the
/// agent going but says what enforcement would do, `enforce` acts.
pub fn told(mode: Mode, decision: &Decision) -> Told {
    let (keep_going, message) = match &decision.action {
        Action::AllowStop => (false, None),
        Action::Block(reason) => (true, Some(reason.clone())),
        Action::Advance { to, reason } => (true, Some(format!("{reason}; now work on phase {to}"))),
        Action::AskHuman(reason) => (false, Some(format!("a person is needed: {reason}"))),
    };
    match mode {
        Mode::Enforce => Told {
            keep_going,
            message,
        },
        Mode::Observe => Told {
            keep_going: false,
            message: None,
        },
        // Warn mode says what enforcement would do, as that.
        Mode::Warn => Told {
            keep_going: false,
            message: message.map(|m| {
                let would = match &decision.action {
                    Action::Block(_) => "would block",
                    Action::Advance { .. } => "would move on",
                    Action::AskHuman(_) => "would ask a person",
                    Action::AllowStop => "would allow the stop",
                };
                format!("(warn mode, not enforced) {would}: {m}")
            }),
        },
    }
}

/// The facts of a stop that the journal keeps, from Jev's answers and the phase's check.
pub fn facts(
    flow: &Flow,
    judgment: &Result<Judgment, StopJudgeError>,
    loop_ran: bool,
    check_passed: Option<bool>,
) -> StopFacts {
    StopFacts {
        asked_jev: true,
        loop_ran,
        check_passed,
        stuck: judgment
            .as_ref()
            .is_ok_and(|j| j.stuck >= flow.limits.confidence.flag),
    }
}

/// Review-band stops at which the phase's check passed, in the current phase since it was
/// entered.
pub fn review_stops(state: &FlowState) -> u32 {
    state
        .decisions
        .iter()
        .rev()
        .take_while(|d| d.phase == state.current_phase && d.action != JournaledAction::Advance)
        .filter(|d| d.condition == Condition::ReviewBand && d.check_passed == Some(true))
        .count() as u32
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use stanley_core::{Budget, BudgetLimits, Cancel, ExecutorOptions, Jev};

    use super::*;
    use crate::flow::parse_flow;
    use crate::flow::policy::{CheckRun, StopContext, decide};
    use stanley_core::testing::{ScriptedJev, choice, noul};

    /// A confident Jev that thinks the work is in `phase` and done, stuck with `stuck`.
    fn confident(phase: &'static str, stuck: f64) -> Arc<ScriptedJev> {
        ScriptedJev::per_question(move |name, q, _| {
            if q["type"] == "choice" {
                let pick = if name == "current_phase" {
                    phase
                } else {
                    "advance"
                };
                choice(q, pick, 0.9)
            } else {
                noul(match name {
                    "phase_done" => 0.9,
                    "stuck" => stuck,
                    _ => 0.05,
                })
            }
        })
    }

    fn executor(jev: Option<Arc<dyn Jev>>) -> Executor {
        Executor::new(
            jev,
            Arc::new(Budget::new(BudgetLimits::TREE)),
            ExecutorOptions::new("m").retries(0),
            Cancel::new(),
        )
    }

    const FLOW: &str = r#"{"goal": "Ship", "phases": [
        {"id": "a", "name": "A", "done_when": "a exists", "check": "test -f a"},
        {"id": "b", "name": "B", "done_when": "b exists"}]}"#;

    async fn stop(
        flow: &Flow,
        state: &mut FlowState,
        jev: Option<Arc<dyn Jev>>,
        checks: &[(&str, bool)],
    ) -> Decision {
        let evidence = StopEvidence::default();
        let judgment = ask(&executor(jev), stop_frame(flow, state, &evidence)).await;
        let current = checks
            .iter()
            .find(|(p, _)| *p == state.current_phase)
            .map(|(_, ok)| *ok);
        let stop_facts = facts(flow, &judgment, false, current);
        let decision = decide(&StopContext {
            flow,
            state,
            elapsed_minutes: 1,
            checks: checks
                .iter()
                .map(|(p, ok)| {
                    (
                        (*p).to_owned(),
                        CheckRun {
                            passed: *ok,
                            tail: if *ok { String::new() } else { "missing".into() },
                        },
                    )
                })
                .collect::<BTreeMap<_, _>>(),
            loop_check: None,
            jev: judgment,
            open_subtasks: Vec::new(),
            stuck_before: state.last_stuck,
            review_stops: review_stops(state),
        });
        apply(
            flow,
            state,
            &decision,
            stop_facts,
            crate::time::Stamp::EPOCH,
        );
        decision
    }

    #[tokio::test]
    async fn in_warn_mode_a_block_is_journaled_as_would_block_and_spends_no_budget() {
        let flow = parse_flow(&FLOW.replace("\"goal\"", "\"mode\": \"warn\", \"goal\"")).unwrap();
        let mut state = FlowState::new(&flow, crate::time::Stamp::EPOCH);
        let jev = || Some(confident("a", 0.05) as Arc<dyn Jev>);
        for _ in 0..3 {
            let d = stop(&flow, &mut state, jev(), &[("a", false)]).await;
            assert!(matches!(d.action, Action::Block(_)), "{d:?}");
        }
        assert_eq!((state.blocks_in_session, state.consecutive_blocks), (0, 0));
        let actions: Vec<&str> = state.decisions.iter().map(|d| d.action.as_str()).collect();
        assert_eq!(actions, ["would_block"; 3]);
    }

    #[tokio::test]
    async fn a_flow_blocks_advances_and_completes_through_the_journal() {
        let flow = parse_flow(FLOW).unwrap();
        let mut state = FlowState::new(&flow, crate::time::Stamp::EPOCH);
        let jev = || Some(confident("a", 0.05) as Arc<dyn Jev>);
        let d = stop(&flow, &mut state, jev(), &[("a", false)]).await;
        assert_eq!(d.condition, Condition::Continue);
        assert_eq!((state.blocks_in_session, state.consecutive_blocks), (1, 1));
        let d = stop(&flow, &mut state, jev(), &[("a", true)]).await;
        assert_eq!(d.condition, Condition::Advance);
        assert_eq!(state.current_phase, "b");
        assert_eq!(state.phases["a"].status, PhaseStatus::Done);
        assert_eq!(state.phases["b"].status, PhaseStatus::Active);
        assert_eq!(state.consecutive_blocks, 0);
        let jev_b = Some(confident("b", 0.05) as Arc<dyn Jev>);
        let d = stop(&flow, &mut state, jev_b, &[("a", true)]).await;
        assert_eq!(d.condition, Condition::GoalComplete);
        assert!(state.complete);
        assert_eq!(state.jev_calls, 3);
        let conditions: Vec<&str> = state
            .decisions
            .iter()
            .map(|d| d.condition.as_str())
            .collect();
        assert_eq!(conditions, ["continue", "advance", "goal_complete"]);
        assert_eq!(state.decisions[1].to.as_deref(), Some("b"));
    }

    #[tokio::test]
    async fn stuck_twice_in_a_row_is_remembered_across_stops() {
        let flow = parse_flow(FLOW).unwrap();
        let mut state = FlowState::new(&flow, crate::time::Stamp::EPOCH);
        let jev = || Some(confident("a", 0.9) as Arc<dyn Jev>);
        let d = stop(&flow, &mut state, jev(), &[("a", false)]).await;
        assert_eq!(d.condition, Condition::Continue, "flagged once");
        assert!(state.last_stuck);
        let d = stop(&flow, &mut state, jev(), &[("a", false)]).await;
        assert_eq!(d.condition, Condition::Stuck);
        let d = stop(&flow, &mut state, jev(), &[("a", false)]).await;
        assert_eq!(d.condition, Condition::StuckEscalate);
    }

    #[tokio::test]
    async fn without_jev_the_stop_is_decided_on_checks() {
        let flow = parse_flow(FLOW).unwrap();
        let mut state = FlowState::new(&flow, crate::time::Stamp::EPOCH);
        let d = stop(&flow, &mut state, None, &[("a", false)]).await;
        assert_eq!(d.condition, Condition::DegradedCheckFail);
        let d = stop(&flow, &mut state, None, &[("a", true)]).await;
        assert_eq!(d.condition, Condition::DegradedCheckPass);
        assert_eq!(state.current_phase, "b");
        let d = stop(&flow, &mut state, None, &[("a", true)]).await;
        assert_eq!(
            (d.condition, d.action),
            (Condition::DegradedNoCheck, Action::AllowStop)
        );
    }

    #[test]
    fn modes_change_what_the_agent_is_told() {
        let block = Decision {
            condition: Condition::Continue,
            action: Action::Block("keep going".into()),
            mark_done: Vec::new(),
            complete: false,
        };
        assert_eq!(
            told(Mode::Enforce, &block),
            Told {
                keep_going: true,
                message: Some("keep going".into())
            }
        );
        assert_eq!(
            told(Mode::Observe, &block),
            Told {
                keep_going: false,
                message: None
            }
        );
        assert_eq!(
            told(Mode::Warn, &block),
            Told {
                keep_going: false,
                message: Some("(warn mode, not enforced) would block: keep going".into())
            }
        );
    }
}
