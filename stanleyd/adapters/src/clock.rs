//! The system clock as RFC 3339 UTC text, and a random hex suffix for run ids.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

use stanley_workflows::ports::Clock;

/// Reads the system clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> String {
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        rfc3339(since.as_secs() as i64, since.subsec_millis())
    }
}

/// Formats seconds since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn rfc3339(secs: i64, millis: u32) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Reads `YYYY-MM-DDTHH:MM:SS[.fff]Z` (what [`rfc3339`] writes) back to seconds since the epoch.
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || !text.ends_with('Z') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| text.get(r)?.parse::<i64>().ok();
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, m, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || h > 23 || m > 59 || sec > 60 {
        return None;
    }
    // Days-from-civil (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + m * 60 + sec)
}

/// Seconds since the epoch now.
pub fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs() as i64
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
    fn formats_known_instants() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_795_996_741, 5), "2026-11-29T23:59:01.005Z");
        assert_eq!(rfc3339(951_782_400, 0), "2000-02-29T00:00:00.000Z");
        for secs in [0, 951_782_400, 1_795_996_741, 4_102_444_799] {
            assert_eq!(parse_rfc3339(&rfc3339(secs, 7)), Some(secs));
        }
        assert_eq!(parse_rfc3339("2026-13-01T00:00:00.000Z"), None);
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
