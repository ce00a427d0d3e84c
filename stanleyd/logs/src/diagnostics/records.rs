//! Findings whose place is not first on their line (issue 46): a record whose place is a
//! labelled field in its body (`>> Issue: [B602] …` over `   Location: ./a.py:4:4`), rows
//! that give a line number in a field under a header naming the file (`L:   1 | P:   1 | LT09
//! | …`, `L6 |<source>` over a `^ message` marker), and lists of files a tool would change,
//! closed by a count of files (`would reformat a.py` … `2 files would be reformatted`), and a
//! place alone heading its finding (`src/a.js:2:10 lint/rule  FIXABLE  ━━━━`, then the marked
//! message indented under it), and a severity and its place in one bracket before the text
//! (`[ERROR:/p/a.thrift:5] (last token was 'x')` over `syntax error`), and a place alone
//! over a code frame with the message under the frame (ReScript's).

use super::{Diagnostic, MAX_LINES, Severity, path_like, rule_like};
use crate::line::indent;
use crate::text::{leading_number, whole_number};

/// A finding named by its place as `path:line` and placed there, its report `lines[start..end]`.
fn at_line(
    lines: &[String],
    (start, end): (usize, usize),
    (path, number): (&str, u64),
    message: String,
    code: Option<String>,
    severity: Severity,
) -> Diagnostic {
    let place = format!("{path}:{number}");
    Diagnostic::new(
        &lines[start..end],
        start,
        place.clone(),
        message,
        code,
        place,
        severity,
    )
}

/// A labelled field that holds a place: `Location: ./a.py:4:4`, `File: src/a.c:3` (a single
/// word, then the place and nothing else): (path, line, the place as printed).
fn place_field(line: &str) -> Option<(&str, u64, &str)> {
    let (label, rest) = line.trim().split_once(": ")?;
    if label.is_empty() || !label.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let rest = rest.trim();
    let (path, number, used) = super::location(rest)?;
    (used == rest.len()).then_some((path, number, rest))
}

/// A labelled field, unindented: a label of up to three words, a colon, and its value
/// (`Secret Type: Slack Token`, `Location:    a.py:3`).
pub(super) fn labelled(line: &str) -> bool {
    !line.starts_with(char::is_whitespace)
        && line.split_once(": ").is_some_and(|(label, value)| {
            !value.trim().is_empty()
                && (1..=3).contains(&label.split(' ').count())
                && label.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
        })
}

/// A record whose place is a field in its indented body: the unindented line at `i` says what
/// was found, and one of the indented lines under it (before a blank line) is a labelled place;
/// or the record's fields each stand on a line of their own. (name, place, code, message).
pub(super) fn located_below(
    lines: &[String],
    i: usize,
) -> Option<(String, String, Option<String>, String)> {
    let line = &lines[i];
    if line.trim().is_empty() || line.starts_with(char::is_whitespace) {
        return None;
    }
    // (Or the record is fields, each on a line of its own, a paragraph of its own: `Secret
    // Type: AWS Access Key` over `Location:    config/a.py:3`, detect-secrets'. Fields right
    // under a verdict, `FAILURE` over `name: check-equal?` and `location: a.rkt:4:2`, are a
    // test's report.)
    let fielded = labelled(line) && (i == 0 || lines[i - 1].trim().is_empty());
    let (path, number, place) = lines[i + 1..]
        .iter()
        .take(8)
        .take_while(|l| {
            (l.starts_with(char::is_whitespace) || fielded && labelled(l)) && !l.trim().is_empty()
        })
        .find_map(|l| place_field(l))?;
    // (A test's status line over its report is the test's.)
    if crate::line::status_name(line).is_some() {
        return None;
    }
    // What was found, without the marks before it (`>> `).
    let message = line
        .trim()
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_owned();
    // Its code: the first bracketed word (`[B602:subprocess_popen_with_shell_equals_true]`).
    let code = message
        .split_once('[')
        .and_then(|(_, r)| r.split_once(']'))
        .map(|(c, _)| c.split(':').next().unwrap_or(c))
        .filter(|c| rule_like(c))
        .map(str::to_owned);
    Some((format!("{path}:{number}"), place.to_owned(), code, message))
}

/// A row under its file's header that starts with its line in a labelled field, then the
/// message, perhaps a severity in brackets at its end (`Line: 2 Unexpected spaces found.
/// [warning]`).
fn labelled_line_row(
    lines: &[String],
    i: usize,
    file: &str,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let t = lines[i].trim();
    let (label, rest) = t.split_once(' ')?;
    let (number, said) = rest.trim_start().split_once(' ')?;
    let row = line_field(&format!("{label} {number}"))?;
    let said = said.trim();
    let (message, severity) = match said
        .strip_suffix(']')
        .and_then(|r| r.rsplit_once(" ["))
        .and_then(|(m, s)| super::severity_word(s).map(|sev| (m.trim(), sev)))
    {
        Some((message, severity)) => (message, severity),
        None => (said, Severity::Error),
    };
    if message.split_whitespace().count() < 2 {
        return None;
    }
    let place = placed(file, row, None);
    out.push(Diagnostic::new(
        &lines[i..=i],
        i,
        place.clone(),
        message.to_owned(),
        None,
        place,
        severity,
    ));
    Some(i + 1)
}

/// A number in a labelled field (`L:   1`, `L6`, `line 3`, `P:  10`, `col 3`), when its label
/// is one of `labels`.
fn labelled_number(field: &str, labels: &[&str]) -> Option<u64> {
    let f = field.trim();
    let digits = f.trim_start_matches(|c: char| !c.is_ascii_digit());
    let label = f[..f.len() - digits.len()]
        .trim()
        .trim_end_matches(':')
        .trim();
    if !labels.contains(&label) || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    digits.parse().ok()
}

/// A line number in a field: `L:   1`, `L6`, `line 3`, `Line: 3`, `Ln 3`.
fn line_field(field: &str) -> Option<u64> {
    labelled_number(field, &["L", "Ln", "line", "Line", "LINE"])
}

/// A column in a field: `P:   5`, `C: 3`, `col 3`, `Col: 3`.
fn column_field(field: &str) -> Option<u64> {
    labelled_number(field, &["P", "C", "col", "Col", "column", "Column", "pos"])
}

/// A finding's place in `file`: its line, and its column when the tool gives one.
fn placed(file: &str, row: u64, column: Option<u64>) -> String {
    match column {
        Some(c) => format!("{file}:{row}:{c}"),
        None => format!("{file}:{row}"),
    }
}

/// The findings of the rows from `i` on, under a header that named the file `file`: each row
/// gives its line in a field, then its column, code and message in fields of their own
/// (`L:   1 | P:  10 | LT01 | Expected …` with `| …` lines continuing the message), or quotes
/// the source line with the message on a `^` marker under it (`L6 |<P>upper</P>` then `    ^
/// The html element name … (tagname-lowercase)`). Pushed to `out`; the line after the last.
pub(super) fn field_rows(
    lines: &[String],
    covered: &[bool],
    i: usize,
    file: &str,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let fields: Vec<&str> = lines[i].trim().split('|').collect();
    if fields.len() < 2 {
        return labelled_line_row(lines, i, file, out);
    }
    // A bare line number counts with a severity in the next field (`  2 | ERROR | [ ] …`,
    // phpcs's table): alone it is a quoted source row (`6 | total = …`).
    let judged = fields.get(1).and_then(|f| super::severity_word(f.trim()));
    let row = line_field(fields[0]).or_else(|| {
        let f = fields[0].trim();
        judged.and_then(|_| f.parse().ok())
    })?;
    let mut rest = &fields[1..];
    let mut severity = Severity::Error;
    if let Some(s) = judged.filter(|_| fields.len() >= 3) {
        severity = s;
        rest = &rest[1..];
    }
    let column = rest.first().and_then(|f| column_field(f));
    if column.is_some() {
        rest = &rest[1..];
    }
    let mut code = None;
    if rest.len() >= 2 {
        let c = rest[0].trim();
        if !c.is_empty() && !c.contains(' ') && rule_like(c) {
            code = Some(c.to_owned());
            rest = &rest[1..];
        }
    }
    let joined = rest.join("|");
    // A fixable mark before the message (`[ ]`, `[x]`) is no part of it.
    let joined = joined.trim();
    let joined = ["[ ] ", "[x] ", "[X] "]
        .iter()
        .find_map(|m| joined.strip_prefix(m))
        .unwrap_or(joined);
    let mut message = joined.trim().to_owned();
    let mut place = placed(file, row, column);
    let mut end = i + 1;
    while end < lines.len() && end - i < MAX_LINES && !covered[end] {
        let t = lines[end].trim();
        if let Some(more) = t.strip_prefix('|')
            && line_field(t).is_none()
        {
            // The message goes on in its column (past the empty cells of the columns before).
            let more = more.trim().trim_start_matches(['|', ' ']).trim();
            message = format!("{message} {more}");
        } else if let Some(marked) = t.strip_prefix("^ ").or_else(|| t.strip_prefix("^")) {
            // The row quoted the source; the marker under it says what is wrong there.
            let at = lines[end].len() - lines[end].trim_start().len();
            place = format!("{file}:{row}:{at}");
            message = marked.trim().to_owned();
            if code.is_none() {
                code = message
                    .strip_suffix(')')
                    .and_then(|m| m.rsplit_once('('))
                    .map(|(_, c)| c)
                    .filter(|c| rule_like(c))
                    .map(str::to_owned);
            }
        } else {
            break;
        }
        end += 1;
    }
    if message.is_empty() {
        return None;
    }
    out.push(Diagnostic::new(
        &lines[i..end],
        i,
        format!("{file}:{row}"),
        message,
        code,
        place,
        severity,
    ));
    Some(end)
}

/// A line of a list of files: a few words and a path last (`would reformat src/a.py`, `[warn]
/// a.js`, or a path alone once its label came off): (the words before it, the path).
fn listed(line: &str) -> Option<(&str, &str)> {
    let t = line.trim();
    let (words, path) = t.rsplit_once(' ').unwrap_or(("", t));
    let words = words.trim().trim_end_matches(':');
    (path_like(path)
        && !path.contains(':')
        && words.split_whitespace().count() <= 3
        && !words.chars().any(|c| c.is_ascii_digit()))
    .then_some((words, path))
}

/// How many files a closing line counts (`2 files would be reformatted`, `Code style issues
/// found in 3 files.`, `… in the above file.`).
fn files_counted(line: &str) -> Option<usize> {
    let lower = line.to_ascii_lowercase();
    if lower.contains("the above file") {
        return Some(1);
    }
    let words: Vec<&str> = lower.split_whitespace().collect();
    // A line announcing the work it starts (`Compiling 1 file (.ex)`, `Checking 3 files`)
    // closes no list.
    if words.first().is_some_and(|w| w.ends_with("ing")) {
        return None;
    }
    words.windows(2).find_map(|w| {
        let unit = w[1].trim_end_matches(['.', ',', ':', ';']);
        (unit == "file" || unit == "files")
            .then(|| w[0].parse().ok())
            .flatten()
    })
}

/// A list of files a tool would change or found wanting, from `i` (the first line of the run
/// only: each run is looked at once), closed within a few lines by a line that counts as many
/// files: each file a finding named by its path. Pushed to `out`; the line after the count.
pub(super) fn file_list(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let (words, _) = listed(&lines[i])?;
    if i > 0 && listed(&lines[i - 1]).is_some_and(|(w, _)| w == words) {
        return None;
    }
    let mut end = i;
    while end < lines.len() && !covered[end] && listed(&lines[end]).is_some_and(|(w, _)| w == words)
    {
        end += 1;
    }
    let (at, count) = lines[end..]
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .take(3)
        .find_map(|(k, l)| Some((end + k, files_counted(l)?)))?;
    if count != end - i {
        return None;
    }
    let closing = lines[at].trim();
    for (k, line) in lines.iter().enumerate().take(end).skip(i) {
        let (words, path) = listed(line)?;
        let message = if words.is_empty() {
            format!("{path}: {closing}")
        } else {
            line.trim().to_owned()
        };
        out.push(Diagnostic::new(
            std::slice::from_ref(line),
            k,
            path.to_owned(),
            message,
            None,
            path.to_owned(),
            Severity::Error,
        ));
    }
    Some(at + 1)
}

/// A place heading its finding: an unindented `path:line[:col]` followed by nothing but a rule
/// or code, upper-case tags and a drawn rule; the finding's message is the first indented line
/// under it (without its marker), and its report runs to the next unindented line. Pushed to
/// `out`; the line after it, or None.
pub(super) fn headed_by_place(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let line = &lines[i];
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (path, number, used) = super::location(line)?;
    let rest = line[used..].trim_start_matches(':');
    let words: Vec<&str> = rest
        .trim()
        .trim_end_matches(crate::line::rule_char)
        .split_whitespace()
        .collect();
    let code = words.iter().copied().find(|w| rule_like(w));
    let tags_only = words.iter().all(|w| {
        rule_like(w)
            || w.chars()
                .all(|c| c.is_ascii_uppercase() || c == '_' || c == '-')
    });
    // Something must say this heads a finding: a rule, or a drawn rule after the place.
    let drawn = rest.trim_end().ends_with(crate::line::rule_char) && rest.trim().len() > 3;
    if !tags_only || (code.is_none() && !drawn) {
        return None;
    }
    let mut end = i + 1;
    let mut message = None;
    while end < lines.len() && end - i < MAX_LINES && !covered[end] {
        let l = &lines[end];
        if !l.trim().is_empty() && !l.starts_with(char::is_whitespace) {
            break;
        }
        if message.is_none() && !l.trim().is_empty() {
            let t = l.trim();
            let (severity, m) = super::marked(t).unwrap_or((Severity::Error, t));
            message = Some((severity, m.to_owned()));
        }
        end += 1;
    }
    let (severity, message) = message?;
    let end = without_blank_end(lines, i, end);
    out.push(Diagnostic::new(
        &lines[i..end],
        i,
        format!("{path}:{number}"),
        message,
        code.map(str::to_owned),
        line[..used].to_owned(),
        severity,
    ));
    Some(end)
}

/// A number or a bracketed name after a severity word (`26`, `[unused-var]`).
fn code_like(word: &str) -> bool {
    word.chars().all(|c| c.is_ascii_digit())
        || word
            .strip_prefix('[')
            .and_then(|w| w.strip_suffix(']'))
            .is_some_and(|name| !name.is_empty())
}

/// `end` with the blank lines before it taken off (never past the header at `start`).
fn without_blank_end(lines: &[String], start: usize, mut end: usize) -> usize {
    while end > start + 1 && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    end
}

/// A place alone on its line (`src/a.svelte:11:27`, `heat.f90:21:16:`, `src/a.asm [6]:`), then
/// within a few lines a severity and the message (`Error: Cannot find name 'x'. (ts)`, after gfortran's quoted
/// source and its marker): one finding named by the place, up to the next place alone.
pub(super) fn place_then_severity(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    fn alone(l: &str) -> Option<(&str, u64, usize)> {
        super::location(l.trim_end())
            .filter(|_| !l.starts_with(char::is_whitespace))
            .filter(|&(_, _, used)| l.trim_end()[used..].trim_matches(':').is_empty())
            .or_else(|| in_words(l))
            .or_else(|| bracketed_line(l))
            .or_else(|| {
                super::quoted_worded(l)
                    .filter(|(_, _, rest, _)| rest.is_empty())
                    .map(|(path, number, ..)| (path, number, l.trim_end().len()))
            })
    }
    // `src/a.asm [6]:` (fasm's): a path, its line in brackets, a colon.
    fn bracketed_line(l: &str) -> Option<(&str, u64, usize)> {
        let t = l.trim_end();
        let (path, rest) = t.split_once(" [")?;
        let number: u64 = rest.strip_suffix("]:")?.parse().ok()?;
        (!l.starts_with(char::is_whitespace) && super::path_like(path) && path.contains(['.', '/']))
            .then_some((path, number, t.len()))
    }
    // `File "lib/a.ml", line 3, characters 25-32:` (OCaml's): a place in words alone, not a
    // traceback's frame (those are indented and say `in` what). A span of lines (`lines 3-5`)
    // is placed at its first.
    fn in_words(l: &str) -> Option<(&str, u64, usize)> {
        let rest = l.strip_prefix("File \"")?;
        let (path, after) = rest
            .split_once("\", line ")
            .or_else(|| rest.split_once("\", lines "))?;
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let number: u64 = after[..digits].parse().ok()?;
        let tail = after[digits..].trim_end();
        let tail = match tail.strip_prefix('-') {
            Some(span) => span.trim_start_matches(|c: char| c.is_ascii_digit()),
            None => tail,
        };
        let placed = tail == ":"
            || tail
                .strip_prefix(", characters ")
                .is_some_and(|c| c.ends_with(':') && !c.contains(' '));
        (placed && super::path_like(path)).then_some((path, number, l.trim_end().len()))
    }
    let (path, number, used) = alone(&lines[i])?;
    let mut end = i + 1;
    let mut found = None;
    while end < lines.len() && end - i < 12 && !covered[end] && alone(&lines[end]).is_none() {
        // Rows of the file's findings under it (`ERROR: 2:14  rule  message`) are read as rows.
        if super::row(&lines[end]).is_some() {
            return None;
        }
        // A step closed as passed (`✅  Success - Main Check formatting`) ends what the place
        // could head: a severity after it is another's.
        if found.is_none() && crate::line::passing_verdict(lines[end].trim()) {
            return None;
        }
        if found.is_none()
            && let Some((word, message)) = lines[end].trim().split_once(':')
            && !message.trim().is_empty()
        {
            // `Error (warning 8 [partial-match]): …` is an error about what it names, and
            // `Warning 26 [unused-var]: …` a warning whose number and name follow the word.
            let word = word.split(" (").next().unwrap_or(word);
            let word = match word.split_once(' ') {
                Some((first, codes)) if codes.split_whitespace().all(code_like) => first,
                _ => word,
            };
            let severity = match word.to_ascii_lowercase().as_str() {
                "error" | "fatal error" => Some(Severity::Error),
                "warning" | "warn" => Some(Severity::Warning),
                _ => None,
            };
            if let Some(severity) = severity {
                found = Some((severity, message.trim().to_owned()));
            }
        }
        end += 1;
    }
    let (severity, message) = found?;
    let end = without_blank_end(lines, i, end);
    out.push(Diagnostic::new(
        &lines[i..end],
        i,
        format!("{path}:{number}"),
        message,
        None,
        lines[i].trim_end()[..used].to_owned(),
        severity,
    ));
    Some(end)
}

/// A line of source echoed with its file and line (`battery.asl     11:     Name (_UID, 0x02)`,
/// iasl's), then a severity, a code and a marker under it with the message (`Error    6074 -
///      ^ Name already exists in scope`): one finding at the echoed place, the code its family,
/// its report running over the indented notes under it up to the next echo.
pub(super) fn echo_then_severity(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let (path, number) = echoed_place(&lines[i])?;
    let k = i + 1;
    let verdict = lines.get(k).filter(|_| !covered[k])?;
    let mut words = verdict.split_whitespace();
    let severity = super::severity_word(words.next()?)?;
    let (_, said) = verdict.split_once(" - ")?;
    let code = words
        .next()
        .filter(|w| {
            w.chars().all(|c| c.is_ascii_alphanumeric()) && w.chars().any(|c| c.is_ascii_digit())
        })
        .map(str::to_owned);
    // The marker points under the echo; the words around it are the message.
    let message = said.replace('^', " ");
    let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
    if message.is_empty() {
        return None;
    }
    let mut end = k + 1;
    while end < lines.len()
        && end - i < MAX_LINES
        && !covered[end]
        && echoed_place(&lines[end]).is_none()
        && (lines[end].trim().is_empty() || lines[end].starts_with(char::is_whitespace))
    {
        end += 1;
    }
    let end = without_blank_end(lines, i, end);
    out.push(at_line(
        lines,
        (i, end),
        (path, number),
        message,
        code,
        severity,
    ));
    Some(end)
}

/// A source line echoed after its file and line number (`battery.asl     11:   code`): the file
/// (a path with an extension), padding, the number and a colon, unindented.
fn echoed_place(line: &str) -> Option<(&str, u64)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (path, rest) = line.split_once(char::is_whitespace)?;
    let rest = rest.trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let number: u64 = rest[..digits].parse().ok()?;
    (rest[digits..].starts_with(':')
        && path_like(path)
        && path.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty() && !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric())
        }))
    .then_some((path, number))
}

/// The file a line says the tool is reading (`Reading from file Expr.jj . . .`, `[opening
/// queue.sml]`, `;; Compiling file /p/a.lisp ...`): a word of reading and a file with an
/// extension, unindented.
pub(super) fn announced_file(line: &str) -> Option<&str> {
    if line.starts_with(char::is_whitespace) || line.len() > 300 {
        return None;
    }
    let lower = line.to_ascii_lowercase();
    let reading = [
        "reading",
        "compiling",
        "opening",
        "processing",
        "checking",
        "loading",
        "parsing",
        "linting",
        "assembling",
        "validating",
        "validation",
        "results for",
        "scanning",
        "analyzing",
        "working on",
    ]
    .iter()
    .any(|w| lower.contains(w));
    if !reading {
        return None;
    }
    line.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| "'\"`[](),;".contains(c))
                .trim_end_matches(['.', ':'])
        })
        .find(|w| crate::text::file_with_extension(w) || conventional_file(w))
}

/// A file named by convention with no extension: a capitalised word ending in `file`
/// (`Dockerfile`, `Makefile`, `Jenkinsfile`, `Containerfile`).
fn conventional_file(word: &str) -> bool {
    word.len() > 4
        && word.ends_with("file")
        && word.starts_with(|c: char| c.is_ascii_uppercase())
        && word[1..].chars().all(|c| c.is_ascii_lowercase())
}

/// A coded finding over a numbered excerpt of the file it is in (`Error: E201: invalid
/// variables: %(nmae)s` over `10:#: shop/views.py:12`, `11:msgid "Hello"`, a PO linter's), in
/// the file the log last said it works on: one finding at the excerpt's first line, its
/// message the code and what it says, its report the excerpt.
pub(super) fn coded_over_excerpt(
    lines: &[String],
    covered: &[bool],
    i: usize,
    file: &str,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let line = lines[i].trim_end();
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    // An optional severity label, then the code and what it says.
    let (label, rest) = match line.split_once(": ") {
        Some((label, rest)) if super::severity_word(label).is_some() => (Some(label), rest),
        _ => (None, line),
    };
    let (code, said) = rest.split_once(": ")?;
    if !super::capital_code(code) || said.trim().is_empty() {
        return None;
    }
    let numbered = |l: &str| {
        l.split_once(':')
            .filter(|(n, _)| crate::text::whole_number(n))
            .and_then(|(n, _)| n.parse::<u64>().ok())
    };
    let first = lines.get(i + 1).and_then(|l| numbered(l))?;
    let mut end = i + 1;
    while end < lines.len()
        && end - i < MAX_LINES
        && !covered[end]
        && numbered(&lines[end]).is_some()
    {
        end += 1;
    }
    let severity = label
        .and_then(super::severity_word)
        .unwrap_or_else(|| super::code_severity(code));
    out.push(at_line(
        lines,
        (i, end),
        (file, first),
        format!("{code}: {}", said.trim()),
        Some(code.to_owned()),
        severity,
    ));
    Some(end)
}

/// A finding that gives its line in words and no file (`Error: Line 36, Column 12: …`,
/// `Warning: Choice conflict … at` over `  line 25, column 3 …`, `WARNING: in F in lines
/// 11..15 : …`), in the file the log last said it reads: one finding at that file and line,
/// its report the lines indented under it.
pub(super) fn line_of_announced(
    lines: &[String],
    covered: &[bool],
    i: usize,
    file: &str,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let line = &lines[i];
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (label, said) = line.split_once(':')?;
    let severity = super::severity_word(label.trim())?;
    if label.trim().contains(' ')
        || said.trim().is_empty()
        || super::location(said.trim()).is_some()
    {
        return None;
    }
    let mut end = i + 1;
    while end < lines.len()
        && end - i < MAX_LINES
        && !covered[end]
        && lines[end].starts_with(char::is_whitespace)
        && !lines[end].trim().is_empty()
    {
        end += 1;
    }
    // The line in words on the record's first line, or the next.
    let number = lines[i..end.min(i + 2)]
        .iter()
        .find_map(|l| line_in_words(l))?;
    // (A message that opens with its place in words says what after it.)
    let message = said.trim();
    let message = match message.split_once(": ") {
        Some((place, rest)) if line_in_words(place).is_some() && !rest.trim().is_empty() => {
            rest.trim()
        }
        _ => message,
    };
    out.push(at_line(
        lines,
        (i, end),
        (file, number),
        message.to_owned(),
        None,
        severity,
    ));
    Some(end)
}

/// A labelled field that may be indented and pad its colon (`  Message :   text`): its
/// label and value.
fn padded_field(line: &str) -> Option<(&str, &str)> {
    let (label, value) = line.trim().split_once(':')?;
    let (label, value) = (label.trim_end(), value.trim());
    (!value.is_empty()
        && !label.is_empty()
        && label.split(' ').count() <= 2
        && label.starts_with(|c: char| c.is_ascii_uppercase())
        && label.chars().all(|c| c.is_ascii_alphabetic() || c == ' '))
    .then_some((label, value))
}

/// A record of fields on lines of their own, a paragraph of its own, one of them its line
/// (`Message : …`, `Rule : …`, `Path : paths./a.get`, `Line : 15`), in the file a field
/// names or the log last said it reads (`Validation Results for openapi.yaml:`): one finding
/// at that line, its message the message's field (else the first field's value), its code
/// the rule's.
pub(super) fn fields_with_line(
    lines: &[String],
    covered: &[bool],
    i: usize,
    announced: Option<&str>,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    if i > 0 && !lines[i - 1].trim().is_empty() {
        return None;
    }
    let mut end = i;
    while end < lines.len()
        && end - i < MAX_LINES
        && !covered[end]
        && padded_field(&lines[end]).is_some()
    {
        end += 1;
    }
    if end - i < 2 || lines.get(end).is_some_and(|l| !l.trim().is_empty()) {
        return None;
    }
    let fields: Vec<(&str, &str)> = lines[i..end]
        .iter()
        .filter_map(|l| padded_field(l))
        .collect();
    let value = |labels: &[&str]| {
        fields
            .iter()
            .find(|(l, _)| labels.contains(l))
            .map(|(_, v)| *v)
    };
    // (A record that names its test, `Test: grinds_fine`, is a test's report, read as one.)
    if value(&["Test", "Name", "Case", "Suite", "Testcase"]).is_some() {
        return None;
    }
    let number: u64 = value(&["Line", "line", "Ln", "LINE"])?.parse().ok()?;
    // (A `Path` field may be an address inside the document, `paths./a.get.parameters.0`:
    // the file the log announced comes before it.)
    let file_like = |f: &&str| crate::text::file_with_extension(f);
    let file = value(&["File", "file", "Filename"])
        .filter(file_like)
        .or(announced)
        .or_else(|| value(&["Path", "path"]).filter(file_like))?;
    let message = value(&[
        "Message",
        "Description",
        "Reason",
        "Problem",
        "Error",
        "Summary",
    ])
    .unwrap_or(fields[0].1);
    let code = value(&["Rule", "Code", "Check", "Id", "ID"])
        .filter(|c| !c.contains(' '))
        .map(str::to_owned);
    let severity = value(&["Severity", "Level", "Type"])
        .and_then(super::severity_word)
        .unwrap_or(Severity::Error);
    out.push(at_line(
        lines,
        (i, end),
        (file, number),
        message.to_owned(),
        code,
        severity,
    ));
    Some(end)
}

/// A file's verdict alone (`config/billing.json invalid`, ajv's) over the error objects a
/// validator printed for it (`{ instancePath: '/env', …, message: 'must be string' }`): one
/// finding per `message` field, in that file, up to the next line at the verdict's depth.
pub(super) fn messages_under_file_verdict(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let line = &lines[i];
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (file, verdict) = line.trim().split_once(' ')?;
    if !crate::text::file_with_extension(file)
        || !matches!(
            verdict,
            "invalid" | "failed" | "FAILED" | "INVALID" | "errors:"
        )
    {
        return None;
    }
    let value = |l: &str| {
        let t = l.trim().trim_end_matches(',');
        let rest = t
            .strip_prefix("message: ")
            .or_else(|| t.strip_prefix("\"message\": "))?;
        let q = rest.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
        rest.strip_prefix(q)?.strip_suffix(q).map(str::to_owned)
    };
    let mut end = i + 1;
    let mut found: Vec<(usize, String)> = Vec::new();
    while end < lines.len() && !covered[end] && end - i < MAX_LINES * 4 {
        let l = &lines[end];
        // (The next file's verdict, or a line at the verdict's depth after the objects.)
        if !l.starts_with(char::is_whitespace)
            && !l.trim().is_empty()
            && !"[]{},".contains(l.trim())
        {
            break;
        }
        if let Some(m) = value(l) {
            found.push((end, m));
        }
        end += 1;
    }
    if found.is_empty() {
        return None;
    }
    let mut from = i;
    for (k, (at, message)) in found.iter().enumerate() {
        let to = found.get(k + 1).map_or(end, |(next, _)| {
            // (Each object's lines, up to the one before the next object's message field.)
            (at + 1..*next)
                .rev()
                .find(|&j| lines[j].trim().starts_with('{'))
                .unwrap_or(*next)
        });
        out.push(Diagnostic::new(
            &lines[from..to.max(at + 1)],
            from,
            file.to_owned(),
            message.clone(),
            None,
            file.to_owned(),
            Severity::Error,
        ));
        from = to.max(at + 1);
    }
    Some(end)
}

/// A row marked by its severity whose message ends in its rule in brackets (`✖   subject may
/// not be empty [subject-empty]`, commitlint's): a finding with no place.
fn marked_coded(line: &str) -> Option<(Severity, &str, &str)> {
    let (severity, said) = super::marked(line.trim())?;
    let (message, rule) = trailing_rule(said)?;
    (message.split_whitespace().count() >= 2).then_some((severity, said, rule))
}

/// A message with its rule in brackets at its end (`… [subject-empty]`): the message and the
/// rule.
fn trailing_rule(said: &str) -> Option<(&str, &str)> {
    said.strip_suffix(']')?
        .rsplit_once(" [")
        .filter(|(_, rule)| rule_like(rule))
}

/// Rows marked by their severity with their rule in brackets at the end, under the heading
/// they are about (`⧗   input: update stuff` over `✖   type may not be empty [type-empty]`):
/// one finding per row, named by what the heading says (after its label, without its mark).
pub(super) fn marked_coded_under_heading(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    marked_coded(&lines[i])?;
    // The heading: a marked, labelled line above (`⧗   input: …`) before another run's rows,
    // else the nearest line above that says something.
    let above: Vec<usize> = (i.saturating_sub(8)..i)
        .rev()
        .take_while(|&k| marked_coded(&lines[k]).is_none())
        .filter(|&k| !lines[k].trim().is_empty())
        .collect();
    let labelled = |k: &usize| {
        let t = lines[*k].trim();
        t.starts_with(|c: char| !c.is_alphanumeric()) && t.contains(": ")
    };
    let head = above
        .iter()
        .copied()
        .find(labelled)
        .or_else(|| above.first().copied())?;
    let heading = lines[head]
        .trim()
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .trim();
    let name = heading
        .split_once(": ")
        .filter(|(label, _)| !label.contains(' '))
        .map_or(heading, |(_, value)| value.trim());
    if name.is_empty() || covered[head] {
        return None;
    }
    let mut k = i;
    while k < lines.len() && !covered[k] && k - i < MAX_LINES {
        let Some((severity, said, rule)) = marked_coded(&lines[k]) else {
            break;
        };
        out.push(Diagnostic::new(
            &lines[k..=k],
            k,
            name.to_owned(),
            said.to_owned(),
            Some(rule.to_owned()),
            name.to_owned(),
            severity,
        ));
        k += 1;
    }
    Some(k)
}

/// The line a text gives in words: `line 25`, `Line 36,`, `lines 11..15` (the first).
fn line_in_words(text: &str) -> Option<u64> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.windows(2).find_map(|w| {
        let word = w[0].to_ascii_lowercase();
        if word != "line" && word != "lines" {
            return None;
        }
        let digits = w[1].bytes().take_while(u8::is_ascii_digit).count();
        w[1][..digits].parse().ok()
    })
}

/// A line of a code frame: a line number or nothing, then a bar (`  3 │ let make = …`, `    │
/// t=0)` where a long source line wraps, `12 ┆ | _ => None`, `12 | int x;`).
fn frame_line(line: &str) -> bool {
    // A caret drawn under the marked row (`-----------^`, `    ~~~^`) is the frame's too.
    let drawn = line.trim();
    if drawn.ends_with('^')
        && drawn.len() > 1
        && drawn[..drawn.len() - 1]
            .chars()
            .all(|c| matches!(c, '-' | '~' | '_' | ' ' | '='))
    {
        return true;
    }
    // (The marked row, `  > 7|   code`, is a row of it.)
    let t = line.trim_start();
    let t = t.strip_prefix('>').map_or(t, str::trim_start);
    let t = t.trim_start_matches(|c: char| c.is_ascii_digit());
    let t = t.trim_start();
    // (Any vertical bar: ReScript draws `┆` where it draws no colour.)
    t.strip_prefix(['│', '┃', '┆', '┇', '┊', '┋', '║', '|'])
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// A place alone on its line however indented, perhaps with a span after it
/// (`/p/src/A.res:3:29-41`, `A.res:7:3-9:3`): (path, line).
fn place_alone(line: &str) -> Option<(&str, u64)> {
    let t = line.trim();
    let (path, number, used) = super::location(t)?;
    t[used..]
        .chars()
        .all(|c| c.is_ascii_digit() || c == '-' || c == ':')
        .then_some((path, number))
}

/// Whether a place alone at `i` has a code frame under it (a blank line may stand between).
fn over_frame(lines: &[String], i: usize) -> bool {
    place_alone(&lines[i]).is_some()
        && (i + 1..lines.len().min(i + 3))
            .find(|&k| !lines[k].trim().is_empty())
            .is_some_and(|k| frame_line(&lines[k]))
}

/// A place alone over a code frame, the message after the frame (ReScript's `We've found a bug
/// for you!` over `  /p/src/A.res:3:29-41`, the frame, then `  This has type: int`): one
/// finding named by the place. A short line over the place that gives none is its banner: it
/// opens the report and says a warning (`Warning number 26`). The report ends at two blank
/// lines, at the next place alone, or at the banner of the next place over a frame.
pub(super) fn place_over_frame(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    if !over_frame(lines, i) {
        return None;
    }
    let (path, number) = place_alone(&lines[i])?;
    let mut k = i + 1;
    while k < lines.len() && !covered[k] && (lines[k].trim().is_empty() || frame_line(&lines[k])) {
        k += 1;
    }
    // The message is words (not a marker under the frame, `^^^^ [1]`, nor another place: a
    // frame among a finding's references, Flow's, is part of that finding).
    let at = (k < lines.len() && !covered[k]).then_some(k)?;
    let message = lines[at].trim().to_owned();
    let words = message
        .split_whitespace()
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .count();
    if words < 2 || place_alone(&message).is_some() {
        return None;
    }
    let banner = i.checked_sub(1).filter(|&b| {
        let t = lines[b].trim();
        !covered[b]
            && !t.is_empty()
            && super::location(t).is_none()
            && !frame_line(&lines[b])
            && t.split_whitespace().count() <= 8
    });
    let start = banner.unwrap_or(i);
    let severity = match banner.map(|b| lines[b].to_ascii_lowercase()) {
        Some(b) if b.contains("warning") && !b.contains("as error") => Severity::Warning,
        _ => Severity::Error,
    };
    let mut end = at + 1;
    while end < lines.len() && end - start < MAX_LINES && !covered[end] {
        let blank_twice =
            lines[end].trim().is_empty() && lines.get(end + 1).is_some_and(|l| l.trim().is_empty());
        if blank_twice
            || place_alone(&lines[end]).is_some()
            || (end + 1 < lines.len() && over_frame(lines, end + 1))
        {
            break;
        }
        end += 1;
    }
    let end = without_blank_end(lines, start, end);
    out.push(at_line(
        lines,
        (start, end),
        (path, number),
        message,
        None,
        severity,
    ));
    Some(end)
}

/// A message that ends with its place in words, its file named by a heading above it:
/// `… on line 4 at column 6`, `… at line 4, column 6`, `… (line 4, col 6)` (write-good's
/// under `In docs/a.md`), `N. … // line 4, column 6` (JSLint's under `jslint src/a.js`): (the
/// message, its line, its column). A message that names its own file (`… in a.php on line 3`)
/// is another reader's.
pub(super) fn place_words_at_end(line: &str) -> Option<(&str, u64, Option<u64>)> {
    let t = line.trim_end().trim_end_matches('.');
    let (t, closed) = match t.strip_suffix(')') {
        Some(inner) => (inner, true),
        None => (t, false),
    };
    let (before, after) = if closed {
        let (b, a) = t.rsplit_once("(line ")?;
        (b, a)
    } else {
        t.rsplit_once(" on line ")
            .or_else(|| t.rsplit_once(" at line "))
            // (As a comment after the message: `… // line 15, column 9`, JSLint's.)
            .or_else(|| t.rsplit_once(" // line "))?
    };
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    let number: u64 = after[..digits].parse().ok()?;
    let rest = after[digits..].trim_start_matches(',').trim();
    let column = if rest.is_empty() {
        None
    } else {
        let c = ["at column ", "column ", "col ", "at col "]
            .iter()
            .find_map(|label| rest.strip_prefix(label))?;
        Some(c.parse().ok()?)
    };
    let message = before.trim_end().trim_end_matches([',', ':', ';']).trim();
    // (Without the number that counts the file's findings, `1. Expected ';'…`.)
    let message = message
        .split_once(". ")
        .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .map_or(message, |(_, m)| m.trim_start());
    let names_a_file = message
        .rsplit_once(" in ")
        .is_some_and(|(_, p)| path_like(p.trim()));
    // A severity alone (`1: warning at line 2, col 1`, csslint's) heads a message that follows.
    let bare = message
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == ':')
        .trim();
    if bare.is_empty()
        || names_a_file
        || super::severity_word(bare).is_some()
        || path_like(message.split(' ').next()?)
    {
        return None;
    }
    Some((message, number, column))
}

/// A heading that names the file of the findings under it, not indented: a path alone, after
/// one word that labels it (`In docs/a.md`, `File: a.php`, `docs/a.md:`), or between arrows
/// (`==> docs/a.md <==`). A sentence's last word (`… it goes.`) is no path.
fn file_heading(line: &str) -> Option<&str> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let path = match words.as_slice() {
        [path] => *path,
        [label, path] if label.chars().all(|c| c.is_alphabetic() || c == ':') => *path,
        ["==>", path, "<=="] => *path,
        _ => return None,
    };
    let path = path.trim_matches(|c: char| "'\"`,()[]".contains(c));
    let path = path.strip_suffix(':').unwrap_or(path);
    (!path.ends_with('.') && path_like(path) && super::location(path).is_none()).then_some(path)
}

/// Findings that end with their place in words under a heading naming their file (from `i`,
/// the heading): each one a finding at `file:line`, its report the lines since the one before
/// (the quoted source and its marker, write-good's, sit above the message). Pushed to `out`;
/// the line after the last one, or None when no such finding follows the heading.
pub(super) fn worded_under_file(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let file = file_heading(&lines[i])?;
    let mut from = i + 1;
    let mut end = None;
    let mut blank = 0;
    let mut j = i + 1;
    while j < lines.len() && !covered[j] && j - from < MAX_LINES {
        let line = &lines[j];
        if line.trim().is_empty() {
            blank += 1;
            if blank >= 2 {
                break;
            }
            j += 1;
            continue;
        }
        blank = 0;
        let found = place_words_at_end(line);
        if found.is_none() && file_heading(line).is_some() {
            break;
        }
        if let Some((message, row, column)) = found {
            // A separator between reports opens none.
            while from < j
                && (crate::line::separator(&lines[from]) || lines[from].trim().is_empty())
            {
                from += 1;
            }
            out.push(Diagnostic::new(
                &lines[from..=j],
                from,
                format!("{file}:{row}"),
                message.to_owned(),
                None,
                placed(file, row, column),
                Severity::Warning,
            ));
            from = j + 1;
            end = Some(j + 1);
        }
        j += 1;
    }
    end
}

/// A heading that names what the coded rows under it are about, not indented, ending with a
/// colon: a file (`src/a.py:`), or a label and an identifier (`Commit 2498fe0101:`, `Module
/// billing:`); the file or the identifier.
fn item_heading(line: &str) -> Option<&str> {
    if line.starts_with(char::is_whitespace) || !line.trim_end().ends_with(':') {
        return None;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let item = match words.as_slice() {
        [item] => *item,
        [label, item] if label.chars().all(char::is_alphabetic) => *item,
        _ => return None,
    };
    let item = item.strip_suffix(':')?;
    let item = item.trim_matches(|c: char| "'\"`()[]".contains(c));
    (!item.is_empty()
        && !item.contains(':')
        && item
            .chars()
            .all(|c| c.is_alphanumeric() || "./_-@+".contains(c)))
    .then_some(item)
}

/// A row under an item's heading that opens with a line number and then a rule's code (`3: B5
/// Body message is too short`, gitlint's): the line, the code and the message (the code kept
/// at its start, as the tool printed it).
fn coded_line_row(line: &str) -> Option<(u64, &str, &str)> {
    let t = line.trim_start();
    let (number, rest) = t.split_once(": ")?;
    let number: u64 = whole_number(number)
        .then(|| number.parse().ok())
        .flatten()?;
    let code = rest.split_whitespace().next()?;
    let said = rest[code.len()..].trim();
    (rule_like(code)
        && code.chars().any(|c| c.is_ascii_uppercase())
        && said.split_whitespace().count() >= 2)
        .then_some((number, code, rest.trim()))
}

/// Findings under headings that name an item (from `i`, the heading): each row `N: CODE
/// message` a finding at `item:N`, its code the rule's, its message the row as printed; the
/// rows run to a blank line. Pushed to `out`; the line after the rows, or None when no such
/// row follows the heading.
pub(super) fn coded_under_heading(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let item = item_heading(&lines[i])?;
    let mut j = i + 1;
    let mut found = Vec::new();
    while j < lines.len() && !covered[j] && j - i <= MAX_LINES {
        let Some((row, code, message)) = coded_line_row(&lines[j]) else {
            break;
        };
        found.push(Diagnostic::new(
            &lines[j..=j],
            j,
            format!("{item}:{row}"),
            message.to_owned(),
            Some(code.to_owned()),
            format!("{item}:{row}"),
            Severity::Error,
        ));
        j += 1;
    }
    if found.is_empty() {
        return None;
    }
    // The heading heads its first finding's block.
    if let Some(first) = found.first_mut() {
        first.found.lines.insert(0, lines[i].clone());
        first.found.start = i;
    }
    out.extend(found);
    Some(j)
}

/// A line without the box a tool draws around each diagnostic (`│ Error: …` between `╷` and
/// `╵`, Terraform's), trimmed.
fn unboxed(line: &str) -> &str {
    let t = line.trim_start();
    t.strip_prefix('│').unwrap_or(t).trim()
}

/// Whether a line closes a diagnostic's box (`╵`).
fn box_closed(line: &str) -> bool {
    line.trim() == "╵"
}

/// A place in words after `on` that opens a line: `on main.tf line 8, in resource "a" "b":`
/// (HCL tools'), read as [`super::worded`] reads `In a.sh line 3:`: (path, line).
fn place_on_line(t: &str) -> Option<(&str, u64)> {
    // `In file `stats.scm:16',` (CHICKEN's): a quoted place after `In file`.
    if let Some(quoted) = t
        .trim()
        .strip_prefix("In file ")
        .or_else(|| t.trim().strip_prefix("in file "))
    {
        let inner = quoted.trim_start_matches(['`', '\'', '"']);
        let (path, number, used) = super::location(inner)?;
        return inner[used..]
            .trim_start_matches(['`', '\'', '"', ',', ':'])
            .is_empty()
            .then_some((path, number));
    }
    let t = t.trim().strip_prefix("on ")?;
    // `on line 6:10 of scss/a.scss, in function `mix`` (LibSass's): the line, then the file.
    if let Some(rest) = t.strip_prefix("line ") {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let number: u64 = rest[..digits].parse().ok()?;
        let (_, file) = rest.split_once(" of ")?;
        let path = file.split([',', ' ']).next()?;
        return (path_like(path) && path.contains(['.', '/'])).then_some((path, number));
    }
    let (path, number, _) = super::worded(t)?;
    Some((path, number))
}

/// A severity and a summary (`Error: Reference to undeclared input variable`), then within a
/// few lines its place in words (`  on main.tf line 8, in locals:`, `  In file `a.scm:16',`),
/// a quoted source line and an
/// explanation, in a drawn box or not (Terraform's, tflint's): one finding named by the place,
/// its message the summary, its block the box or the lines up to the next such heading. Pushed
/// to `out`; the line after it, or None.
pub(super) fn severity_over_worded_place(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let heading = |t: &str| -> Option<(Severity, String)> {
        let (word, summary) = t.split_once(": ")?;
        let severity = super::severity_word(word)?;
        let summary = summary.trim();
        (!summary.is_empty() && word.starts_with(|c: char| c.is_ascii_uppercase()))
            .then(|| (severity, summary.to_owned()))
    };
    let (severity, summary) = heading(unboxed(&lines[i]))?;
    let (path, number) = (i + 1..lines.len().min(i + 5))
        .take_while(|&k| !covered[k] && !box_closed(&lines[k]))
        .find_map(|k| place_on_line(unboxed(&lines[k])))?;
    let boxed = i > 0 && lines[i - 1].trim() == "╷" && !covered[i - 1];
    let start = if boxed { i - 1 } else { i };
    let mut end = i + 1;
    while end < lines.len() && !covered[end] && end - start < MAX_LINES {
        if boxed && box_closed(&lines[end]) {
            end += 1;
            break;
        }
        if !boxed && heading(unboxed(&lines[end])).is_some() {
            break;
        }
        end += 1;
    }
    let end = without_blank_end(lines, start, end);
    // (A summary that names only the kind, `Invalid argument`, is told apart by the first
    // sentence that explains it: `Argument #2 to procedure `make-string' has an invalid type:`.)
    let explained = lines[i + 1..end]
        .iter()
        .map(|l| unboxed(l).trim())
        .filter(|t| place_on_line(t).is_none() && !t.starts_with("In ") && !t.starts_with("on "))
        .find(|t| {
            t.ends_with([':', '.']) && t.split_whitespace().count() >= 4 && !t.contains("  ")
        });
    let message = match explained {
        Some(e) if summary.split_whitespace().count() <= 3 => format!("{summary}\n{e}"),
        _ => summary,
    };
    out.push(at_line(
        lines,
        (start, end),
        (path, number),
        message,
        None,
        severity,
    ));
    Some(end)
}

/// `▲ [WARNING] Duplicate key "x" in object literal [duplicate-object-key]` over a blank line and
/// the place alone, indented (`    src/a.ts:6:53:`), then its code frame and notes (esbuild's):
/// a mark, the severity in brackets and the message (a rule in brackets at its end), named by
/// the place under it; its report runs to the next such heading.
pub(super) fn bracketed_severity_over_place(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let (severity, said) = bracketed_severity(&lines[i])?;
    let (path, number) = (i + 1..lines.len().min(i + 4))
        .take_while(|&k| !covered[k])
        .find_map(|k| {
            let l = &lines[k];
            let t = l.trim();
            let (path, number, used) = super::location(t)?;
            (l.starts_with(char::is_whitespace) && t[used..].trim_matches(':').is_empty())
                .then_some((path, number))
        })?;
    // A rule in brackets closes the message (`… [equals-nan]`).
    let (message, code) = match trailing_rule(said) {
        Some((message, rule)) => (message, Some(rule.to_owned())),
        None => (said, None),
    };
    let mut end = i + 1;
    while end < lines.len() && !covered[end] && end - i < MAX_LINES {
        if bracketed_severity(&lines[end]).is_some() {
            break;
        }
        end += 1;
    }
    let end = without_blank_end(lines, i, end);
    out.push(at_line(
        lines,
        (i, end),
        (path, number),
        message.to_owned(),
        code,
        severity,
    ));
    Some(end)
}

/// A heading of a mark, the severity in brackets and the message (`✘ [ERROR] Unexpected end of
/// file`): the severity and the message.
fn bracketed_severity(t: &str) -> Option<(Severity, &str)> {
    if t.starts_with(char::is_whitespace) {
        return None;
    }
    let (mark, rest) = t.split_once(" [")?;
    let (level, said) = rest.split_once("] ")?;
    let severity = super::severity_word(level)?;
    (!mark.chars().any(char::is_alphanumeric) && !said.trim().is_empty())
        .then_some((severity, said.trim()))
}

/// `Warning: /p/a.pl:4:` over `Warning:    Singleton variables: [P,Q]` (SWI-Prolog's): a
/// severity label and the place alone on one line, the message on the lines under it behind
/// the same label, indented after it; those lines are its report.
/// The head of a label's record (`label_over_label`): the label, its severity and the place,
/// when the next line says the message under the same label.
pub(super) fn label_head(lines: &[String], i: usize) -> Option<(&str, Severity, &str, u64)> {
    let line = lines[i].trim_end();
    let (label, place) = line.split_once(": ")?;
    let severity = super::severity_word(label)?;
    let (path, number, used) = super::location(place)?;
    (place[used..].trim_matches(':').is_empty() && said_under(label, lines.get(i + 1)?).is_some())
        .then_some((label, severity, path, number))
}

/// What a line says under `label`, indented after it (`Warning:    Singleton variables: [B]`).
fn said_under(label: &str, line: &str) -> Option<String> {
    let rest = line.strip_prefix(label)?.strip_prefix(':')?;
    (rest.starts_with("  ") && !rest.trim().is_empty()).then(|| rest.trim().to_owned())
}

pub(super) fn label_over_label(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let (label, severity, path, number) = label_head(lines, i)?;
    let under = |l: &str| said_under(label, l);
    let message = under(lines.get(i + 1)?)?;
    let mut end = i + 1;
    while end < lines.len() && end - i < MAX_LINES && !covered[end] && under(&lines[end]).is_some()
    {
        end += 1;
    }
    out.push(at_line(
        lines,
        (i, end),
        (path, number),
        message,
        None,
        severity,
    ));
    Some(end)
}

/// A finding's header that names its file at its end, with no line (`requireSemicolons:
/// Missing semicolon after statement at src/a.js :`, JSCS's): (the message, the path).
fn file_at_end(line: &str) -> Option<(&str, &str)> {
    let t = line.trim_end().strip_suffix(':')?.trim_end();
    let (message, path) = t.rsplit_once(" at ").or_else(|| t.rsplit_once(" in "))?;
    (!line.starts_with(char::is_whitespace)
        && !path.contains(' ')
        && super::path_like(path)
        && super::location(path).is_none()
        && message.split_whitespace().count() >= 2)
        .then_some((message.trim(), path))
}

/// A gutter line of a code frame: its line number (`     9 |    return this`, `  12 | x`).
fn gutter_number(line: &str) -> Option<u64> {
    let t = line.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = t[digits..].trim_start();
    (digits > 0 && (rest.starts_with('|') || rest.starts_with('│')))
        .then(|| t[..digits].parse().ok())
        .flatten()
}

/// A marker under a frame's line: a caret after a run of dashes or spaces (`--------^`).
fn marker_line(line: &str) -> bool {
    let t = line.trim_end();
    t.ends_with('^')
        && t.len() > 1
        && t[..t.len() - 1]
            .chars()
            .all(|c| c == '-' || c == ' ' || c == '~')
}

/// A header naming its file with no line, over a code frame whose marker points under the
/// line at fault (JSCS's `rule: message at src/a.js :` over `     9 |    return this` and
/// `---------^`): one finding at the file and the gutter's number of the marked line; its
/// report runs to the blank line after the frame.
pub(super) fn file_then_frame(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let (said, path) = file_at_end(&lines[i])?;
    let mut end = i + 1;
    let mut marked = None;
    while end < lines.len() && !covered[end] && end - i < MAX_LINES {
        let l = &lines[end];
        if marker_line(l) {
            marked = marked.or_else(|| end.checked_sub(1).and_then(|k| gutter_number(&lines[k])));
        } else if gutter_number(l).is_none() {
            break;
        }
        end += 1;
    }
    let number = marked?;
    let (code, message) = match said.split_once(": ") {
        Some((rule, rest)) if super::rule_like(rule) || !rule.contains(' ') => {
            (Some(rule.to_owned()), rest.to_owned())
        }
        _ => (None, said.to_owned()),
    };
    out.push(Diagnostic::new(
        &lines[i..end],
        i,
        format!("{path}:{number}"),
        message,
        code,
        format!("{path}:{number}"),
        Severity::Error,
    ));
    Some(end)
}

/// `[ERROR:/p/a.thrift:5] text`: a severity and the place in one bracket before the text
/// (the Thrift compiler's): (severity, path, line, the text).
fn bracketed_place(line: &str) -> Option<(Severity, &str, u64, &str)> {
    let rest = line.strip_prefix('[')?;
    let (inside, text) = rest
        .split_once("] ")
        .or_else(|| rest.trim_end().strip_suffix(']').map(|inside| (inside, "")))?;
    let (word, place) = inside.split_once(':')?;
    let severity = super::severity_word(word).or_else(|| {
        matches!(word.to_ascii_lowercase().as_str(), "failure" | "critical")
            .then_some(Severity::Error)
    })?;
    let (path, number, used) = super::location(place)?;
    (used == place.len()).then_some((severity, path, number, text.trim()))
}

/// A record a bracket opens with its severity and place (`bracketed_place`). When its text is
/// only a hint in parentheses (`(last token was 'x')`) or nothing, the message is the next
/// line; a record at the same place right after it (`[FAILURE:…:5] Parser error during
/// include pass.`) is how the same report ends.
pub(super) fn bracketed_records(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let (severity, path, number, text) = bracketed_place(&lines[i])?;
    let mut end = i + 1;
    let hint = text.is_empty() || (text.starts_with('(') && text.ends_with(')'));
    let next = lines.get(end).filter(|l| {
        !covered[end]
            && !l.trim().is_empty()
            && !l.starts_with(char::is_whitespace)
            && bracketed_place(l).is_none()
    });
    let message = match next {
        Some(next) if hint => {
            end += 1;
            next.trim()
        }
        _ => text,
    };
    while lines.get(end).is_some_and(|l| {
        !covered[end] && bracketed_place(l).is_some_and(|(_, p, n, _)| p == path && n == number)
    }) {
        end += 1;
    }
    out.push(at_line(
        lines,
        (i, end),
        (path, number),
        message.to_owned(),
        None,
        severity,
    ));
    Some(end)
}

/// A table's cells: split at `|` when the row has bars, else at runs of two spaces or more.
fn cells(row: &str) -> Vec<&str> {
    let t = row.trim().trim_matches('|');
    if t.contains('|') {
        t.split('|').map(str::trim).collect()
    } else {
        t.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect()
    }
}

/// A rule under or around a table's header: dashes, with the bars or crosses that part its
/// columns (`------+------+----`).
fn table_rule(line: &str) -> bool {
    let t = line.trim();
    t.chars()
        .filter(|&c| c == '-' || c == '─' || c == '=')
        .count()
        >= 5
        && t.chars().all(|c| "-=+|─┼┬┴ ".contains(c))
}

/// The columns a table of findings names in its header row: the line's (`line`, `line(s)`,
/// `ln`, `row`), and of the others, the message's (`message`, `solution`, `description`, or
/// else the last), the rule's (`rule`, `code`, `check`) and the severity's, if any.
struct Columns {
    count: usize,
    line: usize,
    message: usize,
    rule: Option<usize>,
    severity: Option<usize>,
    file: Option<usize>,
}

fn columns(header: &str) -> Option<Columns> {
    // (Most lines have neither bars nor wide gaps: they are no table's header, and cost
    // nothing more to see so.)
    if !header.contains('|') && !header.trim().contains("  ") {
        return None;
    }
    let names: Vec<String> = cells(header)
        .iter()
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if names.len() < 3
        || names.iter().any(|n| {
            n.is_empty()
                || n.split_whitespace().count() > 3
                || n.chars().any(|c| c.is_ascii_digit())
        })
    {
        return None;
    }
    let find = |words: &[&str]| names.iter().position(|n| words.contains(&n.as_str()));
    let line = find(&[
        "line",
        "line(s)",
        "lines",
        "ln",
        "row",
        "lineno",
        "line no",
        "line number",
    ])?;
    let message = find(&[
        "message",
        "solution",
        "description",
        "problem",
        "text",
        "detail",
        "reason",
        "issue",
    ])
    .unwrap_or(names.len() - 1);
    (message != line).then(|| Columns {
        count: names.len(),
        line,
        message,
        rule: find(&["rule", "code", "check", "rule id", "id"]),
        severity: find(&["severity", "level", "type"]),
        file: find(&["file", "path", "filename", "file name"]),
    })
}

/// A table of findings from `i` (its header row; a rule may stand above and under it): each
/// row a finding at the line its line column gives, in the file its file column or the
/// heading above the table names (`File:  src/a.vhd`, VSG's), its message the message
/// column, its code the rule's. Pushed to `out`; the line after the table, or None.
pub(super) fn table_rows(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let cols = columns(&lines[i])?;
    let heading = || {
        (i.saturating_sub(12)..i)
            .rev()
            .take_while(|&k| !covered[k])
            .find_map(|k| file_heading(&lines[k]))
    };
    let file = match cols.file {
        Some(_) => None,
        None => Some(heading()?),
    };
    let mut j = i + 1;
    while j < lines.len() && !covered[j] && table_rule(&lines[j]) {
        j += 1;
    }
    let mut found = Vec::new();
    while j < lines.len() && !covered[j] {
        let row = cells(&lines[j]);
        if row.len() != cols.count {
            break;
        }
        let (Some((number, _)), Some(path)) = (
            leading_number(row[cols.line]),
            cols.file.map(|f| row[f]).or(file),
        ) else {
            break;
        };
        let severity = cols
            .severity
            .and_then(|k| super::severity_word(row[k]))
            .unwrap_or(Severity::Error);
        found.push(Diagnostic::new(
            &lines[j..=j],
            j,
            format!("{path}:{number}"),
            row[cols.message].to_owned(),
            cols.rule
                .map(|k| row[k].to_owned())
                .filter(|r| !r.is_empty()),
            format!("{path}:{number}"),
            severity,
        ));
        j += 1;
    }
    if found.is_empty() {
        return None;
    }
    while j < lines.len() && !covered[j] && table_rule(&lines[j]) {
        j += 1;
    }
    out.extend(found);
    Some(j)
}

/// A heading that gives the line of the rows under it: `Line: 7`, `  Line 7:`, `Line 2: RUN
/// apt-get update` (the line's source after it), a labelled line number ([`line_field`]) up
/// to its figures: (its indentation, the line).
fn line_heading(line: &str) -> Option<(usize, u64)> {
    let t = line.trim_start();
    let start = t.find(|c: char| c.is_ascii_digit())?;
    let end = start + t[start..].bytes().take_while(u8::is_ascii_digit).count();
    let after = &t[end..];
    if !after.is_empty() && !after.starts_with(':') {
        return None;
    }
    Some((indent(line), line_field(&t[..end])?))
}

/// A table's header row: words of capitals only, two spaces or more between them (`Issue
/// Category      Title      Description`).
fn table_header(line: &str) -> bool {
    let cells = cells(line);
    cells.len() >= 2
        && cells.iter().all(|c| {
            c.split(' ').all(|w| {
                w.starts_with(|ch: char| ch.is_ascii_uppercase())
                    && w.chars().all(|ch| ch.is_ascii_alphabetic())
            })
        })
}

/// A row that names the tool and the rule before its message (`pylint: unused-import / Unused
/// import os`, an aggregating linter's): the rule and the message; any other row whole, its
/// spaces collapsed.
fn tool_and_rule(row: &str) -> (Option<String>, String) {
    if let Some((tool, rest)) = row.split_once(": ")
        && !tool.contains(' ')
        && let Some((rule, message)) = rest.split_once(" / ")
        && !rule.contains(' ')
        && !message.trim().is_empty()
    {
        return (Some(rule.to_owned()), message.trim().to_owned());
    }
    (None, crate::text::one_spaced(row))
}

/// Findings grouped by line under their file (from `i`, the file's heading): each `Line: N`
/// heading over the rows of that line, perhaps under a table's header, a row's wrapped cells
/// indented deeper (prospector's grouped report, dockerfilelint's). Each row a finding at
/// `file:N`, its text the message. Pushed to `out`; the line after the last group.
pub(super) fn line_groups(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let file = file_heading(&lines[i])?;
    // The first line heading within a few lines of the file (a count of its issues between).
    let mut j = i + 1;
    let mut looked = 0;
    while j < lines.len() && line_heading(&lines[j]).is_none() {
        if !lines[j].trim().is_empty() {
            looked += 1;
        }
        if looked > 2 || covered[j] {
            return None;
        }
        j += 1;
    }
    let mut end = None;
    while j < lines.len() && !covered[j] {
        let Some((depth, row)) = line_heading(&lines[j]) else {
            if lines[j].trim().is_empty() {
                j += 1;
                continue;
            }
            break;
        };
        // The group's lines: deeper than its heading, or a table's header right under it.
        let mut k = j + 1;
        // Under a table's header the message is its last column, its cells wrapped under it.
        let mut column = None;
        if k < lines.len() && table_header(&lines[k]) && indent(&lines[k]) <= depth {
            column = lines[k]
                .trim_end()
                .rfind("  ")
                .map(|at| at + lines[k][at..].len() - lines[k][at..].trim_start().len());
            k += 1;
        }
        let first = k;
        while k < lines.len()
            && !covered[k]
            && !lines[k].trim().is_empty()
            && indent(&lines[k]) > depth
            && line_heading(&lines[k]).is_none()
        {
            k += 1;
        }
        let Some(step) = lines[first..k].iter().map(|l| indent(l)).min() else {
            break;
        };
        let mut r = first;
        while r < k {
            let mut next = r + 1;
            while next < k && indent(&lines[next]) > step {
                next += 1;
            }
            let cells: Vec<&str> = column
                .map(|at| {
                    lines[r..next]
                        .iter()
                        .filter_map(|l| l.get(at..))
                        .map(str::trim)
                        .filter(|c| !c.is_empty())
                        .collect()
                })
                .unwrap_or_default();
            let (code, message) = if cells.is_empty() {
                tool_and_rule(lines[r].trim())
            } else {
                (None, cells.join(" "))
            };
            let start = if r == first { j } else { r };
            out.push(Diagnostic::new(
                &lines[start..next],
                start,
                format!("{file}:{row}"),
                message,
                code,
                format!("{file}:{row}"),
                Severity::Warning,
            ));
            r = next;
        }
        end = Some(k);
        j = k;
    }
    end
}

#[cfg(test)]
mod tests {
    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    fn read(text: &str) -> Vec<(String, String)> {
        let l = lines(text);
        let never = stanley_core::Cancel::new();
        super::super::read_all(&l, &vec![false; l.len()], &stanley_core::Pace::new(&never))
            .unwrap()
            .into_iter()
            .map(|d| (d.found.name.unwrap(), d.found.message.unwrap()))
            .collect()
    }

    /// Shapes of real bandit, sqlfluff and htmlhint output (`tests/fixtures/runners/`).
    #[test]
    fn a_place_in_a_field_names_its_finding() {
        let found = read(
            ">> Issue: [B602:subprocess_popen] call with shell=True\n   Severity: High\n   Location: ./s.py:4:4\n4\tsubprocess.call(cmd, shell=True)\n\n------\n",
        );
        assert_eq!(found[0].0, "./s.py:4");
        assert!(found[0].1.contains("shell=True"));

        let found = read(
            "== [q.sql] FAIL\nL:   1 | P:   1 | LT09 | Select targets should be on a new line unless\n                       | there is only one. [layout.select_targets]\nL:   2 | P:   4 | LT01 | Expected single whitespace.\n",
        );
        assert_eq!(
            found,
            [
                (
                    "q.sql:1".to_owned(),
                    "Select targets should be on a new line unless there is only one. [layout.select_targets]".to_owned()
                ),
                ("q.sql:2".to_owned(), "Expected single whitespace.".to_owned()),
            ]
        );

        let found = read(
            "   site/index.html\n      L4 |<div id=\"a\"><div id=\"a\">\n                  ^ The id value [ a ] must be unique. (id-unique)\n      L6 |<P>x</P>\n          ^ Tag names must be lowercase. (tagname-lowercase)\n",
        );
        assert_eq!(found[0].0, "site/index.html:4");
        assert!(found[0].1.starts_with("The id value"));
        assert_eq!(found[1].0, "site/index.html:6");
    }

    #[test]
    fn a_list_of_files_closed_by_their_count_is_a_finding_each() {
        let found = read(
            "would reformat src/a.py\nwould reformat src/b.py\n\nOh no!\n2 files would be reformatted, 1 file would be left unchanged.\n",
        );
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["src/a.py", "src/b.py"]);
        // A count that disagrees, or none, makes no list: paths alone say nothing is wrong.
        assert!(read("src/a.py\nsrc/b.py\n3 files checked\n").is_empty());
        assert!(read("src/a.py\nsrc/b.py\n").is_empty());
    }

    /// The shape of real biome output (`tests/fixtures/runners/`).
    #[test]
    fn a_place_alone_heads_the_marked_finding_under_it() {
        let log = "src/cart.js:2:10 lint/correctness/noUnusedVariables  FIXABLE  ━━━━━━━━━━\n\
                   \n\
                   \u{20} ✖ This function addItem is unused.\n\
                   \u{20}\u{20}\n\
                   \u{20}   1 │ var total = 0;\n\
                   \u{20} > 2 │ function addItem(item) {\n\
                   \n\
                   src/view.jsx:2:3 lint/a11y/useAltText ━━━━━━━━━━\n\
                   \n\
                   \u{20} ✖ Provide a text alternative.\n";
        assert_eq!(
            read(log),
            [
                (
                    "src/cart.js:2".to_owned(),
                    "This function addItem is unused.".to_owned()
                ),
                (
                    "src/view.jsx:2".to_owned(),
                    "Provide a text alternative.".to_owned()
                ),
            ]
        );
    }

    /// gitlint's shape (`tests/fixtures/runners/gitlint-default-*.log`).
    #[test]
    fn a_heading_that_names_an_item_heads_its_coded_rows() {
        let found = read(
            "Commit 55a0165bb9:\n3: B5 Body message is too short (5<20): \"short\"\n\nCommit 809389c86e:\n1: T5 Title contains the word 'WIP'\n3: B6 Body message is missing\n",
        );
        assert_eq!(
            found,
            [
                (
                    "55a0165bb9:3".to_owned(),
                    "B5 Body message is too short (5<20): \"short\"".to_owned()
                ),
                (
                    "809389c86e:1".to_owned(),
                    "T5 Title contains the word 'WIP'".to_owned()
                ),
                (
                    "809389c86e:3".to_owned(),
                    "B6 Body message is missing".to_owned()
                ),
            ]
        );
        // A numbered list under a title is no set of findings: no rule's code opens its rows.
        assert!(read("Steps:\n1: open the page\n2: click the button\n").is_empty());
    }

    /// Terraform's shape, boxed and bare (`tests/fixtures/runners/terraform-*.log`).
    #[test]
    fn a_severity_over_its_place_in_words_boxed_or_not() {
        let boxed = "╷\n│ Error: Reference to undeclared input variable\n│ \n│   on main.tf line 8, in locals:\n│    8:   a = var.b\n│ \n│ No variable b.\n╵\n\
                     ╷\n│ Warning: Deprecated attribute\n│ \n│   on out.tf line 2:\n│    2:   x = y\n╵\n";
        assert_eq!(
            read(boxed),
            [
                (
                    "main.tf:8".to_owned(),
                    "Reference to undeclared input variable".to_owned()
                ),
                ("out.tf:2".to_owned(), "Deprecated attribute".to_owned()),
            ]
        );
        let bare = "\nError: Call to unknown function\n\n  on outputs.tf line 6, in output \"u\":\n   6:   value = up(x)\n\nThere is no function named \"up\".\n\nError: Unsupported argument\n\n  on main.tf line 3:\n";
        assert_eq!(
            read(bare),
            [
                (
                    "outputs.tf:6".to_owned(),
                    "Call to unknown function".to_owned()
                ),
                ("main.tf:3".to_owned(), "Unsupported argument".to_owned()),
            ]
        );
        // A severity with no place in words under it is another reader's.
        assert!(read("Error: something broke\n\nat the end of the run\n").is_empty());
    }

    /// VSG's and JSLint's shapes (`tests/fixtures/runners/vsg-*.log`, `jslint-*.log`).
    #[test]
    fn a_table_with_a_line_column_and_places_in_a_comment_under_a_file_heading() {
        let table = "File:  src/a.vhd\nTotal Violations:    2\n------+-------+-------+------\n  Rule  |  severity  |  line(s)  | Solution\n------+-------+-------+------\n  port_013 | Error |  5 | Move ports to their own lines.\n  signal_007 | Error |  9 | Remove default assignment.\n------+-------+-------+------\n";
        assert_eq!(
            read(table),
            [
                (
                    "src/a.vhd:5".to_owned(),
                    "Move ports to their own lines.".to_owned()
                ),
                (
                    "src/a.vhd:9".to_owned(),
                    "Remove default assignment.".to_owned()
                ),
            ]
        );
        // A table with no line column holds no places.
        assert!(read("File:  a.txt\n  Name | Size | Owner\n  x | 3 | me\n").is_empty());
        let commented = "jslint src/a.js\n 1. Expected ';' and instead saw 'if'. // line 5, column 32\n    var t = 1\n 2. Unused 'x'. // line 9, column 5\n    var x;\n";
        assert_eq!(
            read(commented),
            [
                (
                    "src/a.js:5".to_owned(),
                    "Expected ';' and instead saw 'if'.".to_owned()
                ),
                ("src/a.js:9".to_owned(), "Unused 'x'.".to_owned()),
            ]
        );
    }

    /// detect-secrets' hook (`tests/fixtures/runners/detectsecrets-hook-*.log`).
    #[test]
    fn a_record_of_fields_each_on_its_line_is_placed_by_its_location_field() {
        let text = "ERROR: Potential secrets about to be committed to git repo!\n\nSecret Type: Secret Keyword\nLocation:    config/a.yaml:3\n\nSecret Type: AWS Access Key\nLocation:    config/b.py:1\n\nPossible mitigations:\n";
        assert_eq!(
            read(text),
            [
                (
                    "config/a.yaml:3".to_owned(),
                    "Secret Type: Secret Keyword".to_owned()
                ),
                (
                    "config/b.py:1".to_owned(),
                    "Secret Type: AWS Access Key".to_owned()
                ),
            ]
        );
    }
}
