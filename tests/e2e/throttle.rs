//! The Jev critical path against a server's limits: a server that throttles beyond N requests in
//! flight is met without failed frames, the window it learned is kept for the next request, and
//! `STANLEY_JEV_MAX_CONCURRENCY` bounds it.

use std::time::Duration;

use stanley_tests::{TempRepo, TestEnv};

fn review(env: &TestEnv, repo: &TempRepo) -> serde_json::Value {
    let out = env.stanley(
        repo,
        &["Review these changes for correctness bugs", "--json"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    out.json()
}

#[test]
fn a_throttling_server_is_met_without_failed_frames_and_its_limit_is_remembered() {
    let mut env = TestEnv::new();
    env.set("STANLEY_CACHE", "off");
    env.jev.route("correctness", "review", 0.9);
    env.jev.set_latency(Duration::from_millis(40));
    env.jev.throttle_beyond(12, 50);
    let repo = TempRepo::with_hunks(4, 15);
    let doc = review(&env, &repo);
    let coverage = &doc["output"]["data"]["coverage"];
    assert_eq!(coverage["failed"], 0, "{coverage}");
    assert_eq!(coverage["unjudged"], 0, "{coverage}");
    let (peak, first) = env.jev.load();
    assert!(peak >= 9, "the window came near the server's limit: {peak}");
    assert!(first > 0, "the server did throttle");

    // The next request starts from what the last one learned.
    env.jev.reset_load();
    let doc = review(&env, &repo);
    assert_eq!(doc["output"]["data"]["coverage"]["failed"], 0);
    let (_, second) = env.jev.load();
    assert!(
        second < first,
        "fewer throttled replies once the limit is known: {first} then {second}"
    );
}

#[test]
fn stanley_jev_max_concurrency_bounds_what_is_in_flight() {
    let mut env = TestEnv::new();
    env.set("STANLEY_CACHE", "off");
    env.set("STANLEY_JEV_MAX_CONCURRENCY", "3");
    env.jev.route("correctness", "review", 0.9);
    env.jev.set_latency(Duration::from_millis(30));
    env.jev.throttle_beyond(1000, 50);
    let repo = TempRepo::with_hunks(4, 6);
    review(&env, &repo);
    let (peak, throttled) = env.jev.load();
    assert_eq!((peak, throttled), (3, 0), "at most three in flight");

    env.set("STANLEY_JEV_MAX_CONCURRENCY", "none");
    let out = env.stanley(&repo, &["Review these changes for correctness bugs"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains(
            "stanley: warning: STANLEY_JEV_MAX_CONCURRENCY must be a whole number of requests, at least 1 (got \"none\"); using 64"
        ),
        "{}",
        out.stderr
    );
}
