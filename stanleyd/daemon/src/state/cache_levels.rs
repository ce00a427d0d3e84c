//! The judgment cache's two levels as the daemon holds them: the local store under
//! `.stanley/state/judgments/` (or why it is off) and the team's shared level behind it.

use std::sync::{Arc, Mutex};

use stanley_adapters::judgments::{CacheStats, SledJudgments};
use stanley_adapters::store_error::StoreError;
use stanley_core::JudgmentCache;

use super::team::TeamLevel;
use crate::config::DaemonConfig;

/// The judgment cache as the daemon uses it: core's `JudgmentCache`, and what `stanleyctl
/// cache` and the request path need besides. `SledJudgments` in the daemon.
pub(crate) trait CacheStore: JudgmentCache {
    /// Entries, sizes, hits and misses.
    fn stats(&self) -> CacheStats;
    /// Removes every answer; how many there were.
    fn clear(&self) -> Result<u64, StoreError>;
    /// Writes new answers to disk.
    fn flush(&self);
    /// What opening found wrong, once.
    fn take_warning(&self) -> Option<String>;
}

impl CacheStore for SledJudgments {
    fn stats(&self) -> CacheStats {
        SledJudgments::stats(self)
    }
    fn clear(&self) -> Result<u64, StoreError> {
        SledJudgments::clear(self)
    }
    fn flush(&self) {
        SledJudgments::flush(self)
    }
    fn take_warning(&self) -> Option<String> {
        SledJudgments::take_warning(self)
    }
}

/// Why the judgment cache is off: said once, on the next request; requests then ask Jev
/// everything.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CacheOff {
    /// No home to keep the cache's signing key in.
    #[error(
        "the judgment cache is off: the daemon knows no HOME or XDG_STATE_HOME to keep its key in"
    )]
    NoHome,
    /// The signing key cannot be made or read.
    #[error("the judgment cache is off: {0}")]
    Key(#[source] StoreError),
    /// The cache's folder cannot be used.
    #[error("the judgment cache is off: {0}")]
    Folder(#[source] StoreError),
}

/// The local level (None when its folder cannot be used; requests then ask Jev everything),
/// why it is off, said once on the next request, and the team's level.
pub(crate) struct CacheLevels {
    local: Option<Arc<dyn CacheStore>>,
    off: Mutex<Option<CacheOff>>,
    team: TeamLevel,
}

impl CacheLevels {
    /// Opens the local level beside the queue (`state_usable`: `.stanley/state/` is not
    /// refused) with the user's key, or records why it is off.
    pub(crate) fn open(
        config: &DaemonConfig,
        state_usable: bool,
        key: Result<stanley_adapters::user_key::UserKey, CacheOff>,
    ) -> Self {
        let (local, off) = open_judgments(config, state_usable, key);
        Self {
            local: local.map(|j| j as Arc<dyn CacheStore>),
            off: Mutex::new(off),
            team: TeamLevel::default(),
        }
    }

    /// The local level, when it is open.
    pub(crate) fn local(&self) -> Option<Arc<dyn CacheStore>> {
        self.local.clone()
    }

    /// The team's shared level.
    pub(crate) fn team(&self) -> &TeamLevel {
        &self.team
    }

    /// Why the cache is off, or the local level's warning about a damaged store it rebuilt,
    /// the first time it is asked for.
    pub(crate) fn take_warning(&self) -> Option<String> {
        let off = self.off.lock().unwrap_or_else(|e| e.into_inner()).take();
        off.map(|off| off.to_string())
            .or_else(|| self.local.as_ref().and_then(|j| j.take_warning()))
    }

    /// Writes the local level's new answers to disk on a blocking thread, so they survive a
    /// crash and the caller is not held up by it.
    pub(crate) fn flush_later(&self) {
        if let Some(cache) = self.local.clone() {
            drop(tokio::task::spawn_blocking(move || cache.flush()));
        }
    }
}

/// Opens the judgment cache beside the queue; a folder that cannot be used leaves the daemon
/// without a cache (logged), never without service.
fn open_judgments(
    config: &DaemonConfig,
    state_usable: bool,
    key: Result<stanley_adapters::user_key::UserKey, CacheOff>,
) -> (
    Option<Arc<stanley_adapters::judgments::SledJudgments>>,
    Option<CacheOff>,
) {
    if !state_usable {
        // `.stanley/state/` itself is refused (planted, or not ours): nothing goes under it.
        return (None, None);
    }
    // Entries are signed with a key of the user's own, kept beside the trust file, outside
    // the worktree: a repository can plant files under `.stanley/`, not that key.
    let secret = match key {
        Ok(k) => k,
        Err(off) => return (None, Some(off)),
    };
    let dir = config.files.root.join(".stanley/state/judgments");
    match stanley_adapters::judgments::SledJudgments::open(&dir, config.cache_max_bytes, secret) {
        Ok(cache) => (Some(Arc::new(cache)), None),
        Err(e) => {
            tracing::warn!(error = %e, "the judgment cache is off: its folder cannot be used");
            (None, Some(CacheOff::Folder(e)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::user_key;
    use super::*;

    /// Without a home for the key the cache is off for that reason, said in its words; with
    /// one whose key is not a private file, the key is named as the fault.
    #[test]
    fn the_cache_is_off_for_a_reason_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = DaemonConfig::new(crate::DaemonFiles::new(
            dir.path(),
            dir.path().join("d.sock"),
        ));
        config.trust_file = None;
        let (cache, off) = open_judgments(&config, true, user_key(&config));
        assert!(cache.is_none());
        let off = off.unwrap();
        assert!(matches!(off, CacheOff::NoHome), "{off:?}");
        assert_eq!(
            off.to_string(),
            "the judgment cache is off: the daemon knows no HOME or XDG_STATE_HOME to keep its key in"
        );
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        std::fs::write(home.join("cache.key"), b"short").unwrap();
        config.trust_file = Some(home.join("trust.json"));
        let (cache, off) = open_judgments(&config, true, user_key(&config));
        assert!(cache.is_none());
        let off = off.unwrap();
        assert!(matches!(off, CacheOff::Key(_)), "{off:?}");
        assert!(
            off.to_string()
                .starts_with("the judgment cache is off: the cache's key at ")
        );
    }
}
