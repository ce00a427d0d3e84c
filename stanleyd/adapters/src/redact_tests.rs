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
