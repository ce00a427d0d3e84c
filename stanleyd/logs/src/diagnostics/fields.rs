//! Findings given as records of labelled fields (issue 46): lines of one indent and one mark,
//! each `label: value`, one field naming the file (`· erroring file: dist/a.js`), one saying
//! what is wrong (`· error: SyntaxError: Unexpected token (3:43)`); the line from the file's
//! place, the message's closing position or a `line` field. And a record on one line as
//! `key=value` pairs (`Violation: Rule=EmptyCatch P=2 Line=31 Msg=[…]`, `level=error file=a.go
//! line=3 msg="…"`), its file a pair or the file a heading above names.

use super::{Diagnostic, MAX_LINES, Severity, path_like};
use crate::line::indent;

/// Labels whose value says what is wrong, the most telling first.
const SAYS: [&str; 8] = [
    "error",
    "message",
    "reason",
    "problem",
    "issue",
    "description",
    "warning",
    "details",
];

/// A field line: its indent, its mark (`·`, `-`, `*`, `•`, `|` or none), its label (one to
/// three words of letters) and its value.
fn field(line: &str) -> Option<(usize, &str, &str, &str)> {
    let t = line.trim_start();
    let (mark, rest) = match t.split_once(' ') {
        Some((m, rest)) if matches!(m, "·" | "-" | "*" | "•" | "|") => (m, rest.trim_start()),
        _ => ("", t),
    };
    let (label, value) = rest.split_once(": ")?;
    let value = value.trim();
    let words = label.split(' ').count();
    ((1..=3).contains(&words)
        && !value.is_empty()
        && label
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == ' ' || c == '-'))
    .then_some((indent(line), mark, label, value))
}

/// The file a value names and the line when it gives one: a place (`a.js:3:43`) anywhere in
/// it, or a path as its first word.
fn file_of(value: &str) -> Option<(&str, Option<u64>)> {
    for word in value.split_whitespace() {
        if let Some((path, number, _)) = super::location(word) {
            return Some((path, Some(number)));
        }
    }
    let first = value.split_whitespace().next()?;
    let first = first.trim_matches(['"', '\'', '`', ',']);
    (path_like(first) && first.contains(['.', '/'])).then_some((first, None))
}

/// The line a message gives at its end: `(3:43)`, `(line 3)`, `[3:43]`.
fn closing_line(message: &str) -> Option<u64> {
    let t = message.trim_end();
    let inner = t
        .strip_suffix(')')
        .and_then(|t| t.rsplit_once('('))
        .or_else(|| t.strip_suffix(']').and_then(|t| t.rsplit_once('[')))?
        .1;
    let inner = inner.strip_prefix("line ").unwrap_or(inner);
    let line = inner.split_once(':').map_or(inner, |(l, _)| l);
    crate::text::whole_number(line)
        .then(|| line.parse().ok())
        .flatten()
}

/// A record of two fields or more at `i` that names a file and says what is wrong: one finding
/// there. Pushed to `out`; the line after the record, or None.
pub(super) fn field_record(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let (depth, mark, ..) = field(&lines[i])?;
    // (The record's first line: the line above is none of its fields.)
    if i > 0
        && !covered[i - 1]
        && field(&lines[i - 1]).is_some_and(|(d, m, ..)| d == depth && m == mark)
    {
        return None;
    }
    let mut fields = Vec::new();
    let mut k = i;
    while k < lines.len() && k - i < MAX_LINES && !covered[k] {
        match field(&lines[k]) {
            Some((d, m, label, value)) if d == depth && m == mark => fields.push((label, value)),
            _ => break,
        }
        k += 1;
    }
    let label_is = |label: &str, word: &str| {
        label
            .split(' ')
            .any(|w| w.eq_ignore_ascii_case(word) || w.eq_ignore_ascii_case(&format!("{word}s")))
    };
    // (A record that names its test is a test's failure, the test readers'.)
    let tested = fields.iter().any(|(label, _)| {
        ["test", "case", "spec", "scenario", "example"]
            .iter()
            .any(|w| label.eq_ignore_ascii_case(w))
    });
    if fields.len() < 2 || tested {
        return None;
    }
    let (path, from_place) = fields
        .iter()
        .filter(|(label, _)| {
            ["file", "path", "location"]
                .iter()
                .any(|w| label_is(label, w))
        })
        .find_map(|(_, value)| file_of(value))?;
    let (said_by, message) = SAYS.iter().find_map(|word| {
        fields
            .iter()
            .find(|(label, _)| label_is(label, word))
            .map(|&(label, value)| (label, value))
    })?;
    let line = from_place.or_else(|| closing_line(message)).or_else(|| {
        fields
            .iter()
            .find(|(label, _)| label.eq_ignore_ascii_case("line"))
            .and_then(|(_, v)| crate::text::leading_number(v))
            .map(|(n, _)| n)
    });
    let severity = if label_is(said_by, "warning") {
        Severity::Warning
    } else {
        Severity::Error
    };
    let place = match line {
        Some(n) => format!("{path}:{n}"),
        None => path.to_owned(),
    };
    out.push(Diagnostic::new(
        &lines[i..k],
        i,
        place.clone(),
        message.to_owned(),
        None,
        place,
        severity,
    ));
    Some(k)
}

/// Keys whose value is the line a record points at.
const LINE_KEYS: [&str; 5] = ["line", "lineno", "linenumber", "line_number", "ln"];
/// Keys whose value is the file.
const FILE_KEYS: [&str; 4] = ["file", "path", "filename", "file_name"];
/// Keys whose value says what is wrong, the most telling first.
const MESSAGE_KEYS: [&str; 6] = ["msg", "message", "text", "description", "reason", "error"];
/// Keys whose value is the rule or check that found it.
const RULE_KEYS: [&str; 5] = ["rule", "check", "code", "rule_id", "ruleid"];

/// A line's `key=value` pairs, past at most two words that label the record (`Violation:`): a
/// value is a word, a quoted string or a bracketed one (`[if (a[0]) {]`, brackets balanced or
/// running to the next key). None for a line with fewer than three pairs or other words
/// between them.
fn pairs(line: &str) -> Option<Vec<(&str, &str)>> {
    let mut rest = line.trim();
    let mut labels = 0;
    let mut out = Vec::new();
    while !rest.is_empty() {
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let Some((key, _)) = rest[..word_end].split_once('=').filter(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }) else {
            if !out.is_empty() || labels == 2 {
                return None;
            }
            labels += 1;
            rest = rest[word_end..].trim_start();
            continue;
        };
        let after = &rest[key.len() + 1..];
        let (value, used) = match after.chars().next() {
            Some('"') => {
                let close = after[1..].find('"')? + 1;
                (&after[1..close], close + 1)
            }
            Some('[') => bracketed(after)?,
            _ => {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                (&after[..end], end)
            }
        };
        out.push((key, value));
        rest = after[used..].trim_start();
    }
    (out.len() >= 3).then_some(out)
}

/// A value in brackets at the start of `text`: (inside, bytes used). Brackets inside it nest
/// (`[The variable [x] is not used]`); one left open closes before the next ` key=` or at the
/// line's end.
fn bracketed(text: &str) -> Option<(&str, usize)> {
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some((&text[1..at], at + 1));
                }
            }
            _ => {}
        }
    }
    // (Unbalanced: `Src=[} catch (e) {]` ends where its bracket closes before the next key.)
    let next_key = text
        .match_indices(" ")
        .map(|(at, _)| at)
        .find(|&at| pairs_key_at(&text[at + 1..]));
    let end = next_key.unwrap_or(text.len());
    let inside = text[1..end].trim_end();
    Some((inside.strip_suffix(']').unwrap_or(inside), end))
}

/// Whether `text` starts with a `key=`.
fn pairs_key_at(text: &str) -> bool {
    text.split_once('=').is_some_and(|(k, _)| {
        !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The value of the first key of `keys` (compared without case) a record has.
fn value_of<'a>(pairs: &[(&str, &'a str)], keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|want| {
        pairs
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(want))
            .map(|&(_, v)| v)
    })
}

/// What a record of pairs says: (file if it names one, line, what is wrong, the rule).
fn keyed(line: &str) -> Option<(Option<&str>, u64, &str, Option<&str>)> {
    let pairs = pairs(line)?;
    let number = value_of(&pairs, &LINE_KEYS)?;
    let number = crate::text::whole_number(number)
        .then(|| number.parse().ok())
        .flatten()?;
    let rule = value_of(&pairs, &RULE_KEYS).filter(|r| !r.is_empty());
    let said = value_of(&pairs, &MESSAGE_KEYS)
        .filter(|m| !m.trim().is_empty())
        .or(rule)?;
    let file = value_of(&pairs, &FILE_KEYS).filter(|f| path_like(f) && f.contains(['.', '/']));
    Some((file, number, said, rule))
}

/// The file a heading names: `File: PATH` (one or two words of letters before the colon), or
/// the path alone on its line.
fn file_heading(line: &str) -> Option<&str> {
    let t = line.trim();
    let path = match t.split_once(": ") {
        Some((label, path))
            if label.split(' ').count() <= 2
                && label.chars().all(|c| c.is_ascii_alphabetic() || c == ' ') =>
        {
            path.trim()
        }
        _ => t,
    };
    (path_like(path) && !path.contains(char::is_whitespace) && path.contains(['.', '/']))
        .then_some(path)
}

/// Records of `key=value` pairs that give a line and say what is wrong, at `i`: each a finding,
/// in the file a pair names or the file a heading names over them (`File: app/Order.groovy`
/// over `    Violation: Rule=EmptyCatchBlock P=2 Line=31 Msg=[The catch block is empty]`).
/// Pushed to `out`; the line after them, or None.
pub(super) fn keyed_records(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let heading = file_heading(&lines[i])
        .filter(|_| lines.get(i + 1).is_some_and(|next| keyed(next).is_some()));
    let first = i + usize::from(heading.is_some());
    keyed(lines.get(first)?)?;
    let mut k = first;
    while k < lines.len() && !covered[k] && k - first < super::MAX_LISTED {
        let Some((file, number, said, rule)) = keyed(&lines[k]) else {
            break;
        };
        let Some(file) = file.or(heading) else {
            break;
        };
        let severity = value_of(
            &pairs(&lines[k]).unwrap_or_default(),
            &["severity", "level"],
        )
        .and_then(super::severity_word)
        .unwrap_or(Severity::Error);
        let place = format!("{file}:{number}");
        out.push(Diagnostic::new(
            &lines[k..=k],
            k,
            place.clone(),
            said.to_owned(),
            rule.map(str::to_owned),
            place,
            severity,
        ));
        k += 1;
    }
    (k > first).then_some(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Diagnostic> {
        super::super::read_with(text, field_record)
    }

    #[test]
    fn a_record_that_names_its_file_and_what_is_wrong_is_a_finding() {
        let log = "\
check failed:
   - source file: web/app.css
   - problem: Unknown property 'colr' (12:4)
   - hint: did you mean color?

   - source file: web/print.css at web/print.css:3:1
   - reason: Unexpected brace
";
        let found = read(log);
        let said: Vec<(&str, &str)> = found
            .iter()
            .map(|d| (d.place.as_str(), d.found.message.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(
            said,
            [
                ("web/app.css:12", "Unknown property 'colr' (12:4)"),
                ("web/print.css:3", "Unexpected brace"),
            ]
        );
        assert_eq!(found[0].found.lines.len(), 3);
    }

    #[test]
    fn fields_that_name_no_file_or_say_nothing_wrong_are_none() {
        // A configuration echoed, a summary of counts.
        assert!(read("  name: web\n  version: 1.2.0\n  main: index.js\n").is_empty());
        assert!(read("  file: a.css\n  size: 12 kB\n").is_empty());
        assert!(read("  error: could not connect\n  retry: in 2 s\n").is_empty());
        // A record that names its test is the test's failure.
        assert!(read("  Test: grinds\n  File: a.cpp\n  Line: 3\n  Message: no\n").is_empty());
    }
}
