//! A stand-in `pi` for tests: speaks Pi's JSON event protocol in the 0.73 or 1.x dialect and
//! misbehaves on request. `FAKE_PI_MODE` picks the behavior; `FAKE_PI_RECORD` names a file that
//! receives its argv, stdin, pid and a few environment variables as JSON; `FAKE_PI_COUNT` names a
//! file holding how many times it ran; `FAKE_PI_DELAY_MS` delays its final answer. Given an improvement brief, it plays the improvement agent:
//! for a request about TODO notes it writes one workflow into the candidate folder, otherwise none.
//! `FAKE_PI_SCRIPT` names a flow script (`{"<phase>": [step, ...]}`): the n-th run prompted on a
//! phase plays that phase's n-th step (`write`, `remove`, `shell`, `text`, `mode`), and every run
//! is appended to `<script>.log` as JSON.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::time::Duration;

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn emit(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn assistant_end(text: &str, stop: &str, error: Option<&str>) -> String {
    let mut message = serde_json::json!({"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": stop});
    if let Some(e) = error {
        message["errorMessage"] = serde_json::json!(e);
        message["content"] = serde_json::json!([]);
    }
    serde_json::json!({"type": "message_end", "message": message}).to_string()
}

/// Plays the improvement agent when `brief` is an improvement brief; returns the final text.
fn improvement_reply(brief: &str) -> Option<String> {
    let path = stanley_tests::brief_candidate_file(brief)?;
    let request = brief.split("could not handle:\n").nth(1).unwrap_or("");
    if !request.contains("TODO") {
        return Some("wrote no file: the request is too vague to become a workflow".into());
    }
    if let Some(dir) = std::path::Path::new(&path).parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    // `FAKE_PI_CANDIDATE` names a file whose content is drafted instead of the TODO workflow.
    let content = env("FAKE_PI_CANDIDATE")
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_else(|| stanley_tests::TODO_WORKFLOW.to_owned());
    let _ = std::fs::write(&path, content);
    Some(format!("wrote {path}"))
}

/// The step of a flow script this run plays (`{}` without a script or past its end).
fn script_step(stdin: &str, args: &[String]) -> serde_json::Value {
    let empty = serde_json::json!({});
    let Some(path) = env("FAKE_PI_SCRIPT") else {
        return empty;
    };
    let phase = stdin
        .lines()
        .find_map(|l| l.strip_prefix("Current phase: "))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or("")
        .to_owned();
    let script: serde_json::Value = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let counts_path = format!("{path}.state");
    let mut counts: serde_json::Value = std::fs::read_to_string(&counts_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| serde_json::json!({}));
    let n = counts[&phase].as_u64().unwrap_or(0);
    counts[&phase] = serde_json::json!(n + 1);
    let _ = std::fs::write(&counts_path, counts.to_string());
    let step = script[&phase][n as usize].clone();
    let log = serde_json::json!({"phase": phase, "n": n + 1, "args": args, "stdin": stdin});
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(format!("{path}.log"))
        .and_then(|mut f| writeln!(f, "{log}"));
    if step.is_object() { step } else { empty }
}

/// Does a script step's work in the current directory.
fn play(step: &serde_json::Value) {
    for (path, content) in step["write"].as_object().into_iter().flatten() {
        if let Some(parent) = std::path::Path::new(path).parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = std::fs::write(path, content.as_str().unwrap_or(""));
    }
    for path in step["remove"].as_array().into_iter().flatten() {
        let _ = std::fs::remove_file(path.as_str().unwrap_or(""));
    }
    if let Some(cmd) = step["shell"].as_str() {
        let _ = std::process::Command::new("sh").arg("-c").arg(cmd).status();
    }
}

fn hang() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let version = env("FAKE_PI_VERSION").unwrap_or_else(|| "0.73.1".into());
    if args.iter().any(|a| a == "--version") {
        // The 0.73 line prints its version on stderr when stdin is not a terminal.
        if version.starts_with("0.") {
            eprintln!("{version}");
        } else {
            println!("{version}");
        }
        return;
    }
    // Like Pi, read stdin to EOF before anything else: an open pipe hangs here.
    let mut stdin = String::new();
    let _ = std::io::stdin().read_to_string(&mut stdin);
    if version.starts_with("0.") && args.iter().any(|a| a == "--no-approve") {
        eprintln!("Error: Unknown option: --no-approve");
        std::process::exit(1);
    }
    let step = script_step(&stdin, &args);
    let mode = step
        .get("mode")
        .and_then(|m| m.as_str())
        .map(str::to_owned)
        .or_else(|| env("FAKE_PI_MODE"))
        .unwrap_or_else(|| "finished".into());
    play(&step);
    if let Some(path) = env("FAKE_PI_RECORD") {
        let record = serde_json::json!({
            "pid": std::process::id(),
            "args": args,
            "stdin": stdin,
            "cwd": std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default(),
            "env": {
                "STANLEY_NESTED": env("STANLEY_NESTED"),
                "PI_OFFLINE": env("PI_OFFLINE"),
                "TYPESAFE_API_KEY_SET": env("TYPESAFE_API_KEY").is_some(),
            },
        });
        let _ = std::fs::write(path, record.to_string());
    }
    if let Some(path) = env("FAKE_PI_COUNT") {
        let runs: u64 = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        let _ = std::fs::write(&path, (runs + 1).to_string());
    }
    let improvement = improvement_reply(&stdin);
    emit(
        r#"{"type":"session","version":3,"id":"fake","timestamp":"2026-01-01T00:00:00Z","cwd":"."}"#,
    );
    if !version.starts_with("0.") {
        emit(r#"{"type":"message_end","message":{"role":"system","content":""}}"#);
    }
    match mode.as_str() {
        "missing_key" => {
            eprintln!(
                "No API key found for anthropic.\n\nUse /login to log into a provider via OAuth or API key."
            );
            std::process::exit(1);
        }
        "crash" => {
            print!("{{\"type\":\"agent_st");
            let _ = std::io::stdout().flush();
            eprintln!("  at somewhere\nfatal: nope");
            std::process::exit(3);
        }
        "hang" => hang(),
        "ignore_term" | "tool_child" => {
            // SAFETY: setting a signal disposition to SIG_IGN has no memory-safety concerns.
            unsafe {
                libc::signal(libc::SIGTERM, libc::SIG_IGN);
            }
            if mode == "tool_child" {
                let mut cmd = std::process::Command::new("sleep");
                cmd.arg("300");
                // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
                unsafe {
                    cmd.pre_exec(|| {
                        libc::setsid();
                        Ok(())
                    });
                }
                // The tool child is meant to outlive a killed agent, like Pi's detached tools.
                #[allow(
                    clippy::zombie_processes,
                    reason = "the child is deliberately left running"
                )]
                let child = cmd.spawn().expect("spawn the tool child");
                if let Some(path) = env("FAKE_PI_CHILD_PID") {
                    let _ = std::fs::write(path, child.id().to_string());
                }
            }
            emit(
                r#"{"type":"tool_execution_start","toolCallId":"call_1","toolName":"bash","args":{}}"#,
            );
            hang()
        }
        _ => {}
    }
    if let Some(writes) = env("FAKE_PI_WRITE") {
        for pair in writes.split(';') {
            if let Some((path, content)) = pair.split_once('=') {
                if let Some(parent) = std::path::Path::new(path).parent() {
                    let _ = std::fs::create_dir_all(parent);
                }
                let _ = std::fs::write(path, content);
            }
        }
    }
    if let Some(links) = env("FAKE_PI_LINK") {
        for pair in links.split(';') {
            if let Some((link, target)) = pair.split_once('=') {
                let _ = std::os::unix::fs::symlink(target, link);
            }
        }
    }
    let tools: u32 = env("FAKE_PI_TOOLS")
        .and_then(|t| t.parse().ok())
        .unwrap_or(2);
    for i in 0..tools {
        emit(&format!(
            r#"{{"type":"tool_execution_start","toolCallId":"call_{i}","toolName":"bash","args":{{}}}}"#
        ));
        emit(&format!(
            r#"{{"type":"tool_execution_end","toolCallId":"call_{i}","toolName":"bash","result":{{"content":[]}},"isError":false}}"#
        ));
    }
    if mode == "garbage" {
        emit("this is not json");
        emit("[1, 2, 3]");
        emit(&format!(
            "{{\"type\":\"message_update\",\"pad\":\"{}\"}}",
            "x".repeat(5 * 1024 * 1024)
        ));
    }
    if let Some(ms) = env("FAKE_PI_DELAY_MS").and_then(|m| m.parse().ok()) {
        // A fixed stand-in for the time a real agent thinks.
        std::thread::sleep(Duration::from_millis(ms));
    }
    let text = improvement
        .or_else(|| step.get("text").and_then(|t| t.as_str()).map(str::to_owned))
        .or_else(|| env("FAKE_PI_TEXT"))
        .unwrap_or_else(|| "done: wrote the file".into());
    if mode == "model_error" {
        emit(&assistant_end(
            "",
            "error",
            Some("401 Incorrect API key provided"),
        ));
    } else {
        emit(&assistant_end(&text, "stop", None));
    }
    emit(r#"{"type":"agent_end","messages":[]}"#);
    if !version.starts_with("0.") {
        emit(r#"{"type":"agent_settled","aborted":false}"#);
    }
}
