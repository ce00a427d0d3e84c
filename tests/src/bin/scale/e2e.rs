//! Dimensions a user grows through the daemon, measured end to end with the real binaries and
//! the fake Jev answering at once: review comments triaged, files `find` searches, and findings
//! the page and the language server show. Each step starts a fresh daemon, so its peak RSS is
//! that step's.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use stanley_tests::bench::proc_kib;
use stanley_tests::testenv::run;
use stanley_tests::{TempRepo, TestEnv};

use crate::stores::with_ratios;

/// A daemon started afresh for `repo`, and its pid.
fn fresh_daemon(env: &TestEnv, repo: &TempRepo) -> i32 {
    let out = env.stanleyctl(repo, &["daemon", "restart"]);
    assert_eq!(out.code, 0, "daemon restart: {out:?}");
    repo.daemon_pid().expect("a daemon")
}

fn mib(pid: i32, field: &str) -> Option<f64> {
    proc_kib(pid, field).map(|k| k as f64 / 1024.0)
}

/// One request to the daemon, timed (the client process's whole life).
fn request(env: &TestEnv, repo: &TempRepo, args: &[&str]) -> (Duration, Value) {
    let mut cmd = env.command("stanley", repo.root());
    cmd.args(args);
    let start = Instant::now();
    let out = run(cmd, None);
    let took = start.elapsed();
    assert!(matches!(out.code, 0 | 10 | 12), "{args:?}: {out:?}");
    (
        took,
        serde_json::from_str(&out.stdout).unwrap_or(Value::Null),
    )
}

/// Review comments at `base`, 4× and 16×: three in four open a thread on a changed line, one in
/// four replies to the one before it.
pub(crate) fn comments(base: usize) -> Value {
    let mut steps = Vec::new();
    for n in [base, 4 * base, 16 * base] {
        let mut env = TestEnv::new();
        env.set("STANLEY_LOG", "warn");
        env.jev.route("comments", "triage_comments", 0.9);
        let before: String = (0..400)
            .map(|i| format!("  let v{i} = read({i});\n"))
            .collect();
        let after: String = (0..400)
            .map(|i| format!("  let v{i} = read({i}) ?? {i};\n"))
            .collect();
        let repo = TempRepo::with_files(&[("src/a.ts", &format!("function f() {{\n{before}}}\n"))]);
        repo.write("src/a.ts", &format!("function f() {{\n{after}}}\n"));
        let list: Vec<Value> = (0..n)
            .map(|i| {
                let line = 2 + i % 400;
                if i % 4 == 3 {
                    json!({"id": 1000 + i, "body": format!("Agreed, see {i}"), "in_reply_to_id": 999 + i})
                } else {
                    json!({
                        "id": 1000 + i,
                        "body": format!("Does line {line} handle a missing value? ({i})"),
                        "path": "src/a.ts",
                        "line": line,
                        "diff_hunk": format!("@@ -{line},1 +{line},1 @@\n-  let v{0} = read({0});\n+  let v{0} = read({0}) ?? {0};", line - 2),
                    })
                }
            })
            .collect();
        repo.write(
            "comments.json",
            &serde_json::to_string(&list).expect("comments"),
        );
        let pid = fresh_daemon(&env, &repo);
        let (took, doc) = request(
            &env,
            &repo,
            &[
                "Triage these review comments",
                "--input",
                "comments.json",
                "--json",
            ],
        );
        let rows = doc["output"]["data"]["results"]
            .as_array()
            .map_or(0, Vec::len);
        eprintln!("comments n={n}: {:.3}s ({rows} rows)", took.as_secs_f64());
        steps.push(json!({
            "comments": n,
            "seconds": took.as_secs_f64(),
            "rows": rows,
            "daemonPeakRssMiB": mib(pid, "VmHWM"),
        }));
    }
    with_ratios(steps, "seconds")
}

/// Files `find` searches at `base`, 4× and 16×: small source files in folders of 50, one of
/// which holds what is asked for.
pub(crate) fn find_files(base: usize) -> Value {
    let mut steps = Vec::new();
    for n in [base, 4 * base, 16 * base] {
        let mut env = TestEnv::new();
        env.set("STANLEY_LOG", "warn");
        env.jev.route("find", "find", 0.9);
        let files: Vec<(String, String)> = (0..n)
            .map(|i| {
                let text = if i == n / 2 {
                    "export function retryWebhook(delivery) {\n  return backoff(delivery, 5);\n}\n"
                        .to_owned()
                } else {
                    format!("export function handler{i}(input) {{\n  return input + {i};\n}}\n")
                };
                (format!("src/mod{}/file{i}.ts", i / 50), text)
            })
            .collect();
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let repo = TempRepo::with_files(&refs);
        let pid = fresh_daemon(&env, &repo);
        let (took, doc) = request(
            &env,
            &repo,
            &["Find where webhook deliveries are retried", "--json"],
        );
        eprintln!(
            "find files={n}: {:.3}s ({})",
            took.as_secs_f64(),
            doc["status"]
        );
        steps.push(json!({
            "files": n,
            "seconds": took.as_secs_f64(),
            "status": doc["status"],
            "daemonPeakRssMiB": mib(pid, "VmHWM"),
        }));
    }
    with_ratios(steps, "seconds")
}

/// One GET of the local page at `path` under its token: the time it took.
fn page_get(port: u16, token: &str, path: &str) -> Duration {
    use std::io::{Read, Write};
    let start = Instant::now();
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("the page");
    write!(
        stream,
        "GET /{token}{path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("read");
    assert!(reply.starts_with("HTTP/1.1 200"), "{path}: {reply:.200}");
    start.elapsed()
}

/// Findings at `base` changed test files, 4× and 16× (a skipped test and removed assertions
/// each: two findings a file, made by rules): the run's page, and the language server from the
/// run's end to the editor holding its diagnostics (the official LSP client).
pub(crate) fn findings(base: usize) -> Value {
    let mut steps = Vec::new();
    for files in [base, 4 * base, 16 * base] {
        let mut env = TestEnv::new();
        env.set("STANLEY_LOG", "warn");
        env.jev.route("check", "check", 0.9);
        let before = "test('parses', () => {\n  expect(parseConfig('{}')).toEqual({});\n  expect(parseConfig('1')).toEqual(1);\n});\n";
        let after = "test.skip('parses', () => {\n  expect(parseConfig('{}')).toEqual({});\n});\n";
        // The language server's client watches the first file's diagnostics.
        let names: Vec<String> = (0..files)
            .map(|n| match n {
                0 => "test/config.test.js".to_owned(),
                n => format!("test/t{n}.test.js"),
            })
            .collect();
        let originals: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), before)).collect();
        let repo = TempRepo::with_files(&originals);
        for n in &names {
            repo.write(n, after);
        }
        let pid = fresh_daemon(&env, &repo);
        let check = "Check whether these changes fix the crash in parseConfig";
        let (took, doc) = request(&env, &repo, &[check, "--json"]);
        let found = doc["output"]["data"]["findings"]
            .as_array()
            .map_or(0, Vec::len);
        let runs = env.stanleyctl(&repo, &["runs", "list", "--json"]).json();
        let id = runs[0]["runId"].as_str().expect("a run").to_owned();
        let opened = env.stanleyctl(&repo, &["ui", "--no-open", "--json"]).json();
        let port = opened["port"].as_u64().expect("port") as u16;
        let token = opened["url"]
            .as_str()
            .and_then(|u| u.split('/').nth(3))
            .expect("token")
            .to_owned();
        let mut page: Vec<Duration> = (0..5)
            .map(|_| page_get(port, &token, &format!("/runs/{id}")))
            .collect();
        page.sort();
        let lsp = lsp_latency(&env, &repo, check);
        eprintln!(
            "findings files={files}: check {:.3}s, {found} findings, page {:.1} ms, lsp {:.1} ms",
            took.as_secs_f64(),
            page[2].as_secs_f64() * 1e3,
            lsp
        );
        steps.push(json!({
            "files": files,
            "findings": found,
            "checkSeconds": took.as_secs_f64(),
            "runPageSeconds": page[2].as_secs_f64(),
            "runEndToDiagnosticsSeconds": lsp / 1e3,
            "daemonPeakRssMiB": mib(pid, "VmHWM"),
        }));
    }
    let steps = with_ratios(steps, "runPageSeconds");
    let mut lsp_ratios = Vec::new();
    let mut last: Option<f64> = None;
    for step in steps.as_array().into_iter().flatten() {
        let now = step["runEndToDiagnosticsSeconds"].as_f64().unwrap_or(0.0);
        lsp_ratios.push(json!(last.map(|l| now / l.max(1e-9))));
        last = Some(now);
    }
    json!({"steps": steps, "languageServerRatios": lsp_ratios})
}

/// The median milliseconds from a `check` run's end to the editor holding its diagnostics,
/// over three runs (`tests/clients/lsp/client.mjs bench`).
fn lsp_latency(env: &TestEnv, repo: &TempRepo, request: &str) -> f64 {
    let client = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/lsp");
    let mut cmd = env.program(std::path::Path::new("node"), repo.root());
    cmd.arg(client.join("client.mjs"))
        .arg("bench")
        .env(
            "STANLEYCTL",
            stanley_tests::testenv::bin_dir().join("stanleyctl"),
        )
        .env("STANLEY", stanley_tests::testenv::bin_dir().join("stanley"))
        .env("REPO", repo.root())
        .env("CHECK_REQUEST", request)
        .env("ROUNDS", "3")
        .env("ACCEPT", "0,10");
    let out = run(cmd, None);
    assert_eq!(out.code, 0, "the LSP bench client failed: {out:?}");
    let seen: Value = serde_json::from_str(out.stdout.trim()).expect("a report");
    let mut latency: Vec<f64> = seen["latencyMs"]
        .as_array()
        .expect("latencies")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    latency.sort_by(f64::total_cmp);
    latency[latency.len() / 2]
}
