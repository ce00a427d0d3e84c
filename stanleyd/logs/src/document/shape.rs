//! Any JSON or XML report read by its shape: records that say they failed, with a name and a
//! message, whatever tool wrote them.

use serde_json::Value;

use crate::found::Found;
use crate::text::strip_ansi;

/// Status words that mean a test failed.
pub(crate) const FAILED: [&str; 11] = [
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
pub(crate) const STATUS_KEYS: [&str; 7] = [
    "status", "outcome", "state", "result", "event", "verdict", "action",
];

/// Keys that name a record, most specific first.
pub(crate) const NAME_KEYS: [&str; 15] = [
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
pub(crate) const MESSAGE_KEYS: [&str; 23] = [
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
pub(crate) const FAILURE_LISTS: [&str; 4] = ["failures", "failed", "failedTests", "errors"];

/// How deep a message is looked for under a record.
pub(crate) const MESSAGE_DEPTH: usize = 4;

/// A key's value, whatever its case (`Action`, `action`).
pub(crate) fn get<'a>(o: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a Value> {
    o.get(key).or_else(|| {
        o.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    })
}

pub(crate) fn failed_word(s: &str) -> bool {
    FAILED.contains(&s.to_ascii_lowercase().as_str())
}

/// Whether a JSON object says it failed.
pub(crate) fn says_failed(o: &serde_json::Map<String, Value>) -> bool {
    STATUS_KEYS
        .iter()
        .any(|k| get(o, k).and_then(Value::as_str).is_some_and(failed_word))
        || ["passed", "success", "ok"]
            .iter()
            .any(|k| get(o, k) == Some(&Value::Bool(false)))
}

pub(crate) fn name_of(o: &serde_json::Map<String, Value>) -> Option<String> {
    NAME_KEYS.iter().find_map(|k| {
        get(o, k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    })
}

/// The text of a message found at `v`: a string, strings joined, or an object's own message.
pub(crate) fn message_text(v: &Value, depth: usize) -> Option<String> {
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

/// Keys under which an assertion's record keeps what it compared, in the order they are told.
const COMPARED: [&str; 6] = ["operator", "expected", "actual", "wanted", "found", "diff"];

/// The message of a failed record that carries none: what it compared (`operator: equal`,
/// `expected: '#ff0001'`, `actual: '#ff0000'`, in it or one object down, an assertion's
/// `extra`), after its name, which says what it checked (as a TAP assertion's name opens its
/// message). None when it compared nothing it says (an event stream's `fail` event, whose text
/// is in the test's other events).
fn compared(o: &serde_json::Map<String, Value>, name: Option<&str>) -> Option<String> {
    let said = |o: &serde_json::Map<String, Value>| -> Vec<String> {
        COMPARED
            .iter()
            .filter_map(|k| {
                let v = get(o, k)?;
                let text = match v {
                    Value::String(s) => s.trim().to_owned(),
                    Value::Null | Value::Object(_) | Value::Array(_) => return None,
                    other => other.to_string(),
                };
                (!text.is_empty()).then(|| format!("{k}: {text}"))
            })
            .collect()
    };
    let mut parts = said(o);
    if parts.is_empty() {
        parts = o
            .values()
            .filter_map(Value::as_object)
            .map(said)
            .find(|p| !p.is_empty())
            .unwrap_or_default();
    }
    if parts.is_empty() {
        return None;
    }
    Some(match name {
        Some(n) => format!("{n}\n{}", parts.join("\n")),
        None => parts.join("\n"),
    })
}

/// What one walk of a JSON document found: (name, message text).
pub(crate) type Record = (Option<String>, String);

/// Walks `v`; returns whether it holds a failed record (so a parent knows it is only an
/// aggregate of its children). `names` holds each named ancestor and whether it says it
/// failed: a nameless failed record (a step's result) is named after the nearest ancestor that
/// failed (the scenario), else the nearest named one.
pub(crate) fn walk_json(
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
                    .or_else(|| compared(o, own.as_deref()))
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

pub(crate) fn lines_of(text: &str) -> Vec<String> {
    strip_ansi(text)
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned())
        .collect()
}

pub(crate) fn found(records: Vec<Record>, anchor: &'static str) -> Vec<Found> {
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
            message: crate::line::message_of(&lines).or_else(|| crate::line::with_detail(&lines)),
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
pub(crate) fn json(doc: &Value) -> Option<Vec<Found>> {
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
pub(crate) struct Element {
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
pub(crate) const MAX_XML_DEPTH: usize = 128;

pub(crate) fn parse_xml(text: &str) -> Option<Element> {
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
pub(crate) const MESSAGE_ELEMENTS: [&str; 10] = [
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

pub(crate) fn xml_message(el: &Element, depth: usize) -> Option<String> {
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

pub(crate) fn walk_xml(el: &Element, names: &mut Vec<String>, out: &mut Vec<Record>) -> bool {
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
pub(crate) fn xml(text: &str) -> Option<Vec<Found>> {
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

    /// Failed assertions that carry no message (a JSON stream of `{name, ok: false, extra:
    /// {operator, expected, actual}}`) are told by what they compared, after their names: two
    /// of them are never one failure twice; one that compared nothing is left as it was.
    #[test]
    fn a_failed_record_without_a_message_says_what_it_compared() {
        let doc = json!({"asserts": [
            {"name": "red encodes", "ok": false, "extra": {"operator": "equal", "expected": "'#ff0001'", "actual": "'#ff0000'"}},
            {"name": "clamps", "ok": false, "extra": {"operator": "equal", "expected": "1", "actual": "2"}},
            {"name": "loads the palette", "ok": false, "extra": {}},
            {"name": "black", "ok": true, "extra": {}}
        ]});
        let found = json(&doc).unwrap();
        assert_eq!(
            names(&found),
            ["red encodes", "clamps", "loads the palette"]
        );
        let said: Vec<String> = found.iter().map(|f| f.lines.join("\n")).collect();
        assert_eq!(
            said,
            [
                "red encodes\noperator: equal\nexpected: '#ff0001'\nactual: '#ff0000'",
                "clamps\noperator: equal\nexpected: 1\nactual: 2",
                "",
            ]
        );
        assert_ne!(found[0].message, found[1].message);
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
