//! The judgment cache end to end: a repeated request sends nothing, an edit re-asks only what
//! it changed, a model change or `STANLEY_CACHE=off` asks everything, errors are never kept,
//! a damaged store is rebuilt with a warning, and `stanleyctl cache` shows and clears it.

use serde_json::Value;
use stanley_tests::fake_jev::Fault;
use stanley_tests::{TempRepo, TestEnv};

use crate::summarize::summarize_env;

/// A committed file of 60 numbered lines, and a second file.
fn repo() -> TempRepo {
    let body: String = (1..=60).map(|n| format!("line {n}\n")).collect();
    TempRepo::with_files(&[
        ("src/long.js", &body),
        ("src/other.js", "export const a = 1;\n"),
    ])
}

/// Two hunks in `src/long.js` (near lines 5 and 45) and one in `src/other.js`.
fn change(repo: &TempRepo, first: &str) {
    let body: String = (1..=60)
        .map(|n| match n {
            5 => format!("line 5\n{first}"),
            45 => "line 45 changed\n".to_owned(),
            _ => format!("line {n}\n"),
        })
        .collect();
    repo.write("src/long.js", &body);
    repo.write("src/other.js", "export const a = 2;\n");
}

fn summarize(env: &TestEnv, repo: &TempRepo) -> Value {
    let out = env.stanley(repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    out.json()
}

/// The run folder written last.
fn newest_run(repo: &TempRepo) -> std::path::PathBuf {
    std::fs::read_dir(repo.root().join(".stanley/runs"))
        .unwrap()
        .flatten()
        .max_by_key(|e| e.metadata().unwrap().modified().unwrap())
        .unwrap()
        .path()
}

fn without_usage(mut doc: Value) -> Value {
    doc.as_object_mut().unwrap().remove("usage");
    doc
}

#[test]
fn the_same_request_twice_sends_nothing_the_second_time_and_says_so() {
    let env = summarize_env();
    let repo = repo();
    change(&repo, "added one\n");
    let first = summarize(&env, &repo);
    let sent = env.jev.requests().len();
    // The route and one frame per hunk.
    assert_eq!(sent, 4);
    assert_eq!(first["usage"]["jevRequests"], 4);
    assert_eq!(first["usage"]["cachedAnswers"], 0);

    let second = summarize(&env, &repo);
    assert_eq!(env.jev.requests().len(), sent, "nothing is sent again");
    assert_eq!(second["usage"]["jevRequests"], 0);
    assert_eq!(second["usage"]["cachedAnswers"], 4);
    assert_eq!(
        second["usage"]["cachedInputTokens"],
        first["usage"]["inputTokens"]
    );
    assert_eq!(second["usage"]["estimatedCostUsd"], 0.0);
    assert_eq!(without_usage(first), without_usage(second));

    // The run record says the same: its frames were answered from the cache.
    let run = newest_run(&repo);
    let packet: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("packet.json")).unwrap()).unwrap();
    assert_eq!(packet["jev"]["requests"], 0, "{}", packet["jev"]);
    assert_eq!(packet["jev"]["cached"], 3);
    assert_eq!(packet["jev"]["estimatedCostUsd"], 0.0);
    assert!(packet["jev"]["savedCostUsd"].as_f64().unwrap() > 0.0);
    let frames = std::fs::read_to_string(run.join("frames.ndjson")).unwrap();
    assert_eq!(frames.lines().count(), 3);
    let asked = env.jev.requests();
    for line in frames.lines() {
        let frame: Value = serde_json::from_str(line).unwrap();
        assert_eq!(frame["result"], "cached", "{frame}");
        // A cached attempt sent nothing, so it records no request: it names the key its answer
        // was kept under, which is the hash of the redacted request first sent (D-175).
        assert!(frame.get("request").is_none(), "{frame}");
        let key = frame["cacheKey"].as_str().expect("a cache key");
        let template = frame["template"].as_str().unwrap();
        let model = frame["resolvedModel"].as_str().unwrap();
        let endpoint = env.jev.base_url();
        assert!(
            asked.iter().any(|r| {
                let sent = stanley_core::JevRequest {
                    model: r["model"].as_str().unwrap_or_default().to_owned(),
                    state: r["state"].clone(),
                    questions: r["questions"].clone(),
                };
                stanley_core::cache::CacheKey::of(
                    endpoint.trim_end_matches('/'),
                    model,
                    template,
                    &sent,
                )
                .0 == key
            }),
            "{frame}"
        );
    }

    // The human footer says the same.
    let human = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(human.code, 0, "{human:?}");
    // It is the last paragraph, wrapped within 100 columns.
    let footer = human
        .stdout
        .trim_end()
        .rsplit("\n\n")
        .next()
        .unwrap()
        .to_owned();
    assert!(footer.lines().all(|l| l.chars().count() <= 100), "{footer}");
    assert!(
        footer.starts_with("jev: 0 requests sent · 4 answered from cache · 0 input tokens"),
        "{footer}"
    );
    assert!(footer.contains("the cache saved"), "{footer}");
}

#[test]
fn editing_one_hunk_re_sends_only_that_hunks_frame() {
    let env = summarize_env();
    let repo = repo();
    change(&repo, "added one\n");
    summarize(&env, &repo);
    let before = env.jev.requests().len();
    // The first hunk grows by two lines: the second hunk of the file moves down.
    change(&repo, "added one\nadded two\nadded three\n");
    let doc = summarize(&env, &repo);
    let sent: Vec<Value> = env.jev.requests()[before..].to_vec();
    assert_eq!(sent.len(), 1, "only the edited hunk is asked: {sent:#?}");
    assert!(
        sent[0]["state"]["hunk"]["content"]
            .as_str()
            .unwrap()
            .contains("added three"),
        "{}",
        sent[0]["state"]
    );
    assert_eq!(doc["usage"]["jevRequests"], 1);
    assert_eq!(doc["usage"]["cachedAnswers"], 3);
    assert_eq!(doc["output"]["data"]["coverage"]["judged"], 3);
}

#[test]
fn a_model_change_or_cache_off_asks_everything_again() {
    let mut env = summarize_env();
    let repo = repo();
    change(&repo, "added one\n");
    summarize(&env, &repo);
    let before = env.jev.requests().len();

    env.set("TYPESAFE_MODEL", "jev-1.14.0");
    let doc = summarize(&env, &repo);
    assert_eq!(
        env.jev.requests().len() - before,
        4,
        "another model is asked"
    );
    assert_eq!(doc["usage"]["models"], serde_json::json!(["jev-1.14.0"]));
    assert_eq!(
        doc["usage"]["estimatedCostUsd"],
        Value::Null,
        "no list price is known for it"
    );

    env.set("TYPESAFE_MODEL", "jev-1.13.0");
    env.set("STANLEY_CACHE", "off");
    let before = env.jev.requests().len();
    let doc = summarize(&env, &repo);
    assert_eq!(env.jev.requests().len() - before, 4, "the cache is off");
    assert_eq!(doc["usage"]["cachedAnswers"], 0);
}

#[test]
fn an_error_is_never_kept() {
    let env = summarize_env();
    let repo = repo();
    change(&repo, "added one\n");
    // The route answers; then the three hunk frames fail on every attempt.
    env.jev
        .fail_next(std::iter::once(Fault::Pass).chain(std::iter::repeat_n(Fault::Status(400), 3)));
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    let doc = out.json();
    assert_eq!(doc["output"]["data"]["coverage"]["failed"], 3, "{doc:#}");
    let before = env.jev.requests().len();
    let again = summarize(&env, &repo);
    assert_eq!(
        env.jev.requests().len() - before,
        3,
        "the failed frames are asked again, the route is not"
    );
    assert_eq!(again["usage"]["cachedAnswers"], 1);
    assert_eq!(again["output"]["data"]["coverage"]["judged"], 3);
}

#[test]
fn the_cache_survives_a_restart_and_a_truncated_one_is_rebuilt_with_a_warning() {
    let env = summarize_env();
    let repo = repo();
    change(&repo, "added one\n");
    summarize(&env, &repo);
    env.stop_daemon(&repo);
    let db = repo.root().join(".stanley/state/judgments/db");
    let len = std::fs::metadata(&db).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&db)
        .unwrap()
        .set_len(len / 3)
        .unwrap();

    let before = env.jev.requests().len();
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let warning = out
        .stderr
        .lines()
        .find(|l| l.contains("judgment cache"))
        .unwrap_or_else(|| panic!("a warning: {}", out.stderr));
    assert!(
        warning.starts_with("stanley: warning: the judgment cache at ")
            && warning.contains("was damaged")
            && warning.contains("rebuilt empty"),
        "{warning}"
    );
    assert_eq!(
        env.jev.requests().len() - before,
        4,
        "nothing is trusted from it"
    );
    // Rebuilt, it serves again, and a new daemon answers from what the last one kept.
    let before = env.jev.requests().len();
    summarize(&env, &repo);
    assert_eq!(env.jev.requests().len(), before);
    env.stop_daemon(&repo);
    let again = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(again.stderr, "", "no damage this time");
    assert_eq!(
        env.jev.requests().len(),
        before,
        "a new daemon answers from it"
    );
    assert_eq!(again.json()["usage"]["cachedAnswers"], 4);
}

#[test]
fn stanleyctl_shows_and_clears_the_cache_and_no_persist_leaves_nothing() {
    let env = summarize_env();
    let repo = repo();
    change(&repo, "added one\n");
    let out = env.stanley(&repo, &["Summarize what changed", "--no-persist"]);
    assert_eq!(out.code, 0, "{out:?}");
    let stats = env.stanleyctl(&repo, &["cache", "stats", "--json"]);
    assert_eq!(stats.code, 0, "{stats:?}");
    assert_eq!(
        stats.json()["entries"],
        0,
        "a --no-persist request keeps nothing"
    );

    summarize(&env, &repo);
    let stats = env.stanleyctl(&repo, &["cache", "stats", "--json"]).json();
    assert_eq!(stats["schema"], "stanley.cache-stats/v1");
    assert_eq!(stats["entries"], 4);
    assert!(stats["bytes"].as_u64().unwrap() > 0);
    assert_eq!(stats["maxBytes"], 32 * 1024 * 1024);
    let human = env.stanleyctl(&repo, &["cache", "stats"]);
    assert!(human.stdout.starts_with("judgment cache  "), "{human:?}");
    assert!(human.stdout.contains("answers         4 ("), "{human:?}");

    let clear = env.stanleyctl(&repo, &["cache", "clear"]);
    assert_eq!(
        (clear.code, clear.stdout.as_str()),
        (0, "removed 4 cached answers\n")
    );
    let before = env.jev.requests().len();
    summarize(&env, &repo);
    assert_eq!(env.jev.requests().len() - before, 4, "asked again");
}

#[test]
fn a_cache_the_repository_brought_is_never_opened() {
    use std::os::unix::fs::PermissionsExt;
    let env = summarize_env();
    let repo = repo();
    change(&repo, "added one\n");
    summarize(&env, &repo);
    env.stop_daemon(&repo);
    // What a checkout leaves when a repository commits the folder: mode 0755. Its answers could
    // have been chosen for the repository's own diff.
    let store = repo.root().join(".stanley/state/judgments");
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o755)).unwrap();

    let before = env.jev.requests().len();
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("stanley: warning: the judgment cache is off: ")
            && out.stderr.contains("was not made by Stanley"),
        "{}",
        out.stderr
    );
    assert_eq!(env.jev.requests().len() - before, 4, "nothing came from it");
    let stats = env.stanleyctl(&repo, &["cache", "stats"]);
    assert_eq!(stats.code, 65, "{stats:?}");
    assert!(
        stats.stderr.contains("the judgment cache is off"),
        "{stats:?}"
    );
}

#[test]
fn a_store_not_signed_with_this_users_key_is_never_trusted() {
    // A checkout can overwrite ignored files inside the user's own `.stanley/state/judgments/`;
    // what it writes is not signed with the user's key, which lives outside the worktree. Here
    // the key changes instead of the store, which is the same to the daemon.
    let env = summarize_env();
    let repo = repo();
    change(&repo, "added one\n");
    summarize(&env, &repo);
    env.stop_daemon(&repo);
    let key = env.home().join(".local/state/stanley/cache.key");
    assert!(key.exists(), "the key lives in per-user state");
    std::fs::remove_file(&key).unwrap();
    let before = env.jev.requests().len();
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("was damaged (an entry is not signed with this user's key)"),
        "{}",
        out.stderr
    );
    assert_eq!(env.jev.requests().len() - before, 4, "nothing came from it");
}

/// A branch analysis asked again when every answer came from the cache is answered whole from
/// the daemon's result memo (issue 32): the same document and usage, nothing sent, a run still
/// recorded. Clearing the cache forgets it, and a new commit is a new question.
#[test]
fn a_branch_repeat_is_answered_whole_until_the_cache_is_cleared_or_the_branch_moves() {
    let env = summarize_env();
    let repo = repo();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    change(&repo, "added one\n");
    repo.commit("change");
    let ask = || {
        let out = env.stanley(
            &repo,
            &[
                "Summarize what changed",
                "--json",
                "--scope",
                "branch",
                "--base",
                "main",
            ],
        );
        assert_eq!(out.code, 0, "{out:?}");
        out.json()
    };
    let remembered = || {
        std::fs::read_to_string(repo.root().join(".stanley/daemon/stanleyd.log"))
            .unwrap_or_default()
            .matches("answered whole from the result memo")
            .count()
    };
    let runs = || {
        std::fs::read_dir(repo.root().join(".stanley/runs"))
            .map_or(0, |d| d.flatten().filter(|e| e.path().is_dir()).count())
    };
    let first = ask();
    assert!(first["usage"]["jevRequests"].as_u64().unwrap() > 0);
    let sent = env.jev.requests().len();
    // Every answer from the cache: the answer is kept, not yet given from the memo.
    let second = ask();
    assert_eq!(second["usage"]["jevRequests"], 0);
    assert_eq!(remembered(), 0);
    let recorded = runs();
    let third = ask();
    assert_eq!(remembered(), 1, "the third request is answered whole");
    assert_eq!(env.jev.requests().len(), sent, "nothing is sent");
    assert_eq!(third, second, "the same document, usage included");
    assert_eq!(runs(), recorded + 1, "the repeat is recorded as a run");

    // Clearing the judgment cache forgets the remembered answers too.
    let cleared = env.stanleyctl(&repo, &["cache", "clear"]);
    assert_eq!(cleared.code, 0, "{cleared:?}");
    let fourth = ask();
    assert!(
        fourth["usage"]["jevRequests"].as_u64().unwrap() > 0,
        "{}",
        fourth["usage"]
    );
    assert_eq!(remembered(), 1);
    assert_eq!(without_usage(fourth), without_usage(first.clone()));

    // A new commit is a new question, even when its hunks' answers are all cached.
    ask();
    ask();
    assert_eq!(
        remembered(),
        2,
        "answered whole again once every answer was cached"
    );
    repo.git(&["commit", "-q", "--allow-empty", "-m", "empty"]);
    let after = ask();
    assert_eq!(after["usage"]["jevRequests"], 0);
    assert_eq!(
        remembered(),
        2,
        "the new commit's first request is worked out"
    );
    ask();
    assert_eq!(remembered(), 3, "and its repeat answered whole");
}
