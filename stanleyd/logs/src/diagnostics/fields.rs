//! Findings given as records of labelled fields (issue 46): lines of one indent and one mark,
//! each `label: value`, one field naming the file (`· erroring file: dist/a.js`), one saying
//! what is wrong (`· error: SyntaxError: Unexpected token (3:43)`); the line from the file's
//! place, the message's closing position or a `line` field.

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
