//! The daemon's activity: the requests and jobs running now, when the last one ended, and the
//! stop that ends them all (the idle clock and shutdown read it).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use stanley_core::Cancel;
use tokio::time::Instant;

/// What runs now and since when nothing has; cheap to clone (clones share it).
#[derive(Clone)]
pub(crate) struct Activity {
    inner: Arc<Inner>,
}

struct Inner {
    started: Instant,
    last_activity: Mutex<Instant>,
    active: AtomicUsize,
    next_id: AtomicU64,
    running: Mutex<HashMap<u64, Cancel>>,
    stop: Cancel,
}

impl Activity {
    /// Nothing running yet; `stop` is cancelled when the daemon begins to stop.
    pub(crate) fn new(stop: Cancel) -> Self {
        Self {
            inner: Arc::new(Inner {
                started: Instant::now(),
                last_activity: Mutex::new(Instant::now()),
                active: AtomicUsize::new(0),
                next_id: AtomicU64::new(0),
                running: Mutex::new(HashMap::new()),
                stop,
            }),
        }
    }

    /// How long the daemon has served.
    pub(crate) fn uptime(&self) -> Duration {
        self.inner.started.elapsed()
    }

    /// How long nothing has been running.
    pub(crate) fn idle_for(&self) -> Duration {
        if self.running_now() > 0 {
            return Duration::ZERO;
        }
        self.inner
            .last_activity
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
    }

    /// Marks activity now (the idle clock restarts; freed pages are kept for reuse again after
    /// a trim, D-150).
    pub(crate) fn touch(&self) {
        *self
            .inner
            .last_activity
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Instant::now();
        crate::memory::resume();
    }

    /// Requests and jobs running now.
    pub(crate) fn running_now(&self) -> usize {
        self.inner.active.load(Ordering::SeqCst)
    }

    /// Cancels every running request and job (shutdown).
    pub(crate) fn cancel_all(&self) {
        for cancel in self
            .inner
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
        {
            cancel.cancel();
        }
    }

    /// Cancelled when the daemon begins to stop.
    pub(crate) fn stop_token(&self) -> Cancel {
        self.inner.stop.clone()
    }

    /// Registers a request or background work (the improvement worker): it keeps the daemon
    /// from idling out and is cancelled at shutdown for as long as the guard lives.
    pub(crate) fn begin(&self) -> (ActiveGuard, Cancel) {
        let cancel = Cancel::new();
        let id = self.inner.next_id.fetch_add(1, Ordering::SeqCst);
        self.inner.active.fetch_add(1, Ordering::SeqCst);
        // Work again: after a quiet stretch, freed pages are kept for reuse again (D-150).
        crate::memory::resume();
        self.inner
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, cancel.clone());
        (
            ActiveGuard {
                activity: self.clone(),
                id,
            },
            cancel,
        )
    }
}

/// Counts a request or job as running for as long as it lives.
pub(crate) struct ActiveGuard {
    activity: Activity,
    id: u64,
}

impl ActiveGuard {
    /// The number of the request or job it counts.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        let inner = &self.activity.inner;
        inner
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.id);
        inner.active.fetch_sub(1, Ordering::SeqCst);
        self.activity.touch();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A guard counts its work while it lives, a stop cancels what runs, and the count goes
    /// back to zero when the guard is dropped.
    #[test]
    fn work_is_counted_while_its_guard_lives_and_cancelled_at_a_stop() {
        let activity = Activity::new(Cancel::new());
        assert_eq!(activity.running_now(), 0);
        let (first, cancel) = activity.begin();
        let (second, _) = activity.begin();
        assert_ne!(first.id(), second.id());
        assert_eq!(activity.running_now(), 2);
        assert_eq!(activity.idle_for(), Duration::ZERO);
        activity.cancel_all();
        assert!(cancel.is_cancelled());
        drop(first);
        drop(second);
        assert_eq!(activity.running_now(), 0);
    }
}
