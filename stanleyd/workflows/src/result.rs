//! The public documents: `stanley.prompt-result/v1` and `stanley.error/v1`, and the human
//! rendering of a result's output.

use serde_json::{Value, json};
use stanley_core::Status;

/// The public result document as pretty JSON (2-space indent, no trailing newline), with the
/// request's Jev `usage` when there is one.
pub fn prompt_result(status: Status, output: &Value, usage: Option<&Value>) -> String {
    serde_json::to_string_pretty(&prompt_document(status, output, usage)).unwrap_or_default()
}

/// The public result document as a value (what [`prompt_result`] writes).
pub fn prompt_document(status: Status, output: &Value, usage: Option<&Value>) -> Value {
    let mut doc =
        json!({"schema": "stanley.prompt-result/v1", "status": status.as_str(), "output": output});
    if let Some(usage) = usage {
        doc["usage"] = usage.clone();
    }
    doc
}

/// The public error document as pretty JSON.
pub fn error_document(kind: &str, message: &str) -> String {
    let doc = json!({"schema": "stanley.error/v1", "error": {"kind": kind, "message": message}});
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// The human rendering of an output: a string as is, an object's `text` with trailing
/// whitespace removed, or else pretty JSON.
pub fn human(output: &Value) -> String {
    match output {
        Value::String(s) => s.clone(),
        Value::Object(map) if map.get("text").is_some_and(Value::is_string) => {
            map["text"].as_str().unwrap_or("").trim_end().to_owned()
        }
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

/// A finding as one line for a person: the label in words, then up to three of its plain
/// details (`correctness concern (classification=bug_risk, probability=0.91)`). Editors' typed
/// findings and SARIF results say the same.
pub fn finding_message(label: &str, detail: Option<&serde_json::Map<String, Value>>) -> String {
    let details: Vec<String> = detail
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| match v {
            Value::String(s) => Some(format!("{k}={s}")),
            Value::Number(n) => Some(format!("{k}={n}")),
            Value::Bool(b) => Some(format!("{k}={b}")),
            _ => None,
        })
        .take(3)
        .collect();
    if details.is_empty() {
        label.replace('_', " ")
    } else {
        format!("{} ({})", label.replace('_', " "), details.join(", "))
    }
}
