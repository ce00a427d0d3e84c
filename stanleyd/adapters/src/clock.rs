//! The system clock (a `jiff` timestamp), and a random hex suffix for run ids.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

use stanley_workflows::ports::Clock;
use stanley_workflows::time::Timestamp;

/// Reads the system clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// Now, as a record's time.
pub fn now() -> stanley_workflows::time::Stamp {
    stanley_workflows::time::Stamp::to_millis(Timestamp::now())
}

/// Reads a timestamp written in RFC 3339 (as Stanley writes them) back to seconds since the
/// epoch.
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    stanley_workflows::time::parse_stamp(text).map(Timestamp::as_second)
}

/// Seconds since the epoch now.
pub fn unix_now() -> i64 {
    Timestamp::now().as_second()
}

/// Six random hex digits, from the operating system's random source (`getrandom`).
pub fn random_hex6() -> String {
    let mut bytes = [0u8; 3];
    if getrandom::getrandom(&mut bytes).is_err() {
        // No random source at all (a sandbox without getrandom(2) or /dev/urandom): a
        // per-process keyed hash of the clock still keeps ids of one process apart.
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u128(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos(),
        );
        bytes.copy_from_slice(&hasher.finish().to_le_bytes()[..3]);
    }
    format!("{:02x}{:02x}{:02x}", bytes[0], bytes[1], bytes[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_what_it_writes() {
        let now = SystemClock.now();
        let text = stanley_workflows::time::stamp(now);
        assert_eq!(parse_rfc3339(&text), Some(now.as_second()));
        assert!((unix_now() - now.as_second()).abs() < 60);
        assert_eq!(parse_rfc3339("yesterday"), None);
        assert_eq!(random_hex6().len(), 6);
    }

    #[test]
    fn random_ids_are_six_hex_digits_and_differ() {
        let ids: std::collections::HashSet<String> = (0..64).map(|_| random_hex6()).collect();
        assert!(
            ids.iter()
                .all(|id| id.len() == 6 && id.chars().all(|c| c.is_ascii_hexdigit()))
        );
        // 64 draws from 16.7 million values: a repeat is a broken source, not chance.
        assert!(ids.len() >= 63, "{ids:?}");
    }
}
