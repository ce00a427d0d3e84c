//! The frame executor: sends frames to the Jev port under one budget with de-duplication by
//! frame id, bounded concurrency, retries (backoff on transient failures, at once on invalid
//! answers), an auth failure that disables the port, cancellation, usage counters, and the
//! judgment cache (a frame whose exact request was answered before is answered from it).

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use futures::future::Shared;
use futures::stream::{self, StreamExt};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::budget::{Budget, BudgetPlan, Denial};
use crate::cache::{CacheKey, CacheUse, CachedAnswers, Level, Tally};
use crate::cancel::Cancel;
use crate::hash::{Field, StableJson, short_id, stable_bytes, stable_hash_object};
use crate::jev::{
    Answers, BoxFuture, ErrorClass, Failure, Jev, JevError, JevRequest, JevTrouble, Questions,
};
use crate::validate;

/// One Jev request a workflow builds: template, scope, state, questions and provenance.
#[derive(Clone, Debug)]
pub struct Frame {
    /// `name@version` of the frame template.
    pub template: String,
    /// What the frame is about (a hunk id, `cli-request`, …).
    pub scope: String,
    /// The state the questions are asked about.
    pub state: Value,
    /// The questions.
    pub questions: Questions,
    /// References to the evidence the state was built from (records only; never sent).
    pub provenance: Value,
}

/// A frame's id: `f_` and the first 16 hex digits of the hash of its content, made only by
/// [`Frame::id`] (and [`FrameId::of_digest`] from the same hash), so it is never text from
/// elsewhere.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(transparent)]
pub struct FrameId(String);

impl FrameId {
    /// The id of the frame whose content hashes to `digest` (hex).
    pub fn of_digest(digest: &str) -> FrameId {
        FrameId(short_id("f", digest, 16))
    }

    /// Its text, as records write it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for FrameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Frame {
    /// `f_` + 16 hex of the stable hash of `{template, scope, state, questions}`.
    pub fn id(&self) -> FrameId {
        let written = Written::of(self);
        FrameId::of_digest(&self.digest_written(&written))
    }

    /// The whole SHA-256 (hex) of the frame's content, `{template, scope, state, questions}`
    /// as stable JSON, from its state and questions already written: its id is the first 16
    /// digits, and its redaction is remembered by all of them.
    fn digest_written(&self, written: &Written) -> String {
        stable_hash_object(&[
            ("template", Field::Str(&self.template)),
            ("scope", Field::Str(&self.scope)),
            ("state", Field::Raw(&written.state)),
            ("questions", Field::Raw(&written.questions)),
        ])
    }
}

/// A frame whose state its workflow wrote as stable JSON from a typed struct (D-230): the tree
/// is built only if the request must be rewritten or sent, never for a cache hit. Its `frame`'s
/// own `state` is not read.
pub struct WrittenFrame {
    /// Template, scope, questions and provenance.
    pub frame: Frame,
    /// The state.
    pub state: StableJson,
}

/// A frame's state and questions written once as stable JSON (D-175): its estimate, its id and,
/// when redaction changed nothing, its judgment cache key are made from these bytes, so a
/// frame's text is serialized once on its way to the cache. The questions are written from
/// their typed form, and a [`WrittenFrame`]'s state came written (D-230).
struct Written {
    state: Vec<u8>,
    questions: Vec<u8>,
    /// Whether the frame's state is only here (its tree is built when needed).
    state_only_written: bool,
}

impl Written {
    fn of(frame: &Frame) -> Self {
        Self {
            state: stable_bytes(&frame.state),
            questions: frame.questions.stable_bytes(),
            state_only_written: false,
        }
    }

    fn of_written(frame: &Frame, state: StableJson) -> Self {
        Self {
            state: state.into_bytes(),
            questions: frame.questions.stable_bytes(),
            state_only_written: true,
        }
    }
}

/// How many responses in a row, across frames, may bring answers that do not fit their
/// questions before the executor stops asking: a frame's retries count, and frames in flight
/// are not retried once it stops.
pub const INVALID_ANSWERS_IN_A_ROW: u32 = 8;

crate::words! {
    /// How one attempt at a frame ended, as `frames.ndjson` records it: answered, answered from
    /// the local cache or the team's, refused as not fitting its questions, or the transport's
    /// class of failure.
    pub enum AttemptResult {
        Ok = "ok",
        Cached = "cached",
        Remote = "remote",
        Invalid = "invalid",
        Aborted = "aborted",
        Auth = "auth",
        TooLarge = "too_large",
        Transient = "transient",
        Rejected = "rejected",
        Unknown = "unknown",
    }
}

impl From<ErrorClass> for AttemptResult {
    fn from(class: ErrorClass) -> Self {
        match class {
            ErrorClass::Aborted => Self::Aborted,
            ErrorClass::Auth => Self::Auth,
            ErrorClass::TooLarge => Self::TooLarge,
            ErrorClass::Transient => Self::Transient,
            ErrorClass::Rejected => Self::Rejected,
            ErrorClass::Unknown => Self::Unknown,
        }
    }
}

/// Why a frame failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailReason {
    /// No port, or the port was disabled by an auth failure.
    Unavailable,
    /// The budget refused a reservation.
    Budget,
    /// The answers were invalid after every retry.
    Invalid,
    /// The request was too large.
    TooLarge,
    /// Transport failure after every retry, or a rejected request.
    Failed,
    /// The request was cancelled.
    Aborted,
}

impl FailReason {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FailReason::Unavailable => "unavailable",
            FailReason::Budget => "budget",
            FailReason::Invalid => "invalid",
            FailReason::TooLarge => "too_large",
            FailReason::Failed => "failed",
            FailReason::Aborted => "aborted",
        }
    }

    /// Whether a workflow counts the candidate as `unjudged` (rather than `failed`).
    pub fn is_unjudged(self) -> bool {
        matches!(
            self,
            FailReason::Unavailable | FailReason::Budget | FailReason::Aborted
        )
    }
}

/// A frame's validated answers.
#[derive(Clone, Debug)]
pub struct FrameOk {
    /// The frame's id.
    pub frame_id: FrameId,
    /// The validated answers.
    pub answers: Answers,
    /// The model that answered.
    pub model: String,
    /// Whether the answers came from the judgment cache.
    pub cached: bool,
}

/// A frame that got no valid answer.
#[derive(Clone, Debug)]
pub struct FrameFailure {
    /// The frame's id.
    pub frame_id: FrameId,
    /// Why.
    pub reason: FailReason,
    /// A redacted, human-readable detail.
    pub detail: String,
}

/// The outcome of one frame.
pub type FrameOutcome = Result<FrameOk, FrameFailure>;

/// Whether Jev was needed, used, or refused the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JevStatus {
    /// No request was sent and no answer came from the cache.
    NotNeeded,
    /// At least one request was sent, or answered from the cache.
    Used,
    /// The key was refused.
    Unavailable,
}

/// Usage counters of one executor (the packet's `jev`).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Whether Jev was used (asked, or its answers served from the cache).
    pub status: JevStatus,
    /// The model asked for.
    pub requested_model: String,
    /// The models that answered, sorted and unique.
    pub resolved_models: BTreeSet<String>,
    /// Attempts sent.
    pub requests: u64,
    /// Attempts that failed in transport.
    pub failed_requests: u64,
    /// Responses refused by validation.
    pub invalid_responses: u64,
    /// Reported input tokens.
    pub input_tokens: u64,
    /// Reported output tokens.
    pub output_tokens: u64,
    /// Summed latency of all attempts.
    pub latency_ms: u64,
    /// Frames answered from the judgment cache (no request sent).
    pub cached: u64,
    /// Of those, frames answered from the team's shared level.
    pub remote: u64,
    /// Input tokens those answers cost when they were first asked.
    pub cached_input_tokens: u64,
    /// Output tokens those answers reported when they were first asked.
    pub cached_output_tokens: u64,
}

impl Usage {
    /// The run record's `jev`: the counters, with the estimated cost of what was sent and what
    /// the cache saved at list price (null when a model has none).
    pub fn record(&self) -> Value {
        use crate::cache::cost_usd;
        let mut value = serde_json::to_value(self).unwrap_or_default();
        value["estimatedCostUsd"] = json!(cost_usd(&self.resolved_models, self.input_tokens));
        value["savedCostUsd"] = json!(cost_usd(&self.resolved_models, self.cached_input_tokens));
        value
    }
}

/// One attempt, as handed to a `FrameSink` (the run recorder writes it to `frames.ndjson`).
#[derive(Clone, Debug)]
pub struct AttemptRecord {
    /// The frame's id.
    pub frame_id: FrameId,
    /// The frame's template.
    pub template: String,
    /// The frame's scope.
    pub scope: String,
    /// The frame's provenance.
    pub provenance: Value,
    /// 1-based attempt number (0 for an answer from a cache).
    pub attempt: u32,
    /// The model name the frame asked for.
    pub requested_model: String,
    /// The request as sent: its state and questions as the JSON object `{"state", "questions"}`,
    /// written once after `prepare` and shared by every attempt's record; None for an answer
    /// from a cache, which sent nothing and names the key it was kept under instead
    /// (`cache_key`).
    pub request: Option<Arc<RawValue>>,
    /// Whether `prepare` (redaction) saw the request before it was written: only then may a
    /// record keep its text as it is rather than scan it again (D-175).
    pub prepared: bool,
    /// The judgment cache key a cached answer was found under (the hash of the redacted request
    /// it answers, D-89).
    pub cache_key: Option<String>,
    /// How the attempt ended (set by what ends it).
    pub result: AttemptResult,
    /// Latency of this attempt.
    pub latency_ms: u64,
    /// The model that answered.
    pub resolved_model: Option<String>,
    /// Reported `(input, output)` tokens.
    pub usage: Option<(u64, u64)>,
    /// The raw response body.
    pub response: Option<Value>,
    /// The validated answers.
    pub parsed: Option<Value>,
    /// The (redacted) error.
    pub error: Option<String>,
}

/// A request's state and questions as the JSON object a record keeps (`{"state", "questions"}`).
fn written_request(request: &JevRequest) -> Option<Arc<RawValue>> {
    #[derive(Serialize)]
    struct Sent<'a> {
        state: &'a Value,
        questions: &'a Value,
    }
    serde_json::value::to_raw_value(&Sent {
        state: &request.state,
        questions: &request.questions,
    })
    .ok()
    .map(Arc::from)
}

/// Receives attempt records and budget events.
pub trait FrameSink: Send + Sync {
    /// One attempt finished; the record is the sink's (its request is the largest part, and
    /// need not be copied).
    fn attempt(&self, record: AttemptRecord);
    /// A reservation was refused.
    fn budget_exhausted(&self, frame_id: &FrameId, limit: Denial);
}

/// What a request passes through before it is looked up or sent (redaction). Both parts are
/// given the SHA-256 (hex) of the frame's content as built (template, scope, state and
/// questions as stable JSON): `known_clean` says a request with that content was found to need
/// nothing (then its tree is not even built, D-230), `rewrite` rewrites a request in place and
/// returns how many replacements it made, and may remember one it found clean.
#[derive(Clone)]
pub struct Prepare {
    known_clean: Arc<dyn Fn(&str) -> bool + Send + Sync>,
    rewrite: Arc<Rewrite>,
}

/// Rewrites a request in place, given its content's digest; the replacements made.
type Rewrite = dyn Fn(&mut JevRequest, &str) -> u64 + Send + Sync;

impl Prepare {
    /// A hook from its two parts.
    pub fn new(
        known_clean: impl Fn(&str) -> bool + Send + Sync + 'static,
        rewrite: impl Fn(&mut JevRequest, &str) -> u64 + Send + Sync + 'static,
    ) -> Self {
        Self {
            known_clean: Arc::new(known_clean),
            rewrite: Arc::new(rewrite),
        }
    }

    /// A hook that knows no request clean: every request is rewritten.
    pub fn rewriting(
        rewrite: impl Fn(&mut JevRequest, &str) -> u64 + Send + Sync + 'static,
    ) -> Self {
        Self::new(|_| false, rewrite)
    }

    /// Whether a request with content `digest` is known to need nothing.
    pub fn known_clean(&self, digest: &str) -> bool {
        (self.known_clean)(digest)
    }

    /// Rewrites `request` (content `digest`), unless it is known clean; the replacements made.
    pub fn apply(&self, request: &mut JevRequest, digest: &str) -> u64 {
        if self.known_clean(digest) {
            return 0;
        }
        (self.rewrite)(request, digest)
    }
}
/// Redacts a diagnostic message.
pub type RedactText = Arc<dyn Fn(&str) -> String + Send + Sync>;
/// Told `(finished, asked)` each time a distinct frame finishes, so a caller can show progress.
pub type Progress = Arc<dyn Fn(u64, u64) + Send + Sync>;
/// Runs a frame's work elsewhere and gives back a future of its outcome (the daemon: a task of
/// its own on the runtime's threads, so a request's frames share them, D-200), given the
/// frame's id. Without one, a frame's work runs where its outcome is awaited.
pub type Spread = Arc<
    dyn Fn(FrameId, BoxFuture<'static, FrameOutcome>) -> BoxFuture<'static, FrameOutcome>
        + Send
        + Sync,
>;

/// Executor settings; use `ExecutorOptions::new` and the builder methods, which clamp.
#[derive(Clone)]
pub struct ExecutorOptions {
    model: String,
    concurrency: usize,
    retries: u32,
    timeout: Duration,
    prepare: Option<Prepare>,
    redact: Option<RedactText>,
    sink: Option<Arc<dyn FrameSink>>,
    progress: Option<Progress>,
    spread: Option<Spread>,
    trouble: TroubleCell,
    cache: Option<CacheUse>,
    tally: Option<Tally>,
}

/// The first Jev trouble seen by any executor that shares this cell (one per request), so the
/// request can say that Jev failed rather than that nothing matched.
#[derive(Clone, Debug, Default)]
pub struct TroubleCell(Arc<std::sync::Mutex<Option<JevTrouble>>>);

impl TroubleCell {
    /// Records `trouble` unless one is already recorded.
    pub fn record(&self, trouble: JevTrouble) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(trouble);
        }
    }

    /// The trouble recorded, if any.
    pub fn get(&self) -> Option<JevTrouble> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl ExecutorOptions {
    /// Defaults: concurrency 4, retries 2, a 30 s per-request timeout.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            concurrency: 4,
            retries: 2,
            timeout: Duration::from_secs(30),
            prepare: None,
            redact: None,
            sink: None,
            progress: None,
            spread: None,
            trouble: TroubleCell::default(),
            cache: None,
            tally: None,
        }
    }

    /// The judgment cache answers frames asked before (and keeps new answers when it may).
    #[must_use]
    pub fn cache(mut self, cache: CacheUse) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Where the request's usage is summed (shared by the executors of one request).
    #[must_use]
    pub fn tally(mut self, tally: Tally) -> Self {
        self.tally = Some(tally);
        self
    }

    /// Lowers the per-request timeout to at most `max` (still at least 1 s).
    #[must_use]
    pub fn cap_timeout(mut self, max: Duration) -> Self {
        self.timeout = self.timeout.min(max).max(Duration::from_secs(1));
        self
    }

    /// Where Jev trouble is recorded (shared by the executors of one request).
    #[must_use]
    pub fn trouble(mut self, cell: TroubleCell) -> Self {
        self.trouble = cell;
        self
    }

    /// Concurrent frames, clamped to 1..=256 (the Jev port may hold them to fewer: the HTTP
    /// client's window adapts to the server's limit).
    #[must_use]
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.clamp(1, 256);
        self
    }

    /// Retries after the first attempt, clamped to 0..=5.
    #[must_use]
    pub fn retries(mut self, n: u32) -> Self {
        self.retries = n.min(5);
        self
    }

    /// Per-request timeout, clamped to 1 s..=120 s.
    #[must_use]
    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = t.clamp(Duration::from_secs(1), Duration::from_secs(120));
        self
    }

    /// The request rewrite applied before sending and recording.
    #[must_use]
    pub fn prepare(mut self, prepare: Prepare) -> Self {
        self.prepare = Some(prepare);
        self
    }

    /// The rewrite applied to every request, if one is set.
    pub fn prepare_hook(&self) -> Option<&Prepare> {
        self.prepare.as_ref()
    }

    /// The redaction applied to error details.
    #[must_use]
    pub fn redact(mut self, redact: RedactText) -> Self {
        self.redact = Some(redact);
        self
    }

    /// Where attempt records go.
    #[must_use]
    pub fn sink(mut self, sink: Arc<dyn FrameSink>) -> Self {
        self.sink = Some(sink);
        self
    }

    /// Where each frame's work runs ([`Spread`]).
    #[must_use]
    pub fn spread(mut self, spread: Spread) -> Self {
        self.spread = Some(spread);
        self
    }

    /// What is told each time a distinct frame finishes.
    #[must_use]
    pub fn progress(mut self, progress: Progress) -> Self {
        self.progress = Some(progress);
        self
    }
}

struct State {
    disabled: Option<&'static str>,
    /// Responses whose answers did not fit their questions, since the last one that did.
    invalid_in_a_row: u32,
    usage: Usage,
    redactions: u64,
    frames: HashMap<FrameId, Shared<BoxFuture<'static, FrameOutcome>>>,
    finished: u64,
}

struct Inner {
    jev: Option<Arc<dyn Jev>>,
    budget: Arc<Budget>,
    opts: ExecutorOptions,
    cancel: Cancel,
    /// Fired when the port is disabled while frames wait for it (a refused key, answers that
    /// do not fit): what waits in the port's window is not sent.
    halt: Cancel,
    permits: Semaphore,
    state: Mutex<State>,
}

/// Sends frames. Cheap to clone; clones share counters, de-duplication and the port state.
#[derive(Clone)]
pub struct Executor {
    inner: Arc<Inner>,
}

impl Executor {
    /// An executor over `jev` (None: every frame fails `unavailable`), charging `budget`.
    pub fn new(
        jev: Option<Arc<dyn Jev>>,
        budget: Arc<Budget>,
        opts: ExecutorOptions,
        cancel: Cancel,
    ) -> Self {
        let usage = Usage {
            status: JevStatus::NotNeeded,
            requested_model: opts.model.clone(),
            resolved_models: BTreeSet::new(),
            requests: 0,
            failed_requests: 0,
            invalid_responses: 0,
            input_tokens: 0,
            output_tokens: 0,
            latency_ms: 0,
            cached: 0,
            remote: 0,
            cached_input_tokens: 0,
            cached_output_tokens: 0,
        };
        let disabled = if jev.is_none() { Some("no port") } else { None };
        Self {
            inner: Arc::new(Inner {
                permits: Semaphore::new(opts.concurrency),
                jev,
                budget,
                opts,
                cancel,
                halt: Cancel::new(),
                state: Mutex::new(State {
                    disabled,
                    invalid_in_a_row: 0,
                    usage,
                    redactions: 0,
                    frames: HashMap::new(),
                    finished: 0,
                }),
            }),
        }
    }

    /// Counts a finished frame and tells the progress callback.
    fn finished(&self) {
        let counts = {
            let mut state = self.state();
            state.finished += 1;
            (state.finished, state.frames.len() as u64)
        };
        if let Some(progress) = &self.inner.opts.progress {
            progress(counts.0, counts.1);
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // Every critical section is a handful of counter updates; a poisoned lock is still
        // consistent.
        self.inner.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The usage counters so far.
    pub fn usage(&self) -> Usage {
        self.state().usage.clone()
    }

    /// Redactions made by `prepare` so far.
    pub fn redactions(&self) -> u64 {
        self.state().redactions
    }

    /// The first Jev trouble recorded in this executor's cell (by it or a sibling).
    pub fn trouble(&self) -> Option<JevTrouble> {
        self.inner.opts.trouble.get()
    }

    /// Why the port is disabled (`authentication failed`, `no port`), if it is.
    pub fn disabled(&self) -> Option<&'static str> {
        self.state().disabled
    }

    /// The budget this executor charges.
    pub fn budget(&self) -> &Arc<Budget> {
        &self.inner.budget
    }

    /// Runs one frame. An identical frame already asked returns the first one's outcome.
    pub fn run(&self, frame: Frame) -> impl std::future::Future<Output = FrameOutcome> + use<> {
        let written = Written::of(&frame);
        self.run_with(frame, written, None)
    }

    /// Runs one frame whose state and questions are `written`, `planned` with the estimate a
    /// budget plan already charged for it.
    fn run_with(
        &self,
        frame: Frame,
        written: Written,
        planned: Option<u64>,
    ) -> impl std::future::Future<Output = FrameOutcome> + use<> {
        let digest = frame.digest_written(&written);
        let id = FrameId::of_digest(&digest);
        let mut state = self.state();
        if let (Some(estimate), true) = (planned, state.frames.contains_key(&id)) {
            // Already asked: the plan's charge for it is given back.
            self.inner.budget.release(1, estimate);
        }
        state
            .frames
            .entry(id.clone())
            .or_insert_with(|| {
                let this = self.clone();
                let frame_id = id.clone();
                let work: BoxFuture<'static, FrameOutcome> = Box::pin(async move {
                    let outcome = this
                        .clone()
                        .execute(id, frame, (written, digest), planned)
                        .await;
                    this.finished();
                    outcome
                });
                match &self.inner.opts.spread {
                    Some(spread) => spread(frame_id, work),
                    None => work,
                }
                .shared()
            })
            .clone()
    }

    /// Runs frames with bounded concurrency; outcomes come back in input order.
    pub async fn run_all(&self, frames: Vec<Frame>) -> Vec<FrameOutcome> {
        let n = self.inner.opts.concurrency;
        stream::iter(frames.into_iter().map(|f| self.run(f)))
            .buffered(n)
            .collect()
            .await
    }

    /// The input tokens a frame is estimated at before it is sent (as the budget counts them:
    /// its request body with this executor's model, before redaction), for a budget plan.
    pub fn estimate(&self, frame: &Frame) -> u64 {
        self.estimate_with(frame, &frame.questions.to_json())
    }

    fn estimate_with(&self, frame: &Frame, questions: &Value) -> u64 {
        JevRequest::estimate_of(&self.inner.opts.model, &frame.state, questions)
    }

    /// Plans `frames` (in priority order) against the budget before any is sent: the longest
    /// prefix whose estimates fit [`Budget::plan_allowance`] is charged up front, and the budget
    /// is exhausted by the limit that stopped the plan when it left frames out. Each chosen
    /// frame is then sent with [`Executor::run_admitted`] and its estimate, and nothing a
    /// response reports can shut it out.
    pub fn plan(&self, frames: &[&Frame]) -> (BudgetPlan, Vec<u64>) {
        let estimates: Vec<u64> = frames.iter().map(|f| self.estimate(f)).collect();
        (self.charge(&estimates), estimates)
    }

    /// Chooses and charges the plan for frames estimated at `estimates`.
    fn charge(&self, estimates: &[u64]) -> BudgetPlan {
        let budget = &self.inner.budget;
        let plan = BudgetPlan::choose(estimates, budget.plan_allowance());
        budget.commit(plan.chosen as u64, plan.estimated_tokens);
        if let Some(limit) = plan.stopped_by {
            budget.left_out(limit);
        }
        plan
    }

    /// Gives back room a budget plan charged for a frame that was never sent (a follow-up the
    /// answers did not call for): one request and its estimate.
    pub fn give_back(&self, estimate: u64) {
        self.inner.budget.release(1, estimate);
    }

    /// Runs a frame a budget plan chose, with the estimate it was charged.
    pub fn run_admitted(
        &self,
        frame: Frame,
        estimate: u64,
    ) -> impl std::future::Future<Output = FrameOutcome> + use<> {
        let written = Written::of(&frame);
        self.run_with(frame, written, Some(estimate))
    }

    /// Plans `frames` ([`Executor::plan`]) and sends the chosen ones with bounded concurrency;
    /// outcomes come back for the chosen frames, in input order.
    pub async fn run_planned(&self, frames: Vec<Frame>) -> (BudgetPlan, Vec<FrameOutcome>) {
        // Each frame's state and questions are written once, for its estimate, id, cache key
        // and request.
        let prepared = frames
            .into_iter()
            .map(|f| {
                let written = Written::of(&f);
                (f, written)
            })
            .collect();
        self.run_prepared(prepared).await
    }

    /// [`Executor::run_planned`] for frames whose states came written (D-230).
    pub async fn run_planned_written(
        &self,
        frames: Vec<WrittenFrame>,
    ) -> (BudgetPlan, Vec<FrameOutcome>) {
        let prepared = frames
            .into_iter()
            .map(|WrittenFrame { frame, state }| {
                let written = Written::of_written(&frame, state);
                (frame, written)
            })
            .collect();
        self.run_prepared(prepared).await
    }

    async fn run_prepared(
        &self,
        prepared: Vec<(Frame, Written)>,
    ) -> (BudgetPlan, Vec<FrameOutcome>) {
        let estimates: Vec<u64> = prepared
            .iter()
            .map(|(_, w)| {
                JevRequest::estimate_from_lengths(
                    &self.inner.opts.model,
                    w.state.len(),
                    w.questions.len(),
                )
            })
            .collect();
        let plan = self.charge(&estimates);
        let n = self.inner.opts.concurrency;
        let outcomes = stream::iter(
            prepared
                .into_iter()
                .zip(estimates)
                .take(plan.chosen)
                .map(|((f, w), e)| self.run_with(f, w, Some(e))),
        )
        .buffered(n)
        .collect()
        .await;
        (plan, outcomes)
    }

    fn failure(frame_id: &FrameId, reason: FailReason, detail: impl Into<String>) -> FrameOutcome {
        Err(FrameFailure {
            frame_id: frame_id.clone(),
            reason,
            detail: detail.into(),
        })
    }

    fn redact(&self, text: &str) -> String {
        match &self.inner.opts.redact {
            Some(r) => r(text),
            None => text.to_owned(),
        }
    }

    /// Runs one frame to its outcome. A `planned` frame was charged up front: its first
    /// attempt is not reserved (only the clock is checked) and settles the plan's estimate, and
    /// when nothing is sent at all (a cache hit, a disabled port) that charge is given back.
    async fn execute(
        self,
        frame_id: FrameId,
        mut frame: Frame,
        written: (Written, String),
        planned: Option<u64>,
    ) -> FrameOutcome {
        let mut unsent = planned;
        // The state moves into the request: the frame is asked once (its future is shared).
        // The trees are built only when the request is rewritten or sent ([`Unbuilt`]).
        let request = Unbuilt {
            model: self.inner.opts.model.clone(),
            state: (!written.0.state_only_written).then(|| std::mem::take(&mut frame.state)),
        };
        let outcome = self
            .attempts(&frame_id, &frame, request, written, &mut unsent)
            .await;
        if let Some(estimate) = unsent {
            self.inner.budget.release(1, estimate);
        }
        outcome
    }

    /// The attempts of one frame. `unsent` holds a plan's charge until the first attempt is
    /// sent (then it is settled like a reservation).
    async fn attempts(
        &self,
        frame_id: &FrameId,
        frame: &Frame,
        unbuilt: Unbuilt,
        (written, digest): (Written, String),
        unsent: &mut Option<u64>,
    ) -> FrameOutcome {
        let frame_id = frame_id.clone();
        let inner = &self.inner;
        // The semaphore is never closed, so acquiring can only fail if it were.
        let Ok(_permit) = inner.permits.acquire().await else {
            return Self::failure(&frame_id, FailReason::Unavailable, "executor closed");
        };
        if let Some(reason) = self.disabled() {
            return Self::failure(&frame_id, FailReason::Unavailable, reason);
        }
        let Some(jev) = inner.jev.clone() else {
            return Self::failure(&frame_id, FailReason::Unavailable, "no port");
        };
        let request = match self
            .redacted_or_cached(&frame_id, frame, unbuilt, (&written, &digest))
            .await
        {
            Ok(request) => request,
            Err(answered) => return answered,
        };
        let request_estimate = request.estimate_tokens();
        // Written once, for every attempt's record.
        let sent = written_request(&request);
        let attempts = inner.opts.retries + 1;
        let first = Instant::now();
        for attempt in 1..=attempts {
            if inner.cancel.is_cancelled() {
                return Self::failure(&frame_id, FailReason::Aborted, "run aborted");
            }
            if let Some(reason) = self.disabled() {
                return Self::failure(&frame_id, FailReason::Unavailable, reason);
            }
            // A planned frame's first attempt was charged with the plan; any other attempt
            // reserves its own.
            let (estimate, admitted) = match unsent.take() {
                Some(planned) => {
                    let clock = inner.budget.check_clock();
                    if clock.is_err() {
                        // Not sent: the charge goes back when the frame ends.
                        *unsent = Some(planned);
                    }
                    (planned, clock)
                }
                None => (request_estimate, inner.budget.reserve(request_estimate)),
            };
            if let Err(denial) = admitted {
                if let Some(sink) = &inner.opts.sink {
                    sink.budget_exhausted(&frame_id, denial);
                }
                return Self::failure(
                    &frame_id,
                    FailReason::Budget,
                    format!("budget exhausted: {}", denial.as_str()),
                );
            }
            {
                let mut state = self.state();
                if state.usage.status == JevStatus::NotNeeded {
                    state.usage.status = JevStatus::Used;
                }
            }
            let started = Instant::now();
            let call =
                tokio::time::timeout(inner.opts.timeout, jev.ask(&request, inner.opts.timeout));
            let result = tokio::select! {
                r = call => match r {
                    Ok(r) => r,
                    Err(_) => Err(JevError::new(Failure::TimedOut, "request timed out")),
                },
                () = inner.cancel.cancelled() => Err(JevError::new(Failure::Aborted, "run aborted")),
                () = inner.halt.cancelled() => {
                    inner.budget.settle(estimate, 0);
                    let reason = self.disabled().unwrap_or("the port was disabled");
                    return Self::failure(&frame_id, FailReason::Unavailable, reason);
                }
            };
            // Counted as sent once Jev answered or refused it: a request the run's cancel
            // dropped while it waited in the port's window never left (issue 49: an
            // interrupted run claimed twice the requests the server saw).
            let aborted = matches!(&result, Err(e) if e.class == ErrorClass::Aborted);
            if !aborted {
                self.state().usage.requests += 1;
                self.tally(|t| t.requests += 1);
            }
            let latency_ms = started.elapsed().as_millis() as u64;
            let record = AttemptRecord {
                frame_id: frame_id.clone(),
                template: frame.template.clone(),
                scope: frame.scope.clone(),
                provenance: frame.provenance.clone(),
                attempt,
                requested_model: request.model.clone(),
                request: sent.clone(),
                prepared: inner.opts.prepare.is_some(),
                cache_key: None,
                // An answer that fits makes it `ok`; anything else says so before it is recorded.
                result: AttemptResult::Ok,
                latency_ms,
                resolved_model: None,
                usage: None,
                response: None,
                parsed: None,
                error: None,
            };
            self.state().usage.latency_ms += latency_ms;
            let tried = Tried {
                frame_id: &frame_id,
                attempt,
                last: attempt == attempts,
                estimate,
                since_first: first.elapsed(),
                record,
            };
            let next = match result {
                Err(error) => self.after_error(tried, &error).await,
                Ok(body) => self.after_answer(tried, frame, &request, body),
            };
            if let Some(outcome) = next {
                return outcome;
            }
        }
        Self::failure(&frame_id, FailReason::Failed, "retries exhausted")
    }

    /// The request to send, rewritten by the prepare hook unless its content is known clean;
    /// or (`Err`) the frame answered from the caches. A request is built only when it is
    /// rewritten or sent (D-230).
    async fn redacted_or_cached(
        &self,
        frame_id: &FrameId,
        frame: &Frame,
        mut unbuilt: Unbuilt,
        (written, digest): (&Written, &str),
    ) -> Result<JevRequest, FrameOutcome> {
        let inner = &self.inner;
        let mut redacted = 0;
        let mut request = None;
        if let Some(prepare) = inner
            .opts
            .prepare
            .as_ref()
            .filter(|p| !p.known_clean(digest))
        {
            let built = request.insert(unbuilt.build(frame, written));
            redacted = (prepare.rewrite)(built, digest);
            self.state().redactions += redacted;
        }
        if let Some(cache) = &inner.opts.cache {
            // What redaction left as it was is what was written: its key is hashed from those
            // bytes.
            let key_from = match &request {
                Some(rewritten) if redacted > 0 => KeyFrom::Request(rewritten),
                _ => KeyFrom::Written(written),
            };
            if let Some(answered) = self
                .through_caches(cache, frame_id, frame, &unbuilt.model, key_from)
                .await
            {
                return Err(answered);
            }
        }
        Ok(match request {
            Some(request) => request,
            None => unbuilt.build(frame, written),
        })
    }

    /// The frame answered from the local cache or the team's (its outcome, or the abort), else
    /// `None`: the request, asked of `requested_model`, is to be sent. The key is of the model
    /// the name resolves to.
    async fn through_caches(
        &self,
        cache: &CacheUse,
        frame_id: &FrameId,
        frame: &Frame,
        requested_model: &str,
        key_from: KeyFrom<'_>,
    ) -> Option<FrameOutcome> {
        let inner = &self.inner;
        if inner.cancel.is_cancelled() {
            return Some(Self::failure(frame_id, FailReason::Aborted, "run aborted"));
        }
        let requested = cache.requested(requested_model);
        let model = match (cache.cache.resolved(&requested), &cache.remote) {
            (Some(model), _) => Some(model),
            (None, Some(remote)) => tokio::select! {
                model = remote.resolved(&requested) => model,
                () = inner.cancel.cancelled() => {
                    return Some(Self::failure(frame_id, FailReason::Aborted, "run aborted"));
                }
            },
            (None, None) => None,
        }
        .unwrap_or_else(|| requested_model.to_owned());
        let key = match key_from {
            KeyFrom::Written(w) => CacheKey::of_written(
                &cache.endpoint,
                &model,
                &frame.template,
                &w.state,
                &w.questions,
            ),
            KeyFrom::Request(request) => {
                CacheKey::of(&cache.endpoint, &model, &frame.template, request)
            }
        };
        let asked = Asked {
            frame_id,
            frame,
            requested_model,
            model: &model,
            key: &key,
        };
        if let Some(hit) = self.answer_from_cache(&asked) {
            return Some(hit);
        }
        self.answer_from_remote(&asked).await
    }

    /// A failed request: settles the budget and records the attempt. An auth failure disables
    /// the port; a transient one waits and is tried again while attempts are left (None);
    /// anything else ends the frame.
    async fn after_error(&self, tried: Tried<'_>, error: &JevError) -> Option<FrameOutcome> {
        let inner = &self.inner;
        let Tried {
            frame_id,
            attempt,
            last,
            estimate,
            since_first,
            mut record,
        } = tried;
        inner.budget.settle(estimate, 0);
        self.state().usage.failed_requests += 1;
        let detail = self.redact(&error.message);
        record.result = AttemptResult::from(error.class);
        record.error = Some(detail.clone());
        self.emit(record);
        match error.class {
            ErrorClass::Auth => {
                if let Some(t) = JevTrouble::from_error(error, attempt, since_first, &detail) {
                    inner.opts.trouble.record(t);
                }
                let mut state = self.state();
                state.disabled = Some("authentication failed");
                state.usage.status = JevStatus::Unavailable;
                inner.halt.cancel();
                Some(Self::failure(
                    frame_id,
                    FailReason::Unavailable,
                    "authentication failed",
                ))
            }
            ErrorClass::Transient if !last => {
                let wait = Duration::from_millis(250 << (attempt - 1).min(8));
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = inner.cancel.cancelled() => {}
                }
                None
            }
            ErrorClass::TooLarge => Some(Self::failure(frame_id, FailReason::TooLarge, detail)),
            ErrorClass::Aborted => {
                Some(Self::failure(frame_id, FailReason::Aborted, "run aborted"))
            }
            class => {
                // Retries ran out on a transient failure: that is Jev trouble.
                if let Some(t) = JevTrouble::from_error(error, attempt, since_first, &detail) {
                    inner.opts.trouble.record(t);
                }
                Some(Self::failure(
                    frame_id,
                    FailReason::Failed,
                    format!("{}: {detail}", class.as_str()),
                ))
            }
        }
    }

    /// A response: valid answers end the frame; invalid ones are tried again while attempts
    /// are left (None). Either way its tokens are charged when the envelope reports them.
    fn after_answer(
        &self,
        tried: Tried<'_>,
        frame: &Frame,
        request: &JevRequest,
        body: Value,
    ) -> Option<FrameOutcome> {
        let inner = &self.inner;
        let Tried {
            frame_id,
            last,
            estimate,
            mut record,
            ..
        } = tried;
        record.response = Some(body.clone());
        let checked = validate::envelope(&body).and_then(|env| {
            let answers = validate::answers(&frame.questions, &env.answers)?;
            Ok((env, answers))
        });
        match checked {
            Ok((env, answers)) => {
                inner.budget.settle(estimate, env.input_tokens);
                {
                    let mut state = self.state();
                    state.invalid_in_a_row = 0;
                    state.usage.input_tokens += env.input_tokens;
                    state.usage.output_tokens += env.output_tokens;
                    state.usage.resolved_models.insert(env.model.clone());
                }
                record.result = AttemptResult::Ok;
                record.resolved_model = Some(env.model.clone());
                record.usage = Some((env.input_tokens, env.output_tokens));
                record.parsed = Some(answers.to_json());
                self.keep(&frame.template, request, &env);
                self.emit(record);
                self.tally(|t| {
                    t.input_tokens += env.input_tokens;
                    t.output_tokens += env.output_tokens;
                    t.models.insert(env.model.clone());
                });
                Some(Ok(FrameOk {
                    frame_id: frame_id.clone(),
                    answers,
                    model: env.model,
                    cached: false,
                }))
            }
            Err(invalid) => {
                // A response that was received but refused still cost its tokens when the
                // envelope reported them.
                let reported = body
                    .pointer("/usage/input_tokens")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                inner.budget.settle(estimate, reported);
                {
                    let mut state = self.state();
                    state.usage.invalid_responses += 1;
                    state.usage.input_tokens += reported;
                }
                self.tally(|t| t.input_tokens += reported);
                record.result = AttemptResult::Invalid;
                let detail = invalid.to_string();
                record.error = Some(detail.clone());
                self.emit(record);
                self.count_invalid(&detail);
                last.then(|| Self::failure(frame_id, FailReason::Invalid, detail))
            }
        }
    }

    /// One more response whose answers did not fit. When [`INVALID_ANSWERS_IN_A_ROW`] come
    /// with no fitting one between them, the answers are not going to fit: that is Jev
    /// trouble, and no more is asked (issue 49: rather than retry until the budget runs out
    /// and call it a spent budget).
    fn count_invalid(&self, detail: &str) {
        let mut state = self.state();
        state.invalid_in_a_row += 1;
        if state.invalid_in_a_row >= INVALID_ANSWERS_IN_A_ROW && state.disabled.is_none() {
            state.disabled = Some("its answers did not fit the questions");
            drop(state);
            self.inner.halt.cancel();
            self.inner.opts.trouble.record(JevTrouble::Invalid {
                answers: INVALID_ANSWERS_IN_A_ROW,
                detail: self.redact(detail),
            });
        }
    }

    /// The frame's answers from the local cache, when they are there and still valid for its
    /// questions (see [`Self::accept_cached`]); a miss gives the request back.
    fn answer_from_cache(&self, asked: &Asked<'_>) -> Option<FrameOutcome> {
        let cache = self.inner.opts.cache.as_ref()?;
        let hit = cache.cache.get(asked.key)?;
        self.accept_cached(asked, hit, Level::Local)
    }

    /// The frame's answers from the team's shared level, asked after a local miss: a verified
    /// hit is kept in the local level too (when the request may write), so the next lookup is
    /// local. The run's cancel ends the wait.
    async fn answer_from_remote(&self, asked: &Asked<'_>) -> Option<FrameOutcome> {
        let (cache, remote) = self
            .inner
            .opts
            .cache
            .as_ref()
            .and_then(|c| Some((c, c.remote.clone()?)))?;
        let got = tokio::select! {
            got = remote.get(asked.key) => got,
            () = self.inner.cancel.cancelled() => {
                return Some(Self::failure(asked.frame_id, FailReason::Aborted, "run aborted"));
            }
        };
        let hit = got?;
        let requested = cache.requested(asked.requested_model);
        let kept = hit.clone();
        let outcome = self.accept_cached(asked, hit, Level::Remote)?;
        if cache.write {
            cache.cache.put(asked.key, &requested, &kept);
        }
        Some(outcome)
    }

    /// Answers kept at `level`, checked like a response: a stored answer that no longer fits
    /// the questions (or a damaged one) is a miss. A hit is recorded as a `cached` attempt (or
    /// `remote`, from the team's level) naming the key it was found under, not the request:
    /// nothing was sent, and the key is the hash of the redacted request it answers (D-175);
    /// it is counted, never charged.
    fn accept_cached(
        &self,
        asked: &Asked<'_>,
        hit: CachedAnswers,
        level: Level,
    ) -> Option<FrameOutcome> {
        let Asked {
            frame_id,
            frame,
            requested_model,
            model,
            key,
        } = *asked;
        if hit.model != model {
            return None;
        }
        let answers = validate::answers(&frame.questions, &hit.answers).ok()?;
        let remote = u64::from(level == Level::Remote);
        {
            let mut state = self.state();
            state.usage.status = JevStatus::Used;
            state.usage.cached += 1;
            state.usage.remote += remote;
            state.usage.cached_input_tokens += hit.input_tokens;
            state.usage.cached_output_tokens += hit.output_tokens;
            state.usage.resolved_models.insert(hit.model.clone());
        }
        self.tally(|t| {
            t.cached += 1;
            t.remote += remote;
            t.cached_input_tokens += hit.input_tokens;
            t.models.insert(hit.model.clone());
        });
        self.emit(AttemptRecord {
            frame_id: frame_id.clone(),
            template: frame.template.clone(),
            scope: frame.scope.clone(),
            provenance: frame.provenance.clone(),
            attempt: 0,
            requested_model: requested_model.to_owned(),
            request: None,
            prepared: self.inner.opts.prepare.is_some(),
            cache_key: Some(key.0.clone()),
            result: match level {
                Level::Local => AttemptResult::Cached,
                Level::Remote => AttemptResult::Remote,
            },
            latency_ms: 0,
            resolved_model: Some(hit.model.clone()),
            usage: Some((hit.input_tokens, hit.output_tokens)),
            response: None,
            parsed: Some(answers.to_json()),
            error: None,
        });
        Some(Ok(FrameOk {
            frame_id: frame_id.clone(),
            answers,
            model: hit.model,
            cached: true,
        }))
    }

    /// Keeps validated answers in the cache, under the key of the model that gave them.
    fn keep(&self, template: &str, request: &JevRequest, env: &validate::Envelope) {
        let Some(cache) = self.inner.opts.cache.as_ref().filter(|c| c.write) else {
            return;
        };
        // The lookup used the model the request was expected to resolve to; the answer says
        // which model it really was, and that is the key it is kept under.
        let key = CacheKey::of(&cache.endpoint, &env.model, template, request);
        let value = CachedAnswers {
            model: env.model.clone(),
            answers: env.answers.clone(),
            input_tokens: env.input_tokens,
            output_tokens: env.output_tokens,
        };
        cache
            .cache
            .put(&key, &cache.requested(&request.model), &value);
        if let Some(remote) = &cache.remote {
            remote.put(&key, &cache.requested(&request.model), &value);
        }
    }

    fn tally(&self, f: impl FnOnce(&mut crate::cache::RequestUsage)) {
        if let Some(tally) = &self.inner.opts.tally {
            tally.update(f);
        }
    }

    fn emit(&self, record: AttemptRecord) {
        if let Some(sink) = &self.inner.opts.sink {
            sink.attempt(record);
        }
    }
}

/// A request before its trees are built (D-230): the model asked for, and the frame's state
/// unless only its stable JSON was written. A cache hit never builds it.
struct Unbuilt {
    model: String,
    state: Option<Value>,
}

impl Unbuilt {
    /// The request: the state's tree (parsed from its stable JSON when only that was written)
    /// and the questions' wire JSON in their order.
    fn build(&mut self, frame: &Frame, written: &Written) -> JevRequest {
        let state = match self.state.take() {
            Some(state) => state,
            // Written by `serde_json`: it parses back.
            None => serde_json::from_slice(&written.state).unwrap_or_default(),
        };
        JevRequest {
            model: self.model.clone(),
            state,
            questions: frame.questions.to_json(),
        }
    }
}

/// What a judgment-cache key is hashed from: the frame as written, or the request redaction
/// rewrote.
enum KeyFrom<'a> {
    Written(&'a Written),
    Request(&'a JevRequest),
}

/// A frame looked up in the judgment cache: under `key`, for `model` (what `requested_model`
/// resolves to).
#[derive(Clone, Copy)]
struct Asked<'a> {
    frame_id: &'a FrameId,
    frame: &'a Frame,
    requested_model: &'a str,
    model: &'a str,
    key: &'a CacheKey,
}

/// One attempt's facts, handed to what follows it.
struct Tried<'a> {
    frame_id: &'a FrameId,
    attempt: u32,
    /// Whether no attempt is left after this one.
    last: bool,
    /// The tokens reserved for it.
    estimate: u64,
    /// Time since the first attempt.
    since_first: Duration,
    record: AttemptRecord,
}

#[cfg(test)]
#[path = "executor_tests.rs"]
mod tests;
