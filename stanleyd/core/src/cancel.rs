//! A cloneable cancellation signal shared by everything one request starts, and the pace at
//! which CPU-bound work (parsing a supplied log) looks at it.

use std::cell::Cell;
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

/// Work that ended because its request was cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("run aborted")]
pub struct Cancelled;

/// How many steps of CPU-bound work pass between two looks at the signal: a step is a line or
/// a block, microseconds each, so a paced loop ends within milliseconds of the signal.
const STEPS_PER_LOOK: u32 = 1024;

/// Looks at a [`Cancel`] once every [`STEPS_PER_LOOK`] steps of a CPU-bound loop, so that the
/// loop can end within a bounded time of the signal at a cost the loop does not notice.
#[derive(Debug)]
pub struct Pace<'a> {
    cancel: &'a Cancel,
    steps: Cell<u32>,
}

impl<'a> Pace<'a> {
    /// A pace that looks at `cancel`.
    pub fn new(cancel: &'a Cancel) -> Self {
        Self {
            cancel,
            steps: Cell::new(0),
        }
    }

    /// One step of work: `Err` once the signal has fired (looked at every [`STEPS_PER_LOOK`]
    /// steps).
    pub fn step(&self) -> Result<(), Cancelled> {
        let n = self.steps.get().wrapping_add(1);
        self.steps.set(n);
        if n.is_multiple_of(STEPS_PER_LOOK) {
            self.now()
        } else {
            Ok(())
        }
    }

    /// `Err` if the signal has fired, looking at once (between two phases of work).
    pub fn now(&self) -> Result<(), Cancelled> {
        if self.cancel.is_cancelled() {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pace_sees_the_signal_within_its_step_count() {
        let cancel = Cancel::new();
        let pace = Pace::new(&cancel);
        for _ in 0..3 * STEPS_PER_LOOK {
            assert_eq!(pace.step(), Ok(()));
        }
        cancel.cancel();
        assert_eq!(pace.now(), Err(Cancelled));
        let steps = (0..=STEPS_PER_LOOK)
            .take_while(|_| pace.step().is_ok())
            .count();
        assert!(steps < STEPS_PER_LOOK as usize, "seen after {steps} steps");
    }

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
