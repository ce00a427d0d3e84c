//! Detail printed before its verdict (issue 46, D-192): some runners print what went wrong, then
//! the verdict line that names the test (`units c2k 0 printed 273.00, wanted 273.15` over `FAIL:
//! freezing point in kelvin`). Reports cut from one verdict to the next then hold the next
//! test's detail, every name one failure off. The structure says which way the detail goes:
//! when the line just above the first verdict has the template of the first line under each
//! verdict, the detail belongs to the verdict under it, and each report runs from the line after
//! the verdict before it to its own verdict.

use super::Span;
use super::templates::{mask, tokens};

/// A line's template as the discovery keys it: its first token masked (`units` of `units c2k 0
/// printed 273.00, wanted 273.15`; a word, not a mark: `+`, `-`, `>` head any diff's lines).
fn template(line: &str) -> Vec<String> {
    tokens(line.trim())
        .first()
        .map(|t| mask(t))
        .filter(|t| t.chars().any(char::is_alphanumeric))
        .into_iter()
        .collect()
}

/// The nearest non-blank line above `at`, back to `floor`.
fn nonblank_above(lines: &[String], floor: usize, at: usize) -> Option<usize> {
    (floor..at).rev().find(|&k| !lines[k].trim().is_empty())
}

/// The reports re-cut when their detail comes before their verdicts; as they were otherwise.
pub(super) fn detail_before_verdicts(
    lines: &[String],
    covered: &[bool],
    mut spans: Vec<Span>,
) -> Vec<Span> {
    spans.sort_by_key(|s| s.start);
    let n = spans.len();
    if n < 2
        || spans.iter().any(|s| {
            s.whole || s.name.is_none() || crate::line::status_name(&lines[s.start]).is_none()
        })
        || spans.windows(2).any(|w| w[0].end > w[1].start)
    {
        return spans;
    }
    // The first line under each verdict but the last, before the next verdict.
    let under: Option<Vec<usize>> = spans
        .windows(2)
        .map(|w| (w[0].start + 1..w[1].start).find(|&k| !lines[k].trim().is_empty()))
        .collect();
    let Some(under) = under else {
        return spans;
    };
    let shape = template(&lines[under[0]]);
    // (Rows under a verdict that carry verdicts of their own, `  equal() ✖` under `clears the
    // cart ✖`, are its assertions, no detail of the next.)
    if shape.is_empty()
        || under
            .iter()
            .any(|&k| template(&lines[k]) != shape || crate::line::status_name(&lines[k]).is_some())
    {
        return spans;
    }
    // Detail under every verdict has some under the last one too.
    let last = &spans[n - 1];
    if (last.start + 1..last.end)
        .find(|&k| !lines[k].trim().is_empty())
        .is_some_and(|k| template(&lines[k]) == shape)
    {
        return spans;
    }
    // The line over the first verdict, of that template, and not a report's or another
    // reader's.
    let floor = spans[0].start.saturating_sub(super::MAX_BLOCK);
    let Some(over) = nonblank_above(lines, floor, spans[0].start) else {
        return spans;
    };
    if covered[over] || template(&lines[over]) != shape {
        return spans;
    }
    // Each report: from the line after the verdict before it (the first, from its detail) to
    // its own verdict. The last verdict's old body is no one's now.
    let mut from = over;
    for s in &mut spans {
        let verdict = s.start;
        s.start = from;
        s.end = verdict + 1;
        from = verdict + 1;
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: usize, end: usize, name: &str) -> Span {
        Span {
            start,
            end,
            name: Some(name.to_owned()),
            whole: false,
        }
    }

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn detail_over_each_verdict_is_that_verdicts() {
        let log = lines(
            "Running convert.exp ...\nunits a 1 printed 2, wanted 3\nFAIL: first\n\
             units b 4 printed 5, wanted 6\nFAIL: second\nunits c 7 printed 8, wanted 9\n\
             FAIL: third\n\n=== Summary ===\n",
        );
        let spans = vec![
            span(2, 4, "first"),
            span(4, 6, "second"),
            span(6, 8, "third"),
        ];
        let got = detail_before_verdicts(&log, &vec![false; log.len()], spans);
        let cut: Vec<(usize, usize)> = got.iter().map(|s| (s.start, s.end)).collect();
        assert_eq!(cut, [(1, 3), (3, 5), (5, 7)]);
    }

    #[test]
    fn detail_under_each_verdict_stays_there() {
        // The line over the first verdict is no detail of the shape under them.
        let log = lines(
            "Running convert.exp ...\nFAIL: first\n  expected 3 got 2\nFAIL: second\n  expected 6 got 5\n",
        );
        let spans = vec![span(1, 3, "first"), span(3, 5, "second")];
        let got = detail_before_verdicts(&log, &vec![false; log.len()], spans.clone());
        assert_eq!(got, spans);
    }
}
