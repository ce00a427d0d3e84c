//! The team's shared judgment cache (issue 51) against real stores started by the test: a
//! second clone's repeat is answered entirely from Redis or from an S3-compatible server (moto),
//! with no Jev request; entries that are tampered with, unsigned or signed with another team's
//! key are ignored and counted; a store that is killed, too slow or full costs the request
//! nothing but Jev's answers and one warning line; a read-only job writes nothing.

use serde_json::Value;
use stanley_tests::stores::{self, Redis, S3};
use stanley_tests::{TempRepo, TestEnv};

use crate::summarize::summarize_env;

const TEAM_KEY: &str = "the team's CI secret, 32 bytes+";

/// How long a test waits for the write-behind queue to reach the store: generous, since a
/// loaded machine (CI beside other work) delays the store's server, and a passing run waits
/// only as long as the writes take.
const WRITE_BEHIND: std::time::Duration = std::time::Duration::from_secs(60);

/// A committed file of 60 numbered lines changed in three places: three hunks to judge.
fn clone() -> TempRepo {
    let body: String = (1..=60).map(|n| format!("line {n}\n")).collect();
    let repo = TempRepo::with_files(&[
        ("src/long.js", &body),
        ("src/other.js", "export const a = 1;\n"),
    ]);
    let changed: String = (1..=60)
        .map(|n| match n {
            5 => "line 5\nadded one\n".to_owned(),
            45 => "line 45 changed\n".to_owned(),
            _ => format!("line {n}\n"),
        })
        .collect();
    repo.write("src/long.js", &changed);
    repo.write("src/other.js", "export const a = 2;\n");
    repo
}

/// A summarize environment whose requests use the team cache at `url`.
fn team_env(url: &str) -> TestEnv {
    let mut env = summarize_env();
    env.set("STANLEY_CACHE_REMOTE", url);
    env.set("STANLEY_CACHE_TEAM_KEY", TEAM_KEY);
    env.set("STANLEY_CACHE_REMOTE_DEADLINE_MS", "300");
    env
}

fn summarize(env: &TestEnv, repo: &TempRepo) -> (Value, String) {
    let out = env.stanley(repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let stderr = out.stderr.clone();
    (out.json(), stderr)
}

fn usage(doc: &Value, field: &str) -> u64 {
    doc["usage"][field]
        .as_u64()
        .unwrap_or_else(|| panic!("usage.{field} in {doc}"))
}

/// The team level's counters, from `stanleyctl cache stats --json`.
fn team_stats(env: &TestEnv, repo: &TempRepo) -> Value {
    let out = env.stanleyctl(repo, &["cache", "stats", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    out.json()["team"].clone()
}

fn have_redis() -> bool {
    let ok = stores::installed("redis-server") && stores::installed("redis-cli");
    if !ok {
        eprintln!("skipped: redis-server is not installed (Debian: redis-server)");
    }
    ok
}

/// Polls until the store holds `n` entries under `pattern` (writes are behind the request).
fn wait_for_keys(redis: &Redis, pattern: &str, n: usize) -> Vec<String> {
    let mut keys = Vec::new();
    let ok = stanley_tests::testenv::wait_until(WRITE_BEHIND, || {
        keys = redis.keys(pattern);
        keys.len() >= n
    });
    assert!(
        ok,
        "the store holds {} of {n} entries under {pattern}",
        keys.len()
    );
    keys
}

#[test]
fn a_second_clone_is_answered_entirely_from_the_team_redis() {
    if !have_redis() {
        return;
    }
    let redis = Redis::start();
    let env = team_env(&redis.url());
    let first = clone();
    let (doc, _) = summarize(&env, &first);
    let asked = usage(&doc, "jevRequests");
    assert!(asked > 0, "{doc}");
    assert_eq!(usage(&doc, "remoteAnswers"), 0);
    // Every answer, and the model's resolution, reach the store behind the request.
    wait_for_keys(&redis, "stanley/j/*", asked as usize);
    assert!(!redis.keys("stanley/m/*").is_empty());
    let sent = env.jev.requests().len();

    // Another clone of the same change, with its own daemon and an empty local cache.
    let second = clone();
    let (doc, stderr) = summarize(&env, &second);
    assert_eq!(usage(&doc, "jevRequests"), 0, "{doc}");
    assert_eq!(usage(&doc, "remoteAnswers"), asked);
    assert_eq!(usage(&doc, "cachedAnswers"), asked);
    assert_eq!(env.jev.requests().len(), sent, "nothing reached Jev");
    assert!(!stderr.contains("team cache"), "{stderr}");
    let stats = team_stats(&env, &second);
    assert_eq!(stats["hits"], asked, "{stats}");
    assert_eq!(stats["ignored"]["tampered"], 0, "{stats}");

    // Its own level kept them: the next repeat is local.
    let (doc, _) = summarize(&env, &second);
    assert_eq!(
        (usage(&doc, "jevRequests"), usage(&doc, "remoteAnswers")),
        (0, 0)
    );
    // What the store holds says nothing readable about the code.
    for key in redis.keys("stanley/*") {
        let value = redis.get(&key);
        assert!(
            !value.contains("line 45") && !value.contains("export const"),
            "{key}: {value}"
        );
    }
}

#[test]
fn tampered_unsigned_and_foreign_entries_are_ignored_and_counted() {
    if !have_redis() {
        return;
    }
    let redis = Redis::start();
    let env = team_env(&redis.url());
    let (doc, _) = summarize(&env, &clone());
    let asked = usage(&doc, "jevRequests") as usize;
    let keys = wait_for_keys(&redis, "stanley/j/*", asked);
    let originals: Vec<(String, String)> = keys.iter().map(|k| (k.clone(), redis.get(k))).collect();

    // A poisoned answer: the value changed, the signature kept.
    for (key, value) in &originals {
        let at = value.find("\"value\":").unwrap();
        let digit = at + value[at..].find(|c: char| c.is_ascii_digit()).unwrap();
        let other = if &value[digit..=digit] == "1" {
            "2"
        } else {
            "1"
        };
        let poisoned = format!("{}{other}{}", &value[..digit], &value[digit + 1..]);
        assert_ne!(&poisoned, value, "{value}");
        redis.set(key, &poisoned);
    }
    let second = clone();
    let (doc, _) = summarize(&env, &second);
    assert_eq!(usage(&doc, "remoteAnswers"), 0, "{doc}");
    assert_eq!(usage(&doc, "jevRequests") as usize, asked);
    let stats = team_stats(&env, &second);
    assert_eq!(stats["ignored"]["tampered"], asked as u64, "{stats}");

    // Unsigned: the signature removed.
    for (key, value) in &originals {
        let mut entry: Value = serde_json::from_str(value).unwrap();
        entry["mac"] = "".into();
        redis.set(key, &entry.to_string());
    }
    let third = clone();
    let (doc, _) = summarize(&env, &third);
    assert_eq!(usage(&doc, "remoteAnswers"), 0, "{doc}");
    assert_eq!(
        team_stats(&env, &third)["ignored"]["unsigned"],
        asked as u64
    );

    // Garbage, and entries far too large (40 MB each): never read whole, never used.
    for (i, (key, _)) in originals.iter().enumerate() {
        let text = if i == 0 {
            "not an entry".to_owned()
        } else {
            "x".repeat(40 * 1024 * 1024)
        };
        redis.set(key, &text);
    }
    let fourth = clone();
    let (doc, _) = summarize(&env, &fourth);
    assert_eq!(usage(&doc, "remoteAnswers"), 0, "{doc}");
    let stats = team_stats(&env, &fourth);
    assert_eq!(stats["ignored"]["oversized"], asked as u64 - 1, "{stats}");
    assert_eq!(stats["ignored"]["malformed"], 1, "{stats}");
    // Reading them whole would have taken 120 MB; a read stops at 64 KiB.
    let pid = fourth.daemon_pid().expect("the daemon's pid");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    assert!(
        peak_kib < 100 * 1024,
        "the daemon's peak RSS was {peak_kib} KiB"
    );

    // The genuine entries back, read by a team with another key: foreign, never used.
    for (key, value) in &originals {
        redis.set(key, value);
    }
    // (The same environment, so the same Jev endpoint: the keys are the same.)
    let mut env = env;
    // Read-only, so its own answers do not replace the genuine entries.
    env.set("STANLEY_CACHE_TEAM_KEY", "another team's secret entirely");
    env.set("STANLEY_CACHE_REMOTE_MODE", "read-only");
    let fifth = clone();
    let (doc, _) = summarize(&env, &fifth);
    assert_eq!(usage(&doc, "remoteAnswers"), 0, "{doc}");
    assert!(
        team_stats(&env, &fifth)["ignored"]["foreign"]
            .as_u64()
            .unwrap()
            >= asked as u64
    );

    // And the right key still reads them.
    env.set("STANLEY_CACHE_TEAM_KEY", TEAM_KEY);
    env.set("STANLEY_CACHE_REMOTE_MODE", "read-write");
    let sixth = clone();
    let (doc, _) = summarize(&env, &sixth);
    assert_eq!(usage(&doc, "remoteAnswers") as usize, asked, "{doc}");
}

#[test]
fn a_store_killed_slow_or_full_costs_one_warning_and_never_the_request() {
    if !have_redis() {
        return;
    }
    // Full: Redis refuses every write (no memory for them).
    let redis = Redis::start();
    redis.cli(&["CONFIG", "SET", "maxmemory-policy", "noeviction"]);
    redis.cli(&["CONFIG", "SET", "maxmemory", "1"]);
    let env = team_env(&redis.url());
    let repo = clone();
    let (doc, stderr) = summarize(&env, &repo);
    assert!(usage(&doc, "jevRequests") > 0);
    let stats = team_stats(&env, &repo);
    let failed = stats["errors"].as_u64().unwrap();
    assert!(failed >= 1, "{stats}");
    assert_eq!(stats["writes"], 0, "{stats}");
    // The warning reaches the request that saw it, or the next one.
    let (_, later) = summarize(&env, &repo);
    let said = format!("{stderr}{later}");
    assert_eq!(
        said.matches("team cache at").count(),
        1,
        "one warning line: {said}"
    );
    assert!(said.contains("bypassed for 60 s"), "{said}");

    // Slow: the server sleeps through the deadline.
    let redis = Redis::start();
    let env = team_env(&redis.url());
    let blocker = {
        let port = redis.port;
        std::thread::spawn(move || {
            std::process::Command::new("redis-cli")
                .args([
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &port.to_string(),
                    "DEBUG",
                    "SLEEP",
                    "3",
                ])
                .output()
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    let repo = clone();
    let (doc, stderr) = summarize(&env, &repo);
    assert!(usage(&doc, "jevRequests") > 0, "{doc}");
    assert_eq!(usage(&doc, "remoteAnswers"), 0);
    assert!(stderr.contains("did not answer within 300 ms"), "{stderr}");
    let stats = team_stats(&env, &repo);
    assert!(stats["timeouts"].as_u64().unwrap() >= 1, "{stats}");
    assert!(
        stats["bypassed"].as_u64().unwrap() >= 1,
        "the breaker skips the rest: {stats}"
    );
    let _ = blocker.join();

    // Killed: the store goes away; requests go on, answered by Jev.
    let mut redis = Redis::start();
    let env = team_env(&redis.url());
    redis.kill();
    let repo = clone();
    let (doc, stderr) = summarize(&env, &repo);
    assert!(usage(&doc, "jevRequests") > 0);
    assert!(
        stderr.contains("team cache at redis://127.0.0.1"),
        "{stderr}"
    );
    assert_eq!(team_stats(&env, &repo)["bypassing"], true);
}

#[test]
fn a_read_only_job_reads_the_team_cache_and_writes_nothing() {
    if !have_redis() {
        return;
    }
    let redis = Redis::start();
    // One environment throughout (one Jev endpoint, so the same keys), its mode switched.
    let mut env = team_env(&redis.url());
    env.set("STANLEY_CACHE_REMOTE_MODE", "read-only");
    let (doc, _) = summarize(&env, &clone());
    assert!(usage(&doc, "jevRequests") > 0);
    // Writes are behind the request: give them the time they would take, then look.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(redis.keys("stanley/*").is_empty(), "a read-only job wrote");

    // Filled by a trusted job, then read by the read-only one.
    env.set("STANLEY_CACHE_REMOTE_MODE", "read-write");
    let (doc, _) = summarize(&env, &clone());
    let asked = usage(&doc, "jevRequests") as usize;
    wait_for_keys(&redis, "stanley/j/*", asked);
    env.set("STANLEY_CACHE_REMOTE_MODE", "read-only");
    let (doc, _) = summarize(&env, &clone());
    assert_eq!(usage(&doc, "jevRequests"), 0, "{doc}");
    assert_eq!(usage(&doc, "remoteAnswers") as usize, asked);
}

#[test]
fn a_second_clone_is_answered_entirely_from_an_s3_compatible_store() {
    if !stores::moto_installed() {
        eprintln!("skipped: moto is not installed in tests/moto (scripts/test installs it)");
        return;
    }
    let s3 = S3::start("team-judgments");
    let mut env = team_env(&s3.url("ci/main"));
    env.set("AWS_ACCESS_KEY_ID", "testing");
    env.set("AWS_SECRET_ACCESS_KEY", "testing");
    let (doc, _) = summarize(&env, &clone());
    let asked = usage(&doc, "jevRequests");
    assert!(asked > 0);
    let ok = stanley_tests::testenv::wait_until(WRITE_BEHIND, || s3.objects() > asked as usize);
    assert!(ok, "the bucket holds {} objects", s3.objects());
    let second = clone();
    let (doc, _) = summarize(&env, &second);
    assert_eq!(usage(&doc, "jevRequests"), 0, "{doc}");
    assert_eq!(usage(&doc, "remoteAnswers"), asked);
}

#[test]
fn without_the_team_key_the_team_cache_is_off_and_says_so() {
    let mut env = summarize_env();
    env.set("STANLEY_CACHE_REMOTE", "redis://127.0.0.1:1/0");
    let out = env.stanley(&clone(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("STANLEY_CACHE_TEAM_KEY is not; the team cache is off"),
        "{out:?}"
    );
}

/// The `team cache` check of `stanleyctl doctor --json`: its state and detail.
fn doctor_check(env: &TestEnv, repo: &TempRepo) -> (String, String) {
    let out = env.stanleyctl(repo, &["doctor", "--json"]);
    assert!(
        !out.stdout.contains(TEAM_KEY) && !out.stderr.contains(TEAM_KEY),
        "{out:?}"
    );
    let doc: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    let check = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "team cache")
        .unwrap_or_else(|| panic!("no team cache check: {doc}"))
        .clone();
    (
        check["state"].as_str().unwrap().to_owned(),
        check["detail"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn doctor_writes_reads_back_and_verifies_the_team_cache() {
    if !have_redis() {
        return;
    }
    let mut redis = Redis::start();
    let env = team_env(&redis.url());
    let repo = clone();
    let (state, detail) = doctor_check(&env, &repo);
    assert_eq!(state, "ok", "{detail}");
    assert!(
        detail.contains("written and read back with a valid signature"),
        "{detail}"
    );
    assert!(
        !redis.keys("stanley/m/*").is_empty(),
        "the probe entry is in the store"
    );

    // Another daemon (another clone) finds the store gone.
    redis.kill();
    let (state, detail) = doctor_check(&env, &clone());
    assert_eq!(state, "fail", "{detail}");
    assert!(
        detail.contains(&format!("127.0.0.1:{}", redis.port)),
        "{detail}"
    );

    // A key too short is named.
    let mut short = team_env("redis://127.0.0.1:1/0");
    short.set("STANLEY_CACHE_TEAM_KEY", "short");
    let (state, detail) = doctor_check(&short, &clone());
    assert_eq!(
        (state.as_str(), detail.contains("at least 16")),
        ("fail", true),
        "{detail}"
    );
}
