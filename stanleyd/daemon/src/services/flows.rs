//! The `stanley.v1.Flows` service: writing a starter flow, reporting a flow's status from its
//! file and journal, running and stopping the supervisor, and answering Claude Code hooks.

use std::sync::Arc;

use serde_json::{Value, json};
use stanley_adapters::records::{ensure_state_dir, write_atomic};
use stanley_proto::exit::FlowCode;
use stanley_proto::v1::flows_server::Flows;
use stanley_proto::v1::{
    FlowExit, FlowHookRequest, FlowHookResponse, FlowStatusRequest, FlowStatusResponse,
    InitFlowRequest, InitFlowResponse, RunFlowRequest, RunFlowResponse, StopFlowRequest,
    StopFlowResponse, run_flow_response,
};
use stanley_workflows::flow::starter_flow;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::error::{Refusal, RequestError};
use crate::flow::eval::{FLOW_FILE, FlowLoad, load_flow, stored_journal};
use crate::flow::hooks::{answer, event_of};
use crate::flow::run::{Lease, supervise};
use crate::state::DaemonState;

const MAX_GOAL_CHARS: usize = 500;
/// How long an interrupted run gets to stop Pi and its tools (Pi's own grace is 5 s).
const INTERRUPT_GRACE: std::time::Duration = std::time::Duration::from_secs(30);

/// The service implementation.
pub(crate) struct FlowService {
    state: Arc<DaemonState>,
}

impl FlowService {
    pub(crate) fn new(state: Arc<DaemonState>) -> Self {
        Self { state }
    }
}

/// The status for a flow that cannot be used: NOT_FOUND without a file, FAILED_PRECONDITION
/// naming the JSON path otherwise.
impl From<FlowLoad> for RequestError {
    fn from(e: FlowLoad) -> Self {
        match e {
            FlowLoad::Missing => RequestError::flow_missing(format!(
                "no {FLOW_FILE}; start one with `stanleyctl flow init \"<goal>\"`"
            )),
            // The load error stays the refusal's source, its words the message.
            FlowLoad::Unreadable(_) | FlowLoad::Invalid(_) => {
                RequestError::caused(Refusal::FlowUnusable, e)
            }
        }
    }
}

fn event(e: run_flow_response::Event) -> Result<RunFlowResponse, Status> {
    Ok(RunFlowResponse { event: Some(e) })
}

#[tonic::async_trait]
impl Flows for FlowService {
    type RunFlowStream = ReceiverStream<Result<RunFlowResponse, Status>>;

    async fn run_flow(
        &self,
        request: Request<RunFlowRequest>,
    ) -> Result<Response<Self::RunFlowStream>, Status> {
        if self.state.activity().stop_token().is_cancelled() {
            return Err(RequestError::unavailable("the daemon is shutting down").into());
        }
        let settings = self.state.settings(&request.into_inner().env);
        let (tx, rx) = mpsc::channel(64);
        let (guard, cancel) = self.state.activity().begin();
        let state = self.state.clone();
        tokio::spawn(async move {
            let _guard = guard;
            let Some(lease) = Lease::take(&state, cancel.clone()) else {
                let _ = tx
                    .send(event(run_flow_response::Event::Exit(FlowExit {
                        code: i32::from(FlowCode::AlreadyRunning.code()),
                        message: "another flow supervisor is running for this repository".into(),
                    })))
                    .await;
                return;
            };
            let progress = tx.clone();
            let say = move |line: String| {
                tracing::info!(%line, "flow");
                let _ = progress.try_send(event(run_flow_response::Event::Progress(line)));
            };
            let run = supervise(&state, &settings, &cancel, &say);
            tokio::pin!(run);
            let ended = tokio::select! {
                ended = &mut run => ended,
                () = tx.closed() => {
                    // The client went away (Ctrl-C, SIGTERM, a dropped connection): the same
                    // path as `flow stop`. The supervisor sees the cancel, stops Pi and every
                    // tool process it started, and returns; it is awaited, not dropped, so that
                    // path runs to its end.
                    cancel.cancel();
                    tracing::info!("flow client disconnected; run interrupted");
                    match tokio::time::timeout(INTERRUPT_GRACE, &mut run).await {
                        Ok(ended) => tracing::info!(code = ended.code.code(), "flow run ended after its client left"),
                        Err(_) => tracing::warn!("the interrupted flow run did not end within the grace period"),
                    }
                    return;
                }
            };
            drop(lease);
            tracing::info!(code = ended.code.code(), message = %ended.message, "flow run ended");
            let _ = tx
                .send(event(run_flow_response::Event::Exit(FlowExit {
                    code: i32::from(ended.code.code()),
                    message: ended.message,
                })))
                .await;
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn stop_flow(
        &self,
        _request: Request<StopFlowRequest>,
    ) -> Result<Response<StopFlowResponse>, Status> {
        let running = self.state.flows().running();
        if let Some(cancel) = &running {
            cancel.cancel();
        }
        Ok(Response::new(StopFlowResponse {
            stopped: running.is_some(),
        }))
    }

    async fn flow_hook(
        &self,
        request: Request<FlowHookRequest>,
    ) -> Result<Response<FlowHookResponse>, Status> {
        let request = request.into_inner();
        let settings = self.state.settings(&request.env);
        let event = event_of(&request)?;
        let answer = answer(&self.state, event, &request.input, &settings).await?;
        Ok(Response::new(FlowHookResponse {
            stdout: answer.stdout,
            stderr: answer.stderr,
            exit_code: answer.code,
        }))
    }

    async fn init_flow(
        &self,
        request: Request<InitFlowRequest>,
    ) -> Result<Response<InitFlowResponse>, Status> {
        let request = request.into_inner();
        let goal = request.goal.trim();
        if goal.is_empty() || goal.contains('\0') || goal.chars().count() > MAX_GOAL_CHARS {
            return Err(RequestError::usage(format!(
                "a flow needs a goal: one sentence of at most {MAX_GOAL_CHARS} characters"
            ))
            .into());
        }
        let root = &self.state.config().files.root;
        let path = root.join(FLOW_FILE);
        if path.exists() && !request.force {
            return Err(RequestError::exists(format!(
                "{FLOW_FILE} already exists (use --force to replace it)"
            ))
            .into());
        }
        ensure_state_dir(root)
            .and_then(|_| write_atomic(&path, starter_flow(goal).as_bytes()))
            .map_err(|e| {
                RequestError::context(
                    crate::error::Refusal::Internal,
                    format!("cannot write {FLOW_FILE}"),
                    e,
                )
            })?;
        // Writing the starter flow is the person's own act: it is trusted by it.
        if let Err(why) = crate::trust::trust_initial_flow(&self.state) {
            tracing::warn!(%why, "the new flow could not be trusted");
        }
        Ok(Response::new(InitFlowResponse {
            path: FLOW_FILE.into(),
        }))
    }

    async fn flow_status(
        &self,
        _request: Request<FlowStatusRequest>,
    ) -> Result<Response<FlowStatusResponse>, Status> {
        let root = &self.state.config().files.root;
        let flow = load_flow(root).map_err(RequestError::from)?.flow;
        let store = self.state.flows().store().as_ref();
        let journal = stored_journal(store, &flow).map_err(RequestError::from)?;
        let phases: Vec<Value> = flow
            .phases
            .iter()
            .map(|p| {
                let record = journal.as_ref().and_then(|s| s.phases.get(&p.id));
                let status = record.map_or("pending", |r| r.status.as_str());
                json!({
                    "id": p.id, "name": p.name, "status": status, "check": p.check,
                    "attempts": record.map_or(0, |r| r.attempts),
                    "loopIterations": record.map_or(0, |r| r.loop_iterations),
                    "sideEffect": p.side_effect,
                })
            })
            .collect();
        let doc = json!({
            "schema": "stanley.flow-status/v1",
            "goal": flow.goal,
            "title": flow.title,
            "mode": flow.mode.as_str(),
            "started": journal.is_some(),
            "supervisorRunning": self.state.flow_supervised(),
            "needsHuman": store.needs_human_pending() && !journal.as_ref().is_some_and(|s| s.complete),
            "complete": journal.as_ref().is_some_and(|s| s.complete),
            "currentPhase": journal.as_ref().map(|s| s.current_phase.clone()),
            "phases": phases,
            "budgets": {
                "restarts": [journal.as_ref().map_or(0, |s| s.restarts), flow.limits.max_restarts],
                "blocksInSession": [journal.as_ref().map_or(0, |s| s.blocks_in_session), flow.limits.max_blocks_per_session],
                "jevCalls": [journal.as_ref().map_or(0, |s| s.jev_calls), flow.limits.max_jev_calls],
                "jevCallsByKind": journal.as_ref().map(|s| s.jev_by_kind.clone()).unwrap_or_default(),
            },
            "recentDecisions": journal.as_ref().map_or(Vec::new(), |s| s.recent(5).to_vec()),
            "recoveries": crate::flow::eval::journal_recoveries(store),
        });
        Ok(Response::new(FlowStatusResponse {
            json: serde_json::to_string_pretty(&doc).unwrap_or_default(),
        }))
    }
}
