//! The stop policy: a pure `decide()` that turns check results, Jev's answers and the journal
//! into ALLOW_STOP, BLOCK, ADVANCE or ASK_HUMAN by a table of conditions in a fixed priority
//! order. Checks always outrank Jev; without Jev it decides on checks alone and never blocks
//! without evidence.

use std::collections::{BTreeMap, BTreeSet};

use crate::flow::state::{Condition, FlowState, PhaseStatus};
use crate::flow::{Flow, Phase};

/// Why a stop has no judgment to decide on; the policy then decides on checks alone.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StopJudgeError {
    /// Jev's answers lacked a question's answer, or gave it the wrong type.
    #[error("Jev gave no {name} answer")]
    NoAnswer { name: String },
    /// The frame failed (no key, unreachable, budget, invalid answers).
    #[error("{reason}: {detail}")]
    Failed {
        reason: &'static str,
        detail: String,
    },
    /// Jev could not be asked at all (no executor for the request), with why.
    #[error("{0}")]
    Unavailable(String),
    /// The stop was not asked (a recorded side effect, a budget or a finished flow).
    #[error("not asked")]
    NotAsked,
}

/// Consecutive blocks after which the policy lets the agent stop (Claude Code's own cap is 8).
pub const HOOK_CAP: u32 = 7;
/// The same block reason this many times in a row means the agent is stuck.
pub const SAME_REASON_LIMIT: usize = 3;

/// One check's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckRun {
    pub passed: bool,
    /// The end of its output, for the agent and the journal.
    pub tail: String,
}

stanley_core::words! {
    /// What Jev judges should happen next at a stop.
    pub enum NextAction {
        Continue = "continue",
        Advance = "advance",
        AskHuman = "ask_human",
    }
}

impl NextAction {
    /// What the choice means, as the stop question offers it.
    pub fn meaning(self) -> &'static str {
        match self {
            NextAction::Continue => "keep working on the current phase",
            NextAction::Advance => "move on to the next phase",
            NextAction::AskHuman => "a person must decide something first",
        }
    }
}

/// Jev's answers to the stop request.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgment {
    /// The phase Jev thinks the work is in (or `unclear`), and its confidence.
    pub current_phase: String,
    pub current_confidence: f64,
    /// Whether the current phase's `done_when` holds.
    pub phase_done: f64,
    /// What should happen next, and its confidence.
    pub next_action: NextAction,
    pub next_confidence: f64,
    pub stuck: f64,
    pub off_goal: f64,
    pub claims_done: f64,
}

/// Everything one stop is decided on.
#[derive(Clone, Debug)]
pub struct StopContext<'a> {
    pub flow: &'a Flow,
    pub state: &'a FlowState,
    pub elapsed_minutes: u32,
    /// Check results by phase id: the current phase, and every done phase (for regression).
    pub checks: BTreeMap<String, CheckRun>,
    /// The current phase's loop condition, when it has a loop.
    pub loop_check: Option<CheckRun>,
    /// Jev's answers, or why there are none (no key, unreachable, bad answer).
    pub jev: Result<Judgment, StopJudgeError>,
    /// Open sub-steps of a dynamic phase.
    pub open_subtasks: Vec<String>,
    /// Whether Jev flagged the agent stuck at the previous stop too.
    pub stuck_before: bool,
    /// Review-band stops in this phase whose check passed, before this one.
    pub review_stops: u32,
}

/// What the agent (or a person) is told to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    AllowStop,
    Block(String),
    Advance { to: String, reason: String },
    AskHuman(String),
}

/// A decision and the condition that produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub condition: Condition,
    pub action: Action,
    /// Phases to mark done with this decision (in DAG order).
    pub mark_done: Vec<String>,
    /// The flow is complete after this decision.
    pub complete: bool,
}

fn decision(condition: Condition, action: Action) -> Decision {
    Decision {
        condition,
        action,
        mark_done: Vec::new(),
        complete: false,
    }
}

fn failing(check: &CheckRun) -> String {
    if check.tail.trim().is_empty() {
        "the check failed".to_owned()
    } else {
        format!("the check failed:\n{}", check.tail.trim_end())
    }
}

/// Required phases: all but branch-only `on_fail` targets.
fn required(flow: &Flow) -> Vec<&Phase> {
    let branch = flow.branch_only();
    flow.phases
        .iter()
        .filter(|p| !branch.contains(p.id.as_str()))
        .collect()
}

/// The first phase (in file order) not done whose dependencies are all done.
fn next_phase<'a>(flow: &'a Flow, done: &BTreeSet<String>) -> Option<&'a Phase> {
    required(flow)
        .into_iter()
        .find(|p| !done.contains(&p.id) && p.depends_on.iter().all(|d| done.contains(d)))
}

fn done_set(state: &FlowState) -> BTreeSet<String> {
    state.done().map(str::to_owned).collect()
}

/// Completes the current phase: advance to the next eligible one, finish the flow, or report a
/// deadlock.
fn complete_phase(ctx: &StopContext<'_>, condition: Condition, reason: &str) -> Decision {
    let current = ctx.state.current_phase.clone();
    let mut done = done_set(ctx.state);
    done.insert(current.clone());
    let all_required = required(ctx.flow).iter().all(|p| done.contains(&p.id));
    let mut d = if all_required {
        let mut d = decision(Condition::GoalComplete, Action::AllowStop);
        d.complete = true;
        d
    } else if let Some(next) = next_phase(ctx.flow, &done) {
        decision(
            condition,
            Action::Advance {
                to: next.id.clone(),
                reason: reason.to_owned(),
            },
        )
    } else {
        decision(
            Condition::DagDeadlock,
            Action::AskHuman(format!(
                "no phase can start after {current}: check depends_on"
            )),
        )
    };
    d.mark_done = vec![current];
    d
}

/// On a budget: mark every phase whose check already passes as done, in DAG order.
fn close_on_budget(ctx: &StopContext<'_>, condition: Condition) -> Decision {
    let mut done = done_set(ctx.state);
    let mut marked = Vec::new();
    while let Some(p) = required(ctx.flow).into_iter().find(|p| {
        !done.contains(&p.id)
            && p.depends_on.iter().all(|d| done.contains(d))
            && ctx.checks.get(&p.id).is_some_and(|c| c.passed)
    }) {
        done.insert(p.id.clone());
        marked.push(p.id.clone());
    }
    let complete = required(ctx.flow).iter().all(|p| done.contains(&p.id));
    Decision {
        condition: if complete {
            Condition::GoalComplete
        } else {
            condition
        },
        action: Action::AllowStop,
        mark_done: marked,
        complete,
    }
}

/// What the person is told when a budget or cap ends enforcement while phase `phase` is not done
/// (`check` is that phase's failing check, when it has one): which limit ended it and how to go
/// on. Stanley never stops enforcing silently.
pub fn enforcement_ended(
    flow: &Flow,
    condition: Condition,
    phase: &str,
    check: Option<&CheckRun>,
) -> String {
    let l = &flow.limits;
    let why = match condition {
        Condition::BudgetTime => format!(
            "the flow's time budget is used up (limits.max_total_minutes, {} minutes)",
            l.max_total_minutes
        ),
        Condition::BudgetBlocks => format!(
            "this session's block budget is used up (limits.max_blocks_per_session, {}; a new \
             session starts a new one)",
            l.max_blocks_per_session
        ),
        Condition::BudgetJev => format!(
            "the flow's Jev budget is used up (limits.max_jev_calls, {})",
            l.max_jev_calls
        ),
        Condition::HookCap => format!(
            "the stop was blocked {HOOK_CAP} times in a row (the hook cap; your next message \
             starts a new chain)"
        ),
        other => other.as_str().to_owned(),
    };
    let state = match check.filter(|c| !c.passed) {
        Some(c) => format!("phase {phase} is not done: {}", failing(c)),
        None => format!("phase {phase} is not done"),
    };
    format!("enforcement stopped: {why}; {state}")
}

/// The budget or cap a stop has hit, if any: `budget_time`, `budget_blocks`, `budget_jev` or
/// `hook_cap`. On a hit every phase's check is wanted, to close what already passes.
pub fn budget_condition(flow: &Flow, state: &FlowState, elapsed_minutes: u32) -> Option<Condition> {
    let limits = &flow.limits;
    if elapsed_minutes >= limits.max_total_minutes {
        Some(Condition::BudgetTime)
    } else if state.blocks_in_session >= limits.max_blocks_per_session {
        Some(Condition::BudgetBlocks)
    } else if state.jev_calls >= limits.max_jev_calls {
        Some(Condition::BudgetJev)
    } else if state.consecutive_blocks >= HOOK_CAP {
        Some(Condition::HookCap)
    } else {
        None
    }
}

/// Entering a side-effect phase whose completion the ledger already holds: the phase is done
/// without running it again (`side_effect_recorded`).
pub fn recorded_side_effect(flow: &Flow, state: &FlowState) -> Decision {
    let ctx = StopContext {
        flow,
        state,
        elapsed_minutes: 0,
        checks: BTreeMap::new(),
        loop_check: None,
        jev: Err(StopJudgeError::NotAsked),
        open_subtasks: Vec::new(),
        stuck_before: false,
        review_stops: 0,
    };
    let mut d = complete_phase(
        &ctx,
        Condition::SideEffectRecorded,
        "the side effect already ran once and is never re-entered",
    );
    if d.condition == Condition::GoalComplete {
        // The journal says why the phase closed without running.
        d.condition = Condition::SideEffectRecorded;
    }
    d
}

/// Decides one stop. The first matching condition wins, in this order: the journal, budgets,
/// a regressed done phase, the phase's bounded loop, checks alone without Jev, a failing check
/// the agent claims is done, stuck or astray, then what Jev judged of the phase.
pub fn decide(ctx: &StopContext<'_>) -> Decision {
    let flow = ctx.flow;
    let state = ctx.state;
    if state.complete {
        return decision(Condition::AlreadyDone, Action::AllowStop);
    }
    let Some(phase) = flow.phase(&state.current_phase) else {
        return decision(
            Condition::BadState,
            Action::AskHuman(format!(
                "the journal's phase {} is not in the flow",
                state.current_phase
            )),
        );
    };
    if let Some(condition) = budget_condition(flow, state, ctx.elapsed_minutes) {
        return close_on_budget(ctx, condition);
    }
    if let Some(d) = regression(ctx) {
        return d;
    }
    let check = ctx.checks.get(&phase.id);
    if let Some(d) = bounded_loop(ctx, phase, check) {
        return d;
    }
    // Without Jev: checks only, and no block without evidence.
    // Why Jev could not be asked is for the log, never for the agent: its text can hold a
    // server's error body.
    let judgment = match &ctx.jev {
        Ok(j) => j,
        Err(_) => {
            return match check {
                Some(c) if c.passed => complete_phase(
                    ctx,
                    Condition::DegradedCheckPass,
                    "the check passes (the judge could not be asked)",
                ),
                Some(c) => decision(Condition::DegradedCheckFail, Action::Block(failing(c))),
                None => decision(Condition::DegradedNoCheck, Action::AllowStop),
            };
        }
    };
    if let Some(d) = repeated_block(ctx, phase) {
        return d;
    }
    if let Some(d) = failing_check(ctx, phase, check, judgment) {
        return d;
    }
    if let Some(d) = stuck_or_astray(ctx, phase, judgment) {
        return d;
    }
    on_phase_judgment(ctx, phase, check, judgment)
}

/// Whether the phase `target` (an `on_fail` route) is a side-effect phase.
fn routes_into_side_effect(flow: &Flow, target: &str) -> bool {
    flow.phase(target).is_some_and(|t| t.side_effect)
}

fn side_effect_on_fail(phase: &Phase, target: &str) -> Decision {
    decision(
        Condition::SideEffectOnFail,
        Action::AskHuman(format!(
            "{} would route into the side-effect phase {target}",
            phase.id
        )),
    )
}

/// A done phase whose check fails again goes back (file order = DAG order for the first hit);
/// a side-effect phase is never re-run, so a person is asked.
fn regression(ctx: &StopContext<'_>) -> Option<Decision> {
    for p in &ctx.flow.phases {
        let was_done = ctx
            .state
            .phases
            .get(&p.id)
            .is_some_and(|r| r.status == PhaseStatus::Done);
        let Some(check) = ctx.checks.get(&p.id).filter(|c| !c.passed) else {
            continue;
        };
        if !was_done {
            continue;
        }
        if p.side_effect {
            return Some(decision(
                Condition::SideEffectRegression,
                Action::AskHuman(format!(
                    "the side-effect phase {} no longer passes its check and is never re-run; {}",
                    p.id,
                    failing(check)
                )),
            ));
        }
        return Some(decision(
            Condition::Regression,
            Action::Advance {
                to: p.id.clone(),
                reason: format!("phase {} regressed; {}", p.id, failing(check)),
            },
        ));
    }
    None
}

/// A phase with a loop: done when the loop condition (and the check) pass, another iteration
/// while iterations are left, then its `on_fail` route or a person.
fn bounded_loop(
    ctx: &StopContext<'_>,
    phase: &Phase,
    check: Option<&CheckRun>,
) -> Option<Decision> {
    let (Some(looped), Some(run)) = (&phase.looped, &ctx.loop_check) else {
        return None;
    };
    let used = ctx
        .state
        .phases
        .get(&phase.id)
        .map_or(0, |r| r.loop_iterations)
        + 1;
    if run.passed {
        return check
            .is_none_or(|c| c.passed)
            .then(|| complete_phase(ctx, Condition::LoopPass, "the loop condition passes"));
    }
    if used < looped.max_iterations {
        return Some(decision(
            Condition::LoopContinue,
            Action::Block(format!(
                "run {used} of {} of the loop condition; {}",
                looped.max_iterations,
                failing(run)
            )),
        ));
    }
    Some(match &phase.on_fail {
        Some(target) if routes_into_side_effect(ctx.flow, target) => {
            side_effect_on_fail(phase, target)
        }
        Some(target) => decision(
            Condition::LoopExhaustedOnFail,
            Action::Advance {
                to: target.clone(),
                reason: format!("the loop is exhausted; {}", failing(run)),
            },
        ),
        None => decision(
            Condition::LoopExhausted,
            Action::AskHuman(format!(
                "the loop of {} reached max_iterations ({}) without passing; {}",
                phase.id,
                looped.max_iterations,
                failing(run)
            )),
        ),
    })
}

/// A failing check outranks Jev: an agent claiming done is blocked; a route into a side-effect
/// phase asks a person.
fn failing_check(
    ctx: &StopContext<'_>,
    phase: &Phase,
    check: Option<&CheckRun>,
    judgment: &Judgment,
) -> Option<Decision> {
    let c = check.filter(|c| !c.passed)?;
    if judgment.claims_done >= ctx.flow.limits.confidence.flag {
        let last = required(ctx.flow).last().is_some_and(|p| p.id == phase.id);
        let condition = if last {
            Condition::FinalCheckFail
        } else {
            Condition::PrematureCompletion
        };
        return Some(decision(
            condition,
            Action::Block(format!("not done yet: {}", failing(c))),
        ));
    }
    phase
        .on_fail
        .as_deref()
        .filter(|target| routes_into_side_effect(ctx.flow, target))
        .map(|target| side_effect_on_fail(phase, target))
}

/// The same block three times in a row, whatever blocked (a premature "done" included): the
/// agent is not moving, and a person is asked.
fn repeated_block(ctx: &StopContext<'_>, phase: &Phase) -> Option<Decision> {
    let recent = ctx.state.recent(SAME_REASON_LIMIT);
    let same_reason = recent.len() == SAME_REASON_LIMIT
        && recent.iter().all(|d| {
            d.action == crate::flow::state::JournaledAction::Block && d.reason == recent[0].reason
        });
    same_reason.then(|| stuck_ask_human(phase))
}

fn stuck_ask_human(phase: &Phase) -> Decision {
    decision(
        Condition::StuckAskHuman,
        Action::AskHuman(format!(
            "the agent keeps stopping in {} without progress",
            phase.id
        )),
    )
}

/// Stuck (flagged twice in a row), off the goal, or asking for a person.
fn stuck_or_astray(ctx: &StopContext<'_>, phase: &Phase, judgment: &Judgment) -> Option<Decision> {
    let (state, bands) = (ctx.state, &ctx.flow.limits.confidence);
    let last_condition = state.decisions.last().map(|d| d.condition);
    if last_condition == Some(Condition::StuckEscalate) && judgment.stuck >= bands.flag {
        return Some(stuck_ask_human(phase));
    }
    if judgment.stuck >= bands.flag && ctx.stuck_before {
        return Some(if last_condition == Some(Condition::Stuck) {
            decision(
                Condition::StuckEscalate,
                Action::Block(
                    "still stuck: stop repeating the last attempt, take a different approach and say what you will try"
                        .into(),
                ),
            )
        } else {
            decision(
                Condition::Stuck,
                Action::Block("you seem stuck: change approach".into()),
            )
        });
    }
    if judgment.off_goal >= bands.flag {
        return Some(decision(
            Condition::OffGoal,
            Action::Block(format!("re-read the goal: {}", ctx.flow.goal)),
        ));
    }
    (judgment.next_action == NextAction::AskHuman && judgment.next_confidence >= bands.auto).then(
        || {
            decision(
                Condition::AskHuman,
                Action::AskHuman(format!("the agent needs a person's input in {}", phase.id)),
            )
        },
    )
}

/// What Jev judged of the phase itself: done with confidence (and the check passing) advances,
/// the review band keeps going (or trusts the check at a second review stop), a passing check
/// with the phase verified done advances, anything else stays.
fn on_phase_judgment(
    ctx: &StopContext<'_>,
    phase: &Phase,
    check: Option<&CheckRun>,
    judgment: &Judgment,
) -> Decision {
    let bands = &ctx.flow.limits.confidence;
    let check_ok = check.is_none_or(|c| c.passed);
    let on_phase = judgment.current_phase == phase.id;
    if on_phase
        && judgment.current_confidence >= bands.auto
        && judgment.phase_done >= bands.auto
        && check_ok
    {
        if phase.dynamic && !ctx.open_subtasks.is_empty() {
            return decision(
                Condition::SubtaskPending,
                Action::Block(format!(
                    "finish the open sub-steps first: {}",
                    ctx.open_subtasks.join(", ")
                )),
            );
        }
        return complete_phase(ctx, Condition::Advance, &format!("{} is done", phase.name));
    }
    if on_phase
        && judgment.current_confidence >= bands.review
        && judgment.current_confidence < bands.auto
    {
        if check.is_some_and(|c| c.passed) && ctx.review_stops >= 1 {
            return complete_phase(
                ctx,
                Condition::ReviewCheckPass,
                "the check passes at a second review stop",
            );
        }
        return decision(
            Condition::ReviewBand,
            Action::Block(format!(
                "keep going on {}; done when {}",
                phase.name, phase.done_when
            )),
        );
    }
    if let Some(c) = check
        && c.passed
        && judgment.phase_done >= bands.trust_check
    {
        return complete_phase(
            ctx,
            Condition::CheckAndPhaseDone,
            "the check passes and the phase is verified done",
        );
    }
    let reason = match check.filter(|c| !c.passed) {
        Some(c) => format!("stay on {}: {}", phase.name, failing(c)),
        None => format!("stay on {}; done when {}", phase.name, phase.done_when),
    };
    let condition = if judgment.current_confidence < bands.review {
        Condition::DropBand
    } else if !on_phase {
        Condition::PhaseMismatch
    } else {
        Condition::Continue
    };
    decision(condition, Action::Block(reason))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::parse_flow;
    use crate::flow::state::DecisionEntry;

    /// scaffold -> build (loop, on_fail fix) -> publish (side effect), docs after scaffold; fix
    /// is branch-only (nothing depends on it).
    const FLOW: &str = r#"{"goal": "Ship the tool", "phases": [
        {"id": "scaffold", "name": "Scaffold", "done_when": "layout exists", "check": "test -f a"},
        {"id": "build", "name": "Build", "done_when": "it builds", "check": "make",
         "loop": {"max_iterations": 2, "until": "make test"}, "on_fail": "fix"},
        {"id": "fix", "name": "Fix", "done_when": "fixed", "depends_on": ["build"]},
        {"id": "publish", "name": "Publish", "done_when": "tagged", "depends_on": ["build"], "check": "git tag -l v1", "side_effect": true},
        {"id": "docs", "name": "Docs", "done_when": "documented", "depends_on": ["scaffold"], "dynamic": true}
    ]}"#;

    fn flow() -> Flow {
        parse_flow(FLOW).unwrap()
    }

    fn pass() -> CheckRun {
        CheckRun {
            passed: true,
            tail: String::new(),
        }
    }

    fn fail(tail: &str) -> CheckRun {
        CheckRun {
            passed: false,
            tail: tail.into(),
        }
    }

    #[test]
    fn an_ended_enforcement_names_its_limit_and_the_failing_check() {
        let f = flow();
        let said = enforcement_ended(
            &f,
            Condition::BudgetJev,
            "build",
            Some(&fail("2 tests failed")),
        );
        assert_eq!(
            said,
            format!(
                "enforcement stopped: the flow's Jev budget is used up (limits.max_jev_calls, \
                 {}); phase build is not done: the check failed:\n2 tests failed",
                f.limits.max_jev_calls
            )
        );
        let said = enforcement_ended(&f, Condition::HookCap, "docs", Some(&pass()));
        assert!(
            said.contains(&format!("blocked {HOOK_CAP} times in a row")),
            "{said}"
        );
        assert!(said.ends_with("phase docs is not done"), "{said}");
        for condition in [Condition::BudgetTime, Condition::BudgetBlocks] {
            let said = enforcement_ended(&f, condition, "build", None);
            assert!(said.contains("limits.max_"), "{condition}: {said}");
        }
    }

    fn sure(phase: &str) -> Judgment {
        Judgment {
            current_phase: phase.into(),
            current_confidence: 0.9,
            phase_done: 0.9,
            next_action: NextAction::Advance,
            next_confidence: 0.9,
            stuck: 0.1,
            off_goal: 0.1,
            claims_done: 0.1,
        }
    }

    struct Case {
        flow: Flow,
        state: FlowState,
        elapsed: u32,
        checks: Vec<(&'static str, CheckRun)>,
        loop_check: Option<CheckRun>,
        jev: Result<Judgment, StopJudgeError>,
        subtasks: Vec<String>,
        stuck_before: bool,
        review_stops: u32,
    }

    impl Case {
        fn at(phase: &str) -> Self {
            let flow = flow();
            let mut state = FlowState::new(&flow, crate::time::Stamp::EPOCH);
            set_current(&mut state, phase);
            Self {
                flow,
                state,
                elapsed: 1,
                checks: Vec::new(),
                loop_check: None,
                jev: Ok(sure(phase)),
                subtasks: Vec::new(),
                stuck_before: false,
                review_stops: 0,
            }
        }

        fn done(mut self, ids: &[&str]) -> Self {
            for id in ids {
                self.state.phases.get_mut(*id).unwrap().status = PhaseStatus::Done;
            }
            self
        }

        fn check(mut self, phase: &'static str, run: CheckRun) -> Self {
            self.checks.push((phase, run));
            self
        }

        fn jev(mut self, f: impl FnOnce(&mut Judgment)) -> Self {
            if let Ok(j) = &mut self.jev {
                f(j);
            }
            self
        }

        fn decide(&self) -> Decision {
            decide(&StopContext {
                flow: &self.flow,
                state: &self.state,
                elapsed_minutes: self.elapsed,
                checks: self
                    .checks
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), v.clone()))
                    .collect(),
                loop_check: self.loop_check.clone(),
                jev: self.jev.clone(),
                open_subtasks: self.subtasks.clone(),
                stuck_before: self.stuck_before,
                review_stops: self.review_stops,
            })
        }
    }

    fn set_current(state: &mut FlowState, phase: &str) {
        for r in state.phases.values_mut() {
            if r.status == PhaseStatus::Active {
                r.status = PhaseStatus::Pending;
            }
        }
        state.current_phase = phase.into();
        state.phases.get_mut(phase).unwrap().status = PhaseStatus::Active;
    }

    fn entry(
        condition: Condition,
        action: crate::flow::state::JournaledAction,
        reason: &str,
    ) -> DecisionEntry {
        DecisionEntry {
            at: crate::time::Stamp::EPOCH,
            condition,
            action,
            phase: "scaffold".into(),
            to: None,
            reason: reason.into(),
            check_passed: None,
        }
    }

    fn advance_to(d: &Decision) -> Option<&str> {
        match &d.action {
            Action::Advance { to, .. } => Some(to),
            _ => None,
        }
    }

    #[test]
    fn already_done_and_budgets() {
        let mut c = Case::at("scaffold");
        c.state.complete = true;
        assert_eq!(c.decide().condition, Condition::AlreadyDone);

        let mut c = Case::at("scaffold");
        c.elapsed = 90;
        assert_eq!(c.decide().condition, Condition::BudgetTime);
        let mut c = Case::at("scaffold");
        c.state.blocks_in_session = 6;
        assert_eq!(c.decide().condition, Condition::BudgetBlocks);
        let mut c = Case::at("scaffold");
        c.state.jev_calls = 200;
        assert_eq!(c.decide().condition, Condition::BudgetJev);
        let mut c = Case::at("scaffold");
        c.state.consecutive_blocks = HOOK_CAP;
        let d = c.decide();
        assert_eq!(
            (d.condition, &d.action),
            (Condition::HookCap, &Action::AllowStop)
        );
    }

    #[test]
    fn a_budget_marks_passing_phases_done_in_dag_order() {
        let mut c = Case::at("scaffold")
            .check("scaffold", pass())
            .check("build", pass())
            .check("publish", fail("no tag"));
        c.elapsed = 500;
        let d = c.decide();
        assert_eq!(d.condition, Condition::BudgetTime);
        assert_eq!(d.mark_done, ["scaffold", "build"]);
        assert!(!d.complete);
        // `docs` has no check, so even with every check passing the goal is not complete.
        let mut c = Case::at("scaffold")
            .check("publish", pass())
            .check("build", pass())
            .check("scaffold", pass());
        c.elapsed = 500;
        assert_eq!(c.decide().mark_done, ["scaffold", "build", "publish"]);
        let mut c = Case::at("docs")
            .done(&["scaffold", "build", "publish"])
            .check("docs", pass());
        c.flow.phases[4].check = Some("true".into());
        c.state.consecutive_blocks = HOOK_CAP;
        let d = c.decide();
        assert_eq!((d.condition, d.complete), (Condition::GoalComplete, true));
    }

    #[test]
    fn regressions_go_back_and_side_effects_ask_a_person() {
        let c = Case::at("publish")
            .done(&["scaffold", "build"])
            .check("scaffold", fail("a missing"))
            .check("publish", pass());
        let d = c.decide();
        assert_eq!(d.condition, Condition::Regression);
        assert_eq!(advance_to(&d), Some("scaffold"));
        assert!(
            matches!(&d.action, Action::Advance { reason, .. } if reason.contains("a missing"))
        );

        let c = Case::at("docs")
            .done(&["scaffold", "build", "publish"])
            .check("publish", fail("tag gone"));
        let d = c.decide();
        assert_eq!(d.condition, Condition::SideEffectRegression);
        assert!(matches!(d.action, Action::AskHuman(_)));
    }

    #[test]
    fn bounded_loops() {
        let mut c = Case::at("build").done(&["scaffold"]).check("build", pass());
        c.loop_check = Some(fail("1 test failed"));
        let d = c.decide();
        assert_eq!(d.condition, Condition::LoopContinue);
        assert!(
            matches!(&d.action, Action::Block(r) if r.contains("run 1 of 2") && r.contains("1 test failed"))
        );

        c.state.phases.get_mut("build").unwrap().loop_iterations = 1;
        let d = c.decide();
        assert_eq!(d.condition, Condition::LoopExhaustedOnFail);
        assert_eq!(advance_to(&d), Some("fix"));

        c.flow.phases[1].on_fail = None;
        assert_eq!(c.decide().condition, Condition::LoopExhausted);

        c.flow.phases[1].on_fail = Some("publish".into());
        assert_eq!(c.decide().condition, Condition::SideEffectOnFail);

        c.flow.phases[1].on_fail = Some("fix".into());
        c.loop_check = Some(pass());
        let d = c.decide();
        assert_eq!(d.condition, Condition::LoopPass);
        assert_eq!(d.mark_done, ["build"]);
        assert_eq!(advance_to(&d), Some("publish"));
    }

    #[test]
    fn without_jev_only_checks_count() {
        let mut c = Case::at("scaffold").check("scaffold", pass());
        c.jev = Err(StopJudgeError::Unavailable(
            "System One answered HTTP 500: upstream exploded".into(),
        ));
        let d = c.decide();
        assert_eq!(d.condition, Condition::DegradedCheckPass);
        assert_eq!(advance_to(&d), Some("build"));
        assert!(
            matches!(&d.action, Action::Advance { reason, .. }
                if reason == "the check passes (the judge could not be asked)"),
            "no internal error text reaches the agent: {:?}",
            d.action
        );
        let mut c = Case::at("scaffold").check("scaffold", fail("no a"));
        c.jev = Err(StopJudgeError::Unavailable("no key".into()));
        assert_eq!(c.decide().condition, Condition::DegradedCheckFail);
        let mut c = Case::at("docs").done(&["scaffold"]);
        c.jev = Err(StopJudgeError::NoAnswer {
            name: "current_phase".into(),
        });
        let d = c.decide();
        assert_eq!(
            (d.condition, d.action),
            (Condition::DegradedNoCheck, Action::AllowStop),
            "never blocks without evidence"
        );
    }

    #[test]
    fn claims_of_done_with_a_failing_check_are_blocked() {
        let c = Case::at("scaffold")
            .check("scaffold", fail("a missing"))
            .jev(|j| j.claims_done = 0.9);
        let d = c.decide();
        assert_eq!(d.condition, Condition::PrematureCompletion);
        assert!(matches!(&d.action, Action::Block(r) if r.contains("a missing")));
        let c = Case::at("docs")
            .done(&["scaffold", "build", "publish"])
            .check("docs", fail("no README"))
            .jev(|j| j.claims_done = 0.9);
        assert_eq!(c.decide().condition, Condition::FinalCheckFail);
    }

    #[test]
    fn stuck_escalates_to_a_person() {
        let mut c = Case::at("scaffold").jev(|j| {
            j.stuck = 0.9;
            j.phase_done = 0.1;
        });
        assert_eq!(
            c.decide().condition,
            Condition::Continue,
            "flagged once is not stuck"
        );
        c.stuck_before = true;
        assert_eq!(c.decide().condition, Condition::Stuck);
        c.state.record(entry(
            Condition::Stuck,
            crate::flow::state::JournaledAction::Block,
            "you seem stuck",
        ));
        assert_eq!(c.decide().condition, Condition::StuckEscalate);
        c.state.record(entry(
            Condition::StuckEscalate,
            crate::flow::state::JournaledAction::Block,
            "still stuck",
        ));
        assert_eq!(c.decide().condition, Condition::StuckAskHuman);

        let mut c = Case::at("scaffold");
        for _ in 0..SAME_REASON_LIMIT {
            c.state.record(entry(
                Condition::Continue,
                crate::flow::state::JournaledAction::Block,
                "stay on Scaffold",
            ));
        }
        assert_eq!(c.decide().condition, Condition::StuckAskHuman);

        // The same premature "done" three times: the failing check no longer outranks it.
        let mut c = Case::at("scaffold")
            .check("scaffold", fail("no a"))
            .jev(|j| j.claims_done = 0.95);
        let first = c.decide();
        assert_eq!(first.condition, Condition::PrematureCompletion, "{first:?}");
        let Action::Block(reason) = first.action else {
            panic!("{first:?}")
        };
        for _ in 0..SAME_REASON_LIMIT {
            c.state.record(entry(
                Condition::PrematureCompletion,
                crate::flow::state::JournaledAction::Block,
                &reason,
            ));
        }
        assert_eq!(c.decide().condition, Condition::StuckAskHuman);
    }

    #[test]
    fn off_goal_and_ask_human() {
        let c = Case::at("scaffold").jev(|j| j.off_goal = 0.8);
        let d = c.decide();
        assert_eq!(d.condition, Condition::OffGoal);
        assert!(matches!(&d.action, Action::Block(r) if r.contains("Ship the tool")));
        let c = Case::at("scaffold").jev(|j| j.next_action = NextAction::AskHuman);
        assert_eq!(c.decide().condition, Condition::AskHuman);
        let c = Case::at("scaffold").jev(|j| {
            j.next_action = NextAction::AskHuman;
            j.next_confidence = 0.6;
        });
        assert_eq!(
            c.decide().condition,
            Condition::Advance,
            "below auto the request is ignored"
        );
    }

    #[test]
    fn advance_needs_jev_and_the_check_together() {
        let c = Case::at("scaffold").check("scaffold", pass());
        let d = c.decide();
        assert_eq!(d.condition, Condition::Advance);
        assert_eq!(advance_to(&d), Some("build"));
        assert_eq!(d.mark_done, ["scaffold"]);
        let c = Case::at("scaffold").check("scaffold", fail("x"));
        assert_eq!(c.decide().condition, Condition::Continue);
        let mut c = Case::at("docs").done(&["scaffold"]);
        c.subtasks = vec!["usage section".into()];
        let d = c.decide();
        assert_eq!(d.condition, Condition::SubtaskPending);
        assert!(matches!(&d.action, Action::Block(r) if r.contains("usage section")));
        let c = Case::at("docs").done(&["scaffold"]);
        assert_eq!(advance_to(&c.decide()), Some("build"));
    }

    #[test]
    fn review_band_and_trusted_checks() {
        let mut c = Case::at("scaffold")
            .check("scaffold", pass())
            .jev(|j| j.current_confidence = 0.6);
        assert_eq!(c.decide().condition, Condition::ReviewBand);
        c.review_stops = 1;
        assert_eq!(c.decide().condition, Condition::ReviewCheckPass);

        let c = Case::at("scaffold").check("scaffold", pass()).jev(|j| {
            j.current_confidence = 0.3;
            j.phase_done = 0.95;
        });
        assert_eq!(c.decide().condition, Condition::CheckAndPhaseDone);
    }

    #[test]
    fn low_confidence_and_disagreement_keep_the_phase() {
        let c = Case::at("scaffold").jev(|j| {
            j.current_confidence = 0.3;
            j.phase_done = 0.2;
        });
        assert_eq!(c.decide().condition, Condition::DropBand);
        let c = Case::at("scaffold").jev(|j| j.current_phase = "build".into());
        let d = c.decide();
        assert_eq!(d.condition, Condition::PhaseMismatch);
        assert!(matches!(d.action, Action::Block(_)));
    }

    #[test]
    fn the_last_phase_completes_the_goal_and_a_dead_end_asks_a_person() {
        let c = Case::at("docs").done(&["scaffold", "build", "publish"]);
        let d = c.decide();
        assert_eq!((d.condition, d.complete), (Condition::GoalComplete, true));
        assert_eq!(d.action, Action::AllowStop);
        // A journal that disagrees with the plan can leave nothing startable.
        let mut c = Case::at("scaffold");
        c.flow = parse_flow(
            r#"{"goal": "g", "phases": [
            {"id": "scaffold", "name": "S", "done_when": "d"},
            {"id": "x", "name": "X", "done_when": "d"},
            {"id": "y", "name": "Y", "done_when": "d"}]}"#,
        )
        .unwrap();
        c.flow.phases[1].depends_on = vec!["y".into()];
        c.flow.phases[2].depends_on = vec!["x".into()];
        let d = c.decide();
        assert_eq!(d.condition, Condition::DagDeadlock);
        assert!(matches!(d.action, Action::AskHuman(_)));
    }

    #[test]
    fn the_branch_only_target_is_not_required() {
        let flow = flow();
        assert_eq!(flow.branch_only(), BTreeSet::from(["fix"]));
    }

    #[test]
    fn a_side_effect_the_ledger_holds_closes_without_running_again() {
        let c = Case::at("publish").done(&["scaffold", "build"]);
        let d = recorded_side_effect(&c.flow, &c.state);
        // publish was the last required phase but docs is still open: advance to it.
        assert_eq!(d.condition, Condition::SideEffectRecorded);
        assert_eq!(d.mark_done, ["publish"]);
        assert!(matches!(&d.action, Action::Advance { to, .. } if to == "docs"));
        let last = Case::at("publish").done(&["scaffold", "build", "docs"]);
        let d = recorded_side_effect(&last.flow, &last.state);
        assert_eq!(
            (d.condition, d.complete, d.action),
            (Condition::SideEffectRecorded, true, Action::AllowStop)
        );
    }

    #[test]
    fn budget_condition_names_the_first_limit_hit() {
        let c = Case::at("scaffold");
        let limits = &c.flow.limits;
        assert_eq!(budget_condition(&c.flow, &c.state, 0), None);
        assert_eq!(
            budget_condition(&c.flow, &c.state, limits.max_total_minutes),
            Some(Condition::BudgetTime)
        );
        let mut state = c.state.clone();
        state.consecutive_blocks = HOOK_CAP;
        assert_eq!(
            budget_condition(&c.flow, &state, 0),
            Some(Condition::HookCap)
        );
        state.jev_calls = limits.max_jev_calls;
        assert_eq!(
            budget_condition(&c.flow, &state, 0),
            Some(Condition::BudgetJev)
        );
    }
}
