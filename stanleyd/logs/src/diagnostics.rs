//! Diagnostics are failures too (issue 46): the shapes compilers, type checkers and linters
//! share, whatever tool printed them. Each error is one failure, named by its location
//! (`path:line`) and grouped by its code or rule when it has one.

use crate::found::Found;
pub(crate) use crate::text::path_like;
use crate::text::whole_number;

mod excerpts;
mod fields;
mod items;
mod marked_files;
mod records;
mod rows;
mod sentences;
pub(crate) mod tallied;

/// Lines a diagnostic's block keeps at most.
pub(crate) const MAX_LINES: usize = 40;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Severity {
    Error,
    Warning,
}

/// One diagnostic read from a line (and, for the header shape, the line it points at).
#[derive(Debug)]
pub(crate) struct Diagnostic {
    /// The block: 0-based start, lines, `path:line` as its name, the message.
    pub found: Found,
    /// The code or rule (`TS2322`, `E0308`, `no-unused-vars`, `-Wunused-variable`).
    pub code: Option<String>,
    /// Where it is, as exactly as the tool said (`path:line:col` when it gave a column): two
    /// errors on one line are two failures, and one printed twice is one.
    pub place: String,
    severity: Severity,
}

impl Diagnostic {
    /// A finding headed by its place at `start`, its block `block`.
    pub(crate) fn new(
        block: &[String],
        start: usize,
        name: String,
        message: String,
        code: Option<String>,
        place: String,
        severity: Severity,
    ) -> Diagnostic {
        Diagnostic {
            found: Found {
                start,
                lines: block.to_vec(),
                name: Some(name),
                message: Some(message),
                anchor: "diagnostic",
                ..Found::default()
            },
            code,
            place,
            severity,
        }
    }
}

impl Diagnostic {
    /// A finding one line long with no place (`average complexity is ranked D`, an item of a
    /// list under `Errors:`), named by what it says.
    pub(crate) fn unplaced(
        lines: &[String],
        at: usize,
        message: String,
        severity: Severity,
    ) -> Self {
        Self::new(
            &lines[at..=at],
            at,
            message.clone(),
            message,
            None,
            String::new(),
            severity,
        )
    }

    /// A finding one line long about a whole file, named by it.
    pub(crate) fn about_file(
        lines: &[String],
        at: usize,
        file: String,
        message: String,
        severity: Severity,
    ) -> Self {
        Self::new(
            &lines[at..=at],
            at,
            file.clone(),
            message,
            None,
            file,
            severity,
        )
    }
}

/// The most rows one heading's list is read to (`things_in_files`, `numbered_under_severity`,
/// `rows_under_a_counted_heading`): a bound on one reading, not on the log.
const MAX_LISTED: usize = MAX_LINES * 25;

/// A word that is a whole place (`package.json:7:6`) or a file (`src/legacy.ts`): the name a
/// finding there takes (`package.json:7`) and the place as printed.
fn word_place(word: &str) -> Option<(String, String)> {
    if let Some((path, number, used)) = location(word)
        && used == word.len()
    {
        return Some((format!("{path}:{number}"), word.to_owned()));
    }
    crate::text::file_with_extension(word).then(|| (word.to_owned(), word.to_owned()))
}

/// A row that is only a place in words (`at a/b.t line 16`, `In a/b.py at line 16`): (path,
/// line).
pub(crate) fn place_in_words(line: &str) -> Option<(&str, u64)> {
    sentences::place_sentence(line)
}

/// `path:line[:col]` at the start of `line`: (path, line number, bytes used).
/// The length of a named, numbered part of a file before the line of a place (`cell_3:` of
/// `a.ipynb:cell_3:2:5`): letters, a `_` or `-`, a number, a colon, and the line's figure next.
fn file_part(rest: &str) -> usize {
    let letters = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
    let joined = usize::from(matches!(rest.as_bytes().get(letters), Some(b'_' | b'-')));
    let number = rest[letters + joined..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    let end = letters + joined + number;
    let placed = rest[end..]
        .strip_prefix(':')
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    if letters >= 2 && number > 0 && placed {
        end + 1
    } else {
        0
    }
}

pub(crate) fn location(line: &str) -> Option<(&str, u64, usize)> {
    // A path in quotes, perhaps a `file:` URL (`"file:/w/a.html":3.5-3.20: error: …`, the Nu
    // Html Checker's GNU format): the colon after the closing quote ends it.
    let (path, colon) = match line
        .strip_prefix('"')
        .and_then(|rest| rest.find("\":").map(|close| &rest[..close]))
    {
        Some(quoted) => (
            quoted.strip_prefix("file:").unwrap_or(quoted),
            quoted.len() + 2,
        ),
        None => {
            let (path, _) = line.split_once(':')?;
            (path, path.len())
        }
    };
    if !path_like(path) {
        return None;
    }
    let rest = &line[colon + 1..];
    // (The word `line` may stand before the number: `src/a.a65:line 7: …`, xa's.)
    // (Or a space: `config/app.toml: 3:5: duplicate key`, when a colon closes the number.)
    let spaced = rest.strip_prefix(' ').is_some_and(|r| {
        let d = r.bytes().take_while(u8::is_ascii_digit).count();
        d > 0 && r[d..].starts_with(':')
    });
    let worded = if spaced {
        1
    } else {
        usize::from(rest.starts_with("line ")) * "line ".len()
    };
    // (A part of the file may stand between its path and the line: `a.ipynb:cell_3:2:5:`, a
    // notebook's cell. The place runs on over it.)
    let worded = worded + if worded == 0 { file_part(rest) } else { 0 };
    let rest = &rest[worded..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let number: u64 = rest[..digits].parse().ok()?;
    let mut used = colon + 1 + worded + digits;
    let after = &line[used..];
    // The GNU form `line.column` and its span `line.column-line.column` (`a.vala:9.16-9.58:`,
    // Vala's and bison's), when a colon closes it.
    if let Some(span) = after.strip_prefix('.') {
        let len = span
            .bytes()
            .take_while(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-'))
            .count();
        // (Or a severity word after a space: `queue.sml:11.1-28.4 Error: …`, SML/NJ's.)
        let judged = span[len..].strip_prefix(' ').is_some_and(|r| {
            r.split_whitespace()
                .next()
                .is_some_and(|w| severity_word(w).is_some() && w.ends_with(':'))
        });
        if len > 0
            && (span[len..].starts_with(':') || judged)
            && span[..len].starts_with(|c: char| c.is_ascii_digit())
        {
            used += 1 + len;
        }
        return Some((path, number, used));
    }
    // A column after a comma (`CMakeLists.txt:04,04: [C0103] …`, cmake-lint's), when a colon
    // closes it.
    if let Some(col) = after.strip_prefix(',') {
        let d = col.bytes().take_while(u8::is_ascii_digit).count();
        if d > 0 && col[d..].starts_with(':') {
            return Some((path, number, used + 1 + d));
        }
    }
    // A column after a space (`schema/a.fbs:7: 21: error: …`, flatc's), when a colon closes it.
    if let Some(col) = after.strip_prefix(": ") {
        let d = col.bytes().take_while(u8::is_ascii_digit).count();
        if d > 0 && col[d..].starts_with(':') {
            return Some((path, number, used + 2 + d));
        }
    }
    if let Some(col) = after.strip_prefix(':') {
        let d = col.bytes().take_while(u8::is_ascii_digit).count();
        if d > 0 {
            used += 1 + d;
            // A column range (`a.hs:3:5-9:`, as GHC and hlint print a span on one line).
            if let Some(end) = col[d..].strip_prefix('-') {
                let e = end.bytes().take_while(u8::is_ascii_digit).count();
                if e > 0 && end[e..].starts_with(':') {
                    used += 1 + e;
                }
            }
        }
    }
    Some((path, number, used))
}

/// `path(line,col)` or `path(line)` at the start of `line` (MSVC's and TypeScript's places,
/// a C++ test framework's).
pub(crate) fn paren_location(line: &str) -> Option<(&str, u64, usize)> {
    enclosed_location(line, '(', ')')
}

/// `path[line,col]` or `path[line]` at the start of `line`, as [`paren_location`] in brackets
/// (`src/a.ts[2,0]: pct`, a list of unused exports).
pub(crate) fn bracket_location(line: &str) -> Option<(&str, u64, usize)> {
    enclosed_location(line, '[', ']')
}

/// A path and its line (and column) enclosed by `open` and `close` right after it.
fn enclosed_location(line: &str, open: char, close: char) -> Option<(&str, u64, usize)> {
    let at = line.find(open)?;
    let path = &line[..at];
    if !path_like(path) {
        return None;
    }
    let open = at;
    let close = line[open..].find(close)? + open;
    let inside = &line[open + 1..close];
    let (row, col) = inside.split_once(',').unwrap_or((inside, "0"));
    if row.is_empty()
        || !row.bytes().all(|b| b.is_ascii_digit())
        || col.is_empty()
        || !col.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // A call in a message (`check(3)`) is no place: a place is followed by `:` or a space.
    if !line[close + 1..].starts_with([':', ' ']) && close + 1 != line.len() {
        return None;
    }
    Some((path, row.parse().ok()?, close + 1))
}

/// The test a finding at `at` was printed under: a heading naming it in words (`TEST CASE:
/// adds numbers`) above it in the same section, within a few lines, back to a separator, a
/// blank line after other content, or another finding's place; with the line its report
/// starts at (the section's first line when a separator opens it, else the heading's).
fn heading_above(lines: &[String], covered: &[bool], at: usize) -> Option<(String, usize)> {
    let mut heading: Option<(String, usize)> = None;
    let mut k = at;
    while k > 0 && at - k < 8 {
        k -= 1;
        let l = &lines[k];
        if covered[k] || one_line(l).is_some() {
            break;
        }
        if crate::line::separator(l) {
            return heading.map(|(name, _)| (name, k + 1));
        }
        if heading.is_none()
            && let Some(name) = crate::line::heading_name(l)
        {
            // Indented names between the heading and the finding are its parts (doctest's
            // subcases): `corners` then `  triangle` is `corners/triangle`.
            let parts: Vec<&str> = lines[k + 1..at]
                .iter()
                .filter(|p| p.starts_with(char::is_whitespace) && !p.trim().is_empty())
                .map(|p| p.trim())
                .take_while(|p| !p.contains(':') && crate::line::name_like(p))
                .collect();
            let name = std::iter::once(name.as_str())
                .chain(parts)
                .collect::<Vec<_>>()
                .join("/");
            heading = Some((name, k));
        }
    }
    heading
}

/// Whether a line explains the finding above it: a place with a `note:` (or `remark:`) after
/// it (clang-tidy's and gcc's path through the code to an error), part of that error's report
/// rather than a finding of its own.
fn explains(line: &str) -> bool {
    let line = line.trim_start();
    location(line)
        .or_else(|| paren_location(line))
        .is_some_and(|(_, _, used)| {
            let rest = line[used..].trim_start_matches(':').trim_start();
            let lower = rest.get(..7).unwrap_or(rest).to_ascii_lowercase();
            lower.starts_with("note:") || lower.starts_with("remark:")
        })
}

/// What a diagnostic says it is in, when it names it first (`error: in "suite/case": check …
/// has failed`, a test framework's assertion printed as a diagnostic): the failure's name.
pub(crate) fn named_in(message: &str) -> Option<String> {
    let lower = message.to_ascii_lowercase();
    let after = ["fatal error:", "error:", "warning:"]
        .iter()
        .find_map(|w| lower.strip_prefix(w))?;
    let rest = message[message.len() - after.len()..].trim_start();
    let quote = rest.strip_prefix("in ")?.chars().next()?;
    if !matches!(quote, '"' | '\'' | '`') {
        return None;
    }
    let inner = &rest[4..];
    let close = inner.find(quote)?;
    let name = &inner[..close];
    (inner[close + 1..].starts_with(':') && !name.trim().is_empty()).then(|| name.to_owned())
}

/// What follows a location: the severity (or a lint code), the code, and the message.
pub(crate) fn judged(rest: &str) -> Option<(Severity, Option<String>, String)> {
    let rest = rest.trim_start();
    // A warning's category as Python prints it (`a.py:6: UserWarning: …`, `DeprecationWarning:
    // …`): a warning, the category its code.
    if let Some((category, _)) = rest.split_once(": ")
        && category.len() > "Warning".len()
        && category.ends_with("Warning")
        && category.starts_with(|c: char| c.is_ascii_uppercase())
        && category.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return Some((
            Severity::Warning,
            Some(category.to_owned()),
            rest.to_owned(),
        ));
    }
    let lower = rest.to_ascii_lowercase();
    let (severity, after) = if let Some(a) = lower
        .strip_prefix("fatal error")
        .or_else(|| lower.strip_prefix("error"))
    {
        (Severity::Error, &rest[rest.len() - a.len()..])
    } else if let Some(a) = lower.strip_prefix("warning") {
        (Severity::Warning, &rest[rest.len() - a.len()..])
    } else {
        // A linter's code first: `E501 line too long`, `F401 'os' imported but unused`,
        // `UP035 [*] …`.
        let code: String = rest
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        let letters = code.chars().take_while(char::is_ascii_uppercase).count();
        let valid = (1..=4).contains(&letters)
            && code.len() > letters
            && code[letters..].bytes().all(|b| b.is_ascii_digit())
            && (rest[code.len()..].starts_with(' ') || rest[code.len()..].starts_with(": "));
        if !valid {
            return trailing_severity(rest);
        }
        return Some((Severity::Error, Some(code), rest.to_owned()));
    };
    // `error: m`, `error TS2322: m`, `error[E0308]: m`, `error - m`; not `errors` or `errorHandler`.
    let mut code = None;
    let tail = if let Some(t) = after.strip_prefix('[') {
        let close = t.find(']')?;
        code = Some(t[..close].to_owned());
        t[close + 1..].strip_prefix(':')?
    } else if let Some(t) = after.strip_prefix(':') {
        t
    } else if let Some(t) = after.strip_prefix(' ') {
        let word: String = t
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let coded = word.len() > 2 && word.chars().any(|c| c.is_ascii_digit());
        let t2 = &t[word.len()..];
        match t2.strip_prefix(':') {
            Some(m) if coded => {
                code = Some(word);
                m
            }
            _ => return None,
        }
    } else {
        return None;
    };
    let message = tail.trim();
    if message.is_empty() {
        return None;
    }
    // A trailing `[code]` (mypy, gcc's `[-Wunused-variable]`).
    if code.is_none()
        && message.ends_with(']')
        && let Some(open) = message.rfind(" [")
    {
        let inner = &message[open + 2..message.len() - 1];
        if !inner.is_empty() && !inner.contains(' ') {
            code = Some(inner.to_owned());
        }
    }
    let werror = message.contains("-Werror");
    let severity = if werror { Severity::Error } else { severity };
    Some((severity, code, rest.to_owned()))
}

/// A message that says its severity at its end, as `-f unix` formats do:
/// `Unexpected unknown property (property-no-unknown) [error]`, `'x' is not defined [Error/no-undef]`.
pub(crate) fn trailing_severity(rest: &str) -> Option<(Severity, Option<String>, String)> {
    let rest = rest.trim();
    let open = rest.rfind(" [")?;
    let inner = rest[open + 2..].strip_suffix(']')?;
    let (word, rule) = inner
        .split_once('/')
        .map_or((inner, None), |(w, r)| (w, Some(r)));
    let severity = match word.to_ascii_lowercase().as_str() {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        _ => return None,
    };
    let message = rest[..open].trim();
    // The rule in parentheses at the message's end when the brackets did not name it.
    let code = rule.map(str::to_owned).or_else(|| {
        let inside = message.strip_suffix(')')?;
        let at = inside.rfind('(')?;
        let rule = &inside[at + 1..];
        (!rule.is_empty() && !rule.contains(' ')).then(|| rule.to_owned())
    });
    (!message.is_empty()).then(|| (severity, code, message.to_owned()))
}

/// A severity word given as a bare word (`error`, `warning`, `info`, `style`, `note`).
pub(crate) fn severity_word(word: &str) -> Option<Severity> {
    match word
        .trim_end_matches(':')
        .trim_matches(|c| c == '[' || c == ']' || c == '(' || c == ')')
        .to_ascii_lowercase()
        .as_str()
    {
        "error" | "fatal" | "err" => Some(Severity::Error),
        "warning" | "warn" | "info" | "style" | "note" | "notice" | "hint" | "convention"
        | "refactor" | "suggestion" | "remark" => Some(Severity::Warning),
        _ => None,
    }
}

/// A rule qualified by the case of it in brackets (`name[casing]`, `fqcn[action-core]`,
/// ansible-lint's): a word, then a rule-like or plain word in brackets, at the end.
fn qualified_rule(word: &str) -> bool {
    word.strip_suffix(']')
        .and_then(|w| w.split_once('['))
        .is_some_and(|(rule, case)| {
            !rule.is_empty()
                && !case.is_empty()
                && rule.starts_with(|c: char| c.is_ascii_alphabetic())
                && format!("{rule}{case}")
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "/-_.".contains(c))
        })
}

/// A rule or code as linters print it: no spaces, and a digit, `/`, `-` or `_` in it
/// (`MD001/heading-increment`, `DL3008`, `no-unused-vars`, `SC2086`).
pub(crate) fn rule_like(word: &str) -> bool {
    let w = word.trim_end_matches(':');
    w.len() >= 2
        && w.len() <= 80
        && w.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/-_.".contains(c))
        && w.chars().any(|c| c.is_ascii_digit() || "/-_".contains(c))
}

/// What follows a place with no colon: a severity word and then a rule, or a rule and then a
/// severity, before the message.
pub(crate) fn bare_judged(rest: &str) -> Option<(Severity, Option<String>, String)> {
    let mut words = rest.split_whitespace();
    let first = words.next()?;
    let second = words.next().unwrap_or("");
    let (severity, code) = if let Some(s) = severity_word(first) {
        (
            s,
            rule_like(second).then(|| second.trim_end_matches(':').to_owned()),
        )
    } else if rule_like(first) && first.chars().any(|c| c.is_ascii_digit()) {
        let s = severity_word(second).unwrap_or(Severity::Error);
        (s, Some(first.trim_end_matches(':').to_owned()))
    } else {
        return None;
    };
    let message = rest.trim();
    (message.split_whitespace().count() >= 2).then(|| (severity, code, message.to_owned()))
}

/// A place given in words (`In path line N:`, `path: line N, col M, message`): path, line,
/// and what follows (empty for a header whose findings are marked on the next lines).
pub(crate) fn worded(line: &str) -> Option<(&str, u64, &str)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let t = line.strip_prefix("In ").unwrap_or(line);
    let at = t.find(" line ")?;
    let path = t[..at].trim_end_matches([':', ',']);
    if !path_like(path) {
        return None;
    }
    let after = &t[at + " line ".len()..];
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    let number: u64 = after[..digits].parse().ok()?;
    let mut rest = &after[digits..];
    // `, col M`, ` column M`
    for marker in [", col ", " col ", ", column ", " column "] {
        if let Some(r) = rest.strip_prefix(marker) {
            let d = r.bytes().take_while(u8::is_ascii_digit).count();
            rest = &r[d..];
            break;
        }
    }
    let rest = rest.trim_start_matches([':', ',']).trim();
    Some((path, number, rest))
}

/// A place in words with its file quoted, after `File` or `In` or first (`File 'src/expr.g' line
/// 12: Parse Error: …`, `In "deploy/site.pp", line 4:`, `File "a.inf"; Line 21<TAB># Warning:
/// …`): (path, line, what follows), when what follows is nothing (the message comes under it)
/// or starts with its severity.
pub(crate) fn quoted_worded(line: &str) -> Option<(&str, u64, &str, Option<Severity>)> {
    // (Or the quoted file first: `"src/a.c", line 4: warning: …`, EDG's and Sun's compilers.)
    let t = line
        .strip_prefix("File ")
        .or_else(|| line.strip_prefix("In "))
        .unwrap_or(line);
    // (After `File`, the file may stand unquoted up to its semicolon: `File a.icn; Line 11 #
    // …`, Icon's.)
    let (path, after) = match t.chars().next().filter(|c| matches!(c, '"' | '\'')) {
        Some(quote) => {
            let close = t[1..].find(quote)? + 1;
            (&t[1..close], &t[close + 1..])
        }
        None if line.starts_with("File ") => {
            let end = t.find(';')?;
            (&t[..end], &t[end..])
        }
        None => return None,
    };
    if path.contains(' ') && !line.starts_with("File \"") && !line.starts_with("File '") {
        return None;
    }
    // (`; Line 21`, Inform's: a semicolon and the word capitalised.)
    let after = after.trim_start_matches([',', ';']);
    let after = after
        .strip_prefix(" line ")
        .or_else(|| after.strip_prefix(" Line "))?;
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    let number: u64 = after[..digits].parse().ok()?;
    // After the line, a colon; or a tab and a mark before the severity (`\t# Warning:  …`).
    let tail = &after[digits..];
    let (rest, marked) = match tail.strip_prefix(':') {
        Some(r) => (r.trim(), false),
        None => (
            tail.strip_prefix('\t')
                .or_else(|| tail.strip_prefix(" # "))?
                .trim_start_matches(['#', '*', '!', '>'])
                .trim(),
            true,
        ),
    };
    // (A marked message with no severity word is an error: `File a.icn; Line 11 # "else":
    // missing right parenthesis`.)
    let severity = rest
        .split_whitespace()
        .take(3)
        .find_map(|w| w.strip_suffix(':').and_then(severity_word))
        .or_else(|| (marked && rest.split_whitespace().count() >= 2).then_some(Severity::Error));
    (path_like(path) && (rest.is_empty() || severity.is_some()))
        .then_some((path, number, rest, severity))
}

/// A marker line under a worded header: `^--^ SC2086 (info): message`.
pub(crate) fn marker(line: &str) -> Option<(Severity, Option<String>, String)> {
    let t = line.trim_start();
    if !t.starts_with('^') {
        return None;
    }
    let t = t.trim_start_matches(|c: char| "^-~ ".contains(c));
    let (head, message) = t.split_once(": ")?;
    let (code, severity) = match head.split_once(" (") {
        Some((c, s)) => (Some(c.trim().to_owned()), s.trim_end_matches(')')),
        None => (None, head),
    };
    let severity = severity_word(severity).unwrap_or(Severity::Error);
    let message = message.trim();
    (!message.is_empty()).then(|| (severity, code, t.to_owned()))
}

/// A diagnostic on one line: location first (`path:line[:col]: …`, ` - …`) or in parentheses.
pub(crate) fn one_line(line: &str) -> Option<(String, String, Severity, Option<String>, String)> {
    // A stack frame gives a place and a function, not a finding.
    if crate::line::stack_frame(line) {
        return None;
    }
    // An exception's kind before the place (`** (CompileError) lib/a.ex:12: undefined
    // function f/1`, Elixir's): an error, its kind part of the message.
    if let Some(rest) = line.strip_prefix("** (")
        && let Some((kind, after)) = rest.split_once(") ")
        && !kind.contains(' ')
    {
        return one_line_placed(after)
            .map(|(n, p, _, c, m)| (n, p, Severity::Error, c, format!("({kind}) {m}")));
    }
    // A bracketed severity before the place (`[ERROR] a.java:13:5: message [Rule]`, as
    // checkstyle and Maven's plugins print): the severity is the bracket's.
    if let Some(rest) = line.strip_prefix('[')
        && let Some((inside, after)) = rest.split_once("] ")
        && let Some(severity) = severity_word(inside)
    {
        return one_line_placed(after).map(|(n, p, _, c, m)| (n, p, severity, c, m));
    }
    // A program's name before a severity label (`asciidoctor: ERROR: guide.adoc: line 9: …`,
    // `prog: warning: a.c:3: …`): the finding after it (one with no place is read by
    // `program_unplaced`, which looks at the lines around it).
    if let Some((_, after, _, _)) = program_labelled(line) {
        return one_line(after);
    }
    // A severity as a label before the place (`ERROR: /p/a.pl:10:45: Syntax error: …`,
    // SWI-Prolog's): the severity is the label's, when a message follows the place.
    if let Some((label, after)) = line.split_once(": ")
        && !label.contains(' ')
        && let Some(severity) = severity_word(label)
        && let Some((n, p, _, c, m)) = one_line_placed(after)
        && !m.trim().is_empty()
    {
        return Some((n, p, severity, c, m));
    }
    one_line_placed(line)
        .or_else(|| worded_place(line))
        .or_else(|| unplaced_named(line))
        .or_else(|| file_level(line))
        .or_else(|| program_glued(line))
        .or_else(|| dashed_fields(line))
}

/// A finding as fields a dash (or a bullet) separates, one of them its place alone (`error -
/// lib/a.dart:3:5 - Undefined name 'x'. - undefined_identifier`, Dart's; `ERROR:
/// UndefinedVariable - src/a.php:3:5 - Cannot find …`, Psalm's): the severity from the first
/// field (a word, or a label before its code), the message the field after the place, the code
/// a rule-like last field or the first field's.
fn dashed_fields(line: &str) -> Option<(String, String, Severity, Option<String>, String)> {
    let t = line.trim();
    let sep = [" - ", " • "].into_iter().find(|s| t.contains(s))?;
    let fields: Vec<&str> = t.split(sep).map(str::trim).collect();
    if fields.len() < 3 {
        return None;
    }
    let at = fields.iter().position(|f| {
        location(f).is_some_and(|(_, _, used)| used == f.len() || f[used..].trim().is_empty())
    })?;
    if at == 0 || at + 1 >= fields.len() {
        return None;
    }
    let (path, number, _) = location(fields[at])?;
    let (severity, first_code) = match fields[0].split_once(": ") {
        Some((label, code)) => (
            severity_word(label)?,
            Some(code.trim()).filter(|c| !c.contains(' ')),
        ),
        None => (severity_word(fields[0])?, None),
    };
    // (A rule-like last field after the message is the code; else the first field's code.)
    let last = fields[fields.len() - 1];
    let coded_last = fields.len() > at + 2 && rule_like(last);
    let message = fields[at + 1..fields.len() - usize::from(coded_last)].join(sep);
    let code = coded_last.then_some(last).or(first_code).map(str::to_owned);
    (!message.is_empty()).then(|| {
        (
            format!("{path}:{number}"),
            fields[at].to_owned(),
            severity,
            code,
            message,
        )
    })
}

/// A program's name as it labels its lines: a bare word of letters, figures, `-` and `_`,
/// starting with a letter (`onsgmls`, `dh_auto_build`, `asciidoctor`).
fn program_word(word: &str) -> bool {
    word.len() >= 2
        && word.starts_with(|c: char| c.is_ascii_alphabetic())
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A program's name, then a severity label (`asciidoctor: ERROR: …`): the program, what follows
/// its name, the severity and what follows the label. A program's notes (`dpkg-buildpackage:
/// info: source package x`) are none.
fn program_labelled(line: &str) -> Option<(&str, &str, Severity, &str)> {
    let (program, after) = line.split_once(": ")?;
    let named = program_word(program) && severity_word(program).is_none();
    let (label, said) = after.split_once(": ")?;
    let severity = severity_word(label).filter(|_| {
        named
            && matches!(
                label.to_ascii_lowercase().as_str(),
                "error" | "warning" | "fatal" | "err" | "warn"
            )
    })?;
    Some((program, after, severity, said.trim()))
}

/// A program's finding with no place (`asciidoctor: WARNING: skipping reference to missing
/// attribute: x`), named by the program, when a line next to it is the same program's: among
/// its findings it is one, alone it is a line of a job's log (`autopkgtest: WARNING: …`).
fn program_unplaced(lines: &[String], i: usize) -> Option<Placed> {
    let (program, _, severity, said) = program_labelled(&lines[i])?;
    let prefix = format!("{program}: ");
    let neighbour = |k: Option<usize>| {
        k.and_then(|k| lines.get(k))
            .is_some_and(|l| l.starts_with(&prefix))
    };
    (said.split_whitespace().count() >= 2
        && (neighbour(i.checked_sub(1)) || neighbour(Some(i + 1))))
    .then(|| {
        (
            i,
            program.to_owned(),
            program.to_owned(),
            severity,
            None,
            said.to_owned(),
        )
    })
}

/// A finding with the program's name glued before its place (`onsgmls:q4.sgml:2:20:E: …`,
/// `prog:file:line: message`): a bare word, a colon, then a place with a line and a column.
fn program_glued(line: &str) -> Option<(String, String, Severity, Option<String>, String)> {
    let (program, rest) = line.split_once(':')?;
    let (_, _, used) = location(rest).filter(|_| program_word(program))?;
    // (A line and a column: `tool:12: text` is a label and a number, no place.)
    (rest[..used].matches(':').count() >= 2)
        .then(|| one_line_placed(rest))
        .flatten()
}

/// A lint code of capitals and figures (`W001`, `E201`, `DL3008`, `H005`): a capital first, a
/// figure in it, nothing else.
pub(crate) fn capital_code(word: &str) -> bool {
    word.len() >= 2
        && word.starts_with(|c: char| c.is_ascii_uppercase())
        && word.chars().any(|c| c.is_ascii_digit())
        && word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

/// How bad a finding a code says it is, by its letter: a `W` code a warning, any other an error.
pub(crate) fn code_severity(code: &str) -> Severity {
    if code.starts_with('W') {
        Severity::Warning
    } else {
        Severity::Error
    }
}

/// A finding about a whole file, its path with no line, then a severity as a label (`demo.spec:
/// W: no-buildroot-tag`, `setup.cfg: error: no section`): named by the file.
fn file_level(line: &str) -> Option<(String, String, Severity, Option<String>, String)> {
    let (path, rest) = line.split_once(": ")?;
    if !crate::text::file_with_extension(path) || location(path).is_some() {
        return None;
    }
    let (label, said) = rest.split_once(": ")?;
    // (A severity in one letter, `E:`/`W:`, as rpmlint and pylint's parseable rows print it.)
    let (severity, code, message) = match label {
        "E" => (Severity::Error, None, rest.to_owned()),
        "W" => (Severity::Warning, None, rest.to_owned()),
        _ if severity_word(label).is_some() => judged(rest)?,
        // A code (`dist/a.whl: W001: Wheel contains .pyc files:`): its letter says how bad.
        _ if capital_code(label) => (
            code_severity(label),
            Some(label.to_owned()),
            rest.to_owned(),
        ),
        _ => return None,
    };
    let code = code.or_else(|| {
        said.split_whitespace()
            .next()
            .filter(|w| rule_like(w))
            .map(str::to_owned)
    });
    (!message.trim().is_empty())
        .then(|| (path.to_owned(), path.to_owned(), severity, code, message))
}

/// A finding whose place is written in words after its severity (`Warning: a.less: line 3,
/// col 14, rule: message`, lesshint's): named `path:line`, the word before the message's colon
/// its code when it is one word.
fn worded_place(line: &str) -> Option<(String, String, Severity, Option<String>, String)> {
    let (word, after) = line.split_once(": ")?;
    // (The place in words first: `one_line` asks this of every line.)
    let (path, rest) = after.split_once(": line ")?;
    if word.contains(' ') || path.contains(char::is_whitespace) || !path_like(path) {
        return None;
    }
    let severity = severity_word(word)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let number: u64 = rest[..digits].parse().ok()?;
    let mut rest = &rest[digits..];
    let mut place = format!("{path}:{number}");
    for label in [", col ", ", column "] {
        if let Some(r) = rest.strip_prefix(label) {
            let d = r.bytes().take_while(u8::is_ascii_digit).count();
            if d > 0 {
                place = format!("{place}:{}", &r[..d]);
                rest = &r[d..];
            }
            break;
        }
    }
    let message = rest
        .strip_prefix(", ")
        .or_else(|| rest.strip_prefix(": "))?
        .trim();
    if message.is_empty() {
        return None;
    }
    let code = message
        .split_once(": ")
        .map(|(c, _)| c)
        .filter(|c| !c.is_empty() && !c.contains(' '))
        .map(str::to_owned);
    Some((
        format!("{path}:{number}"),
        place,
        severity,
        code,
        message.to_owned(),
    ))
}

/// A finding a tool could not place, in the place's own form (`unknown location(0): fatal
/// error: in "suite/case": std::invalid_argument: …`): a few words and a number in
/// parentheses, then a severity word and what the finding is in. Named by that.
fn unplaced_named(line: &str) -> Option<(String, String, Severity, Option<String>, String)> {
    let open = line.find('(')?;
    let words = &line[..open];
    if words.is_empty()
        || words.len() > 40
        || words.starts_with(char::is_whitespace)
        || !words.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
    {
        return None;
    }
    let close = open + line[open..].find(')')?;
    if !line[open + 1..close].bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rest = line[close + 1..].strip_prefix(": ")?;
    let (severity, code, message) = judged(rest)?;
    let name = named_in(&message)?;
    Some((name, line[..close + 1].to_owned(), severity, code, message))
}

fn one_line_placed(line: &str) -> Option<(String, String, Severity, Option<String>, String)> {
    // Indented, it counts only with a severity word after the place (pyright's
    // `  /src/a.py:3:5 - error: …`): an indented `file.go:12: got 1` is a test's own output.
    let indented = line.starts_with(char::is_whitespace);
    let line = line.trim_start();
    let (path, number, used) = location(line)
        .or_else(|| paren_location(line))
        .or_else(|| bracket_location(line))
        .or_else(|| scoped_location(line))?;
    let rest = &line[used..];
    // `path:3 error MD001/rule message`, `path:3 DL3008 warning: message`: a severity word or
    // a code right after the place, with no colon between.
    if !indented
        && let Some(r) = rest.strip_prefix(' ')
        && let Some((severity, code, message)) = bare_judged(r)
    {
        return Some((
            format!("{path}:{number}"),
            line[..used].to_owned(),
            severity,
            code,
            message,
        ));
    }
    // `path:5:5 [FURB101]: message` (refurb's): a bracketed code between the place and the
    // colon.
    if !indented
        && let Some(r) = rest.strip_prefix(" [")
        && let Some((code, message)) = r.split_once("]: ")
        && rule_like(code)
        && !message.trim().is_empty()
    {
        return Some((
            format!("{path}:{number}"),
            line[..used].to_owned(),
            Severity::Error,
            Some(code.to_owned()),
            message.trim().to_owned(),
        ));
    }
    // Fields padded around their colons (`blink.asm(20) : Error   : Found no label`, AVRA's):
    // the severity word's padding goes, so it reads as `Error: Found no label`.
    let padded = rest.strip_prefix(" : ").and_then(|r| {
        let (word, said) = r.split_once(" : ").or_else(|| r.split_once(':'))?;
        let word = word.trim();
        (!word.contains(' ') && severity_word(word).is_some())
            .then(|| format!("{word}: {}", said.trim()))
    });
    let rest = match &padded {
        Some(r) => r.as_str(),
        None => rest
            .strip_prefix(": ")
            .or_else(|| rest.strip_prefix(" - "))
            .or_else(|| rest.strip_prefix(':'))?,
    };
    if indented {
        let word = rest.trim_start().to_ascii_lowercase();
        if !["error", "warning", "fatal error"]
            .iter()
            .any(|w| word.starts_with(w))
        {
            return None;
        }
    }
    // (A place that says `line` in words, `a.a65:line 7`, is as plainly a place as one with a
    // column.)
    let with_column = line[..used].matches(':').count() >= 2 || line[..used].contains(":line ");
    // `path(line)` without a column is also how code quotes a call and how a test framework
    // prints its progress (`calc_test.cpp(10): Entering test case "x"`): it counts only with a
    // severity word or a code.
    let paren_row = line[..used].ends_with(')') && !line[..used].contains(',');
    // A note on the context in parentheses before the severity (`a.awk:4: (FILENAME=d.csv
    // FNR=2) warning: …`, gawk's): the finding is what follows it.
    let noted = rest
        .trim_start()
        .strip_prefix('(')
        .and_then(|r| r.split_once(") "))
        .and_then(|(_, after)| judged(after));
    let (severity, code, message) = noted.or_else(|| judged(rest)).or_else(|| {
        // Unindented, a message of its own: a finding whatever its words (`./a.go:5:2: x
        // declared and not used`, `a.py:3:1: E: message`, `a.py:3: unused variable 'x' (60%
        // confidence)`). Without a column it takes a sentence: a test's `a_test.py:12:
        // AssertionError` and `a_test.py:12: in test_x` are a traceback's places, and go's
        // logged lines are indented.
        let sentence = rest.split_whitespace().count() >= 3
            && !rest
                .split_whitespace()
                .next()
                .is_some_and(|w| w.ends_with("Error") || w.ends_with("Exception") || w == "in");
        (!indented && !paren_row && (with_column || sentence))
            .then(|| bare_finding(rest))
            .flatten()
    })?;
    Some((
        format!("{path}:{number}"),
        line[..used].to_owned(),
        severity,
        code,
        message,
    ))
}

/// `path:function:line: CODE: message` (darglint's): a place with the function it is in
/// between the file and the line, when a code follows it.
fn scoped_location(line: &str) -> Option<(&str, u64, usize)> {
    let mut fields = line.splitn(4, ':');
    let (path, scope, number, rest) = (
        fields.next()?,
        fields.next()?,
        fields.next()?,
        fields.next()?,
    );
    let ident = !scope.is_empty()
        && scope.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && scope
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.".contains(c));
    let code = rest.strip_prefix(' ')?.split(':').next()?;
    let n: u64 = number.parse().ok()?;
    (path_like(path) && path.contains('.') && ident && rule_like(code)).then_some((
        path,
        n,
        path.len() + scope.len() + number.len() + 2,
    ))
}

/// A finding's message with no severity word: a one-letter severity (`E:`, `W:`), a note's
/// word (`note:`, `help:`) as a warning, a trailing `(rule)` or `[rule]` as its code.
fn bare_finding(rest: &str) -> Option<(Severity, Option<String>, String)> {
    let message = rest.trim();
    if message.split_whitespace().count() < 2 {
        return None;
    }
    let first = message.split_whitespace().next().unwrap_or("");
    let severity = match first {
        "E:" | "F:" => Severity::Error,
        "W:" | "C:" | "R:" | "I:" | "N:" => Severity::Warning,
        _ => severity_word(first)
            .filter(|_| first.ends_with(':'))
            .map_or(Severity::Error, |_| Severity::Warning),
    };
    // A trailing bracketed number after the rule is its confidence or level
    // (`[whitespace/braces] [5]`): the rule is the bracket before it.
    let ruled = match message.rsplit_once(" [") {
        Some((before, level))
            if level
                .strip_suffix(']')
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) =>
        {
            before.trim_end()
        }
        _ => message,
    };
    let code = [('(', ')'), ('[', ']')].iter().find_map(|&(open, close)| {
        let inner = ruled.strip_suffix(close)?;
        let at = inner.rfind(open)?;
        let rule = &inner[at + 1..];
        rule_like(rule).then(|| rule.to_owned())
    });
    Some((severity, code, message.to_owned()))
}

/// A severity word, a file and its line in words anywhere on a line: the line's first word
/// or the word after `in file`/`in` as the file, `line N` as its line.
fn severity_place_in_words(line: &str) -> Option<(Severity, &str, u64)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let severity = words.iter().take(4).find_map(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        (w.len() > 1).then(|| severity_word(w)).flatten()
    });
    // (Or one letter before a dash: `byacc: e - line 6 of "a.y", …`, `w - …`.)
    let severity = severity.or_else(|| {
        words.windows(2).take(3).find_map(|w| match (w[0], w[1]) {
            ("e" | "E", "-") => Some(Severity::Error),
            ("w" | "W", "-") => Some(Severity::Warning),
            _ => None,
        })
    });
    // Without a severity word, only the tight shape `in PATH line N` (`possible bashism in
    // a.sh line 4 (echo -e):`, checkbashisms').
    let tight = words
        .windows(4)
        .any(|w| w[0] == "in" && path_like(w[1]) && w[1].contains(['.', '/']) && w[2] == "line");
    let severity = severity.or_else(|| tight.then_some(Severity::Error))?;
    // The last `line N`: a message may quote another (`Unclosed '{' on line 2 in a.php on line
    // 6`). But where `in FILE` closes the line after every `line N` (`"qty" at line 15 has
    // similar identifier with "qty" at line 18 in a.asn1`), the lines are the message's and
    // the first is its subject's.
    let file_last = words.len() >= 3
        && words[words.len() - 2] == "in"
        && path_like(words[words.len() - 1].trim_end_matches(['.', ':']));
    let at = if file_last {
        words.iter().position(|w| *w == "line")?
    } else {
        words.iter().rposition(|w| *w == "line")?
    };
    let number: u64 = words
        .get(at + 1)?
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .ok()?;
    fn clean(w: &str) -> &str {
        w.trim_matches(|c: char| "'\"`,;()[]".contains(c))
            .trim_end_matches(':')
    }
    // The file after `in`/`file`: the last one before `line N` (`in a.sh line 4`), else the
    // first after it (`at line 29 in file lib/A.pm`, `line 6 of "a.y"`).
    let named_at = |k: usize| {
        let w = &words[k..k + 2];
        (w[0] == "file" || w[0] == "in" || w[0] == "of")
            .then(|| clean(w[1]))
            .filter(|p| path_like(p) && p.contains(['.', '/']))
    };
    let after_in = (0..at.saturating_sub(1))
        .rev()
        .find_map(named_at)
        .or_else(|| (at..words.len().saturating_sub(1)).find_map(named_at));
    let path = after_in
        .or_else(|| Some(clean(words[0])).filter(|p| path_like(p) && p.contains(['.', '/'])))?;
    Some((severity, path, number))
}

/// A place at a message's end in words: `… in path on line N` (PHP), `path: … at line N,
/// column C`: (path, line).
fn place_at_end(line: &str) -> Option<(&str, u64)> {
    let t = line.trim_end().trim_end_matches(['.', ':']);
    let (before, number) = t.rsplit_once(" on line ").or_else(|| {
        let (b, rest) = t.rsplit_once(" at line ")?;
        Some((b, rest.split(',').next().unwrap_or(rest)))
    })?;
    let number: u64 = number.trim().parse().ok()?;
    let path = match before.rsplit_once(" in ") {
        Some((_, p)) if path_like(p.trim()) => p.trim(),
        _ => {
            let first = line.split_whitespace().next()?.trim_end_matches(':');
            path_like(first).then_some(first)?
        }
    };
    Some((path, number))
}

/// `error[E0308]: mismatched types` (a header whose location follows on an ` --> ` line).
pub(crate) fn header(line: &str) -> Option<(Severity, Option<String>, String)> {
    // The marked form (`  × eslint(no-debugger): …`, `  ! …`) that miette-style reports use.
    let t = line.trim_start();
    // (Drawn in ASCII, miette marks an error `x`: `  x eslint(no-debugger): …`; the frame under
    // it is what makes it a header.)
    let ascii = t
        .strip_prefix("x ")
        .filter(|_| line.starts_with(' '))
        .map(|m| (Severity::Error, m.trim()));
    if let Some((severity, message)) = ascii.or_else(|| marked(t)) {
        let code = message
            .split_once(": ")
            .map(|(c, _)| c)
            .filter(|c| !c.contains(' ') && !c.is_empty())
            .map(str::to_owned);
        return (!message.is_empty()).then(|| (severity, code, message.to_owned()));
    }
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    // An upper-case severity word and the message after a space (`ERROR Argument … [code]`,
    // pyrefly's): the arrow under it is what makes it a diagnostic.
    if let Some((word, rest)) = line.split_once(' ')
        && let Some(severity) = ["ERROR", "FATAL", "WARN", "WARNING"]
            .contains(&word)
            .then(|| severity_word(word))
            .flatten()
        && rest.split_whitespace().count() >= 2
    {
        let code = rest
            .trim_end()
            .strip_suffix(']')
            .and_then(|r| r.rsplit_once(" ["))
            .map(|(_, c)| c.to_owned())
            .filter(|c| !c.contains(' '));
        return Some((severity, code, line.trim().to_owned()));
    }
    // A kind of error named as a word (`TypeError: …`, `ParserError: …`, solc's): an error
    // whose kind is its code, when a place follows it.
    if let Some((kind, rest)) = line.split_once(": ")
        && kind.len() > "Error".len()
        && (kind.ends_with("Error") || kind.ends_with("Exception"))
        && kind.starts_with(|c: char| c.is_ascii_uppercase())
        && kind.chars().all(|c| c.is_ascii_alphanumeric())
        && !rest.trim().is_empty()
    {
        return Some((
            Severity::Error,
            Some(kind.to_owned()),
            line.trim().to_owned(),
        ));
    }
    // A lint code alone (`UP035 …`, ruff's) heads one too: the location on the next lines is
    // what makes it a diagnostic.
    judged(line)
}

/// A finding's one-character mark and the text after it (`× m`, `✖ m`, `✘ m` an error; `⚠ m`,
/// `! m`, `ℹ m` a warning): the marks miette-style reports, biome and tsd put before a message.
pub(crate) fn marked(t: &str) -> Option<(Severity, &str)> {
    let (mark, rest) = t.split_once(' ')?;
    let severity = match mark {
        "×" | "✖" | "✘" | "✗" => Severity::Error,
        "⚠" | "!" | "ℹ" | "⚡" => Severity::Warning,
        _ => return None,
    };
    Some((severity, rest.trim()))
}

/// A place alone on the line right under a coded message (`E3012 'x' is not of type
/// 'integer'` over `stack.yaml:17:7`): (name, place). Only a message a code opens: a test's
/// marked header over its place (`✖ adds` over `a.test.js:3`) is a report, not a finding.
fn place_under_coded(lines: &[String], from: usize) -> Option<Placed> {
    let line = &lines[from];
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    // A code the severity parse knows (`E501 …`), or a rule named before a colon (`max-comma:
    // This sentence exceeds …`, textlint's pretty errors).
    let (severity, code, mut message) = match judged(line) {
        Some((severity, Some(code), message)) => (severity, code, message),
        _ => {
            // Or a code in brackets first (`[207] File modes should …`, salt-lint's).
            // A bracketed code may be a number alone.
            let bracketed = line
                .strip_prefix('[')
                .and_then(|rest| rest.split_once("] "))
                .filter(|(code, _)| {
                    code.chars().any(|c| c.is_ascii_digit())
                        && code
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
                });
            let (rule, said) = match bracketed {
                Some(found) => found,
                None => line
                    .split_once(": ")
                    .filter(|(rule, _)| rule_like(rule) || qualified_rule(rule))?,
            };
            let said = said.trim();
            if said.is_empty() {
                return None;
            }
            // A severity in parentheses at the end says what the finding is (`… (warning)`).
            match ["(warning)", "[warning]"]
                .iter()
                .find_map(|w| said.strip_suffix(w))
            {
                Some(said) => (Severity::Warning, rule.to_owned(), said.trim().to_owned()),
                None => (Severity::Error, rule.to_owned(), said.to_owned()),
            }
        }
    };
    if !line.starts_with(code.as_str()) && !line.starts_with(&format!("[{code}] ")) {
        return None;
    }
    // The place alone on the next line, or after one more line of the message.
    let alone = |l: &str| place_line(l).is_some();
    let mut at = from + 1;
    if !lines.get(at).is_some_and(|l| alone(l)) {
        let more = lines.get(at)?;
        if more.trim().is_empty() || more.starts_with(char::is_whitespace) {
            return None;
        }
        message = format!("{message}\n{}", more.trim());
        at += 1;
    }
    let next = lines.get(at)?.trim_end();
    let (path, number, used) = place_line(next)?;
    Some((
        from,
        format!("{path}:{number}"),
        next[..used].to_owned(),
        severity,
        Some(code),
        message,
    ))
}

/// A line that gives a finding's place under its message: the place alone, or with what it is
/// in after a space (`site.yml:5:13 Task/Handler: install nginx`, ansible-lint's) when that
/// does not make it a finding of its own.
fn place_line(line: &str) -> Option<(&str, u64, usize)> {
    let l = line.trim_end();
    if l.starts_with(char::is_whitespace) {
        return None;
    }
    let (path, number, used) = location(l)?;
    (l[used..].trim_matches(':').is_empty() || (l[used..].starts_with(' ') && header(l).is_none()))
        .then_some((path, number, used))
}

/// A file and what is wrong with all of it (`guide/faq.md: Requires a rewrite.`), next to the
/// same tool's findings placed in files (the nearest unindented line above or below is one, or
/// another such row): a finding about the whole file. Alone, such a line is a job's or a
/// listing's, and stays so.
fn whole_file_row(lines: &[String], i: usize) -> Option<Placed> {
    fn about_a_file(line: &str) -> Option<(&str, &str)> {
        if line.starts_with(char::is_whitespace) || location(line).is_some() {
            return None;
        }
        let (path, said) = line.split_once(": ")?;
        let said = said.trim();
        (crate::text::file_with_extension(path)
            && !path.contains(' ')
            && said.split_whitespace().count() >= 2
            && said.starts_with(|c: char| c.is_alphabetic())
            // (A line that announces the findings under it is their context: gcc's `a.c: In
            // function 'f':`.)
            && !said.ends_with(':'))
        .then_some((path, said))
    }
    let (path, said) = about_a_file(&lines[i])?;
    let flush =
        |k: &usize| !lines[*k].trim().is_empty() && !lines[*k].starts_with(char::is_whitespace);
    let placed = |k: usize| {
        one_line(&lines[k]).is_some() || about_a_file(&lines[k]).is_some_and(|(p, _)| p != path)
    };
    let above = (i.saturating_sub(4)..i).rev().find(flush);
    let below = (i + 1..(i + 5).min(lines.len())).find(flush);
    let neighbours: Vec<usize> = above
        .into_iter()
        .chain(below)
        .filter(|&k| placed(k))
        .collect();
    if neighbours.is_empty() {
        return None;
    }
    // A file named by its base name where a neighbour gives its whole path
    // (`nightly.timer: …` beside `/srv/units/nightly.timer:5: …`) is named by that path.
    let whole = neighbours
        .iter()
        .filter_map(|&k| location(&lines[k]).map(|(p, ..)| p))
        .find(|p| p.strip_suffix(path).is_some_and(|dir| dir.ends_with('/')))
        .unwrap_or(path);
    let (severity, code, message) =
        judged(said).unwrap_or((Severity::Error, None, said.to_owned()));
    Some((
        i,
        whole.to_owned(),
        whole.to_owned(),
        severity,
        code,
        message,
    ))
}

/// A severity, then a file and what is wrong with it, over the diff that would mend it
/// (`ERROR: /w/app/a.py Imports are incorrectly sorted.` over `--- /w/app/a.py:before`, a
/// formatter's check): a finding about the whole file, named by it.
fn file_over_its_diff(lines: &[String], i: usize) -> Option<Placed> {
    let line = lines[i].trim_end();
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (word, rest) = line.split_once(' ')?;
    let severity = severity_word(word)?;
    let (path, message) = rest.trim_start().split_once(' ')?;
    let path = path.trim_end_matches(':');
    let message = message.trim();
    let diff_under = lines[i + 1..]
        .iter()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.starts_with("--- ") || l.starts_with("diff ") || l.starts_with("@@ "));
    (crate::text::file_with_extension(path)
        && location(path).is_none()
        && message.split_whitespace().count() >= 2
        && diff_under)
        .then(|| {
            (
                i,
                path.to_owned(),
                path.to_owned(),
                severity,
                None,
                message.to_owned(),
            )
        })
}

/// The words after the first caret run of a code frame (`  |   ^^^^ hint  : Prefix …`), its
/// label taken off, within the frame under the arrow at `arrow_at`.
fn under_the_caret(lines: &[String], arrow_at: usize) -> Option<String> {
    for l in lines.iter().skip(arrow_at + 1).take(8) {
        if l.trim().is_empty() {
            return None;
        }
        // The caret row is the frame's gutter and the carets, never a source row that holds
        // a `^` of its own (`5 |   x = a ^ b`).
        let Some(at) = l.find('^') else { continue };
        if !l[..at]
            .chars()
            .all(|c| c.is_whitespace() || "|│".contains(c))
        {
            continue;
        }
        let said = l[at..].trim_start_matches(['^', '~', '-', ' ']).trim();
        let said = match said.split_once(':') {
            Some((label, rest))
                if label.split_whitespace().count() == 1 && !rest.trim().is_empty() =>
            {
                rest.trim()
            }
            _ => said,
        };
        if !said.is_empty() {
            return Some(said.to_owned());
        }
    }
    None
}

/// Any one-word label over a drawn arrow (`Fail: no-eval` over `  --> a.js:3:5`, a label in any
/// tool's words): the arrow is what makes it a finding, of the label's severity when it names
/// one, else an error; a code in brackets after the word is its code. The words that add to a
/// finding above them (`note:`, `help:`) head none of their own.
fn labelled_header(line: &str) -> Option<(Severity, Option<String>, String)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (label, rest) = line.split_once(": ")?;
    let word = label.split(['[', '(']).next()?;
    let adds = matches!(
        word.to_ascii_lowercase().as_str(),
        "note" | "help" | "hint" | "info" | "suggestion" | "remark" | "notice"
    );
    if word.len() < 2 || !word.chars().all(|c| c.is_ascii_alphabetic()) || adds {
        return None;
    }
    let code = label[word.len()..].trim_matches(|c| "[]() ".contains(c));
    let code = (!code.is_empty() && !code.contains(' ')).then(|| code.to_owned());
    (!rest.trim().is_empty()).then(|| {
        (
            severity_word(word).unwrap_or(Severity::Error),
            code,
            line.trim().to_owned(),
        )
    })
}

/// The ` --> path:line:col` line a header points at, within its next lines.
pub(crate) fn arrow(lines: &[String], from: usize) -> Option<(usize, String, String)> {
    for (k, l) in lines.iter().enumerate().skip(from + 1).take(4) {
        let t = l.trim_start();
        // (miette's frame, drawn in box characters or in ASCII: `╭─[a.js:3:5]`, `,-[a.js:3:5]`.)
        let miette = t
            .strip_prefix("╭─[")
            .or_else(|| t.strip_prefix(",-["))
            .and_then(|l| l.trim_end().strip_suffix(']'));
        if let Some(loc) = t
            .strip_prefix("--> ")
            .or_else(|| t.strip_prefix("┌─ "))
            .or_else(|| t.strip_prefix("╭▸ "))
            .or(miette)
        {
            let loc = loc.trim();
            let (path, number, used) = location(loc)?;
            return Some((k, format!("{path}:{number}"), loc[..used].to_owned()));
        }
        // (The place alone, indented on the line right under the header, perhaps with the
        // function it is in: `  lib/a.ex:5: Billing.total/1`, Elixir's.)
        if k == from + 1
            && l.starts_with(char::is_whitespace)
            && let Some((path, number, used)) = location(t.trim_end())
            && t.trim_end()[used..]
                .strip_prefix(": ")
                .map_or(t.trim_end().len() == used, |f| !f.trim().contains(' '))
        {
            return Some((k, format!("{path}:{number}"), t[..used].to_owned()));
        }
        // Another header between is the one the place belongs to (`✖ selene:` over
        // `warning[rule]: …` over `┌─ a.lua:14:26`).
        if l.trim().is_empty() || header(l).is_some() {
            return None;
        }
    }
    None
}

/// The file a line names as the header of the stylish rows under it: a path alone at the line's
/// start; or, when a row follows, a path alone however indented, or with its first place.
fn stylish_file(lines: &[String], i: usize) -> Option<String> {
    let line = &lines[i];
    let t = line.trim();
    if !line.starts_with(char::is_whitespace) && path_like(t) && location(t).is_none() {
        return Some(t.to_owned());
    }
    let a_row = |next: &String| row(next).is_some() || unplaced_row(next).is_some();
    let row_follows = lines.get(i + 1).is_some_and(a_row);
    // A labelled file (`File: index.html`, then its rows, a line or two of settings between).
    if let Some((label, rest)) = t.split_once(": ")
        && label.len() > 1
        && label.chars().all(|c| c.is_ascii_alphabetic())
        && path_like(rest.trim())
        && location(rest.trim()).is_none()
        && lines[i + 1..].iter().take(3).any(a_row)
    {
        return Some(rest.trim().to_owned());
    }
    // A file last on a line of figures (`!2, 3.8      /w/tools/compat.py`, the versions a
    // file needs): the file heads its rows when one follows.
    if !line.starts_with(char::is_whitespace)
        && let Some(last) = t.split_whitespace().last()
        && t.split_whitespace().count() > 1
        && crate::text::file_with_extension(last)
        && lines
            .get(i + 1)
            .is_some_and(|next| headed_row(next).is_some_and(|(n, ..)| n.is_some()))
    {
        return Some(last.to_owned());
    }
    // A file and its verdict (`config/api.yaml#0: INVALID`, a document's index after `#`):
    // the file heads its rows when one follows.
    if !line.starts_with(char::is_whitespace)
        && let Some(file) = file_with_verdict(t)
        && lines
            .get(i + 1)
            .is_some_and(|next| headed_row(next).is_some())
    {
        return Some(file.to_owned());
    }
    if !row_follows {
        return None;
    }
    // A file may be marked as its rows are (`✗ coffee/till.coffee`).
    let t = marked(t).map_or(t, |(_, rest)| rest.trim());
    // Its first place after it (`signal.ts:1:1`): the path before the numbers.
    let mut path = t;
    while let Some((p, n)) = path.rsplit_once(':')
        && whole_number(n)
    {
        path = p;
    }
    path_like(path).then(|| path.to_owned())
}

/// The tag a tool puts on the comments it writes into a file's text (`# (pofilter) `): the
/// comment mark, the tool's name in parentheses; the bytes it takes.
fn comment_tag(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("# (")?;
    let close = rest.find(") ")?;
    let name = &rest[..close];
    (!name.is_empty() && name.len() <= 30 && !name.contains(' ')).then(|| &line[..close + 5])
}

/// Findings a tool writes as tagged comments above the record they judge, the record's place on
/// a reference line under them (`# (pofilter) printf: Different number of printf variables`,
/// then `#: src/main.c:14`, a PO file's source reference): each comment a finding at that
/// place, its check's name before the colon its code. Pushed to `out`; the line after the
/// comments, or None.
fn findings_above_place(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let tag = comment_tag(&lines[i])?;
    // (Looked at from the run's first comment only: the reader stays linear on a long run.)
    if i > 0 && !covered[i - 1] && comment_tag(&lines[i - 1]) == Some(tag) {
        return None;
    }
    let mut k = i;
    while k < lines.len() && !covered[k] && comment_tag(&lines[k]) == Some(tag) {
        k += 1;
    }
    // The reference: a comment of places (`#: a.c:14 a.c:20`) among the next lines.
    let place = lines[k..]
        .iter()
        .take(3)
        .find_map(|l| {
            let words = l.strip_prefix("#:")?;
            let word = words.split_whitespace().next()?;
            location(word).filter(|&(_, _, used)| used == word.len())
        })
        .map(|(path, number, _)| format!("{path}:{number}"))?;
    for (j, line) in lines.iter().enumerate().take(k).skip(i) {
        let message = line[tag.len()..].trim().to_owned();
        let code = message
            .split_once(": ")
            .map(|(check, _)| check)
            .filter(|check| rule_like(check))
            .map(str::to_owned);
        out.push(Diagnostic::new(
            &lines[j..=j],
            j,
            place.clone(),
            message,
            code,
            place.clone(),
            Severity::Error,
        ));
    }
    Some(k)
}

/// Rows under a heading that each name a thing and the file it is in (`Extra requirements:`
/// over `uv in requirements.txt`, `requests in requirements.txt`): a finding per row, about
/// that file, the heading saying what is wrong with each. Pushed to `out`; the line after
/// the rows, or None.
fn things_in_files(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let heading = lines[i].trim_end();
    if heading.starts_with(char::is_whitespace)
        || !heading.ends_with(':')
        || heading.split_whitespace().count() > 5
    {
        return None;
    }
    let in_file = |line: &str| -> Option<String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [thing, "in", file]
                if crate::text::file_with_extension(file) && !thing.ends_with(':') =>
            {
                Some((*file).to_owned())
            }
            _ => None,
        }
    };
    let mut k = i + 1;
    while k < lines.len() && !covered[k] && k - i <= MAX_LISTED {
        let Some(file) = in_file(&lines[k]) else {
            break;
        };
        out.push(Diagnostic::about_file(
            lines,
            k,
            file,
            lines[k].trim().to_owned(),
            Severity::Error,
        ));
        k += 1;
    }
    (k > i + 1).then_some(k)
}

/// Items under a sentence that says what is wrong with each (`These imports appear to be
/// undeclared dependencies:` over `- 'bs4'`), each item's place on an indented row under it
/// (`    imported at:`, `      weather/fetch.py:3`): a finding per item at its first place,
/// its message the sentence and the item's lines. Not under a test's verdict (a heading that
/// speaks of tests or failures is a runner's). Pushed to `out`; the line after the items, or
/// None.
fn items_placed_under(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let head = lines[i].trim_end();
    let lower = head.to_ascii_lowercase();
    if head.starts_with(char::is_whitespace)
        || !head.ends_with(':')
        || head.split_whitespace().count() < 4
        || ["test", "fail", "error"].iter().any(|w| lower.contains(w))
        || !lines.get(i + 1).is_some_and(|l| l.starts_with("- "))
    {
        return None;
    }
    let place_of = |l: &str| word_place(l.split_whitespace().next()?);
    let mut k = i + 1;
    let mut found = Vec::new();
    while k < lines.len() && !covered[k] && lines[k].starts_with("- ") && k - i <= MAX_LISTED {
        let mut end = k + 1;
        while end < lines.len()
            && !covered[end]
            && end - k < MAX_LINES
            && lines[end].starts_with(char::is_whitespace)
            && !lines[end].trim().is_empty()
        {
            end += 1;
        }
        let (name, place) = lines[k + 1..end].iter().find_map(|l| place_of(l.trim()))?;
        let said: Vec<&str> = lines[k..end].iter().map(|l| l.trim()).collect();
        let message = format!("{}\n{}", head.trim_end_matches(':'), said.join("\n"));
        found.push(Diagnostic::new(
            &lines[k..end],
            k,
            name,
            message,
            None,
            place,
            Severity::Error,
        ));
        k = end;
    }
    if found.is_empty() {
        return None;
    }
    out.extend(found);
    Some(k)
}

/// Rows under a heading that names what is wrong with each and counts them (`Unused
/// dependencies (2)` over `sinon       package.json:7:6` and `fast-check  package.json:8:6`;
/// `Unused files (1)` over `src/legacy.ts`): when exactly that many rows follow, each holding
/// a place or a file at its end, each is a finding there, its message the heading's words and
/// the row. Pushed to `out`; the line after the rows, or None.
fn rows_under_a_counted_heading(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let head = lines[i].trim_end();
    if head.starts_with(char::is_whitespace) {
        return None;
    }
    let (words, count) = head.strip_suffix(')')?.rsplit_once(" (")?;
    let count: usize = count.parse().ok()?;
    if count == 0
        || count > MAX_LISTED
        || words.split_whitespace().count() > 5
        || !words.starts_with(|c: char| c.is_alphabetic())
    {
        return None;
    }
    // Each row's place or file: its last word.
    let placed = |line: &str| word_place(line.split_whitespace().last()?);
    let rows: Vec<(String, String)> = lines[i + 1..]
        .iter()
        .zip(&covered[i + 1..])
        .take(count + 1)
        .map_while(|(l, &c)| (!c && !l.trim().is_empty()).then(|| placed(l)).flatten())
        .collect();
    if rows.len() != count {
        return None;
    }
    for (k, (name, place)) in rows.into_iter().enumerate() {
        let at = i + 1 + k;
        out.push(Diagnostic::new(
            &lines[at..=at],
            at,
            name,
            format!("{words}: {}", lines[at].trim()),
            None,
            place,
            Severity::Error,
        ));
    }
    Some(i + 1 + count)
}

/// A record that states its line first and its finding last, no file named (`Line: 11`, the
/// instruction, a caret row, `Warning: There can only be one CMD instruction`; or an echo of the
/// source row, `9        INT n := "five";`, a marker row, `a68g: error: 1: [] CHAR cannot be
/// coerced`): one finding named by that line, its message what the severity labels. Pushed to
/// `out`; the line after the record, or None.
fn severity_under_line_record(
    lines: &[String],
    covered: &[bool],
    i: usize,
    announced: Option<&str>,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let head = lines[i].trim_end();
    let number = if let Some(n) = head
        .strip_prefix("Line: ")
        .or_else(|| head.strip_prefix("Line "))
    {
        // (The line's instruction may follow its colon: `Line 11: -> ENV DEBUG`.)
        let (number, rest) = crate::text::leading_number(n.trim_start())?;
        if !(rest.trim().is_empty() || rest.starts_with(':')) {
            return None;
        }
        number
    } else {
        // An echo of the source row: its number, two spaces or more, then the code.
        let digits = head.bytes().take_while(u8::is_ascii_digit).count();
        let after = &head[digits..];
        let code = after.trim_start();
        if digits == 0 || !after.starts_with("  ") || code.is_empty() || code.starts_with('|') {
            return None;
        }
        head[..digits].parse::<u64>().ok()?
    };
    // The finding within the next three lines, nothing blank between.
    let (j, severity, message) = (i + 1..(i + 4).min(lines.len()))
        .take_while(|&k| !covered[k] && !lines[k].trim().is_empty())
        .find_map(|k| labelled_finding(&lines[k]).map(|(s, m)| (k, s, m)))?;
    // Named by the file the log said it works on, when it said one (`# Analyzing Dockerfile`).
    let name = match announced {
        Some(file) => format!("{file}:{number}"),
        None => format!("line {number}"),
    };
    out.push(Diagnostic::new(
        &lines[i..=j],
        i,
        name.clone(),
        message,
        None,
        name,
        severity,
    ));
    Some(j + 1)
}

/// Among records that state their line first, in the file the log said it works on, a
/// finding a severity labels with no line record over it (`ERROR: Required LABEL 'Name' is
/// not defined.` after a blank line): a finding about that whole file, its block the lines up
/// to the next blank one. Pushed to `out`; the line after it, or None.
fn severity_about_the_file(
    lines: &[String],
    covered: &[bool],
    i: usize,
    file: &str,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    if covered[i]
        || i.checked_sub(1)
            .is_some_and(|b| !lines[b].trim().is_empty())
    {
        return None;
    }
    let (severity, message) = labelled_finding(&lines[i])?;
    let mut end = i + 1;
    while end < lines.len() && end - i < MAX_LINES && !covered[end] && !lines[end].trim().is_empty()
    {
        end += 1;
    }
    let mut found = Diagnostic::about_file(lines, i, file.to_owned(), message, severity);
    found.found.lines = lines[i..end].to_vec();
    out.push(found);
    Some(end)
}

/// A line a severity labels, perhaps after its program's name, the marker a row above points
/// with perhaps before the message (`a68g: error: 1: text`, `Warning: text`): the severity and
/// the message.
fn labelled_finding(line: &str) -> Option<(Severity, String)> {
    let t = line.trim_end();
    if t.starts_with(char::is_whitespace) {
        return None;
    }
    let (first, rest) = t.split_once(": ")?;
    let (severity, said) = match severity_word(first) {
        Some(severity) => (severity, rest),
        None => program_labelled(t).map(|(_, _, severity, said)| (severity, said))?,
    };
    let said = match said.split_once(": ") {
        Some((marker, after)) if whole_number(marker) => after,
        _ => said,
    };
    let said = said.trim();
    (said.split_whitespace().count() >= 2).then(|| (severity, said.to_owned()))
}

/// A numbered list under a heading that names a severity (`Errors:` over `1. pkg.exports is …`,
/// `Warnings:` over `1. …`, a package linter's): a finding per item, of that severity, named by
/// what it says (no place is printed). Pushed to `out`; the line after the list, or None.
fn numbered_under_severity(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let severity = match lines[i].trim() {
        "Errors:" | "Error:" | "ERRORS:" => Severity::Error,
        "Warnings:" | "Warning:" | "WARNINGS:" => Severity::Warning,
        _ => return None,
    };
    let item = |line: &str| -> Option<String> {
        let (number, said) = line.trim_start().split_once(". ")?;
        (whole_number(number) && said.split_whitespace().count() >= 3)
            .then(|| said.trim().to_owned())
    };
    let mut k = i + 1;
    while k < lines.len() && !covered[k] && k - i <= MAX_LISTED {
        let Some(message) = item(&lines[k]) else {
            break;
        };
        out.push(Diagnostic::unplaced(lines, k, message, severity));
        k += 1;
    }
    (k > i + 1).then_some(k)
}

/// A file heading its rows with a short verdict after it (`config/api.yaml#0: INVALID`,
/// `a.yaml: 3 problems`): the file, without the index of a document in it (`#0`).
fn file_with_verdict(t: &str) -> Option<&str> {
    let (head, verdict) = t.split_once(": ")?;
    let file = head.split_once('#').map_or(
        head,
        |(f, index)| {
            if whole_number(index) { f } else { head }
        },
    );
    let words = verdict.split_whitespace().count();
    (path_like(file) && file.contains(['.', '/']) && (1..=3).contains(&words)).then_some(file)
}

/// A row under its file's heading that is a finding however it gives its line: marked with its
/// severity and no line (`✖ require-author - node: author - author is required`, the file's
/// own), or an item with its line in words (`  - (line 8) [/ports/1] '99999': too large`):
/// (its line, if any, severity, rule, message).
pub(crate) fn headed_row(line: &str) -> Option<(Option<u64>, Severity, Option<String>, String)> {
    let t = line.trim();
    let (severity, rest) = match marked(t) {
        Some((severity, rest)) => (Some(severity), rest),
        None => {
            let item = crate::text::bulleted(t);
            match item {
                Some(rest) => (None, rest.trim_start()),
                None if line.starts_with(char::is_whitespace) => (None, t),
                None => return None,
            }
        }
    };
    let (number, message) = match line_in_words(rest) {
        Some((n, message)) => (Some(n), message),
        None => (None, rest),
    };
    let message = message.trim();
    if message.is_empty() || (severity.is_none() && number.is_none()) {
        return None;
    }
    // A rule first, then ` - ` and the message (`name-format - node: name - …`).
    let code = message
        .split_once(" - ")
        .map(|(rule, _)| rule)
        .filter(|rule| rule_like(rule) && rule.contains('-'))
        .map(str::to_owned);
    Some((
        number,
        severity.unwrap_or(Severity::Error),
        code,
        message.to_owned(),
    ))
}

/// A line in words opening a row (`(line 8)`, `[line 8, column 3]`, `line 8:`, `Line 8 -`):
/// the line and what follows it.
fn line_in_words(rest: &str) -> Option<(u64, &str)> {
    // `L2 C5: text`, `L6: text` (a line and perhaps a column, by their letters).
    if let Some(after) = rest.strip_prefix('L')
        && after.starts_with(|c: char| c.is_ascii_digit())
    {
        let (number, after) = crate::text::leading_number(after)?;
        let after = match after.strip_prefix(" C") {
            Some(col) => crate::text::leading_number(col)?.1,
            None => after,
        };
        return Some((number, after.strip_prefix(':')?));
    }
    let (open, inner) = match rest.chars().next()? {
        c @ ('(' | '[') => (Some(c), &rest[1..]),
        _ => (None, rest),
    };
    let word = inner.get(..5)?;
    if !word.eq_ignore_ascii_case("line ") {
        return None;
    }
    let (number, after) = crate::text::leading_number(&inner[5..])?;
    let after = match open {
        Some(c) => after.split_once(if c == '(' { ')' } else { ']' })?.1,
        None => {
            // Its column after it (`line 8, column 3:`, `line 8, col 3`).
            let column = [", column ", ", col "]
                .iter()
                .find_map(|w| after.strip_prefix(w))
                .and_then(crate::text::leading_number);
            column.map_or(after, |(_, rest)| rest)
        }
    };
    let after = after.trim_start();
    let after = after
        .strip_prefix(':')
        .or_else(|| after.strip_prefix("- "))
        .unwrap_or(after);
    Some((number, after))
}

/// A row under its file that opens with its code, then its line and column, then the message
/// (`H005 2:0 Html tag should have a lang attribute. <html>`): a code of capitals and figures.
fn coded_row(line: &str) -> Option<(u64, String, Severity, Option<String>, String)> {
    let t = line.trim_start();
    let (code, after) = t.split_once(' ')?;
    let (pos, message) = after.split_once(' ')?;
    let (l, c) = pos.split_once(':')?;
    let coded = rule_like(code) && capital_code(code);
    (coded && whole_number(l) && whole_number(c) && !message.trim().is_empty()).then(|| {
        (
            l.parse().unwrap_or_default(),
            pos.to_owned(),
            Severity::Error,
            Some(code.to_owned()),
            message.trim().to_owned(),
        )
    })
}

/// A row that opens with a line alone, then a severity word, perhaps after the rule (`9
/// brackets warning unnecessary bracket`, stylint's row for a whole line).
fn line_then_severity(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().take(3).collect();
    words.first().is_some_and(|w| whole_number(w))
        && match words.as_slice() {
            [_, severity, ..] if matches!(*severity, "error" | "warning") => true,
            [_, rule, severity] => {
                rule.starts_with(|c: char| c.is_ascii_alphabetic())
                    && rule
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "/-_.".contains(c))
                    && matches!(*severity, "error" | "warning")
            }
            _ => false,
        }
}

/// A stylish row: `  3:7  error  'x' is defined but never used  no-unused-vars`.
pub(crate) fn row(line: &str) -> Option<(u64, String, Severity, Option<String>, String)> {
    // A row may open with its severity as a word and a colon, even unindented (`ERROR: 1:1
    // no-var-keyword  Forbidden …`, tslint's), or as a mark (`  ✖  3:19  …`, tsd's).
    let worded = line.split_once(": ").and_then(|(word, rest)| {
        let severity = match word {
            "ERROR" | "Error" | "error" => Severity::Error,
            "WARNING" | "Warning" | "warning" => Severity::Warning,
            _ => return None,
        };
        Some((severity, rest.trim_start()))
    });
    // Or with its place, unindented, under its file (`8:6-8:21     error   …`, remark's when its
    // rows are wide): a line and column, perhaps a span, then a severity word.
    let placed_first = line.split_whitespace().next().is_some_and(|pos| {
        let start = pos.split_once('-').map_or(pos, |(a, _)| a);
        start
            .split_once(':')
            .is_some_and(|(l, c)| whole_number(l) && whole_number(c))
    });
    // Or with its code, then its place (`H005 2:0 Html tag should …`, djLint's).
    if let Some(found) = coded_row(line) {
        return Some(found);
    }
    let line_first = line_then_severity(line);
    if worded.is_none() && !line.starts_with(' ') && !placed_first && !line_first {
        return None;
    }
    let t = line.trim_start();
    let (mark, t) = match worded.or_else(|| marked(t)) {
        Some((severity, rest)) => (Some(severity), rest),
        None => (None, t),
    };
    let (pos, rest) = t.split_once(char::is_whitespace)?;
    // A line alone, `#12` or a range of lines `#13-13` (coffeelint's), is a place too.
    if let Some(lines_at) = pos.strip_prefix('#').and_then(|p| p.strip_suffix(':')) {
        let first = lines_at.split_once('-').map_or(lines_at, |(a, _)| a);
        let row: u64 = first.parse().ok()?;
        let message = rest.trim();
        if message.is_empty() {
            return None;
        }
        let code = message
            .rsplit_once(" (")
            .and_then(|(_, r)| r.split_once(')'))
            .map(|(c, _)| c)
            .filter(|c| !c.is_empty() && !c.contains(' '))
            .map(str::to_owned);
        let severity = mark.unwrap_or(Severity::Error);
        return Some((row, first.to_owned(), severity, code, message.to_owned()));
    }
    // A line alone and a code (`    4: DOC101: Function `book`: …`, pydoclint's rows under
    // their file).
    if let Some(n) = pos.strip_suffix(':')
        && whole_number(n)
        && let Some((code, message)) = rest.trim_start().split_once(": ")
        && rule_like(code)
        && code.chars().any(|c| c.is_ascii_digit())
        && !message.trim().is_empty()
    {
        let severity = mark.unwrap_or(Severity::Error);
        let message = format!("{code}: {}", message.trim());
        return Some((
            n.parse().ok()?,
            n.to_owned(),
            severity,
            Some(code.to_owned()),
            message,
        ));
    }
    let (row, col) = match pos.split_once(':') {
        Some(found) => found,
        None if whole_number(pos) && (line_first || mark.is_some() || rule_column(rest)) => {
            (pos, "0")
        }
        None => return None,
    };
    // A span's start is its place (`7:19-7:27`, as remark and alex print a range).
    let col = match col.split_once('-') {
        Some((start, end))
            if end
                .split_once(':')
                .is_some_and(|(l, c)| whole_number(l) && whole_number(c)) =>
        {
            start
        }
        _ => col,
    };
    if !whole_number(col) {
        return None;
    }
    let row: u64 = row.parse().ok()?;
    let rest = rest.trim_start();
    // The rule, then the severity (`8:23 noImportant error !important is disallowed`,
    // stylint's).
    let mut ruled: Option<String> = None;
    let rest = match (mark, rest.split_once(char::is_whitespace)) {
        (None, Some((rule, after)))
            if rule.starts_with(|c: char| c.is_ascii_alphabetic())
                && rule
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "/-_.".contains(c))
                && after
                    .split_whitespace()
                    .next()
                    .is_some_and(|w| matches!(w, "error" | "warning")) =>
        {
            ruled = Some(rule.to_owned());
            after.trim_start()
        }
        _ => rest,
    };
    let (severity, message) = match mark {
        Some(severity) => (severity, rest),
        None => {
            let (word, message) = rest.split_once(char::is_whitespace)?;
            match word.to_ascii_lowercase().as_str() {
                "error" | "✖" => (Severity::Error, message),
                "warning" | "⚠" => (Severity::Warning, message),
                // No severity, but the rule in its last column (`12:3 The field is not camel
                // cased.     fields-are-camel-cased`, graphql-schema-linter's; a long message
                // leaves one space before it): a finding that fails the run.
                // (A severity word this reader does not count, `info`, is a cause's detail.)
                _ if severity_word(word).is_none()
                    && rest.split_whitespace().count() >= 3
                    && (rest.split_whitespace().last().is_some_and(rule_like)
                        || rule_column(rest)) =>
                {
                    (Severity::Error, rest)
                }
                _ => return None,
            }
        }
    };
    let message = message.trim();
    if message.is_empty() {
        return None;
    }
    // The rule is the last column, after two spaces or more.
    let code = ruled.or_else(|| {
        message
            .rsplit_once("  ")
            .map(|(_, r)| r.trim())
            .filter(|r| !r.is_empty() && !r.contains(' '))
            .map(str::to_owned)
    });
    Some((row, pos.to_owned(), severity, code, message.to_owned()))
}

/// An indented stylish row whose place is only marks (`  -:-  warning  Rule "x" is deprecated.
/// rule-x`): a finding about the whole file, read as any row is with its place set aside.
fn unplaced_row(line: &str) -> Option<(Severity, Option<String>, String)> {
    let t = line.trim_start();
    let pos = t.split_whitespace().next()?;
    let marks_only = pos.contains(':')
        && pos.contains(['-', '?'])
        && pos.chars().all(|c| matches!(c, '-' | '?' | ':'));
    if t.len() == line.len() || !marks_only {
        return None;
    }
    let (_, _, severity, code, message) = row(&line.replacen(pos, "1:1", 1))?;
    Some((severity, code, message))
}

/// Whether a row's last column, after two spaces or more, is one word of a rule's letters
/// (`keywords-in-logical-order`, `indentation`) after a message of two words or more: a
/// stylish row with no severity (gherkin-lint's `  5    Step "…" should not …    rule`).
fn rule_column(rest: &str) -> bool {
    rest.trim_end()
        .rsplit_once("  ")
        .is_some_and(|(message, rule)| {
            let rule = rule.trim();
            !rule.is_empty()
                && rule.starts_with(|c: char| c.is_ascii_alphabetic())
                && rule
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "/-_.@".contains(c))
                && message.split_whitespace().count() >= 2
        })
}

/// Where a stylish row's own detail indented under it ends (`  [cause]:`, then an `info`
/// row): the next row, or a line naming a file, is not its.
fn row_detail(lines: &[String], covered: &[bool], start: usize, mut end: usize) -> usize {
    while end < lines.len()
        && end - start < MAX_LINES
        && !covered[end]
        && lines[end].starts_with(char::is_whitespace)
        && !lines[end].trim().is_empty()
        && row(&lines[end]).is_none()
        && unplaced_row(&lines[end]).is_none()
        && !path_like(lines[end].trim())
        // (A finding of its own, placed and judged, is the next row: pyright's `  a.py:21:16 -
        // error: …` under its file, each row's explanation indented deeper.)
        && one_line(&lines[end]).is_none()
    {
        end += 1;
    }
    end
}

/// Whether a line continues the diagnostic above it (its source excerpt, markers, notes).
pub(crate) fn continues(line: &str) -> bool {
    let t = line.trim_start();
    !line.trim().is_empty()
        && (line.starts_with(char::is_whitespace)
            || t.starts_with('|')
            || t.starts_with('^')
            || t.starts_with('~')
            || t.starts_with("= "))
        && (one_line(line).is_none() || t.starts_with("--> ") || t.starts_with("::: "))
        || numbered_source(t)
        || ["help: ", "note: "].iter().any(|w| t.starts_with(w))
        || section_heading(t)
}

/// A section of a finding's explanation headed by one capitalised word and a colon, alone on
/// its line or with a note after it (hlint's `Found:`, `Perhaps:`, `Note: increases laziness`).
fn section_heading(t: &str) -> bool {
    let Some((word, rest)) = t.split_once(':') else {
        return false;
    };
    let mut cs = word.chars();
    cs.next().is_some_and(|c| c.is_ascii_uppercase())
        && word.len() <= 12
        && cs.all(|c| c.is_ascii_lowercase())
        && (rest.is_empty() || rest.starts_with(' ') && severity_word(word).is_none())
        && !["Error", "Warning", "Fatal", "Failure", "Failed"].contains(&word)
}

/// A source line quoted under a finding with its number (`4 |     for i in …`), or a
/// suggested change to it (`4 -     old`, `4 +     new`).
fn numbered_source(t: &str) -> bool {
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0
        && [" |", " │", " -", " +", "\t"]
            .iter()
            .any(|m| t[digits..].starts_with(m))
}

/// The findings marked under a header that gives its place in words (`In a.sh line 3:`, the
/// source line, `^-- SC2086 (info): …` for each), pushed to `out`; the line after the last,
/// or None when `lines[i]` is no such header.
fn marked_findings(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let line = &lines[i];
    let Some((path, number, "")) = worded(line) else {
        return None;
    };
    if !line.trim_end().ends_with(':') {
        return None;
    }
    let mut from = i;
    let mut k = i + 1;
    let mut marked = 0;
    while k < lines.len() && k - i < MAX_LINES && !covered[k] && worded(&lines[k]).is_none() {
        if let Some((severity, code, message)) = marker(&lines[k]) {
            marked += 1;
            out.push(Diagnostic::new(
                &lines[from..=k],
                from,
                format!("{path}:{number}"),
                message.clone(),
                code,
                format!("{path}:{number}:{marked}"),
                severity,
            ));
            from = k + 1;
        } else if lines[k].trim().is_empty() && marked > 0 {
            break;
        }
        k += 1;
    }
    (marked > 0).then_some(from.max(i + 1))
}

/// An indented `path:line:col: message` row whose path is the file `header` names: (name,
/// place, severity, code, message).
fn header_row_of(
    line: &str,
    header: &str,
) -> Option<(String, String, Severity, Option<String>, String)> {
    let t = line.trim_start();
    let (path, number, used) = location(t)?;
    if path != header && path.trim_start_matches("./") != header.trim_start_matches("./") {
        return None;
    }
    let message = t[used..].trim_start_matches(':').trim();
    if message.is_empty() {
        return None;
    }
    let (severity, code, message) =
        judged(message).unwrap_or((Severity::Error, None, message.to_owned()));
    Some((
        format!("{path}:{number}"),
        t[..used].to_owned(),
        severity,
        code,
        message,
    ))
}

/// A severity word, then the place after `at`, heading the explanation indented under it
/// (`CMake Error at CMakeLists.txt:5 (find_package):` over `  By not providing …`): a finding
/// named by its place, its message the header's words and the explanation's first line.
fn error_at(lines: &[String], i: usize) -> Option<Placed> {
    let line = lines[i].trim_end();
    if line.starts_with(char::is_whitespace) || !line.ends_with(':') {
        return None;
    }
    let (before, after) = line.split_once(" at ")?;
    let word = before.split_whitespace().last()?;
    let severity = severity_word(word)?;
    if before.split_whitespace().count() > 3 {
        return None;
    }
    let (path, number, used) = location(after)?;
    // What may follow the place: the command it was in, in parentheses, and the colon.
    let tail = after[used..].trim_end_matches(':').trim();
    if !(tail.is_empty() || tail.starts_with('(') && tail.ends_with(')')) {
        return None;
    }
    let explained = lines
        .get(i + 1)
        .filter(|l| l.starts_with(char::is_whitespace) && !l.trim().is_empty())?;
    Some((
        i,
        format!("{path}:{number}"),
        after[..used].to_owned(),
        severity,
        None,
        format!("{line}\n{}", explained.trim()),
    ))
}

/// A numbered finding whose place is in words, under the file's own line, its message on
/// the next (`a.css` over `3: warning at line 8, col 1` over `@import not allowed here.`,
/// csslint's): named by the file and the line.
fn counted_at_line(lines: &[String], i: usize) -> Option<Placed> {
    let line = lines[i].trim();
    let (count, rest) = line.split_once(": ")?;
    if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (word, place) = rest.split_once(" at line ")?;
    let severity = severity_word(word)?;
    let number = place.split(',').next()?.trim();
    let number: u64 = number.parse().ok()?;
    let path = lines[i.checked_sub(1)?].trim();
    if path.contains(char::is_whitespace) || !path_like(path) {
        return None;
    }
    let message = lines.get(i + 1)?.trim();
    if message.is_empty() {
        return None;
    }
    Some((
        i,
        format!("{path}:{number}"),
        format!("{path}:{number}"),
        severity,
        None,
        message.to_owned(),
    ))
}

/// A place and what is at it, with no severity word and perhaps one word alone (`src/a.ts:1:23:
/// body`, `src/a.ts[2,0]: pct`: a tool's list of untyped names or unused exports), one finding
/// per line when a line beside it is one too. Alone such a line is too like a test's own output
/// (`a_test.py:12: AssertionError`), and a line with a sentence after its place is read by
/// [`one_line`] already.
fn listed_place(lines: &[String], i: usize) -> Option<Placed> {
    let (path, number, place, said) = place_and_said(&lines[i])?;
    let beside = |k: usize| lines.get(k).is_some_and(|l| place_and_said(l).is_some());
    if !(i > 0 && beside(i - 1) || beside(i + 1)) {
        return None;
    }
    Some((
        i,
        format!("{path}:{number}"),
        place.to_owned(),
        Severity::Error,
        None,
        said.to_owned(),
    ))
}

/// An unindented line that opens with a file's place (the file named with its extension) and
/// says something short after it: (the path, the line, the place as printed, what it says).
fn place_and_said(line: &str) -> Option<(&str, u64, &str, &str)> {
    if line.starts_with(char::is_whitespace) || crate::line::stack_frame(line) {
        return None;
    }
    let line = line.trim_end();
    let (path, number, used) = location(line)
        .or_else(|| paren_location(line))
        .or_else(|| bracket_location(line))?;
    if !path
        .rsplit('/')
        .next()
        .is_some_and(|name| name.contains('.'))
    {
        return None;
    }
    let said = line[used..].strip_prefix(':')?.trim();
    let first = said.split_whitespace().next()?;
    let raised = first.ends_with("Error") || first.ends_with("Exception") || first == "in";
    // A severity opening it (`E: use-of-X`, `warning: x`) is another reader's shape.
    let judged = first.ends_with(':')
        && (first.len() == 2 || severity_word(first.trim_end_matches(':')).is_some());
    if judged {
        return None;
    }
    (!raised && said.len() <= 200 && said.split_whitespace().count() <= 3).then_some((
        path,
        number,
        &line[..used],
        said,
    ))
}

/// A finding as the reader builds it: its first line, name, place, severity, code, message.
type Placed = (usize, String, String, Severity, Option<String>, String);

/// A finding at line `i` named and placed by its file and line, with no code.
fn placed_at(i: usize, (path, number): (&str, u64), severity: Severity, message: &str) -> Placed {
    let place = format!("{path}:{number}");
    (i, place.clone(), place, severity, None, message.to_owned())
}

/// A place and a severity with no message of their own (`a.hs:6:12: error:`, or only codes
/// in brackets, `error: [GHC-83865]`) head the indented lines under them: the finding's
/// message is the first of those, a bullet (`•`, `*`, `-`) taken off; its code the first
/// bracketed one.
fn severity_headed(lines: &[String], i: usize) -> Option<Placed> {
    let line = lines[i].trim_end();
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (path, number, used) = location(line)?;
    let rest = line[used..].strip_prefix(": ")?;
    let (word, codes) = rest.split_once(':')?;
    let severity = match word {
        "error" | "fatal error" => Severity::Error,
        "warning" => Severity::Warning,
        _ => return None,
    };
    let mut code = None;
    for part in codes.split_whitespace() {
        let inner = part.strip_prefix('[')?.strip_suffix(']')?;
        code.get_or_insert_with(|| inner.to_owned());
    }
    let next = lines.get(i + 1)?;
    if !next.starts_with(char::is_whitespace) || next.trim().is_empty() {
        return None;
    }
    let message = next.trim();
    let message = ["• ", "* ", "- "]
        .iter()
        .find_map(|b| message.strip_prefix(b))
        .unwrap_or(message);
    Some((
        i,
        format!("{path}:{number}"),
        line[..used].to_owned(),
        severity,
        code,
        message.to_owned(),
    ))
}

/// A finding whose place is given otherwise than first on its line: a place heading the coded
/// finding below it, a place in words, a place at the message's end.
fn placed_otherwise(lines: &[String], i: usize) -> Option<Placed> {
    let line = &lines[i];
    if let Some(found) = error_at(lines, i).or_else(|| counted_at_line(lines, i)) {
        return Some(found);
    }
    // `a.py:1 in public module `a`:` then an indented `D100: Missing docstring…`: a place
    // heading the finding below it.
    if let Some((path, number, used)) = location(line)
        && line.trim_end().ends_with(':')
        && !line[used..].trim_start_matches(':').trim().is_empty()
        && let Some(next) = lines.get(i + 1)
        && next.starts_with(char::is_whitespace)
        && let Some((code, message)) = next.trim().split_once(": ")
        && rule_like(code)
        && code.chars().any(|c| c.is_ascii_digit())
    {
        return Some((
            i,
            format!("{path}:{number}"),
            line[..used].to_owned(),
            Severity::Error,
            Some(code.to_owned()),
            format!("{code}: {}", message.trim()),
        ));
    }
    // `File 'src/expr.g' line 12: Parse Error: unexpected token`: a quoted file and its line
    // in words, then the severity and the message.
    if let Some((path, number, message, Some(severity))) = quoted_worded(line) {
        return Some(placed_at(i, (path, number), severity, message));
    }
    // `path: line N, col M, message`: a place in words, then the message.
    if let Some((path, number, message)) = worded(line)
        && message.split_whitespace().count() >= 2
    {
        return Some((
            i,
            format!("{path}:{number}"),
            line.trim().to_owned(),
            Severity::Error,
            None,
            message.to_owned(),
        ));
    }
    // `error: unknown variable `x` in a.cfg:12:5-12:9:`: a severity, the message, and its
    // place last after ` in ` or ` at `.
    if let Some((severity, message, path, number)) = place_last(line) {
        return Some(placed_at(i, (path, number), severity, message));
    }
    // `error: rule "Webshell" in rules/a.yar(28): syntax error`: a severity label, what the
    // finding is in, then the place and its message.
    if let Some((severity, path, number, message)) = place_after_label(line) {
        return Some(placed_at(i, (path, number), severity, message));
    }
    // `PHP Parse error: … in a.php on line 3`: the place at the message's end; and a line
    // that starts with the path the place names (`a.pl: Two-argument "open" used at line 3,
    // column 1.  See page 207 of PBP.  (Severity: 5)`) is a finding whatever its words.
    if !line.starts_with(char::is_whitespace)
        && let Some((path, number)) = place_at_end(line)
        && (line.to_ascii_lowercase().contains("error")
            || line
                .split_whitespace()
                .next()
                .is_some_and(|w| w.trim_end_matches(':') == path))
    {
        return Some((
            i,
            format!("{path}:{number}"),
            format!("{path}:{number}"),
            Severity::Error,
            None,
            line.trim().to_owned(),
        ));
    }
    // `a.pp - ERROR: tab character found on line 2 (check: hard_tabs)` (puppet-lint), `***
    // ERROR: unknown link at line 21 in file lib/a.pm` (podchecker): a severity, a file and a
    // line in words, wherever the tool puts them.
    if !line.starts_with(char::is_whitespace)
        && let Some((severity, path, number)) = severity_place_in_words(line)
    {
        // A header that only says where (`compilation error: file a.xsl line 6 element
        // value-of`, xsltproc's) has its message on the line under it.
        let under = lines
            .get(i + 1)
            .map(|l| l.trim())
            .filter(|l| !l.is_empty() && severity_place_in_words(l).is_none());
        // (A sentence that says where first, the file inside it, then the line in words and a
        // colon: what follows is the message, `error during parsing file a.conf, on or before
        // line 6: parameter 'port' required`. A line that opens with its file says what went
        // wrong before the place: `a.sh: syntax error at line 27: ')' unexpected`.)
        let opens_with_file = line
            .split_whitespace()
            .next()
            .is_some_and(|w| w.trim_end_matches(':') == path);
        let after_place = line
            .split_once(&format!("line {number}: "))
            .filter(|_| !opens_with_file)
            .map(|(_, said)| said.trim())
            .filter(|said| said.split_whitespace().count() >= 2);
        let message = match (under, after_place) {
            (Some(said), _) if says_only_where(line, path) => said.to_owned(),
            (_, Some(said)) => said.to_owned(),
            _ => line.trim().to_owned(),
        };
        // (A message that only says trouble happened there, `errors occurred in file 'a.conf'
        // around line 19`, follows what went wrong: the line above, by the same program and
        // with no place of its own, `rsyslogd: invalid format type 'jsonx'`.)
        let message = match said_above(lines, i) {
            Some(said) if only_trouble(&message, path) => said.to_owned(),
            _ => message,
        };
        return Some((
            i,
            format!("{path}:{number}"),
            format!("{path}:{number}"),
            severity,
            None,
            message,
        ));
    }
    None
}

/// Whether `message` only says that errors or warnings happened at a place (`errors occurred
/// in file '/a.conf' around line 19 [v8 try https://…]`): its words, the file, figures and a
/// bracketed note aside, are all of that kind.
fn only_trouble(message: &str, path: &str) -> bool {
    let said = message.split(" [").next().unwrap_or(message);
    let words: Vec<String> = said
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '/' && c != '.'))
        .filter(|w| !w.is_empty() && *w != path && !w.bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_ascii_lowercase)
        .collect();
    let trouble = |w: &str| matches!(w, "errors" | "warnings" | "error" | "warning" | "problems");
    words.iter().any(|w| trouble(w))
        && words.iter().all(|w| {
            trouble(w)
                || matches!(
                    w.as_str(),
                    "occurred"
                        | "found"
                        | "were"
                        | "there"
                        | "in"
                        | "file"
                        | "around"
                        | "at"
                        | "near"
                        | "on"
                        | "or"
                        | "before"
                        | "line"
                        | "the"
                )
        })
}

/// The line above `i` when the same program printed it (`rsyslogd: …` over `rsyslogd: …`)
/// with no place of its own: what it said after the program's name.
fn said_above<'a>(lines: &'a [String], i: usize) -> Option<&'a str> {
    let program = |l: &'a str| {
        let (first, rest) = l.trim().split_once(": ")?;
        (!first.contains(' ') && !first.is_empty()).then_some((first, rest.trim()))
    };
    let (own, _) = program(&lines[i])?;
    let above = lines.get(i.checked_sub(1)?)?;
    let (theirs, said) = program(above)?;
    (own == theirs
        && severity_place_in_words(above).is_none()
        && location(said).is_none()
        && said.split_whitespace().count() >= 2)
        .then_some(said)
}

/// A finding that opens with its place in words (`Line 2 of a.mjml (mj-body) — Attribute
/// colour is illegal`): the file, the line, and the message after the dash (an element in
/// parentheses before it is the finding's context).
fn line_of_file(line: &str) -> Option<(&str, u64, &str)> {
    let rest = line
        .strip_prefix("Line ")
        .or_else(|| line.strip_prefix("line "))?;
    let (number, rest) = crate::text::leading_number(rest)?;
    let rest = rest.strip_prefix(" of ")?;
    let (path, rest) = rest.split_once(' ')?;
    let path = path.trim_end_matches([':', ',']);
    if !path_like(path) || !path.contains(['.', '/']) {
        return None;
    }
    let rest = match rest.strip_prefix('(') {
        Some(r) => r.split_once(") ")?.1,
        None => rest,
    };
    let message = ["— ", "– ", "- ", ": "]
        .iter()
        .find_map(|d| rest.strip_prefix(d))?
        .trim();
    (message.split_whitespace().count() >= 2).then_some((path, number, message))
}

/// `Unexpected token (8:1) in views/a.ejs`: a message, its line and column in parentheses,
/// then the file after `in` at the line's end (a parser's error re-thrown by the tool that
/// read the file): (path, line, message).
fn paren_place_in_file(line: &str) -> Option<(&str, u64, &str)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (before, path) = line.trim_end().rsplit_once(") in ")?;
    if !path_like(path) || !path.contains(['.', '/']) || path.contains(' ') {
        return None;
    }
    let (message, place) = before.rsplit_once(" (")?;
    let (number, rest) = crate::text::leading_number(place)?;
    let column = rest.strip_prefix(':').unwrap_or(rest);
    if !column.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let message = message.trim();
    (message.split_whitespace().count() >= 2).then_some((path, number, message))
}

/// `error at line 11:` alone, its message on the indented line under it (a checker of a file
/// it does not name): a finding named by its line, the message the line under it.
fn severity_at_line_over(lines: &[String], i: usize) -> Option<Placed> {
    let line = lines[i].trim_end();
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (word, rest) = line.split_once(" at line ")?;
    let severity = severity_word(word).filter(|_| !word.contains(' '))?;
    let (number, after) = crate::text::leading_number(rest)?;
    if after.trim() != ":" {
        return None;
    }
    let next = lines.get(i + 1)?;
    if !next.starts_with(char::is_whitespace) || next.trim().is_empty() {
        return None;
    }
    let place = format!("line {number}");
    Some((
        i,
        place.clone(),
        place,
        severity,
        None,
        next.trim().to_owned(),
    ))
}

/// An indented finding that opens with its severity label and gives its line in words (`at
/// line 7, column 1`, `from line 3 column 1 to …`) under a shallower heading that names its
/// file (`  main.ftl`), itself perhaps under its folder's heading (`de/app`): the place is the
/// folder and file joined. Looks back over at most [`MAX_LINES`] lines.
fn labelled_under_file(lines: &[String], i: usize) -> Option<Placed> {
    let line = &lines[i];
    let depth = crate::line::indent(line);
    if depth == 0 {
        return None;
    }
    let (label, message) = line.trim().split_once(": ")?;
    let severity = severity_word(label).filter(|_| !label.contains(' '))?;
    // (A quote the message opens and does not close goes on over the next lines: `Unparsed
    // content "photos-count =` … `}" from line 3 column 1 to line 6 column 6`.)
    let mut message = message.to_owned();
    let mut k = i + 1;
    while message.matches('"').count() % 2 == 1 && k < lines.len() && k <= i + MAX_LINES {
        message.push('\n');
        message.push_str(lines[k].trim_end());
        k += 1;
    }
    let number = [" at line ", " from line ", " on line "]
        .iter()
        .find_map(|w| message.split_once(w))
        .and_then(|(_, n)| crate::text::leading_number(n))
        .map(|(n, _)| n)?;
    // The nearest shallower line above names the file; the nearest shallower than it, when a
    // folder, is where the file is.
    let heading = |from: usize, deeper_than: usize| {
        (from.saturating_sub(MAX_LINES)..from)
            .rev()
            .find(|&k| !lines[k].trim().is_empty() && crate::line::indent(&lines[k]) < deeper_than)
    };
    // (A file's name: a stem and an extension of letters, however long, `strings.properties`.)
    let named = |file: &str| {
        path_like(file)
            && !file.contains(' ')
            && file.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && (1..=12).contains(&ext.len())
                    && ext.chars().all(|c| c.is_ascii_alphanumeric())
                    && ext.chars().any(|c| c.is_ascii_alphabetic())
            })
    };
    // (The nearest shallower line naming a file, past a quoted message's own shallower lines,
    // not past a line flush left that names none.)
    let f = (i.saturating_sub(MAX_LINES)..i)
        .rev()
        .take_while(|&k| crate::line::indent(&lines[k]) > 0 || named(lines[k].trim()) || k + 1 == i)
        .find(|&k| {
            !lines[k].trim().is_empty()
                && crate::line::indent(&lines[k]) < depth
                && named(lines[k].trim())
        })
        .or_else(|| heading(i, depth).filter(|&k| named(lines[k].trim())))?;
    let file = lines[f].trim();
    let path = match heading(f, crate::line::indent(&lines[f])) {
        Some(d) => {
            let dir = lines[d].trim().trim_end_matches(':');
            if path_like(dir) && !dir.contains(' ') && !crate::text::file_with_extension(dir) {
                format!("{}/{file}", dir.trim_end_matches('/'))
            } else {
                file.to_owned()
            }
        }
        None => file.to_owned(),
    };
    let place = format!("{path}:{number}");
    Some((
        i,
        place.clone(),
        place,
        severity,
        None,
        message.trim().to_owned(),
    ))
}

/// A severity label, a message, and the place last after ` in ` or ` at ` (`error: type
/// mismatch in a.cfg:3:10-3:15:`; a range or a column after the line): (severity, message,
/// path, line).
fn place_last(line: &str) -> Option<(Severity, &str, &str, u64)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let t = line.trim_end().trim_end_matches(':');
    let (label, said) = t.split_once(": ")?;
    let severity = severity_word(label.trim())?;
    let (message, place) = said
        .rsplit_once(" in ")
        .or_else(|| said.rsplit_once(" at "))?;
    let (path, number, used) = location(place).filter(|_| !place.contains(' '))?;
    let spanned = place[used..]
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ':' | '-' | '.' | ','));
    (spanned && message.split_whitespace().count() >= 2).then_some((
        severity,
        message.trim(),
        path,
        number,
    ))
}

/// A severity label, a few words saying what the finding is in, and ` in PLACE: message`
/// (`error: rule "Webshell" in rules/a.yar(28): syntax error`, YARA's): (severity, path,
/// line, message). The place follows `in` or the label and a colon closes it, so a message
/// that only mentions a file (`error: cannot open a.txt: denied`) is not read as placed.
fn place_after_label(line: &str) -> Option<(Severity, &str, u64, &str)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (label, said) = line.trim_end().split_once(": ")?;
    let severity = severity_word(label.trim()).filter(|_| !label.contains(' '))?;
    // (Or the place right after the label: `error: rules/b.yar(20): duplicated identifier`.)
    let (place, first) = match said.split_once(" in ") {
        Some((what, place)) if what.split_whitespace().count() <= 4 => (place, false),
        _ => (said, true),
    };
    // (A file named without an extension, `app:8`, counts right after the label.)
    let bare = || {
        let (name, rest) = place.split_once(':')?;
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        // (A name has a letter: `ERROR: 1:1  no-var-keyword …` is a row's line and column.)
        let plain = name.chars().any(|c| c.is_ascii_alphabetic())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c));
        if !(plain && digits > 0 && first && rest[digits..].starts_with(' ')) {
            return None;
        }
        let number: u64 = rest[..digits].parse().ok()?;
        Some((name, number, name.len() + 1 + digits))
    };
    let (path, number, used) = location(place)
        .or_else(|| paren_location(place))
        .or_else(bare)?;
    if path.contains(' ') {
        return None;
    }
    // (Right after the label, a space may close the place: `error: app:8 unknown option
    // 'sizee' -- ignoring line`, logrotate's.)
    let spaced = first
        .then(|| place[used..].strip_prefix(' '))
        .flatten()
        .filter(|m| m.split_whitespace().count() >= 2 && !place[..used].ends_with(')'));
    let message = place[used..].strip_prefix(": ").or(spaced)?.trim();
    (message.split_whitespace().count() >= 2 || message.contains('"'))
        .then_some((severity, path, number, message))
}

/// A finding's message where it goes on past its own line `i` (its lines end at `end`): onto
/// lines indented one space (`File 'a.g' line 20: Parse Error: rule 'term' is` over ` never
/// used`), or, broken after a space, at the next line's start (`… has failed. ` then
/// `Mismatch at position 2: 5 != 6`). The message and where its lines end now.
fn message_goes_on(
    lines: &[String],
    covered: &[bool],
    i: usize,
    mut end: usize,
    mut message: String,
) -> (String, usize) {
    // Or onto lines indented a few spaces, where the line before stops mid-sentence (`a.el:19:16:
    // Warning: the function ‘f’ is not known to` over `    be defined.`): prose, not a code
    // frame's gutter, a place or a frame.
    let wrapped = |l: &str, before: &str| {
        let t = l.trim_start_matches(' ');
        let pad = l.len() - t.len();
        // (The line before stops on a word, not on a sentence's or a bracket's end; what
        // goes on is words, not a labelled field, a numbered source line or code.)
        let mid_sentence = before
            .trim_end()
            .ends_with(|c: char| c.is_alphanumeric() || "‘’'`\"(".contains(c));
        let prose = t.starts_with(|c: char| c.is_alphabetic() || "#'\"‘`(".contains(c))
            && !t.contains(": ")
            && !t.ends_with(':')
            && (t.split_whitespace().count() >= 2 || t.starts_with(['‘', '\'', '`', '"']))
            && !t.chars().take(10).any(|c| c == '|' || c == '│');
        (pad == 1 && t.starts_with(char::is_alphanumeric)
            || (2..=8).contains(&pad) && mid_sentence && prose && !crate::line::after_message(l))
            && location(t).is_none()
    };
    while end < lines.len() && end - i < 4 && !covered[end] && wrapped(&lines[end], &lines[end - 1])
    {
        message = format!("{} {}", message.trim_end(), lines[end].trim());
        end += 1;
    }
    // A message that names only the kind of check (`error: failed to expect`) over the values
    // it compared, unindented (`Value of: (r.max() == -2)`, `Actual: 0`, `Expected: -2`): the
    // values are what went wrong.
    let compared = |l: &str| {
        let t = l.trim_start();
        crate::line::value_label(l)
            || ["Value of:", "Expected:", "expected:", "Which is:"]
                .iter()
                .any(|label| t.starts_with(label))
    };
    let mut told = 0;
    while end < lines.len() && end - i < MAX_LINES && !covered[end] && compared(&lines[end]) {
        message = format!("{}\n{}", message.trim_end(), lines[end].trim());
        end += 1;
        told += 1;
    }
    if told > 0 {
        return (message, end);
    }
    if lines[i].ends_with(' ')
        && let Some(next) = lines.get(end)
        && !covered[end]
        && !next.trim().is_empty()
        && !next.starts_with(char::is_whitespace)
        && one_line(next).is_none()
    {
        message = format!("{}\n{}", message.trim_end(), next.trim());
        end += 1;
    }
    (message, end)
}

/// Whether a finding's line says only where it is: past its severity label, nothing but the
/// file, the line and words naming places (`file a.xsl line 6 element value-of`).
fn says_only_where(line: &str, path: &str) -> bool {
    let after = line.split_once(": ").map_or(line, |(_, rest)| rest);
    let mut words = after.split_whitespace().peekable();
    let mut other = 0;
    while let Some(w) = words.next() {
        let w = w.trim_matches(|c: char| "'\"`,;:()".contains(c));
        match w {
            "file" | "line" | "column" | "col" | "element" | "node" | "in" | "at" | "of" => {
                // (The word after `element` names the element: a place too.)
                if w == "element" || w == "node" {
                    words.next();
                }
            }
            _ if w == path || w.bytes().all(|b| b.is_ascii_digit()) => {}
            _ => other += 1,
        }
    }
    other == 0
}

/// Where a finding read at line `i` ends on its own lines: past the place alone under the
/// message that names it (textlint's) and what lies between, and past its message when the
/// line under it is that message (csslint's).
fn own_lines_end(
    lines: &[String],
    covered: &[bool],
    i: usize,
    place: &str,
    message: &str,
) -> usize {
    let mut end = i + 1;
    if let Some(k) = (end..lines.len().min(end + 2)).find(|&k| {
        !covered[k]
            && (lines[k].trim_end().trim_end_matches(':') == place
                || place_line(&lines[k]).is_some_and(|(_, _, used)| lines[k][..used] == *place))
    }) {
        end = k + 1;
    }
    if lines
        .get(end)
        .is_some_and(|l| !covered[end] && !l.trim().is_empty() && l.trim() == message)
    {
        end += 1;
    }
    end
}

/// An announcing message (ending in `:`) with the indented prose under it, up to the first line
/// that is no prose (a code frame, a marker, a place), three lines at most.
fn announced(message: &str, under: &[String]) -> String {
    let mut out = message.to_owned();
    let depth = under.first().map(|l| crate::line::indent(l));
    for (k, l) in under.iter().take(3).enumerate() {
        let t = l.trim();
        // (Its first line a sentence; the next ones at its depth go on with it.)
        let prose = l.starts_with(char::is_whitespace)
            && (if k == 0 {
                t.split_whitespace().count() >= 3
                    && t.starts_with(|c: char| c.is_alphabetic() || c == '(' || c == '[')
            } else {
                Some(crate::line::indent(l)) == depth
            })
            && !crate::line::stack_frame(l)
            && one_line(t).is_none();
        if !prose {
            break;
        }
        out.push('\n');
        out.push_str(t);
    }
    out
}

/// Whether the line at `i` is right under a failing test's status line (`TestBell.testTone ...
/// FAIL`) or a numbered report's header naming one test (`1) TestBell.testTone`): a message
/// that starts with its place there is that test's, not a finding of its own.
fn under_a_verdict(lines: &[String], i: usize) -> bool {
    let Some(above) = i.checked_sub(1).map(|k| lines[k].trim()) else {
        return false;
    };
    // A finding with a bracketed severity (`[ERROR] a.java:3:5: …`) reads as a verdict too; it
    // is a finding beside this one, not a test's verdict over it.
    // A verdict that announces a list (`✖ mypy:`, lint-staged's heading over a tool's output)
    // or that a run of findings follows heads a tool's findings, each of its own.
    // (`status_name` names no heading that only announces.)
    if let Some(named) = crate::line::status_name(above) {
        // A verdict on the file the finding is in (`FAILED config/app.toml` over `config/app.
        // toml: 3:5: duplicate key`) heads that file's findings.
        if location(lines[i].trim_start()).is_some_and(|(path, ..)| named.trim() == path) {
            return false;
        }
        let run = lines
            .get(i + 1)
            .is_some_and(|next| one_line(next).is_some());
        return one_line(above).is_none() && !run;
    }
    let digits = above.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0
        && above[digits..]
            .strip_prefix(") ")
            .is_some_and(|name| !name.is_empty() && !name.contains(' ') && one_line(name).is_none())
}

/// Where a finding opened right under a rule line ends: a tool that rules its findings apart
/// (`----------` between ecj's numbered ones) gives each the lines up to the next rule, its
/// message under the code it marks included, when the rule comes within a finding's reach with
/// no blank line before it; else `end` as the finding's own lines gave it.
fn to_the_rule(lines: &[String], covered: &[bool], start: usize, end: usize) -> usize {
    if start == 0 || !crate::line::separator(&lines[start - 1]) {
        return end;
    }
    let mut k = end;
    while k < lines.len() && k - start < MAX_LINES && !covered[k] {
        if crate::line::separator(&lines[k]) {
            return k;
        }
        if lines[k].trim().is_empty() {
            break;
        }
        k += 1;
    }
    end
}

/// The finding a line starts, whatever shape gives its place: one line, a place otherwise than
/// first, a labelled field in its body, a row under a header naming its file (`true` with it),
/// a header pointing at its place, a coded message over its place, a stylish row.
fn found_at(
    lines: &[String],
    i: usize,
    header_path: Option<&str>,
    file: Option<&str>,
) -> (Option<Placed>, bool) {
    let line = &lines[i];
    if let Some(found) = severity_headed(lines, i) {
        return (Some(found), false);
    }
    if let Some(found) = file_over_its_diff(lines, i) {
        return (Some(found), false);
    }
    // (One row each: the next row is no continuation of it.)
    if let Some(found) = letter_led(lines, i) {
        return (Some(found), true);
    }
    if let Some((name, place, s, c, m)) = one_line(line)
        && !under_a_verdict(lines, i)
    {
        return (Some((i, name, place, s, c, m)), false);
    }
    if let Some(found) = program_unplaced(lines, i) {
        return (Some(found), true);
    }
    // `Line 2 of a.mjml (mj-body) — Attribute colour is illegal`: the place in words first.
    if let Some(found) = line_of_file(&lines[i])
        .map(|(path, number, message)| placed_at(i, (path, number), Severity::Error, message))
    {
        return (Some(found), true);
    }
    // `Unexpected token (8:1) in views/a.ejs`: the place in parentheses, the file last.
    if let Some(found) = paren_place_in_file(&lines[i])
        .map(|(path, number, message)| placed_at(i, (path, number), Severity::Error, message))
    {
        return (Some(found), true);
    }
    // `error at line 11:` over `      illegal else.`: a severity and a line with no file, its
    // message on the indented line under it.
    if let Some(found) = severity_at_line_over(lines, i) {
        return (Some(found), true);
    }
    // `      ERROR: Missing attribute: accesskey at line 7, column 1 for delete-button` under
    // `  main.ftl` under `de/app`: a severity label and a line in words, under the file's
    // heading (and its folder's); one row each.
    if let Some(found) = labelled_under_file(lines, i) {
        return (Some(found), true);
    }
    if let Some(found) = placed_otherwise(lines, i) {
        return (Some(found), false);
    }
    // A record whose place is a labelled field in its body (`Location: a.py:4:4`).
    if let Some((name, place, code, message)) = records::located_below(lines, i) {
        return (
            Some((i, name, place, Severity::Error, code, message)),
            false,
        );
    }
    // An indented `path:line:col: message` under a header that names the same file
    // (`Checking src/a.lua   3 warnings`): a row of that file's findings, one line each.
    if line.starts_with(char::is_whitespace)
        && let Some(h) = header_path
        && let Some((n, p, s, c, m)) = header_row_of(line, h)
    {
        return (Some((i, n, p, s, c, m)), true);
    }
    if let Some((s, c, m)) = header(line)
        && let Some((_, name, place)) = arrow(lines, i)
    {
        return (Some((i, name, place, s, c, m)), false);
    }
    if let Some((s, c, m)) = labelled_header(line)
        && let Some((k, name, place)) = arrow(lines, i)
    {
        // A label over a rule's name alone (`Fail: prefix_output`) says what is wrong under
        // the caret in its frame (`^^^^ hint : Prefix …`).
        let rule_only = m
            .split_once(": ")
            .is_some_and(|(_, rule)| !rule.trim().contains(' '));
        let m = match under_the_caret(lines, k).filter(|_| rule_only) {
            Some(said) => said,
            None => m,
        };
        return (Some((i, name, place, s, c, m)), false);
    }
    if let Some(found) = place_under_coded(lines, i) {
        return (Some(found), false);
    }
    if let Some(found) = whole_file_row(lines, i) {
        return (Some(found), true);
    }
    if let Some(f) = file
        && let Some((row, pos, s, c, m)) = row(line)
    {
        return (
            Some((i, format!("{f}:{row}"), format!("{f}:{pos}"), s, c, m)),
            false,
        );
    }
    // A row whose place is only marks, under its file: a finding about the whole file.
    if let Some(f) = file
        && let Some((s, c, m)) = unplaced_row(line)
    {
        return (Some((i, f.to_owned(), f.to_owned(), s, c, m)), true);
    }
    // A marked row, or one with its line in words, under its file (one line each).
    if let Some(f) = file
        && let Some((number, s, c, m)) = headed_row(line)
    {
        let name = number.map_or_else(|| f.to_owned(), |n| format!("{f}:{n}"));
        return (Some((i, name.clone(), name, s, c, m)), true);
    }
    // Last, what no shape above reads: a list of places, each with a word or a few.
    if let Some(found) = listed_place(lines, i) {
        return (Some(found), true);
    }
    (None, false)
}

/// The severity a row opens with as one letter and a colon (`E: `, `W: `), lintian's and
/// rpmlint's, when the line next to it opens so too: a run of findings, one per row, named
/// by the place in brackets at its end (`[usr/share/doc/a/changelog.gz:1]`) or by the words
/// before its first space (`pkg: tag`), the tag after a label its code.
fn letter_led(lines: &[String], i: usize) -> Option<Placed> {
    fn mark(line: &str) -> Option<(Severity, &str)> {
        let (letter, rest) = line.split_once(": ")?;
        let severity = match letter {
            "E" | "F" => Severity::Error,
            "W" | "I" | "N" | "C" | "X" => Severity::Warning,
            _ => return None,
        };
        let rest = rest.trim();
        (!rest.is_empty()).then_some((severity, rest))
    }
    let (severity, said) = mark(&lines[i])?;
    let neighbour = |k: Option<usize>| {
        k.and_then(|k| lines.get(k))
            .is_some_and(|l| mark(l).is_some())
    };
    if !neighbour(i.checked_sub(1)) && !neighbour(Some(i + 1)) {
        return None;
    }
    // (`pkg: tag detail`: the label, then the tag.)
    let (label, tagged) = match said.split_once(": ") {
        Some((label, tagged)) if !label.contains(' ') => (Some(label), tagged),
        _ => (None, said),
    };
    let tag = tagged.split_whitespace().next().filter(|t| rule_like(t));
    let pointer = said
        .strip_suffix(']')
        .and_then(|s| s.rsplit_once(" ["))
        .map(|(_, p)| p)
        .filter(|p| path_like(p.split(':').next().unwrap_or(p)));
    // (A label that is a file, `E: po/de.po: tag …`, i18nspector's, is the finding's place.)
    let name = match (pointer, label, tag) {
        (Some(p), _, _) => p.to_owned(),
        (None, Some(l), _) if crate::text::file_with_extension(l) => l.to_owned(),
        (None, Some(l), Some(t)) => format!("{l}: {t}"),
        _ => said.split_whitespace().next()?.to_owned(),
    };
    Some((
        i,
        name.clone(),
        name,
        severity,
        tag.map(str::to_owned),
        said.to_owned(),
    ))
}

/// The findings of the record-shaped readers from line `i` (`header_path`: the file an
/// unindented line above named), pushed to `out`; the line after them, or None. A table whose
/// header names a line column is read first (its rows hold places); then a header with its
/// place in words and its findings marked on the lines below, rows that give their line in a
/// field under a header naming the file, a list of files, and the other records.
fn recorded(
    lines: &[String],
    covered: &[bool],
    i: usize,
    (header_path, announced): (Option<&str>, Option<&str>),
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    records::table_rows(lines, covered, i, out)
        .or_else(|| header_path.and_then(|h| records::field_rows(lines, covered, i, h, out)))
        .or_else(|| marked_findings(lines, covered, i, out))
        .or_else(|| records::headed_by_place(lines, covered, i, out))
        .or_else(|| records::place_then_severity(lines, covered, i, out))
        .or_else(|| records::echo_then_severity(lines, covered, i, out))
        .or_else(|| records::place_over_frame(lines, covered, i, out))
        .or_else(|| records::bracketed_records(lines, covered, i, out))
        .or_else(|| records::label_over_label(lines, covered, i, out))
        .or_else(|| records::file_then_frame(lines, covered, i, out))
        .or_else(|| records::file_list(lines, covered, i, out))
        .or_else(|| records::worded_under_file(lines, covered, i, out))
        .or_else(|| records::line_groups(lines, covered, i, out))
        .or_else(|| records::coded_under_heading(lines, covered, i, out))
        .or_else(|| records::severity_over_worded_place(lines, covered, i, out))
        .or_else(|| records::bracketed_severity_over_place(lines, covered, i, out))
        .or_else(|| announced.and_then(|f| records::line_of_announced(lines, covered, i, f, out)))
        .or_else(|| announced.and_then(|f| records::coded_over_excerpt(lines, covered, i, f, out)))
        .or_else(|| records::fields_with_line(lines, covered, i, announced, out))
        .or_else(|| records::marked_coded_under_heading(lines, covered, i, out))
        .or_else(|| records::messages_under_file_verdict(lines, covered, i, out))
}

/// Findings that headings and records around them give their meaning or place (D-221 to
/// D-224): pushed to `out`; the line after them, or None.
fn under_headings(
    lines: &[String],
    covered: &[bool],
    i: usize,
    (announced, looked): (Option<&str>, &mut RunsLooked),
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    findings_above_place(lines, covered, i, out)
        .or_else(|| things_in_files(lines, covered, i, out))
        .or_else(|| numbered_under_severity(lines, covered, i, out))
        .or_else(|| {
            let read = severity_under_line_record(lines, covered, i, announced, out);
            looked.line_records |= read.is_some();
            read
        })
        .or_else(|| {
            let file = announced.filter(|_| looked.line_records)?;
            severity_about_the_file(lines, covered, i, file, out)
        })
        .or_else(|| rows_under_a_counted_heading(lines, covered, i, out))
        .or_else(|| items_placed_under(lines, covered, i, out))
        .or_else(|| items::items_under_file(lines, covered, i, out))
        .or_else(|| {
            sentences::labelled_with_aligned_detail(lines, covered, i, &mut looked.labelled, out)
        })
        .or_else(|| sentences::sentence_over_worded_place(lines, covered, i, out))
        .or_else(|| fields::field_record(lines, covered, i, out))
        .or_else(|| fields::keyed_records(lines, covered, i, out))
        .or_else(|| excerpts::marked_in_excerpts(lines, covered, i, out))
        .or_else(|| sentences::rows_under_a_counting_sentence(lines, covered, i, out))
        .or_else(|| sentences::sentence_over_expectation(lines, covered, i, out))
        .or_else(|| {
            marked_files::rows_under_marked_files(lines, covered, i, &mut looked.marked, out)
        })
}

/// Where the readers that read a run ahead of the line have looked up to: a run that was no
/// reading is not read again from inside it, so each stays linear.
#[derive(Default)]
struct RunsLooked {
    labelled: usize,
    marked: usize,
    /// Records that state their line first were read (`severity_under_line_record`).
    line_records: bool,
}

/// The findings of a record, a table or a heading's list that starts at `i` (`recorded`, then
/// `under_headings`): pushed to `out`; the line after them, or None.
fn listed_at(
    lines: &[String],
    covered: &[bool],
    i: usize,
    (header_path, reading): (Option<&str>, Option<&str>),
    runs_looked: &mut RunsLooked,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    recorded(lines, covered, i, (header_path, reading), out)
        .or_else(|| under_headings(lines, covered, i, (reading, runs_looked), out))
}

/// Whether the line at `i` keeps the stylish block a file's line just above opened: a rule
/// right under it (djLint's `base.html`, a rule, its rows), or a setting right under a
/// labelled file (`Config file: /p/.rc.json` under `File: site/a.html`: its rows follow).
fn keeps_file(lines: &[String], i: usize, open: bool, file_at: Option<usize>) -> bool {
    open && file_at == i.checked_sub(1)
        && (crate::line::separator(&lines[i]) || records::labelled(&lines[i]))
}

/// Every diagnostic in `lines` not yet `covered`, in log order, warnings marked as such.
pub(crate) fn read_all(
    lines: &[String],
    covered: &[bool],
    pace: &stanley_core::Pace<'_>,
) -> Result<Vec<Diagnostic>, stanley_core::Cancelled> {
    let mut out = Vec::new();
    let mut file: Option<String> = None;
    let mut file_at: Option<usize> = None;
    let mut header_path: Option<String> = None;
    // The file the log last said it reads (`Reading from file a.jj . . .`).
    let mut reading: Option<String> = None;
    // Where the placed rows' reader has looked up to (`rows::placed_rows`).
    let mut rows_looked = rows::Looked::default();
    // The files the findings so far were placed in (`rows::file_row`).
    let mut files = rows::Files::default();
    let mut runs_looked = RunsLooked::default();
    let mut i = 0;
    while i < lines.len() {
        pace.step()?;
        if covered[i] {
            file = None;
            i += 1;
            continue;
        }
        let line = &lines[i];
        if let Some(f) = records::announced_file(line) {
            reading = Some(f.to_owned());
        }
        let listed = listed_at(
            lines,
            covered,
            i,
            (header_path.as_deref(), reading.as_deref()),
            &mut runs_looked,
            &mut out,
        );
        if let Some(next) = listed {
            file = None;
            i = next;
            continue;
        }
        let (found, header_row) = found_at(lines, i, header_path.as_deref(), file.as_deref());
        let Some((start, name, place, severity, code, message)) = found else {
            // A line naming a file findings were placed in, before its colon.
            if rows::file_row(lines, i, &mut files, &mut out) {
                (file, i) = (None, i + 1);
                continue;
            }
            // Rows that each hold a place at one word, of one shape, whatever the tool.
            if let Some(next) = rows::placed_rows(lines, covered, i, &mut rows_looked, &mut out) {
                file = None;
                header_path = None;
                i = next;
                continue;
            }
            // An unindented line naming a file heads that file's indented rows; so does a
            // path alone, however indented.
            // (A rule and a count of the file's findings under its header keep it: `FILE: a.php`,
            // a rule, `FOUND 11 ERRORS AFFECTING 7 LINES`, a rule, its rows.)
            let keeps = header_path.is_some()
                && (crate::line::separator(line) || crate::stated::states_counts(line));
            let names = !line.starts_with(char::is_whitespace) || path_like(line.trim());
            if !line.trim().is_empty() && names && !keeps {
                header_path = line
                    .split_whitespace()
                    .take(3)
                    .map(|w| w.trim_matches(|c: char| "'\"`:,()[]".contains(c)))
                    .find(|w| path_like(w))
                    .map(str::to_owned);
            }
            // A path alone on a line heads a stylish block; anything else ends one (but a rule
            // right under it: djLint's `base.html`, a rule, its rows). Indented, or with its
            // first place after it (`  index.test-d.ts:3:19`), it heads one when a row follows.
            if !keeps_file(lines, i, file.is_some(), file_at) {
                file = stylish_file(lines, i);
                file_at = file.as_ref().map(|_| i);
            }
            i += 1;
            continue;
        };
        // The file's own line heads its first row's block (no block of its own, no report's).
        let start = match file_at.take() {
            Some(h)
                if file.is_some() && lines[h + 1..start].iter().all(|l| l.trim().is_empty()) =>
            {
                h
            }
            _ => start,
        };
        let in_rows =
            (file.is_some() && (line.starts_with(' ') || row(line).is_some())) || header_row;
        let end = own_lines_end(lines, covered, i, &place, &message);
        let (mut message, mut end) = if in_rows {
            (message, end)
        } else {
            message_goes_on(lines, covered, i, end, message)
        };
        if in_rows && !header_row {
            end = row_detail(lines, covered, start, end);
        }
        if !in_rows {
            let own = end;
            while end < lines.len()
                && end - start < MAX_LINES
                && !covered[end]
                && (continues(&lines[end])
                    || (severity == Severity::Error && explains(&lines[end])))
            {
                end += 1;
            }
            // A message that announces what follows (`[4] (buffer) sscanf:`, flawfinder's) is
            // said on the indented lines under it: they are the message.
            if message.ends_with(':') {
                message = announced(&message, &lines[own..end]);
            }
            end = to_the_rule(lines, covered, start, end);
            file = None;
        }
        let (name, start) = match named_in(&message) {
            Some(named) => (named, start),
            None => match heading_above(lines, covered, start) {
                // The heading and what stands between it and the finding are its report.
                Some((named, from)) => (named, from),
                None => (name, start),
            },
        };
        out.push(Diagnostic::new(
            &lines[start..end],
            start,
            name,
            message,
            code,
            place,
            severity,
        ));
        i = end;
    }
    // A tool's warnings are its findings too, after its errors (D-184); beside a test's
    // failure (a build's warnings before the run) they are not, and the blocks say which.
    for d in &mut out {
        if d.severity == Severity::Warning {
            d.found.anchor = "diagnostic_warning";
        }
    }
    Ok(out)
}

/// The findings a reader of one shape reads from `text`, tried at each line it does not
/// claim (the readers' own tests).
#[cfg(test)]
fn read_with(
    text: &str,
    mut reader: impl FnMut(&[String], &[bool], usize, &mut Vec<Diagnostic>) -> Option<usize>,
) -> Vec<Diagnostic> {
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let covered = vec![false; lines.len()];
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        i = reader(&lines, &covered, i, &mut out).unwrap_or(i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    fn read(text: &str) -> Vec<Diagnostic> {
        let l = lines(text);
        super::read_all(
            &l,
            &vec![false; l.len()],
            &stanley_core::Pace::new(&stanley_core::Cancel::new()),
        )
        .unwrap()
    }

    fn names(text: &str) -> Vec<(String, Option<String>)> {
        read(text)
            .into_iter()
            .map(|d| (d.found.name.unwrap_or_default(), d.code))
            .collect()
    }

    fn messages(text: &str) -> Vec<(String, String)> {
        read(text)
            .into_iter()
            .map(|d| {
                (
                    d.found.name.unwrap_or_default(),
                    d.found.message.unwrap_or_default(),
                )
            })
            .collect()
    }

    #[test]
    fn a_place_in_words_then_a_colon_and_a_line_that_only_says_trouble_happened() {
        let text = "confd: error reading file /etc/app/main.cf, on or before line 4: option 'depth' not known\n\
                    confd: unknown codec 'zstdx' for output\n\
                    confd: error reading file /etc/app/main.cf, on or before line 9: errors occurred in file '/etc/app/main.cf' around line 9\n\
                    deploy.sh: syntax error at line 3: `fi' unexpected\n";
        assert_eq!(
            messages(text),
            [
                (
                    "/etc/app/main.cf:4".into(),
                    "option 'depth' not known".into()
                ),
                (
                    "/etc/app/main.cf:9".into(),
                    "unknown codec 'zstdx' for output".into()
                ),
                (
                    "deploy.sh:3".into(),
                    "deploy.sh: syntax error at line 3: `fi' unexpected".into()
                ),
            ]
        );
    }

    #[test]
    fn a_quoted_file_a_capital_line_a_tab_and_a_marked_severity() {
        let text = "File \"story.inf\"; Line 12\t# Warning:  Local \"x\" declared but not used\n\
                    File \"story.inf\"; Line 30\t# Error:  Expected ';' but found if\n\
                    >     if\n\
                    Compiled with 1 error and 1 warning\n";
        let got = read(text);
        assert_eq!(got.len(), 2, "{got:?}");
        let places: Vec<String> = got.iter().map(|d| d.found.name.clone().unwrap()).collect();
        assert_eq!(places, ["story.inf:12", "story.inf:30"]);
        assert_eq!(got[0].severity, Severity::Warning);
        assert_eq!(got[1].severity, Severity::Error);
        // Unquoted after `File`, a hash before the message and no severity word: an error.
        let bare = "File calc.icn; Line 7 # \"then\": missing semicolon\nFile calc.icn; Line 9 # invalid argument list\n";
        let got = messages(bare);
        assert_eq!(
            got,
            [
                ("calc.icn:7".into(), "\"then\": missing semicolon".into()),
                ("calc.icn:9".into(), "invalid argument list".into()),
            ]
        );
    }

    #[test]
    fn labelled_rows_with_their_line_in_words_under_a_file_and_its_folder() {
        let text = "fr/web\n  menu.ftl\n      ERROR: Bad value \"open =\n    {\n    }\" from line 4 column 1 to line 6 column 2\n      WARNING: Unused key at line 9, column 3 for close\n  labels.properties\n      ERROR: Missing placeable at line 2, column 5 for save\nfr:\nerrors  2\n";
        let got: Vec<(String, Severity)> = read(text)
            .into_iter()
            .map(|d| (d.found.name.unwrap_or_default(), d.severity))
            .collect();
        assert_eq!(
            got,
            [
                ("fr/web/menu.ftl:4".to_owned(), Severity::Error),
                ("fr/web/menu.ftl:9".to_owned(), Severity::Warning),
                ("fr/web/labels.properties:2".to_owned(), Severity::Error),
            ]
        );
    }

    #[test]
    fn a_line_of_a_file_first_and_a_line_alone_over_its_message() {
        let text = "Line 3 of mail/news.tpl (mj-text) — Attribute colour is illegal\n\
                    Line 8 of mail/news.tpl — Unknown element mj-foo in mj-column\n";
        assert_eq!(
            messages(text),
            [
                (
                    "mail/news.tpl:3".into(),
                    "Attribute colour is illegal".into()
                ),
                (
                    "mail/news.tpl:8".into(),
                    "Unknown element mj-foo in mj-column".into()
                ),
            ]
        );
        let text = "error at line 4: \n      unexpected brace.\nerror at line 9: \n      missing operand.\n";
        assert_eq!(
            messages(text),
            [
                ("line 4".into(), "unexpected brace.".into()),
                ("line 9".into(), "missing operand.".into()),
            ]
        );
    }

    #[test]
    fn a_place_after_a_label_and_what_it_is_in() {
        let text = "warning: macro \"Pump\" in cfg/plant.def(4): unused input \"$q\"\n\
                    error: macro \"Pump\" in cfg/plant.def(9): unknown symbol \"valve\"\n\
                    error: block Main in cfg/main.def:12:3: bad nesting depth\n\
                    error: cannot open cfg/other.def: permission denied\n\
                    error: cfg/other.def(20): duplicated name \"Main\"\n\
                    error: rotate:14 unknown option 'sizee' -- ignoring line\n\
                    error: found 2 problems in rotate, skipping\n";
        assert_eq!(
            messages(text),
            [
                ("cfg/plant.def:4".into(), "unused input \"$q\"".into()),
                ("cfg/plant.def:9".into(), "unknown symbol \"valve\"".into()),
                ("cfg/main.def:12".into(), "bad nesting depth".into()),
                ("cfg/other.def:20".into(), "duplicated name \"Main\"".into()),
                (
                    "rotate:14".into(),
                    "unknown option 'sizee' -- ignoring line".into()
                ),
            ]
        );
        assert_eq!(read(text)[0].severity, Severity::Warning);
    }

    /// A heading names the file; each message under it ends with its place in words, the line
    /// it quotes and a marker above it (D-202).
    #[test]
    fn messages_placed_in_words_under_their_file() {
        let log = "In notes/plan.md\n=========\nWe will basically ship it.\n        ^^^^^^^^^\n\"basically\" can weaken meaning on line 2 at column 8\n---------\nIt was decided by them.\n   ^^^^^^^^^^^\n\"was decided\" may be passive voice on line 5 at column 3\nIn notes/todo.md\n=========\nSo it goes.\n^^\n\"So\" adds no meaning at line 1, column 0\n";
        assert_eq!(
            messages(log),
            [
                (
                    "notes/plan.md:2".to_owned(),
                    "\"basically\" can weaken meaning".to_owned()
                ),
                (
                    "notes/plan.md:5".to_owned(),
                    "\"was decided\" may be passive voice".to_owned()
                ),
                (
                    "notes/todo.md:1".to_owned(),
                    "\"So\" adds no meaning".to_owned()
                ),
            ]
        );
        // A message that names its own file is not placed under a heading's.
        assert_eq!(
            records::place_words_at_end("Parse error: x in a.php on line 3"),
            None
        );
    }

    /// Line headings under a file group the rows of that line, indented under them or in a
    /// table whose wrapped cells sit deeper (D-202).
    #[test]
    fn rows_grouped_by_line_under_their_file() {
        let log = "src/shop/cart.py\n  Line: 4\n    lint: unused-import / Unused json imported\n  Line: 9\n    lint: bare-except / No exception type given (col 8)\n    flakes: E722 / do not use bare except\n\nDockerfile\nIssues: 2\n\nLine 1: FROM debian\nIssue  Category      Description\n    1  Clarity       Base images should name\n                     a tag.\n    2  Clarity       Another row\n";
        let got = messages(log);
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "src/shop/cart.py:4",
                "src/shop/cart.py:9",
                "src/shop/cart.py:9",
                "Dockerfile:1",
                "Dockerfile:1"
            ]
        );
        assert_eq!(got[2].1, "do not use bare except");
        assert_eq!(got[3].1, "Base images should name a tag.");
    }

    #[test]
    fn the_shared_shapes_are_read_whatever_the_tool() {
        let log = "src/a.c:10:5: error: use of undeclared identifier 'v'\n   10 |     v = 1;\n      |     ^\n\
            src/a.c:3:1: warning: unused variable 'w' [-Wunused-variable]\n\
            app.py:4: error: Incompatible types in assignment  [assignment]\n\
            src/b.ts(7,3): error TS2322: Type 'string' is not assignable to type 'number'.\n\
            src/c.ts:9:1 - error TS2345: Argument of type 'x' is not assignable.\n\
            pkg/m.py:1:1: F401 'os' imported but unused\n\
            error[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n4 |     let x: u32 = \"a\";\n  |                  ^^^ expected `u32`\n\n\
            /work/app/index.js\n  3:7   error  'x' is assigned a value but never used  no-unused-vars\n  5:1   error  Unexpected console statement  no-console\n\n\
            UP035 [*] Import from `collections.abc` instead\n --> lib/x.py:2:1\n\n\
            tests/test_a.py:12: AssertionError\n\
            Error: cannot find module 'x'\n";
        assert_eq!(
            names(log),
            [
                ("src/a.c:10".to_owned(), None),
                ("src/a.c:3".to_owned(), Some("-Wunused-variable".to_owned())),
                ("app.py:4".to_owned(), Some("assignment".to_owned())),
                ("src/b.ts:7".to_owned(), Some("TS2322".to_owned())),
                ("src/c.ts:9".to_owned(), Some("TS2345".to_owned())),
                ("pkg/m.py:1".to_owned(), Some("F401".to_owned())),
                ("src/main.rs:4".to_owned(), Some("E0308".to_owned())),
                (
                    "/work/app/index.js:3".to_owned(),
                    Some("no-unused-vars".to_owned())
                ),
                (
                    "/work/app/index.js:5".to_owned(),
                    Some("no-console".to_owned())
                ),
                ("lib/x.py:2".to_owned(), Some("UP035".to_owned())),
            ]
        );
        let first = &read(log)[0];
        assert_eq!(
            first.found.lines.len(),
            3,
            "the source excerpt stays with it"
        );
    }

    #[test]
    fn indented_marked_and_trailing_severity_shapes() {
        let log = "/work/p/src/a.py\n  /work/p/src/a.py:3:5 - error: \"x\" is not defined (reportUndefinedVariable)\n\
            a/mod.py:1:0: C0114: Missing module docstring (missing-module-docstring)\n\
            /w/a.css:3:5: Unexpected unknown property \"colr\" (property-no-unknown) [error]\n\
            /w/b.js:2:1: 'y' is not defined. [Error/no-undef]\n\
            \n  × eslint(no-debugger): `debugger` statement is not allowed\n   ╭─[src/c.js:4:1]\n 4 │ debugger;\n   ╰────\n\
            \n    x_test.go:12: got 1, want 2\n";
        assert_eq!(
            names(log),
            [
                ("/work/p/src/a.py:3".to_owned(), None),
                ("a/mod.py:1".to_owned(), Some("C0114".to_owned())),
                (
                    "/w/a.css:3".to_owned(),
                    Some("property-no-unknown".to_owned())
                ),
                ("/w/b.js:2".to_owned(), Some("no-undef".to_owned())),
                (
                    "src/c.js:4".to_owned(),
                    Some("eslint(no-debugger)".to_owned())
                ),
            ]
        );
    }

    #[test]
    fn places_of_files_named_for_what_they_hold_and_frames_with_addresses() {
        // A file with no extension is a path when it is a folder's or named for its content
        // (`Dockerfile`); a frame's place with an address and a function is no finding.
        let log = "Dockerfile:2 DL4000 error: MAINTAINER is deprecated\n\
            bin/check:7: error: unbound variable\n\
            /src/ring.zig:17:5: 0x125792d in test.big ring (ring.zig)\n\
            Error:12: not a place\n";
        assert_eq!(
            names(log),
            [
                ("Dockerfile:2".to_owned(), Some("DL4000".to_owned())),
                ("bin/check:7".to_owned(), None),
            ]
        );
    }

    #[test]
    fn a_header_points_at_its_place_with_any_drawn_arrow() {
        // annotate-snippets' frames (typos): `╭▸ path:line:col`, source rows drawn with `│`.
        let log = "error: `perfomance` should be `performance`\n  ╭▸ ./notes.md:3:27\n  │\n3 │ This release improves the perfomance.\n  ╰╴                          ━━━━━━━━━━\n\
            error: `recieved` should be `received`\n  ╭▸ ./notes.md:4:4\n  │\n4 │ We recieved many reports.\n  ╰╴   ━━━━━━━━\n";
        assert_eq!(
            names(log),
            [
                ("./notes.md:3".to_owned(), None),
                ("./notes.md:4".to_owned(), None)
            ]
        );
    }

    #[test]
    fn a_severity_at_a_place_heads_its_indented_explanation() {
        let log = "-- Found Threads: TRUE\nCMake Error at CMakeLists.txt:5 (find_package):\n  By not providing \"FindCodec.cmake\" in CMAKE_MODULE_PATH this project\n  has asked CMake to find a package configuration file.\n\n-- Configuring incomplete, errors occurred!\n";
        assert_eq!(names(log), [("CMakeLists.txt:5".to_owned(), None)]);
        let found = &read(log)[0];
        assert_eq!(found.found.start, 1, "the header is shown");
        assert_eq!(found.found.lines.len(), 3, "with its explanation");
    }

    #[test]
    fn a_file_and_what_is_wrong_with_it_beside_placed_findings_is_about_the_whole_file() {
        let log = "docs/api.rst:12: code block parse error cannot parse: 1:6\n    print \"x\"\nParseError: bad input\n\
            docs/install.rst: Requires a rewrite.\ndocs/quick.rst:21: code block parse error cannot parse: 1:17\n\
            guide/faq.md: Requires a rewrite.\nguide/notes.md: Requires a rewrite.\n";
        assert_eq!(
            messages(log)
                .into_iter()
                .map(|(name, _)| name)
                .collect::<Vec<_>>(),
            [
                "docs/api.rst:12",
                "docs/install.rst",
                "docs/quick.rst:21",
                "guide/faq.md",
                "guide/notes.md"
            ]
        );
        // Alone, a file and a sentence is a line of a job's log.
        assert!(names("Building\nsetup.py: running the build step\nDone\n").is_empty());
    }

    #[test]
    fn a_part_of_the_file_before_the_line_stays_in_the_place() {
        let log = "nb/sales.ipynb:cell_2:2:21: E231 missing whitespace after ':'\n\
            nb/sales.ipynb:cell_5:5:34: W291 trailing whitespace\nsrc/a.py:12:3: E501 line too long\n";
        assert_eq!(
            names(log),
            [
                ("nb/sales.ipynb:2".to_owned(), Some("E231".to_owned())),
                ("nb/sales.ipynb:5".to_owned(), Some("W291".to_owned())),
                ("src/a.py:12".to_owned(), Some("E501".to_owned())),
            ]
        );
        // Words that are no numbered part (`a.py:main:3`, a function) are no place.
        assert!(location("a.py:main:3: x").is_none());
    }

    #[test]
    fn any_one_word_label_heads_the_place_its_arrow_gives_but_a_note_does_not() {
        let log = "Fail: no-unsafe-eval\n  --> web/app.js:12:5\n   |\n12 |     eval(input ^ key)\n   |     ^^^^ hint : evaluates text it was given\n   = reason: the text comes from the request\n\n\
            Violation[naming]: `Foo_bar` is not snake case\n --> src/lib.rs:3:4\n\n\
            warning: unused variable `x`\n --> src/main.rs:2:9\nnote: the lint level is defined here\n --> src/main.rs:1:9\n";
        assert_eq!(
            names(log),
            [
                ("web/app.js:12".to_owned(), None),
                ("src/lib.rs:3".to_owned(), Some("naming".to_owned())),
                ("src/main.rs:2".to_owned(), None),
            ]
        );
        // The rule's name alone says nothing: what is under the caret does.
        assert_eq!(
            messages(log)[0].1,
            "evaluates text it was given",
            "{:?}",
            messages(log)
        );
        // A label with no arrow under it is no finding.
        assert!(names("Result: 3 files checked\nDone: ok\n").is_empty());
    }

    #[test]
    fn a_severity_and_a_file_over_its_diff_is_a_finding_about_the_file() {
        let log = "ERROR: /w/app/models.py Imports are incorrectly sorted and/or formatted.\n--- /w/app/models.py:before\n+++ /w/app/models.py:after\n@@ -1,2 +1,2 @@\n-import sys\n+import os\n import re\n\
            error: src/main.c would be reformatted\n@@ -3 +3 @@\n-int  x;\n+int x;\n\
            ERROR: the build failed in src/main.c\n";
        assert_eq!(
            messages(log),
            [
                (
                    "/w/app/models.py".to_owned(),
                    "Imports are incorrectly sorted and/or formatted.".to_owned()
                ),
                ("src/main.c".to_owned(), "would be reformatted".to_owned()),
            ]
        );
    }

    #[test]
    fn a_place_in_words_over_its_frame_takes_the_severity_under_it_with_its_number() {
        let log = "File \"bin/main.ml\", lines 4-6, characters 2-10:\n4 | ..match x with\n5 |   | A -> 1\n6 | ..\nWarning 8 [partial-match]: this pattern-matching is not exhaustive.\n\
            File \"lib/ledger.ml\", line 9, characters 6-7:\n9 |   let t = 3 in\n          ^\nWarning 26 [unused-var]: unused variable t.\n\
            File \"lib/ledger.ml\", line 12, characters 10-15:\n12 |   total + count\n               ^^^^^\nError: Unbound value count\n";
        assert_eq!(
            messages(log),
            [
                (
                    "bin/main.ml:4".to_owned(),
                    "this pattern-matching is not exhaustive.".to_owned()
                ),
                (
                    "lib/ledger.ml:9".to_owned(),
                    "unused variable t.".to_owned()
                ),
                (
                    "lib/ledger.ml:12".to_owned(),
                    "Unbound value count".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn an_upper_case_severity_heads_the_place_its_arrow_gives() {
        let log = " INFO Checking project\nERROR `str` is not assignable to `int` [bad-assignment]\n  --> ledger.py:21:14\n   |\n21 |     n: int = banner(\"ledger\")\n   |              ^^^^^\n";
        assert_eq!(
            names(log),
            [("ledger.py:21".to_owned(), Some("bad-assignment".to_owned()))]
        );
    }

    #[test]
    fn a_message_under_a_tests_verdict_is_the_tests() {
        let log = "    TestBell.testTone ... FAIL\ntest_bell.lua:3: bell tone flat of concert pitch\n\
            1) TestBell.testTower\ntest_bell.lua:6: could not find south in belfry-north\n\
            src/a.lua:9: error: unexpected symbol near 'x'\n";
        assert_eq!(names(log), [("src/a.lua:9".to_owned(), None)]);
    }

    #[test]
    fn stylish_rows_may_give_a_span() {
        // alex (remark's reporter): `line:col-line:col`, a severity, the message, two rules.
        let log = "notes.md\n      7:1-7:3  warning  `He` may be insensitive, use `They` instead  he-she  retext-equality\n    7:19-7:27  warning  `chairman` may be insensitive  chairman-chairwoman  retext-equality\n";
        assert_eq!(
            names(log),
            [
                ("notes.md:7".to_owned(), Some("retext-equality".to_owned())),
                ("notes.md:7".to_owned(), Some("retext-equality".to_owned()))
            ]
        );
    }

    #[test]
    fn marked_rows_under_a_file_and_its_first_place() {
        // tsd: the file with its first place, indented, over rows opened by a mark.
        let log = "\n  index.test-d.ts:3:19\n  ✖  3:19  Argument of type string is not assignable.  \n  ✖  5:0   Expected an error, but found none.\n\n  2 errors\n";
        assert_eq!(
            names(log),
            [
                ("index.test-d.ts:3".to_owned(), None),
                ("index.test-d.ts:5".to_owned(), None)
            ]
        );
    }

    /// A bracketed severity before the place (checkstyle's and Maven's `[ERROR] path:L:C: …`)
    /// is the finding's severity.
    #[test]
    fn a_bracketed_severity_before_the_place() {
        let got =
            one_line("[WARN] src/a/Pier.java:13:5: Missing a Javadoc comment. [JavadocMethod]");
        let (name, _, severity, _, message) = got.expect("a finding");
        assert_eq!(name, "src/a/Pier.java:13");
        assert_eq!(severity, Severity::Warning);
        assert!(message.contains("Missing a Javadoc comment"), "{message}");
        let got = one_line("[ERROR] src/a/Pier.java:1: Missing package-info.java file.");
        assert_eq!(got.map(|g| g.2), Some(Severity::Error));
    }

    #[test]
    fn an_announcing_message_is_said_on_the_indented_lines_under_it() {
        let log = "src/a.c:9:  [4] (buffer) sscanf:\n  The scanf() family's %s operation permits\n  overflows.\nsrc/a.c:12:  [4] (buffer) strcpy:\n  Does not check for buffer overflows.\n\nHits = 2\n";
        let got: Vec<String> = read(log)
            .into_iter()
            .map(|d| d.found.message.unwrap_or_default())
            .collect();
        assert_eq!(
            got,
            [
                "[4] (buffer) sscanf:\nThe scanf() family's %s operation permits\noverflows.",
                "[4] (buffer) strcpy:\nDoes not check for buffer overflows."
            ]
        );
    }

    #[test]
    fn bracketed_severities_in_a_row_are_each_a_finding() {
        // Each row reads as a verdict line too; the one above is a finding, not a verdict.
        let log = "[ERROR] /ci/src/A.src:15:9: Variable 'x' is never used [UnusedVariable]\n\
            [ERROR] /ci/src/A.src:15:9: Variable 'x' shadows a field [HiddenField]\n\
            [WARN] /ci/src/B.src:4:1: Line is longer than 100 characters [LineLength]\n\
            [ERROR] /ci/src/C.src:22:3: Missing semicolon [Semi]\n";
        let got: Vec<String> = names(log).into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            got,
            [
                "/ci/src/A.src:15",
                "/ci/src/A.src:15",
                "/ci/src/B.src:4",
                "/ci/src/C.src:22"
            ]
        );
    }

    #[test]
    fn a_column_may_be_a_range() {
        let log = "src/Grades.hs:3:5-9: error: Variable not in scope: totl\n\
            src/Grades.hs:7:1-12: warning: [-Wmissing-signatures] Top-level binding\n";
        assert_eq!(
            names(log),
            [
                ("src/Grades.hs:3".to_owned(), None),
                ("src/Grades.hs:7".to_owned(), None)
            ]
        );
    }

    #[test]
    fn a_marked_test_header_over_its_place_is_no_finding() {
        // A test runner's `✖ name` over a bare place and the message under it is a report.
        let log = "✖ adds two numbers\ntest/math.test.js:12\n  expected 5 to equal 4\n";
        assert_eq!(names(log), []);
    }

    #[test]
    fn a_coded_message_over_its_place_alone_is_one_finding() {
        let log = "E3012 'ninety' is not of type 'integer'\nstack.yaml:17:7\n\nW2001 Parameter P not used.\nstack.yaml:5:3\n";
        assert_eq!(
            names(log),
            [
                ("stack.yaml:17".to_owned(), Some("E3012".to_owned())),
                ("stack.yaml:5".to_owned(), Some("W2001".to_owned()))
            ]
        );
    }

    #[test]
    fn a_qualified_rule_over_its_place_and_what_it_is_in() {
        let log = "name[casing]: All names should start with an uppercase letter.\nsite.yml:5:13 Task/Handler: install nginx\n\njinja[spacing]: Jinja2 spacing could be improved (warning)\nsite.yml:18:13 Jinja2 template\n\nno-changed-when: Commands should not change things if nothing needs doing.\nroles/a/tasks/main.yml:22 Task/Handler: Fetch\n";
        assert_eq!(
            names(log),
            [
                ("site.yml:5".to_owned(), Some("name[casing]".to_owned())),
                ("site.yml:18".to_owned(), Some("jinja[spacing]".to_owned())),
                (
                    "roles/a/tasks/main.yml:22".to_owned(),
                    Some("no-changed-when".to_owned())
                )
            ]
        );
        // A place followed by a finding of its own is that finding, not the place of the
        // coded line above it.
        let log = "no-changed-when: Commands should not change things.\nsrc/a.c:3:1: error: expected ';'\n";
        assert!(
            !names(log).contains(&("src/a.c:3".to_owned(), Some("no-changed-when".to_owned())))
        );
    }

    #[test]
    fn a_severity_and_its_place_in_one_bracket() {
        let log = "thrift --gen py a.thrift\n[ERROR:/p/a.thrift:5] (last token was 'required')\nsyntax error\n[FAILURE:/p/a.thrift:5] Parser error during include pass.\nmake: *** [Makefile:5: a.gen] Error 1\n[WARNING:/p/b.thrift:3] The \"byte\" type is an alias.\n[FAILURE:/p/c.thrift:12] Couldn't find a named value\n";
        assert_eq!(
            messages(log),
            [
                ("/p/a.thrift:5".to_owned(), "syntax error".to_owned()),
                (
                    "/p/b.thrift:3".to_owned(),
                    "The \"byte\" type is an alias.".to_owned()
                ),
                (
                    "/p/c.thrift:12".to_owned(),
                    "Couldn't find a named value".to_owned()
                )
            ]
        );
    }

    #[test]
    fn a_place_alone_over_a_code_frame_and_its_message_under_it() {
        let log = "Compiled 4 modules\n\n  Warning number 26\n  /p/src/Tags.res:2:7-13\n\n  1 │ let f = (tag) => {\n  2 │   let t = 1\n\n  unused variable t.\n\nFix this by:\n- Deleting it.\n\n\n  We've found a bug for you!\n  /p/src/Note.res:3:29-41\n\n  3 │ let make = (a, b) => {a, b}\n  5 │ let s = String.slice(n.body, ~star\n    │ t=0)\n\n  Some required record fields are missing: pinned.\n\n  We've found a bug for you!\n  /p/src/Price.res:1:39-3:4\n\n  1 │ let w = c * 1.2\n\n  This has type: float\n  But it's expected to have type: int\n\n\nIncremental build failed.\n";
        assert_eq!(
            messages(log),
            [
                (
                    "/p/src/Tags.res:2".to_owned(),
                    "unused variable t.".to_owned()
                ),
                (
                    "/p/src/Note.res:3".to_owned(),
                    "Some required record fields are missing: pinned.".to_owned()
                ),
                (
                    "/p/src/Price.res:1".to_owned(),
                    "This has type: float".to_owned()
                )
            ]
        );
        let found = read(log);
        assert_eq!(found[0].severity, super::Severity::Warning);
        assert_eq!(found[1].severity, super::Severity::Error);
        // The report is the banner, the place, the frame and the message's lines.
        assert!(
            found[2]
                .found
                .lines
                .iter()
                .any(|l| l.contains("expected to have type"))
        );
    }

    #[test]
    fn a_label_over_the_label_that_says_the_message() {
        let log = "Warning: /p/src/family.pl:7:\nWarning:    Singleton variables: [P,Q]\nERROR: /p/src/family.pl:10:45: Syntax error: Operator expected\nWarning: /p/src/lists.pl:2:\nWarning:    Singleton variables: [H]\n";
        assert_eq!(
            messages(log),
            [
                (
                    "/p/src/family.pl:7".to_owned(),
                    "Singleton variables: [P,Q]".to_owned()
                ),
                (
                    "/p/src/family.pl:10".to_owned(),
                    "Syntax error: Operator expected".to_owned()
                ),
                (
                    "/p/src/lists.pl:2".to_owned(),
                    "Singleton variables: [H]".to_owned()
                )
            ]
        );
    }

    #[test]
    fn a_file_named_at_the_end_over_a_frame_whose_marker_gives_the_line() {
        let log = "requireSpaceBeforeBlockStatements: One (or more) spaces required before opening brace at src/panel.js :\n     2 |\n     3 |function Panel(items){\n-----------------------------^\n     4 |  this.items = items || [];\n\n\
                   requireSemicolons: Missing semicolon after statement at src/panel.js :\n     8 |    this.items.push(w);\n     9 |    return this\n---------------------^\n    10 |};\n\n\n2 code style errors found.\n";
        assert_eq!(
            messages(log),
            [
                (
                    "src/panel.js:3".to_owned(),
                    "One (or more) spaces required before opening brace".to_owned()
                ),
                (
                    "src/panel.js:9".to_owned(),
                    "Missing semicolon after statement".to_owned()
                )
            ]
        );
    }

    #[test]
    fn warnings_count_only_without_errors() {
        let log = "src/a.c:3:1: warning: unused variable 'w' [-Wunused-variable]\n";
        assert_eq!(
            names(log),
            [("src/a.c:3".to_owned(), Some("-Wunused-variable".to_owned()))]
        );
    }
}

#[cfg(test)]
mod worded_tests {
    /// Each diagnostic's name and code (`-` without one).
    fn placed(text: &str) -> Vec<String> {
        read_all(text)
            .into_iter()
            .map(|(n, c, _)| format!("{n} {}", c.as_deref().unwrap_or("-")))
            .collect()
    }

    fn diagnostics(text: &str) -> Vec<super::Diagnostic> {
        let l: Vec<String> = text.lines().map(str::to_owned).collect();
        super::read_all(
            &l,
            &vec![false; l.len()],
            &stanley_core::Pace::new(&stanley_core::Cancel::new()),
        )
        .unwrap()
    }

    fn read_all(text: &str) -> Vec<(String, Option<String>, String)> {
        diagnostics(text)
            .into_iter()
            .map(|d| {
                (
                    d.found.name.unwrap_or_default(),
                    d.code,
                    d.found.message.unwrap_or_default(),
                )
            })
            .collect()
    }

    #[test]
    fn a_bare_finding_with_a_column_and_a_place_at_the_end_are_diagnostics() {
        let log = "./calc.go:5:2: declared and not used: total\n./calc.go:9:14: fmt.Sprintf format %d has arg s of wrong type string\na.py:3:1: E: Undefined variable 'x'\nPHP Parse error:  syntax error, unexpected token \"}\" in src/a.php on line 12\n";
        let got = read_all(log);
        let names: Vec<&str> = got.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["./calc.go:5", "./calc.go:9", "a.py:3", "src/a.php:12"]
        );
        // A test's own lines: no column, or indented.
        let log = "tests/test_a.py:12: AssertionError\n    calc_test.go:12:3: got 1 want 2\n";
        assert!(read_all(log).is_empty());
    }

    #[test]
    fn a_place_heading_a_coded_finding_and_a_sentence_after_a_bare_place() {
        let log = "src/a.py:1 in public module `a`:\n        D100: Missing docstring in public module\nsrc/a.py:9 in public function `f`:\n        D103: Missing docstring in public function\nsrc/b.py:3: unused variable 'total' (60% confidence)\n";
        assert_eq!(
            placed(log),
            ["src/a.py:1 D100", "src/a.py:9 D103", "src/b.py:3 -"]
        );
        let log = "tests/test_a.py:12: in test_x\ntests/test_a.py:14: AssertionError\n";
        assert!(read_all(log).is_empty());
    }

    #[test]
    fn a_row_of_a_line_a_message_and_a_rule_under_its_file_needs_no_severity() {
        let log = "/src/features/login.feature\n  3     Wrong indentation for Background    indentation\n  9     Step should use And instead of When     use-and\n";
        assert_eq!(
            placed(log),
            [
                "/src/features/login.feature:3 indentation",
                "/src/features/login.feature:9 use-and"
            ]
        );
    }

    #[test]
    fn line_records_and_whole_file_findings_in_the_file_the_log_works_on() {
        let log = "# Linting Containerfile\n\n== errors ==\n\nLine 3: -> RUN make\nERROR: make must be pinned.\nSee -> https://example.org/pin\n\nERROR: Required label 'owner' is missing.\nSee -> https://example.org/labels\n\n== notes ==\n\nLine 7: -> USER root\nINFO: running as root is discouraged.\n";
        let got = diagnostics(log);
        let said: Vec<(&str, &str)> = got
            .iter()
            .map(|d| (d.place.as_str(), d.found.message.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(
            said,
            [
                ("Containerfile:3", "make must be pinned."),
                ("Containerfile", "Required label 'owner' is missing."),
                ("Containerfile:7", "running as root is discouraged."),
            ]
        );
        assert_eq!(got[2].severity, super::Severity::Warning);
        // Without line records a severity's line is no finding about the file.
        assert!(diagnostics("# Linting Containerfile\n\nERROR: the daemon is down\n").is_empty());
    }

    #[test]
    fn a_row_placed_only_by_marks_is_about_its_whole_file() {
        let log = "File: site/a.html\nUsing preset: default\n  -:-   warning  Rule \"x\" is deprecated.  \n  4:2   error    Tag is not closed  tag-close\n  -:-   error    The file is empty  no-empty\n";
        let got = read_all(log);
        let names: Vec<&str> = got.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(names, ["site/a.html", "site/a.html:4", "site/a.html"]);
        assert!(got[2].2.starts_with("The file is empty"));
        // Marks that are a list's bullet or a rule are no place.
        assert!(read_all("File: a.html\n  - one item here\n  --- \n").is_empty());
    }

    #[test]
    fn the_file_field_of_a_header_names_its_rows_not_the_fields_after_it() {
        let log = "File: site/a.html\nConfig file: /p/.linthtmlrc.json\n 5:3  warning  The alt attribute must be set  img-req-alt\n 6:3  error    Links should define rel        link-req-noopener\n";
        let names: Vec<String> = read_all(log).into_iter().map(|(n, _, _)| n).collect();
        assert_eq!(names, ["site/a.html:5", "site/a.html:6"]);
    }

    #[test]
    fn an_assertions_failed_comparison_at_its_place_says_what_is_wrong() {
        let log = "\tclamp:\ncalc.c:14 (-1 != 0)\ncalc.c:15 (4 != 5)\n\t -- pass: 1 fail: 2\n";
        let got = read_all(log);
        let said: Vec<(&str, &str)> = got
            .iter()
            .map(|(n, _, m)| (n.as_str(), m.as_str()))
            .collect();
        assert_eq!(
            said,
            [("calc.c:14", "(-1 != 0)"), ("calc.c:15", "(4 != 5)")]
        );
        // A stack printed flush left still is none: a frame names a function after its place.
        assert!(read_all("calc.c:14 main\ncalc.c:40 run\n").is_empty());
    }

    #[test]
    fn places_in_words_and_marked_findings_are_diagnostics() {
        let log = "\nIn deploy.sh line 3:\necho $foo $bar\n     ^--^ SC2086 (info): Double quote to prevent globbing.\n          ^--^ SC2154 (warning): bar is referenced but not assigned.\n\nDid you mean:\necho \"$foo\" $bar\n\nIn deploy.sh line 9:\ncd $dir\n^-----^ SC2164 (warning): Use 'cd ... || exit' in case cd fails.\n\nFor more information:\n  https://www.shellcheck.net/wiki/SC2086 -- Double quote\n";
        assert_eq!(
            placed(log),
            [
                "deploy.sh:3 SC2086",
                "deploy.sh:3 SC2154",
                "deploy.sh:9 SC2164"
            ]
        );
        let log = "app.js: line 3, col 14, Missing semicolon.\napp.js: line 7, col 1, 'x' is not defined.\n\n2 errors\n";
        let got = read_all(log);
        assert_eq!(got[0].0, "app.js:3");
        assert_eq!(got[1].2, "'x' is not defined.");
    }

    #[test]
    fn a_rule_or_severity_right_after_the_place_and_rows_under_a_file_header() {
        let log = "README.md:3 error MD001/heading-increment Heading levels should only increment by one level\nDockerfile:4 DL3008 warning: Pin versions in apt get install\n";
        let got = read_all(log);
        let codes: Vec<(&str, Option<&str>)> = got
            .iter()
            .map(|(n, c, _)| (n.as_str(), c.as_deref()))
            .collect();
        assert_eq!(
            codes,
            [
                ("README.md:3", Some("MD001/heading-increment")),
                ("Dockerfile:4", Some("DL3008"))
            ],
            "the warning is a finding beside the error"
        );
        let log = "Checking src/a.lua                                3 warnings\n\n    src/a.lua:1:7: unused variable 'x'\n    src/a.lua:4:1: setting non-standard global variable 'y'\n\nChecking src/b.lua                                OK\n\nTotal: 2 warnings / 0 errors in 2 files\n";
        let got = read_all(log);
        let names: Vec<&str> = got.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(names, ["src/a.lua:1", "src/a.lua:4"]);
        // A test's own indented output under a line that names another file is no diagnostic.
        let log = "--- FAIL: TestX (0.00s)\n    calc_test.go:12: got 1\n";
        assert!(read_all(log).is_empty());
    }

    #[test]
    fn miette_drawn_in_ascii_and_wide_rows_unindented_under_their_file() {
        // miette's report drawn in ASCII: `x` an error, `!` a warning, the frame `,-[place]`.
        let log = "\n  x eslint(no-debugger): `debugger` statement is not allowed\n   ,-[src/a.js:3:3]\n 3 |   debugger;\n   :   ^^^^^^^^^\n   `----\n  help: Remove it\n\n  ! eslint(use-isnan): NaN never equals\n   ,-[src/a.js:5:16]\n 5 |   return x === NaN;\n   `----\n";
        let names: Vec<String> = read_all(log).into_iter().map(|(n, _, _)| n).collect();
        assert_eq!(names, ["src/a.js:3", "src/a.js:5"]);
        // Rows too wide to indent, under their file, each with its cause indented under it.
        let log = "docs/a.md\n8:6-8:21     error   Unexpected reference  no-undefined-references   remark-lint\n11:2         warning Unexpected value `3`  ordered-list-marker-value remark-lint\n  [cause]:\n    8:1-8:14 info    Style assumed here  ordered-list-marker-value remark-lint\n\ndocs/b.md\n9:1-9:14     error   Unexpected definition  no-duplicate-definitions  remark-lint\n";
        let names: Vec<String> = read_all(log).into_iter().map(|(n, _, _)| n).collect();
        assert_eq!(names, ["docs/a.md:8", "docs/a.md:11", "docs/b.md:9"]);
        // A line and column first with no severity word after them is no row.
        assert!(read_all("docs/a.md\n3:4 then it went on\n").is_empty());
    }

    #[test]
    fn a_phrase_ending_at_a_qualified_name_names_the_rows_under_it() {
        // CxxTest's error printer: `In Suite::test:` over the test's placed rows.
        let log = "Running cxxtest tests (3 tests)\nIn GearTest::testTeeth:\nGearTest.h:4: Error: Expected (12 == 14), found (12 != 14)\nIn GearTest::testFail:\nGearTest.h:5: Error: Test failed: gear slipped\n.\nFailed 2 and Skipped 0 of 3 tests\n";
        let names: Vec<String> = read_all(log).into_iter().map(|(n, _, _)| n).collect();
        assert_eq!(names, ["GearTest::testTeeth", "GearTest::testFail"]);
        // A file, or a phrase of many words, is no such heading.
        for line in [
            "In file included from a.h:",
            "In member function of A::run:",
        ] {
            assert_eq!(crate::line::heading_name(line), None, "{line}");
        }
    }

    #[test]
    fn a_labelled_file_heads_the_rows_under_it() {
        let log = "File: site/index.html\n  3:7  error  Attribute value must be quoted  attr-quotes\n  9:1  warning  Tag is not closed  tag-pair\n\nFile: site/about.html\n  2:5  error  Duplicate id  id-unique\n";
        let got = read_all(log);
        let names: Vec<&str> = got.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "site/index.html:3",
                "site/index.html:9",
                "site/about.html:2"
            ]
        );
        // A label over a line that is no row is no file's header.
        let log = "Note: see docs/setup.md\nthen run it again\n";
        assert!(read_all(log).is_empty());
    }

    /// Issue 46, a C++ test framework's failures printed as diagnostics (real Boost.Test and
    /// doctest output, `tests/fixtures/runners/boost-*`, `doctest-*`): a place in parentheses
    /// without a column counts with a severity word, what the finding says it is in names it,
    /// a tool's "no place" keeps the name, a message broken after a space goes on, and a
    /// heading above a finding in its section names it, with its indented parts.
    #[test]
    fn test_frameworks_that_print_failures_as_diagnostics_are_named_by_their_test() {
        let boost = "Running 5 test cases...\ncalc_test.cpp(10): Entering test case \"adds_small_numbers\"\ncalc_test.cpp(11): error: in \"arithmetic/adds_large_numbers\": check add(200, 300) == 500 has failed [501 != 500]\nunknown location(0): fatal error: in \"parses_a_rect\": std::invalid_argument: bad rect: 3by4\nshapes_test.cpp(19): last checkpoint: \"parses_a_rect\" test entry\nshapes_test.cpp(25): error: in \"lists/keeps_every_shape\": check { a } == { b } has failed. \nMismatch at position 2: 5 != 6\n\n*** 3 failures are detected in the test module \"calc\"\n";
        let got = read_all(boost);
        let names: Vec<&str> = got.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "arithmetic/adds_large_numbers",
                "parses_a_rect",
                "lists/keeps_every_shape"
            ]
        );
        assert!(
            got[2].2.ends_with("Mismatch at position 2: 5 != 6"),
            "{got:?}"
        );
        // A call quoted in a message is no place.
        assert!(read_all("check(3) failed: expected 4\n").is_empty());
        let doctest = "===============================================================================\ncalc_test.cpp:17:\nTEST SUITE: shapes\nTEST CASE:  corners\n  triangle\n\ncalc_test.cpp:18: ERROR: CHECK( 3 == 4 ) is NOT correct!\n  values: CHECK( 3 == 4 )\n\n===============================================================================\ncalc_test.cpp:21:\nTEST CASE:  sides\n\ncalc_test.cpp:21: ERROR: CHECK( v.size() == 4 ) is NOT correct!\n";
        let found = diagnostics(doctest);
        let named: Vec<(&str, usize)> = found
            .iter()
            .map(|d| (d.found.name.as_deref().unwrap_or(""), d.found.start))
            .collect();
        // Each report starts after its section's separator, its heading included.
        assert_eq!(named, [("corners/triangle", 1), ("sides", 10)]);
    }

    /// An error's report holds what explains it (clang-tidy's `note:` path, rustc's arrow,
    /// numbered source lines, `= note:` lines and a flush `help:` with its suggestion), so none
    /// of those is a finding of its own (real output in `tests/fixtures/runners/clippy-*`,
    /// `clang-tidy-*`).
    #[test]
    fn what_explains_an_error_stays_with_it() {
        let tidy = "ring.cpp:11:44: error: The left expression is garbage [core.uninitialized.Assign]\n  total += v[i];\n        ^\nring.cpp:10:3: note: 'total' declared without an initial value\n  int total;\n  ^~~~~~~~~\nring.cpp:11:3: note: Loop condition is true.  Entering loop body\nring.cpp:12:3: error: Undefined value returned to caller [core.uninitialized.UndefReturn]\n  return total;\n";
        let got = read_all(tidy);
        assert_eq!(got.len(), 2, "{got:?}");
        let found = diagnostics(tidy);
        assert_eq!(found[0].found.lines.len(), 7);
        let clippy = "error: the loop variable `i` is only used to index `v`\n --> src/main.rs:4:14\n  |\n4 |     for i in 0..v.len() {\n  |              ^^^^^^^^^^\n  |\n  = note: `-D clippy::needless-range-loop` implied by `-D warnings`\nhelp: consider using an iterator\n  |\n4 -     for i in 0..v.len() {\n4 +     for <item> in &v {\n  |\n\nerror: could not compile `clip` (bin \"clip\") due to 1 previous error\n";
        let found = diagnostics(clippy);
        assert_eq!(found[0].found.name.as_deref(), Some("src/main.rs:4"));
        assert_eq!(found[0].found.lines.len(), 12, "{:?}", found[0].found.lines);
    }

    /// Places written as other tools write them: a column after a space (`a.fbs:7: 21:`,
    /// flatc's, under a severity alone on the line above), a span then the severity after a
    /// space (`a.sml:11.1-28.4 Error:`, SML/NJ's), a severity with its code in parentheses
    /// (`error(56): a.g4:4:14:`, ANTLR's).
    #[test]
    fn a_column_after_a_space_a_span_before_the_severity_and_a_coded_severity() {
        let got = read_all(
            "\nerror:\n  /p/schema/alert.fbs:7: 21: error: default value of `0` is not part of enum\n\n\nerror:\n  /p/schema/config.fbs:6: 1: error: expecting: ; instead got: }\n",
        );
        let names: Vec<&str> = got.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(names, ["/p/schema/alert.fbs:7", "/p/schema/config.fbs:6"]);
        let got = read_all(
            "[opening stats.sml]\nstats.sml:9.5-9.58 Error: operator and operand don't agree [tycon mismatch]\n  operator domain: string * string\nstats.sml:18.15-18.18 Error: unbound variable or constructor: sum\n",
        );
        let names: Vec<&str> = got.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(names, ["stats.sml:9", "stats.sml:18"]);
        let got = read_all(
            "error(177): grammar/Config.g4:12:34: COMMENTS is not a recognized channel name\nerror(56): grammar/Config.g4:4:14: reference to undefined rule: name\nerror(75): grammar/Expr.g4:5:7: label value type mismatch\n",
        );
        let names: Vec<&str> = got.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "grammar/Config.g4:12",
                "grammar/Config.g4:4",
                "grammar/Expr.g4:5"
            ]
        );
    }

    /// Places in words, wherever the tool puts them: last (`… at a.pl line 6`, perl's), before the
    /// message with a one-letter severity (`byacc: e - line 6 of "q.y", …`), a line in brackets
    /// over the message (`src/a.asm [6]:` … `error: …`, fasm's), an echo of the source after its
    /// file and line over a severity and a marker (iasl's), a line alone in the file the log said
    /// it reads (`Reading from file a.jj . . .`, then `Error: Line 36, Column 12: …`).
    #[test]
    fn places_in_words_brackets_echoes_and_announced_files() {
        let names =
            |log: &str| -> Vec<String> { read_all(log).into_iter().map(|(n, _, _)| n).collect() };
        assert_eq!(
            names(
                "Implicit use of $_ in foreach at bin/stock.pl line 6\nUse of $_ at bin/stock.pl line 7\nbin/stock.pl syntax OK\n"
            ),
            ["bin/stock.pl:6", "bin/stock.pl:7"]
        );
        assert_eq!(
            names(
                "byacc: w - line 3 of \"sum.y\", $5 references beyond the end of the current rule\nbyacc: e - line 2 of \"prod.y\", syntax error\n%tokn STAR\n^\n"
            ),
            ["sum.y:3", "prod.y:2"]
        );
        assert_eq!(
            names(
                "flat assembler  version 1.73.30  (16384 kilobytes memory)\nsrc/entry.asm [6]:\n        mov     rdi, stack_top\nprocessed: mov rdi,stack_top\nerror: undefined symbol 'stack_top'.\n"
            ),
            ["src/entry.asm:6"]
        );
        let got = read_all(
            "fan.asl       8:             Name (_HID, 0x01)\nError    6074 -                     ^ Name already exists in scope (\\_SB.FAN0._HID)\n\n    Original name creation/declaration below: (\\_SB.FAN0._HID)\n\nspeed.asl      6:         Return (Arg0 +)\nError    6126 -           syntax error ^ \n",
        );
        assert_eq!(
            got.iter()
                .map(|(n, c, m)| (n.as_str(), c.as_deref(), m.as_str()))
                .collect::<Vec<_>>(),
            [
                (
                    "fan.asl:8",
                    Some("6074"),
                    "Name already exists in scope (\\_SB.FAN0._HID)"
                ),
                ("speed.asl:6", Some("6126"), "syntax error"),
            ]
        );
        assert_eq!(
            names(
                "Reading from file Json.jj . . .\nError: Line 36, Column 12: Non-terminal Missing has not been defined.\nWarning: Choice conflict involving two expansions at\n         line 25, column 3 and line 25, column 18 respectively.\nDetected 1 errors and 1 warnings.\n"
            ),
            ["Json.jj:36", "Json.jj:25"]
        );
    }

    /// The message first and its place in words under it (`Error: …` over `  on line 6:10 of
    /// a.scss`, LibSass's); a header that only says where over its message (`compilation error:
    /// file a.xsl line 6 element value-of`, xsltproc's); the word `line` before a place's number
    /// (`src/a.a65:line 9: c00e:Label 'done' not defined`, xa's).
    #[test]
    fn a_place_under_its_message_a_header_that_says_only_where_and_a_worded_line() {
        let got = read_all(
            "Error: Incompatible units: 'px' and '%'.\n        on line 6:10 of scss/alerts.scss\n>>   width: 100% - 20px;\n\n   ---------^\nWARNING: tint amount 120 is above 100%\n         on line 5:49 of scss/buttons.scss, in function `tint`\n",
        );
        assert_eq!(
            got.iter()
                .map(|(n, _, m)| (n.as_str(), m.as_str()))
                .collect::<Vec<_>>(),
            [
                ("scss/alerts.scss:6", "Incompatible units: 'px' and '%'."),
                ("scss/buttons.scss:5", "tint amount 120 is above 100%"),
            ]
        );
        let got = read_all(
            "compilation error: file xsl/prices.xsl line 6 element value-of\nxsl:value-of : could not compile select expression 'x'\nruntime error: file xsl/report.xsl line 9 element value-of\nVariable 'vat' has not been declared.\n",
        );
        assert_eq!(
            got.iter()
                .map(|(n, _, m)| (n.as_str(), m.as_str()))
                .collect::<Vec<_>>(),
            [
                (
                    "xsl/prices.xsl:6",
                    "xsl:value-of : could not compile select expression 'x'"
                ),
                ("xsl/report.xsl:9", "Variable 'vat' has not been declared."),
            ]
        );
        let got = read_all(
            "        lda #$1ff\nsrc/border.a65:line 7: c00a:Overflow error\nsrc/border.a65:line 9: c00e:Label 'done' not defined\nBreak after 2 errors\n",
        );
        let names: Vec<&str> = got.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(names, ["src/border.a65:7", "src/border.a65:9"]);
    }
}
