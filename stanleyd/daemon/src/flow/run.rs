//! The flow supervisor: runs Pi on the current phase, evaluates the stop policy after each run,
//! and relaunches (continuing Pi's session) with the phase and the last instruction, within the
//! flow's restart, time and block budgets. One supervisor per repository (the lease); exit codes
//! 0 goal complete, 2 limit reached, 3 configuration error, 4 waiting on a human, 5 another
//! supervisor running, 130 interrupted.

use std::sync::Arc;
use std::time::{Duration, Instant};

use stanley_adapters::pi::{PiAgent, Unavailable};
use stanley_core::Cancel;
use stanley_workflows::agent::{Agent, AgentOutcome, AgentResult};
use stanley_workflows::flow::agent::run_prompt;
use stanley_workflows::flow::policy::Action;
use stanley_workflows::flow::state::{Condition, FlowState, FlowStore};
use stanley_workflows::flow::{Flow, Mode, NotifyEvent};

use stanley_proto::exit::FlowCode;

use crate::flow::eval::{
    self as flow_eval, FlowLoad, JournalTrouble, LoadedFlow, load_flow, minute, read_journal,
};
use crate::settings::RequestSettings;
use crate::state::DaemonState;

/// Where the supervisor keeps Pi's sessions.
pub(crate) const SESSION_DIR: &str = ".stanley/flow/pi-sessions";
/// The longest wait after a model error.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// How a supervised run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Exit {
    pub(crate) code: FlowCode,
    pub(crate) message: String,
}

fn exit(code: FlowCode, message: impl Into<String>) -> Exit {
    Exit {
        code,
        message: message.into(),
    }
}

/// The single-runner lease: held while a supervisor runs, released on drop.
pub(crate) struct Lease {
    state: Arc<DaemonState>,
}

impl Lease {
    /// Takes the lease, or `None` when another supervisor holds it.
    pub(crate) fn take(state: &Arc<DaemonState>, cancel: Cancel) -> Option<Self> {
        state.flows().try_lease(cancel).then(|| Self {
            state: state.clone(),
        })
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.state.flows().release();
    }
}

fn unavailable(reason: Unavailable) -> String {
    match reason {
        Unavailable::Disabled => "the coding agent is turned off (STANLEY_AGENT=off)".into(),
        Unavailable::Nested => {
            "flows cannot run inside a Stanley-run agent (STANLEY_NESTED)".into()
        }
        Unavailable::NotInstalled => {
            "no coding agent: install Pi (`pi` on PATH) or set STANLEY_PI_BIN".into()
        }
    }
}

/// Reads, changes and writes the journal.
fn update(
    store: &dyn FlowStore,
    flow: &Flow,
    change: impl FnOnce(&mut FlowState),
) -> Result<FlowState, JournalTrouble> {
    let mut journal = read_journal(store, flow)?;
    change(&mut journal);
    store.write_state(&journal).map_err(JournalTrouble::Store)?;
    Ok(journal)
}

/// What the supervisor does next after a run or a stop.
enum Next {
    /// Launch the agent again with this prompt.
    Launch(String),
    /// Go round again without a new prompt (a model error waited out, or the time budget).
    Again,
    /// The run is over.
    Done(Exit),
}

/// A supervised run: the flow, the agent it launches, and its budgets.
struct Supervision<'a> {
    state: &'a DaemonState,
    settings: &'a RequestSettings,
    cancel: &'a Cancel,
    say: &'a (dyn Fn(String) + Send + Sync),
    root: std::path::PathBuf,
    flow: Flow,
    base: PiAgent,
    store: Arc<dyn FlowStore>,
    sessions: std::path::PathBuf,
    total: Duration,
    idle: Duration,
    started: Instant,
    launches: u32,
    model_errors: u32,
}

impl<'a> Supervision<'a> {
    /// Loads the flow, checks trust and the agent, and starts a session in the journal: the
    /// run and its first prompt, or how it ended before it began.
    async fn start(
        state: &'a DaemonState,
        settings: &'a RequestSettings,
        cancel: &'a Cancel,
        say: &'a (dyn Fn(String) + Send + Sync),
    ) -> Result<(Self, String), Exit> {
        let root = state.config().files.root.clone();
        let LoadedFlow { flow, hash } = match load_flow(&root) {
            Ok(f) => f,
            Err(FlowLoad::Missing) => {
                return Err(exit(
                    FlowCode::Configuration,
                    "no .stanley/flow.json; start one with `stanleyctl flow init \"<goal>\"`",
                ));
            }
            Err(unusable) => return Err(exit(FlowCode::Configuration, unusable.to_string())),
        };
        // The flow's checks and notify command are repository code: they run only once trusted.
        if let Some(why) = crate::trust::flow_refusal(state, settings, &hash) {
            return Err(exit(FlowCode::Configuration, why));
        }
        let base = crate::agent::pi(state, settings, false)
            .map_err(|reason| exit(FlowCode::Configuration, unavailable(reason)))?;
        match base.launch() {
            Ok(launch) => {
                for note in launch.notes {
                    say(format!("warning: {note}"));
                }
            }
            Err(why) => return Err(exit(FlowCode::Configuration, why)),
        }
        let store = state.flows().store().clone();
        // A new run gets fresh restart, block and time budgets; phases and the ledger carry over.
        let journal = match update(&*store, &flow, |j| j.new_session(flow_eval::now())) {
            Ok(j) => j,
            Err(why) => {
                let reason = format!("the flow journal cannot be used: {why}");
                flow_eval::ask_person(&root, &*store, &flow, "(unknown)", &reason, settings).await;
                return Err(exit(
                    FlowCode::NeedsPerson,
                    format!("waiting on a person: {reason}"),
                ));
            }
        };
        for line in flow_eval::journal_recoveries(&*store) {
            say(format!("warning: {line}"));
        }
        if journal.complete {
            return Err(exit(
                FlowCode::Complete,
                format!("the goal is already complete: {}", flow.goal),
            ));
        }
        // A new run means the person has dealt with the question; their written answer, if
        // any, goes to the agent with the first prompt.
        let answered = store
            .read_needs_human()
            .map(|note| stanley_workflows::flow::agent::person_note(&note))
            .and_then(|(question, reply)| {
                let reply = reply?;
                Some(stanley_workflows::flow::agent::person_context(&question, Some(&reply)).0)
            });
        if let Err(e) = store.clear_needs_human() {
            tracing::warn!(error = %e, "cannot remove an answered NEEDS_HUMAN.md");
        }
        let minute = minute(settings);
        let sessions = root.join(SESSION_DIR);
        // Pi writes its sessions there: made here, so a committed link is refused, not followed.
        if let Err(e) = stanley_adapters::records::create_private_dir(&sessions) {
            return Err(exit(
                FlowCode::Configuration,
                format!("cannot use {SESSION_DIR}: {e}"),
            ));
        }
        let prompt = run_prompt(&flow, &journal, answered.as_deref());
        Ok((
            Self {
                state,
                settings,
                cancel,
                say,
                total: minute * flow.limits.max_total_minutes,
                idle: minute * flow.limits.hang_minutes,
                started: Instant::now(),
                root,
                flow,
                base,
                store,
                sessions,
                launches: 0,
                model_errors: 0,
            },
            prompt,
        ))
    }

    /// Launches the agent on the current phase for what is left of the time budget.
    async fn launch(&mut self, prompt: &str, left: Duration) -> AgentResult {
        let agent: PiAgent = self
            .base
            .clone()
            .in_session(self.sessions.clone(), self.launches > 0)
            .with_idle_limit(self.idle);
        let phase = read_journal(&*self.store, &self.flow)
            .map(|j| j.current_phase)
            .unwrap_or_default();
        self.launches += 1;
        let launches = self.launches;
        (self.say)(format!("run {launches}: agent working on phase {phase}"));
        let result = agent
            .run(prompt, left, self.cancel.clone(), Box::new(|_| {}))
            .await;
        (self.say)(format!(
            "run {launches}: agent {} after {} tool calls{}",
            result.outcome.as_str(),
            result.tool_calls,
            result
                .detail
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        ));
        result
    }

    /// What a run's outcome leads to: a finished run goes to the stop policy (None); a model
    /// error waits without charging a restart; a failed or hung run is restarted.
    async fn after_run(&mut self, result: &AgentResult) -> Option<Next> {
        match result.outcome {
            AgentOutcome::Aborted => Some(Next::Done(exit(FlowCode::Interrupted, "interrupted"))),
            AgentOutcome::Failed if result.model_error => {
                // The model failed, not the work: wait and try again, without a restart.
                // (A run stopped by the time budget ends the flow at the top of the loop.)
                self.model_errors += 1;
                let wait = Duration::from_secs(1u64 << self.model_errors.min(6).saturating_sub(1))
                    .min(MAX_BACKOFF)
                    .min(self.total.saturating_sub(self.started.elapsed()));
                (self.say)(format!(
                    "model error; retrying in {} s without charging a restart",
                    wait.as_secs()
                ));
                tokio::select! {
                    () = tokio::time::sleep(wait) => Some(Next::Again),
                    () = self.cancel.cancelled() => Some(Next::Done(exit(FlowCode::Interrupted, "interrupted"))),
                }
            }
            // Stopped by the time budget: the top of the loop ends the run with exit 2.
            AgentOutcome::Timeout if self.started.elapsed() >= self.total => Some(Next::Again),
            AgentOutcome::Failed | AgentOutcome::Timeout => {
                self.model_errors = 0;
                let why = result
                    .detail
                    .clone()
                    .unwrap_or_else(|| "the agent failed".into());
                Some(
                    match restart(&*self.store, &self.flow, &self.root, self.settings, &why).await {
                        Ok(journal) => Next::Launch(run_prompt(
                            &self.flow,
                            &journal,
                            Some(&format!("{why}; carry on")),
                        )),
                        Err(done) => Next::Done(done),
                    },
                )
            }
            AgentOutcome::Finished => {
                self.model_errors = 0;
                None
            }
        }
    }

    /// Evaluates the stop after a finished run and says what it decided: the goal complete, a
    /// person needed (enforce mode), a budget, keep going, or a restart.
    async fn after_stop(&mut self, result: &AgentResult) -> Next {
        let flow = &self.flow;
        let stop = match flow_eval::stop(self.state, self.settings, flow, &result.text, false).await
        {
            Ok(s) => s,
            Err(why) => {
                return Next::Done(exit(
                    FlowCode::Configuration,
                    format!("cannot write the flow journal: {why}"),
                ));
            }
        };
        let d = &stop.decision;
        (self.say)(stop_line(d));
        if d.complete {
            return Next::Done(exit(
                FlowCode::Complete,
                format!("goal complete: {}", flow.goal),
            ));
        }
        if matches!(d.action, Action::AskHuman(_)) && flow.mode == Mode::Enforce {
            return Next::Done(exit(
                FlowCode::NeedsPerson,
                format!(
                    "waiting on a person ({}): see .stanley/flow/NEEDS_HUMAN.md",
                    d.condition
                ),
            ));
        }
        if matches!(
            stop.budget(),
            Some(Condition::BudgetTime | Condition::BudgetJev)
        ) {
            return Next::Done(exit(
                FlowCode::Limit,
                format!("limit reached: {}", d.condition),
            ));
        }
        if stop.told.keep_going {
            let journal = read_journal(&*self.store, flow)
                .unwrap_or_else(|_| FlowState::new(flow, stanley_workflows::time::Stamp::EPOCH));
            return Next::Launch(run_prompt(flow, &journal, stop.told.message.as_deref()));
        }
        // The agent stopped without the goal being met: a restart, in a fresh block budget.
        let why = stop
            .told
            .message
            .clone()
            .unwrap_or_else(|| format!("the agent stopped ({})", d.condition));
        match restart(&*self.store, flow, &self.root, self.settings, &why).await {
            Ok(journal) => Next::Launch(run_prompt(flow, &journal, stop.told.message.as_deref())),
            Err(done) => Next::Done(done),
        }
    }
}

/// The progress line for a stop decision.
fn stop_line(d: &stanley_workflows::flow::policy::Decision) -> String {
    let reason = match &d.action {
        Action::Block(r) | Action::AskHuman(r) => r.as_str(),
        Action::Advance { reason, .. } => reason.as_str(),
        Action::AllowStop => "",
    };
    format!(
        "stop: {} ({}){}",
        d.condition,
        match &d.action {
            Action::AllowStop => "allow stop".to_owned(),
            Action::Block(_) => "block".to_owned(),
            Action::Advance { to, .. } => format!("advance to {to}"),
            Action::AskHuman(_) => "ask a person".to_owned(),
        },
        if reason.is_empty() {
            String::new()
        } else {
            format!(": {}", first_line(reason))
        }
    )
}

/// Runs a flow to one of its exit codes; `say` receives progress lines.
pub(crate) async fn supervise(
    state: &DaemonState,
    settings: &RequestSettings,
    cancel: &Cancel,
    say: &(dyn Fn(String) + Send + Sync),
) -> Exit {
    let (mut run, mut prompt) = match Supervision::start(state, settings, cancel, say).await {
        Ok(started) => started,
        Err(done) => return done,
    };
    loop {
        if cancel.is_cancelled() {
            return exit(FlowCode::Interrupted, "interrupted");
        }
        let left = run.total.saturating_sub(run.started.elapsed());
        if left.is_zero() {
            flow_eval::notify_event(
                &run.root,
                &run.flow,
                NotifyEvent::Budget,
                "budget_time",
                settings,
            )
            .await;
            return exit(
                FlowCode::Limit,
                format!(
                    "limit reached: the run time of max_total_minutes ({})",
                    run.flow.limits.max_total_minutes
                ),
            );
        }
        let result = run.launch(&prompt, left).await;
        let next = match run.after_run(&result).await {
            Some(next) => next,
            None => run.after_stop(&result).await,
        };
        match next {
            Next::Launch(p) => prompt = p,
            Next::Again => {}
            Next::Done(done) => return done,
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// Charges a restart; past `max_restarts` the run ends with exit 2.
async fn restart(
    store: &dyn FlowStore,
    flow: &Flow,
    root: &std::path::Path,
    settings: &RequestSettings,
    why: &str,
) -> Result<FlowState, Exit> {
    let journal = update(store, flow, |j| {
        j.restarts += 1;
        j.blocks_in_session = 0;
        j.consecutive_blocks = 0;
    })
    .map_err(|e| {
        exit(
            FlowCode::Configuration,
            format!("cannot write the flow journal: {e}"),
        )
    })?;
    if journal.restarts > flow.limits.max_restarts {
        flow_eval::notify_event(root, flow, NotifyEvent::Budget, "max_restarts", settings).await;
        return Err(exit(
            FlowCode::Limit,
            format!(
                "limit reached: {} restarts used; last: {}",
                flow.limits.max_restarts,
                first_line(why)
            ),
        ));
    }
    Ok(journal)
}
