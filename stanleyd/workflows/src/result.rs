//! The public documents: `stanley.prompt-result/v1` and `stanley.error/v1`, and the human
//! rendering of a result's output.

use serde::Serialize;
use serde_json::Value;
use stanley_core::Status;

/// The public result document as pretty JSON (2-space indent, no trailing newline), with the
/// request's Jev `usage` when there is one.
pub fn prompt_result(status: Status, output: &Value, usage: Option<&Value>) -> String {
    serde_json::to_string_pretty(&PromptResult {
        schema: PROMPT_RESULT,
        status: status.as_str(),
        output,
        usage,
    })
    .unwrap_or_default()
}

const PROMPT_RESULT: &str = "stanley.prompt-result/v1";

/// The public result document as a value (what [`prompt_result`] writes), made of `output`
/// without copying it.
pub fn prompt_document(status: Status, output: Value, usage: Option<Value>) -> Value {
    // In the order `PromptResult` writes its fields.
    let mut doc = serde_json::Map::new();
    doc.insert("schema".into(), PROMPT_RESULT.into());
    doc.insert("status".into(), status.as_str().into());
    doc.insert("output".into(), output);
    if let Some(usage) = usage {
        doc.insert("usage".into(), usage);
    }
    Value::Object(doc)
}

/// `stanley.prompt-result/v1`: a request's status and output, and its Jev usage when it has one.
#[derive(Serialize)]
struct PromptResult<'a> {
    schema: &'static str,
    status: &'static str,
    output: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<&'a Value>,
}

/// `stanley.error/v1`: a request that failed, by kind and message.
#[derive(Serialize)]
struct ErrorDocument<'a> {
    schema: &'static str,
    error: ErrorBody<'a>,
}

/// What failed and why.
#[derive(Serialize)]
struct ErrorBody<'a> {
    kind: &'a str,
    message: &'a str,
}

/// The public error document as pretty JSON.
pub fn error_document(kind: &str, message: &str) -> String {
    let doc = ErrorDocument {
        schema: "stanley.error/v1",
        error: ErrorBody { kind, message },
    };
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

/// What a finding says to a person: its own `message` (what was judged and why, issue 49), or,
/// for a finding that carries none (a repository workflow's), the label in words with up to
/// three of its plain details. The terminal, editors' typed findings, the page and SARIF say
/// the same.
pub fn finding_message(finding: &Value) -> String {
    if let Some(message) = finding["message"].as_str().filter(|m| !m.trim().is_empty()) {
        return message.to_owned();
    }
    let label = finding["flag"].as_str().unwrap_or("finding");
    let details: Vec<String> = finding["detail"]
        .as_object()
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

/// A finding's quoted lines as a person reads them: `+ 14 | text`, `- 13 | text`, with the
/// numbers right-aligned to each other. Empty when it quotes none.
pub fn quoted_lines(finding: &Value) -> Vec<String> {
    let quote = finding["quote"].as_array().map_or(&[][..], Vec::as_slice);
    let width = quote
        .iter()
        .filter_map(|q| q["line"].as_u64())
        .map(|n| n.to_string().len())
        .max()
        .unwrap_or(1);
    quote
        .iter()
        .map(|q| {
            let marker = if q["change"] == "removed" { '-' } else { '+' };
            let line = q["line"]
                .as_u64()
                .map_or_else(String::new, |n| n.to_string());
            format!(
                "{marker} {line:>width$} | {}",
                q["text"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document as a value is the document as text, with and without usage.
    #[test]
    fn the_document_value_is_the_written_document() {
        let output = serde_json::json!({"text": "t", "data": {"n": 0.024999999999999994}});
        let usage = serde_json::json!({"jevRequests": 2});
        for usage in [None, Some(&usage)] {
            let doc = prompt_document(Status::Complete, output.clone(), usage.cloned());
            assert_eq!(
                serde_json::to_string_pretty(&doc).unwrap(),
                prompt_result(Status::Complete, &output, usage)
            );
        }
    }
}
