//! Stable JSON serialization (sorted keys), SHA-256 hashes of it, and the short ids derived from
//! them (`f_…` frame ids, `h_…` hunk ids).

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Serializes `value` as compact JSON with object keys sorted by UTF-16 code unit order, so the
/// same content always gives the same text whatever order it was built in.
pub fn stable_json(value: &Value) -> String {
    let mut out = String::new();
    write_stable(value, &mut out);
    out
}

/// Where stable JSON goes: a string, or straight into a hash (no text is built).
trait Sink {
    fn put(&mut self, text: &str);
}

impl Sink for String {
    fn put(&mut self, text: &str) {
        self.push_str(text);
    }
}

impl Sink for Sha256 {
    fn put(&mut self, text: &str) {
        self.update(text.as_bytes());
    }
}

/// A field of an object hashed without building it ([`stable_hash_object`]).
#[derive(Clone, Copy, Debug)]
pub enum Field<'a> {
    /// A string value.
    Str(&'a str),
    /// Any JSON value.
    Json(&'a Value),
}

/// Lowercase hex SHA-256 of the stable JSON form of the object made of `fields`, without
/// building it: the same as [`stable_hash`] of that object.
pub fn stable_hash_object(fields: &[(&str, Field<'_>)]) -> String {
    let mut sorted: Vec<&(&str, Field<'_>)> = fields.iter().collect();
    sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    let mut hasher = Sha256::new();
    hasher.put("{");
    for (i, (key, field)) in sorted.into_iter().enumerate() {
        if i > 0 {
            hasher.put(",");
        }
        write_string(key, &mut hasher);
        hasher.put(":");
        match field {
            Field::Str(text) => write_string(text, &mut hasher),
            Field::Json(value) => write_stable(value, &mut hasher),
        }
    }
    hasher.put("}");
    hex(&hasher.finalize())
}

/// A JSON string as `serde_json` writes it: quotes, backslashes and control characters
/// escaped, everything else as it is.
fn write_string(text: &str, out: &mut impl Sink) {
    out.put("\"");
    let mut start = 0;
    for (i, byte) in text.bytes().enumerate() {
        let escaped = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.put(&text[start..i]);
        if escaped.is_empty() {
            out.put(&format!("\\u{byte:04x}"));
        } else {
            out.put(escaped);
        }
        start = i + 1;
    }
    out.put(&text[start..]);
    out.put("\"");
}

fn write_stable(value: &Value, out: &mut impl Sink) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.put("{");
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.put(",");
                }
                write_string(key, out);
                out.put(":");
                write_stable(item, out);
            }
            out.put("}");
        }
        Value::Array(items) => {
            out.put("[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.put(",");
                }
                write_stable(item, out);
            }
            out.put("]");
        }
        Value::String(text) => write_string(text, out),
        Value::Null => out.put("null"),
        Value::Bool(true) => out.put("true"),
        Value::Bool(false) => out.put("false"),
        Value::Number(n) => out.put(&n.to_string()),
    }
}

/// Lowercase hex SHA-256 of the stable JSON form of `value`. A string hashes as its JSON form,
/// quotes included.
pub fn stable_hash(value: &Value) -> String {
    let mut hasher = Sha256::new();
    write_stable(value, &mut hasher);
    hex(&hasher.finalize())
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
    let hash = stable_hash(value);
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
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut text: String = (0u8..0x80).map(char::from).collect();
        text.push_str("é ∑ 😀 \u{2028} \\\" /");
        for sample in [text.as_str(), "", "plain", "\"", "a\\b"] {
            let mut mine = String::new();
            write_string(sample, &mut mine);
            assert_eq!(mine, serde_json::to_string(sample).unwrap(), "{sample:?}");
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
