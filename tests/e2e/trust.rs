//! Trust for repository code (issue 12): a branch's workflows and flow commands run only once the
//! person has trusted exactly that content with `stanleyctl trust`; an edit asks again; the edit
//! loop keeps an author's own edits trusted while HEAD stays put; `flow init` and promotion trust
//! what they write; built-ins never stop working.

use std::path::Path;

use serde_json::Value;
use stanley_tests::testenv::{Output, run};
use stanley_tests::{TempRepo, TestEnv};

/// A workflow whose top-level code leaves a mark (so loading it is visible) and which answers
/// "Say hello".
fn hello_workflow(greeting: &str) -> String {
    format!(
        r#"import {{ appendFileSync }} from "node:fs";
appendFileSync(process.env.MARKS + "/loaded", "{greeting}\n");
export default async function () {{
  return {{
    id: "hello",
    instructions: "Use when the user asks to say hello.",
    examples: ["Say hello"],
    async run() {{ return {{ text: "{greeting}" }}; }},
  }};
}}
"#
    )
}

/// A flow whose only check leaves a mark.
const FLOW: &str = r#"{"goal": "Say hello", "mode": "enforce", "phases": [
  {"id": "one", "name": "One", "done_when": "done", "check": "touch \"$MARKS/check-ran\"; false"}
]}"#;

struct Setup {
    env: TestEnv,
    repo: TempRepo,
    marks: tempfile::TempDir,
}

impl Setup {
    /// A repository on `main` with a plain commit, then a branch `feature` that adds a workflow
    /// and a flow, checked out: what a person gets after `git checkout` of someone's branch.
    fn new() -> Self {
        let mut env = TestEnv::new();
        env.untrusted();
        let marks = tempfile::tempdir().unwrap();
        env.set("MARKS", marks.path().to_str().unwrap());
        env.set("STANLEY_AUTO_IMPROVE", "off");
        env.set("STANLEY_AGENT", "off");
        env.jev.route("hello", "hello", 0.9);
        env.jev.route("summar", "summarize", 0.9);
        let repo = TempRepo::with_files(&[("README.md", "# app\n")]);
        repo.git(&["checkout", "-q", "-b", "feature"]);
        repo.write(
            ".stanley/workflows/hello.ts",
            &hello_workflow("hello from the branch"),
        );
        repo.write(".stanley/flow.json", FLOW);
        repo.commit("add a workflow and a flow");
        repo.write("README.md", "# app\n\nchanged\n");
        Self { env, repo, marks }
    }

    fn marked(&self, name: &str) -> bool {
        self.marks.path().join(name).exists()
    }

    fn loads(&self) -> usize {
        std::fs::read_to_string(self.marks.path().join("loaded"))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    }

    fn hello(&self) -> Output {
        self.env.stanley(&self.repo, &["Say hello", "--json"])
    }

    fn ctl(&self, args: &[&str]) -> Output {
        self.env.stanleyctl(&self.repo, args)
    }

    fn status(&self) -> Value {
        let out = self.ctl(&["trust", "--status", "--json"]);
        assert_eq!(out.code, 0, "{out:?}");
        out.json()
    }

    fn stop_hook(&self) -> Output {
        let input = serde_json::json!({
            "session_id": "s1", "transcript_path": "", "cwd": self.repo.root(),
            "hook_event_name": "Stop", "stop_hook_active": false
        });
        let mut cmd = self.env.command("stanleyctl", self.repo.root());
        cmd.args(["hook", "stop"]);
        run(cmd, Some(input.to_string().as_bytes()))
    }
}

fn warning_names_trust(out: &Output) {
    let lines: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("repository workflows are off"))
        .collect();
    assert_eq!(lines.len(), 1, "{out:?}");
    assert!(lines[0].contains("`stanleyctl trust`"), "{out:?}");
}

#[test]
fn a_branch_that_adds_a_workflow_and_a_flow_check_runs_neither_until_trusted() {
    let s = Setup::new();
    // Built-ins keep working, with one warning naming the command.
    let out = s
        .env
        .stanley(&s.repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    warning_names_trust(&out);
    assert!(
        out.stderr.contains("is not trusted in this worktree"),
        "{out:?}"
    );
    // The branch's workflow is not offered, so not even its top-level code runs.
    let out = s.hello();
    assert_ne!(
        out.json()["output"]["text"],
        "hello from the branch",
        "{out:?}"
    );
    assert_eq!(s.loads(), 0, "the workflow's top-level code never ran");

    // The flow's commands do not run: flow run refuses with exit 3, and the Stop hook allows
    // the stop and says why (never a block).
    let run = s.ctl(&["flow", "run"]);
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("`stanleyctl trust`"), "{run:?}");
    let hook = s.stop_hook();
    assert_eq!(hook.code, 0, "{hook:?}");
    let answer: Value = serde_json::from_str(&hook.stdout).unwrap();
    assert!(answer.get("decision").is_none(), "{answer}");
    assert!(
        answer["systemMessage"]
            .as_str()
            .unwrap()
            .contains("`.stanley/flow.json` is not trusted"),
        "{answer}"
    );
    assert!(!s.marked("check-ran"), "the flow check never ran");

    let status = s.status();
    assert_eq!(status["workflows"]["state"], "not trusted");
    assert_eq!(status["flow"]["state"], "not trusted");

    // The person reviews the branch and trusts it: both run.
    let out = s.ctl(&["trust"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("trusted (1 file(s))"), "{out:?}");
    let out = s.hello();
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["output"]["text"], "hello from the branch");
    assert!(
        !out.stderr.contains("repository workflows are off"),
        "{out:?}"
    );
    assert_eq!(s.loads(), 1);
    s.stop_hook();
    assert!(s.marked("check-ran"), "the trusted flow's check ran");
    let file = s.env.home().join(".local/state/stanley/trust.json");
    let trust: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(trust["schema"], "stanley.trust/2");
    assert!(
        trust["worktrees"][s.repo.root().to_str().unwrap()]["workflows"]["hello.ts"].is_string(),
        "{trust}"
    );
}

#[test]
fn editing_a_trusted_workflow_asks_again_and_untrust_turns_it_off() {
    let s = Setup::new();
    assert_eq!(s.ctl(&["trust"]).code, 0);
    assert_eq!(s.hello().json()["output"]["text"], "hello from the branch");
    s.repo.write(
        ".stanley/workflows/hello.ts",
        &hello_workflow("edited behind your back"),
    );
    let out = s.hello();
    warning_names_trust(&out);
    assert!(
        out.stderr
            .contains("changed since you trusted it (hello.ts)"),
        "{out:?}"
    );
    assert_ne!(out.json()["output"]["text"], "edited behind your back");
    let status = s.status();
    assert_eq!(status["workflows"]["state"], "changed");
    assert_eq!(
        status["workflows"]["changed"],
        serde_json::json!(["hello.ts"])
    );
    assert_eq!(status["flow"]["state"], "trusted");
    let human = s.ctl(&["trust", "--status"]);
    assert!(
        human.stdout.contains("changed since trusted: hello.ts"),
        "{human:?}"
    );

    assert_eq!(s.ctl(&["trust"]).code, 0);
    assert_eq!(
        s.hello().json()["output"]["text"],
        "edited behind your back"
    );

    // A removed file never needs trust again; untrust turns everything off.
    assert_eq!(s.ctl(&["untrust"]).code, 0);
    warning_names_trust(&s.hello());
    assert_eq!(s.status()["workflows"]["state"], "not trusted");
}

#[test]
fn the_edit_loop_trusts_your_edits_until_a_checkout_brings_other_content() {
    let s = Setup::new();
    let out = s.ctl(&["trust", "--edits"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("on, while HEAD stays at"), "{out:?}");
    // The author edits: trusted without asking.
    s.repo
        .write(".stanley/workflows/hello.ts", &hello_workflow("draft two"));
    assert_eq!(s.hello().json()["output"]["text"], "draft two");
    // The author commits: HEAD moves, the content is what the loop saw: still trusted.
    s.repo.commit("draft two");
    let out = s.hello();
    assert_eq!(out.json()["output"]["text"], "draft two", "{out:?}");
    assert!(
        !out.stderr.contains("repository workflows are off"),
        "{out:?}"
    );
    // Someone else's branch changes the file: a checkout asks again.
    s.repo.git(&["checkout", "-q", "-b", "theirs", "main"]);
    s.repo
        .write(".stanley/workflows/hello.ts", &hello_workflow("theirs"));
    s.repo.commit("their workflow");
    let out = s.hello();
    warning_names_trust(&out);
    assert_ne!(out.json()["output"]["text"], "theirs");
}

#[test]
fn flow_init_trusts_the_flow_it_writes() {
    let mut env = TestEnv::new();
    env.untrusted();
    let repo = TempRepo::with_files(&[("README.md", "# app\n")]);
    let out = env.stanleyctl(&repo, &["flow", "init", "Ship the parser"]);
    assert_eq!(out.code, 0, "{out:?}");
    let status = env
        .stanleyctl(&repo, &["trust", "--status", "--json"])
        .json();
    assert_eq!(status["flow"]["state"], "trusted", "{status}");
    assert_eq!(status["workflows"]["state"], "absent");
    // The trust file is the user's, outside the repository, private.
    let file = env.home().join(".local/state/stanley/trust.json");
    assert_eq!(status["trustFile"], file.to_str().unwrap());
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(!Path::new(&repo.root().join(".stanley/trust.json")).exists());
}

#[test]
fn a_branch_cannot_swap_a_trusted_workflows_imports_through_tsconfig_paths() {
    let s = Setup::new();
    // A trusted workflow that imports a package vendored beside it.
    s.repo.write(
        ".stanley/workflows/node_modules/lib-helper/index.js",
        "module.exports = { greeting: \"from the vendored helper\" };\n",
    );
    s.repo.write(
        ".stanley/workflows/node_modules/lib-helper/package.json",
        r#"{"name": "lib-helper", "version": "1.0.0", "main": "index.js"}"#,
    );
    s.repo.write(
        ".stanley/workflows/hello.ts",
        r#"import helper from "lib-helper";
export default async function () {
  return { id: "hello", instructions: "Use when the user asks to say hello.", examples: ["Say hello"],
           async run() { return { text: helper.greeting }; } };
}
"#,
    );
    assert_eq!(s.ctl(&["trust"]).code, 0);
    assert_eq!(
        s.hello().json()["output"]["text"],
        "from the vendored helper"
    );
    // The branch maps the import elsewhere with a repository tsconfig, touching no trusted file.
    s.repo.write(
        "tsconfig.json",
        r#"{"compilerOptions": {"baseUrl": ".", "paths": {"lib-helper": ["./evil.ts"]}}}"#,
    );
    s.repo.write(
        "evil.ts",
        "import { writeFileSync } from \"node:fs\";\nwriteFileSync(process.env.MARKS + \"/evil\", \"ran\");\nexport default { greeting: \"from evil\" };\n",
    );
    assert_eq!(s.ctl(&["daemon", "restart"]).code, 0);
    let out = s.hello();
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json()["output"]["text"],
        "from the vendored helper",
        "{out:?}"
    );
    assert!(
        !s.marked("evil"),
        "repository tsconfig paths redirected a trusted import"
    );
}
