//! Delegation capabilities: what lets a nested `stanley` inside a coding-agent run reach Jev
//! through the parent request (the daemon's agent module starts the agent with one).
//!
//! The agent and everything it starts (test scripts, build tools, a cloned repository's code)
//! never see a `TYPESAFE_*` variable or a Jev key. A nested request made from inside a
//! delegation carries `STANLEY_DELEGATION`, a random per-delegation capability; the daemon
//! replaces whatever Jev settings that request brought with the parent request's, so the key
//! is used for it without ever leaving the daemon. The capability expires with the agent (its
//! last handle dropped: the request, the job or the flow run ended).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use stanley_proto::env as var;

/// The live delegations: capability → the parent request's Jev settings.
#[derive(Default)]
pub(crate) struct Delegations {
    live: Mutex<HashMap<String, HashMap<String, String>>>,
}

/// One delegation's capability; it stops working when this is dropped.
pub(crate) struct Capability {
    token: String,
    registry: std::sync::Weak<Delegations>,
}

impl Capability {
    pub(crate) fn token(&self) -> &str {
        &self.token
    }
}

impl Drop for Capability {
    fn drop(&mut self) {
        if let Some(registry) = self.registry.upgrade() {
            registry
                .live
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&self.token);
        }
    }
}

impl std::fmt::Debug for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Capability(..)")
    }
}

impl Delegations {
    /// A new capability mapped to `jev`, the parent request's Jev settings.
    pub(crate) fn issue(self: &Arc<Self>, jev: HashMap<String, String>) -> Capability {
        let mut bytes = [0u8; 32];
        // Without the system's randomness there is no capability worth the name: an empty
        // token is never issued, so nested requests then go without a key.
        let token = match getrandom::getrandom(&mut bytes) {
            Ok(()) => bytes.iter().map(|b| format!("{b:02x}")).collect(),
            Err(_) => String::new(),
        };
        if !token.is_empty() {
            self.live
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(token.clone(), jev);
        }
        Capability {
            token,
            registry: Arc::downgrade(self),
        }
    }

    /// A request's environment as the daemon reads it: a live capability's Jev settings
    /// replace every Jev setting the request brought (so code inside the delegation cannot
    /// point the parent's key at a server of its choosing); the capability itself is taken out.
    pub(crate) fn resolve(&self, env: &HashMap<String, String>) -> HashMap<String, String> {
        let Some(token) = env.get(var::STANLEY_DELEGATION) else {
            return env.clone();
        };
        let mut env = env.clone();
        env.remove(var::STANLEY_DELEGATION);
        let live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(parent) = live.get(token).filter(|_| !token.is_empty()) {
            env.retain(|name, _| !crate::settings::jev_setting(name));
            env.extend(parent.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        env
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn a_capability_carries_the_parents_jev_settings_until_it_is_dropped() {
        let registry = Arc::new(Delegations::default());
        let parent = env(&[
            ("TYPESAFE_API_KEY", "sk-parent"),
            ("TYPESAFE_BASE_URL", "https://api.typesafe.ai"),
        ]);
        let cap = registry.issue(parent);
        assert_eq!(cap.token().len(), 64);
        // The nested request points Jev elsewhere and brings a CA of its own: all replaced.
        let nested = env(&[
            ("STANLEY_DELEGATION", cap.token()),
            ("TYPESAFE_BASE_URL", "http://127.0.0.1:9/steal"),
            ("STANLEY_JEV_CA_FILE", "/tmp/evil.pem"),
            ("PATH", "/bin"),
        ]);
        let seen = registry.resolve(&nested);
        assert_eq!(seen["TYPESAFE_API_KEY"], "sk-parent");
        assert_eq!(seen["TYPESAFE_BASE_URL"], "https://api.typesafe.ai");
        assert!(!seen.contains_key("STANLEY_JEV_CA_FILE"));
        assert!(!seen.contains_key("STANLEY_DELEGATION"));
        assert_eq!(seen["PATH"], "/bin");
        // A wrong token maps to nothing; an expired one neither.
        let wrong = env(&[("STANLEY_DELEGATION", &"0".repeat(64))]);
        assert!(!registry.resolve(&wrong).contains_key("TYPESAFE_API_KEY"));
        drop(cap);
        assert!(!registry.resolve(&nested).contains_key("TYPESAFE_API_KEY"));
        assert_eq!(
            registry.resolve(&nested)["TYPESAFE_BASE_URL"],
            "http://127.0.0.1:9/steal",
            "an expired capability changes nothing the request brought"
        );
    }

    #[test]
    fn a_delegation_uses_the_parents_team_cache_whatever_it_brings() {
        let registry = Arc::new(Delegations::default());
        let parent = env(&[
            ("STANLEY_CACHE_REMOTE", "redis://cache.internal:6379/0"),
            ("STANLEY_CACHE_TEAM_KEY", "the team's CI secret, 32 bytes+"),
            ("STANLEY_CACHE_REMOTE_MODE", "read-only"),
        ]);
        let parent =
            crate::settings::RequestSettings::parse(&parent, std::path::Path::new("/r")).jev_env();
        let cap = registry.issue(parent);
        // Code inside the delegation asks to write, to a store of its own, with a short deadline.
        let nested = env(&[
            ("STANLEY_DELEGATION", cap.token()),
            ("STANLEY_CACHE_REMOTE", "redis://127.0.0.1:16381/0"),
            ("STANLEY_CACHE_REMOTE_MODE", "read-write"),
            ("STANLEY_CACHE_REMOTE_DEADLINE_MS", "1"),
        ]);
        let seen = registry.resolve(&nested);
        assert_eq!(
            seen["STANLEY_CACHE_REMOTE"],
            "redis://cache.internal:6379/0"
        );
        assert_eq!(seen["STANLEY_CACHE_REMOTE_MODE"], "read-only");
        assert!(!seen.contains_key("STANLEY_CACHE_REMOTE_DEADLINE_MS"));
        assert_eq!(
            seen["STANLEY_CACHE_TEAM_KEY"],
            "the team's CI secret, 32 bytes+"
        );
    }
}
