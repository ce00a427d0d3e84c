//! What a finding about a hunk quotes and where it is placed (issue 49): a few of the changed
//! lines with their marker and line number, and the range of the changed lines themselves (not
//! the hunk's context), so a person sees the code and an editor underlines only what changed.

use serde::Serialize;

use super::{FileStatus, Hunk};
use crate::text::truncate_chars;

/// How many changed lines a finding quotes.
pub const QUOTED_LINES: usize = 4;

/// The widest quoted line, in characters, before it is cut with `…`.
const QUOTED_WIDTH: usize = 120;

/// Whether a quoted line was added or removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Added,
    Removed,
}

impl Change {
    /// The diff marker: `+` or `-`.
    pub fn marker(self) -> char {
        match self {
            Change::Added => '+',
            Change::Removed => '-',
        }
    }
}

/// One changed line a finding quotes: added lines carry their line in the new file, removed
/// lines their line in the old one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Quoted {
    pub change: Change,
    pub line: u64,
    pub text: String,
}

impl Hunk {
    /// Every changed line with its line number, in diff order.
    fn numbered_changes(&self) -> impl Iterator<Item = (Change, u64, &str)> {
        let (mut old, mut new) = (self.old_start, self.new_start);
        self.lines.iter().filter_map(move |line| match line.tag {
            '+' => {
                new += 1;
                Some((Change::Added, new - 1, line.text.as_str()))
            }
            '-' => {
                old += 1;
                Some((Change::Removed, old - 1, line.text.as_str()))
            }
            _ => {
                old += 1;
                new += 1;
                None
            }
        })
    }

    /// The first `max` changed lines, each cut to a readable width. Blank changed lines are
    /// skipped while there are others to show.
    pub fn quote(&self, max: usize) -> Vec<Quoted> {
        let all: Vec<(Change, u64, &str)> = self.numbered_changes().collect();
        let worth = |text: &str| !text.trim().is_empty();
        let shown: Vec<&(Change, u64, &str)> = if all.iter().any(|(_, _, t)| worth(t)) {
            all.iter().filter(|(_, _, t)| worth(t)).take(max).collect()
        } else {
            all.iter().take(max).collect()
        };
        shown
            .into_iter()
            .map(|(change, line, text)| Quoted {
                change: *change,
                line: *line,
                text: truncate_chars(text.trim_end(), QUOTED_WIDTH),
            })
            .collect()
    }

    /// Where the change itself sits in the new file: from the first to the last changed place,
    /// an added line at its line and a removal at the line now where it was (`14-16`, `14`),
    /// never the hunk's context around them. A deleted file keeps [`Hunk::line_range`].
    pub fn changed_range(&self) -> String {
        if self.file_status == FileStatus::Deleted || self.new_lines == 0 {
            return self.line_range();
        }
        let last_line = self.new_start + self.new_lines - 1;
        let mut new = self.new_start;
        let (mut first, mut last) = (u64::MAX, 0);
        for line in self.lines.iter() {
            let at = match line.tag {
                '+' => Some(new),
                '-' => Some(new.min(last_line).max(1)),
                _ => None,
            };
            if line.tag != '-' {
                new += 1;
            }
            if let Some(at) = at {
                first = first.min(at);
                last = last.max(at);
            }
        }
        match (first, last) {
            (u64::MAX, _) => self.line_range(),
            (a, b) if a == b => a.to_string(),
            (a, b) => format!("{a}-{b}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diff::Line;
    use crate::paths::PathKind;

    fn hunk(old_start: u64, new_start: u64, lines: &[(char, &str)]) -> Hunk {
        let lines: Vec<Line> = lines
            .iter()
            .map(|(tag, text)| Line {
                tag: *tag,
                text: (*text).to_owned(),
            })
            .collect();
        let count = |tags: &[char]| lines.iter().filter(|l| tags.contains(&l.tag)).count();
        Hunk {
            id: "h_1".into(),
            path: "src/a.rs".into(),
            old_path: None,
            file_status: FileStatus::Modified,
            kind: PathKind::Source,
            old_start,
            old_lines: count(&[' ', '-']) as u64,
            new_start,
            new_lines: count(&[' ', '+']) as u64,
            section: String::new(),
            added: count(&['+']),
            removed: count(&['-']),
            lines: Arc::from(lines),
            part: None,
        }
    }

    #[test]
    fn the_place_is_the_changed_lines_not_the_context() {
        let h = hunk(
            10,
            10,
            &[
                (' ', "fn a() {"),
                (' ', "    let x = 1;"),
                ('-', "    x"),
                ('+', "    x + 1"),
                ('+', "    // more"),
                (' ', "}"),
            ],
        );
        assert_eq!(h.line_range(), "10-14");
        assert_eq!(h.changed_range(), "12-13");
        assert_eq!(
            h.quote(QUOTED_LINES),
            vec![
                Quoted {
                    change: Change::Removed,
                    line: 12,
                    text: "    x".into()
                },
                Quoted {
                    change: Change::Added,
                    line: 12,
                    text: "    x + 1".into()
                },
                Quoted {
                    change: Change::Added,
                    line: 13,
                    text: "    // more".into()
                },
            ]
        );
    }

    #[test]
    fn a_removal_is_placed_where_it_left_the_file() {
        let h = hunk(
            5,
            5,
            &[(' ', "a"), (' ', "b"), ('-', "gone"), ('-', ""), (' ', "c")],
        );
        assert_eq!(h.changed_range(), "7");
        let quote = h.quote(QUOTED_LINES);
        assert_eq!(
            quote.len(),
            1,
            "the blank removed line is skipped: {quote:?}"
        );
        assert_eq!((quote[0].change, quote[0].line), (Change::Removed, 7));
    }

    #[test]
    fn one_added_line_is_one_line_and_long_lines_are_cut() {
        let long = "x".repeat(400);
        let h = hunk(1, 1, &[(' ', "a"), ('+', &long)]);
        assert_eq!(h.changed_range(), "2");
        let quote = h.quote(QUOTED_LINES);
        assert_eq!(quote[0].text.chars().count(), QUOTED_WIDTH + 1);
        assert!(quote[0].text.ends_with('…'));
    }
}
