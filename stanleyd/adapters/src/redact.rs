//! Redaction of secrets in text and JSON: the caller's key values, then well-known token shapes
//! (private keys, cloud, forge, chat and payment tokens, JWTs, bearer headers, URL
//! credentials), then assignments whose key names a secret (`password`, `DB_PASS`, `mysql_pwd`,
//! `client_secret`, `api_key`, `SENTRY_DSN`, ...) whatever the value's length, in code, env files,
//! YAML, JSON and connection strings. Everything sent to Jev, written to `.stanley/runs/` or the
//! daemon log, and everything Stanley prints passes through here.

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
            r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
        ),
        compile("aws_access_key", r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
        compile(
            "github_token",
            r"\bgh[oprsu]_[A-Za-z0-9]{30,}|\bgithub_pat_\w{30,}",
        ),
        compile(
            "gitlab_token",
            r"\bgl(?:pat|dt|rt|ptt|cbt|soat|imt|ffct|oas|ft)-[A-Za-z0-9_-]{20,}",
        ),
        compile("slack_token", r"\bxox[abprse]-[A-Za-z0-9-]{10,}"),
        compile(
            "slack_webhook",
            r"https://hooks\.slack\.com/services/[A-Za-z0-9_/-]{20,}",
        ),
        compile(
            "api_key",
            r"\b(?:sk|pk|rk)[-_](?:live|test|proj|ant)[-_][A-Za-z0-9_-]{16,}|\bsk-[A-Za-z0-9_-]{32,}|\bwhsec_[A-Za-z0-9]{24,}",
        ),
        compile("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        compile(
            "sendgrid_key",
            r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
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

/// `key <sep> value`: the key (a flag, a dotted or plain identifier, possibly quoted), the
/// separator (`:`, `=`, `=>`) and the value: quoted (any length), or unquoted. An unquoted value
/// after a bare `=` (env files, shell) ends at whitespace; after `:` or a spaced `=` (YAML, INI,
/// code) it runs to the end of the line, a comment or a closing bracket.
static ASSIGNED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?P<key>(?:--?)?\b[A-Za-z_][A-Za-z0-9_.-]*)(?P<kq>["']?)(?P<sep>\s*(?::|=>|=)\s*)(?:"(?P<dq>[^"\n]*)"|'(?P<sq>[^'\n]*)'|`(?P<bq>[^`\n]*)`|(?P<bare>[^\s"'`,;&|]+))"#,
    )
    .expect("valid pattern")
});

/// Words a secret-named key may hold that are not secrets: types, flags, placeholders.
const PLAIN_VALUES: [&str; 22] = [
    "true",
    "false",
    "null",
    "nil",
    "none",
    "undefined",
    "required",
    "optional",
    "inherit",
    "string",
    "str",
    "number",
    "int",
    "integer",
    "bool",
    "boolean",
    "any",
    "bytes",
    "object",
    "unknown",
    "text",
    "secretstr",
];

/// Key endings that describe a secret rather than hold one (`password_min_length`,
/// `token_count`, `secret_name`, `token_url`).
const META_SUFFIXES: [&str; 41] = [
    "length",
    "len",
    "min",
    "max",
    "count",
    "size",
    "limit",
    "policy",
    "regex",
    "regexp",
    "pattern",
    "field",
    "label",
    "hint",
    "prompt",
    "placeholder",
    "message",
    "msg",
    "title",
    "url",
    "uri",
    "endpoint",
    "path",
    "file",
    "filename",
    "dir",
    "env",
    "var",
    "name",
    "id",
    "type",
    "ttl",
    "expiry",
    "expires",
    "expiresat",
    "expiresin",
    "timeout",
    "enabled",
    "required",
    "rotation",
    "version",
];

/// Words that make a key secret wherever they appear in it.
const SECRET_WORDS: [&str; 5] = ["password", "passwd", "passphrase", "secret", "credential"];

/// Endings that make a key secret (`DB_PASS`, `mysql_pwd`, `GITHUB_TOKEN`, `SENTRY_DSN`).
const SECRET_SUFFIXES: [&str; 16] = [
    "pass",
    "pwd",
    "token",
    "dsn",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "signingkey",
    "encryptionkey",
    "masterkey",
    "accountkey",
    "authkey",
    "sessionkey",
    "connectionstring",
    "connstr",
];

/// Whether an assignment's key names a secret.
pub fn secret_key(key: &str) -> bool {
    let compact: String = key
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if compact == "auth" {
        return true;
    }
    let secret_suffix = SECRET_SUFFIXES.iter().any(|s| compact.ends_with(s))
        && !["bypass", "compass", "surpass"]
            .iter()
            .any(|w| compact.ends_with(w));
    if secret_suffix {
        return true;
    }
    if META_SUFFIXES.iter().any(|m| compact.ends_with(m)) {
        return false;
    }
    SECRET_WORDS.iter().any(|w| compact.contains(w))
}

/// Whether a value assigned to a secret-named key is not itself a secret: empty, a placeholder,
/// a reference to elsewhere, code, a type, a mask, or already redacted.
fn plain_value(value: &str, quoted: bool) -> bool {
    let v = value.trim();
    if v.is_empty()
        || v.starts_with("[REDACTED")
        || v.chars().all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '•'))
    {
        return true;
    }
    let reference = [
        "process.env",
        "os.environ",
        "env.",
        "ENV[",
        "${",
        "{{",
        "%(",
        "<",
    ]
    .iter()
    .any(|p| v.starts_with(p))
        || (v.starts_with('$')
            && v[1..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_'))
        || v.contains('(')
        || v.contains('<');
    if reference {
        return true;
    }
    if quoted {
        return false;
    }
    // Unquoted: a comparison (`password == other`), a type or flag word, or a dotted
    // reference such as `this.password` or `config.db.pass`.
    v.starts_with('=')
        || v.starts_with('>')
        || PLAIN_VALUES.contains(&v.to_ascii_lowercase().as_str())
        || (v.contains('.')
            && !v.contains(' ')
            && !v.contains("://")
            && v.split('.').all(|part| {
                part.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            }))
}

/// The unquoted value as far as it reaches: to whitespace after a bare `=`, else to the end of
/// the line, a ` #` comment or a closing bracket.
fn bare_extent<'t>(caps: &Captures<'t>, text: &'t str) -> (usize, usize) {
    let bare = caps.name("bare").expect("bare value");
    let sep = &caps["sep"];
    if sep.trim() == "=" && !sep.contains(char::is_whitespace) {
        return (bare.start(), bare.end());
    }
    let rest = &text[bare.start()..];
    let mut end = rest.find(['\n', '\r']).unwrap_or(rest.len());
    for stop in [" #", ";", ",", "}", ")", "]", "&&", "||", "\""] {
        if let Some(i) = rest[..end].find(stop) {
            end = i;
        }
    }
    let value = rest[..end].trim_end();
    (bare.start(), bare.start() + value.len())
}

/// Redacts values assigned to secret-named keys; returns the text and how many were redacted.
fn redact_assignments(text: &str) -> (String, u64) {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut count = 0;
    for caps in ASSIGNED.captures_iter(text) {
        let whole = caps.get(0).expect("match");
        if whole.start() < last || !secret_key(&caps["key"]) {
            continue;
        }
        let (start, end, quoted) = match (caps.name("dq"), caps.name("sq"), caps.name("bq")) {
            (Some(m), _, _) | (_, Some(m), _) | (_, _, Some(m)) => (m.start(), m.end(), true),
            _ => {
                let (s, e) = bare_extent(&caps, text);
                (s, e, false)
            }
        };
        if start < last || plain_value(&text[start..end], quoted) {
            continue;
        }
        out.push_str(&text[last..start]);
        out.push_str("[REDACTED:assigned_secret]");
        last = end;
        count += 1;
    }
    out.push_str(&text[last..]);
    (out, count)
}

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
                        let v = match v {
                            Value::String(s)
                                if is_auth_header(k)
                                    || (secret_key(k) && !plain_value(s, true)) =>
                            {
                                *count += 1;
                                Value::String("[REDACTED:field]".into())
                            }
                            _ => self.redact_json(v, count),
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

fn is_auth_header(key: &str) -> bool {
    key.eq_ignore_ascii_case("authorization") || key.eq_ignore_ascii_case("x-api-key")
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

fn replace_all(out: &mut String, regex: &Regex, with: &str, count: &mut u64) {
    let n = regex.find_iter(out).count() as u64;
    if n > 0 {
        *out = regex.replace_all(out, with).into_owned();
        *count += n;
    }
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
            replace_all(
                &mut out,
                &p.regex,
                &format!("[REDACTED:{}]", p.kind),
                &mut count,
            );
        }
        replace_all(&mut out, &BEARER, "$1 [REDACTED:bearer_token]", &mut count);
        replace_all(
            &mut out,
            &URL_CREDENTIALS,
            "${1}[REDACTED:url_credentials]@",
            &mut count,
        );
        let (out, n) = redact_assignments(&out);
        (out, count + n)
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
#[path = "redact_tests.rs"]
mod tests;
