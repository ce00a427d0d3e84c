//! A built-in run: the plan made from the request and its input (input errors come first), the
//! run on the diff evidence with an executor of the request, and the whole answer remembered
//! when every judgment in it came from the cache (D-130).

use std::sync::Arc;

use serde_json::json;
use stanley_adapters::SystemClock;
use stanley_adapters::clock::random_hex6;
use stanley_core::{ExecutorOptions, Status};
use stanley_workflows::analysis::{self, AnalysisInput, DEFAULT_MAX_HUNKS, modes};
use stanley_workflows::diff::{Diff, DiffEvidence, DiffSource};
use stanley_workflows::ports::Clock;
use stanley_workflows::registry::{Builtin, Kind};
use stanley_workflows::routing;
use stanley_workflows::run::{Packet, Run, run_id};
use stanley_workflows::text::check_request_text;
use stanley_workflows::triage::logs::{ParsedLog, parse_log_with};
use stanley_workflows::triage::review_comments::{Comment, parse_comments};
use stanley_workflows::triage::{comments as triage_comments, failures as triage_failures};
use stanley_workflows::{check, find};

use crate::error::RequestError;
use crate::request::{Answer, Ctx, Events, Supplied, recorder, success};

/// Frames a built-in may have in flight: every frame is ready at once, and the HTTP client's
/// window (per API root and key, adapting to the server's limit, under
/// `STANLEY_JEV_MAX_CONCURRENCY`) decides how many reach System One. The floor is two rounds:
/// the route, then every frame.
const BUILTIN_CONCURRENCY: usize = stanley_adapters::jev_http::MAX_CONCURRENCY;

/// What a built-in runs, decided before its run starts (input errors come first).
pub(crate) enum Plan {
    Analysis(&'static modes::Mode, AnalysisInput),
    Check(check::CheckPlan),
    Failures(triage_failures::FailuresInput, ParsedLog),
    Comments(triage_comments::CommentsInput, Vec<Comment>),
    Find(find::FindInput),
}

pub(crate) async fn run_builtin(
    ctx: &Ctx<'_>,
    builtin: &Builtin,
    text: &str,
    source: Option<DiffSource>,
    input: Option<&Supplied>,
    events: &Events,
) -> Result<Answer, RequestError> {
    let unavailable = || {
        success(
            Status::Unsupported,
            &json!({"text": "The selected capability is not currently available.", "data": {"reason": "unavailable"}}),
        )
    };
    let plan = match builtin.kind {
        Kind::Find => {
            check_request_text(text, "task")?;
            Plan::Find(find::FindInput::new(text))
        }
        Kind::Check => Plan::Check(
            check::plan(text, input.map(|i| (i.text.as_str(), i.source.as_str())))
                .map_err(|e| RequestError::input(e.to_string()))?,
        ),
        Kind::TriageComments => {
            let Some(input) = input else {
                return Ok(unavailable());
            };
            let comments =
                parse_comments(&input.text).map_err(|e| RequestError::input(e.to_string()))?;
            Plan::Comments(
                triage_comments::CommentsInput {
                    text: input.text.clone(),
                    source: input.source.clone(),
                    max_items: triage_comments::DEFAULT_MAX_ITEMS,
                },
                comments,
            )
        }
        Kind::TriageFailures => {
            let Some(input) = input else {
                return Ok(unavailable());
            };
            check_request_text(text, "task")?;
            let parsed = parse_log_with(&input.text, ctx.triage_parsers);
            Plan::Failures(
                triage_failures::FailuresInput {
                    text: input.text.clone(),
                    source: input.source.clone(),
                    task: text.to_owned(),
                    root: ctx.state.config.files.root.display().to_string(),
                    max_items: triage_failures::DEFAULT_MAX_ITEMS,
                },
                parsed,
            )
        }
        Kind::Analysis => {
            let mode = modes::mode(builtin.id).ok_or_else(|| {
                RequestError::internal(format!("{} has no runner in this build", builtin.id))
            })?;
            check_request_text(text, "request")?;
            Plan::Analysis(
                mode,
                AnalysisInput {
                    request: text.to_owned(),
                    max_hunks: DEFAULT_MAX_HUNKS,
                },
            )
        }
    };
    // A diff analysis of a branch asked before with every answer from the cache is answered
    // whole from the result memo (issue 32).
    let (source, memo_key) = match (&plan, &ctx.settings_digest) {
        (Plan::Analysis(..), Some(digest)) if ctx.input_file.is_none() => {
            let source = match source {
                Some(source) => source,
                None => ctx.diff()?,
            };
            let key = crate::warm::result_key(digest, builtin.id, text, &source);
            (Some(source), key)
        }
        _ => (source, None),
    };
    if let Some(kept) = memo_key.as_deref().and_then(|k| ctx.state.results.get(k)) {
        tracing::info!(workflow = builtin.id, "answered whole from the result memo");
        ctx.tally.restore(kept.usage.clone());
        let mut answer = success(kept.status, &kept.output).by(builtin.id);
        answer.verbose.clone_from(&kept.verbose);
        return Ok(answer);
    }
    let packet = run_plan(ctx, builtin.id, &plan, source, events).await?;
    // Jev failed before anything was judged: there is no result to give, only the reason.
    let judged = packet.json["coverage"]["judged"].as_u64().unwrap_or(0);
    if let Some(trouble) = ctx.trouble.get()
        && judged == 0
    {
        return Err(RequestError::jev(&trouble, &ctx.base_url).in_workflow(builtin.id));
    }
    let answer = Answer {
        status: packet.status,
        output: packet.output(),
        workflow: builtin.id.to_owned(),
        run_id: packet.json["runId"].as_str().unwrap_or("").to_owned(),
        verbose: Some(packet.verbose()),
    };
    if let Some(key) = memo_key
        && ctx.trouble.get().is_none()
    {
        ctx.state.results.keep(
            key,
            crate::warm::Remembered {
                status: answer.status,
                output: answer.output.clone(),
                verbose: answer.verbose.clone(),
                usage: ctx.tally.snapshot(),
            },
        );
    }
    Ok(answer)
}

/// Runs a planned built-in to its packet. `source` is the diff already loaded for routing, if
/// any; `find` needs none.
pub(crate) async fn run_plan(
    ctx: &Ctx<'_>,
    id: &str,
    plan: &Plan,
    source: Option<DiffSource>,
    events: &Events,
) -> Result<Packet, RequestError> {
    let source = match (plan, source) {
        (Plan::Find(_), _) => DiffSource {
            scope: ctx.scope,
            probe: String::new(),
            ..DiffSource::worktree(Diff::default())
        },
        (_, Some(source)) => source,
        (_, None) => ctx.diff()?,
    };
    let kept = ctx.state.evidence.evidence(source);
    let evidence: &DiffEvidence = &kept;
    let tracked = match plan {
        Plan::Find(_) | Plan::Failures(..) | Plan::Comments(..) => ctx
            .state
            .git
            .tracked()
            .map_err(|e| RequestError::input(e.0))?,
        _ => Vec::new(),
    };
    // Triage uses the diff as context only when there is one.
    let context = (!evidence.hunks.is_empty() || evidence.source.is_present()).then_some(evidence);
    let inputs = match &plan {
        Plan::Analysis(mode, input) => analysis::recorded_inputs(mode, input, evidence),
        Plan::Check(plan) => check::recorded_inputs(plan, evidence),
        Plan::Failures(input, parsed) => triage_failures::recorded_inputs(input, parsed, context),
        Plan::Comments(input, comments) => {
            triage_comments::recorded_inputs(input, comments, context)
        }
        Plan::Find(input) => find::recorded_inputs(input, tracked.len()),
    };
    let name = match plan {
        Plan::Failures(..) | Plan::Comments(..) => "triage",
        _ => id,
    };
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let run_name = run_id(name, &clock.now(), &random_hex6());
    if !ctx.no_persist {
        // Marked in progress before its folder exists, so retention never sees it unmarked;
        // the request's summary goes into it when this built-in is what answered.
        ctx.state.run_started(&run_name);
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
    run.contents(
        evidence
            .hunks
            .iter()
            .map(|h| (h.id.clone(), h.content_id())),
    );
    let planned = match plan {
        Plan::Analysis(_, input) => evidence.hunks.len().min(input.max_hunks),
        Plan::Check(_) => evidence.hunks.len().min(check::task::DEFAULT_MAX_HUNKS),
        _ => 0,
    } as u32;
    let executor = ctx.executor(
        ExecutorOptions::new(ctx.model.clone())
            .concurrency(BUILTIN_CONCURRENCY)
            .sink(run.sink())
            .progress(events.progress_callback(id, planned)),
    );
    events.progress(id, 0, planned).await;
    let sources = stanley_workflows::triage::Sources {
        diff: context,
        tracked: &tracked,
        workspace: ctx.state.git.as_ref(),
    };
    match plan {
        Plan::Find(input) => {
            find::find(
                input,
                &tracked,
                ctx.state.git.as_ref(),
                ctx.redactor.as_ref(),
                &executor,
                &mut run,
            )
            .await
        }
        Plan::Analysis(mode, input) => {
            analysis::analyze(mode, input, evidence, &executor, &mut run).await
        }
        Plan::Check(plan) => check::check(plan, evidence, &executor, &mut run).await,
        Plan::Failures(input, parsed) => {
            triage_failures::triage(input, parsed, sources, &executor, &mut run).await
        }
        Plan::Comments(input, comments) => {
            triage_comments::triage(input, comments, sources, &executor, &mut run).await
        }
    }
    if ctx.cancel.is_cancelled() {
        return Err(RequestError::internal("run aborted"));
    }
    if let Plan::Find(input) = plan
        && input.fallback
    {
        run.limits
            .insert(0, routing::FIND_FALLBACK_NOTICE.to_owned());
    }
    Ok(run.finish(&executor))
}
