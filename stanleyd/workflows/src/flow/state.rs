//! A flow's journal (`.stanley/flow/state.json`): where the flow stands, what each phase has
//! used, and every decision, written before the decision takes effect so a restart resumes from
//! it. Also the side-effect ledger's keys and the `FlowStore` port that persists both.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::flow::Flow;

/// The journal's schema tag.
pub const STATE_SCHEMA: &str = "stanley.flow-state/v1";
/// How many decisions the journal keeps (the policy reads the last five).
pub const MAX_DECISIONS: usize = 200;

stanley_core::words! {
    /// Where one phase stands.
    #[derive(Default)]
    pub enum PhaseStatus {
        #[default]
        Pending = "pending",
        Active = "active",
        Done = "done",
    }
}

/// One phase's record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseRecord {
    pub status: PhaseStatus,
    /// Times the phase was entered.
    pub attempts: u32,
    /// Loop runs used (a first-try pass records 1; an unreached loop stays 0).
    pub loop_iterations: u32,
}

stanley_core::words! {
    /// What a journaled decision told the agent; `would_block` is a block the flow's enforcement
    /// did not apply. A word this version does not know reads as `Other`, so the journal is
    /// still read.
    pub enum JournaledAction {
        AllowStop = "allow_stop",
        Block = "block",
        WouldBlock = "would_block",
        Advance = "advance",
        AskHuman = "ask_human",
        #[serde(other)]
        Other = "other",
    }
}

stanley_core::words! {
    /// The condition of the stop policy that decided a stop, as the journal, the page and the
    /// progress line name it (the policy's order is in `policy::decide`). A word this version
    /// does not know reads as `Other`, so the journal is still read.
    pub enum Condition {
        /// The journal says the flow is complete.
        AlreadyDone = "already_done",
        /// The journal cannot be used, or its phase is not in the flow.
        BadState = "bad_state",
        /// `limits.max_total_minutes` is used up.
        BudgetTime = "budget_time",
        /// `limits.max_blocks_per_session` is used up.
        BudgetBlocks = "budget_blocks",
        /// `limits.max_jev_calls` is used up.
        BudgetJev = "budget_jev",
        /// The stop was blocked too many times in a row.
        HookCap = "hook_cap",
        /// Every required phase is done.
        GoalComplete = "goal_complete",
        /// No phase can start after the one just done.
        DagDeadlock = "dag_deadlock",
        /// A side-effect phase the ledger already holds is done without running again.
        SideEffectRecorded = "side_effect_recorded",
        /// The check passes and the judge could not be asked.
        DegradedCheckPass = "degraded_check_pass",
        /// The check fails and the judge could not be asked.
        DegradedCheckFail = "degraded_check_fail",
        /// No check and no judge.
        DegradedNoCheck = "degraded_no_check",
        /// A loop's `on_fail` would route into a side-effect phase.
        SideEffectOnFail = "side_effect_on_fail",
        /// A done side-effect phase no longer passes its check.
        SideEffectRegression = "side_effect_regression",
        /// A done phase no longer passes its check.
        Regression = "regression",
        /// The phase's loop condition passes.
        LoopPass = "loop_pass",
        /// The loop runs again.
        LoopContinue = "loop_continue",
        /// The loop is used up and routes to its `on_fail` phase.
        LoopExhaustedOnFail = "loop_exhausted_on_fail",
        /// The loop is used up.
        LoopExhausted = "loop_exhausted",
        /// The last phase's check fails.
        FinalCheckFail = "final_check_fail",
        /// The agent claims done while the check fails.
        PrematureCompletion = "premature_completion",
        /// Stuck after an escalation: a person is asked.
        StuckAskHuman = "stuck_ask_human",
        /// Stuck twice: a different approach is asked for.
        StuckEscalate = "stuck_escalate",
        /// Stuck at two stops in a row.
        Stuck = "stuck",
        /// The agent is working on something else than the goal.
        OffGoal = "off_goal",
        /// The judge says a person should decide.
        AskHuman = "ask_human",
        /// Sub-steps of the phase are still open.
        SubtaskPending = "subtask_pending",
        /// The check passes at a second stop in the review band.
        ReviewCheckPass = "review_check_pass",
        /// The judge is not sure the phase is done: keep going.
        ReviewBand = "review_band",
        /// The check passes and the judge says the phase is done.
        CheckAndPhaseDone = "check_and_phase_done",
        /// The judge is sure the phase is not done.
        DropBand = "drop_band",
        /// The agent works on another phase than the current one.
        PhaseMismatch = "phase_mismatch",
        /// Nothing ends the phase: keep going.
        Continue = "continue",
        /// The phase is done: the next one starts.
        Advance = "advance",
        #[serde(other)]
        Other = "other",
    }
}

impl Condition {
    /// Whether this condition is a budget or the hook cap ending enforcement.
    pub fn is_budget(self) -> bool {
        matches!(
            self,
            Condition::BudgetTime
                | Condition::BudgetBlocks
                | Condition::BudgetJev
                | Condition::HookCap
        )
    }
}

stanley_core::words! {
    /// What asked Jev on a flow's budget.
    pub enum JevAsk {
        /// The done-claim gate.
        DoneClaim = "done_claim",
        /// The injection screen on a tool's output.
        InjectionScreen = "injection_screen",
        /// The pre-tool gate on a command.
        PreTool = "pre_tool",
        /// The stop judgment.
        Stop = "stop",
        #[serde(other)]
        Other = "other",
    }
}

/// One journaled decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionEntry {
    pub at: crate::time::Stamp,
    /// The condition of the stop policy that matched.
    pub condition: Condition,
    /// What the decision told the agent (`allow_stop`, `block`, `would_block`, `advance`,
    /// `ask_human` in the journal).
    pub action: JournaledAction,
    /// The phase the decision was made in.
    pub phase: String,
    /// The advance target, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// What the agent or the person is told.
    #[serde(default)]
    pub reason: String,
    /// Whether the phase's check passed at this stop (absent without a check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_passed: Option<bool>,
}

/// The journal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowState {
    pub schema: String,
    pub flow_version: String,
    pub current_phase: String,
    pub phases: BTreeMap<String, PhaseRecord>,
    pub complete: bool,
    pub started_at: crate::time::Stamp,
    pub restarts: u32,
    pub blocks_in_session: u32,
    pub consecutive_blocks: u32,
    pub jev_calls: u32,
    /// `jev_calls` by what asked: `stop`, `pre_tool`, `injection_screen`, `done_claim`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub jev_by_kind: BTreeMap<JevAsk, u32>,
    /// Jev flagged the agent stuck at the last stop (the policy needs two in a row).
    #[serde(default)]
    pub last_stuck: bool,
    /// Done claims held by the subagent and task gates, by subtask.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub holds: BTreeMap<String, u32>,
    pub decisions: Vec<DecisionEntry>,
}

/// Why a flow journal cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    /// Not the JSON of a journal (torn, flipped bytes): the serde message, cut short.
    #[error("unreadable flow state: {0}")]
    Damaged(String),
    /// Written by another version.
    #[error("unknown flow state schema {0:?}")]
    Schema(String),
    /// Its current phase is not in the flow loaded now.
    #[error("the flow state's current phase {0:?} is not in the flow")]
    Phase(String),
}

impl FlowState {
    /// Counts one Jev request against the flow's budget, by what asked it.
    pub fn count_jev(&mut self, kind: JevAsk) {
        self.jev_calls += 1;
        *self.jev_by_kind.entry(kind).or_default() += 1;
    }

    /// A fresh journal for `flow`: the first phase is current and active.
    pub fn new(flow: &Flow, now: crate::time::Stamp) -> Self {
        let mut phases: BTreeMap<String, PhaseRecord> = flow
            .phases
            .iter()
            .map(|p| (p.id.clone(), PhaseRecord::default()))
            .collect();
        let first = flow.phases[0].id.clone();
        if let Some(r) = phases.get_mut(&first) {
            r.status = PhaseStatus::Active;
            r.attempts = 1;
        }
        Self {
            schema: STATE_SCHEMA.into(),
            flow_version: flow.flow_version.clone(),
            current_phase: first,
            phases,
            complete: false,
            started_at: now,
            restarts: 0,
            blocks_in_session: 0,
            consecutive_blocks: 0,
            jev_calls: 0,
            jev_by_kind: BTreeMap::new(),
            last_stuck: false,
            holds: BTreeMap::new(),
            decisions: Vec::new(),
        }
    }

    /// Decodes a journal's JSON; `Err` means the file is damaged (torn, flipped bytes), as
    /// opposed to readable but not for this flow.
    pub fn decode(text: &str) -> Result<Self, JournalError> {
        serde_json::from_str(text)
            .map_err(|e| JournalError::Damaged(crate::text::quoting_at_most(&e.to_string())))
    }

    /// Reads a journal; `Err` names why it cannot be used (the policy's `bad_state`).
    pub fn parse(text: &str, flow: &Flow) -> Result<Self, JournalError> {
        let state = Self::decode(text)?;
        if state.schema != STATE_SCHEMA {
            return Err(JournalError::Schema(state.schema));
        }
        if flow.phase(&state.current_phase).is_none() {
            return Err(JournalError::Phase(state.current_phase));
        }
        Ok(state)
    }

    /// Starts a new session or supervised run: fresh time and block budgets (and restarts);
    /// phases, decisions and holds carry over.
    pub fn new_session(&mut self, now: crate::time::Stamp) {
        self.started_at = now;
        self.restarts = 0;
        self.blocks_in_session = 0;
        self.consecutive_blocks = 0;
    }

    /// Appends a decision, keeping the newest [`MAX_DECISIONS`].
    pub fn record(&mut self, entry: DecisionEntry) {
        self.decisions.push(entry);
        if self.decisions.len() > MAX_DECISIONS {
            let extra = self.decisions.len() - MAX_DECISIONS;
            self.decisions.drain(..extra);
        }
    }

    /// The last `n` decisions, oldest first.
    pub fn recent(&self, n: usize) -> &[DecisionEntry] {
        &self.decisions[self.decisions.len().saturating_sub(n)..]
    }

    /// The ids of the phases marked done.
    pub fn done(&self) -> impl Iterator<Item = &str> {
        self.phases
            .iter()
            .filter(|(_, r)| r.status == PhaseStatus::Done)
            .map(|(id, _)| id.as_str())
    }
}

/// The side-effect ledger key of one attempt of one phase: `flow_version:phase:attempt`.
pub fn side_effect_key(flow_version: &str, phase: &str, attempt: u32) -> String {
    format!("{flow_version}:{phase}:{attempt}")
}

/// Error of a flow store, with its cause as the source.
#[derive(Clone, Debug, thiserror::Error)]
pub enum StoreError {
    /// A file of the flow's could not be read, written or encoded: `what` the store was doing.
    #[error("{what}: {source}")]
    File {
        /// What the store was doing (`cannot write .stanley/flow/state.json`).
        what: String,
        /// Why.
        #[source]
        source: std::sync::Arc<dyn std::error::Error + Send + Sync>,
    },
    /// A file under `.stanley/flow/` that Git tracks: a commit brought it, so it is not
    /// Stanley's.
    #[error(
        "{path} is tracked by Git, so it is not Stanley's; remove it from the repository \
         (`git rm --cached {path}`)"
    )]
    Tracked {
        /// The file, from the repository's root.
        path: String,
    },
}

impl StoreError {
    /// `what` the store was doing failed, for `source`.
    pub fn file(what: &str, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::File {
            what: what.to_owned(),
            source: std::sync::Arc::new(source),
        }
    }
}

/// Persists a flow's journal, its side-effect ledger and the note for a person.
pub trait FlowStore: Send + Sync {
    /// The journal text, if there is one.
    fn read_state(&self) -> Result<Option<String>, StoreError>;
    /// Replaces the journal atomically; durable on return.
    fn write_state(&self, state: &FlowState) -> Result<(), StoreError>;
    /// Removes the journal (a reset); the ledger stays.
    fn reset_state(&self) -> Result<(), StoreError>;
    /// Whether a side effect with `key` was recorded.
    fn side_effect_done(&self, key: &str) -> Result<bool, StoreError>;
    /// Records a side effect; durable on return. Recording a key twice is a no-op.
    fn record_side_effect(&self, key: &str, at: &str) -> Result<(), StoreError>;
    /// Appends one gate decision (a JSON line) to the gate journal.
    fn record_gate(&self, line: &str) -> Result<(), StoreError>;
    /// Writes `NEEDS_HUMAN.md`.
    fn needs_human(&self, text: &str) -> Result<(), StoreError>;
    /// Whether `NEEDS_HUMAN.md` is waiting for a person.
    fn needs_human_pending(&self) -> bool;
    /// The text of `NEEDS_HUMAN.md` (a person may have written an answer into it).
    fn read_needs_human(&self) -> Option<String>;
    /// Removes `NEEDS_HUMAN.md` (a new run means the person has answered it).
    fn clear_needs_human(&self) -> Result<(), StoreError>;
    /// Moves a damaged journal aside (`now` is an RFC 3339 time for its name); returns where
    /// it went, relative to the repository root.
    fn keep_broken_state(&self, now: &str) -> Result<String, StoreError>;
    /// The damaged journals kept aside, oldest first, as (path relative to the repository
    /// root, contents).
    fn broken_states(&self) -> Vec<(String, String)>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::parse_flow;

    fn flow() -> Flow {
        parse_flow(r#"{"goal": "g", "phases": [{"id": "a", "name": "A", "done_when": "d"}, {"id": "b", "name": "B", "done_when": "d"}]}"#).unwrap()
    }

    #[test]
    fn a_new_journal_starts_in_the_first_phase_and_round_trips() {
        let flow = flow();
        let mut state = FlowState::new(&flow, crate::time::Stamp::EPOCH);
        assert_eq!(state.current_phase, "a");
        assert_eq!(state.phases["a"].status, PhaseStatus::Active);
        assert_eq!(state.phases["b"], PhaseRecord::default());
        for i in 0..(MAX_DECISIONS + 3) {
            state.record(DecisionEntry {
                at: crate::time::Stamp::EPOCH,
                condition: Condition::Continue,
                action: JournaledAction::Block,
                phase: "a".into(),
                to: None,
                reason: format!("c{i}"),
                check_passed: None,
            });
        }
        assert_eq!(state.decisions.len(), MAX_DECISIONS);
        assert_eq!(state.recent(2)[1].reason, format!("c{}", MAX_DECISIONS + 2));
        let text = serde_json::to_string(&state).unwrap();
        assert_eq!(FlowState::parse(&text, &flow).unwrap(), state);
        assert_eq!(side_effect_key("2", "publish", 1), "2:publish:1");
        // The action keeps its word in the journal; a word this version does not know is
        // read as `Other`, the journal still usable.
        assert!(text.contains("\"action\":\"block\""), "{text}");
        let later = FlowState::parse(&text.replace("\"block\"", "\"escalate\""), &flow).unwrap();
        assert!(
            later
                .decisions
                .iter()
                .all(|d| d.action == JournaledAction::Other)
        );
        // So do the condition and what asked Jev.
        state.count_jev(JevAsk::PreTool);
        let text = serde_json::to_string(&state).unwrap();
        assert!(text.contains("\"condition\":\"continue\""), "{text}");
        assert!(text.contains("\"jev_by_kind\":{\"pre_tool\":1}"), "{text}");
        let later = text
            .replace("\"continue\"", "\"gave_up\"")
            .replace("\"pre_tool\"", "\"post_tool\"");
        let later = FlowState::parse(&later, &flow).unwrap();
        assert!(
            later
                .decisions
                .iter()
                .all(|d| d.condition == Condition::Other)
        );
        assert_eq!(later.jev_by_kind[&JevAsk::Other], 1);
    }

    /// Every condition the journal writes is one the policy can produce, spelled once.
    #[test]
    fn condition_words_are_unique_snake_case() {
        let words: std::collections::BTreeSet<&str> =
            Condition::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(words.len(), Condition::ALL.len());
        assert!(
            words
                .iter()
                .all(|w| w.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        );
    }

    #[test]
    fn unusable_journals_are_bad_state() {
        let flow = flow();
        assert!(
            FlowState::parse("{", &flow)
                .unwrap_err()
                .to_string()
                .starts_with("unreadable flow state")
        );
        let mut state = FlowState::new(&flow, crate::time::Stamp::EPOCH);
        state.current_phase = "gone".into();
        let text = serde_json::to_string(&state).unwrap();
        assert!(
            FlowState::parse(&text, &flow)
                .unwrap_err()
                .to_string()
                .contains("\"gone\" is not in the flow")
        );
        state.current_phase = "a".into();
        state.schema = "other".into();
        let text = serde_json::to_string(&state).unwrap();
        assert_eq!(
            FlowState::parse(&text, &flow).unwrap_err(),
            JournalError::Schema("other".into())
        );
        assert!(
            FlowState::parse(&text, &flow)
                .unwrap_err()
                .to_string()
                .contains("unknown flow state schema")
        );
    }
}
