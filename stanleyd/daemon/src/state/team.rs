//! The team's shared cache level as the daemon holds it (issue 51): opened for the settings a
//! request carries and kept while the next requests carry the same ones, so its breaker and
//! counters outlive one request; another store, key or mode opens another.

use std::sync::{Arc, Mutex};

use stanley_adapters::team_cache::{TeamCache, TeamCacheSettings, TeamStats};
use stanley_core::RemoteJudgments;

/// The level in use, and a warning for the next request.
#[derive(Default)]
pub(crate) struct TeamLevel {
    open: Mutex<Option<(TeamCacheSettings, TeamCache)>>,
    warning: Mutex<Option<String>>,
}

impl TeamLevel {
    /// The level for a request with `settings` (`None`: no team cache), opened the first time.
    /// A store that cannot be set up leaves one warning and no level.
    pub(crate) fn for_request(
        &self,
        settings: Option<&TeamCacheSettings>,
    ) -> Option<Arc<dyn RemoteJudgments>> {
        let settings = settings?;
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((kept, level)) = open.as_ref()
            && kept == settings
        {
            return Some(Arc::new(level.clone()));
        }
        match TeamCache::open(settings) {
            Ok(level) => {
                tracing::info!(store = %settings.shown, mode = settings.mode.as_str(), "team cache opened");
                *open = Some((settings.clone(), level.clone()));
                Some(Arc::new(level))
            }
            Err(e) => {
                *self.warning.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.to_string());
                None
            }
        }
    }

    /// The level last used, for `stanleyctl cache stats` and `doctor`.
    pub(crate) fn current(&self) -> Option<TeamCache> {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.as_ref().map(|(_, level)| level.clone())
    }

    /// The level's counters, when one was used.
    pub(crate) fn stats(&self) -> Option<TeamStats> {
        self.current().map(|level| level.stats())
    }

    /// What went wrong with the level since it was last asked, once: a store that could not be
    /// set up, or the breaker's line.
    pub(crate) fn take_warning(&self) -> Option<String> {
        let setup = self
            .warning
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        setup.or_else(|| self.current().and_then(|level| level.take_warning()))
    }
}
