//! Running repository workflows: `run` in the warm host with `prompt`, `judge` and `log` served
//! here; nested prompts routed through the same router with the depth, call-count and
//! active-stack limits, never delegating; `judge` validated, capped and budgeted.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use stanley_adapters::workflow_host::{HostCall, PromptRefusal, RunParams};
use stanley_core::{BoxFuture, ExecutorOptions, Frame, Status};
use stanley_workflows::judge;
use stanley_workflows::registry::{BUILTINS, Builtin};
use stanley_workflows::routing::{self, Candidate, Facts, NO_AGENT_NOTICE};
use stanley_workflows::text::{Action, classify_action};
use tokio::sync::mpsc;

use crate::error::RequestError;
use crate::request::builtin::run_builtin;
use crate::request::repository::{RepoSnapshot, RepoWorkflow};
use crate::request::router::{candidates_for, route};
use crate::request::{Ctx, Events, MAX_REQUEST_BYTES, Supplied};

/// Nested prompt levels allowed below the top-level workflow.
pub(crate) const MAX_DEPTH: usize = 8;
/// Child prompt calls allowed in one invocation tree.
pub(crate) const MAX_CHILD_CALLS: usize = 32;

static NEXT_RUN: AtomicU64 = AtomicU64::new(1);

/// Why a nested `prompt` throws in the workflow that called it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NestedError {
    /// The instructions are blank, hold a null byte or are too long.
    #[error("prompt instructions must be non-empty text of at most 16384 bytes with no null bytes")]
    Instructions,
    /// The request was cancelled.
    #[error("run aborted")]
    Aborted,
    /// Input was supplied, but the built-in the request routes to takes none.
    #[error("supplied input is not used when the request routes to {}", stanley_workflows::registry::display_id(.0))]
    InputNotUsed(String),
    /// Reading the diff, routing, or the workflow the request routed to failed.
    #[error(transparent)]
    Request(#[from] RequestError),
}

/// What one invocation tree shares.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    child_calls: AtomicUsize,
}

/// What every run and nested prompt of one invocation tree works with.
#[derive(Clone, Copy)]
pub(crate) struct Tools<'a> {
    pub(crate) ctx: &'a Ctx<'a>,
    pub(crate) repo: &'a RepoSnapshot,
    pub(crate) events: &'a Events,
    pub(crate) tree: &'a Tree,
}

/// `{status, output}` from a status and output.
fn envelope(status: Status, output: Value) -> Value {
    json!({"status": status.as_str(), "output": output})
}

/// A workflow's return value as `(status, output)`: exactly `{status, output}` with a known
/// status is used as is; anything else is complete output.
pub(crate) fn normalize(value: Value) -> (Status, Value) {
    if let Value::Object(map) = &value
        && map.len() == 2
        && let (Some(Value::String(status)), Some(output)) = (map.get("status"), map.get("output"))
    {
        let status = match status.as_str() {
            "complete" => Some(Status::Complete),
            "incomplete" => Some(Status::Incomplete),
            "budget_exhausted" => Some(Status::BudgetExhausted),
            "unsupported" => Some(Status::Unsupported),
            _ => None,
        };
        if let Some(status) = status {
            return (status, output.clone());
        }
    }
    (Status::Complete, value)
}

fn nested_fallback(reason: &str, text: &str) -> Value {
    envelope(
        Status::Unsupported,
        json!({"text": text, "data": {"reason": reason}}),
    )
}

/// The input value handed to a repository workflow: parsed JSON, else the text.
pub(crate) fn input_value(input: Option<&Supplied>) -> Option<Value> {
    input.map(|i| serde_json::from_str(&i.text).unwrap_or_else(|_| Value::String(i.text.clone())))
}

/// Runs repository workflow `wf` at `depth`, serving its host calls.
pub(crate) fn run_repository<'a>(
    tools: Tools<'a>,
    wf: &'a RepoWorkflow,
    request: &'a str,
    input: Option<Value>,
    depth: usize,
    stack: Vec<String>,
) -> BoxFuture<'a, Result<(Status, Value), RequestError>> {
    Box::pin(async move {
        let Tools {
            ctx, repo, events, ..
        } = tools;
        let host = repo
            .host
            .clone()
            .ok_or_else(|| RequestError::internal("the workflow host is not running"))?;
        let run_id = format!("r{}", NEXT_RUN.fetch_add(1, Ordering::SeqCst));
        let params = RunParams {
            run: run_id.clone(),
            id: wf.id.clone(),
            request: request.to_owned(),
            has_input: input.is_some(),
            input,
            root: ctx.state.config().files.root.display().to_string(),
        };
        let (tx, mut rx) = mpsc::unbounded_channel();
        // A fresh judge per workflow run: its 64-call cap and its cache are per run.
        let judge_executor = ctx.executor(
            ExecutorOptions::new(ctx.model.clone())
                .retries(1)
                .timeout(Duration::from_secs(30)),
        );
        let mut judge_calls = 0usize;
        // The policy version of a judge frame is the workflow's own id and version: a new
        // version of the workflow never reuses the old one's cached answers.
        let judge_template = format!(
            "workflow-judge@1/{}@{}",
            wf.id,
            wf.metadata["version"].as_str().unwrap_or("unversioned")
        );
        let deadline = ctx.budget.deadline();
        let run = host.run(&params, tx);
        tokio::pin!(run);
        let result = loop {
            tokio::select! {
                r = &mut run => break r,
                Some(call) = rx.recv() => match call {
                    HostCall::Prompt { instructions, input, reply } => {
                        let out = nested(tools, instructions, input, depth, stack.clone()).await;
                        let _ = reply.send(out.map_err(PromptRefusal::from));
                    }
                    HostCall::Judge { request, reply } => {
                        let value = match judge::validate(&request) {
                            Err(detail) => judge::refusal("invalid", &detail.to_string()),
                            Ok(_) if judge_calls >= judge::MAX_CALLS => judge::refusal("limit", "at most 64 judge calls per run"),
                            Ok(valid) => {
                                judge_calls += 1;
                                let frame = Frame { template: judge_template.clone(), scope: valid.scope, state: valid.state, questions: valid.questions, provenance: json!([]) };
                                judge::result(&judge_executor.run(frame).await)
                            }
                        };
                        let _ = reply.send(value);
                    }
                    HostCall::Log(record) => {
                        if record.level.is_notable() {
                            events.notice(&record.line(&wf.source)).await;
                        }
                    }
                },
                () = ctx.cancel.cancelled() => {
                    host.cancel(&run_id).await;
                    return Err(RequestError::aborted());
                }
                () = tokio::time::sleep_until(deadline) => {
                    // The shared wall-clock budget bounds repository code too; the host keeps
                    // serving other requests.
                    host.cancel(&run_id).await;
                    return Err(RequestError::internal(format!(
                        "workflow {} did not finish within the request's {} s wall-clock budget",
                        wf.id,
                        ctx.budget.limits().wall_ms / 1000
                    ))
                    .in_workflow(&wf.id));
                }
            }
        };
        match result {
            Ok(value) => Ok(normalize(value)),
            Err(e) => {
                Err(RequestError::caused(crate::error::Refusal::Internal, e).in_workflow(&wf.id))
            }
        }
    })
}

/// One nested `prompt(instructions, input?)`: `{status, output}`, or an error the workflow sees
/// as a thrown exception.
fn nested<'a>(
    tools: Tools<'a>,
    instructions: String,
    input: Option<Value>,
    depth: usize,
    stack: Vec<String>,
) -> BoxFuture<'a, Result<Value, NestedError>> {
    Box::pin(async move {
        let Tools {
            ctx,
            repo,
            events,
            tree,
        } = tools;
        if instructions.trim().is_empty()
            || instructions.contains('\0')
            || instructions.len() > MAX_REQUEST_BYTES
        {
            return Err(NestedError::Instructions);
        }
        if ctx.cancel.is_cancelled() {
            return Err(NestedError::Aborted);
        }
        if depth >= MAX_DEPTH {
            return Ok(nested_fallback(
                "depth",
                "The request was stopped at the nested prompt depth limit.",
            ));
        }
        if tree.child_calls.fetch_add(1, Ordering::SeqCst) + 1 > MAX_CHILD_CALLS {
            return Ok(nested_fallback(
                "calls",
                "The request was stopped at the child prompt call limit.",
            ));
        }
        let text_input = input.as_ref().map(|v| match v {
            Value::String(s) => s.clone(),
            other => serde_json::to_string(other).unwrap_or_default(),
        });
        let supplied = match text_input {
            Some(text) => Some(
                Supplied::read(
                    text,
                    "workflow prompt".into(),
                    None,
                    ctx.triage_parsers,
                    &ctx.cancel,
                )
                .await?,
            ),
            None => None,
        };
        let source = ctx.diff()?;
        let facts = Facts {
            diff: source.is_present(),
            input: Supplied::shape_of(supplied.as_ref()),
        };
        let action = classify_action(&instructions);
        let builtins: Vec<&Builtin> = BUILTINS.iter().filter(|b| b.implemented).collect();
        let candidates: Vec<Candidate> = candidates_for(ctx, &builtins, repo, facts)
            .await
            .into_iter()
            .filter(|c| !stack.contains(&c.id))
            .collect();
        let builtin_ids: Vec<&str> = builtins.iter().map(|b| b.id).collect();
        let crate::request::router::Routed {
            selected, reason, ..
        } = route(ctx, &instructions, facts, &candidates, &builtin_ids, action).await?;
        tracing::info!(
            depth,
            reason = reason.as_str(),
            selected = selected.as_deref().unwrap_or("-"),
            "nested prompt routed"
        );
        if let Some(id) = selected {
            if let Some(builtin) = builtins.iter().find(|b| b.id == id) {
                if supplied.is_some() && !builtin.accepts_input {
                    return Err(NestedError::InputNotUsed(id));
                }
                let answer = run_builtin(
                    ctx,
                    builtin,
                    &instructions,
                    Some(source),
                    supplied.as_ref(),
                    events,
                )
                .await?;
                return Ok(envelope(answer.status, answer.output));
            }
            if let Some(wf) = repo.workflows.iter().find(|w| w.id == id) {
                let mut child_stack = stack.clone();
                child_stack.push(id.clone());
                let (status, output) =
                    run_repository(tools, wf, &instructions, input, depth + 1, child_stack).await?;
                return Ok(envelope(status, output));
            }
            return Ok(nested_fallback(
                "unavailable",
                "The selected capability is not currently available.",
            ));
        }
        // Nested prompts never delegate to an agent.
        if action == Some(Action::CodeChange) {
            return Ok(envelope(
                Status::Unsupported,
                json!({"text": NO_AGENT_NOTICE, "data": {"reason": "unroutable", "requested": "code_change"}}),
            ));
        }
        let fallback = routing::fallback(action, facts, supplied.is_some(), ctx.budget.exhausted());
        Ok(envelope(
            fallback.status,
            json!({"text": fallback.text, "data": fallback.data}),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the calling workflow's exception says, through the host's refusal: the input a
    /// built-in does not take names it as people read it; a request's own refusal keeps its
    /// words, and its kind stays readable on this side.
    #[test]
    fn a_nested_refusal_reaches_the_workflow_in_its_own_words() {
        let unused = NestedError::InputNotUsed("security_review".into());
        assert_eq!(
            PromptRefusal::from(unused).to_string(),
            "supplied input is not used when the request routes to security review"
        );
        let refused = NestedError::from(RequestError::usage("no diff to review"));
        assert!(
            matches!(&refused, NestedError::Request(e) if e.exit_code() == 64),
            "{refused:?}"
        );
        assert_eq!(
            PromptRefusal::from(refused).to_string(),
            "no diff to review"
        );
        assert_eq!(NestedError::Aborted.to_string(), "run aborted");
        assert!(
            NestedError::Instructions
                .to_string()
                .starts_with("prompt instructions must be non-empty text")
        );
    }
}
