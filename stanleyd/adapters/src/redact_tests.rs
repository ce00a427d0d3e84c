//! The redaction table: the secret shapes people commit (each must vanish) and the near-misses
//! that must stay readable, from `tests/fixtures/redaction/shapes.json`, the table the end-to-end
//! test (`tests/e2e/redaction.rs`) also uses for Jev requests, records, the daemon log and stdout.

use super::*;
use serde_json::json;

fn r() -> SecretRedactor {
    SecretRedactor::new(["sk-typesafe-test-key-123".to_owned(), "short".to_owned()])
}

/// The table (`tests/fixtures/redaction/shapes.json`): `secrets` holds `[line as committed,
/// the part that must not survive]`, `nearMisses` lines that must stay readable.
fn table() -> serde_json::Value {
    serde_json::from_str(include_str!(
        "../../../tests/fixtures/redaction/shapes.json"
    ))
    .expect("the redaction table is JSON")
}

fn secret_shapes() -> Vec<(String, String)> {
    table()["secrets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p[0].as_str().unwrap().to_owned(),
                p[1].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn near_misses() -> Vec<String> {
    table()["nearMisses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_committed_secret_shape_is_redacted() {
    let shapes = secret_shapes();
    assert!(shapes.len() >= 30, "at least 30 shapes");
    for (line, secret) in shapes {
        let (out, n) = r().text(&line);
        assert!(n >= 1, "nothing redacted in {line:?}");
        assert!(!out.contains(&secret), "{secret:?} survived in {out:?}");
        assert!(out.contains("[REDACTED:"), "{out:?}");
    }
}

#[test]
fn near_misses_stay_readable() {
    for line in near_misses() {
        assert_eq!(r().text(&line), (line.clone(), 0), "{line}");
    }
}

#[test]
fn what_is_kept_around_a_redaction() {
    let cases = [
        (
            "key sk-typesafe-test-key-123 here",
            "key [REDACTED:env_secret] here",
        ),
        (
            "https://user:pa55@example.com/x",
            "https://[REDACTED:url_credentials]@example.com/x",
        ),
        (
            "password = \"hunter22xyz\"",
            "password = \"[REDACTED:assigned_secret]\"",
        ),
        (
            "DB_PASS=letmein psql -h db",
            "DB_PASS=[REDACTED:assigned_secret] psql -h db",
        ),
        (
            "password: correct horse battery # rotated monthly",
            "password: [REDACTED:assigned_secret] # rotated monthly",
        ),
        ("short is not redacted", "short is not redacted"),
        (
            "+key:\n+  password: |\n+    line one\n+    line two\n+  user: bob",
            "+key:\n+  password: |\n[REDACTED:assigned_secret]\n+  user: bob",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(r().text(input).0, want, "{input}");
    }
}

#[test]
fn json_redacts_strings_and_secret_fields() {
    let (v, n) = r().json(&json!({
        "Authorization": "x", "a": ["sk-typesafe-test-key-123"], "n": 1,
        "db_password": "hunter", "password_min_length": "12", "token": "${TOKEN}"
    }));
    assert_eq!(
        v,
        json!({"Authorization": "[REDACTED:field]", "a": ["[REDACTED:env_secret]"], "n": 1,
               "db_password": "[REDACTED:field]", "password_min_length": "12",
               "token": "${TOKEN}"})
    );
    assert_eq!(n, 3);
}

#[test]
fn secret_keys_by_name() {
    for key in [
        "password",
        "DB_PASS",
        "dbpass",
        "mysql_pwd",
        "client_secret",
        "apiKey",
        "X_API_KEY",
        "SENTRY_DSN",
        "auth",
        "_authToken",
        "secret_key_base",
        "AccountKey",
        "--password",
    ] {
        assert!(secret_key(key), "{key}");
    }
    for key in [
        "password_min_length",
        "max_tokens",
        "tokenizer",
        "bypass",
        "public_key",
        "token_type",
        "primary_key",
        "author",
        "passport",
        "secret_name",
    ] {
        assert!(!secret_key(key), "{key}");
    }
}

#[test]
fn a_remembered_clean_text_passes_again_and_a_text_with_a_secret_is_always_scanned() {
    let r = r();
    let clean = "fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n".repeat(20);
    assert_eq!(r.text(&clean), (clean.clone(), 0));
    // The second time it is remembered, and comes back the same.
    assert_eq!(r.text(&clean), (clean.clone(), 0));
    assert_eq!(r.remembered().len(), 1);
    // A text with a secret is never remembered: each pass redacts it.
    let dirty = format!("{clean}password = \"hunter2hunter2\"\n");
    for _ in 0..2 {
        let (out, n) = r.text(&dirty);
        assert_eq!(n, 1, "{out}");
        assert!(!out.contains("hunter2hunter2"));
    }
    assert_eq!(r.remembered().len(), 1);
    // Short texts are not remembered; a clone starts with nothing remembered.
    r.text("token");
    assert_eq!(r.remembered().len(), 1);
    assert_eq!(r.clone().remembered().len(), 0);
    // Redacting JSON remembers its long strings the same way.
    let doc = serde_json::json!({"state": {"content": clean}, "key": "sk-typesafe-test-key-123"});
    let (out, n) = r.json(&doc);
    assert_eq!(n, 1);
    assert_eq!(out["state"]["content"], doc["state"]["content"]);
    assert!(
        !format!("{:?}", r).contains("sk-typesafe"),
        "Debug never prints a secret"
    );
}
