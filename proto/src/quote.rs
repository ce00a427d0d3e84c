//! How a finding's quoted changed line reads to a person: `+ 14 | text`, the numbers of one
//! finding right-aligned to each other. The page and the editor's hover say it so, as the
//! terminal's report does (`stanley_workflows::result::quoted_lines`, which works on the
//! document and cannot link this crate).

use crate::v1::{Change, QuotedLine};

/// Every line `quote` holds, as a person reads it.
pub fn shown(quote: &[QuotedLine]) -> Vec<String> {
    let width = quote
        .iter()
        .map(|q| q.line.to_string().len())
        .max()
        .unwrap_or(1);
    quote
        .iter()
        .map(|q| {
            let marker = if q.change == Change::Removed as i32 {
                '-'
            } else {
                '+'
            };
            format!("{marker} {:>width$} | {}", q.line, q.text)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_line_up_and_markers_say_the_change() {
        let line = |change: Change, line: u32, text: &str| QuotedLine {
            change: change as i32,
            line,
            text: text.into(),
        };
        assert_eq!(
            shown(&[line(Change::Removed, 9, "a"), line(Change::Added, 10, "b")]),
            ["-  9 | a", "+ 10 | b"]
        );
    }
}
