//! The foundation bench harness (not a test): in a temporary repository with a 40-hunk diff and
//! a zero-latency fake System One, measures the median warm `stanley "Summarize what changed"
//! --json` against `git diff` on the same tree, the cold (daemon not running) to warm ratio, and
//! the idle daemon's RSS, and (among the rest) the local page's renders against `stanleyctl runs
//! list` and the language server's run-end-to-diagnostics time and memory (`stanley-bench lsp`
//! measures only those and merges them into the last report). Writes
//! `target/bench/foundation.json` and prints it.
//!
//! Build the binaries in the same profile first, e.g.
//! `cargo build --release --bins && cargo run --release -p stanley-tests --bin stanley-bench`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use stanley_tests::fake_jev::{ChoiceRule, choice_answer};
use stanley_tests::testenv::{run, wait_until};
use stanley_tests::tls::Offer;
use stanley_tests::{TempRepo, TestEnv};

/// Runs of the round trip and of `git diff` (each a few milliseconds; a median of many).
const ROUND_TRIPS: usize = 101;
const WARM_RUNS: usize = 15;
const COLD_RUNS: usize = 5;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn timed(mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// The fake model latency for the critical-path figures.
const LATENCY: Duration = Duration::from_millis(100);

/// A 150-hunk review on a fresh daemon with a fake Jev answering after `latency` (and, when
/// `throttle` is set, throttling beyond that many in flight): wall time in rounds of the fake's
/// latency, what was in flight, and what failed.
fn review_rounds(
    latency: Duration,
    throttle: Option<usize>,
    tls: Option<Offer>,
) -> serde_json::Value {
    let mut env = match tls {
        Some(offer) => TestEnv::over_tls(offer),
        None => TestEnv::new(),
    };
    if let Some(ca) = env.jev.ca_file() {
        env.set("STANLEY_JEV_CA_FILE", &ca.to_string_lossy());
    }
    env.set("STANLEY_LOG", "info");
    env.set("STANLEY_CACHE", "off");
    let repo = TempRepo::with_hunks(15, 10);
    let hunks = repo
        .git(&["diff", "-U3"])
        .lines()
        .filter(|l| l.starts_with("@@"))
        .count() as u32;
    env.jev.route("review", "review", 0.9);
    // Start the daemon first so the figure measures the request, not the start.
    let mut warm = env.command("stanley", repo.root());
    warm.args(["Deploy this branch"]);
    run(warm, None);
    env.jev.set_latency(latency);
    if let Some(n) = throttle {
        env.jev.throttle_beyond(n, 100);
    } else {
        env.jev.throttle_beyond(usize::MAX, 100);
    }
    let before = env.jev.requests().len();
    let mut cmd = env.command("stanley", repo.root());
    cmd.args([
        "Review these changes for correctness bugs",
        "--json",
        "--no-persist",
    ]);
    let start = Instant::now();
    let out = run(cmd, None);
    let wall = start.elapsed();
    assert_eq!(out.code, 0, "review failed: {}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let sent = env.jev.requests().len() - before;
    let (peak, throttled) = env.jev.load();
    env.jev.set_latency(Duration::ZERO);
    let mut figure = json!({
        "hunks": hunks,
        "fakeLatencyMs": latency.as_millis() as u64,
        "wallMs": wall.as_secs_f64() * 1000.0,
        "rounds": wall.as_secs_f64() / latency.as_secs_f64(),
        "idealRounds": 2,
        "requestsSent": sent,
        "peakInFlight": peak,
        "failedFrames": doc["output"]["data"]["coverage"]["failed"],
    });
    if tls.is_some() {
        let versions = env.jev.versions();
        figure["protocol"] = json!(versions.last());
        figure["tlsConnections"] = json!(env.jev.connections().0);
        return figure;
    }
    if throttle.is_none() {
        // The same review again: the window starts where the first one left it.
        env.jev.set_latency(latency);
        let mut again = env.command("stanley", repo.root());
        again.args([
            "Review these changes for correctness bugs",
            "--json",
            "--no-persist",
        ]);
        let start = Instant::now();
        let out = run(again, None);
        let wall = start.elapsed();
        env.jev.set_latency(Duration::ZERO);
        assert_eq!(out.code, 0, "review failed: {}", out.stderr);
        figure["roundsWithLearnedWindow"] = json!(wall.as_secs_f64() / latency.as_secs_f64());
    }
    if let Some(n) = throttle {
        figure["throttleBeyond"] = json!(n);
        figure["peakOverLimit"] = json!(peak as f64 / n as f64);
        figure["throttledReplies"] = json!(throttled);
        figure["throttledShare"] = json!(throttled as f64 / sent.max(1) as f64);
        figure["targets"] =
            json!({"failedFrames": 0, "peakOverLimit": 0.75, "throttledShare": 0.1});
    } else {
        figure["target"] = json!(5.0);
    }
    figure
}

/// The improvement loop's payoff: a request delegated to the stand-in agent (with a fixed
/// delay) against the same request once the drafted workflow is promoted.
fn improvement_loop() -> serde_json::Value {
    const AGENT_DELAY_MS: u64 = 500;
    let mut env = TestEnv::new();
    // Trust as an author has it (`stanleyctl trust --edits` below), not the CI switch, so the
    // figures include the trust check every request makes.
    env.untrusted();
    env.set("STANLEY_LOG", "info");
    env.set(
        "STANLEY_PI_BIN",
        stanley_tests::testenv::bin_dir()
            .join("fake-pi")
            .to_str()
            .expect("utf-8 path"),
    );
    env.set("FAKE_PI_DELAY_MS", &AGENT_DELAY_MS.to_string());
    env.set("STANLEY_AUTO_IMPROVE", "off");
    env.jev.route_if_present("todo", "todo_audit", 0.9);
    env.jev.route("summar", "summarize", 0.9);
    let repo = TempRepo::with_files(&[("src/lib.rs", "// TODO: remove\npub fn f() {}\n")]);
    repo.write(
        "src/lib.rs",
        "// TODO: remove\npub fn f() {}\npub fn g() {}\n",
    );
    let stanley = |args: &[&str]| {
        let mut cmd = env.command("stanley", repo.root());
        cmd.args(args);
        let out = run(cmd, None);
        assert_eq!(out.code, 0, "stanley failed: {out:?}");
        out
    };
    let request = ["Audit the TODO comments", "--json", "--no-persist"];
    drop(stanley(&["Summarize what changed", "--no-persist"]));
    let delegated: Vec<Duration> = (0..COLD_RUNS)
        .map(|_| timed(|| drop(stanley(&request))))
        .collect();
    let worker = stanley(&["--improve-worker", "--json"]);
    let id = stanley_workflows::improve::JobId::of_request("Audit the TODO comments").to_string();
    assert!(
        worker.stdout.contains("validated"),
        "{}\n{}",
        worker.stdout,
        std::fs::read_to_string(
            repo.root()
                .join(format!(".stanley/candidates/{id}/candidate.json"))
        )
        .unwrap_or_default()
    );
    drop(stanley(&["--promote-candidate", &id]));
    let first = stanley(&request);
    assert!(first.stdout.contains("audited"), "{}", first.stdout);
    let promoted: Vec<Duration> = (0..COLD_RUNS)
        .map(|_| timed(|| drop(stanley(&request))))
        .collect();
    let (d, p) = (median(delegated), median(promoted));
    json!({
        "agentDelayMs": AGENT_DELAY_MS,
        "medianDelegatedMs": d.as_secs_f64() * 1000.0,
        "medianPromotedMs": p.as_secs_f64() * 1000.0,
        "promotedOverDelegated": p.as_secs_f64() / d.as_secs_f64(),
    })
}

/// The judgment cache on the 40-hunk tree: the same summarize repeated warm against `git diff`,
/// the Jev requests it sends, the requests after a one-hunk edit, and the store's size per 1,000
/// answers (from the daemon's store, and from 10,000 answers written straight to a store).
fn judgment_cache(env: &TestEnv, repo: &TempRepo, git: Duration) -> serde_json::Value {
    let stanley = |env: &TestEnv, args: &[&str]| {
        let mut cmd = env.command("stanley", repo.root());
        // The cache is on for these requests only.
        cmd.env("STANLEY_CACHE", "on");
        cmd.args(args);
        let out = run(cmd, None);
        assert_eq!(out.code, 0, "stanley failed: {out:?}");
        out
    };
    // One request that keeps its answers; the repeats read them (`--no-persist`, like the
    // uncached figure, so neither writes a run record).
    let before = env.jev.requests().len();
    drop(stanley(env, &["Summarize what changed", "--json"]));
    let first_sent = env.jev.requests().len() - before;
    let request = ["Summarize what changed", "--json", "--no-persist"];
    let before = env.jev.requests().len();
    let repeat: Vec<Duration> = (0..WARM_RUNS)
        .map(|_| timed(|| drop(stanley(env, &request))))
        .collect();
    let repeat_sent = (env.jev.requests().len() - before) / WARM_RUNS;
    let repeat_m = median(repeat);

    // With Jev answering after 100 ms, as a real one does: asked fresh, and answered from the
    // cache.
    env.jev.set_latency(LATENCY);
    let fresh = timed(|| {
        let mut cmd = env.command("stanley", repo.root());
        cmd.env("STANLEY_CACHE", "off").args(request);
        assert_eq!(run(cmd, None).code, 0);
    });
    let cached = timed(|| drop(stanley(env, &request)));
    env.jev.set_latency(Duration::ZERO);

    // Edit one hunk: only its frame is asked again.
    let path = repo.root().join("src/m0.js");
    let original = std::fs::read_to_string(&path).expect("read m0");
    repo.write("src/m0.js", &original.replacen("x * 2 +", "x * 3 +", 1));
    let before = env.jev.requests().len();
    drop(stanley(env, &["Summarize what changed", "--json"]));
    let edit_sent = env.jev.requests().len() - before;
    repo.write("src/m0.js", &original);

    let stats = env.stanleyctl(repo, &["cache", "stats", "--json"]);
    assert_eq!(stats.code, 0, "{stats:?}");
    let stats: serde_json::Value = serde_json::from_str(&stats.stdout).expect("stats JSON");
    let entries = stats["entries"].as_u64().unwrap_or(0).max(1) as f64;
    json!({
        "requestsFirstRun": first_sent,
        "medianRepeatWarmMs": repeat_m.as_secs_f64() * 1000.0,
        "repeatOverGitDiff": repeat_m.as_secs_f64() / git.as_secs_f64(),
        "requestsPerRepeat": repeat_sent,
        "withJevLatency": {
            "fakeLatencyMs": LATENCY.as_millis() as u64,
            "freshMs": fresh.as_secs_f64() * 1000.0,
            "cachedMs": cached.as_secs_f64() * 1000.0,
            "cachedOverFresh": cached.as_secs_f64() / fresh.as_secs_f64(),
        },
        "requestsAfterOneHunkEdit": edit_sent,
        "daemonStore": {
            "entries": stats["entries"],
            "bytesPer1000": stats["bytes"].as_f64().unwrap_or(0.0) / entries * 1000.0,
        },
        "store10k": store_size(10_000),
        "targets": {"repeatOverGitDiff": 1.5, "requestsPerRepeat": 0, "requestsAfterOneHunkEdit": 1},
    })
}

/// Writes `n` summarize-shaped answers (a nine-label choice, a four-level score, two nouls)
/// to a fresh store and reports its size per 1,000 answers.
fn store_size(n: u32) -> serde_json::Value {
    use stanley_adapters::judgments::{CacheSecret, SledJudgments};
    use stanley_core::{CacheKey, CachedAnswers, JudgmentCache};
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = SledJudgments::open(
        &dir.path().join("judgments"),
        u64::MAX,
        CacheSecret::from_bytes([7; 32]),
    )
    .expect("open");
    let labels = stanley_workflows::analysis::modes::SUMMARIZE.labels;
    for i in 0..n {
        let p = f64::from(i % 100) / 100.0;
        let probabilities: serde_json::Map<String, serde_json::Value> = labels
            .iter()
            .map(|(l, _)| ((*l).to_owned(), json!(p / labels.len() as f64)))
            .collect();
        let answers = json!({
            "classification": {"type": "choice", "choice": labels[0].0, "confidence": p, "probabilities": probabilities},
            "importance": {"type": "score", "score": 1.2, "confidence": 0.6, "probabilities": {"0": 0.1, "1": 0.6, "2": 0.2, "3": 0.1}},
            "evidence_sufficient": {"type": "noul", "noul": p},
            "untrusted_instruction_text": {"type": "noul", "noul": 0.01},
        });
        let key = CacheKey(stanley_core::sha256_hex(&i.to_be_bytes()));
        cache.put(
            &key,
            "jev-1.13.0",
            &CachedAnswers {
                model: "jev-1.13.0".into(),
                answers: answers.as_object().cloned().unwrap_or_default(),
                input_tokens: 600,
                output_tokens: 16,
            },
        );
    }
    cache.flush();
    let stats = cache.stats();
    json!({
        "entries": stats.entries,
        "bytesPer1000": stats.bytes as f64 / f64::from(n) * 1000.0,
        "diskBytesPer1000": stats.disk_bytes as f64 / f64::from(n) * 1000.0,
    })
}

/// One GET of the local page at `path` under its token: the body.
fn page_get(port: u16, token: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("the page");
    write!(
        stream,
        "GET /{token}{path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("read");
    assert!(reply.starts_with("HTTP/1.1 200"), "{path}: {reply}");
    reply
}

/// The local page with 200 kept runs (the default retention): the runs list and one run
/// rendered by the page, against `stanleyctl runs list` (a whole client process over gRPC), and
/// the daemon's RSS before the page started and after it served.
fn local_page() -> serde_json::Value {
    let mut env = TestEnv::new();
    env.set("STANLEY_LOG", "info");
    env.set("STANLEY_CACHE", "off");
    env.jev.route("summar", "summarize", 0.9);
    let repo = TempRepo::with_hunks(2, 5);
    for _ in 0..200 {
        let mut cmd = env.command("stanley", repo.root());
        cmd.args(["Summarize what changed"]);
        assert_eq!(run(cmd, None).code, 0);
    }
    let runs = env.stanleyctl(&repo, &["runs", "list", "--json"]).json();
    assert_eq!(runs.as_array().map(Vec::len), Some(200));
    let newest = runs[0]["runId"].as_str().expect("a run id").to_owned();
    let pid = repo.daemon_pid().expect("daemon pid");
    let rss_before = stanley_tests::bench::rss_kib(pid);
    let list_cli: Vec<Duration> = (0..WARM_RUNS)
        .map(|_| timed(|| assert_eq!(env.stanleyctl(&repo, &["runs", "list"]).code, 0)))
        .collect();
    let opened = env.stanleyctl(&repo, &["ui", "--no-open", "--json"]).json();
    let port = opened["port"].as_u64().expect("port") as u16;
    let url = opened["url"].as_str().expect("url");
    // The address is http://127.0.0.1:<port>/<token>/.
    let token = url.split('/').nth(3).expect("token").to_owned();
    let list_page: Vec<Duration> = (0..WARM_RUNS)
        .map(|_| timed(|| drop(page_get(port, &token, "/runs"))))
        .collect();
    let run_page: Vec<Duration> = (0..WARM_RUNS)
        .map(|_| timed(|| drop(page_get(port, &token, &format!("/runs/{newest}")))))
        .collect();
    let rss_after = stanley_tests::bench::rss_kib(pid);
    let (cli_m, list_m, run_m) = (median(list_cli), median(list_page), median(run_page));
    json!({
        "runsKept": 200,
        "medianRunsListCliMs": cli_m.as_secs_f64() * 1000.0,
        "medianRunsPageMs": list_m.as_secs_f64() * 1000.0,
        "medianRunPageMs": run_m.as_secs_f64() * 1000.0,
        "runsPageOverRunsListCli": list_m.as_secs_f64() / cli_m.as_secs_f64(),
        "daemonRssBeforeMiB": rss_before.map(|k| k as f64 / 1024.0),
        "daemonRssServingMiB": rss_after.map(|k| k as f64 / 1024.0),
    })
}

/// The language server (`stanleyctl lsp`) under the official LSP client
/// (`tests/clients/lsp/client.mjs bench`): the time from a command-line run's end (its process
/// exited) to the editor holding that run's diagnostics, over `WARM_RUNS` runs, and the
/// server's memory against the daemon's.
fn language_server() -> serde_json::Value {
    let mut small = lsp_figures(1, WARM_RUNS);
    let large = lsp_figures(LSP_FILES, 3);
    small["withManyFindings"] = json!({
        "files": large["files"],
        "diagnostics": large["diagnostics"],
        "medianRunEndToDiagnosticsMs": large["medianRunEndToDiagnosticsMs"],
        "lspRssMiB": large["lspRssMiB"],
        "lspRssOverDaemonRss": large["lspRssOverDaemonRss"],
    });
    small
}

/// Test files with a skipped test each in the bench's many-findings repository.
const LSP_FILES: usize = 200;

/// The language server's figures over a repository of `files` changed test files (each a
/// skipped test and removed assertions: deterministic findings), `rounds` runs.
fn lsp_figures(files: usize, rounds: usize) -> serde_json::Value {
    let mut env = TestEnv::new();
    env.set("STANLEY_LOG", "info");
    env.jev.route("check", "check", 0.9);
    let before = "test('parses', () => {\n  expect(parseConfig('{}')).toEqual({});\n  expect(parseConfig('1')).toEqual(1);\n});\n";
    let after = "test.skip('parses', () => {\n  expect(parseConfig('{}')).toEqual({});\n});\n";
    let name = |n: usize| {
        if n == 0 {
            "test/config.test.js".to_owned()
        } else {
            format!("test/t{n}.test.js")
        }
    };
    let names: Vec<String> = (0..files).map(name).collect();
    let originals: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), before)).collect();
    let repo = TempRepo::with_files(&originals);
    for n in &names {
        repo.write(n, after);
    }
    let request = "Check whether these changes fix the crash in parseConfig";
    assert_eq!(env.stanley(&repo, &[request]).code, 0);
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
        .env("ROUNDS", rounds.to_string());
    let out = run(cmd, None);
    assert_eq!(out.code, 0, "the LSP bench client failed: {out:?}");
    let seen: serde_json::Value = serde_json::from_str(out.stdout.trim()).expect("a report");
    let mut latency: Vec<f64> = seen["latencyMs"]
        .as_array()
        .expect("latencies")
        .iter()
        .filter_map(serde_json::Value::as_f64)
        .collect();
    latency.sort_by(f64::total_cmp);
    let daemon = repo
        .daemon_pid()
        .and_then(stanley_tests::bench::rss_kib)
        .map(|k| k as f64 / 1024.0);
    let lsp = seen["rssKb"]["rss"].as_f64().map(|k| k / 1024.0);
    json!({
        "files": seen["files"],
        "diagnostics": seen["diagnosticCount"],
        "rounds": latency.len(),
        // Negative: the diagnostics were in the editor before the command line had exited.
        "medianRunEndToDiagnosticsMs": latency[latency.len() / 2],
        "maxRunEndToDiagnosticsMs": latency[latency.len() - 1],
        "lspRssMiB": lsp,
        "lspPeakRssMiB": seen["rssKb"]["hwm"].as_f64().map(|k| k / 1024.0),
        "daemonRssMiB": daemon,
        "lspRssOverDaemonRss": lsp.zip(daemon).map(|(l, d)| l / d),
        "targets": {"medianRunEndToDiagnosticsMs": 100.0, "lspRssMiB": 20.0},
    })
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("lsp") {
        // Only the language server's figures, merged into the last report.
        let path = stanley_tests::bench::out_dir().join("foundation.json");
        let mut report: serde_json::Value = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_else(|| json!({"schema": "stanley.bench/foundation/v1"}));
        report["languageServer"] = language_server();
        stanley_tests::bench::write_report("foundation", &report);
        return;
    }
    let mut env = TestEnv::new();
    // Debug logging (the tests' default) would dominate the timings.
    env.set("STANLEY_LOG", "info");
    // Every figure but the cache's own asks Jev everything, as before the cache existed.
    env.set("STANLEY_CACHE", "off");
    env.jev.route("summar", "summarize", 0.9);
    let labels: Vec<String> =
        stanley_tests::fake_jev::labels_of(stanley_workflows::analysis::modes::SUMMARIZE.labels);
    env.jev.answer(
        "classification",
        choice_answer(
            &labels,
            &ChoiceRule {
                label: "refactor".into(),
                mass: 0.8,
                confidence: 0.8,
            },
        ),
    );
    let repo = TempRepo::with_hunks(4, 10);
    let hunks = repo
        .git(&["diff", "-U3"])
        .lines()
        .filter(|l| l.starts_with("@@"))
        .count();
    assert_eq!(hunks, 40, "the bench repository should have 40 hunks");

    let stanley = |args: &[&str]| {
        let mut cmd = env.command("stanley", repo.root());
        cmd.args(args);
        let out = run(cmd, None);
        assert_eq!(out.code, 0, "stanley failed: {out:?}");
        out
    };
    let request = ["Summarize what changed", "--json", "--no-persist"];
    // Start the daemon and check the run is what we think it is.
    let first = stanley(&request);
    let doc: serde_json::Value = serde_json::from_str(&first.stdout).expect("JSON result");
    assert_eq!(doc["output"]["data"]["coverage"]["judged"], 40);

    let before = env.jev.requests().len();
    let warm: Vec<Duration> = (0..WARM_RUNS)
        .map(|_| timed(|| drop(stanley(&request))))
        .collect();
    let jev_per_run = (env.jev.requests().len() - before) / WARM_RUNS;
    // The daemon round trip alone: an action request is answered without Jev or Git. Started
    // as `git diff` is below (output to /dev/null, no watchdog thread, no pipes to read), and
    // over as many runs, so the two differ only in the program.
    let no_jev = ["Deploy this branch", "--json"];
    let round_trip: Vec<Duration> = (0..ROUND_TRIPS)
        .map(|_| {
            timed(|| {
                let status = env
                    .command("stanley", repo.root())
                    .args(no_jev)
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .expect("stanley");
                assert_eq!(status.code(), Some(64));
            })
        })
        .collect();
    let git: Vec<Duration> = (0..ROUND_TRIPS)
        .map(|_| {
            timed(|| {
                let status = Command::new("git")
                    .args(["diff", "-U3", "--no-color"])
                    .current_dir(repo.root())
                    .env("GIT_CONFIG_GLOBAL", "/dev/null")
                    .env("GIT_CONFIG_NOSYSTEM", "1")
                    .stdout(Stdio::null())
                    .status()
                    .expect("git diff");
                assert!(status.success());
            })
        })
        .collect();
    let cache = judgment_cache(&env, &repo, median(git.clone()));
    // Repository workflows: a trivial workflow routed and run warm, against summarize, and the
    // first request after an edit (which reloads the host).
    env.jev.route("trivial", "trivial", 0.9);
    let trivial = |n: u32| {
        format!(
            "export default async () => ({{ id: \"trivial\", instructions: \"Run the trivial workflow\", run: async () => ({{ version: {n} }}) }});\n"
        )
    };
    let trusted = env.stanleyctl(&repo, &["trust", "--edits"]);
    assert_eq!(trusted.code, 0, "stanleyctl trust failed: {trusted:?}");
    repo.write(".stanley/workflows/trivial.ts", &trivial(1));
    let trivial_request = ["Run the trivial workflow", "--json", "--no-persist"];
    drop(stanley(&trivial_request));
    let warm_trivial: Vec<Duration> = (0..WARM_RUNS)
        .map(|_| timed(|| drop(stanley(&trivial_request))))
        .collect();
    let warm_summarize_with_repo: Vec<Duration> = (0..WARM_RUNS)
        .map(|_| timed(|| drop(stanley(&request))))
        .collect();
    let mut reload: Vec<Duration> = Vec::new();
    for n in 2..(2 + COLD_RUNS as u32) {
        repo.write(".stanley/workflows/trivial.ts", &trivial(n));
        let start = Instant::now();
        let out = stanley(&trivial_request);
        reload.push(start.elapsed());
        let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
        assert_eq!(doc["output"]["version"], n, "the edit was used");
    }
    std::fs::remove_file(repo.root().join(".stanley/workflows/trivial.ts"))
        .expect("remove the workflow");
    let (trivial_m, summarize_repo_m, reload_m) = (
        median(warm_trivial),
        median(warm_summarize_with_repo),
        median(reload),
    );
    // Idle RSS: after the warm runs, with nothing running.
    let pid = repo.daemon_pid().expect("daemon pid");
    let idle_rss = stanley_tests::bench::rss_kib(pid);
    let cold: Vec<Duration> = (0..COLD_RUNS)
        .map(|_| {
            let pid = repo.daemon_pid().expect("daemon pid");
            let stop = env.stanleyctl(&repo, &["daemon", "stop"]);
            assert_eq!(stop.code, 0, "{stop:?}");
            // SAFETY: signal 0 only checks that the process exists.
            assert!(wait_until(Duration::from_secs(10), || unsafe {
                libc::kill(pid, 0)
            } != 0));
            timed(|| drop(stanley(&request)))
        })
        .collect();

    let (warm_m, git_m, cold_m, trip_m) =
        (median(warm), median(git), median(cold), median(round_trip));
    let daemon_log = std::fs::read_to_string(repo.root().join(".stanley/daemon/stanleyd.log"))
        .unwrap_or_default();
    let report = json!({
        "schema": "stanley.bench/foundation/v1",
        "hunks": hunks,
        "warmRuns": WARM_RUNS,
        "coldRuns": COLD_RUNS,
        "medianWarmMs": warm_m.as_secs_f64() * 1000.0,
        "medianGitDiffMs": git_m.as_secs_f64() * 1000.0,
        "medianColdMs": cold_m.as_secs_f64() * 1000.0,
        "warmOverGitDiff": warm_m.as_secs_f64() / git_m.as_secs_f64(),
        "coldOverWarm": cold_m.as_secs_f64() / warm_m.as_secs_f64(),
        "medianDaemonRoundTripMs": trip_m.as_secs_f64() * 1000.0,
        "daemonRoundTripOverGitDiff": trip_m.as_secs_f64() / git_m.as_secs_f64(),
        "coldAddsMs": (cold_m.as_secs_f64() - warm_m.as_secs_f64()) * 1000.0,
        "idleDaemonRssMiB": idle_rss.map(|k| k as f64 / 1024.0),
        "jevRequestsPerWarmRun": jev_per_run,
        "judgmentCache": cache,
        "repositoryWorkflow": {
            "medianWarmTrivialMs": trivial_m.as_secs_f64() * 1000.0,
            "medianWarmSummarizeMs": summarize_repo_m.as_secs_f64() * 1000.0,
            "trivialOverSummarize": trivial_m.as_secs_f64() / summarize_repo_m.as_secs_f64(),
            "medianSaveToNextRequestMs": reload_m.as_secs_f64() * 1000.0,
            "targetSaveToNextRequestMs": 500.0,
        },
        "targets": {"warmOverGitDiff": 3.0, "coldAddsMs": 300.0, "idleDaemonRssMiB": 40.0},
    });
    let report = {
        let mut report = report;
        report["review150"] = json!({
            "at100ms": review_rounds(LATENCY, None, None),
            "at400ms": review_rounds(Duration::from_millis(400), None, None),
            "throttledBeyond24": review_rounds(LATENCY, Some(24), None),
            "overHttp2": review_rounds(LATENCY, None, Some(Offer::Http2)),
            "overHttp1Tls": review_rounds(LATENCY, None, Some(Offer::Http1Only)),
        });
        report["improvementLoop"] = improvement_loop();
        report["localPage"] = local_page();
        report["languageServer"] = language_server();
        report
    };
    let out_dir = stanley_tests::bench::write_report("foundation", &report);
    // The daemon log of the measured runs, for looking into where the time went.
    std::fs::write(out_dir.join("foundation-daemon.log"), daemon_log).expect("write daemon log");
}
