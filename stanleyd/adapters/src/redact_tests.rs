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
fn a_remembered_text_passes_again_as_it_was_redacted() {
    let r = r();
    let clean = "fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n".repeat(20);
    assert_eq!(r.text(&clean), (clean.clone(), 0));
    // The second time it is remembered, and comes back the same.
    assert_eq!(r.text(&clean), (clean.clone(), 0));
    assert_eq!(r.remembered().clean.len(), 1);
    // A text with a secret is remembered with its redacted form: every pass gives the same
    // form and count, and the secret is never in what is kept.
    let dirty = format!("{clean}password = \"hunter2hunter2\"\n");
    let first = r.text(&dirty);
    assert_eq!(first.1, 1, "{}", first.0);
    assert!(!first.0.contains("hunter2hunter2"));
    assert_eq!(r.text(&dirty), first);
    let known = r.remembered();
    assert_eq!((known.clean.len(), known.redacted.len()), (1, 1));
    assert!(
        known
            .redacted
            .values()
            .all(|(out, _)| !out.contains("hunter2"))
    );
    drop(known);
    // Short texts are remembered too: a short secret-shaped assignment is still redacted.
    assert_eq!(r.text("token"), ("token".to_owned(), 0));
    let short = r.text("DB_PASS=s3cr3t");
    assert_eq!(short.1, 1, "{}", short.0);
    assert_eq!(r.text("DB_PASS=s3cr3t"), short);
    let known = r.remembered();
    assert_eq!((known.clean.len(), known.redacted.len()), (2, 2));
    drop(known);
    // What is remembered is what is given: a planted form comes back without a scan.
    let planted = "a text only the memory has seen";
    let key = r.clean.fingerprint(planted);
    r.remembered()
        .redacted
        .insert(key, (std::sync::Arc::from("[planted]"), 7));
    assert_eq!(r.text(planted), ("[planted]".to_owned(), 7));
    r.remembered().redacted.remove(&key);
    let secret = "password = \"planted-secret-value\"";
    r.remembered().clean.insert(r.clean.fingerprint(secret));
    assert_eq!(
        r.text(secret).1,
        0,
        "a text remembered clean passes unscanned"
    );
    r.remembered().clean.clear();
    assert_eq!(r.text(secret).1, 1);
    // Another redactor of the same secrets starts with nothing, unless both share a memory.
    assert_eq!(self::r().remembered().clean.len(), 0);
    let memory = CleanMemory::default();
    let (a, b) = (memory.attach(self::r()), memory.attach(self::r()));
    a.text(&clean);
    assert_eq!(
        b.remembered().clean.len(),
        1,
        "the next request knows the text is clean"
    );
    let other = memory.attach(SecretRedactor::new(["another-secret-value".to_owned()]));
    assert_eq!(
        other.remembered().clean.len(),
        0,
        "other secrets start afresh"
    );
    let dirty_for_other = format!("{clean}another-secret-value\n");
    assert_eq!(other.text(&dirty_for_other).1, 1);
    // The text the first set found clean is redacted under the second.
    assert_eq!(other.text(&dirty_for_other).1, 1);
    memory.clear();
    assert_eq!(memory.attach(self::r()).remembered().clean.len(), 0);
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

/// The redaction of a value, written plainly as a model: each string through `text`, each
/// string under a secret-named field or an auth header replaced whole.
fn model(r: &SecretRedactor, v: &serde_json::Value, count: &mut u64) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::String(s) => {
            let (t, n) = r.text(s);
            *count += n;
            Value::String(t)
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| model(r, i, count)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| match v {
                    Value::String(s)
                        if is_auth_header(k) || crate::redact_keys::secret_field(k, s) =>
                    {
                        *count += 1;
                        (k.clone(), Value::String("[REDACTED:field]".into()))
                    }
                    _ => (k.clone(), model(r, v, count)),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// What the redactor gives, as a value, redacted in place and as text written while redacting,
/// equals the model above, byte for byte and in count, for every shape in the table (as strings,
/// as values under their own names, in arrays), the near-misses, and fields redacted by their
/// names, compact and indented.
#[test]
fn json_text_writes_what_the_redacted_tree_would() {
    let mut rows = Vec::new();
    for (line, _) in secret_shapes() {
        let name = line.split(['=', ':', ' ']).next().unwrap_or("x").to_owned();
        rows.push(json!({"line": line, name: line, "in": [line, 1, null, {"deep": line}]}));
    }
    for line in near_misses() {
        rows.push(json!({"near": line, "n": 2.5, "ok": true}));
    }
    rows.push(json!({
        "Authorization": "x", "a": ["sk-typesafe-test-key-123"], "n": 1,
        "db_password": "hunter", "password_min_length": "12", "token": "${TOKEN}",
        "text": "a clean text long enough to be remembered by the redactor", "é": "ünïcode \" \\ \n"
    }));
    let value = json!({"rows": rows, "empty": {}, "none": []});
    let redactor = r();
    // Twice: the second pass meets texts the first one remembered as clean.
    for _ in 0..2 {
        let mut n = 0;
        let tree = model(&redactor, &value, &mut n);
        assert_eq!(redactor.json(&value), (tree.clone(), n));
        let mut in_place = value.clone();
        assert_eq!(redactor.json_in_place(&mut in_place), n);
        assert_eq!(in_place, tree, "redacted where it stands");
        for pretty in [false, true] {
            let expected = if pretty {
                serde_json::to_vec_pretty(&tree)
            } else {
                serde_json::to_vec(&tree)
            }
            .unwrap();
            let (text, m) = redactor.json_text(&value, pretty);
            assert_eq!(
                String::from_utf8(text).unwrap(),
                String::from_utf8(expected).unwrap()
            );
            assert_eq!(m, n);
        }
        assert!(n > 10, "the table's secrets were found ({n})");
    }
}

/// The executor's redaction hook remembers a request found clean by the SHA-256 of its content
/// (D-175): the same content is not walked again, a request with a secret is never remembered,
/// and another set of secrets starts afresh.
#[test]
fn a_request_found_clean_is_known_by_its_digest_and_a_dirty_one_never() {
    use stanley_core::{ExecutorOptions, JevRequest};
    let memory = CleanMemory::default();
    let opts = redacting(ExecutorOptions::new("m"), Arc::new(memory.attach(r())));
    let prepare = opts.prepare_hook().expect("a prepare hook");
    let request = |state: serde_json::Value| JevRequest {
        model: "m".into(),
        state,
        questions: json!({"q": {"type": "noul", "instructions": "Is it?"}}),
    };
    let (clean, dirty) = ("a".repeat(64), "b".repeat(64));
    let mut first = request(json!({"hunk": "fn f() {}"}));
    assert_eq!(prepare.apply(&mut first, &clean), 0);
    let attached = memory.attach(r());
    assert!(attached.clean.request_known_clean(&clean));
    // A request with a secret is rewritten and counted, and its digest is not remembered.
    let mut secret = request(json!({"hunk": "password = \"hunter2hunter2\""}));
    assert_eq!(prepare.apply(&mut secret, &dirty), 1);
    assert!(!secret.state["hunk"].as_str().unwrap().contains("hunter2"));
    assert!(!attached.clean.request_known_clean(&dirty));
    let mut again = request(json!({"hunk": "password = \"hunter2hunter2\""}));
    assert_eq!(prepare.apply(&mut again, &dirty), 1, "walked again");
    // What is remembered is what is given: a digest known clean passes unwalked, which is why
    // only the executor's SHA-256 of the content is ever used as one.
    let mut planted = request(json!({"hunk": "password = \"planted-secret-value\""}));
    assert_eq!(prepare.apply(&mut planted, &clean), 0);
    // Anything but a SHA-256 is never a key.
    attached.clean.keep_clean_request("short");
    assert!(!attached.clean.request_known_clean("short"));
    let other = memory.attach(SecretRedactor::new(["another-secret-value".to_owned()]));
    assert!(
        !other.clean.request_known_clean(&clean),
        "other secrets start afresh"
    );
}
