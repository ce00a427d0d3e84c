//! The judgment cache as a port: validated answers kept under a hash of exactly what would be
//! sent (the resolved model, the state and the questions after redaction) and the frame
//! template's policy version, so a repeated or incremental request asks Jev only what changed.
//! Also the request-wide usage tally and Jev's list price, which say what a request cost and
//! what the cache saved. Behind the local level a team's shared level may stand
//! ([`RemoteJudgments`], issue 51): read through on a local miss, written behind.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::hash::{Field, stable_hash_object};
use crate::jev::JevRequest;

/// A cache key: 64 hex digits of SHA-256.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey(pub String);

impl CacheKey {
    /// The key of `request` (as it would be sent, after redaction) when `model` at `endpoint`
    /// answers it, for a frame built by `template` (`name@version`, the policy version).
    pub fn of(endpoint: &str, model: &str, template: &str, request: &JevRequest) -> Self {
        Self(stable_hash_object(&[
            ("schema", Field::Str("stanley.judgment-key/2")),
            ("endpoint", Field::Str(endpoint)),
            ("model", Field::Str(model)),
            ("policy", Field::Str(template)),
            ("state", Field::Json(&request.state)),
            ("questions", Field::Json(&request.questions)),
        ]))
    }

    /// [`CacheKey::of`] a request whose state and questions were already written as stable
    /// JSON ([`crate::hash::stable_bytes`]): the same key, without writing them again.
    pub fn of_written(
        endpoint: &str,
        model: &str,
        template: &str,
        state: &[u8],
        questions: &[u8],
    ) -> Self {
        Self(stable_hash_object(&[
            ("schema", Field::Str("stanley.judgment-key/2")),
            ("endpoint", Field::Str(endpoint)),
            ("model", Field::Str(model)),
            ("policy", Field::Str(template)),
            ("state", Field::Raw(state)),
            ("questions", Field::Raw(questions)),
        ]))
    }
}

/// What the cache keeps for one frame: the answers that passed validation and what the
/// original request cost. Never evidence text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CachedAnswers {
    /// The model that answered.
    pub model: String,
    /// The answers object as Jev returned it (validated again on every hit).
    pub answers: Map<String, Value>,
    /// Input tokens the original request was charged.
    pub input_tokens: u64,
    /// Output tokens the original request reported.
    pub output_tokens: u64,
}

/// Where validated answers are kept. Implementations never fail a request: a store that cannot
/// be read is a miss, one that cannot be written is skipped.
pub trait JudgmentCache: Send + Sync {
    /// The model `requested` resolved to when Jev last answered it, if known.
    fn resolved(&self, requested: &str) -> Option<String>;
    /// The answers kept under `key`.
    fn get(&self, key: &CacheKey) -> Option<CachedAnswers>;
    /// Keeps `value` under `key` and notes that `requested` resolved to `value.model`.
    fn put(&self, key: &CacheKey, requested: &str, value: &CachedAnswers);
}

/// A shared level behind the local cache (a team's store, issue 51): asked only when the local
/// level misses, and told every new answer. Implementations never fail and never make a request
/// wait longer than their read deadline: an entry that is not signed with the team's key, is
/// malformed or too large, a slow or failing store, a level bypassed after a failure: each is a
/// miss (and counted by the implementation).
pub trait RemoteJudgments: Send + Sync {
    /// The model `requested` resolved to when the team's Jev last answered it, if the level
    /// knows (asked when the local level does not).
    fn resolved<'a>(&'a self, requested: &'a str) -> BoxFuture<'a, Option<String>>;
    /// The answers kept under `key`, verified, or `None`.
    fn get<'a>(&'a self, key: &'a CacheKey) -> BoxFuture<'a, Option<CachedAnswers>>;
    /// Keeps `value` under `key`, and that `requested` resolved to `value.model`, in the
    /// background when the level may write; returns at once.
    fn put(&self, key: &CacheKey, requested: &str, value: &CachedAnswers);
}

/// Which level of the cache answered a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// The worktree's own store.
    Local,
    /// The team's shared store.
    Remote,
}

/// How an executor uses the cache.
#[derive(Clone)]
pub struct CacheUse {
    /// The cache.
    pub cache: Arc<dyn JudgmentCache>,
    /// The shared level behind it, when one is set up.
    pub remote: Option<Arc<dyn RemoteJudgments>>,
    /// Whether new answers are written (a `--no-persist` request only reads).
    pub write: bool,
    /// The System One API root the answers come from: another endpoint (a proxy, a stub) is
    /// another cache.
    pub endpoint: String,
}

impl CacheUse {
    /// The name the model resolution is kept under: the endpoint and the requested model.
    pub fn requested(&self, model: &str) -> String {
        format!("{} {model}", self.endpoint)
    }
}

/// Jev's list prices: USD per million input tokens, by versioned model id (output tokens are
/// free). An alias such as `jev-latest` moves without notice and has no price here.
const LIST_PRICES: &[(&str, f64)] = &[("jev-1.13.0", 0.042)];

/// The list price of `model`'s input tokens in USD per million, when known.
pub fn list_price(model: &str) -> Option<f64> {
    LIST_PRICES
        .iter()
        .find(|(m, _)| *m == model)
        .map(|(_, p)| *p)
}

/// What `tokens` input tokens cost at list price when `models` answered them (the dearest of
/// them), rounded to a millionth of a cent; None when a model has no list price.
pub fn cost_usd(models: &BTreeSet<String>, tokens: u64) -> Option<f64> {
    if tokens == 0 {
        return Some(0.0);
    }
    let prices: Option<Vec<f64>> = models.iter().map(|m| list_price(m)).collect();
    let price = prices?.into_iter().reduce(f64::max)?;
    Some((tokens as f64 * price / 1_000_000.0 * 1e8).round() / 1e8)
}

/// What every Jev question of one request cost, summed over its executors (routing, the
/// workflow, nested prompts): requests sent, answers served from the cache, and tokens.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestUsage {
    /// Requests sent to Jev (every attempt, retries included).
    pub requests: u64,
    /// Questions answered from the cache instead (either level).
    pub cached: u64,
    /// Of those, the answers that came from the team's shared level.
    pub remote: u64,
    /// Input tokens of the requests sent.
    pub input_tokens: u64,
    /// Output tokens of the requests sent.
    pub output_tokens: u64,
    /// Input tokens the cached answers cost when they were first asked (not charged again).
    pub cached_input_tokens: u64,
    /// The models that answered, sent or cached.
    pub models: BTreeSet<String>,
}

impl RequestUsage {
    /// The estimated cost of the requests sent at list price, when every model has one.
    pub fn cost_usd(&self) -> Option<f64> {
        self.priced(self.input_tokens)
    }

    /// The estimated cost the cache saved at list price, when every model has one.
    pub fn saved_usd(&self) -> Option<f64> {
        self.priced(self.cached_input_tokens)
    }

    fn priced(&self, tokens: u64) -> Option<f64> {
        cost_usd(&self.models, tokens)
    }

    /// Whether Jev was asked anything (sent or answered from the cache).
    pub fn asked(&self) -> bool {
        self.requests > 0 || self.cached > 0
    }

    /// The public `usage` object of a result document.
    pub fn to_json(&self) -> Value {
        json!({
            "jevRequests": self.requests,
            "cachedAnswers": self.cached,
            "localAnswers": self.cached - self.remote.min(self.cached),
            "remoteAnswers": self.remote,
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "cachedInputTokens": self.cached_input_tokens,
            "models": self.models,
            "estimatedCostUsd": self.cost_usd(),
            "savedCostUsd": self.saved_usd(),
        })
    }

    /// The human footer: `jev: 3 requests sent · 38 answered from cache · 1,234 input tokens
    /// (about $0.0001 at list price)`.
    pub fn footer(&self) -> String {
        let plural = |n: u64, one: &str, many: &str| {
            format!("{} {}", thousands(n), if n == 1 { one } else { many })
        };
        let remote = if self.remote > 0 {
            format!(" ({} from the team cache)", thousands(self.remote))
        } else {
            String::new()
        };
        let mut line = format!(
            "jev: {} · {} answered from cache{remote} · {}",
            plural(self.requests, "request sent", "requests sent"),
            thousands(self.cached),
            plural(self.input_tokens, "input token", "input tokens"),
        );
        match self.cost_usd() {
            Some(cost) => line.push_str(&format!(" ({} at list price)", dollars(cost))),
            None => line.push_str(" (no list price for this model)"),
        }
        if self.cached > 0
            && let Some(saved) = self.saved_usd()
        {
            line.push_str(&format!(
                " · the cache saved {} ({})",
                plural(self.cached_input_tokens, "input token", "input tokens"),
                dollars(saved)
            ));
        }
        line
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A dollar amount as a person reads it: `$0`, `under $0.0001`, `about $0.0123`, `about $1.50`.
fn dollars(usd: f64) -> String {
    if usd == 0.0 {
        "$0".to_owned()
    } else if usd < 0.0001 {
        "under $0.0001".to_owned()
    } else if usd >= 1.0 {
        format!("about ${usd:.2}")
    } else {
        format!("about ${usd:.4}")
    }
}

/// The usage of one request, shared by its executors.
#[derive(Clone, Debug, Default)]
pub struct Tally(Arc<Mutex<RequestUsage>>);

impl Tally {
    pub(crate) fn update(&self, f: impl FnOnce(&mut RequestUsage)) {
        f(&mut self.0.lock().unwrap_or_else(|e| e.into_inner()));
    }

    /// The usage so far.
    pub fn snapshot(&self) -> RequestUsage {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Sets the usage to one recorded before: a request answered whole from a remembered
    /// result reports what that result cost (every answer from the cache, nothing sent).
    pub fn restore(&self, usage: RequestUsage) {
        self.update(|u| *u = usage);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(state: Value) -> JevRequest {
        JevRequest {
            model: "jev-1.13.0".into(),
            state,
            questions: json!({"q": {"type": "noul"}}),
        }
    }

    #[test]
    fn the_key_changes_with_what_is_sent_and_the_policy_but_not_key_order() {
        let a = CacheKey::of("e", "jev-1.13.0", "t@1", &request(json!({"a": 1, "b": 2})));
        let b = CacheKey::of("e", "jev-1.13.0", "t@1", &request(json!({"b": 2, "a": 1})));
        assert_eq!(a, b);
        assert_eq!(a.0.len(), 64);
        for other in [
            CacheKey::of("e", "jev-1.14.0", "t@1", &request(json!({"a": 1, "b": 2}))),
            CacheKey::of("e", "jev-1.13.0", "t@2", &request(json!({"a": 1, "b": 2}))),
            CacheKey::of("e", "jev-1.13.0", "t@1", &request(json!({"a": 1, "b": 3}))),
            CacheKey::of("f", "jev-1.13.0", "t@1", &request(json!({"a": 1, "b": 2}))),
        ] {
            assert_ne!(a, other);
        }
        let sent = request(json!({"b": [2, "x\ny"], "a": 1}));
        let written = CacheKey::of_written(
            "e",
            "jev-1.13.0",
            "t@1",
            &crate::hash::stable_bytes(&sent.state),
            &crate::hash::stable_bytes(&sent.questions),
        );
        assert_eq!(written, CacheKey::of("e", "jev-1.13.0", "t@1", &sent));
    }

    #[test]
    fn usage_is_priced_only_for_models_with_a_list_price() {
        let mut u = RequestUsage {
            requests: 2,
            cached: 39,
            input_tokens: 2_000_000,
            cached_input_tokens: 1_000_000,
            ..RequestUsage::default()
        };
        u.models.insert("jev-1.13.0".into());
        assert_eq!(u.cost_usd(), Some(0.084));
        assert_eq!(u.saved_usd(), Some(0.042));
        assert_eq!(
            u.footer(),
            "jev: 2 requests sent · 39 answered from cache · 2,000,000 input tokens (about $0.0840 \
             at list price) · the cache saved 1,000,000 input tokens (about $0.0420)"
        );
        u.models.insert("jev-latest".into());
        assert_eq!(u.cost_usd(), None);
        assert!(u.footer().contains("(no list price for this model)"));
        u.models.remove("jev-latest");
        u.input_tokens = 716;
        assert!(
            u.footer()
                .contains("716 input tokens (under $0.0001 at list price)")
        );
        assert_eq!(u.cost_usd(), Some(0.00003007));
        u.remote = 12;
        assert!(
            u.footer()
                .contains("· 39 answered from cache (12 from the team cache) ·"),
            "{}",
            u.footer()
        );
        assert_eq!(u.to_json()["localAnswers"], 27);
        let none = RequestUsage::default();
        assert!(!none.asked());
        assert_eq!(none.cost_usd(), Some(0.0));
    }
}
