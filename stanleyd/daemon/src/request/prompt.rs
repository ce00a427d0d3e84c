//! One request, start to finish: read the settings from the caller's environment, read the
//! input, route with Jev (or skip routing for actions), run the selected built-in, or fall back;
//! then build the final result event. Errors become `stanley.error/v1` documents.

use std::sync::Arc;

use serde_json::{Value, json};
use stanley_adapters::guard;
use stanley_adapters::pi::PiAgent;
use stanley_adapters::redact::safe_message;
use stanley_adapters::workspace::open_workspace_file;
use stanley_adapters::{SecretRedactor, SystemClock};
use stanley_core::{Budget, BudgetLimits, Cancel, RequestUsage, Status, Tally, TroubleCell};
use stanley_proto::v1::{self, ErrorInfo, Outcome, PromptRequest, PromptResponse, prompt_response};
use stanley_workflows::agent::{
    AGENT_TIMEOUT, Agent, AgentProgress, delegated_result, delegation_instructions, guard_caveats,
};
use stanley_workflows::diff::{DiffSource, Scope};
use stanley_workflows::improve::Job;
use stanley_workflows::ports::{Clock, Redactor};
use stanley_workflows::registry::{BUILTINS, Builtin, display_id};
use stanley_workflows::result::{error_document, human, prompt_document};
use stanley_workflows::routing::{self, Facts, RouteReason};
use stanley_workflows::triage::logs::Parsers;

use crate::request::builtin::{run_builtin, run_plan};
use crate::request::compose;
use crate::request::repository::{self, RepoSnapshot};
use stanley_workflows::text::{Action, classify_action};
use tokio::sync::mpsc;

pub(crate) use crate::error::RequestError;
use crate::request::router::{Routed, candidates_for, route};
use crate::request::{
    Answer, Ctx, Events, MAX_INPUT_BYTES, MAX_MESSAGE_CHARS, MAX_REQUEST_BYTES, Supplied,
    cache_use, success,
};
use crate::runs::{RunSlot, Track};
use crate::settings::RequestSettings;
use crate::state::{DaemonState, JevLink};

/// The final event for a failure; the message is redacted and cut to 300 characters.
pub(crate) fn error_result(failure: &RequestError, redactor: Option<&dyn Redactor>) -> v1::Result {
    let fallback = SecretRedactor::default();
    let redactor = redactor.unwrap_or(&fallback);
    let message = safe_message(redactor, &failure.message, MAX_MESSAGE_CHARS);
    v1::Result {
        document_json: error_document(failure.kind().as_str(), &message),
        outcome: Outcome::Error as i32,
        exit_code: failure.exit_code(),
        human: String::new(),
        error: Some(
            ErrorInfo {
                error_kind: failure.kind().wire() as i32,
                message,
                workflow: failure.workflow.clone().unwrap_or_default(),
                ..ErrorInfo::default()
            }
            .with_words(),
        ),
        workflow: failure.workflow.clone().unwrap_or_default(),
        ..v1::Result::default()
    }
}

fn outcome_of(status: Status) -> Outcome {
    match status {
        Status::Complete => Outcome::Complete,
        Status::Incomplete => Outcome::Incomplete,
        Status::BudgetExhausted => Outcome::BudgetExhausted,
        Status::Unsupported => Outcome::Unsupported,
    }
}

/// The final event for an answer, redacted: the document with the request's `usage`, the
/// human text with its Jev footer when Jev was asked anything, and the typed fields from the
/// document as it leaves. The document is built, redacted and serialized once.
fn to_result(
    answer: Answer,
    usage: &RequestUsage,
    redactor: &SecretRedactor,
) -> (v1::Result, Value) {
    let Answer {
        status,
        output,
        workflow,
        run_id,
        verbose,
    } = answer;
    // The footer wraps within the report's 100 columns, like every line of it (issue 34).
    let footed = |mut text: String| {
        if usage.asked() {
            text.push_str("\n\n");
            text.push_str(&stanley_workflows::text::wrap(&usage.footer(), 2).join("\n"));
        }
        text
    };
    let human = redactor.text(&footed(human(&output))).0;
    // The output moves into the document, which is redacted where it stands.
    let mut doc = prompt_document(status, output, Some(usage.to_json()));
    redactor.json_in_place(&mut doc);
    let mut result = v1::Result {
        document_json: serde_json::to_string_pretty(&doc).unwrap_or_default(),
        outcome: outcome_of(status) as i32,
        exit_code: status.exit_code(),
        human,
        human_verbose: verbose
            .map(|v| redactor.text(&footed(v)).0)
            .unwrap_or_default(),
        error: None,
        usage: Some(crate::typed::usage(usage)),
        ..v1::Result::default()
    };
    crate::typed::fill(&mut result, &doc["output"], &workflow, run_id.as_ref());
    (result, doc)
}

/// The request's input, read (a file through the bounded window) and then parsed once, both off
/// the runtime's threads; `cancel` ends the parse early.
async fn read_input(
    root: &std::path::Path,
    input: Option<v1::Input>,
    parsers: Parsers,
    cancel: &Cancel,
) -> Result<Option<Supplied>, RequestError> {
    let root = root.to_owned();
    let raw = tokio::task::spawn_blocking(move || raw_input(&root, input))
        .await
        .map_err(|e| {
            RequestError::context(
                crate::error::Refusal::Internal,
                "reading the input failed",
                e,
            )
        })??;
    let Some((text, file, outside)) = raw else {
        return Ok(None);
    };
    let source = match (&file, outside) {
        (Some(file), _) => file.clone(),
        (None, Some(name)) => name,
        (None, None) => "stdin".to_owned(),
    };
    Supplied::read(text, source, file, parsers, cancel)
        .await
        .map(Some)
}

/// What the input says and where it came from: its text, the repository-relative file it was
/// read from (when the daemon read it), and the name of a file outside the repository that the
/// client read.
type RawInput = (String, Option<String>, Option<String>);

/// The name a file outside the repository is shown by: its last path component, printable,
/// at most 120 characters.
fn outside_name(name: &str) -> String {
    let last = name
        .rsplit(['/', '\\'])
        .find(|p| !p.is_empty())
        .unwrap_or("input");
    let clean: String = last.chars().filter(|c| !c.is_control()).take(120).collect();
    if clean.is_empty() {
        "input".into()
    } else {
        clean
    }
}

/// The input's text and where it came from, if any.
fn raw_input(
    root: &std::path::Path,
    input: Option<v1::Input>,
) -> Result<Option<RawInput>, RequestError> {
    let Some(source) = input.and_then(|i| i.source) else {
        return Ok(None);
    };
    let too_big = |what: &str| {
        RequestError::input(format!(
            "{what} exceeds the {MAX_INPUT_BYTES} byte limit (the stanley CLI reduces larger input before sending it)"
        ))
    };
    let (bytes, file, outside) = match source {
        v1::input::Source::Stdin(bytes) => {
            if bytes.len() as u64 > MAX_INPUT_BYTES {
                return Err(too_big("stdin"));
            }
            (bytes, None, None)
        }
        v1::input::Source::Outside(f) => {
            let name = outside_name(&f.name);
            if f.content.len() as u64 > MAX_INPUT_BYTES {
                return Err(too_big(&name));
            }
            if f.content.is_empty() {
                return Err(RequestError::input(format!("input file is empty: {name}")));
            }
            (f.content, None, Some(name))
        }
        v1::input::Source::Path(path) => {
            // Any size, in one pass: what does not fit is left out with a marker line.
            let (rel, file, len) = open_workspace_file(root, &path)?;
            if len == 0 {
                return Err(RequestError::input("input file is empty"));
            }
            let reduced =
                stanley_proto::window::reduce(std::io::BufReader::new(file)).map_err(|e| {
                    RequestError::context(
                        crate::error::Refusal::Input,
                        format!("cannot read {path}"),
                        e,
                    )
                })?;
            (reduced.text.into_bytes(), Some(rel), None)
        }
    };
    let raw = String::from_utf8_lossy(&bytes).into_owned();
    // JSON input is handed on re-serialized compactly; anything else as the raw text.
    let text = match serde_json::from_str::<Value>(&raw) {
        Ok(value) => serde_json::to_string(&value).unwrap_or(raw),
        Err(_) => raw,
    };
    Ok(Some((text, file, outside)))
}

/// The coding agent that could take this request, if any (`STANLEY_AGENT=off`, nesting,
/// `--no-agent` and a missing `pi` all mean none).
fn agent_for(state: &DaemonState, settings: &RequestSettings, no_agent: bool) -> Option<PiAgent> {
    match crate::agent::pi(state, settings, no_agent) {
        Ok(agent) => Some(agent),
        Err(reason) => {
            tracing::debug!(?reason, "no coding agent");
            None
        }
    }
}

fn scope_of(request: &PromptRequest) -> Result<Scope, RequestError> {
    match v1::Scope::try_from(request.scope) {
        Ok(v1::Scope::Unspecified | v1::Scope::Worktree) => Ok(Scope::Worktree),
        Ok(v1::Scope::Staged) => Ok(Scope::Staged),
        Ok(v1::Scope::Branch) => Ok(Scope::Branch),
        Err(_) => Err(RequestError::usage(
            "--scope must be one of worktree, staged, branch",
        )),
    }
}

/// Runs one request to its final result event.
pub(crate) async fn run(
    state: &DaemonState,
    request: PromptRequest,
    cancel: Cancel,
    events: mpsc::Sender<Result<PromptResponse, tonic::Status>>,
) -> v1::Result {
    // The request's settings, read once.
    let settings = state.settings(&request.env);
    let redactor = Arc::new(state.warm().clean_texts().attach(settings.redactor()));
    let track = Track::default();
    let events = Events {
        tx: events,
        redactor: redactor.clone(),
    };
    for problem in &settings.problems {
        events.warning(problem).await;
    }
    let (started_at, started) = (
        stanley_workflows::time::Stamp(stanley_workflows::time::Timestamp::now()),
        std::time::Instant::now(),
    );
    // However the request ends, the runs it opened stop being "in progress".
    let ending = crate::runs::Ending {
        state,
        slot: track.run.clone(),
    };
    let no_persist = request.no_persist;
    let asked = redactor.text(request.request.trim()).0;
    let served = serve(
        state,
        request,
        &settings,
        cancel,
        events.clone(),
        redactor.clone(),
        track.clone(),
    )
    .await;
    // A team cache that failed during the request says so once, in the request that paid for it.
    if let Some(line) = state.caches().team().take_warning() {
        events.warning(&line).await;
    }
    let usage = track.tally.snapshot();
    // The document as it left, kept for the run's records so they need not parse it again.
    let (result, document) = match served {
        Ok(answer) => {
            let (result, document) = to_result(answer, &usage, redactor.as_ref());
            (result, Some(document))
        }
        Err(failure) => {
            tracing::info!(kind = failure.kind().as_str(), "request failed");
            (error_result(&failure, Some(redactor.as_ref())), None)
        }
    };
    let mut result = result;
    if !no_persist {
        let finished = crate::runs::Finished {
            request: &asked,
            result: &result,
            document,
            usage,
            started_at,
            duration_ms: started.elapsed().as_millis() as u64,
        };
        if let Some(id) = crate::runs::record(state, &track.run, redactor.clone(), finished) {
            // Every recorded request names its run, not only built-ins.
            result.run_id = id.into_string();
        }
    }
    drop(ending);
    if !no_persist {
        crate::runs::prune_later(state, &settings);
    }
    flush_cache(state);
    result
}

/// Writes the judgment cache's new answers to disk on a blocking thread, so they survive a
/// crash and the result is not held up by it.
fn flush_cache(state: &DaemonState) {
    state.caches().flush_later();
}

/// The request's text, trimmed and checked.
fn request_text(request: &PromptRequest) -> Result<String, RequestError> {
    let text = request.request.trim().to_owned();
    if text.is_empty() {
        return Err(RequestError::usage(
            "a natural-language request is required",
        ));
    }
    if text.len() > MAX_REQUEST_BYTES || text.contains('\0') {
        return Err(RequestError::usage(format!(
            "the request must be at most {MAX_REQUEST_BYTES} bytes and contain no null bytes"
        )));
    }
    Ok(text)
}

/// The request's context: its Jev client, budget, scope and base.
fn context<'a>(
    state: &'a DaemonState,
    request: &PromptRequest,
    settings: &RequestSettings,
    cancel: Cancel,
    redactor: Arc<SecretRedactor>,
) -> Result<Ctx<'a>, RequestError> {
    let scope = scope_of(request)?;
    let JevLink {
        jev,
        model,
        base_url,
    } = state
        .jev()
        .link(&settings.jev)
        .map_err(|e| RequestError::caused(crate::error::Refusal::Input, e))?;
    let cache = cache_use(state, settings, request.no_persist, &base_url);
    let budget = BudgetLimits {
        input_tokens: settings
            .max_input_tokens
            .map_or(state.config().budget.input_tokens, |cap| {
                cap.min(state.config().budget.input_tokens)
            }),
        ..state.config().budget
    };
    let settings_digest = cache.is_some().then(|| {
        let env: std::collections::BTreeMap<_, _> = request.env.iter().collect();
        let described = format!("{env:?}\0{model}\0{budget:?}\0{base_url}");
        stanley_core::hash::sha256_hex(described.as_bytes())
    });
    Ok(Ctx {
        state,
        cancel,
        jev,
        model,
        redactor,
        budget: Arc::new(Budget::new(budget)),
        scope,
        base: Some(request.base.trim().to_owned()).filter(|b| !b.is_empty()),
        no_persist: request.no_persist,
        trouble: TroubleCell::default(),
        base_url,
        input_file: None,
        tally: Tally::default(),
        cache,
        run_slot: RunSlot::default(),
        triage_parsers: settings.triage_parsers,
        settings_digest,
    })
}

/// Says what the person should know before the request runs: a recovered queue, quarantined
/// or switched-off repository workflows, their load-time warnings, candidates awaiting review.
async fn announce(state: &DaemonState, repo: &RepoSnapshot, events: &Events) {
    if let Some(line) = state.improve().take_recovery() {
        events.warning(&line).await;
    }
    if let Some(line) = state.caches().take_warning() {
        events.warning(&line).await;
    }
    for d in &repo.diagnostics {
        let line = format!(
            "workflow {} quarantined ({}): {}",
            d.source, d.phase, d.message
        );
        events.warning(&line).await;
    }
    if let Some(off) = &repo.off {
        let line = format!("repository workflows are off: {off}");
        events.warning(&line).await;
    }
    for record in repo.init_logs.iter().filter(|r| r.level.is_notable()) {
        events.notice(&record.line("")).await;
    }
    let waiting = crate::candidates::validated_candidates(&state.config().files.root);
    if !waiting.is_empty() {
        events
            .notice(format!(
                "{} validated improvement candidate(s) await review under .stanley/candidates/ (activate with --promote-candidate <id>)",
                waiting.len()
            ))
            .await;
    }
}

/// What the person asked: the request text, the supplied input, and where events go.
#[derive(Clone, Copy)]
struct Asked<'a> {
    text: &'a str,
    input: Option<&'a Supplied>,
    events: &'a Events,
}

/// Runs the workflow routing selected: a repository workflow, or a built-in.
async fn run_selected(
    ctx: &Ctx<'_>,
    id: &str,
    asked: Asked<'_>,
    builtins: &[&Builtin],
    repo: &RepoSnapshot,
    diff: Option<Arc<DiffSource>>,
) -> Result<Answer, RequestError> {
    let Asked {
        text,
        input,
        events,
    } = asked;
    if let Some(wf) = repo.workflows.iter().find(|w| w.id == id) {
        let tree = compose::Tree::default();
        let tools = compose::Tools {
            ctx,
            repo,
            events,
            tree: &tree,
        };
        let value = compose::input_value(input);
        let (status, output) =
            compose::run_repository(tools, wf, text, value, 0, vec![id.to_owned()]).await?;
        return Ok(success(status, &output).by(id));
    }
    let builtin = builtins
        .iter()
        .find(|b| b.id == id)
        .copied()
        .ok_or_else(|| RequestError::internal(format!("routed to an unknown workflow {id}")))?;
    if input.is_some() && !builtin.accepts_input {
        return Err(RequestError::usage(format!(
            "supplied input is not used when the request routes to {}",
            display_id(id)
        ))
        .in_workflow(id));
    }
    run_builtin(ctx, builtin, text, diff, input, events)
        .await
        .map_err(|f| f.in_workflow(id))
}

/// Nothing was selected and nothing was delegated: the documented fallback text.
fn unrouted(
    ctx: &Ctx<'_>,
    action: Option<Action>,
    diff: Option<&DiffSource>,
    input: Option<&Supplied>,
) -> Result<Answer, RequestError> {
    let input_shape = Supplied::shape_of(input);
    let present = match diff {
        Some(d) => d.is_present(),
        None if action.is_none() => ctx.diff()?.is_present(),
        None => false,
    };
    let facts = Facts {
        diff: present,
        input: input_shape,
    };
    let mut fallback = routing::fallback(
        action.filter(|a| matches!(a, Action::CodeChange | Action::ExternalAction)),
        facts,
        input.is_some(),
        ctx.budget.exhausted(),
    );
    // Input too large to send whole: say what was left out, since it may be why.
    if let Some(note) = input.and_then(|i| {
        stanley_workflows::triage::logs::left_out(&i.text)
            .into_iter()
            .next()
    }) {
        fallback
            .text
            .push_str(&format!(" Of the supplied input, {note}."));
    }
    Ok(success(
        fallback.status,
        &json!({"text": fallback.text, "data": fallback.data}),
    ))
}

async fn serve(
    state: &DaemonState,
    request: PromptRequest,
    settings: &RequestSettings,
    cancel: Cancel,
    events: Events,
    redactor: Arc<SecretRedactor>,
    track: Track,
) -> Result<Answer, RequestError> {
    let text = request_text(&request)?;
    let mut ctx = context(state, &request, settings, cancel, redactor)?;
    ctx.tally = track.tally;
    ctx.run_slot = track.run;
    let input = read_input(
        &state.config().files.root,
        request.input.clone(),
        ctx.triage_parsers,
        &ctx.cancel,
    )
    .await?;
    ctx.input_file = input.as_ref().and_then(|i| i.file.clone());
    let input_shape = Supplied::shape_of(input.as_ref());
    let action = classify_action(&text);
    let agent = agent_for(state, settings, request.no_agent);
    let builtins: Vec<&Builtin> = BUILTINS.iter().filter(|b| b.implemented).collect();
    let repo = repository::refresh(state, settings).await;
    announce(state, &repo, &events).await;
    repository::register(&builtins, &repo.workflows)?;
    if agent.is_some() {
        state
            .improve()
            .kick_if_pending(settings.auto_improve, &settings.env);
    }
    let builtin_ids: Vec<&str> = builtins.iter().map(|b| b.id).collect();
    let mut diff: Option<Arc<DiffSource>> = None;
    let routed = if action.is_some() && repo.workflows.is_empty() {
        Routed {
            selected: None,
            reason: RouteReason::Skipped,
            unavailable: None,
        }
    } else {
        events.progress("routing", 0, 1).await;
        let source = ctx.diff()?;
        let facts = Facts {
            diff: source.is_present(),
            input: input_shape,
        };
        diff = Some(source);
        let candidates = candidates_for(&ctx, &builtins, &repo, facts).await;
        route(&ctx, &text, facts, &candidates, &builtin_ids, action).await?
    };
    let Routed {
        selected,
        reason,
        unavailable,
    } = routed;
    // A diff workflow picked with no change at all: say there is nothing to look at.
    // Its gate says which built-in needs a diff.
    let needs_diff = |id: &str| {
        builtins
            .iter()
            .any(|b| b.id == id && b.gate == stanley_workflows::registry::Gate::DiffPresent)
    };
    if let (Some(id), Some(source)) = (unavailable.as_deref(), diff.as_ref())
        && needs_diff(id)
        && !source.is_present()
        && input.is_none()
    {
        let answer = routing::nothing_to_look_at(id, ctx.scope.as_str());
        return Ok(success(
            answer.status,
            &json!({"text": answer.text, "data": answer.data}),
        ));
    }
    tracing::info!(
        reason = reason.as_str(),
        selected = selected.as_deref().unwrap_or("-"),
        "routed"
    );
    let budget_left = ctx.budget.exhausted().is_none();
    match next_step(
        selected.as_deref(),
        reason,
        action,
        agent.is_some(),
        budget_left,
    ) {
        Next::Run(id) => {
            let asked = Asked {
                text: &text,
                input: input.as_ref(),
                events: &events,
            };
            run_selected(&ctx, id, asked, &builtins, &repo, diff).await
        }
        Next::Delegate => match &agent {
            Some(agent) => delegate(&ctx, agent, &text, input.as_ref(), &events).await,
            None => Err(RequestError::internal("delegation without an agent")),
        },
        Next::CodeChangeFallback => code_change_fallback(&ctx, &text, reason, &events).await,
        Next::Unrouted => unrouted(&ctx, action, diff.as_deref(), input.as_ref()),
    }
}

/// What a request does once routed.
#[derive(Debug, PartialEq, Eq)]
enum Next<'a> {
    /// Run the selected workflow.
    Run(&'a str),
    /// Hand it to the coding agent: an action, or a request routing could not place.
    Delegate,
    /// A code change with no agent: the read-only `find` for the code it would touch.
    CodeChangeFallback,
    /// The documented fallback text.
    Unrouted,
}

/// The delegation rule: a selected workflow runs; otherwise an action or a `cannot_tell` goes
/// to the agent when there is one and budget left; a code change without one gets `find`.
fn next_step(
    selected: Option<&str>,
    reason: RouteReason,
    action: Option<Action>,
    agent: bool,
    budget_left: bool,
) -> Next<'_> {
    if let Some(id) = selected {
        return Next::Run(id);
    }
    if agent && budget_left && (action.is_some() || reason == RouteReason::CannotTell) {
        return Next::Delegate;
    }
    if action == Some(Action::CodeChange) && budget_left {
        return Next::CodeChangeFallback;
    }
    Next::Unrouted
}

/// Hands the request to the coding agent, guarding `.stanley/workflows/` while it runs.
async fn delegate(
    ctx: &Ctx<'_>,
    agent: &PiAgent,
    request: &str,
    input: Option<&Supplied>,
    events: &Events,
) -> Result<Answer, RequestError> {
    let root = &ctx.state.config().files.root;
    let before = guard::fingerprint(root);
    let instructions = delegation_instructions(request, input.map(|i| i.text.as_str()));
    let progress_tx = events.tx.clone();
    let started = std::time::Instant::now();
    let progress: AgentProgress = Box::new(move |tool_calls| {
        let event = prompt_response::Event::Progress(v1::Progress {
            phase: format!("coding agent ({}s)", started.elapsed().as_secs()),
            done: tool_calls as u32,
            total: 0,
        });
        let _ = progress_tx.try_send(Ok(PromptResponse { event: Some(event) }));
    });
    if let Some(dir) = agent.shared_above() {
        events
            .warning(format!(
                "the repository is inside {}, where other users can add files: the coding agent runs without AGENTS.md/CLAUDE.md and skills discovery",
                dir.display()
            ))
            .await;
    }
    // What the agent runs without, said before it starts (a refusal is the run's own failure).
    if let Ok(launch) = agent.launch() {
        for note in &launch.notes {
            events.warning(note).await;
        }
    }
    events.progress("coding agent", 0, 0).await;
    let result = agent
        .run(&instructions, AGENT_TIMEOUT, ctx.cancel.clone(), progress)
        .await;
    if ctx.cancel.is_cancelled() {
        return Err(RequestError::aborted());
    }
    tracing::info!(
        outcome = result.outcome.as_str(),
        tool_calls = result.tool_calls,
        duration_ms = result.duration_ms,
        "delegated"
    );
    let after = guard::fingerprint(root);
    let changes = guard::changes(&before, &after);
    let mut quarantine_dir = String::new();
    if !changes.added.is_empty() {
        let stamp = stanley_workflows::time::compact(SystemClock.now());
        quarantine_dir = guard::quarantine(root, &changes.added, &stamp).map_err(|e| {
            RequestError::context(
                crate::error::Refusal::Internal,
                "cannot quarantine the agent's workflow files",
                e,
            )
        })?;
    }
    let caveats = guard_caveats(&changes, &quarantine_dir);
    for caveat in &caveats {
        events.warning(caveat).await;
    }
    // Queue an improvement job from the redacted request, durably, before answering.
    let redacted = ctx.redactor.text(request).0;
    let job = Job::new(
        &redacted,
        Supplied::shape_of(input),
        stanley_workflows::time::Stamp(stanley_workflows::time::Timestamp::now()),
    );
    match ctx.state.improve().store().map(|q| q.enqueue(&job)) {
        Some(Ok(enqueued)) => {
            tracing::info!(job = %job.id, ?enqueued, "improvement job");
            events
                .notice(format!(
                    "delegated to the coding agent; {}",
                    enqueued.note(&job.id)
                ))
                .await;
        }
        Some(Err(e)) => {
            events.notice("delegated to the coding agent").await;
            events
                .warning(format!("no improvement job was queued: {e}"))
                .await;
        }
        None => {
            events.notice("delegated to the coding agent").await;
            events
                .warning(format!(
                    "no improvement job was queued: {}",
                    ctx.state.improve().unavailable()
                ))
                .await;
        }
    }
    let (status, output) = delegated_result(&result, &caveats, ctx.redactor.as_ref());
    Ok(success(status, &output))
}

/// An implement or fix request with no agent: a read-only `find` for the code the change would
/// touch, reported as `unsupported`.
async fn code_change_fallback(
    ctx: &Ctx<'_>,
    request: &str,
    reason: RouteReason,
    events: &Events,
) -> Result<Answer, RequestError> {
    let task =
        format!("Identify repository code relevant to planning this requested change: {request}");
    let plan = stanley_workflows::builtin::code_change_find(&task)?;
    let packet = run_plan(ctx, "find", plan.as_ref(), None, events).await?;
    let analysis = packet.into_output();
    let text = format!(
        "{}\n\n{}",
        routing::FIND_FALLBACK_NOTICE,
        analysis["text"].as_str().unwrap_or("").trim_end()
    );
    let data = json!({"reason": reason.as_str(), "requested": "code_change", "analysis": analysis});
    Ok(success(
        Status::Unsupported,
        &json!({"text": text, "data": data}),
    ))
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
