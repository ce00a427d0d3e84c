//! The runs of requests in progress, which retention leaves alone, and the run events a
//! `Runs.WatchRuns` listener hears (a run ended, a finding was marked seen).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use stanley_proto::v1::WatchRunsResponse;
use stanley_workflows::runs::{Census, Retention, RunId};
use tokio::sync::broadcast;

/// Run events kept for a slow `WatchRuns` listener before it is told it missed some.
const RUN_EVENTS: usize = 64;

/// How long a census of the runs folder stands in for listing it (runs that came from elsewhere,
/// a checkout, are seen by then at the latest).
const CENSUS_STANDS: Duration = Duration::from_secs(600);

/// Runs in progress, the run events' channel, and what the last pruning found.
pub(crate) struct LiveRuns {
    active: Arc<Mutex<HashSet<String>>>,
    events: broadcast::Sender<WatchRunsResponse>,
    census: Mutex<Option<Counted>>,
}

/// The last listing's census, when it was taken, and the prunings asked for since (each after
/// a run was written).
#[derive(Clone, Copy, Debug)]
struct Counted {
    census: Census,
    at: Instant,
    added: usize,
}

impl Default for LiveRuns {
    fn default() -> Self {
        Self {
            active: Arc::default(),
            events: broadcast::channel(RUN_EVENTS).0,
            census: Mutex::new(None),
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

    /// Whether the pruning asked for after one more run can be skipped without listing the
    /// folder: the last census, with the runs written since, leaves nothing due
    /// ([`Census::nothing_due`]) and is recent. Counts the run either way.
    pub(crate) fn nothing_due(&self, retention: Retention, now: i64) -> bool {
        let mut slot = self.census.lock().unwrap_or_else(|e| e.into_inner());
        let Some(counted) = slot.as_mut() else {
            return false;
        };
        counted.added += 1;
        counted.at.elapsed() < CENSUS_STANDS
            && counted.census.nothing_due(counted.added, retention, now)
    }

    /// What a listing just found (none: it could not list, so the next pruning lists again).
    pub(crate) fn counted(&self, census: Option<Census>) {
        *self.census.lock().unwrap_or_else(|e| e.into_inner()) = census.map(|census| Counted {
            census,
            at: Instant::now(),
            added: 0,
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.active.lock().unwrap_or_else(|e| e.into_inner())
    }
}
