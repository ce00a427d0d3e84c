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

/// Why a program did not tell its version.
#[derive(Debug, thiserror::Error)]
pub enum VersionError {
    #[error("{} --version did not answer", .0.display())]
    NoAnswer(PathBuf),
    #[error("cannot run {}: {source}", program.display())]
    CannotRun {
        program: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} --version printed nothing", .0.display())]
    Silent(PathBuf),
}

/// The first line `<program> --version` prints (stdout, else stderr), or why there is none.
pub async fn version_of(program: &Path, path: Option<&str>) -> Result<String, VersionError> {
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
        .map_err(|_| VersionError::NoAnswer(program.to_owned()))?
        .map_err(|source| VersionError::CannotRun {
            program: program.to_owned(),
            source,
        })?;
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
        Err(VersionError::Silent(program.to_owned()))
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
        if let Ok(bytes) = crate::records::read_bounded(&d.join("package.json"), 1024 * 1024)
            && let Ok(json) = serde_json::from_slice::<serde_json::Value>(&bytes)
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

/// A version as a program prints it (`v20.20.2`, `22`, `1.6.0-beta.1`), missing parts as 0.
fn loose_version(text: &str) -> Option<semver::Version> {
    let text = text.trim().trim_start_matches(['v', 'V']);
    let (core, rest) = match text.find(['-', '+']) {
        Some(i) => text.split_at(i),
        None => (text, ""),
    };
    let mut parts: Vec<&str> = core.split('.').collect();
    if parts.is_empty() || parts.len() > 3 || parts.iter().any(|p| p.parse::<u64>().is_err()) {
        return None;
    }
    parts.resize(3, "0");
    semver::Version::parse(&format!("{}{rest}", parts.join("."))).ok()
}

/// One npm comparator set (`>=18 <21`, `>= 20`, `1.2.3 - 2.3.4`, `20.x`, `1.2.3`) in Cargo's
/// syntax, with npm's meaning for a bare version: `1.2.3` is exactly it, `1.2` is `~1.2`.
fn cargo_requirement(npm: &str) -> Option<semver::VersionReq> {
    let tokens: Vec<&str> = npm.split_whitespace().collect();
    if let [low, "-", high] = tokens.as_slice() {
        return semver::VersionReq::parse(&format!(">={low}, <={high}")).ok();
    }
    let mut comparators = Vec::new();
    let mut pending_operator = String::new();
    for token in tokens {
        // `x` and `X` stand for a whole part (`20.x`), never inside one (`1.0.0-experimental`).
        let token = token
            .split('.')
            .map(|part| if matches!(part, "x" | "X") { "*" } else { part })
            .collect::<Vec<_>>()
            .join(".");
        if token.chars().all(|c| "<>=~^".contains(c)) {
            pending_operator.push_str(&token);
            continue;
        }
        let op = std::mem::take(&mut pending_operator);
        let comparator = if !op.is_empty() || token.starts_with(['<', '>', '=', '~', '^']) {
            format!("{op}{token}")
        } else if token.contains('*') {
            token
        } else {
            match token.trim_start_matches(['v', 'V']).split('.').count() {
                3 => format!("={token}"),
                _ => format!("~{token}"),
            }
        };
        comparators.push(comparator.trim_start_matches(['v', 'V']).to_owned());
    }
    if comparators.is_empty() {
        return semver::VersionReq::parse("*").ok();
    }
    semver::VersionReq::parse(&comparators.join(", ")).ok()
}

/// Whether `version` (`v20.20.2`) meets an npm engine `range` (`>=22.19.0`, `^18 || >=20`,
/// `>=18 <21`, `1.2.3 - 2.3.4`; semver's requirements under npm's syntax). Anything unreadable
/// counts as met: doctor only warns about what it can tell.
pub fn satisfies(version: &str, range: &str) -> bool {
    let Some(version) = loose_version(version) else {
        return true;
    };
    let alternatives: Option<Vec<semver::VersionReq>> =
        range.split("||").map(cargo_requirement).collect();
    match alternatives {
        Some(alternatives) => alternatives.iter().any(|req| req.matches(&version)),
        None => true,
    }
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
        assert!(satisfies("v18.0.0", "^18 || >=20"));
        assert!(satisfies("v20.1.0", "^18 || >=20"));
        assert!(!satisfies("v19.9.0", "^18 || >=20"));
        assert!(satisfies("v20.0.0", ">=18 <21"));
        assert!(!satisfies("v21.0.0", ">=18 <21"));
        assert!(
            satisfies("v22.0.0", ">= 20"),
            "an operator apart from its version"
        );
        assert!(satisfies("v2.0.0", "1.2.3 - 2.3.4"));
        assert!(!satisfies("v2.4.0", "1.2.3 - 2.3.4"));
        assert!(satisfies("v20.9.1", "20.x"));
        assert!(!satisfies("v21.0.0", "20.x"));
        assert!(
            !satisfies("v0.9.0", ">=1.0.0-experimental"),
            "an x inside a part is a letter, so the range reads"
        );
        assert!(
            satisfies("v20.1.5", "20.1"),
            "a bare partial version is a tilde range"
        );
        assert!(!satisfies("v20.2.0", "20.1"));
        assert!(satisfies("v1.2.3", "1.2.3"), "a bare full version is exact");
        assert!(!satisfies("v1.2.4", "1.2.3"));
        assert!(satisfies("v22", ">=22.0.0"), "missing parts are 0");
        assert!(
            satisfies("garbage", ">=22"),
            "what doctor cannot read passes"
        );
        assert!(satisfies("v20.0.0", "not a range"));
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
