//! The foundation bench harness (not a test): in a temporary repository with a 40-hunk diff and
//! a zero-latency fake System One, measures the median warm `stanley "Summarize what changed"
//! --json` against `git diff` on the same tree, the cold (daemon not running) to warm ratio, and
//! the idle daemon's RSS. Writes `target/bench/foundation.json` and prints it.
//!
//! Build the binaries in the same profile first, e.g.
//! `cargo build --release --bins && cargo run --release -p stanley-tests --bin stanley-bench`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use stanley_tests::fake_jev::{ChoiceRule, choice_answer};
use stanley_tests::testenv::{run, wait_until};
use stanley_tests::{TempRepo, TestEnv};

const WARM_RUNS: usize = 15;
const COLD_RUNS: usize = 5;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn repo_with_40_hunks() -> TempRepo {
    let files: Vec<(String, String)> = (0..4)
        .map(|f| {
            let body: String = (0..200)
                .map(|i| format!("export function f{f}_{i}(x) {{ return x + {i}; }}\n"))
                .collect();
            (format!("src/module{f}.js"), body)
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = TempRepo::with_files(&refs);
    for (path, content) in &files {
        let changed: String = content
            .lines()
            .enumerate()
            .map(|(i, line)| {
                if i % 20 == 10 {
                    format!("{}\n", line.replace("x +", "x * 2 +"))
                } else {
                    format!("{line}\n")
                }
            })
            .collect();
        repo.write(path, &changed);
    }
    repo
}

fn timed(mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// Frames a built-in keeps in flight (the daemon's `BUILTIN_CONCURRENCY`).
const BUILTIN_CONCURRENCY: u32 = 8;
/// The fake model latency for the critical-path figure.
const LATENCY: Duration = Duration::from_millis(100);

/// A 150-hunk review with a fake Jev answering after 100 ms: wall time against the ideal critical
/// path of one routing round trip plus ceil(hunks / concurrency) judging round trips.
fn review_critical_path() -> serde_json::Value {
    let mut env = TestEnv::new();
    env.set("STANLEY_LOG", "info");
    let files: Vec<(String, String)> = (0..15)
        .map(|f| {
            (
                format!("src/svc{f}.js"),
                (0..200)
                    .map(|i| format!("export function g{f}_{i}(x) {{ return x + {i}; }}\n"))
                    .collect(),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = TempRepo::with_files(&refs);
    for (path, content) in &files {
        let changed: String = content
            .lines()
            .enumerate()
            .map(|(i, line)| {
                if i % 20 == 10 {
                    format!("{}\n", line.replace("x +", "x - "))
                } else {
                    format!("{line}\n")
                }
            })
            .collect();
        repo.write(path, &changed);
    }
    let hunks = repo
        .git(&["diff", "-U3"])
        .lines()
        .filter(|l| l.starts_with("@@"))
        .count() as u32;
    env.jev.route("review", "review", 0.9);
    env.jev.set_latency(LATENCY);
    let mut cmd = env.command("stanley", repo.root());
    cmd.args([
        "Review these changes for correctness bugs",
        "--json",
        "--no-persist",
    ]);
    // Start the daemon first so the figure measures the request, not the start.
    let mut warm = env.command("stanley", repo.root());
    warm.args(["Deploy this branch"]);
    run(warm, None);
    let start = Instant::now();
    let out = run(cmd, None);
    let wall = start.elapsed();
    assert_eq!(out.code, 0, "review failed: {}", out.stderr);
    env.jev.set_latency(Duration::ZERO);
    let ideal = LATENCY * (1 + hunks.div_ceil(BUILTIN_CONCURRENCY));
    json!({
        "hunks": hunks,
        "concurrency": BUILTIN_CONCURRENCY,
        "fakeLatencyMs": LATENCY.as_millis() as u64,
        "wallMs": wall.as_secs_f64() * 1000.0,
        "idealCriticalPathMs": ideal.as_secs_f64() * 1000.0,
        "wallOverIdeal": wall.as_secs_f64() / ideal.as_secs_f64(),
        "target": 1.2,
    })
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
    let id = stanley_workflows::improve::job_id("Audit the TODO comments");
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

fn main() {
    let mut env = TestEnv::new();
    // Debug logging (the tests' default) would dominate the timings.
    env.set("STANLEY_LOG", "info");
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
    let repo = repo_with_40_hunks();
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
    // The daemon round trip alone: an action request is answered without Jev or Git.
    let no_jev = ["Deploy this branch", "--json"];
    let round_trip: Vec<Duration> = (0..WARM_RUNS)
        .map(|_| {
            timed(|| {
                let mut cmd = env.command("stanley", repo.root());
                cmd.args(no_jev);
                assert_eq!(run(cmd, None).code, 64);
            })
        })
        .collect();
    let git: Vec<Duration> = (0..WARM_RUNS)
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
        "repositoryWorkflow": {
            "medianWarmTrivialMs": trivial_m.as_secs_f64() * 1000.0,
            "medianWarmSummarizeMs": summarize_repo_m.as_secs_f64() * 1000.0,
            "trivialOverSummarize": trivial_m.as_secs_f64() / summarize_repo_m.as_secs_f64(),
            "medianSaveToNextRequestMs": reload_m.as_secs_f64() * 1000.0,
            "targetSaveToNextRequestMs": 500.0,
        },
        "targets": {"warmOverGitDiff": 3.0, "coldAddsMs": 300.0, "idleDaemonRssMiB": 40.0},
    });
    let review = review_critical_path();
    let report = {
        let mut report = report;
        report["review150"] = review;
        report["improvementLoop"] = improvement_loop();
        report
    };
    let out_dir = stanley_tests::bench::write_report("foundation", &report);
    // The daemon log of the measured runs, for looking into where the time went.
    std::fs::write(out_dir.join("foundation-daemon.log"), daemon_log).expect("write daemon log");
}
