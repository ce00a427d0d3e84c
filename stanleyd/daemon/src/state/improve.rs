//! The improvement queue as one handle: its store (or why it could not be opened), what opening
//! it recovered, the worker's one-at-a-time lock and the channel that wakes the background
//! worker (issue 50, item 1).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use stanley_workflows::improve::{JobQueue, JobState};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::QueueProblem;

/// A request's environment, handed to the background worker with a kick.
pub(crate) type Env = HashMap<String, String>;

/// The improvement queue and the worker's turn at it.
pub(crate) struct ImproveQueue {
    /// The store (None when `.stanley/state/` could not be opened; `problem` says why).
    store: Option<Arc<dyn JobQueue>>,
    /// Why the store could not be opened (the repository may be at fault: a link under
    /// `.stanley/`).
    problem: Option<Arc<QueueProblem>>,
    /// What opening the store recovered, said once on the next request.
    recovery: Mutex<Option<String>>,
    /// Held while the improvement worker runs (one at a time).
    worker: tokio::sync::Mutex<()>,
    /// Asks the background worker to drain the queue with a request's environment.
    kick: UnboundedSender<Env>,
    /// The receiving end, taken once by the server's background worker task.
    kicks: Mutex<Option<UnboundedReceiver<Env>>>,
}

impl ImproveQueue {
    /// The handle over an opened store, or over why it could not be opened.
    pub(crate) fn new(
        store: Result<Arc<dyn JobQueue>, QueueProblem>,
        recovery: Option<String>,
    ) -> Self {
        let (kick, kicks) = tokio::sync::mpsc::unbounded_channel();
        let (store, problem) = match store {
            Ok(store) => (Some(store), None),
            Err(problem) => (None, Some(Arc::new(problem))),
        };
        Self {
            store,
            problem,
            recovery: Mutex::new(recovery),
            worker: tokio::sync::Mutex::new(()),
            kick,
            kicks: Mutex::new(Some(kicks)),
        }
    }

    /// The store, when it could be opened.
    pub(crate) fn store(&self) -> Option<&Arc<dyn JobQueue>> {
        self.store.as_ref()
    }

    /// Why the store could not be opened, if it could not.
    pub(crate) fn problem(&self) -> Option<&QueueProblem> {
        self.problem.as_deref()
    }

    /// Why the queue cannot be used.
    pub(crate) fn unavailable(&self) -> Arc<QueueProblem> {
        self.problem
            .clone()
            .unwrap_or_else(|| Arc::new(QueueProblem::NotOpen))
    }

    /// The recovery report, the first time it is asked for.
    pub(crate) fn take_recovery(&self) -> Option<String> {
        self.recovery
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// The worker's turn, when no worker holds it.
    pub(crate) fn try_turn(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        self.worker.try_lock().ok()
    }

    /// Wakes the background worker with a request's environment (nothing when no one listens).
    pub(crate) fn kick(&self, env: Env) {
        let _ = self.kick.send(env);
    }

    /// Wakes the background worker when jobs are pending and no worker runs (`auto` off, as
    /// `STANLEY_AUTO_IMPROVE=off` sets it, keeps it to the explicit command). The caller has
    /// already checked that an agent is available.
    pub(crate) fn kick_if_pending(&self, auto: bool, env: &Env) {
        if !auto || self.try_turn().is_none() {
            return;
        }
        let pending = self
            .store()
            .and_then(|q| q.list().ok())
            .is_some_and(|jobs| jobs.iter().any(|j| j.state == JobState::Pending));
        if pending {
            self.kick(env.clone());
        }
    }

    /// The receiving end of the kicks, once.
    pub(crate) fn take_kicks(&self) -> Option<UnboundedReceiver<Env>> {
        self.kicks.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}
