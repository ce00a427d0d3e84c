//! The fixed command line: help, version, usage errors and input checks that need no Jev.

use stanley_tests::{Normalizer, TempRepo, TestEnv};

fn repo() -> TempRepo {
    TempRepo::with_files(&[(
        "src/a.js",
        "export function add(a, b) {\n  return a + b;\n}\n",
    )])
}

#[test]
fn help_lists_the_documented_options_in_order() {
    let env = TestEnv::new();
    let repo = repo();
    let out = env.stanley(&repo, &["--help"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("Jev routes the request"));
    for absent in ["Commands:", "<command>", "--as", "--kind", "--offline"] {
        assert!(!out.stdout.contains(absent), "help mentions {absent}");
    }
    let flags: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with(char::is_whitespace))
        .filter_map(|l| l.trim_start().split([' ', ',']).next())
        .filter(|w| w.starts_with("--") || *w == "-h" || *w == "-v")
        .map(|w| match w {
            "-h" => "--help",
            "-v" => "--version",
            other => other,
        })
        .collect();
    assert_eq!(
        flags,
        [
            "--input",
            "--scope",
            "--base",
            "--repo",
            "--json",
            "--verbose",
            "--no-persist",
            "--no-agent",
            "--help",
            "--version",
            "--improve-worker",
            "--promote-candidate"
        ]
    );
    assert_eq!(env.stanley(&repo, &["help"]).code, 0);
    insta::assert_snapshot!("help", out.seen(&env, &repo));
}

#[test]
fn empty_command_line_prints_help_and_exits_64() {
    let env = TestEnv::new();
    let out = env.stanley(&repo(), &[]);
    assert_eq!(out.code, 64);
    assert!(out.stdout.contains("Usage: stanley"));
}

/// `stanley --version` is the release and the commit it was built from, a commit of this
/// repository (issue 34); `stanleyctl --version` says the same.
#[test]
fn version_is_semver_and_names_the_commit() {
    let env = TestEnv::new();
    let out = env.stanley(&repo(), &["--version"]);
    assert_eq!(out.code, 0);
    let v = out.stdout.strip_suffix('\n').unwrap();
    let shape =
        regex::Regex::new(r"^(\d+\.\d+\.\d+) \(([0-9a-f]{12}) \d{4}-\d{2}-\d{2}\)$").unwrap();
    let parts = shape.captures(v).unwrap_or_else(|| panic!("{v:?}"));
    assert_eq!(&parts[1], stanley_proto::VERSION);
    let known = std::process::Command::new("git")
        .args(["cat-file", "-e", &format!("{}^{{commit}}", &parts[2])])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(known.success(), "{v:?} names no commit of this repository");
    let ctl = env.stanleyctl(&repo(), &["--version"]);
    assert_eq!(ctl.stdout, format!("stanleyctl {v}\n"));
}

/// Shell completions for bash, zsh and fish and the man pages come from the same command
/// lines that parse, for `stanley` and `stanleyctl`, with no repository or daemon (issue 34).
#[test]
fn completions_and_man_pages_need_no_repository() {
    let env = TestEnv::new();
    let outside = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let mut cmd = env.command("stanleyctl", outside.path());
        cmd.args(args);
        let out = stanley_tests::testenv::run(cmd, None);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        out.stdout
    };
    let bash = run(&["completions", "bash", "stanley"]);
    assert!(
        bash.contains("complete -F _stanley ") && bash.contains("--verbose"),
        "{bash}"
    );
    let bash = run(&["completions", "bash"]);
    assert!(
        bash.contains("_stanleyctl") && bash.contains("completions"),
        "{bash}"
    );
    let zsh = run(&["completions", "zsh", "stanley"]);
    assert!(
        zsh.starts_with("#compdef stanley\n") && zsh.contains("worktree"),
        "{zsh}"
    );
    let fish = run(&["completions", "fish"]);
    assert!(
        fish.contains("complete -c stanleyctl") && fish.contains("runs"),
        "{fish}"
    );
    let man = run(&["man", "stanley"]);
    assert!(
        man.contains(".TH stanley 1")
            && man.contains("\\-\\-verbose")
            && man.contains("Exit codes"),
        "{man}"
    );
    let man = run(&["man"]);
    assert!(
        man.contains(".TH stanleyctl 1") && man.contains("doctor"),
        "{man}"
    );
}

/// Each command line and what it shows, one after another (an argument longer than 40 bytes
/// is written as its length), for a snapshot of a family of inputs.
fn transcript(env: &TestEnv, repo: &TempRepo, cases: &[&[&str]]) -> String {
    let words = Normalizer::new(env, repo);
    cases
        .iter()
        .map(|args| {
            let line: Vec<String> = args
                .iter()
                .map(|a| match a.len() {
                    0..=40 => words.text(&format!("{a:?}")),
                    n => format!("<{n} bytes>"),
                })
                .collect();
            let seen = words.seen(&env.stanley(repo, args));
            format!("$ stanley {}\n{seen}", line.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Flags the command line no longer has (or never had) are usage errors with the usage line,
/// before a daemon starts or Jev is asked.
#[test]
fn removed_flags_fail_before_anything_is_routed() {
    let env = TestEnv::new();
    let repo = repo();
    let cases: Vec<[&str; 3]> = [
        "--bogus",
        "--task",
        "--rules",
        "--max-hunks",
        "--model",
        "--no-diff",
        "--as",
        "--kind",
        "--offline",
        "--top",
    ]
    .map(|flag| ["Summarize what changed", flag, "x"])
    .to_vec();
    let cases: Vec<&[&str]> = cases.iter().map(|c| c.as_slice()).collect();
    insta::assert_snapshot!("removed_flags", transcript(&env, &repo, &cases));
    assert!(env.jev.requests().is_empty());
    assert!(
        !repo.root().join(".stanley/daemon/daemon.json").exists(),
        "no daemon was started"
    );
}

/// Every input the command line refuses by itself: one line naming the problem and the
/// documented exit (64 usage, 65 input), as text and as the error document.
#[test]
fn bad_inputs_are_one_line_and_their_exit() {
    let env = TestEnv::new();
    let repo = repo();
    let long = "x".repeat(16_385);
    let outside = repo.outside().to_str().unwrap();
    let cases: [&[&str]; 8] = [
        &["--json", "--scope", "index", "Summarize"],
        &["--scope", "index", "Summarize"],
        &["   "],
        &[&long],
        &["Summarize", "--repo", outside],
        &["--improve-worker"],
        &["do it", "--promote-candidate", "imp_x"],
        &["Summarize", "--input"],
    ];
    insta::assert_snapshot!("bad_inputs", transcript(&env, &repo, &cases));
    assert!(env.jev.requests().is_empty());
}

#[test]
fn oversize_stdin_is_reduced_not_refused() {
    let env = TestEnv::new();
    env.jev.route("triage", "triage_failures", 0.9);
    // One 6 MiB line: nothing of it fits, and the result says so.
    let big = vec![b'a'; 6 * 1024 * 1024];
    let out = env.stanley_with_stdin(
        &repo(),
        &["Triage these failures", "--input", "-", "--json"],
        Some(&big),
    );
    assert!(!out.stderr.contains("exceeds"), "{}", out.stderr);
    // Nothing of it was kept: the triage asked for runs on what is left (issue 46: a triage
    // request with input is never refused), finds no failure, and says why, exit 10.
    assert_eq!(out.code, 10, "{out:?}");
    let doc = out.json();
    let text = doc["output"]["text"].as_str().unwrap();
    assert!(
        text.contains("input lines 1-1 (1 lines) were left out to fit the 5242880-byte input limit; failures in them"),
        "{text}"
    );
}

#[test]
fn non_utf8_arguments_and_environment_never_panic() {
    use stanley_tests::testenv::run;
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;
    let bad = || OsString::from_vec(vec![b'S', b'u', b'm', 0xff, b'!']);
    let env = TestEnv::new();
    env.jev.route("summar", "summarize", 0.9);
    let repo = crate::summarize::changed_repo();

    let mut cmd = env.command("stanley", repo.root());
    cmd.arg(bad());
    let out = run(cmd, None);
    assert_eq!(out.code, 64, "{out:?}");
    assert!(
        out.stderr
            .starts_with("stanley: usage error: argument 1 is not valid UTF-8: Sum\u{fffd}!"),
        "{out:?}"
    );
    let mut cmd = env.command("stanley", repo.root());
    cmd.args([
        OsString::from("Summarize what changed"),
        OsString::from("--input"),
        bad(),
    ]);
    assert_eq!(run(cmd, None).code, 64);

    // A variable Stanley does not read is left out; the request is served.
    let mut cmd = env.command("stanley", repo.root());
    cmd.arg("Summarize what changed").env("LS_COLORS", bad());
    let out = run(cmd, None);
    assert_eq!(out.code, 0, "{out:?}");
    // One it reads is an input error naming it.
    let mut cmd = env.command("stanley", repo.root());
    cmd.arg("Summarize what changed")
        .env("TYPESAFE_MODEL", bad());
    let out = run(cmd, None);
    assert_eq!(out.code, 65, "{out:?}");
    assert!(
        out.stderr.contains("TYPESAFE_MODEL is not valid UTF-8"),
        "{out:?}"
    );

    for bin in ["stanleyctl", "stanleyd"] {
        let mut cmd = env.command(bin, repo.root());
        cmd.arg(bad());
        let out = run(cmd, None);
        assert_eq!(out.code, 64, "{bin}: {out:?}");
        assert_eq!(out.stderr.lines().count().min(1), 1, "{bin}: {out:?}");
    }
    let mut cmd = env.command("stanleyctl", repo.root());
    cmd.args(["queue", "list"]).env("STANLEY_AGENT", bad());
    let out = run(cmd, None);
    assert_eq!(out.code, 65, "{out:?}");
}

#[test]
fn interrupts_and_lost_output_have_their_own_codes() {
    use stanley_tests::Fault;
    use stanley_tests::testenv::wait_until;
    use std::process::Stdio;
    use std::time::Duration;
    for (signal, code, word) in [
        (libc::SIGINT, 130, "interrupted"),
        (libc::SIGTERM, 143, "terminated"),
    ] {
        let env = crate::summarize::summarize_env();
        // The routing request hangs long enough to be interrupted in flight.
        env.jev.fail_next([Fault::Delay(Duration::from_secs(30))]);
        let repo = crate::summarize::changed_repo();
        let mut cmd = env.command("stanley", repo.root());
        cmd.arg("Summarize what changed")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let child = cmd.spawn().unwrap();
        assert!(
            wait_until(Duration::from_secs(20), || !env.jev.requests().is_empty()),
            "the request reached Jev"
        );
        // SAFETY: sending a signal to our own child process.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr,
            format!("stanley: {word}: the request was cancelled\n")
        );
    }

    // A full disk behind stdout: one line and 74, not a silent 0.
    let env = crate::summarize::summarize_env();
    let repo = crate::summarize::changed_repo();
    let mut cmd = env.command("stanley", repo.root());
    cmd.arg("Summarize what changed")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .stderr(Stdio::piped());
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(74), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .collect::<Vec<_>>(),
        [
            "stanley: output error: cannot write to standard output: No space left on device (os error 28)"
        ]
    );
    // A reader that went away: quiet, 141, as Unix tools end.
    let mut cmd = env.command("stanley", repo.root());
    cmd.arg("--help")
        .stdin(Stdio::null())
        .stderr(Stdio::piped());
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    cmd.stdout(writer);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(141), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    // stanleyctl too.
    let mut cmd = env.command("stanleyctl", repo.root());
    cmd.args(["daemon", "status"])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .stderr(Stdio::piped());
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(74), "{out:?}");
}

/// `scripts/install` puts its folder on PATH for the user's shell (issue 49: the README's one
/// line failed on a fresh account): once, in the shell's own file, so a new shell finds the
/// programs; told not to, it prints the exact line and exits 2.
#[test]
fn the_install_puts_its_folder_on_path_for_the_users_shell() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/put-on-path");
    let home = tempfile::tempdir().unwrap();
    let bin = home.path().join(".local/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let program = bin.join("stanley-probe");
    std::fs::write(&program, "#!/bin/sh\necho found\n").unwrap();
    std::fs::set_permissions(
        &program,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let run = |shell: &str, extra: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new("bash");
        cmd.arg(&script)
            .arg(&bin)
            .env_clear()
            .env("HOME", home.path())
            .env("SHELL", shell)
            .env("PATH", "/usr/bin:/bin");
        for (k, v) in extra {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    for _ in 0..2 {
        let out = run("/bin/bash", &[]);
        assert!(out.status.success(), "{out:?}");
    }
    let rc = std::fs::read_to_string(home.path().join(".bashrc")).unwrap();
    assert_eq!(rc.matches(".local/bin:$PATH").count(), 1, "once: {rc}");
    // A new shell that reads the file finds the program.
    let found = std::process::Command::new("bash")
        .args(["-c", ". ~/.bashrc && stanley-probe"])
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&found.stdout),
        "found\n",
        "{found:?}"
    );
    assert!(run("/usr/bin/zsh", &[]).status.success());
    assert!(home.path().join(".zshrc").exists());
    let told = run("/bin/sh", &[("STANLEY_NO_MODIFY_PATH", "1")]);
    assert_eq!(told.status.code(), Some(2), "{told:?}");
    let said = String::from_utf8_lossy(&told.stderr);
    assert!(
        said.contains(&format!("export PATH=\"{}:$PATH\"", bin.display())),
        "{said}"
    );
    assert!(
        !home.path().join(".profile").exists(),
        "nothing written when told not to"
    );
}
