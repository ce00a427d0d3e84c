//! The `stanley.v1.Stanley` service: the handshake, streaming prompts (each in its own task, so
//! a panicking request cannot take the daemon down, and cancelled when the client goes away),
//! and graceful stop.

use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use stanley_adapters::{Git2Repo, HttpShared};
use stanley_core::Cancel;
use stanley_proto::v1;
use stanley_proto::v1::stanley_server::Stanley;
use stanley_proto::v1::{
    GetStatusRequest, GetStatusResponse, PromptEvent, PromptRequest, StopDaemonRequest,
    StopDaemonResponse, prompt_event,
};
use stanley_workflows::registry::BUILTINS;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::error::DaemonError;
use crate::prompt::{self, RequestError};
use crate::server::DaemonConfig;

/// How long a cancelled request gets to wind down before its task is stopped.
const CANCEL_GRACE: Duration = Duration::from_secs(10);

/// Runs a request, turning a panic into an internal-error result so that one failing request
/// cannot take the daemon down.
pub(crate) async fn guarded(work: impl Future<Output = v1::Result>) -> v1::Result {
    match AssertUnwindSafe(work).catch_unwind().await {
        Ok(result) => result,
        Err(payload) => {
            let text = panic_text(&*payload);
            tracing::error!(panic = %text, "a request panicked");
            prompt::error_result(
                &RequestError::internal(format!("the request failed unexpectedly: {text}")),
                None,
            )
        }
    }
}

/// What every request shares.
pub(crate) struct DaemonState {
    pub(crate) config: DaemonConfig,
    pub(crate) git: Arc<Git2Repo>,
    /// The HTTP connection pool for System One, shared by requests (it holds no key).
    pub(crate) http: HttpShared,
    /// The improvement queue (None when `.stanley/state/` could not be opened; the reason is
    /// in `queue_problem` and the log).
    pub(crate) queue: Option<Arc<stanley_adapters::queue::SledQueue>>,
    /// Why the queue could not be opened, and whether the repository is at fault (a link
    /// under `.stanley/`), which makes it an input error rather than an internal one.
    pub(crate) queue_problem: Option<(String, bool)>,
    /// Held while the improvement worker runs (one at a time).
    pub(crate) worker: tokio::sync::Mutex<()>,
    /// Asks the background worker to drain the queue with a request's environment.
    pub(crate) kick: tokio::sync::mpsc::UnboundedSender<HashMap<String, String>>,
    /// The receiving end, taken once by the server's background worker task.
    pub(crate) kicks: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<HashMap<String, String>>>>,
    /// The repository workflows and their warm host.
    pub(crate) repo: crate::repository::RepoSlot,
    /// The running flow supervisor's cancel token: the single-runner lease.
    pub(crate) flow_run: Mutex<Option<Cancel>>,
    pub(crate) started: Instant,
    last_activity: Mutex<Instant>,
    active: AtomicUsize,
    next_id: AtomicU64,
    running: Mutex<HashMap<u64, Cancel>>,
    stop: Cancel,
}

/// Opens the improvement queue; on failure, why, and whether the repository is at fault.
fn open_queue(
    dir: &std::path::Path,
) -> Result<Arc<stanley_adapters::queue::SledQueue>, (String, bool)> {
    use stanley_adapters::records::{create_private_dir, refuse_links_within};
    let planted = create_private_dir(dir)
        .and_then(|()| refuse_links_within(dir))
        .err()
        .filter(|e| e.kind() == std::io::ErrorKind::InvalidInput);
    if let Some(e) = planted {
        tracing::error!(error = %e, "cannot open the improvement queue");
        return Err((format!("the improvement queue cannot be used: {e}"), true));
    }
    stanley_adapters::queue::SledQueue::open(dir)
        .map(Arc::new)
        .map_err(|e| {
            tracing::error!(error = %e, "cannot open the improvement queue");
            (e.to_string(), false)
        })
}

impl DaemonState {
    /// Why the queue cannot be used, as one line.
    pub(crate) fn queue_unavailable(&self) -> String {
        self.queue_problem.as_ref().map_or_else(
            || "the improvement queue is not open".to_owned(),
            |(m, _)| m.clone(),
        )
    }

    pub(crate) fn new(config: &DaemonConfig, stop: Cancel) -> Result<Self, DaemonError> {
        let (kick, kicks) = tokio::sync::mpsc::unbounded_channel();
        let queue = open_queue(&config.files.root.join(".stanley/state"));
        let git =
            Git2Repo::open(&config.files.root).map_err(|e| DaemonError::NotARepository(e.0))?;
        Ok(Self {
            config: config.clone(),
            git: Arc::new(git),
            http: HttpShared::new().map_err(|e| DaemonError::Io {
                what: "cannot build the HTTP client".into(),
                source: std::io::Error::other(e.message),
            })?,
            queue: queue.clone().ok(),
            queue_problem: queue.err(),
            worker: tokio::sync::Mutex::new(()),
            kick,
            kicks: Mutex::new(Some(kicks)),
            repo: tokio::sync::Mutex::new(None),
            flow_run: Mutex::new(None),
            started: Instant::now(),
            last_activity: Mutex::new(Instant::now()),
            active: AtomicUsize::new(0),
            next_id: AtomicU64::new(0),
            running: Mutex::new(HashMap::new()),
            stop,
        })
    }

    /// How long nothing has been running.
    pub(crate) fn idle_for(&self) -> Duration {
        if self.active.load(Ordering::SeqCst) > 0 {
            return Duration::ZERO;
        }
        self.last_activity
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
    }

    fn touch(&self) {
        *self.last_activity.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    /// Cancels every running request (shutdown).
    pub(crate) fn cancel_all(&self) {
        for cancel in self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
        {
            cancel.cancel();
        }
    }
}

impl DaemonState {
    /// Cancelled when the daemon begins to stop.
    pub(crate) fn stop_token(&self) -> Cancel {
        self.stop.clone()
    }

    /// Registers background work (the improvement worker) like a request: it keeps the daemon
    /// from idling out and is cancelled at shutdown for as long as the guard lives.
    pub(crate) fn background(self: &Arc<Self>) -> (ActiveGuard, Cancel) {
        let cancel = Cancel::new();
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        self.active.fetch_add(1, Ordering::SeqCst);
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, cancel.clone());
        (
            ActiveGuard {
                state: self.clone(),
                id,
            },
            cancel,
        )
    }
}

/// Counts a request as active for as long as it lives.
pub(crate) struct ActiveGuard {
    state: Arc<DaemonState>,
    id: u64,
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        self.state
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.id);
        self.state.active.fetch_sub(1, Ordering::SeqCst);
        self.state.touch();
    }
}

/// The service implementation.
pub(crate) struct StanleyService {
    state: Arc<DaemonState>,
}

impl StanleyService {
    pub(crate) fn new(state: Arc<DaemonState>) -> Self {
        Self { state }
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

#[tonic::async_trait]
impl Stanley for StanleyService {
    async fn get_status(
        &self,
        _request: Request<GetStatusRequest>,
    ) -> Result<Response<GetStatusResponse>, Status> {
        self.state.touch();
        let config = &self.state.config;
        Ok(Response::new(GetStatusResponse {
            protocol_version: config.protocol_version,
            daemon_version: config.version.clone(),
            pid: std::process::id(),
            root: config.files.root.display().to_string(),
            uptime_ms: self.state.started.elapsed().as_millis() as u64,
            active_requests: self.state.active.load(Ordering::SeqCst) as u32,
            workflows: BUILTINS
                .iter()
                .filter(|b| b.implemented)
                .map(|b| b.id.to_owned())
                .collect(),
        }))
    }

    type PromptStream = ReceiverStream<Result<PromptEvent, Status>>;

    async fn prompt(
        &self,
        request: Request<PromptRequest>,
    ) -> Result<Response<Self::PromptStream>, Status> {
        if self.state.stop.is_cancelled() {
            return Err(
                crate::error::RequestError::unavailable("the daemon is shutting down").into(),
            );
        }
        let request = request.into_inner();
        let (tx, rx) = mpsc::channel(32);
        let cancel = Cancel::new();
        let id = self.state.next_id.fetch_add(1, Ordering::SeqCst);
        self.state.active.fetch_add(1, Ordering::SeqCst);
        self.state
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, cancel.clone());
        let guard = ActiveGuard {
            state: self.state.clone(),
            id,
        };
        let state = self.state.clone();
        tokio::spawn(async move {
            let _guard = guard;
            let events = tx.clone();
            let work_cancel = cancel.clone();
            let mut work = tokio::spawn(guarded(async move {
                prompt::run(&state, request, work_cancel, events).await
            }));
            let result = tokio::select! {
                joined = &mut work => joined,
                () = tx.closed() => {
                    // The client went away: cancel everything the request started, give it a
                    // moment to wind down, then stop it.
                    cancel.cancel();
                    if tokio::time::timeout(CANCEL_GRACE, &mut work).await.is_err() {
                        work.abort();
                    }
                    tracing::info!(request = id, "client disconnected; request cancelled");
                    return;
                }
            };
            let result = result.unwrap_or_else(|_| {
                prompt::error_result(
                    &RequestError::internal("the request task was stopped"),
                    None,
                )
            });
            let _ = tx
                .send(Ok(PromptEvent {
                    event: Some(prompt_event::Event::Result(result)),
                }))
                .await;
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn stop_daemon(
        &self,
        request: Request<StopDaemonRequest>,
    ) -> Result<Response<StopDaemonResponse>, Status> {
        tracing::info!(reason = %request.into_inner().reason, "stop requested");
        self.state.stop.cancel();
        Ok(Response::new(StopDaemonResponse {
            pid: std::process::id(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panicking_request_becomes_an_internal_error() {
        let result = guarded(async { panic!("boom") }).await;
        assert_eq!(result.exit_code, 70);
        assert_eq!(result.outcome, v1::Outcome::Error as i32);
        let error = result.error.unwrap();
        assert_eq!(error.kind, "internal");
        assert_eq!(error.message, "the request failed unexpectedly: boom");
        assert!(result.document_json.contains("stanley.error/v1"));
    }
}
