//! Generic anchors: the lines that say something failed in the words of any tool (an error
//! line, a panic, an exit code, a test's verdict), and the windows of context around them for
//! what no reader claimed.

use stanley_core::{Cancelled, Pace};

use crate::found::MAX_BLOCK;
use crate::text::location_in;

/// Context lines on each side of an anchor.
pub(crate) const CONTEXT: usize = 12;

/// Furthest a window extends forward over stack-like lines.
pub(crate) const MAX_EXTEND: usize = 320;

/// Anchors that begin one test's failure report; a second one starts a new block.
pub(crate) const STARTERS: [&str; 5] = [
    "jest_test",
    "go_fail",
    "tap_not_ok",
    "pytest_section",
    "vitest_fail",
];

pub(crate) fn first_word_ends_error(t: &str) -> bool {
    let t = t.strip_prefix("Uncaught ").unwrap_or(t);
    let word: String = t
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    (word.ends_with("Error") || word.ends_with("Exception"))
        && (t[word.len()..].starts_with(':') || t[word.len()..].starts_with(" ["))
}

/// A compiler's error line (`a.c:3:1: error: …`, `error[E0308]: …`, `error TS2322: …`); not a
/// count heading a list (`There was 1 error:`, xlunit's and PHPUnit's).
pub(crate) fn compiler_error(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.iter().enumerate().any(|(i, w)| {
        (*w == "error:" && !(i > 0 && crate::text::whole_number(words[i - 1])))
            || (w.starts_with("error[E") && w.ends_with("]:"))
            || (*w == "error"
                && words
                    .get(i + 1)
                    .is_some_and(|n| n.starts_with("TS") && n.ends_with(':')))
    })
}

pub(crate) fn exit_code_line(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    for marker in [
        "exit code ",
        "exited with code ",
        "exited with ",
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
pub(crate) fn anchors(line: &str) -> Vec<&'static str> {
    let t = line.trim();
    let mut a = Vec::new();
    // A severity alone (`error:` over each of flatc's indented findings) heads what follows;
    // it says nothing of its own.
    if t.ends_with(':') && crate::diagnostics::severity_word(t).is_some() {
        return a;
    }
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
    // (A run's verdict in words, `Error: Test failures`, anchors no failure of its own.)
    if first_word_ends_error(t) && !crate::line::run_verdict(t) {
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

pub(crate) fn is_stack_like(line: &str) -> bool {
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

/// A window of context around generic anchors no reader claimed: (start, end, the anchors
/// found in it, the line of its last anchor), 0-based and inclusive.
pub(crate) type Window = (usize, usize, Vec<&'static str>, usize);

/// The windows of context around the anchors among the lines not `covered`: each anchor with
/// up to [`CONTEXT`] lines around it (further over stack-like lines), never reaching back over
/// a report already made; a line that starts a new test's failure, or a blank line between two
/// anchors, parts two windows. Linear in the lines.
pub(crate) fn windows(
    lines: &[String],
    covered: &[bool],
    pace: &Pace<'_>,
) -> Result<Vec<Window>, Cancelled> {
    // (start, end, anchors, line of the last anchor)
    let mut windows: Vec<Window> = Vec::new();
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
        let starter =
            found.iter().any(|a| STARTERS.contains(a)) || crate::line::status_name(line).is_some();
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
    Ok(windows)
}
