//! The layering rules, checked over `cargo metadata`: `stanley-core` and `stanley-workflows`
//! depend on no I/O crate, and `stanley-cli` depends on nothing of ours but `stanley-proto`.

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
    "tonic", "git2", "reqwest", "sled", "axum", "notify", "hyper", "mio", "rustls", "libc",
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
    for name in ["stanley-core", "stanley-workflows"] {
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
    assert_eq!(ours("stanley-workflows"), ["stanley-core"]);
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
