//! The runner-agnostic segmenter: failure reports found by the structure runners share, for
//! every runner no parser in `runners.rs` knows. Two shapes cover most of them:
//!
//! - **Named reports.** A status line names a failing test (`FAIL: name`, `name ... FAIL`,
//!   `[  FAILED  ] name`, `✘ name`, `not ok 3 - name`, `--- FAIL: name`); the report of that
//!   test is where its name is mentioned with the most content under it (a details section
//!   after a listing, or the lines between `[ RUN ] name` and its verdict).
//! - **Numbered reports.** `1) …`, `2) …` headers down the log, each with its body.
//!
//! Each report becomes one block, from its header to the next report or the end of the
//! failures section; a report never holds two failures. A block's message is its first
//! message-like line with the lines that continue it.

use std::collections::{HashMap, HashSet};

use aho_corasick::AhoCorasick;

use stanley_core::{Cancelled, Pace};

use super::runners::Found;
use super::stated::Stated;

mod discover;

/// Longest block kept.
const MAX_BLOCK: usize = 160;
/// Most lines a message keeps.
pub(super) const MAX_MESSAGE_LINES: usize = 12;
/// Most characters a message keeps.
pub(super) const MAX_MESSAGE_CHARS: usize = 1200;

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Tree and box-drawing decoration some runners draw before a line's text.
fn undecorated(line: &str) -> &str {
    line.trim_start_matches(|c: char| c.is_whitespace() || "│├└┌┐┘┬┴┼─╷╵".contains(c))
}

/// A line of separator characters only (`=====`, `-----`, `_____`, `─────`).
fn separator(line: &str) -> bool {
    let t = line.trim();
    t.chars().count() >= 10 && t.chars().all(|c| "=-_─━~*#.".contains(c))
}

/// A duration or count suffix runners print after a name: ` (0.00s)`, ` (12 ms)`, ` [0.1s]`.
fn without_timing(name: &str) -> &str {
    let t = name.trim_end();
    for (open, close) in [(" (", ')'), (" [", ']')] {
        if let Some(at) = t.rfind(open)
            && t.ends_with(close)
        {
            let inner = &t[at + 2..t.len() - 1];
            let timing = inner.chars().any(|c| c.is_ascii_digit())
                && inner
                    .chars()
                    .all(|c| c.is_ascii_digit() || " .,:msµnhinsecSECRUNTIME".contains(c));
            if timing {
                return t[..at].trim_end();
            }
        }
    }
    t
}

/// `short (dotted.path.short) rest`: the qualified form, as unittest and nose print it (a
/// subtest's parameters kept after it).
fn qualified(name: &str) -> String {
    if let Some((short, rest)) = name.split_once(" (")
        && let Some((inside, tail)) = rest.split_once(')')
        && !inside.contains(' ')
        && inside.ends_with(short.trim())
        && inside.len() > short.trim().len()
    {
        return format!("{inside}{tail}").trim().to_owned();
    }
    // `test_x (pkg.mod.Case)`: the class in parentheses, the test after it.
    let identifier = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if let Some((short, rest)) = name.split_once(" (")
        && let Some(inside) = rest.strip_suffix(')')
        && identifier(short.trim())
        && inside.contains('.')
        && inside.split('.').all(identifier)
    {
        return format!("{inside}.{}", short.trim());
    }
    name.to_owned()
}

/// A name as runners decorate it, plain: `suite  "test"` (uvu) as `suite › test`, and a
/// parameter's description (`, where GetParam() = 5`) dropped.
fn plain(name: &str) -> String {
    let mut n = name.trim();
    if let Some(at) = n.find(", where ") {
        n = n[..at].trim_end();
    }
    if n.ends_with('"')
        && let Some(open) = n[..n.len() - 1].rfind("  \"")
        && !n[..open].contains('"')
    {
        let suite = n[..open].trim();
        let leaf = &n[open + 3..n.len() - 1];
        return if suite.is_empty() {
            leaf.to_owned()
        } else {
            format!("{suite} › {leaf}")
        };
    }
    // A name printed in quotes alone.
    if n.len() >= 2 && n.starts_with('"') && n.ends_with('"') && !n[1..n.len() - 1].contains('"') {
        return n[1..n.len() - 1].to_owned();
    }
    n.to_owned()
}

/// Counters runners print before a name: `2/7 Test  #2: `, `  2 - `.
fn without_counter(text: &str) -> &str {
    let t = text.trim_start();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        let rest = &t[digits..];
        if let Some(r) = rest.strip_prefix(" - ") {
            return r;
        }
        if let Some(r) = rest.strip_prefix('/') {
            let d2 = r.chars().take_while(char::is_ascii_digit).count();
            let r = r[d2..].trim_start();
            if let Some(r) = r.strip_prefix("Test") {
                let r = r.trim_start().trim_start_matches('#');
                let d3 = r.chars().take_while(char::is_ascii_digit).count();
                if let Some(r) = r[d3..].strip_prefix(": ") {
                    return r;
                }
            }
        }
    }
    t
}

/// Verdict words after a dot leader or in parentheses that say a test failed.
fn failed_verdict(word: &str) -> bool {
    let w = word.trim().trim_start_matches('*').trim_end_matches('*');
    let lower = w.to_ascii_lowercase();
    [
        "failed",
        "fail",
        "error",
        "errored",
        "exception",
        "subprocess aborted",
        "segfault",
        "timeout",
        "child aborted",
    ]
    .iter()
    .any(|v| {
        lower == *v || lower.starts_with(&format!("{v} ")) || lower.ends_with(&format!("***{v}"))
    }) || lower.contains("***failed")
        || lower.contains("***exception")
        || lower.contains("***timeout")
}

/// Whether `name` reads as a test's name rather than a count or a sentence about the run.
fn name_like(name: &str) -> bool {
    let t = name.trim();
    if t.is_empty() || t.chars().count() > 300 {
        return false;
    }
    let first = t.split_whitespace().next().unwrap_or("");
    let counting = first.chars().all(|c| c.is_ascii_digit())
        && t.split_whitespace().nth(1).is_some_and(|w| {
            let w = w.to_ascii_lowercase();
            [
                "test", "tests", "spec", "specs", "example", "examples", "failed", "failures",
                "failure", "errors", "error", "of", "passed",
            ]
            .contains(&w.trim_end_matches([',', ':']))
        });
    // A count of outcomes (`(failures=10)`, `6 problems`) is no test's name.
    !counting
        && !super::stated::states_counts(t)
        && !t
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_punctuation())
}

/// The failing test a status line names, if it is one.
pub(super) fn status_name(line: &str) -> Option<String> {
    let t = undecorated(line).trim_end();
    // Test::More's diagnostic: `#   Failed test 'name'`
    if let Some(rest) = t
        .trim_start_matches('#')
        .trim_start()
        .strip_prefix("Failed test '")
        && let Some(name) = rest.strip_suffix('\'')
    {
        return name_like(name).then(|| name.to_owned());
    }
    // `2/7 Test #2: name .......***Failed  0.01 sec` (ctest), `name ........ FAIL`
    let counted = without_counter(t);
    if let Some(at) = counted.find(" ...")
        && let Some(verdict) = counted[at..]
            .trim_start_matches([' ', '.'])
            .split("  ")
            .next()
        && failed_verdict(verdict)
    {
        let before = counted[..at].trim();
        let name = plain(&qualified(before.strip_prefix("test ").unwrap_or(before)));
        return name_like(&name).then_some(name);
    }
    // `  2 - name (Failed)`
    if let Some(open) = counted.rfind(" (")
        && counted.ends_with(')')
        && failed_verdict(&counted[open + 2..counted.len() - 1])
    {
        let name = plain(&counted[..open]);
        return name_like(&name).then_some(name);
    }
    // `Failure: test_add(TestCalc)`, `Error: test_div(TestCalc): ZeroDivisionError`: a verdict
    // word and a test's id (a method and its class), not a message that starts with `Error:`.
    for verdict in ["Failure: ", "Error: ", "Failed: ", "Errored: "] {
        if let Some(rest) = t.strip_prefix(verdict)
            && let Some(id) = test_id(rest)
        {
            return Some(id.to_owned());
        }
    }
    let prefixes: [&str; 19] = [
        "● ",
        "--- FAIL: ",
        "FAIL: ",
        "ERROR: ",
        "FAILED: ",
        "FAILURE: ",
        "[  FAILED  ] ",
        "[fail]: ",
        "✘ [fail]: ",
        "✖ ",
        "✘ ",
        "✗ ",
        "× ",
        "✕ ",
        "(fail) ",
        "FAILED ",
        "FAIL ",
        "not ok ",
        "ERROR ",
    ];
    for p in prefixes {
        let Some(rest) = t.strip_prefix(p) else {
            continue;
        };
        let rest = match p {
            // `not ok 3 - name # directive`
            "not ok " => {
                let r = rest
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .trim_start();
                let r = r.strip_prefix("- ").unwrap_or(r);
                r.split(" # ").next().unwrap_or(r)
            }
            // pytest's summary: `FAILED path::test - message`
            "FAILED " | "ERROR " => rest.split(" - ").next().unwrap_or(rest),
            _ => rest,
        };
        let name = without_timing(rest.trim());
        // AVA and others add what happened after the name.
        let name = name
            .strip_suffix(" Error thrown in test")
            .or_else(|| name.strip_suffix(" Rejected promise returned by test"))
            .unwrap_or(name);
        let name = plain(&qualified(name.trim()));
        // jest's `● Console` heads logged output, not a failure.
        if p == "● " && (name == "Console" || name.starts_with("Console ")) {
            return None;
        }
        return name_like(&name).then_some(name);
    }
    // `name ... FAIL`, `name ... ERROR`, `test name ... FAILED`
    for suffix in [" ... FAIL", " ... ERROR", " ... FAILED", " ... failed"] {
        if let Some(name) = t.strip_suffix(suffix) {
            let name = name.strip_prefix("test ").unwrap_or(name).trim();
            return name_like(name).then(|| qualified(name));
        }
    }
    // `name ✘ message` (JUnit's tree), but not a progress line of marks (`suite ✘ ✘ • (0 / 2)`),
    // and `name (FAILED - 1)` (RSpec's documentation format).
    if let Some((name, after)) = t.split_once(" ✘")
        && !after
            .chars()
            .all(|c| c.is_whitespace() || "✘✔•·()/0123456789".contains(c))
    {
        return name_like(name).then(|| name.trim().to_owned());
    }
    if let Some(at) = t.find(" (FAILED - ")
        && t.ends_with(')')
    {
        let name = &t[..at];
        return name_like(name).then(|| name.trim().to_owned());
    }
    None
}

/// A test's id at the start of `text`: `method(Class)` or `method (pkg.Class)`, up to the
/// `: ` that may follow it.
fn test_id(text: &str) -> Option<&str> {
    let id = text.split(": ").next().unwrap_or(text).trim_end();
    let open = id.find('(')?;
    let method = id[..open].trim_end();
    let class = id[open + 1..].strip_suffix(')')?;
    let ident = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_?!".contains(c))
    };
    (ident(method)
        && !class.is_empty()
        && class.split(['.', ':']).filter(|p| !p.is_empty()).all(ident))
    .then_some(id)
}

/// Whether a line says the run is over: a summary of counts or a runner's closing words.
pub(super) fn summary(line: &str) -> bool {
    let t = line.trim();
    let lower = t.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let counted = words
        .first()
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()))
        && words.get(1).is_some_and(|w| {
            [
                "passing",
                "failing",
                "pending",
                "tests",
                "test",
                "specs",
                "spec",
                "examples",
                "example",
                "runs",
                "run",
                "passed",
                "failed",
                "scenarios",
                "features",
                "steps",
                "assertions",
            ]
            .contains(&w.trim_end_matches([',', ':', ';']))
        });
    // `Tests  3 failed | 3 passed (6)`, `Test Files  2 failed (2)`, `Test Suites: 1 failed`.
    let labelled_counts = {
        let label: String = t
            .chars()
            .take_while(|c| c.is_ascii_alphabetic() || *c == ' ')
            .collect();
        let rest = t[label.len()..].trim_start_matches([':', ' ']);
        let label = label.trim();
        !label.is_empty()
            && label.split(' ').count() <= 2
            && label.starts_with(|c: char| c.is_ascii_uppercase())
            && rest.starts_with(|c: char| c.is_ascii_digit())
            && ["failed", "passed", "failing", "passing", "total"]
                .iter()
                .any(|w| {
                    rest.split_whitespace()
                        .take(3)
                        .any(|x| x.trim_end_matches([',', '|']) == *w)
                })
    };
    counted
        || labelled_counts
        || [
            "FAILURES!",
            "ERRORS!",
            "Tests: ",
            "Ran ",
            "Finished in ",
            "Failed examples:",
            "rake aborted!",
            "test result: ",
            "Test Suites: ",
            "Summary [",
            "Time: ",
            "OK (",
            "Failing scenarios:",
        ]
        .iter()
        .any(|p| t.starts_with(p))
}

/// Whether a line is content of a report (not blank, not a separator, not a passing verdict).
fn content(line: &str) -> bool {
    let t = undecorated(line).trim();
    let passing = t.starts_with("ok ")
        || t.starts_with('✔')
        || t.starts_with('✓')
        || t.starts_with("[       OK ]")
        || t.ends_with(" ... ok");
    !t.is_empty() && !separator(line) && !passing
}

/// A report: lines `start..end` of the log, named `name`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
    name: Option<String>,
}

/// Named reports: for each failing name, the mention with the most content under it. Also
/// returns every line that mentions a failing name (listings and summaries of the same
/// failures, which are no reports of their own).
fn named(lines: &[String], covered: &[bool], pace: &Pace<'_>) -> Result<Named, Cancelled> {
    let mut names: Vec<String> = Vec::new();
    let mut known: HashSet<String> = HashSet::new();
    let mut status_at: Vec<(usize, String)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        pace.step()?;
        if covered[i] {
            continue;
        }
        if let Some(n) = status_name(l) {
            if known.insert(n.clone()) {
                names.push(n.clone());
            }
            status_at.push((i, n));
        }
    }
    // Lists under a `Failing scenarios:` / `Failed examples:` header name one failure each:
    // `features/a.feature:25  Gift wrap`, `rspec ./spec/a_spec.rb:12 # Wallet pays`.
    let mut list = false;
    for (i, l) in lines.iter().enumerate() {
        pace.step()?;
        let t = l.trim();
        if t.is_empty() {
            list = false;
            continue;
        }
        let heading = [
            "Failing ",
            "Failed ",
            "Errored ",
            "Erroring ",
            "Broken ",
            "Crashed ",
        ]
        .iter()
        .any(|w| t.starts_with(w));
        if heading && t.ends_with(':') && !t.contains("  ") {
            list = true;
            continue;
        }
        if !list || covered[i] || indent(l) == 0 {
            continue;
        }
        let name = t
            .rsplit_once(" # ")
            .map(|(_, n)| n)
            .or_else(|| t.split_once("  ").map(|(_, n)| n))
            .unwrap_or(t)
            .trim()
            .to_owned();
        if name_like(&name) && known.insert(name.clone()) {
            names.push(name.clone());
            status_at.push((i, name));
        }
    }
    // A test that started and never got a verdict crashed the run (`[ RUN ] x` and an abort):
    // only the last one started can have, since a crash ends the run.
    let started = |l: &str| -> Option<String> {
        let t = l.trim();
        t.strip_prefix("[ RUN      ] ")
            .or_else(|| t.strip_prefix("=== RUN   "))
            .map(|n| n.trim().to_owned())
    };
    if let Some((i, name)) = lines
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, l)| started(l).map(|n| (i, n)))
    {
        let verdict = lines[i + 1..].iter().any(|m| m.contains(name.as_str()));
        if !verdict && !covered[i] && name_like(&name) && !known.contains(&name) {
            names.push(name.clone());
            status_at.push((i, name));
        }
    }
    drop(known);
    // A listing may print what a test said after its name (`✘ [fail]: name message`); a
    // details header showing the name alone gives the name.
    // (Each line by its first place, so a name looks up its own prefixes, not every line.)
    let mut first_at: HashMap<&str, usize> = HashMap::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim();
        if t.chars().count() >= 4 {
            first_at.entry(t).or_insert(i);
        }
    }
    for n in &mut names {
        let shorter = n
            .match_indices(' ')
            .filter_map(|(p, _)| Some((*first_at.get(&n[..p])?, p)))
            .filter(|(_, p)| status_name(&n[..*p]).is_none())
            .min();
        if let Some((_, p)) = shorter {
            n.truncate(p);
        }
    }
    drop(first_at);
    if names.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    // A details header may show only a name's leaf (`____ test_add ____` for
    // `tests/test_a.py::test_add`): leaves that tell the failures apart.
    let mut leaf_count: HashMap<&str, usize> = HashMap::new();
    for n in &names {
        *leaf_count.entry(leaf_of(n)).or_default() += 1;
    }
    // Each telling leaf by the first name it belongs to.
    let mut leaves: HashMap<&str, usize> = HashMap::new();
    for (k, n) in names.iter().enumerate() {
        let leaf = leaf_of(n);
        if leaf_count[leaf] == 1 && leaf.chars().count() >= 4 && leaf != n.as_str() {
            leaves.entry(leaf).or_insert(k);
        }
    }
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .rev()
        .map(|(k, n)| (n.as_str(), k))
        .collect();
    // Every name, and its unscoped form, found in a line at once: one automaton for the log.
    let forms: Vec<(String, usize)> = names
        .iter()
        .enumerate()
        .flat_map(|(k, n)| {
            let u = unscoped(n);
            let both = if u == *n {
                vec![n.clone()]
            } else {
                vec![n.clone(), u]
            };
            both.into_iter().map(move |f| (f, k))
        })
        .filter(|(f, _)| !f.is_empty())
        .collect();
    let finder = AhoCorasick::new(forms.iter().map(|(f, _)| f.as_str())).ok();
    // Every line that mentions a failing name, and which name (the longest that fits).
    let mention = |l: &str| -> Option<usize> {
        // A status line names its test the way the names were read.
        if let Some(n) = status_name(l)
            && let Some(&k) = index.get(n.as_str())
        {
            return Some(k);
        }
        let whole = finder.as_ref().and_then(|finder| {
            finder
                .find_overlapping_iter(l)
                .map(|m| forms[m.pattern().as_usize()].1)
                .max_by_key(|&k| (names[k].len(), k))
        });
        whole.or_else(|| {
            let core = l
                .trim()
                .trim_matches(|c: char| c.is_whitespace() || "_=-─#*".contains(c));
            leaf_in(core, &leaves)
        })
    };
    let mut mentions: Vec<(usize, usize)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        pace.step()?;
        if !covered[i]
            && let Some(k) = mention(l)
        {
            mentions.push((i, k));
        }
    }
    // Which name each line mentions, by line, for the walks below.
    let mut mentioned: Vec<Option<usize>> = vec![None; lines.len()];
    for &(i, k) in &mentions {
        mentioned[i] = Some(k);
    }
    let mut by_name: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    for &(at, k) in &mentions {
        by_name[k].push(at);
    }
    let mut spans = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let mut best: Option<(usize, Span)> = None;
        for &at in &by_name[k] {
            pace.step()?;
            // The report runs to the next mention of another failing name, the end of the
            // failures section, or this name's own verdict after it (`[ RUN ] x … [ FAILED ] x`).
            let mut end = at + 1;
            let mut closed = false;
            // A report headed `Keyword: name` ends where a sibling header starts.
            let sibling = keyword_header(&lines[at])
                .is_some()
                .then(|| indent(&lines[at]));
            while end < lines.len()
                && end - at < MAX_BLOCK
                && !covered[end]
                && !summary(&lines[end])
            {
                if sibling.is_some_and(|d| {
                    indent(&lines[end]) <= d && keyword_header(&lines[end]).is_some()
                }) {
                    break;
                }
                if let Some(other) = mentioned[end] {
                    if other != k {
                        break;
                    }
                    if status_name(&lines[end]).is_some() && status_name(&lines[at]).is_none() {
                        end += 1;
                        closed = true;
                        // What the test's crash printed after its verdict (go's `panic:` and
                        // its goroutines) is still its report, up to the next test.
                        if lines.get(end).is_some_and(|l| message_like(l)) {
                            let mut blanks = 0;
                            while end < lines.len() && end - at < MAX_BLOCK && !covered[end] {
                                let l = &lines[end];
                                let t = l.trim();
                                blanks = if t.is_empty() { blanks + 1 } else { 0 };
                                let next_test = status_name(l).is_some()
                                    || t.starts_with("=== ")
                                    || t.starts_with("[ ")
                                    || mentioned[end].is_some()
                                    || summary(l)
                                    || t == "FAIL"
                                    || t.starts_with("FAIL\t")
                                    || t.starts_with("ok ");
                                if next_test || blanks >= 2 {
                                    break;
                                }
                                end += 1;
                            }
                        }
                        break;
                    }
                    // Another mention of the same name starts a report of its own.
                    break;
                }
                end += 1;
            }
            // A Test::More diagnostic (`#   Failed test 'x'`) runs over its own comment lines.
            if lines[at].trim_start().starts_with('#') {
                let comments = lines[at + 1..end]
                    .iter()
                    .take_while(|l| l.trim_start().starts_with('#'))
                    .count();
                end = at + 1 + comments;
            }
            // Trailing blank and separator lines are not part of it.
            while end > at + 1 && !content(&lines[end - 1]) {
                end -= 1;
            }
            // A report closed by its own verdict (`[ RUN ] x` … `[ FAILED ] x`) is the one.
            let weight = lines[at + 1..end].iter().filter(|l| content(l)).count()
                + if closed { MAX_BLOCK } else { 0 };
            if best.as_ref().is_none_or(|(w, _)| weight > *w) {
                best = Some((
                    weight,
                    Span {
                        start: at,
                        end,
                        name: Some(name.clone()),
                    },
                ));
            }
        }
        if let Some((_, span)) = best {
            spans.push(span);
        }
    }
    spans.sort_by_key(|s| s.start);
    // Two names whose best mentions overlap: the later start wins the overlap.
    for i in 1..spans.len() {
        if spans[i].start < spans[i - 1].end {
            spans[i - 1].end = spans[i].start.max(spans[i - 1].start + 1);
        }
    }
    Ok((spans, mentions.into_iter().map(|(i, _)| i).collect()))
}

/// Named reports and the lines that list the failing names.
type Named = (Vec<Span>, Vec<usize>);

/// The first name (by its index) whose telling leaf `core` starts or ends with, where `core` is
/// at most 40 characters longer than the leaf: only the 41 longest prefixes and suffixes of
/// `core` are looked up, so a long line costs no more than a short one.
fn leaf_in(core: &str, leaves: &HashMap<&str, usize>) -> Option<usize> {
    if leaves.is_empty() || core.is_empty() {
        return None;
    }
    let bounds: Vec<usize> = core
        .char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(core.len()))
        .collect();
    let chars = bounds.len() - 1;
    let shortest = chars.saturating_sub(40);
    let mut best: Option<usize> = None;
    // A prefix of `n` characters ends at bounds[n]; a suffix of `n` starts at bounds[chars - n].
    for n in shortest.max(1)..=chars {
        for part in [&core[..bounds[n]], &core[bounds[chars - n]..]] {
            if let Some(&k) = leaves.get(part) {
                best = Some(best.map_or(k, |b| b.min(k)));
            }
        }
    }
    best
}

/// The last part of a name after its scopes: `tests/a.py::test_b` → `test_b`,
/// `Suite › test` → `test`, `pkg.Class.test` → `test`.
fn leaf_of(name: &str) -> &str {
    let mut leaf = name;
    for sep in ["::", " › ", " > ", "#"] {
        if let Some((_, after)) = leaf.rsplit_once(sep) {
            leaf = after;
        }
    }
    // A dotted path's last part, unless the dots are inside brackets (`test[1.5]`).
    if !leaf.contains('[')
        && !leaf.contains(' ')
        && let Some((_, after)) = leaf.rsplit_once('.')
    {
        leaf = after;
    }
    leaf.trim()
}

/// A name as a runner prints it in a details header when the scope separator is not `›`
/// (uvu: `suite  "test"`).
fn unscoped(name: &str) -> String {
    match name.split_once(" › ") {
        Some((suite, leaf)) if !leaf.contains(" › ") && !suite.contains('"') => {
            format!("{suite}  \"{leaf}\"")
        }
        _ => name.to_owned(),
    }
}

/// `1) …` headers: (line, number, indentation, text after the number).
fn numbered_headers(lines: &[String]) -> Vec<(usize, u32, usize, String)> {
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let t = l.trim_start();
            let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
            let rest = t[digits.len()..].strip_prefix(')')?;
            if digits.is_empty() || digits.len() > 4 || !(rest.is_empty() || rest.starts_with(' '))
            {
                return None;
            }
            Some((i, digits.parse().ok()?, indent(l), rest.trim().to_owned()))
        })
        .collect()
}

/// Numbered reports: the last run `1) … 2) … n)` whose headers each have a body.
fn numbered(lines: &[String], covered: &[bool]) -> Vec<Span> {
    let headers: Vec<(usize, u32, usize, String)> = numbered_headers(lines)
        .into_iter()
        .filter(|(i, ..)| !covered[*i])
        .collect();
    // Runs `1) … 2) … n)`, each ended by the first header out of sequence. A run whose headers
    // have reports under them is one list of failures (several lists can follow each other:
    // errors, then failures, each numbered from 1); a run of bare headers is a listing.
    let body = |k: usize| -> usize {
        let (at, ..) = headers[k];
        let next = headers.get(k + 1).map_or(lines.len(), |h| h.0);
        lines[at + 1..next.min(at + 1 + MAX_BLOCK)]
            .iter()
            .take_while(|l| !summary(l))
            .filter(|l| content(l))
            .count()
    };
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut k = 0;
    while k < headers.len() {
        if headers[k].1 != 1 {
            k += 1;
            continue;
        }
        let mut run = vec![k];
        let mut j = k + 1;
        while j < headers.len()
            && headers[j].1 == headers[*run.last().unwrap_or(&k)].1 + 1
            && headers[j].2 == headers[k].2
        {
            run.push(j);
            j += 1;
        }
        runs.push(run);
        k = j.max(k + 1);
    }
    let reported: Vec<Vec<usize>> = runs
        .into_iter()
        .filter(|run| run.iter().filter(|&&h| body(h) > 0).count() * 2 >= run.len())
        .collect();
    let best: Vec<&(usize, u32, usize, String)> =
        reported.iter().flatten().map(|&h| &headers[h]).collect();
    let mut spans = Vec::new();
    for (n, h) in best.iter().enumerate() {
        let (at, depth, text) = (h.0, h.2, &h.3);
        let limit = best.get(n + 1).map_or(lines.len(), |h| h.0);
        let mut end = at + 1;
        while end < limit && end - at < MAX_BLOCK && !covered[end] {
            let l = &lines[end];
            if summary(l) && indent(l) <= depth + 2 {
                break;
            }
            end += 1;
        }
        while end > at + 1 && !content(&lines[end - 1]) {
            end -= 1;
        }
        spans.push(Span {
            start: at,
            end,
            name: numbered_name(&lines[at + 1..end], text, depth),
        });
    }
    spans
}

/// A numbered header's test name: its text, with the more-indented title lines that end with
/// `:` (mocha's nesting), or the next line when the header is only a verdict (`1) Failure:`).
fn numbered_name(body: &[String], text: &str, depth: usize) -> Option<String> {
    let bare = matches!(
        text.trim_end_matches(':').to_ascii_lowercase().as_str(),
        "failure" | "error" | "failed" | "fail"
    );
    let mut name = if bare {
        String::new()
    } else {
        text.trim().to_owned()
    };
    let mut rest = body.iter();
    if bare || name.is_empty() {
        let next = rest.find(|l| !l.trim().is_empty())?;
        name = next.trim().to_owned();
        // `Class#test_name [path:line]:`
        if let Some(at) = name.rfind(" [")
            && name.ends_with("]:")
        {
            name.truncate(at);
        }
    } else if !name.ends_with(':') {
        // Nested titles under the header, each deeper than the one before, the last ending
        // with `:` (mocha: `1) Suite` / `     inner` / `       test name:`).
        let mut titles: Vec<&str> = Vec::new();
        let mut last = depth;
        for l in body {
            let t = l.trim();
            if t.is_empty() || indent(l) <= last || titles.len() >= 6 {
                titles.clear();
                break;
            }
            // A section label of the report (`Message:`, `Stack:`) is no title.
            let label = t.strip_suffix(':').is_some_and(|w| {
                matches!(
                    w.to_ascii_lowercase().as_str(),
                    "message"
                        | "stack"
                        | "error"
                        | "failure"
                        | "expected"
                        | "actual"
                        | "output"
                        | "details"
                        | "reason"
                        | "cause"
                        | "diff"
                        | "stack trace"
                        | "stacktrace"
                )
            });
            if label {
                titles.clear();
                break;
            }
            last = indent(l);
            titles.push(t);
            if t.ends_with(':') {
                break;
            }
        }
        if titles.last().is_some_and(|t| t.ends_with(':')) {
            for t in titles {
                name.push(' ');
                name.push_str(t);
            }
        }
    }
    let name = name.trim().trim_end_matches(':').trim().to_owned();
    name_like(&name).then_some(name)
}

/// `Keyword: name  # location` (Gherkin's `Scenario:`, `Example:`): the name.
fn keyword_header(line: &str) -> Option<String> {
    let t = line.trim();
    let (keyword, rest) = t.split_once(": ")?;
    // Title-case words (`Scenario`, `Scenario Outline`), not a verdict (`FAIL`) or an
    // exception's name (`AssertionError`).
    let keyword_like = !keyword.is_empty()
        && keyword.len() <= 24
        && keyword.split(' ').all(|w| {
            let mut cs = w.chars();
            cs.next().is_some_and(|c| c.is_ascii_uppercase()) && cs.all(|c| c.is_ascii_lowercase())
        })
        && ![
            "Error",
            "Exception",
            "Warning",
            "Failure",
            "Message",
            "Stack",
            "Expected",
            "Actual",
        ]
        .iter()
        .any(|w| keyword.ends_with(w));
    if !keyword_like {
        return None;
    }
    let name = rest.split("  #").next().unwrap_or(rest).trim();
    name_like(name).then(|| name.to_owned())
}

/// Indentation reports: a message line inside a block headed by `Keyword: name` (a Gherkin
/// scenario under its steps) belongs to the nearest such header above it, and the report is
/// that header's block.
fn indented(lines: &[String], covered: &[bool]) -> Vec<Span> {
    let mut spans: Vec<Span> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if covered[i] || !message_like(l) || spans.last().is_some_and(|s| i < s.end) {
            continue;
        }
        let mut depth = indent(l);
        let mut header = None;
        for h in (i.saturating_sub(MAX_BLOCK)..i).rev() {
            let above = &lines[h];
            if above.trim().is_empty() || indent(above) >= depth {
                continue;
            }
            depth = indent(above);
            if let Some(name) = keyword_header(above) {
                header = Some((h, name));
                break;
            }
            if depth == 0 {
                break;
            }
        }
        let Some((h, name)) = header else {
            continue;
        };
        if covered[h] {
            continue;
        }
        let mut end = h + 1;
        while end < lines.len()
            && !covered[end]
            && (lines[end].trim().is_empty() || indent(&lines[end]) > depth)
        {
            end += 1;
        }
        while end > h + 1 && !content(&lines[end - 1]) {
            end -= 1;
        }
        spans.push(Span {
            start: h,
            end,
            name: Some(name),
        });
    }
    spans
}

/// Framed reports: a title between two separator lines (`-----` / `name` / `-----`, Catch2's
/// test cases, nested sections on further title lines), its body up to the next frame, when
/// the body says something failed.
fn framed(lines: &[String], covered: &[bool]) -> Vec<Span> {
    let mut frames: Vec<(usize, usize, String)> = Vec::new(); // (first separator, body start, name)
    let mut i = 0;
    while i + 2 < lines.len() {
        if covered[i] || !separator(&lines[i]) {
            i += 1;
            continue;
        }
        let close = (i + 2..(i + 6).min(lines.len())).find(|&j| separator(&lines[j]));
        let Some(j) = close else {
            i += 1;
            continue;
        };
        let titles: Vec<&str> = lines[i + 1..j].iter().map(|l| l.trim()).collect();
        if titles.iter().any(|t| t.is_empty()) || covered[i + 1..j].iter().any(|c| *c) {
            i += 1;
            continue;
        }
        let name = titles.join(" / ");
        // A line of progress marks between two reports' rules (`F`, `.E`) titles nothing.
        let progress = name.chars().all(|c| ".FEfesSx*".contains(c));
        if name_like(&name) && !progress {
            frames.push((i, j + 1, name));
        }
        i = j + 1;
    }
    let mut spans = Vec::new();
    for (k, (start, body, name)) in frames.iter().enumerate() {
        let mut end = frames.get(k + 1).map_or(lines.len(), |f| f.0);
        if let Some(stop) = (*body..end).find(|&e| covered[e] || summary(&lines[e])) {
            end = stop;
        }
        // A run's last separator (`=====`) closes the report.
        while end > *body && (!content(&lines[end - 1]) || separator(&lines[end - 1])) {
            end -= 1;
        }
        let failed = lines[*body..end].iter().any(|l| {
            message_like(l)
                || l.contains("FAILED")
                || l.contains(": failed")
                || l.contains(": error:")
        });
        if failed {
            spans.push(Span {
                start: *start,
                end,
                name: Some(name.clone()),
            });
        }
    }
    spans
}

/// Whether a line reads as a failure's message.
fn message_like(line: &str) -> bool {
    let t = undecorated(line).trim();
    let t = t.strip_prefix("=> ").unwrap_or(t);
    let t = t.strip_prefix("E ").map_or(t, str::trim_start);
    let word: String = t
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'))
        .collect();
    let after = &t[word.len()..];
    let error_word = (word.ends_with("Error")
        || word.ends_with("Exception")
        || word.ends_with("Failure")
        || word == "Error"
        || word == "panic")
        && (after.starts_with(':') || after.starts_with(" [") || after.is_empty());
    error_word
        || t.starts_with("Expected")
        || t.starts_with("expected")
        || t.starts_with("Failed asserting")
        || t.starts_with("ASSERT")
        || t.starts_with("Assertion Failed")
        || t.starts_with("assert")
        || t.starts_with("AssertionError")
        || t.starts_with("Assertion failed")
        || t.starts_with("C++ exception")
        || t.contains(" panicked at ")
        || t.starts_with("Caused by: ")
        || t.starts_with("Failure/Error: ")
        || t.ends_with(": Failure")
        || t.ends_with(": FAILED:")
        || t.starts_with("not ok ")
}

/// Whether a line is a stack frame, a location, source excerpt or diff legend: what follows a
/// message rather than continuing it.
fn after_message(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("at ")
        || t.starts_with("File \"")
        || t.starts_with("Traceback")
        || t.starts_with("Stack:")
        || t.starts_with("stack:")
        || t.starts_with("note: run with")
        || t.starts_with("+ expected - actual")
        || t.starts_with("+ actual - expected")
        || t.starts_with("--- Expected")
        || t.starts_with("› ")
        || t.starts_with("# ")
        || (t.contains(".java:") && t.ends_with(')'))
        || (t.starts_with('/')
            && t.rsplit(':')
                .next()
                .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())))
        || t.starts_with("[...]")
}

/// A block's message: its first message-like line (else its first content line after the
/// header) with the lines that continue it, whole up to [`MAX_MESSAGE_LINES`].
/// A line that only says where (`(in test file t/a.bats, line 19)`, `at t/a.t line 8.`).
fn location_only(line: &str) -> bool {
    let t = line.trim().trim_start_matches('#').trim();
    let t = t
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(t);
    let t = t.trim_end_matches('.');
    (t.starts_with("in ") || t.starts_with("at "))
        && t.rsplit_once("line ")
            .is_some_and(|(_, n)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// A message that says only that something failed (`test failure`, `Failed`, `Error`).
pub(super) fn says_nothing(message: &str) -> bool {
    matches!(
        message
            .trim()
            .trim_end_matches(['.', ':'])
            .to_ascii_lowercase()
            .as_str(),
        "" | "test failure"
            | "failure"
            | "failed"
            | "fail"
            | "error"
            | "assertion failed"
            | "test failed"
    )
}

/// A bare `path.ext:line[:col]` (or `unknown file`): where, not what.
pub(super) fn bare_location(text: &str) -> bool {
    let t = text.trim();
    if t == "unknown file" {
        return true;
    }
    let mut parts = t.rsplitn(3, ':');
    let (Some(last), Some(rest)) = (parts.next(), parts.next()) else {
        return false;
    };
    let path = parts.next().map_or(rest, |p| p);
    let numeric = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    !t.contains(' ')
        && numeric(last)
        && (numeric(rest) || path.contains('.'))
        && path
            .rsplit('.')
            .next()
            .is_some_and(|e| e.len() <= 5 && e.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// A numbered line of quoted source (`   4: test('x', …)`, `  9|   expect(…)`).
fn source_excerpt(line: &str) -> bool {
    let t = line.trim_start();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    digits > 0
        && (t[digits..].starts_with(": ")
            || t[digits..].starts_with('|')
            || t[digits..].starts_with(" |"))
}

/// A Python traceback's exception: the first line after the traceback's frames that is not a
/// frame or the code it quotes (`KeyError: 'GBP'`), with its continuation.
fn python_exception(body: &[String]) -> Option<usize> {
    let tb = body
        .iter()
        .rposition(|l| l.trim() == "Traceback (most recent call last):")?;
    let depth = indent(&body[tb]);
    body.iter()
        .enumerate()
        .skip(tb + 1)
        .find(|(_, l)| !l.trim().is_empty() && indent(l) <= depth)
        .map(|(i, _)| i)
}

pub(super) fn message_of(body: &[String]) -> Option<String> {
    if let Some(at) = python_exception(body) {
        return message_from(body, at);
    }
    let first_content = body.iter().position(|l| {
        content(l)
            && !after_message(l)
            && !location_only(l)
            && !bare_location(l)
            && !source_excerpt(l)
    });
    let at = body
        .iter()
        .position(|l| message_like(l))
        .map(|m| {
            // The other half of a pair of values printed above the `expected` line (Test::More
            // prints `got:` first) starts the message.
            if m > 0 && value_label(&body[m - 1]) {
                return m - 1;
            }
            // What the test said in its own words just before the assertion's message
            // (`key :a was evicted…` above minitest's `Expected:`) starts the message.
            match first_content {
                Some(c)
                    if c + 1 == m
                        && indent(&body[c]) == indent(&body[m])
                        && !body[c].trim_end().ends_with("]:") =>
                {
                    c
                }
                _ => m,
            }
        })
        .or_else(|| {
            body.iter().position(|l| {
                content(l)
                    && !after_message(l)
                    && !location_only(l)
                    && !bare_location(l)
                    && !source_excerpt(l)
            })
        })?;
    message_from(body, at)
}

/// The message starting at `body[at]`, whole.
fn message_from(body: &[String], at: usize) -> Option<String> {
    let base = indent(&body[at]);
    let mut out: Vec<String> = Vec::new();
    let first = body[at].trim();
    let first = first.strip_prefix("=> ").unwrap_or(first);
    // A Rust panic's message is on the lines after `panicked at`.
    if first.contains(" panicked at ") {
        for l in body[at + 1..]
            .iter()
            .take_while(|l| !l.trim().is_empty() && !after_message(l))
        {
            out.push(l.trim().to_owned());
            if out.len() >= MAX_MESSAGE_LINES {
                break;
            }
        }
        if !out.is_empty() {
            return Some(bounded(&out));
        }
    }
    // pytest marks a message's lines with `E`, TAP's diagnostics with `#`; continuation lines
    // carry the mark too.
    let mark = ["E ", "# "].into_iter().find(|m| first.starts_with(m));
    let marked = mark.is_some();
    let first = if marked {
        first[1..].trim_start()
    } else {
        first
    };
    out.push(first.to_owned());
    // A message that announces what follows (`Expected values to be strictly deep-equal:`), or
    // that quotes the failing statement (`Failure/Error: expect(total).to eq(5)`), goes on over
    // one blank line to the values, which say why.
    let announces = first.ends_with(':') || quotes_statement(first);
    let mut blank_seen = false;
    for l in &body[at + 1..] {
        let t = l.trim();
        if t.is_empty() && announces && !blank_seen && out.len() < MAX_MESSAGE_LINES {
            blank_seen = true;
            continue;
        }
        // The legend of the diff it announces says nothing of its own.
        let legend = [
            "+ actual - expected",
            "+ expected - actual",
            "- Expected",
            "+ Received",
            "--- Expected",
            "+++ Actual",
            "Difference (",
        ]
        .iter()
        .any(|g| t.starts_with(g) && t.len() < 40);
        if announces && legend {
            continue;
        }
        // A message that names a comparison without its values (PHPUnit's `Failed asserting
        // that two strings are identical.`) keeps the changed lines of the diff that follows.
        if t.starts_with("--- Expected") {
            let changed: Vec<String> = body[at + 1..]
                .iter()
                .map(|l| l.trim())
                .skip_while(|t| !t.starts_with("--- Expected"))
                .skip(1)
                .take_while(|t| !t.is_empty() && !after_message(t))
                .filter(|t| (t.starts_with('-') || t.starts_with('+')) && !t.starts_with("+++"))
                .take(MAX_MESSAGE_LINES - 1)
                .map(str::to_owned)
                .collect();
            out.extend(changed);
            break;
        }
        if t.is_empty()
            || (after_message(l) && !(mark == Some("# ") && t.starts_with("# ")))
            || separator(l)
            || summary(l)
            || status_name(l).is_some()
        {
            break;
        }
        if let Some(mark) = mark {
            let Some(rest) = t.strip_prefix(mark) else {
                break;
            };
            // A TAP summary (`# Looks like you failed 2 tests of 4.`) ends the diagnostics.
            if rest.trim_start().starts_with("Looks like")
                || rest.trim_start().starts_with("Failed test")
            {
                break;
            }
            out.push(rest.trim_start().to_owned());
            if out.len() >= MAX_MESSAGE_LINES {
                break;
            }
            continue;
        }
        // A continuation sits at the message's indentation or deeper, or is a `- item` list;
        // the values an announcing message shows may sit anywhere.
        // Right-aligned labels of compared values (`     got: 3` over `expected: 2`) continue
        // each other at any indentation.
        let continues = indent(l) + 2 >= base
            || t.starts_with('-')
            || (announces && blank_seen)
            || (compared(first) && compared(t));
        if !continues {
            break;
        }
        out.push(t.to_owned());
        if out.len() >= MAX_MESSAGE_LINES {
            break;
        }
    }
    Some(bounded(&out))
}

/// A line that labels one of a pair of compared values (`#          got: '29'`, `Actual: 3`).
fn value_label(line: &str) -> bool {
    let t = line.trim_start_matches(|c: char| c.is_whitespace() || c == '#' || c == 'E');
    let t = t.trim_start();
    [
        "got:",
        "actual:",
        "Actual:",
        "received:",
        "Received:",
        "left:",
        "right:",
        "found:",
    ]
    .iter()
    .any(|l| t.starts_with(l))
}

/// A line that shows one of the values a failed comparison compared.
fn compared(line: &str) -> bool {
    let t = line.trim_start();
    value_label(t) || t.starts_with("expected:") || t.starts_with("Expected:")
}

/// Whether a message line quotes the failing statement (after a label such as
/// `Failure/Error:`) rather than saying what went wrong: code that calls something and ends
/// with the call, a `;`, or a matcher (`expect(x).to eq(5)`).
fn quotes_statement(line: &str) -> bool {
    let code = line
        .split_once(": ")
        .filter(|(label, _)| !label.is_empty() && !label.contains(' '))
        .map_or(line, |(_, rest)| rest)
        .trim();
    code.contains('(') && (code.ends_with(')') || code.ends_with(';') || code.contains(").to"))
}

fn bounded(lines: &[String]) -> String {
    let mut text = lines.join("\n");
    if text.chars().count() > MAX_MESSAGE_CHARS {
        text = text.chars().take(MAX_MESSAGE_CHARS).collect();
    }
    text
}

/// What the segmenter found: the reports, and the lines that only list failures it reported
/// (a tree, a summary), which no other block may claim.
#[derive(Debug, Default)]
pub(super) struct Segments {
    pub(super) reports: Vec<Found>,
    pub(super) listings: Vec<usize>,
}

/// The failure reports in `lines`, not touching lines already `covered` by a runner parser.
///
/// Candidate readings (status lines that name failures, numbered headers, and the template
/// that [`discover`] finds) are judged by the failure count the log states: a reading that
/// agrees with it wins; without one, named and numbered reports as they are.
pub(super) fn segment(
    lines: &[String],
    covered: &[bool],
    stated: &Stated,
    pace: &Pace<'_>,
) -> Result<Segments, Cancelled> {
    let (named_spans, mentions) = named(lines, covered, pace)?;
    let numbered_spans = numbered(lines, covered);
    pace.now()?;
    // A log whose status lines name its failures is split by them, unless numbered headers
    // report at least as many (mocha lists names in its tree, then numbers the reports).
    let agree = |spans: &[Span]| !spans.is_empty() && stated.agrees(spans.len());
    let spans = if agree(&numbered_spans) && !agree(&named_spans) {
        numbered_spans
    } else if agree(&named_spans) && !agree(&numbered_spans) {
        named_spans
    } else if !numbered_spans.is_empty() && numbered_spans.len() >= named_spans.len() {
        numbered_spans
    } else {
        named_spans
    };
    let mut reading = with_more(lines, covered, spans);
    pace.now()?;
    // A reading that disagrees with the stated count gives way to the template that agrees,
    // when it reads more failures or the reading left some unnamed; with no reading at all, a
    // template whose headers say failure is taken too.
    let weak = |r: &[Span]| r.is_empty() || r.iter().any(|s| s.name.is_none());
    if (reading.is_empty() || (!stated.is_empty() && !stated.agrees(reading.len())))
        && let Some(mut found) = discover::discover(lines, covered, stated, pace)?
        && (weak(&reading) || found.len() > reading.len())
    {
        name_from_listing(&mut found, &reading);
        let more = with_more(lines, covered, found.clone());
        reading = if stated.agrees(more.len()) {
            more
        } else {
            found
        };
    }
    let spans = reading;
    let reports = spans
        .into_iter()
        .filter(|s| s.end > s.start)
        .map(|s| {
            let block: Vec<String> = lines[s.start..s.end].to_vec();
            // A report written as comments (Test::More's `#   Failed test`) is read without
            // its comment marks.
            let read: Vec<String> = if block[0].trim_start().starts_with('#') {
                block
                    .iter()
                    .map(|l| l.trim_start().trim_start_matches('#').to_owned())
                    .collect()
            } else {
                block.clone()
            };
            let message = message_of(&read[1..]).or_else(|| message_of(&read));
            Found {
                start: s.start,
                lines: block,
                name: s.name,
                message,
                anchor: "report",
                ..Found::default()
            }
        })
        .collect();
    Ok(Segments {
        reports,
        listings: mentions,
    })
}

/// A reading's reports with the reports it left: messages under a keyword header, framed
/// reports; in log order.
fn with_more(lines: &[String], covered: &[bool], mut spans: Vec<Span>) -> Vec<Span> {
    // Messages no report claimed: the block of the keyword header above them.
    let mut claimed = covered.to_vec();
    for s in &spans {
        for c in &mut claimed[s.start..s.end] {
            *c = true;
        }
    }
    let more = indented(lines, &claimed);
    for s in &more {
        for c in &mut claimed[s.start..s.end] {
            *c = true;
        }
    }
    spans.extend(more);
    spans.extend(framed(lines, &claimed));
    spans.sort_by_key(|s| s.start);
    spans
}

/// Reports whose headers carry no name take, in order, the names another reading found (a
/// closing list of failures), when both count the same.
fn name_from_listing(found: &mut [Span], other: &[Span]) {
    if found.iter().any(|s| s.name.is_some()) || found.len() != other.len() {
        return;
    }
    for (s, o) in found.iter_mut().zip(other) {
        s.name.clone_from(&o.name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    fn names(found: &[Found]) -> Vec<&str> {
        found
            .iter()
            .map(|f| f.name.as_deref().unwrap_or(""))
            .collect()
    }

    #[test]
    fn status_lines_name_their_tests() {
        for (line, name) in [
            ("--- FAIL: TestX (0.00s)", "TestX"),
            ("FAIL: test_a (pkg.mod.Case.test_a)", "pkg.mod.Case.test_a"),
            ("ERROR: test_b (pkg.mod.Case)", "pkg.mod.Case.test_b"),
            ("Failure: test_add(TestCalc)", "test_add(TestCalc)"),
            (
                "Error: test_div(TestCalc): ZeroDivisionError: divided by 0",
                "test_div(TestCalc)",
            ),
            (
                "test_a (pkg.mod.Case.test_a) ... ERROR",
                "pkg.mod.Case.test_a",
            ),
            ("[  FAILED  ] Ring.Pops (0 ms)", "Ring.Pops"),
            (
                "  ✘ [fail]: length › converts Error thrown in test",
                "length › converts",
            ),
            ("not ok 3 - parses dates # TODO later", "parses dates"),
            ("│  ├─ total ✘ expected: <1> but was: <2>", "total"),
            (
                "test src/lib.rs - Money::add (line 23) ... FAILED",
                "src/lib.rs - Money::add (line 23)",
            ),
            (
                "FAILED tests/a.py::test_b - assert 1 == 2",
                "tests/a.py::test_b",
            ),
        ] {
            assert_eq!(status_name(line).as_deref(), Some(name), "{line}");
        }
        for line in [
            "[  FAILED  ] 4 tests, listed below:",
            "FAILED (failures=10)",
            "Error: cannot find module 'x'",
            "Error: expected (1) to equal 2",
            "✖ 6 problems (6 errors, 0 warnings)",
            "FAIL",
            "ok 1 - adds",
            "2 failing",
        ] {
            assert_eq!(status_name(line), None, "{line}");
        }
    }

    #[test]
    fn numbered_reports_become_one_block_each_with_their_whole_message() {
        let log = lines(
            "  Ledger\n    1) lists\n    ✔ converts\n\n  1 passing\n  2 failing\n\n  1) Ledger\n       lists:\n\n      AssertionError: lists differ\n      at Context (test/a.js:1:1)\n\n  2) Ledger\n       loads:\n     Error: config invalid:\n     - missing key 'region'\n     - port must be a number\n      at load (a.js:3:3)\n",
        );
        let found = segment(
            &log,
            &vec![false; log.len()],
            &Stated::default(),
            &Pace::new(&stanley_core::Cancel::new()),
        )
        .unwrap()
        .reports;
        assert_eq!(names(&found), ["Ledger lists", "Ledger loads"]);
        assert_eq!(
            found[0].message.as_deref(),
            Some("AssertionError: lists differ")
        );
        assert_eq!(
            found[1].message.as_deref(),
            Some("Error: config invalid:\n- missing key 'region'\n- port must be a number")
        );
    }

    #[test]
    fn bracketed_reports_run_from_the_start_to_the_verdict() {
        let log = lines(
            "[ RUN      ] A.one\n[       OK ] A.one (0 ms)\n[ RUN      ] A.two\nx.cpp:3: Failure\nExpected equality\n[  FAILED  ] A.two (0 ms)\n[ RUN      ] A.three\n[       OK ] A.three (0 ms)\n[  FAILED  ] 1 test, listed below:\n[  FAILED  ] A.two\n",
        );
        let found = segment(
            &log,
            &vec![false; log.len()],
            &Stated::default(),
            &Pace::new(&stanley_core::Cancel::new()),
        )
        .unwrap()
        .reports;
        assert_eq!(names(&found), ["A.two"]);
        assert_eq!(found[0].start, 2);
        assert_eq!(found[0].lines.len(), 4);
        assert_eq!(
            found[0].message.as_deref(),
            Some("x.cpp:3: Failure\nExpected equality")
        );
    }
}
