//! Printing: the result document or human text on stdout, warnings and errors on stderr, the
//! progress line (terminals only), and `stanley.error/v1` for client-side errors.

use std::io::{IsTerminal, Write};

use crate::exit::{ClientError, ErrorKind};

/// The usage line printed after every usage error.
pub const USAGE_LINE: &str = "usage: stanley \"<request>\" [options]";

/// Escapes `text` as a JSON string literal (quotes included).
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The `stanley.error/v1` document for a client-side error, pretty-printed like the daemon's.
pub fn error_document(kind: &str, message: &str) -> String {
    format!(
        "{{\n  \"schema\": \"stanley.error/v1\",\n  \"error\": {{\n    \"kind\": {},\n    \"message\": {}\n  }}\n}}",
        json_string(kind),
        json_string(message)
    )
}

/// Prints an error: the JSON document on stdout with `--json`, one line on stderr always.
pub fn print_error(
    kind: ErrorKind,
    message: &str,
    workflow: Option<&str>,
    json: bool,
    hint: Option<&str>,
) {
    if json {
        crate::outln!("{}", error_document(kind.as_str(), message));
    }
    let who = match workflow.filter(|w| !w.is_empty()) {
        Some(w) => format!("stanley {w}"),
        None => "stanley".to_owned(),
    };
    // The kinds of Jev failures read as "Jev error"; the document keeps the precise kind.
    let label = kind.label();
    if matches!(kind, ErrorKind::Interrupted | ErrorKind::Terminated) {
        // "stanley: interrupted: the request was cancelled" (not an error of the request).
        crate::errln!("{who}: {label}: {message}");
    } else {
        crate::errln!("{who}: {label} error: {message}");
    }
    if let Some(hint) = hint {
        crate::errln!("hint: {hint}");
    }
    if kind == ErrorKind::Usage {
        crate::errln!("{USAGE_LINE}");
    }
}

/// Prints a client-side error.
pub fn print_client_error(error: &ClientError, json: bool) {
    print_error(
        error.kind,
        &error.message,
        None,
        json,
        error.hint.as_deref(),
    );
}

/// The stderr progress line: shown only on a terminal, never with `--json`.
#[derive(Debug)]
pub struct Progress {
    enabled: bool,
    shown: bool,
}

impl Progress {
    /// A progress line for this invocation.
    pub fn new(json: bool) -> Self {
        Self {
            enabled: !json && std::io::stderr().is_terminal(),
            shown: false,
        }
    }

    /// Replaces the line.
    pub fn show(&mut self, phase: &str, done: u32, total: u32) {
        if !self.enabled {
            return;
        }
        // Every counted phase counts Jev's questions (one may cover several hunks that share
        // their text), so the line says so rather than look like a count of hunks.
        let text = if total > 0 {
            format!("stanley: {phase}: {done} of {total} Jev questions answered")
        } else {
            format!("stanley: {phase}…")
        };
        // The line's own control codes, then the phase made printable (it names a workflow).
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{}", crate::output::printable(&text));
        let _ = err.flush();
        self.shown = true;
    }

    /// Clears the line before anything else is printed.
    pub fn clear(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.shown = false;
        }
    }
}

impl Drop for Progress {
    /// A progress line never stays under what comes next: an interrupt that drops the request
    /// (and this line with it) clears it first, so `stanley: interrupted` is a line of its own.
    fn drop(&mut self) {
        self.clear();
    }
}

/// The `stanley.improvement-worker/v1` document of a worker run.
pub fn worker_document(response: &stanley_proto::v1::WorkQueueResponse) -> String {
    let processed: Vec<serde_json::Value> = response
        .processed
        .iter()
        .map(|p| serde_json::json!({"id": p.id, "status": p.resolved_outcome().word()}))
        .collect();
    let mut doc =
        serde_json::json!({"schema": "stanley.improvement-worker/v1", "ran": response.ran});
    if !response.ran {
        doc["reason"] = serde_json::json!("locked");
    }
    doc["processed"] = serde_json::json!(processed);
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// The `stanley.promotion/v1` document of a promotion.
pub fn promotion_document(
    candidate: &str,
    response: &stanley_proto::v1::PromoteCandidateResponse,
) -> String {
    let doc = serde_json::json!({
        "schema": "stanley.promotion/v1",
        "candidate": candidate,
        "workflow": response.workflow,
        "path": response.path,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_json() {
        assert_eq!(
            json_string("a\"b\\c\nd\u{1}é"),
            "\"a\\\"b\\\\c\\nd\\u0001é\""
        );
        assert_eq!(
            error_document("usage", "x"),
            "{\n  \"schema\": \"stanley.error/v1\",\n  \"error\": {\n    \"kind\": \"usage\",\n    \"message\": \"x\"\n  }\n}"
        );
    }
}
