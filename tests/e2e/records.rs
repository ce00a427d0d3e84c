//! Run records under `.stanley/runs/`: the file set, private modes, redaction, the
//! `.gitignore` rule, and `--no-persist`.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use stanley_tests::TempRepo;
use stanley_tests::testenv::TEST_KEY;

use crate::summarize::{changed_repo, summarize_env};

const TOKEN: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB";

fn runs(repo: &TempRepo) -> Vec<std::path::PathBuf> {
    match fs::read_dir(repo.root().join(".stanley/runs")) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn a_run_writes_private_redacted_records() {
    let env = summarize_env();
    let repo = changed_repo();
    repo.write(
        "src/config.js",
        &format!("const token = \"{TOKEN}\";\nconst key = \"{TEST_KEY}\";\n"),
    );
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    for request in env.jev.requests() {
        let text = request.to_string();
        assert!(
            !text.contains(TOKEN) && !text.contains(TEST_KEY),
            "a secret reached Jev"
        );
    }
    let runs = runs(&repo);
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert!(
        run.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("summarize-")
    );
    assert_eq!(
        fs::metadata(run).unwrap().permissions().mode() & 0o777,
        0o700
    );
    let mut names: Vec<String> = fs::read_dir(run)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "candidates.json",
            "decisions.ndjson",
            "frames.ndjson",
            "inputs.json",
            "manifest.json",
            "packet.json",
            "result.json",
            "summary.json"
        ]
    );
    for name in &names {
        let path = run.join(name);
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600,
            "{name}"
        );
        let text = fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains(TOKEN) && !text.contains(TEST_KEY),
            "{name} holds a secret"
        );
    }
    let packet: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(run.join("packet.json")).unwrap()).unwrap();
    assert!(
        packet["redactions"].as_u64().unwrap() >= 2,
        "{}",
        packet["redactions"]
    );
    assert_eq!(
        packet["artifact"],
        format!(
            ".stanley/runs/{}",
            run.file_name().unwrap().to_str().unwrap()
        )
    );
    let frame: serde_json::Value = serde_json::from_str(
        fs::read_to_string(run.join("frames.ndjson"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        (
            frame["result"].as_str(),
            frame["requestedModel"].as_str(),
            frame["template"].as_str()
        ),
        (Some("ok"), Some("jev-1.13.0"), Some("diff-summarize@2"))
    );
    // The record holds the request as Jev received it.
    let request = &frame["request"];
    assert!(
        env.jev
            .requests()
            .iter()
            .any(|r| r["state"] == request["state"] && r["questions"] == request["questions"]),
        "{frame}"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(run.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["status"], "complete");
    assert_eq!(
        manifest["budget"],
        serde_json::json!({"requests": 600, "inputTokens": 1_200_000, "wallMs": 180_000})
    );

    assert_eq!(
        fs::read_to_string(repo.root().join(".stanley/.gitignore")).unwrap(),
        "*\n!workflows/\n!workflows/**\n!flow.json\n"
    );
    let status = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
    assert!(!status.contains(".stanley"), "{status}");
    repo.write(".stanley/workflows/example.ts", "export default {};\n");
    let status = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
    assert!(
        status.contains("?? .stanley/workflows/example.ts"),
        "{status}"
    );
}

#[test]
fn no_persist_writes_no_records() {
    let env = summarize_env();
    let repo = changed_repo();
    let out = env.stanley(&repo, &["Summarize what changed", "--json", "--no-persist"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(runs(&repo).is_empty());
}
