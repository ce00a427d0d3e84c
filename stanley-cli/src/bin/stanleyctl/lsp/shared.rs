//! What the language server and its background watcher share: the daemon it talks to, the
//! findings it shows, and how the diagnostics go out. Below both (D-177): the server starts the
//! watcher, and neither reaches the other.

use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};

use stanley_cli::daemon::Target;
use tokio_util::sync::CancellationToken;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{ProgressToken, Uri};

use crate::lsp::state::State;

/// What the server and its background watcher share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) target: Target,
    pub(crate) state: Mutex<State>,
    /// Cancelled at shutdown or when the editor goes away: every command and the watcher stop.
    pub(crate) stop: CancellationToken,
    /// The editor asked for `shutdown` (the exit code says whether it did before leaving).
    pub(crate) shut_down: AtomicBool,
    /// Commands in flight by progress token, for the progress's cancel button.
    pub(crate) running: Mutex<Vec<(ProgressToken, CancellationToken)>>,
    pub(crate) next_token: AtomicU64,
    /// The editor can create progress tokens and open documents externally.
    pub(crate) can_progress: AtomicBool,
    pub(crate) can_show: AtomicBool,
}

impl Shared {
    pub(crate) fn new(target: Target) -> Arc<Self> {
        let root = target.root.clone();
        Arc::new(Self {
            target,
            state: Mutex::new(State::new(root)),
            stop: CancellationToken::new(),
            shut_down: AtomicBool::new(false),
            running: Mutex::new(Vec::new()),
            next_token: AtomicU64::new(1),
            can_progress: AtomicBool::new(false),
            can_show: AtomicBool::new(false),
        })
    }

    /// The state, even after a panic elsewhere held its lock (it stays consistent: every
    /// change is one assignment).
    pub(crate) fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn running(
        &self,
    ) -> std::sync::MutexGuard<'_, Vec<(ProgressToken, CancellationToken)>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Sends the diagnostics as the state has them now: every document's, or (`only`) one's.
pub(crate) async fn publish(client: &Client, shared: &Shared, only: Option<&Uri>) {
    let all = shared.state().publish(only);
    for (uri, diagnostics) in all {
        client.publish_diagnostics(uri, diagnostics, None).await;
    }
}
