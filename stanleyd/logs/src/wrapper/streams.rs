//! Per-line stream prefixes taken off, whatever their text (issue 46): a monorepo task runner
//! (`packages/api test: `, `api:test: `), a CI step (`Step #1 - "test": `), a compose service
//! (`web_1  | `) puts a label before every line of each stream it runs. A label is recognised
//! by structure, not by spelling: a short leading segment ending in `: ` or ` | `, whose shape
//! (digits masked) starts a run of lines, and whose lines carry the inner output's own layout
//! (blank or indented remainders, which a message such as `Error: x` never has). The label
//! becomes the line's step; streams that interleave (parallel tasks) are put back one after the
//! other, with each line remembering where it was in the input.

use std::collections::HashMap;

use crate::wrapper::ci::{Unwrapped, Wrapper};

/// Longest label, in bytes.
pub(crate) const MAX_LABEL: usize = 80;
/// Fewest lines a label's shape must start.
pub(crate) const MIN_LINES: usize = 3;

/// The label at the start of `line` and the byte where the stream's own text begins: a
/// segment of at most four spaces and [`MAX_LABEL`] bytes that does not start with whitespace,
/// ended by `: `, a final `:`, ` | `, ` > ` or a tab, or a leading `[…] ` or `(…) ` whatever it
/// holds.
pub(crate) fn label(line: &str) -> Option<(&str, usize)> {
    // (Marks alone name no stream: a comment's table, `# | Ln|Got |`, is the text's own.)
    any_label(line).filter(|(name, _)| name.chars().any(char::is_alphanumeric))
}

/// The bars that close a label, each with a space on either side.
const BARS: [&str; 4] = [" | ", " │ ", " ┃ ", " ¦ "];

fn any_label(line: &str) -> Option<(&str, usize)> {
    // A build tool's task label may be right-aligned (Ant's `    [junit] text`, moon's
    // ` till:test | text` beside `ovens:test | text`).
    let pad = line.len() - line.trim_start_matches(' ').len();
    // `  148e2d7c ams [info]text`, `web-1 [INFO] text`: a few words closed by a logger's
    // level in brackets, whatever they hold; the level may touch the text.
    if let Some(end) = level_closed(line) {
        // (A level in capitals is padded to its column, `INFO  ` beside `ERROR `: the padding
        // goes with it.)
        let spaces = line[end..].len() - line[end..].trim_start_matches(' ').len();
        let shouted = !line[..end].ends_with(']');
        let text = end + if shouted { spaces } else { spaces.min(1) };
        return Some((&line[pad..end], text));
    }
    if pad > 0 {
        let rest = &line[pad..];
        // (Or a dotted name and a colon, `    null.ci: text`, a provisioner's builder: one
        // word that joins parts with dots, which a field's key or a message's lead word does
        // not (`Failure/Error:` is RSpec's lead); a place, `a_test.go:12: …`, has its line
        // after another colon.)
        let joined = |name: &str| {
            !name.contains([' ', ':'])
                && name
                    .char_indices()
                    .any(|(i, c)| c == '.' && i > 0 && i + 1 < name.len())
                && name
                    .chars()
                    .all(|c| c.is_alphanumeric() || "._-".contains(c))
        };
        let (name, text) = label(rest).filter(|&(name, text)| {
            pad <= 12
                && (rest.starts_with('[')
                    || BARS.iter().any(|sep| rest[..text].ends_with(sep))
                    || rest[..text].ends_with(": ") && joined(name))
        })?;
        return Some((name, pad + text));
    }
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    if let Some(found) = figures_alone(line) {
        return Some(found);
    }
    let cut = (0..=line.len().min(MAX_LABEL))
        .rev()
        .find(|&b| line.is_char_boundary(b))
        .unwrap_or(0);
    let head = &line[..cut];
    let colon = quoted_label(head).or_else(|| head.find(": ").map(|p| (p, p + 2)));
    let colon_end =
        (line.len() <= MAX_LABEL && line.ends_with(':')).then(|| (line.len() - 1, line.len()));
    // (A bar drawn with a box character is a bar too: `@shop/cart    │ text`, a workspace
    // runner's column.)
    let bar = BARS
        .iter()
        .filter_map(|sep| head.find(sep).map(|p| (p, p + sep.len())))
        .min();
    // `unit-tests      > text`: a job's name padded to its column, then an arrow
    // (gitlab-ci-local's).
    let arrow = head.find(" > ").map(|p| (p, p + 3));
    // `[api] text`, `[unit : test] text`, `(api) text`: a bracketed label, whatever is inside.
    // `[WARN] testament: text`: a logger's level, then the tool's label; the level changes
    // from line to line, the label is the stream's.
    if let Some((_, after)) = logged_level(head)
        && let Some((name, text)) = label(&line[after..])
        && line[after..after + text].trim_end().ends_with(':')
    {
        return Some((&line[..after + name.len()], after + text));
    }
    let bracket = [('[', "] "), ('(', ") ")]
        .into_iter()
        .find_map(|(open, close)| {
            head.starts_with(open)
                .then(|| head.find(close))
                .flatten()
                .map(|p| (p + 1, p + 2))
        });
    if let Some(found) = bracket {
        let name = &line[..found.0];
        // A runner's own marks in brackets (`[FAIL]`, `[ OK ]`, `[----]`, `[====]`) are its
        // report's structure, not a stream's name.
        let inner = name[1..name.len() - 1].trim();
        let mark = inner.is_empty()
            || crate::line::rule_token(inner)
            || crate::line::failed_verdict(inner)
            || matches!(
                inner.to_ascii_lowercase().as_str(),
                "ok" | "pass" | "passed" | "skip" | "skipped" | "todo" | "info" | "run" | "done"
            );
        // (A bar after the bracket closes the label too: `[7345] | text`, a process manager's.)
        let text = if line[found.1..].starts_with("| ") {
            found.1 + 2
        } else {
            found.1
        };
        return (name.matches(' ').count() <= 4 && !mark).then_some((name, text));
    }
    // `stdout<TAB>2024-12-04T10:00:00Z<TAB>text`: tab-separated fields, a second field with
    // no spaces (a time, a number) taken with the first.
    let tab = head.find('\t').map(|p| {
        let next = &head[p + 1..];
        match next.find('\t') {
            Some(q)
                if q <= 40
                    && (!next[..q].contains(' ') || stamp(&next[..q]))
                    && next[..q].chars().any(|c| c.is_ascii_digit()) =>
            {
                (p + 1 + q, p + 2 + q)
            }
            // `18:59:48 web<TAB>| text`: a bar after the tab closes the label too.
            _ if next.starts_with("| ") => (p, p + 3),
            _ if next == "|" => (p, p + 2),
            _ => (p, p + 1),
        }
    });
    let (end, text) = [colon, colon_end, bar, arrow, tab]
        .into_iter()
        .flatten()
        .min()?;
    // A row of a table parts more cells with its bars (`port_013 | Error | 5 | Move …`): no
    // label, whatever its first cell holds.
    if let Some(sep) = BARS.iter().find(|sep| line[..text].ends_with(**sep))
        && line[text..].contains(sep)
    {
        return None;
    }
    let name = line[..end].trim_end();
    if name.is_empty()
        || name.matches(' ').count() > 4
        || place(name)
        || ruled(name)
        || severity(name)
        // A line number alone before its bar is a quoted source row (`12 |     code`), and so
        // is the row a code frame points at (`> 5 |   expect(x)`, Playwright's and Jest's),
        // and a diff's two numbers (`6  6 │ code`, a fix shown as a diff).
        || name.bytes().all(|b| b.is_ascii_digit() || b == b' ')
        || name
            .strip_prefix('>')
            .is_some_and(|n| n.trim().bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    Some((name, text))
}

/// A word, a colon, then a quoted command's name closed by its own colon (`Q: "...-gh/cwtest
/// lua5": text`): one label, the quote its part; where it ends and where the text starts.
fn quoted_label(head: &str) -> Option<(usize, usize)> {
    let (word, rest) = head.split_once(": \"")?;
    let close = rest.find("\": ")?;
    (!word.is_empty() && word.chars().all(char::is_alphanumeric))
        .then(|| (word.len() + 3 + close + 1, word.len() + 3 + close + 3))
}

/// Two or three figures alone before the text, one space after each (`0 1 src/a.c:6:23: error:
/// …`, a parallel executor's node and task): (the figures, where the text starts).
fn figures_alone(line: &str) -> Option<(&str, usize)> {
    let mut end = 0;
    let mut fields = 0;
    for word in line.split(' ').take(3) {
        if word.is_empty() || word.len() > 6 || !word.bytes().all(|b| b.is_ascii_digit()) {
            break;
        }
        fields += 1;
        end += word.len() + 1;
    }
    if fields < 2 {
        return None;
    }
    let name = &line[..end - 1];
    Some((name, end.min(line.len())))
}

/// Whether a field is a date and time (`05-Dec-2026 11:05:35`, Bamboo's): figures, month
/// letters and their separators, two words at most.
fn stamp(field: &str) -> bool {
    field.split(' ').count() <= 2
        && field.chars().filter(char::is_ascii_digit).count() >= 6
        && field
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || " :.-/,".contains(c))
}

/// Whether `name` opens with a rule (`==== Contents of test case`, `---- Result was`): a
/// report's own decoration, which a runner prints before its sections, not a stream's name.
fn ruled(name: &str) -> bool {
    name.split_whitespace()
        .next()
        .is_some_and(crate::line::rule_token)
}

/// Whether `name` is a diagnostic's severity (`error`, `warning`, `help`, `note`: rustc's
/// `help: remove this` under its error), which a compiler prints before its own lines, not a
/// stream's label.
fn severity(name: &str) -> bool {
    crate::diagnostics::severity_word(name).is_some()
        || matches!(name.to_ascii_lowercase().as_str(), "help" | "fatal error")
}

/// Whether `name` is a place in a file (`widget.cc:12`, `a.rs:3:7`, `calc.cpp(12)`): the
/// line's own, which a linter prints before every finding, not a stream's label.
fn place(name: &str) -> bool {
    crate::diagnostics::location(name)
        .or_else(|| crate::diagnostics::paren_location(name))
        .is_some_and(|(_, _, used)| used == name.len())
}

/// A logger's level in brackets opening `line` (`[INFO] `, `[WARN] `): the level and where the
/// text after it starts.
fn logged_level(line: &str) -> Option<(&str, usize)> {
    let close = line.strip_prefix('[')?.find("] ")?;
    let level = &line[1..close + 1];
    is_level(level).then_some((level, close + 3))
}

/// Where a label of at most three words before a logger's level in brackets ends (`
/// 148e2d7c ams [info]`), at most four spaces in: the byte after the bracket.
fn level_closed(line: &str) -> Option<usize> {
    let pad = line.len() - line.trim_start_matches(' ').len();
    if pad > 4 {
        return shouted_level(line);
    }
    let head = &line[pad..];
    let open = head.find(" [")?;
    let words = &head[..open];
    // (A mark alone before the level, `▲ [WARNING] message`, `✘ [ERROR] message`, is a
    // finding's severity: a stream's label names something.)
    if open == 0
        || open > MAX_LABEL
        || words.split(' ').count() > 3
        || words.contains(": ")
        || !words.chars().any(char::is_alphanumeric)
    {
        return None;
    }
    let close = head[open + 2..].find(']')?;
    let level = &head[open + 2..open + 2 + close];
    is_level(level).then_some(pad + open + 3 + close)
}

/// Where a label of at most three words right-aligned to a column and a logger's level in
/// capitals after it end (`            yarn ERROR  text`, `  storyboard INFO  text`): the byte
/// after the level. The level changes from line to line; the words are the stream's.
fn shouted_level(line: &str) -> Option<usize> {
    let pad = line.len() - line.trim_start_matches(' ').len();
    if pad > 32 {
        return None;
    }
    let head = &line[pad..];
    let mut at = 0;
    for (k, word) in head.split(' ').enumerate().take(4) {
        if k > 0
            && !word.is_empty()
            && word.chars().all(|c| c.is_ascii_uppercase())
            && is_level(word)
        {
            let words = &head[..at];
            let named = words.chars().any(char::is_alphanumeric) && !words.contains(':');
            return named.then_some(pad + at + word.len());
        }
        if word.is_empty() {
            return None;
        }
        at += word.len() + 1;
    }
    None
}

/// Whether a word is a logger's level.
fn is_level(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "info" | "warn" | "warning" | "debug" | "trace" | "notice" | "error" | "fatal"
            // (Four letters, as some loggers pad them: `[ERRO]`, `[DEBU]`.)
            | "erro" | "debu" | "trac" | "fata"
    )
}

/// A label with its logger's level masked (`[INFO] tool` and `[WARN] tool`, `ams [info]` and
/// `ams [error]`: one stream).
fn level_masked(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']') else {
            break;
        };
        out.push_str(&rest[..open]);
        let inner = &rest[open + 1..open + close];
        out.push_str(if is_level(inner) {
            "[level]"
        } else {
            &rest[open..=open + close]
        });
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    // (A level in capitals after the words, `yarn ERROR`, is masked alike.)
    out.split(' ')
        .map(|w| {
            if w.len() > 3 && w.chars().all(|c| c.is_ascii_uppercase()) && is_level(w) {
                "LEVEL"
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A label's shape: digits masked, so `#12 0.345` and `#3 1.2` are one shape; a logger's level
/// in it masked too.
fn shape(name: &str) -> String {
    crate::text::digits_masked(&level_masked(name))
}

/// A label's structure: every run of name characters (letters, digits, `_`, `-`, `@`, `.`)
/// as one `w`, so `Step #2 - "lint"` has the structure of `Step #1 - "test"`.
pub(crate) fn structure(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut word = false;
    for c in name.chars() {
        if c.is_alphanumeric() || "_-@.".contains(c) {
            if !word {
                out.push('w');
            }
            word = true;
        } else {
            out.push(c);
            word = false;
        }
    }
    out
}

/// Per shape: lines, lines whose remainder keeps the inner layout (blank or indented), and
/// which indentation depths the remainders have (a bit each, up to 31).
#[derive(Default)]
pub(crate) struct Tally {
    lines: usize,
    layout: usize,
    blank: usize,
    depths: u32,
    /// Lines whose label is padded to a column (`     [exec] text`): a build tool's task label.
    padded: usize,
    /// Lines whose label a logger's level closes (`148e2d7c ams [info]`).
    levelled: usize,
    /// Lines whose label opens with a bar (`| unit: text`): the wrapper's gutter.
    barred: usize,
}

/// The shapes that are wrappers: enough lines, and a tenth of them (at least two) with the
/// inner output's layout after the label.
pub(crate) fn wrappers(lines: &[String]) -> Vec<String> {
    let mut tally: HashMap<String, Tally> = HashMap::new();
    for line in lines {
        let Some((name, text)) = label(line) else {
            continue;
        };
        let t = tally.entry(shape(name)).or_default();
        t.lines += 1;
        // (A task's name has a letter: `[1] = 'one'`, a table's row, is no label.)
        if line.starts_with(' ') && name.chars().any(char::is_alphabetic) {
            t.padded += 1;
        }
        if level_closed(line).is_some() {
            t.levelled += 1;
        }
        // (A word after the bar, no severity: `│ Error: …` is a boxed report's own line.)
        let barred = ["| ", "│ ", "┃ "]
            .iter()
            .find_map(|bar| name.strip_prefix(bar));
        if barred.is_some_and(|word| {
            word.starts_with(char::is_alphabetic) && !word.contains(' ') && !severity(word)
        }) {
            t.barred += 1;
        }
        let rest = &line[text..];
        if rest.trim().is_empty() {
            t.layout += 1;
            t.blank += 1;
        } else {
            if rest.starts_with(char::is_whitespace) {
                t.layout += 1;
            }
            let depth = rest.len() - rest.trim_start().len();
            t.depths |= 1 << depth.min(31);
        }
    }
    // The inner output's layout varies (flush and indented lines, or blank ones); the same
    // padding after every label (`TEST CASE:  name`, a heading's alignment) is no layout. And
    // a stream carries output: a label never followed by any is a heading (`stack
    // traceback:`, `Failed tests:`). A bracketed label padded to a column on every line of its
    // stream is a build tool's task label (Ant's `     [exec] a.pl:9: (E/3) …`) whatever its
    // output's layout: the padding is the layout. So is a bar that opens the label on every
    // line of its stream (`| unit: text`, a task runner's gutter around a job's output).
    let columns = bar_column_shapes(lines);
    let mut found: Vec<String> = tally
        .into_iter()
        .filter(|(shape, _)| !columns.contains(shape.as_str()))
        .filter(|(_, t)| {
            let laid_out = t.layout >= 2
                && t.layout * 10 >= t.lines
                && (t.blank > 0 || t.depths.count_ones() >= 2);
            t.lines >= MIN_LINES
                && t.lines > t.blank
                && (laid_out || t.padded == t.lines || t.levelled == t.lines || t.barred == t.lines)
        })
        .map(|(s, _)| s)
        .chain(columns.iter().cloned())
        .collect();
    found.sort();
    found
}

/// The shapes of labels a process manager prints as a column (`api.1   | text`, `check.1 |
/// text`): two names or more, each on [`MIN_LINES`] lines or more, their bars at one column
/// with a name padded to it. The column is the layout, whatever the output's.
fn bar_column_shapes(lines: &[String]) -> std::collections::BTreeSet<String> {
    let mut columns: HashMap<usize, (HashMap<String, usize>, bool)> = HashMap::new();
    for line in lines {
        let Some((name, text)) = label(line) else {
            continue;
        };
        let Some(bar) = line[..text].strip_suffix(" | ") else {
            continue;
        };
        let padded = bar.len() > name.len() + line.find(name).unwrap_or(0);
        let (names, any_padded) = columns.entry(text).or_default();
        *names.entry(shape(name)).or_default() += 1;
        *any_padded |= padded;
    }
    let mut shapes = std::collections::BTreeSet::new();
    for (names, padded) in columns.into_values() {
        let streams: Vec<String> = names
            .into_iter()
            .filter(|&(_, n)| n >= MIN_LINES)
            .map(|(s, _)| s)
            .collect();
        if padded && streams.len() >= 2 {
            shapes.extend(streams);
        }
    }
    shapes
}

/// A logger's level in brackets before nearly every line, of two levels or more (`[INFO] 03)
/// Suite.Test…[PASS]` beside `[ERRO] 01) Suite.Test…[FAIL] a.c:13: …`): the logger's, no part
/// of the text, taken off. (One level alone, `[INFO]`, may be a runner's mark, D-185.)
fn levels_off(lines: &mut [String]) {
    let level = |l: &str| {
        let inner = l.strip_prefix('[')?.split_once("] ")?.0;
        is_level(inner).then(|| inner.to_ascii_lowercase())
    };
    let nonblank = lines.iter().filter(|l| !l.trim().is_empty()).count();
    let mut levels = std::collections::BTreeSet::new();
    let mut prefixed = 0;
    for l in lines.iter() {
        if let Some(v) = level(l) {
            prefixed += 1;
            levels.insert(v);
        }
    }
    if prefixed < MIN_LINES || prefixed * 10 < nonblank * 8 || levels.len() < 2 {
        return;
    }
    // (Where the level is a finding's severity, `[WARNING] src/A.java:12:5: …` as Maven's
    // plugins print, it stays: it says how bad the finding is.)
    if lines
        .iter()
        .any(|l| level(l).is_some() && crate::diagnostics::one_line(l).is_some())
    {
        return;
    }
    for l in lines.iter_mut() {
        if level(l).is_some()
            && let Some((_, text)) = l.split_once("] ")
        {
            *l = text.to_owned();
        }
    }
}

/// A task's tag before nearly every line (`unit:dates ok 1 …`, `unit:dates #   Results : …`,
/// a log transformer's): one word that joins parts with `:`, `/`, `@` or `#` and a space after
/// it, on nine lines in ten that have text and on [`MIN_LINES`] or more. The tag is the
/// wrapper's whatever follows it. Linear: one count per first word.
fn tagged(lines: &[String]) -> Option<String> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let mut with_text = 0;
    for line in lines {
        if line.trim().is_empty() {
            continue;
        }
        with_text += 1;
        if line.starts_with(char::is_whitespace) {
            continue;
        }
        if let Some((word, _)) = line.split_once(' ') {
            *counts.entry(word).or_default() += 1;
        }
    }
    let (word, n) = counts
        .into_iter()
        .max_by_key(|&(w, n)| (n, std::cmp::Reverse(w)))?;
    let joined = word
        .char_indices()
        .any(|(i, c)| ":/@#".contains(c) && i > 0 && i + 1 < word.len());
    let tag = joined
        && !word.contains("://")
        && !crate::line::bare_location(word)
        && crate::diagnostics::location(word).is_none()
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || ":/@#._-".contains(c));
    (tag && n >= MIN_LINES && n * 10 >= with_text * 9).then(|| word.to_owned())
}

/// Where the text after an elapsed time before a line starts (`   0.0025s   text`, a
/// wrapper's clock since the run began): a duration in seconds after at most six spaces, then
/// up to three spaces after it (more are the output's own indentation).
fn elapsed(line: &str) -> Option<usize> {
    let pad = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[pad..];
    let word = rest.split(' ').next()?;
    if pad > 6 || !crate::line::duration(word) || !word.ends_with('s') {
        return None;
    }
    let after = &rest[word.len()..];
    let spaces = after.len() - after.trim_start_matches(' ').len();
    // (A second time after it, `251.5ms   23.1μs # text`, makes columns of a profiler's
    // wrapper, which its own label reads.)
    let next = after.trim_start().split(' ').next().unwrap_or("");
    (!crate::line::duration(next) && (spaces >= 1 || after.is_empty()))
        .then_some(pad + word.len() + spaces.min(3))
}

/// An elapsed time before nine lines in ten that have text (and [`MIN_LINES`] or more): the
/// wrapper's clock, taken off every line that has it. Linear.
fn elapsed_off(lines: &mut [String]) {
    let with_text = lines.iter().filter(|l| !l.trim().is_empty()).count();
    let stamped = lines.iter().filter(|l| elapsed(l).is_some()).count();
    if stamped < MIN_LINES || stamped * 10 < with_text * 9 {
        return;
    }
    for line in lines.iter_mut() {
        if let Some(at) = elapsed(line) {
            *line = line[at..].to_owned();
        }
    }
}

/// Takes a [`tagged`] log's tag off its lines and makes it their step.
fn tags_off(log: &mut Unwrapped) {
    let Some(tag) = tagged(&log.lines) else {
        return;
    };
    let lead = format!("{tag} ");
    let k = log.step_names.len();
    log.step_names.push(tag);
    for (i, line) in log.lines.iter_mut().enumerate() {
        let Some(rest) = line.strip_prefix(&lead) else {
            continue;
        };
        *line = rest.to_owned();
        if log.steps[i].is_none() {
            log.steps[i] = Some(k);
        }
    }
    if log.wrapper.is_none() {
        log.wrapper = Some(Wrapper::Prefixed);
    }
}

/// Takes the stream labels off `log`'s lines (in place), makes each label the step of its
/// lines, and puts interleaved streams back one after another (`origin` then maps each line to
/// its input line). A log without such labels is left as it is.
pub(crate) fn separate(log: &mut Unwrapped) {
    levels_off(&mut log.lines);
    elapsed_off(&mut log.lines);
    tags_off(log);
    let shapes = wrappers(&log.lines);
    if shapes.is_empty() {
        return;
    }
    // Per line: the stream it belongs to (its label), if any.
    // A label of the structure of a wrapper's is one too, however few lines its stream has
    // (`Step #2 - "lint": ok`); a structure alone never makes a wrapper.
    let structures: std::collections::HashSet<String> =
        shapes.iter().map(|s| structure(s)).collect();
    let mut stream_of: Vec<Option<usize>> = vec![None; log.lines.len()];
    let mut streams: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, line) in log.lines.iter_mut().enumerate() {
        let Some((name, text)) = label(line) else {
            continue;
        };
        if !shapes.contains(&shape(name)) && !structures.contains(&structure(name)) {
            continue;
        }
        // (One stream whatever level its logger gave each line.)
        let k = *index.entry(level_masked(name)).or_insert_with(|| {
            // (Named without a level in capitals its logger put last: `yarn`.)
            let named = match name.rsplit_once(' ') {
                Some((words, level))
                    if level.chars().all(|c| c.is_ascii_uppercase()) && is_level(level) =>
                {
                    words.trim()
                }
                _ => name,
            };
            streams.push(named.to_owned());
            streams.len() - 1
        });
        stream_of[i] = Some(k);
        *line = line[text..].to_owned();
    }
    take_gutters(&mut log.lines, &stream_of, streams.len());
    if log.wrapper.is_none() {
        log.wrapper = Some(Wrapper::Prefixed);
    }
    // Each stream's label is its lines' step (a CI step already known stays).
    let first_step = log.step_names.len();
    log.step_names.extend(streams.iter().cloned());
    for (i, k) in stream_of.iter().enumerate() {
        if let Some(k) = k
            && log.steps[i].is_none()
        {
            log.steps[i] = Some(first_step + k);
        }
    }
    // Interleaved streams (a stream resumes after another's line) go back one after another,
    // each where it first appeared; lines without a label stay in the order they came.
    let mut last: Option<usize> = None;
    let mut seen = vec![false; streams.len()];
    let mut interleaved = false;
    for k in stream_of.iter().flatten() {
        if last != Some(*k) {
            interleaved |= seen[*k];
            seen[*k] = true;
            last = Some(*k);
        }
    }
    if !interleaved {
        return;
    }
    // The order: by stream of first appearance, then line; each run of unlabelled lines (the
    // task runner's own, such as its summary at the end) a stream of its own where it came.
    let mut group: Vec<usize> = Vec::with_capacity(stream_of.len());
    let mut runs = streams.len();
    for (i, s) in stream_of.iter().enumerate() {
        group.push(match s {
            Some(k) => *k,
            None => {
                if i == 0 || stream_of[i - 1].is_some() {
                    runs += 1;
                }
                runs - 1
            }
        });
    }
    let mut rank: Vec<usize> = vec![usize::MAX; runs];
    let mut next = 0;
    for &g in &group {
        if rank[g] == usize::MAX {
            rank[g] = next;
            next += 1;
        }
    }
    let mut order: Vec<usize> = (0..log.lines.len()).collect();
    order.sort_by_key(|&i| (rank[group[i]], i));
    let lines = std::mem::take(&mut log.lines);
    let steps = std::mem::take(&mut log.steps);
    let mut lines: Vec<Option<String>> = lines.into_iter().map(Some).collect();
    log.lines = order
        .iter()
        .map(|&i| lines[i].take().unwrap_or_default())
        .collect();
    log.steps = order.iter().map(|&i| steps[i]).collect();
    log.origin = order;
}

/// The bar a stream puts before each line of a step's own output, inside its label (act's
/// `[CI/build]   | make: *** …` beside its own `[CI/build]   ✅  Success - …`): a gutter of a
/// few spaces and `| ` that starts three lines of the stream in a row, one of them with text
/// right after it, comes off every line of that stream that starts with it. A code frame's
/// bars (`   |`, `12 |`) never start three lines in a row with the same gutter and text behind
/// it. Linear.
/// A task's tag between two box bars and the spaces after it (`│A│  text`, a workspace
/// runner's column for its task A): where the gutter ends, less the one space a cut takes
/// (as after `|`).
fn tagged_gutter(rest: &str) -> Option<usize> {
    let inner = rest.strip_prefix('│')?;
    let close = inner.find('│')?;
    let tag = &inner[..close];
    if tag.is_empty() || tag.chars().count() > 3 || !tag.chars().all(char::is_alphanumeric) {
        return None;
    }
    let end = '│'.len_utf8() * 2 + close;
    // (Its own padding is up to two spaces; more is the text's indentation.)
    let spaces = rest[end..].len() - rest[end..].trim_start_matches(' ').len();
    (spaces >= 1).then(|| end + spaces.min(2) - 1)
}

fn take_gutters(lines: &mut [String], stream_of: &[Option<usize>], streams: usize) {
    let gutter = |line: &str| -> Option<usize> {
        let pad = line.len() - line.trim_start_matches(' ').len();
        if pad <= 8
            && let Some(tagged) = tagged_gutter(&line[pad..])
        {
            return Some(pad + tagged);
        }
        (pad <= 8 && line[pad..].starts_with('|'))
            .then_some(pad + 1)
            .filter(|&end| line.len() == end || line[end..].starts_with(' '))
    };
    // Text right after the gutter's space, not more of a frame's drawing.
    let flush = |after: &str| {
        after.len() > 1 && !after[1..].starts_with([' ', '|', '^', '-', '_', '~', '='])
    };
    // Per stream: the gutter's length once three lines in a row carry it, and the run so far.
    let mut found: Vec<Option<usize>> = vec![None; streams];
    let mut run: Vec<(usize, usize, bool)> = vec![(0, 0, false); streams];
    for (line, k) in lines.iter().zip(stream_of) {
        let Some(k) = *k else { continue };
        let (width, count, text) = &mut run[k];
        match gutter(line) {
            Some(end) if end == *width && *count > 0 => {
                *count += 1;
                *text |= flush(&line[end..]);
            }
            Some(end) => (*width, *count, *text) = (end, 1, flush(&line[end..])),
            None => *count = 0,
        }
        if *count >= 3 && *text && found[k].is_none() {
            found[k] = Some(*width);
        }
    }
    for (line, k) in lines.iter_mut().zip(stream_of) {
        if let Some(end) = k.and_then(|k| found[k])
            && gutter(line) == Some(end)
        {
            let cut = (end + 1).min(line.len());
            *line = line[cut..].to_owned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unwrapped(text: &str) -> Unwrapped {
        let mut u = crate::wrapper::ci::unwrap(text);
        separate(&mut u);
        u
    }

    #[test]
    fn a_task_label_padded_to_a_column_is_a_stream_whatever_its_output() {
        let log = "lint:\n     [exec] src/app.pl:9: (E/3) Bareword used\n     [exec] src/app.pl:14: (W/2) Unused\n     [exec] src/util.pl:3: (E/3) Missing strict\n     [exec] Result: 1\n\nBUILD FAILED\n";
        let u = unwrapped(log);
        assert_eq!(u.lines[1], "src/app.pl:9: (E/3) Bareword used");
        assert_eq!(u.lines[4], "Result: 1");
        // A table's rows (`  [1] = 'one'`) are no task's; flush left, the same label with no
        // layout after it is a line's own words.
        let rows = "  [1] = 'one'\n  [2] = 'two'\n  [3] = 'three'\n";
        assert_eq!(unwrapped(rows).lines[0], "  [1] = 'one'");
        let flush = "[exec] src/app.pl:9: (E/3) Bareword used\n[exec] src/app.pl:14: (W/2) Unused\n[exec] src/util.pl:3: (E/3) Missing strict\n";
        assert_eq!(
            unwrapped(flush).lines[0],
            "[exec] src/app.pl:9: (E/3) Bareword used"
        );
    }

    #[test]
    fn a_padded_dotted_name_and_a_colon_is_a_stream() {
        let log = "==> box.test: running the suite\n    box.test: ok 1 - adds\n    box.test: not ok 2 - subtracts\n    box.test: # got 3, wanted 1\n    box.test: 1..2\n==> box.test: failed\n";
        let u = unwrapped(log);
        assert_eq!(u.lines[2], "not ok 2 - subtracts");
        assert_eq!(u.lines[3], "# got 3, wanted 1");
        // A lead word joined by a slash (RSpec's `Failure/Error:`) or a place (`a_test.go:12:`)
        // is the text's own.
        for line in [
            "     Failure/Error: expect(x).to eq(1)",
            "    calc_test.go:12: got 3",
            "    expected: 1",
        ] {
            assert_eq!(label(line), None, "{line}");
        }
    }

    #[test]
    fn a_level_in_capitals_after_a_right_aligned_name_and_a_tagged_gutter_come_off() {
        let log = "      runner INFO  │B│  $ run tests\n      runner INFO  │B│  not ok 1 - adds\n      runner ERROR │B│  # got 3\n      runner ERROR │B│  #   wanted 1\n      runner INFO  │B│  1..1\n        main INFO  done\n";
        let u = unwrapped(log);
        assert_eq!(u.lines[1], "not ok 1 - adds");
        // One stream whatever the level, its indentation kept past the gutter's own spaces.
        assert_eq!(u.lines[2], "# got 3");
        assert_eq!(u.lines[3], "#   wanted 1");
        assert_eq!(u.lines[4], "1..1");
        assert!(
            u.step_names.iter().any(|s| s == "runner"),
            "{:?}",
            u.step_names
        );
        // A level word inside a line's own words is no label's.
        assert_eq!(label("the ERROR count is 3"), None);
    }

    #[test]
    fn a_word_and_a_quoted_command_closed_by_a_colon_is_one_label() {
        let log = "R: \"run suite\": adds . OK\nR: \"run suite\": subtracts x FAILED\nR: \"run suite\":   expected: 1\nR: \"run suite\":        got: 3\n";
        let u = unwrapped(log);
        assert_eq!(u.lines[1], "subtracts x FAILED");
        assert_eq!(u.lines[2], "  expected: 1");
        assert_eq!(
            label("R: \"run suite\": adds"),
            Some(("R: \"run suite\"", 16))
        );
    }

    #[test]
    fn a_loggers_levels_come_off_unless_they_are_findings_severities() {
        let log = "[INFO] Running 2 tests\n[ERRO] 01) A.b.....[FAIL] a.c:3: why\n[INFO] 02) A.c.....[PASS]\n[INFO] Total: 2\n";
        assert_eq!(unwrapped(log).lines[1], "01) A.b.....[FAIL] a.c:3: why");
        let maven = "[INFO] Building shop\n[WARNING] src/A.java:12:5: unused import\n[ERROR] src/B.java:3:1: missing semicolon\n[INFO] BUILD FAILURE\n";
        assert_eq!(
            unwrapped(maven).lines[1],
            "[WARNING] src/A.java:12:5: unused import"
        );
    }

    #[test]
    fn a_heading_never_followed_by_output_is_no_stream() {
        let lines: Vec<String> = "1) T.a\na.lua:5: x\nstack traceback:\n\ta.lua:5: in function 'T.a'\n\n2) T.b\na.lua:6: y\nstack traceback:\n\ta.lua:6: in function 'T.b'\n\n3) T.c\na.lua:7: z\nstack traceback:\n\ta.lua:7: in function 'T.c'\n"
            .lines()
            .map(str::to_owned)
            .collect();
        assert!(wrappers(&lines).is_empty());
    }

    #[test]
    fn a_rule_opens_a_report_section_not_a_stream() {
        for line in [
            "==== Contents of test case:",
            "---- Result was:",
            "*** Errors:",
        ] {
            assert_eq!(label(line), None, "{line}");
        }
        assert_eq!(label("api:test: ok"), Some(("api:test", 10)));
    }

    /// act's step output behind `  | ` inside each job's label comes off with the label; the
    /// job's own lines and a code frame's bars inside the output stay.
    #[test]
    fn a_gutter_inside_a_stream_comes_off_but_a_code_frames_bars_stay() {
        let log = "[Build/compile] ⭐ Run Main Build library
            [Build/compile]   | cc -c src/ring.c -o build/ring.o
            [Build/compile]   | src/ring.c:11:5: error: invalid operands to binary *
            [Build/compile]   |    11 |     *out = r->items[r->head];
            [Build/compile]   |       |     ^
            [Build/compile]   | make: *** [Makefile:5: build/ring.o] Error 1
            [Build/compile]   ❌  Failure - Main Build library [48.3ms]
            [Build/compile] 🏁  Job failed";
        let u = unwrapped(log);
        assert_eq!(u.lines[1], "cc -c src/ring.c -o build/ring.o");
        assert_eq!(
            u.lines[2],
            "src/ring.c:11:5: error: invalid operands to binary *"
        );
        assert_eq!(u.lines[3], "   11 |     *out = r->items[r->head];");
        assert_eq!(u.lines[4], "      |     ^");
        assert_eq!(u.lines[6], "  ❌  Failure - Main Build library [48.3ms]");
        assert_eq!(u.step_of(2), Some("[Build/compile]"));
        // A code frame alone under a label keeps its bars.
        let framed = unwrapped(
            "web_1  | Compiling app v0.1.0\n\
             web_1  | error[E0308]: mismatched types\n\
             web_1  |  --> src/main.rs:4:17\n\
             web_1  |   |\n\
             web_1  | 4 |     let x: u8 = 1.5;\n\
             web_1  |   |                 ^^^ expected `u8`\n\
             web_1  | \n\
             web_1  | error: could not compile `app`",
        );
        assert_eq!(framed.lines[3], "  |");
    }

    #[test]
    fn labels_of_interleaved_streams_come_off_and_the_streams_are_put_back() {
        let log = "Scope: 2 of 3 workspace projects\n\
            packages/a test$ node --test\n\
            packages/a test: not ok 1 - adds\n\
            packages/b test: not ok 1 - splits\n\
            packages/a test:   ---\n\
            packages/b test:   ---\n\
            packages/a test:   error: 'a broke'\n\
            packages/b test:   error: 'b broke'\n\
            packages/a test: \n\
            packages/b test:\n\
            packages/a test: Failed";
        let u = unwrapped(log);
        assert_eq!(u.wrapper, Some(Wrapper::Prefixed));
        let a = u.lines.iter().position(|l| l == "not ok 1 - adds").unwrap();
        assert_eq!(u.lines[a + 1], "  ---");
        assert_eq!(u.lines[a + 2], "  error: 'a broke'");
        let b = u
            .lines
            .iter()
            .position(|l| l == "not ok 1 - splits")
            .unwrap();
        assert_eq!(u.lines[b + 2], "  error: 'b broke'");
        assert_eq!(u.step_of(a), Some("packages/a test"));
        assert_eq!(u.step_of(b), Some("packages/b test"));
        // Each line still knows its input line.
        assert_eq!(u.origin[a], 2);
        assert_eq!(u.origin[b], 3);
    }

    #[test]
    fn messages_and_diagnostics_that_start_with_a_word_and_a_colon_are_no_wrapper() {
        let log = "Error: cannot find module 'x'\n\
            Error: cannot find module 'y'\n\
            Error: cannot find module 'z'\n\
            src/a.c:10:5: error: use of undeclared identifier 'v'\n\
            src/a.c:11:5: error: use of undeclared identifier 'w'\n\
            src/a.c:12:5: error: use of undeclared identifier 'u'\n\
            INFO: done";
        let u = unwrapped(log);
        assert_eq!(u.wrapper, None);
        assert_eq!(u.lines[0], "Error: cannot find module 'x'");
        assert_eq!(
            u.lines[3],
            "src/a.c:10:5: error: use of undeclared identifier 'v'"
        );
        assert!(u.origin.is_empty());
    }

    /// The row a code frame points at is no label; a label padded to one width (moon's) and
    /// a date and time in a tab label's second field (Bamboo's) are a label's.
    #[test]
    fn the_row_a_code_frame_points_at_is_no_label() {
        for row in [
            "  > 5 |   expect(a).toBe(b);",
            "> 12 | x",
            "    >  7 |     total()",
        ] {
            assert_eq!(label(row), None, "{row}");
        }
        assert_eq!(label(" till:test | text"), Some(("till:test", 13)));
        // A date and time in the second tab field is the label's (Bamboo's build log).
        let line = "build\t05-Dec-2026 11:05:35\tFAIL: meter_test.go:21: MeterSuite.TestDelta";
        let (name, text) = label(line).unwrap();
        assert_eq!(
            (name, &line[text..]),
            (
                "build\t05-Dec-2026 11:05:35",
                "FAIL: meter_test.go:21: MeterSuite.TestDelta"
            )
        );
    }

    /// A linter's place before every finding (cpplint's `widget.cc:4:  message`, the message
    /// after two spaces) is the line's own, and a heading's keyword with the same padding on
    /// every line (doctest's `TEST CASE:  name`) is no stream: neither comes off.
    #[test]
    fn places_and_padded_headings_are_no_labels() {
        let cpplint = "widget.cc:0:  No copyright message found.  [legal/copyright] [5]\n\
            widget.cc:1:  Include the directory when naming header files  [build/include_subdir] [4]\n\
            widget.cc:3:  Do not use namespace using-directives.  [build/namespaces] [5]\n\
            widget.cc:4:  Missing space before {  [whitespace/braces] [5]\n";
        let u = unwrapped(cpplint);
        assert_eq!(u.wrapper, None);
        assert!(
            u.lines[3].starts_with("widget.cc:4:  Missing"),
            "{:?}",
            u.lines
        );
        let doctest = "====\nTEST CASE:  adds large numbers\n\ncalc.cpp:7: ERROR: x\n====\nTEST CASE:  greets by name\n\ncalc.cpp:9: ERROR: y\n====\nTEST CASE:  divides exactly\n\ncalc.cpp:10: ERROR: z\n";
        let u = unwrapped(doctest);
        assert_eq!(u.wrapper, None);
        assert_eq!(u.lines[1], "TEST CASE:  adds large numbers");
        // The same keyword with the inner output's own layout after it is a stream.
        let streams = "api:test: FAIL src/a.test.ts\napi:test:   ● adds\napi:test:\napi:test:     expect(1).toBe(2)\n";
        assert_eq!(unwrapped(streams).lines[0], "FAIL src/a.test.ts");
    }

    #[test]
    fn bracketed_and_tab_separated_labels_come_off_whatever_they_hold() {
        for (label, inner_label) in [
            ("[unit : test] ", "[unit : test]"),
            ("(api) ", "(api)"),
            (
                "stdout\t2026-12-04T10:00:0N.123Z\t",
                "stdout\t2026-12-04T10:00:0N.123Z",
            ),
        ] {
            let text: String = ["not ok 1 - adds", "  ---", "  error: 'broke'", "  ...", ""]
                .iter()
                .enumerate()
                .map(|(n, l)| format!("{}{l}\n", label.replace('N', &n.to_string())))
                .collect();
            let u = unwrapped(&text);
            assert_eq!(u.wrapper, Some(Wrapper::Prefixed), "{label:?}");
            assert_eq!(u.lines[0], "not ok 1 - adds", "{label:?}");
            assert_eq!(u.lines[2], "  error: 'broke'", "{label:?}");
            assert_eq!(
                u.step_of(0).map(|s| s.replace(char::is_numeric, "")),
                Some(inner_label.replace('N', "").replace(char::is_numeric, "")),
                "{label:?}"
            );
        }
    }

    #[test]
    fn numbered_labels_are_one_shape() {
        let log = "#5 [2/3] RUN npm test\n\
            #5 0.512 not ok 1 - adds\n\
            #5 0.513   ---\n\
            #5 0.514   error: 'broke'\n\
            #5 0.515 \n\
            #5 ERROR: process did not complete successfully";
        // `#5 0.512 ` ends in a space, not `: `: no label of this kind (BuildKit's is a clock).
        let u = unwrapped(log);
        assert_eq!(u.lines[1], "#5 0.512 not ok 1 - adds");
        let log = "Step #1 - \"test\": not ok 1 - adds\n\
            Step #1 - \"test\":   ---\n\
            Step #1 - \"test\":   error: 'broke'\n\
            Step #1 - \"test\":\n\
            Step #2 - \"lint\": ok";
        let u = unwrapped(log);
        assert_eq!(u.lines[0], "not ok 1 - adds");
        assert_eq!(u.lines[2], "  error: 'broke'");
        assert_eq!(u.step_of(0), Some("Step #1 - \"test\""));
        assert_eq!(u.lines[4], "ok");
        let log = "[api] not ok 1 - adds\n[api]   ---\n[api]   error: 'broke'\n[api] \n[web] ok 1 - renders";
        let u = unwrapped(log);
        assert_eq!(u.lines[0], "not ok 1 - adds");
        assert_eq!(u.lines[2], "  error: 'broke'");
        assert_eq!(u.step_of(4), Some("[web]"));
    }
}
