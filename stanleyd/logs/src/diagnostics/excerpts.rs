//! Findings whose line only their code excerpt gives (issue 46): a heading names the file
//! (`>>> Lint for src/main.c:`), each finding under it opens with its severity (`  Error
//! (NOFIXME) FIXME left in code`), and the excerpt under the finding marks the line it is
//! about (`    >>>  5  |  strcpy(dst, src);`).

use super::{Diagnostic, MAX_LISTED, Severity, path_like};
use crate::line::indent;

/// The file a heading names as its last word, with the heading's colon (`>>> Lint for
/// src/main.c:`, `Results for lib/a.rb:`): a few words, the path last, no line.
fn file_heading(line: &str) -> Option<&str> {
    let t = line.trim_end();
    let words: Vec<&str> = t.split_whitespace().collect();
    if !(2..=6).contains(&words.len()) {
        return None;
    }
    let path = words.last()?.strip_suffix(':')?;
    (path_like(path) && path.contains(['.', '/']) && !path.contains(':')).then_some(path)
}

/// A finding's first line: a severity's word, the code in brackets or parentheses if any, and
/// what it says (`Error (NOFIXME) FIXME left in code`, `warning [W12] unused`).
fn severity_row(line: &str) -> Option<(Severity, Option<&str>, &str)> {
    let t = line.trim();
    let (word, rest) = t.split_once(' ')?;
    // (A severity's word alone, capitalised or not, without a colon: `Error:` is a label, read
    // elsewhere.)
    if word.ends_with(':') {
        return None;
    }
    let severity = super::severity_word(word)?;
    let rest = rest.trim_start();
    let code = ['(', '[']
        .iter()
        .zip([')', ']'])
        .find_map(|(open, close)| rest.strip_prefix(*open)?.split_once(close));
    let (code, said) = match code {
        Some((code, said)) if !code.is_empty() && !code.contains(' ') => (Some(code), said.trim()),
        _ => (None, rest),
    };
    (said.split_whitespace().count() >= 2).then_some((severity, code, said))
}

/// The line an excerpt's marked row shows (`>>>  5  |code`, `> 12 | code`, `--> 3 │ code`): a
/// mark of `>`, `-` or `→`, the line's number, then the gutter's bar.
fn marked_row(line: &str) -> Option<u64> {
    let t = line.trim_start();
    let mark = t
        .bytes()
        .take_while(|b| matches!(b, b'>' | b'-' | b'='))
        .count();
    let (mark, rest) = if mark > 0 {
        (mark, &t[mark..])
    } else {
        let rest = t.strip_prefix('→')?;
        ('→'.len_utf8(), rest)
    };
    let rest = rest.trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let after = rest[digits..].trim_start();
    (mark > 0 && digits > 0 && (after.starts_with('|') || after.starts_with('│')))
        .then(|| rest[..digits].parse().ok())
        .flatten()
}

/// The findings under a heading that names their file at `i`, each placed by the row its
/// excerpt marks (named by the file alone when none is marked). Pushed to `out`; the line
/// after them, or None.
pub(super) fn marked_in_excerpts(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let file = file_heading(&lines[i])?;
    let depth = indent(&lines[i]);
    let inside = |k: usize| {
        k < lines.len()
            && !covered[k]
            && k - i <= MAX_LISTED
            && (lines[k].trim().is_empty() || indent(&lines[k]) > depth)
    };
    let mut k = i + 1;
    let mut found = Vec::new();
    while inside(k) {
        let Some((severity, code, said)) = severity_row(&lines[k]) else {
            // (Before the first finding, nothing but blank lines.)
            if found.is_empty() && !lines[k].trim().is_empty() {
                return None;
            }
            k += 1;
            continue;
        };
        let start = k;
        k += 1;
        while inside(k) && severity_row(&lines[k]).is_none() {
            k += 1;
        }
        let line = lines[start + 1..k].iter().find_map(|l| marked_row(l));
        let name = line.map_or_else(|| file.to_owned(), |n| format!("{file}:{n}"));
        found.push(Diagnostic::new(
            &lines[start..k],
            start,
            name.clone(),
            said.to_owned(),
            code.map(str::to_owned),
            name,
            severity,
        ));
    }
    // (A heading over findings none of which an excerpt places is some other listing.)
    if !found.iter().any(|d| d.place.contains(':')) {
        return None;
    }
    out.extend(found);
    Some(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<(String, String, Option<String>)> {
        super::super::read_with(text, marked_in_excerpts)
            .into_iter()
            .map(|d| (d.place, d.found.message.unwrap_or_default(), d.code))
            .collect()
    }

    #[test]
    fn findings_under_a_file_heading_take_their_line_from_the_excerpts_mark() {
        let log = "\
== Checks for lib/cache.py:

  Warning (LOCKLESS) shared dict written without a lock
    Writes from two threads can lose updates.

       10  |def put(k, v):
    -> 11  |    CACHE[k] = v
       12  |

  Error [NO-PRINT] print call left in library code
    Use logging instead.

    => 20  |    print(k)

== Checks for lib/app.py:

  Error (NO-PRINT) print call left in library code
    >>> 3 | print('hi')
";
        assert_eq!(
            read(log),
            [
                (
                    "lib/cache.py:11".to_owned(),
                    "shared dict written without a lock".to_owned(),
                    Some("LOCKLESS".to_owned())
                ),
                (
                    "lib/cache.py:20".to_owned(),
                    "print call left in library code".to_owned(),
                    Some("NO-PRINT".to_owned())
                ),
                (
                    "lib/app.py:3".to_owned(),
                    "print call left in library code".to_owned(),
                    Some("NO-PRINT".to_owned())
                ),
            ]
        );
    }

    #[test]
    fn a_heading_over_other_content_or_unplaced_rows_is_no_list_of_findings() {
        // A heading with a file over text, and severity rows no excerpt places.
        assert!(
            read("Changes in src/a.c:\n  renamed x to y\n  Error handling improved a lot\n")
                .is_empty()
        );
        assert!(read("Notes for docs/a.md:\n  warning spelled wrong twice\n").is_empty());
        // A marked row needs a mark, a number and the gutter's bar.
        assert_eq!(marked_row("    >>>  5  |\tstrcpy(dst, src);"), Some(5));
        assert_eq!(marked_row("  --> 3 │ x"), Some(3));
        assert_eq!(marked_row("      5  | x"), None);
        assert_eq!(marked_row("  > 5 apples"), None);
    }
}
