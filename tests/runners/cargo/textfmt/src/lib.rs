//! Text formatting helpers with deliberate bugs for the doctest and libtest-json captures.

/// Wraps `text` at `width` columns.
///
/// ```
/// let lines = textfmt::wrap("aa bb cc", 4);
/// assert_eq!(lines, vec!["aa", "bb", "cc"], "wrapped wider than 4 columns");
/// ```
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        if !cur.is_empty() && cur.len() + word.len() > width { // BUG: forgets the space
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    out.push(cur);
    out
}

/// Centers `s` in a field of `width`.
///
/// ```
/// assert_eq!(textfmt::center("ab", 6), "  ab  ");
/// ```
pub fn center(s: &str, width: usize) -> String {
    let pad = width.saturating_sub(s.len());
    format!("{}{}{}", " ".repeat(pad / 2), s, " ".repeat(pad - pad / 2))
}

/// Truncates to `max` characters, adding an ellipsis.
///
/// ```should_panic
/// // a zero width is refused
/// textfmt::truncate("hello", 0);
/// ```
///
/// ```
/// let t: &str = textfmt::truncate("héllo wörld", 4);
/// assert_eq!(t, "hél…");
/// ```
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
    t.push('…');
    t
}

/// Parses a column spec like "3:left".
pub fn column_spec(spec: &str) -> (usize, &str) {
    let (w, align) = spec.split_once(':').unwrap();
    let w: usize = w.parse().unwrap();
    if !["left", "right", "center"].contains(&align) {
        panic!("bad column spec {spec:?}:\n  alignment must be one of left, right, center\n  got {align:?} (column 2 of the table header)");
    }
    (w, align)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn center_odd() {
        assert_eq!(center("abc", 6), " abc  ");
    }

    #[test]
    fn wrap_exact_width() {
        assert_eq!(wrap("aaaa bbbbb", 9).len(), 2, "a line of 10 columns in width 9");
    }

    #[test]
    fn column_spec_justify() {
        assert_eq!(column_spec("12:justify"), (12, "justify"));
    }

    #[test]
    fn truncate_keeps_short() {
        assert_eq!(truncate("abc", 5), "abc");
    }
}
