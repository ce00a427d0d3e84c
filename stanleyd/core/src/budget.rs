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

/// The share of each limit a budget plan keeps for what runs around it (1/20: 30 of 600
/// requests, 60,000 of 1,200,000 input tokens).
pub const PLAN_RESERVE_DIVISOR: u64 = 20;

/// What a budget plan may spend ([`Budget::plan_allowance`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanAllowance {
    /// Frames (one request each).
    pub requests: u64,
    /// Estimated input tokens.
    pub input_tokens: u64,
}

/// A budget plan: how many frames, taken in priority order, fit the allowance by their
/// estimates, decided before the first frame is sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetPlan {
    /// The allowance the plan was made against.
    pub allowance: PlanAllowance,
    /// Frames chosen: the first `chosen` of those offered.
    pub chosen: usize,
    /// Frames offered.
    pub offered: usize,
    /// The chosen frames' estimated input tokens.
    pub estimated_tokens: u64,
    /// The limit that stopped the plan, when frames were left out.
    pub stopped_by: Option<Denial>,
}

impl BudgetPlan {
    /// Takes frames in the order given while their estimates fit: the first frame that does
    /// not fit ends the plan (so a lower-priority frame never goes in ahead of a higher one).
    pub fn choose(estimates: &[u64], allowance: PlanAllowance) -> Self {
        let mut tokens = 0u64;
        let mut stopped_by = None;
        let mut chosen = 0;
        for &estimate in estimates {
            if chosen as u64 + 1 > allowance.requests {
                stopped_by = Some(Denial::Requests);
                break;
            }
            if tokens + estimate > allowance.input_tokens {
                stopped_by = Some(Denial::InputTokens);
                break;
            }
            tokens += estimate;
            chosen += 1;
        }
        Self {
            allowance,
            chosen,
            offered: estimates.len(),
            estimated_tokens: tokens,
            stopped_by,
        }
    }

    /// Frames the plan left out.
    pub fn left_out(&self) -> usize {
        self.offered - self.chosen
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

    /// What a budget plan may spend: the limits less a fixed share kept for what runs around
    /// the planned frames (routing, a retry, a follow-up). It depends on the limits alone, never
    /// on what was spent so far, so the same input plans the same frames whether the routing
    /// question was asked or answered from the cache; only when more than the reserve was spent
    /// already (a nested request) does the remainder bound it.
    pub fn plan_allowance(&self) -> PlanAllowance {
        let spent = self.spent();
        let share = |limit: u64, spent: u64| {
            let reserved = limit / PLAN_RESERVE_DIVISOR;
            (limit - reserved).min(limit.saturating_sub(spent))
        };
        PlanAllowance {
            requests: share(self.limits.requests, spent.requests),
            input_tokens: share(self.limits.input_tokens, spent.input_tokens),
        }
    }

    /// Charges a plan's frames up front (one request and its estimate each): they are then sent
    /// without a reservation of their own, so what actually comes back can never shut out a
    /// frame the plan chose. Each frame settles its estimate later ([`Budget::settle`]), or
    /// [`Budget::release`]s it when it costs nothing (a cache hit, a frame already asked).
    pub fn commit(&self, requests: u64, input_tokens: u64) {
        let mut spent = self.spent();
        spent.requests += requests;
        spent.input_tokens += input_tokens;
    }

    /// Gives back a committed frame that sent nothing.
    pub fn release(&self, requests: u64, input_tokens: u64) {
        let mut spent = self.spent();
        spent.requests = spent.requests.saturating_sub(requests);
        spent.input_tokens = spent.input_tokens.saturating_sub(input_tokens);
    }

    /// Records that a plan left frames out because `limit` would not hold them: the budget is
    /// exhausted as surely as if a reservation had been refused.
    pub fn left_out(&self, limit: Denial) {
        self.spent().exhausted.get_or_insert(limit);
    }

    /// Whether the wall-clock limit still allows a request (a planned frame's only check).
    pub fn check_clock(&self) -> Result<(), Denial> {
        if self.start.elapsed() > Duration::from_millis(self.limits.wall_ms) {
            self.spent().exhausted.get_or_insert(Denial::WallClock);
            return Err(Denial::WallClock);
        }
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

    #[test]
    fn a_plan_takes_a_prefix_that_fits_and_says_which_limit_stopped_it() {
        let allowance = PlanAllowance {
            requests: 3,
            input_tokens: 100,
        };
        let plan = BudgetPlan::choose(&[40, 40, 30, 5], allowance);
        assert_eq!((plan.chosen, plan.estimated_tokens), (2, 80));
        assert_eq!(plan.stopped_by, Some(Denial::InputTokens));
        assert_eq!(plan.left_out(), 2);
        let plan = BudgetPlan::choose(&[1, 1, 1, 1], allowance);
        assert_eq!((plan.chosen, plan.stopped_by), (3, Some(Denial::Requests)));
        let plan = BudgetPlan::choose(&[1, 1], allowance);
        assert_eq!((plan.chosen, plan.stopped_by), (2, None));
    }

    #[test]
    fn the_allowance_depends_on_the_limits_not_on_a_small_spend() {
        let b = Budget::new(BudgetLimits::TREE);
        let fresh = b.plan_allowance();
        assert_eq!(fresh.input_tokens, 1_140_000);
        assert_eq!(fresh.requests, 570);
        b.reserve(5_000).unwrap();
        assert_eq!(
            b.plan_allowance(),
            fresh,
            "a routing question changes nothing"
        );
        b.commit(100, 1_000_000);
        assert_eq!(b.plan_allowance().input_tokens, 195_000);
        b.release(100, 1_000_000);
        assert_eq!(b.input_tokens(), 5_000);
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
