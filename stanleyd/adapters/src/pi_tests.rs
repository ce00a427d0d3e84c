//! The event reader against Pi's real captured streams (`shared/pi-captures`, copied into
//! `tests/fixtures/pi/`), and the stderr summary.

use super::*;

#[test]
fn a_folder_others_can_add_files_to_is_found_above_the_repository() {
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("home/repo");
    std::fs::create_dir_all(&root).unwrap();
    let set = |p: &Path, mode| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    set(base.path(), 0o1777);
    // The repository's own folder does not count; its nearest shared ancestor does, sticky or
    // not.
    set(&root, 0o777);
    assert_eq!(shared_ancestor(&root).as_deref(), Some(base.path()));
    set(base.path(), 0o775);
    assert_eq!(shared_ancestor(&root).as_deref(), Some(base.path()));
    set(base.path(), 0o755);
    assert_ne!(shared_ancestor(&root).as_deref(), Some(base.path()));
    assert_eq!(shared_ancestor(Path::new("/")), None);
}

fn read(name: &str) -> StreamState {
    let path = format!(
        "{}/../../tests/fixtures/pi/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut state = StreamState::default();
    for line in text.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        state.line(line);
    }
    state
}

#[test]
fn a_finished_run_in_both_dialects() {
    for name in ["v0.73.1-ok-2tools.jsonl", "v1.6.0-ok-2tools.jsonl"] {
        let s = read(name);
        assert_eq!(s.tool_calls, 2, "{name}");
        assert_eq!(s.text.as_deref(), Some("OK"), "{name}");
        assert_eq!(s.error, None, "{name}");
    }
}

#[test]
fn model_errors_are_failures_even_with_exit_0() {
    for name in [
        "v0.73.1-model-error-401.jsonl",
        "v1.6.0-model-error-401.jsonl",
        "v0.73.1-model-error-500-retries.jsonl",
        "v1.6.0-model-error-500-retries.jsonl",
    ] {
        let s = read(name);
        let error = s.error.unwrap_or_else(|| panic!("{name}: no error"));
        assert!(
            error.contains("401") || error.contains("500"),
            "{name}: {error}"
        );
    }
    let retried = read("v1.6.0-retry-then-ok.jsonl");
    assert_eq!((retried.error, retried.text.as_deref()), (None, Some("OK")));
}

#[test]
fn garbage_and_truncated_streams() {
    let mut s = StreamState::default();
    for line in [
        "{\"type\":\"session\"}",
        "not json",
        "[1,2]",
        "{\"type\":\"tool_execution_start\"}",
        "{\"type\":\"tool_execution_start\"}",
        "{\"type\":\"message_end\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"done: \"},{\"type\":\"thinking\",\"thinking\":\"x\"},{\"type\":\"text\",\"text\":\"all good\"}],\"stopReason\":\"stop\"}}",
        "{\"type\":\"agent_end\"}",
    ] {
        s.line(line.as_bytes());
    }
    assert_eq!(
        (s.events, s.tool_calls, s.text.as_deref()),
        (5, 2, Some("done: \nall good"))
    );
    let cut = read("v0.73.1-sigterm-midstream.jsonl");
    assert!(cut.events > 0);
}

#[test]
fn stderr_summary_skips_warnings_and_indented_lines() {
    assert_eq!(
        stderr_summary("Warning: x\n  at y\nfatal: nope\n").as_deref(),
        Some("fatal: nope")
    );
    assert_eq!(
        stderr_summary("  only indented\n").as_deref(),
        Some("only indented")
    );
    assert_eq!(stderr_summary("\n\n"), None);
}

#[test]
fn the_version_probe_is_redone_when_the_binary_changes_in_place() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("pi");
    let install = |version: &str| {
        // A new file at the same path, as npm writes one (a new inode).
        let tmp = dir.path().join("pi.new");
        std::fs::write(&tmp, format!("#!/bin/sh\necho {version}\n")).unwrap();
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::rename(&tmp, &bin).unwrap();
    };
    let env: HashMap<String, String> = [("PATH".to_owned(), "/usr/bin:/bin".to_owned())].into();
    install("1.6.0");
    assert!(
        pi_line(&bin, &env) == PiLine::Current,
        "the 1.x line takes --no-approve"
    );
    install("0.73.1");
    assert!(
        pi_line(&bin, &env) == PiLine::Legacy,
        "a 0.73 binary at the same path is probed again"
    );
}

#[test]
fn untrusted_agent_configuration_is_never_loaded_on_either_line() {
    let untrusted =
        ProjectConfig::Untrusted(vec![".pi/extensions/helper.ts".into(), "AGENTS.md".into()]);
    let current = launch_flags(PiLine::Current, &untrusted).unwrap();
    assert_eq!(current.flags, ["--no-approve", "--no-context-files"]);
    assert!(
        current.notes[0].contains("(.pi/, AGENTS.md)"),
        "{:?}",
        current.notes
    );
    let legacy = launch_flags(PiLine::Legacy, &untrusted).unwrap();
    assert_eq!(
        legacy.flags,
        [
            "--no-extensions",
            "--no-skills",
            "--no-prompt-templates",
            "--no-themes",
            "--no-context-files"
        ]
    );
    // Only skills: the context files stay on.
    let skills = ProjectConfig::Untrusted(vec![".agents/skills/s/SKILL.md".into()]);
    assert_eq!(
        launch_flags(PiLine::Current, &skills).unwrap().flags,
        ["--no-approve"]
    );
    // 0.73 reads `.pi/settings.json` whatever it is told: not started at all.
    for file in LEGACY_UNFLAGGED {
        let why =
            launch_flags(PiLine::Legacy, &ProjectConfig::Untrusted(vec![file.into()])).unwrap_err();
        assert!(
            why.contains(file) && why.contains("stanleyctl trust"),
            "{why}"
        );
        assert!(
            launch_flags(
                PiLine::Current,
                &ProjectConfig::Untrusted(vec![file.into()])
            )
            .is_ok()
        );
    }
    // Trusted content loads as Pi would load it; nothing there asks Pi to load nothing.
    assert_eq!(
        launch_flags(PiLine::Current, &ProjectConfig::Trusted)
            .unwrap()
            .flags,
        ["--approve"]
    );
    assert_eq!(
        launch_flags(PiLine::Current, &ProjectConfig::Absent)
            .unwrap()
            .flags,
        ["--no-approve"]
    );
    assert!(
        launch_flags(PiLine::Legacy, &ProjectConfig::Trusted)
            .unwrap()
            .flags
            .is_empty()
    );
}
