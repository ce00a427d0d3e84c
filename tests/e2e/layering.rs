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
