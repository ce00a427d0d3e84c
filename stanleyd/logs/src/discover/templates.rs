//! Structure discovery (issue 46): each line reduced to a template (numbers, quoted text and
//! paths masked; its first word, or its last when the name comes first), and the template that
//! heads each failure's report found without knowing the runner: it repeats, each repeat has a
//! report under it, and it repeats as many times as the log says failures happened. The name is
//! what varies between the repeats.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use stanley_core::{Cancelled, Pace};

use super::{MAX_BLOCK, Span, content, indent, message_like, separator, status_name, summary};
use crate::stated::{Stated, states_counts};

/// A token of a line: a quoted string stays one token however many words it holds.
pub(crate) fn tokens(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let quote = bytes[i];
        if matches!(quote, b'"' | b'\'' | b'`')
            && let Some(close) = line[i + 1..].find(quote as char)
        {
            i += close + 2;
            // What sticks to the closing quote (`"name":`) stays with it.
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                i += 1;
            }
        } else {
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                i += 1;
                // A dot leader ends a field: `add_test...*failed*` is a name, its leader, and
                // a verdict (EUnit's), as `add_test ... FAIL` would be.
                if i > start + 1
                    && bytes[i - 1] != b'.'
                    && bytes[i..].starts_with(b"...")
                    && let Some(after) = bytes[i..].iter().position(|&b| b != b'.')
                    && !bytes[i + after].is_ascii_whitespace()
                {
                    i += after;
                    break;
                }
            }
        }
        out.push(&line[start..i]);
    }
    out
}

/// A token with its variable parts masked: decoration as `<rule>`, quoted text as `<q>`, a path
/// or a `file.ext` as `<p>` (the punctuation around it kept), digits as `0`.
pub(crate) fn mask(token: &str) -> String {
    if crate::line::rule_token(token) {
        // Each kind of rule its own: `══ Failed tests ══` does not head what `── x ──` heads.
        return format!("<rule{}>", token.chars().next().unwrap_or('-'));
    }
    if token.len() >= 2 && matches!(token.as_bytes()[0], b'"' | b'\'' | b'`') {
        return "<q>".into();
    }
    // A failure's kind is a verdict like any other: `Failure -> a.lua @ 2` and `Error -> a.lua
    // @ 3` head the reports of one runner alike, as `FAIL: x` and `ERROR: y` do.
    if verdict_word(token) {
        let decoration: String = token.chars().filter(|c| !c.is_alphanumeric()).collect();
        return format!("<verdict>{decoration}");
    }
    let core = token.trim_matches(|c: char| "()[]{}<>:,;\"'`".contains(c));
    let pathlike = !core.is_empty()
        && (core.contains('/')
            || core.contains('\\')
            || core.split_once('.').is_some_and(|(a, b)| {
                !a.is_empty()
                    && b.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && !core.contains("..")
            }));
    if pathlike && let Some(at) = token.find(core) {
        return format!("{}<p>{}", &token[..at], &token[at + core.len()..]);
    }
    crate::text::digits_masked(token)
}

/// A failure's kind as a word (`Failure`, `ERROR:`, `failed`), whatever its case and the
/// punctuation around it: a status line's verdict words ([`crate::line::failed_verdict`]) and
/// the nouns runners head their reports with.
fn verdict_word(token: &str) -> bool {
    let word = token.trim_matches(|c: char| !c.is_alphanumeric());
    !word.is_empty()
        && (crate::line::failed_verdict(word)
            || ["failure", "broken", "crash", "crashed"]
                .iter()
                .any(|v| word.eq_ignore_ascii_case(v)))
}

/// Which end of a line a template keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum End {
    /// The first word (`✗ name`, `FAIL: name`, `──── Failure (a.R:7): name ────`).
    Head,
    /// The last word (`name ... FAILED`, `name ✘`).
    Tail,
    /// The first and the last word (`Test NAME Failed`).
    Both,
    /// The words up to a verdict a few words in (`name failed: why`, `(2/6) id: FAIL: why`).
    Verdict,
}

pub(crate) fn key(end: End, depth: usize, masked: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (end, depth, masked).hash(&mut h);
    h.finish()
}

/// A line's first token masked; a verdict padded to a column before its colon (`ERROR  : suite
/// : test`) masked as the same verdict with the colon glued (`Failure: suite : test`).
fn head_mask(first: &str, second: Option<&&str>) -> String {
    match second {
        Some(&":") if verdict_word(first) => mask(&format!("{first}:")),
        _ => mask(first),
    }
}

/// Whether a line can head a report at all: not blank, not a rule, not a message or a stack
/// frame (those repeat once per failure too, under the header), not a closing summary.
pub(crate) fn head_candidate(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty()
        && !separator(line)
        && !message_like(line)
        && !summary(line)
        && !states_counts(line)
        && !t.starts_with("at ")
        && !t.starts_with("File \"")
        && !t.starts_with('+')
        && !t.starts_with('>')
        && t.chars().any(char::is_alphanumeric)
        && !crate::line::passing_verdict(t)
}

/// A header that reads as a message, a verdict and a colon first (`Failure: Ledger posting |
/// rounds cents`, `Error: context | test`), over what went wrong indented deeper (`[assert.
/// equals] 2.67 expected to be equal to 2.68`), not over a frame as a thrown error's message
/// is: what follows the verdict names the test.
fn verdict_over_message(lines: &[String], i: usize) -> bool {
    let line = &lines[i];
    let Some(first) = tokens(line.trim()).first().copied() else {
        return false;
    };
    let under = lines[i + 1..].iter().find(|l| !l.trim().is_empty());
    first.ends_with(':')
        && verdict_word(first)
        && line.trim().len() > first.len()
        && under.is_some_and(|u| {
            indent(u) > indent(line)
                && !crate::line::stack_frame(u)
                && !crate::line::after_message(u)
        })
}

/// Whether a template's line says a test failed in its constant part (a verdict word or a
/// mark; `error` alone is what messages and a package manager's lines say too).
pub(crate) fn marked(constant: &[String]) -> bool {
    constant.iter().any(|t| {
        let l = t.to_ascii_lowercase();
        l.contains("fail")
            || l.starts_with("<verdict>")
            || l.contains("not ok")
            || l.contains("broken")
            || crate::line::FAILURE_MARKS.iter().any(|m| t.contains(m))
    })
}

/// Whether a masked token a template's lines share is the runner's decoration rather than a
/// word of the names (`widget renders case 1` and `widget renders case 2` share three words of
/// their names, and a bare number is a name's too): a mark, punctuation, a masked part, or a
/// verdict word.
pub(crate) fn decoration(masked: &str) -> bool {
    let lower = masked.to_ascii_lowercase();
    masked.contains('<')
        || masked
            .chars()
            .any(|c| !c.is_alphanumeric() && c != '_' && c != '\'')
        || ["fail", "error", "broken", "crash", "abort"]
            .iter()
            .any(|w| lower.contains(w))
}

/// The tokens every line of a group shares at its start and at its end (masked, compared),
/// as far as they are decoration.
pub(crate) fn constant_ends(masked: &[Vec<String>], raw: &[Vec<&str>]) -> (usize, usize) {
    let Some(first) = masked.first() else {
        return (0, 0);
    };
    // A token at `at` (from the start, or from the end) is decoration when every line has it
    // masked alike, and, if it holds letters besides what was masked, alike as printed too: a
    // counter (`#3:`, `(12ms)`) varies and is decoration; an id (`T-12`, `case_3`) that varies
    // is the name.
    let shared = |at: &dyn Fn(usize) -> usize| -> bool {
        let m = &first[at(first.len())];
        let same_masked = masked.iter().all(|x| &x[at(x.len())] == m);
        let lettered = m
            .replace("<p>", "")
            .replace("<q>", "")
            .chars()
            .filter(|c| !c.is_ascii_digit())
            .any(char::is_alphabetic)
            && !m.starts_with("<rule")
            && !m.starts_with("<verdict>");
        let same_raw = raw
            .iter()
            .all(|x| x[at(x.len())] == raw[0][at(raw[0].len())]);
        // A token whose words vary (`QuarryTest.test_route`, `QuarryTest.test_permit`), not
        // only its figures, is a name however it masks; a verdict, a rule or a place may vary.
        let words = |t: &str| t.replace(|c: char| c.is_ascii_digit(), "");
        let placed = |t: &str| crate::line::bare_location(t.trim_matches(['(', ')', ':', ',']));
        let kept = m.starts_with("<rule")
            || m.starts_with("<verdict>")
            || raw.iter().all(|x| placed(x[at(x.len())]));
        let same_words = raw
            .iter()
            .all(|x| words(x[at(x.len())]) == words(raw[0][at(raw[0].len())]));
        decoration(m) && same_masked && (!lettered || same_raw) && (kept || same_words)
    };
    let shortest = masked.iter().map(Vec::len).min().unwrap_or(0);
    let mut prefix = 0;
    while prefix < shortest && shared(&|_| prefix) {
        prefix += 1;
    }
    let mut suffix = 0;
    while suffix < shortest - prefix && shared(&|len| len - 1 - suffix) {
        suffix += 1;
    }
    (prefix, suffix)
}

/// A report's name from what varies in its header: the tokens between the constant ends, with
/// a timing and decoration taken off; `None` when that reads as no name.
pub(crate) fn name_between(tokens: &[&str], prefix: usize, suffix: usize) -> Option<String> {
    let middle = tokens.get(prefix..tokens.len().saturating_sub(suffix))?;
    // A name, then its verdict and why (`(2/6) ledger.round: FAIL: rounding …`, `name failed:
    // why`): the words before the verdict, a progress count before them left off.
    let middle = match middle.iter().skip(1).position(|t| verdict_after_name(t)) {
        Some(at) => {
            let counted = |t: &str| {
                let inner = t.trim_matches(['(', ')', '[', ']']);
                inner.split_once('/').is_some_and(|(a, b)| {
                    crate::text::whole_number(a) && crate::text::whole_number(b)
                })
            };
            let before = &middle[..=at];
            match before.split_first() {
                Some((first, rest)) if counted(first) && !rest.is_empty() => rest,
                _ => before,
            }
        }
        None => middle,
    };
    // What varies in a count's phrase (`Failed: After 24 test(s).`) is the count.
    if crate::line::counts_tests(&tokens[prefix.min(tokens.len())..].join(" ")) {
        return None;
    }
    let joined = middle.join(" ");
    // A verdict glued to the name by a dot leader (`add_test...*failed*`) is no part of it.
    // (Dots between two names join a step to its test: `tickets ... seat letter`, Deno's.)
    let joined = match joined.split_once("...") {
        Some((name, verdict))
            if !name.trim().is_empty()
                && (verdict.trim().is_empty()
                    || crate::line::failed_verdict(
                        verdict
                            .trim_start_matches('.')
                            .split_whitespace()
                            .next()
                            .unwrap_or(""),
                    )) =>
        {
            name.to_owned()
        }
        _ => joined,
    };
    let name = undrawn(crate::line::without_timing(&joined))
        .trim_end_matches(" ...")
        .trim_end_matches(|c: char| c == '.' || c.is_whitespace());
    let name = crate::line::plain(&crate::line::qualified(name));
    // After a verdict, what says what went wrong (`FAILED: Expected (f 40) < 5.01, but …`) is
    // the message, not a name.
    let after_verdict = prefix > 0 && verdict_word(tokens[prefix - 1]);
    (crate::line::name_like(&name) && !(after_verdict && message_like(&name))).then_some(name)
}

/// `text` without the drawing around it (`── name ──`, `name:`): rule characters, spaces and
/// colons at its ends, except one rule character glued to a word, which is the name's own
/// (`-sku_test_/0-fun-1-`, EUnit's generated tests).
fn undrawn(text: &str) -> &str {
    let drawn = |c: char| c.is_whitespace() || crate::line::rule_char(c) || c == ':';
    // One rule character between a space (or the end) and a word is the word's.
    let alone = |c: Option<char>| c.is_none_or(|n| n.is_whitespace() || n == ':');
    let mut from = text.len() - text.trim_start_matches(drawn).len();
    let mut to = text.trim_end_matches(drawn).len();
    if from >= to {
        return "";
    }
    let t = &text[from..to];
    if let Some(c) = text[..from].chars().next_back()
        && crate::line::rule_char(c)
        && t.starts_with(char::is_alphanumeric)
        && alone(text[..from - c.len_utf8()].chars().next_back())
    {
        from -= c.len_utf8();
    }
    if let Some(c) = text[to..].chars().next()
        && crate::line::rule_char(c)
        && t.ends_with(char::is_alphanumeric)
        && alone(text[to + c.len_utf8()..].chars().next())
    {
        to += c.len_utf8();
    }
    &text[from..to]
}

/// The place a diagnostic's header gives after its severity word (`Error ---- cargo.js:4:17`,
/// `Warning: a.c:3`): the header of a checker's finding, named by where it is.
fn severity_place(toks: &[&str]) -> Option<String> {
    let severity = toks.first().is_some_and(|t| {
        let w = t
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_ascii_lowercase();
        matches!(w.as_str(), "error" | "warning")
    });
    let place = toks[1..]
        .iter()
        .map(|t| {
            t.trim_matches(['(', ')', ',', '[', ']'])
                .trim_end_matches(':')
        })
        .find(|t| crate::line::bare_location(t))?;
    severity.then(|| place.to_owned())
}

/// The test announced nearest above `at`, after `after` (and within a report's reach).
fn announced_above(lines: &[String], after: usize, at: usize) -> Option<String> {
    (after.max(at.saturating_sub(MAX_BLOCK))..at)
        .rev()
        .find_map(|i| crate::line::announced(&lines[i]))
        .map(str::to_owned)
}

/// The body of the report headed at `at`: the lines up to `next` (another header), a summary,
/// a line of counts, a covered line or [`MAX_BLOCK`], without its trailing blank lines; and
/// whether it says anything (a passing verdict says nothing).
pub(crate) fn body(lines: &[String], covered: &[bool], at: usize, next: usize) -> (usize, bool) {
    let mut end = at + 1;
    let mut says = false;
    // A row of the header's own counted kind (`(4/6) ledger.close: started` under `(3/6)
    // ledger.round: FAIL: …`, a parallel runner's) is another test's, not this report's.
    let counted = |l: &str| {
        tokens(l.trim())
            .first()
            .map(|t| crate::text::digits_masked(t))
    };
    let counter =
        counted(&lines[at]).filter(|m| m.contains('0') && m.chars().any(|c| !c.is_ascii_digit()));
    let depth = indent(&lines[at]);
    while end < next && end - at < MAX_BLOCK && !covered[end] && !summary(&lines[end]) {
        let l = &lines[end];
        if states_counts(l) {
            break;
        }
        if counter.is_some() && indent(l) == depth && counted(l) == counter {
            break;
        }
        // A passing test's record of the header's own kind (`Test multiply Passed` under
        // `Test divide Failed`'s report) is no part of it.
        if indent(l) == depth && passed_sibling(&lines[at], l) {
            break;
        }
        says |= content(l);
        end += 1;
    }
    while end > at + 1 && !content(&lines[end - 1]) {
        end -= 1;
    }
    // A report its own last line closes as passed, naming what the header started (`✅
    // Success - Main Python` under `⭐ Run Main Python`, a step's close), reports no failure.
    let passed = end > at + 1 && closes_as_passed(&lines[at], &lines[end - 1]);
    (end, says && !passed)
}

/// Whether `line` is a passing record of the kind `header` heads: the same first word, a
/// passing verdict last (`Test multiply Passed` beside `Test divide Failed`).
pub(crate) fn passed_sibling(header: &str, line: &str) -> bool {
    let (h, l) = (tokens(header.trim()), tokens(line.trim()));
    l.len() >= 2
        && h.first() == l.first()
        && l.last().is_some_and(|w| crate::line::passing_verdict(w))
        || colon_sibling(header, line)
        || numbered_sibling(header, line)
}

/// `pass 3 - name` beside `fail 4 - other`: a verdict word, the test's number and a dash, the
/// header's failing and the line's passing.
fn numbered_sibling(header: &str, line: &str) -> bool {
    let verdict = |t: &str| crate::text::numbered_row(t).map(|(verdict, _)| verdict);
    matches!(
        verdict(header).as_deref(),
        Some("fail" | "failed" | "error")
    ) && matches!(verdict(line).as_deref(), Some("pass" | "passed" | "ok"))
}

/// `name: .pass` beside `other: .FAIL!`: one word, its colon and a verdict after the marks of
/// its assertions, the header's with a failing verdict and the line's with a passing one.
fn colon_sibling(header: &str, line: &str) -> bool {
    let verdict = |t: &str| {
        let (name, v) = t.trim().rsplit_once(": ")?;
        (!name.is_empty() && !name.contains(char::is_whitespace)).then(|| {
            v.trim_start_matches('.')
                .trim_end_matches('!')
                .to_ascii_lowercase()
        })
    };
    matches!(verdict(header), Some(v) if crate::line::failed_verdict(&v))
        && matches!(verdict(line).as_deref(), Some("pass" | "passed" | "ok"))
}

/// Whether `last` says that what `header` started passed: a passing verdict, then what the
/// header names (`✅  Success - Main Python [5.9ms]` under `⭐ Run Main Python`).
fn closes_as_passed(header: &str, last: &str) -> bool {
    let t = last.trim();
    if !crate::line::passing_verdict(t) {
        return false;
    }
    let named = t
        .split_whitespace()
        .skip_while(|w| crate::line::passing_verdict(w) || !w.chars().any(char::is_alphanumeric))
        .collect::<Vec<_>>()
        .join(" ");
    let named = crate::line::without_timing(&named);
    !named.is_empty() && header.contains(named)
}

/// Whether a header says what went wrong itself, after its name and verdict (`(3/6)
/// ledger.round: FAIL: rounding 2.675 gave 2.67`).
fn says_on_header(line: &str) -> bool {
    let toks = tokens(line.trim());
    verdict_at(&toks).is_some_and(|at| toks.len() > at + 1)
}

/// Where a verdict after a name stands among a header's first four tokens (`(2/6)
/// ledger.round: FAIL: …`, `name failed: …`): after a token that names something, not after
/// decoration alone (`=== FAIL: name`, whose verdict heads it).
fn verdict_at(toks: &[&str]) -> Option<usize> {
    let at = toks
        .iter()
        .take(4)
        .skip(1)
        .position(|t| verdict_after_name(t))?
        + 1;
    toks[..at]
        .iter()
        .any(|t| !crate::line::rule_token(t) && t.chars().any(char::is_alphabetic))
        .then_some(at)
}

/// A verdict after a test's name, before why (`FAIL:`, `ERROR:`, `failed:`): a verdict word
/// and a colon, not a thrown error's class (`Error: sheet has no manager`).
pub(crate) fn verdict_after_name(token: &str) -> bool {
    let Some(word) = token.strip_suffix(':') else {
        return false;
    };
    let capitalized = word.chars().next().is_some_and(char::is_uppercase)
        && word.chars().skip(1).all(char::is_lowercase);
    verdict_word(word) && !capitalized
}

/// A candidate reading: its header lines, what its headers share, and how it ranks.
pub(crate) struct Reading {
    heads: Vec<usize>,
    prefix: usize,
    suffix: usize,
    rank: (
        bool,
        usize,
        std::cmp::Reverse<usize>,
        std::cmp::Reverse<usize>,
    ),
}

/// The reports of `lines` by the template that heads them, when one repeats as many times as
/// the log `stated` failures happened (or, with no stated count, when its constant part says
/// failure), each repeat with a report under it. Linear in the lines: only templates with an
/// agreeing count are looked at, and each header's body at most [`MAX_BLOCK`] lines.
pub(crate) fn discover(
    lines: &[String],
    covered: &[bool],
    stated: &Stated,
    pace: &Pace<'_>,
) -> Result<Option<Vec<Span>>, Cancelled> {
    // The lines each template matched, in order.
    let mut groups: HashMap<u64, Vec<usize>> = HashMap::new();
    // The lines each mark heads at any depth (a tree's failures sit at several).
    let mut any_depth: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        pace.step()?;
        // (The source a frame quotes under it, `File "a.py", line 6, in f` over `    check(x)`,
        // is the test's code, never a header.)
        let quoted = i > 0 && {
            let above = lines[i - 1].trim_start();
            above.starts_with("File \"") && above.contains("\", line ")
        };
        if covered[i] || !(head_candidate(line) || verdict_over_message(lines, i)) || quoted {
            continue;
        }
        let toks = tokens(line.trim());
        let depth = indent(line);
        if let Some(first) = toks.first() {
            groups
                .entry(key(End::Head, depth, &head_mask(first, toks.get(1))))
                .or_default()
                .push(i);
            // (A mark, not a word: `Traceback` at two depths is a trace's, not a tree's.)
            if first.chars().count() <= 2 {
                any_depth.entry(mask(first)).or_default().push(i);
            }
        }
        if toks.len() >= 2
            && let Some(last) = toks.last()
        {
            groups
                .entry(key(End::Tail, depth, &mask(last)))
                .or_default()
                .push(i);
            // Alike at both ends (`Test NAME Failed`, `Test NAME Errored`): a sentence that
            // ends in a verdict word by chance (`Description: … with a failure`) is not one
            // of them.
            if let Some(first) = toks.first() {
                let both = format!("{} {}", mask(first), mask(last));
                groups
                    .entry(key(End::Both, depth, &both))
                    .or_default()
                    .push(i);
            }
        }
        // A verdict a few words in, after the name (`balance_after_post failed: values
        // differ`, `(2/6) ledger.round: FAIL: rounding …`): headers alike by where their
        // verdict stands, whatever words come first and last.
        if let Some(at) = verdict_at(&toks) {
            let masked: Vec<String> = toks[..=at].iter().map(|t| mask(t)).collect();
            let shape = masked[..at]
                .iter()
                .map(|m| if m.contains('<') { m.as_str() } else { "w" })
                .chain([masked[at].as_str()])
                .collect::<Vec<_>>()
                .join(" ");
            groups
                .entry(key(End::Verdict, depth, &shape))
                .or_default()
                .push(i);
        }
    }
    let mut judged: Vec<Reading> = Vec::new();
    for group in groups.into_values() {
        pace.step()?;
        let n = group.len();
        if n < 2 || !(stated.agrees(n) || stated.is_empty()) {
            continue;
        }
        judged.extend(judge(lines, covered, group, stated.is_empty()));
    }
    // With none at one depth, a mark that heads as many lines as the log counts failures, at
    // several depths of a tree (`x name - why` under groups nested deeper).
    if judged.is_empty() && !stated.is_empty() {
        for group in any_depth.into_values() {
            pace.step()?;
            let depths: std::collections::BTreeSet<usize> =
                group.iter().map(|&i| indent(&lines[i])).collect();
            if group.len() >= 2 && depths.len() >= 2 && stated.agrees(group.len()) {
                judged.extend(judge(lines, covered, group, false));
            }
        }
    }
    let Some(mut best) = judged
        .iter()
        .enumerate()
        .max_by_key(|(k, r)| (r.rank, std::cmp::Reverse(*k)))
        .map(|(k, _)| k)
    else {
        return Ok(None);
    };
    // When the best reading's headers do not tell its failures apart (`problem: assertion
    // failed`), a header just above each of its heads, one for one, whose names do is the top
    // of the same record and names it (`---> group: forge, test: test<2> : welding heat`).
    // (Readings by their first head: an outer one starts within three lines above, so each
    // step looks at a few readings only, and the ranks it climbs are bounded by the heads.)
    let mut by_first: HashMap<usize, Vec<usize>> = HashMap::new();
    for (k, r) in judged.iter().enumerate() {
        by_first.entry(r.heads[0]).or_default().push(k);
    }
    loop {
        pace.step()?;
        let inner = &judged[best];
        if inner.rank.1 >= inner.heads.len() {
            break;
        }
        let first = inner.heads[0];
        let outer = (first.saturating_sub(3)..first)
            .filter_map(|at| by_first.get(&at))
            .flatten()
            .copied()
            .find(|&k| {
                let r = &judged[k];
                r.rank.1 > inner.rank.1 && just_above(&r.heads, &inner.heads)
            });
        let Some(outer) = outer else {
            break;
        };
        best = outer;
    }
    let reading = judged.swap_remove(best);
    let mut spans = Vec::with_capacity(reading.heads.len());
    for k in 0..reading.heads.len() {
        let (end, name) = header_name(
            lines,
            covered,
            &reading.heads,
            k,
            reading.prefix,
            reading.suffix,
        );
        spans.push(Span {
            start: reading.heads[k],
            end,
            name,
            whole: false,
        });
    }
    titled_above(lines, covered, &mut spans);
    Ok(Some(spans))
}

/// When the reports' names do not tell them apart (`name: check-equal?` in every rackunit
/// record: the kind of check), a title over each report's verdict that does (`scales a recipe
/// for six` over `FAILURE`) names it, and the report starts there.
fn titled_above(lines: &[String], covered: &[bool], spans: &mut [Span]) {
    let distinct = |names: Vec<Option<&str>>| {
        let mut names: Vec<&str> = names.into_iter().flatten().collect();
        names.sort_unstable();
        names.dedup();
        names.len()
    };
    let named = distinct(spans.iter().map(|s| s.name.as_deref()).collect());
    if named >= spans.len() {
        return;
    }
    // One name for every report (`Traceback (most recent call`) is the header's constant
    // words: no report's name.
    if named == 1 && spans.len() >= 2 && spans.iter().all(|s| s.name.is_some()) {
        for s in spans.iter_mut() {
            s.name = None;
        }
    }
    let mut titles = Vec::with_capacity(spans.len());
    let mut after = 0;
    for s in spans.iter() {
        titles.push(
            title_over_verdict(lines, covered, after, s.start)
                .or_else(|| title_over_header(lines, covered, after, s.start)),
        );
        after = s.start + 1;
    }
    if distinct(
        titles
            .iter()
            .map(|t| t.as_ref().map(|(_, n)| n.as_str()))
            .collect(),
    ) <= named
    {
        return;
    }
    for k in 0..spans.len() {
        if let Some((at, name)) = titles[k].take() {
            spans[k].start = at;
            spans[k].name = Some(name);
            // The report before ends where this one's title starts.
            if k > 0 && spans[k - 1].end > at {
                spans[k - 1].end = at;
            }
        }
    }
}

/// The line right over a report's verdict alone (`FAILURE`, the report's header or just over
/// it), when it reads as a name: (its line, the name).
fn title_over_verdict(
    lines: &[String],
    covered: &[bool],
    after: usize,
    at: usize,
) -> Option<(usize, String)> {
    let alone = |l: &str| {
        let t = l.trim().trim_end_matches(':');
        !t.contains(' ')
            && t.chars().any(char::is_uppercase)
            && (crate::line::failed_verdict(t) || t.eq_ignore_ascii_case("failure"))
    };
    // The report's own header, or one of the two lines over it.
    let verdict = (after..=at).rev().take(3).find(|&i| alone(&lines[i]))?;
    let t = verdict
        .checked_sub(1)
        .filter(|&t| t >= after && !covered[t])?;
    reads_as_title(&lines[t]).then(|| (t, lines[t].trim().to_owned()))
}

/// Whether a line over a report reads as its title: words that name, not a rule, a message or
/// a summary.
fn reads_as_title(line: &str) -> bool {
    let title = line.trim();
    !title.is_empty()
        && !crate::line::separator(line)
        && !message_like(line)
        && !summary(line)
        && crate::line::name_like(title)
}

/// The line right over a report's header that names nothing of its own (`Traceback (most
/// recent call last):` under `pops in fifo order`), standing alone after a blank line or the
/// report before: (its line, the name).
fn title_over_header(
    lines: &[String],
    covered: &[bool],
    after: usize,
    at: usize,
) -> Option<(usize, String)> {
    let t = at.checked_sub(1).filter(|&t| t >= after && !covered[t])?;
    let alone = t == after || t == 0 || lines[t - 1].trim().is_empty();
    (alone && !lines[t].trim().ends_with(':') && reads_as_title(&lines[t]))
        .then(|| (t, lines[t].trim().to_owned()))
}

/// The end of the report the `k`th of `heads` heads, and its name: what varies in the header,
/// or where the runner put it instead.
fn header_name(
    lines: &[String],
    covered: &[bool],
    heads: &[usize],
    k: usize,
    prefix: usize,
    suffix: usize,
) -> (usize, Option<String>) {
    let at = heads[k];
    let next = heads.get(k + 1).copied().unwrap_or(lines.len());
    let (end, _) = body(lines, covered, at, next);
    let name = own_name(lines, heads, k, prefix, suffix)
        // Or by a banner right above it (`== #1: test_a.py:test_x ====`, slash's).
        .or_else(|| crate::line::banner_title(&lines[at.checked_sub(1)?]))
        // Or by an id alone on its report's last line, over the next frame's rule
        // (`pkg.mod.Class.test_x`, trial's footer).
        .or_else(|| footer_id(lines, at, end, next))
        // A header that is all decoration (`Failure → spec/a.lua @ 5`) names its test on the
        // next line, when that line reads as a name rather than a message or a place.
        .or_else(|| {
            let next = lines[at + 1..end].iter().find(|l| !l.trim().is_empty())?;
            let t = next.trim();
            let place = t
                .split_whitespace()
                .any(|w| crate::line::bare_location(w.trim_end_matches(':')));
            (!message_like(next) && !place && !summary(next) && crate::line::name_like(t))
                .then(|| t.to_owned())
        });
    (end, name)
}

/// Whether each of `outer` stands within three lines above the head of `inner` of its rank,
/// after the one before it.
fn just_above(outer: &[usize], inner: &[usize]) -> bool {
    outer.len() == inner.len()
        && outer
            .iter()
            .zip(inner)
            .enumerate()
            .all(|(k, (&o, &i))| o < i && i - o <= 3 && (k == 0 || o > inner[k - 1]))
}

/// The name the `k`th header gives by itself, or the test announced above it.
fn own_name(
    lines: &[String],
    heads: &[usize],
    k: usize,
    prefix: usize,
    suffix: usize,
) -> Option<String> {
    let at = heads[k];
    let toks = tokens(lines[at].trim());
    let after = if k == 0 { 0 } else { heads[k - 1] + 1 };
    name_between(&toks, prefix, suffix)
        // Or by the test announced as it started (`Testing mod:prop/0` over its verdict).
        .or_else(|| announced_above(lines, after, at))
        // Or, a severity and a place (`Error ------- cargo.js:4:17`, flow's), by the place.
        .or_else(|| severity_place(&toks))
}

/// An id alone on a report's last line, when only rules or blank lines follow it up to the
/// next header (`pkg.mod.Class.test_x`, trial's footer under its frame).
fn footer_id(lines: &[String], at: usize, end: usize, next: usize) -> Option<String> {
    let last = lines[at + 1..end]
        .iter()
        .rev()
        .find(|l| !l.trim().is_empty())?;
    let id = last.trim();
    let framed = lines.get(end).is_none_or(|l| crate::line::separator(l))
        || lines[end..next]
            .iter()
            .all(|l| l.trim().is_empty() || crate::line::separator(l));
    (framed
        && !id.contains(' ')
        && (id.contains('.') || id.contains("::"))
        && !message_like(last)
        && crate::line::name_like(id)
        && crate::diagnostics::location(id).is_none())
    .then(|| id.to_owned())
}

/// A group as a reading, when its lines read as headers: no two in a row (a list or a stack),
/// a report under nearly every one; with no stated count, only a constant part that says
/// failure and a name of its own in every header.
pub(crate) fn judge(
    lines: &[String],
    covered: &[bool],
    heads: Vec<usize>,
    unstated: bool,
) -> Option<Reading> {
    let n = heads.len();
    // Consecutive repeats (only blank lines between) are a list, a tree or frames; but where
    // their number is the failures the log counts and each says why after its name (`x
    // freezing point - Expected 31 to equal 32.`), they are the failures, one line each.
    let adjacent = heads
        .windows(2)
        .filter(|w| lines[w[0] + 1..w[1]].iter().all(|l| l.trim().is_empty()))
        .count();
    let each_says_why = heads.iter().all(|&i| {
        lines[i]
            .trim()
            .split_once(" - ")
            .is_some_and(|(name, why)| {
                !name.trim().is_empty() && why.split_whitespace().count() >= 2
            })
    });
    if adjacent * 4 > n && (unstated || !each_says_why) {
        return None;
    }
    let mut reports = 0;
    for (k, &at) in heads.iter().enumerate() {
        let next = heads.get(k + 1).copied().unwrap_or(lines.len());
        if body(lines, covered, at, next).1
            || says_on_header(&lines[at])
            || (each_says_why && !unstated)
        {
            reports += 1;
        }
    }
    if reports + n / 10 < n {
        return None;
    }
    let toks: Vec<Vec<&str>> = heads.iter().map(|&i| tokens(lines[i].trim())).collect();
    let masked: Vec<Vec<String>> = toks
        .iter()
        .map(|t| t.iter().map(|x| mask(x)).collect())
        .collect();
    let (prefix, suffix) = constant_ends(&masked, &toks);
    let constant: Vec<String> = masked[0][..prefix]
        .iter()
        .chain(&masked[0][masked[0].len() - suffix..])
        .cloned()
        .collect();
    let says_failure = marked(&constant) || heads.iter().any(|&i| status_name(&lines[i]).is_some());
    if unstated && !says_failure {
        return None;
    }
    // A header that says no failure and names nothing (every one the same line: a tool's
    // banner each time it starts) heads reports only where they say what went wrong.
    let same = heads
        .iter()
        .all(|&i| lines[i].trim() == lines[heads[0]].trim());
    if !says_failure && same {
        let telling = heads
            .iter()
            .enumerate()
            .filter(|&(k, &at)| {
                let next = heads.get(k + 1).copied().unwrap_or(lines.len());
                let (end, _) = body(lines, covered, at, next);
                lines[at + 1..end].iter().any(|l| message_like(l))
            })
            .count();
        if telling + n / 10 < n {
            return None;
        }
    }
    // Names that tell the failures apart.
    // Names that tell the failures apart, by the header and where it stands (the lines
    // under it judge nothing: a frame's place line over a test's scope is no header).
    let mut names: Vec<String> = (0..n)
        .filter_map(|k| own_name(lines, &heads, k, prefix, suffix))
        .collect();
    let named = names.len();
    names.sort_unstable();
    names.dedup();
    // With no count to agree with, only headers that each name a failure of their own.
    if unstated && (named < n || names.len() < n) {
        return None;
    }
    Some(Reading {
        rank: (
            says_failure,
            names.len(),
            std::cmp::Reverse(heads[0]),
            std::cmp::Reverse(indent(&lines[heads[0]])),
        ),
        heads,
        prefix,
        suffix,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stated::stated;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    /// A dot leader ends a field when text follows it; dots inside a word or before a space
    /// stay where they are.
    #[test]
    fn a_dot_leader_ends_a_token() {
        assert_eq!(
            tokens("m: add_test...*failed* x...y a... b ...z é...ü"),
            [
                "m:",
                "add_test...",
                "*failed*",
                "x...y",
                "a...",
                "b",
                "...z",
                "é...",
                "ü"
            ]
        );
        assert_eq!(undrawn("── -fun-1- ──"), "-fun-1-");
        assert_eq!(undrawn("name --"), "name");
        assert_eq!(undrawn("name:"), "name");
    }

    fn read(text: &str) -> Vec<(usize, usize, Option<String>)> {
        let l = lines(text);
        let never = stanley_core::Cancel::new();
        discover(&l, &vec![false; l.len()], &stated(&l), &Pace::new(&never))
            .unwrap()
            .unwrap_or_default()
            .into_iter()
            .map(|s| (s.start, s.end, s.name))
            .collect()
    }

    #[test]
    fn masks_what_varies() {
        assert_eq!(mask("12)"), "0)");
        assert_eq!(mask("(test-math.R:7):"), "(<p>):");
        assert_eq!(mask("────"), "<rule─>");
        assert_eq!(mask("\"a b\""), "<q>");
        assert_eq!(mask("src/a.lua:3:"), "<p>:");
        // A failure's kind is a verdict: `Failure ->` and `Error ->` head one runner's reports.
        assert_eq!(mask("Failure"), "<verdict>");
        assert_eq!(mask("ERROR:"), "<verdict>:");
        assert_eq!(mask("Failures"), "Failures");
        assert_eq!(tokens("✗ \"two words\" x"), ["✗", "\"two words\"", "x"]);
    }

    #[test]
    fn banner_headers_agreeing_with_the_stated_count_name_their_reports() {
        let log = "══ Failed tests ════\n── Failure (test-math.R:7): adds two numbers ────\nadd(1, 2) not equal to 4.\n1/1 mismatches\n[1] 3 - 4 == -1\n\n── Failure (test-math.R:12): divides by zero ────\ndivide(1, 0) did not throw an error.\n\n── Failure (test-str.R:3): pads strings ────\npad(\"a\") not identical to \"a \".\n\n[ FAIL 3 | WARN 0 | SKIP 0 | PASS 9 ]\n";
        let read = read(log);
        let names: Vec<&str> = read.iter().filter_map(|r| r.2.as_deref()).collect();
        assert_eq!(
            names,
            ["adds two numbers", "divides by zero", "pads strings"]
        );
        assert_eq!((read[0].0, read[0].1), (1, 5));
        assert_eq!((read[2].0, read[2].1), (9, 11));
    }

    #[test]
    fn a_template_that_disagrees_with_the_count_is_no_reading() {
        // Three marked headers, but the run says two failed: no reading by this template.
        let log = "  ✗ one\n      Error: a\n  ✗ two\n      Error: b\n  ✗ three\n      Error: c\n2 failed\n";
        assert!(read(log).is_empty());
        let log = log.replace("2 failed", "3 failed");
        let got = read(&log);
        assert_eq!(got.len(), 3);
        assert_eq!(got[1].2.as_deref(), Some("two"));
    }

    /// A tool's banner each time it starts (the same line, no failure in it) heads no report
    /// where the lines under it say nothing went wrong, however often it agrees with a count.
    #[test]
    fn a_banner_that_says_no_failure_heads_nothing() {
        let log = "Parser Generator 7.0 (type \"pg\" for help)\nReading from file a.jj . . .\nParser generated with 0 errors and 2 warnings.\n\
                   Parser Generator 7.0 (type \"pg\" for help)\nReading from file b.jj . . .\nParser generated with 0 errors and 0 warnings.\n";
        assert!(read(log).is_empty());
    }

    #[test]
    fn messages_and_frames_repeat_too_but_do_not_head_reports() {
        let log = "Suite\n  widget renders case 1\n    Error: expected 1 to equal 2\n      at check (spec/w.lua:3)\n  widget renders case 2\n    Error: expected 2 to equal 3\n      at check (spec/w.lua:9)\n2 failures, 0 errors\n";
        let got = read(log);
        let names: Vec<&str> = got.iter().filter_map(|r| r.2.as_deref()).collect();
        assert_eq!(names, ["widget renders case 1", "widget renders case 2"]);
    }

    #[test]
    fn a_header_of_decoration_only_names_its_test_on_the_next_line() {
        let log = "●✱●✱\n2 successes / 2 failures / 0 errors / 0 pending : 0.01 seconds\n\nFailure → spec/a_spec.lua @ 5\nmath adds\nspec/a_spec.lua:6: Expected objects to be the same.\n\nFailure → spec/a_spec.lua @ 9\nmath subtracts\nspec/a_spec.lua:10: Expected objects to be equal.\n";
        let got = read(log);
        let names: Vec<&str> = got.iter().filter_map(|r| r.2.as_deref()).collect();
        assert_eq!(names, ["math adds", "math subtracts"]);
        let log = "module 'calc_tests'\n  calc_tests: add_test...*failed*\nin function calc_tests:add/0\n**error:{assertEqual,[{expected,3},{value,2}]}\n\n  calc_tests: sub_test...*failed*\n**error:{assertEqual,[{expected,1},{value,0}]}\n\n  Failed: 2.  Skipped: 0.  Passed: 1.\n";
        let got = read(log);
        let names: Vec<&str> = got.iter().filter_map(|r| r.2.as_deref()).collect();
        assert_eq!(names, ["add_test", "sub_test"]);
    }

    #[test]
    fn an_id_that_varies_is_the_name_and_a_counter_is_not() {
        let log = "==== T-101 parses dates FAILED\nexpected 2024 got 2023\n==== T-102 renders totals FAILED\nexpected 5 got 4\n2 failed\n";
        let names: Vec<String> = read(log).into_iter().filter_map(|r| r.2).collect();
        assert_eq!(names, ["T-101 parses dates", "T-102 renders totals"]);
        let log = "#1: parses dates ✗\nexpected 2024 got 2023\n#2: renders totals ✗\nexpected 5 got 4\n2 failed\n";
        let names: Vec<String> = read(log).into_iter().filter_map(|r| r.2).collect();
        assert_eq!(names, ["parses dates", "renders totals"]);
    }

    #[test]
    fn progress_lines_in_a_row_are_no_reports() {
        let log = "  ✕ a (3 ms)\n  ✕ b (1 ms)\n  ✕ c (2 ms)\n3 failed\n";
        assert!(read(log).is_empty());
    }

    #[test]
    fn one_line_failures_in_a_tree_are_read_when_the_count_agrees() {
        let log = "Root\n  Units\n    x freezing point - Expected 31 to equal 32.\n    x boiling point - Expected 211 to equal 212.\n    ok room temperature\n    nested\n      x body heat - Expected 97 to equal 98.\n\nSummary: 1/4 passed, 3/4 failed.\n";
        let names: Vec<Option<String>> = read(log).into_iter().map(|(_, _, n)| n).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        // The same list with no count is a list, not failures.
        let log = "Root\n    x freezing point - Expected 31 to equal 32.\n    x boiling point - Expected 211 to equal 212.\n    x body heat - Expected 97 to equal 98.\n";
        assert!(read(log).is_empty());
    }
}
