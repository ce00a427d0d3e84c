//! Names the commit the clients are built from, for `stanley --version` and `stanleyctl
//! --version` (issue 34): `STANLEY_COMMIT` at compile time is `<12 hex> <commit date>`, or
//! `unknown commit` outside a Git checkout (a source archive). Cargo runs this again when the
//! checkout's HEAD moves.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let commit = git(&["log", "-1", "--format=%h %cs", "--abbrev=12"]);
    // HEAD names the branch; the branch's ref (loose or packed) names the commit.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!(
            "cargo:rerun-if-changed={}",
            Path::new(&dir).join("HEAD").display()
        );
    }
    if let Some(common) = git(&["rev-parse", "--path-format=absolute", "--git-common-dir"]) {
        let common = Path::new(&common);
        println!(
            "cargo:rerun-if-changed={}",
            common.join("packed-refs").display()
        );
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={}", common.join(branch).display());
        }
    }
    println!(
        "cargo:rustc-env=STANLEY_COMMIT={}",
        commit.as_deref().unwrap_or("unknown commit")
    );
}
