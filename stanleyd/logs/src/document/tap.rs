//! TAP streams (13 and 14) wherever they sit in a log: nested subtests, YAML diagnostics,
//! headings that name the test whose assertions follow.

use crate::found::Found;
use crate::line::bounded_message;
use crate::stated::Stated;
use std::collections::HashMap;

/// One test point of a TAP stream.
#[derive(Debug)]
pub(crate) struct Point {
    /// Its line.
    at: usize,
    depth: usize,
    ok: bool,
    name: String,
    /// Announced by `# Subtest: name` (a test), or not (an assertion of the enclosing test).
    announced: bool,
    /// Where its subtest block starts (its `# Subtest:` line), else its own line.
    from: usize,
    /// The end (exclusive) of its YAML diagnostics, else its line + 1.
    to: usize,
    /// The message of its diagnostics (`error:`, `message:`, a thrown `stack`), if any.
    message: Option<String>,
    /// The heading it is an assertion under (an index into the stream's headings), if any.
    heading: Option<usize>,
}

/// Whether a TAP comment at the stream's top level is a heading naming the test whose
/// assertions follow (`# adds numbers` above `ok 1 should be equal`, as tape and the
/// runners that copy it print): one space after `#`, no count or subtest announcement, a
/// test point on the next non-blank line and no comment on the line before. Diagnostics
/// (`#   Failed test 'x'`, bats' `# output`) are indented after the `#` or follow other
/// comments, and a closing comment has no point after it.
pub(crate) fn tap_heading(lines: &[String], i: usize) -> Option<String> {
    let l = &lines[i];
    let text = l.strip_prefix("# ")?;
    if text.starts_with(char::is_whitespace)
        || text.is_empty()
        || text.starts_with("Subtest:")
        || crate::stated::states_counts(text)
        || text
            .split_whitespace()
            .next()
            .is_some_and(|w| ["tests", "pass", "fail", "ok", "todo", "skip"].contains(&w))
    {
        return None;
    }
    // The point must be at the heading's own depth: a heading above nested points is the
    // comment of a test whose own point closes them (it names that test already).
    let next = lines[i + 1..].iter().find(|n| !n.trim().is_empty())?;
    if next.starts_with(char::is_whitespace) {
        return None;
    }
    tap_point(next)?;
    // A comment among comments is a diagnostic of the point before them (bats prints what a
    // failing test wrote as `# …` after its `not ok`).
    let previous = lines[..i].iter().rev().find(|n| !n.trim().is_empty());
    if previous.is_some_and(|p| p.trim_start().starts_with('#')) {
        return None;
    }
    Some(text.trim().to_owned())
}

pub(crate) fn tap_point(t: &str) -> Option<(bool, String)> {
    let (ok, rest) = if let Some(r) = t.strip_prefix("not ok") {
        (false, r)
    } else if let Some(r) = t.strip_prefix("ok") {
        (true, r)
    } else {
        return None;
    };
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    let rest = rest.trim_start();
    let rest = rest
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    let rest = rest.strip_prefix("- ").unwrap_or(rest);
    let name = rest.split(" # ").next().unwrap_or(rest).trim().to_owned();
    Some((ok, name))
}

/// The name a description quotes before saying more of it (`'rle round-trips' falsified in 1
/// attempts`): the quoted words, when words follow the closing quote.
fn quoted_name(description: &str) -> Option<&str> {
    let quote = description
        .chars()
        .next()
        .filter(|c| ['\'', '"'].contains(c))?;
    let rest = &description[1..];
    let close = rest.find(quote)?;
    let (name, after) = (&rest[..close], &rest[close + 1..]);
    (!name.trim().is_empty() && after.starts_with(' ') && after.split_whitespace().count() >= 2)
        .then_some(name)
}

/// The message of a test point's YAML diagnostics: `error:` (inline or a block), else
/// `message:`, else what it compares (`found:`/`wanted:`, a `diff:`, ava's `details:` or
/// `values:` with the difference).
pub(crate) fn yaml_message(block: &[String]) -> Option<String> {
    for key in [
        "error:", "message:", "found:", "wanted:", "diff:", "details:", "values:",
    ] {
        let Some(at) = block.iter().position(|l| l.trim_start().starts_with(key)) else {
            continue;
        };
        let value = block[at].trim_start()[key.len()..].trim();
        // A scalar on the key's line; a block (`|`, `>`) or a nested mapping (nothing after the
        // key) below it.
        if !value.is_empty() && !value.starts_with('|') && !value.starts_with('>') {
            let v = value.trim_matches(|c| c == '\'' || c == '"').to_owned();
            if !v.is_empty() {
                return Some(v);
            }
            continue;
        }
        let depth = block[at].len() - block[at].trim_start().len();
        let under = block[at + 1..]
            .iter()
            .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > depth)
            .count();
        let mut under = &block[at + 1..at + 1 + under];
        // A Python traceback in the block says what failed at its end: the exception and what
        // follows it (`AssertionError:` then `Expected: 'x'` / `but: was 'y'`).
        if let Some(from) = under
            .iter()
            .any(|l| l.trim() == "Traceback (most recent call last):")
            .then(|| crate::line::python_exception(under))
            .flatten()
        {
            under = &under[from..];
        }
        let lines: Vec<&str> = under.iter().map(|l| l.trim()).collect();
        let text = lines.join("\n").trim().to_owned();
        if !text.is_empty() {
            return Some(text);
        }
    }
    // What was compared (`expected:` and `actual:`, as tape prints them).
    let field = |key: &str| {
        block
            .iter()
            .find_map(|l| l.trim_start().strip_prefix(key).map(str::trim))
            .filter(|v| !v.is_empty())
    };
    match (field("expected:"), field("actual:")) {
        (Some(e), Some(a)) => Some(format!("expected: {e}\nactual: {a}")),
        _ => None,
    }
}

/// A failed point's comments as Test::More prints them (`Failed test 'x'`, then `at t/a.t line
/// 11.` or `in t/a.t at line 11.`, then what its assertion found: `expecting: …`/`found: …`,
/// `died: …`, the values a `cmp_ok` compared, `Structures begin differing at:`): the failed
/// test's line and what follows its place, up to the run's closing count. None when nothing
/// follows, or only a drawn table (the failed test's line then says it best).
fn said_after_place(notes: &[String]) -> Option<String> {
    let [failed, at, rest @ ..] = notes else {
        return None;
    };
    let placed = (at.starts_with("at ") || at.starts_with("in ")) && at.contains(" line ");
    if !failed.starts_with("Failed test") || !placed {
        return None;
    }
    let said: Vec<String> = rest
        .iter()
        .take_while(|l| !l.starts_with("Looks like"))
        .cloned()
        .collect();
    let first = said.first()?;
    if first.starts_with(['+', '|']) || said.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    let mut whole = vec![failed.clone()];
    whole.extend(said);
    Some(crate::line::bounded(&whole))
}

/// The failures of a TAP stream (13 or 14, nested subtests, YAML diagnostics), wherever it
/// sits in the log: a failing test is a `not ok` announced by `# Subtest:` (or a top-level
/// one); a failing `not ok` inside a test that was not announced is an assertion of that test
/// and gives it its message; a test that failed only because tests inside it did is not a
/// failure of its own. The lines of the stream are returned as covered. None when there is
/// no TAP stream with a failure.
pub(crate) fn tap(
    lines: &[String],
    covered: &[bool],
    stated: &Stated,
) -> Option<(Vec<Found>, Vec<usize>)> {
    // A stream: a version line or a plan, and test points.
    let marker = lines.iter().position(|l| {
        let t = l.trim();
        t.starts_with("TAP version ")
            || (t.starts_with("1..") && t[3..].chars().all(|c| c.is_ascii_digit()))
    })?;
    let first = stream_start(lines, marker);
    let Walked {
        mut points,
        headings,
        stream,
    } = walk(lines, covered, first);
    // What follows a bail-out is the test's that bailed, not the last point's.
    let bail = stream
        .iter()
        .copied()
        .find(|&i| lines[i].starts_with("Bail out!"));
    if let Some(bail) = bail {
        for p in points.iter_mut().filter(|p| p.at < bail) {
            p.to = p.to.min(bail);
        }
    }
    if points.iter().all(|p| p.ok) {
        return None;
    }
    let children = nested(&mut points);
    let mut out = heading_findings(lines, &headings, &points, stated);
    out.extend(bail.and_then(|bail| bailed_under_heading(lines, bail)));
    for p in 0..points.len() {
        let point = &points[p];
        if point.ok || !point.announced {
            continue;
        }
        let inner: Vec<usize> = children[p]
            .iter()
            .copied()
            .filter(|&c| !points[c].ok)
            .collect();
        let assertions: Vec<usize> = inner
            .iter()
            .copied()
            .filter(|&c| !points[c].announced)
            .collect();
        let failing_tests = inner.iter().any(|&c| points[c].announced);
        if failing_tests && assertions.is_empty() {
            // An aggregate: it failed because tests inside it did.
            continue;
        }
        // Its message: its first failing assertion (the assertion's name says what it
        // checked, its diagnostics what was found), else its own diagnostics.
        let message = assertions
            .first()
            .map(|&a| {
                let q = &points[a];
                match &q.message {
                    Some(m) if !q.name.is_empty() => format!("{}\n{m}", q.name),
                    Some(m) => m.clone(),
                    None => q.name.clone(),
                }
            })
            .or_else(|| point.message.clone());
        // A subtest's points printed before its own (TAP 14, without a `# Subtest:` line) are
        // its report, with the comment naming it above them (`# name`, brittle's).
        let mut from = children[p]
            .iter()
            .map(|&c| points[c].from)
            .min()
            .map_or(point.from, |c| c.min(point.from));
        if from < point.from
            && from > 0
            && lines[from - 1].trim().strip_prefix("# ") == Some(point.name.as_str())
        {
            from -= 1;
        }
        // What the point ran printed, kept whole in its YAML block (`output: |`, a wrapper
        // that runs a tool as one point): when that holds failures of its own, named, they are
        // what failed, each under the point's name.
        if assertions.is_empty() {
            let nested = printed_failures(lines, point.at + 1, point.to, &point.name);
            if !nested.is_empty() {
                out.extend(nested);
                continue;
            }
        }
        let block: Vec<String> = lines[from..point.to].to_vec();
        // A description that quotes the test's name and says what befell it (`'rle
        // round-trips' falsified in 1 attempts`, a property runner's): the quoted name names
        // it, the description opens the message.
        let (name, message) = match quoted_name(&point.name) {
            Some(quoted) if assertions.is_empty() => (
                quoted.to_owned(),
                Some(match message {
                    Some(m) => format!("{}\n{m}", point.name),
                    None => point.name.clone(),
                }),
            ),
            _ => (point.name.clone(), message),
        };
        out.push(Found {
            start: from,
            message: message.map(|m| bounded_message(&m)),
            name: Some(name),
            lines: block,
            anchor: "tap_not_ok",
            ..Found::default()
        });
        let _ = point.at;
    }
    out.sort_by_key(|f| f.start);
    (!out.is_empty()).then_some((out, stream))
}

/// The keys a YAML block gives what a program printed under (`output: |`, `stdout: |`).
const PRINTED: [&str; 4] = ["output", "stdout", "stderr", "log"];

/// The failures what a point ran printed holds, read as a log of its own: its YAML block's
/// literal text under a key of [`PRINTED`] (lines `from..to`), taken out of its indent; each
/// named (an unnamed reading says nothing the point does not), under `point`'s name.
fn printed_failures(lines: &[String], from: usize, to: usize, point: &str) -> Vec<Found> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let Some(key) = (from..to).find(|&k| {
        let t = lines[k].trim();
        t.split_once(": ").is_some_and(|(key, style)| {
            PRINTED.contains(&key) && matches!(style.trim(), "|" | "|-" | "|+" | ">" | ">-")
        })
    }) else {
        return Vec::new();
    };
    let depth = indent(&lines[key]);
    let end = (key + 1..to)
        .find(|&k| !lines[k].trim().is_empty() && indent(&lines[k]) <= depth)
        .unwrap_or(to);
    let body = &lines[key + 1..end];
    let Some(cut) = body
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent(l))
        .min()
    else {
        return Vec::new();
    };
    let text: Vec<&str> = body.iter().map(|l| l.get(cut..).unwrap_or("")).collect();
    let parsed = crate::parse_log(&text.join("\n"));
    if parsed.blocks.is_empty() || parsed.blocks.iter().any(|b| b.test_name.is_none()) {
        return Vec::new();
    }
    parsed
        .blocks
        .into_iter()
        .map(|b| {
            let start = key + b.start;
            Found {
                start,
                message: b.message,
                name: b.test_name.map(|n| format!("{point} › {n}")),
                lines: lines[start..(key + 1 + b.end).min(end)].to_vec(),
                anchor: "tap_not_ok",
                ..Found::default()
            }
        })
        .collect()
}

/// Where a TAP stream whose first version line or plan is at `marker` starts: its first point,
/// or the heading just above it.
fn stream_start(lines: &[String], marker: usize) -> usize {
    // A plan may come last (TAP allows it): the stream then starts at its first point, or
    // at the heading just above it.
    // (A nested stream's first plan is its first subtest's: the points indented above it, in
    // the stretch of TAP right before it, are the stream's too.)
    let stretch = lines[..marker]
        .iter()
        .rposition(|l| {
            let t = l.trim();
            !(t.is_empty() || t.starts_with('#') || tap_point(t).is_some())
        })
        .map_or(0, |k| k + 1);
    let nested_first = (stretch..marker).find(|&k| tap_point(lines[k].trim()).is_some());
    lines[..marker]
        .iter()
        .position(|l| !l.starts_with(char::is_whitespace) && tap_point(l.trim_end()).is_some())
        .into_iter()
        .chain(nested_first)
        .min()
        .map_or(marker, |p| {
            if p > 0 && tap_heading(lines, p - 1).is_some() {
                p - 1
            } else {
                p
            }
        })
}

/// Each point's children (the deeper points since the previous point at its depth or above),
/// the points that close children marked as tests, and their siblings too.
fn nested(points: &mut [Point]) -> Vec<Vec<usize>> {
    // A point's children: the deeper points since the previous point at its depth or above
    // (TAP 14 prints a subtest's points before its own), found in one pass.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); points.len()];
    let mut pending: std::collections::BTreeMap<usize, Vec<usize>> =
        std::collections::BTreeMap::new();
    for (p, point) in points.iter().enumerate() {
        let deeper: Vec<usize> = pending.range(point.depth + 1..).map(|(d, _)| *d).collect();
        for d in deeper {
            if let Some(list) = pending.remove(&d) {
                children[p].extend(list);
            }
        }
        pending.entry(point.depth).or_default().push(p);
    }
    // A point that closes points nested deeper is a test, announced by `# Subtest:` or not
    // (TAP 14 under a comment naming it, `# fair counts` over its indented points).
    for (p, kids) in children.iter().enumerate() {
        if !kids.is_empty() {
            points[p].announced = true;
        }
    }
    // A point named by a file (`not ok 1 test_ship.py`, a runner's point per test file, its
    // tests' points indented under it) stands for that file's tests: the points right under it
    // are tests, not assertions, each a failure of its own.
    for (p, kids) in children.iter().enumerate() {
        if !names_a_file(&points[p].name) {
            continue;
        }
        if let Some(top) = kids.iter().map(|&c| points[c].depth).min() {
            for &c in kids {
                if points[c].depth == top {
                    points[c].announced = true;
                }
            }
        }
    }
    // And a test's siblings are tests too (`not ok 6 - count unknown`, a test that died before
    // any assertion, beside tests that closed theirs).
    for kids in &children {
        // (A handful of depths, each once: the check stays linear in the points.)
        let depths: std::collections::BTreeSet<usize> = kids
            .iter()
            .filter(|&&c| points[c].announced)
            .map(|&c| points[c].depth)
            .collect();
        for &c in kids {
            if depths.contains(&points[c].depth) {
                points[c].announced = true;
            }
        }
    }
    children
}

/// Whether a point's name is a file's (`test_ship.py`, `test/api.test.js`): one word, its
/// extension a few lower-case letters or figures (a dotted test id, `mod.Class.test_x`, ends in
/// a longer word).
fn names_a_file(name: &str) -> bool {
    crate::text::path_like(name)
        && name.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                && ext.bytes().any(|b| b.is_ascii_lowercase())
        })
}

/// The failed tests headings name: a heading's test failed when an assertion under it did,
/// named by the heading, its message its first failing assertion's, its lines from the
/// heading to its last point's. When the log's stated count counts the failing assertions
/// and not the headings (tape's `# fail 4` over two headings), each failing assertion is a
/// failure of its own, named under its heading.
fn heading_findings(
    lines: &[String],
    headings: &[(usize, String)],
    points: &[Point],
    stated: &Stated,
) -> Vec<Found> {
    let said = |p: &Point| match &p.message {
        Some(m) if !p.name.is_empty() => format!("{}\n{m}", p.name),
        Some(m) => m.clone(),
        None => p.name.clone(),
    };
    let mut tests = Vec::new();
    let mut assertions = Vec::new();
    // Each heading's points, in one pass (a filter per heading would be quadratic).
    let mut by_heading: Vec<Vec<&Point>> = vec![Vec::new(); headings.len()];
    for p in points {
        if let Some(h) = p.heading.filter(|&h| h < headings.len()) {
            by_heading[h].push(p);
        }
    }
    for (h, (at, name)) in headings.iter().enumerate() {
        let under = &by_heading[h];
        let Some(failed) = under.iter().find(|p| !p.ok) else {
            continue;
        };
        let to = under.last().map_or(at + 1, |p| p.to);
        tests.push(Found {
            start: *at,
            message: Some(bounded_message(&said(failed))),
            name: Some(name.clone()),
            lines: lines[*at..to].to_vec(),
            anchor: "tap_not_ok",
            ..Found::default()
        });
        let mut first = true;
        for p in under.iter().filter(|p| !p.ok) {
            // The first keeps the heading's line, so the heading is in a block.
            let from = if std::mem::take(&mut first) {
                *at
            } else {
                p.at
            };
            assertions.push(Found {
                start: from,
                message: Some(bounded_message(&said(p))),
                name: Some(format!("{name} › {}", p.name)),
                lines: lines[from..p.to].to_vec(),
                anchor: "tap_not_ok",
                ..Found::default()
            });
        }
    }
    let announced = points.iter().filter(|p| !p.ok && p.announced).count();
    // With no count stated, failing assertions that each carry a label of their own (no
    // label repeated in the stream, as an assertion's default `should be equal` is) are
    // failures of their own too: `# balance` over `not ok 2 - credits minus debits` and `not
    // ok 3 - first two entries` (zora's).
    let own_labels = || {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for p in points {
            *seen.entry(p.name.as_str()).or_default() += 1;
        }
        points
            .iter()
            .filter(|p| !p.ok)
            .all(|p| !p.name.is_empty() && seen[p.name.as_str()] == 1)
    };
    if assertions.len() > tests.len()
        && (stated.agrees(assertions.len() + announced) && !stated.agrees(tests.len() + announced)
            || stated.is_empty() && own_labels())
    {
        assertions
    } else {
        tests
    }
}

/// A test named by a heading comment with the stream's bail-out (at `bail`) right under it (`# import`,
/// then `Bail out! Unhandled error.`, zora's): the test threw, and what it threw, printed
/// after the stream, is its message.
fn bailed_under_heading(lines: &[String], bail: usize) -> Option<Found> {
    let at = (0..bail).rev().find(|&i| !lines[i].trim().is_empty())?;
    let name = lines[at].strip_prefix("# ")?.trim();
    if name.is_empty() || name.starts_with("Subtest:") || !crate::line::name_like(name) {
        return None;
    }
    let end = lines.len().min(bail + 1 + crate::found::MAX_BLOCK);
    let message = crate::line::message_of(&lines[bail + 1..end])?;
    Some(Found {
        start: at,
        message: Some(bounded_message(&message)),
        name: Some(name.to_owned()),
        lines: lines[at..end].to_vec(),
        anchor: "tap_not_ok",
        ..Found::default()
    })
}

/// A TAP stream walked: its test points, its headings (line, name), and its lines.
struct Walked {
    points: Vec<Point>,
    headings: Vec<(usize, String)>,
    stream: Vec<usize>,
}

/// The end (exclusive) of the YAML block whose `---` is at `j`, under a point at depth `d`: after
/// its `...`; after a `---` as indented as its opener (txm closes a block as it opens it); or,
/// unclosed, before the next line no deeper than the point (a block is indented under it).
fn yaml_end(lines: &[String], j: usize, d: usize) -> usize {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let open = indent(&lines[j]);
    for (k, line) in lines.iter().enumerate().skip(j + 1) {
        let y = line.trim();
        if y == "..." || (y == "---" && indent(line) == open) {
            return k + 1;
        }
        if !y.is_empty() && indent(line) <= d {
            return k;
        }
    }
    lines.len()
}

/// A point that says why after its name (`not ok 2 multiplies: output mismatch`) when its
/// diagnostics name no message: the reason, then what they hold.
fn reason_after_name(name: &str, block: &[String]) -> Option<String> {
    let (_, why) = name.rsplit_once(": ")?;
    if block.is_empty() || why.trim().is_empty() {
        return None;
    }
    let held: Vec<&str> = block
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && *l != "---" && *l != "...")
        .take(crate::line::MAX_MESSAGE_LINES)
        .collect();
    Some(format!("{}\n{}", why.trim(), held.join("\n")))
}

/// Walks the TAP stream that starts at `first`: each test point with its YAML block, its
/// comment notes and what it printed, whether a `# Subtest:` announced it, and the heading it
/// is an assertion under.
fn walk(lines: &[String], covered: &[bool], first: usize) -> Walked {
    let leading = comments_lead(lines, covered, first);
    let mut walked = walk_points(lines, covered, first, leading);
    if leading {
        diagnostics_before(lines, &mut walked.points, first);
    }
    walked
}

/// A comment that only counts (`# tests 5`, `# pass 3`, `# fail 2`).
fn counting_comment(t: &str) -> bool {
    t.strip_prefix('#')
        .map(str::trim_start)
        .and_then(|r| r.split_whitespace().next())
        .is_some_and(|w| {
            [
                "tests",
                "suites",
                "pass",
                "fail",
                "cancelled",
                "skipped",
                "todo",
                "duration_ms",
            ]
            .contains(&w)
        })
}

/// Whether the stream's comments lead the points they describe, each point's diagnostics
/// printed before it (`# ERROR: ./t/a.t at line 9` and `# -1 == 1` over `not ok 10 - IS …`):
/// the first point has comments before it, the last none after it, no point has a YAML block,
/// a failing point has comments before it, and most passing points do too. Where diagnostics
/// follow their point (Test::More's `#   Failed test`, bats' `# (in test file …)`), the first
/// point has none before it or the last failure's trail after it.
fn comments_lead(lines: &[String], covered: &[bool], first: usize) -> bool {
    let mut comments = 0usize;
    let (mut points, mut first_led) = (0usize, false);
    let (mut passing, mut passing_led, mut failing_led) = (0usize, 0usize, 0usize);
    for i in first..lines.len() {
        if covered[i] {
            continue;
        }
        let l = &lines[i];
        let t = l.trim();
        if t.is_empty() {
            continue;
        }
        if l.starts_with(char::is_whitespace) {
            if t == "---" {
                return false;
            }
            continue;
        }
        if t.starts_with('#') {
            comments += usize::from(!counting_comment(t));
            continue;
        }
        if let Some((ok, _)) = tap_point(t) {
            let led = comments > 0;
            if points == 0 {
                first_led = led;
            }
            points += 1;
            if ok {
                passing += 1;
                passing_led += usize::from(led);
            } else {
                failing_led += usize::from(led);
            }
            comments = 0;
        } else if (t.starts_with("1..") || t.starts_with("TAP version ")) && points == 0 {
            // (A plan after the points closes the stream: the comments before it are the
            // last point's trail.)
            comments = 0;
        }
    }
    points >= 3 && first_led && comments == 0 && failing_led > 0 && passing_led * 5 >= passing * 3
}

/// A line of diagnostics that only says where (`ERROR: ./t/a.t at line 9`): a label, a file
/// and its line in words.
fn only_where(note: &str) -> bool {
    let t = note
        .split_once(": ")
        .filter(|(label, _)| !label.contains(' '))
        .map_or(note, |(_, rest)| rest)
        .trim();
    t.split_once(" at line ").is_some_and(|(path, n)| {
        crate::text::path_like(path)
            && !path.contains(' ')
            && !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
    })
}

/// Gives each top-level point the comments right before it (where the stream prints them so),
/// its message those comments but one that only says where; the point before ends where they
/// start.
fn diagnostics_before(lines: &[String], points: &mut [Point], first: usize) {
    let mut previous: Option<usize> = None;
    for k in 0..points.len() {
        if points[k].depth != 0 {
            continue;
        }
        let floor = previous.map_or(first, |p| points[p].at + 1);
        let mut from = points[k].at;
        while from > floor
            && lines[from - 1].starts_with('#')
            && !counting_comment(lines[from - 1].trim())
        {
            from -= 1;
        }
        if let Some(p) = previous {
            points[p].to = points[p].to.min(from).max(points[p].at + 1);
        }
        let notes: Vec<String> = lines[from..points[k].at]
            .iter()
            .map(|l| l.trim_start_matches('#').trim().to_owned())
            .filter(|n| !n.is_empty() && !only_where(n))
            .collect();
        points[k].from = points[k].from.min(from);
        points[k].message = (!notes.is_empty()).then(|| crate::line::bounded(&notes));
        previous = Some(k);
    }
}

/// The walk itself; with `leading`, a top-level comment is never a heading (it leads its
/// point).
fn walk_points(lines: &[String], covered: &[bool], first: usize, leading: bool) -> Walked {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut points: Vec<Point> = Vec::new();
    let mut announced: Vec<(usize, usize, String)> = Vec::new(); // (line, depth, name)
    // Headings (line, name) and the one the top-level points are under now.
    let mut headings: Vec<(usize, String)> = Vec::new();
    let mut under: Option<usize> = None;
    let mut i = first;
    let mut stream: Vec<usize> = Vec::new();
    while i < lines.len() {
        if covered[i] {
            i += 1;
            continue;
        }
        let l = &lines[i];
        let t = l.trim();
        let d = indent(l);
        if let Some(name) = t.strip_prefix("# Subtest:") {
            announced.push((i, d, name.trim().to_owned()));
            stream.push(i);
            i += 1;
            continue;
        }
        if d == 0
            && !leading
            && let Some(name) = tap_heading(lines, i)
        {
            headings.push((i, name));
            under = Some(headings.len() - 1);
            stream.push(i);
            i += 1;
            continue;
        }
        // A plan or a new stream ends the last heading's test.
        if t.starts_with("TAP version ") || (t.starts_with("1..") && d == 0) {
            under = None;
        }
        let Some((ok, name)) = tap_point(t) else {
            i += 1;
            continue;
        };
        stream.push(i);
        // Its YAML block: `---` deeper than the point, up to `...`, with comments allowed
        // between the point and the block.
        let mut to = i + 1;
        let mut j = i + 1;
        while j < lines.len() && lines[j].trim().starts_with('#') && indent(&lines[j]) > d {
            j += 1;
        }
        if lines
            .get(j)
            .is_some_and(|y| y.trim() == "---" && indent(y) > d)
        {
            to = yaml_end(lines, j, d);
        }
        let mut message =
            yaml_message(&lines[i + 1..to]).or_else(|| reason_after_name(&name, &lines[i + 1..to]));
        // TAP 13's diagnostics as comments after the point (`# (in test file x, line 3)`), and
        // what the test printed, up to the next point, plan or subtest.
        let mut notes: Vec<String> = Vec::new();
        while to < lines.len() && !covered[to] {
            let n = lines[to].trim();
            let count = counting_comment(n);
            if tap_point(n).is_some()
                || (indent(&lines[to]) == 0 && tap_heading(lines, to).is_some())
                || n.starts_with("# Subtest:")
                || n.starts_with("1..")
                || count
                || (!n.is_empty() && indent(&lines[to]) < d)
            {
                break;
            }
            if let Some(c) = n.strip_prefix('#') {
                notes.push(c.trim().to_owned());
            } else if !n.is_empty() {
                notes.push(n.to_owned());
            }
            to += 1;
        }
        if message.is_none() {
            message = said_after_place(&notes).or_else(|| crate::line::message_of(&notes));
        }
        // Announced when the nearest `# Subtest:` at this depth, not yet used, names it.
        let own = announced
            .iter()
            .rposition(|(_, ad, an)| *ad == d && *an == name);
        let from = own.map_or(i, |k| announced[k].0);
        if let Some(k) = own {
            announced.remove(k);
        }
        for s in i..to {
            stream.push(s);
        }
        let heading = if d == 0 && own.is_none() { under } else { None };
        points.push(Point {
            at: i,
            depth: d,
            ok,
            name,
            announced: (own.is_some() || d == 0) && heading.is_none(),
            from,
            to,
            message,
            heading,
        });
        i = to;
    }
    Walked {
        points,
        headings,
        stream,
    }
}

#[cfg(test)]
mod heading_tests {
    use super::*;

    /// The failures of `log` read as TAP.
    fn read(log: &str) -> Vec<Found> {
        let log: Vec<String> = log.lines().map(str::to_owned).collect();
        tap(&log, &vec![false; log.len()], &Stated::default())
            .unwrap()
            .0
    }

    /// Each failure's name and message.
    fn named(found: &[Found]) -> Vec<(&str, &str)> {
        found
            .iter()
            .map(|f| {
                (
                    f.name.as_deref().unwrap_or(""),
                    f.message.as_deref().unwrap_or(""),
                )
            })
            .collect()
    }

    #[test]
    fn a_stream_whose_plan_comes_last_is_read_from_its_first_point() {
        let found = read(
            "# adds numbers\nok 1 should be equal\n# subtracts numbers\nnot ok 2 difference of 5 and 3\n  ---\n    operator: equal\n    expected: 2\n    actual:   3\n  ...\n1..2\n",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name.as_deref(), Some("subtracts numbers"));
    }

    /// Comments after each failed point, then the plan last (a unittest TAP reporter's
    /// tracebacks): the comments are the point's before them.
    #[test]
    fn comments_before_a_closing_plan_are_the_last_points_trail() {
        let trace = |e: &str| {
            format!(
                "# Traceback (most recent call last):\n#   File \"t.py\", line 6, in f\n#     g()\n# {e}\n"
            )
        };
        let log = format!(
            "# TAP results for Ledger\nnot ok 1 adds\n{}not ok 2 subtracts\n{}ok 3 rounds\nnot ok 4 divides\n{}1..4\n",
            trace("AssertionError: 125 != 130"),
            trace("AssertionError: 'EUR' != 'USD'"),
            trace("ValueError: overdraft")
        );
        let found = read(&log);
        let got: Vec<(&str, bool)> = found
            .iter()
            .map(|f| {
                let message = f.message.as_deref().unwrap_or("");
                (f.name.as_deref().unwrap_or(""), message.contains("Error"))
            })
            .collect();
        // (The first comment heads the stream: it scopes the names.)
        assert_eq!(
            got,
            [
                ("TAP results for Ledger › adds", true),
                ("TAP results for Ledger › subtracts", true),
                ("TAP results for Ledger › divides", true)
            ]
        );
        assert!(found[0].message.as_deref().unwrap().contains("125 != 130"));
        assert!(found[2].message.as_deref().unwrap().contains("overdraft"));
    }

    /// A wrapper that ran a test runner as one point keeps what it printed in the point's
    /// YAML block: the failures in it are what failed.
    #[test]
    fn failures_a_point_printed_in_its_yaml_block_are_what_failed() {
        let log = "not ok 1 - unit tests\n  ---\n  command: make test\n  output: |\n    TAP version 13\n    not ok 1 adds\n    # Traceback (most recent call last):\n    # AssertionError: 1 != 2\n    ok 2 rounds\n    not ok 3 divides\n    # Traceback (most recent call last):\n    # ZeroDivisionError: division by zero\n    1..3\n  ...\n1..1\n";
        let found = read(log);
        let got: Vec<(&str, &str)> = found
            .iter()
            .map(|f| {
                let message = f.message.as_deref().unwrap_or("");
                (f.name.as_deref().unwrap_or(""), message)
            })
            .collect();
        assert_eq!(
            got,
            [
                ("unit tests › adds", "AssertionError: 1 != 2"),
                (
                    "unit tests › divides",
                    "ZeroDivisionError: division by zero"
                )
            ]
        );
        // What a point printed that names no failure leaves the point as it was.
        let log = "not ok 1 - lint\n  ---\n  output: |\n    something went wrong\n  ...\n1..1\n";
        assert_eq!(read(log)[0].name.as_deref(), Some("lint"));
    }

    /// Assertions under a heading that carry the assertion's default label (`should be equal`,
    /// tape's, repeated in the stream) are the heading's test; with no count stated, labels of
    /// their own would make each a failure (zora's, `tests/runners/capture zora`).
    #[test]
    fn a_tap_heading_names_the_test_whose_assertions_follow() {
        let found = read(
            "TAP version 13\n# adds numbers\nok 1 should be equal\n# subtracts numbers\nnot ok 2 should be equal\n  ---\n    operator: equal\n    expected: 2\n    actual:   3\n    at: Test.<anonymous> (/p/test.js:9:5)\n  ...\nnot ok 3 second check\n  ---\n    operator: ok\n  ...\n# divides\nnot ok 4 should be equal\n  ---\n    operator: equal\n    expected: 2\n    actual:   4\n  ...\n\n1..4\n# tests 4\n# pass  1\n# fail  3\n",
        );
        let got = named(&found);
        assert_eq!(
            got,
            [
                (
                    "subtracts numbers",
                    "should be equal\nexpected: 2\nactual: 3"
                ),
                ("divides", "should be equal\nexpected: 2\nactual: 4"),
            ]
        );
        assert_eq!((found[0].start, found[0].lines.len()), (3, 12));
    }

    /// A YAML block closed as it opened (`---`, txm's) ends there, and a point that says why
    /// after its name gives that reason first when its block names no message (D-204).
    #[test]
    fn yaml_closed_by_dashes_and_a_reason_after_the_name() {
        let found = read(
            "TAP version 13\n1..3\nok 1 adds\nnot ok 2 multiplies: output mismatch\n  ---\n  expected stdout: |\n    5\n  actual stdout: |\n    6\n  ---\nnot ok 3 throws: program exited with error\n  ---\n  exit status: 1\n  ---\n\n# 1/3 passed\n# FAILED 2\n",
        );
        let got = named(&found);
        assert_eq!(
            got,
            [
                (
                    "multiplies: output mismatch",
                    "output mismatch\nexpected stdout: |\n5\nactual stdout: |\n6"
                ),
                (
                    "throws: program exited with error",
                    "program exited with error\nexit status: 1"
                ),
            ]
        );
    }
}
