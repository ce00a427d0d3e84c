//! The typed part of a result, for editors: findings as diagnostics (workflow, label,
//! severity, confidence, path, line range, message), coverage and limits, read from the
//! document's `output.data` (the same shape for built-ins and repository workflows that report
//! findings).

use serde_json::Value;
use stanley_proto::v1;

/// `"12-20"` → (12, 20), `"7"` → (7, 7); removed lines (`"old 3-5"`) and anything else → (0, 0).
fn line_range(lines: Option<&str>) -> (u32, u32) {
    let Some(text) = lines.filter(|t| !t.starts_with("old")) else {
        return (0, 0);
    };
    let mut parts = text.splitn(2, '-');
    let start = parts
        .next()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    let end = parts
        .next()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(start);
    (start, end)
}

fn severity(text: Option<&str>) -> v1::Severity {
    match text {
        Some("info") => v1::Severity::Info,
        Some("warn" | "warning") => v1::Severity::Warn,
        Some("error" | "fail" | "block") => v1::Severity::Error,
        _ => v1::Severity::Unspecified,
    }
}

/// Where a finding without a path of its own points in the repository: the first stack frame of
/// the result row it is about that resolved to a tracked file (triage's failures), as (path,
/// line).
fn located_by_row(results: &Value, id: &str) -> Option<(String, u32)> {
    let row = results.as_array()?.iter().find(|r| r["id"] == id)?;
    row["stackLocations"].as_array()?.iter().find_map(|l| {
        (l["tracked"] == true).then(|| {
            (
                l["path"].as_str().unwrap_or("").to_owned(),
                l["line"]
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .unwrap_or(0),
            )
        })
    })
}

fn finding(workflow: &str, f: &Value, results: &Value) -> v1::Finding {
    let detail = f["detail"].as_object();
    let confidence = ["probability", "p", "confidence"]
        .iter()
        .find_map(|k| detail.and_then(|d| d.get(*k)).and_then(Value::as_f64))
        .or_else(|| f["score"].as_f64())
        .unwrap_or(0.0);
    let label = f["flag"].as_str().unwrap_or("");
    let (mut start_line, mut end_line) = line_range(f["lines"].as_str());
    let mut path = f["path"].as_str().unwrap_or("").to_owned();
    if path.is_empty()
        && let Some((at, line)) = located_by_row(results, f["id"].as_str().unwrap_or(""))
    {
        (path, start_line, end_line) = (at, line, line);
    }
    v1::Finding {
        workflow: workflow.to_owned(),
        label: label.to_owned(),
        severity: severity(f["severity"].as_str()) as i32,
        confidence,
        path,
        start_line,
        end_line,
        message: stanley_workflows::result::finding_message(f),
        source: f["source"].as_str().unwrap_or("").to_owned(),
        item_id: f["id"].as_str().unwrap_or("").to_owned(),
        fingerprint: f["fingerprint"].as_str().unwrap_or("").to_owned(),
        quote: quote(f),
    }
}

/// The lines a finding quotes, as typed lines.
fn quote(f: &Value) -> Vec<v1::QuotedLine> {
    f["quote"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|q| v1::QuotedLine {
            change: match q["change"].as_str() {
                Some("added") => v1::Change::Added,
                Some("removed") => v1::Change::Removed,
                _ => v1::Change::Unspecified,
            } as i32,
            line: q["line"]
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(0),
            text: q["text"].as_str().unwrap_or("").to_owned(),
        })
        .collect()
}

fn count(c: &Value, key: &str) -> u32 {
    c[key]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0)
}

/// The request's Jev usage as its typed message.
pub(crate) fn usage(u: &stanley_core::RequestUsage) -> v1::Usage {
    v1::Usage {
        jev_requests: u.requests,
        cached_answers: u.cached,
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cached_input_tokens: u.cached_input_tokens,
        models: u.models.iter().cloned().collect(),
        estimated_cost_usd: u.cost_usd(),
        saved_cost_usd: u.saved_usd(),
    }
}

/// A document's `coverage` object as its typed message.
pub(crate) fn coverage(c: &Value) -> v1::Coverage {
    v1::Coverage {
        candidates: count(c, "candidates"),
        judged: count(c, "judged"),
        deterministic: count(c, "deterministic"),
        excluded: count(c, "excluded"),
        parked: count(c, "parked"),
        failed: count(c, "failed"),
        unjudged: count(c, "unjudged"),
        complete: c["complete"].as_bool().unwrap_or(false),
    }
}

/// The typed findings of a document's `output` (a result's, or a stored run's).
pub(crate) fn findings(output: &Value, workflow: &str) -> Vec<v1::Finding> {
    let results = &output["data"]["results"];
    output["data"]["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| finding(workflow, f, results))
        .collect()
}

/// Fills the typed fields of `result` from `output`.
pub(crate) fn fill(
    result: &mut v1::Result,
    output: &Value,
    workflow: &str,
    run_id: Option<&stanley_workflows::runs::RunId>,
) {
    let data = &output["data"];
    result.workflow = workflow.to_owned();
    result.run_id = run_id.map(|id| id.as_str().to_owned()).unwrap_or_default();
    result.findings = findings(output, workflow);
    result.coverage = data["coverage"]
        .as_object()
        .map(|_| coverage(&data["coverage"]));
    result.limits = data["limits"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| l.as_str().map(str::to_owned))
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn findings_become_diagnostics() {
        let output = json!({"data": {
            "findings": [
                {"flag": "weak_task_relation", "id": "h_1", "source": "jev", "severity": "warn",
                 "path": "src/config.js", "lines": "1-4", "detail": {"lowMass": 0.867, "probability": 0.91}},
                {"flag": "test_file_deleted", "id": "h_2", "source": "deterministic", "severity": "info",
                 "path": "test/a.test.js", "lines": "old 1-3"}
            ],
            "coverage": {"candidates": 3, "judged": 2, "deterministic": 1, "excluded": 0,
                         "parked": 0, "failed": 0, "unjudged": 0, "complete": true},
            "limits": ["only the 1 highest-priority of 2 eligible hunks were judged"]
        }});
        let mut result = v1::Result::default();
        fill(
            &mut result,
            &output,
            "check",
            stanley_workflows::runs::RunId::parse("2026-11-30T19-00-00Z-check-abc123").as_ref(),
        );
        let f = &result.findings[0];
        assert_eq!(
            (f.label.as_str(), f.path.as_str(), f.start_line, f.end_line),
            ("weak_task_relation", "src/config.js", 1, 4)
        );
        assert_eq!(f.severity, v1::Severity::Warn as i32);
        assert!((f.confidence - 0.91).abs() < 1e-9);
        assert_eq!(
            f.message,
            "weak task relation (lowMass=0.867, probability=0.91)"
        );
        assert_eq!(f.workflow, "check");
        assert_eq!(
            (result.findings[1].start_line, result.findings[1].end_line),
            (0, 0)
        );
        assert_eq!(result.coverage.unwrap().judged, 2);
        assert_eq!(result.limits.len(), 1);
        assert_eq!(result.run_id, "2026-11-30T19-00-00Z-check-abc123");
    }

    #[test]
    fn a_failure_is_located_at_its_first_frame_in_the_repository() {
        let output = json!({"data": {
            "findings": [
                {"flag": "failure_likely_caused_by_diff", "id": "f_1", "source": "jev", "severity": "warn"},
                {"flag": "environment_signature", "id": "f_2", "source": "deterministic", "severity": "info"}
            ],
            "results": [
                {"id": "f_1", "stackLocations": [
                    {"path": "/usr/lib/node/x.js", "line": 9, "tracked": false},
                    {"path": "src/config.js", "line": 12, "tracked": true}
                ]},
                {"id": "f_2", "stackLocations": []}
            ]
        }});
        let found = findings(&output, "triage_failures");
        assert_eq!(
            (
                found[0].path.as_str(),
                found[0].start_line,
                found[0].end_line
            ),
            ("src/config.js", 12, 12)
        );
        assert_eq!((found[1].path.as_str(), found[1].start_line), ("", 0));
    }
}
