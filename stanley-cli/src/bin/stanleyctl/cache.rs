//! `stanleyctl cache stats|clear`: the judgment cache, through the `Cache` service.

use std::process::ExitCode;

use stanley_cli::daemon::{Target, channel};
use stanley_cli::exit::ClientError;
use stanley_proto::v1::cache_client::CacheClient;
use stanley_proto::v1::{ClearCacheRequest, GetCacheStatsRequest};

/// `12345678` bytes as `11.8 MiB`.
fn size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b >= KIB * KIB {
        format!("{:.1} MiB", b / KIB / KIB)
    } else if b >= KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{bytes} B")
    }
}

pub(crate) fn cache(target: &Target, sub: &clap::ArgMatches, json: bool) -> ExitCode {
    let action = sub.subcommand_name().unwrap_or("stats").to_owned();
    crate::client_command(async move {
        let mut client = CacheClient::new(channel(target).await?);
        let status = |s: tonic::Status| ClientError::from_status(&s);
        if action == "clear" {
            let r = client
                .clear_cache(ClearCacheRequest {})
                .await
                .map_err(status)?
                .into_inner();
            if json {
                stanley_cli::outln!("{}", serde_json::json!({"removed": r.removed}));
            } else {
                stanley_cli::outln!("removed {} cached answers", r.removed);
            }
            return Ok(());
        }
        let s = client
            .get_cache_stats(GetCacheStatsRequest {})
            .await
            .map_err(status)?
            .into_inner();
        if json {
            let team = s.team.as_ref().map(|t| {
                serde_json::json!({
                    "store": t.store,
                    "mode": t.resolved_cache_mode().word(),
                    "hits": t.hits,
                    "misses": t.misses,
                    "ignored": {
                        "unsigned": t.ignored_unsigned,
                        "foreign": t.ignored_foreign,
                        "tampered": t.ignored_tampered,
                        "malformed": t.ignored_malformed,
                        "oversized": t.ignored_oversized,
                        "stale": t.ignored_stale,
                    },
                    "slow": t.slow,
                    "timeouts": t.timeouts,
                    "errors": t.errors,
                    "bypassed": t.bypassed,
                    "writes": t.writes,
                    "writesDropped": t.writes_dropped,
                    "bypassing": t.bypassing,
                })
            });
            let doc = serde_json::json!({
                "schema": "stanley.cache-stats/v1",
                "team": team,
                "path": s.path,
                "entries": s.entries,
                "bytes": s.bytes,
                "maxBytes": s.max_bytes,
                "diskBytes": s.disk_bytes,
                "hits": s.hits,
                "misses": s.misses,
                "evictions": s.evictions,
            });
            stanley_cli::outln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        } else {
            stanley_cli::outln!("judgment cache  {}", s.path);
            stanley_cli::outln!(
                "answers         {} ({} of {} bound, {} on disk)",
                s.entries,
                size(s.bytes),
                size(s.max_bytes),
                size(s.disk_bytes)
            );
            stanley_cli::outln!(
                "since start     {} hits, {} misses, {} evicted",
                s.hits,
                s.misses,
                s.evictions
            );
            match &s.team {
                None => stanley_cli::outln!(
                    "team cache      not in use (no request since the daemon started set STANLEY_CACHE_REMOTE)"
                ),
                Some(t) => {
                    stanley_cli::outln!(
                        "team cache      {} ({})",
                        t.store,
                        t.resolved_cache_mode().word()
                    );
                    let ignored = t.ignored_unsigned
                        + t.ignored_foreign
                        + t.ignored_tampered
                        + t.ignored_malformed
                        + t.ignored_oversized
                        + t.ignored_stale;
                    stanley_cli::outln!(
                        "since start     {} hits, {} misses, {} written, {} ignored ({} unsigned, {} foreign, {} tampered, {} malformed, {} oversized, {} stale)",
                        t.hits,
                        t.misses,
                        t.writes,
                        ignored,
                        t.ignored_unsigned,
                        t.ignored_foreign,
                        t.ignored_tampered,
                        t.ignored_malformed,
                        t.ignored_oversized,
                        t.ignored_stale
                    );
                    stanley_cli::outln!(
                        "trouble         {} timeouts, {} slow spells, {} errors, {} skipped while bypassed, {} writes dropped{}",
                        t.timeouts,
                        t.slow,
                        t.errors,
                        t.bypassed,
                        t.writes_dropped,
                        if t.bypassing { " · bypassed now" } else { "" }
                    );
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::size;

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(size(512), "512 B");
        assert_eq!(size(2048), "2.0 KiB");
        assert_eq!(size(32 * 1024 * 1024), "32.0 MiB");
    }
}
