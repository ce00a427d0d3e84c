//! Findings in rows under a file's marked heading (issue 46): `x icons/a.svg` at the margin,
//! then indented rows that each give a position among their first words (`  x attr-1 3:4
//! Attribute 'fill' is disallowed`), deeper rows continuing them; a row with the rows' mark
//! and no position is a finding about the whole file. A tool that counts lines from zero says
//! so by a line 0, and every line of the reading is then counted from one.

use super::{Diagnostic, MAX_LINES, Severity, path_like};
use crate::line::indent;
use crate::text::whole_number;

/// A mark a tool puts before a heading or a row: one or two characters, no figure, one letter
/// at most (`x`, `✖`, `!`, `⚠`, `--`).
fn mark(word: &str) -> bool {
    let n = word.chars().count();
    (1..=2).contains(&n)
        && !word.chars().any(|c| c.is_ascii_digit())
        && word.chars().filter(|c| c.is_alphabetic()).count() <= usize::from(n == 1)
}

/// What a mark says: a warning for `!` and `⚠`, else an error.
fn marked_severity(word: &str) -> Severity {
    if word.contains(['!', '⚠']) {
        Severity::Warning
    } else {
        Severity::Error
    }
}

/// A heading at the margin that is a mark and a file and nothing else: (mark, path).
fn heading(line: &str) -> Option<(&str, &str)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let mut words = line.split_whitespace();
    let (first, second) = (words.next()?, words.next()?);
    (words.next().is_none() && mark(first) && path_like(second) && second.contains(['.', '/']))
        .then_some((first, second))
}

/// A position as a word: `3:4`, `(3:4)`, `[3:4]`, `3`: the line.
fn position(word: &str) -> Option<u64> {
    let w = word.trim_matches(|c| "()[]".contains(c));
    let line = w
        .split_once(':')
        .map_or(w, |(l, c)| if whole_number(c) { l } else { "" });
    whole_number(line).then(|| line.parse().ok()).flatten()
}

/// A row under a heading: its mark, a position among its first three words and the words
/// before it (a rule), the message after it.
struct Row<'a> {
    mark: &'a str,
    line: Option<u64>,
    rule: Option<&'a str>,
    message: &'a str,
}

fn row(line: &str) -> Option<Row<'_>> {
    let t = line.trim_start();
    let (first, rest) = t.split_once(' ')?;
    if !mark(first) {
        return None;
    }
    let rest = rest.trim_start();
    let words: Vec<&str> = rest.split_whitespace().take(3).collect();
    let at = words.iter().position(|w| position(w).is_some());
    let (line, rule, message) = match at {
        // A position first or after a rule (one word).
        Some(at @ (0 | 1)) => {
            let rule = (at == 1).then(|| words[0]);
            let after = rest.split_once(words[at])?.1.trim();
            (position(words[at]), rule, after)
        }
        _ => {
            // No position: a rule and what it says of the whole file.
            let (rule, said) = rest.split_once(' ')?;
            (None, Some(rule), said.trim())
        }
    };
    (message.split_whitespace().count() >= 2).then_some(Row {
        mark: first,
        line,
        rule,
        message,
    })
}

/// Headings and the rows under them from `i`: one finding per row, placed at its file and line
/// (or about the whole file), at least two with a position. Pushed to `out`; the line after
/// the last row, or None. A reading that is none sets `looked` to its end: one starting at a
/// heading inside it reads a part of it, none either.
pub(super) fn rows_under_marked_files(
    lines: &[String],
    covered: &[bool],
    i: usize,
    looked: &mut usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    if i < *looked {
        return None;
    }
    let (head_mark, _) = heading(&lines[i])?;
    // (row start, end, file, row)
    let mut found: Vec<(usize, usize, &str, Row<'_>)> = Vec::new();
    let mut file = None;
    let mut k = i;
    while k < lines.len() && !covered[k] && found.len() < MAX_LINES * 25 {
        let line = &lines[k];
        if let Some((m, path)) = heading(line) {
            if m != head_mark {
                break;
            }
            file = Some(path);
            k += 1;
            continue;
        }
        let (Some(path), Some(r)) = (file, row(line)) else {
            break;
        };
        if !line.starts_with(char::is_whitespace) {
            break;
        }
        let depth = indent(line);
        let mut end = k + 1;
        while end < lines.len()
            && end - k < MAX_LINES
            && !covered[end]
            && !lines[end].trim().is_empty()
            && indent(&lines[end]) > depth
            && row(&lines[end]).is_none_or(|_| indent(&lines[end]) > depth)
        {
            end += 1;
        }
        found.push((k, end, path, r));
        k = end;
    }
    if found.iter().filter(|(.., r)| r.line.is_some()).count() < 2 {
        *looked = k;
        return None;
    }
    let from_zero = found.iter().any(|(.., r)| r.line == Some(0));
    for (start, end, path, r) in &found {
        let detail: Vec<&str> = lines[start + 1..*end].iter().map(|l| l.trim()).collect();
        let message = std::iter::once(r.message)
            .chain(detail)
            .collect::<Vec<_>>()
            .join("\n");
        let (name, place) = match r.line {
            Some(n) => {
                let place = format!("{path}:{}", n + u64::from(from_zero));
                (place.clone(), place)
            }
            None => ((*path).to_owned(), (*path).to_owned()),
        };
        out.push(Diagnostic::new(
            &lines[*start..*end],
            *start,
            name,
            message,
            r.rule.map(str::to_owned),
            place,
            marked_severity(r.mark),
        ));
    }
    Some(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Diagnostic> {
        let mut looked = 0;
        super::super::read_with(text, |l, c, i, o| {
            rows_under_marked_files(l, c, i, &mut looked, o)
        })
    }

    #[test]
    fn rows_under_marked_headings_are_placed_in_their_file() {
        let log = "\
== checked 2 files ==
* docs/a.yml
  * key-dup 4:2 Duplicate key 'name' in mapping
      near: name: x
  * indent 9:1 Wrong indentation: expected 4 spaces
* docs/b.yml
  ! doc-start Missing document start marker in this file
  * indent 3:5 Wrong indentation: expected 2 spaces

2 files with problems
";
        let found = read(log);
        let placed: Vec<(&str, Option<&str>)> = found
            .iter()
            .map(|d| (d.place.as_str(), d.code.as_deref()))
            .collect();
        assert_eq!(
            placed,
            [
                ("docs/a.yml:4", Some("key-dup")),
                ("docs/a.yml:9", Some("indent")),
                ("docs/b.yml", Some("doc-start")),
                ("docs/b.yml:3", Some("indent")),
            ]
        );
        assert_eq!(
            found[0].found.message.as_deref(),
            Some("Duplicate key 'name' in mapping\nnear: name: x")
        );
        assert_eq!(found[2].severity, Severity::Warning);
    }

    #[test]
    fn a_line_zero_says_the_tool_counts_from_zero() {
        let log = "x a.svg\n  x root 0:0 Missing title element here\n  x attr 3:4 Attribute fill is disallowed\n";
        let places: Vec<String> = read(log).into_iter().map(|d| d.place).collect();
        assert_eq!(places, ["a.svg:1", "a.svg:4"]);
    }

    #[test]
    fn a_file_list_or_one_row_is_no_reading() {
        // Files listed with marks, nothing under them; one placed row alone.
        assert!(read("- src/a.rs\n- src/b.rs\n- src/c.rs\n").is_empty());
        assert!(read("x a.svg\n  x root 2:1 Missing title element here\n").is_empty());
    }
}
