//! The `stanley.v1.Flows` service: writing a starter flow and reporting a flow's status from its
//! file and journal. The supervisor that runs flows arrives with the rest of the flow issue.

use std::sync::Arc;

use serde_json::{Value, json};
use stanley_adapters::flow_store::FileFlowStore;
use stanley_adapters::records::{create_private_dir, write_atomic};
use stanley_proto::v1::flows_server::Flows;
use stanley_proto::v1::{FlowStatusRequest, FlowStatusResponse, InitFlowRequest, InitFlowResponse};
use stanley_workflows::flow::{parse_flow, starter_flow};
use stanley_workflows::flow_state::{FlowState, FlowStore};
use tonic::{Request, Response, Status};

use crate::service::DaemonState;

/// Where a repository's flow lives.
pub(crate) const FLOW_FILE: &str = ".stanley/flow.json";
const MAX_GOAL_CHARS: usize = 500;

/// The service implementation.
pub(crate) struct FlowService {
    state: Arc<DaemonState>,
}

impl FlowService {
    pub(crate) fn new(state: Arc<DaemonState>) -> Self {
        Self { state }
    }
}

#[tonic::async_trait]
impl Flows for FlowService {
    async fn init_flow(
        &self,
        request: Request<InitFlowRequest>,
    ) -> Result<Response<InitFlowResponse>, Status> {
        let request = request.into_inner();
        let goal = request.goal.trim();
        if goal.is_empty() || goal.contains('\0') || goal.chars().count() > MAX_GOAL_CHARS {
            return Err(Status::invalid_argument(format!(
                "a flow needs a goal: one sentence of at most {MAX_GOAL_CHARS} characters"
            )));
        }
        let root = &self.state.config.files.root;
        let path = root.join(FLOW_FILE);
        if path.exists() && !request.force {
            return Err(Status::already_exists(format!(
                "{FLOW_FILE} already exists (use --force to replace it)"
            )));
        }
        create_private_dir(&root.join(".stanley"))
            .and_then(|()| write_atomic(&path, starter_flow(goal).as_bytes()))
            .map_err(|e| Status::internal(format!("cannot write {FLOW_FILE}: {e}")))?;
        Ok(Response::new(InitFlowResponse {
            path: FLOW_FILE.into(),
        }))
    }

    async fn flow_status(
        &self,
        _request: Request<FlowStatusRequest>,
    ) -> Result<Response<FlowStatusResponse>, Status> {
        let root = &self.state.config.files.root;
        let text = match std::fs::read_to_string(root.join(FLOW_FILE)) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Status::not_found(format!(
                    "no {FLOW_FILE}; start one with `stanleyctl flow init \"<goal>\"`"
                )));
            }
            Err(e) => return Err(Status::internal(format!("cannot read {FLOW_FILE}: {e}"))),
        };
        let flow = parse_flow(&text)
            .map_err(|e| Status::failed_precondition(format!("{FLOW_FILE}: {e}")))?;
        let store = FileFlowStore::new(root);
        let journal = match store.read_state() {
            Ok(Some(t)) => Some(FlowState::parse(&t, &flow).map_err(Status::failed_precondition)?),
            Ok(None) => None,
            Err(e) => return Err(Status::internal(e.0)),
        };
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
            "complete": journal.as_ref().is_some_and(|s| s.complete),
            "currentPhase": journal.as_ref().map(|s| s.current_phase.clone()),
            "phases": phases,
            "budgets": {
                "restarts": [journal.as_ref().map_or(0, |s| s.restarts), flow.limits.max_restarts],
                "blocksInSession": [journal.as_ref().map_or(0, |s| s.blocks_in_session), flow.limits.max_blocks_per_session],
                "jevCalls": [journal.as_ref().map_or(0, |s| s.jev_calls), flow.limits.max_jev_calls],
            },
            "recentDecisions": journal.as_ref().map_or(Vec::new(), |s| s.recent(5).to_vec()),
        });
        Ok(Response::new(FlowStatusResponse {
            json: serde_json::to_string_pretty(&doc).unwrap_or_default(),
        }))
    }
}
