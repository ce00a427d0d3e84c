//! Failure-log parsing: anchors for Jest, Vitest, pytest, Go, TAP, Bun, `cargo test` and
//! `cargo nextest` output plus generic error lines, windows of context around them, and per-block
//! test names, messages, stack locations, normalized fingerprints and observed signatures.

use serde::Serialize;
use serde_json::Value;
use stanley_core::{Cancel, Cancelled, Pace, stable_id};

use crate::run::to_value;

use super::runners;
use super::stated::Agreement;

/// Most lines a log may have.
pub const MAX_LOG_LINES: usize = 200_000;
/// Context lines on each side of an anchor.
const CONTEXT: usize = 12;
/// Longest block kept; longer blocks keep their head and report the rest as omitted.
const MAX_BLOCK: usize = 160;
/// Furthest a window extends forward over stack-like lines.
const MAX_EXTEND: usize = 320;

/// Anchors that begin one test's failure report; a second one starts a new block.
const STARTERS: [&str; 5] = [
    "jest_test",
    "go_fail",
    "tap_not_ok",
    "pytest_section",
    "vitest_fail",
];

/// One failure found in a log.
#[derive(Clone, Debug, PartialEq)]
pub struct FailureBlock {
    pub id: String,
    /// 1-based first and last line of the block in the log.
    pub start: usize,
    pub end: usize,
    pub lines: Vec<String>,
    pub omitted: usize,
    pub anchors: Vec<&'static str>,
    pub test_name: Option<String>,
    pub message: Option<String>,
    pub stack: Vec<(String, u64)>,
    pub family: String,
    pub fingerprint: String,
    pub env_signature: Option<&'static str>,
    pub compile_error: bool,
    pub missing_module: bool,
    pub timeout: bool,
    /// The CI step (group, section, stage) the block sits in, when the log was a job log.
    pub step: Option<String>,
}

/// A parsed log.
#[derive(Clone, Debug)]
pub struct ParsedLog {
    pub line_count: usize,
    pub blocks: Vec<FailureBlock>,
    /// What of the input was left out before parsing, one line each (for `limits`).
    pub left_out: Vec<String>,
    /// The CI job-log format the input was unwrapped from.
    pub wrapper: Option<super::ci::Wrapper>,
    /// How the failures found agree with the count the log states (issue 46).
    pub agreement: Agreement,
}

/// The blocks a stated count counts: every failure, not a job's own error lines.
fn counted(blocks: &[FailureBlock]) -> usize {
    blocks
        .iter()
        .filter(|b| b.anchors != ["job_failure"])
        .count()
}

/// How a line the client or daemon put in place of left-out input begins (the reduction in
/// `stanley_proto::window` writes it).
pub const OMITTED_PREFIX: &str = "[stanley: omitted ";

/// The left-out stretches an input's marker lines announce.
/// Up to three stretches are named one by one; more are summed up in one line.
pub fn left_out(text: &str) -> Vec<String> {
    let markers: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix(OMITTED_PREFIX))
        .collect();
    if markers.len() <= 3 {
        return markers
            .iter()
            .map(|rest| {
                format!(
                    "input {}; failures in them were not triaged",
                    rest.trim_end_matches(']')
                        .replace(" to fit the ", " were left out to fit the ")
                )
            })
            .collect();
    }
    // `lines A-B (N lines) to fit the L-byte input limit]`
    let parse = |rest: &str| -> Option<(usize, usize, usize)> {
        let range = rest.strip_prefix("lines ")?.split(' ').next()?;
        let (a, b) = range.split_once('-')?;
        let n = rest.split('(').nth(1)?.split(' ').next()?;
        Some((a.parse().ok()?, b.parse().ok()?, n.parse().ok()?))
    };
    let parsed: Vec<(usize, usize, usize)> = markers.iter().filter_map(|m| parse(m)).collect();
    let limit = markers[0]
        .split(" to fit the ")
        .nth(1)
        .map_or("input limit", |l| l.trim_end_matches(']'));
    let first = parsed.iter().map(|p| p.0).min().unwrap_or(0);
    let last = parsed.iter().map(|p| p.1).max().unwrap_or(0);
    let lines: usize = parsed.iter().map(|p| p.2).sum();
    vec![format!(
        "input lines were left out in {} stretches ({lines} lines in all, between lines {first} and {last}) to fit the {limit}; failures in them were not triaged",
        markers.len()
    )]
}

/// Removes ANSI escape sequences (CSI, and OSC, APC, DCS and PM strings).
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                let mut params = String::new();
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        // Moving the cursor to the first column (`ESC [ 1 G`, as bats' pretty
                        // formatter redraws a line) is a carriage return.
                        if d == 'G' && matches!(params.as_str(), "" | "1") {
                            out.push('\r');
                        }
                        break;
                    }
                    params.push(d);
                }
            }
            // OSC, and the string sequences APC (Buildkite's timestamps), DCS, PM and SOS: up
            // to BEL or ST.
            Some(']' | '_' | 'P' | '^' | 'X') => {
                chars.next();
                while let Some(d) = chars.next() {
                    if d == '\u{7}' || (d == '\u{1b}' && chars.peek() == Some(&'\\')) {
                        break;
                    }
                }
            }
            // Any other escape: intermediate bytes (` ` to `/`, as in `ESC ( B`, which selects a
            // character set), then one final byte.
            _ => {
                while chars.peek().is_some_and(|d| (' '..='/').contains(d)) {
                    chars.next();
                }
                chars.next();
            }
        }
    }
    out
}

fn first_word_ends_error(t: &str) -> bool {
    let t = t.strip_prefix("Uncaught ").unwrap_or(t);
    let word: String = t
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    (word.ends_with("Error") || word.ends_with("Exception"))
        && (t[word.len()..].starts_with(':') || t[word.len()..].starts_with(" ["))
}

fn compiler_error(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.iter().enumerate().any(|(i, w)| {
        *w == "error:"
            || (w.starts_with("error[E") && w.ends_with("]:"))
            || (*w == "error"
                && words
                    .get(i + 1)
                    .is_some_and(|n| n.starts_with("TS") && n.ends_with(':')))
    })
}

fn exit_code_line(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    for marker in [
        "exit code ",
        "exited with code ",
        "exit status ",
        "completed with exit code ",
    ] {
        if let Some(i) = l.find(marker) {
            let n: String = l[i + marker.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if n.parse::<u32>().is_ok_and(|n| n != 0) {
                return true;
            }
        }
    }
    false
}

/// The anchors a line matches.
fn anchors(line: &str) -> Vec<&'static str> {
    let t = line.trim();
    let mut a = Vec::new();
    if t.starts_with("(fail) ") {
        a.push("bun_fail");
    }
    if t.starts_with("FAIL ") {
        a.push("jest_fail");
    }
    if t.starts_with("● ") {
        a.push("jest_test");
    }
    if t.starts_with("× ") || t.starts_with("✗ ") || t.starts_with("✕ ") {
        a.push("vitest_fail");
    }
    if (t.starts_with("FAILED ") || t.starts_with("ERROR ")) && t.contains("::") {
        a.push("pytest_failed");
    }
    if t.len() > 8
        && t.starts_with("___")
        && t.ends_with("___")
        && !t.trim_matches('_').trim().is_empty()
    {
        a.push("pytest_section");
    }
    if t.starts_with("--- FAIL: ") {
        a.push("go_fail");
    }
    if t.starts_with("panic: ") {
        a.push("panic");
    }
    if t.strip_prefix("not ok ")
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    {
        a.push("tap_not_ok");
    }
    if t.contains("Traceback (most recent call last)") {
        a.push("traceback");
    }
    if first_word_ends_error(t) {
        a.push("error_line");
    }
    if compiler_error(t) {
        a.push("compiler_error");
    }
    if t.starts_with("npm ERR!") {
        a.push("npm_err");
    }
    if exit_code_line(t) {
        a.push("exit_code");
    }
    if t.starts_with("test ") && t.ends_with(" ... FAILED") {
        a.push("cargo_fail");
    }
    if t.starts_with("thread '") && t.contains("' panicked at")
        || (t.starts_with("thread '") && t.contains(") panicked at"))
    {
        a.push("rust_panic");
    }
    a
}

fn is_stack_like(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("at ")
        || t.starts_with("File \"")
        || t.starts_with("...")
        || t.starts_with("E   ")
        || line.starts_with("E ")
        || (!t.is_empty()
            && t.chars()
                .all(|c| c == '^' || c == '~' || c == ' ' || c == '|'))
        || location_in(t).is_some()
}

/// A `path.ext:line[:col]` or `File "path", line N` location in a line.
fn location_in(line: &str) -> Option<(String, u64)> {
    if let Some(rest) = line.trim_start().strip_prefix("File \"")
        && let Some((path, tail)) = rest.split_once("\", line ")
    {
        let n: String = tail.chars().take_while(char::is_ascii_digit).collect();
        return n.parse().ok().map(|n| (path.to_owned(), n));
    }
    // `path, line N` (bats: `(in test file t/a.bats, line 19)`) and `path line N.` (Perl:
    // `at t/a.t line 8.`, PHP: `in a.php on line 3`).
    for marker in [", line ", " on line ", " line "] {
        if let Some((before, after)) = line.split_once(marker) {
            let n: String = after.chars().take_while(char::is_ascii_digit).collect();
            let path = before
                .rsplit(|c: char| c.is_whitespace() || c == '(')
                .next()
                .unwrap_or("")
                .trim_matches(|c| c == '\'' || c == '"');
            let ext_ok = path.contains('.')
                && path.rsplit('.').next().is_some_and(|e| {
                    !e.is_empty() && e.len() <= 5 && e.chars().all(|c| c.is_ascii_alphanumeric())
                });
            if ext_ok && let Ok(n) = n.parse::<u64>() {
                return Some((path.to_owned(), n));
            }
        }
    }
    for raw in line.split(|c: char| c.is_whitespace() || "()[]<>'\",".contains(c)) {
        let token = raw.trim_end_matches(':');
        let mut parts = token.splitn(3, ':');
        let (Some(path), Some(num)) = (parts.next(), parts.next()) else {
            continue;
        };
        let path = path.strip_prefix("file://").unwrap_or(path);
        if path.starts_with("http")
            || path.starts_with("node:")
            || raw.contains("://")
            || !path.contains('.')
            || path.ends_with('.')
            || is_host(path)
        {
            continue;
        }
        let ext_ok = path.rsplit('.').next().is_some_and(|e| {
            !e.is_empty() && e.len() <= 5 && e.chars().all(|c| c.is_ascii_alphanumeric())
        });
        if ext_ok && let Ok(n) = num.parse::<u64>() {
            return Some((path.to_owned(), n));
        }
    }
    None
}

/// Whether `text` before a `:port` names a network host rather than a file (issue 49:
/// `connect ECONNREFUSED 127.0.0.1:9` is no place in the repository): a dotted address, a name
/// whose last part is all digits, or a bare name in a network domain.
pub(crate) fn is_host(text: &str) -> bool {
    const NETWORK: [&str; 8] = [
        "com",
        "org",
        "net",
        "local",
        "localhost",
        "internal",
        "lan",
        "localdomain",
    ];
    let last = text.rsplit('.').next().unwrap_or("");
    if last.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    (!text.contains('/') && NETWORK.contains(&last.to_ascii_lowercase().as_str()))
        || text.eq_ignore_ascii_case("localhost")
}

/// Lowercases and replaces volatile parts (hex, quoted strings, durations, digits).
pub fn normalize(text: &str) -> String {
    let lower = text.to_lowercase();
    let mut out = String::with_capacity(lower.len());
    let chars: Vec<char> = lower.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '0' && chars.get(i + 1) == Some(&'x') {
            let mut j = i + 2;
            while j < chars.len() && chars[j].is_ascii_hexdigit() {
                j += 1;
            }
            out.push('h');
            i = j;
            continue;
        }
        if c.is_ascii_hexdigit() && (i == 0 || !chars[i - 1].is_ascii_alphanumeric()) {
            let mut j = i;
            while j < chars.len() && chars[j].is_ascii_hexdigit() {
                j += 1;
            }
            let run = j - i;
            let has_digit = chars[i..j].iter().any(char::is_ascii_digit);
            let has_alpha = chars[i..j].iter().any(|c| c.is_ascii_alphabetic());
            if (7..=40).contains(&run)
                && has_digit
                && has_alpha
                && (j == chars.len() || !chars[j].is_ascii_alphanumeric())
            {
                out.push('h');
                i = j;
                continue;
            }
        }
        if (c == '"' || c == '\'' || c == '`')
            && let Some(end) = chars[i + 1..].iter().position(|d| *d == c)
        {
            out.push('s');
            i += end + 2;
            continue;
        }
        if c.is_ascii_digit() {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
                j += 1;
            }
            let rest: String = chars[j..].iter().take(3).collect();
            let rest = rest.trim_start();
            if rest.starts_with("ms")
                || (rest.starts_with('s') && !rest[1..].starts_with(|c: char| c.is_alphabetic()))
            {
                let unit = if rest.starts_with("ms") { 2 } else { 1 };
                let skip = chars[j..].iter().take_while(|c| c.is_whitespace()).count();
                out.push('d');
                i = j + skip + unit;
                continue;
            }
            out.push('n');
            i = j;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn contains_any(text: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| text.contains(n))
}

fn env_signature(text: &str) -> Option<&'static str> {
    if contains_any(
        text,
        &[
            "ENOTFOUND",
            "ECONNRESET",
            "ECONNREFUSED",
            "EAI_AGAIN",
            "ETIMEDOUT",
            "socket hang up",
            "getaddrinfo",
            "Temporary failure in name resolution",
            "Could not resolve host",
        ],
    ) {
        Some("network")
    } else if contains_any(
        text,
        &[
            "heap out of memory",
            "out of memory",
            "OOMKilled",
            "ENOSPC",
            "No space left on device",
        ],
    ) {
        Some("resources")
    } else if contains_any(text, &["EACCES", "EPERM", "Permission denied"]) {
        Some("permissions")
    } else if contains_any(
        text,
        &[
            "502 Bad Gateway",
            "503 Service Unavailable",
            "rate limit exceeded",
        ],
    ) {
        Some("service_unavailable")
    } else {
        None
    }
}

fn test_name(line: &str) -> Option<String> {
    let t = line.trim();
    let cut = |s: &str| -> String { s.trim().chars().take(200).collect() };
    let strip_time = |s: &str| -> String {
        let s = s.trim_end();
        match s.rfind(" [") {
            Some(i) if s.ends_with(']') => cut(&s[..i]),
            _ => match s.rfind(' ') {
                Some(i)
                    if s[i + 1..].ends_with("ms")
                        && s[i + 1..].trim_end_matches("ms").parse::<f64>().is_ok() =>
                {
                    cut(&s[..i])
                }
                _ => cut(s),
            },
        }
    };
    if let Some(r) = t.strip_prefix("(fail) ") {
        return Some(strip_time(r));
    }
    if let Some(r) = t.strip_prefix("--- FAIL: ") {
        return Some(cut(r.split(" (").next().unwrap_or(r)));
    }
    if let Some(r) = t.strip_prefix("FAILED ").filter(|r| r.contains("::")) {
        return Some(cut(r.split(" - ").next().unwrap_or(r)));
    }
    if let Some(r) = t.strip_prefix("● ") {
        return Some(cut(r));
    }
    if let Some(r) = t.strip_prefix("not ok ") {
        let r = r
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start();
        return Some(cut(r.strip_prefix("- ").unwrap_or(r)));
    }
    if let Some(r) = t
        .strip_prefix("× ")
        .or_else(|| t.strip_prefix("✗ "))
        .or_else(|| t.strip_prefix("✕ "))
    {
        return Some(strip_time(r));
    }
    if t.starts_with("___") && t.ends_with("___") {
        let name = t.trim_matches('_').trim();
        if !name.is_empty() {
            return Some(cut(name));
        }
    }
    if let Some(r) = t
        .strip_prefix("---- ")
        .and_then(|r| r.strip_suffix(" stdout ----"))
    {
        return Some(cut(r));
    }
    if let Some(r) = t
        .strip_prefix("test ")
        .and_then(|r| r.strip_suffix(" ... FAILED"))
    {
        return Some(cut(r));
    }
    if t.starts_with("FAIL [")
        && let Some(i) = t.find(") ")
    {
        return Some(cut(&t[i + 2..]));
    }
    None
}

fn message(line: &str) -> Option<String> {
    let t = line.trim();
    let hit = first_word_ends_error(t)
        || t.starts_with("E   ")
        || ["Expected", "Received", "expected", "actual"]
            .iter()
            .any(|w| t.starts_with(w))
        || t.starts_with("panic: ")
        || t.starts_with("error:")
        || t.starts_with("error[")
        || t.contains("error TS")
        || (t.starts_with("assert") && t.contains("failed"))
        || t.starts_with("→ ");
    let text = if t.starts_with("E   ") {
        t[1..].trim_start()
    } else {
        t.trim_start_matches("→ ")
    };
    hit.then(|| text.chars().take(300).collect())
}

fn finish(
    lines: Vec<String>,
    start: usize,
    omitted: usize,
    anchors_found: Vec<&'static str>,
) -> FailureBlock {
    finish_with(lines, start, omitted, anchors_found, None, None)
}

/// Whether a stack location is the runner's or a dependency's, not the project's.
pub(crate) fn foreign_frame(path: &str) -> bool {
    [
        "/usr/lib/",
        "/usr/local/lib/",
        "site-packages",
        "dist-packages",
        "/.cargo/registry",
        "/rustc/",
        "node_modules",
        "internal/",
        "/go/src/",
        "<frozen",
    ]
    .iter()
    .any(|m| path.contains(m))
}

/// What a failure's fingerprint hashes when it has a message: the normalized message, the top
/// project frame and the test's name.
#[derive(Serialize)]
struct MessageKey<'a> {
    message: String,
    frame: Option<&'a (String, u64)>,
    test: Option<&'a str>,
}

/// What a block's id hashes: its lines and the anchors found in them.
#[derive(Serialize)]
struct BlockKey<'a> {
    lines: &'a [String],
    anchors: &'a [&'static str],
}

/// A block from the lines of one failure; a runner that knows the failure's name or message
/// passes them, else they are read from the lines.
fn finish_with(
    lines: Vec<String>,
    start: usize,
    omitted: usize,
    anchors_found: Vec<&'static str>,
    known_name: Option<String>,
    known_message: Option<String>,
) -> FailureBlock {
    let mut name = known_name
        .clone()
        .or_else(|| lines.iter().find_map(|l| test_name(l)));
    let mut msg = known_message
        .clone()
        .or_else(|| lines.iter().find_map(|l| message(l)));
    // `cargo test`: the panic location line is followed by the message.
    if known_message.is_none()
        && let Some(i) = lines.iter().position(|l| l.contains(" panicked at "))
    {
        msg = runners::panic_message(&lines).or(msg);
        if name.is_none() && known_name.is_none() {
            name = lines[i].split('\'').nth(1).map(str::to_owned);
        }
    }
    // Every parser's message within the one bound (12 lines, 1,200 characters; issue 36).
    let msg = msg.map(|m| super::documents::bounded_message(&m));
    let mut stack: Vec<(String, u64)> = Vec::new();
    for l in &lines {
        if stack.len() >= 20 {
            break;
        }
        if let Some(loc) = location_in(l)
            && !stack.contains(&loc)
        {
            stack.push(loc);
        }
    }
    let text = lines.join("\n");
    let first_line = lines
        .iter()
        .find(|l| !l.trim().is_empty())
        .cloned()
        .unwrap_or_default();
    let family = stable_id(
        "fam",
        &Value::String(normalize(msg.as_deref().unwrap_or(&first_line))),
        8,
    );
    // Duplicates share their normalized message and their top project frame; without a
    // message, the lines that carry anchors and messages.
    let top_frame = stack.iter().find(|(p, _)| !foreign_frame(p));
    // Two different tests are never one failure, however alike their messages (parametrized
    // cases failing at one assertion): a named block's fingerprint carries its test.
    let fingerprint = match &msg {
        Some(m) => stable_id(
            "fp",
            &to_value(&MessageKey {
                message: normalize(m),
                frame: top_frame,
                test: name.as_deref().map(str::trim),
            }),
            12,
        ),
        None => {
            let bearing: Vec<String> = lines
                .iter()
                .filter(|l| !anchors(l).is_empty() || message(l).is_some())
                .map(|l| normalize(l))
                .collect();
            stable_id("fp", &Value::from(bearing), 12)
        }
    };
    let id = stable_id(
        "fail",
        &to_value(&BlockKey {
            lines: &lines,
            anchors: &anchors_found,
        }),
        10,
    );
    FailureBlock {
        id,
        start,
        end: start + lines.len().max(1) - 1 + omitted,
        omitted,
        anchors: anchors_found,
        test_name: name,
        message: msg,
        stack,
        family,
        fingerprint,
        step: None,
        env_signature: env_signature(&text),
        compile_error: contains_any(
            &text,
            &[
                "SyntaxError",
                "cannot find symbol",
                "compilation failed",
                "error[E",
            ],
        ) || text.contains("error TS")
            || text.contains(": undefined:"),
        missing_module: contains_any(
            &text,
            &[
                "Cannot find module",
                "ModuleNotFoundError",
                "No module named",
                "ERR_MODULE_NOT_FOUND",
                "cannot find package",
            ],
        ),
        timeout: contains_any(
            &text,
            &[
                "Timeout of",
                "timed out after",
                "Exceeded timeout",
                "context deadline exceeded",
                "test timed out",
            ],
        ),
        lines,
    }
}

fn capped(lines: &[String]) -> (Vec<String>, usize) {
    if lines.len() > MAX_BLOCK {
        (lines[..MAX_BLOCK].to_vec(), lines.len() - MAX_BLOCK)
    } else {
        (lines.to_vec(), 0)
    }
}

/// Sections delimited by runner-specific headers: `cargo test`'s `---- name stdout ----`,
/// nextest's `FAIL [..]` results, Bun's `(fail)` lines. Returns the blocks and the lines they
/// cover, which are not anchored again.
fn structured(lines: &[String]) -> (Vec<FailureBlock>, Vec<bool>) {
    let mut covered = vec![false; lines.len()];
    let mut blocks = Vec::new();
    let summary_at = lines.iter().position(|l| {
        let t = l.trim();
        t.starts_with("Summary [")
            || (t.ends_with(" fail") && t.trim_end_matches(" fail").trim().parse::<u32>().is_ok())
            || (t.contains("test")
                && t.ends_with("failed:")
                && t.split_whitespace()
                    .next()
                    .is_some_and(|n| n.parse::<u32>().is_ok()))
    });
    let end_all = summary_at.unwrap_or(lines.len());
    // Mark the summary tail as covered: it repeats names of failures already seen.
    if let Some(s) = summary_at {
        covered[s..].iter_mut().for_each(|c| *c = true);
    }
    let cargo_header =
        |t: &str| (t.starts_with("---- ") && t.ends_with(" stdout ----")) || t == "failures:";
    let nextest_header = |t: &str| {
        t.starts_with("FAIL [")
            || t.starts_with("PASS [")
            || t.starts_with("SKIP [")
            || t.starts_with("────")
    };
    let mut i = 0;
    while i < end_all {
        let t = lines[i].trim();
        let cargo_section = t.starts_with("---- ") && t.ends_with(" stdout ----");
        let nextest_fail = t.starts_with("FAIL [");
        if cargo_section || nextest_fail {
            let mut j = i + 1;
            while j < end_all
                && !(if cargo_section {
                    cargo_header(lines[j].trim())
                } else {
                    nextest_header(lines[j].trim())
                })
            {
                j += 1;
            }
            let (kept, omitted) = capped(&lines[i..j]);
            covered[i..j].iter_mut().for_each(|c| *c = true);
            blocks.push(finish(
                kept,
                i + 1,
                omitted,
                vec![if cargo_section {
                    "cargo_stdout"
                } else {
                    "nextest_fail"
                }],
            ));
            i = j;
            continue;
        }
        i += 1;
    }
    // Bun: each `(fail)` closes a block that began after the previous outcome line.
    let mut block_start = 0;
    for i in 0..end_all {
        let t = lines[i].trim();
        let outcome = ["(pass) ", "(fail) ", "(skip) ", "(todo) "]
            .iter()
            .any(|p| t.starts_with(p));
        if t.starts_with("(fail) ") && !covered[i] {
            let (kept, omitted) = if i + 1 - block_start > MAX_BLOCK {
                let mut head = lines[block_start..block_start + 80].to_vec();
                head.extend_from_slice(&lines[i + 1 - 80..=i]);
                (head, i + 1 - block_start - MAX_BLOCK)
            } else {
                (lines[block_start..=i].to_vec(), 0)
            };
            covered[block_start..=i].iter_mut().for_each(|c| *c = true);
            blocks.push(finish(kept, block_start + 1, omitted, vec!["bun_fail"]));
        }
        if outcome {
            block_start = i + 1;
        }
    }
    // After `cargo test`'s sections come the list of failures, the result line and cargo's own
    // error line: all repeats.
    if blocks
        .iter()
        .any(|b: &FailureBlock| b.anchors == ["cargo_stdout"])
        && let Some(last) = lines.iter().rposition(|l| l.trim() == "failures:")
    {
        covered[last..].iter_mut().for_each(|c| *c = true);
    }
    // Each test binary ends with its list of failures, its result line and cargo's own error
    // line (`error: test failed, to rerun pass --lib`): repeats, not failures.
    if blocks
        .iter()
        .any(|b: &FailureBlock| b.anchors == ["cargo_stdout"])
    {
        for i in 0..lines.len() {
            let t = lines[i].trim();
            if t.starts_with("test result: FAILED") {
                covered[i] = true;
                let mut k = i + 1;
                while k < lines.len() && k <= i + 3 {
                    let n = lines[k].trim();
                    if n.starts_with("error: test failed") || n.is_empty() {
                        covered[k] = true;
                    }
                    k += 1;
                }
                // Back over the names list to its `failures:` line.
                let mut k = i;
                while k > 0 && !covered[k - 1] {
                    k -= 1;
                    if lines[k].trim() == "failures:" {
                        covered[k..i].iter_mut().for_each(|c| *c = true);
                        break;
                    }
                }
            }
            if t.starts_with("error: test failed, to rerun pass")
                || (t.starts_with("error: ") && t.ends_with(" targets failed:"))
            {
                covered[i] = true;
                let mut k = i + 1;
                while k < lines.len() && lines[k].trim().starts_with('`') {
                    covered[k] = true;
                    k += 1;
                }
            }
        }
    }
    // `cargo test`'s `test x ... FAILED` lines name failures whose output has its own section.
    for (i, l) in lines.iter().enumerate() {
        if l.trim().starts_with("test ")
            && l.trim().ends_with(" ... FAILED")
            && blocks
                .iter()
                .any(|b: &FailureBlock| b.anchors == ["cargo_stdout"])
        {
            covered[i] = true;
        }
    }
    blocks.sort_by_key(|b| b.start);
    (blocks, covered)
}

/// A runner's failure as a block.
fn from_found(found: runners::Found) -> FailureBlock {
    let (kept, omitted) = capped(&found.lines);
    finish_with(
        kept,
        found.start + 1,
        omitted,
        vec![found.anchor],
        found.name,
        found.message,
    )
}

/// Gives every block its own id: a block's id comes from its content, so a failure printed twice
/// (a retried test, a log of two runs) would share one; the second and later get `-2`, `-3`, …
/// in log order, and stay duplicates of the first by fingerprint.
fn distinct_ids(blocks: &mut [FailureBlock]) {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for block in blocks {
        let n = seen.entry(block.id.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            block.id = format!("{}-{n}", block.id);
        }
    }
}

/// Whether a line only counts outcomes: `FAILED (failures=2, errors=1)`, `3 problems (3 errors,
/// 0 warnings)`, `4 failed, 1 passed in 0.12s`, `Found 2 errors in 1 file.`, `error: 3 errors
/// generated.`: a number next to an outcome word, and no more than a few other words.
fn counts_only(line: &str) -> bool {
    const OUTCOMES: [&str; 14] = [
        "failed", "failure", "failures", "error", "errors", "problem", "problems", "passed",
        "failing", "passing", "warning", "warnings", "skipped", "broken",
    ];
    let lower = line.trim().to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '.')
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty())
        .collect();
    let counted = words.windows(2).any(|p| {
        let number = |w: &str| w.bytes().all(|b| b.is_ascii_digit());
        (number(p[0]) && OUTCOMES.contains(&p[1])) || (OUTCOMES.contains(&p[0]) && number(p[1]))
    });
    // Every word a number, an outcome, or one of a few joining words.
    let filler = [
        "in",
        "s",
        "ms",
        "file",
        "files",
        "found",
        "tests",
        "test",
        "of",
        "and",
        "generated",
        "fixable",
        "with",
        "the",
        "option",
        "potentially",
        "total",
        "ran",
        "ok",
        "x",
        "y",
    ];
    let other = words
        .iter()
        .filter(|w| {
            !w.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                && !OUTCOMES.contains(w)
                && !filler.contains(w)
        })
        .count();
    counted && other <= 2
}

/// Whether a line says something went wrong, in the words tools of every kind use.
fn error_shaped(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    [
        "error",
        "fatal",
        "failed",
        "failure",
        "not found",
        "no such file",
        "denied",
        "cannot ",
        "can't ",
        "could not",
        "couldn't",
        "unable to",
        "no rule to",
        "***",
        "panic",
        "abort",
        "exception",
        "timed out",
        "killed",
    ]
    .iter()
    .any(|w| l.contains(w))
}

/// The lines that say why a job failed when no test did: before the last line that gives a
/// non-zero exit (or the log's end), within that line's step, the last stretch of at most 12
/// lines that holds error-shaped lines, from the first of them. (start, end), 0-based.
fn job_failure(
    lines: &[String],
    unwrapped: &super::ci::Unwrapped,
    offset: usize,
) -> Option<(usize, usize)> {
    const WINDOW: usize = 12;
    let exit = lines
        .iter()
        .rposition(|l| exit_code_line(l))
        .unwrap_or(lines.len());
    let step = |k: usize| unwrapped.steps.get(offset + k).copied().flatten();
    let at_exit = step(exit.min(lines.len().saturating_sub(1)));
    let mut window: Vec<usize> = Vec::new();
    for k in (0..exit).rev() {
        if window.len() >= WINDOW || (at_exit.is_some() && step(k) != at_exit) {
            break;
        }
        if !lines[k].trim().is_empty() {
            window.push(k);
        }
    }
    window.reverse();
    let first = *window.iter().find(|&&k| error_shaped(&lines[k]))?;
    let last = *window.last()?;
    // The exit line itself, when there is one, closes the block.
    let end = if exit < lines.len() { exit } else { last };
    // Several error lines each at a place of their own are several failures, not one step's
    // reason (a runner's compact report the parsers did not read): no block that merges them.
    let placed = (first..=end.min(lines.len() - 1))
        .filter(|&k| error_shaped(&lines[k]) && location_in(&lines[k]).is_some())
        .count();
    (placed < 2).then_some((first, end))
}

/// The diagnostics of compilers, type checkers and linters among the lines not `covered` (then
/// covered): each error a block named by its location, its family its code or rule, its
/// fingerprint its exact place and message.
fn diagnostic_blocks(
    lines: &[String],
    covered: &mut [bool],
    pace: &Pace<'_>,
) -> Result<Vec<FailureBlock>, Cancelled> {
    let mut out = Vec::new();
    for d in super::diagnostics::read(lines, covered, pace)? {
        pace.step()?;
        for c in &mut covered[d.found.start..d.found.start + d.found.lines.len()] {
            *c = true;
        }
        let (code, place) = (d.code.clone(), d.place.clone());
        let message = d.found.message.clone().unwrap_or_default();
        let mut block = from_found(d.found);
        if let Some(code) = code {
            block.family = stable_id("fam", &Value::String(code), 8);
        }
        // The same error printed twice is one; two errors are never one, however alike.
        block.fingerprint = stable_id("fp", &serde_json::json!([place, message]), 12);
        out.push(block);
    }
    Ok(out)
}

/// Puts the blocks of a text log in order and settles them: one report of a test kept, a run's
/// closing counts dropped beside real failures, a job's own failure first when nothing else was
/// found, and each block's step and place in the input.
fn settle(
    mut blocks: Vec<FailureBlock>,
    lines: &[String],
    unwrapped: &super::ci::Unwrapped,
    offset: usize,
) -> Vec<FailureBlock> {
    blocks.sort_by_key(|b| b.start);
    // One test reported twice (prove prints Test::More's diagnostics, then the TAP point): the
    // report without a message goes when another of the same name has one.
    let named_with_message: std::collections::HashSet<String> = blocks
        .iter()
        .filter(|b| b.message.is_some())
        .filter_map(|b| b.test_name.clone())
        .collect();
    blocks.retain(|b| {
        b.message.is_some()
            || b.test_name
                .as_ref()
                .is_none_or(|n| !named_with_message.contains(n))
    });
    // A run's closing counts (`FAILED (failures=2, errors=1)`, `3 problems`, `4 failed, 1
    // passed`) say that failures happened, not which: beside the failures themselves they are
    // no block of their own.
    if blocks.len() > 1 {
        let only_counts = |b: &FailureBlock| {
            let mut content = b.lines.iter().filter(|l| {
                let t = l.trim();
                !t.is_empty() && !t.chars().all(|c| "=-─━_*~ ".contains(c))
            });
            content.clone().next().is_some()
                && content.all(|l| counts_only(l) || super::segment::summary(l))
        };
        if blocks.iter().any(|b| !only_counts(b)) {
            blocks.retain(|b| !only_counts(b));
        }
    }
    // A job that failed outside any test: the error lines that end the failing step, first.
    // Only where nothing but a step's own error lines was found (no test, no diagnostic, no
    // runner's report): those are what the job failed of.
    let job_level = |b: &FailureBlock| {
        b.test_name.is_none()
            && b.anchors
                .iter()
                .all(|a| matches!(*a, "exit_code" | "npm_err" | "error_line"))
    };
    if blocks.iter().all(job_level)
        && let Some((s, e)) = job_failure(lines, unwrapped, offset)
    {
        blocks.retain(|b| b.end < s + 1 || b.start > e + 1);
        let (kept, omitted) = capped(&lines[s..=e]);
        let mut block = finish(kept, s + 1, omitted, vec!["job_failure"]);
        block.message = lines[s..=e]
            .iter()
            .find(|l| error_shaped(l))
            .map(|l| super::documents::bounded_message(l.trim()));
        blocks.insert(0, block);
    }
    for block in &mut blocks {
        // A block whose kept lines reach past the log (a runner's report counts lines it
        // joined or synthesised) ends at the log's last line (issue 36).
        block.end = block.end.min(lines.len()).max(block.start);
        block.step = unwrapped
            .step_of(offset + block.start - 1)
            .map(str::to_owned);
        // Streams put back in order: the block's place is given in the input's lines.
        if !unwrapped.origin.is_empty() {
            let at = |k: usize| unwrapped.origin.get(offset + k - 1).map_or(k, |o| o + 1);
            let (start, end) = (block.start, block.end);
            block.start = at(start);
            block.end = (start..=end).map(at).max().unwrap_or(block.start);
        }
    }
    blocks
}

/// Which parsers read a log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parsers {
    /// The runner parsers first, then the generic path for what they leave.
    All,
    /// The generic path alone (documents by shape, the segmenter, anchors): what a runner no
    /// parser knows gets, measured by the captures tests.
    GenericOnly,
}

/// Parses a log into failure blocks with every parser: [`parse_log_with`] and [`Parsers::All`].
pub fn parse_log(text: &str) -> ParsedLog {
    parse_log_with(text, Parsers::All)
}

/// [`parse_log_paced`] with no cancellation (tests, benches and the fuzzer).
pub fn parse_log_with(text: &str, parsers: Parsers) -> ParsedLog {
    let never = Cancel::new();
    match parse_log_paced(text, parsers, &Pace::new(&never)) {
        Ok(parsed) => parsed,
        Err(Cancelled) => unreachable!("a signal nothing can fire"),
    }
}

/// Parses a log into failure blocks: a report document (JSON, JSON lines, XML) as what it is; a
/// text log, after its CI wrapper is taken off, by the runners' own structure first (with
/// [`Parsers::All`]), then by the runner-agnostic segmenter, then generic anchors for what is
/// left. CPU-bound and linear in the log; it looks at `pace`'s signal between its phases and
/// every so many lines of its anchor and window loops (the runners', diagnostics' and segmenter's
/// phases only at their ends), and ends with [`Cancelled`] once it fires (issue 47, D-162).
pub fn parse_log_paced(
    text: &str,
    parsers: Parsers,
    pace: &Pace<'_>,
) -> Result<ParsedLog, Cancelled> {
    let document = match parsers {
        Parsers::All => runners::document(text),
        Parsers::GenericOnly => runners::generic_document(text),
    };
    pace.now()?;
    if let Some(found) = document {
        let line_count = text.lines().count();
        let mut blocks: Vec<FailureBlock> = found.into_iter().map(from_found).collect();
        // A failure read from a document came from somewhere in it: a tree keeps no line
        // positions, so its block spans the document, never past its end (issue 36).
        for block in &mut blocks {
            block.start = 1;
            block.end = line_count.max(1);
        }
        distinct_ids(&mut blocks);
        return Ok(ParsedLog {
            line_count,
            blocks,
            left_out: left_out(text),
            wrapper: None,
            // A document's failures are what it records; it states no other count.
            agreement: Agreement::Unstated,
        });
    }
    // A CI job log first loses its wrapper (timestamps, group markers), one line for one line.
    let mut unwrapped = super::ci::unwrap(text);
    pace.now()?;
    // Then each line loses the label of its stream (a task runner's, a CI step's).
    super::streams::separate(&mut unwrapped);
    pace.now()?;
    let wrapper = unwrapped.wrapper;
    let mut lines = unwrapped.lines.clone();
    let mut notes = left_out(&lines.join("\n"));
    // A longer log (a client that sent it unreduced) keeps its last lines, where failures are.
    if lines.len() > MAX_LOG_LINES {
        let cut = lines.len() - MAX_LOG_LINES;
        notes.push(format!(
            "input lines 1-{cut} ({cut} lines) were left out to keep the last {MAX_LOG_LINES}; failures in them were not triaged"
        ));
        lines.drain(..cut);
    }
    let offset = unwrapped.lines.len() - lines.len();
    // The failure count the log states, which judges the readings (issue 46).
    let stated = super::stated::stated(&lines);
    let mut claimed = vec![false; lines.len()];
    let mut blocks: Vec<FailureBlock> = Vec::new();
    let mut covered = vec![false; lines.len()];
    if parsers == Parsers::All {
        blocks.extend(
            runners::text(&lines, &mut claimed, pace)?
                .into_iter()
                .map(from_found),
        );
        pace.now()?;
        let (more, known) = structured(&lines);
        blocks.extend(more.into_iter().filter(|b| !claimed[b.start - 1]));
        pace.now()?;
        covered = known;
        for (c, r) in covered.iter_mut().zip(&claimed) {
            *c |= *r;
        }
    }
    // A TAP stream anywhere in the log is a document of its own: tests, their assertions and
    // their diagnostics, nested or not.
    if let Some((found, stream)) = super::documents::tap(&lines, &covered) {
        for i in stream {
            covered[i] = true;
        }
        blocks.extend(found.into_iter().map(from_found));
    }
    pace.now()?;
    // Diagnostics: each error of a compiler, type checker or linter a failure of its own.
    blocks.extend(diagnostic_blocks(&lines, &mut covered, pace)?);
    pace.now()?;
    // The runner-agnostic segmenter: reports by the structure runners share.
    let segments = super::segment::segment(&lines, &covered, &stated, pace)?;
    pace.now()?;
    for found in segments.reports {
        for c in &mut covered[found.start..found.start + found.lines.len()] {
            *c = true;
        }
        blocks.push(from_found(found));
    }
    for i in segments.listings {
        covered[i] = true;
    }
    // Generic windows around the remaining anchors.
    // (start, end, anchors, line of the last anchor)
    let mut windows: Vec<(usize, usize, Vec<&'static str>, usize)> = Vec::new();
    // The first line after the last report before each line, kept as the walk goes.
    let mut floor = 0;
    // Whether a line is stack-like, decided once per line however many windows reach it.
    let mut stack_like: Vec<Option<bool>> = vec![None; lines.len()];
    let mut is_stack = |k: usize| *stack_like[k].get_or_insert_with(|| is_stack_like(&lines[k]));
    for (i, line) in lines.iter().enumerate() {
        pace.step()?;
        if covered[i] {
            floor = i + 1;
            continue;
        }
        let found = anchors(line);
        if found.is_empty() {
            continue;
        }
        let start = i.saturating_sub(CONTEXT);
        let mut end = (i + CONTEXT).min(lines.len() - 1);
        while end + 1 < lines.len()
            && end + 1 - start < MAX_EXTEND
            && !covered[end + 1]
            && is_stack(end + 1)
        {
            end += 1;
        }
        // Context never reaches back over a report already made.
        let mut start = (start.max(floor)..=i).find(|&k| !covered[k]).unwrap_or(i);
        let end = (i..=end).take_while(|&k| !covered[k]).last().unwrap_or(i);
        // A line that starts a new test's failure closes the window of the previous test.
        let starter = found.iter().any(|a| STARTERS.contains(a))
            || super::segment::status_name(line).is_some();
        if starter
            && let Some((s, e, a, _)) = windows.last_mut()
            && a.iter().any(|x| STARTERS.contains(x))
            && i <= *e + 1
        {
            *e = (*e).min(i.saturating_sub(1)).max(*s);
            windows.push((i, end, found, i));
            continue;
        }
        // A blank line between two anchors parts two reports: each window keeps its side.
        if let Some((s, e, _, last)) = windows.last_mut()
            && start <= *e + 1
            && let Some(gap) = (*last + 1..i).rev().find(|&k| lines[k].trim().is_empty())
        {
            *e = (*e).min(gap.saturating_sub(1)).max(*s);
            start = start.max(gap + 1);
        }
        match windows.last_mut() {
            Some((s, e, a, last)) if start <= *e + 1 && end.max(*e) + 1 - *s <= MAX_BLOCK => {
                *e = end.max(*e);
                *last = i;
                a.extend(found);
            }
            Some((_, e, _, _)) if start <= *e => {
                let next = *e + 1;
                if next <= end {
                    windows.push((next, end, found, i));
                }
            }
            _ => windows.push((start, end, found, i)),
        }
    }
    for (s, e, mut a, _) in windows {
        pace.step()?;
        a.dedup();
        let (kept, omitted) = capped(&lines[s..=e]);
        blocks.push(finish(kept, s + 1, omitted, a));
    }
    pace.now()?;
    let mut blocks = settle(blocks, &lines, &unwrapped, offset);
    pace.now()?;
    distinct_ids(&mut blocks);
    let agreement = Agreement::of(&stated, counted(&blocks));
    // The runner parsers are accelerators, judged like any reading: when their failures
    // disagree with the stated count and the generic path's agree, the generic path's stand.
    if parsers == Parsers::All && matches!(agreement, Agreement::Differs { .. }) {
        let generic = parse_log_paced(text, Parsers::GenericOnly, pace)?;
        if matches!(generic.agreement, Agreement::Agrees { .. }) {
            return Ok(generic);
        }
    }
    Ok(ParsedLog {
        line_count: lines.len(),
        blocks,
        left_out: notes,
        wrapper,
        agreement,
    })
}

#[cfg(test)]
#[path = "logs_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "captures_tests.rs"]
mod captures_tests;
