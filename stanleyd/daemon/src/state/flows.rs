//! The flow's daemon-side state as one handle: its store, the lock a hook holds while it reads,
//! changes and writes the journal, and the single-runner lease of the supervisor (issue 50,
//! item 1).

use std::sync::{Arc, Mutex};

use stanley_core::Cancel;
use stanley_workflows::flow::state::FlowStore;

/// The flow's store, its journal lock and the supervisor's lease.
pub(crate) struct FlowSlot {
    /// The flow's journal, side-effect ledger, gate journal and note for a person
    /// (`.stanley/flow/`): one store, so appends from concurrent hook calls are serialized.
    store: Arc<dyn FlowStore>,
    /// Held while a hook reads, changes and writes the flow journal (a stop, a gate counting
    /// its Jev request), so concurrent hook calls never lose each other's changes.
    journal: tokio::sync::Mutex<()>,
    /// The running flow supervisor's cancel token: the single-runner lease.
    run: Mutex<Option<Cancel>>,
}

impl FlowSlot {
    /// The slot over `store`, with no supervisor running.
    pub(crate) fn new(store: Arc<dyn FlowStore>) -> Self {
        Self {
            store,
            journal: tokio::sync::Mutex::new(()),
            run: Mutex::new(None),
        }
    }

    /// The flow's store.
    pub(crate) fn store(&self) -> &Arc<dyn FlowStore> {
        &self.store
    }

    /// Holds the journal while the caller reads, changes and writes it.
    pub(crate) async fn hold_journal(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.journal.lock().await
    }

    /// Takes the single-runner lease with the supervisor's cancel token; `false` when another
    /// supervisor holds it.
    pub(crate) fn try_lease(&self, cancel: Cancel) -> bool {
        let mut slot = self.run.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_some() {
            return false;
        }
        *slot = Some(cancel);
        true
    }

    /// Lets the lease go.
    pub(crate) fn release(&self) {
        *self.run.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// The running supervisor's cancel token, if one runs.
    pub(crate) fn running(&self) -> Option<Cancel> {
        self.run.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}
