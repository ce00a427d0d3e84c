//! `stanley-logread [--generic] <log>`: the failure blocks triage reads from a log, as JSON
//! (not a test): for looking at one capture and for blind evaluations, which score a reader's
//! blocks against ground truth they keep to themselves (issue 46). `--generic` reads with the
//! generic path alone.

use std::process::ExitCode;

use serde_json::json;
use stanley_workflows::triage::logs::{Parsers, parse_log_with};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let generic = args.iter().any(|a| a == "--generic");
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: stanley-logread [--generic] <log>");
        return ExitCode::from(64);
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("stanley-logread: {path}: {e}");
            return ExitCode::from(66);
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let parsers = if generic {
        Parsers::GenericOnly
    } else {
        Parsers::All
    };
    let parsed = parse_log_with(&text, parsers);
    let blocks: Vec<_> = parsed
        .blocks
        .iter()
        .map(|b| {
            json!({
                "start": b.start,
                "end": b.end,
                "testName": b.test_name,
                "message": b.message,
                "family": b.family,
                "fingerprint": b.fingerprint,
                "anchors": b.anchors,
                "step": b.step,
                "lines": b.lines,
            })
        })
        .collect();
    let out = json!({
        "lineCount": parsed.line_count,
        "blocks": blocks,
        "agreement": parsed.agreement.as_str(),
        "statedFailures": parsed.agreement.stated(),
    });
    println!("{out}");
    ExitCode::SUCCESS
}
