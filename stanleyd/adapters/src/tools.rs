//! What is installed, for `stanleyctl doctor`: the version of `node` and `git` (each run once
//! with `--version`, a short time limit and the caller's `PATH`), and the package a `pi` binary
//! comes from (name, version, the Node.js it needs), read from its `package.json` without
//! running it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

/// How long a `--version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// The first line `<program> --version` prints (stdout, else stderr), or why there is none.
pub async fn version_of(program: &Path, path: Option<&str>) -> Result<String, String> {
    let mut cmd = Command::new(program);
    cmd.arg("--version")
        .env_clear()
        .envs(path.map(|p| ("PATH", p)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let out = tokio::time::timeout(VERSION_TIMEOUT, cmd.output())
        .await
        .map_err(|_| format!("{} --version did not answer", program.display()))?
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let text = String::from_utf8_lossy(if out.stdout.is_empty() {
        &out.stderr
    } else {
        &out.stdout
    })
    .lines()
    .next()
    .unwrap_or("")
    .trim()
    .to_owned();
    if text.is_empty() {
        Err(format!("{} --version printed nothing", program.display()))
    } else {
        Ok(text)
    }
}

/// An executable program on a `PATH` value. Only absolute entries count: an empty or relative
/// entry (`::`, `.`, `bin`) names the current folder, which for the daemon is whatever a
/// repository put there, so a cloned repository could plant its own `node` or `pi`.
pub fn on_path(name: &str, path: Option<&str>) -> Option<PathBuf> {
    path?
        .split(':')
        .filter(|d| Path::new(d).is_absolute())
        .map(|d| Path::new(d).join(name))
        .find(|p| executable(p))
}

/// An executable regular file (a link to one counts).
pub fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The npm package a binary belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Package {
    /// `name` of its `package.json`.
    pub name: String,
    /// `version`.
    pub version: String,
    /// `engines.node`, when it says.
    pub node: Option<String>,
}

/// The package of `bin` (following the `node_modules/.bin` link to the real file, then up to
/// the nearest `package.json` that names a package).
pub fn package_of(bin: &Path) -> Option<Package> {
    let real = std::fs::canonicalize(bin).ok()?;
    let mut dir = real.parent();
    while let Some(d) = dir {
        if let Ok(text) = std::fs::read_to_string(d.join("package.json"))
            && let Ok(json) = serde_json::from_str::<serde_json::Value>(&text)
            && let Some(name) = json["name"].as_str()
        {
            return Some(Package {
                name: name.to_owned(),
                version: json["version"].as_str().unwrap_or("").to_owned(),
                node: json["engines"]["node"].as_str().map(str::to_owned),
            });
        }
        dir = d.parent();
    }
    None
}

fn numbers(version: &str) -> Vec<u64> {
    version
        .trim()
        .trim_start_matches(['v', '=', '>', '^', '~', ' '])
        .split(['.', '-', '+'])
        .take(3)
        .map_while(|p| p.parse().ok())
        .collect()
}

/// Whether `version` (`v20.20.2`) meets `range` (`>=22.19.0`; other forms, and anything
/// unreadable, count as met: doctor only warns about what it can tell).
pub fn satisfies(version: &str, range: &str) -> bool {
    let range = range.trim();
    let Some(min) = range.strip_prefix(">=") else {
        return true;
    };
    let (have, need) = (numbers(version), numbers(min));
    if have.is_empty() || need.is_empty() {
        return true;
    }
    let pad = |mut v: Vec<u64>| {
        v.resize(3, 0);
        v
    };
    pad(have) >= pad(need)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_path_entries_are_searched() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let node = bin.join("node");
        std::fs::write(&node, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&node, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(bin.join("plain"), "").unwrap();
        let abs = bin.display().to_string();
        assert_eq!(on_path("node", Some(&abs)), Some(node.clone()));
        assert_eq!(on_path("plain", Some(&abs)), None, "not executable");
        // A relative entry resolves against the current folder: never searched.
        let old = std::env::current_dir().unwrap();
        std::env::set_current_dir(dir.path()).unwrap();
        let found = ["bin", "./bin", "bin/", ":bin:"].map(|p| on_path("node", Some(p)));
        std::env::set_current_dir(old).unwrap();
        assert_eq!(found, [None, None, None, None]);
    }

    #[test]
    fn engine_ranges() {
        assert!(satisfies("v24.19.0", ">=22.19.0"));
        assert!(satisfies("v22.19.0", ">=22.19.0"));
        assert!(!satisfies("v20.20.2", ">=22.19.0"));
        assert!(!satisfies("v22.18.9", ">=22.19"));
        assert!(
            satisfies("v18.0.0", "^18 || >=20"),
            "forms doctor cannot read pass"
        );
        assert!(satisfies("garbage", ">=22"));
    }

    #[test]
    fn a_package_is_found_through_the_bin_link() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir.path().join("node_modules/@x/agent");
        std::fs::create_dir_all(pkg.join("dist")).unwrap();
        std::fs::write(
            pkg.join("package.json"),
            r#"{"name": "@x/agent", "version": "1.6.0", "engines": {"node": ">=22.19.0"}}"#,
        )
        .unwrap();
        std::fs::write(pkg.join("dist/cli.js"), "").unwrap();
        let bin = dir.path().join("node_modules/.bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink("../@x/agent/dist/cli.js", bin.join("pi")).unwrap();
        assert_eq!(
            package_of(&bin.join("pi")),
            Some(Package {
                name: "@x/agent".into(),
                version: "1.6.0".into(),
                node: Some(">=22.19.0".into()),
            })
        );
    }
}
