//! Timestamps as values (`jiff::Timestamp`), and the one text form Stanley writes them in:
//! RFC 3339 in UTC with milliseconds (`2026-11-30T02:05:41.123Z`), in records, summaries, jobs
//! and run ids. Text is made only where a timestamp is written and read back only where one is
//! read from disk.

pub use jiff::Timestamp;

/// `t` as Stanley writes it: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn stamp(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// `t` to the second, with no separators (`20261130T020541Z`): run ids and folder names.
pub fn compact(t: Timestamp) -> String {
    t.strftime("%Y%m%dT%H%M%SZ").to_string()
}

/// A timestamp read back from text Stanley (or anyone) wrote in RFC 3339; `None` when it is not
/// one.
pub fn parse_stamp(text: &str) -> Option<Timestamp> {
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_milliseconds_in_utc_and_reads_its_own_text_back() {
        let at = |s: i64, ms: i32| Timestamp::new(s, ms * 1_000_000).unwrap();
        assert_eq!(stamp(at(0, 0)), "1970-01-01T00:00:00.000Z");
        assert_eq!(stamp(at(1_795_996_741, 5)), "2026-11-29T23:59:01.005Z");
        assert_eq!(stamp(at(951_782_400, 0)), "2000-02-29T00:00:00.000Z");
        for secs in [0, 951_782_400, 1_795_996_741, 4_102_444_799] {
            assert_eq!(parse_stamp(&stamp(at(secs, 7))), Some(at(secs, 7)));
        }
        assert_eq!(
            parse_stamp("2026-11-04T00:00:00Z").map(Timestamp::as_second),
            Some(1_793_750_400)
        );
        assert_eq!(parse_stamp("2026-13-01T00:00:00.000Z"), None);
        assert_eq!(parse_stamp("yesterday"), None);
        assert_eq!(compact(at(1_795_996_741, 5)), "20261129T235901Z");
    }
}
