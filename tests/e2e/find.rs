//! `find` end to end: inventory and exclusions, shuffled metadata shards of at most 20, excerpts
//! with a second region when content is cut off, ranking, and the unrelated-task case.

use serde_json::{Value, json};
use stanley_tests::fake_jev::{ChoiceRule, choice_answer, score_answer};
use stanley_tests::{TempRepo, TestEnv};

fn candidate_id(path: &str) -> String {
    stanley_core::stable_id("c", &json!(path), 8)
}

pub(crate) fn repo() -> TempRepo {
    let mut files: Vec<(String, String)> = (0..42)
        .map(|i| {
            (
                format!("src/module{i}/util.ts"),
                format!("export function helper{i}() {{ return {i}; }}\n"),
            )
        })
        .collect();
    let retry: String = (1..=563)
        .map(|i| match i {
            40 => "export function scheduleRetry(hook) {\n".to_owned(),
            340 => "  return scheduleRetry(next); // webhook retries back off\n".to_owned(),
            _ => format!("  // retry bookkeeping {i}\n"),
        })
        .collect();
    files.push(("src/webhooks/retry.ts".into(), retry));
    files.push((
        "src/billing/charge.ts".into(),
        "export function chargeCard() {}\n".into(),
    ));
    files.push((
        "test/retry.test.ts".into(),
        "test('retries', () => {});\n".into(),
    ));
    files.push((".env".into(), "TOKEN=abc\n".into()));
    files.push(("package-lock.json".into(), "{}\n".into()));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    TempRepo::with_files(&refs)
}

pub(crate) fn env() -> TestEnv {
    let env = TestEnv::new();
    env.jev.route("find", "find", 0.9);
    let roles = stanley_tests::fake_jev::labels_of(&stanley_workflows::find::ROLES);
    let retry = candidate_id("src/webhooks/retry.ts");
    env.jev
        .answer(&format!("relevance_{retry}"), score_answer(4, 3, 0.9));
    env.jev.answer(
        &format!("role_{retry}"),
        choice_answer(
            &roles,
            &ChoiceRule {
                label: "implementation".into(),
                mass: 0.9,
                confidence: 0.9,
            },
        ),
    );
    env.jev.answer_if(
        "relevance",
        "src/webhooks/retry.ts",
        score_answer(4, 3, 0.9),
    );
    env.jev.answer_if(
        "relevant_content_cut_off",
        "src/webhooks/retry.ts",
        json!({"type": "noul", "noul": 0.9}),
    );
    let missing: Vec<String> = [
        "none",
        "caller",
        "callee",
        "configuration",
        "tests",
        "cannot_tell",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    env.jev.answer_if(
        "missing_evidence",
        "src/webhooks/retry.ts",
        choice_answer(
            &missing,
            &ChoiceRule {
                label: "callee".into(),
                mass: 0.8,
                confidence: 0.8,
            },
        ),
    );
    env
}

#[test]
fn find_ranks_the_retry_code_first() {
    let mut env = env();
    let repo = repo();
    let out = env.stanley(&repo, &["Find the code behind webhook retries", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    let data = &doc["output"]["data"];
    let meta: Vec<Value> = env
        .jev
        .requests()
        .into_iter()
        .filter(|r| r.pointer("/state/candidates").is_some())
        .collect();
    let mut screened: Vec<String> = Vec::new();
    for frame in &meta {
        let cands = frame["state"]["candidates"].as_array().unwrap();
        assert!(cands.len() <= 20);
        assert!(
            !frame.to_string().contains("retry bookkeeping"),
            "no file content in metadata frames"
        );
        screened.extend(cands.iter().map(|c| c["path"].as_str().unwrap().to_owned()));
    }
    screened.sort();
    let before = screened.len();
    screened.dedup();
    assert_eq!(before, screened.len(), "each file is screened once");
    assert_eq!(screened.len(), 45);
    assert!(
        !screened
            .iter()
            .any(|p| p == ".env" || p == "package-lock.json")
    );
    let top = &data["results"][0];
    assert_eq!(
        (top["rank"].as_u64(), top["path"].as_str()),
        (Some(1), Some("src/webhooks/retry.ts"))
    );
    assert_eq!(
        top["probesRun"],
        json!(["read-excerpt@1", "read-next-region@1"])
    );
    let ranges = top["excerpt"]["ranges"].as_array().unwrap();
    assert_eq!(ranges.len(), 2);
    // Every 160-line window holding line 340 scores the same; the lowest start wins.
    assert_eq!(ranges[0], "181-340");
    assert_eq!(
        data["summary"]["gaps"],
        json!(["src/webhooks/retry.ts: callee not shown"])
    );
    assert_eq!(data["summary"]["noStrongCandidate"], false);
    assert!(
        data["excluded"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["id"] == "file:.env")
    );
    assert_eq!(doc["status"], "complete");
    // The report wraps its lines within 100 columns; the words are what count.
    let text = doc["output"]["text"]
        .as_str()
        .unwrap()
        .replace("\n      ", " ");
    assert!(
        text.contains("ranked candidates:\n  1. src/webhooks/retry.ts:181  relevance=0.93"),
        "{text}"
    );
    assert!(
        text.contains(" relevance=0.93 role=implementation lines=181-340,1-160 missing=callee"),
        "{text}"
    );
    // The shuffled shards are the same on every run (they may be sent in any order).
    let order = |reqs: &[Value]| -> Vec<Vec<String>> {
        let mut shards: Vec<Vec<String>> = reqs
            .iter()
            .filter(|r| r.pointer("/state/candidates").is_some())
            .map(|r| {
                r["state"]["candidates"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c["id"].as_str().unwrap().to_owned())
                    .collect()
            })
            .collect();
        shards.sort();
        shards
    };
    let first_order = order(&env.jev.requests());
    let before = env.jev.requests().len();
    // Asked again past the judgment cache, which would otherwise answer everything.
    env.set("STANLEY_CACHE", "off");
    assert_eq!(
        env.stanley(
            &repo,
            &[
                "Find the code behind webhook retries",
                "--json",
                "--no-persist"
            ]
        )
        .code,
        0
    );
    assert_eq!(order(&env.jev.requests()[before..]), first_order);
}

#[test]
fn an_unrelated_task_returns_nothing() {
    let env = TestEnv::new();
    env.jev.route("find", "find", 0.9);
    let out = env.stanley(&repo(), &["Find the spaceship navigation code", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["output"]["data"]["results"], json!([]));
    assert!(
        doc["output"]["data"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["flag"] == "no_strong_candidate")
    );
}

#[test]
fn find_takes_no_input() {
    let env = env();
    let repo = repo();
    repo.write("notes.txt", "x\n");
    let out = env.stanley(
        &repo,
        &[
            "Find the code behind webhook retries",
            "--input",
            "notes.txt",
        ],
    );
    assert_eq!(out.code, 64, "{out:?}");
    assert!(
        out.stderr.contains(
            "stanley find: usage error: supplied input is not used when the request routes to find"
        ),
        "{}",
        out.stderr
    );
}
