//! The `stanley.v1.Cache` service behind `stanleyctl cache stats|clear`: the judgment cache's
//! counts (and the team's shared level's, when one is in use), and clearing it.

use std::sync::Arc;

use crate::state::CacheStore;
use stanley_adapters::team_cache::Mode;
use stanley_proto::v1::cache_server::Cache;
use stanley_proto::v1::{
    CacheMode, ClearCacheRequest, ClearCacheResponse, GetCacheStatsRequest, GetCacheStatsResponse,
    TeamCacheStats,
};
use tonic::{Request, Response, Status};

use crate::error::RequestError;
use crate::state::cache_levels::CacheLevels;
use crate::warm::WarmMemo;

/// The service implementation: the cache's levels, and the warm answers made from them.
pub(crate) struct CacheService {
    caches: Arc<CacheLevels>,
    warm: Arc<WarmMemo>,
}

impl CacheService {
    pub(crate) fn new(caches: Arc<CacheLevels>, warm: Arc<WarmMemo>) -> Self {
        Self { caches, warm }
    }

    fn cache(&self) -> Result<Arc<dyn CacheStore>, RequestError> {
        self.caches.local().ok_or_else(|| {
            RequestError::input(
                "the judgment cache is off: .stanley/state/judgments/ could not be opened (the daemon log says why)",
            )
        })
    }
}

#[tonic::async_trait]
impl Cache for CacheService {
    async fn get_cache_stats(
        &self,
        _request: Request<GetCacheStatsRequest>,
    ) -> Result<Response<GetCacheStatsResponse>, Status> {
        let cache = self.cache()?;
        let s = tokio::task::spawn_blocking(move || cache.stats())
            .await
            .map_err(|e| RequestError::caused(crate::error::Refusal::Internal, e))?;
        Ok(Response::new(GetCacheStatsResponse {
            path: s.path,
            entries: s.entries,
            bytes: s.bytes,
            max_bytes: s.max_bytes,
            disk_bytes: s.disk_bytes,
            hits: s.hits,
            misses: s.misses,
            evictions: s.evictions,
            team: self.caches.team().stats().map(|t| {
                TeamCacheStats {
                    store: t.store,
                    cache_mode: wire_mode(t.mode) as i32,
                    hits: t.hits,
                    misses: t.misses,
                    ignored_unsigned: t.unsigned,
                    ignored_foreign: t.foreign,
                    ignored_tampered: t.tampered,
                    ignored_malformed: t.malformed,
                    ignored_oversized: t.oversized,
                    timeouts: t.timeouts,
                    errors: t.errors,
                    bypassed: t.bypassed,
                    writes: t.writes,
                    writes_dropped: t.dropped,
                    bypassing: t.bypassing,
                    ignored_stale: t.stale,
                    slow: t.slow,
                    ..TeamCacheStats::default()
                }
                .with_words()
            }),
        }))
    }

    async fn clear_cache(
        &self,
        _request: Request<ClearCacheRequest>,
    ) -> Result<Response<ClearCacheResponse>, Status> {
        let cache = self.cache()?;
        let removed = tokio::task::spawn_blocking(move || cache.clear())
            .await
            .map_err(|e| RequestError::caused(crate::error::Refusal::Internal, e))?
            .map_err(RequestError::from)?;
        // A remembered result stands for answers that are gone now.
        self.warm.results().clear();
        tracing::info!(removed, "judgment cache cleared");
        Ok(Response::new(ClearCacheResponse { removed }))
    }
}

/// The team level's mode on the wire (the same word: `the_mode_is_the_wires`).
fn wire_mode(mode: Mode) -> CacheMode {
    match mode {
        Mode::ReadWrite => CacheMode::ReadWrite,
        Mode::ReadOnly => CacheMode::ReadOnly,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mode_is_the_wires() {
        for mode in [Mode::ReadWrite, Mode::ReadOnly] {
            assert_eq!(wire_mode(mode).word(), mode.as_str());
        }
        assert_eq!(CacheMode::KNOWN.len(), 2);
    }
}
