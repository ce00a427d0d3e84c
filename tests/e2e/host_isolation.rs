//! The workflow host runs exactly what was trusted and uses nothing another user can write
//! (issue 37): tsx's compile cache in a shared folder, a `package.json` outside the workflow
//! folder, a vendored package linked from elsewhere, and imports that leave the folder. Each
//! case is a real Node.js host loading real workflows; the shared-folder case acts as a second
//! local user (uid 65534) when the tests run as root.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

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

#[test]
fn workers_and_forks_are_confined_and_bare_names_never_search_above_the_folder() {
    let threads = r#"import { Worker } from "node:worker_threads";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
const here = (name) => fileURLToPath(new URL(name, import.meta.url));
export default async ({ root }) => ({
  id: "threads",
  run: async () => {
    const worker = await new Promise((done) => {
      const w = new Worker(here("./w.mjs"), { workerData: root });
      w.on("message", (m) => done("worker " + m));
      w.on("error", (e) => done("worker refused: " + e.code + " " + e.message));
    });
    const forked = await new Promise((done) => {
      const child = fork(here("./c.cjs"), [root]);
      child.on("message", (m) => done("fork " + m));
      child.on("exit", (code) => done("fork exited " + code));
    });
    return { text: worker + "\n" + forked };
  },
});
"#;
    let s = Scene::new(&[
        (".stanley/workflows/threads.ts", threads),
        (
            ".stanley/workflows/w.mjs",
            "import { parentPort, workerData } from \"node:worker_threads\";\nconst x = await import(workerData + \"/scripts/helper.mjs\");\nparentPort.postMessage(\"loaded \" + x.default);\n",
        ),
        (
            ".stanley/workflows/c.cjs",
            "let said;\ntry { said = \"loaded \" + require(process.argv[2] + \"/scripts/helper.js\"); } catch (e) { said = \"refused: \" + e.code + \" \" + e.message; }\ntry { require(\"leftpad\"); } catch (e) { said += \"\\nbare: \" + e.code + \" \" + e.message; }\nprocess.send(said, () => process.exit(0));\n",
        ),
        (
            "scripts/helper.js",
            &format!("{}module.exports = 1;\n", marking("helper")),
        ),
        (
            "scripts/helper.mjs",
            &format!(
                "import {{ createRequire }} from \"node:module\";\nconst require = createRequire(import.meta.url);\n{}export default 1;\n",
                marking("helper-esm")
            ),
        ),
    ]);
    // A package in a folder above the staged copy (where the daemon's runtime folder is): Node.js
    // would find it by walking up; the host never looks there.
    let above = s.env.runtime_dir().join("node_modules/leftpad");
    fs::create_dir_all(&above).unwrap();
    fs::write(above.join("package.json"), "{\"main\": \"index.js\"}\n").unwrap();
    fs::write(
        above.join("index.js"),
        format!("{}module.exports = 1;\n", marking("leftpad")),
    )
    .unwrap();
    s.env.jev.route("threads", "threads", 0.95);
    s.trust();
    let out = s.env.stanley(&s.repo, &["Start the threads", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let text = out.json()["output"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    for expected in [
        "worker refused: ERR_MODULE_NOT_FOUND import \"/",
        "/scripts/helper.mjs\" in .stanley/workflows/w.mjs resolves outside .stanley/workflows",
        "fork refused: MODULE_NOT_FOUND require \"/",
        "/scripts/helper.js\" in .stanley/workflows/c.cjs resolves outside .stanley/workflows",
        "bare: MODULE_NOT_FOUND require \"leftpad\" in .stanley/workflows/c.cjs: no such package in .stanley/workflows/node_modules",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    assert!(
        !s.marked("helper") && !s.marked("helper-esm") && !s.marked("leftpad"),
        "code outside the folder ran: {text}"
    );
}

/// One write a traced process made: the program (as far as the trace tells), the call and
/// the absolute path.
#[derive(Debug)]
struct Write {
    program: String,
    call: String,
    path: PathBuf,
}

/// The quoted string arguments and `<path>` decorations of one strace line, in order.
fn strace_args(line: &str) -> Vec<(Option<String>, String)> {
    // A string argument, with the `<dir>` decoration (from `-y`) of the descriptor argument
    // before it, when there is one (`openat(AT_FDCWD</repo>, "a.txt", …)`).
    let mut out = Vec::new();
    let mut dir: Option<String> = None;
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '<' => {
                let rest = &line[i + 1..];
                if let Some(end) = rest.find('>') {
                    dir = Some(rest[..end].to_owned());
                    for _ in 0..=end {
                        chars.next();
                    }
                }
            }
            '"' => {
                let mut text = String::new();
                let mut escaped = false;
                for (_, c) in chars.by_ref() {
                    if escaped {
                        text.push(c);
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        break;
                    } else {
                        text.push(c);
                    }
                }
                // A decoration belongs to the descriptor argument just before this string.
                out.push((dir.take(), text));
            }
            _ => {}
        }
    }
    out
}

/// Every write the traced processes made (`strace -ff -y` files under `dir`).
fn writes(dir: &Path) -> Vec<Write> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let text = fs::read_to_string(entry.path()).unwrap_or_default();
        let mut program = "(a thread or fork)".to_owned();
        for line in text.lines() {
            let Some(call) = line.split('(').next().map(str::to_owned) else {
                continue;
            };
            let args = strace_args(line);
            if call == "execve" && line.ends_with("= 0") {
                program = args.first().map(|(_, p)| p.clone()).unwrap_or_default();
                continue;
            }
            // Only what happened counts: an `mkdir` that found the folder there (the runtime
            // folder, made and checked by the test) or a refused open wrote nothing.
            if line
                .rsplit_once(" = ")
                .is_some_and(|(_, result)| result.starts_with("-1"))
            {
                continue;
            }
            let writes_file = matches!(call.as_str(), "open" | "openat" | "creat")
                && (line.contains("O_WRONLY")
                    || line.contains("O_RDWR")
                    || line.contains("O_CREAT"));
            let targets: Vec<(Option<String>, String)> = match call.as_str() {
                _ if writes_file => args.into_iter().take(1).collect(),
                "mkdir" | "mkdirat" | "unlink" | "unlinkat" | "rmdir" => {
                    args.into_iter().take(1).collect()
                }
                "rename" | "renameat" | "renameat2" | "link" | "linkat" | "symlink"
                | "symlinkat" => args.into_iter().skip(1).take(1).collect(),
                _ => Vec::new(),
            };
            for (base, name) in targets {
                let path = if name.starts_with('/') {
                    PathBuf::from(&name)
                } else {
                    let Some(base) = base else {
                        continue;
                    };
                    Path::new(&base).join(&name)
                };
                out.push(Write {
                    program: program.clone(),
                    call: call.clone(),
                    path,
                });
            }
        }
    }
    out
}

/// Why `path` is a place another local user could touch, if it is: its nearest existing
/// folder must be ours and closed to writes by others, and every folder above it ours or
/// root's, closed to others' writes or sticky. Devices and the kernel's files do not count.
fn exposed(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    for kernel in [
        "/dev/null",
        "/dev/tty",
        "/dev/pts/",
        "/proc/",
        "/sys/",
        "/dev/urandom",
    ] {
        if path.starts_with(kernel) || path.display().to_string().starts_with(kernel) {
            return None;
        }
    }
    let me = stanley_proto::socket::current_uid();
    let mut dir = path.parent()?.to_path_buf();
    while fs::symlink_metadata(&dir).is_err() {
        dir = dir.parent()?.to_path_buf();
    }
    let meta = fs::symlink_metadata(&dir).ok()?;
    if meta.uid() != me || meta.mode() & 0o022 != 0 {
        return Some(format!(
            "{} (owner {}, mode {:o})",
            dir.display(),
            meta.uid(),
            meta.mode() & 0o7777
        ));
    }
    for above in dir.ancestors().skip(1) {
        let Ok(meta) = fs::symlink_metadata(above) else {
            continue;
        };
        let sticky = meta.mode() & 0o1000 != 0;
        if (meta.uid() != me && meta.uid() != 0) || (meta.mode() & 0o022 != 0 && !sticky) {
            return Some(format!(
                "{} above it (owner {}, mode {:o})",
                above.display(),
                meta.uid(),
                meta.mode() & 0o7777
            ));
        }
    }
    None
}

/// strace, which this test needs (`scripts/test` installs Debian's `strace`).
fn strace() -> PathBuf {
    let path = PathBuf::from("/usr/bin/strace");
    assert!(
        path.exists(),
        "strace is missing: scripts/test installs Debian's strace (apt-get install strace)"
    );
    path
}

#[test]
fn no_process_stanley_starts_writes_where_another_user_could() {
    for line in crate::real_pi::LINES {
        no_process_stanley_starts_writes_where_another_user_could_on(line);
    }
}

fn no_process_stanley_starts_writes_where_another_user_could_on(line: crate::real_pi::Line) {
    use stanley_tests::model_server::{DOC_PATH, FLOW_FILE, ModelServer};
    let server = ModelServer::start();
    let (mut env, _agent) = crate::real_pi::env_for(&server, "write-doc", line);
    let shared = shared_tmp();
    env.set("TMPDIR", shared.path().to_str().unwrap());
    env.jev.route("hello", "hello", 0.9);
    let repo = crate::summarize::changed_repo();
    repo.write(
        ".stanley/workflows/hello.ts",
        &hello("const greeting: string = \"hello\";", "greeting"),
    );
    let flow = serde_json::json!({"goal": "Write done.txt", "mode": "enforce",
        "limits": {"max_restarts": 0},
        "notify": {"command": "echo \"$STANLEY_FLOW_EVENT\" >> notified.log", "on": ["goal_complete"]},
        "phases": [{"id": "finish", "name": "Finish", "done_when": "done.txt exists", "check": "test -f done.txt"}]});
    repo.write(".stanley/flow.json", &flow.to_string());
    let traces = tempfile::tempdir().unwrap();
    // The daemon runs under strace, which follows it and every process it starts until it
    // stops: the workflow host (Node.js and tsx), Pi, the flow's check and notify command. It
    // gets what a client would hand it (`DAEMON_ENV`), as a client would start it.
    let client = env.command("stanley", repo.root());
    let handed: Vec<(std::ffi::OsString, std::ffi::OsString)> = client
        .get_envs()
        .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned())))
        .filter(|(k, _)| stanley_proto::env::DAEMON_ENV.iter().any(|n| k == *n))
        .collect();
    let mut traced = std::process::Command::new(strace());
    traced
        .args(["-ff", "-qq", "-y", "-e", "signal=none", "-e"])
        .arg("trace=execve,open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,symlink,symlinkat,unlink,unlinkat,rmdir")
        .arg("-o")
        .arg(traces.path().join("t"))
        .arg(stanley_tests::testenv::bin_dir().join("stanleyd"))
        .arg("--root")
        .arg(repo.root())
        .current_dir(repo.root())
        .env_clear()
        .envs(handed)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut tracer = traced.spawn().expect("start strace");
    assert!(
        stanley_tests::testenv::wait_until(std::time::Duration::from_secs(20), || {
            env.stanleyctl(&repo, &["daemon", "status"]).code == 0 && repo.daemon_pid().is_some()
        }),
        "the traced daemon did not start"
    );
    let said = env.stanley(&repo, &["Say hello", "--json"]);
    assert_eq!(said.code, 0, "{said:?}");
    assert_eq!(said.json()["output"]["text"], "hello", "{said:?}");
    let delegated = env.stanley(
        &repo,
        &[
            "Add docs/conventions.md describing the code style",
            "--json",
        ],
    );
    assert_eq!(delegated.code, 0, "{delegated:?}");
    assert!(repo.root().join(DOC_PATH).exists(), "{delegated:?}");
    let mut run = env.command("stanleyctl", repo.root());
    run.args(["flow", "run"])
        .env("STANLEY_AGENT_MODEL", "mock/two-step")
        .env_remove("TYPESAFE_API_KEY");
    let ran = stanley_tests::testenv::run(run, None);
    assert_eq!(ran.code, 0, "{ran:?}");
    assert!(repo.root().join(FLOW_FILE).exists());
    assert_eq!(
        fs::read_to_string(repo.root().join("notified.log")).unwrap(),
        "goal_complete\n"
    );
    env.stop_daemon(&repo);
    // strace ends with the last process it follows.
    assert!(
        stanley_tests::testenv::wait_until(std::time::Duration::from_secs(30), || {
            tracer.try_wait().ok().flatten().is_some()
        }),
        "strace did not end: a process the daemon started outlived it"
    );
    let all = writes(traces.path());
    if std::env::var_os("STANLEY_KEEP_TRACES").is_some() {
        let kept = traces.keep();
        eprintln!("traces kept in {}", kept.display());
        for w in &all {
            eprintln!("write: {w:?}");
        }
    }
    let programs: std::collections::BTreeSet<&str> = all
        .iter()
        .map(|w| w.program.rsplit('/').next().unwrap_or_default())
        .collect();
    for expected in ["stanleyd", "node", "sh"] {
        assert!(
            programs.contains(expected),
            "{expected} wrote nothing in the trace ({line:?}): {programs:?}"
        );
    }
    let bad: Vec<String> = all
        .iter()
        .filter_map(|w| {
            exposed(&w.path)
                .map(|why| format!("{} {} {}: {why}", w.program, w.call, w.path.display()))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "writes where another user could reach ({line:?}):\n{}",
        bad.join("\n")
    );
    assert_eq!(
        listing(shared.path()),
        Vec::<String>::new(),
        "something was written into the shared TMPDIR"
    );
}
