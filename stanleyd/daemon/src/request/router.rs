//! The one router: the candidates a request can be routed to (the built-ins, then the
//! repository workflows with their gates) and the routing decision (the frame, the acceptance
//! policy, the action guard). Requests, nested prompts and the worker's routing check all use it.

use std::collections::HashMap;
use std::time::Duration;

use stanley_core::ExecutorOptions;
use stanley_workflows::ports::Redactor;
use stanley_workflows::registry::Builtin;
use stanley_workflows::routing::{self, Candidate, Facts, RouteReason};
use stanley_workflows::text::Action;

use crate::error::RequestError;
use crate::request::Ctx;
use crate::request::repository::RepoSnapshot;

/// The routing candidates: the implemented built-ins, then the repository workflows, with
/// their gates evaluated for `facts`.
pub(crate) async fn candidates_for(
    ctx: &Ctx<'_>,
    builtins: &[&Builtin],
    repo: &RepoSnapshot,
    facts: Facts,
) -> Vec<Candidate> {
    let mut candidates: Vec<Candidate> = builtins
        .iter()
        .map(|b| Candidate {
            id: b.id.to_owned(),
            metadata: ctx.redactor.json(&b.metadata()).0,
            available: b.gate.available(&facts),
        })
        .collect();
    if repo.workflows.is_empty() {
        return candidates;
    }
    let gates = match &repo.host {
        Some(host) if repo.workflows.iter().any(|w| w.gated) => host
            .available(&crate::request::repository::gate_facts(facts))
            .await
            .unwrap_or_default(),
        _ => HashMap::new(),
    };
    candidates.extend(repo.workflows.iter().map(|w| Candidate {
        id: w.id.clone(),
        metadata: ctx.redactor.json(&w.metadata).0,
        available: !w.gated || gates.get(&w.id).copied().unwrap_or(false),
    }));
    candidates
}

/// One routing decision: the frame, the acceptance policy, then the action guard (built-ins
/// never serve an action request).
pub(crate) async fn route(
    ctx: &Ctx<'_>,
    text: &str,
    facts: Facts,
    candidates: &[Candidate],
    builtin_ids: &[&str],
    action: Option<Action>,
) -> Result<Routed, RequestError> {
    let refused = |reason| Routed {
        selected: None,
        reason,
        unavailable: None,
    };
    if candidates.is_empty() {
        return Ok(refused(RouteReason::NoCandidates));
    }
    let frame = routing::route_frame(text, facts, candidates);
    let executor = ctx.executor(
        ExecutorOptions::new(ctx.model.clone())
            .concurrency(1)
            .retries(1)
            .timeout(Duration::from_secs(15)),
    );
    let outcome = executor.run(frame).await;
    if ctx.cancel.is_cancelled() {
        return Err(RequestError::aborted());
    }
    let answer = match outcome {
        Ok(ok) => ok.answers.get("route").cloned(),
        Err(failure) => {
            tracing::info!(reason = failure.reason.as_str(), detail = %failure.detail, "intent routing failed");
            // Jev itself failed: the person must hear that, not that the request was unclear.
            if let Some(trouble) = ctx.trouble.get() {
                return Err(RequestError::jev(&trouble, &ctx.base_url));
            }
            return Ok(refused(RouteReason::RoutingError));
        }
    };
    let Some(answer) = answer else {
        return Ok(refused(RouteReason::RoutingError));
    };
    let acceptance = routing::accept(&answer, candidates);
    match acceptance.selected {
        // Built-ins are read-only: they never serve an action request.
        Some(id) if action.is_some() && builtin_ids.contains(&id.as_str()) => {
            Ok(refused(RouteReason::ActionGuard))
        }
        selected => Ok(Routed {
            selected,
            reason: acceptance.reason,
            unavailable: acceptance.unavailable,
        }),
    }
}

/// Where routing ended.
pub(crate) struct Routed {
    /// The accepted workflow.
    pub(crate) selected: Option<String>,
    /// Why.
    pub(crate) reason: RouteReason,
    /// The workflow Jev picked that is unavailable here.
    pub(crate) unavailable: Option<String>,
}
