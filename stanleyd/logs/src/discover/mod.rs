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

mod announced;
mod banner;
mod before;
mod counted;
mod placed;
pub(crate) mod records;
mod signs;
mod templates;
mod vary;

pub(crate) use vary::{Report, names_that_vary};

use std::collections::{HashMap, HashSet};

use aho_corasick::AhoCorasick;
use stanley_core::{Cancelled, Pace};

use crate::found::Found;
use crate::line::*;
use crate::stated::Stated;

/// Longest block kept.
pub(crate) const MAX_BLOCK: usize = 160;

/// A report: lines `start..end` of the log, named `name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    start: usize,
    end: usize,
    name: Option<String>,
    /// The span has no header line: its first line starts its message (an exception's
    /// paragraph named by the frame under it).
    whole: bool,
}

/// Named reports: for each failing name, the mention with the most content under it. Also
/// returns every line that mentions a failing name (listings and summaries of the same
/// failures, which are no reports of their own).
pub(crate) fn named(
    lines: &[String],
    covered: &[bool],
    pace: &Pace<'_>,
) -> Result<Named, Cancelled> {
    let names = failing_names(lines, covered, pace)?;
    if names.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let mentions = mentions_of(lines, covered, &names, pace)?;
    let (spans, repeated) = reports(lines, covered, &names, &mentions, pace)?;
    let mut listed: Vec<usize> = mentions.into_iter().map(|(i, _)| i).collect();
    listed.extend(repeated);
    Ok((spans, listed))
}

/// The failing tests' names, once each in log order: from status lines, from lists under a
/// `Failing …:` header, and the last test started that never got a verdict; a name a listing
/// printed with what the test said after it is cut to the name a details header shows.
fn failing_names(
    lines: &[String],
    covered: &[bool],
    pace: &Pace<'_>,
) -> Result<Vec<String>, Cancelled> {
    let mut names: Vec<String> = Vec::new();
    let mut known: HashSet<String> = HashSet::new();
    let mut status: Vec<(usize, String)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        pace.step()?;
        if covered[i] {
            continue;
        }
        // (A verdict one indent under a row of a tree, `∟ freezes at zero` over `  ✘ f(32) to
        // equal 1`, is that test's failed assertion: the row names the test.)
        if let Some(n) = status_name(l)
            .filter(|_| {
                !closes_a_suite(lines, i)
                    && !under_a_failed_status(lines, covered, i)
                    && !after_a_counted_start(lines, i)
            })
            .map(|n| {
                keyword_over(lines, covered, i)
                    .or_else(|| row_over(lines, covered, i))
                    .or_else(|| heading_over(lines, covered, i, &n))
                    .unwrap_or(n)
            })
            .or_else(|| scoped_header(lines, i))
        {
            status.push((i, n));
        }
    }
    // Where each status line's name was read, for the details headers after it.
    let mut read_at: HashMap<String, usize> = HashMap::new();
    for (i, n) in parts_and_headings_dropped(lines, status) {
        if known.insert(n.clone()) {
            read_at.insert(n.clone(), i);
            names.push(n);
        }
    }
    listed_names(lines, covered, pace, &mut known, &mut names)?;
    names_over_verdicts(lines, covered, pace, &mut known, &mut names)?;
    // Tests counted as they start (`3/8 suite.name...`): a failing one says so after its dots
    // or in an upper-case verdict (`FAIL (TestExpectedEqual)`) before the next one starts.
    let mut open: Option<(usize, String)> = None;
    for (i, l) in lines.iter().enumerate() {
        pace.step()?;
        if covered[i] {
            continue;
        }
        if let Some((name, tail)) = counted_start(l) {
            open = Some((i, name.to_owned()));
            if !failed_verdict(tail) {
                continue;
            }
        } else {
            let first = l.split_whitespace().next().unwrap_or("");
            let shouted = matches!(first, "FAIL" | "FAILED" | "ERROR" | "CRASH" | "TIMEOUT");
            if !shouted || !failed_verdict(l) {
                continue;
            }
        }
        if let Some((_, name)) = open.take()
            && known.insert(name.clone())
        {
            names.push(name);
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
    // (A line over the status line, `slug` over `✗ slug has no trailing dash`, is a group's
    // heading, no details header.)
    for n in &mut names {
        let after = read_at.get(n.as_str()).copied().unwrap_or(0);
        let shorter = n
            .match_indices(' ')
            .filter_map(|(p, _)| Some((*first_at.get(&n[..p])?, p)))
            .filter(|(at, p)| status_name(&n[..*p]).is_none() && *at >= after)
            .min();
        if let Some((_, p)) = shorter {
            n.truncate(p);
        }
    }
    drop(first_at);
    Ok(names)
}

/// Names listed one per line under a `Failing …:` / `Failed …:` header, each new name pushed
/// to `names`.
fn listed_names(
    lines: &[String],
    covered: &[bool],
    pace: &Pace<'_>,
    known: &mut HashSet<String>,
    names: &mut Vec<String>,
) -> Result<(), Cancelled> {
    // Lists under a `Failing scenarios:` / `Failed examples:` header name one failure each:
    // `features/a.feature:25  Gift wrap`, `rspec ./spec/a_spec.rb:12 # Wallet pays`.
    // (An item's own lines under it, deeper than the items, are its detail: painless prints
    // `x name`, its message and its frames under `Failed Tests:`.)
    let mut list = false;
    let mut item_depth: Option<usize> = None;
    for (i, l) in lines.iter().enumerate() {
        pace.step()?;
        let t = l.trim();
        if t.is_empty() {
            list = false;
            continue;
        }
        // (A heading may be drawn: `-- Failed assertion messages:`.)
        let drawn = t
            .trim_start_matches(|c: char| crate::line::rule_char(c))
            .trim_start();
        let heading = [
            "Failing ",
            "Failed ",
            "Errored ",
            "Erroring ",
            "Broken ",
            "Crashed ",
        ]
        .iter()
        .any(|w| {
            drawn
                .get(..w.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(w))
        });
        if heading && t.ends_with(':') && !t.contains("  ") {
            list = true;
            item_depth = None;
            continue;
        }
        // (A drawn line closes the list: `-- end of failed assertion messages.`)
        let ruled = t.chars().take_while(|&c| crate::line::rule_char(c)).count();
        if ruled >= 2 && t.len() > drawn.len() {
            list = false;
            continue;
        }
        // (Flush left, only a YAML list's items: `- {"case": "name", …}`.)
        if !list || covered[i] || (indent(l) == 0 && !t.starts_with("- ")) {
            continue;
        }
        if *item_depth.get_or_insert(indent(l)) < indent(l) {
            continue;
        }
        if let Some((name, _)) = mapping_item(t) {
            if name_like(&name) && known.insert(name.clone()) {
                names.push(name);
            }
            continue;
        }
        // (A failure's mark before the item, `x name`, `✖ name`, is no part of its name.)
        let t = ["x ", "X "]
            .iter()
            .copied()
            .chain(crate::line::FAILURE_MARKS)
            .find_map(|m| t.strip_prefix(m))
            .map_or(t, str::trim_start);
        // (`[name]:Expected [36], Got [37]`: a bracketed name glued to what it said.)
        let bracketed = t
            .strip_prefix('[')
            .and_then(|r| r.split_once("]:"))
            .map(|(n, _)| n)
            .filter(|n| !n.contains(' '));
        let name = bracketed
            .or_else(|| t.rsplit_once(" # ").map(|(_, n)| n))
            .or_else(|| t.split_once("  ").map(|(_, n)| n))
            .unwrap_or(t)
            .trim()
            .to_owned();
        if name_like(&name) && known.insert(name.clone()) {
            names.push(name.clone());
        }
    }
    Ok(())
}

/// A list item that is an inline mapping (`- {"case": "clamp", "assertion": "upper bound kept",
/// "values": [9, 10]}`): the test's name (its `name`, `test`, `case` or `title`, else its first
/// text value) and what the rest of it says, as printed.
pub(crate) fn mapping_item(t: &str) -> Option<(String, String)> {
    let inner = t.strip_prefix("- ")?.trim();
    let body = inner.strip_prefix('{')?.strip_suffix('}')?;
    // Its `"key": "text"` fields in order, read as printed (the values need not be JSON: a
    // Fortran `3.` is no JSON number).
    let mut fields: Vec<(&str, &str, usize)> = Vec::new();
    let mut rest = body;
    let mut offset = 0;
    while let Some(open) = rest.find('"') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('"') else { break };
        let key = &after[..close];
        let tail = &after[close + 1..];
        let used = open + 1 + close + 1;
        if let Some(v) = tail
            .strip_prefix(": \"")
            .or_else(|| tail.strip_prefix(":\""))
        {
            let Some(end) = v.find('"') else { break };
            let value_end = used + (tail.len() - v.len()) + end + 1;
            fields.push((key, &v[..end], offset + value_end));
            offset += value_end;
            rest = &rest[value_end..];
        } else {
            offset += used;
            rest = &rest[used..];
        }
    }
    let (_, name, end) = ["name", "test", "case", "title"]
        .into_iter()
        .find_map(|k| fields.iter().find(|(key, _, _)| *key == k))
        .or_else(|| fields.first())
        .copied()?;
    let said = body[end..].trim_start_matches([',', ' ']).trim();
    (!name.trim().is_empty()).then(|| (name.to_owned(), said.to_owned()))
}

/// Status lines that are no test of their own: a failed row right under a failed row and
/// deeper than it is that test's failed assertion (`price list is sorted ✖` over `  equal()
/// ✖`), and a file's failed verdict over failed tests of its own (`src/a.test.ts ✖` before
/// its tests' rows, up to the next file's) is their heading. Linear in the status lines.
fn parts_and_headings_dropped(
    lines: &[String],
    status: Vec<(usize, String)>,
) -> Vec<(usize, String)> {
    let file_named = |n: &str| crate::text::file_with_extension(n) && !n.contains("::");
    // The verdict's words around the name, which a file's heading shares with its tests' rows
    // and a test with its assertions'.
    let verdict =
        |(at, name): &(usize, String)| lines[*at].replacen(name.as_str(), "", 1).trim().to_owned();
    // (A row named as a part of the one above, go's `TestA/case` under `TestA`, is a test of
    // its own; so is a row under a file's heading.)
    let mut keep = vec![true; status.len()];
    for k in 1..status.len() {
        let (at, ref name) = status[k];
        let (above, ref over) = status[k - 1];
        if above + 1 == at
            && indent(&lines[at]) > indent(&lines[above])
            && !name.starts_with(over.as_str())
            && !file_named(over)
            && verdict(&status[k]) == verdict(&status[k - 1])
        {
            keep[k] = false;
        }
    }
    for k in 0..status.len() {
        if !file_named(&status[k].1) {
            continue;
        }
        let mark = verdict(&status[k]);
        let mut under = status[k + 1..].iter().take_while(|(_, n)| !file_named(n));
        if under.any(|s| verdict(s) == mark) {
            keep[k] = false;
        }
    }
    status
        .into_iter()
        .zip(keep)
        .filter_map(|(s, k)| k.then_some(s))
        .collect()
}

/// The name on the row of a tree right over line `at`, one indent up from it (`∟ name`, `├─
/// name`, `- name`), when that row is no verdict of its own.
/// Whether a failed status at `at` is indented under the failed status of a test on the line
/// above, with another mark (`✗  Queue pops in order` over `      × first pushed item should
/// come out first`): the assertion that failed the test above, its message, no test of its
/// own. (A subtest's verdict has its parent's mark, Go's `--- FAIL:` under `--- FAIL:`; a
/// file's verdict heads its tests', Jest's `✕ adds` under `FAIL src/a.test.js`.)
fn under_a_failed_status(lines: &[String], covered: &[bool], at: usize) -> bool {
    let mark = |l: &str| l.split_whitespace().next().unwrap_or("").to_owned();
    // (Under a file's verdict, a verdict that labels what follows with its colon, `Failed:
    // 3.0 should be 9.0` under `-- FAILED: add.phpt`, is the message of the file's test.)
    let labelled = mark(&lines[at])
        .strip_suffix(':')
        .is_some_and(failed_verdict);
    at.checked_sub(1)
        .filter(|&r| !covered[r] && indent(&lines[r]) < indent(&lines[at]))
        .filter(|&r| mark(&lines[r]) != mark(&lines[at]))
        .and_then(|r| status_name(&lines[r]))
        .is_some_and(|name| {
            labelled || !name.contains('/') && !crate::text::file_with_extension(&name)
        })
}

/// Whether the verdict at `at` follows the start of a counted test in its paragraph (`- [0/1]
/// test words split`, a blank line, ` FAIL  test failed: arrays differ`): the start names the
/// test; the verdict says how it went.
fn after_a_counted_start(lines: &[String], at: usize) -> bool {
    lines[at.saturating_sub(2)..at]
        .iter()
        .rev()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| counted_start(l).is_some())
}

fn row_over(lines: &[String], covered: &[bool], at: usize) -> Option<String> {
    let r = at.checked_sub(1).filter(|&r| !covered[r])?;
    if indent(&lines[r]) >= indent(&lines[at]) || status_name(&lines[r]).is_some() {
        return None;
    }
    let t = lines[r].trim();
    let mark = t.chars().next()?;
    let name = t
        .strip_prefix(mark)?
        .trim_start_matches(['─', '-', ' '])
        .trim();
    ("∟├└-*•◦▸›»→".contains(mark) && t[mark.len_utf8()..].starts_with([' ', '─']))
        .then_some(name)
        .filter(|n| name_like(n) && !summary(n))
        .map(str::to_owned)
}

/// The test whose assertions' verdicts are rows of the paragraph it heads (`bad_number ran in 0
/// sec with 1/0 lines to STDERR/OUT`, then ` PASS EXIT CODE (LINE 8)`, ` FAIL STDOUT CONTAINS
/// "x" (LINE 9)`, a shell runner's): the heading's first word names the test, when the failed
/// row at `at` describes an assertion (words, not an id) under an identifier.
/// The scenario a failed check nested in its steps belongs to (`    Scenario: Yearly interest`
/// over its steps, a step's note and, deeper, `not ok - interest`): the nearest shallower
/// `Keyword: name` heading up the same paragraph, at most 40 lines up, when the verdict is
/// nested deeper than the heading's own lines.
fn keyword_over(lines: &[String], covered: &[bool], at: usize) -> Option<String> {
    let depth = indent(&lines[at]);
    let mut k = at;
    while k > 0 && at - k < 40 && !lines[k - 1].trim().is_empty() && !covered[k - 1] {
        k -= 1;
        let d = indent(&lines[k]);
        if d < depth
            && let Some(name) = keyword_header(&lines[k])
        {
            // (Its steps sit between it and the verdict, shallower than the verdict.)
            let nested = lines[k + 1..at]
                .iter()
                .any(|l| indent(l) > d && indent(l) < depth);
            return nested.then_some(name);
        }
    }
    None
}

fn heading_over(lines: &[String], covered: &[bool], at: usize, said: &str) -> Option<String> {
    let verdict = |l: &str| {
        let t = l.trim();
        let first = t.split_whitespace().next().unwrap_or("");
        passing_verdict(t) || failed_verdict(first)
    };
    if indent(&lines[at]) == 0 || !said.contains(' ') {
        return None;
    }
    // The paragraph's first line, at most a few dozen lines up.
    let mut k = at;
    while k > 0 && at - k < 40 && !lines[k - 1].trim().is_empty() && !covered[k - 1] {
        k -= 1;
    }
    if k == at || k + 1 >= lines.len() {
        return None;
    }
    let heading = &lines[k];
    let second = &lines[k + 1];
    if indent(heading) != 0 || indent(second) == 0 || !verdict(second) || verdict(heading) {
        return None;
    }
    let name = heading.split_whitespace().next()?;
    let identifier = name
        .chars()
        .all(|c| c.is_alphanumeric() || "_.:-".contains(c))
        && name.chars().next().is_some_and(char::is_alphabetic)
        && !name.ends_with(':');
    (identifier && name_like(name) && heading.split_whitespace().count() >= 2)
        .then(|| name.to_owned())
}

/// Names printed over their verdicts: a bare name over an assertion's verdict, a line over a
/// deeper line holding a failed verdict alone.
fn names_over_verdicts(
    lines: &[String],
    covered: &[bool],
    pace: &Pace<'_>,
    known: &mut HashSet<String>,
    names: &mut Vec<String>,
) -> Result<(), Cancelled> {
    // A name alone on a line and an assertion's verdict on the next (`testNoGamma`, then
    // `ASSERT:gamma must not be there`: a shell-assert runner prints each test's name as it
    // starts, and its failed assertions under it).
    for i in 0..lines.len().saturating_sub(1) {
        pace.step()?;
        let t = lines[i].trim_end();
        let bare = !covered[i]
            && !t.is_empty()
            && !t.contains(char::is_whitespace)
            && t.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.:-".contains(c))
            && !t.ends_with(':');
        if bare && asserted(&lines[i + 1]) && name_like(t) && known.insert(t.to_owned()) {
            names.push(t.to_owned());
        }
    }
    // A name over its verdict: a line, then a deeper line holding a failed verdict alone
    // (`Testcase: sums took 0.004 sec` over `	FAILED` or `	Caused an ERROR`, Ant's JUnit).
    for i in 0..lines.len().saturating_sub(1) {
        pace.step()?;
        if !covered[i]
            && verdict_alone(&lines[i + 1])
            && indent(&lines[i + 1]) > indent(&lines[i])
            && let Some(name) = over_its_verdict(&lines[i])
            && known.insert(name.clone())
        {
            names.push(name);
        }
    }
    // A row of a tree over an error one indent deeper (`∟ parses kelvin` over `  Error
    // Traceback:`): the test that raised it.
    for i in 1..lines.len() {
        pace.step()?;
        let first = lines[i].split_whitespace().next().unwrap_or("");
        let word = first.trim_end_matches(':');
        let error = word == "Traceback"
            || word == "Exception"
            || (word.ends_with("Error") && word.chars().all(|c| c.is_ascii_alphanumeric()));
        if !covered[i]
            && error
            && let Some(name) = row_over(lines, covered, i)
            && known.insert(name.clone())
        {
            names.push(name);
        }
    }
    // A listed name over a verdict that opens the next line (`- a full ring keeps the newest`
    // over `Falsifiable after 3 tests and 1 shrink`, RapidCheck's properties).
    for i in 0..lines.len().saturating_sub(1) {
        pace.step()?;
        if !covered[i]
            && let Some(name) = listed_item(&lines[i])
            && verdict_opens(&lines[i + 1])
            && indent(&lines[i + 1]) <= indent(&lines[i])
            && known.insert(name.to_owned())
        {
            names.push(name.to_owned());
        }
    }
    // A labelled field naming the test under a failure's header (`main.cpp:24:Assertion`
    // over `Test name: ClampTest::testUpper`, CppUnit's records).
    for i in 1..lines.len() {
        pace.step()?;
        if !covered[i]
            && let Some(name) = labelled_test(&lines[i])
            && failure_header(&lines[i - 1])
            && known.insert(name.clone())
        {
            names.push(name);
        }
    }
    Ok(())
}

/// An item of a list, `- name` (or `* `, `• `): the name, when it is one.
fn listed_item(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let name = crate::text::bulleted(t)?.trim();
    (name_like(name) && !summary(line) && status_name(name).is_none()).then_some(name)
}

/// Whether a line opens with a failed verdict and goes on to say more (`Falsifiable after 3
/// tests`, `Failed! Falsified (after 4 tests):`, `FAILED after 2 attempts`).
fn verdict_opens(line: &str) -> bool {
    let t = line.trim();
    let Some(first) = t.split_whitespace().next() else {
        return false;
    };
    let word = first.trim_end_matches(['!', ':', ',', '.']);
    (failed_verdict(word) || matches!(word, "Falsifiable" | "Falsified")) && t.len() > first.len()
}

/// The test a labelled field names (`Test name: Suite::case`, `Test: x`, `Testcase: x`).
pub(crate) fn labelled_test(line: &str) -> Option<String> {
    let (label, name) = line.trim().split_once(": ")?;
    let name = name.trim();
    (matches!(
        label.to_ascii_lowercase().as_str(),
        "test name" | "test" | "test case" | "testcase"
    ) && !name.contains(' ')
        && name_like(name))
    .then(|| name.to_owned())
}

/// Whether a line heads a failure's record: a place (`main.cpp:24:Assertion`) or a failed
/// verdict word in it (`##Failure Location unknown## : Error`).
fn failure_header(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty()
        && (crate::diagnostics::location(t).is_some()
            || t.split(|c: char| !c.is_ascii_alphabetic())
                .any(|w| matches!(w, "Failure" | "Error" | "Assertion" | "FAILED" | "ERROR")))
}

/// Whether a line holds a failed verdict and nothing else (`FAILED`, `Caused an ERROR`).
fn verdict_alone(line: &str) -> bool {
    let t = line.trim();
    let t = t
        .strip_prefix("Caused an ")
        .or_else(|| t.strip_prefix("Caused a "))
        .unwrap_or(t);
    // (Or led by a rule and followed by why after a dash: `**** FAIL - expected: '2' |
    // actual: '3'`.)
    let t = t
        .split_once(' ')
        .filter(|(lead, _)| lead.len() >= 3 && rule_token(lead))
        .map_or(t, |(_, rest)| rest);
    let t = t.split_once(" - ").map_or(t, |(verdict, _)| verdict);
    !t.contains(' ') && t.chars().any(char::is_uppercase) && failed_verdict(t)
}

/// The name a line gives the test whose verdict is under it: its text without a one-word
/// label before it (`Testcase: `) and without its timing (`took 0.004 sec`, `(0.01s)`).
fn over_its_verdict(line: &str) -> Option<String> {
    let t = line.trim();
    let t = match t.split_once(": ") {
        Some((label, rest)) if !label.contains(' ') && label.starts_with(char::is_uppercase) => {
            rest
        }
        _ => t,
    };
    let t = match t.rsplit_once(" took ") {
        Some((name, timing)) if timing.starts_with(|c: char| c.is_ascii_digit()) => name,
        _ => t,
    };
    let name = crate::line::without_timing(t).trim();
    (name_like(name) && !summary(line) && status_name(line).is_none()).then(|| name.to_owned())
}

/// A test's scoped name alone on a line, closed by a colon, after a blank line (`router >
/// params > parses id param:`): the header of its failure's report, the message under it (a
/// runner that prints only failures this way, ospec).
fn scoped_header(lines: &[String], at: usize) -> Option<String> {
    let t = lines[at].trim_end();
    if t.starts_with(char::is_whitespace)
        || at == 0
        || !lines[at - 1].trim().is_empty()
        || lines.get(at + 1).is_none_or(|l| l.trim().is_empty())
    {
        return None;
    }
    let name = t.strip_suffix(':')?;
    let scoped = name.contains(" > ") || name.contains(" › ");
    (scoped && !name.contains(": ") && name.len() <= 200 && name_like(name))
        .then(|| name.to_owned())
}

/// Whether the verdict at `at` is a suite's: a name with its verdict closing the line, and
/// counts right under it where a test's report would be (`Calc | FAIL |` over `4 tests, 1
/// passed, 3 failed`). A record that carries its message (`FAILED a::b - boom`) over the run's
/// counts is a test's.
fn closes_a_suite(lines: &[String], at: usize) -> bool {
    crate::line::padded_verdict(lines[at].trim_end()).is_some()
        && lines
            .get(at + 1)
            .is_some_and(|l| crate::stated::states_counts(l))
}

/// Every line not `covered` that mentions a failing name, with the name's index (the longest
/// that fits; a status line by the name it gives; a details header by a telling leaf).
fn mentions_of(
    lines: &[String],
    covered: &[bool],
    names: &[String],
    pace: &Pace<'_>,
) -> Result<Vec<(usize, usize)>, Cancelled> {
    // A details header may show only a name's leaf (`____ test_add ____` for
    // `tests/test_a.py::test_add`): leaves that tell the failures apart.
    let mut leaf_count: HashMap<&str, usize> = HashMap::new();
    for n in names {
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
                .trim_matches(|c: char| c.is_whitespace() || crate::line::rule_char(c));
            leaf_in(core, &leaves)
        })
    };
    let mut mentions: Vec<(usize, usize)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        pace.step()?;
        if covered[i] {
            continue;
        }
        // A frame names functions, not tests, except in what it adds after its function
        // (`spec.rb:4:in `block (2 levels)': Mill - grinds`): the test it ran in.
        // Quoted source (`  8 |   test("x", () => {`, a code frame) is the test's code, not
        // the runner naming it.
        // (A numbered row that gives its verdict, `  3: name      FAILED (a.at:17)`, Autotest's,
        // is the runner's, not quoted source.)
        let quoted = crate::line::source_excerpt(l.trim_start().trim_start_matches('>'))
            && status_name(l).is_none();
        let said = match annotated_frame(l) {
            Some(tail) => Some(tail),
            None if crate::line::stack_frame(l) || quoted => None,
            None => Some(l.as_str()),
        };
        if let Some(k) = said.and_then(mention) {
            mentions.push((i, k));
        }
    }
    Ok(mentions)
}

/// What a stack frame adds after its quoted function (`a.rb:4:in `block': Mill - grinds`):
/// the test it ran in, as some runners annotate their first frame.
fn annotated_frame(line: &str) -> Option<&str> {
    // A trailer's scopes after its place (`at ./a.tst.ts:9:43 ❭ pick ❭ rejects unknown keys`).
    if trailer(line) {
        let rest = line.trim_start().strip_prefix("at ")?;
        return rest.split_once(' ').map(|(_, scopes)| scopes.trim());
    }
    if !crate::line::stack_frame(line) {
        return None;
    }
    let at = line.rfind("': ").or_else(|| line.rfind("`: "))?;
    let tail = line[at + 3..].trim();
    (!tail.is_empty()).then_some(tail)
}

/// The paragraph around line `at`: back to a blank, covered or mentioned line, on to a blank
/// line (an annotated frame's report is the paragraph it sits in: the exception, its frames).
fn paragraph(
    lines: &[String],
    covered: &[bool],
    mentioned: &[Option<usize>],
    at: usize,
) -> (usize, usize) {
    let mut from = at;
    while from > 0
        && at - from < MAX_BLOCK
        && !covered[from - 1]
        && mentioned[from - 1].is_none()
        && !lines[from - 1].trim().is_empty()
    {
        from -= 1;
        // An indented first line (a source excerpt) continues the exception a blank line
        // above it (`NoMethodError: …`, blank, `    nil.fetch`, the frames).
        if from >= 2
            && lines[from].starts_with(char::is_whitespace)
            && lines[from - 1].trim().is_empty()
            && !covered[from - 2]
            && mentioned[from - 2].is_none()
            && !lines[from - 2].trim().is_empty()
        {
            from -= 1;
        }
    }
    let mut end = at + 1;
    while end < lines.len()
        && end - from < MAX_BLOCK
        && !covered[end]
        && mentioned[end].is_none()
        && !lines[end].trim().is_empty()
    {
        end += 1;
    }
    (from, end)
}

/// Whether a mention at `end` of the name a report headed at `at` names goes on with that
/// report's paragraph: a message that quotes the name (`tickets ... seat letter => a.ts:24:11`,
/// then `error: AssertionError: seat letter drifted from B`), not a status line of its own.
fn goes_on(lines: &[String], at: usize, end: usize) -> bool {
    status_name(&lines[end]).is_none() && !lines[at..end].iter().any(|l| l.trim().is_empty())
}

/// A report's name and the words its header prints after it, when they say what went wrong:
/// a qualified call and the words after its closing parenthesis (Qt Test's `FAIL!  :
/// Units::inches() Compared doubles…`, the call the name), or a one-word name, a colon and
/// why (`FAIL: name: stdout diff:`, cmdtest's). The words as the header prints them.
fn said_after_name(header: &str, name: Option<String>) -> (Option<String>, Option<String>) {
    let Some(name) = name else {
        return (None, None);
    };
    // (A list item that is an inline mapping: what it says past the name's field.)
    if let Some((item, said)) = mapping_item(header.trim())
        && item == name
        && !said.is_empty()
    {
        return (Some(name), Some(said));
    }
    // (A name glued to a dot leader and a bracketed verdict, then why: `01) Suite.Name.....
    // [FAIL] a.c:13: expected 1 but was 2`.)
    if let Some((row, verdict, why)) = crate::line::leader_row(header.trim())
        && row.contains(name.as_str())
        && crate::line::failed_verdict(verdict)
        && !why.is_empty()
    {
        let why = why.to_owned();
        return (Some(name), Some(why));
    }
    // (A bracketed name glued to what it said: `[test_lcm]:Expected [36], Got [37]`.)
    if let Some(said) = header
        .trim_start()
        .strip_prefix(&format!("[{name}]:"))
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        return (Some(name), Some(said.to_owned()));
    }
    if let Some((call, said)) = crate::line::call_then_said(&name) {
        let said = header
            .find(call)
            .map_or(said, |at| header[at + call.len()..].trim());
        return (Some(call.to_owned()), Some(said.to_owned()));
    }
    // (A title, a dash, then what went wrong, `✗ rounds cents - expected 2.68, got 2.67`: the
    // name ends at the first dash whose words after it say so.)
    if let Some((title, why)) = title_dash_why(&name) {
        // (The header says all of it, where the name may have left a bracketed end off.)
        let why = header.find(why).map_or(why, |at| header[at..].trim_end());
        return (Some(title.to_owned()), Some(why.to_owned()));
    }
    // (Under a sequence number, `1) NAME: why`, the words after the colon are why whatever
    // they say.)
    // (Or a name a listing gave, `0) converts a hot day: Expected 86.0 to equal 85.0`.)
    let numbered = sequence_mark(header.trim_start()).is_some_and(|(_, rest)| {
        named_before_why(rest.trim()) == Some(name.as_str())
            || rest.trim().starts_with(&format!("{name}: "))
    });
    // (A row that pads its verdict to a column and gives where the check failed after it,
    // `3: name      FAILED (a.at:17)`, Autotest's: that is what it says.)
    if let Some(at) = header.find(name.as_str()) {
        let rest = &header[at + name.len()..];
        let said = rest.trim();
        if rest.starts_with("  ")
            && said.contains(" (")
            && said.ends_with(')')
            && crate::line::failed_verdict(said.split(' ').next().unwrap_or(""))
        {
            return (Some(name), Some(said.to_owned()));
        }
    }
    // (What went wrong in parentheses after the name: `✖ status == 200 (AssertionError: …)`.)
    if let Some(at) = header.find(name.as_str())
        && let Some((_, why)) = crate::line::paren_why(header[at..].trim_end())
    {
        return (Some(name), Some(why.to_owned()));
    }
    // (A name, its verdict and why on one row: `ledger.round: FAIL: rounding … (0.004s)`,
    // `name failed: values differ`.)
    if let Some(why) = verdict_then_why(header, &name) {
        return (Some(name), Some(why.to_owned()));
    }
    // (A row that says why after a dash and pads its verdict to a column: `name - why    FAIL`.)
    if let Some(at) = header.find(&format!("{name} - ")) {
        let rest = &header[at + name.len() + 3..];
        let why = rest.split("  ").next().unwrap_or(rest).trim();
        if !why.is_empty() && rest.contains("  ") {
            return (Some(name), Some(why.to_owned()));
        }
    }
    // (A name, a colon, then the report's first field on its own row: `RESTOCK-ADDS:
    // Expression: (EQL 12 …)`, its other fields aligned under it.)
    if let Some((id, rest)) = name.split_once(": ")
        && !id.contains(' ')
        && name_like(id)
        && rest.split_once(": ").is_some_and(|(label, _)| {
            !label.contains(' ')
                && label.len() > 2
                && label.starts_with(|c: char| c.is_ascii_uppercase())
                && label[1..].chars().all(|c| c.is_ascii_lowercase())
        })
        && let Some(at) = header.find(&format!("{id}: "))
    {
        let said = header[at + id.len() + 2..].trim();
        return (Some(id.to_owned()), Some(said.to_owned()));
    }
    let why = header
        .find(&format!("{name}: "))
        .map(|at| &header[at..])
        .filter(|rest| {
            numbered
                || crate::line::named_then_why(rest) == Some(name.as_str())
                || crate::line::filed_then_why(rest) == Some(name.as_str())
        })
        .map(|rest| rest[name.len() + 2..].trim().to_owned());
    (Some(name), why)
}

/// What a row says after its name and verdict (`NAME: FAIL: why (0.004s)`, `NAME failed: why`),
/// without the time at its end.
fn verdict_then_why<'h>(header: &'h str, name: &str) -> Option<&'h str> {
    let at = header.find(name)?;
    let rest = header[at + name.len()..]
        .trim_start_matches(':')
        .trim_start();
    let (verdict, why) = rest.split_once(": ")?;
    let why = crate::line::without_timing(why.trim());
    (!verdict.contains(' ')
        && templates::verdict_after_name(&format!("{verdict}:"))
        && !why.is_empty())
    .then_some(why)
}

/// A name that is a title, ` - ` and a message (`rounds cents - TypeError: x is undefined`):
/// the title and the message, at the first dash whose words after it read as one.
fn title_dash_why(name: &str) -> Option<(&str, &str)> {
    name.match_indices(" - ").find_map(|(at, _)| {
        let (title, why) = (name[..at].trim(), name[at + 3..].trim());
        (!title.is_empty() && crate::line::message_like(why)).then_some((title, why))
    })
}

/// Whether the line at `at` is a rule that closes a section: solid, a blank line or the end after
/// it (testthat's rule under each context's failures, before its `══ Results ══`; not pytest's
/// spaced `_ _ _` between a failure's frames).
/// A drawn line that closes a list the header at `at` is an item of (`-- end of failed
/// assertion messages.` under `[test_lcm]:Expected [36], Got [37]`): rule characters, then
/// words (no path: a diff's `--- a/x` opens the header's detail; no colon announcing what
/// follows, `==== Contents of test case:`), no deeper than the item, right after it and with
/// nothing under it; the item itself not drawn (a drawn header's detail is drawn alike).
fn drawn_close(lines: &[String], at: usize, end: usize) -> bool {
    let t = lines[end].trim_start();
    let ruled = t.chars().take_while(|&c| crate::line::rule_char(c)).count();
    let after = t.trim_start_matches(crate::line::rule_char);
    ruled >= 2
        && after.starts_with(' ')
        && after.trim().starts_with(|c: char| c.is_alphabetic())
        && !after
            .split_whitespace()
            .next()
            .is_some_and(crate::text::path_like)
        && !after.trim_end().ends_with(':')
        && !lines[at].trim_start().starts_with(crate::line::rule_char)
        && indent(&lines[end]) <= indent(&lines[at])
        && end == at + 1
        && lines.get(end + 1).is_none_or(|l| l.trim().is_empty())
}

fn closing_rule(lines: &[String], at: usize) -> bool {
    separator(&lines[at])
        && !lines[at].trim().contains(' ')
        && lines.get(at + 1).is_none_or(|l| l.trim().is_empty())
}

/// The line of the rule that closes a fence the rule at `open` opens: the same rule again
/// within the report's bound, with content between and no failing name mentioned before it.
fn fence_closed(
    lines: &[String],
    mentioned: &[Option<usize>],
    at: usize,
    open: usize,
) -> Option<usize> {
    let rule = lines[open].trim();
    let mut held = false;
    for i in open + 1..lines.len().min(at + MAX_BLOCK) {
        if mentioned[i].is_some() {
            return None;
        }
        let t = lines[i].trim();
        if t == rule {
            return held.then_some(i);
        }
        held |= content(&lines[i]);
    }
    None
}

/// Whether a section heading framed by rules starts at `at` (`=====`, `Failed 4 tests - output
/// below:`, `=====`, stestr's recap): no report runs into the next section.
fn framed_heading(lines: &[String], at: usize) -> bool {
    separator(&lines[at])
        && lines.get(at + 1).is_some_and(|l| content(l))
        && lines.get(at + 2).is_some_and(|l| separator(l))
}

/// The readings of shapes the template discovery does not key, when the reading so far
/// disagrees with the stated count or found nothing: names announced as tests started, a tree
/// signed `+` and `-`, counted rows marked failed, records under a verdict banner.
fn other_readings(
    lines: &[String],
    covered: &[bool],
    stated: &Stated,
    mut reading: Vec<Span>,
) -> Vec<Span> {
    // Still disagreeing: the lines a name announced as its test started heads, whatever the
    // words after it (`test-sum failed: …`, `test-split: exception in test: …`).
    if !stated.is_empty() && !stated.agrees(reading.len()) {
        let heads = announced::announced_heads(lines, covered);
        if stated.agrees(heads.len()) {
            reading = heads;
        }
    }
    // Nothing read at all: a tree of tests signed `+` and `-` reports its `-` rows.
    if reading.is_empty() {
        reading = signs::failed_rows(lines, covered);
    }
    // Or counted rows, one of them marked failed (`(3/7) [EXECUTE] (X) why`).
    if reading.is_empty() {
        reading = counted::marked_rows(lines, covered);
    }
    // Or records set apart by blank lines under a verdict alone (`FAILED:`).
    if reading.is_empty() {
        reading = banner::records(lines, covered);
    }
    // Or reports under titles, each closed by its place in words.
    if reading.is_empty() {
        reading = placed::titled_to_place(lines, covered);
    }
    reading
}

/// Error lines inside a report's indented body (`  ERROR: Could not find a version …` in the
/// output under `✗ Installing dependencies (1)`) are what went wrong in it, not failures of
/// their own: a report that starts where the one before ends, deeper than that one's header,
/// on a line a severity labels, joins it.
fn inner_errors_joined(lines: &[String], spans: Vec<Span>) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        if let Some(last) = out.last_mut()
            && !last.whole
            && last.end == s.start
            && indent(&lines[s.start]) > indent(&lines[last.start])
            && crate::line::severity_labelled(&lines[s.start])
        {
            last.end = s.end;
            continue;
        }
        out.push(s);
    }
    out
}

/// Keeps `span` as the best report when it weighs more than the one kept (the first of equals).
fn keep_heavier(
    best: &mut Option<(usize, Span)>,
    weight: usize,
    span: Span,
    candidates: &mut Vec<Span>,
) {
    candidates.push(span.clone());
    if best.as_ref().is_none_or(|(w, _)| weight > *w) {
        *best = Some((weight, span));
    }
}

/// The lines of the other reports of a failure that only repeat its chosen one (a recap,
/// `test/spec > slug > name` over the same error and frames as the tree's `✗ name`): most of
/// their lines, gutters and indents aside, stand in the chosen report too. Linear in the
/// candidates' lines.
fn repeats(lines: &[String], chosen: &Span, candidates: &[Span]) -> Vec<usize> {
    let plain = |l: &str| l.trim().trim_start_matches(['|', '│']).trim().to_owned();
    let own: HashSet<String> = lines[chosen.start..chosen.end]
        .iter()
        .map(|l| plain(l))
        .filter(|l| !l.is_empty())
        .collect();
    let mut out = Vec::new();
    for c in candidates {
        if c.start == chosen.start || (c.start < chosen.end && chosen.start < c.end) {
            continue;
        }
        let body: Vec<String> = lines[c.start + 1..c.end]
            .iter()
            .map(|l| plain(l))
            .filter(|l| !l.is_empty())
            .collect();
        let shared = body.iter().filter(|l| own.contains(*l)).count();
        if !body.is_empty() && shared * 2 >= body.len() {
            out.extend(c.start..c.end);
        }
    }
    out
}

/// The report a mention's own shape gives, weighed: a section its footer closes (the one, as a
/// report its verdict closes is), the paragraph of a frame or a labelled field naming the test.
fn report_of_shape(
    lines: &[String],
    covered: &[bool],
    mentioned: &[Option<usize>],
    at: usize,
    name: &str,
) -> Option<(usize, Span)> {
    if let Some(span) = footer_report(lines, covered, mentioned, at, name) {
        let weight = lines[span.start..span.end]
            .iter()
            .filter(|l| content(l))
            .count();
        return Some((MAX_BLOCK + weight, span));
    }
    let labelled = labelled_test(&lines[at]).is_some();
    if annotated_frame(&lines[at]).is_none() && !labelled {
        return None;
    }
    let (weight, mut span) = frame_report(lines, covered, mentioned, at, name);
    // A labelled name's record has its header above the label.
    span.whole &= !labelled;
    Some((weight, span))
}

/// A section's footer: a test's id alone on the last line of a section framed by rules
/// (`====`, `[FAIL]`, the traceback, then `pkg.mod.Class.test_x` over the next `====`, as
/// trial prints), naming the section above it.
fn footer_report(
    lines: &[String],
    covered: &[bool],
    mentioned: &[Option<usize>],
    at: usize,
    name: &str,
) -> Option<Span> {
    let id = lines[at].trim();
    let closes = lines.get(at + 1).is_none_or(|l| separator(l));
    if !closes || id.contains(' ') || !id.ends_with(leaf_of(name)) || at == 0 {
        return None;
    }
    let mut from = at;
    while from > 0
        && at - from < MAX_BLOCK
        && !covered[from - 1]
        && mentioned[from - 1].is_none()
        && !separator(&lines[from - 1])
    {
        from -= 1;
    }
    let opened = from > 0 && separator(&lines[from - 1]);
    // The footer's id is the fuller name (`pkg.mod.Class.test_x` for a list's `test_x`).
    (opened && lines[from..at].iter().any(|l| content(l))).then(|| Span {
        start: from,
        end: at + 1,
        name: Some(id.to_owned()),
        whole: false,
    })
}

/// The report of an annotated frame at `at` naming `name`: its paragraph, weighed by its
/// content.
fn frame_report(
    lines: &[String],
    covered: &[bool],
    mentioned: &[Option<usize>],
    at: usize,
    name: &str,
) -> (usize, Span) {
    let (start, end) = paragraph(lines, covered, mentioned, at);
    let weight = lines[start..end].iter().filter(|l| content(l)).count();
    let name = Some(name.to_owned());
    let whole = true;
    (
        weight,
        Span {
            start,
            end,
            name,
            whole,
        },
    )
}

/// Whether this runner prints each report before its verdict: a bracketed verdict (`[FAIL]
/// name`) that gives the test's time, or with a report above it, the first in the log; not
/// when the last such verdict has detail of the kind the first one has under it.
fn verdicts_close(
    lines: &[String],
    covered: &[bool],
    mentions: &[(usize, usize)],
    mentioned: &[Option<usize>],
) -> bool {
    // A bracketed verdict (`[FAIL] name`) with a report above it, the first in the log, says
    // this runner prints each report before its verdict.
    let bracketed =
        |at: usize| lines[at].trim_start().starts_with('[') && status_name(&lines[at]).is_some();
    // So does a verdict that gives the test's time (`[FAIL] ring::push: (0.00s)`): it is
    // printed when the test ends, after what the test printed.
    let timed = |at: usize| {
        let t = lines[at].trim_end().trim_end_matches(':');
        without_timing(t).len() < t.len()
    };
    // Not when the last bracketed verdict has detail of the kind the first one has under it
    // (`[ DEBUG ] a.t line 7` under every `[ FAIL ] name`): that detail is the verdict's, and
    // what stands above the first is another test's record. The kind is the detail's first
    // word masked (`a.c:38: fatal …` and `a.c:89: nonfatal …` are one kind), after any marks
    // before it.
    let first_bracketed = mentions.iter().find(|&&(at, _)| bracketed(at));
    let last_bracketed = mentions.iter().rev().find(|&&(at, _)| bracketed(at));
    let detail_under = match (first_bracketed, last_bracketed) {
        (Some(&(a, _)), Some(&(b, _))) if a < b => {
            let shape = |at: usize| {
                let next = (at + 1..lines.len()).find(|&k| !lines[k].trim().is_empty())?;
                let toks = templates::tokens(lines[next].trim());
                let mut kind = Vec::new();
                for t in toks.iter().take(3) {
                    let masked = templates::mask(t);
                    let word = masked.chars().any(char::is_alphanumeric);
                    kind.push(masked);
                    if word {
                        break;
                    }
                }
                Some(kind).filter(|t| t.iter().any(|w| w.chars().any(char::is_alphabetic)))
            };
            shape(a).is_some_and(|s| Some(&s) == shape(b).as_ref())
        }
        _ => false,
    };
    !detail_under
        && first_bracketed.is_some_and(|&(at, _)| {
            timed(at) || report_above(lines, covered, mentioned, at).is_some()
        })
}

/// For each failing name, its report: the mention with the most content under it, running to
/// the next mention of another name, the end of the failures section or the name's own
/// verdict; overlapping reports cut where the later starts.
fn reports(
    lines: &[String],
    covered: &[bool],
    names: &[String],
    mentions: &[(usize, usize)],
    pace: &Pace<'_>,
) -> Result<(Vec<Span>, Vec<usize>), Cancelled> {
    // Which name each line mentions, by line, for the walks below.
    let mut mentioned: Vec<Option<usize>> = vec![None; lines.len()];
    for &(i, k) in mentions {
        mentioned[i] = Some(k);
    }
    let mut by_name: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    for &(at, k) in mentions {
        by_name[k].push(at);
    }
    let bracketed =
        |at: usize| lines[at].trim_start().starts_with('[') && status_name(&lines[at]).is_some();
    let verdicts_close = verdicts_close(lines, covered, mentions, &mentioned);
    let mut spans = Vec::new();
    let mut repeated: Vec<usize> = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let mut best: Option<(usize, Span)> = None;
        let mut candidates: Vec<Span> = Vec::new();
        for &at in &by_name[k] {
            pace.step()?;
            if let Some((weight, span)) = trailer_report(lines, covered, &mentioned, at, name)
                .or_else(|| report_of_shape(lines, covered, &mentioned, at, name))
            {
                keep_heavier(&mut best, weight, span, &mut candidates);
                continue;
            }
            // The report runs to the next mention of another failing name, the end of the
            // failures section, or this name's own verdict after it (`[ RUN ] x … [ FAILED ] x`).
            let mut end = at + 1;
            let mut closed = false;
            let nested = Nested::of(lines, at);
            while end < lines.len()
                && end - at < MAX_BLOCK
                && !covered[end]
                && !past_a_report(lines, at, end)
            {
                if closing_rule(lines, end) {
                    // (A rule that opens a fence closed by the same rule before any other name,
                    // kizu's `────` around a failure's values and error, frames the report's own
                    // detail.)
                    match fence_closed(lines, &mentioned, at, end) {
                        Some(close) => {
                            end = close + 1;
                            continue;
                        }
                        None => break,
                    }
                }
                if nested.ends_at(lines, at, end)
                    || drawn_close(lines, at, end)
                    || templates::passed_sibling(&lines[at], &lines[end])
                {
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
                    // Another mention of the same name starts a report of its own, unless it
                    // goes on with the header's paragraph.
                    if !goes_on(lines, at, end) {
                        break;
                    }
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
            let end = without_tail(lines, &mentioned, at, end);
            // A report closed by its own verdict (`[ RUN ] x` … `[ FAILED ] x`) is the one.
            let weight = lines[at + 1..end].iter().filter(|l| content(l)).count()
                + if closed { MAX_BLOCK } else { 0 };
            let span = Span {
                start: at,
                end,
                name: Some(name.clone()),
                whole: false,
            };
            keep_heavier(&mut best, weight, span, &mut candidates);
        }
        // A bracketed verdict closes the report above it (`[----] a.c:7: Assertion Failed` …
        // `[FAIL] suite::name`) when the runner prints reports first, or when nothing is under
        // it. (Only a bracketed verdict: a bare `ERROR: …` line that says what went wrong is a
        // report of its own, whatever came before it.)
        if let Some((weight, span)) = &mut best
            && (verdicts_close || *weight == 0)
            && bracketed(span.start)
            && let Some(from) = report_above(lines, covered, &mentioned, span.start)
        {
            span.end = span.start + 1;
            span.start = from;
        }
        if let Some((_, span)) = best {
            repeated.extend(repeats(lines, &span, &candidates));
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
    // (A line some failure's chosen report holds is no repeat.)
    let mut chosen = vec![false; lines.len()];
    claim(&mut chosen, &spans);
    repeated.retain(|&i| !chosen[i]);
    Ok((spans, repeated))
}

/// The report a trailer at `at` closes (`at ./a.tst.ts:9:43 ❭ pick ❭ rejects unknown keys`,
/// TSTyche's): back to the previous mention, weighed above any other mention of the name; what
/// follows the trailer is the next report's. Its first line starts its message (no header).
fn trailer_report(
    lines: &[String],
    covered: &[bool],
    mentioned: &[Option<usize>],
    at: usize,
    name: &str,
) -> Option<(usize, Span)> {
    // (Or an indented field that names the test and closes its record: `info: TENOFF never
    // goes below zero` under `* fail: … executed: …`, `got:` and `wanted:`.)
    let closing_field = at > 0
        && indent(&lines[at]) > 0
        && lines[at]
            .trim()
            .split_once(": ")
            .is_some_and(|(label, value)| {
                !label.contains(' ') && (value.trim() == name || value.trim() == leaf_of(name))
            })
        && content(&lines[at - 1])
        && lines.get(at + 1).is_none_or(|l| l.trim().is_empty());
    if !trailer(&lines[at]) && !closing_field {
        return None;
    }
    let from = report_above(lines, covered, mentioned, at)?;
    let weight = lines[from..at].iter().filter(|l| content(l)).count() + MAX_BLOCK;
    let span = Span {
        start: from,
        end: at + 1,
        name: Some(name.to_owned()),
        whole: true,
    };
    Some((weight, span))
}

/// Whether the line at `end` is past the report whose header is at `at`: a summary, a framed
/// heading, or another test's passing verdict no deeper than the header (`[PASSED] "q" /
/// "four"` under a failure's detail, D-232).
fn past_a_report(lines: &[String], at: usize, end: usize) -> bool {
    summary(&lines[end])
        || framed_heading(lines, end)
        || results_banner(&lines[end])
        || (indent(&lines[end]) <= indent(&lines[at])
            && crate::line::passing_verdict(lines[end].trim()))
}

/// A banner over the run's results (`---------- results -----------`, `══ Summary ══`): the
/// reports are above it.
fn results_banner(line: &str) -> bool {
    crate::line::banner_title(line).is_some_and(|title| {
        let lower = title.to_ascii_lowercase();
        matches!(
            lower.as_str(),
            "results" | "result" | "summary" | "totals" | "total" | "statistics" | "test results"
        ) || summary(&title)
    })
}

/// A line that closes the report above it by naming it: `at`, a place, then the failure's
/// scopes after a scope mark (`at ./a.tst.ts:9:43 ❭ pick ❭ rejects unknown keys`).
fn trailer(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("at ") else {
        return false;
    };
    let Some((place, scopes)) = rest.split_once(' ') else {
        return false;
    };
    crate::diagnostics::location(place.trim_start_matches("./")).is_some()
        && ["❭ ", "› ", "> ", "» "]
            .iter()
            .any(|mark| scopes.trim_start().starts_with(mark))
}

/// The first line of a report printed above its verdict line `at`: back over lines no report
/// or mention claimed, to the previous status line, a summary, two blank lines in a row or
/// [`MAX_BLOCK`]; None when those lines say nothing.
fn report_above(
    lines: &[String],
    covered: &[bool],
    mentioned: &[Option<usize>],
    at: usize,
) -> Option<usize> {
    let mut from = at;
    let mut blanks = 0;
    while from > 0 && at - from < MAX_BLOCK {
        let k = from - 1;
        let l = &lines[k];
        blanks = if l.trim().is_empty() { blanks + 1 } else { 0 };
        if covered[k]
            || mentioned[k].is_some()
            || status_name(l).is_some()
            || summary(l)
            || separator(l)
            || blanks >= 2
        {
            break;
        }
        from = k;
    }
    while from < at && lines[from].trim().is_empty() {
        from += 1;
    }
    lines[from..at].iter().any(|l| content(l)).then_some(from)
}

/// Named reports and the lines that list the failing names.
pub(crate) type Named = (Vec<Span>, Vec<usize>);

/// The first name (by its index) whose telling leaf `core` starts or ends with, where `core` is
/// at most 40 characters longer than the leaf: only the 41 longest prefixes and suffixes of
/// `core` are looked up, so a long line costs no more than a short one.
pub(crate) fn leaf_in(core: &str, leaves: &HashMap<&str, usize>) -> Option<usize> {
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
pub(crate) fn leaf_of(name: &str) -> &str {
    // A name led by its place (`test_orders:7 order total sums lines`): the place scopes it.
    // (Or by its file alone: `/cart.js unknown coupon leaves the total alone`.)
    let mut leaf = match name.split_once(' ') {
        Some((place, rest))
            if place.rsplit_once(':').is_some_and(|(file, line)| {
                !file.is_empty()
                    && !line.is_empty()
                    && line.bytes().all(|b| b.is_ascii_digit())
                    && !file.contains("::")
            }) || (place.contains('/') && crate::text::file_with_extension(place)) =>
        {
            rest
        }
        _ => name,
    };
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
pub(crate) fn unscoped(name: &str) -> String {
    match name.split_once(" › ") {
        Some((suite, leaf)) if !leaf.contains(" › ") && !suite.contains('"') => {
            format!("{suite}  \"{leaf}\"")
        }
        _ => name.to_owned(),
    }
}

/// Numbered headers, `1) …`, the number in brackets (`[1] …`) or with a dot (`1. …`): (line,
/// number, indentation, text after the number). Only a run counting up from 1 is read as
/// reports, so a rule's code in brackets (`[207] message`) is none. (A number in parentheses indexes a table's rows, Octave's
/// `(1)  1.3333  1.5  Abs err …`, more often than it heads a report.)
pub(crate) fn numbered_headers(lines: &[String]) -> Vec<(usize, u32, usize, String)> {
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let (number, rest) = sequence_mark(l.trim_start())?;
            Some((i, number, indent(l), rest.trim().to_owned()))
        })
        .collect()
}

/// A sequence number opening a line, `1)`, `[1]` or `1.`, and what follows it (nothing, or
/// words after a space).
fn sequence_mark(t: &str) -> Option<(u32, &str)> {
    let open = usize::from(t.starts_with('['));
    let digits = t[open..].bytes().take_while(u8::is_ascii_digit).count();
    let after = &t[open + digits..];
    let rest = if open == 1 {
        after.strip_prefix(']')?
    } else {
        after
            .strip_prefix(')')
            .or_else(|| after.strip_prefix('.'))?
    };
    if digits == 0 || digits > 4 || !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((t[open..open + digits].parse().ok()?, rest))
}

/// Numbered reports: the last run `1) … 2) … n)` whose headers each have a body.
pub(crate) fn numbered(lines: &[String], covered: &[bool]) -> Vec<Span> {
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
        // (A run counts up from 1, or from 0: `0) converts a hot day`.)
        if headers[k].1 > 1 {
            k += 1;
            continue;
        }
        let mut run = vec![k];
        let mut j = k + 1;
        while j < headers.len() {
            // A deeper header inside the run is its report's own list (`  1) suite: name`
            // over `    1) AssertionError: …`), no header of the run.
            if headers[j].2 > headers[k].2 {
                j += 1;
                continue;
            }
            if headers[j].1 != headers[*run.last().unwrap_or(&k)].1 + 1
                || headers[j].2 != headers[k].2
            {
                break;
            }
            run.push(j);
            j += 1;
        }
        runs.push(run);
        k = j.max(k + 1);
    }
    // A header that holds its whole report on its line (`1) TestRate: a.c:6: expected <7> but
    // was <6>`, CuTest's) has a body of its own.
    // So does one that gives a one-word name and what went wrong (`1) TEST-TOTAL: Assert
    // equal: 7 6`, xlunit's).
    let listed = listed_then_reported(&runs, &headers);
    let told = |k: usize| {
        placed_report(&headers[k].3).is_some()
            || named_before_why(&headers[k].3).is_some()
            || listed.names.contains_key(&k)
    };
    // (A number in brackets is as often an index, R's `[1] 0.5` for a vector, a Lua table's `[1]
    // = 'one'`, and one with a dot a step of a list: those count as reports only in a run of
    // two or more, each with a body.)
    let bracketed = |run: &Vec<usize>| {
        let t = lines[headers[run[0]].0].trim_start();
        t.starts_with('[')
            || t.trim_start_matches(|c: char| c.is_ascii_digit())
                .starts_with('.')
    };
    let reported: Vec<Vec<usize>> = runs
        .into_iter()
        .enumerate()
        .filter(|(r, _)| !listed.listings.contains(r))
        .map(|(_, run)| run)
        .filter(|run| run.iter().filter(|&&h| body(h) > 0 || told(h)).count() * 2 >= run.len())
        .filter(|run| {
            !bracketed(run)
                || run.len() >= 2
                    && run
                        .iter()
                        .all(|&h| body(h) > 0 && !headers[h].3.starts_with(['=', ':']))
        })
        .collect();
    // The same names numbered twice are a listing, then the reports: a runner lists what
    // failed as it goes (`  1. names are capitalised`) and reports each at the end (` 1.
    // AssertionError  names are capitalised`, newman's). The last run of those names stands.
    let names_of = |run: &Vec<usize>| -> Vec<Option<String>> {
        run.iter()
            .map(|&h| numbered_name(&[], &headers[h].3, headers[h].2))
            .collect()
    };
    let named: Vec<Vec<Option<String>>> = reported.iter().map(names_of).collect();
    // (The last run of each list of names, found in one pass: linear in the runs.)
    let last: HashMap<&Vec<Option<String>>, usize> =
        named.iter().enumerate().map(|(r, n)| (n, r)).collect();
    let reported: Vec<Vec<usize>> = reported
        .iter()
        .enumerate()
        .filter(|(r, _)| named[*r].iter().all(Option::is_none) || last[&named[*r]] == *r)
        .map(|(_, run)| run.clone())
        .collect();
    let best: Vec<&(usize, u32, usize, String)> =
        reported.iter().flatten().map(|&h| &headers[h]).collect();
    let headers_at: HashMap<usize, usize> =
        headers.iter().enumerate().map(|(k, h)| (h.0, k)).collect();
    let mut spans = Vec::new();
    for (n, h) in best.iter().enumerate() {
        let (at, depth, text) = (h.0, h.2, &h.3);
        let limit = best.get(n + 1).map_or(lines.len(), |h| h.0);
        let mut end = at + 1;
        // A report held on its header's line ends there.
        let whole_line = placed_report(text).is_some();
        while !whole_line && end < limit && end - at < MAX_BLOCK && !covered[end] {
            let l = &lines[end];
            if summary(l) && indent(l) <= depth + 2 {
                break;
            }
            end += 1;
        }
        while end > at + 1 && !content(&lines[end - 1]) {
            end -= 1;
        }
        // (A header that opens with a place, `[2] openapi.yaml:7:5 at #/paths/~1a/get`, is a
        // finding named by it, as every diagnostic is.)
        let placed =
            || crate::diagnostics::location(text).map(|(path, line, _)| format!("{path}:{line}"));
        let name = listed
            .names
            .get(&headers_at[&at])
            .cloned()
            .or_else(|| placed_report(text).map(str::to_owned))
            .or_else(placed)
            .or_else(|| named_before_why(text).map(str::to_owned))
            .or_else(|| numbered_name(&lines[at + 1..end], text, depth));
        spans.push(Span {
            start: at,
            end,
            name,
            whole: false,
        });
    }
    spans
}

/// Runs of numbered headers that list failures as a run goes (`0) converts a hot day` in a
/// spec tree), each paired with a later run whose headers give the same texts, in order, and
/// what went wrong after a colon (`0) converts a hot day: Expected 86.0 to equal 85.0`).
struct Listed {
    /// The listing runs, by index.
    listings: std::collections::HashSet<usize>,
    /// A reporting header (by index) → its test's name, the listing's text.
    names: HashMap<usize, String>,
}

/// Finds [`Listed`] pairs in one pass: the runs are looked up by their first header's text.
fn listed_then_reported(runs: &[Vec<usize>], headers: &[(usize, u32, usize, String)]) -> Listed {
    let mut by_first: HashMap<&str, usize> = HashMap::new();
    let mut listed = Listed {
        listings: std::collections::HashSet::new(),
        names: HashMap::new(),
    };
    for (r, run) in runs.iter().enumerate() {
        let text = |h: usize| headers[h].3.as_str();
        let first = text(run[0]);
        let earlier = first
            .match_indices(": ")
            .find_map(|(at, _)| by_first.get(&first[..at]).copied());
        if let Some(e) = earlier
            && runs[e].len() == run.len()
            && runs[e].iter().zip(run).all(|(&a, &b)| {
                text(b)
                    .strip_prefix(text(a))
                    .is_some_and(|rest| rest.starts_with(": ") && rest.len() > 2)
            })
        {
            listed.listings.insert(e);
            for (&a, &b) in runs[e].iter().zip(run) {
                listed.names.insert(b, headers[a].3.clone());
            }
        }
        by_first.entry(first).or_insert(r);
    }
    listed
}

/// A test's name, then its place and message on one line (`TestRate: a.c:6: expected <7>`):
/// the name.
fn placed_report(text: &str) -> Option<&str> {
    let (name, rest) = text.split_once(": ")?;
    let (_, _, used) = crate::diagnostics::location(rest)?;
    (!name.contains(char::is_whitespace)
        && name_like(name)
        && !rest[used..].trim_start_matches(':').trim().is_empty())
    .then_some(name)
}

/// A numbered header that gives a one-word name, a colon and what went wrong on its line
/// (`1) TEST-TOTAL: Assert equal: 7 6`, xlunit's): the name. Not a verdict (`1) Failure:`),
/// nor a place.
fn named_before_why(text: &str) -> Option<&str> {
    let (name, why) = text.split_once(": ")?;
    let verdict = matches!(
        name.to_ascii_lowercase().as_str(),
        "failure" | "error" | "failed" | "fail" | "warning"
    );
    (!name.contains(char::is_whitespace)
        && !verdict
        && name_like(name)
        && crate::diagnostics::location(text).is_none()
        && !why.trim().is_empty())
    .then_some(name)
}

/// A numbered header's test name: its text, with the more-indented title lines that end with
/// `:` (mocha's nesting), or the next line when the header is only a verdict (`1) Failure:`).
pub(crate) fn numbered_name(body: &[String], text: &str, depth: usize) -> Option<String> {
    // A row of a table whose first column is the failure's kind (`AssertionError  has three
    // notes`, newman's): the name is the next column.
    if let Some((kind, rest)) = text.trim().split_once("  ")
        && !kind.contains(' ')
        && ["Error", "Exception", "Failure"]
            .iter()
            .any(|k| kind.ends_with(k))
        && name_like(rest.trim())
    {
        return Some(rest.trim().to_owned());
    }
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

/// Whether a line is an assertion's verdict: a capitalised verdict word and a colon at its
/// start (`ASSERT:expected:<1> but was:<2>`, `FAIL: message`).
fn asserted(line: &str) -> bool {
    let t = line.trim_start();
    t.split_once(':').is_some_and(|(word, _)| {
        ["ASSERT", "ASSERTION", "FAIL", "FAILED", "FAILURE", "ERROR"].contains(&word)
    })
}

/// `Keyword: name  # location` (Gherkin's `Scenario:`, `Example:`): the name.
pub(crate) fn keyword_header(line: &str) -> Option<String> {
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
        .any(|w| keyword.ends_with(w))
        && !crate::line::failed_verdict(keyword)
        && !matches!(keyword, "Passed" | "Ok" | "Skipped" | "Broken");
    if !keyword_like {
        return None;
    }
    let name = rest.split("  #").next().unwrap_or(rest).trim();
    name_like(name).then(|| name.to_owned())
}

/// A test's name announced as it runs, in either case (`Running name`, `  running name`).
fn announced_over(line: &str) -> Option<String> {
    let t = line.trim();
    let (verb, rest) = t.split_once(' ')?;
    let capital = verb
        .chars()
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + &verb[c.len_utf8()..])?;
    crate::line::announced(&format!("{capital} {rest}")).map(str::to_owned)
}

/// Indentation reports: a message line inside a block headed by `Keyword: name` (a Gherkin
/// scenario under its steps) or by a test announced as it ran belongs to the nearest such
/// header above it, and the report is that header's block.
pub(crate) fn indented(lines: &[String], covered: &[bool]) -> Vec<Span> {
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
            // (Or a test announced as it ran, its output indented under it: deal's `  running
            // parse_point` over the case, its traceback and its error.)
            if let Some(name) = keyword_header(above).or_else(|| announced_over(above)) {
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
            whole: false,
        });
    }
    spans
}

/// Framed reports: a title between two separator lines (`-----` / `name` / `-----`, Catch2's
/// test cases, nested sections on further title lines), its body up to the next frame, when
/// the body says something failed.
pub(crate) fn framed(lines: &[String], covered: &[bool]) -> Vec<Span> {
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
        // A short report between two rules (its frame, its message) is no title.
        let reported = j > i + 2
            && lines[i + 1..j]
                .iter()
                .any(|l| message_like(l) || crate::line::stack_frame(l));
        if reported || titles.iter().any(|t| t.is_empty()) || covered[i + 1..j].iter().any(|c| *c) {
            i += 1;
            continue;
        }
        // A title that says an id failed (`meter_SUITE:coins failed on line 9`) names that id.
        let said = titles[0].split_once(' ').and_then(|(id, rest)| {
            let verdict = rest.split_whitespace().next().unwrap_or("");
            (failed_verdict(verdict) && !id.contains(['(', '"', '\'']) && name_like(id))
                .then(|| id.trim_end_matches(':').to_owned())
        });
        let name = said.unwrap_or_else(|| titles.join(" / "));
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
                whole: false,
            });
        }
    }
    spans
}

/// The sections between consecutive occurrences of the rule a log repeats most (two or more
/// sections, each with content), named by what their first line says it is in (`File "a.py",
/// line 28, in mod.func` names `mod.func`), else by that line.
fn ruled_sections(lines: &[String], covered: &[bool]) -> Option<Sections> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (i, l) in lines.iter().enumerate() {
        if !covered[i] && separator(l) {
            *counts.entry(l.trim()).or_default() += 1;
        }
    }
    let (rule, n) = counts.into_iter().max_by_key(|&(r, n)| (n, r))?;
    if n < 3 {
        return None;
    }
    let at: Vec<usize> = (0..lines.len())
        .filter(|&i| !covered[i] && lines[i].trim() == rule)
        .collect();
    let mut spans = Vec::new();
    let mut verdicts = true;
    for pair in at.windows(2) {
        let (start, end) = (pair[0] + 1, pair[1]);
        if end <= start || (start..end).any(|k| covered[k]) || end - start > MAX_BLOCK {
            return None;
        }
        if !lines[start..end].iter().any(|l| content(l)) {
            continue;
        }
        // A section its verdict closes as passed (`OK passes: 1, fails: 0`), or that only
        // sums the run up, reports no failure.
        let last = lines[start..end]
            .iter()
            .rfind(|l| content(l))
            .map_or("", |l| l.trim());
        let summed = lines[start..end]
            .iter()
            .filter(|l| content(l))
            .all(|l| crate::stated::states_counts(l));
        if summed {
            continue;
        }
        verdicts &= closing_verdict(last);
        if crate::line::passing_verdict(last) {
            continue;
        }
        let first = lines[start].trim();
        let name = first
            .rsplit_once(", in ")
            .map(|(_, n)| n.trim())
            .filter(|n| !n.contains(' ') && name_like(n))
            .unwrap_or(first);
        spans.push(Span {
            start,
            end,
            name: name_like(name).then(|| name.to_owned()),
            whole: false,
        });
    }
    (spans.len() >= 2).then_some(Sections { spans, verdicts })
}

/// Sections between one repeated rule, the ones that report failures.
struct Sections {
    spans: Vec<Span>,
    /// Every section closes with its test's verdict and counts (`OK passes: 1, fails: 0`,
    /// `FAILURE passes: 0, fails: 1`): the sections are the tests, whatever else repeats.
    verdicts: bool,
}

/// Whether a line is a test's verdict with its counts (`FAILURE passes: 0, fails: 1, errors:
/// 0`, `OK passes: 1, fails: 0, errors: 0`).
fn closing_verdict(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or("");
    let word = first.trim_end_matches(':').to_ascii_lowercase();
    let verdict = crate::line::passing_verdict(line)
        || matches!(
            crate::stated::outcome(&word),
            Some(crate::stated::Outcome::Failed | crate::stated::Outcome::Error)
        );
    // (Counts of which none failed are no summary: `OK passes: 1, fails: 0, errors: 0` is
    // read word by word.)
    let counted = line.split_whitespace().skip(1).any(|w| {
        crate::stated::outcome(&w.trim_end_matches([':', ',']).to_ascii_lowercase()).is_some()
    }) && line.chars().any(|c| c.is_ascii_digit());
    verdict && counted
}

/// What the segmenter found: the reports, and the lines that only list failures it reported
/// (a tree, a summary), which no other block may claim.
#[derive(Debug, Default)]
pub(crate) struct Segments {
    pub(crate) reports: Vec<Found>,
    pub(crate) listings: Vec<usize>,
}

/// The failure reports in `lines`, not touching lines already `covered` by a runner parser.
///
/// Candidate readings (status lines that name failures, numbered headers, and the template
/// that [`discover`] finds) are judged by the failure count the log states: a reading that
/// agrees with it wins; without one, named and numbered reports as they are.
pub(crate) fn segment(
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
    let (mut spans, other) = if agree(&numbered_spans) && !agree(&named_spans) {
        (numbered_spans, named_spans)
    } else if agree(&named_spans) && !agree(&numbered_spans) {
        (named_spans, numbered_spans)
    } else if !numbered_spans.is_empty() && numbered_spans.len() >= named_spans.len() {
        (numbered_spans, named_spans)
    } else {
        (named_spans, numbered_spans)
    };
    // Several suites in one log (a `make -k` over runners of their own): the other reading's
    // reports that lie wholly apart from the chosen reading's are failures too.
    let far = |o: &Span| {
        !spans
            .iter()
            .any(|s| o.start < s.end + 2 && s.start < o.end + 2)
    };
    let apart: Vec<Span> = other.into_iter().filter(|o| far(o)).collect();
    if !spans.is_empty() && apart.len() >= 2 {
        spans.extend(apart);
        spans.sort_by_key(|s| s.start);
    }
    let mut reading = with_more(lines, covered, spans);
    pace.now()?;
    // A reading that disagrees with the stated count gives way to the template that agrees,
    // when it reads more failures or the reading left some unnamed; with no reading at all, a
    // template whose headers say failure is taken too.
    let weak = |r: &[Span]| r.is_empty() || r.iter().any(|s| s.name.is_none());
    if (reading.is_empty() || (!stated.is_empty() && !stated.agrees(reading.len())))
        && let Some(mut found) = templates::discover(lines, covered, stated, pace)?
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
    reading = other_readings(lines, covered, stated, reading);
    reading = by_sections(lines, covered, stated, reading);
    reading = before::detail_before_verdicts(lines, covered, reading);
    reading = inner_errors_joined(lines, reading);
    let mut spans = reading;
    name_by_status_above(lines, &mut spans);
    name_announced(lines, &mut spans);
    verdicts_under_announcements(lines, &mut spans);
    name_by_section_title(lines, &mut spans);
    name_by_verdict_under(lines, &mut spans);
    name_by_closing_verdict(lines, &mut spans);
    name_by_test_frame(lines, &mut spans);
    let mut listings = mentions;
    listings.extend(recaps(lines, covered, &spans, &listings));
    let reports = spans
        .into_iter()
        .filter(|s| s.end > s.start)
        .map(|s| report_of(lines, s))
        .collect();
    Ok(Segments { reports, listings })
}

/// A span read as a report: its lines, its name and its message, found where the runner puts
/// them (after the name on its header, under it, in a labelled field, without comment marks or
/// a gutter).
fn report_of(lines: &[String], s: Span) -> Found {
    let block: Vec<String> = lines[s.start..s.end].to_vec();
    // A report written as comments (Test::More's `#   Failed test`) is read without
    // its comment marks.
    // So is one whose body a gutter marks (`    | ReferenceError: …`), without it.
    let guttered = block.len() > 1
        && block[1..]
            .iter()
            .filter(|l| content(l))
            .all(|l| gutter_line(l));
    let read: Vec<String> = if block[0].trim_start().starts_with('#') {
        block
            .iter()
            .map(|l| l.trim_start().trim_start_matches('#').to_owned())
            .collect()
    } else if guttered {
        block
            .iter()
            .map(|l| {
                let t = l.trim_start();
                t.strip_prefix("| ")
                    .or_else(|| t.strip_prefix("│ "))
                    .map_or_else(|| l.clone(), str::to_owned)
            })
            .collect()
    } else {
        block.clone()
    };
    // A header whose name is on the line under it (`Failure -> a.lua @ 2`, then `calc
    // adds`): the message starts after the name.
    let body = match (&s.name, read.get(1)) {
        _ if s.whole => &read[..],
        (Some(name), Some(next))
            if next.trim() == name || labelled_test(next).as_ref() == Some(name) =>
        {
            &read[2..]
        }
        _ => &read[1..],
    };
    // A test counted as it starts says what went wrong after its dots, when it does
    // (`2/8 ring.test.big ring...expected 4097, found 4099`).
    let told = crate::line::counted_start(&read[0])
        .map(|(_, tail)| tail)
        .filter(|tail| !tail.is_empty())
        .map(str::to_owned);
    // A verdict that opens the body after a counted start says what went wrong after its
    // word (` FAIL  test failed: arrays differ` under `- [0/2] test words split`).
    let told = told.or_else(|| {
        crate::line::counted_start(&read[0])?;
        let first = body.iter().find(|l| !l.trim().is_empty())?.trim();
        let (word, rest) = first.split_once(char::is_whitespace)?;
        (crate::line::failed_verdict(word) && word.chars().all(|c| c.is_ascii_uppercase()))
            .then(|| rest.trim().to_owned())
            .filter(|r| !r.is_empty())
    });
    // A record of labelled fields says what went wrong in its message's field.
    let told = told.or_else(|| {
        s.whole
            .then(|| {
                read.iter().find_map(|l| {
                    let (label, value) = field(l)?;
                    tells_what_went_wrong(label).then(|| value.to_owned())
                })
            })
            .flatten()
    });
    // A report its test's verdict closes (`[name] -> Failed` under the assertion's row): the
    // assertion's row, its verdict off, starts the message, and the verdict is no part of it.
    let closed_by = s.name.as_deref().filter(|n| {
        !read[0].contains(n)
            && read.len() > 1
            && closing_verdict_name(&read[read.len() - 1]).is_some_and(|(c, _)| c == *n)
    });
    let (body, assertion) = match closed_by {
        Some(_) => {
            let row = read[0].trim();
            let row = row
                .rsplit_once(char::is_whitespace)
                .filter(|(_, v)| failed_verdict(v))
                .map_or(row, |(r, _)| {
                    r.trim_end().trim_end_matches(['-', ':']).trim_end()
                });
            (&body[..body.len() - 1], Some(row.to_owned()))
        }
        None => (body, None),
    };
    // A body that is a record of labelled fields says what went wrong in one of them.
    let told = told.or_else(|| labelled_field_message(body));
    // What the header says after the report's name (`Units::inches() Compared doubles
    // are not the same`, `FAIL: name: stdout diff:`) starts the message.
    let (name, said) = said_after_name(&read[0], s.name);
    let said = said.or(assertion);
    // A name that opens brackets it does not close goes on at the lines under it (a
    // form the runner's printer wrapped: `Test failed: (LENGTH` over `  (REMOVE-…`).
    let (name, body) = match name.as_deref().and_then(|n| wrapped_name(n, body)) {
        Some((joined, used)) => (Some(joined), &body[used..]),
        None => (name, body),
    };
    // (The test's verdict row under it, `X testLeap` after `…: testLeap: why`, says
    // nothing more.)
    let verdict_row = |under: &str| {
        let first = under.lines().next().unwrap_or("").trim();
        // (Nor does another test's passing verdict under it, `PASS: src/swap.c (123 bytes)`.)
        let passed = first
            .split_once(": ")
            .is_some_and(|(verdict, _)| matches!(verdict, "PASS" | "OK" | "PASSED" | "ok"))
            // (Or another test's row with its bracketed pass, `02) A.b.....[PASS] (1 ms)`.)
            || crate::line::leader_row(first)
                .is_some_and(|(_, verdict, _)| crate::line::passing_verdict(verdict));
        let leaf = name
            .as_deref()
            .and_then(|n| n.rsplit(": ").next())
            .map(leaf_of);
        passed || leaf.is_some_and(|leaf| first.ends_with(leaf) && first.len() <= leaf.len() + 4)
    };
    let told = told.or_else(|| {
        let said = said?;
        Some(match message_of(body).filter(|u| !verdict_row(u)) {
            Some(under) => format!("{said}\n{under}"),
            None => said,
        })
    });
    let message = told
        .or_else(|| message_of(body))
        .or_else(|| message_of(&read));
    let message = message.map(|m| tap_comments_under(&read, m));
    Found {
        start: s.start,
        lines: block,
        name,
        message,
        anchor: "report",
        ..Found::default()
    }
}

/// A message that is a nested TAP point's `not ok` line, when comments follow that point in
/// the report (`#   Failed test 'interest'`, `#   at a.pl line 22.`, `#   got: '2'`): the line
/// and those comments, which say what failed; the message as it was otherwise.
fn tap_comments_under(read: &[String], message: String) -> String {
    let first = message.lines().next().unwrap_or("").trim();
    if crate::document::tap::tap_point(first).is_none_or(|(ok, _)| ok) {
        return message;
    }
    let Some(at) = read.iter().position(|l| l.trim() == first) else {
        return message;
    };
    let notes: Vec<String> = read[at + 1..]
        .iter()
        .map(|l| l.trim())
        .take_while(|t| t.starts_with('#') && !t.starts_with("# Looks like"))
        .map(|t| t.trim_start_matches('#').trim().to_owned())
        .filter(|t| !t.is_empty())
        .collect();
    if notes.is_empty() {
        return message;
    }
    // (The point's own line first: what the check was called, `not ok - item count`.)
    let mut said = vec![first.to_owned()];
    said.extend(notes);
    crate::line::bounded(&said)
}

/// The lines of sections that only repeat reports already read: a section under a framed
/// heading (stestr's `Failed 4 tests - output below:` between rules) that mentions failing
/// names, where no report starts, running to the next framed heading. Linear in the lines.
fn recaps(lines: &[String], covered: &[bool], spans: &[Span], mentions: &[usize]) -> Vec<usize> {
    let headings: Vec<usize> = (0..lines.len())
        .filter(|&i| !covered[i] && framed_heading(lines, i))
        .collect();
    if headings.is_empty() || spans.is_empty() {
        return Vec::new();
    }
    let mut mentioned = vec![false; lines.len()];
    for &m in mentions {
        mentioned[m] = true;
    }
    // (A report's name as shown: a status line's may carry a worker's index and a time that
    // the recap leaves off.)
    let shown: Vec<&str> = spans
        .iter()
        .filter_map(|s| s.name.as_deref())
        .map(crate::line::shown_name)
        .filter(|n| n.len() >= 4)
        .collect();
    if let Ok(finder) = AhoCorasick::new(&shown) {
        for (i, l) in lines.iter().enumerate() {
            mentioned[i] |= finder.is_match(l);
        }
    }
    let mut starts = vec![false; lines.len()];
    for s in spans {
        starts[s.start] = true;
    }
    let mut out = Vec::new();
    for (k, &h) in headings.iter().enumerate() {
        let end = headings.get(k + 1).copied().unwrap_or(lines.len());
        let section = h..end;
        if spans.iter().any(|s| s.start < h)
            && section.clone().any(|i| mentioned[i])
            && !section.clone().any(|i| starts[i] || covered[i])
        {
            out.extend(section);
        }
    }
    out
}

/// A report that names nothing, headed by a line every report shares (`Traceback (most recent
/// call last):`), is named by a status line a few lines above its header (`✗ counts items`,
/// then the message, then the traceback): the report starts there, and the one before ends.
fn name_by_status_above(lines: &[String], spans: &mut [Span]) {
    for k in 0..spans.len() {
        if spans[k].name.is_some() {
            continue;
        }
        let floor = if k == 0 { 0 } else { spans[k - 1].start + 1 };
        let at = spans[k].start;
        let found = (floor.max(at.saturating_sub(4))..at)
            .rev()
            .find_map(|i| status_name(&lines[i]).map(|n| (i, n)));
        if let Some((i, name)) = found {
            spans[k].start = i;
            spans[k].name = Some(name);
            if k > 0 && spans[k - 1].end > i {
                spans[k - 1].end = i;
            }
        }
    }
}

/// A report that names nothing is named by the test announced nearest above it, after the
/// report before it (`Testing beehive:prop_sort/0`, its dots, then `Failed: After 24 test(s).`).
fn name_announced(lines: &[String], spans: &mut [Span]) {
    let mut after = 0;
    for s in spans.iter_mut() {
        let from = after.max(s.start.saturating_sub(MAX_BLOCK));
        if s.name.is_none() {
            s.name = (from..s.start)
                .rev()
                .find_map(|i| crate::line::announced(&lines[i]))
                .map(str::to_owned);
        }
        after = s.end;
    }
}

/// A word and a quoted name, as a runner announces the test it starts (`FIRE 'converts
/// body temperature'!`): the name.
fn quoted_announcement(line: &str) -> Option<&str> {
    let (word, rest) = line.trim().split_once(' ')?;
    if !word.chars().all(char::is_alphabetic) {
        return None;
    }
    let quote = rest.chars().next().filter(|c| ['\'', '"'].contains(c))?;
    let (name, after) = rest[1..].split_once(quote)?;
    (!name.trim().is_empty() && after.chars().all(|c| c.is_ascii_punctuation())).then_some(name)
}

/// A verdict whose only name is a place (`FAIL @ temps_test.rb:11`) right under the line
/// that announced its test (`FIRE 'converts body temperature'!`): the report is the
/// announcement and the verdict, named by the announced name (what follows the verdict is the
/// next test's).
fn verdicts_under_announcements(lines: &[String], spans: &mut [Span]) {
    for k in 0..spans.len() {
        let s = &mut spans[k];
        let place_only = s.name.as_deref().is_some_and(|n| {
            crate::line::bare_location(n.trim_start_matches("@ ").trim_start_matches("at "))
        });
        if !place_only || s.start == 0 {
            continue;
        }
        let above = &lines[s.start - 1];
        if indent(above) != indent(&lines[s.start]) {
            continue;
        }
        if let Some(name) = quoted_announcement(above) {
            s.name = Some(name.to_owned());
            s.end = s.start + 1;
            s.start -= 1;
            // (The announcement is this report's, not the end of the one before.)
            let start = s.start;
            if let Some(before) = k.checked_sub(1).map(|j| &mut spans[j]) {
                before.end = before.end.min(start).max(before.start + 1);
            }
        }
    }
}

/// The reading a log's sections give, when they agree with the stated count and the reading
/// does not: sections between one repeated rule, or between an opening and a closing tag.
fn by_sections(
    lines: &[String],
    covered: &[bool],
    stated: &Stated,
    mut reading: Vec<Span>,
) -> Vec<Span> {
    // A log cut into sections by one repeated rule (doctest's `*****` between its failures),
    // each section a report, when their number is the count the log states and the reading's
    // is not.
    // The reading's reports after those sections stay when, with the sections, they agree with
    // the count, else the sections alone; a reading with reports before them (a suite of its
    // own earlier in the log) is kept.
    // Sections that each close with their test's verdict are the tests, over a reading that
    // agrees with the count only by chance (titles that share words, `sum of two` and `sum of
    // nothing`).
    let ruled = ruled_sections(lines, covered);
    let by_verdicts = ruled
        .as_ref()
        .is_some_and(|r| r.verdicts && stated.agrees(r.spans.len()));
    if by_verdicts && let Some(r) = &ruled {
        reading = r.spans.clone();
    } else if !stated.agrees(reading.len())
        && let Some(Sections {
            spans: sections, ..
        }) = ruled
        && reading.iter().all(|r| r.start + 1 >= sections[0].start)
    {
        let (from, to) = (sections[0].start, sections[sections.len() - 1].end);
        let mut with: Vec<Span> = reading
            .iter()
            .filter(|r| r.end <= from || r.start >= to)
            .cloned()
            .collect();
        with.extend(sections.iter().cloned());
        with.sort_by_key(|s| s.start);
        if stated.agrees(with.len()) {
            reading = with;
        } else if stated.agrees(sections.len()) {
            reading = sections;
        }
    }
    // Sections a tag opens and its closing tag ends (`====== <exec> ======` … `====== </exec>
    // ======`, xdoctest's), each a report, when their number is the count the log states and
    // the reading's is not or the reading names none.
    if (!stated.agrees(reading.len()) || reading.iter().all(|r| r.name.is_none()))
        && let Some(sections) = tagged_sections(lines, covered)
        && stated.agrees(sections.len())
    {
        reading = sections;
    }
    reading
}

/// Sections between an opening tag on a line of its own (`====== <exec> ======`) and its
/// closing tag (`====== </exec> ======`): two or more, each named by the id its failure line
/// gives (`* FAILURE: a.py::f:0`), else by a status line in it.
fn tagged_sections(lines: &[String], covered: &[bool]) -> Option<Vec<Span>> {
    fn tag(line: &str) -> Option<(bool, &str)> {
        let t = line.trim().trim_matches(|c: char| rule_char(c) || c == ' ');
        let inner = t.strip_prefix('<')?.strip_suffix('>')?;
        let (closing, name) = match inner.strip_prefix('/') {
            Some(n) => (true, n),
            None => (false, inner),
        };
        (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
            .then_some((closing, name))
    }
    let mut spans = Vec::new();
    let mut open: Option<(usize, &str)> = None;
    for (i, l) in lines.iter().enumerate() {
        if covered[i] {
            open = None;
            continue;
        }
        match (tag(l), open) {
            (Some((false, name)), _) => open = Some((i, name)),
            (Some((true, name)), Some((at, opened))) if name == opened => {
                let body = &lines[at + 1..i];
                let name = body.iter().find_map(|b| {
                    let t = b.trim().trim_start_matches(['*', ' ']);
                    t.strip_prefix("FAILURE: ")
                        .or_else(|| t.strip_prefix("FAILED: "))
                        .map(|n| n.trim().to_owned())
                        .filter(|n| !n.contains(' ') && name_like(n))
                        .or_else(|| status_name(b))
                });
                let failed = body.iter().any(|b| message_like(b) || b.contains("FAIL"));
                if failed {
                    spans.push(Span {
                        start: at,
                        end: i + 1,
                        name,
                        whole: false,
                    });
                }
                open = None;
            }
            _ => {}
        }
    }
    (spans.len() >= 2).then_some(spans)
}

/// A report that names nothing inside a section a rule opens (`=====` over `Fines caps the
/// fine at five`, a traceback, then `FAILED: Expected …`, buttercup's) is named by the
/// section's first line, and starts there.
fn name_by_section_title(lines: &[String], spans: &mut [Span]) {
    let mut after = 0;
    for k in 0..spans.len() {
        let s = &spans[k];
        let from = after.max(s.start.saturating_sub(MAX_BLOCK));
        let start = s.start;
        after = s.start + 1;
        if s.name.is_some() {
            continue;
        }
        let Some(rule) = (from..start).rev().find(|&i| separator(&lines[i])) else {
            continue;
        };
        let Some(t) = (rule + 1..start).find(|&i| !lines[i].trim().is_empty()) else {
            continue;
        };
        let title = lines[t].trim();
        if message_like(&lines[t]) || summary(&lines[t]) || !name_like(title) {
            continue;
        }
        spans[k].name = Some(title.to_owned());
        spans[k].start = t;
        if k > 0 && spans[k - 1].end > rule {
            spans[k - 1].end = rule;
        }
    }
}

/// How a report headed at `at` ends by indentation, whatever mentions follow.
struct Nested {
    /// A report headed `Keyword: name` ends where a sibling header starts (its indentation).
    sibling: Option<usize>,
    /// A report headed by a list's item (`- name` over its verdict) ends at the next item.
    item: bool,
    /// A verdict indented under its group's line (`When a bill has a cap` over `  FAIL: it
    /// should …`, contexts') reports what is indented under it: a line back at its indentation
    /// or less that says nothing wrong (a sibling verdict, the next group's line) ends it.
    grouped: bool,
    /// A report whose body is marked by a gutter (`    | ReferenceError: …`, zoroaster's)
    /// ends at the first line that says something without it; blank lines inside it do not.
    gutter: bool,
}

/// A line of a report's gutter: a bar first, then the text.
fn gutter_line(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("| ") || t == "|" || t.starts_with("│ ")
}

impl Nested {
    fn of(lines: &[String], at: usize) -> Self {
        Nested {
            sibling: keyword_header(&lines[at])
                .is_some()
                .then(|| indent(&lines[at])),
            grouped: group_above(lines, at).is_some(),
            gutter: lines.get(at + 1).is_some_and(|l| gutter_line(l)),
            item: listed_item(&lines[at]).is_some(),
        }
    }

    fn ends_at(&self, lines: &[String], at: usize, end: usize) -> bool {
        let l = &lines[end];
        (self.gutter && content(l) && !gutter_line(l))
            || self
                .sibling
                .is_some_and(|d| indent(l) <= d && keyword_header(l).is_some())
            || (self.item && indent(l) == indent(&lines[at]) && listed_item(l).is_some())
            || (self.grouped
                && content(l)
                && indent(l) <= indent(&lines[at])
                && !message_like(l)
                && !stack_frame(l))
    }
}

/// A name whose brackets are left open, joined with the more-indented lines under it that
/// close them (at most eight): the whole name and how many lines it took.
fn wrapped_name(name: &str, body: &[String]) -> Option<(String, usize)> {
    let open = |t: &str| {
        t.chars().filter(|&c| c == '(').count() as i64
            - t.chars().filter(|&c| c == ')').count() as i64
    };
    let mut depth = open(name);
    if depth <= 0 {
        return None;
    }
    let mut joined = name.to_owned();
    for (k, l) in body.iter().enumerate().take(8) {
        if !l.starts_with(char::is_whitespace) || l.trim().is_empty() {
            return None;
        }
        joined.push(' ');
        joined.push_str(l.trim());
        depth += open(l);
        if depth <= 0 {
            return Some((joined, k + 1));
        }
    }
    None
}

/// `end` with a report's tail taken off: trailing blank and separator lines are not part of
/// it, nor a banner right over the next report (` * * * UNEXPECTED TEST FAILURE * * *` over
/// `Test failed: …`, ptester's): it heads that one.
fn without_tail(lines: &[String], mentioned: &[Option<usize>], at: usize, mut end: usize) -> usize {
    while end > at + 1
        && (!content(&lines[end - 1])
            || (framed_banner(&lines[end - 1]) && mentioned.get(end).is_some_and(Option::is_some)))
    {
        end -= 1;
    }
    end
}

/// A banner: words framed by the same decoration on both sides (`* * * UNEXPECTED TEST FAILURE
/// * * *`, `=== name ===`, `### Step ###`).
fn framed_banner(line: &str) -> bool {
    let t = line.trim();
    let (Some(first), Some(last)) = (t.chars().next(), t.chars().last()) else {
        return false;
    };
    first == last
        && !first.is_alphanumeric()
        && !"()[]{}<>\"'`".contains(first)
        && t.chars().any(char::is_alphanumeric)
        && t.chars().take_while(|&c| c == first || c == ' ').count() >= 2
}

/// The indentation of the group's line an indented verdict at `at` stands under: the nearest
/// line above it indented less, when that is a group's title (`group_title`).
fn group_above(lines: &[String], at: usize) -> Option<usize> {
    let depth = indent(&lines[at]);
    if depth == 0 || status_name(&lines[at]).is_none() {
        return None;
    }
    let h = (at.saturating_sub(MAX_BLOCK)..at)
        .rev()
        .find(|&h| content(&lines[h]) && indent(&lines[h]) < depth)?;
    group_title(&lines[h]).map(|_| indent(&lines[h]))
}

/// A group's line in a tree of verdicts: a title of words (`When a bill has a cap`), not a
/// verdict, a file, a message or a rule.
pub(crate) fn group_title(line: &str) -> Option<&str> {
    let t = line.trim();
    (t.contains(' ')
        && t.starts_with(|c: char| c.is_alphanumeric())
        && !t.ends_with('.')
        && !t.contains(':')
        && !t
            .split_whitespace()
            .any(|w| crate::diagnostics::path_like(w) || w.contains('/'))
        && name_like(t)
        && status_name(line).is_none()
        && !message_like(line)
        && !summary(line)
        && !separator(line))
    .then_some(t)
}

/// A report headed by an exception and no test's name (`core.exception.AssertError@a.d(12):
/// …` over a rule and frames, D's runtime) is named by the first frame under it that runs a
/// test (`source/a.d:12 void geo.angle.__unittest_L7_C1() [0x…]`, a function whose last part
/// starts `test`, `Test` or `__unittest`).
fn name_by_test_frame(lines: &[String], spans: &mut [Span]) {
    let exception_head = |n: &str| {
        let head = n.split(": ").next().unwrap_or(n);
        let kind = head.split('@').next().unwrap_or(head);
        !kind.contains(' ') && crate::line::error_kind(kind)
    };
    let test_function = |l: &str| -> Option<String> {
        l.split_whitespace().find_map(|w| {
            let f = w.split('(').next().unwrap_or(w);
            let last = f.rsplit(['.', ':']).next().unwrap_or(f);
            (last.starts_with("test") || last.starts_with("Test") || last.starts_with("__unittest"))
                .then(|| f.to_owned())
        })
    };
    for s in spans.iter_mut() {
        if !s.name.as_deref().is_some_and(exception_head) {
            continue;
        }
        if let Some(f) = lines[s.start + 1..s.end]
            .iter()
            .filter(|l| crate::line::stack_frame(l))
            .find_map(|l| test_function(l))
        {
            s.name = Some(f);
        }
    }
}

/// Reports in a tree of groups and verdicts (contexts': `When a bill has a cap` over `  FAIL:
/// it should not exceed the cap` and its traceback): a group's line over an indented verdict
/// naming a test names the report with it (`When a bill has a cap › it should not exceed the
/// cap`), whether the report starts at the group's line or at the verdict; a report that names
/// nothing right under a group's line (its setup failed: the traceback is the group's own) is
/// the group's, and starts there.
fn name_by_verdict_under(lines: &[String], spans: &mut [Span]) {
    for k in 0..spans.len() {
        let s = &spans[k];
        let header = &lines[s.start];
        if s.whole {
            continue;
        }
        if s.name.is_none()
            && s.start > 0
            && (k == 0 || spans[k - 1].end < s.start)
            && indent(&lines[s.start - 1]) < indent(header)
            && let Some(title) = group_title(&lines[s.start - 1])
        {
            let title = title.to_owned();
            spans[k].start -= 1;
            spans[k].name = Some(title);
            continue;
        }
        // The verdict is the report's header, under its group's line; or the group's line is,
        // the verdict the first line under it.
        let (group, verdict) = match group_above(lines, s.start) {
            Some(_) => {
                let depth = indent(header);
                let Some(g) = (s.start.saturating_sub(MAX_BLOCK)..s.start)
                    .rev()
                    .find(|&h| content(&lines[h]) && indent(&lines[h]) < depth)
                else {
                    continue;
                };
                (g, s.start)
            }
            None => {
                let Some(v) = (s.start + 1..s.end).find(|&v| content(&lines[v])) else {
                    continue;
                };
                if indent(header) >= indent(&lines[v]) {
                    continue;
                }
                (s.start, v)
            }
        };
        if let Some(title) = group_title(&lines[group])
            && let Some(test) = status_name(&lines[verdict])
            && !title.contains(&test)
            && !test.contains(title)
            // (Only the group's or the verdict's own name is qualified, never another's.)
            && s.name.as_ref().is_none_or(|n| *n == test || n == title)
        {
            spans[k].name = Some(format!("{title} › {test}"));
            // The verdict's report is what is indented under it: a sibling verdict after it
            // (`  PASS: it should peek …`) is none of it.
            let depth = indent(&lines[verdict]);
            if let Some(end) = (verdict + 1..spans[k].end)
                .find(|&e| content(&lines[e]) && indent(&lines[e]) <= depth)
            {
                spans[k].end = end;
            }
        }
    }
}

/// The test a closing verdict names (`[remove_cannot_go_negative] -> Failed`, `test_x:
/// FAILED`): its words before a failed verdict, decoration (`->`, `-`, `:`, brackets) off;
/// with the line's shape, those words masked.
fn closing_verdict_name(line: &str) -> Option<(String, String)> {
    let toks = templates::tokens(line.trim());
    let (last, rest) = toks.split_last()?;
    if !failed_verdict(last) {
        return None;
    }
    let decoration = |t: &str| !t.chars().any(char::is_alphanumeric);
    let words: Vec<&str> = rest.iter().copied().filter(|t| !decoration(t)).collect();
    let [word] = words[..] else {
        return None;
    };
    let name = word.trim_matches(|c: char| "[]():".contains(c));
    let shape: Vec<String> = toks
        .iter()
        .map(|t| {
            if *t == word {
                "<name>".to_owned()
            } else {
                templates::mask(t)
            }
        })
        .collect();
    (name_like(name) && !name.is_empty()).then(|| (name.to_owned(), shape.join(" ")))
}

/// Reports read at their assertion's row whose test's verdict closes them, one indent up
/// right after their detail (`  stock never negative - Fail`, its `File:` and `Line:` fields
/// and the failed comparison, then `[remove_cannot_go_negative] -> Failed`, Testplan's): the
/// closing verdict names the test, its report ends there, and the assertion's row is its
/// message. Only when two or more reports close alike, so one stray row names nothing.
fn name_by_closing_verdict(lines: &[String], spans: &mut [Span]) {
    let closing = |s: &Span| -> Option<(usize, String, String)> {
        let depth = indent(&lines[s.start]);
        let k = (s.start + 1..lines.len().min(s.start + MAX_BLOCK))
            .find(|&k| lines[k].trim().is_empty() || indent(&lines[k]) <= depth)?;
        if lines[k].trim().is_empty() || indent(&lines[k]) >= depth || k > s.end {
            return None;
        }
        let (name, shape) = closing_verdict_name(&lines[k])?;
        Some((k, name, shape))
    };
    let found: Vec<Option<(usize, String, String)>> = spans
        .iter()
        .map(|s| (!s.whole).then(|| closing(s)).flatten())
        .collect();
    let mut shapes: HashMap<&str, usize> = HashMap::new();
    for (_, _, shape) in found.iter().flatten() {
        *shapes.entry(shape.as_str()).or_default() += 1;
    }
    let Some((&shape, _)) = shapes
        .iter()
        .filter(|(_, n)| **n >= 2)
        .max_by_key(|(_, n)| **n)
    else {
        return;
    };
    let shape = shape.to_owned();
    for (span, found) in spans.iter_mut().zip(found) {
        if let Some((k, name, s)) = found
            && s == shape
        {
            span.name = Some(name);
            span.end = k + 1;
        }
    }
}

/// A reading's reports with the reports it left: messages under a keyword header, framed
/// reports; in log order.
pub(crate) fn with_more(lines: &[String], covered: &[bool], mut spans: Vec<Span>) -> Vec<Span> {
    let mut claimed = covered.to_vec();
    claim(&mut claimed, &spans);
    // Each reading in turn takes what the ones before left: messages under a keyword header,
    // framed reports, records of labelled fields, marked rows.
    let readings: [Reading; 4] = [indented, framed, fielded, marked_rows];
    for read in readings {
        let more = read(lines, &claimed);
        claim(&mut claimed, &more);
        spans.extend(more);
    }
    spans.sort_by_key(|s| s.start);
    spans
}

/// A reading of the lines not yet claimed.
type Reading = fn(&[String], &[bool]) -> Vec<Span>;

/// Marks the lines of `spans` as taken.
fn claim(claimed: &mut [bool], spans: &[Span]) {
    for s in spans {
        for c in &mut claimed[s.start..s.end] {
            *c = true;
        }
    }
}

/// Records of labelled fields, one per failure (`Test: full_row`, `Suite: Picking`, `File:
/// a.cpp`, `Line: 17`, `Message: …`, CppTest's): a run of three or more `Label: value` lines at
/// one depth, one naming the test and one saying what went wrong; named by the test's field.
pub(crate) fn fielded(lines: &[String], covered: &[bool]) -> Vec<Span> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if covered[i] || field(&lines[i]).is_none() {
            i += 1;
            continue;
        }
        let depth = indent(&lines[i]);
        let (mut end, mut test, mut told) = (i, None, false);
        while end < lines.len() && !covered[end] && indent(&lines[end]) == depth {
            let Some((label, value)) = field(&lines[end]) else {
                break;
            };
            if tells_what_went_wrong(label) {
                told = true;
            } else if matches!(
                label.to_ascii_lowercase().as_str(),
                "test" | "test name" | "testcase" | "test case"
            ) {
                test.get_or_insert(value);
            }
            end += 1;
        }
        if end - i >= 3
            && told
            && let Some(name) = test.filter(|n| name_like(n))
        {
            spans.push(Span {
                start: i,
                end,
                name: Some(name.to_owned()),
                whole: true,
            });
        }
        i = end.max(i + 1);
    }
    spans
}

/// Rows of a context's checks, each led by a one-character mark (`+ asserts x`, `- asserts y:
/// expected 2, not 1`, `! asserts z: key not found`, riot's): where the rows of one mark never
/// say anything after a colon and the rows of other marks do, those are failures, named by the
/// context over them and the row's words before the colon.
pub(crate) fn marked_rows(lines: &[String], covered: &[bool]) -> Vec<Span> {
    fn row(line: &str) -> Option<(char, &str)> {
        let t = line.trim_start();
        let mut cs = t.chars();
        let mark = cs.next()?;
        let rest = cs.as_str().strip_prefix(' ')?;
        (!mark.is_alphanumeric() && !mark.is_whitespace() && !rest.trim().is_empty())
            .then_some((mark, rest.trim()))
    }
    let told = |text: &str| {
        text.split_once(": ")
            .is_some_and(|(_, m)| !m.trim().is_empty())
    };
    // Per mark: rows with a message after a colon, rows without.
    let mut seen: HashMap<char, (usize, usize)> = HashMap::new();
    for (i, l) in lines.iter().enumerate() {
        if covered[i] || !l.starts_with(' ') {
            continue;
        }
        if let Some((mark, text)) = row(l) {
            let e = seen.entry(mark).or_default();
            if told(text) { e.0 += 1 } else { e.1 += 1 }
        }
    }
    let passing = seen.values().any(|&(t, q)| t == 0 && q >= 2);
    let failing: HashSet<char> = seen
        .iter()
        .filter(|&(_, &(t, q))| t >= 1 && q == 0)
        .map(|(&m, _)| m)
        .collect();
    if !passing || failing.is_empty() {
        return Vec::new();
    }
    let mut spans = Vec::new();
    let mut context: Option<&str> = None;
    for (i, l) in lines.iter().enumerate() {
        if covered[i] {
            continue;
        }
        if !l.starts_with(char::is_whitespace) && !l.trim().is_empty() {
            context = Some(l.trim());
            continue;
        }
        let Some((mark, text)) = row(l) else {
            continue;
        };
        if !failing.contains(&mark) {
            continue;
        }
        let (what, _) = text.split_once(": ").unwrap_or((text, ""));
        let name = match context {
            Some(c) if !summary(c) => format!("{c} {what}"),
            _ => what.to_owned(),
        };
        if name_like(&name) {
            spans.push(Span {
                start: i,
                end: i + 1,
                name: Some(name),
                whole: true,
            });
        }
    }
    spans
}

/// Whether a field's label says what went wrong (`Message:`, `Error:`, `Reason:`).
fn tells_what_went_wrong(label: &str) -> bool {
    matches!(
        label.to_ascii_lowercase().as_str(),
        "message" | "error" | "reason" | "failure" | "assertion" | "condition" | "cause"
    )
}

/// A report whose body is a record of labelled fields, labels padded to one column
/// (`Documentation: NIL`, `Source       : a.lisp`, `Condition    : The value` over deeper
/// lines): the field that says what went wrong, with the deeper lines that go on with it.
fn labelled_field_message(body: &[String]) -> Option<String> {
    let padded_field = |l: &str| -> Option<(String, String)> {
        let (label, value) = l.trim().split_once(':')?;
        let label = label.trim_end();
        (!label.is_empty()
            && label.split_whitespace().count() <= 3
            && label.len() <= 24
            && label.starts_with(|c: char| c.is_ascii_uppercase())
            && label.chars().all(|c| c.is_ascii_alphabetic() || c == ' '))
        .then(|| (label.to_owned(), value.trim().to_owned()))
    };
    let first = body.iter().position(|l| !l.trim().is_empty())?;
    let depth = indent(&body[first]);
    padded_field(&body[first])?;
    // (A record: three fields or more at its depth, their labels padded to one column, `Source
    // :` beside `Condition    :`; a thrown `Error: x` over its frames is none.)
    let fields: Vec<&String> = body[first..]
        .iter()
        .filter(|l| indent(l) == depth && padded_field(l).is_some())
        .collect();
    let padded = fields.iter().any(|l| {
        l.trim()
            .split_once(':')
            .is_some_and(|(label, _)| label.ends_with("  "))
    });
    if fields.len() < 3 || !padded {
        return None;
    }
    let k = (first..body.len()).find(|&k| {
        indent(&body[k]) == depth
            && padded_field(&body[k]).is_some_and(|(label, _)| tells_what_went_wrong(&label))
    })?;
    let (_, value) = padded_field(&body[k])?;
    let mut said = vec![value];
    said.extend(
        body[k + 1..]
            .iter()
            .take_while(|l| !l.trim().is_empty() && indent(l) > depth)
            .map(|l| l.trim().to_owned()),
    );
    let said = said.join("\n");
    (!said.trim().is_empty()).then_some(said)
}

/// A labelled field (`Message: five trees should fill fifteen crates`): a label of up to
/// three capitalised words, a colon, a value.
fn field(line: &str) -> Option<(&str, &str)> {
    let (label, value) = line.trim().split_once(':')?;
    let value = value.trim();
    let words = label.split(' ').count();
    (!value.is_empty()
        && words <= 3
        && label.len() <= 24
        && label.starts_with(|c: char| c.is_ascii_uppercase())
        && label.chars().all(|c| c.is_ascii_alphabetic() || c == ' '))
    .then_some((label, value))
}

/// Reports whose headers carry no name take, in order, the names another reading found (a
/// closing list of failures), when both count the same.
pub(crate) fn name_from_listing(found: &mut [Span], other: &[Span]) {
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

    /// The segmenter's reports of a log that states no count, never cancelled.
    fn reports(log: &[String]) -> Vec<Found> {
        let never = stanley_core::Cancel::new();
        segment(
            log,
            &vec![false; log.len()],
            &Stated::default(),
            &Pace::new(&never),
        )
        .unwrap()
        .reports
    }

    fn names(found: &[Found]) -> Vec<&str> {
        found
            .iter()
            .map(|f| f.name.as_deref().unwrap_or(""))
            .collect()
    }

    #[test]
    fn a_progress_line_padded_to_a_column_names_the_banner_report_of_its_test() {
        // A progress list (verdict, place, name, a share padded to the line's end), then each
        // failure's report under a banner that shows the name alone; the run's closing banner
        // (`FAILED in 0.08 seconds`) names nothing.
        let log = lines(
            " PASS  test_a:8 adds three units                              33%\n FAIL  test_a:12 handles large pallets                       66%\n FAIL  test_b:7 sums lines                                  100%\n\n──────── handles large pallets ────────\n  Failed at tests/test_a.py:14\n  assert 9003 == 9004\n\n──────── sums lines ────────\n  Failed at tests/test_b.py:9\n  assert 638 == 640\n──────── FAILED in 0.08 seconds ────────\n",
        );
        let found = reports(&log);
        assert_eq!(
            names(&found),
            ["test_a:12 handles large pallets", "test_b:7 sums lines"]
        );
        assert!(found[0].lines.iter().any(|l| l.contains("9003")));
        assert!(found[1].lines.iter().any(|l| l.contains("638")));
    }

    #[test]
    fn a_scoped_name_closed_by_a_colon_heads_its_report() {
        let log = lines(
            "\nrouter > splits paths:\n[ 'a', 'b', 'c' ]\n  should deep equal\n[ 'a', 'b', 'd' ]\n    at /src/tests/router.js:5:24\n\nrouter > params > parses id:\nNaN\n  should equal\n42\n    at /src/tests/router.js:15:31\n\n––––––\n2 out of 5 assertions failed\n",
        );
        let found = reports(&log);
        assert_eq!(
            names(&found),
            ["router > splits paths", "router > params > parses id"]
        );
        assert!(found[1].lines.iter().any(|l| l.contains("NaN")));
    }

    #[test]
    fn a_test_counted_as_it_starts_fails_by_the_verdict_under_it() {
        // `k/n name...` as each test starts; a failing one says so after its dots or in an
        // upper-case verdict under it (`FAIL (TestExpectedEqual)`), which names no test itself.
        let log = lines(
            "1/4 ring.test.doubles...OK\n2/4 ring.test.big ring...expected 4097, found 4099\nFAIL (TestExpectedEqual)\n/src/ring.zig:17:5: 0x125792d in test.big ring (ring.zig)\n    try expectEqual(4097, capacity(2049));\n3/4 ring.test.overflow...FAIL (Overflow)\n/src/ring.zig:23:5: 0x1252bc4 in test.overflow (ring.zig)\n4/4 ring.test.label...OK\n2 passed; 0 skipped; 2 failed.\n",
        );
        let found = reports(&log);
        assert_eq!(names(&found), ["ring.test.big ring", "ring.test.overflow"]);
        assert!(found[0].lines.iter().any(|l| l.contains("found 4099")));
    }

    #[test]
    fn a_bracketed_verdict_closes_the_report_above_it() {
        let log = lines(
            "[====] Running 2 tests from misc:\n[----] test/a.c:7: Assertion Failed\n[----]   \n[----]   The expression total(2) == 5 is false.\n[----]   \n[FAIL] misc::totals: (0.00s)\n[----] test/a.c:12: Assertion Failed\n[----]   The expression ratio() == 1 is false.\n[FAIL] misc::ratios: (0.00s)\n[====] Synthesis: Tested: 2 | Passing: 0 | Failing: 2 | Crashing: 0\n",
        );
        let found = reports(&log);
        assert_eq!(names(&found), ["misc::totals", "misc::ratios"]);
        // Each report ends at its own verdict; the next starts after it.
        assert_eq!(found[0].start + found[0].lines.len(), 6);
        assert_eq!((found[1].start, found[1].lines.len()), (6, 3));
        assert!(
            found[1]
                .message
                .as_deref()
                .is_some_and(|m| m.contains("ratio() == 1")),
            "{:?}",
            found[1].message
        );
    }

    /// A shell-assert runner (shunit2, real output in `tests/fixtures/runners/shunit2-*`):
    /// each test's name alone on a line as it starts, its failed assertions under it, and a
    /// verdict naming the test by its call when its last command failed.
    #[test]
    fn a_name_alone_then_an_assertion_is_a_failing_test() {
        let log = lines(
            "testCountsLines\nASSERT:line count expected:<3> but was:<2>\nshunit2:ERROR testCountsLines() returned non-zero return code.\ntestFindsAlpha\ntestNoGamma\nASSERT:gamma must not be there\nchecked for gamma\ntestSortedOrder\nASSERT:first sorted word expected:<alpha> but was:<beta>\n\nRan 4 tests.\n\nFAILED (failures=4)\n",
        );
        let found = reports(&log);
        assert_eq!(
            names(&found),
            ["testCountsLines", "testNoGamma", "testSortedOrder"]
        );
        assert_eq!(
            status_name("shunit2:ERROR testX() returned non-zero return code."),
            Some("testX".to_owned())
        );
        // A message that merely starts with a lowercase `error:` names nothing.
        assert_eq!(status_name("error: main() returned 1"), None);
    }

    /// Robot Framework (real output in `tests/fixtures/runners/robot-*`): a verdict padded to
    /// the line's end between delimiters names its test; a suite's own verdict, with counts
    /// where a report would be, names none.
    #[test]
    fn a_padded_verdict_closing_a_line_names_its_test_and_a_suites_names_none() {
        let rule = "-".repeat(30);
        let log = lines(&format!(
            "Total Of Two Items                    | FAIL |\ncart total 8 instead of 7\n{rule}\nEmpty Cart                            | PASS |\n{rule}\nCoupon Code                           | FAIL |\ndoes not contain 'WINTER25'\n{rule}\nShop.Cart                             | FAIL |\n3 tests, 1 passed, 2 failed\n"
        ));
        assert_eq!(names(&reports(&log)), ["Total Of Two Items", "Coupon Code"]);
        for (line, name) in [
            ("parses dates ........ [FAILED]", Some("parses dates")),
            ("parses dates   [ FAIL ]", Some("parses dates")),
            ("parses dates   <ERROR>", Some("parses dates")),
            (
                "  test_0002_evicts when full        FAIL (0.00s)",
                Some("test_0002_evicts when full"),
            ),
            (
                "  test_fetch_missing               ERROR (0.00s)",
                Some("test_fetch_missing"),
            ),
            ("  test_put_and_get                  PASS (0.00s)", None),
            // No padding: a message that ends in brackets.
            ("expected [FAIL]", None),
            ("parses dates   | PASS |", None),
        ] {
            assert_eq!(status_name(line).as_deref(), name, "{line}");
        }
    }

    #[test]
    fn status_lines_name_their_tests() {
        for (line, name) in [
            ("--- FAIL: TestX (0.00s)", "TestX"),
            ("FAIL: test_a (pkg.mod.Case.test_a)", "pkg.mod.Case.test_a"),
            ("ERROR: test_b (pkg.mod.Case)", "pkg.mod.Case.test_b"),
            ("Failure: test_add(TestCalc)", "test_add(TestCalc)"),
            ("Failure: test_add(TestCalc):", "test_add(TestCalc)"),
            (
                "Failure in tests.test_calc.CalcTest.test_add",
                "tests.test_calc.CalcTest.test_add",
            ),
            (
                "Error in tests.test_io.IoTest.test_read",
                "tests.test_io.IoTest.test_read",
            ),
            (
                "tests/check_money.c:15:F:Core:test_money_create:0: Assertion 'm == 5' failed",
                "Core:test_money_create",
            ),
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
        let found = reports(&log);
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
        let found = reports(&log);
        assert_eq!(names(&found), ["A.two"]);
        assert_eq!(found[0].start, 2);
        assert_eq!(found[0].lines.len(), 4);
        assert_eq!(
            found[0].message.as_deref(),
            Some("x.cpp:3: Failure\nExpected equality")
        );
    }
}
