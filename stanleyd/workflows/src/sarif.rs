//! SARIF 2.1.0 from a run's result, for code scanning: one result per finding, with its rule,
//! level, message, place and a content fingerprint; parked and unjudged items as notifications;
//! the run's exit status and id. Only the part of SARIF Stanley emits is typed here; the tests
//! validate what it writes against the official schema.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::runs::RunSummary;

/// The OASIS schema location written as `$schema`.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The partial fingerprint's name: a hash of the rule, the path and the content of what the
/// finding is about, never of line numbers.
pub const FINGERPRINT_KEY: &str = "stanleyContent/v1";

#[derive(Serialize)]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    invocations: Vec<Invocation>,
    automation_details: AutomationDetails,
    results: Vec<SarifResult>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: String,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: String,
    name: String,
    short_description: Message,
    default_configuration: Configuration,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Clone, Serialize)]
struct Message {
    text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    markdown: Option<String>,
}

impl Message {
    fn plain(text: String) -> Self {
        Self {
            text,
            markdown: None,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    exit_code: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_time_utc: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_time_utc: Option<String>,
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Message,
}

#[derive(Serialize)]
struct AutomationDetails {
    id: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: String,
    rule_index: usize,
    level: &'static str,
    message: Message,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Location>,
    partial_fingerprints: BTreeMap<&'static str, String>,
    properties: BTreeMap<&'static str, Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u64,
    end_line: u64,
}

/// Characters a path segment keeps as they are in a URI reference: RFC 3986's unreserved ones
/// and `/`; everything else (spaces, `%`, `#`, `?`, non-ASCII) is percent-encoded.
const PATH: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// A repository-relative path as a relative URI reference.
fn uri(path: &str) -> String {
    percent_encoding::utf8_percent_encode(path, PATH).to_string()
}

/// SARIF's level for a finding's severity.
fn level(severity: &str) -> &'static str {
    match severity {
        "error" => "error",
        "warn" => "warning",
        _ => "note",
    }
}

/// `12-20` or `12` as a region; `old 3-5` (removed lines) has no place in the current file.
fn region(lines: &str) -> Option<Region> {
    let (a, b) = lines.split_once('-').unwrap_or((lines, lines));
    let start: u64 = a.trim().parse().ok().filter(|n| *n >= 1)?;
    let end: u64 = b.trim().parse().ok().filter(|n| *n >= start)?;
    Some(Region {
        start_line: start,
        end_line: end,
    })
}

/// `weak_task_relation` as `Weak task relation`.
fn words(flag: &str) -> String {
    crate::text::capitalized(&flag.replace(['_', '-'], " "))
}

/// What the finding says, as the terminal and editors say it, then the lines it quotes.
fn message_of(finding: &Value) -> Message {
    let mut text = crate::result::finding_message(finding);
    if !text.ends_with(['.', '?', '!', '"']) {
        text.push('.');
    }
    let quoted = crate::result::quoted_lines(finding);
    let markdown = (!quoted.is_empty()).then(|| {
        format!(
            "{}\n\n```diff\n{}\n```",
            escape_markdown(&text),
            quoted.join("\n")
        )
    });
    if !quoted.is_empty() {
        text.push_str("\n\n");
        text.push_str(&quoted.join("\n"));
    }
    Message { text, markdown }
}

/// `text` with the characters Markdown reads as markup escaped.
fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The notifications for items that are not results: parked ones, and judged rows that failed
/// or were left unjudged.
fn notifications(data: &Value) -> Vec<Notification> {
    let mut out = Vec::new();
    for p in data["parked"].as_array().into_iter().flatten() {
        let what = p["path"]
            .as_str()
            .or_else(|| p["id"].as_str())
            .unwrap_or("an item");
        let why = p["reason"].as_str().unwrap_or("parked");
        out.push(Notification {
            level: "note",
            message: Message::plain(format!("Parked, not a result: {what}: {why}.")),
        });
    }
    for row in data["results"].as_array().into_iter().flatten() {
        let disposition = row["disposition"].as_str().unwrap_or("");
        if matches!(disposition, "failed" | "unjudged") {
            let what = row["path"]
                .as_str()
                .or_else(|| row["id"].as_str())
                .unwrap_or("an item");
            out.push(Notification {
                level: "note",
                message: Message::plain(format!("Not judged ({disposition}): {what}.")),
            });
        }
    }
    out
}

/// The SARIF 2.1.0 log of one run: `summary` says how it ran, `document` is the result it gave
/// (`stanley.prompt-result/v1` or `stanley.error/v1`), `version` is Stanley's.
pub fn log(summary: &RunSummary, document: &Value, version: &str) -> Value {
    let data = &document["output"]["data"];
    let workflow = if summary.workflow.is_empty() {
        "request"
    } else {
        summary.workflow.as_str()
    };
    let mut rules: Vec<Rule> = Vec::new();
    let mut results = Vec::new();
    let findings = data["findings"].as_array().cloned().unwrap_or_default();
    for f in &findings {
        let flag = f["flag"].as_str().unwrap_or("finding");
        // `review_correctness_risk` from `review` is the rule `review/correctness_risk`.
        let label = flag
            .strip_prefix(workflow)
            .and_then(|rest| rest.strip_prefix('_'))
            .unwrap_or(flag);
        let rule_id = format!("{workflow}/{label}");
        let severity = level(f["severity"].as_str().unwrap_or("info"));
        let rule_index = match rules.iter().position(|r| r.id == rule_id) {
            Some(i) => i,
            None => {
                rules.push(Rule {
                    id: rule_id.clone(),
                    name: flag.to_owned(),
                    short_description: Message::plain(words(label)),
                    default_configuration: Configuration { level: severity },
                });
                rules.len() - 1
            }
        };
        let locations = f["path"]
            .as_str()
            .map(|path| Location {
                physical_location: PhysicalLocation {
                    artifact_location: ArtifactLocation { uri: uri(path) },
                    region: f["lines"].as_str().and_then(region),
                },
            })
            .into_iter()
            .collect();
        let fingerprint = f["fingerprint"].as_str().map_or_else(
            || {
                stanley_core::stable_id(
                    "fp",
                    &crate::run::to_value(&FallbackFingerprint {
                        rule: &rule_id,
                        path: &f["path"],
                        item: &f["id"],
                    }),
                    16,
                )
            },
            str::to_owned,
        );
        let mut properties = BTreeMap::new();
        properties.insert("source", f["source"].clone());
        properties.insert("itemId", f["id"].clone());
        if let Some(p) = f["detail"]["probability"]
            .as_f64()
            .or_else(|| f["detail"]["p"].as_f64())
        {
            properties.insert("confidence", Value::from(p));
        }
        results.push(SarifResult {
            rule_id,
            rule_index,
            level: severity,
            message: message_of(f),
            locations,
            partial_fingerprints: BTreeMap::from([(FINGERPRINT_KEY, fingerprint)]),
            properties,
        });
    }
    let mut notes = notifications(data);
    if summary.delegated {
        notes.push(Notification {
            level: "note",
            message: Message::plain(
                "This request was delegated to a coding agent: what the agent did is its \
                       own account, not a finding, so the run has no results."
                    .to_owned(),
            ),
        });
    }
    if let Some(e) = &summary.error {
        notes.push(Notification {
            level: "error",
            message: Message::plain(format!("The request failed ({}): {}", e.kind, e.message)),
        });
    }
    let log = Log {
        schema: SCHEMA_URI,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "Stanley",
                    version: version.to_owned(),
                    rules,
                },
            },
            invocations: vec![Invocation {
                execution_successful: summary.error.is_none(),
                exit_code: summary.exit_code,
                start_time_utc: summary.started_at.map(|t| t.to_string()),
                end_time_utc: summary.finished_at.map(|t| t.to_string()),
                tool_execution_notifications: notes,
            }],
            automation_details: AutomationDetails {
                id: format!("stanley/{workflow}/{}", summary.run_id),
            },
            results,
        }],
    };
    serde_json::to_value(&log).unwrap_or_default()
}

/// What a finding without a fingerprint of its own is fingerprinted by: its rule, path and item.
#[derive(Serialize)]
struct FallbackFingerprint<'a> {
    rule: &'a str,
    path: &'a Value,
    item: &'a Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn summary(workflow: &str) -> RunSummary {
        RunSummary {
            schema: crate::runs::SUMMARY_SCHEMA.into(),
            run_id: crate::runs::RunId::parse(&format!("{workflow}-20261130T214659Z-a1b2c3"))
                .unwrap(),
            started_at: crate::time::parse_stamp("2026-11-30T21:46:59.000Z")
                .map(crate::time::Stamp),
            finished_at: crate::time::parse_stamp("2026-11-30T21:47:00.000Z")
                .map(crate::time::Stamp),
            duration_ms: 1000,
            request: "Review these changes".into(),
            workflow: workflow.into(),
            status: crate::runs::RunStatus::Complete,
            exit_code: 0,
            delegated: false,
            error: None,
            coverage: None,
            findings: 2,
            usage: json!({}),
            scope: None,
        }
    }

    #[test]
    fn each_finding_is_one_result_with_its_rule_level_place_and_fingerprint() {
        let doc = json!({"output": {"data": {
            "findings": [
                {"flag": "correctness_concern", "id": "h_1", "source": "jev", "severity": "warn", "path": "src/a.rs", "lines": "10-12", "detail": {"classification": "bug_risk", "probability": 0.91}, "fingerprint": "fp_aaaa"},
                {"flag": "correctness_concern", "id": "h_2", "source": "jev", "severity": "warn", "path": "src/b.rs", "lines": "old 3-5"},
                {"flag": "untrusted_instruction_text", "id": "h_1", "source": "jev", "severity": "info", "path": "src/a.rs", "lines": "10"},
            ],
            "parked": [{"id": "h_3", "path": "src/c.rs", "reason": "evidence insufficient"}],
            "results": [{"id": "h_4", "path": "src/d.rs", "disposition": "unjudged"}],
        }}});
        let log = log(&summary("review"), &doc, "0.1.0");
        let run = &log["runs"][0];
        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), 3);
        assert_eq!(results[0]["ruleId"], "review/correctness_concern");
        assert_eq!(results[0]["level"], "warning");
        assert_eq!(
            results[0]["locations"][0]["physicalLocation"]["region"],
            json!({"startLine": 10, "endLine": 12})
        );
        assert_eq!(
            results[0]["partialFingerprints"][FINGERPRINT_KEY],
            "fp_aaaa"
        );
        assert_eq!(
            results[0]["message"]["text"],
            "correctness concern (classification=bug_risk, probability=0.91)."
        );
        // A finding's own words and the changed lines it quotes, in text and Markdown.
        let said = json!({"output": {"data": {"findings": [
            {"flag": "review_correctness_risk", "id": "h_9", "source": "jev", "severity": "warn",
             "path": "src/a.rs", "lines": "14", "message": "Correctness risk: the sum is off by one.",
             "quote": [{"change": "removed", "line": 14, "text": "n"}, {"change": "added", "line": 14, "text": "n + 1"}]},
        ]}}});
        let said = super::log(&summary("review"), &said, "0.1.0");
        let message = &said["runs"][0]["results"][0]["message"];
        assert_eq!(
            message["text"],
            "Correctness risk: the sum is off by one.\n\n- 14 | n\n+ 14 | n + 1"
        );
        assert_eq!(
            message["markdown"],
            "Correctness risk: the sum is off by one.\n\n```diff\n- 14 | n\n+ 14 | n + 1\n```"
        );
        assert!(
            results[1]["locations"][0]["physicalLocation"]
                .get("region")
                .is_none(),
            "removed lines have no region"
        );
        assert_eq!(results[2]["level"], "note");
        let prefixed = json!({"output": {"data": {"findings": [
            {"flag": "review_correctness_risk", "id": "h_9", "source": "jev", "severity": "warn"},
        ]}}});
        let log2 = super::log(&summary("review"), &prefixed, "0.1.0");
        assert_eq!(
            log2["runs"][0]["results"][0]["ruleId"],
            "review/correctness_risk"
        );
        assert_eq!(results[2]["ruleIndex"], 1);
        assert_eq!(run["tool"]["driver"]["rules"].as_array().unwrap().len(), 2);
        let notes = run["invocations"][0]["toolExecutionNotifications"]
            .as_array()
            .unwrap();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert_eq!(
            run["automationDetails"]["id"],
            "stanley/review/review-20261130T214659Z-a1b2c3"
        );
        assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    }

    #[test]
    fn paths_are_uri_references() {
        assert_eq!(uri("src/a.rs"), "src/a.rs");
        assert_eq!(uri("docs/My File#1.md"), "docs/My%20File%231.md");
        assert_eq!(uri("src/é%.rs"), "src/%C3%A9%25.rs");
    }

    #[test]
    fn a_delegated_or_failed_run_has_no_results_and_says_why() {
        let mut s = summary("");
        s.delegated = true;
        let log = log(&s, &json!({"output": {"text": "done"}}), "0.1.0");
        assert_eq!(log["runs"][0]["results"], json!([]));
        let note = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
        assert!(
            note["message"]["text"]
                .as_str()
                .unwrap()
                .contains("delegated")
        );
        let mut failed = summary("review");
        failed.error = Some(crate::runs::RunError {
            kind: crate::runs::FailureKind::JevAuth,
            message: "the key was refused".into(),
        });
        failed.exit_code = 77;
        let log = super::log(&failed, &json!({}), "0.1.0");
        assert_eq!(
            log["runs"][0]["invocations"][0]["executionSuccessful"],
            false
        );
        assert_eq!(log["runs"][0]["invocations"][0]["exitCode"], 77);
    }
}
