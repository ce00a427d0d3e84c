//! `run(config, listener, shutdown)`: serves the gRPC API on a bound Unix listener until the
//! shutdown future fires, a client asks the daemon to stop, the daemon has been idle too long,
//! or `daemon.json` names another daemon. Then it stops accepting, cancels running requests,
//! drains with a deadline and removes its socket.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use stanley_core::Cancel;
use stanley_proto::v1;
use stanley_proto::v1::stanley_server::StanleyServer;
use tokio::net::UnixListener;
use tonic_health::pb::health_server::{Health, HealthServer};
use tonic_reflection::server as reflect;

use crate::config::DaemonConfig;
use crate::discovery::{Owner, cleanup, owner};
use crate::error::DaemonError;
use crate::services::stanley::StanleyService;
use crate::state::{DaemonState, Ports};

/// How long running requests get to finish after shutdown starts: they are cancelled first, and
/// their work (Jev questions, agents, the parse of a supplied log) looks at the cancellation, so
/// a busy daemon is gone within about two seconds of SIGTERM or `daemon stop` (issue 47, D-162;
/// work that does not look, a Git call, is cut off by the runtime's exit).
pub(crate) const DRAIN_DEADLINE: Duration = Duration::from_millis(1500);

/// The health service, serving for the server as a whole ("") and for every service.
async fn health() -> HealthServer<impl Health> {
    let (reporter, service) = tonic_health::server::health_reporter();
    reporter
        .set_serving::<StanleyServer<StanleyService>>()
        .await;
    reporter
        .set_serving::<v1::queue_server::QueueServer<crate::services::queue::QueueService>>()
        .await;
    reporter
        .set_serving::<v1::flows_server::FlowsServer<crate::services::flows::FlowService>>()
        .await;
    reporter
        .set_serving::<v1::trust_server::TrustServer<crate::services::trust::TrustService>>()
        .await;
    reporter
        .set_serving::<v1::cache_server::CacheServer<crate::services::cache::CacheService>>()
        .await;
    reporter
        .set_serving::<v1::runs_server::RunsServer<crate::services::runs::RunsService>>()
        .await;
    reporter
        .set_serving::<v1::ui_server::UiServer<crate::services::ui::UiService>>()
        .await;
    service
}

/// Reflection in both versions: many tools (grpcio-reflection, older grpcurl) ask v1alpha.
#[allow(clippy::type_complexity)]
fn reflection() -> Result<
    (
        reflect::v1::ServerReflectionServer<impl reflect::v1::ServerReflection>,
        reflect::v1alpha::ServerReflectionServer<impl reflect::v1alpha::ServerReflection>,
    ),
    DaemonError,
> {
    let builder = || {
        reflect::Builder::configure()
            .register_encoded_file_descriptor_set(stanley_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let error = |e: reflect::Error| DaemonError::Io {
        what: "cannot build the reflection service".into(),
        source: std::io::Error::other(e.to_string()),
    };
    Ok((
        builder().build_v1().map_err(error)?,
        builder().build_v1alpha().map_err(error)?,
    ))
}

/// Resolves when the daemon should stop: idle for `idle_timeout`, `daemon.json` naming another
/// daemon, `shutdown` (a signal), or `stop` (a client's StopDaemon).
fn until_ended(
    state: Arc<DaemonState>,
    config: &DaemonConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
    stop: Cancel,
) -> impl Future<Output = ()> + Send + 'static {
    let files = config.files.clone();
    let idle = config.idle_timeout;
    let warm_idle = config.warm_idle;
    let watch_info = config.watch_info;
    async move {
        let tick =
            (idle.min(warm_idle) / 4).clamp(Duration::from_millis(20), Duration::from_secs(2));
        let watch = async {
            let mut unreadable = false;
            let mut warm = true;
            loop {
                tokio::time::sleep(tick).await;
                let quiet = state.activity().idle_for();
                if quiet >= idle {
                    tracing::info!(idle_ms = idle.as_millis() as u64, "idle; shutting down");
                    return;
                }
                // A quiet daemon lets go of its warm evidence and gives the memory back, once
                // per quiet stretch.
                if quiet >= warm_idle && warm {
                    warm = false;
                    state.let_go_warm();
                } else if quiet < warm_idle {
                    warm = true;
                }
                if watch_info {
                    match owner(&files) {
                        Owner::Us => unreadable = false,
                        Owner::Other => {
                            tracing::info!("daemon.json names another daemon; shutting down");
                            return;
                        }
                        // Out of descriptors, say: that is no takeover; keep serving.
                        Owner::Unknown(e) if !unreadable => {
                            unreadable = true;
                            tracing::warn!(error = %e, "cannot read daemon.json; still serving");
                        }
                        Owner::Unknown(_) => {}
                    }
                }
            }
        };
        tokio::select! {
            () = shutdown => tracing::info!("shutdown requested"),
            () = stop.cancelled() => tracing::info!("stop requested by a client"),
            () = watch => {}
        }
    }
}

/// Serves until shut down. Call from inside a Tokio runtime.
pub async fn run(
    config: DaemonConfig,
    ports: Ports,
    listener: UnixListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), DaemonError> {
    let stop = Cancel::new();
    let state = Arc::new(DaemonState::new(&config, stop.clone(), ports)?);
    // A previous daemon that died mid-run (kill -9) may have left its agent's tools running;
    // this daemon holds the lifetime lock, so no agent of a live daemon carries those tokens.
    let reaped = stanley_adapters::agents::reap(
        &stanley_adapters::agents::records_dir(&config.files.root),
        stanley_proto::env::STANLEY_AGENT_RUN,
    );
    if !reaped.is_empty() {
        tracing::warn!(pids = ?reaped, "killed processes a previous daemon's agent left running");
    }
    crate::worker::spawn_background(&state);
    crate::watcher::spawn(&state);
    let health_service = health().await;
    let (reflection, reflection_v1alpha) = reflection()?;
    let stanley = StanleyServer::new(StanleyService::new(state.clone()))
        .max_decoding_message_size(stanley_proto::MAX_MESSAGE_BYTES)
        .max_encoding_message_size(stanley_proto::MAX_MESSAGE_BYTES);

    let ended = until_ended(state.clone(), &config, shutdown, stop.clone());
    let drain_stop = stop.clone();
    let drain_state = state.clone();
    let signal = async move {
        ended.await;
        drain_stop.cancel();
        drain_state.activity().cancel_all();
    };
    let queue = stanley_proto::v1::queue_server::QueueServer::new(
        crate::services::queue::QueueService::new(state.clone()),
    );
    let flows = stanley_proto::v1::flows_server::FlowsServer::new(
        crate::services::flows::FlowService::new(state.clone()),
    );
    let trust = stanley_proto::v1::trust_server::TrustServer::new(
        crate::services::trust::TrustService::new(state.settings_source().clone()),
    );
    let cache = stanley_proto::v1::cache_server::CacheServer::new(
        crate::services::cache::CacheService::new(state.caches().clone(), state.warm().clone()),
    );
    let runs =
        stanley_proto::v1::runs_server::RunsServer::new(crate::services::runs::RunsService::new(
            config.files.root.clone(),
            state.runs().clone(),
            state.activity().clone(),
        ));
    let ui = stanley_proto::v1::ui_server::UiServer::new(crate::services::ui::UiService::new(
        state.clone(),
    ));
    tracing::info!(root = %config.files.root.display(), socket = %config.files.socket.display(), version = %config.version, "serving");
    let server = tonic::transport::Server::builder()
        .add_service(health_service)
        .add_service(reflection)
        .add_service(reflection_v1alpha)
        .add_service(stanley)
        .add_service(queue)
        .add_service(flows)
        .add_service(trust)
        .add_service(cache)
        .add_service(runs)
        .add_service(ui)
        .serve_with_incoming_shutdown(
            crate::connections::incoming(listener, config.silent_connection).boxed(),
            signal,
        );
    tokio::pin!(server);
    let result = tokio::select! {
        r = &mut server => r,
        () = async {
            stop.cancelled().await;
            tokio::time::sleep(DRAIN_DEADLINE).await;
        } => {
            tracing::warn!("drain deadline passed; closing remaining connections");
            Ok(())
        }
    };
    if let Some(q) = state.improve().store()
        && let Err(e) = q.flush()
    {
        tracing::warn!(error = %e, "could not flush the improvement queue");
    }
    config.files.clear_private();
    if config.watch_info {
        cleanup(&config.files);
    } else {
        let _ = std::fs::remove_file(&config.files.socket);
    }
    tracing::info!(
        uptime_ms = state.activity().uptime().as_millis() as u64,
        "stopped"
    );
    result.map_err(DaemonError::from)
}
