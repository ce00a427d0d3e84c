//! Rows that each hold a place, whatever else the tool puts around it (issue 46, D-191): a run
//! of unindented lines with a place (`path:line`, `path@line:col`, `path(line,col)`, in quotes or
//! parentheses) at the same word of each, the words before it of one shape (`E:`, `W:`;
//! `%Warning-WIDTH:`, `%Error-PINMISSING:`; `ERROR:tool:block`), is a tool's findings, one per
//! row, each named by its place, with the indented lines under it (a code frame, a note) as its
//! body. The shapes the other readers know come first; this is what is left of the principle
//! that a diagnostic is a place and a message, in whatever order the tool prints them.

use super::{Diagnostic, MAX_LINES, Severity, path_like, rule_like, severity_word};

/// Where in a file a row's place points: a line (and column), or an address inside a document
/// that has no lines to speak of (a JSON path `$.ports[0]` or a JSON pointer `#/paths/~1a`, as
/// schema validators print them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spot<'a> {
    Line(u64, Option<u64>),
    /// The whole place as printed, the file and its address (`data/a.yaml::$.ports[0]`).
    Address(&'a str),
    /// The file as a whole (`error no-circular: src/a.js → src/b.js`, a dependency checker's
    /// finding about a module): only in a row a severity opens.
    File,
}

/// A place in one word: (path, where in it, the character that ends its path: `:`, `@`, `(`,
/// or `$` for an address).
fn place_in_word(word: &str) -> Option<(&str, Spot<'_>, char)> {
    let w = word.trim_matches(|c: char| "\"'`[]{},;".contains(c));
    let w = w
        .strip_prefix('(')
        .map_or(w, |inner| inner.trim_end_matches(')'));
    let w = w.trim_end_matches([':', '.', ',']);
    // `path::$.a.b`, `path#/a/b`, `path:$.a`: a document's address, a JSON path or pointer.
    for sep in ["::", "#", ":"] {
        if let Some((path, address)) = w.split_once(sep)
            && (address.len() > 1 && address.starts_with(['$', '/']) || address == "$")
            && placeable(path)
        {
            return Some((path, Spot::Address(w), '$'));
        }
    }
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    // `path:line[:col]`, `path@line[:col]`.
    for sep in ['@', ':'] {
        if let Some((path, rest)) = w.split_once(sep) {
            let (row, col) = rest.split_once(':').unwrap_or((rest, ""));
            if let Some(row) = number(row)
                && (col.is_empty() || number(col).is_some())
                && placeable(path)
            {
                return Some((path, Spot::Line(row, number(col)), sep));
            }
        }
    }
    // `path(line[,col])`.
    let (path, inside) = w.split_once('(')?;
    let inside = inside.trim_end_matches(')');
    let (row, col) = inside.split_once(',').unwrap_or((inside, ""));
    let row = number(row)?;
    (placeable(path) && (col.is_empty() || number(col).is_some()))
        .then(|| (path, Spot::Line(row, number(col)), '('))
}

/// A file and, as the next word, its line and column in brackets (`site/a.html (8:24) <i> is
/// never closed`, `a.lua [12]`): the place spread over two words.
fn position_after<'a>(word: &'a str, next: &str) -> Option<(&'a str, Spot<'a>, char)> {
    let path = word.trim_matches(|c: char| "\"'`".contains(c));
    let inside = next
        .trim_end_matches(':')
        .strip_prefix(['(', '['])?
        .strip_suffix([')', ']'])?;
    let (row, col) = inside
        .split_once([':', ','])
        .map_or((inside, None), |(r, c)| (r, Some(c)));
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    let row = number(row)?;
    let col = match col {
        Some(c) => Some(number(c)?),
        None => None,
    };
    placeable(path).then_some((path, Spot::Line(row, col), '('))
}

/// A path a row can name: a file with an extension or a path with a folder (a bare word before a
/// colon is a label: `ERROR:`, `main:`).
fn placeable(path: &str) -> bool {
    path_like(path)
        && (path.contains('/')
            || path.rsplit_once('.').is_some_and(|(stem, ext)| {
                (!stem.is_empty() || path.starts_with('.'))
                    && (ext.chars().any(|c| c.is_ascii_alphabetic())
                        // A manual page's section (`tidectl.1`).
                        || ext.len() == 1 && stem.chars().any(|c| c.is_ascii_alphabetic()))
            }))
}

/// A row: the index of the word that holds its place, the shape of the words before it, and the
/// place.
struct Row<'a> {
    at: usize,
    /// The place closes the row (`[TRY200] Use 'raise from' - a.py:21:8`): the words before it
    /// are the finding.
    end: bool,
    /// How the place is written (`:`, `@`, `(`): one tool writes its places one way.
    form: char,
    shape: String,
    /// How far the row is indented: the rows of one run are indented alike, under a line that
    /// introduces them (`Schema validation errors were encountered.`), and their bodies deeper.
    indent: usize,
    path: &'a str,
    spot: Spot<'a>,
}

/// The place of a line, the first word that is one (not a stack frame's, nor a URL's), with
/// the shape of the words before it: their punctuation, letters and figures masked (`E:` and
/// `W:` alike, `%Warning-WIDTH:` and `%Error-PIN:` alike).
fn row(line: &str) -> Option<Row<'_>> {
    if crate::line::stack_frame(line) {
        return None;
    }
    row_of(line)
}

/// A place in a frame's shape (`lib.py:10 in scale`) whose indented line under it says what
/// is wrong under a rule's code with a figure (`    SIG202: includes parameters that do not
/// exist`) is a finding about the function there: a frame's next line is its source or
/// another frame, not a coded finding.
fn coded_under(lines: &[String], k: usize) -> bool {
    lines.get(k + 1).is_some_and(|next| {
        let mut words = next.split_whitespace();
        next.starts_with(char::is_whitespace)
            && words
                .next()
                .is_some_and(|w| coded(w) && w.contains(|c: char| c.is_ascii_digit()))
            && words.count() >= 2
    })
}

/// The row a line is, whatever its shape (`row`'s reading, a frame's shape allowed).
fn row_of(line: &str) -> Option<Row<'_>> {
    if line.trim().is_empty() {
        return None;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    // The place is among the first words (past them, a path in a message is what it talks
    // about), or it closes the row after a message of a few words.
    let first = words.iter().take(4).enumerate().find_map(|(k, w)| {
        place_in_word(w)
            .or_else(|| words.get(k + 1).and_then(|next| position_after(w, next)))
            .map(|p| (k, p))
    });
    let first = first
        .or_else(|| file_after_severity(&words))
        .or_else(|| file_before_severity(&words));
    // `message at PATH line N.` (Perl's `warn` and `die`, its linters'): the place in words
    // closes the row.
    // (Or before what the tool was reading there, after a comma: `… at a.pl line 16, near
    // "* 100"`.)
    if first.is_none()
        && let Some(k) = (1..words.len().saturating_sub(3)).rev().find(|&k| {
            words[k] == "at"
                && words[k + 2] == "line"
                && (k + 4 == words.len() || words[k + 3].ends_with(','))
                && placeable(words[k + 1])
        })
        && let Ok(n) = words[k + 3].trim_end_matches(['.', ',']).parse::<u64>()
        && words.len() >= 5
    {
        let file = words[k + 1];
        return Some(Row {
            at: k + 1,
            end: true,
            form: 'l',
            shape: String::new(),
            indent: crate::line::indent(line),
            path: file,
            spot: Spot::Line(n, None),
        });
    }
    let (at, (path, spot, form), end) = match first {
        Some((at, place)) => (at, place, false),
        // (After an arrow, the place is where what the words name is: `name => ./a_test.ts:8:6`,
        // a test's header, no finding.)
        None if words.len() >= 3 && words[words.len() - 2] != "=>" => {
            (words.len() - 1, place_in_word(words.last()?)?, true)
        }
        None => return None,
    };
    // An indented place with a line is a test's report's (`    parse_test.go:38: got 2`, under
    // `--- FAIL: TestVersion`) or a listing's (`  a.feature:23  Scenario name`); indented rows
    // under a verdict are findings only when they point into a document that has no lines.
    if line.starts_with(char::is_whitespace) && matches!(spot, Spot::Line(..)) {
        return None;
    }
    // A row that ends at its place is shaped by its first word (`[TRY200]`, `W:`).
    let head = if end { &words[..1] } else { &words[..at] };
    let shape: String = head
        .iter()
        .map(|w| {
            // (Rules' codes are one shape, `no-orphans:` and `not-to-unresolvable:`.)
            if coded(w) {
                return ":".to_owned();
            }
            // (A tree's branches are one shape, `├──` and `└──`.)
            w.chars()
                .filter(|c| !c.is_alphanumeric())
                .map(|c| {
                    if ('\u{2500}'..='\u{257f}').contains(&c) {
                        '─'
                    } else {
                        c
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(" ");
    Some(Row {
        at,
        end,
        form,
        shape,
        indent: crate::line::indent(line),
        path,
        spot,
    })
}

/// A row a severity word opens, a file among its next three words, as a whole (`error
/// no-orphans: src/lib/unused.js`): (the word's index, the place).
fn file_after_severity<'a>(words: &[&'a str]) -> Option<(usize, (&'a str, Spot<'a>, char))> {
    severity_of(words.first()?)?;
    words.iter().enumerate().skip(1).take(3).find_map(|(k, w)| {
        let path = w
            .trim_matches(|c: char| "\"'`[](){},;".contains(c))
            .trim_end_matches(':');
        (placeable(path) && !path.contains(':')).then_some((k, (path, Spot::File, '/')))
    })
}

/// A file and its colon right before a severity's word, among a row's first words, as a whole
/// (`core: ledger.pas: Warning: unit has no initialization section`, beside the same tool's
/// `core: ledger.pas(31): Warning: …`): (the file's index, the place).
fn file_before_severity<'a>(words: &[&'a str]) -> Option<(usize, (&'a str, Spot<'a>, char))> {
    words.windows(2).take(3).enumerate().find_map(|(k, pair)| {
        let path = pair[0].strip_suffix(':')?;
        (placeable(path)
            && !path.contains(':')
            && pair[1].ends_with(':')
            && severity_of(pair[1]).is_some())
        .then_some((k, (path, Spot::File, '/')))
    })
}

/// A rule's code as a word before a place, with its colon (`no-circular:`, `E501:`).
fn coded(word: &str) -> bool {
    word.strip_suffix(':')
        .is_some_and(|w| w.len() > 1 && rule_like(w))
}

/// Whether a line goes on with a row indented `depth` above it: indented deeper or under a
/// tree's guide, and no test's status line nor the run's counts.
fn under(line: &str, depth: usize) -> bool {
    // (A tree's guide goes on with its branch: `│   continued text` under `├── a.j2:3 …`.)
    let guided = depth == 0 && line.starts_with(['│', '┃', '|']) && row(line).is_none();
    !line.trim().is_empty()
        && (crate::line::indent(line) > depth || guided)
        && crate::line::status_name(line).is_none()
        && !crate::stated::states_counts(line)
}

/// The row at line `k` and how many lines it takes: one, or two when the tool wrapped the line
/// before the place that closes it (`[TRY003] Avoid long messages - `, then `src/a.py:13:8`
/// alone on the next line).
fn row_at(lines: &[String], k: usize) -> Option<(Row<'_>, usize)> {
    let line = &lines[k];
    if let Some(r) = row(line) {
        return Some((r, 1));
    }
    if coded_under(lines, k)
        && let Some(r) = row_of(line)
    {
        return Some((r, 1));
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let dangling = words
        .last()
        .is_some_and(|w| ["-", "–", "—"].contains(w) || w.len() > 1 && w.ends_with(':'));
    let next = lines.get(k + 1)?.trim();
    if !dangling || words.len() < 3 || next.contains(char::is_whitespace) {
        return None;
    }
    let (path, spot, form) = place_in_word(next)?;
    let joined = format!("{line} {next}");
    let wrapped = row(&joined)?;
    let shape = wrapped.shape.clone();
    if !wrapped.end || wrapped.at != words.len() {
        return None;
    }
    let r = Row {
        at: words.len(),
        end: true,
        form,
        shape,
        indent: crate::line::indent(line),
        path,
        spot,
    };
    Some((r, 2))
}

/// What the placed rows' reader keeps as it goes down a log: where it has looked up to, and
/// the runs it read as findings.
#[derive(Default)]
pub(super) struct Looked {
    /// The line up to which rows were looked at as the start of a run.
    to: usize,
    /// Each run read as findings, by its first row's line and its shape.
    runs: Vec<(usize, Kind)>,
}

/// What makes rows one tool's: where the place stands and how it is written, the shape of the
/// words before it, the indent.
#[derive(Clone, PartialEq, Eq)]
struct Kind {
    end: bool,
    at: usize,
    form: char,
    shape: String,
    indent: usize,
}

impl Kind {
    fn of(r: &Row<'_>) -> Self {
        Kind {
            end: r.end,
            at: r.at,
            form: r.form,
            shape: r.shape.clone(),
            indent: r.indent,
        }
    }
}

/// A run of placed rows starting at `i`, at least two of one shape with nothing but their bodies
/// between them, or one row alone of the kind of a run already read (the tool's findings with
/// the program's own output between them): one finding each. Returns the line after the run. A
/// run that is no list of findings sets `looked.to` to its end, so the rows inside it are not
/// looked at again as the start of a run (the reader stays linear on a trace that places every
/// line).
pub(super) fn placed_rows(
    lines: &[String],
    covered: &[bool],
    i: usize,
    looked: &mut Looked,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    if i < looked.to {
        return None;
    }
    let (first, _) = row_at(lines, i)?;
    // The rows of the run, with where each one's body ends.
    let mut rows: Vec<(usize, usize)> = Vec::new();
    let mut k = i;
    while k < lines.len() && !covered[k] {
        let Some((r, used)) = row_at(lines, k) else {
            break;
        };
        // (A label and a place alone over the same label's message is a record of its own,
        // SWI-Prolog's `Warning: a.pl:7:` over `Warning:    Singleton …`, no row.)
        if super::records::label_head(lines, k).is_some() {
            break;
        }
        if r.end != first.end
            || !first.end && (r.at != first.at || !same_head(&lines[i], &lines[k], first.at))
            // (A row about a whole file stands among rows with lines, however they write
            // them.)
            || r.form != first.form
                && !matches!(r.spot, Spot::File)
                && !matches!(first.spot, Spot::File)
            || r.shape != first.shape
            || r.indent != first.indent
        {
            break;
        }
        let mut end = k + used;
        while end < lines.len()
            && !covered[end]
            && end - k < MAX_LINES
            && under(&lines[end], first.indent)
        {
            end += 1;
        }
        rows.push((k, end));
        k = end;
    }
    let kind = Kind::of(&first);
    // (One row alone counts when a run of its kind, with the same words before the place,
    // was read.)
    let known = |rows: &[(usize, usize)]| {
        rows.len() == 1
            && looked.runs.iter().any(|(at, known)| {
                *known == kind && (first.end || same_head(&lines[*at], &lines[i], first.at))
            })
    };
    if !(rows.len() >= 2 || known(&rows)) || !findings(lines, &rows, &first) {
        looked.to = k;
        return None;
    }
    if rows.len() >= 2 && !looked.runs.iter().any(|(_, known)| *known == kind) {
        looked.runs.push((i, kind));
    }
    // (A label that groups the rows, `core:` then `api:`, is no rule of theirs.)
    let group = (!first.end)
        .then(|| {
            let heads: Vec<Vec<&str>> = rows
                .iter()
                .map(|&(k, _)| lines[k].split_whitespace().take(first.at).collect())
                .collect();
            (0..first.at).find(|&j| grouped(&heads, j))
        })
        .flatten();
    for &(start, end) in &rows {
        out.push(finding(lines, start, end, group)?);
    }
    // Rows with the run's label and no place, right after it, are the run's too.
    while k < lines.len()
        && !covered[k]
        && row_at(lines, k).is_none()
        && let Some((severity, message)) = unplaced_in_run(&lines[k], &lines[i])
    {
        out.push(Diagnostic::unplaced(lines, k, message, severity));
        k += 1;
    }
    Some(k)
}

/// What may stand before a place and vary from row to row: a severity (`E:`, `%Warning-X:`), a
/// count or a mark (`3.`, `*`), a bracketed tag (`[lint]`).
fn judged(word: &str) -> bool {
    severity_of(word).is_some()
        || !word.chars().any(char::is_alphabetic)
        || word.starts_with('[') && word.ends_with(']')
}

/// Whether two rows have the same head before their place at word `at`: each word judged in
/// both, or the same word (a tool's label, `mandoc:`).
fn same_head(a: &str, b: &str, at: usize) -> bool {
    a.split_whitespace()
        .zip(b.split_whitespace())
        .take(at)
        .all(|(x, y)| x == y || judged(x) && judged(y) || coded(x) && coded(y))
}

/// The operators an assertion prints between the two values it compared.
const COMPARISONS: [&str; 8] = ["!=", "==", "<", ">", "<=", ">=", "~=", "!=="];

/// Whether a run of rows (their first lines and body ends) whose places are at word `at` is a
/// list of findings, not a test's reports, a listing, a trace or a stack.
fn findings(lines: &[String], rows: &[(usize, usize)], first: &Row<'_>) -> bool {
    // (A row that ends at its place has its message before it, which varies.)
    let at = if first.end { 0 } else { first.at };
    // What stands before the place says how bad it is or counts the rows (`E:`, `%Warning-X:`,
    // `3.`, `[lint]`), or is the tool's label, the same on every row (`mandoc:`); a word that
    // varies there is a name (`1) TestRate: a.c:6: expected`, `2) TestFee: a.c:8: …`, a
    // test's report), and those rows are read elsewhere.
    let before = |k: usize| -> Vec<&str> { lines[k].split_whitespace().take(at).collect() };
    let heads: Vec<Vec<&str>> = rows.iter().map(|&(k, _)| before(k)).collect();
    for j in 0..at {
        // (A label ends with its colon: `crystal spec a_spec.cr:6 # …` is a command to run a
        // test again, a listing of what failed.)
        let same = heads.iter().all(|h| h[j] == heads[0][j]) && heads[0][j].ends_with(':');
        // (After a severity, a rule's code: `error no-circular: src/a.js → …`.)
        let ruled = heads
            .iter()
            .all(|h| coded(h[j]) && h.first().is_some_and(|w| severity_of(w).is_some()));
        if !same && !ruled && !grouped(&heads, j) && !heads.iter().all(|h| judged(h[j])) {
            return false;
        }
    }
    // A stack printed flush left is no list of findings: a frame names a function or an
    // address after its place, not what is wrong (`source/app/parse.d:3 [0x55fa…]`, `a.nim(12)
    // main`), and a trace passes through the language's own library.
    let after = |k: usize| -> Vec<&str> { said(lines, k) };
    // (A rule's code before the place says what is wrong: `error no-circular: src/a.js →`.)
    // (So does a comparison that failed, `(4 != 5)`, an assertion's values on either side.)
    let says_what = |k: usize| {
        let words = after(k);
        before(k).iter().any(|w| coded(w))
            || words.len() >= 2
                && words
                    .iter()
                    .any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
            || words.len() == 3 && COMPARISONS.contains(&words[1])
    };
    let framed = |k: usize| {
        after(k).first().is_some_and(|w| {
            w.trim_matches(|c: char| "[]()".contains(c))
                .strip_prefix("0x")
                .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
        }) || row_at(lines, k).is_some_and(|(r, _)| crate::text::foreign_frame(r.path))
    };
    // A trace that places every line (`a.cpp(10): Entering test case "x"`) says what went
    // wrong on a few: where some rows carry a severity and others none, the rows are no list
    // of findings, and the lines that are findings are read by what they say.
    let judged_rows = rows
        .iter()
        .filter(|&&(start, _)| {
            row_at(lines, start)
                .and_then(|(r, _)| severity_of_row(&lines[start], &r))
                .is_some()
        })
        .count();
    if judged_rows != 0 && judged_rows != rows.len() {
        return false;
    }
    // (A place under a test's verdict starts that test's message, not a finding.)
    // (A row of the run is not read as the verdict over the next.)
    let after_a_row = |start: usize| rows.iter().any(|&(_, end)| end == start);
    // (Most rows say what is wrong in words; a tag alone, `I: a:7: summary-not-capitalized`,
    // may stand among them.)
    let mute = rows.iter().filter(|&&(start, _)| !says_what(start)).count();
    if mute * 2 > rows.len()
        || rows.iter().any(|&(start, _)| {
            framed(start) || !after_a_row(start) && super::under_a_verdict(lines, start)
        })
    {
        return false;
    }
    true
}

/// Whether the labels at word `j` of rows' heads group them: each label (with its colon) holds
/// for a stretch of rows and gives way to another that does (`core: a.pas(3): …` on four rows,
/// then `api: b.pas(7): …`), the package or project the tool was checking, two at least. A test's name
/// varies from row to row (`1) TestRate: a.c:6: …`, `2) TestFee: a.c:8: …`); a label that
/// comes back after another is no group either.
fn grouped(heads: &[Vec<&str>], j: usize) -> bool {
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut last: Option<&str> = None;
    for h in heads {
        let label = h[j];
        if !label.ends_with(':') || label.len() < 3 {
            return false;
        }
        if last != Some(label) {
            if !seen.insert(label) {
                return false;
            }
            last = Some(label);
        }
    }
    // (One label on every row may be the rows' rule, `E501:`: that is read as before.)
    seen.len() >= 2 && seen.len() * 2 <= heads.len()
}

/// The width a terminal wraps at when nobody set one (a CI runner's, a pipe's `COLUMNS`).
const TERMINAL_WIDTH: usize = 80;

/// The finding of the row at `start`, its body up to `end`; `group`, the word before the place
/// that names the rows' group (a package), if one does.
fn finding(lines: &[String], start: usize, end: usize, group: Option<usize>) -> Option<Diagnostic> {
    let text = &lines[start];
    let (r, _) = row_at(lines, start)?;
    let words: Vec<&str> = text.split_whitespace().collect();
    let before = if r.end { &[][..] } else { &words[..r.at] };
    let after = said(lines, start);
    let severity = severity_of_row(text, &r).unwrap_or(Severity::Error);
    // A rule's code before the place (`error no-circular: src/a.js → src/b.js`) names what
    // the finding is: the code, and the message from it on, the place included.
    let ruled = before
        .iter()
        .enumerate()
        .position(|(k, w)| coded(w) && Some(k) != group);
    let code = ruled
        .map(|k| before[k].trim_end_matches(':').to_owned())
        .or_else(|| code_around_place(before, &after));
    // (A bracketed code that opens a row closed by its place is the code, not the message.)
    let tagged = r.end
        && code.is_some()
        && after
            .first()
            .is_some_and(|w| w.starts_with('[') && w.ends_with(']'));
    let after = if tagged { &after[1..] } else { &after[..] };
    let message = if let Some(k) = ruled {
        // The rule and what it says of the place, the lines the row goes on in included
        // (`error no-circular: src/a.js →` over `    src/b.js →`, `    src/a.js`).
        let mut m = words[k..].join(" ");
        for next in &lines[start + 1..end] {
            m.push(' ');
            m.push_str(next.trim());
        }
        m
    } else if let Some(m) = quoted_place(&words, &r) {
        m
    } else if coded_under(lines, start) && after.first() == Some(&"in") && after.len() == 2 {
        // (A frame's shape over a coded finding: the finding is what the code says.)
        lines[start + 1].trim().to_owned()
    } else {
        let m = after.join(" ");
        let m = m.trim_start_matches(':').trim();
        if m.is_empty() {
            lines[start + 1..end]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty())
                .unwrap_or(text.trim())
                .to_owned()
        } else {
            let mut m = m.to_owned();
            // A line the terminal wrapped goes on in the body's next lines, as prose (no code
            // frame's gutter): the next line's first word did not fit on the line above.
            let mut above = text.as_str();
            for next in &lines[start + 1..end] {
                let rest = next.trim_start_matches(['│', '┃', '|']).trim();
                let word = rest
                    .split_whitespace()
                    .next()
                    .map_or(0, |w| w.chars().count());
                if above.trim_end().chars().count() + 1 + word <= TERMINAL_WIDTH
                    || rest.is_empty()
                    || rest.contains(" | ")
                {
                    break;
                }
                m.push(' ');
                m.push_str(rest);
                above = next;
            }
            m
        }
    };
    let (name, place) = match r.spot {
        Spot::Line(line, col) => {
            let name = format!("{}:{line}", r.path);
            let place = col.map_or_else(|| name.clone(), |c| format!("{name}:{c}"));
            (name, place)
        }
        // (An address is named as the tool wrote it, its path and address joined as printed.)
        Spot::File => (r.path.to_owned(), r.path.to_owned()),
        Spot::Address(place) => (place.to_owned(), place.to_owned()),
    };
    Some(Diagnostic::new(
        &lines[start..end],
        start,
        name,
        message,
        code,
        place,
        severity,
    ))
}

/// The message of a row whose place is quoted in it (`ERROR:xenon:block "shipping/quote.py:46
/// taxes" has a rank of F`): the place is what the message talks about, so the message is the
/// row from the words before the place on, past the severity's label that is glued to the
/// first of them by a colon (`ERROR:xenon:block` says `block`).
fn quoted_place(words: &[&str], r: &Row<'_>) -> Option<String> {
    let place = words.get(r.at)?;
    if r.end || !place.starts_with(['"', '\'', '‘', '“']) {
        return None;
    }
    let mut said: Vec<&str> = Vec::new();
    for (k, w) in words[..r.at].iter().enumerate() {
        if k == 0 && severity_of(w).is_some() {
            said.extend(glued_word(w));
            continue;
        }
        said.push(w);
    }
    said.extend_from_slice(&words[r.at..]);
    Some(said.join(" "))
}

/// The files findings were placed in, by the name a line may give them before a colon: the
/// path as printed and its last component.
#[derive(Default)]
pub(super) struct Files {
    by_name: std::collections::HashMap<String, String>,
    /// How many of the findings were looked at.
    seen: usize,
}

impl Files {
    /// Takes in the places of the findings read since the last call.
    pub(super) fn update(&mut self, out: &[Diagnostic]) {
        for d in &out[self.seen.min(out.len())..] {
            let Some((path, _)) = d.place.split_once(':') else {
                continue;
            };
            if !placeable(path) {
                continue;
            }
            let base = path.rsplit('/').next().unwrap_or(path);
            self.by_name
                .entry(path.to_owned())
                .or_insert_with(|| path.to_owned());
            self.by_name
                .entry(base.to_owned())
                .or_insert_with(|| path.to_owned());
        }
        self.seen = out.len();
    }
}

/// A line that names, before its colon, a file findings were placed in, and says something of
/// it (`backup.timer: Timer unit lacks value setting. Refusing.` after
/// `/srv/units/backup.timer:5: Failed to parse …`): a finding about that whole file, named by
/// the file as its findings named it.
/// Pushed to `out` (the files first brought up to date with it); whether it was one.
pub(super) fn file_row(
    lines: &[String],
    i: usize,
    files: &mut Files,
    out: &mut Vec<Diagnostic>,
) -> bool {
    files.update(out);
    match whole_file_row(lines, i, files) {
        Some(d) => {
            out.push(d);
            true
        }
        None => false,
    }
}

fn whole_file_row(lines: &[String], i: usize, files: &Files) -> Option<Diagnostic> {
    let line = &lines[i];
    if files.by_name.is_empty() || line.starts_with(char::is_whitespace) {
        return None;
    }
    let (head, message) = line.split_once(": ")?;
    let message = message.trim();
    // (A message that ends with a colon heads what follows: `ring.c: In function 'pop':`.)
    if head.contains(char::is_whitespace)
        || message.split_whitespace().count() < 2
        || message.ends_with(':')
    {
        return None;
    }
    let file = files.by_name.get(head)?;
    let severity = severity_word(message.split_whitespace().next().unwrap_or(""));
    Some(Diagnostic::about_file(
        lines,
        i,
        file.clone(),
        message.to_owned(),
        severity.unwrap_or(Severity::Error),
    ))
}

/// The word a severity's label glues after its last colon (`ERROR:xenon:block` says `block`):
/// the message's first word.
fn glued_word(label: &str) -> Option<&str> {
    label
        .rsplit_once(':')
        .map(|(_, glued)| glued)
        .filter(|g| g.chars().any(char::is_alphabetic))
}

/// A row among a run's with no place, that opens with the severity and label the run's rows open
/// with (`ERROR:xenon:average complexity is ranked D` among `ERROR:xenon:block "a.py:3 f" …`):
/// a finding about the whole run, named by what it says.
fn unplaced_in_run(line: &str, first: &str) -> Option<(Severity, String)> {
    let word = line.split_whitespace().next()?;
    let label = |w: &str| w.rsplit_once(':').map(|(label, _)| label.to_owned());
    let (own, theirs) = (label(word)?, label(first.split_whitespace().next()?)?);
    if own != theirs || line.starts_with(char::is_whitespace) {
        return None;
    }
    let severity = severity_of(word)?;
    let rest = line.trim_start()[word.len()..].trim();
    let message = glued_word(word)
        .into_iter()
        .chain(Some(rest).filter(|r| !r.is_empty()))
        .collect::<Vec<_>>()
        .join(" ");
    (message.split_whitespace().count() >= 2).then_some((severity, message))
}

/// The code of a row with no rule's code before its place: a rule right after the place
/// (`CollapseIsinstanceChecks:`), or what a severity word before it carries (`%Warning-WIDTH:`).
fn code_around_place(before: &[&str], after: &[&str]) -> Option<String> {
    after
        .first()
        .map(|w| w.trim_matches(['[', ']']))
        .filter(|w| !w.is_empty() && severity_of(w).is_none())
        .filter(|w| {
            rule_like(w)
                || w.len() > 1
                    && w.ends_with(':')
                    && w.chars().all(|c| c.is_ascii_alphanumeric() || c == ':')
        })
        .map(|w| w.trim_end_matches(':').to_owned())
        .or_else(|| {
            before.iter().find_map(|w| {
                let (_, code) = w
                    .trim_start_matches('%')
                    .trim_end_matches(':')
                    .split_once('-')?;
                (!code.is_empty()).then(|| code.to_owned())
            })
        })
}

/// What the row at line `k` says besides its place and what stands before it: the words after
/// the place, or the words before it when the place closes the row (without the dash that
/// leads to the place).
fn said(lines: &[String], k: usize) -> Vec<&str> {
    let words: Vec<&str> = lines[k].split_whitespace().collect();
    match row_at(lines, k) {
        Some((r, _)) if r.end => {
            // (A place in words is part of what perl says: `… at a.pl line 6.`)
            if r.form == 'l' {
                return words;
            }
            let mut said = words[..r.at].to_vec();
            while said
                .last()
                .is_some_and(|w| !w.chars().any(char::is_alphanumeric))
            {
                said.pop();
            }
            said
        }
        Some((r, _)) => past_note(&words[r.at + 1..]).to_vec(),
        None => Vec::new(),
    }
}

/// The words after a place, past a note on the context in parentheses that opens them
/// (`(FILENAME=data.csv FNR=2) warning: …`, gawk's): the finding is what follows the note.
fn past_note<'a, 'b>(words: &'b [&'a str]) -> &'b [&'a str] {
    if words.first().is_some_and(|w| w.starts_with('(')) {
        let close = words.iter().take(6).position(|w| w.ends_with(')'));
        if let Some(k) = close
            && k + 1 < words.len()
        {
            return &words[k + 1..];
        }
    }
    words
}

/// The severity a row states (for one that ends at its place, in its first word).
fn severity_of_row(line: &str, r: &Row<'_>) -> Option<Severity> {
    if r.end {
        return line
            .split_whitespace()
            .next()
            .and_then(|w| severity_of(w.trim_matches(['[', ']'])));
    }
    severity_in(line, r.at)
}

/// The severity a row states: in a word before its place (at word `at`), or in the two after
/// (the second only after a rule's code: after a label, `SECURITY: warn call should …`, the
/// message has begun).
fn severity_in(line: &str, at: usize) -> Option<Severity> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let after = words.get(at + 1..).map_or(&[][..], past_note);
    let labelled = after.first().is_some_and(|w| {
        w.ends_with(':') && w.chars().any(char::is_alphabetic) && severity_of(w).is_none()
    });
    words[..at.min(words.len())]
        .iter()
        .chain(after.iter().take(if labelled { 1 } else { 2 }))
        .find_map(|w| severity_of(w))
}

/// A severity a word carries: `error`, `Warning:`, `%Warning-WIDTH:`, `ERROR:tool:block`,
/// `error(56):`, and the one-letter `E:`, `W:`, `I:`.
fn severity_of(word: &str) -> Option<Severity> {
    let w = word.trim_start_matches('%');
    match w {
        "E:" | "F:" => return Some(Severity::Error),
        "W:" | "I:" | "P:" | "N:" | "C:" | "R:" => return Some(Severity::Warning),
        _ => {}
    }
    // (A code in parentheses after the severity is the tool's: `error(56):`, ANTLR's.)
    let head = w.split([':', '-', '(']).next().unwrap_or(w);
    severity_word(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_severity_word_that_opens_a_labelled_message_is_the_message() {
        let log = "a.c:9 SECURITY: printf call should have a format\n\
                   a.c:12 SECURITY: warn call should have a format\n\
                   a.c:15 SECURITY: err call should have a format\n";
        let got = read(log);
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got.iter().all(|(_, _, s)| *s == Severity::Error));
    }

    fn read(text: &str) -> Vec<(String, Option<String>, Severity)> {
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let mut out = Vec::new();
        let (mut i, mut looked) = (0, Looked::default());
        while i < lines.len() {
            i = placed_rows(&lines, &vec![false; lines.len()], i, &mut looked, &mut out)
                .unwrap_or(i + 1);
        }
        out.into_iter()
            .map(|d| (d.found.name.unwrap_or_default(), d.code, d.severity))
            .collect()
    }

    #[test]
    fn a_frame_shaped_place_over_a_coded_finding_is_a_finding() {
        let log = "lib.py:1 in add\n    SIG203: parameters missing (params-missing)\n\
                   lib.py:10 in Store.put\n    SIG402: parameters out of order (params-out-of-order)\n";
        let lines: Vec<String> = log.lines().map(str::to_owned).collect();
        let mut out = Vec::new();
        placed_rows(&lines, &[false; 4], 0, &mut Looked::default(), &mut out);
        let said: Vec<(String, String)> = out
            .into_iter()
            .map(|d| {
                let message = d.found.message.unwrap_or_default();
                (d.found.name.unwrap_or_default(), message)
            })
            .collect();
        assert_eq!(
            said,
            [
                (
                    "lib.py:1".into(),
                    "SIG203: parameters missing (params-missing)".into()
                ),
                (
                    "lib.py:10".into(),
                    "SIG402: parameters out of order (params-out-of-order)".into()
                ),
            ]
        );
        // A traceback's frames over their source stay frames.
        assert!(
            read(
                "tests/a.py:3: in check\n    assert f() == 2\ntests/a.py:9: in f\n    return g(1)\n"
            )
            .is_empty()
        );
    }

    #[test]
    fn a_place_after_an_arrow_is_where_a_named_test_is() {
        assert!(row("night fare adds a quarter => ./fares_test.ts:8:6").is_none());
        assert!(row("[TRY200] Use 'raise from' - src/a.py:21:8").is_some());
    }

    #[test]
    fn rows_with_a_place_at_one_word_are_findings_whatever_surrounds_it() {
        let got = read(
            "%Warning-WIDTH: a.sv:25:23: Operator EQ expects 32 bits\n   25 | if (x == 1)\n      |    ^~\n\
             %Error-PINMISSING: a.sv:30:3: Cell has missing pin\n\
             done\n\
             mandoc: a.1:15:41: STYLE: whitespace at end of line\nmandoc: a.1:21:2: ERROR: missing end of block\n\
             E: org.x.desktop:4: license-invalid GPL\nW: org.x.desktop:20: invalid-date 2026-13-01\n\
             \n\
             ledger.py@53:11 CollapseChecks: can be collapsed\nledger.py@5:0 NoInherit: is a no-op\n\
             src/a.cs(12,5) warning: unused\nsrc/b.cs(3) error: missing\n",
        );
        assert_eq!(
            got,
            [
                (
                    "a.sv:25".to_owned(),
                    Some("WIDTH".to_owned()),
                    Severity::Warning
                ),
                (
                    "a.sv:30".to_owned(),
                    Some("PINMISSING".to_owned()),
                    Severity::Error
                ),
                ("a.1:15".to_owned(), None, Severity::Warning),
                ("a.1:21".to_owned(), None, Severity::Error),
                (
                    "org.x.desktop:4".to_owned(),
                    Some("license-invalid".to_owned()),
                    Severity::Error
                ),
                (
                    "org.x.desktop:20".to_owned(),
                    Some("invalid-date".to_owned()),
                    Severity::Warning
                ),
                (
                    "ledger.py:53".to_owned(),
                    Some("CollapseChecks".to_owned()),
                    Severity::Error
                ),
                (
                    "ledger.py:5".to_owned(),
                    Some("NoInherit".to_owned()),
                    Severity::Error
                ),
                ("src/a.cs:12".to_owned(), None, Severity::Warning),
                ("src/b.cs:3".to_owned(), None, Severity::Error),
            ]
        );
    }

    #[test]
    fn a_place_that_closes_the_row_a_dotfile_and_a_tree_guide_are_rows_too() {
        // The place closes the row: the words before it are the finding, the first its code.
        let got = read(
            "[TRY200] Use raise from to keep the cause - app/a.py:21:8\n\
             [E501] Line too long (120 > 88) - app/b.py:3:89\n",
        );
        assert_eq!(
            got,
            [
                (
                    "app/a.py:21".to_owned(),
                    Some("TRY200".to_owned()),
                    Severity::Error
                ),
                (
                    "app/b.py:3".to_owned(),
                    Some("E501".to_owned()),
                    Severity::Error
                ),
            ]
        );
        // A file whose name is all extension (`.env`) holds a place.
        let got = read(
            ".env:3 LowercaseKey: The foo key should be upper case
.env:7 DuplicatedKey: The BAR key is duplicated
",
        );
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].0, ".env:3");
        // A tree's guide goes on with the branch above it: one finding per branch.
        let got = read(
            "├── t/a.j2:3 S1 Lines should be no more than\n│   120 characters long\n\
             └── t/a.j2:9 S3 Indentation is not a multiple of four\n",
        );
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[1].0, "t/a.j2:9");
    }

    #[test]
    fn one_row_alone_frames_and_labels_are_no_findings() {
        // One line with a place is not a run.
        assert!(read("see a.py:3 for details\nnothing else\n").is_empty());
        // A traceback's frames are indented or frames; a label before a colon is no path.
        assert!(read("    at f (a.js:3:5)\n    at g (a.js:9:1)\n").is_empty());
        assert!(read("ERROR: boom\nERROR: bang\n").is_empty());
        // Rows of two shapes are two runs, each needing two rows.
        assert!(read("E: a.c:1: x y\n%Warning-X: b.c:2: y z\n").is_empty());
        // A name that varies before the place is a test's report; a command before it is a
        // listing of what to run again.
        assert!(read("1) TestRate: t.c:6: expected <7>\n2) TestFee: t.c:8: late fee\n").is_empty());
        assert!(read("crystal spec s/a_spec.cr:6 # Tariff applies\ncrystal spec s/a_spec.cr:9 # Tariff rounds\n").is_empty());
        // A trace that places every line, a few of them errors, is no list of findings.
        assert!(read("./a.cpp(10): Entering test case \"x\"\n./a.cpp(11): error: in \"x\": check failed\n./a.cpp(12): Leaving test case \"x\"\n").is_empty());
        // Frames flush left: an address or a function after the place, or the library's own.
        assert!(read("src/a.d:3 [0x55fabcbf741c]\nsrc/a.d:5 [0x55fabcbf7474]\n").is_empty());
        assert!(read("/p/t.nim(12) t\n/p/t.nim(30) main\n").is_empty());
        // A place that closes a line of prose is what the line talks about, alone.
        assert!(read("Run the file again - see a.py:3\nnothing else here\n").is_empty());
    }

    #[test]
    fn a_place_in_a_document_with_no_line_and_a_module_after_a_rule_are_places() {
        // A JSON path or pointer, rows indented alike under the verdict that introduces them.
        let got = read(
            "Schema validation errors were encountered.\n  a/b.yaml::$.ports[0]: 7 is not of type 'string'\n  a/c.yaml::$: 'name' is a required property\n",
        );
        let names: Vec<&str> = got.iter().map(|(n, ..)| n.as_str()).collect();
        assert_eq!(names, ["a/b.yaml::$.ports[0]", "a/c.yaml::$"]);
        // A severity and a rule's code before a module, a cycle going on under it.
        let got = read(
            "  warn no-orphans: src/old.js\n  error no-circular: src/a.js → \n      src/b.js →\n      src/a.js\n",
        );
        assert_eq!(
            got,
            [
                (
                    "src/old.js".into(),
                    Some("no-orphans".into()),
                    Severity::Warning
                ),
                (
                    "src/a.js".into(),
                    Some("no-circular".into()),
                    Severity::Error
                ),
            ]
        );
        // Indented, a place with a line is a test's report's body or a listing, no finding.
        assert!(
            read("--- FAIL: TestV\n    v_test.go:38: got 2\n    v_test.go:41: got 3\n").is_empty()
        );
        assert!(
            read("Failing scenarios:\n  a.feature:23  Pays by card\n  a.feature:30  Pays cash\n")
                .is_empty()
        );
    }

    /// A note on the context between the place and the severity (`(FILENAME=d.csv FNR=2)`,
    /// gawk's), and one row alone among the program's own output, of the kind of a run read
    /// before it: findings all.
    #[test]
    fn a_note_before_the_severity_and_a_lone_row_of_a_known_kind_are_findings() {
        let got = read(
            "gawk: src/sum.awk:6: warning: call of `length' without parentheses is not portable\n\
             gawk: src/sum.awk:4: (FILENAME=in.csv FNR=2) warning: reference to uninitialized element `t[\"a\"]'\n\
             widgets 3\n\
             gawk: src/sum.awk:9: (FILENAME=in.csv FNR=2) warning: reference to uninitialized variable `totl'\n\
             total 0\n\
             gawk: src/sum.awk:11: (FILENAME=in.csv FNR=3) fatal: division by zero attempted\n",
        );
        assert_eq!(
            got,
            [
                ("src/sum.awk:6".to_owned(), None, Severity::Warning),
                ("src/sum.awk:4".to_owned(), None, Severity::Warning),
                ("src/sum.awk:9".to_owned(), None, Severity::Warning),
                ("src/sum.awk:11".to_owned(), None, Severity::Error),
            ]
        );
        // One row alone of no kind read before is no finding.
        assert!(read("widgets 3\ngawk: src/sum.awk:9: warning: unused\ntotal 0\n").is_empty());
    }
}
