//! A built-in run: the built-in's plan made from the request and its input (input errors come
//! first, `stanley_workflows::builtin`), the run on the diff evidence with an executor of the
//! request, and the whole answer remembered when every judgment in it came from the cache
//! (D-130).

use std::sync::Arc;

use serde_json::json;
use stanley_adapters::SystemClock;
use stanley_adapters::clock::random_hex6;
use stanley_core::{ExecutorOptions, Status};
use stanley_workflows::builtin::{BuiltinRun, PlanInput, PlanRequest, RunOn};
use stanley_workflows::diff::{Diff, DiffEvidence, DiffSource, Scope};
use stanley_workflows::ports::Clock;
use stanley_workflows::registry::Builtin;
use stanley_workflows::run::{Packet, Run, run_id};
use stanley_workflows::runs::RunId;

use crate::error::RequestError;
use crate::request::{Answer, Ctx, Events, Supplied, recorder, success};

/// Frames a built-in may have in flight: every frame is ready at once, and the HTTP client's
/// window (per API root and key, adapting to the server's limit, under
/// `STANLEY_JEV_MAX_CONCURRENCY`) decides how many reach System One. The floor is two rounds:
/// the route, then every frame.
const BUILTIN_CONCURRENCY: usize = stanley_adapters::jev_http::MAX_CONCURRENCY;

pub(crate) async fn run_builtin(
    ctx: &Ctx<'_>,
    builtin: &Builtin,
    text: &str,
    source: Option<Arc<DiffSource>>,
    input: Option<&Supplied>,
    events: &Events,
) -> Result<Answer, RequestError> {
    let root = ctx.state.config().files.root.display().to_string();
    let request = PlanRequest {
        text,
        input: input.map(|i| PlanInput {
            text: &i.text,
            source: &i.source,
            reading: &i.reading,
        }),
        root: &root,
    };
    let Some(plan) = stanley_workflows::builtin::plan(builtin, &request)? else {
        return Ok(success(
            Status::Unsupported,
            &json!({"text": "The selected capability is not currently available.", "data": {"reason": "unavailable"}}),
        ));
    };
    // What a branch review leaves out is read beside the review, off its critical path (a
    // status walks the worktree), and said before the result.
    let leaves_out = (ctx.scope == Scope::Branch && plan.uses_diff()).then(|| {
        let git = ctx.state.git().clone();
        tokio::task::spawn_blocking(move || git.uncommitted())
    });
    // A diff analysis of a branch asked before with every answer from the cache is answered
    // whole from the result memo (issue 32).
    let (source, memo_key) = match &ctx.settings_digest {
        Some(digest) if plan.remembered() && ctx.input_file.is_none() => {
            let source = match source {
                Some(source) => source,
                None => ctx.diff()?,
            };
            let key = crate::warm::result_key(digest, builtin.id, text, &source);
            (Some(source), key)
        }
        _ => (source, None),
    };
    if let Some((kept, output)) = memo_key
        .as_ref()
        .and_then(|k| ctx.state.warm().results().get(k))
        .and_then(|kept| kept.output().map(|output| (kept, output)))
    {
        tracing::info!(workflow = builtin.id, "answered whole from the result memo");
        ctx.tally.restore(kept.usage.clone());
        say_what_the_branch_leaves_out(leaves_out, events).await;
        return Ok(Answer {
            status: kept.status,
            output,
            workflow: builtin.id.to_owned(),
            run_id: None,
            verbose: kept.verbose.clone(),
        });
    }
    let packet = run_plan(ctx, builtin.id, plan.as_ref(), source, events).await?;
    // Jev failed before anything was judged: there is no result to give, only the reason.
    let judged = packet.json["coverage"]["judged"].as_u64().unwrap_or(0);
    if let Some(trouble) = ctx.trouble.get()
        && judged == 0
    {
        return Err(RequestError::jev(&trouble, &ctx.base_url).in_workflow(builtin.id));
    }
    let (status, run_id, verbose) = (
        packet.status,
        packet.json["runId"].as_str().and_then(RunId::parse),
        packet.verbose(),
    );
    let answer = Answer {
        status,
        output: packet.into_output(),
        workflow: builtin.id.to_owned(),
        run_id,
        verbose: Some(verbose),
    };
    let usage = ctx.tally.snapshot();
    if let Some(key) = memo_key
        && ctx.trouble.get().is_none()
        && crate::warm::Remembered::keeps(&usage)
    {
        ctx.state.warm().results().keep(
            key,
            crate::warm::Remembered::new(
                answer.status,
                &answer.output,
                answer.verbose.clone(),
                usage,
            ),
        );
    }
    say_what_the_branch_leaves_out(leaves_out, events).await;
    Ok(answer)
}

/// Most uncommitted paths the branch scope's notice names.
const UNCOMMITTED_NAMED: usize = 3;

/// A branch diff reads commits only: when the worktree or the index holds changes to tracked
/// files, says so and how to include them, rather than leave them out silently (issue 49).
async fn say_what_the_branch_leaves_out(
    status: Option<
        tokio::task::JoinHandle<Result<Vec<String>, stanley_workflows::ports::GitError>>,
    >,
    events: &Events,
) {
    let Some(status) = status else {
        return;
    };
    let paths = match status.await {
        Ok(Ok(paths)) => paths,
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "could not read the worktree's status");
            return;
        }
        Err(e) => {
            tracing::warn!(error = %e, "the worktree's status was not read");
            return;
        }
    };
    if paths.is_empty() {
        return;
    }
    let mut named = paths[..paths.len().min(UNCOMMITTED_NAMED)].join(", ");
    if paths.len() > UNCOMMITTED_NAMED {
        named.push_str(&format!(" and {} more", paths.len() - UNCOMMITTED_NAMED));
    }
    let files = if paths.len() == 1 { "file" } else { "files" };
    events
        .notice(format!(
            "this branch review reads commits only: {} {files} with uncommitted changes ({named}) \
             are not in it. Commit them to include them, or review them alone with --scope worktree.",
            paths.len()
        ))
        .await;
}

/// Runs a planned built-in to its packet. `source` is the diff already loaded for routing, if
/// any; a built-in that uses no diff gets an empty one.
pub(crate) async fn run_plan(
    ctx: &Ctx<'_>,
    id: &str,
    plan: &dyn BuiltinRun,
    source: Option<Arc<DiffSource>>,
    events: &Events,
) -> Result<Packet, RequestError> {
    let source = match source {
        _ if !plan.uses_diff() => Arc::new(DiffSource {
            scope: ctx.scope,
            probe: String::new(),
            ..DiffSource::worktree(Diff::default())
        }),
        Some(source) => source,
        None => ctx.diff()?,
    };
    let kept = ctx.state.warm().evidence().evidence(source);
    let evidence: &DiffEvidence = &kept;
    let tracked = if plan.reads_tracked() {
        ctx.state.git().tracked().map_err(RequestError::from)?
    } else {
        Vec::new()
    };
    // Triage uses the diff as context only when there is one.
    let context = (!evidence.hunks.is_empty() || evidence.source.is_present()).then_some(evidence);
    let inputs = plan.inputs(evidence, context, tracked.len());
    let name = plan.record_name().unwrap_or(id);
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let run_name = run_id(name, clock.now(), &random_hex6());
    if !ctx.no_persist {
        // Marked in progress before its folder exists, so retention never sees it unmarked;
        // the request's summary goes into it when this built-in is what answered.
        ctx.state.runs().started(&run_name);
        ctx.run_slot.push(&run_name, id);
    }
    let recorder = recorder(ctx, &run_name, events).await?;
    let mut run = Run::start(
        run_name,
        &format!("{name}@1"),
        recorder,
        clock,
        ctx.budget.limits(),
        &ctx.model,
        inputs,
    );
    // Findings about hunks are fingerprinted by what the hunk changes, not where it sits.
    let hunks = kept.clone();
    run.contents(Box::new(move |id| {
        hunks
            .hunks
            .iter()
            .find(|h| h.id == id)
            .map(|h| h.content_id())
    }));
    let planned = plan.planned(evidence) as u32;
    let executor = ctx.executor(
        ExecutorOptions::new(ctx.model.clone())
            .concurrency(BUILTIN_CONCURRENCY)
            .sink(run.sink())
            .progress(events.progress_callback(id, planned)),
    );
    events.progress(id, 0, planned).await;
    let on = RunOn {
        evidence,
        sources: stanley_workflows::triage::Sources {
            diff: context,
            tracked: &tracked,
            workspace: ctx.state.git().as_ref(),
        },
        redactor: ctx.redactor.as_ref(),
    };
    plan.run(on, &executor, &mut run).await;
    if ctx.cancel.is_cancelled() {
        return Err(RequestError::aborted());
    }
    Ok(run.finish(&executor))
}
