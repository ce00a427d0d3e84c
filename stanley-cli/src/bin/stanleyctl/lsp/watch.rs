//! Keeps the diagnostics current: subscribes to the daemon's run events (`Runs.WatchRuns`),
//! reads the standing findings (`Runs.GetLatestFindings`) at once and again on every event, and
//! publishes them. The first connection starts the daemon when none runs, with every check a
//! client makes; when the daemon goes away (stopped, restarted, idle) the watcher waits for one
//! to answer again without starting it, so an open editor never keeps a daemon alive.

use std::sync::Arc;
use std::time::Duration;

use stanley_cli::exit::ClientError;
use stanley_proto::v1::runs_client::RunsClient;
use stanley_proto::v1::{GetLatestFindingsRequest, WatchRunsRequest};
use tonic::transport::Channel;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::MessageType;

use crate::lsp::shared::{Shared, publish};

/// How often a watcher without a daemon looks for one, at first and at most.
const POLL_FIRST: Duration = Duration::from_millis(100);
const POLL_MAX: Duration = Duration::from_secs(2);

/// Starts the watcher; it ends when the server stops.
pub(crate) fn spawn(client: Client, shared: Arc<Shared>) {
    tokio::spawn(async move {
        let stop = shared.stop.clone();
        tokio::select! {
            () = watch(&client, &shared) => {}
            () = stop.cancelled() => {}
        }
    });
}

/// Reads the standing findings and publishes them.
async fn refresh(client: &Client, shared: &Shared, runs: &mut RunsClient<Channel>) -> bool {
    match runs.get_latest_findings(GetLatestFindingsRequest {}).await {
        Ok(answer) => {
            shared.state().set_runs(answer.into_inner().runs);
            publish(client, shared, None).await;
            true
        }
        Err(status) => {
            let e = ClientError::from_status(&status);
            client
                .log_message(
                    MessageType::WARNING,
                    format!("stanley: cannot read the findings: {}", e.message),
                )
                .await;
            false
        }
    }
}

/// A daemon of this client's version that answers, without starting one: waits, polling.
async fn wait_for_daemon(shared: &Shared) -> Result<Channel, ClientError> {
    let mut pause = POLL_FIRST;
    loop {
        if let Some(channel) = stanley_cli::daemon::channel_if_running(&shared.target).await? {
            return Ok(channel);
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(POLL_MAX);
    }
}

async fn watch(client: &Client, shared: &Shared) {
    let mut first = true;
    let mut said = false;
    loop {
        let channel = if first {
            stanley_cli::daemon::channel(&shared.target).await
        } else {
            wait_for_daemon(shared).await
        };
        first = false;
        let channel = match channel {
            Ok(c) => c,
            Err(e) => {
                // Once, as the command line would say it; then keep looking quietly.
                if !said {
                    said = true;
                    let hint = e.hint.map(|h| format!(" (hint: {h})")).unwrap_or_default();
                    client
                        .show_message(
                            MessageType::ERROR,
                            format!("stanley: {} error: {}{hint}", e.kind.as_str(), e.message),
                        )
                        .await;
                }
                tokio::time::sleep(POLL_MAX).await;
                continue;
            }
        };
        said = false;
        let mut runs =
            RunsClient::new(channel).max_decoding_message_size(stanley_proto::MAX_MESSAGE_BYTES);
        // Subscribe first, then read: a run that ends in between is not missed.
        let mut events = match runs.watch_runs(WatchRunsRequest {}).await {
            Ok(s) => s.into_inner(),
            Err(_) => {
                tokio::time::sleep(POLL_MAX).await;
                continue;
            }
        };
        refresh(client, shared, &mut runs).await;
        while let Ok(Some(_event)) = events.message().await {
            refresh(client, shared, &mut runs).await;
        }
        client
            .log_message(
                MessageType::INFO,
                "stanley: the daemon went away; the findings shown are the last known until it answers again",
            )
            .await;
    }
}
