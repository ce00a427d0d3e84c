//! The layering rules, checked over `cargo metadata`: `stanley-core` and `stanley-workflows`
//! depend on no I/O crate, and `stanley-cli` depends on nothing of ours but `stanley-proto`; and
//! the invariants of `docs/ARCHITECTURE.md` a scan of the sources can hold (modules form a tree,
//! exit codes, who creates files, which variables adapters name, that children start from an empty
//! environment, which built-ins are offered).

use std::process::Command;

use serde_json::Value;

mod code;

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("metadata JSON")
}

fn package<'a>(meta: &'a Value, name: &str) -> &'a Value {
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no package {name}"))
}

/// Normal (non-dev) dependencies: `(name, enabled features)`.
fn deps(pkg: &Value) -> Vec<(String, Vec<String>)> {
    pkg["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"].is_null())
        .map(|d| {
            let features = d["features"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap().to_owned())
                .collect();
            (d["name"].as_str().unwrap().to_owned(), features)
        })
        .collect()
}

const IO_CRATES: &[&str] = &[
    "tonic", "git2", "reqwest", "sled", "axum", "notify", "inotify", "hyper", "mio", "rustls",
    "libc",
];
const IO_TOKIO_FEATURES: &[&str] = &[
    "net",
    "fs",
    "process",
    "full",
    "io-std",
    "signal",
    "rt",
    "rt-multi-thread",
];

#[test]
fn core_and_workflows_do_no_io() {
    let meta = metadata();
    for name in ["stanley-core", "stanley-logs", "stanley-workflows"] {
        for (dep, features) in deps(package(&meta, name)) {
            assert!(
                !IO_CRATES.contains(&dep.as_str()),
                "{name} depends on the I/O crate {dep}"
            );
            if dep == "tokio" {
                for f in &features {
                    assert!(
                        !IO_TOKIO_FEATURES.contains(&f.as_str()),
                        "{name} enables tokio/{f}"
                    );
                    assert!(
                        ["sync", "time", "macros"].contains(&f.as_str()),
                        "{name} enables tokio/{f}: only sync, time and macros"
                    );
                }
                let default = package(&meta, name)["dependencies"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|d| d["name"] == "tokio" && d["kind"].is_null())
                    .unwrap()["uses_default_features"]
                    .as_bool()
                    .unwrap();
                assert!(!default, "{name} uses tokio's default features");
            }
        }
    }
}

/// What a pure crate's code may not name: the standard library's and Tokio's files, sockets and
/// processes (a dependency check alone would pass a `std::fs` call).
const IO_PATHS: [&str; 7] = [
    "std::fs",
    "std::net",
    "std::process",
    "std::os::unix::net",
    "tokio::fs",
    "tokio::net",
    "tokio::process",
];

/// Every place a module of the crates under `srcs` names an I/O path of the standard library
/// or Tokio, as `file:line: path`.
fn io_in(srcs: &[&std::path::Path]) -> Vec<String> {
    let mut found = Vec::new();
    for src in srcs {
        for module in code::all_modules(src) {
            for (line, path) in code::outside_paths(&module) {
                let path = path.trim_start_matches("::");
                if IO_PATHS
                    .iter()
                    .any(|io| path == *io || path.starts_with(&format!("{io}::")))
                {
                    found.push(format!(
                        "{}:{line}: {path} (in {})",
                        module.file.display(),
                        module.name()
                    ));
                }
            }
        }
    }
    found
}

/// Issue 50 (D-177): core, the log reader and the workflows name no file, socket or process
/// API in their production code; what they need of the world comes through ports.
#[test]
fn core_logs_and_workflows_name_no_io_api() {
    let srcs: Vec<std::path::PathBuf> = [
        "stanleyd/core/src",
        "stanleyd/logs/src",
        "stanleyd/workflows/src",
    ]
    .iter()
    .map(|s| workspace().join(s))
    .collect();
    let found = io_in(
        &srcs
            .iter()
            .map(std::path::PathBuf::as_path)
            .collect::<Vec<_>>(),
    );
    assert!(
        found.is_empty(),
        "I/O in a pure crate:\n{}",
        found.join("\n")
    );
    // The scan sees a call in any form: a `use` (grouped or not), a full path in code, and
    // code after a test module; it leaves the test module's own I/O alone.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lib.rs"),
        "use std::{fs, io};\n#[cfg(test)]\nmod tests { fn f() { std::net::TcpStream::connect(\"x\"); } }\nfn g() { let _ = std::process::Command::new(\"x\"); }\n",
    )
    .unwrap();
    let planted = io_in(&[dir.path()]);
    assert_eq!(planted.len(), 2, "{planted:?}");
    assert!(planted[0].contains(":1: std::fs"), "{planted:?}");
    assert!(
        planted[1].contains(":4: std::process::Command::new"),
        "{planted:?}"
    );
}

#[test]
fn layers_point_one_way() {
    let meta = metadata();
    let ours = |pkg: &str| -> Vec<String> {
        deps(package(&meta, pkg))
            .into_iter()
            .map(|(n, _)| n)
            .filter(|n| n.starts_with("stanley"))
            .collect()
    };
    assert_eq!(ours("stanley-core"), Vec::<String>::new());
    assert_eq!(ours("stanley-logs"), ["stanley-core"]);
    assert_eq!(ours("stanley-workflows"), ["stanley-core", "stanley-logs"]);
    let adapters = ours("stanley-adapters");
    assert!(
        !adapters.contains(&"stanleyd".to_owned())
            && !adapters.contains(&"stanley-proto".to_owned()),
        "{adapters:?}"
    );
    assert_eq!(ours("stanley-cli"), ["stanley-proto"]);
    assert_eq!(ours("stanley-proto"), Vec::<String>::new());
}

/// The modules that are on a cycle (the strongly connected components of more than one).
pub(crate) fn cycles(
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) -> Vec<Vec<String>> {
    use std::collections::BTreeMap;
    // Tarjan's algorithm, iterative enough for a crate's few dozen modules.
    struct Walk<'a> {
        graph: &'a BTreeMap<String, std::collections::BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            for w in &self.graph[v] {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.stack.contains(&w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    component.push(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.out.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.out
}

/// The sources of the workspace's seven crates.
const CRATES: [&str; 7] = [
    "stanleyd/core/src",
    "stanleyd/logs/src",
    "stanleyd/workflows/src",
    "stanleyd/adapters/src",
    "stanleyd/daemon/src",
    "stanley-cli/src",
    "proto/src",
];

fn workspace() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Issue 50 (D-177): at every level of every crate's module tree, folders included, the
/// modules that share a parent form a tree: no child reaches, through `crate::`, `super::` or
/// `self::` paths anywhere in its subtree, a sibling whose subtree reaches it back. The files
/// are parsed whole; only `#[cfg(test)]` items are left out.
#[test]
fn modules_inside_each_crate_form_a_tree() {
    let mut found = Vec::new();
    for src in CRATES {
        for root in code::crate_roots(&workspace().join(src)) {
            for cycle in code::sibling_cycles(&code::crate_modules(&root)) {
                found.push(format!("{}: {}", root.display(), cycle.join(" <-> ")));
            }
        }
    }
    assert!(
        found.is_empty(),
        "modules import each other:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_cycle_finder_finds_a_cycle_at_any_depth_and_passes_a_tree() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "mod a;\nmod b;\nmod c;\nmod ui;\n");
    write("a.rs", "use crate::b::X;\n");
    write("b.rs", "use crate::{c, d};\n");
    // The test module sits in the middle of the file: the code after it still counts.
    write(
        "c.rs",
        "#[cfg(test)]\nmod tests { use crate::b; }\nfn f() { crate::a::g() }\n",
    );
    // A folder whose two files reach each other, one through `super::`.
    write("ui/mod.rs", "mod pages;\nmod views;\n");
    write("ui/pages.rs", "use super::views::render;\n");
    write("ui/views.rs", "fn f() { super::pages::page() }\n");
    let cycles =
        |dir: &std::path::Path| code::sibling_cycles(&code::crate_modules(&dir.join("lib.rs")));
    assert_eq!(
        cycles(dir.path()),
        [vec!["a", "b", "c"], vec!["ui::pages", "ui::views"]]
    );
    write(
        "c.rs",
        "fn f() {}\n#[cfg(test)]\nmod tests { use crate::a; }\n#[cfg(test)]\nfn g() { crate::a::g() }\n",
    );
    write("ui/views.rs", "fn f() {}\n");
    assert!(cycles(dir.path()).is_empty());
}

/// Every line of production code (tests and `testing.rs` left out) that makes one of `calls`
/// and that `allowed` does not excuse, as `dir/file:line: text`.
fn production_calls(calls: &[&str], allowed: impl Fn(&str, &str) -> bool) -> Vec<String> {
    let mut offenders = Vec::new();
    for dir in [
        "stanleyd/daemon/src",
        "stanleyd/adapters/src",
        "stanleyd/workflows/src",
        "stanleyd/logs/src",
        "stanleyd/core/src",
        "stanley-cli/src",
        "proto/src",
    ] {
        for (file, n, line) in code_lines(dir, &["testing.rs"]) {
            if calls.iter().any(|c| line.contains(c)) && !allowed(&file, &line) {
                offenders.push(format!("{dir}/{file}:{n}: {line}"));
            }
        }
    }
    offenders
}

/// The code lines of every production Rust source under `dir` (relative to the workspace):
/// files reached from a crate root, parsed whole, each `#[cfg(test)]` item left out wherever it
/// stands (D-177), and comment lines; each with its path relative to `dir` and its line number.
/// Files whose relative path starts with one of `skip` are left out.
fn code_lines(dir: &str, skip: &[&str]) -> Vec<(String, usize, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(dir);
    let mut out: Vec<(String, usize, String)> = code::production_lines(&root)
        .into_iter()
        .filter(|(rel, _, _)| !skip.iter().any(|s| rel.starts_with(s)))
        .map(|(rel, n, line)| (rel, n, line.trim().to_owned()))
        .filter(|(_, _, line)| !line.starts_with("//"))
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no sources under {dir}");
    out
}

/// Whether `line` calls `call` with an argument that starts with a number.
fn literal_after(line: &str, call: &str) -> bool {
    line.split(call)
        .skip(1)
        .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit() || c == '-'))
}

#[test]
fn core_and_workflows_see_no_protobuf_type() {
    let meta = metadata();
    for name in ["stanley-core", "stanley-logs", "stanley-workflows"] {
        for (dep, _) in deps(package(&meta, name)) {
            assert!(
                ![
                    "prost",
                    "prost-types",
                    "tonic",
                    "tonic-build",
                    "stanley-proto"
                ]
                .contains(&dep.as_str()),
                "{name} depends on {dep}, which carries protobuf types"
            );
        }
    }
}

/// `stanley` (the library and its binary; `stanleyctl` has codes of its own) ends only with a
/// code of `stanley_proto::exit`: no number is written as an exit code or held as one.
#[test]
fn stanley_exits_only_with_codes_from_the_shared_table() {
    let mut offenders = Vec::new();
    for (file, n, line) in code_lines("stanley-cli/src", &["bin/stanleyctl"]) {
        let literal = ["ExitCode::from(", "exit(", "i32::from(", "Ok("]
            .iter()
            .any(|call| literal_after(&line, call));
        let held = [": u8 = ", ": i32 = "]
            .iter()
            .any(|decl| literal_after(&line, decl));
        let std_code = line.contains("ExitCode::SUCCESS") || line.contains("ExitCode::FAILURE");
        if literal || held || std_code {
            offenders.push(format!("stanley-cli/src/{file}:{n}: {line}"));
        }
    }
    assert!(
        offenders.is_empty(),
        "exit codes not taken from stanley_proto::exit:\n{}",
        offenders.join("\n")
    );
}

/// What creates a file or a folder (or a link) on disk.
const CREATES: &[&str] = &[
    "File::create",
    "File::options",
    "OpenOptions",
    "DirBuilder",
    "create_dir",
    "fs::write",
    "fs::copy",
    "tokio::fs::",
    "hard_link",
    "fs::symlink(",
];

/// Files and folders under `.stanley/` are created by `records.rs` only, which refuses links;
/// the other places that create anything each have their reason.
#[test]
fn files_are_created_only_by_records_or_outside_the_stanley_folder() {
    let allowed = |file: &str, call: &str| match file {
        "records.rs" => true,
        // The per-user cache key, in the user's state folder.
        "user_key.rs" => matches!(call, "DirBuilder" | "OpenOptions"),
        // The staged copy of a workflow folder, in the private runtime folder.
        "workflow_tree.rs" => matches!(call, "DirBuilder" | "OpenOptions"),
        // A damaged job log copied into the folder `records::create_private_dir` just made.
        "queue.rs" => call == "fs::copy",
        _ => false,
    };
    let mut offenders = Vec::new();
    for (dir, skip) in [
        ("stanleyd/adapters/src", &[][..]),
        // `testing.rs` is the daemon's `#[cfg(test)] mod testing`.
        ("stanleyd/daemon/src", &["testing.rs"][..]),
    ] {
        for (file, n, line) in code_lines(dir, skip) {
            let name = file.rsplit('/').next().unwrap();
            for call in CREATES {
                if line.contains(call) && !allowed(name, call) {
                    offenders.push(format!("{dir}/{file}:{n}: {line}"));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "files created outside records.rs:\n{}",
        offenders.join("\n")
    );
}

/// Adapters read no environment variable and name only those of the children they set up.
#[test]
fn adapters_name_only_the_variables_of_the_children_they_set_up() {
    let allowed = |file: &str, name: &str| match file {
        // A tool's `--version` runs with the `PATH` it was found on.
        "tools.rs" => name == "PATH",
        // The workflow host: its tsx, its temporary folder and its confinement.
        "workflow_host.rs" => matches!(
            name,
            "TSX_TSCONFIG_PATH"
                | "TSX_DISABLE_CACHE"
                | "TMPDIR"
                | "STANLEY_HOST_FOLDER"
                | "STANLEY_HOST_LABEL"
        ),
        // `env!`, at build time.
        "jev_http.rs" => name == "CARGO_PKG_VERSION",
        // The launch policy: the variables that name files a child would load by itself.
        "launch.rs" => {
            stanley_adapters::launch::SEARCH_PATH_VARS.contains(&name)
                || stanley_adapters::launch::STARTUP_FILE_VARS.contains(&name)
                || name == stanley_adapters::launch::NODE_OPTIONS
        }
        _ => false,
    };
    let single = ["PATH", "HOME", "TMPDIR", "TERM", "USER", "SHELL", "LANG"];
    let mut offenders = Vec::new();
    for (file, n, line) in code_lines("stanleyd/adapters/src", &[]) {
        if line.contains("env::var") {
            offenders.push(format!("{file}:{n}: {line}"));
        }
        for (i, literal) in line.split('"').enumerate() {
            let variable = i % 2 == 1
                && literal.starts_with(|c: char| c.is_ascii_uppercase())
                && literal
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                && (literal.contains('_') || single.contains(&literal));
            if variable && !allowed(file.rsplit('/').next().unwrap(), literal) {
                offenders.push(format!("{file}:{n}: {literal}"));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "variables named in stanleyd/adapters/src:\n{}",
        offenders.join("\n")
    );
}

/// Every list of built-ins the daemon builds (what the router is offered) holds only the
/// implemented ones.
#[test]
fn only_implemented_builtins_are_offered() {
    let mut lists = 0;
    let mut offenders = Vec::new();
    for (file, n, line) in code_lines("stanleyd/daemon/src", &["testing.rs"]) {
        if line.contains("BUILTINS.iter()") && line.contains("collect") {
            lists += 1;
            if !line.contains(".filter(|b| b.implemented)") {
                offenders.push(format!("{file}:{n}: {line}"));
            }
        }
    }
    assert!(lists > 0, "no list of built-ins found; the scan is stale");
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

/// Every process the daemon starts begins from an empty environment and gets only what it is
/// handed (`env_clear` within the lines that build the command).
#[test]
fn every_child_starts_from_an_empty_environment() {
    let mut commands = 0;
    let mut offenders = Vec::new();
    for (dir, skip) in [
        // The agent launcher replaces itself with the agent: its environment is the one the
        // daemon built for it from an empty one (`pi.rs`, checked here).
        ("stanleyd/adapters/src", &["agent_exec.rs"][..]),
        ("stanleyd/daemon/src", &["testing.rs"][..]),
    ] {
        let lines = code_lines(dir, skip);
        for (i, (file, n, line)) in lines.iter().enumerate() {
            if !line.contains("Command::new(") {
                continue;
            }
            commands += 1;
            let cleared = lines[i..]
                .iter()
                .take(12)
                .take_while(|(f, _, _)| f == file)
                .any(|(_, _, l)| l.contains(".env_clear()"));
            if !cleared {
                offenders.push(format!("{dir}/{file}:{n}: {line}"));
            }
        }
    }
    assert!(commands > 0, "no command found; the scan is stale");
    assert!(
        offenders.is_empty(),
        "children that inherit the daemon's environment:\n{}",
        offenders.join("\n")
    );
}

/// Production code has no `unsafe` block of its own: the root of every library and binary
/// outside the tests crate forbids it (the compiler then refuses any), so no root may drop it.
#[test]
fn production_code_forbids_unsafe() {
    let meta = metadata();
    let roots: Vec<String> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["name"] != "stanley-tests")
        .flat_map(|p| p["targets"].as_array().unwrap().iter())
        .filter(|t| {
            t["kind"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k == "lib" || k == "bin")
        })
        .map(|t| t["src_path"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        roots
            .iter()
            .any(|r| r.ends_with("stanleyd/daemon/src/main.rs")),
        "the daemon's root is missing: {roots:?}"
    );
    let missing: Vec<&String> = roots
        .iter()
        .filter(|file| {
            !std::fs::read_to_string(file)
                .unwrap()
                .lines()
                .any(|l| l.trim() == "#![cfg_attr(not(test), forbid(unsafe_code))]")
        })
        .collect();
    assert!(
        missing.is_empty(),
        "roots that allow unsafe code: {missing:?}"
    );
}

/// Issue 45, invariant (a): production code opens files only through the bounded readers that
/// never follow a link at the last component and never wait on a FIFO
/// (`stanley_adapters::records::{open_regular, read_bounded, read_at_most, read_tail}` in the
/// daemon, `stanley_proto::private::{open_regular, read_head, read_tail}` in the clients). A new
/// `fs::read`, `read_to_string` of a path or `File::open` anywhere else fails here; the few
/// reads of files that are not in any worktree are listed with why.
#[test]
fn files_are_read_only_through_the_bounded_readers() {
    const CALLS: [&str; 4] = [
        "fs::read(",
        "fs::read_to_string(",
        "File::open(",
        ".read(true)",
    ];
    let allowed = |file: &str, line: &str| -> bool {
        let name = file.rsplit('/').next().unwrap_or(file);
        match name {
            // The readers themselves.
            "records.rs" | "private.rs" => true,
            // The kernel's process tables, not files anyone plants.
            "memory.rs" | "pi.rs" | "agents.rs" | "daemon.rs" => {
                line.contains("/proc") || line.contains("\"stat\"") || line.contains("environ")
            }
            // The CA file named by the person's own `STANLEY_JEV_CA_FILE` (often a link into
            // `/etc/ssl`), read with a bound.
            "jev_http.rs" => line.contains("File::open(path)"),
            // The user's key, in the per-user state folder outside every worktree, opened
            // without following a link and checked to be a private file of 32 bytes.
            "user_key.rs" => line.contains(".read(true)"),
            _ => false,
        }
    };
    let offenders = production_calls(&CALLS, allowed);
    assert!(
        offenders.is_empty(),
        "files read outside the bounded readers:\n{}",
        offenders.join("\n")
    );
}

/// Issue 45: a folder of Stanley's is listed, and a file of it removed or renamed, only through
/// the records module's operations, which refuse a link on the way from `.stanley` down (a
/// committed `.stanley/flow -> ../../elsewhere` aimed renames and removals outside the
/// repository). A new `fs::read_dir`, `remove_file`, `rename` or `remove_dir_all` elsewhere fails
/// here unless it is on the list below, with its reason.
#[test]
fn folders_are_listed_and_changed_only_through_the_guarded_operations() {
    const CALLS: [&str; 4] = [
        "fs::read_dir(",
        "fs::remove_file(",
        "fs::rename(",
        "fs::remove_dir_all(",
    ];
    let allowed = |file: &str, line: &str| -> bool {
        match file.rsplit('/').next().unwrap_or(file) {
            // The operations themselves.
            "records.rs" => true,
            // The kernel's process table.
            "pi.rs" | "agents.rs" => line.contains("\"/proc\""),
            // The walk that checks every entry with lstat and refuses links, and its own
            // staging folder outside every worktree.
            "workflow_tree.rs" => true,
            // The per-user runtime folder (checked 0700 and owned before use) and its socket.
            "discovery.rs" | "server.rs" | "ui.rs" => true,
            // A probe file doctor just created in the state folder.
            "doctor.rs" => line.contains("&probe"),
            _ => false,
        }
    };
    let offenders = production_calls(&CALLS, allowed);
    assert!(
        offenders.is_empty(),
        "folders listed or changed outside the guarded operations:\n{}",
        offenders.join("\n")
    );
}

/// Issues 46 and 50: no function of production code is longer than 150 lines (from its first
/// line, its visibility or `fn`, to its closing brace, as parsed); a longer one is split into
/// named phases. Functions inside `#[cfg(test)]` items are not production code.
#[test]
fn production_functions_are_at_most_150_lines() {
    let mut long = Vec::new();
    for src in CRATES {
        for module in code::all_modules(&workspace().join(src)) {
            let file = module.file.to_string_lossy().into_owned();
            if file.ends_with("testing.rs") {
                continue;
            }
            for (name, line, length) in code::functions(&module) {
                if length > MAX_FUNCTION_LINES {
                    long.push(format!("{src}: {file}:{line}: {length} lines: fn {name}"));
                }
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// The most lines a production function may have.
const MAX_FUNCTION_LINES: usize = 150;

/// The length check counts what it should: a function's own lines, whatever its attributes,
/// and a long function under `#[cfg(test)]` is not production code.
#[test]
fn the_length_check_counts_a_function_from_its_first_line_to_its_brace() {
    let dir = tempfile::tempdir().unwrap();
    let body = "    let x = 1;\n".repeat(149);
    let text = format!(
        "/// Docs.\n#[inline]\npub fn long() {{\n{body}}}\nfn short() {{}}\nimpl S {{\n    pub(crate) fn m(&self) {{\n{body}    }}\n}}\n#[cfg(test)]\nfn test_only() {{\n{body}{body}}}\n"
    );
    std::fs::write(dir.path().join("lib.rs"), text).unwrap();
    let modules = code::crate_modules(&dir.path().join("lib.rs"));
    let fns = code::functions(&modules[0]);
    let lengths: Vec<(&str, usize)> = fns.iter().map(|(n, _, l)| (n.as_str(), *l)).collect();
    assert_eq!(lengths, [("long", 151), ("short", 1), ("m", 151)]);
}
