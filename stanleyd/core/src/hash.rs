//! Stable JSON serialization (sorted keys), SHA-256 hashes of it, and the short ids derived from
//! them (`f_…` frame ids, `h_…` hunk ids).

use std::io::Write;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Serializes `value` as compact JSON with object keys sorted by UTF-16 code unit order, so the
/// same content always gives the same text whatever order it was built in.
pub fn stable_json(value: &Value) -> String {
    // Only `serde_json`'s output and ASCII punctuation were written: the bytes are UTF-8.
    String::from_utf8(stable_bytes(value)).unwrap_or_default()
}

/// [`stable_json`] as bytes: what [`Field::Raw`] takes, so a value serialized once can be
/// hashed into several objects.
pub fn stable_bytes(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_stable(value, &mut out);
    out
}

/// A value's stable JSON ([`stable_bytes`]), written straight from a typed value whose objects
/// list their keys in sorted order (struct fields declared in that order, no hash maps), so no
/// `Value` tree is built for it (D-230). In debug builds each one is checked against the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StableJson(Vec<u8>);

impl StableJson {
    /// `value` written as compact JSON, which is its stable JSON when its keys come sorted.
    pub fn of<T: serde::Serialize + ?Sized>(value: &T) -> Self {
        // A struct of strings, numbers, options and sequences always serializes.
        let bytes = serde_json::to_vec(value).unwrap_or_default();
        debug_assert_eq!(
            String::from_utf8_lossy(&bytes),
            stable_json(&serde_json::to_value(value).unwrap_or_default()),
            "a typed state must list its keys in stable order"
        );
        Self(bytes)
    }

    /// The stable JSON of a tree.
    pub fn from_value(value: &Value) -> Self {
        Self(stable_bytes(value))
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The bytes, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }

    /// The value the text holds (its objects' keys in sorted order).
    pub fn to_value(&self) -> Value {
        // Written by `serde_json` from a value: it parses back.
        serde_json::from_slice(&self.0).unwrap_or_default()
    }
}

/// A field of an object hashed without building it ([`stable_hash_object`]).
#[derive(Clone, Copy, Debug)]
pub enum Field<'a> {
    /// A string value.
    Str(&'a str),
    /// Any JSON value.
    Json(&'a Value),
    /// A value's stable JSON, already written ([`stable_bytes`]).
    Raw(&'a [u8]),
}

/// Lowercase hex SHA-256 of the stable JSON form of the object made of `fields`, without
/// building it: the same as [`stable_hash`] of that object.
pub fn stable_hash_object(fields: &[(&str, Field<'_>)]) -> String {
    let mut sorted: Vec<&(&str, Field<'_>)> = fields.iter().collect();
    sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    // The text is written whole and hashed in one pass: `serde_json` writes a string in many
    // small pieces, each of which would be a call into the hash.
    let mut text = Vec::new();
    text.push(b'{');
    for (i, (key, field)) in sorted.into_iter().enumerate() {
        if i > 0 {
            text.push(b',');
        }
        write_leaf(key, &mut text);
        text.push(b':');
        match field {
            Field::Str(leaf) => write_leaf(leaf, &mut text),
            Field::Json(value) => write_stable(value, &mut text),
            Field::Raw(bytes) => text.extend_from_slice(bytes),
        }
    }
    text.push(b'}');
    sha256_hex(&text)
}

/// A string, number, boolean or null exactly as `serde_json` writes it.
pub(crate) fn write_leaf<T: serde::Serialize + ?Sized>(leaf: &T, out: &mut impl Write) {
    // The sinks are a `Vec` and a hasher, which never fail, and a leaf always serializes.
    let _ = serde_json::to_writer(out, leaf);
}

/// Writes `value`'s stable JSON into `out` (text, or straight into a hash).
pub(crate) fn write_stable(value: &Value, out: &mut impl Write) {
    // As in `write_leaf`: writing to a `Vec` or a hasher cannot fail.
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| utf16_order(a.0, b.0));
            let _ = out.write_all(b"{");
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    let _ = out.write_all(b",");
                }
                write_leaf(key.as_str(), out);
                let _ = out.write_all(b":");
                write_stable(item, out);
            }
            let _ = out.write_all(b"}");
        }
        Value::Array(items) => {
            let _ = out.write_all(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    let _ = out.write_all(b",");
                }
                write_stable(item, out);
            }
            let _ = out.write_all(b"]");
        }
        leaf => write_leaf(leaf, out),
    }
}

/// Writes an object of `entries` as stable JSON lists it (keys in [`utf16_order`]), each value
/// by `value`; None when a key repeats (a tree keeps one of them: the caller writes the tree)
/// or `value` gives up.
pub(crate) fn write_sorted_object<T>(
    entries: &[(String, T)],
    out: &mut Vec<u8>,
    mut value: impl FnMut(&T, &mut Vec<u8>) -> Option<()>,
) -> Option<()> {
    let mut sorted: Vec<&(String, T)> = entries.iter().collect();
    sorted.sort_by(|a, b| utf16_order(&a.0, &b.0));
    if sorted.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    out.push(b'{');
    for (i, (key, item)) in sorted.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_leaf(key.as_str(), out);
        out.push(b':');
        value(item, out)?;
    }
    out.push(b'}');
    Some(())
}

/// The order stable JSON lists an object's keys in: by UTF-16 code unit.
pub(crate) fn utf16_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Lowercase hex SHA-256 of the stable JSON form of `value`. A string hashes as its JSON form,
/// quotes included.
pub fn stable_hash(value: &Value) -> String {
    sha256_hex(&stable_bytes(value))
}

/// Lowercase hex SHA-256 of raw bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    out
}

/// `<prefix>_<first n hex chars of stable_hash(value)>`.
pub fn stable_id(prefix: &str, value: &Value, n: usize) -> String {
    short_id(prefix, &stable_hash(value), n)
}

/// `<prefix>_<first n chars of hash>`.
pub fn short_id(prefix: &str, hash: &str, n: usize) -> String {
    format!("{prefix}_{}", &hash[..n.min(hash.len())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_at_every_depth() {
        let a = json!({"b": 1, "a": {"d": [1, {"z": 1, "y": 2}], "c": "x"}});
        assert_eq!(
            stable_json(&a),
            r#"{"a":{"c":"x","d":[1,{"y":2,"z":1}]},"b":1}"#
        );
    }

    #[test]
    fn every_string_hashes_as_its_serde_json_text() {
        let mut text: String = (0u8..0x80).map(char::from).collect();
        text.push_str("é ∑ 😀 \u{2028} \\\" /");
        for sample in [text.as_str(), "", "\"", "a\\b"] {
            let value = Value::from(sample);
            let json = serde_json::to_string(sample).unwrap();
            assert_eq!(stable_json(&value), json);
            assert_eq!(stable_hash(&value), sha256_hex(json.as_bytes()));
        }
    }

    #[test]
    fn an_object_hashed_from_its_fields_is_the_object_hashed_whole() {
        let state = json!({"b": [1, 2.5, null, true], "a": {"z": "x\ny", "é": false}});
        let whole = json!({"template": "t@1", "scope": "h_1", "state": state, "q": -3});
        let fields = stable_hash_object(&[
            ("template", Field::Str("t@1")),
            ("scope", Field::Str("h_1")),
            ("state", Field::Json(&state)),
            ("q", Field::Json(&json!(-3))),
        ]);
        assert_eq!(fields, stable_hash(&whole));
        let raw = stable_hash_object(&[
            ("template", Field::Str("t@1")),
            ("scope", Field::Str("h_1")),
            ("state", Field::Raw(&stable_bytes(&state))),
            ("q", Field::Json(&json!(-3))),
        ]);
        assert_eq!(raw, fields);
        assert_eq!(
            stable_hash(&whole),
            sha256_hex(stable_json(&whole).as_bytes())
        );
    }

    #[test]
    fn identical_content_gives_identical_ids_and_strings_hash_with_quotes() {
        let one = stable_id("f", &json!({"x": 1, "y": [2]}), 16);
        let two = stable_id("f", &json!({"y": [2], "x": 1}), 16);
        assert_eq!(one, two);
        assert_eq!(one.len(), 18);
        assert_ne!(stable_hash(&json!("abc")), sha256_hex(b"abc"));
        assert_eq!(stable_hash(&json!("abc")), sha256_hex(b"\"abc\""));
    }
}
