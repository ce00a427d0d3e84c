//! An open document as the language server follows it: its text, kept through the editor's
//! changes (positions in UTF-16 code units, as LSP counts them by default), and what each change
//! did to its lines, so a finding's lines can follow the edits made since its run or be dropped
//! when they changed.

use tower_lsp_server::ls_types::{Position, TextDocumentContentChangeEvent};

/// What one change did to a document's lines: the first `prefix` lines and the last `suffix`
/// lines are as they were; the lines between were replaced, and `delta` lines were added
/// (negative: removed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LineChange {
    prefix: usize,
    old_end: usize,
    delta: isize,
}

impl LineChange {
    /// Where the 0-based lines `start..=end` are after this change, or `None` when one of them
    /// was changed or removed.
    pub(crate) fn map(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        if end < self.prefix {
            return Some((start, end));
        }
        if start >= self.old_end {
            let shift = |l: usize| l.checked_add_signed(self.delta);
            return Some((shift(start)?, shift(end)?));
        }
        None
    }
}

/// A document's text.
#[derive(Clone, Debug, Default)]
pub(crate) struct Document {
    text: String,
}

impl Document {
    pub(crate) fn new(text: String) -> Self {
        Self { text }
    }

    /// The length in UTF-16 code units of 0-based line `line` (0 past the end).
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    pub(crate) fn line_len(&self, line: usize) -> u32 {
        self.text.split('\n').nth(line).map_or(0, |l| {
            l.trim_end_matches('\r').encode_utf16().count() as u32
        })
    }

    /// The byte offset of an LSP position, clamped to the text (a position past a line's end
    /// means its end; past the last line, the text's end).
    fn offset(&self, at: Position) -> usize {
        let mut start = 0;
        for _ in 0..at.line {
            match self.text[start..].find('\n') {
                Some(i) => start += i + 1,
                None => return self.text.len(),
            }
        }
        let line_end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |i| start + i);
        let mut units = 0u32;
        for (i, c) in self.text[start..line_end].char_indices() {
            if units >= at.character {
                return start + i;
            }
            units += c.len_utf16() as u32;
        }
        line_end
    }

    /// Applies one change and says what it did to the lines.
    pub(crate) fn apply(&mut self, change: &TextDocumentContentChangeEvent) -> LineChange {
        let old = std::mem::take(&mut self.text);
        self.text = match change.range {
            None => change.text.clone(),
            Some(range) => {
                let doc = Document { text: old };
                let (a, b) = (doc.offset(range.start), doc.offset(range.end));
                let (a, b) = (a.min(b), a.max(b));
                let mut text = String::with_capacity(doc.text.len() + change.text.len());
                text.push_str(&doc.text[..a]);
                text.push_str(&change.text);
                text.push_str(&doc.text[b..]);
                let changed = line_change(&doc.text, &text);
                self.text = text;
                return changed;
            }
        };
        line_change(&old, &self.text)
    }
}

/// The lines that differ between `old` and `new`: the longest common run of whole lines at the
/// start and at the end (never overlapping).
pub(crate) fn line_change(old: &str, new: &str) -> LineChange {
    let a: Vec<&str> = old.split('\n').collect();
    let b: Vec<&str> = new.split('\n').collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    LineChange {
        prefix,
        old_end: a.len() - suffix,
        delta: b.len() as isize - a.len() as isize,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::ls_types::Range;

    fn edit(sl: u32, sc: u32, el: u32, ec: u32, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(sl, sc), Position::new(el, ec))),
            range_length: None,
            text: text.to_owned(),
        }
    }

    fn doc() -> Document {
        Document::new("zero\none\ntwo\nthree\nfour\n".to_owned())
    }

    #[test]
    fn lines_above_an_edit_stay_lines_below_move_and_edited_lines_drop() {
        // Two lines inserted above line 2.
        let mut d = doc();
        let c = d.apply(&edit(2, 0, 2, 0, "new a\nnew b\n"));
        assert_eq!(c.map(0, 1), Some((0, 1)));
        assert_eq!(c.map(2, 3), Some((4, 5)), "the lines moved down, unchanged");
        // A word changed on line 5 (was line 3).
        let c = d.apply(&edit(5, 0, 5, 5, "THREE"));
        assert_eq!(c.map(5, 5), None);
        assert_eq!(c.map(4, 4), Some((4, 4)));
        assert_eq!(c.map(6, 6), Some((6, 6)));
        // Lines removed above.
        let c = d.apply(&edit(0, 0, 2, 0, ""));
        assert_eq!(c.map(4, 4), Some((2, 2)));
        assert_eq!(d.text, "new a\nnew b\ntwo\nTHREE\nfour\n");
    }

    #[test]
    fn a_whole_text_change_is_compared_line_by_line() {
        let whole = |text: &str| TextDocumentContentChangeEvent {
            range: None,
            range_length: None,
            text: text.to_owned(),
        };
        let mut d = doc();
        let c = d.apply(&whole("header\nzero\none\ntwo\nthree\nfour\n"));
        assert_eq!(c.map(0, 4), Some((1, 5)));
        // Two edits in one whole-text change: everything between them counts as changed, so
        // a finding there is dropped rather than shown on a line it may no longer be about.
        let c = d.apply(&whole("header!\nzero\none\ntwo\nthree!\nfour\n"));
        assert_eq!(c.map(2, 3), None);
        assert_eq!(c.map(5, 5), Some((5, 5)));
    }

    #[test]
    fn positions_count_utf16_units_and_are_clamped() {
        let mut d = Document::new("a😀b\nx\n".to_owned());
        assert_eq!(d.line_len(0), 4);
        d.apply(&edit(0, 3, 0, 4, "c"));
        assert_eq!(d.text, "a😀c\nx\n");
        // Past the end of a line, and past the last line.
        d.apply(&edit(1, 99, 9, 0, "!"));
        assert_eq!(d.text, "a😀c\nx!");
        assert_eq!(d.line_len(7), 0);
    }
}
