//! A cloneable cancellation signal shared by everything one request starts.

use std::sync::Arc;

use tokio::sync::watch;

/// Cancels a request and everything it started. Cloning shares the same signal; cancelling is
/// idempotent and cannot be undone.
#[derive(Clone, Debug)]
pub struct Cancel {
    tx: Arc<watch::Sender<bool>>,
}

impl Default for Cancel {
    fn default() -> Self {
        Self::new()
    }
}

impl Cancel {
    /// A signal that has not fired.
    pub fn new() -> Self {
        let (tx, _) = watch::channel(false);
        Self { tx: Arc::new(tx) }
    }

    /// Fires the signal.
    pub fn cancel(&self) {
        self.tx.send_replace(true);
    }

    /// Whether the signal has fired.
    pub fn is_cancelled(&self) -> bool {
        *self.tx.borrow()
    }

    /// Completes once the signal has fired (at once if it already has).
    pub async fn cancelled(&self) {
        let mut rx = self.tx.subscribe();
        // The sender lives as long as `self`, so `wait_for` can only end by seeing `true`.
        let _ = rx.wait_for(|fired| *fired).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cancelled_completes_after_cancel() {
        let cancel = Cancel::new();
        let clone = cancel.clone();
        assert!(!clone.is_cancelled());
        let waiter = tokio::spawn(async move { clone.cancelled().await });
        cancel.cancel();
        waiter.await.unwrap();
        assert!(cancel.is_cancelled());
        // A second wait returns at once.
        cancel.cancelled().await;
    }
}
