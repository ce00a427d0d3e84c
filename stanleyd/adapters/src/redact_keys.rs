//! Secrets found by the name they are stored under: `key <sep> value` assignments in code, env
//! files, YAML (block scalars included), INI and JSON; XML elements and .NET `<add key value>`
//! settings; and secret-named command-line flags. A key names a secret by what it says
//! (`password`, `DB_PASS`, `mysql_pwd`, `client_secret`, `SENTRY_DSN`, `AZURE_STORAGE_KEY`);
//! a value is kept when it is visibly not one (a reference, a call, a type, a path, a count, a
//! mask, a placeholder), so code review still reads `password_min_length = 12`.

use std::sync::LazyLock;

use regex::{Captures, Regex};

/// The replacement for a value found by its key.
const MARK: &str = "[REDACTED:assigned_secret]";

/// `key <sep> value`: the key (a flag, a dotted or plain identifier, possibly quoted), the
/// separator (`:`, `=`, `=>`) and the value: quoted (any length), or unquoted. An unquoted value
/// after a bare `=` (env files, shell) ends at whitespace; after `:` or a spaced `=` (YAML, INI,
/// code) it runs to the end of the line, a comment or a closing bracket ([`bare_extent`]).
static ASSIGNED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?P<key>(?:--?)?(?-u:\b)[A-Za-z_][A-Za-z0-9_.-]*)(?P<kq>["']?)(?P<sep>\s*(?::|=>|=)\s*)(?:"(?P<dq>[^"\n]*)"|'(?P<sq>[^'\n]*)'|`(?P<bq>[^`\n]*)`|(?P<block>[|>][-+]?[ \t]*(?:\r?\n|$))|(?P<bare>[^\s"'`,;&|]+))"#,
    )
    .expect("valid pattern")
});

/// `--password value`, `-u user:value` (curl), `mysql ... -pvalue`.
static FLAGS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?P<lead>(?:^|\s)(?:--?(?:password|passwd|pass|token|secret|api-key|apikey|auth-token)\s+|(?:-u|--user)\s+[^\s:]+:))(?P<value>[^\s-][^\s]*)|(?P<mysql>(?-u:\b)(?:mysql|mysqldump|mysqladmin|mariadb)(?-u:\b)[^\n]*?\s-p)(?P<mysqlvalue>[^\s-][^\s]*)",
    )
    .expect("valid pattern")
});

/// `<password>value</password>` and `<add key="ApiKey" value="..."/>`.
static XML: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"<(?P<tag>[A-Za-z_][A-Za-z0-9_.:-]*)>(?P<text>[^<\n]+)</|(?-u:\b)key\s*=\s*"(?P<akey>[^"]+)"\s+value\s*=\s*"(?P<avalue>[^"]*)""#,
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
/// `token_count`, `secret_name`, `token_url`, `password_hash`, `secrets_manager`).
const META_SUFFIXES: [&str; 62] = [
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
    "lifetime",
    "timeout",
    "enabled",
    "required",
    "rotation",
    "version",
    "hash",
    "hasher",
    "strength",
    "selector",
    "manager",
    "provider",
    "backend",
    "store",
    "strategy",
    "mode",
    "method",
    "scheme",
    "source",
    "less",
    "algorithm",
    "algo",
    "kind",
    "format",
    "rules",
    "level",
];

/// Words that make a key secret wherever they appear in it.
const SECRET_WORDS: [&str; 5] = ["password", "passwd", "passphrase", "secret", "credential"];

/// Endings that make a key secret (`DB_PASS`, `mysql_pwd`, `GITHUB_TOKEN`, `SENTRY_DSN`).
const SECRET_SUFFIXES: [&str; 22] = [
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
    "storagekey",
    "authkey",
    "sessionkey",
    "clientkey",
    "licensekey",
    "jwtkey",
    "appkey",
    "webhookkey",
    "connectionstring",
    "connstr",
];

/// Keys whose values are often a mode word (`auth: basic`, `credentials: default`).
const WEAK_KEYS: [&str; 4] = ["auth", "credentials", "credential", "secrets"];

/// Key beginnings that mark test data (`mock_password`, `fake_token`).
const TEST_PREFIXES: [&str; 6] = ["mock", "fake", "dummy", "example", "sample", "test"];

/// Receivers that make `x.y` a reference rather than a value (`this.password`, `cfg.token`).
const RECEIVERS: [&str; 24] = [
    "this", "self", "cls", "ctx", "context", "config", "cfg", "conf", "settings", "options",
    "opts", "args", "params", "env", "process", "os", "req", "request", "props", "state", "data",
    "user", "input", "inputs",
];

fn compact(key: &str) -> String {
    key.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether an assignment's key names a secret. The answer depends on the key alone, and a
/// request asks it for the same few field names thousands of times: short keys are remembered
/// per thread.
pub fn secret_key(key: &str) -> bool {
    use std::cell::RefCell;
    use std::collections::HashMap;
    thread_local! {
        static KNOWN: RefCell<HashMap<Box<str>, bool>> = RefCell::new(HashMap::new());
    }
    if key.len() > 64 {
        return judge_key(key);
    }
    KNOWN.with(|known| {
        if let Some(&answer) = known.borrow().get(key) {
            return answer;
        }
        let answer = judge_key(key);
        let mut known = known.borrow_mut();
        if known.len() >= 4_096 {
            known.clear();
        }
        known.insert(key.into(), answer);
        answer
    })
}

fn judge_key(key: &str) -> bool {
    let compact = compact(key);
    if compact == "auth" {
        return true;
    }
    if TEST_PREFIXES.iter().any(|p| compact.starts_with(p))
        || matches!(compact.as_str(), "pwd" | "oldpwd")
    {
        return false;
    }
    // `AZURE_STORAGE_KEY`, `JWT_KEY`: an environment variable named `*_KEY` holds a key.
    let env_key = key.len() > 4
        && key.ends_with("_KEY")
        && key
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    let secret_suffix = SECRET_SUFFIXES.iter().any(|s| compact.ends_with(s))
        && !["bypass", "compass", "surpass"]
            .iter()
            .any(|w| compact.ends_with(w));
    if secret_suffix || env_key {
        return true;
    }
    if META_SUFFIXES.iter().any(|m| compact.ends_with(m)) {
        return false;
    }
    SECRET_WORDS.iter().any(|w| compact.contains(w))
}

fn is_identifier(part: &str) -> bool {
    part.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether a value assigned to the secret-named `key` is not itself a secret. `code` is set
/// when the assignment reads like code or YAML (`:`, a spaced `=`, `=>`), where a value can be a
/// reference to something else; after a bare `=` (env files, shell) it is taken literally.
fn plain_value(key: &str, value: &str, quoted: bool, code: bool) -> bool {
    let v = value.trim();
    if v.is_empty()
        || v.starts_with("[REDACTED")
        || v.chars().all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '•'))
    {
        return true;
    }
    // Placeholders a template or a CI system fills in.
    let wrapped = |open: &str, close: &str| v.starts_with(open) && v.ends_with(close);
    if wrapped("${", "}") || wrapped("{{", "}}") || wrapped("%(", ")s") || wrapped("<", ">") {
        return true;
    }
    if quoted {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    let first_word = lower.split([' ', '=', '|']).next().unwrap_or("");
    let reference = [
        "process.env",
        "os.environ",
        "env.",
        "ENV[",
        "${",
        "{{",
        "%(",
    ]
    .iter()
    .any(|p| v.starts_with(p))
        || (v.starts_with('$') && is_identifier(&v[1..]));
    let literal_kind = PLAIN_VALUES.contains(&first_word)
        || ["/", "./", "../", "~/"].iter().any(|p| v.starts_with(p))
        || (v.len() <= 3 && v.chars().all(|c| c.is_ascii_digit()))
        || (v.contains("://") && !v.contains('@'));
    if reference || literal_kind {
        return true;
    }
    if !code {
        return false;
    }
    let key = compact(key);
    // A call (`getPassword()`), a subscript (`tokens[i]`), a comparison, a type (`Option<T>`).
    let call = v.char_indices().any(|(i, c)| {
        c == '(' && v[..i].ends_with(|p: char| p.is_ascii_alphanumeric() || p == '_')
    });
    let syntax = call || v.contains('[') || v.starts_with(['=', '>']) || v.contains('<');
    // Another variable naming the same thing (`token = next_token`), a reference through a
    // known receiver (`this.password`, `cfg.db.pass`), a mode word (`auth: basic`).
    let same_name = [
        "password", "passwd", "pass", "pwd", "token", "secret", "key", "dsn",
    ]
    .iter()
    .any(|w| key.ends_with(w) && lower.contains(w))
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ' '));
    let receiver = v.contains('.')
        && !v.contains(' ')
        && v.split('.').all(is_identifier)
        && RECEIVERS.contains(&v.split('.').next().unwrap_or(""));
    let mode_word = WEAK_KEYS.contains(&key.as_str())
        && v.len() <= 16
        && v.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    syntax || same_name || receiver || mode_word
}

/// The unquoted value as far as it reaches: to whitespace after a bare `=`, else to the end of
/// the line, a ` #` comment or a closing bracket.
fn bare_extent(caps: &Captures<'_>, text: &str) -> (usize, usize) {
    let Some(bare) = caps.name("bare") else {
        return (0, 0);
    };
    let sep = &caps["sep"];
    if sep.trim() == "=" && !sep.contains(char::is_whitespace) {
        return (bare.start(), bare.end());
    }
    let rest = &text[bare.start()..];
    let mut end = rest.find(['\n', '\r']).unwrap_or(rest.len());
    for stop in [" #", ";", ",", "}", ")", "]", "&&", "||", "\"", "'"] {
        if let Some(i) = rest[..end].find(stop) {
            // Keep a call's or subscript's own brackets inside the value.
            let inside = matches!(stop, ")" | "]") && rest[..i].contains(['(', '[']);
            if !inside {
                end = i;
            }
        }
    }
    let value = rest[..end].trim_end();
    (bare.start(), bare.start() + value.len())
}

/// Leading spaces of a line, after one diff marker (`+`, `-`, or the space of a context line)
/// when the text is a diff.
fn indent_of(line: &str, diff: bool) -> usize {
    let line = if diff {
        line.strip_prefix(['+', '-', ' ']).unwrap_or(line)
    } else {
        line
    };
    line.chars().take_while(|c| *c == ' ').count()
}

/// The extent of a block scalar's body: the following lines indented deeper than the key's line.
fn block_extent(text: &str, key_start: usize, value_end: usize) -> Option<(usize, usize)> {
    let line_start = text[..key_start].rfind('\n').map_or(0, |i| i + 1);
    let diff = text[line_start..].starts_with(['+', '-']);
    let indent = indent_of(&text[line_start..key_start], diff);
    let body_start = text[value_end..].find('\n')? + value_end + 1;
    let mut end = body_start;
    for line in text[body_start..].split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let bare = if diff {
            content.strip_prefix(['+', '-', ' ']).unwrap_or(content)
        } else {
            content
        };
        if !(indent_of(content, diff) > indent || bare.trim().is_empty()) {
            break;
        }
        end += line.len();
    }
    let body = text[body_start..end].trim_end_matches(['\n', '\r']);
    (!body.trim().is_empty()).then(|| (body_start, body_start + body.len()))
}

/// Replaces `spans` (sorted, non-overlapping) with the mark.
fn splice(text: &str, spans: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end) in spans {
        out.push_str(&text[last..*start]);
        out.push_str(MARK);
        last = *end;
    }
    out.push_str(&text[last..]);
    out
}

fn assignment_spans(text: &str, spans: &mut Vec<(usize, usize)>) {
    let mut last = 0;
    for caps in ASSIGNED.captures_iter(text) {
        let whole = caps.get(0).expect("match");
        let key = &caps["key"];
        if whole.start() < last || !secret_key(key) {
            continue;
        }
        if let Some(block) = caps.name("block") {
            let indicator_end = block.start() + block.as_str().trim_end().len();
            if let Some(span) = block_extent(text, whole.start(), indicator_end) {
                spans.push(span);
                last = span.1;
            }
            continue;
        }
        let (start, end, quoted) = match (caps.name("dq"), caps.name("sq"), caps.name("bq")) {
            (Some(m), _, _) | (_, Some(m), _) | (_, _, Some(m)) => (m.start(), m.end(), true),
            _ => {
                let (s, e) = bare_extent(&caps, text);
                (s, e, false)
            }
        };
        if start < last {
            continue;
        }
        let sep = &caps["sep"];
        let code = sep.trim() != "=" || sep.contains(char::is_whitespace);
        if plain_value(key, &text[start..end], quoted, code) {
            continue;
        }
        spans.push((start, end));
        last = end;
    }
}

fn flag_spans(text: &str, spans: &mut Vec<(usize, usize)>) {
    for caps in FLAGS.captures_iter(text) {
        if let Some(m) = caps.name("value").or_else(|| caps.name("mysqlvalue"))
            && !m.as_str().starts_with("[REDACTED")
        {
            spans.push((m.start(), m.end()));
        }
    }
}

fn xml_spans(text: &str, spans: &mut Vec<(usize, usize)>) {
    for caps in XML.captures_iter(text) {
        let (key, value) = match (caps.name("tag"), caps.name("akey")) {
            (Some(tag), _) => (tag.as_str(), caps.name("text").expect("element text")),
            (_, Some(akey)) => (akey.as_str(), caps.name("avalue").expect("value")),
            _ => continue,
        };
        if secret_key(key) && !plain_value(key, value.as_str(), true, false) {
            spans.push((value.start(), value.end()));
        }
    }
}

/// Redacts values stored under secret names; returns the text and how many were redacted.
pub(crate) fn redact_named(text: &str) -> (String, u64) {
    let mut spans = Vec::new();
    assignment_spans(text, &mut spans);
    flag_spans(text, &mut spans);
    xml_spans(text, &mut spans);
    if spans.is_empty() {
        return (text.to_owned(), 0);
    }
    spans.sort_unstable();
    // Overlaps (a flag also seen as an assignment) keep the first, widest span.
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match merged.last_mut() {
            Some(last) if s < last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    let count = merged.len() as u64;
    (splice(text, &merged), count)
}

/// Whether a JSON field holds a secret by its name: `value` is its string.
pub(crate) fn secret_field(key: &str, value: &str) -> bool {
    secret_key(key) && !plain_value(key, value, true, false)
}
