//! The layering rules, checked over `cargo metadata`: `stanley-core` and `stanley-workflows`
//! depend on no I/O crate, and `stanley-cli` depends on nothing of ours but `stanley-proto`; and
//! the invariants of `docs/ARCHITECTURE.md` a scan of the sources can hold (modules form a tree,
//! exit codes, who creates files, which variables adapters name, that children start from an empty
//! environment, which built-ins are offered).

use std::process::Command;

use serde_json::Value;

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

/// The top-level modules of the crate whose sources are under `src` (binaries under `src/bin/`
/// left out), each with the top-level modules its code names through `crate::`: `use` lines and
/// paths alike. Code after a file's `#[cfg(test)]` (its tests) is not counted.
fn module_graph(
    src: &std::path::Path,
) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path != src.join("bin") {
                    stack.push(path);
                }
                continue;
            }
            let rel = path.strip_prefix(src).unwrap();
            if path.extension().is_none_or(|e| e != "rs")
                || rel.to_string_lossy().ends_with("tests.rs")
            {
                continue;
            }
            let first = rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy();
            let top = first.trim_end_matches(".rs").to_owned();
            let top = if matches!(top.as_str(), "lib" | "main") {
                "<root>".to_owned()
            } else {
                top
            };
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            let names = graph.entry(top.clone()).or_default();
            let ident = |s: &str| -> String {
                s.trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect()
            };
            for (i, _) in code.match_indices("crate::") {
                let rest = &code[i + "crate::".len()..];
                let mut targets = Vec::new();
                if let Some(group) = rest.strip_prefix('{') {
                    let group = group.split('}').next().unwrap_or("");
                    targets.extend(group.split(',').map(ident));
                } else {
                    targets.push(ident(rest));
                }
                for t in targets {
                    // A module name, not a type or a macro re-exported at the root.
                    if !t.is_empty() && t.starts_with(|c: char| c.is_ascii_lowercase()) && t != top
                    {
                        names.insert(t);
                    }
                }
            }
        }
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for targets in graph.values_mut() {
        targets.retain(|t| modules.contains(t));
    }
    graph
}

/// The modules that are on a cycle (the strongly connected components of more than one).
fn cycles(
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

#[test]
fn modules_inside_each_crate_form_a_tree() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for src in [
        "stanleyd/core/src",
        "stanleyd/logs/src",
        "stanleyd/workflows/src",
        "stanleyd/adapters/src",
        "stanleyd/daemon/src",
        "stanley-cli/src",
        "proto/src",
    ] {
        let found = cycles(&module_graph(&root.join(src)));
        assert!(
            found.is_empty(),
            "{src}: modules import each other: {found:?}"
        );
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_passes_a_tree() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("lib.rs", "mod a;\nmod b;\nmod c;\n");
    write("a.rs", "use crate::b::X;\n");
    write("b.rs", "use crate::{c, d};\n");
    write(
        "c.rs",
        "fn f() { crate::a::g() }\n#[cfg(test)]\nmod tests { use crate::b; }\n",
    );
    assert_eq!(cycles(&module_graph(dir.path())), [["a", "b", "c"]]);
    write("c.rs", "#[cfg(test)]\nmod tests { use crate::a; }\n");
    assert!(cycles(&module_graph(dir.path())).is_empty());
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

/// The code lines of every Rust source under `dir` (relative to the workspace), each with its
/// path relative to `dir` and its line number: comment lines, `*tests.rs` files and all that
/// follows a file's first `#[cfg(test)]` left out, and files whose relative path starts with one
/// of `skip`.
fn code_lines(dir: &str, skip: &[&str]) -> Vec<(String, usize, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(dir);
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if !rel.ends_with(".rs")
                || rel.ends_with("tests.rs")
                || skip.iter().any(|s| rel.starts_with(s))
            {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (i, line) in code.lines().enumerate() {
                let line = line.trim();
                if !line.starts_with("//") {
                    out.push((rel.clone(), i + 1, line.to_owned()));
                }
            }
        }
    }
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

/// Issues 46 and 50: no function of production code is longer than 150 lines (from its `fn` line
/// to its closing brace, rustfmt's layout); a longer one is split into named phases.
#[test]
fn production_functions_are_at_most_150_lines() {
    const MAX: usize = 150;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut long = Vec::new();
    for dir in [
        "stanleyd/core/src",
        "stanleyd/logs/src",
        "stanleyd/workflows/src",
        "stanleyd/adapters/src",
        "stanleyd/daemon/src",
        "stanley-cli/src",
        "proto/src",
    ] {
        let mut stack = vec![root.join(dir)];
        while let Some(folder) = stack.pop() {
            for entry in std::fs::read_dir(&folder).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let name = path.to_string_lossy().into_owned();
                if !name.ends_with(".rs")
                    || name.ends_with("tests.rs")
                    || name.ends_with("testing.rs")
                {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap_or("");
                let lines: Vec<&str> = code.lines().collect();
                for (i, line) in lines.iter().enumerate() {
                    let t = line.trim_start();
                    let t = t
                        .strip_prefix("pub(crate) ")
                        .or_else(|| t.strip_prefix("pub(super) "))
                        .or_else(|| t.strip_prefix("pub "))
                        .unwrap_or(t);
                    let t = t.strip_prefix("async ").unwrap_or(t);
                    let t = t.strip_prefix("const ").unwrap_or(t);
                    if !t.starts_with("fn ") || line.trim_end().ends_with(';') {
                        continue;
                    }
                    let indent = &line[..line.len() - line.trim_start().len()];
                    let close = format!("{indent}}}");
                    if let Some(end) = lines[i + 1..].iter().position(|l| *l == close) {
                        let n = end + 2;
                        if n > MAX {
                            long.push(format!("{dir}: {n} lines: {}", line.trim()));
                        }
                    }
                }
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX} lines:\n{}",
        long.join("\n")
    );
}
