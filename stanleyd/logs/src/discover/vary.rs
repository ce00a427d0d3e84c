//! Names by what varies (issue 46): a name that several reports of one log share names none of
//! them (`STOP`, `Falsified (after 1`), a name that says what went wrong (`not ok 6 should
//! equal`) is a message, and reports that came with no name at all are no better. Whatever runner printed them, its
//! reports share a shape: at one place relative to each (its first line, the line above it, the
//! one under that) every report has a line of one template, and what varies between those lines
//! is the name (`=== prop_merge from Props.hs:39 ===` above `*** Failed! Falsified …`, `#
//! payroll: rate for designers` above `not ok 6 should equal`). This pass finds that place for
//! the reports without a name of their own, and names every report of the log whose line there
//! has the template.

use std::collections::HashMap;

use super::templates::{constant_ends, mask, name_between, tokens};
use crate::line::message_like;
use crate::text::digits_masked;

/// A report as the pass sees it: its lines (0-based, inclusive) in the log, its name, and
/// whether a name by its shape may replace its own (a diagnostic's place or a job's failing
/// step may not).
pub(crate) struct Report<'a> {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) name: Option<&'a str>,
    pub(crate) renamable: bool,
}

/// Where a report's line is looked for: its own `n`th non-blank line, or the `n`th non-blank
/// line above it (below the first line of the report before it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Inside(usize),
    Above(usize),
}

/// In the order they are tried: the report's header first, then what sits over it.
const PLACES: [Place; 6] = [
    Place::Inside(0),
    Place::Above(1),
    Place::Inside(1),
    Place::Above(2),
    Place::Inside(2),
    Place::Above(3),
];

/// The shape a place's lines share: their masked constant ends.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Shape {
    place: Place,
    prefix: Vec<String>,
    suffix: Vec<String>,
}

/// New names for the reports (index-aligned with `reports`; `None` keeps a report's name):
/// found for the reports that share a name, or have none, or one that is a message, and given to every
/// renamable report of the log whose line at the same place has the same shape. Linear in
/// the reports and the lines looked at.
pub(crate) fn names_that_vary(lines: &[String], reports: &[Report<'_>]) -> Vec<Option<String>> {
    let mut out = vec![None; reports.len()];
    let mut by_name: HashMap<Option<String>, Vec<usize>> = HashMap::new();
    for (i, r) in reports.iter().enumerate().filter(|(_, r)| r.renamable) {
        // A name that says what went wrong (`Expected 2 but got 1`) is a message, no name;
        // names that differ in figures are names of their own (`a.rs - f (line 37)`, `(line
        // 42)`), but places in one file (`meter_test.go:19:`, `:21:`) are alike, unless the
        // report's status line gives the place as its test's name (`:a.test:3: [Failed]`,
        // shelltestrunner's tests are known by their file and number).
        let stated = crate::line::status_name(&lines[r.start]);
        let key = |n: &str| {
            if crate::line::bare_location(n.trim_end_matches(':')) && stated.as_deref() != Some(n) {
                digits_masked(n)
            } else {
                n.to_owned()
            }
        };
        by_name
            .entry(r.name.filter(|n| !message_like(n)).map(key))
            .or_default()
            .push(i);
    }
    // The groups whose reports lack a name of their own: those with none, and those whose
    // name several share. In log order, so the result does not depend on the map's.
    let mut groups: Vec<Vec<usize>> = by_name
        .into_iter()
        .filter(|(name, members)| members.len() >= 2 || name.is_none())
        .map(|(_, members)| members)
        .filter(|members| members.len() >= 2)
        .collect();
    groups.sort_by_key(|g| g[0]);
    // The shape that named the most reports of a group, to try on the rest of the log.
    let mut best: Option<(usize, Shape)> = None;
    for group in &groups {
        let Some((shape, names)) = PLACES
            .iter()
            .find_map(|&place| shared_shape(lines, reports, group, place))
        else {
            continue;
        };
        for (&i, name) in group.iter().zip(names) {
            if by_place(reports[i].name, &name) {
                out[i] = Some(name);
            }
        }
        if best.as_ref().is_none_or(|(n, _)| group.len() > *n) {
            best = Some((group.len(), shape));
        }
    }
    // The other reports of the log printed in that shape are named by it too (`not ok 5 the
    // 14th is in week two` is as nameless as the `should equal` ones around it).
    if let Some((_, shape)) = best {
        for (i, r) in reports.iter().enumerate() {
            if !r.renamable || out[i].is_some() {
                continue;
            }
            if let Some(name) = line_at(lines, reports, i, shape.place)
                .and_then(|line| name_in_shape(line, &shape))
                .filter(|n| r.name != Some(n.as_str()) && by_place(r.name, n))
            {
                out[i] = Some(name);
            }
        }
    }
    // A report whose name came back the same is left as it was.
    for (slot, r) in out.iter_mut().zip(reports) {
        if slot.as_deref() == r.name {
            *slot = None;
        }
    }
    out
}

/// Whether `name` may replace a report's `old` one. A place (`meter_test.go:21:`) names a
/// finding, and two findings at one file share its shape: it gives way only to a test's id, one
/// word (`MeterSuite.TestDelta`), not to what varies in a message.
fn by_place(old: Option<&str>, name: &str) -> bool {
    !old.is_some_and(|o| crate::line::bare_location(o.trim_end_matches(':')))
        || !name.contains(char::is_whitespace)
}

/// The line at `place` for report `i`: inside it, or above it and below the header of the report
/// before.
fn line_at<'l>(
    lines: &'l [String],
    reports: &[Report<'_>],
    i: usize,
    place: Place,
) -> Option<&'l str> {
    let r = &reports[i];
    let nonblank = |k: &usize| !lines[*k].trim().is_empty();
    let at = match place {
        Place::Inside(n) => (r.start..=r.end.min(lines.len().checked_sub(1)?))
            .filter(nonblank)
            .nth(n)?,
        Place::Above(n) => {
            // Up to the report before's first line: a runner's title for the next test often
            // ends up as the last line of the report before it (a TAP comment after a YAML
            // block), and what sits over that report's header is that report's.
            let floor = i
                .checked_sub(1)
                .map_or(0, |p| reports[p].start.saturating_add(1));
            (floor..r.start.min(lines.len()))
                .rev()
                .filter(nonblank)
                .nth(n - 1)?
        }
    };
    Some(&lines[at])
}

/// The group's lines at `place`, when every report has one, they share constant ends, and
/// what varies between them reads as a name, a different one for each: that shape and the
/// names.
fn shared_shape(
    lines: &[String],
    reports: &[Report<'_>],
    group: &[usize],
    place: Place,
) -> Option<(Shape, Vec<String>)> {
    let picked: Vec<&str> = group
        .iter()
        .map(|&i| line_at(lines, reports, i, place))
        .collect::<Option<_>>()?;
    let raw: Vec<Vec<&str>> = picked.iter().map(|l| tokens(l)).collect();
    let masked: Vec<Vec<String>> = raw
        .iter()
        .map(|t| t.iter().map(|x| mask(x)).collect())
        .collect();
    let (prefix, suffix) = constant_ends(&masked, &raw);
    // A shape is something the lines share: with no constant end, any lines would do.
    if prefix + suffix == 0 {
        return None;
    }
    let names: Vec<String> = raw
        .iter()
        .map(|t| name_between(t, prefix, suffix).filter(|n| !message_like(n)))
        .collect::<Option<_>>()?;
    // Names tell reports apart by their words: what varies only in its figures (`(after 1
    // test)`, `(after 5 tests)`) is a count.
    let mut seen = std::collections::HashSet::new();
    if !names.iter().all(|n| seen.insert(digits_masked(n))) {
        return None;
    }
    let first = &masked[0];
    let shape = Shape {
        place,
        prefix: first[..prefix].to_vec(),
        suffix: first[first.len() - suffix..].to_vec(),
    };
    Some((shape, names))
}

/// The name a line of `shape` carries: what lies between its constant ends.
fn name_in_shape(line: &str, shape: &Shape) -> Option<String> {
    let raw = tokens(line);
    let masked: Vec<String> = raw.iter().map(|x| mask(x)).collect();
    let (p, s) = (shape.prefix.len(), shape.suffix.len());
    if masked.len() <= p + s
        || masked[..p] != shape.prefix[..]
        || masked[masked.len() - s..] != shape.suffix[..]
    {
        return None;
    }
    name_between(&raw, p, s).filter(|n| !message_like(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    fn renamed(log: &str, spans: &[(usize, usize, Option<&str>)]) -> Vec<Option<String>> {
        let reports: Vec<Report<'_>> = spans
            .iter()
            .map(|&(start, end, name)| Report {
                start,
                end,
                name,
                renamable: true,
            })
            .collect();
        names_that_vary(&lines(log), &reports)
    }

    #[test]
    fn a_title_line_over_each_report_names_reports_that_share_a_name() {
        let log = "=== prop_a from P.hs:3 ===\n+++ OK, passed 100 tests.\n\n\
                   === prop_b from P.hs:6 ===\n*** Failed! Falsified (after 1 test):\n0\n\n\
                   === prop_c from P.hs:9 ===\n*** Failed! Falsified (after 1 test):\n[1]\n";
        let got = renamed(
            log,
            &[
                (4, 5, Some("Falsified (after 1")),
                (8, 9, Some("Falsified (after 1")),
            ],
        );
        assert_eq!(
            got,
            [
                Some("prop_b from".to_owned()),
                Some("prop_c from".to_owned())
            ]
        );
    }

    #[test]
    fn a_comment_over_each_point_names_them_all_once_some_share_a_message() {
        let log = "# hours: rounds\nnot ok 3 should equal\n  ---\n\
                   # hours: week of month\nnot ok 5 the 14th is in week two\n  ---\n\
                   # payroll: rate\nnot ok 6 should equal\n  ---\n";
        let got = renamed(
            log,
            &[
                (1, 2, Some("not ok 3 should equal")),
                (4, 5, Some("not ok 5 the 14th is in week two")),
                (7, 8, Some("not ok 6 should equal")),
            ],
        );
        assert_eq!(
            got,
            [
                Some("hours: rounds".to_owned()),
                Some("hours: week of month".to_owned()),
                Some("payroll: rate".to_owned())
            ]
        );
    }

    #[test]
    fn names_of_their_own_stay_and_so_do_shapes_that_name_no_one_apart() {
        // Distinct names are kept, whatever sits above them.
        let log = "# one\nFAIL alpha\n# two\nFAIL beta\n";
        assert_eq!(
            renamed(log, &[(1, 1, Some("alpha")), (3, 3, Some("beta"))]),
            [None, None]
        );
        // Lines above that are alike as printed tell the reports apart no better.
        let log = "-- run --\nboom one\n-- run --\nboom two\n";
        assert_eq!(renamed(log, &[(1, 1, None), (3, 3, None)]), [None, None]);
        // Nor do lines that differ only in their figures: a counter is no name.
        let log = "-- pass 1 --\nboom one\n-- pass 2 --\nboom two\n";
        assert_eq!(renamed(log, &[(1, 1, None), (3, 3, None)]), [None, None]);
    }

    #[test]
    fn a_title_is_looked_for_below_the_report_before_and_no_higher() {
        // A title swallowed by the report before (its last line) is still the next one's.
        let log = "== a ==\nFAIL x\n  at a\n== b ==\nFAIL x\n  at b\n";
        let got = renamed(log, &[(1, 3, Some("x")), (4, 5, Some("x"))]);
        assert_eq!(got, [Some("a".to_owned()), Some("b".to_owned())]);
        // What sits over the report before's header is that report's: two titles over the
        // first of two adjacent reports name neither.
        let log = "== a ==\n== b ==\nFAIL x\nFAIL x\n";
        let got = renamed(log, &[(2, 2, Some("x")), (3, 3, Some("x"))]);
        assert_eq!(got, [None, None]);
    }
}
