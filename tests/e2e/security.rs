//! Security as another local user and a hostile repository would test it (issue 12): a client
//! never sends a byte to a daemon it cannot prove is the caller's own, the daemon refuses unsafe
//! runtime folders, and no link under `.stanley/` is written through. The second-user cases
//! need root (to run the attacker under uid 65534); without root they say they were skipped.

use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::{PermissionsExt, chown, symlink};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use stanley_tests::testenv::{bin_dir, run, wait_until};
use stanley_tests::{Output, TempRepo, TestEnv};

use crate::summarize::{changed_repo, summarize_env};

/// The uid the attacker runs as (`nobody` on Debian).
pub(crate) const OTHER_UID: u32 = 65534;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Whether the second-user tests can run; says why not when they cannot.
pub(crate) fn second_user_available(test: &str) -> bool {
    if is_root() {
        return true;
    }
    eprintln!(
        "skipped {test}: acting as a second local user (uid {OTHER_UID}) needs root; run the tests as root to exercise it"
    );
    false
}

/// The attacker's listener, running as [`OTHER_UID`].
struct Listener {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Listener {
    fn start(socket: &Path) -> Self {
        let mut child = Command::new(bin_dir().join("foreign-listener"))
            .arg(socket)
            .current_dir("/")
            .env_clear()
            .uid(OTHER_UID)
            .gid(OTHER_UID)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the foreign listener");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stdout = child.stdout.take().expect("listener stdout");
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        let listener = Self { child, lines };
        assert!(
            wait_until(Duration::from_secs(10), || listener.count("ready") == 1),
            "the foreign listener did not start on {}",
            socket.display()
        );
        listener
    }

    fn count(&self, prefix: &str) -> usize {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.starts_with(prefix))
            .count()
    }

    /// Connections the clients made and bytes received over all of them. A connection can wait
    /// in the backlog after its client is gone, so a sentinel connection (through `socket`, the
    /// listener's path now) goes last: once it is accepted, every earlier one was.
    fn finish(mut self, socket: &Path) -> (usize, usize) {
        {
            use std::io::Write;
            let mut sentinel =
                std::os::unix::net::UnixStream::connect(socket).expect("sentinel connection");
            sentinel.write_all(b"sentinel").expect("sentinel bytes");
        }
        assert!(
            wait_until(Duration::from_secs(15), || {
                self.count("sentinel") == 1 && self.count("accepted") == self.count("received") + 1
            }),
            "a connection to the foreign listener stayed open"
        );
        let _ = self.child.kill();
        let _ = self.child.wait();
        let lines = self.lines.lock().unwrap();
        let bytes = lines
            .iter()
            .filter_map(|l| l.strip_prefix("received "))
            .map(|n| n.parse::<usize>().unwrap())
            .sum();
        (lines.iter().filter(|l| *l == "accepted").count() - 1, bytes)
    }
}

/// A world-writable sticky folder, like `/tmp`, where the attacker can create things.
pub(crate) fn shared_tmp() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("st-shared")
        .tempdir()
        .unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o1777)).unwrap();
    dir
}

/// A folder owned by the attacker with `mode`.
pub(crate) fn attacker_dir(path: &Path, mode: u32) {
    fs::create_dir(path).unwrap();
    chown(path, Some(OTHER_UID), Some(OTHER_UID)).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// One second-user case: a hermetic environment, a changed repository and a shared `/tmp`-like
/// folder. `None` (after saying why) when the tests cannot act as a second user.
struct Scene {
    env: TestEnv,
    repo: TempRepo,
    shared: tempfile::TempDir,
}

impl Scene {
    fn new(test: &str) -> Option<Self> {
        if !second_user_available(test) {
            return None;
        }
        Some(Self {
            env: summarize_env(),
            repo: changed_repo(),
            shared: shared_tmp(),
        })
    }

    /// The socket path the client computes inside `folder`.
    fn socket_in(&self, folder: &Path) -> PathBuf {
        folder.join(socket_name(&self.repo))
    }

    /// Our own private runtime folder, the path of our socket in it, and the attacker's
    /// listener on a socket of theirs.
    fn own_folder_and_listener(&self) -> (PathBuf, PathBuf, PathBuf, Listener) {
        let mine = self.shared.path().join("mine");
        fs::create_dir(&mine).unwrap();
        fs::set_permissions(&mine, fs::Permissions::from_mode(0o700)).unwrap();
        let evil = self.shared.path().join("evil");
        attacker_dir(&evil, 0o755);
        let foreign = evil.join("x.sock");
        let listener = Listener::start(&foreign);
        (mine.clone(), self.socket_in(&mine), foreign, listener)
    }
}

fn socket_name(repo: &TempRepo) -> String {
    stanley_proto::socket::socket_name(repo.root())
}

/// `stanley "Summarize what changed"` with the socket folder taken from `XDG_RUNTIME_DIR`
/// (`<xdg>/stanley`), as on a desktop session.
fn request_with_xdg(env: &TestEnv, repo: &TempRepo, xdg: &Path) -> Output {
    let mut cmd = env.command("stanley", repo.root());
    cmd.env_remove("STANLEY_RUNTIME_DIR")
        .env("XDG_RUNTIME_DIR", xdg)
        .env(
            "AWS_SECRET_ACCESS_KEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        )
        .arg("Summarize what changed");
    run(cmd, None)
}

/// `stanley "Summarize what changed"` with the socket folder `dir`.
fn request_with_runtime(env: &TestEnv, repo: &TempRepo, dir: &Path) -> Output {
    let mut cmd = env.command("stanley", repo.root());
    cmd.env("STANLEY_RUNTIME_DIR", dir)
        .arg("Summarize what changed");
    run(cmd, None)
}

/// The refusal every case must produce: exit 69, nothing on stdout, one error line naming
/// `path` and the problem, then the hint.
fn assert_refused(out: &Output, path: &Path, problem: &str) {
    assert_eq!(out.code, 69, "{out:?}");
    assert_eq!(out.stdout, "", "{out:?}");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{out:?}");
    assert!(
        lines[0].starts_with("stanley: unavailable error: refusing to talk to the daemon: ")
            && lines[0].contains(&path.display().to_string())
            && lines[0].contains(problem),
        "{out:?}"
    );
    assert!(
        lines[1].starts_with("hint: ")
            && lines[1].contains("RUNTIME_DIR to a folder only you can use"),
        "{out:?}"
    );
}

#[test]
fn a_runtime_folder_another_user_created_first_is_refused() {
    let Some(Scene { env, repo, shared }) =
        Scene::new("a_runtime_folder_another_user_created_first_is_refused")
    else {
        return;
    };
    // The attacker got there first: `<xdg>/stanley`, theirs, open to all, with a listener at
    // the exact socket path the victim's client computes.
    let folder = shared.path().join("stanley");
    attacker_dir(&folder, 0o777);
    let socket = folder.join(socket_name(&repo));
    let listener = Listener::start(&socket);
    let out = request_with_xdg(&env, &repo, shared.path());
    assert_refused(&out, &folder, "is owned by uid 65534");
    assert_eq!(
        listener.finish(&socket),
        (0, 0),
        "nothing may reach the listener"
    );
    assert!(repo.daemon_pid().is_none(), "no daemon was started either");
}

#[test]
fn a_runtime_folder_of_ours_that_others_can_write_is_refused() {
    let Some(Scene { env, repo, shared }) =
        Scene::new("a_runtime_folder_of_ours_that_others_can_write_is_refused")
    else {
        return;
    };
    let folder = shared.path().join("stanley");
    fs::create_dir(&folder).unwrap();
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o777)).unwrap();
    let listener = Listener::start(&folder.join(socket_name(&repo)));
    let out = request_with_xdg(&env, &repo, shared.path());
    assert_refused(&out, &folder, "is open to other users (mode 0777");
    assert!(
        out.stderr.contains("hint: make it private with `chmod 700"),
        "{out:?}"
    );
    assert_eq!(listener.finish(&folder.join(socket_name(&repo))), (0, 0));
    let mode = fs::metadata(&folder).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o777, "refused, never chmod-ed");
}

#[test]
fn a_symlinked_runtime_folder_is_refused() {
    let Some(Scene { env, repo, shared }) = Scene::new("a_symlinked_runtime_folder_is_refused")
    else {
        return;
    };
    let evil = shared.path().join("evil");
    attacker_dir(&evil, 0o755);
    let listener = Listener::start(&evil.join(socket_name(&repo)));
    let folder = shared.path().join("stanley");
    symlink(&evil, &folder).unwrap();
    let out = request_with_xdg(&env, &repo, shared.path());
    assert_refused(&out, &folder, "is a symbolic link");
    assert_eq!(listener.finish(&evil.join(socket_name(&repo))), (0, 0));
}

#[test]
fn a_socket_that_is_a_symlink_to_a_foreign_socket_is_refused() {
    let Some(scene) = Scene::new("a_socket_that_is_a_symlink_to_a_foreign_socket_is_refused")
    else {
        return;
    };
    let (env, repo) = (&scene.env, &scene.repo);
    let (mine, socket, foreign, listener) = scene.own_folder_and_listener();
    symlink(&foreign, &socket).unwrap();
    let out = request_with_runtime(env, repo, &mine);
    assert_refused(&out, &socket, "is a symbolic link");
    assert_eq!(listener.finish(&foreign), (0, 0));
}

#[test]
fn a_socket_owned_by_another_user_is_refused() {
    let Some(scene) = Scene::new("a_socket_owned_by_another_user_is_refused") else {
        return;
    };
    let (env, repo) = (&scene.env, &scene.repo);
    let (mine, socket, foreign, listener) = scene.own_folder_and_listener();
    // The listening socket itself, moved to the path the client uses; it stays uid 65534's.
    fs::rename(&foreign, &socket).unwrap();
    let out = request_with_runtime(env, repo, &mine);
    assert_refused(&out, &socket, "is owned by uid 65534");
    assert_eq!(listener.finish(&socket), (0, 0));
}

#[test]
fn a_foreign_listener_behind_a_socket_file_of_ours_gets_zero_bytes() {
    let Some(scene) = Scene::new("a_foreign_listener_behind_a_socket_file_of_ours_gets_zero_bytes")
    else {
        return;
    };
    let (env, repo) = (&scene.env, &scene.repo);
    let (mine, socket, foreign, listener) = scene.own_folder_and_listener();
    fs::rename(&foreign, &socket).unwrap();
    // Every file check passes now: only the peer's credentials tell the truth.
    chown(&socket, Some(0), Some(0)).unwrap();
    let out = request_with_runtime(env, repo, &mine);
    assert_refused(&out, &socket, "is served by a process of uid 65534");
    // stanleyctl follows the same rule.
    let mut cmd = env.command("stanleyctl", repo.root());
    cmd.env("STANLEY_RUNTIME_DIR", &mine)
        .args(["daemon", "status"]);
    let ctl = run(cmd, None);
    assert_eq!(ctl.code, 69, "{ctl:?}");
    assert!(
        ctl.stderr.contains("is served by a process of uid 65534"),
        "{ctl:?}"
    );
    let (accepted, bytes) = listener.finish(&socket);
    assert_eq!(accepted, 2, "each client connected once to read the peer");
    assert_eq!(bytes, 0, "and sent nothing, not even the HTTP/2 preface");
}

#[test]
fn the_daemon_refuses_a_runtime_folder_open_to_others_and_leaves_it_alone() {
    let repo = changed_repo();
    let shared = shared_tmp();
    let loose = shared.path().join("loose");
    fs::create_dir(&loose).unwrap();
    fs::set_permissions(&loose, fs::Permissions::from_mode(0o777)).unwrap();
    let out = run(
        {
            let mut cmd = Command::new(bin_dir().join("stanleyd"));
            cmd.arg("--root")
                .arg(repo.root())
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("STANLEY_RUNTIME_DIR", &loose);
            cmd
        },
        None,
    );
    assert_eq!(out.code, 69, "{out:?}");
    assert!(
        out.stderr.contains(&loose.display().to_string())
            && out.stderr.contains("is open to other users")
            && out.stderr.contains("XDG_RUNTIME_DIR"),
        "{out:?}"
    );
    assert_eq!(fs::read_dir(&loose).unwrap().count(), 0, "nothing bound");
    let mode = fs::metadata(&loose).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o777);
}

#[test]
fn the_daemon_creates_a_missing_runtime_folder_private() {
    let env = summarize_env();
    let repo = changed_repo();
    let shared = shared_tmp();
    let out = request_with_xdg(&env, &repo, shared.path());
    assert_eq!(out.code, 0, "{out:?}");
    let folder = shared.path().join("stanley");
    let meta = fs::symlink_metadata(&folder).unwrap();
    assert!(meta.is_dir());
    assert_eq!(meta.permissions().mode() & 0o777, 0o700);
    let mut cmd = env.command("stanleyctl", repo.root());
    cmd.env_remove("STANLEY_RUNTIME_DIR")
        .env("XDG_RUNTIME_DIR", shared.path())
        .args(["daemon", "stop"]);
    assert_eq!(run(cmd, None).code, 0);
}

/// A file outside the repository that a planted link points at; it must stay as it was.
fn victim(repo: &TempRepo) -> PathBuf {
    let path = repo.outside().join("bashrc");
    fs::write(&path, "# the user's shell start-up\n").unwrap();
    path
}

fn assert_untouched(path: &Path) {
    assert_eq!(
        fs::read_to_string(path).unwrap(),
        "# the user's shell start-up\n",
        "{} was written through a link",
        path.display()
    );
}

#[test]
fn committed_daemon_file_links_are_not_written_through() {
    let env = summarize_env();
    let repo = changed_repo();
    let target = victim(&repo);
    let daemon = repo.root().join(".stanley/daemon");
    fs::create_dir_all(&daemon).unwrap();
    symlink(&target, daemon.join("stanleyd.log")).unwrap();
    symlink(&target, daemon.join("daemon.json")).unwrap();
    // The log is not opened through the link (the daemon serves without it and says so on its
    // stderr); daemon.json is replaced by a file of its own.
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_untouched(&target);
    let info = fs::symlink_metadata(daemon.join("daemon.json")).unwrap();
    assert!(
        info.is_file(),
        "daemon.json is now a file of the daemon's own"
    );
    let err = fs::read_to_string(daemon.join("stanleyd.err")).unwrap();
    assert!(err.contains("stanleyd.log is a symbolic link"), "{err}");
    assert_eq!(env.stanleyctl(&repo, &["daemon", "stop"]).code, 0);

    // The client's own output files: refused with one line before any daemon starts.
    fs::remove_file(daemon.join("stanleyd.out")).unwrap();
    symlink(&target, daemon.join("stanleyd.out")).unwrap();
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 65, "{out:?}");
    assert_eq!(out.stderr.lines().count(), 1, "{out:?}");
    assert!(
        out.stderr.contains("stanleyd.out is a symbolic link"),
        "{out:?}"
    );
    assert_untouched(&target);
}

#[test]
fn a_symlinked_state_folder_is_refused_with_one_line() {
    let env = summarize_env();
    let repo = changed_repo();
    let elsewhere = repo.outside().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    symlink(&elsewhere, repo.root().join(".stanley")).unwrap();
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 65, "{out:?}");
    assert_eq!(out.stderr.lines().count(), 1, "{out:?}");
    assert!(
        out.stderr.contains(".stanley is a symbolic link"),
        "{out:?}"
    );
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);

    fs::remove_file(repo.root().join(".stanley")).unwrap();
    fs::write(repo.root().join(".stanley"), "not a folder").unwrap();
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 65, "{out:?}");
    assert!(out.stderr.contains(".stanley is not a folder"), "{out:?}");
}

#[test]
fn linked_record_and_state_folders_are_not_written_through() {
    let env = summarize_env();
    let repo = changed_repo();
    let elsewhere = repo.outside().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    fs::create_dir_all(repo.root().join(".stanley")).unwrap();
    symlink(&elsewhere, repo.root().join(".stanley/runs")).unwrap();
    symlink(&elsewhere, repo.root().join(".stanley/state")).unwrap();
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 65, "{out:?}");
    assert!(
        out.stderr.contains(".stanley/runs is a symbolic link"),
        "{out:?}"
    );
    assert_eq!(
        fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing was written through the links"
    );
    // Without records the request is served; the queue stays closed and says why in the log.
    let out = env.stanley(&repo, &["Summarize what changed", "--no-persist"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
}

/// Every Jev key name, set to a recognisable value in the caller's environment.
const KEY_VARS: [(&str, &str); 3] = [
    (
        "COPILOT_MCP_TYPESAFE_API_KEY",
        "sk-copilot-mcp-key-0123456789",
    ),
    ("JEV_API_KEY", "sk-jev-api-key-0123456789"),
    ("TYPESAFE_DEFAULT_MODEL", "jev-1.13.0"),
];

/// Top-level code that records its environment in `$MARKS/<name>.json`.
fn env_dump(name: &str) -> String {
    format!(
        "import {{ writeFileSync }} from \"node:fs\";\nwriteFileSync(process.env.MARKS + \"/{name}.json\", JSON.stringify(process.env));\n"
    )
}

fn assert_no_jev_key(marks: &Path, file: &str) {
    let path = marks.join(file);
    let text = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{} was not written: {e}", path.display()));
    let names: Vec<String> = if file.ends_with(".json") {
        serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&text)
            .unwrap()
            .keys()
            .cloned()
            .collect()
    } else {
        text.lines()
            .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_owned()))
            .collect()
    };
    assert!(names.iter().any(|n| n == "KEEP_ME"), "{file}: {names:?}");
    for name in &names {
        assert!(
            !name.starts_with("TYPESAFE_") && !KEY_VARS.iter().any(|(k, _)| k == name),
            "{file} received {name}"
        );
    }
    assert!(!text.contains(stanley_tests::testenv::TEST_KEY), "{file}");
    for (_, value) in &KEY_VARS[..2] {
        assert!(!text.contains(value), "{file}");
    }
}

#[test]
fn no_child_that_runs_repository_code_receives_a_jev_key() {
    let mut env = summarize_env();
    let marks = tempfile::tempdir().unwrap();
    env.set("MARKS", marks.path().to_str().unwrap());
    env.set("KEEP_ME", "kept");
    for (k, v) in KEY_VARS {
        env.set(k, v);
    }
    env.set(
        "STANLEY_PI_BIN",
        bin_dir().join("fake-pi").to_str().unwrap(),
    );
    env.set("FAKE_PI_MODE", "finished");
    env.set("STANLEY_AUTO_IMPROVE", "off");
    let candidate = marks.path().join("candidate.ts");
    fs::write(
        &candidate,
        format!(
            "{}{}",
            env_dump("validation-host"),
            stanley_tests::TODO_WORKFLOW
        ),
    )
    .unwrap();
    env.set("FAKE_PI_CANDIDATE", candidate.to_str().unwrap());
    env.jev.route_if_present("todo", "todo_audit", 0.9);
    let repo = changed_repo();
    repo.write(
        ".stanley/workflows/envdump.ts",
        &format!(
            "{}export default async () => ({{ id: \"envdump\", instructions: \"Use to dump.\", examples: [\"Dump\"], run: async () => ({{ text: \"x\" }}) }});\n",
            env_dump("workflow-host")
        ),
    );
    repo.write(
        ".stanley/flow.json",
        r#"{"goal": "g", "mode": "enforce",
            "phases": [{"id": "one", "name": "One", "done_when": "done",
                        "check": "env > \"$MARKS/check.env\""}],
            "notify": {"command": "env > \"$MARKS/notify.env\"", "on": ["goal_complete", "ask_human", "budget"]}}"#,
    );

    // The workflow host.
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_no_jev_key(marks.path(), "workflow-host.json");

    // A flow check and the notify command, through the Stop hook.
    let mut cmd = env.command("stanleyctl", repo.root());
    cmd.args(["hook", "stop"]);
    let input = serde_json::json!({"session_id": "s", "transcript_path": "", "cwd": repo.root(),
                                   "hook_event_name": "Stop", "stop_hook_active": false});
    let out = run(cmd, Some(input.to_string().as_bytes()));
    assert_eq!(out.code, 0, "{out:?}");
    assert_no_jev_key(marks.path(), "check.env");
    assert_no_jev_key(marks.path(), "notify.env");

    // The validation host, which loads a drafted candidate.
    let out = env.stanley(&repo, &["Audit the TODO comments"]);
    assert_eq!(out.code, 0, "{out:?}");
    let out = env.stanley(&repo, &["--improve-worker"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_no_jev_key(marks.path(), "validation-host.json");
}

#[test]
fn a_linked_queue_folder_is_an_input_error_with_one_line() {
    let env = summarize_env();
    let repo = changed_repo();
    let elsewhere = repo.outside().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    fs::create_dir_all(repo.root().join(".stanley")).unwrap();
    symlink(&elsewhere, repo.root().join(".stanley/state")).unwrap();
    let out = env.stanleyctl(&repo, &["queue", "list"]);
    assert_eq!(out.code, 65, "{out:?}");
    assert_eq!(out.stderr.lines().count(), 1, "{out:?}");
    assert!(
        out.stderr.contains(".stanley/state is a symbolic link"),
        "{out:?}"
    );
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
}

/// A repository that commits a queue with a pending job (force-added past `.gitignore`) must
/// not get Pi to run it: a clone's `.stanley/state/` is the repository's, not Stanley's.
#[test]
fn a_committed_queue_is_refused_and_its_jobs_never_run() {
    committed_queue_never_runs(Clone::Plain);
}

/// The same under `umask 077`, which gives the clone's folder and job log the modes Stanley
/// itself uses (0700, 0600): Git tracking them is what refuses them.
#[test]
fn a_committed_queue_cloned_under_umask_077_is_refused_and_its_jobs_never_run() {
    committed_queue_never_runs(Clone::Umask077);
}

/// And once nothing tracks them (a copy made without Git: an archive, `git rm --cached`),
/// modes and tracking both pass: only the seal with the user's key tells, and every job is
/// dropped with a line saying so.
#[test]
fn a_planted_queue_nothing_tracks_is_dropped_because_it_is_not_sealed_with_your_key() {
    committed_queue_never_runs(Clone::Untracked);
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Clone {
    Plain,
    Umask077,
    Untracked,
}

fn committed_queue_never_runs(how: Clone) {
    let mut env = TestEnv::new();
    let scratch = tempfile::tempdir().unwrap();
    env.set(
        "STANLEY_PI_BIN",
        bin_dir().join("fake-pi").to_str().unwrap(),
    );
    env.set("FAKE_PI_MODE", "finished");
    env.set(
        "FAKE_PI_RECORD",
        scratch.path().join("record.json").to_str().unwrap(),
    );
    // The attacker's repository: a real queue with a pending job, made by Stanley under the
    // attacker's own home (so its own key), committed.
    let mut attacker = TestEnv::new();
    attacker.stand_in_pi("finished");
    let origin = changed_repo();
    let planted = attacker.stanley(&origin, &["Publish the release notes to the team wiki"]);
    assert_eq!(planted.code, 0, "{planted:?}");
    attacker.stop_daemon(&origin);
    origin.git(&["add", "-f", ".stanley/state", ".stanley/queue.ndjson"]);
    origin.commit("bring a queue along");
    let _ = fs::remove_file(scratch.path().join("record.json"));

    // The victim clones it and asks for something else; the background worker would run
    // pending jobs with the agent.
    let clone = TempRepo::empty();
    fs::remove_dir_all(clone.root()).unwrap();
    let umask = if how == Clone::Plain { "022" } else { "077" };
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask} && git clone -q \"$0\" \"$1\""))
        .arg(origin.root())
        .arg(clone.root())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap();
    assert!(status.success());
    assert!(
        clone.root().join(".stanley/state").is_dir(),
        "the clone has the queue"
    );
    if how != Clone::Plain {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &str| {
            fs::metadata(clone.root().join(p))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(
            (mode(".stanley/state"), mode(".stanley/queue.ndjson")),
            (0o700, 0o600)
        );
    }
    if how == Clone::Untracked {
        clone.git(&[
            "rm",
            "-rq",
            "--cached",
            ".stanley/state",
            ".stanley/queue.ndjson",
        ]);
        clone.git(&["commit", "-qm", "untrack"]);
    }
    env.jev.route("summar", "summarize", 0.9);
    clone.write("README.md", "# Demo\n\nA change to summarize.\n");
    let out = env.stanley(&clone, &["Summarize what changed"]);
    assert!(matches!(out.code, 0 | 10), "{out:?}");
    let list = env.stanleyctl(&clone, &["queue", "list", "--json"]);
    if how == Clone::Untracked {
        // Modes and tracking pass; the planted jobs do not open under the user's key.
        assert_eq!(list.code, 0, "{list:?}");
        assert!(
            !list.stdout.contains("Publish the release notes"),
            "{list:?}"
        );
        assert!(
            out.stderr.contains("not sealed with your key")
                || list.stderr.contains("not sealed with your key"),
            "the dropped jobs are said: {out:?} {list:?}"
        );
    } else {
        assert_eq!(list.code, 65, "{list:?}");
        assert_eq!(list.stderr.lines().count(), 1, "{list:?}");
        assert!(list.stderr.contains("was not made by Stanley"), "{list:?}");
        if how == Clone::Umask077 {
            assert!(list.stderr.contains("is tracked by Git"), "{list:?}");
        }
    }
    // Give a background worker every chance, then check the agent never ran.
    let work = env.stanley(&clone, &["--improve-worker"]);
    if how != Clone::Untracked {
        assert_ne!(work.code, 0, "{work:?}");
    }
    assert!(
        !scratch.path().join("record.json").exists(),
        "the agent ran a job the repository brought"
    );
}

#[test]
fn a_bad_environment_is_refused_before_any_daemon_starts() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;
    let env = summarize_env();
    let repo = changed_repo();
    for name in ["TYPESAFE_API_KEY", "STANLEY_RUNTIME_DIR"] {
        let mut cmd = env.command("stanley", repo.root());
        cmd.arg("Summarize what changed")
            .env(name, OsString::from_vec(b"/tmp/d\xffx".to_vec()));
        let out = run(cmd, None);
        assert_eq!(out.code, 65, "{name}: {out:?}");
        assert!(out.stderr.contains(name), "{out:?}");
    }
    assert!(repo.daemon_pid().is_none(), "no daemon was started");
}

#[test]
fn nothing_is_written_into_a_repository_another_user_owns() {
    if !second_user_available("nothing_is_written_into_a_repository_another_user_owns") {
        return;
    }
    let env = summarize_env();
    let repo = changed_repo();
    // The other user's repository, with `.stanley/daemon/` made open to everyone in advance.
    let daemon = repo.root().join(".stanley/daemon");
    fs::create_dir_all(&daemon).unwrap();
    for path in [repo.root(), &repo.root().join(".stanley"), &daemon] {
        chown(path, Some(OTHER_UID), Some(OTHER_UID)).unwrap();
        fs::set_permissions(path, fs::Permissions::from_mode(0o777)).unwrap();
    }
    let elsewhere = tempfile::tempdir().unwrap();
    let mut cmd = env.command("stanley", elsewhere.path());
    cmd.arg("--repo")
        .arg(repo.root())
        .arg("Summarize what changed");
    let out = run(cmd, None);
    assert_eq!(out.code, 65, "{out:?}");
    let first = out.stderr.lines().next().unwrap_or_default();
    assert!(
        first.contains(&repo.root().display().to_string())
            && first.contains(&format!("is owned by uid {OTHER_UID}"))
            && first.contains("Stanley works only in repositories you own"),
        "{out:?}"
    );
    assert_eq!(
        fs::read_dir(&daemon).unwrap().count(),
        0,
        "the client wrote into the other user's .stanley/daemon/"
    );
    assert!(repo.daemon_pid().is_none(), "no daemon was started");
}
