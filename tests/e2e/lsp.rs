//! `stanleyctl lsp` driven by a real LSP client: the official protocol libraries
//! (`vscode-languageserver-protocol` over `vscode-jsonrpc`, what VS Code's language client is
//! built on) in `tests/clients/lsp/client.mjs`, against repositories with real findings from the
//! fake System One. The client prints what it saw; these tests judge it. Each scenario has its
//! own deadline, so a server that hangs fails the test instead of stalling it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use stanley_tests::testenv::{bin_dir, wait_until};
use stanley_tests::{TempRepo, TestEnv};

fn client_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/lsp")
}

/// A check repository with one run of findings already made from the command line.
fn scene() -> (TestEnv, TempRepo) {
    let env = crate::check::env();
    env.jev.route("correctness", "review", 0.9);
    let repo = crate::check::fixture();
    repo.write(
        "notes/criteria.md",
        "Acceptance:\n- parseConfig returns {} for null\n",
    );
    let first = env.stanley(&repo, &[crate::check::REQUEST]);
    assert_eq!(first.code, 0, "{first:?}");
    (env, repo)
}

/// Runs one scenario of the client and returns what it saw.
fn drive(env: &TestEnv, repo: &TempRepo, scenario: &str) -> Value {
    assert!(
        client_dir()
            .join("node_modules/vscode-languageserver-protocol")
            .exists(),
        "the LSP client's packages are not installed: run scripts/test"
    );
    let mut cmd = env.program(Path::new("node"), repo.root());
    cmd.arg(client_dir().join("client.mjs"))
        .arg(scenario)
        .env("STANLEYCTL", bin_dir().join("stanleyctl"))
        .env("STANLEY", bin_dir().join("stanley"))
        .env("REPO", repo.root())
        .env("CHECK_REQUEST", crate::check::REQUEST)
        .env("CRITERIA", "notes/criteria.md")
        .env("TRIAGE_FILE", "src/lib.rs");
    let out = stanley_tests::testenv::run(cmd, None);
    let seen: Value = serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("the client printed no report ({e}): {out:?}"));
    assert_eq!(out.code, 0, "{seen:#}\n{}", out.stderr);
    seen
}

fn gone(pid: &Value) -> bool {
    let pid = pid.as_i64().expect("a pid") as i32;
    // SAFETY: signal 0 only checks that the process exists.
    wait_until(
        Duration::from_secs(10),
        || unsafe { libc::kill(pid, 0) } != 0,
    )
}

fn active_requests(env: &TestEnv, repo: &TempRepo) -> u64 {
    let out = env.stanleyctl(repo, &["daemon", "status", "--json"]);
    out.json()["activeRequests"].as_u64().unwrap_or(u64::MAX)
}

#[test]
fn an_editor_sees_findings_follows_edits_and_runs_commands_with_progress() {
    let (env, repo) = scene();
    let seen = drive(&env, &repo, "session");
    assert_eq!(seen["serverInfo"]["name"], "stanley");
    for c in [
        "stanley.review",
        "stanley.check",
        "stanley.summarize",
        "stanley.triage",
        "stanley.openRun",
        "stanley.markSeen",
    ] {
        assert!(
            seen["commands"].as_array().unwrap().iter().any(|x| x == c),
            "{c}"
        );
    }
    // The command line's run, as diagnostics for the changed test file.
    let initial = seen["initial"].as_array().unwrap();
    let skip = initial
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("newly skipped"))
        .unwrap_or_else(|| panic!("{initial:#?}"));
    assert_eq!(skip["source"], "stanley");
    assert_eq!(skip["code"], "check");
    assert_eq!(skip["severity"], 2, "warn is Warning");
    assert_eq!(skip["line"], 0, "line 1 of the file");
    let related = skip["related"].as_array().unwrap();
    assert!(related[0].as_str().unwrap().contains("skip_marker_added"));
    assert!(related[1].as_str().unwrap().contains("Jev requests"));
    // Hover shows the finding whole; the code actions open its run and mark it seen.
    let hover = seen["hover"].as_str().unwrap();
    for part in [
        "Why",
        "Evidence",
        "Run",
        "Cost",
        initial[0]["runId"].as_str().unwrap(),
    ] {
        assert!(hover.contains(part), "{part} in {hover}");
    }
    // The same words as the terminal: the reason, the quoted changed lines, the place.
    let stamp = regex::Regex::new(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z").unwrap();
    let run_id = regex::Regex::new(r"\b([a-z_]+)-\d{8}T\d{6}Z-[0-9a-f]{6}\b").unwrap();
    let hover = stamp.replace_all(hover, "<TIME>");
    insta::assert_snapshot!("check_hover", run_id.replace_all(&hover, "$1-<RUN>"));
    let commands: Vec<&str> = seen["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["command"]["command"].as_str().unwrap())
        .collect();
    assert!(commands.contains(&"stanley.openRun") && commands.contains(&"stanley.markSeen"));
    // Two lines typed above move every finding down two; editing a finding's line drops it.
    let moved = seen["moved"].as_array().unwrap();
    assert_eq!(moved.len(), initial.len());
    for (a, b) in initial.iter().zip(moved) {
        assert_eq!(b["line"].as_u64(), a["line"].as_u64().map(|l| l + 2));
    }
    let after = seen["afterEdit"].as_array().unwrap();
    assert!(
        after.iter().all(|d| d["line"] != moved[0]["line"]),
        "{after:#?}"
    );
    // A run from the command line replaced them.
    assert_eq!(seen["cli"]["code"], 0, "{seen:#}");
    let refreshed = seen["refreshed"].as_array().unwrap();
    assert!(refreshed.iter().all(|d| d["runId"] != initial[0]["runId"]));
    // Marked seen: kept by the daemon, gone from the editor.
    assert!(
        seen["marked"]["seen"]
            .as_array()
            .unwrap()
            .contains(&refreshed[0]["fingerprint"])
    );
    assert_eq!(
        seen["afterSeen"].as_array().unwrap().len(),
        refreshed.len() - 1
    );
    // The page's address for the run, handed to the editor as a private file.
    let url = seen["opened"]["url"].as_str().unwrap();
    assert!(
        url.starts_with("http://127.0.0.1:")
            && url.ends_with(refreshed[0]["runId"].as_str().unwrap())
    );
    assert_eq!(seen["opened"]["opened"], true);
    let token = url.split('/').nth(3).unwrap();
    assert_eq!(token.len(), 64, "{url}");
    let shown = seen["shownDocument"]["uri"].as_str().unwrap();
    assert!(
        shown.starts_with("file://") && !shown.contains(token),
        "{shown}"
    );
    // A check from the editor, with its progress under the editor's token.
    assert_eq!(seen["check"]["workflow"], "check", "{seen:#}");
    assert_eq!(seen["check"]["exitCode"], 0);
    let kinds: Vec<&str> = seen["checkProgress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"begin"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"end"), "{kinds:?}");
    assert!(kinds.contains(&"report"), "{kinds:?}");
    // A review too, its progress under a token the server made (the editor gave none).
    assert_eq!(seen["review"]["workflow"], "review", "{seen:#}");
    let review: Vec<&Value> = seen["reviewProgress"].as_array().unwrap().iter().collect();
    assert_eq!(review.first().unwrap()["kind"], "begin", "{review:?}");
    assert!(review.iter().all(|p| p["token"] == review[0]["token"]));
    assert!(review[0]["token"].as_str().unwrap().starts_with("stanley-"));
    assert!(review.iter().any(|p| p["kind"] == "end"), "{review:?}");
    // A file outside the repository is refused with one line.
    assert_eq!(seen["refused"]["code"], -32602, "{seen:#}");
    assert!(
        seen["refused"]["message"]
            .as_str()
            .unwrap()
            .contains("outside the repository")
    );
    // Shut down and exited: nothing left of the server.
    assert_eq!(seen["exit"]["code"], 0);
    assert!(gone(&seen["pid"]));
}

#[test]
fn cancelling_a_review_from_the_editor_stops_it_in_the_daemon() {
    let (env, repo) = scene();
    env.jev.set_latency(Duration::from_millis(1500));
    let seen = drive(&env, &repo, "cancel");
    assert_eq!(seen["review"]["error"]["code"], -32800, "{seen:#}");
    assert_eq!(seen["buttonReview"]["error"]["code"], -32800, "{seen:#}");
    assert_eq!(
        seen["progress"].as_array().unwrap().last().unwrap(),
        "end",
        "{seen:#}"
    );
    assert!(wait_until(Duration::from_secs(10), || active_requests(
        &env, &repo
    ) == 0));
    let runs = env.stanleyctl(&repo, &["runs", "list", "--json"]).json();
    assert!(
        !runs
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["workflow"] == "review" && r["status"] == "complete"),
        "{runs:#}"
    );
    assert_eq!(seen["exit"]["code"], 0);
}

#[test]
fn garbage_on_stdin_is_skipped_with_a_line_and_alone_ends_the_server() {
    let (env, repo) = scene();
    let seen = drive(&env, &repo, "garbage");
    assert_eq!(seen["initialized"], true, "{seen:#}");
    assert_eq!(seen["hover"], Value::Null, "a file outside every finding");
    assert_eq!(seen["exit"]["code"], 0);
    let said = seen["exit"]["stderr"].as_str().unwrap();
    assert_eq!(
        said.matches("stanleyctl: skipped a malformed message: ")
            .count(),
        3,
        "{said}"
    );
    assert_eq!(seen["garbageOnly"]["code"], 1, "{seen:#}");
    let stderr = seen["garbageOnly"]["stderr"].as_str().unwrap();
    assert!(stderr.contains("skipped a malformed message"), "{stderr}");
    assert_eq!(
        stderr.trim().lines().last(),
        Some("stanleyctl: the editor closed the language server without asking it to shut down"),
        "{stderr}"
    );
}

#[test]
fn an_editor_that_leaves_mid_request_ends_the_server_and_the_request() {
    let (env, repo) = scene();
    env.jev.set_latency(Duration::from_millis(1500));
    let seen = drive(&env, &repo, "disconnect");
    assert_eq!(seen["exit"]["code"], 1, "{seen:#}");
    assert!(gone(&seen["pid"]));
    assert!(wait_until(Duration::from_secs(10), || active_requests(
        &env, &repo
    ) == 0));
}

#[test]
fn a_daemon_restarted_underneath_is_found_again() {
    let (env, repo) = scene();
    let seen = drive(&env, &repo, "restart");
    assert_eq!(seen["restart"]["code"], 0, "{seen:#}");
    assert_eq!(seen["cli"]["code"], 0, "{seen:#}");
    assert_ne!(seen["firstRun"], seen["secondRun"]);
    assert_eq!(seen["exit"]["code"], 0);
}

#[test]
fn triaged_failures_sit_on_the_line_their_stack_names() {
    let env = crate::triage::env();
    let relation = [
        "caused_by_diff",
        "unrelated_to_diff",
        "environment_or_infrastructure",
        "cannot_tell",
    ];
    let labels: Vec<String> = relation.iter().map(|s| (*s).to_owned()).collect();
    env.jev.answer(
        "relation_to_diff",
        stanley_tests::fake_jev::choice_answer(
            &labels,
            &stanley_tests::fake_jev::ChoiceRule {
                label: "caused_by_diff".into(),
                mass: 0.9,
                confidence: 0.9,
            },
        ),
    );
    let repo = crate::triage::rust_repo();
    let out = env.stanley_with_stdin(
        &repo,
        &["Triage these test failures", "--json"],
        Some(crate::triage::fixture("cargo-test.txt").as_bytes()),
    );
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    let row = &doc["output"]["data"]["results"][0];
    let frame = &row["stackLocations"][0];
    assert_eq!(frame["path"], "src/lib.rs", "{row:#}");
    let seen = drive(&env, &repo, "triage");
    let diagnostics = seen["diagnostics"].as_array().unwrap();
    let caused = diagnostics
        .iter()
        .find(|d| {
            d["message"]
                .as_str()
                .unwrap()
                .contains("likely fails because of this change")
        })
        .unwrap_or_else(|| panic!("{seen:#}"));
    assert_eq!(
        caused["line"].as_u64(),
        frame["line"].as_u64().map(|l| l - 1)
    );
    assert_eq!(caused["severity"], 2);
}

#[test]
fn a_runtime_folder_others_can_open_is_refused_in_one_message() {
    use std::os::unix::fs::PermissionsExt;
    let env = crate::check::env();
    let repo = crate::check::fixture();
    std::fs::set_permissions(env.runtime_dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let seen = drive(&env, &repo, "refused");
    let message = seen["message"].as_str().unwrap();
    assert!(
        message.starts_with("stanley: unavailable error: refusing to talk to the daemon"),
        "{message}"
    );
    assert!(!message.contains('\n'), "{message}");
    assert_eq!(repo.daemon_pid(), None, "no daemon was started");
    assert_eq!(seen["exit"]["code"], 0);
}

#[test]
fn the_documented_neovim_setup_shows_findings_in_neovim() {
    // Neovim's built-in client with the exact snippet docs/editors.md gives
    // (tests/clients/lsp/nvim/init.lua), headless; scripts/test installs Debian's neovim.
    let nvim = Path::new("/usr/bin/nvim");
    assert!(nvim.exists(), "Neovim is not installed: run scripts/test");
    let snippet = std::fs::read_to_string(client_dir().join("nvim/init.lua")).unwrap();
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/editors.md"))
            .unwrap();
    assert!(
        docs.contains(&snippet),
        "docs/editors.md gives the tested snippet"
    );
    let (env, repo) = scene();
    let out_file = repo.outside().join("nvim.json");
    // Started outside the repository, as a person opening a file by its path would.
    let mut cmd = env.program(nvim, repo.outside());
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env("PATH", path)
        .env("STANLEY_NVIM_OUT", &out_file)
        .args(["--headless", "-n", "-i", "NONE", "-u"])
        .arg(client_dir().join("nvim/init.lua"))
        .arg(repo.root().join("test/config.test.js"))
        .arg("-c")
        .arg(format!(
            "luafile {}",
            client_dir().join("nvim/check.lua").display()
        ));
    let run = stanley_tests::testenv::run(cmd, None);
    assert_eq!(run.code, 0, "{run:?}");
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    let diagnostics = seen["diagnostics"].as_array().unwrap();
    assert!(
        diagnostics.iter().any(|d| d["source"] == "stanley"
            && d["message"].as_str().unwrap().contains("newly skipped")),
        "{seen:#}"
    );
    assert!(seen["hover"].as_str().unwrap().contains("Why"), "{seen:#}");
    assert!(
        seen["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a.as_str().unwrap().contains("mark")),
        "{seen:#}"
    );
}
