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

use super::runners::Found;

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
    t.chars().count() >= 10 && t.chars().all(|c| "=-_─━~*#".contains(c))
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

/// `short (dotted.path.short)`: the qualified form, as unittest and nose print it.
fn qualified(name: &str) -> String {
    if let Some((short, rest)) = name.split_once(" (")
        && let Some(inside) = rest.strip_suffix(')')
        && !inside.contains(' ')
        && inside.ends_with(short.trim())
    {
        return inside.to_owned();
    }
    name.to_owned()
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
    !counting
        && !t
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_punctuation())
}

/// The failing test a status line names, if it is one.
pub(super) fn status_name(line: &str) -> Option<String> {
    let t = undecorated(line).trim_end();
    let prefixes: [&str; 18] = [
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
        return name_like(name).then(|| qualified(name.trim()));
    }
    // `name ... FAIL`, `name ... ERROR`, `test name ... FAILED`
    for suffix in [" ... FAIL", " ... ERROR", " ... FAILED", " ... failed"] {
        if let Some(name) = t.strip_suffix(suffix) {
            let name = name.strip_prefix("test ").unwrap_or(name).trim();
            return name_like(name).then(|| qualified(name));
        }
    }
    // `name ✘ message` (JUnit's tree), `name (FAILED - 1)` (RSpec's documentation format)
    if let Some((name, _)) = t.split_once(" ✘") {
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

/// Whether a line says the run is over: a summary of counts or a runner's closing words.
fn summary(line: &str) -> bool {
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
    counted
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
fn named(lines: &[String], covered: &[bool]) -> (Vec<Span>, Vec<usize>) {
    let mut names: Vec<String> = Vec::new();
    let mut status_at: Vec<(usize, String)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if covered[i] {
            continue;
        }
        if let Some(n) = status_name(l) {
            if !names.contains(&n) {
                names.push(n.clone());
            }
            status_at.push((i, n));
        }
    }
    if names.is_empty() {
        return (Vec::new(), Vec::new());
    }
    // Every line that mentions a failing name, and which name (the longest that fits).
    let mention = |l: &str| -> Option<usize> {
        names
            .iter()
            .enumerate()
            .filter(|(_, n)| l.contains(n.as_str()) || l.contains(short(n)))
            .max_by_key(|(_, n)| n.len())
            .map(|(k, _)| k)
    };
    let mentions: Vec<(usize, usize)> = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| !covered[*i])
        .filter_map(|(i, l)| mention(l).map(|k| (i, k)))
        .collect();
    let mut spans = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let mut best: Option<(usize, Span)> = None;
        for (m, &(at, who)) in mentions.iter().enumerate() {
            if who != k {
                continue;
            }
            // The report runs to the next mention of another failing name, the end of the
            // failures section, or this name's own verdict after it (`[ RUN ] x … [ FAILED ] x`).
            let mut end = at + 1;
            let mut closed = false;
            while end < lines.len()
                && end - at < MAX_BLOCK
                && !covered[end]
                && !summary(&lines[end])
            {
                if let Some(&(_, other)) = mentions.iter().skip(m + 1).find(|(j, _)| *j == end) {
                    if other != k {
                        break;
                    }
                    if status_name(&lines[end]).is_some() && status_name(&lines[at]).is_none() {
                        end += 1;
                        closed = true;
                        break;
                    }
                    // Another mention of the same name starts a report of its own.
                    break;
                }
                end += 1;
            }
            let _ = closed;
            // Trailing blank and separator lines are not part of it.
            while end > at + 1 && !content(&lines[end - 1]) {
                end -= 1;
            }
            let weight = lines[at + 1..end].iter().filter(|l| content(l)).count();
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
    (spans, mentions.into_iter().map(|(i, _)| i).collect())
}

/// The last word group of a name after its scope separators (`a › b` → `b`), for details
/// sections that show only the leaf.
fn short(name: &str) -> &str {
    name.rsplit([' ', '›', '>', ':', '/', '.'])
        .find(|p| p.len() >= 8)
        .unwrap_or(name)
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
    // Start at the last `1)` from which the numbers run on in order.
    let mut best: Vec<&(usize, u32, usize, String)> = Vec::new();
    for (s, h) in headers.iter().enumerate() {
        if h.1 != 1 {
            continue;
        }
        let mut run = vec![h];
        for next in &headers[s + 1..] {
            if next.1 == run.last().map_or(0, |r| r.1) + 1 && next.2 == h.2 {
                run.push(next);
            }
        }
        let with_bodies = run
            .iter()
            .filter(|(i, ..)| {
                lines
                    .get(i + 1)
                    .is_some_and(|l| content(l) || lines.get(i + 2).is_some_and(|l| content(l)))
            })
            .count();
        if with_bodies * 2 >= run.len() && run.len() >= best.len() {
            best = run;
        }
    }
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
        let titles: Vec<&str> = body
            .iter()
            .take_while(|l| {
                !l.trim().is_empty()
                    && indent(l) > depth
                    && !l.trim_start().starts_with(|c: char| c.is_ascii_digit())
            })
            .map(|l| l.trim())
            .collect();
        if titles.last().is_some_and(|t| t.ends_with(':')) && titles.len() <= 6 {
            for t in titles {
                name.push(' ');
                name.push_str(t);
            }
        }
    }
    let name = name.trim().trim_end_matches(':').trim().to_owned();
    name_like(&name).then_some(name)
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
        || t.starts_with("assert")
        || t.starts_with("AssertionError")
        || t.starts_with("Assertion failed")
        || t.starts_with("C++ exception")
        || t.contains(" panicked at ")
        || t.starts_with("Caused by: ")
        || t.starts_with("Failure/Error: ")
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
        || t.starts_with("--- Expected")
        || t.starts_with("Difference (")
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
pub(super) fn message_of(body: &[String]) -> Option<String> {
    let at = body
        .iter()
        .position(|l| message_like(l))
        .or_else(|| body.iter().position(|l| content(l) && !after_message(l)))?;
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
    out.push(first.to_owned());
    for l in &body[at + 1..] {
        let t = l.trim();
        if t.is_empty()
            || after_message(l)
            || separator(l)
            || summary(l)
            || status_name(l).is_some()
        {
            break;
        }
        // A continuation sits at the message's indentation or deeper, or is a `- item` list.
        if indent(l) + 2 < base && !t.starts_with('-') {
            break;
        }
        out.push(t.to_owned());
        if out.len() >= MAX_MESSAGE_LINES {
            break;
        }
    }
    Some(bounded(&out))
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
pub(super) fn segment(lines: &[String], covered: &[bool]) -> Segments {
    let (named_spans, mentions) = named(lines, covered);
    let numbered_spans = numbered(lines, covered);
    // A log whose status lines name its failures is split by them, unless numbered headers
    // report at least as many (mocha lists names in its tree, then numbers the reports).
    let spans = if !numbered_spans.is_empty() && numbered_spans.len() >= named_spans.len() {
        numbered_spans
    } else {
        named_spans
    };
    let reports = spans
        .into_iter()
        .filter(|s| s.end > s.start)
        .map(|s| {
            let block: Vec<String> = lines[s.start..s.end].to_vec();
            let message = message_of(&block[1..]).or_else(|| message_of(&block));
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
    Segments {
        reports,
        listings: mentions,
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
        let found = segment(&log, &vec![false; log.len()]).reports;
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
        let found = segment(&log, &vec![false; log.len()]).reports;
        assert_eq!(names(&found), ["A.two"]);
        assert_eq!(found[0].start, 2);
        assert_eq!(found[0].lines.len(), 4);
        assert_eq!(
            found[0].message.as_deref(),
            Some("x.cpp:3: Failure\nExpected equality")
        );
    }
}
