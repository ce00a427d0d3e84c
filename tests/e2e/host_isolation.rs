//! The workflow host runs exactly what was trusted and uses nothing another user can write
//! (issue 37): tsx's compile cache in a shared folder, a `package.json` outside the workflow
//! folder, a vendored package linked from elsewhere, and imports that leave the folder. Each
//! case is a real Node.js host loading real workflows; the shared-folder case acts as a second
//! local user (uid 65534) when the tests run as root.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use serde_json::Value;
use stanley_tests::testenv::Output;
use stanley_tests::{TempRepo, TestEnv};

use crate::security::{OTHER_UID, attacker_dir, second_user_available, shared_tmp};

/// A trusted-workflow scene: `hello` answers "Say hello" with what `body` computes.
struct Scene {
    env: TestEnv,
    repo: TempRepo,
    marks: tempfile::TempDir,
}

/// A workflow answering "Say hello" with `{text: <expr>}`, after `imports`.
fn hello(imports: &str, expr: &str) -> String {
    format!(
        r#"{imports}
export default async function () {{
  return {{
    id: "hello",
    instructions: "Use when the user asks to say hello.",
    examples: ["Say hello"],
    async run() {{ return {{ text: {expr} }}; }},
  }};
}}
"#
    )
}

/// Module code that leaves the mark `name` when it runs.
fn marking(name: &str) -> String {
    format!("require(\"node:fs\").writeFileSync(process.env.MARKS + \"/{name}\", \"ran\");\n")
}

impl Scene {
    fn new(files: &[(&str, &str)]) -> Self {
        let mut env = TestEnv::new();
        env.untrusted();
        let marks = tempfile::tempdir().unwrap();
        env.set("MARKS", marks.path().to_str().unwrap());
        env.set("STANLEY_AUTO_IMPROVE", "off");
        env.set("STANLEY_AGENT", "off");
        env.jev.route("hello", "hello", 0.9);
        let repo = TempRepo::with_files(&[("README.md", "# app\n")]);
        for (path, content) in files {
            repo.write(path, content);
        }
        repo.commit("workflows");
        Self { env, repo, marks }
    }

    fn trust(&self) {
        let out = self.env.stanleyctl(&self.repo, &["trust"]);
        assert_eq!(out.code, 0, "{out:?}");
    }

    fn hello(&self) -> Output {
        self.env.stanley(&self.repo, &["Say hello", "--json"])
    }

    fn text(&self) -> String {
        let out = self.hello();
        assert_eq!(out.code, 0, "{out:?}");
        out.json()["output"]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    fn restart(&self) {
        let out = self.env.stanleyctl(&self.repo, &["daemon", "restart"]);
        assert_eq!(out.code, 0, "{out:?}");
    }

    fn marked(&self, name: &str) -> bool {
        self.marks.path().join(name).exists()
    }

    fn trust_status(&self) -> Value {
        let out = self
            .env
            .stanleyctl(&self.repo, &["trust", "--status", "--json"]);
        assert_eq!(out.code, 0, "{out:?}");
        out.json()
    }
}

/// Every path under `dir`, relative, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            out.push(path.strip_prefix(dir).unwrap().display().to_string());
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn another_user_cannot_plant_compiled_code_through_a_shared_tmpdir() {
    if !second_user_available("another_user_cannot_plant_compiled_code_through_a_shared_tmpdir") {
        return;
    }
    let mut s = Scene::new(&[(
        ".stanley/workflows/hello.ts",
        &hello("const greeting: string = \"hello\";", "greeting"),
    )]);
    // The shared folder stands in for /tmp; the other user makes tsx's folder for our uid first.
    let shared = shared_tmp();
    s.env.set("TMPDIR", shared.path().to_str().unwrap());
    let uid = stanley_proto::socket::current_uid();
    let planted = shared.path().join(format!("tsx-{uid}"));
    attacker_dir(&planted, 0o777);
    s.trust();
    assert_eq!(s.text(), "hello");
    s.restart();
    assert_eq!(s.text(), "hello");
    // What the other user can now do to whatever our processes left there: append code to
    // every file (tsx's cached modules are JSON whose "code" runs as the module).
    let entries = listing(&planted);
    for rel in &entries {
        let path = planted.join(rel);
        if path.is_file() {
            let text = fs::read_to_string(&path).unwrap_or_default();
            let injected = text.replacen(
                "(()=>{\\n",
                &format!(
                    "(()=>{{\\n{}",
                    marking("injected")
                        .replace('"', "\\\"")
                        .replace('\n', "\\n")
                ),
                1,
            );
            fs::write(&path, injected).unwrap();
        }
    }
    s.restart();
    assert_eq!(s.text(), "hello");
    assert!(
        !s.marked("injected"),
        "code planted in the shared folder ran"
    );
    assert_eq!(
        entries,
        Vec::<String>::new(),
        "the workflow host wrote into a folder uid {OTHER_UID} made in the shared TMPDIR"
    );
    assert_eq!(
        listing(shared.path()),
        [format!("tsx-{uid}")],
        "Stanley's processes wrote into the shared TMPDIR"
    );
}

#[test]
fn a_package_json_outside_the_workflow_folder_cannot_change_a_trusted_import() {
    let s = Scene::new(&[
        (
            ".stanley/workflows/hello.ts",
            &hello("import { greeting } from \"goodlib\";", "greeting"),
        ),
        (
            ".stanley/workflows/node_modules/goodlib/package.json",
            r#"{"name": "goodlib", "version": "1.0.0", "main": "index.js"}"#,
        ),
        (
            ".stanley/workflows/node_modules/goodlib/index.js",
            "module.exports = { greeting: \"from goodlib\" };\n",
        ),
    ]);
    s.trust();
    assert_eq!(s.text(), "from goodlib");
    // A branch names the repository itself `goodlib` and points its exports at its own code:
    // Node resolves a package's import of its own name before node_modules, from the nearest
    // package.json above the importer (here the repository's; its `type` would decide how the
    // workflow's `.js` files load, too).
    let evil = |name: &str| {
        format!(
            "import {{ writeFileSync }} from \"node:fs\";\nwriteFileSync(process.env.MARKS + \"/{name}\", \"ran\");\nexport const greeting = \"from {name}\";\n"
        )
    };
    s.repo.write(
        "package.json",
        r#"{"name": "goodlib", "type": "module", "exports": "./evil.js"}"#,
    );
    s.repo.write("evil.js", &evil("evil"));
    s.restart();
    assert_eq!(s.text(), "from goodlib");
    assert!(
        !s.marked("evil"),
        "the repository's package.json redirected a trusted import"
    );
    // The same from `.stanley/package.json`, the nearest scope above the folder.
    s.repo.write(
        ".stanley/package.json",
        r##"{"name": "goodlib", "type": "module", "exports": "./evil.mjs", "imports": {"#x": "./evil.mjs"}}"##,
    );
    s.repo.write(".stanley/evil.mjs", &evil("evil-stanley"));
    s.restart();
    assert_eq!(s.text(), "from goodlib");
    assert!(
        !s.marked("evil-stanley"),
        ".stanley/package.json redirected a trusted import"
    );
    assert_eq!(s.trust_status()["workflows"]["state"], "trusted");
}

#[test]
fn a_linked_vendored_package_is_trusted_by_its_content() {
    let s = Scene::new(&[
        (
            ".stanley/workflows/hello.ts",
            &hello("import { greeting } from \"goodlib\";", "greeting"),
        ),
        (
            "packages/goodlib/package.json",
            r#"{"name": "goodlib", "version": "1.0.0", "main": "index.js"}"#,
        ),
        (
            "packages/goodlib/index.js",
            "module.exports = { greeting: \"from the workspace package\" };\n",
        ),
    ]);
    // pnpm's layout: the vendored package is a link into the workspace.
    let modules = s.repo.root().join(".stanley/workflows/node_modules");
    fs::create_dir_all(&modules).unwrap();
    symlink("../../../packages/goodlib", modules.join("goodlib")).unwrap();
    s.trust();
    assert_eq!(s.text(), "from the workspace package");
    // A branch edits the package behind the link; the link itself does not change.
    s.repo.write(
        "packages/goodlib/index.js",
        &format!(
            "{}module.exports = {{ greeting: \"from evil\" }};\n",
            marking("evil")
        ),
    );
    let out = s.hello();
    assert!(
        !s.marked("evil"),
        "an edit behind a trusted link ran: {out:?}"
    );
    assert!(
        out.stderr.contains("repository workflows are off")
            && out.stderr.contains("stanleyctl trust"),
        "{out:?}"
    );
    let status = s.trust_status();
    assert_eq!(status["workflows"]["state"], "changed", "{status}");
    assert_eq!(
        status["workflows"]["changed"],
        serde_json::json!(["node_modules/goodlib/index.js"]),
        "{status}"
    );
    // Trusting the new content is the person's review; then it serves.
    s.trust();
    assert_eq!(s.text(), "from evil");
}

#[test]
fn imports_that_leave_the_workflow_folder_are_refused_with_one_line() {
    let s = Scene::new(&[
        (".stanley/workflows/hello.ts", &hello("", "\"hello\"")),
        (
            ".stanley/workflows/up.ts",
            "import x from \"../../scripts/helper.js\";\nexport default async () => ({ id: \"up\", run: async () => x });\n",
        ),
        (
            ".stanley/workflows/bare.ts",
            "import pad from \"leftpad\";\nexport default async () => ({ id: \"bare\", run: async () => pad });\n",
        ),
        (
            ".stanley/workflows/lazy.js",
            "module.exports = async () => ({ id: \"lazy\", run: async () => require(\"../../scripts/helper.js\") });\n",
        ),
        (
            ".stanley/workflows/data.ts",
            "export default async () => { const m = await import(\"data:text/javascript,export default 1\"); return { id: \"data\", run: async () => m.default }; };\n",
        ),
        (
            "scripts/helper.js",
            &format!("{}module.exports = 1;\n", marking("helper")),
        ),
        (
            "node_modules/leftpad/index.js",
            &format!("{}module.exports = 1;\n", marking("leftpad")),
        ),
    ]);
    s.trust();
    let out = s.hello();
    assert_eq!(out.code, 0, "{out:?}");
    for expected in [
        "workflow .stanley/workflows/up.ts quarantined (import): require \"../../scripts/helper.js\" in .stanley/workflows/up.ts resolves outside .stanley/workflows",
        "workflow .stanley/workflows/bare.ts quarantined (import): require \"leftpad\" in .stanley/workflows/bare.ts: no such package in .stanley/workflows/node_modules",
        "workflow .stanley/workflows/data.ts quarantined (factory): import \"data:text/javascript,export default 1\" in .stanley/workflows/data.ts resolves outside .stanley/workflows",
    ] {
        let lines: Vec<&str> = out
            .stderr
            .lines()
            .filter(|l| l.contains(expected))
            .collect();
        assert_eq!(lines.len(), 1, "missing {expected:?} in\n{}", out.stderr);
    }
    // A lazy require fails when the run makes it, with the same line.
    s.env.jev.route("lazy", "lazy", 0.95);
    let lazy = s.env.stanley(&s.repo, &["Run the lazy one", "--json"]);
    assert!(
        lazy.stderr.contains("require \"../../scripts/helper.js\" in .stanley/workflows/lazy.js resolves outside .stanley/workflows"),
        "{lazy:?}"
    );
    assert!(
        !s.marked("helper") && !s.marked("leftpad"),
        "code outside the folder ran"
    );
}
