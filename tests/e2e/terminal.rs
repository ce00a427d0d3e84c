//! `stanley` in a real terminal (issue 34, D-128): run in a tmux pseudo-terminal, the report's
//! headline is bold and a warning's severity coloured, and the progress line is drawn on the
//! terminal and cleared before the report; piped, neither colour nor the progress line is
//! written; with `NO_COLOR` the terminal gets the progress line and no colour; with
//! `CLICOLOR_FORCE` a pipe gets colour. tmux runs on its own socket in a temp folder and is
//! killed by this test alone; what the pane receives is recorded with `pipe-pane`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use stanley_tests::fake_jev::{ChoiceRule, choice_answer, labels_of, score_answer};
use stanley_tests::testenv::wait_until;
use stanley_tests::{TempRepo, TestEnv};

/// A select graphic rendition sequence: colour, bold, reset.
fn sgr() -> regex::Regex {
    regex::Regex::new(r"\x1b\[[0-9;]*m").unwrap()
}

/// A review whose Jev flags every hunk as a correctness risk: a report with warnings.
fn flagging_env() -> TestEnv {
    let env = TestEnv::new();
    env.jev.route("correctness", "review", 0.9);
    let labels = labels_of(stanley_workflows::analysis::modes::REVIEW.labels);
    let rule = ChoiceRule {
        label: "correctness_risk".into(),
        mass: 0.85,
        confidence: 0.85,
    };
    env.jev
        .answer("classification", choice_answer(&labels, &rule));
    env.jev.answer("importance", score_answer(4, 3, 0.9));
    env.jev.answer(
        "evidence_sufficient",
        serde_json::json!({"type": "noul", "noul": 0.9}),
    );
    env
}

/// A tmux server of our own, on a socket in a temp folder: a new server for each run, since a
/// server whose last session was killed is still exiting when the next `new-session` reaches
/// its socket ("server exited unexpectedly").
struct Tmux {
    dir: tempfile::TempDir,
    columns: u16,
    runs: std::cell::Cell<u32>,
}

impl Tmux {
    fn new() -> Self {
        Self::wide(120)
    }

    /// A terminal `columns` wide.
    fn wide(columns: u16) -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            columns,
            runs: std::cell::Cell::new(0),
        }
    }

    fn socket(&self) -> PathBuf {
        self.dir
            .path()
            .join(format!("tmux-{}.sock", self.runs.get()))
    }

    fn tmux(&self, args: &[&str]) {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(self.socket())
            .args(["-f", "/dev/null"])
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .expect("run tmux");
        assert!(out.status.success(), "tmux {args:?}: {out:?}");
    }

    /// Runs `stanley` with `args` in `repo` in a terminal of its width and 40 lines, with the test environment
    /// plus `extra`; gives back every byte the terminal received.
    fn run(&self, env: &TestEnv, repo: &TempRepo, args: &[&str], extra: &[(&str, &str)]) -> String {
        self.run_with(env, repo, args, extra, |_, _| {})
    }

    /// As [`Tmux::run`], calling `during` with the terminal and what it received so far once
    /// the command started.
    fn run_with(
        &self,
        env: &TestEnv,
        repo: &TempRepo,
        args: &[&str],
        extra: &[(&str, &str)],
        during: impl Fn(&Self, &dyn Fn() -> String),
    ) -> String {
        let cmd = env.command("stanley", repo.root());
        let mut vars: Vec<String> = cmd
            .get_envs()
            .filter_map(|(k, v)| Some(format!("{}={}", k.to_str()?, v?.to_str()?)))
            .collect();
        vars.push("TERM=xterm-256color".into());
        vars.extend(extra.iter().map(|(k, v)| format!("{k}={v}")));
        let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
        let dir = self.dir.path();
        let (go, done, raw) = (dir.join("go"), dir.join("done"), dir.join("raw.log"));
        let _ = std::fs::remove_file(&go);
        let _ = std::fs::remove_file(&done);
        let _ = std::fs::remove_file(&raw);
        // The command waits until the pane's output is being recorded.
        let script = format!(
            "trap true INT\nwhile [ ! -e {go} ]; do sleep 0.02; done\ncd {root}\nenv -i {vars} {program} {args}\necho \"stanley-exit:$?\"\ntouch {done}\nexec sleep 600\n",
            go = quote(&go.display().to_string()),
            root = quote(&repo.root().display().to_string()),
            vars = vars.iter().map(|v| quote(v)).collect::<Vec<_>>().join(" "),
            program = quote(&cmd.get_program().to_string_lossy()),
            args = args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" "),
            done = quote(&done.display().to_string()),
        );
        let file = dir.join("run.sh");
        std::fs::write(&file, script).unwrap();
        self.kill_server();
        self.runs.set(self.runs.get() + 1);
        self.tmux(&[
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &self.columns.to_string(),
            "-y",
            "40",
            &format!("sh {}", quote(&file.display().to_string())),
        ]);
        self.tmux(&[
            "pipe-pane",
            "-t",
            "t",
            "-o",
            &format!("cat > {}", quote(&raw.display().to_string())),
        ]);
        std::fs::write(&go, "").unwrap();
        let read =
            |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
        during(self, &|| read(&raw));
        assert!(
            wait_until(Duration::from_secs(60), || done.exists()
                && read(&raw).contains("stanley-exit:")),
            "stanley did not finish in the terminal: {}",
            read(&raw)
        );
        read(&raw)
    }
}

impl Tmux {
    /// Ends this run's server, if one was started.
    fn kill_server(&self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(self.socket())
            .arg("kill-server")
            .env_clear()
            .output();
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.kill_server();
    }
}

#[test]
fn a_terminal_gets_colour_and_the_progress_line_and_a_pipe_gets_neither() {
    let env = flagging_env();
    let repo = crate::summarize::changed_repo();
    let tmux = Tmux::new();
    let request = ["Review these changes for correctness bugs"];

    let raw = tmux.run(&env, &repo, &request, &[]);
    assert!(raw.contains("stanley-exit:0"), "{raw:?}");
    // The headline in bold, a warning's severity in bold yellow.
    assert!(
        raw.contains("\x1b[1mcorrectness review of the worktree changes: 2 findings"),
        "{raw:?}"
    );
    assert!(raw.contains("\x1b[1m\x1b[33mwarn\x1b[0m"), "{raw:?}");
    // The progress line was drawn, then cleared before the report.
    let progress = raw.find("stanley: routing").expect("a progress line");
    let report = raw.find("correctness review of").unwrap();
    assert!(progress < report, "{raw:?}");
    assert!(raw[progress..report].contains("\r\x1b[2K"), "{raw:?}");

    // With NO_COLOR: the progress line, and no colour.
    let raw = tmux.run(&env, &repo, &request, &[("NO_COLOR", "1")]);
    assert!(raw.contains("stanley-exit:0"), "{raw:?}");
    assert!(raw.contains("stanley: routing"), "{raw:?}");
    assert!(!sgr().is_match(&raw), "colour despite NO_COLOR: {raw:?}");
    assert!(raw.contains("correctness review of the worktree changes: 2 findings"));

    // Piped: the report alone on stdout, no progress line, no escape sequence anywhere.
    let out = env.stanley(&repo, &request);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .starts_with("correctness review of the worktree changes: 2 findings"),
        "{out:?}"
    );
    assert!(
        !out.stdout.contains('\x1b') && !out.stderr.contains('\x1b'),
        "{out:?}"
    );
    assert!(!out.stderr.contains("stanley: routing"), "{out:?}");

    // CLICOLOR_FORCE colours a pipe; NO_COLOR still wins over it. (Another environment has
    // its own runtime folder, so its own repository.)
    let repo = crate::summarize::changed_repo();
    let mut forced = flagging_env();
    forced.set("CLICOLOR_FORCE", "1");
    let out = forced.stanley(&repo, &request);
    assert!(
        out.stdout.starts_with("\x1b[1mcorrectness review"),
        "{out:?}"
    );
    assert!(!out.stderr.contains("stanley: routing"), "{out:?}");
    forced.set("NO_COLOR", "1");
    let out = forced.stanley(&repo, &request);
    assert!(!sgr().is_match(&out.stdout), "{out:?}");
}

#[test]
fn a_narrow_terminal_gets_each_message_whole_in_lines_that_fit_it() {
    let env = crate::triage::env();
    let repo = crate::triage::rust_repo();
    let log = repo.root().join("..").join("pytest.log");
    std::fs::write(&log, crate::triage::fixture("pytest.txt")).unwrap();
    let log = log.canonicalize().unwrap().display().to_string();
    let request = ["Triage these test failures", "--input", &log];
    let piped = env.stanley(&repo, &request);
    assert_eq!(piped.code, 0, "{piped:?}");
    assert!(
        piped.stdout.lines().any(|l| l.chars().count() > 60),
        "the report has lines a 60-column terminal would break: {piped:?}"
    );

    let tmux = Tmux::wide(60);
    let raw = tmux.run(&env, &repo, &request, &[("NO_COLOR", "1")]);
    assert!(raw.contains("stanley-exit:0"), "{raw:?}");
    let start = raw.find("triage").expect("the report");
    let end = raw.find("stanley-exit:").unwrap();
    let shown = raw[start..end].replace('\r', "");
    let shown = shown
        .rsplit_once("\x1b[2K")
        .map_or(shown.as_str(), |(_, after)| after);
    let too_wide: Vec<&str> = shown.lines().filter(|l| l.chars().count() > 60).collect();
    assert!(
        too_wide.is_empty(),
        "lines wider than the terminal: {too_wide:#?}"
    );
    // The second run's footer counts answers from the cache; the report above it is the same.
    let words = |t: &str| {
        t.split_whitespace()
            .take_while(|w| *w != "jev:")
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        words(shown),
        words(&piped.stdout),
        "the terminal shows every word of the report, none cut"
    );
}

/// A repository workflow that loads.
const WORKFLOW: &str = r#"export default async function () {
  return { id: "hello", instructions: "Use to say hello.", examples: ["Say hello"],
    async run() { return { text: "hello" }; } };
}
"#;

/// A committed name a terminal would obey: OSC 52 (write the clipboard), BEL, then a carriage
/// return and erase-line that would rewrite the line it is on, and a C1 CSI.
const HOSTILE: &str = "\u{1b}]52;c;cHduZWQ=\u{7}\r\u{1b}[2Kfine\u{9b}31m";

/// What the terminal may receive of it: only visible escapes.
fn obeys_nothing_of_it(raw: &str) -> bool {
    !raw.contains("\u{1b}]")
        && !raw.contains('\u{7}')
        && !raw.contains("\r\u{1b}[2Kfine")
        && !raw.contains('\u{9b}')
}

/// Issue 45, finding 7: control bytes in committed file names are shown, never obeyed, in a
/// review's findings (in a real terminal), in the warning that the workflows changed since they
/// were trusted, and in `stanleyctl trust --status`.
#[test]
fn control_bytes_in_committed_names_are_shown_and_never_obeyed() {
    let mut env = flagging_env();
    env.untrusted();
    env.set("STANLEY_AUTO_IMPROVE", "off");
    env.set("STANLEY_AGENT", "off");
    let source = format!("src/{HOSTILE}.js");
    let repo = TempRepo::with_files(&[
        (source.as_str(), "export const one = 1;\n"),
        (".stanley/workflows/ok.ts", WORKFLOW),
    ]);
    let trusted = env.stanleyctl(&repo, &["trust"]);
    assert_eq!(trusted.code, 0, "{trusted:?}");
    repo.write(&source, "export const one = 2;\n");
    repo.write(
        &format!(".stanley/workflows/{HOSTILE}.ts"),
        &WORKFLOW.replace("hello", "other"),
    );
    let shown = r"\u001b]52;c;cHduZWQ=\u0007\r\u001b[2Kfine\u009b31m";

    // The review's finding names the file, in a real terminal.
    let tmux = Tmux::new();
    let raw = tmux.run(
        &env,
        &repo,
        &["Review these changes for correctness bugs"],
        &[],
    );
    assert!(raw.contains("stanley-exit:0"), "{raw:?}");
    assert!(obeys_nothing_of_it(&raw), "{raw:?}");
    assert!(raw.contains(&format!("src/{shown}.js")), "{raw:?}");
    assert!(raw.contains("changed since you trusted it"), "{raw:?}");
    assert!(raw.contains(&format!("{shown}.ts")), "{raw:?}");

    // Piped, stdout and stderr alike.
    let out = env.stanley(&repo, &["Review these changes for correctness bugs"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        obeys_nothing_of_it(&out.stdout) && obeys_nothing_of_it(&out.stderr),
        "{out:?}"
    );
    assert!(out.stdout.contains(&format!("src/{shown}.js")), "{out:?}");
    assert!(out.stderr.contains(&format!("{shown}.ts")), "{out:?}");

    let status = env.stanleyctl(&repo, &["trust", "--status"]);
    assert_eq!(status.code, 0, "{status:?}");
    assert!(obeys_nothing_of_it(&status.stdout), "{status:?}");
    let line = status
        .stdout
        .lines()
        .find(|l| l.starts_with(".stanley/workflows/"))
        .unwrap_or_default();
    assert!(
        line.contains(&format!("changed since trusted: {shown}.ts")),
        "{status:?}"
    );

    // The JSON document keeps the name itself.
    let doc = env
        .stanleyctl(&repo, &["trust", "--status", "--json"])
        .json();
    let changed = doc["workflows"]["changed"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        changed
            .iter()
            .any(|p| p.as_str().is_some_and(|p| p == format!("{HOSTILE}.ts"))),
        "{changed:?}"
    );
}

/// Ctrl-C during a request ends it with 130 and a line of its own: the progress line is cleared
/// first, whichever part of the client saw the signal (issue 49: the line was glued to the
/// counter), and the counter says what it counts.
#[test]
fn ctrl_c_clears_the_progress_line_before_saying_so() {
    let env = flagging_env();
    env.jev.set_latency(Duration::from_secs(2));
    let repo = TempRepo::with_hunks(12, 1);
    let tmux = Tmux::new();
    let raw = tmux.run_with(
        &env,
        &repo,
        &["Review these changes for correctness bugs"],
        &[],
        |t, seen| {
            assert!(
                wait_until(Duration::from_secs(30), || seen()
                    .contains("Jev questions answered")),
                "no progress line: {:?}",
                seen()
            );
            t.tmux(&["send-keys", "-t", "t", "C-c"]);
        },
    );
    assert!(raw.contains("stanley-exit:130"), "{raw:?}");
    let last_progress = raw.rfind("Jev questions answered").unwrap();
    let said = raw
        .rfind("stanley: interrupted")
        .expect("the interrupt is said");
    assert!(last_progress < said, "{raw:?}");
    let between = &raw[last_progress..said];
    assert!(
        between.contains("\r\x1b[2K"),
        "the progress line was not cleared: {between:?}"
    );
}
