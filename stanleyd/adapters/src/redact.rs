//! Redaction of secrets in text and JSON: the caller's key values, then well-known token shapes
//! (private keys, cloud and forge tokens, JWTs, bearer headers, URL credentials, assigned
//! secrets). Everything sent to Jev, written to `.stanley/runs/` or printed as a warning passes
//! through here.

use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_json::Value;
use stanley_workflows::ports::Redactor;

struct Pattern {
    kind: &'static str,
    regex: Regex,
}

fn compile(kind: &'static str, pattern: &str) -> Pattern {
    Pattern {
        kind,
        // The patterns are constants checked by the tests below.
        regex: Regex::new(pattern).expect("redaction patterns are valid"),
    }
}

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    vec![
        compile(
            "private_key",
            r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)",
        ),
        compile("aws_access_key", r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
        compile(
            "github_token",
            r"\bgh[oprsu]_[A-Za-z0-9]{30,}|\bgithub_pat_\w{30,}",
        ),
        compile("slack_token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
        compile(
            "api_key",
            r"\b(?:sk|pk|rk)[-_](?:live|test|proj|ant)[-_][A-Za-z0-9_-]{16,}|\bsk-[A-Za-z0-9_-]{32,}",
        ),
        compile("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}"),
        compile(
            "jwt",
            r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        ),
    ]
});

static BEARER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}").expect("valid pattern")
});
static URL_CREDENTIALS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([A-Za-z][A-Za-z0-9+.-]*://)[^\s:/@]+:[^\s/@]+@").expect("valid pattern")
});
static ASSIGNED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)([A-Za-z0-9_.-]*(?:api[_-]?key|secret|password|passwd|token|access[_-]?key|private[_-]?key|credential)[A-Za-z0-9_.-]*["']?\s*[:=]\s*["']?)([^\s"'`,;]{8,})"#,
    )
    .expect("valid pattern")
});
static SECRET_FIELD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(api[_-]?key|authorization|x-api-key)$").expect("valid pattern")
});

/// Redacts the given literal secrets (the caller's key values) and the built-in patterns.
#[derive(Clone, Debug, Default)]
pub struct SecretRedactor {
    secrets: Vec<String>,
}

/// The environment variables whose values are secrets to redact literally: the Jev keys, the
/// same list [`crate::child_env`] withholds from repository code.
pub use crate::child_env::JEV_KEY_VARS as SECRET_VARS;

impl SecretRedactor {
    /// A redactor for these literal secret values; values shorter than 8 characters (after
    /// trimming) are ignored, as they would match too much.
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .map(|s| s.trim().to_owned())
            .filter(|s| s.chars().count() >= 8)
            .collect();
        // Longest first, so a secret containing another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Self { secrets }
    }

    /// A redactor for the secret variables found in `lookup`.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Self {
        Self::new(SECRET_VARS.iter().filter_map(|v| lookup(v)))
    }

    fn redact_json(&self, value: &Value, count: &mut u64) -> Value {
        match value {
            Value::String(s) => {
                let (text, n) = self.text(s);
                *count += n;
                Value::String(text)
            }
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.redact_json(v, count)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let v = if SECRET_FIELD.is_match(k) {
                            Value::String("[REDACTED:field]".into())
                        } else {
                            self.redact_json(v, count)
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

fn keep_assigned(value: &str) -> bool {
    ["process.env", "env.", "${", "<", "[REDACTED"]
        .iter()
        .any(|p| value.starts_with(p))
        || value.contains('(')
        || value.contains(')')
        || (!value.chars().any(|c| c.is_ascii_digit()) && value.chars().count() < 20)
}

/// `opts` with every request redacted before it is sent or recorded (state and questions) and
/// every error detail redacted: the one place requests to Jev pass through `redactor`.
pub fn redacting(
    opts: stanley_core::ExecutorOptions,
    redactor: std::sync::Arc<SecretRedactor>,
) -> stanley_core::ExecutorOptions {
    let for_errors = redactor.clone();
    opts.prepare(std::sync::Arc::new(
        move |req: &mut stanley_core::JevRequest| {
            let (state, a) = redactor.json(&req.state);
            let (questions, b) = redactor.json(&req.questions);
            req.state = state;
            req.questions = questions;
            a + b
        },
    ))
    .redact(std::sync::Arc::new(move |t: &str| for_errors.text(t).0))
}

impl Redactor for SecretRedactor {
    fn text(&self, text: &str) -> (String, u64) {
        let mut count = 0u64;
        let mut out = text.to_owned();
        for secret in &self.secrets {
            let n = out.matches(secret.as_str()).count() as u64;
            if n > 0 {
                out = out.replace(secret.as_str(), "[REDACTED:env_secret]");
                count += n;
            }
        }
        for p in PATTERNS.iter() {
            let n = p.regex.find_iter(&out).count() as u64;
            if n > 0 {
                out = p
                    .regex
                    .replace_all(&out, format!("[REDACTED:{}]", p.kind).as_str())
                    .into_owned();
                count += n;
            }
        }
        let n = BEARER.find_iter(&out).count() as u64;
        if n > 0 {
            out = BEARER
                .replace_all(&out, "$1 [REDACTED:bearer_token]")
                .into_owned();
            count += n;
        }
        let n = URL_CREDENTIALS.find_iter(&out).count() as u64;
        if n > 0 {
            out = URL_CREDENTIALS
                .replace_all(&out, "${1}[REDACTED:url_credentials]@")
                .into_owned();
            count += n;
        }
        out = ASSIGNED
            .replace_all(&out, |caps: &Captures<'_>| {
                let value = &caps[2];
                if keep_assigned(value) {
                    caps[0].to_owned()
                } else {
                    count += 1;
                    format!("{}[REDACTED:assigned_secret]", &caps[1])
                }
            })
            .into_owned();
        (out, count)
    }

    fn json(&self, value: &Value) -> (Value, u64) {
        let mut count = 0;
        let out = self.redact_json(value, &mut count);
        (out, count)
    }
}

/// A redacted diagnostic, cut to `max` characters with `…`.
pub fn safe_message(redactor: &dyn Redactor, message: &str, max: usize) -> String {
    stanley_workflows::text::truncate_chars(&redactor.text(message).0, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn r() -> SecretRedactor {
        SecretRedactor::new(["sk-typesafe-test-key-123".to_owned(), "short".to_owned()])
    }

    #[test]
    fn redacts_env_secrets_and_patterns() {
        let cases = [
            (
                "key sk-typesafe-test-key-123 here",
                "key [REDACTED:env_secret] here",
            ),
            ("AKIAABCDEFGHIJKLMNOP", "[REDACTED:aws_access_key]"),
            (
                "t=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
                "t=[REDACTED:github_token]",
            ),
            ("xoxb-1234567890-abc", "[REDACTED:slack_token]"),
            ("sk_live_abcdefghijklmnop1234", "[REDACTED:api_key]"),
            (
                "AIzaSyA1234567890abcdefghijklmnopqrstuv",
                "[REDACTED:google_api_key]",
            ),
            (
                "eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeKKF2Q",
                "[REDACTED:jwt]",
            ),
            (
                "Authorization: Bearer abcdefghijklmnop1234",
                "Authorization: Bearer [REDACTED:bearer_token]",
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
                "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
                "[REDACTED:private_key]",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(r().text(input).0, want, "{input}");
            assert!(r().text(input).1 >= 1);
        }
    }

    #[test]
    fn leaves_ordinary_text_and_references_alone() {
        for text in [
            "token: process.env.TOKEN",
            "password = getPassword()",
            "secret: somewords",
            "short is not redacted",
            "const tokenizer = new Tokenizer();",
        ] {
            assert_eq!(r().text(text), (text.to_owned(), 0), "{text}");
        }
    }

    #[test]
    fn json_redacts_strings_and_credential_fields() {
        let (v, n) =
            r().json(&json!({"Authorization": "x", "a": ["sk-typesafe-test-key-123"], "n": 1}));
        assert_eq!(
            v,
            json!({"Authorization": "[REDACTED:field]", "a": ["[REDACTED:env_secret]"], "n": 1})
        );
        assert_eq!(n, 1);
    }
}
