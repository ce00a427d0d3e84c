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

/// A moment in a record, written as [`stamp`] writes it and read back through
/// [`parse_stamp`]: a record whose time is no RFC 3339 text does not deserialize.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stamp(pub Timestamp);

impl Stamp {
    /// The epoch: a fixed time for tests and examples.
    pub const EPOCH: Stamp = Stamp(Timestamp::UNIX_EPOCH);

    /// `t` to the millisecond, as it reads back from what [`stamp`] writes: a record compared
    /// with its own copy read from disk is equal.
    pub fn to_millis(t: Timestamp) -> Stamp {
        Stamp(Timestamp::from_millisecond(t.as_millisecond()).unwrap_or(t))
    }
}

impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&stamp(self.0))
    }
}

impl serde::Serialize for Stamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&stamp(self.0))
    }
}

impl<'de> serde::Deserialize<'de> for Stamp {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        parse_stamp(&text)
            .map(Stamp)
            .ok_or_else(|| serde::de::Error::custom(format!("not a time: {text:?}")))
    }
}

/// An optional [`Stamp`] as records write it: its text, or `""` when there is none (a run not
/// finished, a run id without a time).
pub mod or_empty {
    use super::{Stamp, parse_stamp};

    pub fn serialize<S: serde::Serializer>(
        value: &Option<Stamp>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&value.map(|t| t.to_string()).unwrap_or_default())
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Stamp>, D::Error> {
        let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
        if text.is_empty() {
            return Ok(None);
        }
        parse_stamp(&text)
            .map(|t| Some(Stamp(t)))
            .ok_or_else(|| serde::de::Error::custom(format!("not a time: {text:?}")))
    }
}

/// The time [`compact`] wrote (`20261130T020541Z`), read back.
pub fn parse_compact(text: &str) -> Option<Timestamp> {
    let b = text.as_bytes();
    if b.len() != 16
        || b[8] != b'T'
        || b[15] != b'Z'
        || !b[..8].iter().chain(&b[9..15]).all(u8::is_ascii_digit)
    {
        return None;
    }
    parse_stamp(&format!(
        "{}-{}-{}T{}:{}:{}Z",
        &text[..4],
        &text[4..6],
        &text[6..8],
        &text[9..11],
        &text[11..13],
        &text[13..15]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compact_time_reads_back_to_the_second() {
        let at = Timestamp::new(1_795_996_741, 0).unwrap();
        assert_eq!(parse_compact(&compact(at)), Some(at));
        assert_eq!(parse_compact("20261130T02054Z"), None);
        assert_eq!(parse_compact("2026-11-30"), None);
    }

    #[test]
    fn a_stamp_in_a_record_is_its_text_and_nothing_else_reads_as_one() {
        let at = Stamp(Timestamp::new(1_795_996_741, 5_000_000).unwrap());
        let json = serde_json::to_string(&at).unwrap();
        assert_eq!(json, "\"2026-11-29T23:59:01.005Z\"");
        assert_eq!(serde_json::from_str::<Stamp>(&json).unwrap(), at);
        for not_a_time in ["\"\"", "\"t0\"", "\"yesterday\"", "17"] {
            assert!(
                serde_json::from_str::<Stamp>(not_a_time).is_err(),
                "{not_a_time}"
            );
        }
    }

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
