//! Freed memory handed back to the system while the daemon is quiet (the warm trim, D-150).
//!
//! jemalloc returns freed pages on its own over its decay time (one second, `.cargo/config.toml`),
//! but its background thread paces that purge: two seconds after the warm evidence was let go,
//! 16 MiB of freed pages were still resident in the warm bench. So at the trim each arena's decay
//! is set to zero: the background thread purges every freed page at its next wake (a fraction of
//! a second) and every later free is purged at once. The next request or activity puts the decay
//! back, so busy work keeps freed pages for reuse.

/// Purges the allocator's freed pages, and keeps purging at once until [`resume`]. Without
/// jemalloc (`--no-default-features`) it does nothing: the system allocator keeps its own counsel.
pub(crate) fn give_back() {
    #[cfg(feature = "jemalloc")]
    jemalloc::set_quiet();
}

/// Puts back the decay [`give_back`] set aside (a request or job begins); a no-op otherwise.
pub(crate) fn resume() {
    #[cfg(feature = "jemalloc")]
    jemalloc::set_busy();
}

#[cfg(feature = "jemalloc")]
mod jemalloc {
    use std::sync::Mutex;

    use tikv_jemalloc_ctl::{Access, AsName, Mib, arenas};

    /// The key of an arena's decay, `arena.<i>.dirty_decay_ms` (the index is its second part).
    type Decay = Mib<[usize; 3]>;

    /// Each arena's decay set aside by the trim, to be put back when work resumes.
    static SET_ASIDE: Mutex<Vec<(Decay, isize)>> = Mutex::new(Vec::new());

    /// Every arena's decay key and value, for the arenas that exist (the huge arena exists only
    /// after a huge allocation, and refuses to be read before).
    fn decays() -> Vec<(Decay, isize)> {
        let Ok(count) = arenas::narenas::read() else {
            return Vec::new();
        };
        let Ok(first) = b"arena.0.dirty_decay_ms\0".name().mib::<[usize; 3]>() else {
            return Vec::new();
        };
        (0..count as usize)
            .filter_map(|arena| {
                let mut mib = first;
                mib[1] = arena;
                let decay: isize = mib.read().ok()?;
                Some((mib, decay))
            })
            .collect()
    }

    pub(super) fn set_quiet() {
        let mut aside = SET_ASIDE.lock().unwrap_or_else(|e| e.into_inner());
        for (mib, decay) in decays() {
            if decay > 0 {
                match mib.write(0isize) {
                    Ok(()) => aside.push((mib, decay)),
                    Err(e) => {
                        tracing::debug!(error = %e, "could not purge an arena's freed pages");
                    }
                }
            }
        }
    }

    pub(super) fn set_busy() {
        let aside = std::mem::take(&mut *SET_ASIDE.lock().unwrap_or_else(|e| e.into_inner()));
        for (mib, decay) in aside {
            if let Err(e) = mib.write(decay) {
                tracing::debug!(error = %e, "could not restore an arena's decay");
            }
        }
    }

    /// The decay of arena 0 now (tests).
    #[cfg(test)]
    pub(super) fn decay_now() -> Option<isize> {
        decays().first().map(|(_, d)| *d)
    }

    /// Sets arena 0's decay (tests).
    #[cfg(test)]
    pub(super) fn set_decay(decay: isize) {
        if let Some((mib, ..)) = decays().first() {
            mib.write(decay).expect("set arena 0's decay");
        }
    }
}

// Each test runs in a process of its own (`cargo nextest`): the allocator's decay is the
// process's, and another test's request would put it back mid-test.
#[cfg(all(test, feature = "jemalloc", target_os = "linux"))]
mod tests {
    use std::time::{Duration, Instant};

    /// Anonymous resident memory of this process, in KiB.
    fn anon_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("RssAnon:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    /// With a decay of a minute, 64 MiB written in 64 KiB blocks and freed stay resident; the
    /// trim hands them back (polled, with a deadline well inside that minute), and the next work
    /// puts the decay back.
    #[test]
    fn the_trim_hands_freed_pages_back_and_work_keeps_them_again() {
        let configured = super::jemalloc::decay_now().expect("arena 0's decay");
        assert!(configured > 0, "the configured decay is {configured}");
        super::jemalloc::set_decay(60_000);
        let blocks: Vec<Vec<u8>> = (0..1024).map(|i| vec![i as u8; 64 * 1024]).collect();
        let held = anon_kib();
        drop(std::hint::black_box(blocks));
        super::give_back();
        assert_eq!(super::jemalloc::decay_now(), Some(0));
        let deadline = Instant::now() + Duration::from_secs(10);
        while anon_kib() + 32 * 1024 > held && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let after = anon_kib();
        super::resume();
        assert_eq!(super::jemalloc::decay_now(), Some(60_000));
        // A second resume has nothing set aside, and changes nothing.
        super::resume();
        assert_eq!(super::jemalloc::decay_now(), Some(60_000));
        super::jemalloc::set_decay(configured);
        assert!(
            after + 32 * 1024 <= held,
            "freed pages still resident after the trim: {held} KiB then {after} KiB"
        );
    }
}
