//! The layout-free reader (issue 46, D-249): records found by their shape alone, judged by the
//! count the log states. Each line is reduced to its *skeleton*, the classes of its tokens from
//! its start (or its end) to the first free text: a place (`12:3`, `a.ts:12`, `line 12`), a
//! path, a number, a severity, a verdict, a mark or a piece of drawing, the first word as
//! printed. The lines of one skeleton that say a failure happened (a place, a severity, a
//! verdict or a mark), as many as the log says failed, are the records, whatever the tool; each
//! record runs to the next or to where its indentation ends; its name is its place (with the
//! file from the line or from the file header above it) or what varies between the records'
//! first lines; its message is the first line of its own that the records do not all share.
//!
//! A log that is nothing but lists under headings, with no count and nothing else read, is a
//! finding per item (`headed_lists`).
//!
//! It reads only where every reader with a rule for a layout disagreed with the stated count
//! (its reading stands only where it agrees), or, with no count stated, found nothing at all
//! (`lib::parse_log_paced`).

use std::collections::HashMap;

use stanley_core::{Cancelled, Pace};

use super::templates::{constant_ends, mask, name_between, tokens};
use super::{MAX_BLOCK, indent, separator};
use crate::found::Found;
use crate::stated::{Stated, states_counts};

/// What a token is, for a skeleton.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Class {
    /// Where in a file: `12:3`, `(12,3)`, `a.ts:12:3`, a number after `line`.
    Place,
    /// A file's path or name (`src/a.ts`, `a.py`).
    Path,
    /// A bare number or a number with punctuation (`#3`, `(12`).
    Number(String),
    /// `error`, `warning`, `[ERROR]`, `E:` as printed, by kind.
    Severity(Level),
    /// A failure's verdict word (`FAIL`, `failed:`, `Failure`).
    Verdict,
    /// A mark or drawing or punctuation, as printed (`✗`, `│`, `-`, `==>`).
    Mark(String),
    /// A word, as printed (only a line's first token keeps its word: it is the line's kind).
    Word(String),
    /// What a row of a table is about, its first column, when a severity column follows
    /// (`Task_Orphan  error  Element is missing label/name  label-required`).
    Subject,
    /// Text: the free part of a line, where a skeleton ends.
    Free,
}

/// A severity a finding's line states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Level {
    Error,
    Warning,
    Note,
}

/// A line as a candidate record head.
struct Head {
    at: usize,
    classes: Vec<Class>,
    /// The severity of a banner above it (`ERROR` over `Line 4: …` rows).
    banner: Option<Level>,
}

impl Head {
    fn placed(&self) -> bool {
        self.classes.iter().any(|c| matches!(c, Class::Place))
    }

    /// Whether the line is a table's row about a subject (`Task_Orphan  error  …`).
    fn row(&self) -> bool {
        self.classes.first() == Some(&Class::Subject)
    }

    /// Whether the line is a finding in its own right: placed, or a row about a subject.
    fn finding(&self) -> bool {
        self.placed() || self.row()
    }

    fn level(&self) -> Option<Level> {
        self.classes
            .iter()
            .find_map(|c| match c {
                Class::Severity(l) => Some(*l),
                _ => None,
            })
            .or(self.banner)
    }

    /// Whether the line says that something failed: a place with a severity, a verdict, a
    /// failure mark.
    fn says_failure(&self) -> bool {
        let marked = self.classes.iter().any(|c| match c {
            Class::Verdict => true,
            Class::Mark(m) => crate::line::FAILURE_MARKS.iter().any(|f| m.contains(f)),
            _ => false,
        });
        marked || (self.finding() && self.level().is_some_and(|l| l != Level::Note))
    }
}

fn level(word: &str) -> Option<Level> {
    let w = word.trim_matches(|c: char| !c.is_alphanumeric());
    if w.len() != word.trim_end_matches(':').len()
        && !(word.starts_with('[') || word.starts_with('(') || word.starts_with('<'))
    {
        return None;
    }
    match w.to_ascii_lowercase().as_str() {
        "error" | "err" | "fatal" | "critical" | "severe" | "blocker" | "major" | "high" => {
            Some(Level::Error)
        }
        "warning" | "warn" | "minor" | "medium" | "low" => Some(Level::Warning),
        "info" | "note" | "hint" | "notice" | "style" | "suggestion" => Some(Level::Note),
        _ => None,
    }
}

/// Whether `t` places something in a file: `12:3`, `12:3:`, `(12,3)`, `[12:3]`, `a.ts:12`,
/// `a.ts:12:3:`, `a.ts(12,3)`.
fn place(t: &str) -> bool {
    let core = t.trim_matches(|c: char| "()[]{}<>,;:".contains(c));
    let numbers = |s: &str, sep: char| {
        let parts: Vec<&str> = s.split(sep).collect();
        parts.len() >= 2 && parts.len() <= 3 && parts.iter().all(|p| crate::text::whole_number(p))
    };
    if numbers(core, ':') || (t.starts_with('(') && numbers(core, ',')) {
        return true;
    }
    if let Some(open) = core.find('(')
        && core[..open].contains('.')
    {
        return numbers(core[open + 1..].trim_end_matches(')'), ',');
    }
    crate::line::bare_location(core)
        && core
            .rsplit(':')
            .next()
            .is_some_and(crate::text::whole_number)
}

/// A token's class; `first` keeps a word as printed.
fn class(token: &str, first: bool) -> Class {
    if place(token) {
        return Class::Place;
    }
    if let Some(l) = level(token) {
        return Class::Severity(l);
    }
    let word = token.trim_matches(|c: char| !c.is_alphanumeric());
    if !word.is_empty() && crate::line::failed_verdict(word) && word.len() + 2 >= token.len() {
        return Class::Verdict;
    }
    if !token.chars().any(char::is_alphanumeric) {
        return Class::Mark(token.to_owned());
    }
    let masked = mask(token);
    if masked.contains("<p>") {
        return Class::Path;
    }
    if masked.contains("<q>") {
        return Class::Free;
    }
    if token.chars().any(|c| c.is_ascii_digit()) && !token.chars().any(char::is_alphabetic) {
        return Class::Number(masked);
    }
    if first {
        Class::Word(token.to_owned())
    } else {
        Class::Free
    }
}

/// A line's classes, token by token, with a number after `line` read as a place.
fn classes(toks: &[&str]) -> Vec<Class> {
    let mut out: Vec<Class> = Vec::with_capacity(toks.len());
    for (k, t) in toks.iter().enumerate() {
        let after_line = k > 0 && toks[k - 1].trim_matches(':').eq_ignore_ascii_case("line");
        let numbered = t
            .trim_matches(|c: char| !c.is_ascii_digit())
            .chars()
            .all(|c| c.is_ascii_digit() || c == ':')
            && t.chars().any(|c| c.is_ascii_digit());
        out.push(if after_line && numbered {
            Class::Place
        } else {
            class(t, k == 0)
        });
    }
    // `Line 12:` reads as its place, not as the word `Line`.
    if out.len() >= 2
        && out[1] == Class::Place
        && toks[0].trim_matches(':').eq_ignore_ascii_case("line")
    {
        out[0] = Class::Mark("line".into());
    }
    out
}

/// A line that is a severity alone, as a banner over the findings of that severity (`ERROR`,
/// `Warnings:`, `── errors (2) ──`).
fn banner_level(toks: &[&str], classes: &[Class]) -> Option<Level> {
    let mut said = toks
        .iter()
        .zip(classes)
        .filter(|(_, c)| !matches!(c, Class::Mark(_) | Class::Number(_)));
    let (word, _) = said.next()?;
    if said.next().is_some() {
        return None;
    }
    let w = word.trim_matches(|c: char| !c.is_alphanumeric());
    let singular = w.strip_suffix('s').unwrap_or(w);
    level(singular).or_else(|| level(w))
}

/// A row of a table about a subject: a word, then a severity as a column of its own (two
/// spaces or more on each side), then what is wrong. The word is the row's subject, whatever
/// it is (an element's id, a key, a package).
fn subject_row(line: &str, toks: &[&str], classes: &mut [Class]) {
    if let [Class::Word(_), Class::Severity(level), _, ..] = classes
        && *level != Level::Note
        && let Some(after) = line.strip_prefix(toks[0])
        && after.starts_with("  ")
        && after
            .trim_start()
            .strip_prefix(toks[1])
            .is_some_and(|rest| rest.starts_with("  "))
    {
        classes[0] = Class::Subject;
    }
}

/// Which end of a line a skeleton reads from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum From {
    Start,
    End,
}

/// The skeleton: the classes from one end to the first free text (the free text included, as
/// one class), at most six.
fn skeleton(classes: &[Class], from: From) -> Vec<Class> {
    let ordered: Box<dyn Iterator<Item = &Class>> = match from {
        From::Start => Box::new(classes.iter()),
        From::End => Box::new(classes.iter().rev()),
    };
    let mut out = Vec::new();
    for c in ordered.take(6) {
        let free = matches!(c, Class::Free | Class::Word(_));
        // (Errors and warnings of one tool share their rows' shape.)
        out.push(match c {
            _ if free && from == From::End => Class::Free,
            Class::Severity(_) => Class::Mark("<severity>".into()),
            _ => c.clone(),
        });
        if matches!(c, Class::Free) {
            break;
        }
    }
    out
}

/// Whether a skeleton says anything of its own: more than free text.
fn telling(skeleton: &[Class]) -> bool {
    skeleton
        .iter()
        .any(|c| !matches!(c, Class::Free | Class::Word(_)))
}

/// The records the layout-free reader finds: as many as the log states failed, or, where it
/// states no count, lines that each say a failure of their own; or `None`.
pub(crate) fn read(
    lines: &[String],
    closing: &[bool],
    stated: &Stated,
    pace: &Pace<'_>,
) -> Result<Option<Vec<Found>>, Cancelled> {
    let mut heads: Vec<Head> = Vec::new();
    let mut groups: HashMap<(From, usize, Vec<Class>), Vec<usize>> = HashMap::new();
    let mut banner: Option<Level> = None;
    for (i, line) in lines.iter().enumerate() {
        pace.step()?;
        let t = line.trim();
        if t.is_empty()
            || closing[i]
            || separator(line)
            || states_counts(line)
            || crate::line::summary(line)
            || crate::line::stack_frame(line)
            || crate::line::passing_verdict(crate::line::undecorated(line))
        {
            continue;
        }
        let toks = tokens(t);
        let mut classes = classes(&toks);
        subject_row(t, &toks, &mut classes);
        if let Some(level) = banner_level(&toks, &classes) {
            banner = Some(level);
            continue;
        }
        let head = Head {
            at: i,
            classes,
            banner,
        };
        if !(head.says_failure() || head.placed()) {
            continue;
        }
        let k = heads.len();
        for from in [From::Start, From::End] {
            let s = skeleton(&head.classes, from);
            if telling(&s) {
                groups.entry((from, indent(line), s)).or_default().push(k);
            }
        }
        heads.push(head);
    }
    let mut best: Option<(Rank, Vec<usize>)> = None;
    for group in groups.into_values() {
        pace.step()?;
        if let Some(rank) = judge(lines, &heads, &group, stated)
            && best.as_ref().is_none_or(|(r, _)| rank > *r)
        {
            best = Some((rank, group));
        }
    }
    let Some((_, group)) = best else {
        return Ok(stated.is_empty().then(|| headed_lists(lines)).flatten());
    };
    let chosen: Vec<&Head> = group.iter().map(|&k| &heads[k]).collect();
    Ok(Some(records(lines, closing, &chosen, pace)?))
}

/// A log that is only lists under headings (`Unused dependencies` over `* moment`, `Missing
/// dependencies` over `* dayjs: ./src/index.js`), given to triage with nothing else read and no
/// count: each item a finding of the kind its heading says, named by the item, its message the
/// heading and the item. Every line a heading at the margin or an item under one that names
/// one thing (a word, then perhaps `: where`), two items at least.
fn headed_lists(lines: &[String]) -> Option<Vec<Found>> {
    let mut heading: Option<(usize, &str)> = None;
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let item = crate::text::bulleted(t).map(str::trim);
        match (item, heading) {
            (Some(item), Some((_, title))) if !item.is_empty() => {
                let name = item.split_once(": ").map_or(item, |(n, _)| n).trim();
                // (Items are names: `- adds a parser` under `Changes:` is a sentence.)
                if name.split_whitespace().count() != 1 {
                    return None;
                }
                out.push(Found {
                    start: i,
                    lines: vec![line.clone()],
                    name: Some(name.trim_matches(['\'', '"', '`']).to_owned()),
                    message: Some(format!("{}: {item}", title.trim_end_matches(':'))),
                    anchor: "records",
                    bare: false,
                });
            }
            (None, _) if indent(line) == 0 && t.split_whitespace().count() <= 8 => {
                heading = Some((i, t));
            }
            _ => return None,
        }
    }
    (out.len() >= 2).then_some(out)
}

/// How good a group's reading is: every head says a failure happened, every head placed,
/// distinct lines, the earliest first.
type Rank = (bool, bool, usize, std::cmp::Reverse<usize>);

/// A group's rank, when it agrees with the stated count (all of it, or its errors).
fn judge(lines: &[String], heads: &[Head], group: &[usize], stated: &Stated) -> Option<Rank> {
    let n = group.len();
    if n < 2 {
        return None;
    }
    let errors = group
        .iter()
        .filter(|&&k| heads[k].level() != Some(Level::Warning))
        .count();
    let placed = group.iter().all(|&k| heads[k].placed());
    let says = group.iter().all(|&k| heads[k].says_failure());
    let mut texts: Vec<&str> = group.iter().map(|&k| lines[heads[k].at].trim()).collect();
    texts.sort_unstable();
    texts.dedup();
    if stated.is_empty() {
        // With no count to agree with, only lines that each say a failure of their own.
        if !says || texts.len() < n {
            return None;
        }
    } else if !(stated.agrees(n) || (errors > 0 && stated.agrees(errors))) {
        return None;
    }
    // The same line every time is a banner, not a record per failure.
    if texts.len() * 2 < n {
        return None;
    }
    Some((
        says,
        placed,
        texts.len(),
        std::cmp::Reverse(heads[group[0]].at),
    ))
}

/// The chosen heads' records: extents, names, messages.
fn records(
    lines: &[String],
    closing: &[bool],
    heads: &[&Head],
    pace: &Pace<'_>,
) -> Result<Vec<Found>, Cancelled> {
    let ends: Vec<usize> = (0..heads.len())
        .map(|k| {
            let next = heads.get(k + 1).map_or(lines.len(), |h| h.at);
            // A test's record runs to the next (what a runner prints under it is its own,
            // at any depth); a finding's ends where its depth does.
            let to_next = !heads[k].finding();
            extent(lines, closing, heads[k].at, next, to_next)
        })
        .collect();
    // Body lines every record has alike (a `Stack:` label, a frame of the runner's) say
    // nothing of one failure: the message is what a record holds that the others do not.
    let mut shared: HashMap<String, usize> = HashMap::new();
    for (k, h) in heads.iter().enumerate() {
        pace.step()?;
        let mut seen: Vec<String> = lines[h.at + 1..ends[k]]
            .iter()
            .map(|l| masked_line(l))
            .collect();
        seen.sort_unstable();
        seen.dedup();
        for s in seen {
            *shared.entry(s).or_default() += 1;
        }
    }
    let toks: Vec<Vec<&str>> = heads.iter().map(|h| tokens(lines[h.at].trim())).collect();
    let masked: Vec<Vec<String>> = toks
        .iter()
        .map(|t| t.iter().map(|x| mask(x)).collect())
        .collect();
    let (prefix, suffix) = constant_ends(&masked, &toks);
    let files = file_headers(lines, heads);
    let mut out = Vec::with_capacity(heads.len());
    for (k, h) in heads.iter().enumerate() {
        pace.step()?;
        let subject = h.row().then(|| match files[k].as_deref() {
            Some(file) => format!("{file}: {}", toks[k][0]),
            None => toks[k][0].to_owned(),
        });
        let name = subject
            .or_else(|| placed_name(&toks[k], &h.classes, files[k].as_deref()))
            .or_else(|| name_between(&toks[k], prefix, suffix));
        let said = if h.finding() {
            said_on_line(&toks[k], &h.classes)
        } else {
            name.as_deref()
                .and_then(|n| said_after(lines[h.at].trim(), n))
        };
        // (Of the lines a record holds alone, one that reads as a message first.)
        let own: Vec<&String> = lines[h.at + 1..ends[k]]
            .iter()
            .filter(|l| {
                let t = l.trim();
                !t.is_empty()
                    && !separator(l)
                    && !crate::line::stack_frame(l)
                    && t.chars().any(char::is_alphabetic)
                    && shared.get(&masked_line(l)).copied().unwrap_or(0) < heads.len()
            })
            .collect();
        let message = said.or_else(|| {
            own.iter()
                .find(|l| crate::line::message_like(l))
                .or(own.first())
                .map(|l| crate::line::undecorated(l).trim().to_owned())
        });
        let anchor = match (h.finding(), h.level()) {
            (true, Some(Level::Warning)) => "diagnostic_warning",
            (true, _) => "diagnostic",
            _ => "records",
        };
        out.push(Found {
            start: h.at,
            lines: lines[h.at..ends[k]].to_vec(),
            name,
            message,
            anchor,
            bare: false,
        });
    }
    Ok(out)
}

/// A line with what varies masked, to compare lines across records.
fn masked_line(line: &str) -> String {
    tokens(line.trim())
        .iter()
        .map(|t| mask(t))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where a record starting at `at` ends, before `next` and a closing count or summary: at
/// `next` when `to_next`; else its
/// lines indented deeper than its head, or, where the line under the head is not deeper, the lines up to a blank line before
/// a shallower one, a closing count or a summary.
fn extent(lines: &[String], closing: &[bool], at: usize, next: usize, to_next: bool) -> usize {
    let depth = indent(&lines[at]);
    let limit = next.min(at + MAX_BLOCK).min(lines.len());
    let stops = |l: &String, i: usize| closing[i] || states_counts(l) || crate::line::summary(l);
    if to_next {
        let mut end = (at + 1..limit)
            .find(|&i| stops(&lines[i], i))
            .unwrap_or(limit);
        while end > at + 1 && lines[end - 1].trim().is_empty() {
            end -= 1;
        }
        return end;
    }
    let deeper = lines[at + 1..limit]
        .iter()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| indent(l) > depth);
    let mut end = at + 1;
    while end < limit {
        let l = &lines[end];
        let t = l.trim();
        if stops(l, end) {
            break;
        }
        if !t.is_empty() {
            if deeper && indent(l) <= depth {
                break;
            }
            if !deeper && indent(l) < depth {
                break;
            }
        } else if !deeper
            && lines[end + 1..limit]
                .iter()
                .find(|l| !l.trim().is_empty())
                .is_none_or(|l| indent(l) < depth || separator(l))
        {
            break;
        }
        end += 1;
    }
    while end > at + 1 && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    end
}

/// For each head, the file a header above it names (a line at a shallower depth, or a line
/// of a path alone, the nearest above, after the previous head's file at most).
fn file_headers(lines: &[String], heads: &[&Head]) -> Vec<Option<String>> {
    let mut out = Vec::with_capacity(heads.len());
    let mut from = 0;
    let mut current: Option<String> = None;
    for h in heads {
        let depth = indent(&lines[h.at]);
        for l in &lines[from..h.at] {
            let t = crate::line::undecorated(l).trim();
            let first = tokens(t).first().copied().unwrap_or("");
            let path = first.trim_matches(|c: char| "()[]{}<>,;:\"'`".contains(c));
            if !t.is_empty()
                && (indent(l) < depth || tokens(t).len() == 1)
                && matches!(class(first, false), Class::Path)
                && !path.is_empty()
            {
                current = Some(path.to_owned());
            }
        }
        from = h.at + 1;
        out.push(current.clone());
    }
    out
}

/// A placed record's name: its file and place (`src/a.ts:12:3`), the file from the line or
/// from the header above it.
fn placed_name(toks: &[&str], classes: &[Class], file: Option<&str>) -> Option<String> {
    let at = classes.iter().position(|c| matches!(c, Class::Place))?;
    let token = toks[at].trim_matches(|c: char| "()[]{}<>,;".contains(c));
    let token = token.trim_end_matches(':');
    // A place that carries its file (`a.ts:12:3`, `a.ts(12,3)`) is the name as printed.
    if token.chars().any(char::is_alphabetic) {
        return Some(
            token
                .replace(['(', ','], ":")
                .trim_end_matches(')')
                .to_owned(),
        );
    }
    let numbers = token.replace(',', ":");
    let file = file.or_else(|| {
        toks.iter()
            .zip(classes)
            .find(|(_, c)| matches!(c, Class::Path))
            .map(|(t, _)| t.trim_matches(|c: char| "()[]{}<>,;:\"'`".contains(c)))
    })?;
    Some(format!("{file}:{numbers}"))
}

/// What a record's first line says after its name and a separator (`name - why`, `name:
/// why`, `name (3 ms): why`), when that is a few words.
fn said_after(line: &str, name: &str) -> Option<String> {
    let after = &line[line.find(name)? + name.len()..];
    let mut after = after.trim_start();
    // (A time between them, `(3 ms)`, is neither.)
    if let Some(rest) = after.strip_prefix('(')
        && let Some((inside, past)) = rest.split_once(')')
        && inside.chars().any(|c| c.is_ascii_digit())
    {
        after = past.trim_start();
    }
    let why = after
        .strip_prefix("- ")
        .or_else(|| after.strip_prefix(": "))
        .or_else(|| after.strip_prefix("— "))?
        .trim();
    (why.split_whitespace().count() >= 2).then(|| why.to_owned())
}

/// What a head line says besides its place, severity, verdict, marks and drawing: the free
/// text, when there are at least two words of it.
fn said_on_line(toks: &[&str], classes: &[Class]) -> Option<String> {
    let start = classes
        .iter()
        .position(|c| matches!(c, Class::Free | Class::Word(_)))?;
    let words: Vec<&str> = toks[start..]
        .iter()
        .zip(&classes[start..])
        .filter(|(_, c)| !matches!(c, Class::Mark(_) | Class::Place | Class::Severity(_)))
        .map(|(t, _)| *t)
        .collect();
    (words.len() >= 2).then(|| words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stated::stated;

    fn read_log(text: &str) -> Vec<(usize, Option<String>, Option<String>)> {
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let never = stanley_core::Cancel::new();
        let closing = vec![false; lines.len()];
        read(&lines, &closing, &stated(&lines), &Pace::new(&never))
            .unwrap()
            .unwrap_or_default()
            .into_iter()
            .map(|f| (f.start, f.name, f.message))
            .collect()
    }

    fn names_and_messages(read: &[(usize, Option<String>, Option<String>)]) -> Vec<(&str, &str)> {
        read.iter()
            .map(|r| (r.1.as_deref().unwrap(), r.2.as_deref().unwrap()))
            .collect()
    }

    #[test]
    fn rows_under_a_file_header_are_its_findings_named_by_file_and_place() {
        let log = concat!(
            "src/ledger.ts\n",
            "  4:10  error    Unexpected var, use let or const   no-var\n",
            "  9:3   warning  Missing return type                explicit-return\n",
            "\n",
            "src/posting.ts\n",
            "  12:1  error    Unreachable code                   no-unreachable\n",
            "\n",
            "3 problems (2 errors, 1 warning)\n",
        );
        let read = read_log(log);
        let names: Vec<&str> = read.iter().filter_map(|r| r.1.as_deref()).collect();
        assert_eq!(
            names,
            [
                "src/ledger.ts:4:10",
                "src/ledger.ts:9:3",
                "src/posting.ts:12:1"
            ]
        );
        assert!(read[0].2.as_deref().unwrap().starts_with("Unexpected var"));
    }

    #[test]
    fn rows_of_a_drawn_table_are_findings_however_the_table_is_drawn() {
        let log = concat!(
            "┌──────────────┬───────┬─────────┬──────────────────────┐\n",
            "│ File         │ Place │ Level   │ Message              │\n",
            "├──────────────┼───────┼─────────┼──────────────────────┤\n",
            "│ lib/a.rb     │ 3:1   │ error   │ Trailing whitespace  │\n",
            "│ lib/b.rb     │ 7:12  │ error   │ Line is too long     │\n",
            "└──────────────┴───────┴─────────┴──────────────────────┘\n",
            "Found 2 errors\n",
        );
        let read = read_log(log);
        assert_eq!(read.len(), 2, "{read:?}");
        assert_eq!(read[1].1.as_deref(), Some("lib/b.rb:7:12"));
        assert!(read[1].2.as_deref().unwrap().contains("Line is too long"));
    }

    #[test]
    fn a_count_that_disagrees_reads_nothing() {
        let log = concat!(
            "a.py\n",
            "  1:1 error one thing wrong\n",
            "  2:1 error another thing wrong\n",
            "5 errors\n",
        );
        assert!(read_log(log).is_empty());
    }

    #[test]
    fn marked_headers_take_the_line_the_records_do_not_share_as_message() {
        let log = concat!(
            "  ✗ rounds cents\n",
            "      Stack:\n",
            "      expected 2.67 to equal 2.68\n",
            "  ✗ closes the ledger\n",
            "      Stack:\n",
            "      ledger still open after close()\n",
            "\n",
            "2 failed\n",
        );
        let read = read_log(log);
        assert_eq!(read.len(), 2, "{read:?}");
        assert_eq!(read[0].1.as_deref(), Some("rounds cents"));
        assert_eq!(read[0].2.as_deref(), Some("expected 2.67 to equal 2.68"));
        assert_eq!(
            read[1].2.as_deref(),
            Some("ledger still open after close()")
        );
    }

    #[test]
    fn with_no_count_only_lines_that_each_say_a_failure_of_their_own() {
        let log = concat!(
            "checking lib/
",
            "  src/a.ts:4:1 error no var here
",
            "  src/b.ts:9:2 error no tabs here
",
            "done
",
        );
        assert_eq!(read_log(log).len(), 2);
        let same = concat!(
            "  ✗ retrying
",
            "  ✗ retrying
",
            "done
"
        );
        assert!(read_log(same).is_empty());
        let unmarked = concat!(
            "  see src/a.ts:4:1
",
            "  see src/b.ts:9:2
"
        );
        assert!(read_log(unmarked).is_empty());
    }

    #[test]
    fn a_log_of_lists_under_headings_is_a_finding_per_item() {
        let log = concat!(
            "Unused dependencies\n",
            "* moment\n",
            "* chalk\n",
            "Missing dependencies\n",
            "* dayjs: ./src/index.js\n",
        );
        let read = read_log(log);
        let got = names_and_messages(&read);
        assert_eq!(
            got,
            [
                ("moment", "Unused dependencies: moment"),
                ("chalk", "Unused dependencies: chalk"),
                ("dayjs", "Missing dependencies: dayjs: ./src/index.js"),
            ]
        );
        // Prose between the lists, or a list with no heading, is no such log.
        let prose = concat!(
            "Unused dependencies\n",
            "* moment\n",
            "  see the docs for how to remove them, and why it matters here\n",
            "* chalk\n",
        );
        assert!(read_log(prose).is_empty());
        assert!(read_log("* one\n* two\n").is_empty());
        assert!(read_log("Changes:\n- adds a parser\n- fixes the tests\n").is_empty());
    }

    #[test]
    fn rows_about_subjects_under_a_file_header_are_its_findings() {
        let log = concat!(
            "diagrams/order.bpmn\n",
            "  OrderProcess  error  Process is missing end event   end-event-required\n",
            "  Task_Orphan   error  Element is missing label/name  label-required\n",
            "\n",
            "diagrams/refund.bpmn\n",
            "  R3        warning  SequenceFlow is a duplicate        no-duplicate-flows\n",
            "\n",
            "3 problems (2 errors, 1 warning)\n",
        );
        let read = read_log(log);
        let got = names_and_messages(&read);
        assert_eq!(
            got,
            [
                (
                    "diagrams/order.bpmn: OrderProcess",
                    "Process is missing end event end-event-required"
                ),
                (
                    "diagrams/order.bpmn: Task_Orphan",
                    "Element is missing label/name label-required"
                ),
                (
                    "diagrams/refund.bpmn: R3",
                    "SequenceFlow is a duplicate no-duplicate-flows"
                ),
            ]
        );
        // A sentence whose second word is a severity is no row.
        let prose = concat!(
            "Build error in the second stage of the pipeline\n",
            "Fatal error while linking the final binary here\n",
            "2 errors\n",
        );
        assert!(read_log(prose).is_empty(), "{:?}", read_log(prose));
    }

    #[test]
    fn numbered_lines_under_a_banner_are_placed_by_their_line() {
        let log = concat!(
            "docs/guide.md\n",
            "ERROR\n",
            "  Line 4: HEADING_SKIPPED (MD001) heading levels skip\n",
            "  Line 19: BARE_URL (MD034) bare URL used\n",
            "2 errors found\n",
        );
        let read = read_log(log);
        assert_eq!(read.len(), 2, "{read:?}");
        assert_eq!(read[0].1.as_deref(), Some("docs/guide.md:4"));
    }
}
