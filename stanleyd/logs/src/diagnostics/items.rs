//! Findings as list items under a file's heading (issue 46): `# site.css` (a path, perhaps
//! after a heading's mark), then items `* Unknown property `colr``, each perhaps over indented
//! lines that show where (a value, its syntax, a caret): a finding per item about the whole
//! file, named by the file and the item, which says what is wrong. Most items quote what
//! they are about; a document's list of steps quotes nothing.

use super::{Diagnostic, MAX_LINES, Severity};
use crate::line::indent;

/// The most items one heading's list is read to: a bound on one reading, not on the log.
const MAX_ITEMS: usize = MAX_LINES * 25;

/// A heading that names a file: at the margin, the path alone or after a mark of punctuation
/// (`#`, `==>`, `---`).
fn file_heading(line: &str) -> Option<&str> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let path = match words[..] {
        [path] => path,
        [mark, path] if !mark.chars().any(char::is_alphanumeric) => path,
        _ => return None,
    };
    (crate::text::path_like(path) && path.contains('.') && super::location(path).is_none())
        .then_some(path)
}

/// An item of a list: its mark and at least two words after it; (its indent, what it says).
fn item(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_start();
    let said = crate::text::bulleted(t)?.trim();
    (said.split_whitespace().count() >= 2).then_some((indent(line), said))
}

/// Whether words quote a term: between backticks or quotes, straight or curly.
fn quotes(said: &str) -> bool {
    [('`', '`'), ('\'', '\''), ('"', '"'), ('‘', '’'), ('“', '”')]
        .iter()
        .any(|&(open, close)| {
            said.split_once(open)
                .is_some_and(|(_, rest)| rest.split_once(close).is_some_and(|(q, _)| !q.is_empty()))
        })
}

/// The items under a file's heading at `i`, two at least, each with the lines indented under
/// it: a finding each, pushed to `out`. The line after the list, or None.
pub(super) fn items_under_file(
    lines: &[String],
    covered: &[bool],
    i: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let file = file_heading(&lines[i])?;
    let first = (i + 1..lines.len().min(i + 3)).find(|&k| !lines[k].trim().is_empty())?;
    let (depth, _) = item(&lines[first])?;
    let mut found: Vec<(usize, usize)> = Vec::new();
    let mut k = first;
    while k < lines.len() && !covered[k] && found.len() < MAX_ITEMS {
        match item(&lines[k]) {
            Some((d, _)) if d == depth => {}
            _ => break,
        }
        let mut end = k + 1;
        while end < lines.len()
            && !covered[end]
            && end - k < MAX_LINES
            && indent(&lines[end]) > depth
            && item(&lines[end]).is_none_or(|(d, _)| d > depth)
            && !lines[end].trim().is_empty()
        {
            end += 1;
        }
        found.push((k, end));
        k = end;
    }
    // (Findings name what they are about, quoted: `Unknown property `colr``. A list of steps
    // or notes under a document's name quotes nothing.)
    let quoting = found
        .iter()
        .filter(|&&(k, _)| item(&lines[k]).is_some_and(|(_, said)| quotes(said)))
        .count();
    if found.len() < 2 || quoting * 2 < found.len() {
        return None;
    }
    for (n, &(start, end)) in found.iter().enumerate() {
        // (The heading opens the first item's block.)
        let from = if n == 0 { i } else { start };
        let (_, said) = item(&lines[start])?;
        out.push(Diagnostic::new(
            &lines[from..end],
            from,
            format!("{file}: {said}"),
            said.to_owned(),
            None,
            file.to_owned(),
            Severity::Error,
        ));
    }
    Some(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<(String, String)> {
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let covered = vec![false; lines.len()];
        let mut out = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            i = items_under_file(&lines, &covered, i, &mut out).unwrap_or(i + 1);
        }
        out.into_iter()
            .map(|d| {
                let message = d.found.message.unwrap_or_default();
                (d.found.name.unwrap_or_default(), message)
            })
            .collect()
    }

    #[test]
    fn items_under_a_files_heading_are_its_findings() {
        let log = "# site.css\n    * Unknown property `colr`\n    * Invalid value for `display` property\n      syntax: <display-box>\n       value: flexx\n      --------^\n    * Unknown property `widht`\n\n# print.css\n- Invalid value for `color` property\n- Unknown at-rule `@prnt`\n";
        let got = read(log);
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "site.css: Unknown property `colr`",
                "site.css: Invalid value for `display` property",
                "site.css: Unknown property `widht`",
                "print.css: Invalid value for `color` property",
                "print.css: Unknown at-rule `@prnt`",
            ]
        );
        assert_eq!(got[1].1, "Invalid value for `display` property");
    }

    #[test]
    fn one_item_or_a_heading_that_is_no_file_is_no_list_of_findings() {
        assert!(read("# site.css\n* Unknown property `colr`\nDone.\n").is_empty());
        assert!(read("# Release notes\n* Fixed the parser\n* Added a flag\n").is_empty());
        assert!(read("## 1.2.3\n- Fixed the parser\n- Added a flag\n").is_empty());
        assert!(read("docs/guide.md\n  - install the tool\n  - run it twice\n").is_empty());
    }
}
