//! Findings a tally counts by kind (issue 46): a checker prints one line per finding, each
//! ending in what kind it is (`[shop.example.test.] another record exists beside CNAME`), then
//! a summary table of counts per kind (`Error summary:` over `   2<TAB>another record exists
//! beside CNAME`). The lines that end in a tallied kind are the findings, as many as the table
//! counts; no place needed.

use std::collections::HashMap;

use super::{Diagnostic, Severity};

/// The kinds a summary table counts: a heading that ends in `summary:` (any case), then rows
/// of a count and a phrase of two words or more; with the table's first line.
fn tallies(lines: &[String]) -> Option<(usize, HashMap<&str, usize>, Severity)> {
    let heading = lines.iter().rposition(|l| {
        let t = l.trim().to_ascii_lowercase();
        t.ends_with("summary:") && t.split_whitespace().count() <= 3
    })?;
    let severity = if lines[heading].to_ascii_lowercase().contains("warning") {
        Severity::Warning
    } else {
        Severity::Error
    };
    let mut kinds: HashMap<&str, usize> = HashMap::new();
    // (A table of at most 64 kinds: each line is compared with each kind.)
    for l in lines[heading + 1..].iter().take(64) {
        let t = l.trim();
        let Some((count, phrase)) = t.split_once(char::is_whitespace) else {
            break;
        };
        let Ok(count) = count.parse::<usize>() else {
            break;
        };
        let phrase = phrase.trim();
        if phrase.split_whitespace().count() < 2 {
            break;
        }
        *kinds.entry(phrase).or_default() += count;
    }
    (!kinds.is_empty()).then_some((heading, kinds, severity))
}

/// The findings above a tally, when the lines that end in its kinds are exactly as many as it
/// counts, each kind's; none otherwise. Linear in the lines (one lookup per line's ending).
pub(crate) fn read(lines: &[String], covered: &[bool]) -> Vec<Diagnostic> {
    let Some((heading, kinds, severity)) = tallies(lines) else {
        return Vec::new();
    };
    let mut found: Vec<(usize, &str)> = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, l) in lines[..heading].iter().enumerate() {
        if covered[i] || l.trim().is_empty() {
            continue;
        }
        let t = l.trim();
        // The kind the line ends in, after what it is about (`[owner] kind`, `owner: kind`).
        let Some(kind) = kinds
            .keys()
            .copied()
            .filter(|k| t.len() > k.len() + 1 && t.ends_with(k))
            .max_by_key(|k| k.len())
        else {
            continue;
        };
        *seen.entry(kind).or_default() += 1;
        found.push((i, kind));
    }
    if seen != kinds {
        return Vec::new();
    }
    found
        .into_iter()
        .map(|(i, _)| Diagnostic::unplaced(lines, i, lines[i].trim().to_owned(), severity))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn lines_that_end_in_a_tallied_kind_are_its_findings() {
        let log = lines(
            "checking zone\n[a.test.] stale serial\n<b.test.> dangling alias\n[c.test.] stale serial\n\nError summary:\n   2\tstale serial\n   1\tdangling alias\nzone rejected\n",
        );
        let got: Vec<String> = read(&log, &vec![false; log.len()])
            .into_iter()
            .map(|d| d.found.message.unwrap_or_default())
            .collect();
        assert_eq!(
            got,
            [
                "[a.test.] stale serial",
                "<b.test.> dangling alias",
                "[c.test.] stale serial"
            ]
        );
        // Counts that do not add up: no reading.
        let short = lines("[a.test.] stale serial\nError summary:\n   2\tstale serial\n");
        assert!(read(&short, &vec![false; short.len()]).is_empty());
    }
}
