//! Repository workflows end to end through the real Node.js host: routing, `prompt`, `judge`
//! and `log` across the process boundary, hot reload, quarantine, the one id space, and
//! workflows that misbehave.

use serde_json::json;
use stanley_tests::{TempRepo, TestEnv};

use crate::summarize::changed_repo;

const AUDIT: &str = r#"
import { helper } from "./lib/helper";
enum Verdict { Stale = "stale" }
export default async function ({ root, signal, log }: { root: string; signal: AbortSignal; log: any }) {
  return {
    id: "todo_audit",
    instructions: "Audit TODO notes in the repository",
    authorization: "Bearer abcdefghijklmnop123456",
    async run({ request, prompt, judge, log }: any) {
      log.info("starting", { quiet: true });
      log.warn("cache missing", { path: "tmp/cache" });
      const summary = await prompt("Summarize the current diff");
      const verdict = await judge({ scope: "todo", state: { note: "TODO: remove" }, questions: { stale: { type: "noul", instructions: "Is the TODO stale?" } } });
      return { request, version: VERSION, kind: Verdict.Stale, helper: helper(), childStatus: summary.status, childText: summary.output.text.split("\n")[0], stale: verdict.ok ? verdict.answers.stale.probability : verdict.reason };
    },
  };
}
"#;

fn audit(version: u32) -> String {
    AUDIT.replace("VERSION", &version.to_string())
}

fn repo_with(files: &[(&str, &str)]) -> TempRepo {
    let repo = changed_repo();
    for (path, content) in files {
        repo.write(path, content);
    }
    repo
}

fn env() -> TestEnv {
    let env = TestEnv::new();
    env.jev.route("todo", "todo_audit", 0.9);
    env.jev.route("summar", "summarize", 0.9);
    env.jev
        .answer("stale", json!({"type": "noul", "noul": 0.8}));
    env
}

#[test]
fn a_typescript_workflow_prompts_judges_logs_and_reloads_when_edited() {
    let env = env();
    let repo = repo_with(&[
        (".stanley/workflows/audit.ts", &audit(1)),
        (
            ".stanley/workflows/lib/index.ts",
            "export function helper(): string { return \"helped\"; }\nexport default async () => ({ id: \"helper_lib\", run: async () => \"lib\" });\n",
        ),
    ]);
    std::fs::write(
        repo.root().join(".stanley/workflows/audit.ts"),
        audit(1).replace("./lib/helper", "./lib/index"),
    )
    .unwrap();
    let out = env.stanley(&repo, &["Audit the TODO notes", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["status"], "complete");
    assert_eq!(
        doc["output"],
        json!({"request": "Audit the TODO notes", "version": 1, "kind": "stale", "helper": "helped", "childStatus": "complete", "childText": "change summary of the worktree changes: 4 hunks, none clearly in a category · complete · advisory", "stale": 0.8})
    );
    assert!(out.stderr.contains("stanley: workflow .stanley/workflows/audit.ts warn: cache missing {\"path\":\"tmp/cache\"}"), "{}", out.stderr);
    assert!(
        !out.stderr.contains("starting"),
        "info records are not printed"
    );
    let routes = env.jev.route_requests();
    assert_eq!(
        routes.len(),
        2,
        "the top-level request and the nested prompt"
    );
    assert_eq!(
        routes[0]["questions"]["route"]["criteria"]["todo_audit"]["authorization"],
        "[REDACTED:field]"
    );
    let child_labels: Vec<&String> = routes[1]["questions"]["route"]["criteria"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert!(
        !child_labels.iter().any(|l| *l == "todo_audit"),
        "the child's labels exclude the running workflow"
    );
    assert!(child_labels.iter().any(|l| *l == "helper_lib"));
    let judged = env
        .jev
        .requests()
        .into_iter()
        .find(|r| r.pointer("/questions/stale").is_some())
        .expect("judge asked Jev");
    assert_eq!(judged["state"], json!({"note": "TODO: remove"}));

    // Edit the workflow: the next request uses the new code, on the same daemon.
    let info = std::fs::read_to_string(repo.root().join(".stanley/daemon/daemon.json")).unwrap();
    std::fs::write(
        repo.root().join(".stanley/workflows/audit.ts"),
        audit(2).replace("./lib/helper", "./lib/index"),
    )
    .unwrap();
    let out = env.stanley(&repo, &["Audit the TODO notes", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["output"]["version"], 2);
    assert_eq!(
        std::fs::read_to_string(repo.root().join(".stanley/daemon/daemon.json")).unwrap(),
        info,
        "no daemon restart"
    );
}

#[test]
fn broken_workflows_are_quarantined_and_the_rest_serve() {
    let env = env();
    let repo = repo_with(&[
        (
            ".stanley/workflows/syntax.ts",
            "export default async ( => {\n",
        ),
        (
            ".stanley/workflows/throws.ts",
            "export default async () => { throw new Error(\"boom\"); };\n",
        ),
        (
            ".stanley/workflows/sync.ts",
            "export default () => ({ id: \"sync_one\", run: async () => 1 });\n",
        ),
        (
            ".stanley/workflows/bad-id.ts",
            "export default async () => ({ id: \"Bad Id\", run: async () => 1 });\n",
        ),
        (
            ".stanley/workflows/options.ts",
            "export default async () => ({ id: \"opts\", options: [], run: async () => 1 });\n",
        ),
        (
            ".stanley/workflows/todo.js",
            "module.exports = async () => ({ id: \"todo_audit\", instructions: \"Audit TODO notes\", run: async ({ request }) => ({ cjs: true, request }) });\n",
        ),
    ]);
    let out = env.stanley(&repo, &["Audit the TODO notes", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json()["output"],
        json!({"cjs": true, "request": "Audit the TODO notes"})
    );
    for expected in [
        "stanley: warning: workflow .stanley/workflows/syntax.ts quarantined (import):",
        "stanley: warning: workflow .stanley/workflows/throws.ts quarantined (factory): boom",
        "stanley: warning: workflow .stanley/workflows/sync.ts quarantined (factory): default factory must return a Promise",
        "stanley: warning: workflow .stanley/workflows/bad-id.ts quarantined (validate): workflow.id must match /^[a-z][a-z0-9_-]{0,63}$/ (got \"Bad Id\")",
        "stanley: warning: workflow .stanley/workflows/options.ts quarantined (validate): workflow.options is not supported",
    ] {
        assert!(
            out.stderr.contains(expected),
            "missing {expected:?} in\n{}",
            out.stderr
        );
    }
}

#[test]
fn duplicate_and_reserved_ids_fail_registration() {
    let env = env();
    let repo = repo_with(&[(
        ".stanley/workflows/find.ts",
        "export default async () => ({ id: \"find\", run: async () => 1 });\n",
    )]);
    let out = env.stanley(&repo, &["Find the code", "--json"]);
    assert_eq!(out.code, 65, "{out:?}");
    assert_eq!(out.json()["error"]["kind"], "input");
    assert!(out.stderr.contains("stanley: input error: duplicate workflow id: find (registered by builtin and .stanley/workflows/find.ts)"), "{}", out.stderr);
    let repo = repo_with(&[(
        ".stanley/workflows/ct.ts",
        "export default async () => ({ id: \"cannot_tell\", run: async () => 1 });\n",
    )]);
    let out = env.stanley(&repo, &["Find the code"]);
    assert_eq!(out.code, 65, "{out:?}");
    assert!(
        out.stderr
            .contains("reserved workflow id: cannot_tell (from .stanley/workflows/ct.ts)"),
        "{}",
        out.stderr
    );
}

#[test]
fn actions_route_to_repository_workflows_and_nested_actions_are_guarded() {
    let env = env();
    env.jev.route("fix the security", "fixer", 0.9);
    env.jev.route("nested", "fixer", 0.9);
    let fixer = r#"export default async () => ({
      id: "fixer",
      instructions: "Fixes security issues",
      async run({ request, input, prompt }: any) {
        const child = await prompt("Fix the nested issue");
        return { request, input, childStatus: child.status, childText: child.output.text };
      },
    });
"#;
    let repo = repo_with(&[(".stanley/workflows/fixer.ts", fixer)]);
    let out = env.stanley_with_stdin(
        &repo,
        &["Fix the security issue", "--json"],
        Some(b"- a is two\n"),
    );
    assert_eq!(out.code, 0, "{out:?}");
    let output = &out.json()["output"];
    assert_eq!(output["request"], "Fix the security issue");
    assert_eq!(output["input"], "- a is two\n");
    assert_eq!(output["childStatus"], "unsupported");
    assert!(
        output["childText"]
            .as_str()
            .unwrap()
            .contains("cannot implement or fix code")
    );
}

#[test]
fn misbehaving_runs_end_with_clear_errors_and_the_daemon_keeps_serving() {
    let env = env();
    env.jev.route("undefined", "returns_undefined", 0.9);
    env.jev.route("throw", "thrower", 0.9);
    env.jev.route("cyclic", "cyclic", 0.9);
    env.jev.route("badjudge", "bad_judge", 0.9);
    let repo = repo_with(&[
        (
            ".stanley/workflows/undef.ts",
            "export default async () => ({ id: \"returns_undefined\", run: async () => undefined });\n",
        ),
        (
            ".stanley/workflows/thrower.ts",
            "export default async () => ({ id: \"thrower\", run: async () => { throw new Error(\"exploded\"); } });\n",
        ),
        (
            ".stanley/workflows/cyclic.ts",
            "export default async () => ({ id: \"cyclic\", run: async () => { const a: any = {}; a.self = a; return a; } });\n",
        ),
        (
            ".stanley/workflows/badjudge.ts",
            "export default async () => ({ id: \"bad_judge\", run: async ({ judge }: any) => [await judge({ scope: \"s\", state: [], questions: {} }), await judge(42)] });\n",
        ),
    ]);
    let out = env.stanley(&repo, &["Return undefined please", "--json"]);
    assert_eq!(out.code, 70, "{out:?}");
    assert!(out.stderr.contains("stanley returns_undefined: internal error: workflow.run must return text or JSON (got undefined)"), "{}", out.stderr);
    let out = env.stanley(&repo, &["Please throw"]);
    assert_eq!(out.code, 70, "{out:?}");
    assert!(out.stderr.contains("exploded"));
    let out = env.stanley(&repo, &["Return something cyclic"]);
    assert_eq!(out.code, 70, "{out:?}");
    let out = env.stanley(&repo, &["Call badjudge", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json()["output"],
        json!([
            {"ok": false, "reason": "invalid", "detail": "judge state must be a JSON object"},
            {"ok": false, "reason": "invalid", "detail": "judge request must be an object (got number)"},
        ])
    );
    let healthy = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(healthy.code, 0, "{healthy:?}");
}

#[test]
fn without_node_built_ins_keep_working() {
    let mut env = env();
    // A PATH with nothing on it: no `node` (the daemon itself needs no other program).
    let empty = tempfile::tempdir().unwrap();
    env.set("PATH", empty.path().to_str().unwrap());
    let repo = repo_with(&[(".stanley/workflows/audit.ts", &audit(1))]);
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json()["output"]["data"]["summary"]["analysis"],
        "summarize"
    );
    assert!(
        out.stderr.contains(
            "stanley: warning: repository workflows are off: Node.js (`node`) was not found on PATH"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn a_factory_that_exits_the_host_turns_repository_workflows_off() {
    let env = env();
    let repo = repo_with(&[(
        ".stanley/workflows/exit.ts",
        "export default async () => { process.exit(3); };
",
    )]);
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("stanley: warning: repository workflows are off: the workflow host failed while loading: the workflow host exited"), "{}", out.stderr);
    // Fixing the file brings them back on the next request.
    repo.write(
        ".stanley/workflows/exit.ts",
        "export default async () => ({ id: \"todo_audit\", run: async () => \"back\" });\n",
    );
    let out = env.stanley(&repo, &["Audit the TODO notes", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["output"], "back");
}

#[test]
fn the_reference_example_loads_and_runs() {
    let env = TestEnv::new();
    env.jev.route("todo", "stale_todo_audit", 0.9);
    env.jev.answer_if(
        "stale",
        "ship the beta",
        json!({"type": "noul", "noul": 0.9}),
    );
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/workflows/stale-todo-audit.ts"
    ))
    .unwrap();
    let repo = TempRepo::with_files(&[(
        "src/a.ts",
        "// TODO: ship the beta\nexport const a = 1;\n// FIXME: handle errors\n",
    )]);
    repo.write(".stanley/workflows/stale-todo-audit.ts", &example);
    let out = env.stanley(&repo, &["Audit the TODO notes", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["status"], "complete");
    assert_eq!(doc["output"]["data"]["notes"], 2);
    assert!(
        doc["output"]["text"]
            .as_str()
            .unwrap()
            .starts_with("1 of 2 judged notes look stale")
    );
}

#[test]
fn nested_prompts_stop_at_the_call_limit_and_judge_at_64_calls() {
    let env = env();
    env.jev.route("chatty", "chatty", 0.9);
    env.jev.route("greedy", "greedy", 0.9);
    let chatty = r#"export default async () => ({ id: "chatty", run: async ({ prompt }: any) => {
      const statuses = [];
      for (let i = 0; i < 33; i++) statuses.push((await prompt("Summarize the current diff")).output.text.split("\n")[0]);
      return statuses.slice(30);
    } });
"#;
    let greedy = r#"export default async () => ({ id: "greedy", run: async ({ judge }: any) => {
      let last;
      for (let i = 0; i < 65; i++) last = await judge({ scope: "s", state: { i: 0 }, questions: { stale: { type: "noul" } } });
      return last;
    } });
"#;
    let repo = repo_with(&[
        (".stanley/workflows/chatty.ts", chatty),
        (".stanley/workflows/greedy.ts", greedy),
    ]);
    let out = env.stanley(&repo, &["Be chatty", "--json", "--no-persist"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json()["output"],
        json!([
            "change summary of the worktree changes: 4 hunks, none clearly in a category · complete · advisory",
            "change summary of the worktree changes: 4 hunks, none clearly in a category · complete · advisory",
            "The request was stopped at the child prompt call limit."
        ])
    );
    let out = env.stanley(&repo, &["Be greedy", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json()["output"],
        json!({"ok": false, "reason": "limit", "detail": "at most 64 judge calls per run"})
    );
}

#[test]
fn nested_prompts_stop_at_depth_eight() {
    let env = env();
    let mut files: Vec<(String, String)> = Vec::new();
    for k in 0..10 {
        env.jev
            .route(&format!("level {k} "), &format!("level{k}"), 0.9);
        let body = format!(
            "export default async () => ({{ id: \"level{k}\", run: async ({{ prompt }}: any) => {{ const child = await prompt(\"go to level {} now\"); return [\"level{k}\"].concat(Array.isArray(child.output) ? child.output : [child.output.text]); }} }});\n",
            k + 1
        );
        files.push((format!(".stanley/workflows/level{k}.ts"), body));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = repo_with(&refs);
    let out = env.stanley(
        &repo,
        &["start at level 0 please", "--json", "--no-persist"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let chain = out.json()["output"].clone();
    let chain: Vec<&str> = chain
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(chain.len(), 10, "{chain:?}");
    assert_eq!(chain[8], "level8");
    assert_eq!(
        chain[9],
        "The request was stopped at the nested prompt depth limit."
    );
}

#[test]
fn the_watcher_reloads_an_edited_workflow_before_the_next_request() {
    let env = env();
    env.jev.route("trivial", "trivial", 0.9);
    let trivial = |n: u32| {
        format!(
            "export default async () => ({{ id: \"trivial\", instructions: \"Run the trivial workflow\", run: async () => ({{ version: {n} }}) }});\n"
        )
    };
    let repo = repo_with(&[(".stanley/workflows/trivial.ts", &trivial(1))]);
    let run = || {
        let out = env.stanley(&repo, &["Run the trivial workflow", "--json"]);
        assert_eq!(out.code, 0, "{out:?}");
        out.json()["output"]["version"].as_u64()
    };
    assert_eq!(run(), Some(1));
    let log = repo.root().join(".stanley/daemon/stanleyd.log");
    let count = |needle: &str| {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .matches(needle)
            .count()
    };
    let loads = count("repository workflows loaded");
    repo.write(".stanley/workflows/trivial.ts", &trivial(2));
    // No request is made: the daemon reloads on its own.
    assert!(
        stanley_tests::testenv::wait_until(std::time::Duration::from_secs(20), || {
            count("workflow folder changed; reloaded") >= 1
                && count("repository workflows loaded") > loads
        }),
        "the watcher reloaded the folder"
    );
    let reloaded = count("repository workflows loaded");
    assert_eq!(run(), Some(2));
    assert_eq!(
        count("repository workflows loaded"),
        reloaded,
        "the request found the host already warm"
    );
}
