//! Records under a verdict banner (issue 46): a tool that prints one verdict alone (`FAILED:`)
//! and then its failed checks as records set apart by blank lines, indented under it, each
//! opened by a field (`name: instance down fires,` over `alertname: X, time: 4m,`, or `expr:
//! "job:rate5m", time: 10m,` over `exp: …` and `got: …`). Each record is a failure, named by the
//! value of its `name` field, else by the quoted value of its first field. Linear in the lines.

use super::Span;

/// A line that is a failure verdict alone, with its colon (`FAILED:`, `Failures:`).
fn banner(line: &str) -> bool {
    line.trim()
        .strip_suffix(':')
        .is_some_and(|w| !w.contains(' ') && crate::line::failed_verdict(w))
}

/// The name a record's first line gives: its `name:` field's value, else the quoted value of
/// its first field (`expr: "job:rate5m", time: 10m,`).
fn record_name(line: &str) -> Option<String> {
    let t = line.trim();
    let (key, value) = t.split_once(": ")?;
    if key.contains(' ') || key.is_empty() {
        return None;
    }
    let value = value.trim();
    if key == "name" {
        let name = value.trim_end_matches(',').trim();
        return (!name.is_empty()).then(|| name.to_owned());
    }
    let quoted = value.strip_prefix('"')?;
    let end = quoted.find('"')?;
    (end > 0).then(|| quoted[..end].to_owned())
}

/// The records under the first verdict banner that heads two or more of them.
pub(super) fn records(lines: &[String], covered: &[bool]) -> Vec<Span> {
    let depth = |l: &str| l.len() - l.trim_start().len();
    let Some(at) = (0..lines.len()).find(|&i| !covered[i] && banner(&lines[i])) else {
        return Vec::new();
    };
    let floor = depth(&lines[at]);
    let mut spans = Vec::new();
    let mut i = at + 1;
    while i < lines.len() && !covered[i] {
        let line = &lines[i];
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        if depth(line) <= floor {
            break;
        }
        let mut end = i + 1;
        while end < lines.len()
            && !covered[end]
            && !lines[end].trim().is_empty()
            && end - i < super::MAX_BLOCK
        {
            end += 1;
        }
        let Some(name) = record_name(line) else {
            return Vec::new();
        };
        spans.push(Span {
            start: i,
            end,
            name: Some(name),
            whole: false,
        });
        i = end;
    }
    if spans.len() < 2 { Vec::new() } else { spans }
}
