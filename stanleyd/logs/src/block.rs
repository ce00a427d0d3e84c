//! Failure blocks: a failure's lines with its name, message, stack, family and fingerprint, and
//! the settling of a text log's blocks (one report of a test, closing counts dropped beside the
//! failures, a job's own failure first, each block's step and place in the input).

use serde::Serialize;
use serde_json::Value;
use stanley_core::stable_id;

use crate::anchor::{anchors, exit_code_line, first_word_ends_error};
pub(crate) use crate::found::MAX_BLOCK;
use crate::text::{contains_any, foreign_frame, location_in, normalize};

/// One typed shape as JSON: plain structs of strings, numbers and lists, so serializing them
/// cannot fail.
pub(crate) fn to_value<T: Serialize + ?Sized>(shape: &T) -> Value {
    serde_json::to_value(shape).unwrap_or_default()
}

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

impl FailureBlock {
    /// Whether the block is a tool's warning (a finding beside its errors, or the failures of
    /// a tool that fails on warnings).
    pub fn is_warning(&self) -> bool {
        self.anchors == ["diagnostic_warning"]
    }
}

/// The blocks less each test's progress line (`test_x ... FAIL`: one line, its name and a
/// verdict, perhaps a time) where another block reports the same test (its name, or a
/// qualified name that ends in it) with more to say; None when no block is such an echo.
/// Linear in the blocks.
pub(crate) fn without_echoes(blocks: &[FailureBlock]) -> Option<Vec<FailureBlock>> {
    let echo: Vec<bool> = blocks.iter().map(is_echo).collect();
    if !echo.contains(&true) {
        return None;
    }
    let reported: std::collections::HashSet<&str> = blocks
        .iter()
        .zip(&echo)
        .filter(|(_, e)| !**e)
        .filter_map(|(b, _)| b.test_name.as_deref())
        .flat_map(|n| [n, last_part(n)])
        .collect();
    let kept: Vec<FailureBlock> = blocks
        .iter()
        .zip(&echo)
        .filter(|(b, e)| {
            !**e || !b
                .test_name
                .as_deref()
                .is_some_and(|n| reported.contains(n) || reported.contains(last_part(n)))
        })
        .map(|(b, _)| b.clone())
        .collect();
    (kept.len() < blocks.len()).then_some(kept)
}

/// A qualified name's last part (`test_x` of `mod.Class.test_x`, `a > b`, `a::b`).
fn last_part(name: &str) -> &str {
    name.rsplit(['.', ':', '/', '>', ' '])
        .find(|p| !p.is_empty())
        .unwrap_or(name)
}

/// Whether a block is one line that says its test's name and a verdict and nothing more.
fn is_echo(b: &FailureBlock) -> bool {
    const SAID: [&str; 9] = [
        "fail", "failed", "failure", "error", "errored", "ms", "s", "sec", "x",
    ];
    let (Some(name), [line]) = (b.test_name.as_deref(), b.lines.as_slice()) else {
        return false;
    };
    let line = crate::text::strip_ansi(line);
    let Some(at) = line.find(name) else {
        return false;
    };
    let rest = &line[at + name.len()..];
    let words: Vec<String> = rest
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.bytes().all(|c| c.is_ascii_digit()))
        .map(str::to_ascii_lowercase)
        .collect();
    !words.is_empty()
        && words.iter().all(|w| SAID.contains(&w.as_str()))
        && words
            .iter()
            .any(|w| !matches!(w.as_str(), "ms" | "s" | "sec"))
}

pub(crate) fn env_signature(text: &str) -> Option<&'static str> {
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

pub(crate) fn test_name(line: &str) -> Option<String> {
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

pub(crate) fn message(line: &str) -> Option<String> {
    let t = line.trim();
    // A linker's finding after the object and section it was found in (`main.c:(.text+0x36):
    // undefined reference to `f'`, `a.o: multiple definition of `g'`): what it says.
    for said in [": undefined reference to ", ": multiple definition of "] {
        if let Some(at) = t.find(said) {
            return Some(t[at + 2..].chars().take(300).collect());
        }
    }
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

pub(crate) fn finish(
    lines: Vec<String>,
    start: usize,
    omitted: usize,
    anchors_found: Vec<&'static str>,
) -> FailureBlock {
    finish_with(lines, start, omitted, anchors_found, None, None)
}

/// A block that opens with a group's title over its error indented under it (`When parsing a
/// decimal reading` over `  Traceback (most recent call last):`, a context whose setup failed):
/// the group's title names it.
fn group_over_its_error(lines: &[String]) -> Option<String> {
    let first = lines.first()?;
    let next = lines.get(1)?;
    let title = crate::discover::group_title(first)?;
    (crate::line::indent(next) > crate::line::indent(first)
        && (next.trim_start().starts_with("Traceback") || crate::line::message_like(next)))
    .then(|| title.to_owned())
}

/// What a failure's fingerprint hashes when it has a message: the normalized message, the top
/// project frame and the test's name.
#[derive(Serialize)]
pub(crate) struct MessageKey<'a> {
    message: String,
    frame: Option<&'a (String, u64)>,
    test: Option<&'a str>,
}

/// What a block's id hashes: its lines and the anchors found in them.
#[derive(Serialize)]
pub(crate) struct BlockKey<'a> {
    lines: &'a [String],
    anchors: &'a [&'static str],
}

/// A block from the lines of one failure; a runner that knows the failure's name or message
/// passes them, else they are read from the lines.
pub(crate) fn finish_with(
    lines: Vec<String>,
    start: usize,
    omitted: usize,
    anchors_found: Vec<&'static str>,
    known_name: Option<String>,
    known_message: Option<String>,
) -> FailureBlock {
    let mut name = known_name
        .clone()
        .or_else(|| lines.iter().find_map(|l| test_name(l)))
        .or_else(|| group_over_its_error(&lines));
    let mut msg = known_message
        .clone()
        .or_else(|| lines.iter().find_map(|l| message(l)));
    // `cargo test`: the panic location line is followed by the message.
    if known_message.is_none()
        && let Some(i) = lines.iter().position(|l| l.contains(" panicked at "))
    {
        msg = crate::line::panic_message(&lines).or(msg);
        if name.is_none() && known_name.is_none() {
            name = lines[i].split('\'').nth(1).map(str::to_owned);
        }
    }
    // Every parser's message within the one bound (12 lines, 1,200 characters; issue 36).
    let msg = msg.map(|m| crate::line::bounded_message(&m));
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

pub(crate) fn capped(lines: &[String]) -> (Vec<String>, usize) {
    if lines.len() > MAX_BLOCK {
        (lines[..MAX_BLOCK].to_vec(), lines.len() - MAX_BLOCK)
    } else {
        (lines.to_vec(), 0)
    }
}

/// A runner's failure as a block.
pub(crate) fn from_found(found: crate::found::Found) -> FailureBlock {
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

/// Per block, whether it is a finding in one run of findings (in log order, no other block
/// between) that holds an error.
fn beside_errors(blocks: &[FailureBlock]) -> Vec<bool> {
    let finding =
        |b: &FailureBlock| b.anchors == ["diagnostic"] || b.anchors == ["diagnostic_warning"];
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    order.sort_by_key(|&k| blocks[k].start);
    let mut out = vec![false; blocks.len()];
    let mut run: Vec<usize> = Vec::new();
    let close = |run: &mut Vec<usize>, out: &mut Vec<bool>| {
        if run.iter().any(|&k| blocks[k].anchors == ["diagnostic"]) {
            for &k in run.iter() {
                out[k] = true;
            }
        }
        run.clear();
    };
    for k in order {
        if finding(&blocks[k]) {
            run.push(k);
        } else {
            close(&mut run, &mut out);
        }
    }
    close(&mut run, &mut out);
    out
}

/// Reports that share a name, or came with none, are named by what varies between them at one
/// place (their first line, the line over them): [`crate::discover::names_that_vary`]. A
/// diagnostic keeps its place and a job's failing step what it is.
fn name_by_what_varies(blocks: &mut [FailureBlock], lines: &[String]) {
    let reports: Vec<crate::discover::Report<'_>> = blocks
        .iter()
        .map(|b| crate::discover::Report {
            start: b.start - 1,
            end: b.end.saturating_sub(1).max(b.start - 1),
            name: b.test_name.as_deref(),
            renamable: !b.anchors.iter().all(|a| {
                matches!(
                    *a,
                    "diagnostic"
                        | "diagnostic_warning"
                        | "exit_code"
                        | "npm_err"
                        | "error_line"
                        | "job_failure"
                )
            }),
        })
        .collect();
    let names = crate::discover::names_that_vary(lines, &reports);
    for (block, name) in blocks.iter_mut().zip(names) {
        if let Some(name) = name {
            rename(block, name);
        }
    }
}

/// Gives a block another name, and its fingerprint with it (a named block's carries its test).
fn rename(block: &mut FailureBlock, name: String) {
    if let Some(message) = &block.message {
        let top_frame = block.stack.iter().find(|(p, _)| !foreign_frame(p));
        block.fingerprint = stable_id(
            "fp",
            &to_value(&MessageKey {
                message: normalize(message),
                frame: top_frame,
                test: Some(name.trim()),
            }),
            12,
        );
    }
    block.test_name = Some(name);
}

/// Gives every block its own id: a block's id comes from its content, so a failure printed twice
/// (a retried test, a log of two runs) would share one; the second and later get `-2`, `-3`, …
/// in log order, and stay duplicates of the first by fingerprint.
pub(crate) fn distinct_ids(blocks: &mut [FailureBlock]) {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for block in blocks {
        let n = seen.entry(block.id.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            block.id = format!("{}-{n}", block.id);
        }
    }
}

/// A block named by a file that holds findings of its own, each at a line of that file at one
/// depth (`✖ tests/a.kv failed` over `at [tests/a.kv:2:8:13]:`, its echo and what is wrong,
/// then `at [tests/a.kv:6:8:12]:` and its own), is a block per finding, named by the file and
/// its line, its message what it says under its echo. Lines of the file with nothing of their
/// own between them are a stack's frames and split nothing. Linear in the blocks' lines.
pub(crate) fn split_at_own_places(blocks: Vec<FailureBlock>) -> Vec<FailureBlock> {
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        match own_places(&b) {
            Some(at) => out.extend(split_block(&b, &at)),
            None => out.push(b),
        }
    }
    out
}

/// Where `b` splits: the indexes of its lines that place a finding in the file it is named
/// by, with each finding's line number; at one depth, each followed by a line of its own.
fn own_places(b: &FailureBlock) -> Option<Vec<(usize, u64)>> {
    let file = b.test_name.as_deref()?;
    if b.omitted > 0
        || file.contains(char::is_whitespace)
        || !(file.contains('.') || file.contains('/'))
        || file
            .rsplit(':')
            .next()
            .is_some_and(crate::text::whole_number)
    {
        return None;
    }
    let needle = format!("{file}:");
    let at: Vec<(usize, u64)> = b
        .lines
        .iter()
        .enumerate()
        .skip(1)
        .filter_map(|(i, l)| {
            // (A line that says more than its place, a stack's frame `at check (a.js:3:1)`,
            // is where code ran, not a finding: the place and one word, `at`, `File:`.)
            let words = l
                .split_whitespace()
                .filter(|w| !w.contains(&needle) && w.chars().any(char::is_alphanumeric))
                .count();
            if words > 1 {
                return None;
            }
            let from = l.find(&needle)? + needle.len();
            let digits: String = l[from..].chars().take_while(char::is_ascii_digit).collect();
            Some((i, digits.parse().ok()?))
        })
        .collect();
    if at.is_empty() {
        return None;
    }
    let depth = crate::line::indent(&b.lines[at[0].0]);
    let own = at.iter().enumerate().all(|(k, &(i, _))| {
        let next = at.get(k + 1).map_or(b.lines.len(), |&(j, _)| j);
        crate::line::indent(&b.lines[i]) == depth
            && b.lines[i + 1..next]
                .iter()
                .any(|l| !l.trim().is_empty() && !crate::line::stack_frame(l))
    });
    own.then_some(at)
}

/// `b` cut at `at`: the first finding keeps the lines above it.
fn split_block(b: &FailureBlock, at: &[(usize, u64)]) -> Vec<FailureBlock> {
    let file = b.test_name.as_deref().unwrap_or_default();
    at.iter()
        .enumerate()
        .map(|(k, &(i, line))| {
            let from = if k == 0 { 0 } else { i };
            let to = at.get(k + 1).map_or(b.lines.len(), |&(j, _)| j);
            let mut lines = b.lines[from..to].to_vec();
            while lines.len() > 1 && lines.last().is_some_and(|l| l.trim().is_empty()) {
                lines.pop();
            }
            let said = part_message(&lines[i - from + 1..]);
            let mut part = finish_with(
                lines,
                b.start + from,
                0,
                b.anchors.clone(),
                Some(format!("{file}:{line}")),
                said,
            );
            part.step.clone_from(&b.step);
            part
        })
        .collect()
}

/// What a finding says under its place: past the source it echoes (`6: port = 8080`, `12 |
/// …`) and the marks under it (`^^^^`), the lines up to a blank one.
fn part_message(lines: &[String]) -> Option<String> {
    let echo = |t: &str| {
        let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        digits > 0 && t[digits..].trim_start().starts_with([':', '|'])
    };
    let said: Vec<&str> = lines
        .iter()
        .map(|l| l.trim())
        .skip_while(|t| t.is_empty() || echo(t) || !t.chars().any(char::is_alphanumeric))
        .take_while(|t| !t.is_empty())
        .collect();
    (!said.is_empty()).then(|| crate::line::bounded_message(&said.join("\n")))
}

/// Blocks named only by an ordinal (`Test 3`, `Case #3`) named by what the run listed under
/// that number as it went (`Test [3/5] count_lines: counts two lines`): a kind and a number say
/// which failure, not what it is. The listing is a line opening with the same kind (or with the
/// bracket) and `[3/5]`, `(3/5)` or `3/5`, and names the number once. Linear: one pass over the
/// lines, the numbers wanted in a map.
pub(crate) fn ordinal_names(blocks: &mut [FailureBlock], lines: &[String]) {
    let wanted: std::collections::HashMap<(String, u64), Vec<usize>> = blocks
        .iter()
        .enumerate()
        .filter_map(|(i, b)| Some((ordinal(b.test_name.as_deref()?)?, i)))
        .fold(std::collections::HashMap::new(), |mut m, (key, i)| {
            m.entry(key).or_insert_with(Vec::new).push(i);
            m
        });
    if wanted.is_empty() {
        return;
    }
    let kinds: std::collections::HashSet<&str> = wanted.keys().map(|(k, _)| k.as_str()).collect();
    let mut listed: std::collections::HashMap<(String, u64), Option<String>> =
        std::collections::HashMap::new();
    for line in lines {
        let t = line.trim();
        let (kind, rest) = match t.split_once(char::is_whitespace) {
            Some((w, rest)) if kinds.contains(w.to_ascii_lowercase().as_str()) => {
                (w.to_ascii_lowercase(), rest.trim_start())
            }
            _ => continue,
        };
        let Some((n, name)) = listing(rest) else {
            continue;
        };
        let key = (kind, n);
        if wanted.contains_key(&key) {
            listed
                .entry(key)
                .and_modify(|seen| {
                    if seen.as_deref() != Some(name) {
                        *seen = None;
                    }
                })
                .or_insert_with(|| Some(name.to_owned()));
        }
    }
    for (key, at) in wanted {
        if let Some(Some(name)) = listed.get(&key) {
            for i in at {
                blocks[i].test_name = Some(name.clone());
            }
        }
    }
}

/// A name that is a kind and a number alone: `Test 3`, `case #3` (the kind lower-cased).
fn ordinal(name: &str) -> Option<(String, u64)> {
    let (kind, n) = name.trim().split_once(' ')?;
    let n = n.trim_start_matches('#').parse().ok()?;
    (kind.chars().all(char::is_alphabetic) && !kind.is_empty())
        .then(|| (kind.to_ascii_lowercase(), n))
}

/// A listing's number and the name after it: `[3/5] count_lines: counts two lines`, `(3/5)
/// name`, `3/5 name`.
fn listing(rest: &str) -> Option<(u64, &str)> {
    let (count, name) = rest.split_once(char::is_whitespace)?;
    let count = count.trim_matches(|c| matches!(c, '[' | ']' | '(' | ')'));
    let (n, total) = count.split_once('/')?;
    let n: u64 = n.trim().parse().ok()?;
    let total: u64 = total.trim().parse().ok()?;
    let name = name.trim().trim_start_matches(':').trim();
    (n >= 1 && n <= total && name.chars().any(char::is_alphabetic)).then_some((n, name))
}

/// Blocks a reading gave the same name (a file named where each finding in it lists its item:
/// `- 'pandas'` over `declared in:` over `pyproject.toml`) told apart by what they say first:
/// where every block of the name opens with a short line of its own that does not hold the name
/// and no two open alike, each name takes that line's item (`pyproject.toml: pandas`). A name
/// shared by blocks that open alike (a test run twice) or with its own name stays. Linear.
pub(crate) fn told_apart(blocks: &mut [FailureBlock]) {
    let mut by_name: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (i, b) in blocks.iter().enumerate() {
        if let Some(name) = b.test_name.as_deref() {
            by_name.entry(name).or_default().push(i);
        }
    }
    let mut renamed: Vec<(usize, String)> = Vec::new();
    for (name, group) in by_name.into_iter().filter(|(_, g)| g.len() > 1) {
        let items: Vec<Option<&str>> = group
            .iter()
            .map(|&i| {
                blocks[i]
                    .lines
                    .first()
                    .map(|l| list_item(l))
                    .filter(|item| !item.is_empty() && !item.contains(name) && !name.contains(item))
                    .filter(|item| item.split_whitespace().count() <= 4 && item.len() <= 60)
            })
            .collect();
        let distinct: std::collections::HashSet<&str> = items.iter().flatten().copied().collect();
        if items.iter().all(Option::is_some) && distinct.len() == group.len() {
            renamed.extend(
                group
                    .iter()
                    .zip(items)
                    .map(|(&i, item)| (i, format!("{name}: {}", item.unwrap_or_default()))),
            );
        }
    }
    for (i, name) in renamed {
        blocks[i].test_name = Some(name);
    }
}

/// A line's item: the line without its list mark (`-`, `*`, `•`, `+`, or an ordinal: `1.`,
/// `2)`) and, when it is wholly quoted, its quotes.
fn list_item(line: &str) -> &str {
    let t = line.trim();
    let t = t
        .strip_prefix(['-', '*', '•', '+'])
        .map_or_else(|| crate::text::without_ordinal(t), str::trim_start);
    let quoted = |q: char| t.len() > 2 && t.starts_with(q) && t.ends_with(q);
    if ['\'', '"', '`'].into_iter().any(quoted) {
        &t[1..t.len() - 1]
    } else {
        t
    }
}

/// Whether a line only counts outcomes: `FAILED (failures=2, errors=1)`, `3 problems (3 errors,
/// 0 warnings)`, `4 failed, 1 passed in 0.12s`, `Found 2 errors in 1 file.`, `error: 3 errors
/// generated.`: a number next to an outcome word, and no more than a few other words.
pub(crate) fn counts_only(line: &str) -> bool {
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
    let number = |w: &str| w.bytes().all(|b| b.is_ascii_digit());
    let counted = words.windows(2).any(|p| {
        (number(p[0]) && OUTCOMES.contains(&p[1])) || (OUTCOMES.contains(&p[0]) && number(p[1]))
    }) || words
        .windows(3)
        // (`Total failure count: 5`.)
        .any(|p| OUTCOMES.contains(&p[0]) && p[1] == "count" && number(p[2]));
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
        "step",
        "steps",
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
        "count",
    ];
    let other = words
        .iter()
        .filter(|w| {
            !w.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                && !crate::line::duration(w)
                && !OUTCOMES.contains(w)
                && !filler.contains(w)
        })
        .count();
    counted && other <= 2
}

/// Whether a line says something went wrong, in the words tools of every kind use.
pub(crate) fn error_shaped(line: &str) -> bool {
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
pub(crate) fn job_failure(
    lines: &[String],
    unwrapped: &crate::wrapper::ci::Unwrapped,
    offset: usize,
) -> Option<(usize, usize)> {
    const WINDOW: usize = 12;
    let exit = lines
        .iter()
        .rposition(|l| exit_code_line(l))
        .unwrap_or(lines.len());
    let step = |k: usize| unwrapped.steps.get(offset + k).copied().flatten();
    let at_exit = step(exit.min(lines.len().saturating_sub(1)));
    // An inspected object closing a crash (`at async main (a.js:9:3) {` … `}`, node's dump of
    // an error's properties) says nothing of why: the window starts above it.
    let dumped = object_dump_start(&lines[..exit]);
    let mut window: Vec<usize> = Vec::new();
    let mut counted = 0;
    for k in (0..dumped.unwrap_or(exit)).rev() {
        if counted >= WINDOW || (at_exit.is_some() && step(k) != at_exit) {
            break;
        }
        if !lines[k].trim().is_empty() {
            window.push(k);
            // A stack's frames are the error's, not lines of their own.
            if !crate::line::stack_frame(&lines[k]) {
                counted += 1;
            }
        }
    }
    window.reverse();
    // A package manager's error run (every line `npm error …`) says why first, then its help
    // text: the run's head is the reason.
    if let Some(head) = window.last().and_then(|&k| error_run_head(lines, k)) {
        let end = (head..=*window.last()?)
            .filter(|&k| !lines[k].trim().is_empty())
            .nth(WINDOW - 1)
            .unwrap_or(*window.last()?);
        return Some((head, end));
    }
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

/// The first line of the run of lines sharing the error prefix of line `k` (a tool's name and
/// an error word: `npm error`, `npm ERR!`, `pnpm ERR_…`), when `k` has one and the run is
/// longer than a window.
fn error_run_head(lines: &[String], k: usize) -> Option<usize> {
    let prefix = |l: &str| -> Option<String> {
        let mut words = l.split_whitespace();
        let (tool, word) = (words.next()?, words.next()?);
        let w = word.trim_end_matches(['!', ':']).to_ascii_lowercase();
        (tool.chars().all(|c| c.is_ascii_lowercase() || c == '-')
            && (w == "error" || w == "err" || w.starts_with("err_")))
        .then(|| format!("{tool} {}", word.trim_end_matches(':')))
    };
    let p = prefix(&lines[k])?;
    let mut head = k;
    while head > 0 && (k - head) < 2_000 {
        let l = &lines[head - 1];
        if prefix(l).as_deref() == Some(p.as_str()) || l.trim() == p || l.trim_end() == p {
            head -= 1;
        } else {
            break;
        }
    }
    (k - head >= 12).then_some(head)
}

/// Where a brace-balanced object that ends `lines` opens (its last non-blank line a lone `}`):
/// the line that ends with `{`.
fn object_dump_start(lines: &[String]) -> Option<usize> {
    let last = lines.iter().rposition(|l| !l.trim().is_empty())?;
    if lines[last].trim() != "}" {
        return None;
    }
    let mut depth = 0i64;
    for k in (0..=last).rev() {
        let l = &lines[k];
        depth += l.matches(['}', ']']).count() as i64;
        depth -= l.matches(['{', '[']).count() as i64;
        if depth <= 0 {
            return (k < last).then_some(k);
        }
        if last - k > 400 {
            return None;
        }
    }
    None
}

/// Whether a block only counts a run's outcomes (`FAILED (failures=2)`, `3 problems`): a
/// finding at its place never does, however few its words (`a.c(7): Error: ';' expected`).
fn only_counts(b: &FailureBlock) -> bool {
    if b.anchors == ["diagnostic"] || b.anchors == ["diagnostic_warning"] {
        return false;
    }
    let mut content = b.lines.iter().filter(|l| {
        let t = l.trim();
        !t.is_empty() && !t.chars().all(|c| c == ' ' || crate::line::rule_char(c))
    });
    content.clone().next().is_some()
        && content.all(|l| {
            counts_only(l)
                || time_only(l)
                || crate::line::summary(l)
                || crate::line::run_verdict(l)
                || crate::stated::counts_what_came_before(l)
                || crate::stated::marked_count(l).is_some()
        })
}

/// A run's total time alone (`Total duration time: 144ms`, `Elapsed: 2.1s`): a duration and
/// the words that say it is one.
fn time_only(line: &str) -> bool {
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == ':')
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().any(|w| crate::line::duration(w))
        && words.iter().all(|w| {
            crate::line::duration(w)
                || matches!(
                    w.to_ascii_lowercase().as_str(),
                    "total" | "duration" | "time" | "elapsed" | "took" | "ran" | "in"
                )
        })
}

/// `blocks` without what only closes a run beside its failures: its closing counts, a file's
/// tally of its findings, a step's own exit, a window only an exit anchors, a bare `not ok`.
fn without_closing_lines(mut blocks: Vec<FailureBlock>) -> Vec<FailureBlock> {
    // A run's closing counts (`FAILED (failures=2, errors=1)`, `3 problems`, `4 failed, 1
    // passed`) say that failures happened, not which: beside the failures themselves they are
    // no block of their own.
    if blocks.len() > 1 && blocks.iter().any(|b| !only_counts(b)) {
        blocks.retain(|b| !only_counts(b));
    }
    // A file's tally of its findings after them (`po/fr.po: 6 errors (almost good!)` under
    // `po/fr.po:10: [punct] …`) counts them; it is none of its own.
    let placed_files: std::collections::HashSet<&str> = blocks
        .iter()
        .filter_map(|b| b.test_name.as_deref()?.rsplit_once(':'))
        .filter(|(_, line)| crate::text::whole_number(line))
        .map(|(file, _)| file)
        .collect();
    let tally = |b: &FailureBlock| {
        b.test_name
            .as_deref()
            .is_some_and(|n| placed_files.contains(n))
            && b.message.as_deref().is_some_and(|m| {
                let mut words = m.split_whitespace();
                words.next().is_some_and(crate::text::whole_number)
                    && words.next().is_some_and(|w| {
                        matches!(
                            w.trim_end_matches([',', '.', ';']),
                            "error"
                                | "errors"
                                | "warning"
                                | "warnings"
                                | "problem"
                                | "problems"
                                | "issue"
                                | "issues"
                        )
                    })
            })
    };
    let tallies: Vec<bool> = blocks.iter().map(tally).collect();
    let mut tallies = tallies.into_iter();
    blocks.retain(|_| !tallies.next().unwrap_or(false));
    // A step's own exit (`npm run test:math exited with code 1`, `ERROR: "lint" exited with
    // 1.`, with the run's closing comments above it) says that a step failed, not what: beside
    // what failed in it, it is no failure of its own.
    if blocks.len() > 1 {
        let exit_only = |b: &FailureBlock| {
            let mut content = b.lines.iter().filter(|l| {
                let t = l.trim();
                !t.is_empty() && !t.chars().all(|c| c == ' ' || crate::line::rule_char(c))
            });
            content.clone().any(|l| crate::anchor::exit_code_line(l))
                && content.all(|l| {
                    crate::anchor::exit_code_line(l)
                        || counts_only(l)
                        || crate::line::summary(l)
                        || l.trim_start().starts_with("# ")
                        // The next step's start: npm's echo of the script, a TAP header.
                        || l.starts_with("> ")
                        || l.trim_start().starts_with("TAP version ")
                        // A TAP plan (`1..2`) closing the run above.
                        || l.trim().split_once("..").is_some_and(|(a, b)| {
                            !a.is_empty()
                                && a.bytes().all(|c| c.is_ascii_digit())
                                && !b.is_empty()
                                && b.bytes().all(|c| c.is_ascii_digit())
                        })
                })
        };
        if blocks.iter().any(|b| !exit_only(b)) {
            blocks.retain(|b| !exit_only(b));
        }
        // (Nor is a window that nothing but an exit anchors, around the run's closing lines
        // with no error among them, beside tests reported by name.)
        let closing_only = |b: &FailureBlock| {
            b.test_name.is_none()
                && b.anchors == ["exit_code"]
                && !b
                    .lines
                    .iter()
                    .any(|l| error_shaped(l) && !crate::anchor::exit_code_line(l))
        };
        // (Nor is a bare `not ok` that names nothing and says nothing: the verdict of the run
        // whose reports were read above it.)
        let bare_point = |b: &FailureBlock| {
            b.anchors == ["tap_not_ok"]
                && b.test_name.as_deref().is_none_or(str::is_empty)
                && b.message.is_none()
        };
        if blocks
            .iter()
            .any(|b| b.test_name.as_deref().is_some_and(|n| !n.is_empty()) && b.message.is_some())
        {
            blocks.retain(|b| !closing_only(b) && !bare_point(b));
        }
    }
    blocks
}

/// Whether a block is a step's own error lines (an exit, a package manager's or a build's
/// error without a place), not a failure a tool reported.
pub(crate) fn step_error(b: &FailureBlock) -> bool {
    b.anchors.iter().all(|a| {
        matches!(
            *a,
            "exit_code" | "npm_err" | "error_line" | "compiler_error"
        )
    })
}

/// Puts the blocks of a text log in order and settles them: one report of a test kept, a run's
/// closing counts dropped beside real failures, a job's own failure first when nothing else was
/// found, and each block's step and place in the input.
pub(crate) fn settle(
    mut blocks: Vec<FailureBlock>,
    lines: &[String],
    unwrapped: &crate::wrapper::ci::Unwrapped,
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
    let mut blocks = without_closing_lines(blocks);
    // A tool's warnings beside failures of anything else (a build's warnings before a test
    // run) are not what failed; beside its own errors they are its findings too, after the
    // errors (D-184). (A step's own error lines, `make: *** [lint] Error 1`, are neither.)
    let warning = FailureBlock::is_warning;
    // (A build's own error that gives no place, a linker's `undefined reference`, is the same
    // build's: its warnings stay beside it.)
    let failure = |b: &FailureBlock| !warning(b) && b.anchors != ["diagnostic"] && !step_error(b);
    // (Streams told apart by their labels are tools of their own: a warning whose tool's
    // errors sit in its own stream stays, `types.1 | WARNING: …` beside `spec.1 | ✗ …`.)
    let step = |b: &FailureBlock| unwrapped.step_of(offset + b.start - 1);
    // (So is a warning in one run of findings with errors, nothing else between them:
    // `a.pp - ERROR: …` and `a.pp - WARNING: …` rows of one linter beside a test's failures.)
    if blocks.iter().any(failure) {
        let own: std::collections::HashSet<Option<&str>> = blocks
            .iter()
            .filter(|b| b.anchors == ["diagnostic"])
            .map(step)
            .filter(Option::is_some)
            .collect();
        let mut beside_errors = beside_errors(&blocks).into_iter();
        blocks.retain(|b| {
            let beside = beside_errors.next().unwrap_or(false);
            !warning(b) || own.contains(&step(b)) || beside
        });
    }
    blocks.sort_by_key(warning);
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
            .map(|l| crate::line::bounded_message(l.trim()));
        blocks.insert(0, block);
    }
    name_by_what_varies(&mut blocks, lines);
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

#[cfg(test)]
mod told_apart_tests {
    use super::{finish_with, told_apart};

    fn named(name: &str, lines: &[&str]) -> super::FailureBlock {
        let lines = lines.iter().map(|l| (*l).to_owned()).collect();
        finish_with(lines, 1, 0, vec![], Some(name.to_owned()), None)
    }

    fn names(blocks: &[super::FailureBlock]) -> Vec<&str> {
        blocks
            .iter()
            .map(|b| b.test_name.as_deref().unwrap_or_default())
            .collect()
    }

    #[test]
    fn one_name_over_distinct_items_takes_each_item() {
        let mut blocks = [
            named(
                "deps.toml",
                &["- 'pandas'", "    declared in:", "      deps.toml"],
            ),
            named(
                "deps.toml",
                &["- 'tabulate'", "    declared in:", "      deps.toml"],
            ),
            named("other.toml", &["* left", "  other.toml"]),
        ];
        told_apart(&mut blocks);
        assert_eq!(
            names(&blocks),
            ["deps.toml: pandas", "deps.toml: tabulate", "other.toml"]
        );
    }

    #[test]
    fn a_name_over_alike_or_named_or_long_openings_stays() {
        // A test run twice opens alike; a report opening with its own name; a sentence.
        for openings in [
            ["FAIL x", "FAIL x"],
            ["--- FAIL: TestX (0.00s)", "--- FAIL: TestX (0.01s)"],
            [
                "the value was not what the check expected at all",
                "the other value was not what the check expected",
            ],
        ] {
            let name = if openings[0].contains("TestX") {
                "TestX"
            } else {
                "x"
            };
            let mut blocks = openings.map(|o| named(name, &[o, "body"]));
            told_apart(&mut blocks);
            assert_eq!(names(&blocks), [name, name], "{openings:?}");
        }
    }

    fn block_of(name: &str, lines: &[&str]) -> super::FailureBlock {
        named(name, lines)
    }

    #[test]
    fn a_file_block_splits_at_each_finding_placed_in_its_file() {
        let b = block_of(
            "t/a.kv",
            &[
                "✖ t/a.kv failed",
                "  at [t/a.kv:2:8:13]:",
                "  2: name = \"svc\"",
                "            ^^^^^",
                "  missing required scopes: string.kv",
                "",
                "  at [t/a.kv:6:8:12]:",
                "  6: port = 8080",
                "  missing required scopes: numeric.kv",
            ],
        );
        let parts = super::split_at_own_places(vec![b]);
        let got: Vec<(usize, &str, &str)> = parts
            .iter()
            .map(|p| {
                (
                    p.start,
                    p.test_name.as_deref().unwrap(),
                    p.message.as_deref().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (1, "t/a.kv:2", "missing required scopes: string.kv"),
                (7, "t/a.kv:6", "missing required scopes: numeric.kv"),
            ]
        );
    }

    #[test]
    fn frames_of_the_file_with_nothing_between_them_split_nothing() {
        let frames = block_of(
            "src/a.js",
            &[
                "FAIL src/a.js",
                "  TypeError: x is undefined",
                "    at f (src/a.js:3:1)",
                "    at g (src/a.js:9:2)",
                "    at h (node_modules/x/index.js:1:1)",
            ],
        );
        let kept = super::split_at_own_places(vec![frames.clone()]);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].test_name, frames.test_name);
        // A block named by a test, or by a place already, is not a file's.
        for name in ["adds two numbers", "src/a.js:3"] {
            let b = block_of(
                name,
                &[
                    "x",
                    "  at [src/a.js:3:1]:",
                    "  wrong",
                    "  at [src/a.js:4:1]:",
                    "  wrong too",
                ],
            );
            assert_eq!(super::split_at_own_places(vec![b]).len(), 1, "{name}");
        }
    }

    #[test]
    fn an_ordinal_is_named_by_what_the_run_listed_under_its_number() {
        let lines: Vec<String> = [
            "Test [1/3] upper_basic: uppercases a small file",
            "Test 1 failed: tool upper.cwl",
            "Test [2/3] size: keeps the size",
            "Test [3/3] count: counts lines",
            "Test 3 failed: tool count.cwl",
            "Case [3/3] other: a listing of another kind",
        ]
        .map(str::to_owned)
        .to_vec();
        let mut blocks = [
            named("Test 1", &["Test 1 failed: tool upper.cwl"]),
            named("Test 3", &["Test 3 failed: tool count.cwl"]),
            named("Test 7", &["Test 7 failed"]),
            named("test_3", &["x"]),
        ];
        super::ordinal_names(&mut blocks, &lines);
        assert_eq!(
            names(&blocks),
            [
                "upper_basic: uppercases a small file",
                "count: counts lines",
                "Test 7",
                "test_3"
            ]
        );
        // A number listed under two names names nothing.
        let twice: Vec<String> = ["Test [1/2] a: one", "Test [1/2] b: two"]
            .map(str::to_owned)
            .to_vec();
        let mut blocks = [named("Test 1", &["Test 1 failed"])];
        super::ordinal_names(&mut blocks, &twice);
        assert_eq!(names(&blocks), ["Test 1"]);
    }

    #[test]
    fn an_item_is_the_line_without_its_list_mark_and_quotes() {
        for (line, item) in [
            ("- 'pandas'", "pandas"),
            ("  * `left-pad`", "left-pad"),
            ("3. \"x y\"", "x y"),
            ("12) eleven", "eleven"),
            ("• item", "item"),
            ("2024 plain", "2024 plain"),
        ] {
            assert_eq!(super::list_item(line), item, "{line}");
        }
    }
}
