//! What every program Stanley starts may inherit from the environment: nothing that makes it
//! load a file of the worktree by itself. A program runs in the worktree, so a relative path in
//! a variable (`NODE_OPTIONS=--require ./x.js`, `BASH_ENV=.envrc`, a `.` or empty `PATH`
//! entry, `NODE_PATH=node_modules`) names a file whoever wrote the commit chose; so does a bare
//! package name Node would resolve from the working folder (`--import dotenv/config`) and an
//! absolute path inside the worktree. Those entries are left out, and everything else is kept
//! as the person set it (docs/security.md, "What programs Stanley starts load by themselves").

use std::collections::HashMap;
use std::path::Path;

/// Variables holding a `:`-separated list of folders a program searches for code to run or
/// load: a relative or empty entry is the working folder.
pub const SEARCH_PATH_VARS: [&str; 8] = [
    "PATH",
    "NODE_PATH",
    "PYTHONPATH",
    "LD_LIBRARY_PATH",
    "PERL5LIB",
    "RUBYLIB",
    "GEM_PATH",
    "CDPATH",
];

/// Variables naming one file a program runs or loads at start (bash's `BASH_ENV`, sh's `ENV`,
/// Python's `PYTHONSTARTUP`, zsh's `ZDOTDIR`).
pub const STARTUP_FILE_VARS: [&str; 4] = ["BASH_ENV", "ENV", "PYTHONSTARTUP", "ZDOTDIR"];

/// Node.js's options from the environment.
pub const NODE_OPTIONS: &str = "NODE_OPTIONS";

/// `NODE_OPTIONS` options whose value Node loads or reads as a file or module.
const NODE_FILE_OPTIONS: [&str; 9] = [
    "--require",
    "-r",
    "--import",
    "--loader",
    "--experimental-loader",
    "--env-file",
    "--env-file-if-exists",
    "--experimental-config-file",
    "--openssl-config",
];

/// `NODE_OPTIONS` options that make Node read a file of the working folder by themselves.
const NODE_CWD_OPTIONS: [&str; 1] = ["--experimental-default-config-file"];

/// Whether `value` names a file outside the worktree at `root`: an absolute path (or
/// `file:///` URL) that is not under it.
fn outside(value: &str, root: &Path) -> bool {
    let path = value.strip_prefix("file://").unwrap_or(value);
    path.starts_with('/') && !Path::new(path).starts_with(root)
}

/// The environment a program Stanley starts in the worktree at `root` gets from `env`: every
/// entry of [`SEARCH_PATH_VARS`], [`STARTUP_FILE_VARS`] and `NODE_OPTIONS` that would name a
/// file of the worktree is left out (a variable left empty is removed).
pub fn child_env(env: &HashMap<String, String>, root: &Path) -> HashMap<String, String> {
    let mut out = env.clone();
    for name in SEARCH_PATH_VARS {
        if let Some(value) = env.get(name) {
            let kept: Vec<&str> = value
                .split(':')
                .filter(|entry| outside(entry, root))
                .collect();
            if kept.is_empty() {
                out.remove(name);
            } else {
                out.insert(name.to_owned(), kept.join(":"));
            }
        }
    }
    for name in STARTUP_FILE_VARS {
        if env.get(name).is_some_and(|v| !outside(v, root)) {
            out.remove(name);
        }
    }
    if let Some(options) = env.get(NODE_OPTIONS) {
        let kept = node_options(options, root);
        if kept.is_empty() {
            out.remove(NODE_OPTIONS);
        } else {
            out.insert(NODE_OPTIONS.to_owned(), kept);
        }
    }
    out
}

/// Splits `NODE_OPTIONS` as Node does: on spaces, with double quotes around a value that holds
/// them (and `\"` inside).
fn node_tokens(options: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let (mut quoted, mut started) = (false, false);
    let mut chars = options.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if quoted => {
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            '"' => {
                quoted = !quoted;
                started = true;
            }
            ' ' | '\t' | '\n' if !quoted => {
                if started || !current.is_empty() {
                    tokens.push(std::mem::take(&mut current));
                    started = false;
                }
            }
            c => current.push(c),
        }
    }
    if started || !current.is_empty() {
        tokens.push(current);
    }
    tokens
}

fn quote(token: &str) -> String {
    if token.is_empty() || token.contains([' ', '\t', '\n', '"', '\\']) {
        format!("\"{}\"", token.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        token.to_owned()
    }
}

/// `NODE_OPTIONS` without the options that would load a file of the worktree or a package
/// resolved from it.
fn node_options(options: &str, root: &Path) -> String {
    let tokens = node_tokens(options);
    let mut kept = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        let (name, inline) = match token.split_once('=') {
            Some((n, v)) if n.starts_with('-') => (n, Some(v.to_owned())),
            _ => (token.as_str(), None),
        };
        if NODE_CWD_OPTIONS.contains(&name) {
            i += 1;
            continue;
        }
        if NODE_FILE_OPTIONS.contains(&name) {
            let (value, width) = match inline {
                Some(v) => (Some(v), 1),
                None => (tokens.get(i + 1).cloned(), 2),
            };
            if value.as_deref().is_some_and(|v| outside(v, root)) {
                kept.extend(tokens[i..(i + width).min(tokens.len())].iter().cloned());
            }
            i += width;
            continue;
        }
        kept.push(token.clone());
        i += 1;
    }
    kept.iter().map(|t| quote(t)).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn nothing_in_the_environment_names_a_file_of_the_worktree() {
        let root = Path::new("/home/u/clone");
        let got = child_env(
            &env(&[
                (
                    "PATH",
                    "/usr/bin::.:node_modules/.bin:/home/u/clone/bin:/bin",
                ),
                ("NODE_PATH", "node_modules"),
                ("BASH_ENV", ".envrc"),
                ("ENV", "/home/u/.shrc"),
                ("PYTHONSTARTUP", "/home/u/clone/startup.py"),
                (
                    "NODE_OPTIONS",
                    "--max-old-space-size=4096 --require ./.pnp.cjs -r /opt/proxy.js --import=dotenv/config --experimental-default-config-file --env-file=\"/home/u/clone/.env\" --use-openssl-ca",
                ),
                ("GITHUB_TOKEN", "ghp_x"),
            ]),
            root,
        );
        assert_eq!(got["PATH"], "/usr/bin:/bin");
        assert!(!got.contains_key("NODE_PATH"));
        assert!(!got.contains_key("BASH_ENV"));
        assert_eq!(got["ENV"], "/home/u/.shrc");
        assert!(!got.contains_key("PYTHONSTARTUP"));
        assert_eq!(
            got["NODE_OPTIONS"],
            "--max-old-space-size=4096 -r /opt/proxy.js --use-openssl-ca"
        );
        assert_eq!(
            got["GITHUB_TOKEN"], "ghp_x",
            "other variables are the person's"
        );
    }

    #[test]
    fn node_options_split_as_node_splits_them() {
        assert_eq!(
            node_tokens(r#"--require "/opt/my dir/x.js" --title="a \"b\"""#),
            ["--require", "/opt/my dir/x.js", "--title=a \"b\""]
        );
        let root = Path::new("/r");
        assert_eq!(
            node_options(r#"--require "/opt/my dir/x.js""#, root),
            r#"--require "/opt/my dir/x.js""#
        );
        assert_eq!(node_options("--require", root), "");
    }
}
