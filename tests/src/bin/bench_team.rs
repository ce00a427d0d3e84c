//! The team cache's bench (issue 51, docs/team-cache.md), against a real `redis-server` started
//! on a free loopback port: on real assembled upgrades, a second clone's first branch review with
//! the team level and without it (time and Jev requests), and what a full hit from the team level
//! adds over a full hit from the local one; then sixteen daemons of sixteen clones reviewing at
//! once against one Redis, twice (the first wave fills it, the second reads it), counting failed
//! requests. The fake Jev answers after a fixed latency, as a real one would not answer at once.
//! Writes `target/bench/team.json`; `STANLEY_BENCH_TEAM_REPOS` names the upgrades (comma list).

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use stanley_tests::stores::Redis;
use stanley_tests::testenv::{run, wait_until};
use stanley_tests::{TempRepo, TestEnv};

const TEAM_KEY: &str = "the bench's team key, 32 bytes long";
/// How long the fake Jev takes to answer one request.
const JEV_LATENCY: Duration = Duration::from_millis(200);
const REVIEW: &str = "Review these changes for correctness bugs";
/// Fresh clones per figure.
const RUNS: usize = 3;

fn median_ms(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1000.0
}

fn bench_env(redis: &Redis) -> TestEnv {
    let mut env = TestEnv::new();
    env.set("STANLEY_LOG", "warn");
    env.jev.route("review", "review", 0.9);
    env.jev.set_latency(JEV_LATENCY);
    env.set("STANLEY_CACHE_REMOTE", &redis.url());
    env.set("STANLEY_CACHE_TEAM_KEY", TEAM_KEY);
    env
}

/// One branch review: its wall time, exit code and `usage`.
fn review(env: &TestEnv, repo: &TempRepo, team: bool) -> (Duration, i32, Value) {
    let mut cmd = env.command("stanley", repo.root());
    cmd.args([REVIEW, "--json", "--scope", "branch", "--base", "main"]);
    if !team {
        // Blank counts as unset: this request has no team level.
        cmd.env("STANLEY_CACHE_REMOTE", "");
    }
    let start = Instant::now();
    let out = run(cmd, None);
    let wall = start.elapsed();
    let doc: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
    (wall, out.code, doc["usage"].clone())
}

fn count(usage: &Value, field: &str) -> u64 {
    usage[field].as_u64().unwrap_or(0)
}

/// Waits until the store's key count stops growing (writes are behind the request).
fn settled(redis: &Redis) -> usize {
    let mut last = usize::MAX;
    let mut n = 0;
    wait_until(Duration::from_secs(60), || {
        std::thread::sleep(Duration::from_millis(300));
        n = redis.keys("stanley/*").len();
        let still = n == last;
        last = n;
        still
    });
    n
}

fn git_diff_ms(repo: &TempRepo) -> f64 {
    let walls = (0..5)
        .map(|_| {
            let start = Instant::now();
            let status = Command::new("git")
                .args(["diff", "-M", "-C", "main...HEAD"])
                .current_dir(repo.root())
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .stdout(std::process::Stdio::null())
                .status()
                .expect("git diff");
            assert!(status.success());
            start.elapsed()
        })
        .collect();
    median_ms(walls)
}

fn second_clone(name: &str) -> Value {
    let redis = Redis::start();
    let env = bench_env(&redis);
    let first = TempRepo::upstream(name);
    let (fill_wall, code, fill) = review(&env, &first, true);
    assert!(
        matches!(code, 0 | 10 | 12),
        "{name}: first review exit {code}"
    );
    let entries = settled(&redis);
    let git = git_diff_ms(&first);
    drop(first);

    let (mut with, mut without, mut local) = (Vec::new(), Vec::new(), Vec::new());
    let (mut with_sent, mut without_sent, mut remote) = (Vec::new(), Vec::new(), Vec::new());
    let mut failed = 0;
    for _ in 0..RUNS {
        let clone = TempRepo::upstream(name);
        let (wall, code, usage) = review(&env, &clone, true);
        failed += usize::from(!matches!(code, 0 | 10 | 12));
        with.push(wall);
        with_sent.push(count(&usage, "jevRequests"));
        remote.push(count(&usage, "remoteAnswers"));
        // The same answers from the local level: a new daemon, so no whole result is
        // remembered in memory, and every frame is a local hit.
        let restarted = env.stanleyctl(&clone, &["daemon", "restart"]);
        assert_eq!(restarted.code, 0, "{restarted:?}");
        let (wall, code, usage) = review(&env, &clone, true);
        failed += usize::from(!matches!(code, 0 | 10 | 12));
        assert_eq!(count(&usage, "remoteAnswers"), 0, "{usage}");
        local.push(wall);

        let other = TempRepo::upstream(name);
        let (wall, code, usage) = review(&env, &other, false);
        failed += usize::from(!matches!(code, 0 | 10 | 12));
        without.push(wall);
        without_sent.push(count(&usage, "jevRequests"));
    }
    let (with_ms, local_ms) = (median_ms(with), median_ms(local));
    json!({
        "repository": name,
        "runs": RUNS,
        "jevLatencyMs": JEV_LATENCY.as_millis() as u64,
        "gitDiffMCMs": git,
        "firstCloneReview": {"ms": fill_wall.as_secs_f64() * 1000.0, "jevRequests": count(&fill, "jevRequests"), "storeEntries": entries},
        "secondCloneWithTeamCache": {"medianMs": with_ms, "jevRequests": with_sent, "remoteAnswers": remote},
        "secondCloneWithout": {"medianMs": median_ms(without), "jevRequests": without_sent},
        "fullLocalHitMedianMs": local_ms,
        "teamLevelAddedMsOnFullHit": with_ms - local_ms,
        "failedRequests": failed,
    })
}

/// Sixteen clones' daemons at once on one Redis: a wave that fills it, then a wave that reads.
fn sixteen_daemons(name: &str) -> Value {
    const DAEMONS: usize = 16;
    let redis = Redis::start();
    let env = bench_env(&redis);
    let wave = |env: &TestEnv| {
        let clones: Vec<TempRepo> = (0..DAEMONS).map(|_| TempRepo::upstream(name)).collect();
        let start = Instant::now();
        let results: Vec<(Duration, i32, Value)> = std::thread::scope(|s| {
            let handles: Vec<_> = clones
                .iter()
                .map(|clone| s.spawn(move || review(env, clone, true)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a review thread"))
                .collect()
        });
        let wall = start.elapsed();
        let failed = results
            .iter()
            .filter(|(_, code, _)| !matches!(code, 0 | 10 | 12))
            .count();
        let sent: u64 = results
            .iter()
            .map(|(_, _, u)| count(u, "jevRequests"))
            .sum();
        let remote: u64 = results
            .iter()
            .map(|(_, _, u)| count(u, "remoteAnswers"))
            .sum();
        let walls: Vec<Duration> = results.iter().map(|(w, _, _)| *w).collect();
        json!({
            "wallMs": wall.as_secs_f64() * 1000.0,
            "medianRequestMs": median_ms(walls),
            "failedRequests": failed,
            "jevRequests": sent,
            "remoteAnswers": remote,
        })
    };
    let filling = wave(&env);
    let entries = settled(&redis);
    let reading = wave(&env);
    json!({
        "repository": name,
        "daemons": DAEMONS,
        "fillingWave": filling,
        "storeEntries": entries,
        "readingWave": reading,
    })
}

fn main() {
    let repos = std::env::var("STANLEY_BENCH_TEAM_REPOS")
        .unwrap_or_else(|_| "upgrade-large,upgrade-pygments".to_owned());
    let upgrades: Vec<Value> = repos.split(',').map(second_clone).collect();
    let report = json!({
        "schema": "stanley.bench/team/v1",
        "secondClone": upgrades,
        "sixteenDaemons": sixteen_daemons("upgrade-thiserror"),
    });
    stanley_tests::bench::write_report("team", &report);
}
