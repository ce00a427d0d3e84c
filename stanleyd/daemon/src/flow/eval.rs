//! One flow stop in the daemon, shared by the supervisor and the Claude Code Stop hook: load the
//! flow, run the checks (Jev's key scrubbed), ask Jev the one stop request, decide, write the
//! side-effect ledger and the journal before the decision takes effect, and notify.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use stanley_adapters::clock::unix_now;
use stanley_adapters::flow_check::{notify, run_check};
use stanley_adapters::jev_http::JevConfigError;
use stanley_adapters::redact::redacting;
use stanley_core::{Budget, BudgetLimits, Cancel, Executor, ExecutorOptions};
use stanley_workflows::diff::Scope;
use stanley_workflows::flow::agent::open_subtasks;
use stanley_workflows::flow::judge::{ChangedFile, StopEvidence, StopJudgeError};
use stanley_workflows::flow::policy::{
    Action, CheckRun, Decision, Judgment, StopContext, budget_condition, decide,
    recorded_side_effect,
};
use stanley_workflows::flow::state::{
    Condition, FlowState, FlowStore, JournalError, PhaseStatus, StoreError, side_effect_key,
};
use stanley_workflows::flow::stop::{
    StopFacts, Told, apply, ask, facts, review_stops, stop_frame, told,
};
use stanley_workflows::flow::{Flow, FlowError, Mode, NotifyEvent, parse_flow};

use crate::settings::RequestSettings;
use crate::state::DaemonState;

/// Where a repository's flow lives.
pub(crate) const FLOW_FILE: &str = ".stanley/flow.json";
/// Sub-steps of dynamic phases, written by the agent.
pub(crate) const SUBTASKS_FILE: &str = ".stanley/flow/subtasks.json";
/// The most of the sub-steps file read.
const MAX_SUBTASKS_BYTES: u64 = 1024 * 1024;

/// Why a flow cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FlowLoad {
    /// There is no flow file.
    #[error("there is no {FLOW_FILE}")]
    Missing,
    /// It cannot be read (not a regular file, too large, not UTF-8).
    #[error("cannot read {FLOW_FILE}: {0}")]
    Unreadable(#[source] std::io::Error),
    /// It does not load; the error names the JSON path.
    #[error("{FLOW_FILE}: {0}")]
    Invalid(#[source] FlowError),
}

/// Why the flow's journal cannot be used, or a stop's writes could not be made. The kind of
/// the refusal follows from the variant: a journal that does not read or fit is the flow's
/// state at fault, a store that cannot be written is the daemon's.
#[derive(Debug, thiserror::Error)]
pub(crate) enum JournalTrouble {
    /// It reads but does not fit the flow loaded now (another schema, an unknown phase).
    #[error(transparent)]
    Unfit(#[from] JournalError),
    /// The store cannot read it.
    #[error("{0}")]
    Unreadable(StoreError),
    /// It is damaged and could not be moved aside.
    #[error("{why}; {kept}")]
    NotKept { why: JournalError, kept: StoreError },
    /// The journal or the side-effect ledger cannot be written (or the ledger read).
    #[error("{0}")]
    Store(StoreError),
}

/// A journal that cannot be used refuses the flow command (3, `FAILED_PRECONDITION`); a store
/// that cannot be written is an internal fault.
impl From<JournalTrouble> for crate::error::RequestError {
    fn from(e: JournalTrouble) -> Self {
        use crate::error::Refusal;
        // The trouble stays the refusal's source, its words the message.
        match e {
            JournalTrouble::Store(_) => Self::caused(Refusal::Internal, e),
            _ => Self::caused(Refusal::FlowUnusable, e),
        }
    }
}

/// A flow as loaded, with the SHA-256 of the bytes it was parsed from: trust judges those bytes,
/// never a second read of the file (a checkout could swap it in between).
#[derive(Debug)]
pub(crate) struct LoadedFlow {
    pub(crate) flow: Flow,
    pub(crate) hash: String,
}

/// Loads `.stanley/flow.json` strictly, reading it once.
pub(crate) fn load_flow(root: &Path) -> Result<LoadedFlow, FlowLoad> {
    // A regular file of at most 1 MiB, not through a link: a repository may commit one to
    // `/dev/zero` or a FIFO.
    let text = match stanley_adapters::records::read_bounded(&root.join(FLOW_FILE), 1024 * 1024)
        .and_then(|b| {
            String::from_utf8(b).map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::InvalidData, "it is not UTF-8 text")
            })
        }) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(FlowLoad::Missing),
        Err(e) => return Err(FlowLoad::Unreadable(e)),
    };
    let flow = parse_flow(&text).map_err(FlowLoad::Invalid)?;
    Ok(LoadedFlow {
        flow,
        hash: stanley_core::hash::sha256_hex(text.as_bytes()),
    })
}

/// The length of a flow "minute": 60 s, or `STANLEY_FLOW_MINUTE_S` seconds (tests shrink it).
pub(crate) fn minute(settings: &RequestSettings) -> Duration {
    settings.flow_minute
}

pub(crate) fn now() -> stanley_workflows::time::Stamp {
    stanley_workflows::time::Stamp(stanley_workflows::time::Timestamp::now())
}

/// The journal on disk (`None` before the first stop), or why it cannot be used. A damaged
/// journal (torn, flipped bytes) is moved aside and reported by [`journal_recoveries`]; the flow
/// starts again from a fresh one. One that reads but does not fit the flow is an error.
pub(crate) fn stored_journal(
    store: &dyn FlowStore,
    flow: &Flow,
) -> Result<Option<FlowState>, JournalTrouble> {
    match store.read_state() {
        Ok(Some(text)) => match FlowState::decode(&text) {
            Ok(_) => Ok(Some(FlowState::parse(&text, flow)?)),
            Err(why) => {
                let kept = match store.keep_broken_state(&now().to_string()) {
                    Ok(kept) => kept,
                    Err(kept) => return Err(JournalTrouble::NotKept { why, kept }),
                };
                tracing::error!(kept = %kept, reason = %why, "the flow journal was damaged; moved aside");
                Ok(None)
            }
        },
        Ok(None) => Ok(None),
        Err(e) => Err(JournalTrouble::Unreadable(e)),
    }
}

/// One line per damaged journal kept aside: what was wrong and where the copy is.
pub(crate) fn journal_recoveries(store: &dyn FlowStore) -> Vec<String> {
    store
        .broken_states()
        .into_iter()
        .map(|(path, text)| {
            let why = FlowState::decode(&text)
                .err()
                .map_or_else(|| "unreadable flow state".to_owned(), |e| e.to_string());
            format!(
                "the flow journal was damaged ({why}); the broken copy is in {path}; the flow \
                 started again from its first phase (remove the copy to stop this warning)"
            )
        })
        .collect()
}

/// The journal, a fresh one when there is none, or why it cannot be used.
pub(crate) fn read_journal(
    store: &dyn FlowStore,
    flow: &Flow,
) -> Result<FlowState, JournalTrouble> {
    Ok(stored_journal(store, flow)?.unwrap_or_else(|| FlowState::new(flow, now())))
}

/// Minutes (flow minutes) since the journal started.
pub(crate) fn elapsed_minutes(state: &FlowState, minute: Duration) -> u32 {
    let started = state.started_at.0.as_second();
    let secs = (unix_now() - started).max(0) as u64;
    (secs / minute.as_secs().max(1)).min(u64::from(u32::MAX)) as u32
}

/// What a stop decided and what to tell the agent.
pub(crate) struct Stop {
    pub(crate) decision: Decision,
    pub(crate) told: Told,
    /// The phase the stop was about, and its check when it ran.
    pub(crate) phase: String,
    pub(crate) check: Option<CheckRun>,
}

impl Stop {
    /// The policy ended on a budget or the hook cap.
    pub(crate) fn budget(&self) -> Option<Condition> {
        let c = self.decision.condition;
        c.is_budget().then_some(c)
    }
}

/// An executor for one flow question with the caller's key; what it sends is redacted.
pub(crate) fn executor(
    state: &DaemonState,
    settings: &RequestSettings,
) -> Result<Executor, JevConfigError> {
    // The Jev client of the caller's environment, or why there is none.
    let link = state.jev().link(&settings.jev)?;
    let (jev, model) = (link.jev, link.model);
    let redactor = Arc::new(settings.redactor());
    let mut opts = redacting(ExecutorOptions::new(model), redactor);
    if let Some(cache) = crate::request::cache_use(state, settings, false, &link.base_url) {
        opts = opts.cache(cache);
    }
    Ok(Executor::new(
        Some(jev),
        Arc::new(Budget::new(BudgetLimits {
            requests: 3,
            input_tokens: 60_000,
            wall_ms: 60_000,
        })),
        opts,
        Cancel::new(),
    ))
}

fn changed_files(state: &DaemonState, send_diff: bool) -> (Vec<ChangedFile>, Option<String>) {
    let Ok(diff) = state.git().diff(Scope::Worktree, None, None) else {
        return (Vec::new(), None);
    };
    let changed = diff
        .diff
        .split()
        .into_iter()
        .map(|f| ChangedFile {
            added: u32::try_from(f.added()).unwrap_or(u32::MAX),
            removed: u32::try_from(f.removed()).unwrap_or(u32::MAX),
            path: f.path,
        })
        .collect();
    (changed, send_diff.then(|| diff.diff.to_text()))
}

/// Runs the flow's notify command for `event`, if it wants it; a failure is logged, never fatal.
pub(crate) async fn notify_event(
    root: &Path,
    flow: &Flow,
    event: NotifyEvent,
    message: &str,
    settings: &RequestSettings,
) {
    let Some(n) = &flow.notify else { return };
    let env = settings.notify_env(stanley_adapters::flow_check::event_name(event), message);
    if let Some(run) = notify(root, n, event, &env).await
        && !run.passed
    {
        tracing::warn!(tail = %run.tail, "the flow's notify command failed");
    }
}

/// Writes `NEEDS_HUMAN.md` for `reason` (in `phase`) and runs the notify command for
/// `ask_human`; a note that cannot be written is logged.
pub(crate) async fn ask_person(
    root: &Path,
    store: &dyn FlowStore,
    flow: &Flow,
    phase: &str,
    reason: &str,
    settings: &RequestSettings,
) {
    let text = stanley_workflows::flow::agent::needs_human_note(&flow.goal, phase, reason);
    if let Err(e) = store.needs_human(&text) {
        tracing::error!(error = %e, "cannot write NEEDS_HUMAN.md");
    }
    notify_event(root, flow, NotifyEvent::AskHuman, reason, settings).await;
}

/// Evaluates one stop of the agent whose last message is `last_message`; `new_chain` says no
/// block of ours led to this stop (the consecutive-block count starts again). The journal is
/// written before this returns, so the decision survives whatever happens next.
pub(crate) async fn stop(
    state: &DaemonState,
    settings: &RequestSettings,
    flow: &Flow,
    last_message: &str,
    new_chain: bool,
) -> Result<Stop, JournalTrouble> {
    let root = state.config().files.root.clone();
    let store = state.flows().store().as_ref();
    let _journal_held = state.flows().hold_journal().await;
    let mut journal = match read_journal(store, flow) {
        Ok(j) => j,
        Err(why) => {
            let fresh = FlowState::new(flow, now());
            let decision = Decision {
                condition: Condition::BadState,
                action: Action::AskHuman(format!("the flow journal cannot be used: {why}")),
                mark_done: Vec::new(),
                complete: false,
            };
            let phase = fresh.current_phase.clone();
            let stopped = (phase, None);
            return Ok(finish(&root, store, flow, &fresh, decision, stopped, settings).await);
        }
    };
    if new_chain {
        journal.consecutive_blocks = 0;
    }
    let elapsed = elapsed_minutes(&journal, minute(settings));
    let budget = budget_condition(flow, &journal, elapsed);
    let phase = flow.phase(&journal.current_phase).cloned();
    let timeout = Duration::from_secs(u64::from(flow.limits.check_timeout_s));
    let checks = run_checks(&root, flow, &journal, budget.is_some(), settings, timeout).await;
    let live = budget.is_none() && !journal.complete;
    let loop_check = match phase.as_ref().and_then(|p| p.looped.as_ref()) {
        Some(l) if live => {
            Some(run_check(&root, &l.until, &settings.repository_env(), timeout).await)
        }
        _ => None,
    };
    let open = match phase.as_ref().filter(|p| p.dynamic) {
        // The agent's own notes: a bounded regular file, never one a commit brought.
        Some(p) if !stanley_adapters::tracked::tracked(&root, SUBTASKS_FILE) => {
            stanley_adapters::records::read_bounded(&root.join(SUBTASKS_FILE), MAX_SUBTASKS_BYTES)
                .map(|t| open_subtasks(&String::from_utf8_lossy(&t), &p.id))
                .unwrap_or_default()
        }
        Some(_) => Vec::new(),
        None => Vec::new(),
    };
    let (judgment, asked) = if live {
        judge(state, settings, flow, &journal, &checks, last_message).await
    } else {
        (Err(StopJudgeError::NotAsked), false)
    };
    let check_passed = checks.get(&journal.current_phase).map(|c| c.passed);
    let (stopped_at, check) = (
        journal.current_phase.clone(),
        checks.get(&journal.current_phase).cloned(),
    );
    let decision = decide(&StopContext {
        flow,
        state: &journal,
        elapsed_minutes: elapsed,
        checks,
        loop_check: loop_check.clone(),
        jev: judgment.clone(),
        open_subtasks: open,
        stuck_before: journal.last_stuck,
        review_stops: review_stops(&journal),
    });
    let stop_facts = if asked {
        facts(flow, &judgment, loop_check.is_some(), check_passed)
    } else {
        StopFacts {
            loop_ran: loop_check.is_some(),
            check_passed,
            ..StopFacts::default()
        }
    };
    record_side_effects(store, flow, &journal, &decision)?;
    apply(flow, &mut journal, &decision, stop_facts, now());
    let last = close_recorded(store, flow, &mut journal)?.unwrap_or(decision);
    store.write_state(&journal).map_err(JournalTrouble::Store)?;
    let stopped = (stopped_at, check);
    let mut stop = finish(&root, store, flow, &journal, last, stopped, settings).await;
    // An agent sent to a phase whose check already passes hears so: it can confirm the phase
    // and stop instead of redoing work for another blocked turn.
    if let (Action::Advance { to, .. }, Some(message)) =
        (&stop.decision.action, stop.told.message.as_mut())
        && let Some(next_check) = flow.phase(to).and_then(|p| p.check.clone())
        && run_check(&root, &next_check, &settings.repository_env(), timeout)
            .await
            .passed
    {
        message.push_str("; its check already passes: if the phase is done, say so and stop");
    }
    Ok(stop)
}

/// Runs the checks a stop needs, concurrently: the current phase's and every done phase's (for
/// regressions); every phase's on a budget, to close what already passes.
async fn run_checks(
    root: &Path,
    flow: &Flow,
    journal: &FlowState,
    every: bool,
    settings: &RequestSettings,
    timeout: Duration,
) -> BTreeMap<String, CheckRun> {
    let wanted: Vec<(&str, &str)> = flow
        .phases
        .iter()
        .filter(|p| {
            every
                || p.id == journal.current_phase
                || journal
                    .phases
                    .get(&p.id)
                    .is_some_and(|r| r.status == PhaseStatus::Done)
        })
        .filter_map(|p| p.check.as_deref().map(|c| (p.id.as_str(), c)))
        .collect();
    let env = settings.repository_env();
    let runs = futures::future::join_all(
        wanted
            .iter()
            .map(|(_, command)| run_check(root, command, &env, timeout)),
    )
    .await;
    wanted
        .iter()
        .zip(runs)
        .map(|((id, _), run)| ((*id).to_owned(), run))
        .collect()
}

/// Asks Jev the stop request; the flag says whether a request was made (no key: none).
async fn judge(
    state: &DaemonState,
    settings: &RequestSettings,
    flow: &Flow,
    journal: &FlowState,
    checks: &BTreeMap<String, CheckRun>,
    last_message: &str,
) -> (Result<Judgment, StopJudgeError>, bool) {
    let executor = match executor(state, settings) {
        Ok(e) => e,
        Err(why) => return (Err(StopJudgeError::Unavailable(why.to_string())), false),
    };
    let (changed, diff) = changed_files(state, flow.send_diff);
    let evidence = StopEvidence {
        checks: flow
            .phases
            .iter()
            .filter_map(|p| checks.get(&p.id).map(|c| (p.id.clone(), c.clone())))
            .collect(),
        last_message: last_message.to_owned(),
        changed,
        diff,
    };
    (
        ask(&executor, stop_frame(flow, journal, &evidence)).await,
        true,
    )
}

/// Closes side-effect phases the flow has just entered whose completion the ledger already
/// holds; the last such decision, if any.
fn close_recorded(
    store: &dyn FlowStore,
    flow: &Flow,
    journal: &mut FlowState,
) -> Result<Option<Decision>, JournalTrouble> {
    let mut last = None;
    while !journal.complete
        && flow
            .phase(&journal.current_phase)
            .is_some_and(|p| p.side_effect)
    {
        let attempt = journal
            .phases
            .get(&journal.current_phase)
            .map_or(0, |r| r.attempts);
        let key = side_effect_key(&journal.flow_version, &journal.current_phase, attempt);
        if !store
            .side_effect_done(&key)
            .map_err(JournalTrouble::Store)?
        {
            break;
        }
        let closed = recorded_side_effect(flow, journal);
        apply(flow, journal, &closed, StopFacts::default(), now());
        last = Some(closed);
    }
    Ok(last)
}

/// Writes each side-effect phase this decision completes to the ledger, before the journal.
fn record_side_effects(
    store: &dyn FlowStore,
    flow: &Flow,
    journal: &FlowState,
    decision: &Decision,
) -> Result<(), JournalTrouble> {
    for id in &decision.mark_done {
        if flow.phase(id).is_some_and(|p| p.side_effect) {
            let attempt = journal.phases.get(id).map_or(0, |r| r.attempts);
            store
                .record_side_effect(
                    &side_effect_key(&journal.flow_version, id, attempt),
                    &now().to_string(),
                )
                .map_err(JournalTrouble::Store)?;
        }
    }
    Ok(())
}

/// The mode's answer, the note for a person and the notify calls of a decision.
async fn finish(
    root: &Path,
    store: &dyn FlowStore,
    flow: &Flow,
    journal: &FlowState,
    decision: Decision,
    (phase, check): (String, Option<CheckRun>),
    settings: &RequestSettings,
) -> Stop {
    let mut told = told(flow.mode, &decision);
    // An agent sent to another phase hears what that phase is done when, and its check.
    if let (Action::Advance { to, .. }, Some(message)) = (&decision.action, told.message.as_mut()) {
        message.push_str(&stanley_workflows::flow::agent::phase_brief(flow, to));
    }
    if let Action::AskHuman(reason) = &decision.action
        && flow.mode == Mode::Enforce
    {
        ask_person(root, store, flow, &journal.current_phase, reason, settings).await;
    }
    let stop = Stop {
        decision,
        told,
        phase,
        check,
    };
    if stop.decision.complete {
        // A question left open is moot once the goal is reached.
        if let Err(e) = store.clear_needs_human() {
            tracing::warn!(error = %e, "cannot remove NEEDS_HUMAN.md");
        }
        notify_event(root, flow, NotifyEvent::GoalComplete, &flow.goal, settings).await;
    } else if let Some(condition) = stop.budget() {
        notify_event(
            root,
            flow,
            NotifyEvent::Budget,
            condition.as_str(),
            settings,
        )
        .await;
    }
    stop
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::RequestError;
    use stanley_adapters::flow_store::FileFlowStore;
    use stanley_proto::exit::ErrorKind;

    const FLOW: &str = r#"{"goal": "Ship it", "phases": [
        {"id": "parse", "name": "Parser", "done_when": "the parser exists"},
        {"id": "docs", "name": "Docs", "done_when": "docs.txt documents it"}]}"#;

    /// A missing flow, one that does not parse and one that cannot be read are three variants,
    /// each refused with its own status.
    #[test]
    fn a_flow_file_that_cannot_be_used_says_which_way() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let missing = load_flow(root).unwrap_err();
        assert!(matches!(missing, FlowLoad::Missing), "{missing:?}");
        assert_eq!(RequestError::from(missing).code(), tonic::Code::NotFound);
        std::fs::create_dir_all(root.join(".stanley")).unwrap();
        std::fs::write(root.join(FLOW_FILE), r#"{"goal": "x", "phases": []}"#).unwrap();
        let invalid = load_flow(root).unwrap_err();
        assert!(matches!(&invalid, FlowLoad::Invalid(_)), "{invalid:?}");
        assert!(
            invalid.to_string().starts_with(".stanley/flow.json: "),
            "{invalid}"
        );
        let refused = RequestError::from(invalid);
        assert_eq!(
            (refused.kind(), refused.code()),
            (ErrorKind::Configuration, tonic::Code::FailedPrecondition)
        );
        std::fs::remove_file(root.join(FLOW_FILE)).unwrap();
        std::fs::create_dir(root.join(FLOW_FILE)).unwrap();
        let unreadable = load_flow(root).unwrap_err();
        assert!(
            matches!(&unreadable, FlowLoad::Unreadable(_)),
            "{unreadable:?}"
        );
        assert!(
            unreadable
                .to_string()
                .starts_with("cannot read .stanley/flow.json: "),
            "{unreadable}"
        );
    }

    /// A journal left by another flow does not fit: the flow's state is at fault (a
    /// precondition), where a store that cannot be written is the daemon's (internal).
    #[test]
    fn a_journal_that_does_not_fit_is_a_precondition_and_a_failed_write_internal() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileFlowStore::new(
            dir.path(),
            stanley_adapters::user_key::UserKey::from_bytes([4; 32]),
        );
        let flow = parse_flow(FLOW).unwrap();
        let mut journal = FlowState::new(&flow, now());
        journal.current_phase = "gone".into();
        store.write_state(&journal).unwrap();
        let unfit = read_journal(&store, &flow).unwrap_err();
        assert!(
            matches!(&unfit, JournalTrouble::Unfit(JournalError::Phase(p)) if p == "gone"),
            "{unfit:?}"
        );
        assert_eq!(
            unfit.to_string(),
            r#"the flow state's current phase "gone" is not in the flow"#
        );
        let refused = RequestError::from(unfit);
        assert_eq!(
            (refused.kind(), refused.code()),
            (ErrorKind::Configuration, tonic::Code::FailedPrecondition)
        );
        let unwritten = JournalTrouble::Store(StoreError::file(
            "cannot write it",
            std::io::Error::other("disk full"),
        ));
        assert_eq!(unwritten.to_string(), "cannot write it: disk full");
        assert_eq!(RequestError::from(unwritten).kind(), ErrorKind::Internal);
    }
}
