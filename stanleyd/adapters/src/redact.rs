//! Redaction of secrets in text and JSON: the caller's key values, then well-known token shapes
//! (private keys, cloud, forge, chat and payment tokens, JWTs, bearer headers, URL
//! credentials), then assignments whose key names a secret (`password`, `DB_PASS`, `mysql_pwd`,
//! `client_secret`, `api_key`, `SENTRY_DSN`, ...) whatever the value's length, in code, env files,
//! YAML, JSON and connection strings. Everything sent to Jev, written to `.stanley/runs/` or the
//! daemon log, and everything Stanley prints passes through here.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, LazyLock, Mutex};

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
        compile(
            "aws_access_key",
            r"(?-u:\b)(?:AKIA|ASIA)[A-Z0-9]{16}(?-u:\b)",
        ),
        compile(
            "github_token",
            r"(?-u:\b)gh[oprsu]_[A-Za-z0-9]{30,}|(?-u:\b)github_pat_\w{30,}",
        ),
        compile(
            "gitlab_token",
            r"(?-u:\b)gl(?:pat|dt|rt|ptt|cbt|soat|imt|ffct|oas|ft)-[A-Za-z0-9_-]{20,}",
        ),
        compile("slack_token", r"(?-u:\b)xox[abprse]-[A-Za-z0-9-]{10,}"),
        compile(
            "slack_webhook",
            r"https://hooks\.slack\.com/services/[A-Za-z0-9_/-]{20,}",
        ),
        compile(
            "api_key",
            r"(?-u:\b)(?:sk|pk|rk)[-_](?:live|test|proj|ant)[-_][A-Za-z0-9_-]{16,}|(?-u:\b)sk-[A-Za-z0-9_-]{32,}|(?-u:\b)whsec_[A-Za-z0-9]{24,}",
        ),
        compile("npm_token", r"(?-u:\b)npm_[A-Za-z0-9]{36}(?-u:\b)"),
        compile(
            "sendgrid_key",
            r"(?-u:\b)SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
        ),
        compile("google_api_key", r"(?-u:\b)AIza[0-9A-Za-z_-]{35}"),
        compile("google_oauth_secret", r"(?-u:\b)GOCSPX-[A-Za-z0-9_-]{24,}"),
        compile("huggingface_token", r"(?-u:\b)hf_[A-Za-z0-9]{30,}"),
        compile("digitalocean_token", r"(?-u:\b)do[por]_v1_[a-f0-9]{64}"),
        compile(
            "shopify_token",
            r"(?-u:\b)shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        ),
        compile("pypi_token", r"(?-u:\b)pypi-AgE[A-Za-z0-9_-]{50,}"),
        compile("grafana_token", r"(?-u:\b)gl(?:sa|c)_[A-Za-z0-9_=+/-]{32,}"),
        compile(
            "slack_app_token",
            r"(?-u:\b)xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+",
        ),
        compile(
            "discord_webhook",
            r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+",
        ),
        compile(
            "jwt",
            r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        ),
    ]
});

/// Every pattern below in one set: one pass over a text says which of them can match at all,
/// so a text with no secret shape (nearly all of them) costs one scan, not one per pattern.
static ANY: LazyLock<regex::RegexSet> = LazyLock::new(|| {
    regex::RegexSet::new(
        PATTERNS
            .iter()
            .map(|p| p.regex.as_str())
            .chain([BEARER.as_str(), URL_CREDENTIALS.as_str()]),
    )
    .expect("redaction patterns are valid")
});

static BEARER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)(Bearer|Basic|[Tt]oken)\s+[A-Za-z0-9._~+/=-]{16,}").expect("valid pattern")
});
/// `scheme://user:password@` (the user may be empty; the password runs to the last `@`).
static URL_CREDENTIALS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^\s:/@]*:(?P<password>[^\s/]+)@")
        .expect("valid pattern")
});

pub use crate::redact_keys::secret_key;

/// How many clean texts one set of secrets remembers before it starts again.
const REMEMBERED_MAX: usize = 200_000;
/// How many texts with something redacted one set of secrets remembers (with their redacted
/// forms), and how many bytes of redacted forms at most, before it starts them again.
const REDACTED_MAX: usize = 4_096;
const REDACTED_MAX_BYTES: usize = 4 << 20;

/// Texts found clean by redactors of one set of secrets, and texts they redacted with what they
/// became, by a 128-bit hash under two keys drawn at random when the set is made (unknown
/// outside the process).
#[derive(Default)]
pub struct CleanTexts {
    secrets: Vec<String>,
    known: Mutex<Known>,
    keys: (RandomState, RandomState),
}

/// The tables' keys are already keyed hashes (or SHA-256 digests): they are their own hash,
/// not hashed again on every lookup (issue 47).
type Keyed = std::hash::BuildHasherDefault<KeyHash>;

/// The hash of a key that is already a hash: its bits folded to 64.
#[derive(Default)]
struct KeyHash(u64);

impl std::hash::Hasher for KeyHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = self.0.rotate_left(5) ^ u64::from_le_bytes(word);
        }
    }

    fn write_u128(&mut self, key: u128) {
        self.0 ^= (key as u64) ^ ((key >> 64) as u64);
    }
}

/// What one set of secrets has seen.
#[derive(Default)]
struct Known {
    clean: HashSet<u128, Keyed>,
    /// Jev requests found clean whole, by the first 128 bits of the SHA-256 of their content
    /// (the executor's frame digest): a request built again the same is not walked again.
    clean_requests: HashSet<u128, Keyed>,
    /// A redacted text's form after redaction, and how many secrets were replaced in it.
    redacted: HashMap<u128, (Arc<str>, u64), Keyed>,
    redacted_bytes: usize,
}

impl Known {
    fn keep_clean(&mut self, key: u128) {
        if self.clean.len() >= REMEMBERED_MAX {
            self.clean.clear();
        }
        self.clean.insert(key);
    }

    fn keep_redacted(&mut self, key: u128, out: &str, count: u64) {
        if self.redacted.len() >= REDACTED_MAX
            || self.redacted_bytes + out.len() > REDACTED_MAX_BYTES
        {
            self.redacted.clear();
            self.redacted_bytes = 0;
        }
        if out.len() <= REDACTED_MAX_BYTES {
            self.redacted_bytes += out.len();
            self.redacted.insert(key, (Arc::from(out), count));
        }
    }
}

impl CleanTexts {
    /// Whether a request whose content has this SHA-256 (hex) was found clean.
    pub fn request_known_clean(&self, digest: &str) -> bool {
        request_key(digest).is_some_and(|k| self.lock().clean_requests.contains(&k))
    }

    /// Remembers that the request whose content has this SHA-256 (hex) is clean.
    pub fn keep_clean_request(&self, digest: &str) {
        if let Some(key) = request_key(digest) {
            let mut known = self.lock();
            if known.clean_requests.len() >= REMEMBERED_MAX {
                known.clean_requests.clear();
            }
            known.clean_requests.insert(key);
        }
    }

    fn fingerprint(&self, text: &str) -> u128 {
        let (a, b) = &self.keys;
        (u128::from(a.hash_one(text)) << 64) | u128::from(b.hash_one(text))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Known> {
        self.known.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The first 128 bits of a SHA-256 in hex, or None for anything else.
fn request_key(digest: &str) -> Option<u128> {
    if digest.len() != 64 {
        return None;
    }
    u128::from_str_radix(digest.get(..32)?, 16).ok()
}

/// What a long-lived process keeps across requests: the clean texts of the last set of
/// secrets it redacted for, so a hunk found clean by one request is not scanned by the next.
#[derive(Default)]
pub struct CleanMemory(Mutex<Option<Arc<CleanTexts>>>);

impl CleanMemory {
    /// `redactor`, remembering into (and from) the texts found clean by earlier redactors of
    /// exactly the same secrets; another set of secrets starts afresh.
    pub fn attach(&self, redactor: SecretRedactor) -> SecretRedactor {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let texts = match slot.as_ref() {
            Some(texts) if texts.secrets == redactor.secrets => texts.clone(),
            _ => {
                let texts = Arc::new(CleanTexts {
                    secrets: redactor.secrets.clone(),
                    ..CleanTexts::default()
                });
                *slot = Some(texts.clone());
                texts
            }
        };
        SecretRedactor {
            clean: texts,
            ..redactor
        }
    }

    /// Forgets every text (an idle process gives its memory back).
    pub fn clear(&self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// Redacts the given literal secrets (the caller's key values) and the built-in patterns.
///
/// A request redacts the same texts several times (a hunk in the frame sent, in its record, in
/// the packet and in the result), and the next request mostly the same hunks again: a text a
/// redactor found nothing in is remembered in its [`CleanTexts`] (its own, or one shared through
/// [`CleanMemory`] by redactors of the same secrets) and passes again without a scan; a text it
/// redacted is remembered with its redacted form, which is given again without a scan.
#[derive(Clone, Default)]
pub struct SecretRedactor {
    secrets: Vec<String>,
    clean: Arc<CleanTexts>,
}

impl std::fmt::Debug for SecretRedactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secrets themselves are never printed.
        f.debug_struct("SecretRedactor")
            .field("secrets", &self.secrets.len())
            .finish_non_exhaustive()
    }
}

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
        Self {
            clean: Arc::new(CleanTexts {
                secrets: secrets.clone(),
                ..CleanTexts::default()
            }),
            secrets,
        }
    }

    fn remembered(&self) -> std::sync::MutexGuard<'_, Known> {
        self.clean.lock()
    }
}

/// A JSON value redacted while it is serialized to text: every string through the redactor, and
/// every string under a credential-named key or an auth header replaced whole; no redacted tree
/// is built (records, issue 32).
struct Redacting<'a> {
    value: &'a Value,
    by: &'a SecretRedactor,
    count: &'a std::cell::Cell<u64>,
}

impl Redacting<'_> {
    fn of<'b>(&'b self, value: &'b Value) -> Redacting<'b> {
        Redacting {
            value,
            by: self.by,
            count: self.count,
        }
    }
}

impl serde::Serialize for Redacting<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.value {
            Value::String(text) => {
                let (clean, n) = self.by.clean_text(text);
                self.count.set(self.count.get() + n);
                s.serialize_str(&clean)
            }
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&self.of(item))?;
                }
                seq.end()
            }
            Value::Object(fields) => {
                let mut map = s.serialize_map(Some(fields.len()))?;
                for (k, v) in fields {
                    if secret_by_name(k, v) {
                        self.count.set(self.count.get() + 1);
                        map.serialize_entry(k, REDACTED_FIELD)?;
                    } else {
                        map.serialize_entry(k, &self.of(v))?;
                    }
                }
                map.end()
            }
            other => other.serialize(s),
        }
    }
}

fn is_auth_header(key: &str) -> bool {
    key.eq_ignore_ascii_case("authorization") || key.eq_ignore_ascii_case("x-api-key")
}

/// What a string under a secret-named field or an auth header becomes, whole.
const REDACTED_FIELD: &str = "[REDACTED:field]";

/// Whether the field `key` holds a secret by its name: a string under an auth header or a
/// credential-named key (the one rule both ways of redacting a value follow).
fn secret_by_name(key: &str, value: &Value) -> bool {
    matches!(value, Value::String(text)
        if is_auth_header(key) || crate::redact_keys::secret_field(key, text))
}

/// `opts` with every request redacted before it is sent or recorded (state and questions) and
/// every error detail redacted: the one place requests to Jev pass through `redactor`.
pub fn redacting(
    opts: stanley_core::ExecutorOptions,
    redactor: std::sync::Arc<SecretRedactor>,
) -> stanley_core::ExecutorOptions {
    let for_errors = redactor.clone();
    let known = redactor.clone();
    opts.prepare(stanley_core::Prepare::new(
        // A request with this exact content was found clean before: nothing to rewrite, and
        // the executor does not even build it (D-230).
        move |digest: &str| known.clean.request_known_clean(digest),
        move |req: &mut stanley_core::JevRequest, digest: &str| {
            let n =
                redactor.json_in_place(&mut req.state) + redactor.json_in_place(&mut req.questions);
            if n == 0 {
                redactor.clean.keep_clean_request(digest);
            }
            n
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
        let (clean, n) = self.clean_text(text);
        (clean.into_owned(), n)
    }

    fn json(&self, value: &Value) -> (Value, u64) {
        let mut out = value.clone();
        let n = self.json_in_place(&mut out);
        (out, n)
    }

    fn json_in_place(&self, value: &mut Value) -> u64 {
        match value {
            Value::String(text) => {
                let (clean, n) = self.clean_text(text);
                if let std::borrow::Cow::Owned(clean) = clean {
                    *text = clean;
                }
                n
            }
            Value::Array(items) => items.iter_mut().map(|v| self.json_in_place(v)).sum(),
            Value::Object(fields) => {
                let mut n = 0;
                for (k, v) in fields.iter_mut() {
                    if secret_by_name(k, v) {
                        n += 1;
                        *v = REDACTED_FIELD.into();
                    } else {
                        n += self.json_in_place(v);
                    }
                }
                n
            }
            _ => 0,
        }
    }

    fn json_text(&self, value: &Value, pretty: bool) -> (Vec<u8>, u64) {
        let count = std::cell::Cell::new(0);
        let redacting = Redacting {
            value,
            by: self,
            count: &count,
        };
        let text = if pretty {
            serde_json::to_vec_pretty(&redacting)
        } else {
            serde_json::to_vec(&redacting)
        };
        (text.unwrap_or_default(), count.get())
    }
}

impl SecretRedactor {
    /// [`Redactor::text`], borrowing a text it finds (or remembers as) clean.
    fn clean_text<'t>(&self, text: &'t str) -> (std::borrow::Cow<'t, str>, u64) {
        use std::borrow::Cow;
        if text.is_empty() {
            return (Cow::Borrowed(text), 0);
        }
        let key = self.clean.fingerprint(text);
        {
            let known = self.remembered();
            if known.clean.contains(&key) {
                return (Cow::Borrowed(text), 0);
            }
            if let Some((out, count)) = known.redacted.get(&key) {
                return (Cow::Owned(out.to_string()), *count);
            }
        }
        let (out, count) = self.scan(text);
        let mut known = self.remembered();
        if count == 0 && out == text {
            known.keep_clean(key);
            return (Cow::Borrowed(text), 0);
        }
        // A changed text counts at least one redaction, so a request whose redaction counted
        // none is the request as built (the executor then hashes it as it was serialized).
        let count = count.max(1);
        known.keep_redacted(key, &out, count);
        (Cow::Owned(out), count)
    }
}

impl SecretRedactor {
    /// One full pass of every rule over `text`.
    fn scan(&self, text: &str) -> (String, u64) {
        let mut count = 0u64;
        let mut out = text.to_owned();
        for secret in &self.secrets {
            let n = out.matches(secret.as_str()).count() as u64;
            if n > 0 {
                out = out.replace(secret.as_str(), "[REDACTED:env_secret]");
                count += n;
            }
        }
        let hits = ANY.matches(&out);
        for (i, p) in PATTERNS.iter().enumerate() {
            if hits.matched(i) {
                replace_all(
                    &mut out,
                    &p.regex,
                    &format!("[REDACTED:{}]", p.kind),
                    &mut count,
                );
            }
        }
        if hits.matched(PATTERNS.len()) {
            replace_all(&mut out, &BEARER, "$1 [REDACTED:bearer_token]", &mut count);
        }
        if hits.matched(PATTERNS.len() + 1) {
            out = URL_CREDENTIALS
                .replace_all(&out, |caps: &Captures<'_>| {
                    // `host:8080@tag` is a port, not a password.
                    if caps["password"].chars().all(|c| c.is_ascii_digit()) {
                        caps[0].to_owned()
                    } else {
                        count += 1;
                        format!("{}[REDACTED:url_credentials]@", &caps["scheme"])
                    }
                })
                .into_owned();
        }
        let (out, n) = crate::redact_keys::redact_named(&out);
        (out, count + n)
    }
}

/// A redacted diagnostic, cut to `max` characters with `…`.
pub fn safe_message(redactor: &dyn Redactor, message: &str, max: usize) -> String {
    stanley_workflows::text::truncate_chars(&redactor.text(message).0, max)
}

#[cfg(test)]
#[path = "redact_tests.rs"]
mod tests;
