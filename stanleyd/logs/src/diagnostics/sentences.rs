//! Findings said in sentences (issue 46): a severity's label at the margin with the finding's
//! detail aligned under the label's text and no place at all (`ERROR: 'zoo:Cat' has duplicate
//! slots.` over `       Duplicate slot names:`), and a sentence over the row that places it
//! in words (`Unsupported operands … (code: unsupported_operation)` over `In a/b.py at line
//! 16`, then a numbered excerpt), and rows that each name a file under a sentence that counts
//! them (`✖ Found 3 circular dependencies!` over `1) a.js > b.js` …).

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

/// The count a sentence states: its one whole number, before a word (`Found 3 circular
/// dependencies!`, `✖ Skipped 1 file`, `2 files have problems:`).
fn stated_count(line: &str) -> Option<usize> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let numbers: Vec<usize> = words
        .iter()
        .enumerate()
        .map(|(k, w)| (k, w.trim_start_matches('(')))
        .filter(|(k, w)| crate::text::whole_number(w) && *k + 1 < words.len())
        .filter_map(|(_, w)| w.parse().ok())
        .collect();
    let words_of_letters = words
        .iter()
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .count();
    match numbers.as_slice() {
        [n] if *n > 0 && words_of_letters >= 1 && words.len() <= 8 => Some(*n),
        _ => None,
    }
}

/// A row of a list: its text after a number (`1)`, `2.`) or a mark (`-`, `*`, `•`), or as it
/// is.
fn listed_row(line: &str) -> &str {
    let t = line.trim();
    let (head, rest) = t.split_once(' ').unwrap_or((t, ""));
    let numbered = head
        .strip_suffix([')', '.'])
        .is_some_and(crate::text::whole_number);
    if numbered || matches!(head, "-" | "*" | "•") {
        rest.trim_start()
    } else {
        t
    }
}

/// The one file a sentence names (`invalid queries in sql/reports.py (6 invalid SQL)`).
fn named_file(line: &str) -> Option<&str> {
    let mut files = line
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| "'\"`,;:()[]".contains(c)))
        .filter(|w| crate::text::file_with_extension(w));
    let file = files.next()?;
    files.next().is_none().then_some(file)
}

/// A row that opens with a line of the file its sentence names (`L2 - LIMIT must not be
/// negative`, `14: unused import`, `line 3 - …`): (the line, what the row says).
fn line_row(row: &str) -> Option<(u64, &str)> {
    let row = row.strip_prefix("line ").unwrap_or(row);
    let row = row.strip_prefix('L').unwrap_or(row);
    let (number, rest) = crate::text::leading_number(row)?;
    let said = [" - ", ": ", " — "]
        .iter()
        .find_map(|sep| rest.strip_prefix(sep))?
        .trim();
    (said.split_whitespace().count() >= 2).then_some((number, said))
}

/// A sentence at the margin that counts what is wrong (`✖ Found 3 circular dependencies!`),
/// then (after a blank line or not) exactly that many rows, each opening with a file (`1)
/// core/a.js > ui/b.js`, `./util/missing.js`), then a blank line or the end: one finding per
/// row, about its first file, its message the row. The count must agree. Pushed to `out`; the
/// line after the rows, or None.
pub(super) fn rows_under_a_counting_sentence(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let head = &lines[i];
    if covered[i] || head.starts_with(char::is_whitespace) || super::location(head).is_some() {
        return None;
    }
    let count = stated_count(head).filter(|&n| n <= MAX_LINES * 25)?;
    let mut k = i + 1;
    if lines.get(k).is_some_and(|l| l.trim().is_empty()) {
        k += 1;
    }
    let from = k;
    let mut rows = Vec::new();
    // (Or, under a sentence that names one file, rows that open with its line: `L2 - …`.)
    let file = named_file(head);
    while k < lines.len() && rows.len() <= count && !covered[k] && !lines[k].trim().is_empty() {
        let row = listed_row(&lines[k]);
        let first = row.split_whitespace().next()?;
        let placed = match file.zip(line_row(row)) {
            Some((file, (number, said))) => {
                let place = format!("{file}:{number}");
                (said, (place.clone(), place))
            }
            None => (row, super::word_place(first)?),
        };
        rows.push((k, placed.0, placed.1));
        k += 1;
    }
    let closed = k == lines.len() || lines[k].trim().is_empty();
    if rows.len() != count || !closed || from == k {
        return None;
    }
    for (at, row, (name, place)) in rows {
        out.push(Diagnostic::new(
            &lines[at..=at],
            at,
            name,
            row.to_owned(),
            None,
            place,
            Severity::Error,
        ));
    }
    Some(k)
}

/// The two sides of a comparison a field may label: what was wanted, what was there.
const WANTED: [&str; 3] = ["expected", "wanted", "want"];
const THERE: [&str; 5] = ["actual", "got", "received", "found", "was"];

/// A field row under a sentence: its label, lower-cased.
fn field_label(line: &str) -> Option<String> {
    let t = line.trim_start();
    let (label, value) = t.split_once(':')?;
    (line.starts_with(char::is_whitespace)
        && !label.is_empty()
        && label.len() <= 20
        && label.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
        && (value.is_empty() || value.starts_with(' ')))
    .then(|| label.to_ascii_lowercase())
}

/// A sentence at the margin that names what it found wrong, over indented fields that give
/// what was expected and what was there (`detected invalid host for package: ms@2.1.3` over
/// `    expected: registry.npmjs.org` and `    actual: mirror.example`): one finding with no
/// place, named by the sentence, its message the sentence and the fields. Pushed to `out`; the
/// line after the fields, or None.
pub(super) fn sentence_over_expectation(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let first = lines[i].trim_end();
    // (A test's verdict over its values, `* fail: … executed` over `got:` and `wanted:`, is
    // the test's report: the sentence opens with a word and says no test failed.)
    let verdict = || {
        first
            .split_whitespace()
            .take(3)
            .any(|w| crate::line::failed_verdict(w.trim_matches(|c: char| !c.is_alphanumeric())))
    };
    if covered[i]
        || !first.starts_with(char::is_alphanumeric)
        || field_label(lines.get(i + 1).map_or("", String::as_str)).is_none()
        || verdict()
        || first.split_whitespace().count() < 3
        || first.ends_with(':')
        || super::location(first).is_some()
    {
        return None;
    }
    let mut labels = Vec::new();
    let mut k = i + 1;
    while k < lines.len() && k - i <= 6 && !covered[k] {
        match field_label(&lines[k]) {
            Some(label) => labels.push(label),
            None => break,
        }
        k += 1;
    }
    let has = |words: &[&str]| labels.iter().any(|l| words.contains(&l.as_str()));
    if !has(&WANTED) || !has(&THERE) || labels.len() > 4 {
        return None;
    }
    let message = lines[i..k]
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join("\n");
    out.push(Diagnostic::new(
        &lines[i..k],
        i,
        first.to_owned(),
        message,
        None,
        String::new(),
        Severity::Error,
    ));
    Some(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(
        text: &str,
        mut reader: impl FnMut(
            &[String],
            &[bool],
            usize,
            &mut usize,
            &mut Vec<Diagnostic>,
        ) -> Option<usize>,
    ) -> Vec<Diagnostic> {
        let mut looked = 0;
        super::super::read_with(text, |l, c, i, o| reader(l, c, i, &mut looked, o))
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
    fn rows_under_a_sentence_that_counts_them_are_findings_about_their_files() {
        let log = "\
Scanned 14 modules
x Found 2 import cycles!

1) lib/a.py > lib/b.py
2) lib/c.py > lib/d.py > lib/c.py

x Could not resolve 1 module

./lib/gone.py
";
        let found = read(log, |l, c, i, _, o| {
            rows_under_a_counting_sentence(l, c, i, o)
        });
        let said: Vec<(&str, &str)> = found
            .iter()
            .map(|d| (d.place.as_str(), d.found.message.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(
            said,
            [
                ("lib/a.py", "lib/a.py > lib/b.py"),
                ("lib/c.py", "lib/c.py > lib/d.py > lib/c.py"),
                ("./lib/gone.py", "./lib/gone.py"),
            ]
        );
    }

    #[test]
    fn a_count_that_does_not_agree_with_the_rows_reads_nothing() {
        // "Scanned 14 modules" counts what was read, not what is wrong: 14 rows do not follow.
        let log = "Scanned 3 modules\nlib/a.py\nlib/b.py\n\nFound 1 cycle\n1) lib/a.py > lib/b.py\n2) lib/b.py > lib/a.py\n";
        assert!(
            read(log, |l, c, i, _, o| rows_under_a_counting_sentence(
                l, c, i, o
            ))
            .is_empty()
        );
    }

    #[test]
    fn a_sentence_over_what_was_expected_and_what_was_there_is_a_finding() {
        let log = "\
checking lock file
registry mismatch for dependency: left-pad@1.3.0
    expected: registry.example.org
    actual: mirror.example.net

registry mismatch for dependency: ms@2.1.3
    wanted: registry.example.org
    got: git+ssh
FAIL: pricing test rounds half up
    expected: 3
    actual: 2
Settings:
    expected: yes
    actual: no
";
        let found = read(log, |l, c, i, _, o| sentence_over_expectation(l, c, i, o));
        let names: Vec<&str> = found
            .iter()
            .filter_map(|d| d.found.name.as_deref())
            .collect();
        assert_eq!(
            names,
            [
                "registry mismatch for dependency: left-pad@1.3.0",
                "registry mismatch for dependency: ms@2.1.3"
            ]
        );
        assert_eq!(
            found[0].found.message.as_deref(),
            Some(
                "registry mismatch for dependency: left-pad@1.3.0\nexpected: registry.example.org\nactual: mirror.example.net"
            )
        );
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
