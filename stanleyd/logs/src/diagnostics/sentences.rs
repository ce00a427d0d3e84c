//! Findings said in sentences (issue 46): a severity's label at the margin with the finding's
//! detail aligned under the label's text and no place at all (`ERROR: 'zoo:Cat' has duplicate
//! slots.` over `       Duplicate slot names:`), and a sentence over the row that places it
//! in words (`Unsupported operands … (code: unsupported_operation)` over `In a/b.py at line
//! 16`, then a numbered excerpt).

use super::{Diagnostic, MAX_LINES, Severity, path_like};
use crate::line::indent;

/// A severity's label at the margin and a sentence after it (`ERROR: 'a:B' has no slots, but
/// it could have.`): (severity, the column the sentence starts at, the sentence). A sentence is
/// three words or more and gives no place (a placed row is another reader's).
fn labelled_sentence(line: &str) -> Option<(Severity, usize, &str)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (label, rest) = line.split_once(": ")?;
    if label.contains(char::is_whitespace) {
        return None;
    }
    let severity = super::severity_word(label)?;
    let text = rest.trim_start();
    let column = line.len() - text.len();
    (text.split_whitespace().count() >= 3 && super::location(text).is_none()).then_some((
        severity,
        column,
        text.trim_end(),
    ))
}

/// The line after the rows aligned at `column` under the label row at `at` (each indented by
/// exactly that much, no blank between).
fn aligned_end(lines: &[String], covered: &[bool], at: usize, column: usize) -> usize {
    let mut k = at + 1;
    while k < lines.len()
        && k - at < MAX_LINES
        && !covered[k]
        && !lines[k].trim().is_empty()
        && indent(&lines[k]) == column
    {
        k += 1;
    }
    k
}

/// A run of findings each opened by the same severity label at the margin, at least one with
/// detail rows aligned under its sentence, and nothing between them: one finding each, named by
/// its sentence, its message the sentence and its detail. The alignment is what tells them from
/// a program's log lines. Pushed to `out`; the line after the run, or None. A run that is none
/// sets `looked` to its end: a run starting inside it is a part of it, none either (the reader
/// stays linear on a log of such lines).
pub(super) fn labelled_with_aligned_detail(
    lines: &[String],
    covered: &[bool],
    i: usize,
    looked: &mut usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    if covered[i] || i < *looked {
        return None;
    }
    let label = lines[i].split_once(": ")?.0;
    let mut records = Vec::new();
    let mut k = i;
    while k < lines.len() && !covered[k] && records.len() < MAX_LINES * 25 {
        let Some((severity, column, sentence)) = labelled_sentence(&lines[k]) else {
            break;
        };
        if !lines[k].starts_with(label) {
            break;
        }
        let end = aligned_end(lines, covered, k, column);
        records.push((k, end, severity, sentence));
        k = end;
    }
    if records.len() < 2 || records.iter().all(|&(at, end, ..)| end == at + 1) {
        *looked = k;
        return None;
    }
    for &(at, end, severity, sentence) in &records {
        let detail: Vec<&str> = lines[at + 1..end].iter().map(|l| l.trim()).collect();
        let message = std::iter::once(sentence)
            .chain(detail)
            .collect::<Vec<_>>()
            .join("\n");
        let name = sentence.trim_end_matches('.').to_owned();
        out.push(Diagnostic::new(
            &lines[at..end],
            at,
            name,
            message,
            None,
            String::new(),
            severity,
        ));
    }
    Some(k)
}

/// A row that is only a place in words: `In a/b.py at line 16`, `at a/b.py line 16`, `in
/// src/a.c, line 4`, `File a.lua, line 3:` (with a column after it or not): (path, line).
pub(super) fn place_sentence(line: &str) -> Option<(&str, u64)> {
    let t = line.trim().trim_end_matches([':', '.']);
    let t = ["In ", "in ", "At ", "at ", "File ", "file "]
        .iter()
        .find_map(|w| t.strip_prefix(w))?;
    let (path, after) = t.split_once(' ')?;
    let path = path.trim_end_matches(',').trim_matches(['"', '\'', '`']);
    if !path_like(path) || !path.contains(['.', '/']) {
        return None;
    }
    let after = after.trim_start();
    let after = ["at line ", "on line ", "line "]
        .iter()
        .find_map(|w| after.strip_prefix(w))?;
    let (number, rest) = crate::text::leading_number(after)?;
    let rest = rest.trim_start_matches(',').trim();
    let column_only = rest.is_empty()
        || ["column ", "col ", "at column "]
            .iter()
            .find_map(|w| rest.strip_prefix(w))
            .is_some_and(crate::text::whole_number);
    column_only.then_some((path, number))
}

/// A sentence at the margin (three words or more, no place in it) with perhaps detail rows
/// under it, then within five lines a row that only places it in words (`In a/b.py at line
/// 16`), then perhaps a numbered excerpt: one finding placed there, its message the sentence
/// and its indented detail. The report runs to the next line at the margin. Pushed to `out`;
/// the line after it, or None.
pub(super) fn sentence_over_worded_place(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let first = &lines[i];
    // (Words, not a command: `echo "$foo" $bar` quoted as a suggestion is none.)
    let words = first
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| ":,.;()[]".contains(c)))
        .filter(|w| w.len() >= 2 && w.chars().all(|c| c.is_alphabetic() || c == '_' || c == '-'))
        .count();
    if covered[i]
        || first.starts_with(char::is_whitespace)
        || words < 3
        || super::location(first).is_some()
        || place_sentence(first).is_some()
    {
        return None;
    }
    let mut detail = Vec::new();
    let mut at = None;
    for k in i + 1..lines.len().min(i + 6) {
        if covered[k] {
            return None;
        }
        let line = &lines[k];
        // (A place in words that ends with a colon heads the findings under it.)
        if let Some(place) = place_sentence(line) {
            if line.trim_end().ends_with(':') {
                return None;
            }
            at = Some((k, place));
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(char::is_whitespace) {
            return None;
        }
        detail.push(line.trim());
    }
    let (k, (path, number)) = at?;
    let mut end = k + 1;
    while end < lines.len()
        && end - i < MAX_LINES
        && !covered[end]
        && (lines[end].trim().is_empty() || lines[end].starts_with(char::is_whitespace))
    {
        end += 1;
    }
    let end = (i + 1..end)
        .rev()
        .find(|&e| !lines[e].trim().is_empty())
        .map_or(i + 1, |e| e + 1);
    let message = std::iter::once(first.trim())
        .chain(detail)
        .collect::<Vec<_>>()
        .join("\n");
    let code = first
        .trim_end()
        .strip_suffix(')')
        .and_then(|t| t.rsplit_once("(code: "))
        .map(|(_, code)| code.to_owned());
    let place = format!("{path}:{number}");
    out.push(Diagnostic::new(
        &lines[i..end],
        i,
        place.clone(),
        message,
        code,
        place,
        Severity::Error,
    ));
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    fn read(
        text: &str,
        reader: impl Fn(&[String], &[bool], usize, &mut usize, &mut Vec<Diagnostic>) -> Option<usize>,
    ) -> Vec<Diagnostic> {
        let lines = lines(text);
        let covered = vec![false; lines.len()];
        let (mut out, mut looked) = (Vec::new(), 0);
        let mut i = 0;
        while i < lines.len() {
            i = reader(&lines, &covered, i, &mut looked, &mut out).unwrap_or(i + 1);
        }
        out
    }

    #[test]
    fn labelled_sentences_keep_the_detail_aligned_under_them() {
        let log = "\
WARN: module 'pkg.a' imports 'pkg.b' though its layer forbids it.
      Layer order:
      - pkg.a
WARN: module 'pkg.c' is never imported by the package.
WARN: module 'pkg.d' imports itself through three other modules.
      Cycle: pkg.d -> pkg.e -> pkg.d
Done: 3 problems.
";
        let found = read(log, labelled_with_aligned_detail);
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(
            found[0].found.message.as_deref(),
            Some(
                "module 'pkg.a' imports 'pkg.b' though its layer forbids it.\nLayer order:\n- pkg.a"
            )
        );
        assert_eq!(found[0].found.lines.len(), 3);
        assert_eq!(
            found[1].found.name.as_deref(),
            Some("module 'pkg.c' is never imported by the package")
        );
        assert_eq!(found[2].severity, Severity::Warning);
    }

    #[test]
    fn labelled_lines_without_aligned_detail_are_left_to_the_other_readers() {
        // A program's log: labels alike, nothing aligned under them (nor a row that only
        // places itself: that is a placed row).
        let log = "\
ERROR: could not reach the mirror at first try
ERROR: could not reach the mirror at second try
ERROR: giving up after two tries
";
        assert!(read(log, labelled_with_aligned_detail).is_empty());
        let indented_deeper = "\
ERROR: could not reach the mirror at first try
          retrying in 2 seconds
ERROR: giving up after two tries
";
        assert!(read(indented_deeper, labelled_with_aligned_detail).is_empty());
    }

    #[test]
    fn a_place_sentence_is_a_row_that_only_places() {
        assert_eq!(place_sentence("In a/b.py at line 16"), Some(("a/b.py", 16)));
        assert_eq!(
            place_sentence("  at lib/x.pl line 4."),
            Some(("lib/x.pl", 4))
        );
        assert_eq!(
            place_sentence("in src/a.c, line 9, column 3"),
            Some(("src/a.c", 9))
        );
        assert_eq!(
            place_sentence("File \"m.lua\", line 3:"),
            Some(("m.lua", 3))
        );
        assert_eq!(place_sentence("In a/b.py at line 16 the call fails"), None);
        assert_eq!(place_sentence("in the morning at line 4"), None);
    }

    #[test]
    fn a_sentence_over_its_place_in_words_is_one_finding_there() {
        let log = "\
checking 2 modules

Return type mismatch: expected str, got int (code: bad_return)
  Cannot return int where str is declared

In pkg/util.py at line 7
   6: def name(x) -> str:
   7:     return 3
          ^

Call to undefined function 'frob' (code: undefined_name)
In pkg/main.py at line 12
  12:     frob()
          ^
";
        let found = read(log, |l, c, i, _, o| sentence_over_worded_place(l, c, i, o));
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].place, "pkg/util.py:7");
        assert_eq!(
            found[0].found.message.as_deref(),
            Some(
                "Return type mismatch: expected str, got int (code: bad_return)\nCannot return int where str is declared"
            )
        );
        assert_eq!(found[0].code.as_deref(), Some("bad_return"));
        assert_eq!(found[0].found.lines.len(), 7);
        assert_eq!(found[1].place, "pkg/main.py:12");
        assert_eq!(found[1].found.start, 10);
    }
}
