//! Any structured report is a document: the failures of a JSON or XML report no runner parser
//! claims (mocha's JSON reporter, pytest-json-report, Playwright, NUnit, TRX, Cucumber and the
//! like) found by what such reports share: a record whose status says it failed (or that sits in
//! a `failures` list), named by its own or its nearest ancestor's title, with the message found
//! under the keys reports use for it. A parent that failed only because its children did is not
//! a failure of its own; a record reported twice is one. What finds nothing is read as text.

use serde_json::Value;

use super::logs::strip_ansi;
use super::runners::Found;

/// Status words that mean a test failed.
const FAILED: [&str; 11] = [
    "failed",
    "fail",
    "failure",
    "error",
    "errored",
    "broken",
    "crashed",
    "timedout",
    "timed_out",
    "unexpected",
    "flaky_failed",
];
/// Keys that hold a record's status.
const STATUS_KEYS: [&str; 7] = [
    "status", "outcome", "state", "result", "event", "verdict", "action",
];
/// Keys that name a record, most specific first.
const NAME_KEYS: [&str; 15] = [
    "full_description",
    "fullDescription",
    "fullTitle",
    "fullName",
    "full_name",
    "fullname",
    "nodeid",
    "nodeId",
    "testName",
    "test_name",
    "name",
    "title",
    "description",
    "test",
    "id",
];
/// Keys under which reports keep a failure's message, most telling first.
const MESSAGE_KEYS: [&str; 23] = [
    "message",
    "exception",
    "exceptions",
    "failureMessage",
    "failureMessages",
    "error_message",
    "errorMessage",
    "crash",
    "longrepr",
    "err",
    "error",
    "errors",
    "failure",
    "failures",
    "reason",
    "details",
    "stack",
    "stackTrace",
    "stack_trace",
    "trace",
    "stderr",
    "stdout",
    "output",
];
/// Lists whose items are failures whatever they say.
const FAILURE_LISTS: [&str; 4] = ["failures", "failed", "failedTests", "errors"];
/// How deep a message is looked for under a record.
const MESSAGE_DEPTH: usize = 4;

/// A key's value, whatever its case (`Action`, `action`).
fn get<'a>(o: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a Value> {
    o.get(key).or_else(|| {
        o.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    })
}

fn failed_word(s: &str) -> bool {
    FAILED.contains(&s.to_ascii_lowercase().as_str())
}

/// Whether a JSON object says it failed.
fn says_failed(o: &serde_json::Map<String, Value>) -> bool {
    STATUS_KEYS
        .iter()
        .any(|k| get(o, k).and_then(Value::as_str).is_some_and(failed_word))
        || ["passed", "success", "ok"]
            .iter()
            .any(|k| get(o, k) == Some(&Value::Bool(false)))
}

fn name_of(o: &serde_json::Map<String, Value>) -> Option<String> {
    NAME_KEYS.iter().find_map(|k| {
        get(o, k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    })
}

/// The text of a message found at `v`: a string, strings joined, or an object's own message.
fn message_text(v: &Value, depth: usize) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .filter_map(|i| message_text(i, depth + 1))
                .collect();
            (!parts.is_empty()).then(|| parts.join("\n"))
        }
        Value::Object(o) if depth < MESSAGE_DEPTH => {
            // An error object: its message, then its stack when that adds lines.
            let message = MESSAGE_KEYS
                .iter()
                .find_map(|k| get(o, k).and_then(|m| message_text(m, depth + 1)));
            let stack = ["stack", "stackTrace", "stack_trace"]
                .iter()
                .find_map(|k| o.get(*k).and_then(Value::as_str))
                .filter(|s| !s.trim().is_empty());
            match (message, stack) {
                // A stack that starts with the message (`AssertionError: …` then frames) says it all.
                (Some(m), Some(s)) if s.contains(m.trim()) => Some(s.to_owned()),
                (Some(m), Some(s)) => Some(format!("{m}\n{s}")),
                (m, s) => m.or_else(|| s.map(str::to_owned)),
            }
        }
        _ => None,
    }
}

/// What one walk of a JSON document found: (name, message text).
type Record = (Option<String>, String);

/// Walks `v`; returns whether it holds a failed record (so a parent knows it is only an
/// aggregate of its children). `names` holds each named ancestor and whether it says it
/// failed: a nameless failed record (a step's result) is named after the nearest ancestor that
/// failed (the scenario), else the nearest named one.
fn walk_json(
    v: &Value,
    names: &mut Vec<(String, bool)>,
    listed: bool,
    out: &mut Vec<Record>,
) -> bool {
    match v {
        Value::Array(items) => {
            let mut any = false;
            for item in items {
                any |= walk_json(item, names, listed, out);
            }
            any
        }
        Value::Object(o) => {
            let own = name_of(o);
            if let Some(n) = &own {
                names.push((n.clone(), says_failed(o)));
            }
            let mut below = false;
            for (k, child) in o {
                let list = FAILURE_LISTS.contains(&k.as_str()) && child.is_array();
                if matches!(child, Value::Object(_) | Value::Array(_)) {
                    below |= walk_json(child, names, list, out);
                }
            }
            if own.is_some() {
                names.pop();
            }
            let failed = says_failed(o) || (listed && own.is_some());
            if failed && !below {
                let message = MESSAGE_KEYS
                    .iter()
                    .find_map(|k| get(o, k).and_then(|m| message_text(m, 1)))
                    .unwrap_or_default();
                let name = own.or_else(|| {
                    names
                        .iter()
                        .rev()
                        .find(|(_, failed)| *failed)
                        .or(names.last())
                        .map(|(n, _)| n.clone())
                });
                // A bare status with neither a name nor a message is no report of a test.
                if name.is_some() || !message.is_empty() {
                    out.push((name, message));
                }
                return true;
            }
            failed || below
        }
        _ => false,
    }
}

fn lines_of(text: &str) -> Vec<String> {
    strip_ansi(text)
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned())
        .collect()
}

fn found(records: Vec<Record>, anchor: &'static str) -> Vec<Found> {
    let mut seen: Vec<(Option<String>, String)> = Vec::new();
    let mut out = Vec::new();
    for (name, message) in records {
        if seen.iter().any(|(n, m)| *n == name && *m == message) {
            continue;
        }
        seen.push((name.clone(), message.clone()));
        let lines = lines_of(&message);
        out.push(Found {
            start: out.len(),
            message: super::segment::message_of(&lines)
                .or_else(|| super::runners::with_detail(&lines)),
            name,
            lines,
            anchor,
            ..Found::default()
        });
    }
    out
}

/// The failures of a JSON document (or of JSON lines, as an array) no runner parser claimed;
/// None when nothing in it reads as a failed test.
pub(super) fn json(doc: &Value) -> Option<Vec<Found>> {
    let mut records = Vec::new();
    walk_json(doc, &mut Vec::new(), false, &mut records);
    // An event stream (`go test -json`): a failed event says only that; the test's text is in
    // the other events that carry its name.
    if let Value::Array(events) = doc {
        for (name, message) in &mut records {
            let Some(name) = name.as_deref() else {
                continue;
            };
            if !message.is_empty() {
                continue;
            }
            let text: Vec<String> = events
                .iter()
                .filter_map(Value::as_object)
                .filter(|o| name_of(o).as_deref() == Some(name) && !says_failed(o))
                .filter_map(|o| {
                    MESSAGE_KEYS
                        .iter()
                        .find_map(|k| get(o, k).and_then(|m| message_text(m, 1)))
                })
                .map(|t| t.trim_end_matches('\n').to_owned())
                .collect();
            *message = text.join("\n");
        }
    }
    (!records.is_empty()).then(|| found(records, "json_report"))
}

/// One XML element, as much of it as the walk needs.
#[derive(Debug, Default)]
struct Element {
    name: String,
    attrs: Vec<(String, String)>,
    text: String,
    children: Vec<Element>,
}

impl Element {
    fn attr(&self, keys: &[&str]) -> Option<&str> {
        keys.iter().find_map(|k| {
            self.attrs
                .iter()
                .find(|(a, _)| a.eq_ignore_ascii_case(k))
                .map(|(_, v)| v.as_str())
                .filter(|v| !v.trim().is_empty())
        })
    }

    fn local(&self) -> String {
        self.name
            .rsplit(':')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase()
    }
}

/// The deepest an XML report is read: serde_json's limit for JSON, far past any runner's nesting.
const MAX_XML_DEPTH: usize = 128;

fn parse_xml(text: &str) -> Option<Element> {
    use quick_xml::events::{BytesStart, Event};
    let mut reader = quick_xml::Reader::from_str(text);
    let mut stack: Vec<Element> = vec![Element::default()];
    let open = |e: &BytesStart<'_>| Element {
        name: String::from_utf8_lossy(e.name().as_ref()).into_owned(),
        attrs: e
            .attributes()
            .flatten()
            .map(|a| {
                (
                    String::from_utf8_lossy(a.key.as_ref()).into_owned(),
                    a.unescape_value()
                        .map(|v| v.into_owned())
                        .unwrap_or_default(),
                )
            })
            .collect(),
        ..Element::default()
    };
    loop {
        match reader.read_event() {
            // Deeper than any report nests, it is not one; the bound keeps the walks'
            // recursion and the tree's drop within the stack (issue 36).
            Ok(Event::Start(_)) if stack.len() > MAX_XML_DEPTH => return None,
            Ok(Event::Start(e)) => stack.push(open(&e)),
            Ok(Event::Empty(e)) => {
                let el = open(&e);
                stack.last_mut()?.children.push(el);
            }
            Ok(Event::End(_)) => {
                let el = stack.pop()?;
                stack.last_mut()?.children.push(el);
            }
            Ok(Event::Text(t)) => {
                let s = t.decode().map(|c| c.into_owned()).unwrap_or_default();
                stack.last_mut()?.text.push_str(&s);
            }
            Ok(Event::CData(t)) => stack
                .last_mut()?
                .text
                .push_str(&String::from_utf8_lossy(&t)),
            Ok(Event::GeneralRef(r)) => {
                let s = match &*r {
                    b"amp" => "&".to_owned(),
                    b"lt" => "<".to_owned(),
                    b"gt" => ">".to_owned(),
                    b"quot" => "\"".to_owned(),
                    b"apos" => "'".to_owned(),
                    _ => r
                        .resolve_char_ref()
                        .ok()
                        .flatten()
                        .map(String::from)
                        .unwrap_or_default(),
                };
                stack.last_mut()?.text.push_str(&s);
            }
            Ok(Event::Eof) => break,
            Err(_) => return None,
            _ => {}
        }
    }
    (stack.len() == 1).then(|| stack.pop()).flatten()
}

/// Elements that carry a failure's text.
const MESSAGE_ELEMENTS: [&str; 10] = [
    "message",
    "failure",
    "error",
    "errorinfo",
    "reason",
    "stack-trace",
    "stacktrace",
    "output",
    "system-err",
    "system-out",
];

fn xml_message(el: &Element, depth: usize) -> Option<String> {
    if depth > MESSAGE_DEPTH {
        return None;
    }
    if let Some(m) = el.attr(&["message"]) {
        let body = el.text.trim();
        return Some(if body.is_empty() || body.contains(m.trim()) {
            if body.is_empty() {
                m.to_owned()
            } else {
                body.to_owned()
            }
        } else {
            format!("{m}\n{body}")
        });
    }
    for name in MESSAGE_ELEMENTS {
        for child in el.children.iter().filter(|c| c.local() == name) {
            let text = child.text.trim();
            if !text.is_empty() {
                return Some(text.to_owned());
            }
            if let Some(m) = xml_message(child, depth + 1) {
                return Some(m);
            }
        }
    }
    None
}

fn walk_xml(el: &Element, names: &mut Vec<String>, out: &mut Vec<Record>) -> bool {
    let own = el
        .attr(&["fullname", "testName", "name", "methodname", "title"])
        .map(|n| match el.attr(&["classname"]) {
            Some(c) if !n.starts_with(c) => format!("{c} {n}"),
            _ => n.to_owned(),
        });
    if let Some(n) = &own {
        names.push(n.clone());
    }
    let mut below = false;
    for child in &el.children {
        below |= walk_xml(child, names, out);
    }
    if own.is_some() {
        names.pop();
    }
    let by_status = el
        .attr(&["result", "outcome", "status", "state"])
        .is_some_and(failed_word);
    let by_child = own.is_some()
        && el
            .children
            .iter()
            .any(|c| matches!(c.local().as_str(), "failure" | "error"));
    if (by_status || by_child) && !below && own.is_some() {
        out.push((own, xml_message(el, 0).unwrap_or_default()));
        return true;
    }
    by_status || by_child || below
}

/// The failures of an XML document no runner parser claimed; None when it is not XML or
/// nothing in it reads as a failed test.
pub(super) fn xml(text: &str) -> Option<Vec<Found>> {
    let root = parse_xml(text)?;
    let mut records = Vec::new();
    walk_xml(&root, &mut Vec::new(), &mut records);
    (!records.is_empty()).then(|| found(records, "xml_report"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(found: &[Found]) -> Vec<&str> {
        found
            .iter()
            .map(|f| f.name.as_deref().unwrap_or(""))
            .collect()
    }

    #[test]
    fn mochas_json_report_gives_each_failure_once_with_its_message() {
        let doc = json!({
            "stats": {"suites": 2, "tests": 3, "passes": 1, "failures": 2},
            "tests": [
                {"title": "adds", "fullTitle": "cart adds", "err": {}},
                {"title": "totals", "fullTitle": "cart totals", "err": {"message": "expected 7 to equal 8", "stack": "AssertionError: expected 7 to equal 8\n    at Context.<anonymous> (test/cart.js:9:12)"}}
            ],
            "failures": [
                {"title": "totals", "fullTitle": "cart totals", "err": {"message": "expected 7 to equal 8", "stack": "AssertionError: expected 7 to equal 8\n    at Context.<anonymous> (test/cart.js:9:12)"}},
                {"title": "rates", "fullTitle": "rates loads", "err": {"message": "config invalid:\n- missing key 'region'"}}
            ],
            "passes": [{"title": "adds", "fullTitle": "cart adds", "err": {}}]
        });
        let found = json(&doc).unwrap();
        assert_eq!(names(&found), ["cart totals", "rates loads"]);
        assert!(
            found[0]
                .lines
                .iter()
                .any(|l| l.contains("test/cart.js:9:12"))
        );
        assert!(
            found[1]
                .lines
                .iter()
                .any(|l| l.contains("missing key 'region'"))
        );
    }

    #[test]
    fn pytest_json_report_and_playwright_name_leaves_by_their_ancestors() {
        let pytest = json!({"tests": [
            {"nodeid": "tests/test_a.py::test_ok", "outcome": "passed"},
            {"nodeid": "tests/test_a.py::test_bad", "outcome": "failed",
             "setup": {"outcome": "passed"},
             "call": {"outcome": "failed", "crash": {"path": "tests/test_a.py", "lineno": 4, "message": "AssertionError: assert 8 == 7"}, "longrepr": "def test_bad():\n>       assert 8 == 7"}}
        ]});
        let found = json(&pytest).unwrap();
        assert_eq!(names(&found), ["tests/test_a.py::test_bad"]);
        assert_eq!(
            found[0].message.as_deref(),
            Some("AssertionError: assert 8 == 7")
        );
        let playwright = json!({"suites": [{"title": "login.spec.ts", "specs": [
            {"title": "signs in", "tests": [{"status": "unexpected", "results": [
                {"status": "failed", "error": {"message": "Timed out 5000ms waiting for expect(locator).toBeVisible()"}}]}]},
            {"title": "signs out", "tests": [{"status": "expected", "results": [{"status": "passed"}]}]}
        ]}]});
        let found = json(&playwright).unwrap();
        assert_eq!(names(&found), ["signs in"]);
        assert!(
            found[0]
                .message
                .as_deref()
                .unwrap()
                .starts_with("Timed out 5000ms")
        );
    }

    #[test]
    fn a_json_document_that_reports_no_failure_is_none() {
        assert!(
            json(&json!({"name": "app", "version": "1.0.0", "scripts": {"test": "mocha"}}))
                .is_none()
        );
        assert!(
            json(&json!({"stats": {"failures": 0}, "failures": [], "passes": [{"title": "a"}]}))
                .is_none()
        );
    }

    #[test]
    fn nunit_and_trx_reports_give_their_failed_leaves() {
        let nunit = r#"<?xml version="1.0" encoding="utf-8"?>
<test-run result="Failed"><test-suite type="Assembly" name="Calc.Tests.dll" result="Failed">
 <test-suite type="TestFixture" name="CalcTests" result="Failed">
  <test-case name="Adds" fullname="Calc.Tests.CalcTests.Adds" result="Passed"/>
  <test-case name="Divides" fullname="Calc.Tests.CalcTests.Divides" result="Failed">
   <failure><message><![CDATA[  Expected: 2
  But was:  3
]]></message><stack-trace><![CDATA[at Calc.Tests.CalcTests.Divides() in /src/CalcTests.cs:line 14]]></stack-trace></failure>
  </test-case></test-suite></test-suite></test-run>"#;
        let found = xml(nunit).unwrap();
        assert_eq!(names(&found), ["Calc.Tests.CalcTests.Divides"]);
        assert!(found[0].lines.iter().any(|l| l.contains("But was:  3")));
        let trx = r#"<TestRun xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010"><Results>
<UnitTestResult testName="Subtracts" outcome="Failed"><Output><ErrorInfo><Message>Assert.AreEqual failed. Expected:&lt;1&gt;. Actual:&lt;2&gt;.</Message><StackTrace>at CalcTests.Subtracts() in CalcTests.cs:line 20</StackTrace></ErrorInfo></Output></UnitTestResult>
<UnitTestResult testName="Adds" outcome="Passed"/></Results>
<ResultSummary outcome="Failed"><Counters total="2" failed="1"/></ResultSummary></TestRun>"#;
        let found = xml(trx).unwrap();
        assert_eq!(names(&found), ["Subtracts"]);
        assert!(
            found[0]
                .message
                .as_deref()
                .unwrap()
                .contains("Expected:<1>. Actual:<2>.")
        );
        assert!(xml("<project><name>app</name></project>").is_none());
        assert!(xml("not xml <").is_none());
    }
}

/// One test point of a TAP stream.
#[derive(Debug)]
struct Point {
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
fn tap_heading(lines: &[String], i: usize) -> Option<String> {
    let l = &lines[i];
    let text = l.strip_prefix("# ")?;
    if text.starts_with(char::is_whitespace)
        || text.is_empty()
        || text.starts_with("Subtest:")
        || crate::triage::stated::states_counts(text)
        || text
            .split_whitespace()
            .next()
            .is_some_and(|w| ["tests", "pass", "fail", "ok", "todo", "skip"].contains(&w))
    {
        return None;
    }
    let next = lines[i + 1..].iter().find(|n| !n.trim().is_empty())?;
    tap_point(next.trim())?;
    // A comment among comments is a diagnostic of the point before them (bats prints what a
    // failing test wrote as `# …` after its `not ok`).
    let previous = lines[..i].iter().rev().find(|n| !n.trim().is_empty());
    if previous.is_some_and(|p| p.trim_start().starts_with('#')) {
        return None;
    }
    Some(text.trim().to_owned())
}

fn tap_point(t: &str) -> Option<(bool, String)> {
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

/// The message of a test point's YAML diagnostics: `error:` (inline or a block), else
/// `message:`, else what it compares (`found:`/`wanted:`, a `diff:`, ava's `details:` or
/// `values:` with the difference).
fn yaml_message(block: &[String]) -> Option<String> {
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
        let lines: Vec<&str> = block[at + 1..]
            .iter()
            .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > depth)
            .map(|l| l.trim())
            .collect();
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

/// The failures of a TAP stream (13 or 14, nested subtests, YAML diagnostics), wherever it
/// sits in the log: a failing test is a `not ok` announced by `# Subtest:` (or a top-level
/// one); a failing `not ok` inside a test that was not announced is an assertion of that test
/// and gives it its message; a test that failed only because tests inside it did is not a
/// failure of its own. The lines of the stream are returned as covered. None when there is
/// no TAP stream with a failure.
pub(super) fn tap(lines: &[String], covered: &[bool]) -> Option<(Vec<Found>, Vec<usize>)> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    // A stream: a version line or a plan, and test points.
    let first = lines.iter().position(|l| {
        let t = l.trim();
        t.starts_with("TAP version ")
            || (t.starts_with("1..") && t[3..].chars().all(|c| c.is_ascii_digit()))
    })?;
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
            && let Some(name) = tap_heading(lines, i)
        {
            headings.push((i, name));
            under = Some(headings.len() - 1);
            stream.push(i);
            i += 1;
            continue;
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
            let mut k = j + 1;
            while k < lines.len() && lines[k].trim() != "..." {
                k += 1;
            }
            to = (k + 1).min(lines.len());
        }
        let mut message = yaml_message(&lines[i + 1..to]);
        // TAP 13's diagnostics as comments after the point (`# (in test file x, line 3)`), and
        // what the test printed, up to the next point, plan or subtest.
        let mut notes: Vec<String> = Vec::new();
        while to < lines.len() && !covered[to] {
            let n = lines[to].trim();
            let count = n
                .strip_prefix('#')
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
                });
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
            message = super::segment::message_of(&notes);
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
    if points.iter().all(|p| p.ok) {
        return None;
    }
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
    let mut out = Vec::new();
    // A heading's test failed when an assertion under it did: named by the heading, its
    // message its first failing assertion's, its lines from the heading to its last point's.
    for (h, (at, name)) in headings.iter().enumerate() {
        let under: Vec<&Point> = points.iter().filter(|p| p.heading == Some(h)).collect();
        let Some(failed) = under.iter().find(|p| !p.ok) else {
            continue;
        };
        let to = under.last().map_or(at + 1, |p| p.to);
        let message = match &failed.message {
            Some(m) if !failed.name.is_empty() => format!("{}\n{m}", failed.name),
            Some(m) => m.clone(),
            None => failed.name.clone(),
        };
        out.push(Found {
            start: *at,
            message: Some(bounded_message(&message)),
            name: Some(name.clone()),
            lines: lines[*at..to].to_vec(),
            anchor: "tap_not_ok",
            ..Found::default()
        });
    }
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
        let block: Vec<String> = lines[point.from..point.to].to_vec();
        out.push(Found {
            start: point.from,
            message: message.map(|m| bounded_message(&m)),
            name: Some(point.name.clone()),
            lines: block,
            anchor: "tap_not_ok",
            ..Found::default()
        });
        let _ = point.at;
    }
    out.sort_by_key(|f| f.start);
    (!out.is_empty()).then_some((out, stream))
}

/// A message kept whole up to the segmenter's bounds.
pub(super) fn bounded_message(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .take(super::segment::MAX_MESSAGE_LINES)
        .collect();
    lines
        .join("\n")
        .chars()
        .take(super::segment::MAX_MESSAGE_CHARS)
        .collect()
}

#[cfg(test)]
mod heading_tests {
    use super::*;

    #[test]
    fn a_tap_heading_names_the_test_whose_assertions_follow() {
        let log: Vec<String> = "TAP version 13\n# adds numbers\nok 1 should be equal\n# subtracts numbers\nnot ok 2 difference of 5 and 3\n  ---\n    operator: equal\n    expected: 2\n    actual:   3\n    at: Test.<anonymous> (/p/test.js:9:5)\n  ...\nnot ok 3 second check\n  ---\n    operator: ok\n  ...\n# divides\nnot ok 4 quotient\n  ---\n    operator: equal\n    expected: 2\n    actual:   4\n  ...\n\n1..4\n# tests 4\n# pass  1\n# fail  3\n"
            .lines()
            .map(str::to_owned)
            .collect();
        let (found, _) = tap(&log, &vec![false; log.len()]).unwrap();
        let got: Vec<(&str, &str)> = found
            .iter()
            .map(|f| {
                (
                    f.name.as_deref().unwrap_or(""),
                    f.message.as_deref().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "subtracts numbers",
                    "difference of 5 and 3\nexpected: 2\nactual: 3"
                ),
                ("divides", "quotient\nexpected: 2\nactual: 4"),
            ]
        );
        assert_eq!((found[0].start, found[0].lines.len()), (3, 12));
    }
}
