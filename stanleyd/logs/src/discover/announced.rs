//! Reports headed by the names a log announced (issue 46): a runner that says each test's name
//! as it starts (`Running test case: test-sum`) and reports a failure by that name first on a
//! line of its own, in whatever words follow (`test-sum failed: assert-equal: expected:`,
//! `test-split: exception in test: …`). The names announced, not the words after them, make
//! those lines one reading. Linear in the lines.

use std::collections::{HashMap, HashSet};

use super::Span;
use super::templates::body;

/// The shortest name an announcement may give.
const MIN_NAME: usize = 3;

/// The announcements of `lines`: the largest set of lines that share all but their last word,
/// each ending in a distinct name (`Running test case: NAME`); their names and where they
/// stand.
fn announcements(lines: &[String], covered: &[bool]) -> Option<(HashSet<String>, Vec<usize>)> {
    let mut groups: HashMap<&str, Vec<(usize, &str)>> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        if covered[i] {
            continue;
        }
        let t = line.trim();
        let Some((prefix, last)) = t.rsplit_once(char::is_whitespace) else {
            continue;
        };
        let name = last.trim_end_matches("...").trim_end_matches([':', '.']);
        if name.len() >= MIN_NAME
            && prefix.chars().any(char::is_alphabetic)
            && name.chars().any(char::is_alphabetic)
            && crate::line::name_like(name)
        {
            groups.entry(prefix.trim_end()).or_default().push((i, name));
        }
    }
    let (_, group) = groups
        .into_iter()
        .map(|(prefix, g)| {
            let names: HashSet<&str> = g.iter().map(|&(_, n)| n).collect();
            (names.len(), prefix, g)
        })
        .filter(|(distinct, _, g)| *distinct >= 2 && *distinct == g.len())
        .max_by_key(|(distinct, prefix, _)| (*distinct, std::cmp::Reverse(*prefix)))
        .map(|(_, prefix, g)| (prefix, g))?;
    let names = group.iter().map(|&(_, n)| n.to_owned()).collect();
    Some((names, group.into_iter().map(|(i, _)| i).collect()))
}

/// The reports headed by an announced name first on a line after its announcement, with words
/// after it; each name heads one report (its first such line).
pub(super) fn announced_heads(lines: &[String], covered: &[bool]) -> Vec<Span> {
    let Some((names, at)) = announcements(lines, covered) else {
        return Vec::new();
    };
    let announcing: HashSet<usize> = at.iter().copied().collect();
    let first = at.iter().copied().min().unwrap_or(0);
    let mut seen: HashSet<&str> = HashSet::new();
    let mut heads: Vec<(usize, String)> = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(first + 1) {
        if covered[i] || announcing.contains(&i) || line.starts_with(char::is_whitespace) {
            continue;
        }
        let Some((word, rest)) = line.split_once(char::is_whitespace) else {
            continue;
        };
        let name = word.trim_end_matches(':');
        if rest.trim().is_empty() || !names.contains(name) || !seen.insert(name) {
            continue;
        }
        heads.push((i, name.to_owned()));
    }
    let mut spans = Vec::with_capacity(heads.len());
    for (k, (start, name)) in heads.iter().enumerate() {
        let next = heads.get(k + 1).map_or(lines.len(), |(n, _)| *n);
        let (end, _) = body(lines, covered, *start, next);
        spans.push(Span {
            start: *start,
            end,
            name: Some(name.clone()),
            whole: false,
        });
    }
    if spans.len() < 2 { Vec::new() } else { spans }
}
