//! Reports closed by their place in words (issue 46): each under a title that ends with a
//! colon (`keeps names sorted:`, the deepest line of an indented suite path), what went wrong
//! indented under it, and a row that only places it (`at t/roster.t line 20`) or a line that
//! ends so (`Can't locate … at t/roster.t line 53.`). Linear: each place looks back at most
//! [`MAX_BLOCK`] lines, never past the report before it.

use super::{MAX_BLOCK, Span};

/// A title: two to twelve words ending with one colon (`keeps names sorted:`), no place, no
/// bracketed or parenthesised lead, and no label of a field (`got :`, its colon after a space).
fn title(line: &str) -> Option<&str> {
    let t = line.trim();
    let name = t.strip_suffix(':').filter(|n| !n.ends_with([':', ' ']))?;
    let words = name.split_whitespace().count();
    ((2..=12).contains(&words)
        && crate::line::name_like(name)
        && crate::diagnostics::location(name).is_none()
        && !name.starts_with(['(', '['])
        && name.chars().next().is_some_and(char::is_alphanumeric))
    .then_some(name)
}

/// Whether an indented line only places the report above it in words, or ends with that
/// place (`… at t/a.t line 53.`).
fn closing_place(line: &str) -> bool {
    if !line.starts_with(char::is_whitespace) {
        return false;
    }
    let t = line.trim();
    crate::diagnostics::place_in_words(t).is_some()
        || t.rfind(" at ")
            .is_some_and(|at| crate::diagnostics::place_in_words(&t[at + 1..]).is_some())
}

/// The reports: two at least (one such line is as often a stray one).
pub(crate) fn titled_to_place(lines: &[String], covered: &[bool]) -> Vec<Span> {
    let mut spans = Vec::new();
    let mut after = 0;
    for i in 0..lines.len() {
        if covered[i] || !closing_place(&lines[i]) {
            continue;
        }
        let from = after.max(i.saturating_sub(MAX_BLOCK));
        let Some((t, name)) = (from..i)
            .rev()
            .take_while(|&k| !covered[k])
            .find_map(|k| title(&lines[k]).map(|n| (k, n)))
        else {
            continue;
        };
        // (The title heads what is under it: its body is indented at least as deep.)
        if crate::line::indent(&lines[i]) < crate::line::indent(&lines[t]).min(2) {
            continue;
        }
        spans.push(Span {
            start: t,
            end: i + 1,
            name: Some(name.to_owned()),
            whole: false,
        });
        after = i + 1;
    }
    if spans.len() < 2 {
        return Vec::new();
    }
    spans
}
