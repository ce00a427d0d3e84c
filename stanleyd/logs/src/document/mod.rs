//! Report documents: a runner's own JSON, JSON lines or JUnit XML read as what they are, any
//! other JSON or XML report by its shape (`shape`), and a TAP stream wherever it sits (`tap`).

pub(crate) mod shape;
pub(crate) mod tap;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::found::Found;
use crate::line::{first_nonblank, go_message, panic_message, with_detail};
use crate::text::strip_ansi;

pub(crate) fn split_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Documents

/// Failures of a whole document that is a runner's JSON, JSON-lines or JUnit XML report; None
/// when `text` is not one.
pub(crate) fn document(text: &str) -> Option<Vec<Found>> {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('<') {
        return junit(t).or_else(|| crate::document::shape::xml(t));
    }
    if !t.starts_with('{') && !t.starts_with('[') {
        return None;
    }
    if let Ok(doc) = serde_json::from_str::<Value>(t) {
        return jest_like(&doc).or_else(|| crate::document::shape::json(&doc));
    }
    json_lines(t)
}

/// The failures of a JSON or XML document read by shape alone (no runner's format).
pub(crate) fn generic_document(text: &str) -> Option<Vec<Found>> {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('<') {
        return crate::document::shape::xml(t);
    }
    if !t.starts_with('{') && !t.starts_with('[') {
        return None;
    }
    if let Ok(doc) = serde_json::from_str::<Value>(t) {
        return crate::document::shape::json(&doc);
    }
    let events: Vec<Value> = t
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str::<Value>)
        .collect::<Result<_, _>>()
        .ok()?;
    crate::document::shape::json(&Value::Array(events))
}

/// jest and vitest `--json`: `testResults[].assertionResults[]`.
pub(crate) fn jest_like(doc: &Value) -> Option<Vec<Found>> {
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
pub(crate) fn json_lines(text: &str) -> Option<Vec<Found>> {
    let events: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with(crate::text::OMITTED_PREFIX))
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

pub(crate) fn go_events(events: &[Value]) -> Vec<Found> {
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

/// JUnit XML: `<testcase>` elements with a `<failure>` or `<error>`.
pub(crate) fn junit(text: &str) -> Option<Vec<Found>> {
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
                                f.message = crate::line::message_of(&lines);
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

pub(crate) fn junit_found(
    at: usize,
    name: &str,
    class: &str,
    kind: &str,
    message: &str,
    body: &str,
) -> Found {
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
        || crate::line::says_nothing(m)
        || crate::line::bare_location(m);
    let from_body = if body_lines.iter().any(|l| l.contains(".go:")) {
        go_message(&body_lines)
    } else {
        crate::line::message_of(&body_lines).or_else(|| with_detail(&body_lines))
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
                crate::line::message_of(&attribute).or(from_body)
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
