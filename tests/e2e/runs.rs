//! Runs you can find again: `stanleyctl runs list|show|export` over several runs (a failed and
//! a delegated one among them), SARIF validated against the official schema with fingerprints
//! that survive line shifts, and retention by count and age that leaves a run in progress alone.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use stanley_tests::fake_jev::Fault;
use stanley_tests::testenv::wait_until;
use stanley_tests::{TempRepo, TestEnv};

fn runs_dir(repo: &TempRepo) -> PathBuf {
    repo.root().join(".stanley/runs")
}

fn folders(repo: &TempRepo) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(runs_dir(repo))
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids
}

fn list(env: &TestEnv, repo: &TempRepo) -> Vec<Value> {
    let out = env.stanleyctl(repo, &["runs", "list", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    out.json().as_array().unwrap().clone()
}

/// Validates `sarif` against the vendored SARIF 2.1.0 schema with Python's jsonschema.
pub(crate) fn assert_valid_sarif(sarif: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.sarif");
    std::fs::write(&file, sarif).unwrap();
    let out = stanley_tests::testenv::python("jsonschema")
        .arg(root.join("clients/validate_sarif.py"))
        .arg(root.join("fixtures/sarif/sarif-2.1.0-rtm.5.json"))
        .arg(&file)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "the SARIF log is not valid:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn export(env: &TestEnv, repo: &TempRepo, id: &str) -> Value {
    let out = env.stanleyctl(repo, &["runs", "export", id, "--format", "sarif"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_valid_sarif(&out.stdout);
    out.json()
}

#[test]
fn runs_are_listed_shown_and_exported_whatever_they_ended_with() {
    let mut env = crate::summarize::summarize_env();
    env.stand_in_pi("finished");
    let repo = crate::summarize::changed_repo();

    let summarize = env.stanley(&repo, &["Summarize what changed", "--verbose"]);
    assert_eq!(summarize.code, 0, "{summarize:?}");
    // Jev refuses the key: the request fails, and its run is kept too. (Past the judgment
    // cache, which would answer the same request without asking.)
    env.set("STANLEY_CACHE", "off");
    env.jev
        .fail_next(std::iter::repeat_n(Fault::Status(401), 3));
    let failed = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(failed.code, 77, "{failed:?}");
    let delegated = env.stanley(&repo, &["Deploy this branch"]);
    assert_eq!(delegated.code, 0, "{delegated:?}");

    let runs = list(&env, &repo);
    assert_eq!(runs.len(), 3, "{runs:#?}");
    let (newest, middle, oldest) = (&runs[0], &runs[1], &runs[2]);
    assert_eq!(newest["delegated"], true);
    assert_eq!(newest["status"], "complete");
    assert_eq!(newest["request"], "Deploy this branch");
    assert_eq!(middle["status"], "failed");
    assert_eq!(middle["exitCode"], 77);
    assert_eq!(middle["error"]["kind"], "jev_auth");
    assert_eq!(oldest["workflow"], "summarize");
    assert_eq!(oldest["status"], "complete");
    assert_eq!(oldest["coverage"]["judged"], 2);
    assert_eq!(oldest["usage"]["jevRequests"], 3);
    assert!(oldest["durationMs"].as_u64().is_some());

    let human = env.stanleyctl(&repo, &["runs", "list"]);
    assert_eq!(
        human.stdout.lines().count(),
        4,
        "a header and three runs: {human:?}"
    );
    assert!(human.stdout.starts_with("RUN "), "{human:?}");
    assert!(
        human.stdout.lines().last().unwrap().contains("complete")
            && human.stdout.contains("Summarize what changed"),
        "{human:?}"
    );
    // A run that failed says so, and why (issue 49: every unfinished run said "error").
    assert!(human.stdout.contains("failed (jev_auth)"), "{human:?}");
    let middle_id = middle["runId"].as_str().unwrap();
    let failed = env.stanleyctl(&repo, &["runs", "show", middle_id]);
    assert!(
        failed.stdout.contains("failed: ") && failed.stdout.contains("TYPESAFE_API_KEY"),
        "{failed:?}"
    );

    // `show` prints the whole report: what the request printed with `--verbose` (issue 34).
    let id = oldest["runId"].as_str().unwrap();
    let show = env.stanleyctl(&repo, &["runs", "show", id]);
    assert_eq!(show.code, 0, "{show:?}");
    assert_eq!(show.stdout, summarize.stdout);
    let latest = env.stanleyctl(&repo, &["runs", "show", "latest"]);
    assert_eq!(latest.stdout, delegated.stdout);
    let json = env
        .stanleyctl(&repo, &["runs", "show", id, "--json"])
        .json();
    assert_eq!(json["document"]["schema"], "stanley.prompt-result/v1");
    assert_eq!(json["summary"]["runId"], id);

    // Every run exports as valid SARIF; a delegated or failed one has no results and says why.
    let sarif = export(&env, &repo, id);
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]));
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );
    let sarif = export(&env, &repo, newest["runId"].as_str().unwrap());
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]));
    let note = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"].to_string();
    assert!(note.contains("delegated"), "{note}");
    let sarif = export(&env, &repo, middle["runId"].as_str().unwrap());
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
    assert_eq!(sarif["runs"][0]["invocations"][0]["exitCode"], 77);

    let doc = env.stanleyctl(&repo, &["runs", "export", id, "--format", "json"]);
    assert_eq!(doc.json()["schema"], "stanley.prompt-result/v1");
    let missing = env.stanleyctl(&repo, &["runs", "show", "nope-20260101T000000Z-abcdef"]);
    assert_eq!(missing.code, 65, "{missing:?}");
    assert!(missing.stderr.contains("no run"), "{missing:?}");
}

/// A test file whose 30th line onwards holds the test the change skips and weakens.
pub(crate) fn long_test(prefix: &str, changed: bool) -> String {
    let mut out = String::from(prefix);
    for n in 0..28 {
        out.push_str(&format!(
            "test('case {n}', () => {{ expect({n}).toBe({n}); }});\n"
        ));
    }
    if changed {
        out.push_str("test.skip('parses', () => {\n  expect(parse('1')).toBe(1);\n});\n");
    } else {
        out.push_str(
            "test('parses', () => {\n  expect(parse('1')).toBe(1);\n  expect(parse('2')).toBe(2);\n});\n",
        );
    }
    out
}

#[test]
fn every_finding_is_one_sarif_result_and_keeps_its_fingerprint_when_lines_move() {
    let env = crate::check::env();
    let repo = TempRepo::with_files(&[
        ("src/parse.js", "export const parse = (s) => Number(s);\n"),
        ("test/parse.test.js", &long_test("", false)),
    ]);
    repo.write("test/parse.test.js", &long_test("", true));
    let first = env.stanley(&repo, &[crate::check::REQUEST, "--json"]);
    assert_eq!(first.code, 0, "{first:?}");
    let doc = first.json();
    let findings = doc["output"]["data"]["findings"]
        .as_array()
        .unwrap()
        .clone();
    assert!(findings.len() >= 2, "{findings:#?}");
    let run = &list(&env, &repo)[0];
    let sarif = export(&env, &repo, run["runId"].as_str().unwrap());
    let results = sarif["runs"][0]["results"].as_array().unwrap().clone();
    assert_eq!(results.len(), findings.len(), "one result per finding");
    for (f, r) in findings.iter().zip(&results) {
        assert_eq!(
            r["ruleId"],
            format!("check/{}", f["flag"].as_str().unwrap())
        );
        assert_eq!(
            r["partialFingerprints"]["stanleyContent/v1"],
            f["fingerprint"]
        );
        assert_eq!(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            f["path"]
        );
    }

    // Six lines above the changed test move it down; a new hunk comes with them.
    repo.write(
        "test/parse.test.js",
        &long_test(&"// header\n".repeat(6), true),
    );
    let second = env.stanley(&repo, &[crate::check::REQUEST, "--json"]);
    assert_eq!(second.code, 0, "{second:?}");
    let run = &list(&env, &repo)[0];
    let moved = export(&env, &repo, run["runId"].as_str().unwrap());
    let moved = moved["runs"][0]["results"].as_array().unwrap().clone();
    let skip = |rs: &[Value]| -> Value {
        rs.iter()
            .find(|r| r["ruleId"] == "check/skip_marker_added")
            .cloned()
            .unwrap_or_else(|| panic!("no skip finding in {rs:#?}"))
    };
    let (a, b) = (skip(&results), skip(&moved));
    assert_eq!(
        a["partialFingerprints"], b["partialFingerprints"],
        "the same finding keeps its fingerprint"
    );
    let line = |r: &Value| {
        r["locations"][0]["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(line(&b), line(&a) + 6, "while its lines moved");
}

/// A run folder as a request in 2020 left it (no summary: written before summaries existed).
fn old_run(repo: &TempRepo, name: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let id = format!("{name}-20200101T000000Z-abcdef");
    let dir = runs_dir(repo).join(&id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::write(
        dir.join("manifest.json"),
        r#"{"workflow":"summarize@1","status":"complete"}"#,
    )
    .unwrap();
    id
}

#[test]
fn retention_prunes_by_count_and_age_but_never_a_run_in_progress() {
    let mut env = crate::summarize::summarize_env();
    let repo = crate::summarize::changed_repo();
    // Age: a run from 2020 goes after the next request of a daemon that lists the folder (30
    // days by default; a running daemon counts its own runs and lists again when some are due
    // or after ten minutes, D-256: one that was stopped lists at its first request).
    assert_eq!(env.stanley(&repo, &["Summarize what changed"]).code, 0);
    let ancient = old_run(&repo, "summarize");
    assert_eq!(env.stanleyctl(&repo, &["daemon", "stop"]).code, 0);
    assert_eq!(env.stanley(&repo, &["Summarize what changed"]).code, 0);
    assert!(
        wait_until(Duration::from_secs(10), || !folders(&repo)
            .contains(&ancient)),
        "the old run is pruned: {:?}",
        folders(&repo)
    );
    // Count: with STANLEY_RUNS_KEEP=2, five requests leave the newest two.
    env.set("STANLEY_RUNS_KEEP", "2");
    env.set("STANLEY_CACHE", "off");
    for _ in 0..3 {
        assert_eq!(env.stanley(&repo, &["Summarize what changed"]).code, 0);
    }
    assert!(
        wait_until(Duration::from_secs(10), || folders(&repo).len() == 2),
        "{:?}",
        folders(&repo)
    );
    let log = std::fs::read_to_string(repo.root().join(".stanley/daemon/stanleyd.log")).unwrap();
    assert!(log.contains("pruned old runs"), "the log says what went");

    // A run in progress: a slow request holds its folder while another one prunes.
    env.set("STANLEY_RUNS_KEEP", "1");
    env.jev.set_latency(Duration::from_millis(2500));
    let slow = {
        let mut cmd = env.command("stanley", repo.root());
        cmd.arg("Summarize what changed");
        std::thread::spawn(move || stanley_tests::testenv::run(cmd, None))
    };
    let before = folders(&repo);
    assert!(
        wait_until(Duration::from_secs(10), || folders(&repo).len()
            > before.len()),
        "the slow run opens its folder"
    );
    let in_progress: Vec<String> = folders(&repo)
        .into_iter()
        .filter(|id| !before.contains(id))
        .collect();
    assert_eq!(in_progress.len(), 1);
    // Run ids carry the second they started: the next run is newer, so by count alone the one
    // in progress would go.
    std::thread::sleep(Duration::from_millis(1100));
    let stale = old_run(&repo, "review");
    let quick = env.stanley(&repo, &["Deploy this branch"]);
    assert!(quick.code == 0 || quick.code == 64, "{quick:?}");
    assert!(
        wait_until(Duration::from_secs(10), || !folders(&repo).contains(&stale)),
        "the quick request pruned"
    );
    assert!(
        folders(&repo).contains(&in_progress[0]),
        "the run in progress stays: {:?}",
        folders(&repo)
    );
    let slow = slow.join().unwrap();
    assert_eq!(slow.code, 0, "{slow:?}");
    // Finished, it is an old run like any other: its own pruning keeps only the newest.
    assert!(
        wait_until(Duration::from_secs(10), || folders(&repo).len() == 1
            && !folders(&repo).contains(&in_progress[0])),
        "{:?}",
        folders(&repo)
    );

    // A setting that is not a number is said, and the default used.
    env.jev.set_latency(Duration::ZERO);
    env.set("STANLEY_RUNS_KEEP", "lots");
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains(
            "stanley: warning: STANLEY_RUNS_KEEP must be a whole number of runs, at least 1 (got \"lots\"); using 200"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn every_finding_of_a_review_becomes_exactly_one_valid_sarif_result() {
    use stanley_tests::fake_jev::{ChoiceRule, choice_answer, labels_of, score_answer};
    let env = TestEnv::new();
    env.jev.route("correctness", "review", 0.9);
    let labels = labels_of(stanley_workflows::analysis::modes::REVIEW.labels);
    env.jev.answer(
        "classification",
        choice_answer(
            &labels,
            &ChoiceRule {
                label: "correctness_risk".into(),
                mass: 0.85,
                confidence: 0.85,
            },
        ),
    );
    env.jev.answer("importance", score_answer(4, 3, 0.9));
    env.jev.answer(
        "evidence_sufficient",
        serde_json::json!({"type": "noul", "noul": 0.9}),
    );
    let repo = crate::summarize::changed_repo();
    let out = env.stanley(
        &repo,
        &["Review these changes for correctness bugs", "--json"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let findings = out.json()["output"]["data"]["findings"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(findings.len(), 2, "one flag per hunk: {findings:#?}");
    let sarif = export(&env, &repo, "latest");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), findings.len());
    let mut fingerprints: Vec<&str> = results
        .iter()
        .map(|r| {
            assert_eq!(r["ruleId"], "review/correctness_risk");
            assert_eq!(r["level"], "warning");
            r["partialFingerprints"]["stanleyContent/v1"]
                .as_str()
                .unwrap()
        })
        .collect();
    fingerprints.sort_unstable();
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), findings.len(), "each result its own");
    for f in &findings {
        assert!(
            results
                .iter()
                .any(
                    |r| r["partialFingerprints"]["stanleyContent/v1"] == f["fingerprint"]
                        && r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                            == f["path"]
                ),
            "{f} has its result"
        );
    }
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!(sarif["runs"][0]["tool"]["driver"]["name"], "Stanley");
}

#[test]
fn runs_are_listed_when_git_made_the_stanley_folder() {
    use std::os::unix::fs::PermissionsExt;
    let env = crate::summarize::summarize_env();
    let repo = crate::summarize::changed_repo();
    // Sharing workflows means committing `.stanley/workflows/`; a checkout then makes
    // `.stanley` with the umask (0755), not 0700 as Stanley would.
    repo.write(
        ".stanley/workflows/x.ts",
        "export default async () => ({ id: \"x\", run: async () => 1 });\n",
    );
    repo.git(&["add", "-f", ".stanley/workflows/x.ts"]);
    repo.commit("share a workflow");
    let stanley = repo.root().join(".stanley");
    std::fs::set_permissions(&stanley, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert!(matches!(out.code, 0 | 10), "{out:?}");
    let runs = list(&env, &repo);
    assert_eq!(runs.len(), 1, "{runs:?}");
    let shown = env.stanleyctl(&repo, &["runs", "show", "latest"]);
    assert_eq!(shown.code, 0, "{shown:?}");
    // A `.stanley` others can write in is not one whose runs can be believed.
    std::fs::set_permissions(&stanley, std::fs::Permissions::from_mode(0o775)).unwrap();
    let refused = env.stanleyctl(&repo, &["runs", "list"]);
    assert_ne!(refused.code, 0, "{refused:?}");
    assert!(
        refused.stderr.contains("writable by others") && refused.stderr.contains("chmod go-w"),
        "{refused:?}"
    );
}
