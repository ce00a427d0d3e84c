//! Counted rows marked failed (issue 46): a runner that numbers each case's rows `(i/n) [KIND]
//! text` (the case's title, then its steps) and marks the row that failed (`(3/7) [EXECUTE]
//! (X) 6 should be equal to 3`). The failure is named by the row of its own count and kind
//! above it, the title (its own text, when no such row stands above: `(3/4) [ EXPECT] (X)
//! alphabetical order` over its indented expected and got). Linear in the lines.

use super::Span;

/// What a counted row says after its failure mark (`(X) why`, or one of
/// [`crate::line::FAILURE_MARKS`]), when it carries one.
fn after_mark(text: &str) -> Option<&str> {
    ["(X)", "(x)"]
        .into_iter()
        .chain(crate::line::FAILURE_MARKS)
        .find_map(|m| text.strip_prefix(m)?.strip_prefix(' '))
}

/// A counted row: its count (`3/7`), its kind (`EXECUTE`), its text, and whether it is marked
/// failed (the text then after the mark).
fn row(line: &str) -> Option<(&str, &str, &str, bool)> {
    let t = line.trim_start();
    let (count, rest) = t.strip_prefix('(')?.split_once(')')?;
    let (a, b) = count.split_once('/')?;
    if !(crate::text::whole_number(a) && crate::text::whole_number(b)) {
        return None;
    }
    let (kind, text) = rest.trim_start().strip_prefix('[')?.split_once(']')?;
    let text = text.trim();
    match after_mark(text) {
        Some(said) => Some((count, kind.trim(), said.trim(), true)),
        None => Some((count, kind.trim(), text, false)),
    }
}

/// The reports of the counted rows marked failed.
pub(super) fn marked_rows(lines: &[String], covered: &[bool]) -> Vec<Span> {
    let depth = |l: &str| l.len() - l.trim_start().len();
    let mut spans = Vec::new();
    // The rows of the current count: (line, kind, text), unmarked.
    let mut current: Option<&str> = None;
    let mut titles: Vec<(usize, &str, &str)> = Vec::new();
    let mut taken = 0;
    for (i, line) in lines.iter().enumerate() {
        if covered[i] {
            continue;
        }
        let Some((count, kind, text, marked)) = row(line) else {
            continue;
        };
        if current != Some(count) {
            current = Some(count);
            titles.clear();
        }
        if !marked {
            titles.push((i, kind, text));
            continue;
        }
        let title = titles.iter().find(|&&(at, k, _)| k == kind && at >= taken);
        let (start, name) = match title {
            Some(&(at, _, text)) => (at, text),
            None => (i, text),
        };
        let mut end = i + 1;
        while end < lines.len()
            && !covered[end]
            && end - i < super::MAX_BLOCK
            && depth(&lines[end]) > depth(line)
            && row(&lines[end]).is_none()
        {
            end += 1;
        }
        taken = end;
        spans.push(Span {
            start,
            end,
            name: Some(name.to_owned()),
            whole: false,
        });
    }
    spans
}
