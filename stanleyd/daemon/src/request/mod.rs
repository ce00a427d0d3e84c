//! A request's path through the daemon, in the order it takes it, and the values every step
//! shares: its settings, Jev executor, budget, cache use and run slot ([`Ctx`]), the events sent
//! back to the client, the input it was given, and the answer it ends with.

// One request, start to finish: settings, input, routing or an action, delegation, the result.
pub(crate) mod prompt;
// The candidates a request can go to and the routing decision (also for nested prompts and the
// worker's check).
pub(crate) mod router;
// A built-in's plan and run on the diff evidence.
pub(crate) mod builtin;
// A repository workflow's run, with its nested `prompt`, `judge` and `log`.
pub(crate) mod compose;
// The warm workflow host and the one registry, reloaded when `.stanley/workflows/` changes.
pub(crate) mod repository;

use std::sync::Arc;

use serde_json::Value;
use stanley_adapters::redact::{redacting, safe_message};
use stanley_adapters::{FsRecorder, SecretRedactor};
use stanley_core::{
    Budget, CacheUse, Cancel, Cancelled, Executor, ExecutorOptions, Jev, Pace, Status, Tally,
    TroubleCell,
};
use stanley_proto::v1::{self, PromptResponse, prompt_response};
use stanley_workflows::diff::{DiffSource, Scope};
use stanley_workflows::ports::{NoRecords, Redactor, RunRecorder};
use stanley_workflows::routing::{InputShape, Reading};
use stanley_workflows::runs::RunId;
use stanley_workflows::triage::logs::Parsers;
use tokio::sync::mpsc;

use crate::error::RequestError;
use crate::runs::RunSlot;
use crate::settings::RequestSettings;
use crate::state::DaemonState;

/// Longest request accepted, in UTF-8 bytes.
pub(crate) const MAX_REQUEST_BYTES: usize = 16_384;
/// Largest input accepted (5 MiB).
pub(crate) const MAX_INPUT_BYTES: u64 = stanley_proto::window::MAX_INPUT_BYTES as u64;
/// Longest error or warning line shown.
pub(crate) const MAX_MESSAGE_CHARS: usize = 300;

/// How a request ended when it did not fail: its status and its output, as domain values; the
/// gRPC service alone turns them into a `v1::Result` (`prompt::to_result`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Answer {
    pub(crate) status: Status,
    pub(crate) output: Value,
    /// The workflow that ran, and its run record's id (empty for fallbacks).
    pub(crate) workflow: String,
    pub(crate) run_id: Option<RunId>,
    /// A built-in's report with every item listed (`--verbose`); `None` when it is the text.
    pub(crate) verbose: Option<String>,
}

pub(crate) fn success(status: Status, output: &Value) -> Answer {
    Answer {
        status,
        output: output.clone(),
        workflow: String::new(),
        run_id: None,
        verbose: None,
    }
}

impl Answer {
    /// The same answer, naming the workflow that gave it.
    pub(crate) fn by(mut self, workflow: &str) -> Self {
        if self.workflow.is_empty() {
            self.workflow = workflow.to_owned();
        }
        self
    }
}

/// Sends events for one request; a closed stream is ignored (the request is being cancelled).
/// Warning and notice lines are redacted and cut to [`MAX_MESSAGE_CHARS`] here, whatever they
/// carry.
#[derive(Clone)]
pub(crate) struct Events {
    pub(crate) tx: mpsc::Sender<Result<PromptResponse, tonic::Status>>,
    pub(crate) redactor: Arc<SecretRedactor>,
}

impl Events {
    pub(crate) async fn warning(&self, line: impl AsRef<str>) {
        let line = self.safe(line.as_ref());
        self.send(prompt_response::Event::Warning(v1::Warning { line }))
            .await;
    }

    pub(crate) async fn notice(&self, line: impl AsRef<str>) {
        let line = self.safe(line.as_ref());
        self.send(prompt_response::Event::Notice(v1::Notice { line }))
            .await;
    }

    /// A line redacted and cut to the message bound.
    fn safe(&self, line: &str) -> String {
        safe_message(self.redactor.as_ref(), line, MAX_MESSAGE_CHARS)
    }

    /// Sends an event; a client that has gone away is not an error here.
    async fn send(&self, event: prompt_response::Event) {
        let _ = self
            .tx
            .send(Ok(PromptResponse { event: Some(event) }))
            .await;
    }

    pub(crate) async fn progress(&self, phase: &str, done: u32, total: u32) {
        let _ = self.tx.send(progress_event(phase, done, total)).await;
    }

    /// A progress callback for an executor: `done` advances as frames finish, and `total` is
    /// `planned` or the frames asked so far, whichever is larger. A full stream skips a tick
    /// (the next one carries the newer count).
    pub(crate) fn progress_callback(&self, phase: &str, planned: u32) -> stanley_core::Progress {
        let tx = self.tx.clone();
        let phase = phase.to_owned();
        Arc::new(move |done, asked| {
            let total = u32::try_from(asked).unwrap_or(u32::MAX).max(planned);
            let done = u32::try_from(done).unwrap_or(u32::MAX).min(total);
            let _ = tx.try_send(progress_event(&phase, done, total));
        })
    }
}

fn progress_event(phase: &str, done: u32, total: u32) -> Result<PromptResponse, tonic::Status> {
    let event = prompt_response::Event::Progress(v1::Progress {
        phase: phase.into(),
        done,
        total,
    });
    Ok(PromptResponse { event: Some(event) })
}

/// The input of a request, as text and as the value handed to workflows.
pub(crate) struct Supplied {
    pub(crate) text: String,
    /// `stdin`, or the repository-relative path it was read from.
    pub(crate) source: String,
    /// The repository-relative file it was read from (None for stdin and nested prompts).
    pub(crate) file: Option<String>,
    /// Its shape and the failure log it parses as, read once for the whole request.
    pub(crate) reading: Reading,
}

impl Supplied {
    /// Reads `text` once for the request (its shape, the failure log it parses as) on a
    /// blocking thread, so that a long parse holds none of the runtime's two threads; `cancel`
    /// ends the parse at its next check (D-162). A cancelled request answers at once, whether
    /// or not the parse has reached its check yet (on a loaded machine the thread may not run
    /// for a while, and the daemon's drain does not wait for it: D-246).
    pub(crate) async fn read(
        text: String,
        source: String,
        file: Option<String>,
        parsers: Parsers,
        cancel: &Cancel,
    ) -> Result<Self, RequestError> {
        let paced = cancel.clone();
        let parse = tokio::task::spawn_blocking(move || {
            Reading::of(&text, parsers, &Pace::new(&paced)).map(|reading| Supplied {
                text,
                source,
                file,
                reading,
            })
        });
        let done = tokio::select! {
            done = parse => done,
            () = cancel.cancelled() => return Err(RequestError::aborted()),
        };
        done.map_err(|e| {
            RequestError::context(
                crate::error::Refusal::Internal,
                "reading the input failed",
                e,
            )
        })?
        .map_err(|Cancelled| RequestError::aborted())
    }

    /// The input's shape, when there is an input.
    pub(crate) fn shape_of(input: Option<&Supplied>) -> InputShape {
        input.map_or(InputShape::None, |i| i.reading.shape)
    }
}

/// Everything one request shares once its settings are read.
pub(crate) struct Ctx<'a> {
    pub(crate) state: &'a DaemonState,
    pub(crate) cancel: Cancel,
    pub(crate) jev: Arc<dyn Jev>,
    pub(crate) model: String,
    pub(crate) redactor: Arc<SecretRedactor>,
    pub(crate) budget: Arc<Budget>,
    pub(crate) scope: Scope,
    pub(crate) base: Option<String>,
    pub(crate) no_persist: bool,
    /// Where every executor of the request records Jev trouble.
    pub(crate) trouble: TroubleCell,
    /// The System One API root, named when Jev cannot be reached.
    pub(crate) base_url: String,
    /// The request's input file (repository-relative), which is not part of the change.
    pub(crate) input_file: Option<String>,
    /// What every executor of the request sent and took from the cache.
    pub(crate) tally: Tally,
    /// The judgment cache, unless the request turned it off.
    pub(crate) cache: Option<CacheUse>,
    /// Where a built-in says which run folder it opened.
    pub(crate) run_slot: RunSlot,
    /// Which parsers read a failure log.
    pub(crate) triage_parsers: Parsers,
    /// A digest of what the request's answers depend on besides the built-in, its text and the
    /// diff (its environment, model, budget and Jev endpoint); `None` when the request does not
    /// use the judgment cache, so nothing of it is remembered.
    pub(crate) settings_digest: Option<String>,
}

impl Ctx<'_> {
    /// The request's diff; a request cancelled while Git works on it (its client gone, the
    /// daemon stopping) ends as aborted, whatever the port says then.
    pub(crate) fn diff(&self) -> Result<Arc<DiffSource>, RequestError> {
        self.state
            .git()
            .diff_until(
                self.scope,
                self.base.as_deref(),
                self.input_file.as_deref(),
                &self.cancel,
            )
            .map_err(|e| {
                if self.cancel.is_cancelled() {
                    RequestError::aborted()
                } else {
                    RequestError::from(e)
                }
            })
    }

    /// An executor whose requests and error details are redacted.
    pub(crate) fn executor(&self, opts: ExecutorOptions) -> Executor {
        let mut opts = redacting(opts, self.redactor.clone())
            .trouble(self.trouble.clone())
            .tally(self.tally.clone())
            .spread(std::sync::Arc::new(on_the_runtime));
        if let Some(cache) = &self.cache {
            opts = opts.cache(cache.clone());
        }
        if let Some(cap) = self.state.config().jev_timeout_cap {
            opts = opts.cap_timeout(cap);
        }
        Executor::new(
            Some(self.jev.clone()),
            self.budget.clone(),
            opts,
            self.cancel.clone(),
        )
    }
}

/// A frame's work as a task of its own on the runtime (D-200), so that the frames of one
/// request share the runtime's threads (a cache hit is all CPU: its lookup, checks and record);
/// awaited where it is asked, and aborted when nothing waits for it any more (the request was
/// dropped). Outside a multi-threaded runtime it runs where it is awaited.
fn on_the_runtime(
    frame_id: stanley_core::FrameId,
    work: stanley_core::BoxFuture<'static, stanley_core::FrameOutcome>,
) -> stanley_core::BoxFuture<'static, stanley_core::FrameOutcome> {
    use tokio::runtime::{Handle, RuntimeFlavor};
    let Ok(handle) = Handle::try_current() else {
        return work;
    };
    if handle.runtime_flavor() != RuntimeFlavor::MultiThread {
        return work;
    }
    let task = AbortOnDrop(handle.spawn(work));
    Box::pin(async move {
        let mut task = task;
        match (&mut task.0).await {
            Ok(outcome) => outcome,
            Err(e) => {
                if e.is_panic() {
                    tracing::error!(frame = %frame_id, "a frame's work panicked");
                }
                let reason = if e.is_cancelled() {
                    stanley_core::FailReason::Aborted
                } else {
                    stanley_core::FailReason::Failed
                };
                Err(stanley_core::FrameFailure {
                    frame_id,
                    reason,
                    detail: "the frame's task ended without an outcome".into(),
                })
            }
        }
    })
}

/// A spawned frame's handle that aborts its task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<stanley_core::FrameOutcome>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// How a request uses the judgment cache: not at all with `STANLEY_CACHE=off`, read-only with
/// `no_persist` (it leaves nothing behind).
pub(crate) fn cache_use(
    state: &DaemonState,
    settings: &RequestSettings,
    no_persist: bool,
    endpoint: &str,
) -> Option<CacheUse> {
    let cache = state.caches().local().filter(|_| settings.cache)?;
    Some(CacheUse {
        cache,
        remote: state
            .caches()
            .team()
            .for_request(settings.team_cache.as_ref()),
        write: !no_persist,
        endpoint: endpoint.trim_end_matches('/').to_owned(),
    })
}

/// The run's recorder. A link planted under `.stanley/` refuses the request (the repository's
/// fault); any other failure (a full disk) runs it without records, and the request says so.
pub(crate) async fn recorder(
    ctx: &Ctx<'_>,
    id: &RunId,
    events: &Events,
) -> Result<Arc<dyn RunRecorder>, RequestError> {
    if ctx.no_persist {
        return Ok(Arc::new(NoRecords));
    }
    let redactor: Arc<dyn Redactor> = ctx.redactor.clone();
    match FsRecorder::create(&ctx.state.config().files.root, id, redactor) {
        Ok(r) => Ok(Arc::new(r)),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Err(RequestError::input(
            format!("cannot write run records: {e}"),
        )),
        Err(e) => {
            tracing::warn!(error = %e, "run records off for this request");
            events
                .warning(format!(
                    "run records could not be written ({e}); the result is not recorded"
                ))
                .await;
            Ok(Arc::new(NoRecords))
        }
    }
}
