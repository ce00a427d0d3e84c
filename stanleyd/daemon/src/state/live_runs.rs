//! The runs of requests in progress, which retention leaves alone, and the run events a
//! `Runs.WatchRuns` listener hears (a run ended, a finding was marked seen).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use stanley_proto::v1::WatchRunsResponse;
use stanley_workflows::runs::RunId;
use tokio::sync::broadcast;

/// Run events kept for a slow `WatchRuns` listener before it is told it missed some.
const RUN_EVENTS: usize = 64;

/// Runs in progress and the run events' channel.
pub(crate) struct LiveRuns {
    active: Arc<Mutex<HashSet<String>>>,
    events: broadcast::Sender<WatchRunsResponse>,
}

impl Default for LiveRuns {
    fn default() -> Self {
        Self {
            active: Arc::default(),
            events: broadcast::channel(RUN_EVENTS).0,
        }
    }
}

impl LiveRuns {
    /// Marks a run in progress: retention leaves it alone until [`LiveRuns::ended`].
    pub(crate) fn started(&self, id: &RunId) {
        self.lock().insert(id.as_str().to_owned());
    }

    /// The run is finished (or was never written).
    pub(crate) fn ended(&self, id: &RunId) {
        self.lock().remove(id.as_str());
    }

    /// The runs in progress now.
    pub(crate) fn active(&self) -> HashSet<String> {
        self.lock().clone()
    }

    /// The set itself, for a check made at the moment of removing.
    pub(crate) fn active_set(&self) -> Arc<Mutex<HashSet<String>>> {
        self.active.clone()
    }

    /// Tells every listener (none listening is fine); a listener that falls behind is told
    /// to read the findings again.
    pub(crate) fn send(&self, event: WatchRunsResponse) {
        let _ = self.events.send(event);
    }

    /// A new listener's receiver.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<WatchRunsResponse> {
        self.events.subscribe()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.active.lock().unwrap_or_else(|e| e.into_inner())
    }
}
