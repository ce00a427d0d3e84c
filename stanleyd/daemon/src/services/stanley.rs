//! The `stanley.v1.Stanley` service: the handshake, streaming prompts (each in its own task, so
//! a panicking request cannot take the daemon down, and cancelled when the client goes away),
//! and graceful stop.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use stanley_proto::v1;
use stanley_proto::v1::stanley_server::Stanley;
use stanley_proto::v1::{
    GetStatusRequest, GetStatusResponse, PromptRequest, PromptResponse, StopDaemonRequest,
    StopDaemonResponse, prompt_response,
};
use stanley_workflows::registry::BUILTINS;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::request::prompt::{self, RequestError};
use crate::state::DaemonState;

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
        self.state.activity().touch();
        let config = &self.state.config();
        Ok(Response::new(GetStatusResponse {
            protocol_version: config.protocol_version,
            daemon_version: config.version.clone(),
            pid: std::process::id(),
            root: config.files.root.display().to_string(),
            uptime_ms: self.state.activity().uptime().as_millis() as u64,
            active_requests: self.state.activity().running_now() as u32,
            workflows: BUILTINS
                .iter()
                .filter(|b| b.implemented)
                .map(|b| b.id.to_owned())
                .collect(),
            log_write_errors: crate::logging::write_errors(),
        }))
    }

    type PromptStream = ReceiverStream<Result<PromptResponse, Status>>;

    async fn prompt(
        &self,
        request: Request<PromptRequest>,
    ) -> Result<Response<Self::PromptStream>, Status> {
        if self.state.activity().stop_token().is_cancelled() {
            return Err(
                crate::error::RequestError::unavailable("the daemon is shutting down").into(),
            );
        }
        // A client that skipped the handshake says its version: one of another is refused
        // before any work, and the client replaces this daemon (docs/protocol.md).
        if let Some(client) = request
            .metadata()
            .get(stanley_proto::CLIENT_VERSION_METADATA)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        {
            let config = self.state.config();
            let ours = format!("{}/{}", config.version, config.protocol_version);
            if client != ours {
                return Err(stanley_proto::other_version(&ours, &client));
            }
        }
        let request = request.into_inner();
        let (tx, rx) = mpsc::channel(32);
        // Counted as active (and cancellable at shutdown) for as long as it runs.
        let (guard, cancel) = self.state.activity().begin();
        let id = guard.id();
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
                .send(Ok(PromptResponse {
                    event: Some(prompt_response::Event::Result(result)),
                }))
                .await;
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn diagnose(
        &self,
        request: Request<v1::DiagnoseRequest>,
    ) -> Result<Response<v1::DiagnoseResponse>, Status> {
        let settings = self.state.settings(&request.into_inner().env);
        let checks = crate::doctor::diagnose(&self.state, &settings).await;
        Ok(Response::new(v1::DiagnoseResponse { checks }))
    }

    async fn stop_daemon(
        &self,
        request: Request<StopDaemonRequest>,
    ) -> Result<Response<StopDaemonResponse>, Status> {
        tracing::info!(reason = %request.into_inner().reason, "stop requested");
        self.state.activity().stop_token().cancel();
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
        assert_eq!(
            error.resolved_error_kind(),
            stanley_proto::v1::ErrorKind::Internal
        );
        assert_eq!(error.message, "the request failed unexpectedly: boom");
        assert!(result.document_json.contains("stanley.error/v1"));
    }
}
