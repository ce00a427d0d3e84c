//! The diff-evidence bench (not a test), on the real upstream repositories that
//! `tests/upstream/assemble` builds: bytes per Jev request on a large crate upgrade (median and
//! max, and what the old first-100-files manifest would have added), hunks judged against
//! eligible, and `find` on a tree of about 25,000 files (wall time and Jev requests against
//! `git grep`, and the daemon's memory after); and for issue 31, frames sent against the hunks
//! they judge on the largest upgrades (identical text asked once) and three fresh runs of a
//! review over the budget. Writes `target/bench/upstream.json`.
//!
//! `tests/upstream/assemble && cargo build --release --bins && cargo run --release -p
//! stanley-tests --bin stanley-bench-upstream` (`STANLEY_BENCH_ONLY=triage` for triage alone,
//! `STANLEY_BENCH_MISSES=1` to list the failures it did not find, `STANLEY_BENCH_ONLY=warm` for
//! the warm daemon alone on every upgrade of its table, `STANLEY_BENCH_WARM_REPOS=a,b` to choose,
//! `STANLEY_BENCH_DAEMON_BIN` to run the daemon through a wrapper)

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use stanley_tests::testenv::run;
use stanley_tests::{TempRepo, TestEnv};
use stanley_workflows::testing::names_match;

use stanley_tests::bench::{proc_kib, rss_kib};

fn stats(mut sizes: Vec<usize>) -> Value {
    sizes.sort_unstable();
    let median = sizes.get(sizes.len() / 2).copied().unwrap_or(0);
    json!({
        "requests": sizes.len(),
        "medianBytes": median,
        "maxBytes": sizes.last().copied().unwrap_or(0),
    })
}

/// The manifest every diff frame carried before lean frames: the first 100 files.
fn old_manifest_bytes(repo: &TempRepo) -> usize {
    let numstat = repo.git(&["diff", "-M", "--numstat", "main...HEAD"]);
    let files: Vec<Value> = numstat
        .lines()
        .take(100)
        .map(|l| {
            let mut parts = l.split('\t');
            let added = parts.next().unwrap_or("0");
            let removed = parts.next().unwrap_or("0");
            let path = parts.next().unwrap_or("");
            json!({"path": path, "kind": "source", "fileStatus": "modified", "hunks": 3,
                   "added": added.parse::<u64>().unwrap_or(0), "removed": removed.parse::<u64>().unwrap_or(0)})
        })
        .collect();
    let omitted = numstat.lines().count().saturating_sub(100);
    serde_json::to_string(&json!({"files": files, "omittedFromManifest": omitted}))
        .map_or(0, |s| s.len())
}

fn large_upgrade() -> Value {
    let mut env = TestEnv::new();
    env.set("STANLEY_LOG", "info");
    env.jev.route("review", "review", 0.9);
    let repo = TempRepo::upstream("upgrade-large");
    let mut cmd = env.command("stanley", repo.root());
    cmd.args([
        "Review these changes for correctness bugs",
        "--json",
        "--no-persist",
        "--scope",
        "branch",
        "--base",
        "main",
    ]);
    let start = Instant::now();
    let out = run(cmd, None);
    let wall = start.elapsed();
    assert!(matches!(out.code, 0 | 10), "review failed: {out:?}");
    let doc: Value = serde_json::from_str(&out.stdout).expect("JSON result");
    let requests = env.jev.requests();
    let frames: Vec<&Value> = requests
        .iter()
        .filter(|r| r.pointer("/state/hunk").is_some())
        .collect();
    let sizes: Vec<usize> = frames.iter().map(|r| r.to_string().len()).collect();
    let change_sizes: Vec<usize> = frames
        .iter()
        .map(|r| {
            r.pointer("/state/change")
                .map_or(0, |c| c.to_string().len())
        })
        .collect();
    let old = old_manifest_bytes(&repo);
    let before: Vec<usize> = sizes
        .iter()
        .zip(&change_sizes)
        .map(|(s, c)| s - c + old)
        .collect();
    let data = &doc["output"]["data"];
    let hunks = repo
        .git(&["diff", "-M", "-U3", "main...HEAD"])
        .lines()
        .filter(|l| l.starts_with("@@"))
        .count();
    json!({
        "repository": "tokio 1.35.0 -> 1.40.0 (upgrade-large)",
        "hunksInGitDiffM": hunks,
        "eligibleHunks": data["summary"]["eligibleHunks"],
        "judgedHunks": frames.len(),
        "coverage": data["coverage"],
        "excludedFiles": data["excluded"].as_array().map_or(0, Vec::len),
        "frames": stats(sizes),
        "framesWithTheOldManifest": stats(before),
        "oldManifestBytes": old,
        "wallMs": wall.as_secs_f64() * 1000.0,
        "targets": {"medianBytes": 5120, "judgedHunks": 500},
    })
}

fn find_at_scale() -> Value {
    let mut env = TestEnv::new();
    env.set("STANLEY_LOG", "info");
    env.jev.route("find", "find", 0.9);
    // A scripted judge: files with "retry" in their path are the implementation.
    env.jev.judge_find_by_path("retry");
    let repo = TempRepo::upstream("tree-25k");
    let tracked = repo.git(&["ls-files"]).lines().count();
    // Start the daemon first: the figure is the request, not the start.
    let mut warm = env.command("stanley", repo.root());
    warm.args(["Deploy this branch"]);
    run(warm, None);
    let pid = repo.daemon_pid().expect("daemon pid");
    let idle = rss_kib(pid);
    let before = env.jev.requests().len();
    let mut cmd = env.command("stanley", repo.root());
    cmd.args([
        "Find the code that retries failed HTTP requests",
        "--json",
        "--no-persist",
    ]);
    let start = Instant::now();
    let out = run(cmd, None);
    let wall = start.elapsed();
    let doc: Value = serde_json::from_str(&out.stdout).expect("JSON result");
    let requests: Vec<Value> = env.jev.requests().split_off(before + 1);
    let bytes: usize = requests.iter().map(|r| r.to_string().len()).sum();
    std::thread::sleep(Duration::from_millis(200));
    let after = rss_kib(pid);
    let grep = |args: &[&str]| {
        let start = Instant::now();
        let status = Command::new("git")
            .args(args)
            .current_dir(repo.root())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdout(Stdio::null())
            .status()
            .expect("git grep");
        assert!(status.code().is_some_and(|c| c <= 1), "git grep failed");
        start.elapsed()
    };
    let git_grep = grep(&["grep", "-n", "-i", "-e", "retr", "-e", "http"]);
    json!({
        "repository": "tree-25k",
        "trackedFiles": tracked,
        "exitCode": out.code,
        "status": doc["status"],
        "screened": doc["output"]["data"]["summary"]["screened"],
        "excerpted": doc["output"]["data"]["summary"]["excerpted"],
        "shortlistTop": doc["output"]["data"]["results"][0]["path"],
        "excludedFiles": doc["output"]["data"]["excluded"].as_array().map_or(0, Vec::len),
        "jevRequests": requests.len(),
        "jevRequestBytes": bytes,
        "wallMs": wall.as_secs_f64() * 1000.0,
        "gitGrepMs": git_grep.as_secs_f64() * 1000.0,
        "wallOverGitGrep": wall.as_secs_f64() / git_grep.as_secs_f64(),
        "daemonRssIdleMiB": idle.map(|k| k as f64 / 1024.0),
        "daemonRssAfterMiB": after.map(|k| k as f64 / 1024.0),
    })
}

/// Failures of the captures in `folder` found by `stanley` end to end (with `parsers` as the
/// request's `STANLEY_TRIAGE_PARSERS`): rows that name them and whose message or key lines
/// carry their own token.
fn captures_found(env: &TestEnv, repo: &TempRepo, folder: &str, parsers: &str) -> Value {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut truths: Vec<PathBuf> = std::fs::read_dir(&folder)
        .expect("captures folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".truth.json"))
        .collect();
    truths.sort();
    let (mut total, mut found, mut captures) = (0usize, 0usize, 0usize);
    let start = Instant::now();
    for truth_path in &truths {
        let stem = truth_path
            .to_string_lossy()
            .trim_end_matches(".truth.json")
            .to_owned();
        let Some(capture) = ["log", "json", "xml"]
            .iter()
            .map(|e| PathBuf::from(format!("{stem}.{e}")))
            .find(|p| p.exists())
        else {
            continue;
        };
        captures += 1;
        let truth: Value =
            serde_json::from_str(&std::fs::read_to_string(truth_path).expect("truth"))
                .expect("JSON");
        let mut cmd = env.command("stanley", repo.root());
        cmd.env("STANLEY_TRIAGE_PARSERS", parsers).args([
            "Triage these test failures",
            "--json",
            "--no-persist",
        ]);
        let out = run(cmd, Some(&std::fs::read(&capture).expect("capture")));
        let doc: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
        let rows = doc["output"]["data"]["results"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for failure in truth["failures"].as_array().expect("failures") {
            total += 1;
            let (name, token) = (
                failure["name"].as_str().unwrap_or(""),
                failure["token"].as_str().unwrap_or(""),
            );
            let hit = rows.iter().any(|r| {
                let text = format!("{} {}", r["message"], r["keyLines"]).replace("\\\"", "\"");
                names_match(r["testName"].as_str().unwrap_or(""), name) && text.contains(token)
            });
            found += usize::from(hit);
            if !hit && std::env::var_os("STANLEY_BENCH_MISSES").is_some() {
                eprintln!("miss {}: {name} ({token})", capture.display());
                for r in &rows {
                    eprintln!(
                        "    row {} | {} | {}",
                        r["testName"], r["message"], r["keyLines"]
                    );
                }
            }
        }
    }
    json!({
        "captures": captures,
        "failures": total,
        "foundWithOwnMessage": found,
        "foundRate": found as f64 / total.max(1) as f64,
        "wallMs": start.elapsed().as_secs_f64() * 1000.0,
    })
}

/// A 50 MB CI log on stdin ending with the real capture `tail`: the answer, and the CLI's and
/// the daemon's peak memory.
fn big_log(env: &TestEnv, repo: &TempRepo, tail: &str) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("runners/big-log");
    let tail_path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/runners")
        .join(tail);
    let log = Command::new(script)
        .arg("50")
        .arg(&tail_path)
        .output()
        .expect("big-log");
    let pid = repo.daemon_pid().expect("daemon pid");
    // The CLI's own peak memory: a Python parent that runs only it reports its children's peak.
    let file = repo.outside().join("big.log");
    std::fs::write(&file, &log.stdout).expect("write the log");
    let base = env.command("stanley", repo.root());
    let mut cmd = Command::new("python3");
    cmd.current_dir(repo.root())
        .env_clear()
        .envs(base.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))));
    cmd.args([
        "-c",
        "import resource, subprocess, sys\n\
         with open(sys.argv[1], 'rb') as f:\n    \
             r = subprocess.run(sys.argv[2:], stdin=f, capture_output=True)\n\
         sys.stdout.buffer.write(r.stdout)\n\
         sys.stderr.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n\
         sys.exit(r.returncode)",
    ]);
    cmd.arg(&file);
    cmd.arg(stanley_tests::testenv::bin_dir().join("stanley"));
    cmd.args(["Triage these test failures", "--json", "--no-persist"]);
    let start = Instant::now();
    let out = run(cmd, None);
    let wall = start.elapsed();
    let doc: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
    let cli_peak_kib: u64 = out.stderr.trim().parse().unwrap_or(0);
    let daemon_peak = proc_kib(pid, "VmHWM");
    json!({
        "tail": tail,
        "inputBytes": log.stdout.len(),
        "exitCode": out.code,
        "wallMs": wall.as_secs_f64() * 1000.0,
        "rows": doc["output"]["data"]["results"].as_array().map_or(0, Vec::len),
        "limits": doc["output"]["data"]["limits"],
        "cliPeakRssMiB": cli_peak_kib as f64 / 1024.0,
        "daemonPeakRssMiB": daemon_peak.map(|k| k as f64 / 1024.0),
    })
}

/// Every real capture triaged end to end, with the runner parsers and with the generic path
/// alone, the held-out captures both ways, and 50 MB logs of a known and an unknown runner.
fn triage_real_output() -> Value {
    let mut env = TestEnv::new();
    env.set("STANLEY_LOG", "info");
    env.jev.route("triage", "triage_failures", 0.9);
    let repo = TempRepo::with_files(&[("README.md", "# Demo\n")]);
    let all = captures_found(&env, &repo, "fixtures/runners", "all");
    let generic = captures_found(&env, &repo, "fixtures/runners", "generic");
    let held_all = captures_found(&env, &repo, "fixtures/runners-heldout", "all");
    let held_generic = captures_found(&env, &repo, "fixtures/runners-heldout", "generic");
    json!({
        "withRunnerParsers": all,
        "target": 0.97,
        "genericPathAlone": generic,
        "genericTarget": 0.85,
        "heldOut": {"withRunnerParsers": held_all, "genericPathAlone": held_generic},
        "bigLog": big_log(&env, &repo, "pytest-default-calc.log"),
        "bigLogUnknownRunner": big_log(&env, &repo, "mocha-spec-ledger.log"),
    })
}

/// One review on a real upgrade: hunks judged, frames sent, and the frames the same hunks took
/// before identical text was asked once (one per hunk).
fn review_frames(name: &str, extra: &[(&str, &str)]) -> (i32, Value) {
    let mut env = TestEnv::new();
    env.jev.route("review", "review", 0.9);
    for (k, v) in extra {
        env.set(k, v);
    }
    let repo = TempRepo::upstream(name);
    let mut cmd = env.command("stanley", repo.root());
    cmd.args([
        "Review these changes for correctness bugs",
        "--json",
        "--no-persist",
        "--scope",
        "branch",
        "--base",
        "main",
    ]);
    let start = Instant::now();
    let out = run(cmd, None);
    let wall = start.elapsed();
    let doc: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
    let data = &doc["output"]["data"];
    let rows = data["results"].as_array().cloned().unwrap_or_default();
    let judged = rows.iter().filter(|r| r["error"].is_null()).count();
    let frames = env
        .jev
        .requests()
        .iter()
        .filter(|r| r.pointer("/state/hunk").is_some())
        .count();
    let mut by_rule: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for e in data["excluded"].as_array().cloned().unwrap_or_default() {
        *by_rule
            .entry(e["rule"].as_str().unwrap_or("none").to_owned())
            .or_default() += 1;
    }
    let judged_ids: Vec<&str> = rows
        .iter()
        .filter(|r| r["error"].is_null())
        .filter_map(|r| r["id"].as_str())
        .collect();
    (
        out.code,
        json!({
            "repository": name,
            "exitCode": out.code,
            "eligibleHunks": data["summary"]["eligibleHunks"],
            "judgedHunks": judged,
            "framesSent": frames,
            "framesBeforeDedup": judged,
            "framesSaved": 1.0 - frames as f64 / judged.max(1) as f64,
            "coverage": data["coverage"],
            "limits": data["limits"],
            "excludedByRule": by_rule,
            "judgedHash": stanley_core::stable_hash(&json!(judged_ids)),
            "wallMs": wall.as_secs_f64() * 1000.0,
        }),
    )
}

/// Issue 31: identical text asked once on the largest upgrades, and the budget plan's
/// determinism over the budget (three fresh runs: the same hunks, the same exit code).
fn shapes() -> Value {
    let largest = review_frames("upgrade-pygments", &[]).1;
    let tokio = review_frames("upgrade-large", &[]).1;
    let runs: Vec<Value> = (0..3)
        .map(|_| {
            review_frames(
                "upgrade-pygments",
                &[
                    ("STANLEY_MAX_INPUT_TOKENS", "250000"),
                    ("STANLEY_CACHE", "off"),
                ],
            )
            .1
        })
        .collect();
    let same = runs
        .iter()
        .all(|r| r["judgedHash"] == runs[0]["judgedHash"] && r["exitCode"] == runs[0]["exitCode"]);
    json!({
        "largestUpgrade": largest,
        "largeUpgrade": tokio,
        "overBudget": {
            "maxInputTokens": 250000,
            "runs": runs,
            "sameHunksAndExitCode": same,
        },
        "targets": {"framesSaved": 0.25},
    })
}

/// The daemon's CPU time so far (user and system), from `/proc/<pid>/stat`.
fn cpu_time(pid: i32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces) start after the last `)`.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|i| fields.get(*i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    let hz = rustix::param::clock_ticks_per_second();
    Duration::from_millis(ticks * 1000 / hz.max(1))
}

/// Seconds on `CLOCK_MONOTONIC`.
fn monotonic_s() -> f64 {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

fn median_ms(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1000.0
}

/// A warm daemon on one real upgrade the tests assemble: `git diff -M -C` on the range,
/// then a cold review at zero Jev latency (cache off), a fully cached review and summarize, and a
/// review after a one-line edit (committed, so the range moves), each the median of `runs`, as
/// ratios to `git diff` measured in the same run, with the daemon's CPU time and memory: fresh,
/// at rest after a small request and its trim, after the first large request, at the peak,
/// settled, and after the large requests' trim.
fn warm_daemon(name: &str, runs: usize) -> Value {
    let mut env = TestEnv::new();
    env.set("STANLEY_LOG", "warn");
    env.jev.route("review", "review", 0.9);
    env.jev.route("summarize", "summarize", 0.9);
    // The warm evidence is let go after 2 s without a request, so the trim is measured too.
    env.set("STANLEY_WARM_IDLE_MS", "2000");
    // A daemon to run instead of the built one: a wrapper that runs it under a heap profiler
    // (docs/performance.md).
    if let Ok(bin) = std::env::var("STANLEY_BENCH_DAEMON_BIN") {
        env.set("STANLEY_DAEMON_BIN", &bin);
    }
    let repo = TempRepo::upstream(name);
    let request = |env: &TestEnv, text: &str, cache: bool| {
        let mut cmd = env.command("stanley", repo.root());
        // Recorded like any request a person makes (`--no-persist` would also keep the judgment
        // cache read-only, so nothing would ever be answered from it).
        cmd.args([text, "--json", "--scope", "branch", "--base", "main"]);
        if !cache {
            cmd.env("STANLEY_CACHE", "off");
        }
        let start = Instant::now();
        let out = run(cmd, None);
        let wall = start.elapsed();
        assert!(matches!(out.code, 0 | 10 | 12), "{text}: {out:?}");
        (wall, out.stdout)
    };
    let review = "Review these changes for correctness bugs";
    let summarize = "Summarize these changes";
    // The daemon is started first, with no request: its memory at rest is the figure the trim
    // returns to.
    let started = env.stanleyctl(&repo, &["daemon", "restart"]);
    assert_eq!(started.code, 0, "stanleyctl daemon restart: {started:?}");
    let pid = repo.daemon_pid().expect("daemon pid");
    // Anonymous memory (the heap) apart from mapped files (the binary, Git's pack windows).
    let split = || {
        let mib = |field| proc_kib(pid, field).map(|k| k as f64 / 1024.0);
        json!({"anon": mib("RssAnon"), "file": mib("RssFile")})
    };
    let fresh_kib = rss_kib(pid);
    let fresh_split = split();
    // At rest: one small request (a one-line change in the worktree, so the stores open and the
    // patterns compile), then its warm state let go. The large requests' memory should come back
    // to this.
    let scratch = repo.root().join("stanley-bench-scratch.txt");
    std::fs::write(&scratch, "one line\n").expect("write the scratch file");
    let out = env.stanley(&repo, &[summarize, "--json", "--scope", "worktree"]);
    assert!(matches!(out.code, 0 | 10 | 12), "small request: {out:?}");
    std::fs::remove_file(&scratch).expect("remove the scratch file");
    // As long after the request as the figure after the large requests' trim (1.3 s + 2.7 s).
    std::thread::sleep(Duration::from_millis(4000));
    let rest_kib = rss_kib(pid);
    let rest_split = split();
    // Then the first request: these figures are requests to a running daemon.
    request(&env, summarize, true);
    assert_eq!(
        repo.daemon_pid(),
        Some(pid),
        "the first request started another daemon"
    );
    let first_kib = rss_kib(pid);
    let first_split = split();
    let git_diff = || {
        let start = Instant::now();
        let status = Command::new("git")
            .args(["diff", "-M", "-C", "main...HEAD"])
            .current_dir(repo.root())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdout(Stdio::null())
            .status()
            .expect("git diff");
        assert!(status.success());
        start.elapsed()
    };
    let git = median_ms((0..runs).map(|_| git_diff()).collect());
    let phase = |name: &str, cache: bool, text: &str, before: Option<&dyn Fn()>| {
        let cpu0 = cpu_time(pid);
        let begun = monotonic_s();
        let mut sent = Vec::new();
        let walls: Vec<Duration> = (0..runs)
            .map(|_| {
                if let Some(f) = before {
                    f();
                }
                let (wall, out) = request(&env, text, cache);
                let doc: Value = serde_json::from_str(&out).unwrap_or(Value::Null);
                sent.push(doc["usage"]["jevRequests"].as_u64().unwrap_or(0));
                wall
            })
            .collect();
        // On the clock `perf record -k CLOCK_MONOTONIC` stamps samples with, so a profile of the
        // whole bench can be cut by phase (docs/performance.md).
        eprintln!("phase {name} {begun:.6} {:.6}", monotonic_s());
        let cpu = (cpu_time(pid) - cpu0).as_secs_f64() * 1000.0 / runs as f64;
        let ms = median_ms(walls);
        json!({
            "medianMs": ms,
            "overGitDiff": ms / git,
            "daemonCpuMsPerRequest": cpu,
            "jevRequestsSent": sent,
        })
    };
    let cold = phase("cold", false, review, None);
    // Fill the cache once, then the repeats.
    let (_, first) = request(&env, review, true);
    let cached_review = phase("cachedReview", true, review, None);
    let (_, again) = request(&env, review, true);
    let same = |a: &str, b: &str| {
        let strip = |t: &str| {
            let mut v: Value = serde_json::from_str(t).unwrap_or(Value::Null);
            if let Some(o) = v.as_object_mut() {
                o.remove("usage");
            }
            v
        };
        strip(a) == strip(b)
    };
    request(&env, summarize, true);
    let cached_summarize = phase("cachedSummarize", true, summarize, None);
    // A one-line edit, committed: each run adds a comment line to a source file the review
    // judged (one it left out would change nothing the review asks about).
    let (file, comment) = edited_file(&repo, &first);
    let counter = std::cell::Cell::new(0u32);
    let edit = || {
        counter.set(counter.get() + 1);
        let path = repo.root().join(&file);
        let mut text = std::fs::read_to_string(&path).expect("file");
        text.push_str(&format!("\n{comment} edit {}\n", counter.get()));
        std::fs::write(&path, text).expect("write");
        repo.git(&["commit", "-q", "-am", "one-line edit"]);
    };
    let edited = phase("edit", true, review, Some(&edit));
    let nothing_sent = |p: &Value| {
        p["jevRequestsSent"]
            .as_array()
            .is_some_and(|a| a.iter().all(|n| n == 0))
    };
    assert!(
        nothing_sent(&cached_review) && nothing_sent(&cached_summarize),
        "a cached request sent questions: {cached_review} {cached_summarize}"
    );
    let peak = proc_kib(pid, "VmHWM");
    let after = rss_kib(pid);
    let after_split = split();
    // Settled: the allocator's freed pages handed back (its decay is 1 s), before the warm
    // evidence is let go (2 s without a request).
    std::thread::sleep(Duration::from_millis(1300));
    let settled = rss_kib(pid);
    let settled_split = split();
    std::thread::sleep(Duration::from_millis(2700));
    let trimmed = rss_kib(pid);
    let trimmed_split = split();
    json!({
        "repository": name,
        "runs": runs,
        "gitDiffMCMs": git,
        "coldReviewZeroLatency": cold,
        "cachedReview": cached_review,
        "cachedSummarize": cached_summarize,
        "reviewAfterOneLineEdit": edited,
        "cachedResultSameAsFirst": same(&first, &again),
        "daemonRssFreshMiB": fresh_kib.map(|k| k as f64 / 1024.0),
        "daemonRssFreshSplitMiB": fresh_split,
        "daemonRssAtRestMiB": rest_kib.map(|k| k as f64 / 1024.0),
        "daemonRssAtRestSplitMiB": rest_split,
        "daemonRssAfterFirstRequestMiB": first_kib.map(|k| k as f64 / 1024.0),
        "daemonRssAfterMiB": after.map(|k| k as f64 / 1024.0),
        "daemonPeakRssMiB": peak.map(|k| k as f64 / 1024.0),
        "daemonRssAfterWarmTrimMiB": trimmed.map(|k| k as f64 / 1024.0),
        "daemonRssAfterFirstRequestSplitMiB": first_split,
        "daemonRssAfterSplitMiB": after_split,
        "daemonRssSettledMiB": settled.map(|k| k as f64 / 1024.0),
        "daemonRssSettledSplitMiB": settled_split,
        "daemonRssAfterWarmTrimSplitMiB": trimmed_split,
        "targets": {"cached": 1.0, "oneLineEdit": 2.0, "cold": 3.0, "rssMiB": 100},
    })
}

/// A source file the review judged (its first row's path whose language takes a line comment),
/// and that language's line comment.
fn edited_file(repo: &TempRepo, review: &str) -> (String, &'static str) {
    let comment = |path: &str| -> Option<&'static str> {
        let ext = path.rsplit_once('.')?.1;
        match ext {
            "py" | "rb" | "sh" | "toml" | "yml" | "yaml" => Some("#"),
            "rs" | "ts" | "tsx" | "js" | "mjs" | "cjs" | "c" | "h" | "cc" | "go" | "java" => {
                Some("//")
            }
            _ => None,
        }
    };
    let doc: Value = serde_json::from_str(review).unwrap_or(Value::Null);
    let judged = doc["output"]["data"]["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|row| row["path"].as_str());
    let changed = repo.git(&["diff", "--name-only", "main...HEAD"]);
    judged
        .chain(changed.lines())
        .filter(|p| repo.root().join(p).is_file())
        .find_map(|p| comment(p).map(|c| (p.to_owned(), c)))
        .expect("a changed source file")
}

/// The upgrades the warm bench runs on (`STANLEY_BENCH_WARM_REPOS`, comma-separated, to choose):
/// Python, Rust, TypeScript, JavaScript and C, small and large, moved and mirrored. Pygments was
/// the one profiled (issue 32); the two `attrs-*` histories were never profiled.
const WARM_REPOS: &[&str] = &[
    "upgrade-pygments",
    "upgrade-large",
    "upgrade-regex-syntax",
    "mirror-fp-ts",
    "data-file",
    "move-flask",
    "attrs-nested",
    "attrs-grammar",
];

/// The warm daemon on every upgrade of `repos`: a row each with its three ratios and whether
/// each is within its target.
fn warm_table(repos: &[String], runs: usize) -> Value {
    let ratio = |row: &Value, phase: &str| row[phase]["overGitDiff"].as_f64().unwrap_or(f64::NAN);
    let rows: Vec<Value> = repos
        .iter()
        .map(|name| {
            let row = warm_daemon(name, runs);
            let (cached, summarize, edit, cold) = (
                ratio(&row, "cachedReview"),
                ratio(&row, "cachedSummarize"),
                ratio(&row, "reviewAfterOneLineEdit"),
                ratio(&row, "coldReviewZeroLatency"),
            );
            eprintln!(
                "warm {name}: git {:.1} ms, cached {cached:.2}x / {summarize:.2}x, edit {edit:.2}x, cold {cold:.2}x",
                row["gitDiffMCMs"].as_f64().unwrap_or(0.0)
            );
            json!({
                "repository": name,
                "gitDiffMCMs": row["gitDiffMCMs"],
                "cachedReview": cached,
                "cachedSummarize": summarize,
                "oneLineEdit": edit,
                "coldZeroLatency": cold,
                "withinTargets": cached <= 1.0 && summarize <= 1.0 && edit <= 2.0 && cold <= 3.0,
                "detail": row,
            })
        })
        .collect();
    json!({
        "targets": {"cached": 1.0, "oneLineEdit": 2.0, "cold": 3.0},
        "allWithinTargets": rows.iter().all(|r| r["withinTargets"] == true),
        "rows": rows,
    })
}

fn warm_repos() -> Vec<String> {
    std::env::var("STANLEY_BENCH_WARM_REPOS")
        .or_else(|_| std::env::var("STANLEY_BENCH_WARM_REPO"))
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_else(|_| WARM_REPOS.iter().map(|s| (*s).to_owned()).collect())
}

fn main() {
    // `STANLEY_BENCH_ONLY=warm` measures the warm daemon alone, on every upgrade of
    // `WARM_REPOS` (or `STANLEY_BENCH_WARM_REPOS`), writes `target/bench/warm.json` and prints it.
    if std::env::var("STANLEY_BENCH_ONLY").as_deref() == Ok("warm") {
        let warm = warm_table(&warm_repos(), 5);
        stanley_tests::bench::write_report("warm", &warm);
        return;
    }
    // `STANLEY_BENCH_ONLY=triage` measures triage alone and prints its report (no file written).
    if std::env::var("STANLEY_BENCH_ONLY").as_deref() == Ok("triage") {
        let triage = triage_real_output();
        println!(
            "{}",
            serde_json::to_string_pretty(&triage).unwrap_or_default()
        );
        return;
    }
    let report = json!({
        "schema": "stanley.bench/upstream/v1",
        "shapes": shapes(),
        "largeUpgradeReview": large_upgrade(),
        "findAtScale": find_at_scale(),
        "triageRealOutput": triage_real_output(),
        "warmDaemon": warm_table(&warm_repos(), 5),
    });
    stanley_tests::bench::write_report("upstream", &report);
}
