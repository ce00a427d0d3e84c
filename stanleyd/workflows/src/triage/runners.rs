//! Runner-aware failure reports: each runner's own structure gives each failure its block, its
//! name and its message. Documents (jest and vitest `--json`, `go test -json`, nextest's
//! libtest-json, JUnit XML) are parsed as what they are; text logs are split by pytest's
//! `FAILURES`/`ERRORS` sections, jest's `●` headers, vitest's `FAIL` entries, node's failing-tests
//! list and TAP `not ok` entries, and go's `--- FAIL` results with their output. What no runner
//! claims is left to the generic anchors in `logs.rs`.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use super::logs::strip_ansi;

/// One failure a runner reported.
#[derive(Debug, Default)]
pub(super) struct Found {
    /// 0-based first line in the log (documents: the failure's index).
    pub start: usize,
    pub lines: Vec<String>,
    pub name: Option<String>,
    pub message: Option<String>,
    pub anchor: &'static str,
    /// A JUnit case whose text holds only run and result lines (a go parent of failed subtests).
    pub bare: bool,
}

fn first_nonblank(lines: &[String]) -> Option<String> {
    lines
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())
        .map(|l| l.chars().take(300).collect())
}

fn split_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Documents

/// Failures of a whole document that is a runner's JSON, JSON-lines or JUnit XML report; None
/// when `text` is not one.
pub(super) fn document(text: &str) -> Option<Vec<Found>> {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('<') {
        return junit(t).or_else(|| super::documents::xml(t));
    }
    if !t.starts_with('{') && !t.starts_with('[') {
        return None;
    }
    if let Ok(doc) = serde_json::from_str::<Value>(t) {
        return jest_like(&doc).or_else(|| super::documents::json(&doc));
    }
    json_lines(t)
}

/// The failures of a JSON or XML document read by shape alone (no runner's format).
pub(super) fn generic_document(text: &str) -> Option<Vec<Found>> {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('<') {
        return super::documents::xml(t);
    }
    if !t.starts_with('{') && !t.starts_with('[') {
        return None;
    }
    if let Ok(doc) = serde_json::from_str::<Value>(t) {
        return super::documents::json(&doc);
    }
    let events: Vec<Value> = t
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str::<Value>)
        .collect::<Result<_, _>>()
        .ok()?;
    super::documents::json(&Value::Array(events))
}

/// jest and vitest `--json`: `testResults[].assertionResults[]`.
fn jest_like(doc: &Value) -> Option<Vec<Found>> {
    let results = doc.get("testResults")?.as_array()?;
    let mut out = Vec::new();
    for file in results {
        let path = file["name"].as_str().unwrap_or("");
        let assertions = file["assertionResults"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let jest = assertions.iter().any(|a| a.get("failureDetails").is_some());
        let sep = if jest { " › " } else { " > " };
        for a in assertions.iter().filter(|a| a["status"] == "failed") {
            let mut parts: Vec<String> = a["ancestorTitles"]
                .as_array()
                .map(|v| {
                    v.iter()
                        .filter_map(|t| t.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            parts.push(a["title"].as_str().unwrap_or("").to_owned());
            let text: String = a["failureMessages"]
                .as_array()
                .map(|m| {
                    m.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default();
            let lines = split_lines(&strip_ansi(&text));
            out.push(Found {
                start: out.len(),
                message: with_detail(&lines),
                name: Some(parts.join(sep)),
                lines,
                anchor: "json_report",
                ..Found::default()
            });
        }
        // A file that failed before any test ran (an import error) has only its message.
        if assertions.iter().all(|a| a["status"] != "failed")
            && file["status"] == "failed"
            && let Some(msg) = file["message"].as_str().filter(|m| !m.trim().is_empty())
        {
            let lines = split_lines(&strip_ansi(msg));
            out.push(Found {
                start: out.len(),
                message: first_nonblank(&lines),
                name: Some(path.to_owned()),
                lines,
                anchor: "json_report",
                ..Found::default()
            });
        }
    }
    Some(out)
}

/// JSON lines: `go test -json` events and nextest's libtest-json events.
fn json_lines(text: &str) -> Option<Vec<Found>> {
    let events: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with(super::logs::OMITTED_PREFIX))
        .map(serde_json::from_str::<Value>)
        .collect::<Result<_, _>>()
        .ok()?;
    if events.iter().any(|e| e.get("Action").is_some()) {
        return Some(go_events(&events));
    }
    if events
        .iter()
        .any(|e| e.get("type").is_some() && e.get("event").is_some())
    {
        let mut out = Vec::new();
        for e in events
            .iter()
            .filter(|e| e["type"] == "test" && e["event"] == "failed")
        {
            let text = [e["stdout"].as_str(), e["stderr"].as_str()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("\n");
            let lines = split_lines(&strip_ansi(&text));
            out.push(Found {
                start: out.len(),
                message: panic_message(&lines).or_else(|| first_nonblank(&lines)),
                name: e["name"].as_str().map(str::to_owned),
                lines,
                anchor: "json_report",
                ..Found::default()
            });
        }
        return Some(out);
    }
    None
}

/// The message after a Rust `panicked at` line, with an assertion's `left:` and `right:`.
pub(super) fn panic_message(lines: &[String]) -> Option<String> {
    let i = lines.iter().position(|l| l.contains(" panicked at "))?;
    // The whole message: every line after `panicked at` up to the backtrace note or a blank.
    let message: Vec<&str> = lines[i + 1..]
        .iter()
        .map(|l| l.trim_end())
        .take_while(|l| {
            !l.trim().is_empty()
                && !l.trim_start().starts_with("note: ")
                && !l.trim_start().starts_with("stack backtrace:")
        })
        .take(super::segment::MAX_MESSAGE_LINES)
        .collect();
    if message.is_empty() {
        return None;
    }
    Some(
        message
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join("\n")
            .chars()
            .take(super::segment::MAX_MESSAGE_CHARS)
            .collect(),
    )
}

/// A message line with what follows it when it only announces a comparison: `Expected values
/// to be strictly equal:` or `expect(received).toEqual(expected)` gets the next lines that show
/// the values (not legends, stack frames or source excerpts), up to two.
pub(super) fn with_detail(lines: &[String]) -> Option<String> {
    let at = lines.iter().position(|l| !l.trim().is_empty())?;
    let first = lines[at].trim();
    let announces = first.ends_with(':') || first.contains("expect(") || first.contains("Expected");
    if !announces {
        return Some(first.chars().take(300).collect());
    }
    let legend = |t: &str| {
        [
            "- Expected",
            "+ Received",
            "- Snapshot",
            "+ actual - expected",
            "Expected:",
            "Received:",
        ]
        .iter()
        .any(|p| t.starts_with(p) && t.len() < 24)
    };
    let detail: Vec<&str> = lines[at + 1..]
        .iter()
        .map(|l| l.trim())
        .take_while(|t| {
            !(t.starts_with("at ") || t.starts_with('❯') || t.starts_with('>') || t.contains(" | "))
        })
        .filter(|t| {
            !t.is_empty()
                && !legend(t)
                && !matches!(
                    *t,
                    "Array [" | "Object {" | "]" | "}" | "{" | "- {" | "+ {" | "- }" | "+ }"
                )
        })
        .take(4)
        .collect();
    Some(
        std::iter::once(first)
            .chain(detail)
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(300)
            .collect(),
    )
}

fn go_events(events: &[Value]) -> Vec<Found> {
    // Output by (package, test); package-level output (a panic in go before 1.20) goes to the
    // test that failed last in that package.
    let mut output: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    for e in events {
        let package = e["Package"].as_str().unwrap_or("").to_owned();
        let test = e["Test"].as_str().map(str::to_owned);
        match (e["Action"].as_str(), test) {
            (Some("output"), Some(test)) => {
                let line = e["Output"].as_str().unwrap_or("").trim_end_matches('\n');
                output
                    .entry((package, test))
                    .or_default()
                    .push(line.to_owned());
            }
            (Some("output"), None) => {
                let line = e["Output"].as_str().unwrap_or("").trim_end_matches('\n');
                let owner = failed.iter().rev().find(|(p, _)| *p == package).cloned();
                if let Some(key) = owner {
                    let t = line.trim();
                    if !(t == "FAIL" || t.starts_with("FAIL\t") || t.starts_with("ok ")) {
                        output.entry(key).or_default().push(line.to_owned());
                    }
                }
            }
            (Some("fail"), Some(test)) => failed.push((package, test)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for key in &failed {
        let lines = output.get(key).cloned().unwrap_or_default();
        let own: Vec<String> = lines
            .iter()
            .filter(|l| {
                let t = l.trim();
                !(t.starts_with("=== ") || t.starts_with("--- "))
            })
            .cloned()
            .collect();
        // A parent that failed only because a subtest did has no output of its own.
        let has_failed_child = failed
            .iter()
            .any(|(p, t)| *p == key.0 && t.starts_with(&format!("{}/", key.1)));
        if own.is_empty() && has_failed_child {
            continue;
        }
        out.push(Found {
            start: out.len(),
            message: go_message(&own),
            name: Some(key.1.clone()),
            lines,
            anchor: "go_fail",
            ..Found::default()
        });
    }
    out
}

/// The first message of go test output: `file_test.go:12: text` without its location, or a
/// `panic:` line.
fn go_message(lines: &[String]) -> Option<String> {
    if let Some(p) = lines.iter().find(|l| l.trim().starts_with("panic: ")) {
        return Some(p.trim().chars().take(300).collect());
    }
    // The last logged line (`t.Fatal` ends the test, and `t.Log` lines come before errors),
    // with the deeper lines under it that continue it: a multi-line message, or an assertion
    // library's labelled body under a bare `file.go:12:` (`Error:`, `expected:`, `Messages:`),
    // less the lines that only say where.
    let logged = |l: &str| -> Option<String> {
        let t = l.trim();
        let (loc, rest) = t
            .split_once(": ")
            .or_else(|| t.strip_suffix(':').map(|loc| (loc, "")))?;
        loc.contains(".go:").then(|| rest.trim().to_owned())
    };
    let Some(at) = lines.iter().rposition(|l| logged(l).is_some()) else {
        return first_nonblank(lines);
    };
    let depth = indent(&lines[at]);
    let mut parts: Vec<String> = logged(&lines[at])
        .into_iter()
        .filter(|r| !r.is_empty())
        .collect();
    for l in &lines[at + 1..] {
        if l.trim().is_empty() || indent(l) <= depth || parts.len() >= 12 {
            break;
        }
        let t = l.trim();
        let value = t.split_once(':').map_or(t, |(_, v)| v.trim());
        let place = value.contains(".go:")
            && value
                .rsplit(':')
                .next()
                .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()));
        if !place {
            parts.push(t.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    if parts.is_empty() {
        return first_nonblank(lines);
    }
    Some(parts.join("\n").chars().take(1200).collect())
}

/// JUnit XML: `<testcase>` elements with a `<failure>` or `<error>`.
fn junit(text: &str) -> Option<Vec<Found>> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut out = Vec::new();
    let mut saw_junit = false;
    let mut case: Option<(String, String)> = None;
    // (kind, message attribute, text)
    let mut problem: Option<(String, String, String)> = None;
    // What the case printed (`<system-out>`, `<system-err>`): the report when the failure
    // element itself is empty (ctest's `<failure message=""/>`).
    let mut printed: Option<String> = None;
    let mut case_first: usize = 0;
    let attr = |e: &quick_xml::events::BytesStart<'_>, key: &[u8]| -> String {
        e.attributes()
            .flatten()
            .find(|a| a.key.as_ref() == key)
            .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()))
            .unwrap_or_default()
    };
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                let name = e.name().as_ref().to_vec();
                match name.as_slice() {
                    b"testsuites" | b"testsuite" => saw_junit = true,
                    b"testcase" => {
                        saw_junit = true;
                        case = Some((attr(&e, b"name"), attr(&e, b"classname")));
                        case_first = out.len();
                    }
                    b"system-out" | b"system-err" if case.is_some() => {
                        printed.get_or_insert_with(String::new);
                    }
                    b"failure" | b"error" if case.is_some() => {
                        let kind = String::from_utf8_lossy(&name).into_owned();
                        problem = Some((kind, attr(&e, b"message"), String::new()));
                    }
                    _ => {}
                }
            }
            Ok(Event::Empty(e)) => {
                let name = e.name().as_ref().to_vec();
                match name.as_slice() {
                    b"testsuites" | b"testsuite" | b"testcase" => saw_junit = true,
                    b"failure" | b"error" => {
                        if let Some((case_name, class)) = case.as_ref() {
                            let kind = String::from_utf8_lossy(&name).into_owned();
                            let message = attr(&e, b"message");
                            out.push(junit_found(
                                out.len(),
                                case_name,
                                class,
                                &kind,
                                &message,
                                "",
                            ));
                        }
                    }
                    _ => {}
                }
            }
            Ok(Event::Text(t)) => {
                let decoded = t.decode().map(|c| c.into_owned()).unwrap_or_default();
                if let Some((_, _, text)) = problem.as_mut() {
                    text.push_str(&decoded);
                } else if let Some(out) = printed.as_mut() {
                    out.push_str(&decoded);
                }
            }
            Ok(Event::CData(t)) => {
                if let Some((_, _, text)) = problem.as_mut() {
                    text.push_str(&String::from_utf8_lossy(&t));
                }
            }
            Ok(Event::GeneralRef(r)) => {
                if let Some((_, _, text)) = problem.as_mut() {
                    let name = String::from_utf8_lossy(&r).into_owned();
                    let resolved = match name.as_str() {
                        "amp" => "&".to_owned(),
                        "lt" => "<".to_owned(),
                        "gt" => ">".to_owned(),
                        "quot" => "\"".to_owned(),
                        "apos" => "'".to_owned(),
                        _ => r
                            .resolve_char_ref()
                            .ok()
                            .flatten()
                            .map(String::from)
                            .unwrap_or_default(),
                    };
                    text.push_str(&resolved);
                }
            }
            Ok(Event::End(e)) => match e.name().as_ref() {
                b"failure" | b"error" => {
                    if let (Some((name, class)), Some((kind, message, body))) =
                        (case.as_ref(), problem.take())
                    {
                        out.push(junit_found(out.len(), name, class, &kind, &message, &body));
                    }
                }
                b"testcase" => {
                    if let Some(text) = printed.take() {
                        let lines = split_lines(&text);
                        for f in &mut out[case_first..] {
                            if f.lines.iter().all(|l| l.trim().is_empty()) {
                                f.message = super::segment::message_of(&lines);
                                f.lines = lines.clone();
                            }
                        }
                    }
                    case = None;
                }
                _ => {}
            },
            Ok(Event::Eof) => break,
            Err(_) => return None,
            _ => {}
        }
    }
    // A go parent reported only because a subtest failed has no output of its own.
    let names: Vec<String> = out.iter().filter_map(|f| f.name.clone()).collect();
    out.retain(|f| {
        let Some(name) = &f.name else { return true };
        let test = name.rsplit(' ').next().unwrap_or(name);
        let child = names.iter().any(|n| n.contains(&format!("{test}/")));
        !(f.bare && child)
    });
    saw_junit.then_some(out)
}

fn junit_found(at: usize, name: &str, class: &str, kind: &str, message: &str, body: &str) -> Found {
    let mut lines = Vec::new();
    if !message.is_empty() {
        lines.extend(split_lines(message));
    }
    lines.extend(split_lines(body));
    let display = if class.is_empty() || name.starts_with(class) {
        name.to_owned()
    } else {
        format!("{class} {name}")
    };
    let bare = split_lines(body).iter().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with("=== ") || t.starts_with("--- ")
    });
    // A generic message attribute ("Failed") says less than the text: go's own lines, or its
    // first line.
    let body_lines = split_lines(body);
    // A message attribute that says only that it failed, or only where (`test failure`,
    // `ring_test.cpp:12`), gives way to the report's own text.
    let m = message.trim();
    let generic = (!m.contains(' ') && m.len() <= 12)
        || super::segment::says_nothing(m)
        || super::segment::bare_location(m);
    let from_body = if body_lines.iter().any(|l| l.contains(".go:")) {
        go_message(&body_lines)
    } else {
        super::segment::message_of(&body_lines).or_else(|| with_detail(&body_lines))
    };
    // An attribute the body's message repeats and goes on from (Catch2's expression, then its
    // expansion with the values) says less than the body.
    let generic = generic
        || (!m.is_empty()
            && from_body
                .as_deref()
                .is_some_and(|b| b.contains(m) && b.len() > m.len()));
    Found {
        bare,
        start: at,
        message: if generic {
            from_body.or_else(|| first_nonblank(&split_lines(message)))
        } else {
            // A multi-line attribute (gtest's `path:12` then the expectation) is a report of
            // its own.
            let attribute = split_lines(message);
            if attribute.len() > 1 {
                super::segment::message_of(&attribute).or(from_body)
            } else {
                with_detail(&attribute).or(from_body)
            }
        },
        name: Some(display),
        lines,
        anchor: if kind == "error" {
            "junit_error"
        } else {
            "junit_failure"
        },
    }
}

// ---------------------------------------------------------------------------------------------
// Text logs

/// Failures the runners' own structure marks in a text log; their lines are marked covered.
/// A runner's parser: its failures, marking the lines it read as covered.
type RunnerParser = fn(&[String], &mut [bool]) -> Vec<Found>;

/// Each runner's parser is one linear pass; `pace` is looked at between them.
pub(super) fn text(
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
fn gotestsum(lines: &[String], covered: &mut [bool]) -> Vec<Found> {
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
fn parents_of<'a>(names: impl Iterator<Item = &'a str>) -> HashSet<&'a str> {
    let mut parents = HashSet::new();
    for name in names {
        for (p, _) in name.match_indices('/') {
            parents.insert(&name[..p]);
        }
    }
    parents
}

fn mark(covered: &mut [bool], from: usize, to: usize) {
    let to = to.min(covered.len());
    for c in &mut covered[from..to] {
        *c = true;
    }
}

/// A line of `=` around a title: `===== FAILURES =====`.
fn banner(line: &str) -> Option<&str> {
    let t = line.trim();
    (t.starts_with("==") && t.ends_with("==")).then(|| t.trim_matches('=').trim())
}

/// pytest's `FAILURES` and `ERRORS` sections: a block per `____ name ____` header, named by its
/// node id from the short summary when it is there.
fn pytest(lines: &[String], covered: &mut [bool]) -> Vec<Found> {
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
        let message = body
            .iter()
            .find_map(|l| l.strip_prefix("E ").map(|m| m.trim().to_owned()))
            .filter(|m| !m.is_empty());
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
fn jest(lines: &[String], covered: &mut [bool]) -> Vec<Found> {
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
fn jest_message(body: &[String]) -> Option<String> {
    with_detail(body)
}

/// vitest: ` FAIL  file > suite > test` entries after `Failed Tests`, each closed by a
/// `⎯⎯[n/m]⎯` rule.
fn vitest(lines: &[String], covered: &mut [bool]) -> Vec<Found> {
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
fn spec_name(t: &str) -> Option<String> {
    let rest = t.strip_prefix("✖ ")?;
    let name = match rest.rfind(" (") {
        Some(i) if rest.ends_with(')') => &rest[..i],
        _ => rest,
    };
    Some(name.trim().to_owned())
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// node --test's spec reporter: the `✖ failing tests:` list when there is one, else each `✖`
/// line with the more-indented lines under it (a parent with nothing under it is not a failure
/// of its own).
fn node_spec(lines: &[String], covered: &mut [bool]) -> Vec<Found> {
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
    let mut i = 0;
    while i < lines.len() {
        let Some(name) = spec_name(lines[i].trim()).filter(|_| !covered[i]) else {
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
fn go(lines: &[String], covered: &mut [bool]) -> Vec<Found> {
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
    }
    out
}
