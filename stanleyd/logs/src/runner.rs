//! Runner parsers, the accelerators (issue 46): the text reports of runners whose structure is
//! known (pytest, Jest, Vitest, node's spec reporter, gotestsum, go test; `cargo test`,
//! nextest and Bun by their section headers), each one linear pass that marks the lines it read.
//! Their readings are judged by the same agreement with the stated count as the generic path's.

use std::collections::{HashMap, HashSet};

use crate::block::{FailureBlock, MAX_BLOCK, capped, finish};
use crate::found::Found;
use crate::line::{first_nonblank, go_message, with_detail};

// ---------------------------------------------------------------------------------------------
// Text logs

/// Failures the runners' own structure marks in a text log; their lines are marked covered.
/// A runner's parser: its failures, marking the lines it read as covered.
pub(crate) type RunnerParser = fn(&[String], &mut [bool]) -> Vec<Found>;

/// Each runner's parser is one linear pass; `pace` is looked at between them.
pub(crate) fn text(
    lines: &[String],
    covered: &mut [bool],
    pace: &stanley_core::Pace<'_>,
) -> Result<Vec<Found>, stanley_core::Cancelled> {
    let mut out = Vec::new();
    // TAP streams are read as documents (`documents::tap`), nested or not, for every runner.
    let parsers: [RunnerParser; 6] = [pytest, jest, vitest, node_spec, gotestsum, go];
    for parser in parsers {
        out.extend(parser(lines, covered));
        pace.now()?;
    }
    Ok(out)
}

/// gotestsum: `=== FAIL: <package> <Test> (0.00s)` headers after `=== Failed`, each followed by
/// the test's output; a parent with no output of its own is not a failure of its own.
pub(crate) fn gotestsum(lines: &[String], covered: &mut [bool]) -> Vec<Found> {
    let mut out = Vec::new();
    let header = |t: &str| -> Option<String> {
        let rest = t.strip_prefix("=== FAIL: ")?;
        let rest = rest.split(" (").next().unwrap_or(rest).trim();
        Some(rest.rsplit(' ').next().unwrap_or(rest).to_owned())
    };
    let Some(section) = lines.iter().position(|l| l.trim() == "=== Failed") else {
        return out;
    };
    mark(covered, 0, lines.len());
    let heads: Vec<(usize, String)> = (section..lines.len())
        .filter_map(|i| header(lines[i].trim()).map(|n| (i, n)))
        .collect();
    let parents = parents_of(heads.iter().map(|(_, n)| n.as_str()));
    for (k, (i, name)) in heads.iter().enumerate() {
        let mut end = heads.get(k + 1).map_or(lines.len(), |(j, _)| *j);
        if let Some(done) = lines[*i..end].iter().position(|l| l.starts_with("DONE ")) {
            end = i + done;
        }
        let body: Vec<String> = lines[i + 1..end]
            .iter()
            .filter(|l| !l.trim().starts_with("--- "))
            .cloned()
            .collect();
        let child_failed = parents.contains(name.as_str());
        if body.iter().all(|l| l.trim().is_empty()) && child_failed {
            continue;
        }
        out.push(Found {
            start: *i,
            message: go_message(&body),
            name: Some(name.clone()),
            lines: lines[*i..end].to_vec(),
            anchor: "go_fail",
            ..Found::default()
        });
    }
    out
}

/// Every name that is a parent of one of `names` (`A` and `A/b` for `A/b/c`): a set built in
/// one pass, so asking whether a test has a failed subtest costs one lookup.
pub(crate) fn parents_of<'a>(names: impl Iterator<Item = &'a str>) -> HashSet<&'a str> {
    let mut parents = HashSet::new();
    for name in names {
        for (p, _) in name.match_indices('/') {
            parents.insert(&name[..p]);
        }
    }
    parents
}

pub(crate) fn mark(covered: &mut [bool], from: usize, to: usize) {
    let to = to.min(covered.len());
    for c in &mut covered[from..to] {
        *c = true;
    }
}

/// A line of `=` around a title: `===== FAILURES =====`.
pub(crate) fn banner(line: &str) -> Option<&str> {
    let t = line.trim();
    (t.starts_with("==") && t.ends_with("==")).then(|| t.trim_matches('=').trim())
}

/// pytest's `FAILURES` and `ERRORS` sections: a block per `____ name ____` header, named by its
/// node id from the short summary when it is there.
pub(crate) fn pytest(lines: &[String], covered: &mut [bool]) -> Vec<Found> {
    let mut out = Vec::new();
    // Node ids from `FAILED path::name - message` and `ERROR path::name - message`.
    let ids: Vec<String> = lines
        .iter()
        .filter_map(|l| {
            let t = l.trim();
            let rest = t
                .strip_prefix("FAILED ")
                .or_else(|| t.strip_prefix("ERROR "))?;
            let id = rest.split(" - ").next()?.trim();
            id.contains("::").then(|| id.to_owned())
        })
        .collect();
    // Each id by every name a header can show for it: the id itself, and every part of its
    // dotted form after a `.` or `/` (`test_b`, `TestA.test_b`); the first id wins, one pass.
    let mut by_short: HashMap<String, usize> = HashMap::new();
    for (k, id) in ids.iter().enumerate() {
        let dotted = id.replace("::", ".");
        by_short.entry(id.clone()).or_insert(k);
        for (p, _) in dotted.match_indices(['.', '/']) {
            by_short.entry(dotted[p + 1..].to_owned()).or_insert(k);
        }
    }
    let full_name = |short: &str| -> String {
        by_short
            .get(short)
            .map_or_else(|| short.to_owned(), |&k| ids[k].clone())
    };
    let mut in_section = false;
    let mut i = 0;
    while i < lines.len() {
        if let Some(title) = banner(&lines[i]) {
            in_section = title == "FAILURES" || title == "ERRORS";
            if in_section {
                covered[i] = true;
            }
            i += 1;
            continue;
        }
        let t = lines[i].trim();
        let header = in_section
            && t.starts_with("___")
            && t.ends_with("___")
            && !t.trim_matches('_').trim().is_empty()
            && !t.contains("_ _ _");
        if !header {
            i += 1;
            continue;
        }
        let raw = t.trim_matches('_').trim();
        let short = raw
            .strip_prefix("ERROR at setup of ")
            .or_else(|| raw.strip_prefix("ERROR at teardown of "))
            .or_else(|| raw.strip_prefix("ERROR collecting "))
            .unwrap_or(raw);
        let mut j = i + 1;
        while j < lines.len() {
            let n = lines[j].trim();
            let next_header = n.starts_with("___") && n.ends_with("___") && !n.contains("_ _ _");
            if next_header || banner(&lines[j]).is_some() {
                break;
            }
            j += 1;
        }
        let body = lines[i..j].to_vec();
        // The assertion's `E ` lines; without them (a plugin's soft checks, `FAILURE: check 1
        // == 2`), what the section's own lines say.
        let message = body
            .iter()
            .find_map(|l| l.strip_prefix("E ").map(|m| m.trim().to_owned()))
            .filter(|m| !m.is_empty())
            .or_else(|| {
                body.iter()
                    .find_map(|l| l.trim().strip_prefix("FAILURE: ").map(str::to_owned))
            });
        mark(covered, i, j);
        out.push(Found {
            start: i,
            name: Some(full_name(short)),
            message,
            lines: body,
            anchor: "pytest_section",
            ..Found::default()
        });
        i = j;
    }
    if !out.is_empty() {
        // The short summary and the warnings summary repeat or are not failures.
        for (k, l) in lines.iter().enumerate() {
            if let Some(title) = banner(l)
                && (title.starts_with("short test summary")
                    || title.starts_with("warnings summary")
                    || title.contains(" failed")
                    || title.contains(" passed"))
            {
                let end = lines[k + 1..]
                    .iter()
                    .position(|x| banner(x).is_some())
                    .map_or(lines.len(), |p| k + 1 + p);
                mark(covered, k, end + 1);
            }
        }
    }
    out
}

/// jest: `● Suite › test` headers; a block runs to the next header, file result or summary.
pub(crate) fn jest(lines: &[String], covered: &mut [bool]) -> Vec<Found> {
    let mut out = Vec::new();
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| !covered[i] && lines[i].trim_start().starts_with("● "))
        .collect();
    if starts.is_empty() {
        return out;
    }
    for (n, &i) in starts.iter().enumerate() {
        let name = lines[i]
            .trim_start()
            .trim_start_matches("● ")
            .trim()
            .to_owned();
        let limit = starts.get(n + 1).copied().unwrap_or(lines.len());
        let mut j = i + 1;
        while j < limit {
            let t = lines[j].trim_start();
            if t.starts_with("FAIL ")
                || t.starts_with("PASS ")
                || t.starts_with("Test Suites:")
                || t.starts_with("Summary of all failing tests")
            {
                break;
            }
            j += 1;
        }
        mark(covered, i, j);
        // `● Console` is captured console output, not a failure.
        if name == "Console" {
            continue;
        }
        let body = lines[i..j].to_vec();
        let message = jest_message(&body[1..]);
        out.push(Found {
            start: i,
            name: Some(name),
            message,
            lines: body,
            anchor: "jest_test",
            ..Found::default()
        });
    }
    // The summary repeats failures (`Summary of all failing tests` in CI mode), and each
    // file's `FAIL path` header is the failures' file, not a failure.
    if let Some(s) = lines
        .iter()
        .position(|l| l.trim_start().starts_with("Test Suites:"))
    {
        mark(covered, s, lines.len());
    }
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if t.starts_with("FAIL ") || t.starts_with("PASS ") {
            covered[i] = true;
        }
    }
    out
}

/// jest's message: the first line, with the expected and received values when it is a matcher.
pub(crate) fn jest_message(body: &[String]) -> Option<String> {
    // A report that dumps what it sent and got (`Request  HTTP`, `Response`, …) and lists its
    // checks, the failed one marked (`✕ Headers > Content-Type`, then what was expected and
    // given): the failed check says what went wrong, not the dump's first heading.
    let first = body.iter().find(|l| !l.trim().is_empty())?;
    if !crate::line::message_like(first)
        && let Some(at) = body.iter().position(|l| marked_row(l).is_some())
    {
        let row = marked_row(&body[at]).unwrap_or_default();
        let detail: Vec<&str> = body[at + 1..]
            .iter()
            .map(|l| l.trim())
            .filter(|t| !t.is_empty())
            .take_while(|t| marked_row(t).is_none())
            .take(4)
            .collect();
        return Some(
            std::iter::once(row)
                .chain(detail)
                .collect::<Vec<_>>()
                .join("\n"),
        );
    }
    with_detail(body)
}

/// A row a failure's mark opens (`✕ Headers > Content-Type`): the words after it.
fn marked_row(line: &str) -> Option<&str> {
    let t = line.trim();
    crate::line::FAILURE_MARKS
        .iter()
        .find_map(|m| t.strip_prefix(m)?.strip_prefix(' '))
        .map(str::trim)
        .filter(|r| r.chars().any(char::is_alphanumeric))
}

/// vitest: ` FAIL  file > suite > test` entries after `Failed Tests`, each closed by a
/// `⎯⎯[n/m]⎯` rule.
pub(crate) fn vitest(lines: &[String], covered: &mut [bool]) -> Vec<Found> {
    let mut out = Vec::new();
    let Some(section) = lines.iter().position(|l| {
        let t = l.trim();
        t.starts_with('⎯') && (t.contains("Failed Tests") || t.contains("Failed Suites"))
    }) else {
        return out;
    };
    // The run's live list above repeats names and first lines.
    mark(covered, 0, section + 1);
    let mut i = section + 1;
    while i < lines.len() {
        let t = lines[i].trim();
        if let Some(rest) = t.strip_prefix("FAIL ") {
            let mut j = i + 1;
            while j < lines.len() {
                let n = lines[j].trim();
                if n.starts_with("FAIL ") || (n.starts_with('⎯') && !n.contains('[')) {
                    break;
                }
                if n.starts_with('⎯') && n.contains('[') {
                    j += 1;
                    break;
                }
                j += 1;
            }
            let body = lines[i..j].to_vec();
            mark(covered, i, j);
            out.push(Found {
                start: i,
                name: Some(rest.trim().to_owned()),
                message: first_nonblank(&body[1..]),
                lines: body,
                anchor: "vitest_fail",
                ..Found::default()
            });
            i = j;
            continue;
        }
        if t.starts_with("Test Files") {
            mark(covered, i, lines.len());
            break;
        }
        i += 1;
    }
    out
}

/// `✖ name (1.2ms)` → `name`.
pub(crate) fn spec_name(t: &str) -> Option<String> {
    let rest = t.strip_prefix("✖ ")?;
    let name = match rest.rfind(" (") {
        Some(i) if rest.ends_with(')') => &rest[..i],
        _ => rest,
    };
    Some(name.trim().to_owned())
}

pub(crate) fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// node --test's spec reporter: the `✖ failing tests:` list when there is one, else each `✖`
/// line with the more-indented lines under it (a parent with nothing under it is not a failure
/// of its own).
pub(crate) fn node_spec(lines: &[String], covered: &mut [bool]) -> Vec<Found> {
    let mut out = Vec::new();
    if let Some(list) = lines.iter().position(|l| l.trim() == "✖ failing tests:") {
        mark(covered, 0, lines.len());
        let mut i = list + 1;
        while i < lines.len() {
            let t = lines[i].trim();
            let Some(name) = spec_name(t) else {
                i += 1;
                continue;
            };
            // The `test at file:line:col` line just above names where the test is.
            let start = if i > 0 && lines[i - 1].trim().starts_with("test at ") {
                i - 1
            } else {
                i
            };
            let mut j = i + 1;
            while j < lines.len() {
                let n = lines[j].trim();
                if n.starts_with("test at ") || spec_name(n).is_some() {
                    break;
                }
                j += 1;
            }
            let body = lines[start..j].to_vec();
            out.push(Found {
                start,
                message: with_detail(&lines[i + 1..j]),
                name: Some(name),
                lines: body,
                anchor: "node_fail",
                ..Found::default()
            });
            i = j;
        }
        return out;
    }
    // Without the list, a `✖` line is a test's only with the duration the reporter always
    // gives it (`✖ adds (1.2ms)`): a linter marks its messages with `✖` too.
    let timed = |t: &str| {
        t.strip_suffix("ms)")
            .and_then(|r| r.rsplit_once(" ("))
            .is_some_and(|(_, n)| {
                !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            })
    };
    let mut i = 0;
    while i < lines.len() {
        let Some(name) =
            spec_name(lines[i].trim()).filter(|_| !covered[i] && timed(lines[i].trim()))
        else {
            i += 1;
            continue;
        };
        let depth = indent(&lines[i]);
        let mut j = i + 1;
        while j < lines.len() && (lines[j].trim().is_empty() || indent(&lines[j]) > depth) {
            if spec_name(lines[j].trim()).is_some() {
                break;
            }
            j += 1;
        }
        while j > i + 1 && lines[j - 1].trim().is_empty() {
            j -= 1;
        }
        if j > i + 1 {
            let body = lines[i..j].to_vec();
            mark(covered, i, j);
            out.push(Found {
                start: i,
                message: with_detail(&body[1..]),
                name: Some(name),
                lines: body,
                anchor: "node_fail",
                ..Found::default()
            });
        } else {
            covered[i] = true;
        }
        i = j.max(i + 1);
    }
    out
}

/// go test: each `--- FAIL: Name` with its output: in `-v` the lines between `=== RUN Name`
/// and its result, otherwise the more-indented lines under the result; a panic after a result
/// belongs to that test. A parent whose only output is its subtests' results is not a failure
/// of its own.
pub(crate) fn go(lines: &[String], covered: &mut [bool]) -> Vec<Found> {
    let mut out = Vec::new();
    let result_name = |t: &str| -> Option<String> {
        let rest = t.strip_prefix("--- FAIL: ")?;
        Some(rest.split(" (").next().unwrap_or(rest).trim().to_owned())
    };
    if !lines.iter().any(|l| result_name(l.trim()).is_some()) {
        return out;
    }
    let verbose = lines.iter().any(|l| l.starts_with("=== RUN "));
    // Every test with a failed subtest anywhere in the log (`Name` for `Name/sub`), found once.
    let results: Vec<String> = lines.iter().filter_map(|l| result_name(l.trim())).collect();
    let parents = parents_of(results.iter().map(String::as_str));
    // -v: the output lines of each run of a test, given to the result that ends that run (a
    // test run again, by -count or a same-named test in another package, keeps its own lines).
    // (Lines by their index, so the lines a result takes are covered with it.)
    let mut own: HashMap<usize, Vec<usize>> = HashMap::new();
    if verbose {
        let mut pending: HashMap<String, Vec<usize>> = HashMap::new();
        let mut current: Option<String> = None;
        for (k, l) in lines.iter().enumerate() {
            let t = l.trim();
            if let Some(n) = t
                .strip_prefix("=== RUN ")
                .or_else(|| t.strip_prefix("=== CONT "))
            {
                current = Some(n.trim().to_owned());
            } else if let Some(rest) = t.strip_prefix("--- ") {
                // `--- FAIL: Name (0.00s)`, `--- PASS: …`, `--- SKIP: …` end the name's run.
                if let Some((_, named)) = rest.split_once(": ") {
                    let name = named.split(" (").next().unwrap_or(named).trim();
                    if let Some(run) = pending.remove(name) {
                        own.insert(k, run);
                    }
                }
            } else if t.starts_with("=== ")
                || t == "FAIL"
                || t == "PASS"
                || t.starts_with("FAIL\t")
                || t.starts_with("ok  ")
            {
                current = None;
            } else if let Some(c) = &current {
                pending.entry(c.clone()).or_default().push(k);
            }
        }
    }
    let mut i = 0;
    while i < lines.len() {
        let Some(name) = result_name(lines[i].trim()) else {
            i += 1;
            continue;
        };
        let depth = indent(&lines[i]);
        let mut j = i + 1;
        let mut body = Vec::new();
        if let Some(lines_of) = own.remove(&i) {
            for k in lines_of {
                covered[k] = true;
                body.push(lines[k].clone());
            }
        }
        // The lines under the result (plain mode), stopping at another result.
        while j < lines.len() {
            let n = lines[j].trim();
            if lines[j].trim().is_empty() || indent(&lines[j]) <= depth || n.starts_with("--- ") {
                break;
            }
            body.push(lines[j].clone());
            j += 1;
        }
        // A panic right after the result is this test's.
        if lines.get(j).is_some_and(|l| l.starts_with("panic: ")) {
            while j < lines.len() {
                let n = lines[j].trim();
                if n.starts_with("FAIL\t")
                    || n == "FAIL"
                    || n.starts_with("ok  ")
                    || n.starts_with("=== ")
                {
                    break;
                }
                body.push(lines[j].clone());
                j += 1;
            }
        }
        let has_failed_child = parents.contains(name.as_str());
        mark(covered, i, j);
        if body.iter().all(|l| l.trim().is_empty()) && has_failed_child {
            i = j.max(i + 1);
            continue;
        }
        let mut block = vec![lines[i].clone()];
        block.extend(body.iter().cloned());
        out.push(Found {
            start: i,
            message: go_message(&body),
            name: Some(name),
            lines: block,
            anchor: "go_fail",
            ..Found::default()
        });
        i = j.max(i + 1);
    }
    if verbose {
        // Every test's run lines are accounted for by its result.
        for (k, l) in lines.iter().enumerate() {
            let t = l.trim();
            if t.starts_with("=== ")
                || t.starts_with("--- ")
                || (t.contains(".go:") && indent(l) > 0)
            {
                covered[k] = true;
            }
        }
    } else {
        detail_above_results(lines, covered, &mut out);
    }
    out
}

/// An assertion library that prints to the output itself (matryer/is: `\tinvoice_test.go:12:
/// 249 != 399`) puts each test's detail before its result line, not under it: when the
/// detail over the first result has the shape of what stands under every other result and
/// the last result has nothing under it, each result's detail is the one above it (D-192's
/// principle, for go's plain results).
fn detail_above_results(lines: &[String], covered: &mut [bool], out: &mut [Found]) {
    let Some(first) = out.first() else {
        return;
    };
    let over_at = first.start.checked_sub(1);
    let shape = |l: &str| {
        let t = l.trim();
        t.split_once(": ")
            .map(|(place, _)| crate::text::digits_masked(place))
            .filter(|p| p.contains(".go:"))
    };
    let Some(over_shape) = over_at.and_then(|k| shape(&lines[k])) else {
        return;
    };
    let last_bare = out
        .last()
        .is_some_and(|b| b.lines.iter().skip(1).all(|l| l.trim().is_empty()));
    let bodies_alike = out[..out.len() - 1].iter().all(|b| {
        b.lines
            .get(1)
            .and_then(|l| shape(l))
            .is_some_and(|s| s == over_shape)
    });
    if out.len() < 2 || !last_bare || !bodies_alike {
        return;
    }
    // Each block takes the detail above its result: the first, the indented lines over it.
    let mut from = over_at.unwrap_or(0);
    while from > 0 && shape(&lines[from - 1]).is_some() {
        from -= 1;
    }
    for c in &mut covered[from..first.start] {
        *c = true;
    }
    // (From the line after the result before it, blank lines included, to its own result.)
    for b in out.iter_mut() {
        let header = b.start;
        b.message = go_message(&lines[from..header]);
        b.start = from;
        b.lines = lines[from..=header].to_vec();
        from = header + 1;
    }
}

/// Sections delimited by runner-specific headers: `cargo test`'s `---- name stdout ----`,
/// nextest's `FAIL [..]` results, Bun's `(fail)` lines. Returns the blocks and the lines they
/// cover, which are not anchored again.
pub(crate) fn structured(lines: &[String]) -> (Vec<FailureBlock>, Vec<bool>) {
    let mut covered = vec![false; lines.len()];
    let mut blocks = Vec::new();
    let summary_at = lines.iter().position(|l| {
        let t = l.trim();
        t.starts_with("Summary [")
            || (t.ends_with(" fail") && t.trim_end_matches(" fail").trim().parse::<u32>().is_ok())
            || (t.contains("test")
                && t.ends_with("failed:")
                && t.split_whitespace()
                    .next()
                    .is_some_and(|n| n.parse::<u32>().is_ok()))
    });
    let end_all = summary_at.unwrap_or(lines.len());
    // Mark the summary tail as covered: it repeats names of failures already seen.
    if let Some(s) = summary_at {
        covered[s..].iter_mut().for_each(|c| *c = true);
    }
    let cargo_header =
        |t: &str| (t.starts_with("---- ") && t.ends_with(" stdout ----")) || t == "failures:";
    let nextest_header = |t: &str| {
        t.starts_with("FAIL [")
            || t.starts_with("PASS [")
            || t.starts_with("SKIP [")
            || t.starts_with("────")
    };
    let mut i = 0;
    while i < end_all {
        let t = lines[i].trim();
        let cargo_section = t.starts_with("---- ") && t.ends_with(" stdout ----");
        let nextest_fail = t.starts_with("FAIL [");
        if cargo_section || nextest_fail {
            let mut j = i + 1;
            while j < end_all
                && !(if cargo_section {
                    cargo_header(lines[j].trim())
                } else {
                    nextest_header(lines[j].trim())
                })
            {
                j += 1;
            }
            let (kept, omitted) = capped(&lines[i..j]);
            covered[i..j].iter_mut().for_each(|c| *c = true);
            blocks.push(finish(
                kept,
                i + 1,
                omitted,
                vec![if cargo_section {
                    "cargo_stdout"
                } else {
                    "nextest_fail"
                }],
            ));
            i = j;
            continue;
        }
        i += 1;
    }
    // Bun: each `(fail)` closes a block that began after the previous outcome line.
    let mut block_start = 0;
    for i in 0..end_all {
        let t = lines[i].trim();
        let outcome = ["(pass) ", "(fail) ", "(skip) ", "(todo) "]
            .iter()
            .any(|p| t.starts_with(p));
        if t.starts_with("(fail) ") && !covered[i] {
            let (kept, omitted) = if i + 1 - block_start > MAX_BLOCK {
                let mut head = lines[block_start..block_start + 80].to_vec();
                head.extend_from_slice(&lines[i + 1 - 80..=i]);
                (head, i + 1 - block_start - MAX_BLOCK)
            } else {
                (lines[block_start..=i].to_vec(), 0)
            };
            covered[block_start..=i].iter_mut().for_each(|c| *c = true);
            blocks.push(finish(kept, block_start + 1, omitted, vec!["bun_fail"]));
        }
        if outcome {
            block_start = i + 1;
        }
    }
    // After `cargo test`'s sections come the list of failures, the result line and cargo's own
    // error line: all repeats.
    if blocks
        .iter()
        .any(|b: &FailureBlock| b.anchors == ["cargo_stdout"])
        && let Some(last) = lines.iter().rposition(|l| l.trim() == "failures:")
    {
        covered[last..].iter_mut().for_each(|c| *c = true);
    }
    // Each test binary ends with its list of failures, its result line and cargo's own error
    // line (`error: test failed, to rerun pass --lib`): repeats, not failures.
    if blocks
        .iter()
        .any(|b: &FailureBlock| b.anchors == ["cargo_stdout"])
    {
        for i in 0..lines.len() {
            let t = lines[i].trim();
            if t.starts_with("test result: FAILED") {
                covered[i] = true;
                let mut k = i + 1;
                while k < lines.len() && k <= i + 3 {
                    let n = lines[k].trim();
                    if n.starts_with("error: test failed") || n.is_empty() {
                        covered[k] = true;
                    }
                    k += 1;
                }
                // Back over the names list to its `failures:` line.
                let mut k = i;
                while k > 0 && !covered[k - 1] {
                    k -= 1;
                    if lines[k].trim() == "failures:" {
                        covered[k..i].iter_mut().for_each(|c| *c = true);
                        break;
                    }
                }
            }
            if t.starts_with("error: test failed, to rerun pass")
                || (t.starts_with("error: ") && t.ends_with(" targets failed:"))
            {
                covered[i] = true;
                let mut k = i + 1;
                while k < lines.len() && lines[k].trim().starts_with('`') {
                    covered[k] = true;
                    k += 1;
                }
            }
        }
    }
    // `cargo test`'s `test x ... FAILED` lines name failures whose output has its own section.
    for (i, l) in lines.iter().enumerate() {
        if l.trim().starts_with("test ")
            && l.trim().ends_with(" ... FAILED")
            && blocks
                .iter()
                .any(|b: &FailureBlock| b.anchors == ["cargo_stdout"])
        {
            covered[i] = true;
        }
    }
    blocks.sort_by_key(|b| b.start);
    (blocks, covered)
}
