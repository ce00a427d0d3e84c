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
            let doc = serde_json::json!({
                "schema": "stanley.cache-stats/v1",
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
