//! The targets over parsers of text from outside: failure logs and CI job logs, report
//! documents, review comments, unified diffs, flow files and the flow's journal and sub-steps,
//! rules and criteria, Pi's event stream and the workflow host's lines.

use arbitrary::Unstructured;
use serde_json::{Value, json};
use stanley_workflows::triage::logs::{ParsedLog, Parsers, parse_log_with};

use super::generate::{self, captures};
use super::{Checked, Target, class, ensure, shape};

/// Most characters of a message a failure block carries (D-120: 12 lines, 1,200 characters),
/// with room for the lines' breaks.
const MAX_MESSAGE_CHARS: usize = 1_300;
/// Most characters of an error a parser may give back: an error names where, never echoes the
/// input.
const MAX_ERROR_CHARS: usize = 2_000;

fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// What every parsed log keeps: blocks inside the input's lines, ids distinct, messages within
/// An error a parser gives is one short line: its text, when it is.
fn short_error(error: &impl std::fmt::Display) -> Result<String, super::Violation> {
    let text = error.to_string();
    let chars = text.chars().count();
    ensure(
        chars <= MAX_ERROR_CHARS,
        "an error is one short line",
        || format!("{chars} characters"),
    )?;
    Ok(text)
}

/// the policy, output no larger than a multiple of the input.
fn check_log(input: &str, parsed: &ParsedLog) -> Checked {
    let lines = input.split('\n').count();
    ensure(
        parsed.line_count <= lines,
        "line count within the input",
        || format!("{} lines counted of {lines}", parsed.line_count),
    )?;
    let mut ids = std::collections::HashSet::new();
    let mut out_bytes = 0usize;
    for b in &parsed.blocks {
        ensure(
            b.start >= 1 && b.start <= b.end && b.end <= lines.max(1),
            "no block outside the input's lines",
            || format!("block {}..{} of {lines} lines", b.start, b.end),
        )?;
        ensure(ids.insert(b.id.as_str()), "block ids are distinct", || {
            b.id.clone()
        })?;
        let message = b.message.as_deref().map_or(0, |m| m.chars().count());
        ensure(
            message <= MAX_MESSAGE_CHARS,
            "a message within 1,200 characters",
            || format!("{message} characters"),
        )?;
        out_bytes += b.lines.iter().map(|l| l.len() + 1).sum::<usize>()
            + b.message.as_deref().map_or(0, str::len)
            + b.test_name.as_deref().map_or(0, str::len);
    }
    ensure(
        out_bytes <= 3 * input.len() + 4_096,
        "output bounded by the input",
        || format!("{out_bytes} bytes out of {} in", input.len()),
    )?;
    ensure(parsed.left_out.len() <= 4, "left-out notes are few", || {
        format!("{} notes", parsed.left_out.len())
    })?;
    Ok(shape(&[
        class(parsed.blocks.len()),
        parsed.wrapper.map_or(99, |w| w as u64),
        parsed
            .blocks
            .iter()
            .map(|b| {
                u64::from(b.test_name.is_some())
                    | u64::from(b.message.is_some()) << 1
                    | (b.anchors.len().min(3) as u64) << 2
            })
            .fold(0, |a, x| a | 1 << x),
        parsed
            .blocks
            .iter()
            .flat_map(|b| b.anchors.iter())
            .fold(0u64, |a, x| {
                a ^ shape(&[x.len() as u64, x.as_bytes()[0].into()])
            }),
    ]))
}

fn failure_log(bytes: &[u8]) -> Checked {
    let input = text(bytes);
    // A log always parses (the type says so: there is no error to return).
    check_log(&input, &parse_log_with(&input, Parsers::All))
}

fn failure_log_generic(bytes: &[u8]) -> Checked {
    let input = text(bytes);
    check_log(&input, &parse_log_with(&input, Parsers::GenericOnly))
}

fn log_input(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    if u.ratio(1, 5)? {
        generate::document(u)
    } else {
        generate::log(u)
    }
}

fn ci_job_log(bytes: &[u8]) -> Checked {
    let input = text(bytes);
    let input = input.strip_prefix('\u{feff}').unwrap_or(&input);
    let un = stanley_workflows::triage::ci::unwrap(input);
    // One entry per line split at `\n`; a final newline ends the last line, it starts none.
    let mut raw: Vec<&str> = input.split('\n').collect();
    if input.ends_with('\n') {
        raw.pop();
    }
    ensure(
        un.lines.len() == raw.len(),
        "one line out for one line in",
        || format!("{} lines out of {}", un.lines.len(), raw.len()),
    )?;
    ensure(un.steps.len() == un.lines.len(), "a step per line", || {
        format!("{} steps for {} lines", un.steps.len(), un.lines.len())
    })?;
    for (i, (out, inp)) in un.lines.iter().zip(&raw).enumerate() {
        ensure(
            out.len() <= inp.len() + 4,
            "a line out no longer than its line in",
            || format!("line {}: {} bytes from {}", i + 1, out.len(), inp.len()),
        )?;
        if let Some(step) = un.steps[i] {
            ensure(step < un.step_names.len(), "steps name known steps", || {
                format!("step {step} of {}", un.step_names.len())
            })?;
        }
    }
    Ok(shape(&[
        un.wrapper.map_or(99, |w| w as u64),
        class(un.step_names.len()),
    ]))
}

fn document_line(n: usize) -> Vec<u8> {
    // A JUnit report whose one failure message is a single line of n bytes.
    let message = "expected 1 but was 2; ".repeat(n / 22 + 1);
    format!(
        "<testsuite><testcase name=\"t\"><failure message=\"{message}\">{message}</failure></testcase></testsuite>"
    )
    .into_bytes()
}

fn log_line(n: usize) -> Vec<u8> {
    // One line of runner fragments and escapes, never ending: the anchors, the ANSI stripper and
    // the segmenter all see it.
    let unit =
        "\u{1b}[31mFAIL\u{1b}[0m src/x.test.js ● suite › test E   assert 1 == 2 at x (/a.js:1:1) ";
    unit.repeat(n / unit.len() + 1).into_bytes()
}

/// Nested documents of every kind a log parser reads: JSON arrays and objects, XML elements.
fn deep_document(n: usize) -> Vec<u8> {
    let mut out = String::with_capacity(n * 30);
    out.push_str("{\"testResults\":");
    out.push_str(&"[{\"failures\":".repeat(n / 2));
    out.push_str("\"x\"");
    out.push_str(&"}]".repeat(n / 2));
    out.push('}');
    out.into_bytes()
}

fn deep_xml(n: usize) -> Vec<u8> {
    let mut out = String::with_capacity(n * 24);
    out.push_str(&"<testsuite name=\"s\">".repeat(n));
    out.push_str("<testcase name=\"t\"><failure message=\"boom\"/></testcase>");
    out.push_str(&"</testsuite>".repeat(n));
    out.into_bytes()
}

fn review_comments(bytes: &[u8]) -> Checked {
    let input = text(bytes);
    match stanley_workflows::triage::review_comments::parse_comments(&input) {
        Ok(comments) => {
            let mut out = 0usize;
            for c in &comments {
                out += c.body.len()
                    + c.diff_hunk.as_deref().map_or(0, str::len)
                    + c.path.as_deref().map_or(0, str::len)
                    + c.author.as_deref().map_or(0, str::len);
            }
            ensure(out <= input.len(), "output bounded by the input", || {
                format!("{out} bytes out of {}", input.len())
            })?;
            Ok(shape(&[1, class(comments.len())]))
        }
        Err(e) => {
            let e = short_error(&e)?;
            Ok(shape(&[2, e.split(' ').count() as u64]))
        }
    }
}

const COMMENTS_SEED: &str = r#"[
  {"id": 101, "body": "This should handle null input", "path": "src/a.ts", "line": 2, "user": {"login": "rev", "type": "User"},
   "diff_hunk": "@@ -1,2 +1,2 @@\n-a\n+b", "original_line": 2, "original_commit_id": "abc", "start_line": 1},
  {"id": 102, "body": "+1, agreed", "in_reply_to_id": 101, "user": {"login": "dev[bot]", "type": "Bot"}, "outdated": true},
  {"id": "n3", "body": "Check this", "path": "./src/a.ts", "line": 99, "author": "x", "authorType": "User"}
]"#;

fn comments_input(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    let seed = if u.ratio(1, 4)? {
        format!("{{\"comments\": {COMMENTS_SEED}}}")
    } else {
        COMMENTS_SEED.to_owned()
    };
    generate::json_from(u, &seed)
}

fn json_string_line(n: usize) -> Vec<u8> {
    format!(
        "[{{\"id\": 1, \"body\": \"{}\"}}]",
        "word ".repeat(n / 5 + 1)
    )
    .into_bytes()
}

fn deep_json(n: usize) -> Vec<u8> {
    let mut out = "[".repeat(n);
    out.push_str(&"]".repeat(n));
    out.into_bytes()
}

fn unified_diff(bytes: &[u8]) -> Checked {
    use stanley_workflows::diff::{Diff, MAX_HUNK_LINES, parse_diff};
    let input = text(bytes);
    let diff = Diff::parse(&input);
    let lines = input.split('\n').count();
    let mut out_lines = 0usize;
    for f in &diff.files {
        for h in &f.hunks {
            out_lines += h.lines.len();
        }
    }
    ensure(
        out_lines <= lines,
        "no more diff lines than input lines",
        || format!("{out_lines} of {lines}"),
    )?;
    // Parse, render, parse is not yet the identity for every diff (D-124: the campaign's
    // inputs that break it are kept in `tests/fuzz/open/unified_diff/`); rendering never
    // fails and reads back as a diff of as many files.
    let again = Diff::parse(&diff.to_text());
    ensure(
        again.files.len() == diff.files.len(),
        "a rendered diff reads back with as many files",
        || format!("{} files then {}", diff.files.len(), again.files.len()),
    )?;
    let split = parse_diff(&input);
    for f in &split {
        for h in &f.hunks {
            ensure(
                h.lines.len() <= MAX_HUNK_LINES,
                "a judged hunk within the policy's lines",
                || format!("{} lines", h.lines.len()),
            )?;
        }
    }
    Ok(shape(&[
        class(diff.files.len()),
        diff.files
            .iter()
            .fold(0, |a, f| a | 1 << (f.status as u64 % 60)),
        class(out_lines),
    ]))
}

fn diff_line(n: usize) -> Vec<u8> {
    format!(
        "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-{}\n+{}",
        "a".repeat(n / 2),
        "b\r".repeat(n / 4)
    )
    .into_bytes()
}

fn diff_deep(n: usize) -> Vec<u8> {
    // Diffs do not nest; the deep case is n files of one hunk each.
    let mut out = String::new();
    for i in 0..n / 10 {
        out.push_str(&format!("diff --git a/{i} b/{i}\n@@ -1 +1 @@\n+x\n"));
    }
    out.into_bytes()
}

/// A complete flow file with every section, the seed of the flow targets.
pub(crate) fn flow_seed() -> Value {
    json!({
        "schema_version": 1, "flow_version": "1",
        "goal": "Build a CLI todo app with add, list and done commands and tests",
        "mode": "enforce",
        "phases": [
            {"id": "scaffold", "name": "Project scaffold",
             "done_when": "package layout and entry point exist", "check": "test -f todo/cli.py"},
            {"id": "implement", "name": "Commands", "done_when": "add, list and done work",
             "depends_on": ["scaffold"], "check": "test -f todo/commands.py"},
            {"id": "test", "name": "Tests pass", "done_when": "a test suite exists and passes",
             "depends_on": ["implement"], "check": "test -f tests.ok",
             "loop": {"max_iterations": 3, "until": "test -f tests.ok"}, "on_fail": "debug"},
            {"id": "debug", "name": "Debug failures", "done_when": "the failing tests' cause is fixed"},
            {"id": "publish", "name": "Tag release", "done_when": "v0.1 tag exists",
             "depends_on": ["test"], "check": "git tag -l v0.1 | grep -q v0.1", "side_effect": true}
        ],
        "limits": {"max_restarts": 3, "max_blocks_per_session": 6, "max_total_minutes": 30,
                   "check_timeout_s": 30},
        "notify": {"command": "echo \"$STANLEY_FLOW_EVENT\" >> notified.log",
                   "on": ["ask_human", "goal_complete", "budget"], "timeout_s": 10},
        "gates": {"bands": {"deny": 0.9}}
    })
}

fn flow_file(bytes: &[u8]) -> Checked {
    let input = text(bytes);
    match stanley_workflows::flow::parse_flow(&input) {
        Ok(flow) => {
            ensure(!flow.phases.is_empty(), "a loaded flow has phases", || {
                "no phases".to_owned()
            })?;
            Ok(shape(&[1, class(flow.phases.len())]))
        }
        Err(e) => {
            let e = short_error(&e)?;
            Ok(shape(&[2, e.split(' ').take(3).count() as u64]))
        }
    }
}

fn flow_input(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    generate::json_from(u, &flow_seed().to_string())
}

fn flow_line(n: usize) -> Vec<u8> {
    let mut f = flow_seed();
    f["goal"] = json!("g".repeat(n));
    f.to_string().into_bytes()
}

fn flow_deep(n: usize) -> Vec<u8> {
    let mut out = String::from("{\"goal\": \"g\", \"phases\": ");
    out.push_str(&"[".repeat(n));
    out.push_str(&"]".repeat(n));
    out.push('}');
    out.into_bytes()
}

pub(super) fn journal_seed() -> String {
    use stanley_workflows::flow::state::{DecisionEntry, FlowState, JevAsk};
    let flow =
        stanley_workflows::flow::parse_flow(&flow_seed().to_string()).expect("the seed flow loads");
    let mut state = FlowState::new(&flow, stanley_workflows::time::Stamp::EPOCH);
    state.count_jev(JevAsk::Stop);
    if let Ok(entry) = serde_json::from_value::<DecisionEntry>(json!({
        "at": "2026-12-01T00:00:01Z", "phase": "scaffold", "decision": "advance",
        "reason": "the check passed", "check_passed": true
    })) {
        state.record(entry);
    }
    serde_json::to_string(&state).unwrap_or_default()
}

fn flow_journal(bytes: &[u8]) -> Checked {
    use stanley_workflows::flow::state::FlowState;
    let input = text(bytes);
    match FlowState::decode(&input) {
        Ok(state) => {
            let again = serde_json::to_string(&state)
                .ok()
                .and_then(|t| FlowState::decode(&t).ok());
            ensure(
                again.as_ref() == Some(&state),
                "decode, encode, decode gives the same journal",
                || format!("{again:?}"),
            )?;
            Ok(shape(&[
                1,
                class(state.decisions.len()),
                class(state.phases.len()),
            ]))
        }
        Err(e) => {
            short_error(&e)?;
            Ok(shape(&[2]))
        }
    }
}

fn journal_input(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    generate::json_from(u, &journal_seed())
}

fn journal_line(n: usize) -> Vec<u8> {
    let mut v: Value = serde_json::from_str(&journal_seed()).unwrap_or_default();
    v["current_phase"] = json!("p".repeat(n));
    v.to_string().into_bytes()
}

fn flow_subtasks(bytes: &[u8]) -> Checked {
    let input = text(bytes);
    let open = stanley_workflows::flow::agent::open_subtasks(&input, "implement");
    let chars: usize = open.iter().map(|s| s.chars().count()).sum();
    ensure(
        open.iter().all(|s| s.chars().count() <= 201),
        "a sub-step's title within 200 characters",
        || format!("{chars} characters"),
    )?;
    ensure(
        chars <= input.chars().count(),
        "output bounded by the input",
        || format!("{chars} characters"),
    )?;
    Ok(shape(&[class(open.len())]))
}

fn subtasks_input(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    generate::json_from(
        u,
        r#"{"implement": [{"title": "add", "done": true}, {"title": "list"}, {"title": "done", "done": false}], "test": []}"#,
    )
}

fn subtasks_line(n: usize) -> Vec<u8> {
    format!("{{\"implement\": [{{\"title\": \"{}\"}}]}}", "t".repeat(n)).into_bytes()
}

fn rules_and_criteria(bytes: &[u8]) -> Checked {
    use stanley_workflows::check::{criteria::parse_criteria, rules::parse_rules};
    let input = text(bytes);
    let mut parts = Vec::new();
    for result in [
        parse_rules(&input)
            .map(|r| r.len())
            .map_err(|e| e.to_string()),
        parse_criteria(&input)
            .map(|c| c.len())
            .map_err(|e| e.to_string()),
    ] {
        match result {
            Ok(n) => {
                ensure(n <= input.len(), "output bounded by the input", || {
                    format!("{n} items")
                })?;
                parts.push(class(n));
            }
            Err(e) => {
                short_error(&e)?;
                parts.push(99);
            }
        }
    }
    Ok(shape(&parts))
}

const RULES_SEED: &str = r#"{"rules": [
  {"id": "no-unwrap", "description": "Library code does not call unwrap()", "paths": ["src/**/*.rs"], "severity": "high"},
  {"id": "docs", "description": "Public items are documented", "exclude": ["tests/**"]}
]}"#;

fn rules_input(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    if u.arbitrary()? {
        generate::json_from(u, RULES_SEED)
    } else {
        let mut out = String::from("# Acceptance criteria\n\n");
        for _ in 0..u.int_in_range(0..=30)? {
            let bullet = *u.choose(&["- ", "* ", "1. ", "- [ ] ", "- [x] ", "  - ", ""])?;
            out.push_str(bullet);
            out.push_str(&generate::odd_text(u)?.replace('\n', " "));
            out.push('\n');
        }
        Ok(out.into_bytes())
    }
}

fn criteria_line(n: usize) -> Vec<u8> {
    format!("- {}\n", "c".repeat(n)).into_bytes()
}

fn pi_events(bytes: &[u8]) -> Checked {
    use stanley_adapters::pi::StreamState;
    let mut state = StreamState::default();
    let mut lines = 0u64;
    for line in bytes.split(|b| *b == b'\n') {
        state.line(line);
        lines += 1;
    }
    ensure(state.events <= lines, "no more events than lines", || {
        format!("{} events of {lines} lines", state.events)
    })?;
    ensure(
        state.tool_calls <= state.events,
        "no more tool calls than events",
        || format!("{} calls", state.tool_calls),
    )?;
    let text = state.text.as_deref().map_or(0, str::len);
    ensure(
        text <= stanley_workflows::agent::MAX_TEXT_BYTES,
        "the agent's text within the policy",
        || format!("{text} bytes"),
    )?;
    let error = state.error.as_deref().map_or(0, |e| e.chars().count());
    ensure(error <= 500, "an error within 500 characters", || {
        format!("{error} characters")
    })?;
    Ok(shape(&[
        class(state.events as usize),
        class(state.tool_calls as usize),
        u64::from(state.text.is_some()),
        u64::from(state.error.is_some()),
    ]))
}

fn pi_input(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    let c = captures();
    let start = u.choose_index(c.pi.len().max(1))?;
    let len = u.int_in_range(1..=80)?;
    let lines: Vec<&str> =
        c.pi.iter()
            .skip(start)
            .take(len)
            .map(String::as_str)
            .collect();
    generate::json_lines_from(u, &lines)
}

fn pi_line(n: usize) -> Vec<u8> {
    json!({"type": "message_end", "message": {"role": "assistant", "stopReason": "error",
        "errorMessage": "e".repeat(n / 2), "content": [{"type": "text", "text": "t".repeat(n / 2)}]}})
    .to_string()
    .into_bytes()
}

fn pi_deep(n: usize) -> Vec<u8> {
    let mut out = String::from("{\"type\": \"message_end\", \"message\": ");
    out.push_str(&"{\"content\": ".repeat(n));
    out.push('1');
    out.push_str(&"}".repeat(n));
    out.push('}');
    out.into_bytes()
}

fn host_messages(bytes: &[u8]) -> Checked {
    use stanley_adapters::workflow_host::{HostLine, Loaded, LogRecord, decode_line, decode_reply};
    let mut parts = Vec::new();
    for line in bytes.split(|b| *b == b'\n') {
        let decoded = decode_line(line);
        let kind = match &decoded {
            HostLine::Answer { id, result } => {
                ensure(
                    id.len() <= line.len(),
                    "output bounded by the input",
                    || format!("an id of {} bytes", id.len()),
                )?;
                if let Ok(value) = result {
                    for error in [
                        decode_reply::<Loaded>("load", value.clone()).err(),
                        decode_reply::<std::collections::HashMap<String, bool>>(
                            "available",
                            value.clone(),
                        )
                        .err(),
                        decode_reply::<LogRecord>("log", value.clone()).err(),
                    ]
                    .into_iter()
                    .flatten()
                    {
                        short_error(&error)?;
                    }
                }
                1 + u64::from(result.is_ok())
            }
            HostLine::Log(record) => {
                let text = record.line("x");
                ensure(
                    text.len() <= 2 * line.len() + 64,
                    "output bounded by the input",
                    || format!("a log line of {} bytes from {}", text.len(), line.len()),
                )?;
                3
            }
            HostLine::Prompt { call, .. } => 4 + u64::from(call.is_some()),
            HostLine::Judge { call, .. } => 6 + u64::from(call.is_some()),
            HostLine::Ignored => 8,
        };
        parts.push(kind);
    }
    parts.sort_unstable();
    parts.dedup();
    Ok(shape(&parts))
}

const HOST_SEEDS: [&str; 9] = [
    r#"{"jsonrpc":"2.0","id":"d1","result":{"protocol":1}}"#,
    r#"{"jsonrpc":"2.0","id":"d2","result":{"workflows":[{"id":"todo_audit","source":".stanley/workflows/todo.ts","metadata":{"instructions":"Use when","examples":["Audit"]},"gated":true}],"diagnostics":[{"source":".stanley/workflows/bad.ts","phase":"import","message":"SyntaxError: x"}]}}"#,
    r#"{"jsonrpc":"2.0","id":"d3","result":{"todo_audit":true,"other":false}}"#,
    r#"{"jsonrpc":"2.0","id":"d4","error":{"code":-32000,"message":"workflow threw: boom"}}"#,
    r#"{"jsonrpc":"2.0","method":"log","params":{"run":"r1","source":"x.ts","level":"warn","message":"careful","data":{"n":1}}}"#,
    r#"{"jsonrpc":"2.0","id":"h1","method":"prompt","params":{"run":"r1","instructions":"Summarize","input":{"a":1}}}"#,
    r#"{"jsonrpc":"2.0","id":"h2","method":"judge","params":{"run":"r1","request":{"scope":"todo","questions":{"stale":{"type":"noul","instructions":"Is it stale?"}}}}}"#,
    r#"{"jsonrpc":"2.0","id":"d5","result":{"value":{"text":"audited","data":{"judged":true}}}}"#,
    r#"{"jsonrpc":"2.0","id":"d6","result":{"errors":[{"source":"x.ts","message":"cleanup threw"}]}}"#,
];

fn host_input(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    let n = u.int_in_range(1..=12)?;
    let lines: Vec<&str> = (0..n)
        .map(|_| u.choose(&HOST_SEEDS).copied())
        .collect::<arbitrary::Result<_>>()?;
    generate::json_lines_from(u, &lines)
}

fn host_line(n: usize) -> Vec<u8> {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":\"d2\",\"result\":\"{}\"}}",
        "w".repeat(n)
    )
    .into_bytes()
}

/// The targets of this file.
pub(super) fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "failure_log",
            entry: "stanley_workflows::triage::logs::parse_log",
            invariants: &[
                "no block outside the input's lines",
                "block ids are distinct",
                "a message within 1,200 characters",
                "output bounded by the input",
            ],
            generate: log_input,
            check: failure_log,
            long_line: log_line,
            deep: deep_document,
        },
        Target {
            name: "failure_log_generic",
            entry: "stanley_workflows::triage::logs::parse_log_with(GenericOnly)",
            invariants: &[
                "no block outside the input's lines",
                "block ids are distinct",
                "a message within 1,200 characters",
                "output bounded by the input",
            ],
            generate: log_input,
            check: failure_log_generic,
            long_line: log_line,
            deep: deep_xml,
        },
        Target {
            name: "report_document",
            entry: "stanley_workflows::triage::logs::parse_log (JSON, JSON lines, XML, TAP)",
            invariants: &[
                "no block outside the input's lines",
                "block ids are distinct",
                "a message within 1,200 characters",
                "output bounded by the input",
            ],
            generate: generate::document,
            check: failure_log,
            long_line: document_line,
            deep: deep_xml,
        },
        Target {
            name: "ci_job_log",
            entry: "stanley_workflows::triage::ci::unwrap",
            invariants: &[
                "one line out for one line in",
                "a line out no longer than its line in",
                "steps name known steps",
            ],
            generate: generate::log,
            check: ci_job_log,
            long_line: log_line,
            deep: deep_document,
        },
        Target {
            name: "review_comments",
            entry: "stanley_workflows::triage::review_comments::parse_comments",
            invariants: &["output bounded by the input", "an error is one short line"],
            generate: comments_input,
            check: review_comments,
            long_line: json_string_line,
            deep: deep_json,
        },
        Target {
            name: "unified_diff",
            entry: "stanley_workflows::diff::Diff::parse, parse_diff",
            invariants: &[
                "no more diff lines than input lines",
                "a rendered diff reads back with as many files",
                "a judged hunk within the policy's lines",
            ],
            generate: generate::diff,
            check: unified_diff,
            long_line: diff_line,
            deep: diff_deep,
        },
        Target {
            name: "flow_file",
            entry: "stanley_workflows::flow::parse_flow",
            invariants: &["a loaded flow has phases", "an error is one short line"],
            generate: flow_input,
            check: flow_file,
            long_line: flow_line,
            deep: flow_deep,
        },
        Target {
            name: "flow_journal",
            entry: "stanley_workflows::flow::state::FlowState::decode",
            invariants: &[
                "decode, encode, decode gives the same journal",
                "an error is one short line",
            ],
            generate: journal_input,
            check: flow_journal,
            long_line: journal_line,
            deep: deep_json,
        },
        Target {
            name: "flow_subtasks",
            entry: "stanley_workflows::flow::agent::open_subtasks",
            invariants: &[
                "a sub-step's title within 200 characters",
                "output bounded by the input",
            ],
            generate: subtasks_input,
            check: flow_subtasks,
            long_line: subtasks_line,
            deep: deep_json,
        },
        Target {
            name: "rules_and_criteria",
            entry: "stanley_workflows::check::rules::parse_rules, criteria::parse_criteria",
            invariants: &["output bounded by the input", "an error is one short line"],
            generate: rules_input,
            check: rules_and_criteria,
            long_line: criteria_line,
            deep: deep_json,
        },
        Target {
            name: "host_messages",
            entry: "stanley_adapters::workflow_host::decode_line, decode_reply",
            invariants: &["output bounded by the input", "an error is one short line"],
            generate: host_input,
            check: host_messages,
            long_line: host_line,
            deep: pi_deep,
        },
        Target {
            name: "pi_events",
            entry: "stanley_adapters::pi::StreamState::line",
            invariants: &[
                "no more events than lines",
                "the agent's text within the policy",
                "an error within 500 characters",
            ],
            generate: pi_input,
            check: pi_events,
            long_line: pi_line,
            deep: pi_deep,
        },
    ]
}
