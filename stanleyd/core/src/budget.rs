//! The shared Jev budget: requests, input tokens and wall-clock time, reserved before every
//! attempt and settled after it. One budget is shared by everything a top-level request starts.

use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

/// The three limits of a budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetLimits {
    /// Attempts sent, retries included.
    pub requests: u64,
    /// Estimated, then reported, input tokens.
    pub input_tokens: u64,
    /// Wall-clock time since the budget was created, in milliseconds.
    pub wall_ms: u64,
}

impl BudgetLimits {
    /// The shared tree budget of one top-level request (`DEFAULT_TREE_BUDGET`): 600 requests,
    /// 1,200,000 input tokens, 180 s.
    pub const TREE: BudgetLimits = BudgetLimits {
        requests: 600,
        input_tokens: 1_200_000,
        wall_ms: 180_000,
    };
}

/// Which limit refused a reservation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Denial {
    /// The request count.
    Requests,
    /// The input-token count.
    InputTokens,
    /// Wall-clock time.
    WallClock,
}

impl Denial {
    /// The wire spelling (`requests`, `input_tokens`, `wall_clock`).
    pub fn as_str(self) -> &'static str {
        match self {
            Denial::Requests => "requests",
            Denial::InputTokens => "input_tokens",
            Denial::WallClock => "wall_clock",
        }
    }
}

#[derive(Debug, Default)]
struct Spent {
    requests: u64,
    input_tokens: u64,
    exhausted: Option<Denial>,
}

/// A budget. Thread-safe; share it with `Arc`.
#[derive(Debug)]
pub struct Budget {
    limits: BudgetLimits,
    start: Instant,
    spent: Mutex<Spent>,
}

impl Budget {
    /// A budget whose clock starts now.
    pub fn new(limits: BudgetLimits) -> Self {
        Self {
            limits,
            start: Instant::now(),
            spent: Mutex::new(Spent::default()),
        }
    }

    /// When the wall-clock limit runs out.
    pub fn deadline(&self) -> Instant {
        self.start + Duration::from_millis(self.limits.wall_ms)
    }

    /// The limits in force.
    pub fn limits(&self) -> BudgetLimits {
        self.limits
    }

    fn spent(&self) -> std::sync::MutexGuard<'_, Spent> {
        // A panic while holding this lock cannot leave the counters inconsistent (each update is
        // a few integer writes), so a poisoned lock is still safe to use.
        self.spent.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reserves one request and `estimate` input tokens, or says which limit refused. The first
    /// denial is remembered as the budget's exhaustion.
    pub fn reserve(&self, estimate: u64) -> Result<(), Denial> {
        let mut spent = self.spent();
        let denial = if spent.requests + 1 > self.limits.requests {
            Some(Denial::Requests)
        } else if spent.input_tokens + estimate > self.limits.input_tokens {
            Some(Denial::InputTokens)
        } else if self.start.elapsed() > Duration::from_millis(self.limits.wall_ms) {
            Some(Denial::WallClock)
        } else {
            None
        };
        if let Some(d) = denial {
            spent.exhausted.get_or_insert(d);
            return Err(d);
        }
        spent.requests += 1;
        spent.input_tokens += estimate;
        Ok(())
    }

    /// Replaces a reservation's estimate with the tokens actually reported (0 for a failed call).
    pub fn settle(&self, estimate: u64, actual: u64) {
        let mut spent = self.spent();
        spent.input_tokens = (spent.input_tokens + actual).saturating_sub(estimate);
    }

    /// The first denial, if any reservation was ever refused.
    pub fn exhausted(&self) -> Option<Denial> {
        self.spent().exhausted
    }

    /// Requests reserved so far.
    pub fn requests(&self) -> u64 {
        self.spent().requests
    }

    /// Input tokens counted so far.
    pub fn input_tokens(&self) -> u64 {
        self.spent().input_tokens
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denies_in_order_and_remembers_the_first_denial() {
        let b = Budget::new(BudgetLimits {
            requests: 2,
            input_tokens: 100,
            wall_ms: 60_000,
        });
        assert_eq!(b.reserve(150), Err(Denial::InputTokens));
        assert_eq!(b.reserve(50), Ok(()));
        b.settle(50, 10);
        assert_eq!(b.input_tokens(), 10);
        assert_eq!(b.reserve(50), Ok(()));
        b.settle(50, 0);
        assert_eq!(b.reserve(1), Err(Denial::Requests));
        assert_eq!(b.exhausted(), Some(Denial::InputTokens));
        assert_eq!(b.requests(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn wall_clock_is_measured_from_creation() {
        let b = Budget::new(BudgetLimits {
            requests: 10,
            input_tokens: 100,
            wall_ms: 1_000,
        });
        assert_eq!(b.reserve(1), Ok(()));
        tokio::time::advance(Duration::from_millis(1_001)).await;
        assert_eq!(b.reserve(1), Err(Denial::WallClock));
    }
}
