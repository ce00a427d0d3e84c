//! A tree of tests signed `+` and `-` (issue 46): a runner that prints each test under its
//! contexts with `+` when it passed and `-` when it failed (`      + returns 1250`, `      -
//! keeps every cent` over `        expected => 100`). A `-` is any list's bullet; it signs a
//! failure only among siblings signed `+` at its depth. Each failed row is a report, its
//! detail the lines under it that are neither a sibling nor shallower. Linear in the lines.

use super::Span;

/// The sign and where the text after it starts, of a row `+ text` or `- text`.
fn signed(line: &str) -> Option<(char, usize)> {
    let t = line.trim_start();
    let sign = t.chars().next().filter(|c| matches!(c, '+' | '-'))?;
    let text = t[1..].strip_prefix(' ')?;
    text.starts_with(|c: char| !c.is_whitespace())
        .then_some((sign, line.len() - text.len()))
}

/// The reports of the rows signed `-` where rows signed `+` stand at the same depth (two at
/// least), each running over the lines indented deeper under it.
pub(super) fn failed_rows(lines: &[String], covered: &[bool]) -> Vec<Span> {
    let depth = |l: &str| l.len() - l.trim_start().len();
    // Depths that have passing rows.
    let mut passing: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for (i, l) in lines.iter().enumerate() {
        if !covered[i] && signed(l).is_some_and(|(s, _)| s == '+') {
            *passing.entry(depth(l)).or_default() += 1;
        }
    }
    let mut spans = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(('-', text)) = signed(l).filter(|_| !covered[i]) else {
            continue;
        };
        let d = depth(l);
        if passing.get(&d).copied().unwrap_or(0) < 2 {
            continue;
        }
        let mut end = i + 1;
        while end < lines.len()
            && !covered[end]
            && end - i < super::MAX_BLOCK
            && !lines[end].trim().is_empty()
            // (What the failure threw may stand at the row's own depth, unsigned: `divided by
            // 0 (ZeroDivisionError)` under `- returns []`; a sibling is signed, a context
            // shallower.)
            && (depth(&lines[end]) > d
                || depth(&lines[end]) == d && signed(&lines[end]).is_none())
        {
            end += 1;
        }
        spans.push(Span {
            start: i,
            end,
            name: Some(l[text..].trim().to_owned()),
            whole: false,
        });
    }
    spans
}
