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

fn write_stable(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_stable(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_stable(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Lowercase hex SHA-256 of the stable JSON form of `value`. A string hashes as its JSON form,
/// quotes included.
pub fn stable_hash(value: &Value) -> String {
    sha256_hex(stable_json(value).as_bytes())
}

/// Lowercase hex SHA-256 of raw bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
    fn identical_content_gives_identical_ids_and_strings_hash_with_quotes() {
        let one = stable_id("f", &json!({"x": 1, "y": [2]}), 16);
        let two = stable_id("f", &json!({"y": [2], "x": 1}), 16);
        assert_eq!(one, two);
        assert_eq!(one.len(), 18);
        assert_ne!(stable_hash(&json!("abc")), sha256_hex(b"abc"));
        assert_eq!(stable_hash(&json!("abc")), sha256_hex(b"\"abc\""));
    }
}
