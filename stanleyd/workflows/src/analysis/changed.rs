//! What a change did, in sentences built from facts in code (issue 49): which files were
//! added, removed, renamed or moved and where, which dependencies changed and from which
//! version to which, and what the largest changes touch. Jev's categories are a separate input
//! to the summary; nothing here asks Jev.

use std::collections::BTreeMap;

use crate::diff::{DiffEvidence, FileDiff, FileStatus};
use crate::exclusion::WholeFile;
use crate::paths::PathKind;

/// How many paths a sentence names before "and N more".
const NAMED: usize = 3;

/// How many dependency changes a sentence names before "and N more".
const NAMED_DEPENDENCIES: usize = 6;

/// The sentences that say what `evidence` changed, most telling first.
pub(super) fn sentences(evidence: &DiffEvidence) -> Vec<String> {
    let files = &evidence.source.diff.files;
    if files.is_empty() {
        return Vec::new();
    }
    // What the review leaves out (vendored, mirrored, binary): never named before the rest, and
    // a manifest in it, or in a test fixture, is not the project's.
    let left_out: std::collections::HashSet<&str> = evidence
        .excluded
        .iter()
        .filter_map(|e| e.path.as_deref())
        .collect();
    let facts = &evidence.source.facts;
    let mut out = vec![files_sentence(files, &left_out, facts)];
    out.extend(moves_sentence(files));
    let manifests: Vec<&FileDiff> = files
        .iter()
        .filter(|f| !left_out.contains(f.path.as_str()))
        .filter(|f| crate::paths::classify_path(&f.path) != PathKind::Test)
        .collect();
    out.extend(dependencies_sentence(&manifests));
    out.extend(largest_sentence(evidence, &left_out));
    out
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `a, b, c and 4 more`.
fn named(items: &[String], most: usize) -> String {
    if items.len() <= most {
        return match items {
            [] => String::new(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
        };
    }
    format!(
        "{} and {} more",
        items[..most].join(", "),
        items.len() - most
    )
}

/// `12 files changed: 3 added (a, b, c), 1 removed (d), 2 renamed (e → f, …), 6 modified.`
fn files_sentence(
    files: &[FileDiff],
    left_out: &std::collections::HashSet<&str>,
    facts: &BTreeMap<String, crate::diff::FileFacts>,
) -> String {
    // A binary file's status says only that it is binary; the Git port's facts say whether it
    // was added or deleted as a whole.
    let status = |f: &FileDiff| match (f.status, facts.get(&f.path).and_then(|x| x.change)) {
        (FileStatus::Binary, Some(WholeFile::Added)) => FileStatus::Added,
        (FileStatus::Binary, Some(WholeFile::Deleted)) => FileStatus::Deleted,
        (s, _) => s,
    };
    let of = |wanted: &[FileStatus]| -> Vec<&FileDiff> {
        files
            .iter()
            .filter(|f| wanted.contains(&status(f)))
            .collect()
    };
    // Source files are named first, then the rest, each in diff order: a long list of test
    // data should not hide the code that was added.
    let paths = |fs: &[&FileDiff]| -> Vec<String> {
        let mut named: Vec<&FileDiff> = fs.to_vec();
        named.sort_by_key(|f| {
            (
                left_out.contains(f.path.as_str()),
                crate::paths::classify_path(&f.path) != PathKind::Source,
            )
        });
        named.iter().map(|f| f.path.clone()).collect()
    };
    let added = of(&[FileStatus::Added]);
    let removed = of(&[FileStatus::Deleted]);
    let moved = of(&[FileStatus::Renamed, FileStatus::Copied]);
    let modified = files.len() - added.len() - removed.len() - moved.len();
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!(
            "{} added ({})",
            added.len(),
            named(&paths(&added), NAMED)
        ));
    }
    if !removed.is_empty() {
        parts.push(format!(
            "{} removed ({})",
            removed.len(),
            named(&paths(&removed), NAMED)
        ));
    }
    if !moved.is_empty() {
        let pairs: Vec<String> = moved
            .iter()
            .map(|f| match &f.old_path {
                Some(old) => format!("{old} → {}", f.path),
                None => f.path.clone(),
            })
            .collect();
        let copied = moved.iter().all(|f| f.status == FileStatus::Copied);
        parts.push(format!(
            "{} {} ({})",
            moved.len(),
            if copied { "copied" } else { "renamed or moved" },
            named(&pairs, NAMED.min(2))
        ));
    }
    if modified > 0 {
        parts.push(format!("{modified} modified"));
    }
    format!(
        "{} changed: {}.",
        plural(files.len(), "file", "files"),
        parts.join(", ")
    )
}

/// The folder of a path (`""` at the top).
fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `4 files moved from src/old/ to lib/new/.` for every pair of folders at least two renamed
/// files went between.
fn moves_sentence(files: &[FileDiff]) -> Option<String> {
    let mut by_folders: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for f in files.iter().filter(|f| f.status == FileStatus::Renamed) {
        let Some(old) = &f.old_path else { continue };
        let (from, to) = (folder(old), folder(&f.path));
        if from != to {
            *by_folders.entry((from, to)).or_default() += 1;
        }
    }
    let mut moves: Vec<((&str, &str), usize)> =
        by_folders.into_iter().filter(|(_, n)| *n >= 2).collect();
    if moves.is_empty() {
        return None;
    }
    moves.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    let shown = |dir: &str| {
        if dir.is_empty() {
            "the top folder".to_owned()
        } else {
            format!("{dir}/")
        }
    };
    let parts: Vec<String> = moves
        .iter()
        .map(|((from, to), n)| format!("{n} files from {} to {}", shown(from), shown(to)))
        .collect();
    Some(format!("Moved: {}.", named(&parts, NAMED)))
}

/// One dependency named in a manifest line, with its version requirement.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Requirement {
    name: String,
    version: String,
}

/// The manifests whose lines name dependencies, by file name.
fn manifest(path: &str) -> Option<fn(&str) -> Option<Requirement>> {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name {
        "package.json" | "composer.json" => Some(json_requirement),
        "Cargo.toml" | "pyproject.toml" => Some(toml_requirement),
        "go.mod" => Some(go_requirement),
        // `requirements.txt`, `requirements-dev.in`, and any `.txt` or `.in` in a
        // `requirements/` folder (`requirements/dev.txt`).
        _ if (name.starts_with("requirements")
            || path.starts_with("requirements/")
            || path.contains("/requirements/"))
            && (name.ends_with(".txt") || name.ends_with(".in")) =>
        {
            Some(requirements_line)
        }
        _ => None,
    }
}

/// Whether `text` reads as a version requirement (`^1.2.3`, `>=2`, `1.0`, `v1.2.0`).
fn is_version(text: &str) -> bool {
    let core = text.trim_start_matches(['^', '~', '>', '<', '=', ' ', 'v']);
    core.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// `"name": "^1.2.3",` in a JSON manifest.
fn json_requirement(line: &str) -> Option<Requirement> {
    let rest = line.trim().strip_prefix('"')?;
    let (name, rest) = rest.split_once('"')?;
    let rest = rest
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .strip_prefix('"')?;
    let (version, _) = rest.split_once('"')?;
    (is_version(version) && !name.is_empty()).then(|| Requirement {
        name: name.to_owned(),
        version: version.to_owned(),
    })
}

/// `name = "1.2"`, `name = { version = "1.2", … }` (Cargo), or `"name>=1.2",` (a pyproject
/// list).
fn toml_requirement(line: &str) -> Option<Requirement> {
    let line = line.trim();
    if let Some(quoted) = line.strip_prefix('"') {
        let (spec, _) = quoted.split_once('"')?;
        return pip_requirement(spec);
    }
    let (name, value) = line.split_once('=')?;
    let name = name.trim();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        return None;
    }
    let value = value.trim();
    let version = if let Some(v) = value.strip_prefix('"') {
        v.split_once('"')?.0
    } else {
        let (_, after) = value.split_once("version")?;
        let after = after
            .trim_start()
            .strip_prefix('=')?
            .trim_start()
            .strip_prefix('"')?;
        after.split_once('"')?.0
    };
    is_version(version).then(|| Requirement {
        name: name.to_owned(),
        version: version.to_owned(),
    })
}

/// `name==1.2.3`, `name>=1.2` (requirements files and pyproject lists).
fn pip_requirement(line: &str) -> Option<Requirement> {
    // The comment and the environment marker (`; python_version < "3.8"`) are not the version.
    let line = line.split('#').next()?.split(';').next()?.trim();
    let at = line.find(['=', '>', '<', '~', '!'])?;
    let (name, version) = line.split_at(at);
    // `name[extra]` is `name`: an extra added is no new dependency.
    let name = name.split('[').next().unwrap_or(name).trim();
    let version = version.trim().trim_end_matches([',', '"']);
    let core = version.trim_start_matches(['=', '>', '<', '~', '!']);
    (!name.is_empty() && core.chars().next().is_some_and(|c| c.is_ascii_digit())).then(|| {
        Requirement {
            name: name.to_owned(),
            version: version.to_owned(),
        }
    })
}

/// A line of a requirements file: a versioned requirement, or a bare name (unpinned); options
/// (`-r`, `--hash`), URLs and paths are no requirement.
fn requirements_line(line: &str) -> Option<Requirement> {
    if let Some(r) = pip_requirement(line) {
        return Some(r);
    }
    let bare = line.split('#').next()?.split(';').next()?.trim();
    let name = bare.split('[').next().unwrap_or(bare).trim();
    let is_name = !name.is_empty()
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    is_name.then(|| Requirement {
        name: name.to_owned(),
        version: String::new(),
    })
}

/// `require example.com/mod v1.2.3` or `\texample.com/mod v1.2.3` in `go.mod`.
fn go_requirement(line: &str) -> Option<Requirement> {
    let line = line.trim();
    let line = line.strip_prefix("require ").unwrap_or(line);
    let mut words = line.split_whitespace();
    let (name, version) = (words.next()?, words.next()?);
    // An indirect requirement is a dependency's dependency, not the project's (Go records it
    // so the build is reproducible).
    if line.contains("// indirect") {
        return None;
    }
    (version.starts_with('v') && is_version(version) && name.contains('.')).then(|| Requirement {
        name: name.to_owned(),
        version: version.to_owned(),
    })
}

/// A manifest's own keys that read like `name = "version"` but name no dependency.
const PACKAGE_KEYS: [&str; 9] = [
    "edition",
    "rust-version",
    "requires-python",
    "resolver",
    "python",
    "go",
    "toolchain",
    "node",
    "npm",
];

/// A `version` key in a table of its own dependency (`[dependencies.serde]`, as `cargo
/// package` writes them) is that dependency's.
fn named_by_table(r: Requirement, table: Option<&str>) -> Requirement {
    match table.and_then(|t| t.rsplit_once("dependencies.")) {
        Some((_, dependency)) if r.name == "version" && !dependency.is_empty() => Requirement {
            name: dependency.trim_matches('"').to_owned(),
            version: r.version,
        },
        _ => r,
    }
}

/// Whether `r`, found in `table` (None: the hunk shows no table header), is a dependency or
/// the project's own `version`.
fn declares_dependency(r: &Requirement, table: Option<&str>, array: Option<&str>) -> bool {
    let Some(t) = table else {
        return !PACKAGE_KEYS.contains(&r.name.as_str());
    };
    // A tool's own table is its configuration, except poetry's, which holds dependencies.
    if t.starts_with("tool.") && !t.starts_with("tool.poetry") {
        return false;
    }
    let last = t.rsplit('.').next().unwrap_or(t);
    let dependencies = last.ends_with("dependencies")
        || t.contains("dependencies.")
        || matches!(array, Some("dependencies" | "requires"));
    if dependencies {
        r.name != "version"
    } else {
        // `[package]`, `[project]`, `[workspace.package]`: only the project's own version.
        r.name == "version" && array.is_none()
    }
}

/// The kind of dependency table `table` is (`dependencies` for `[dependencies.serde]`), so the
/// same crate in `[dependencies]` and `[dev-dependencies]` is two entries.
fn table_kind(table: Option<&str>) -> String {
    match table {
        Some(t) => match t.rsplit_once("dependencies.") {
            Some((before, _)) => format!("{before}dependencies"),
            None => t.to_owned(),
        },
        None => String::new(),
    }
}

/// `Dependencies: lodash ^4.17.20 → ^4.17.21; added zod ^3.22.0; removed moment.` from the
/// manifests' removed and added lines; a manifest's own `version` is the project's version.
fn dependencies_sentence(files: &[&FileDiff]) -> Option<String> {
    let mut changed = Vec::new();
    let mut added = Vec::new();
    let mut removed = Vec::new();
    let mut own = Vec::new();
    for f in files {
        let Some(parse) = manifest(&f.path) else {
            continue;
        };
        let mut before: Vec<(String, Requirement)> = Vec::new();
        let mut after: Vec<(String, Requirement)> = Vec::new();
        for h in &f.hunks {
            // The TOML table a line sits in, and the array it is an item of, when the hunk
            // shows their headers.
            let mut table: Option<String> = None;
            let mut array: Option<String> = None;
            for line in h.lines.iter() {
                let text = line.text.trim();
                // A TOML table header (`[target."cfg(unix)".dependencies.nix]`), not a JSON
                // array of strings (`["a", "b"]`).
                if text.starts_with('[') && text.ends_with(']') && !text.starts_with("[\"") {
                    table = Some(text.trim_matches(['[', ']']).to_owned());
                    array = None;
                    continue;
                }
                if let Some((key, rest)) = text.split_once('=')
                    && rest.trim() == "["
                {
                    array = Some(key.trim().to_owned());
                    continue;
                }
                if text.starts_with(']') {
                    array = None;
                    continue;
                }
                let Some(r) = parse(&line.text)
                    .map(|r| named_by_table(r, table.as_deref()))
                    .filter(|r| declares_dependency(r, table.as_deref(), array.as_deref()))
                else {
                    continue;
                };
                let kind = table_kind(table.as_deref());
                match line.tag {
                    '-' => before.push((kind, r)),
                    '+' => after.push((kind, r)),
                    _ => {}
                }
            }
        }
        let version = |v: &str| {
            if v.is_empty() {
                "(unpinned)".to_owned()
            } else {
                v.to_owned()
            }
        };
        // The same table first; then the same name in another table (a dependency moved from
        // one target's table to another's is a change, not a removal and an addition).
        let mut taken = vec![false; after.len()];
        let mut unmatched = Vec::new();
        for (kind, b) in &before {
            match after
                .iter()
                .enumerate()
                .find(|(i, (k, a))| !taken[*i] && k == kind && a.name == b.name)
            {
                Some((i, _)) => {
                    taken[i] = true;
                    let a = &after[i].1;
                    if a.version == b.version {
                        continue;
                    }
                    if b.name == "version" {
                        own.push(format!("{} {} → {}", f.path, b.version, a.version));
                    } else {
                        changed.push(format!(
                            "{} {} → {}",
                            b.name,
                            version(&b.version),
                            version(&a.version)
                        ));
                    }
                }
                None => unmatched.push(b),
            }
        }
        for b in unmatched {
            if b.name == "version" {
                continue;
            }
            match after
                .iter()
                .enumerate()
                .find(|(i, (_, a))| !taken[*i] && a.name == b.name)
            {
                Some((i, _)) => {
                    taken[i] = true;
                    let a = &after[i].1;
                    if a.version != b.version {
                        changed.push(format!(
                            "{} {} → {}",
                            b.name,
                            version(&b.version),
                            version(&a.version)
                        ));
                    }
                }
                None => removed.push(b.name.clone()),
            }
        }
        for (i, (_, a)) in after.iter().enumerate() {
            if !taken[i] && a.name != "version" {
                added.push(if a.version.is_empty() {
                    a.name.clone()
                } else {
                    format!("{} {}", a.name, a.version)
                });
            }
        }
    }
    for list in [&mut changed, &mut added, &mut removed, &mut own] {
        list.sort();
        list.dedup();
    }
    let mut parts = Vec::new();
    if !own.is_empty() {
        parts.push(format!("the version in {}", named(&own, NAMED)));
    }
    if !changed.is_empty() {
        parts.push(named(&changed, NAMED_DEPENDENCIES));
    }
    if !added.is_empty() {
        parts.push(format!("added {}", named(&added, NAMED_DEPENDENCIES)));
    }
    if !removed.is_empty() {
        parts.push(format!("removed {}", named(&removed, NAMED_DEPENDENCIES)));
    }
    (!parts.is_empty()).then(|| format!("Dependencies: {}.", parts.join("; ")))
}

/// `The largest changes: src/parser.ts (+120 −30), …` among the files that are reviewed
/// (not lockfiles, generated or left-out files).
fn largest_sentence(
    evidence: &DiffEvidence,
    left_out: &std::collections::HashSet<&str>,
) -> Option<String> {
    let mut sizes: Vec<(&str, usize, usize)> = evidence
        .files
        .iter()
        .filter(|f| !matches!(f.kind, PathKind::Lockfile | PathKind::Generated))
        .filter(|f| !left_out.contains(f.path.as_str()))
        .map(|f| (f.path.as_str(), f.added(), f.removed()))
        .filter(|(_, a, r)| a + r > 0)
        .collect();
    if sizes.len() < 2 {
        return None;
    }
    sizes.sort_by(|a, b| (b.1 + b.2).cmp(&(a.1 + a.2)).then_with(|| a.0.cmp(b.0)));
    let parts: Vec<String> = sizes
        .iter()
        .take(NAMED)
        .map(|(p, a, r)| format!("{p} (+{a} −{r})"))
        .collect();
    Some(format!("The largest changes: {}.", parts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{Diff, DiffSource};

    fn evidence(text: &str) -> DiffEvidence {
        DiffEvidence::from_source(DiffSource::worktree(Diff::parse(text)))
    }

    #[test]
    fn dependency_lines_of_each_manifest_are_read() {
        assert_eq!(
            json_requirement(r#"    "lodash": "^4.17.21","#),
            Some(Requirement {
                name: "lodash".into(),
                version: "^4.17.21".into()
            })
        );
        assert_eq!(json_requirement(r#"  "main": "index.js","#), None);
        assert_eq!(
            toml_requirement(r#"serde = { version = "1.0.200", features = ["derive"] }"#),
            Some(Requirement {
                name: "serde".into(),
                version: "1.0.200".into()
            })
        );
        assert_eq!(
            toml_requirement(r#"thiserror-impl = { version = "=1.0.63", path = "impl" }"#)
                .map(|r| r.version),
            Some("=1.0.63".into())
        );
        let edition = toml_requirement(r#"edition = "2021""#).unwrap();
        assert!(!declares_dependency(&edition, None, None));
        assert!(!declares_dependency(&edition, Some("package"), None));
        let inner = named_by_table(
            toml_requirement(r#"version = "=1.0.63""#).unwrap(),
            Some("dependencies.thiserror-impl"),
        );
        assert_eq!(inner.name, "thiserror-impl");
        assert!(declares_dependency(
            &inner,
            Some("dependencies.thiserror-impl"),
            None
        ));
        let serde = toml_requirement(r#"serde = "1""#).unwrap();
        assert!(declares_dependency(&serde, Some("dev-dependencies"), None));
        assert!(!declares_dependency(&serde, Some("features"), None));
        assert_eq!(toml_requirement(r#"name = "thiserror""#), None);
        assert_eq!(
            toml_requirement(r#"    "requests>=2.31","#).map(|r| (r.name, r.version)),
            Some(("requests".into(), ">=2.31".into()))
        );
        assert_eq!(
            pip_requirement("Django==4.2.7  # LTS").map(|r| r.version),
            Some("==4.2.7".into())
        );
        assert_eq!(
            go_requirement("\tgolang.org/x/text v0.14.0").map(|r| r.name),
            Some("golang.org/x/text".into())
        );
    }

    #[test]
    fn the_sentences_say_what_was_added_moved_and_upgraded() {
        let ev = evidence(concat!(
            "diff --git a/package.json b/package.json\n--- a/package.json\n+++ b/package.json\n",
            "@@ -1,6 +1,6 @@\n {\n-  \"version\": \"1.0.0\",\n+  \"version\": \"1.1.0\",\n",
            "   \"dependencies\": {\n-    \"lodash\": \"^4.17.20\",\n-    \"moment\": \"^2.29.0\"\n",
            "+    \"lodash\": \"^4.17.21\",\n+    \"zod\": \"^3.22.0\"\n   }\n",
            "diff --git a/src/new.ts b/src/new.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/new.ts\n",
            "@@ -0,0 +1,2 @@\n+export const a = 1;\n+export const b = 2;\n",
            "diff --git a/src/a.ts b/lib/a.ts\nsimilarity index 90%\nrename from src/a.ts\nrename to lib/a.ts\n",
            "--- a/src/a.ts\n+++ b/lib/a.ts\n@@ -1 +1 @@\n-x\n+y\n",
            "diff --git a/src/b.ts b/lib/b.ts\nsimilarity index 90%\nrename from src/b.ts\nrename to lib/b.ts\n",
            "--- a/src/b.ts\n+++ b/lib/b.ts\n@@ -1 +1 @@\n-x\n+z\n",
        ));
        let said = sentences(&ev);
        assert_eq!(
            said[0],
            "4 files changed: 1 added (src/new.ts), 2 renamed or moved (src/a.ts → lib/a.ts and \
             src/b.ts → lib/b.ts), 1 modified."
        );
        assert_eq!(said[1], "Moved: 2 files from src/ to lib/.");
        assert_eq!(
            said[2],
            "Dependencies: the version in package.json 1.0.0 → 1.1.0; lodash ^4.17.20 → \
             ^4.17.21; added zod ^3.22.0; removed moment."
        );
        assert!(
            said[3].starts_with("The largest changes: package.json (+3 −3)"),
            "{said:?}"
        );
    }

    /// The classes the first blind evaluation found (D-168 addendum): Go's indirect
    /// requirements, a `requirements/` folder, unpinned names, extras and markers, tools'
    /// own tables, PEP 621 arrays, and one crate in two tables.
    #[test]
    fn each_ecosystems_own_shapes_are_read_as_it_means_them() {
        let diff = |path: &str, body: &str| {
            format!(
                "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,20 +1,20 @@\n{body}"
            )
        };
        let said = |text: String| sentences(&evidence(&text)).join(" ");
        let go = said(diff(
            "go.mod",
            "-require golang.org/x/net v0.1.0\n+require golang.org/x/net v0.2.0\n-\tgithub.com/a/b v1.0.0 // indirect\n+\tgithub.com/a/b v1.1.0 // indirect\n",
        ));
        assert!(go.contains("golang.org/x/net v0.1.0 → v0.2.0"), "{go}");
        assert!(!go.contains("github.com/a/b"), "{go}");
        let pip = said(diff(
            "requirements/dev.txt",
            "-pytest==7.0\n+pytest==8.0\n-mock\n+requests[socks]>=2.31 ; python_version >= \"3.8\"\n+-r base.txt\n",
        ));
        assert!(pip.contains("pytest ==7.0 → ==8.0"), "{pip}");
        assert!(pip.contains("removed mock"), "{pip}");
        assert!(pip.contains("added requests >=2.31;"), "{pip}");
        assert!(
            !pip.contains("base.txt") && !pip.contains("python_version"),
            "{pip}"
        );
        let pyproject = said(diff(
            "pyproject.toml",
            concat!(
                " [project]\n",
                "-version = \"1.0\"\n+version = \"1.1\"\n",
                " dependencies = [\n-  \"httpx>=0.24\",\n+  \"httpx>=0.27\",\n ]\n",
                " [tool.ruff.lint.flake8-type-checking.dependencies]\n-foo = \"1.0\"\n",
                " [tool.poetry.dependencies]\n+rich = \"^13.0\"\n",
            ),
        ));
        assert!(
            pyproject.contains("the version in pyproject.toml 1.0 → 1.1"),
            "{pyproject}"
        );
        assert!(pyproject.contains("httpx >=0.24 → >=0.27"), "{pyproject}");
        assert!(pyproject.contains("added rich ^13.0"), "{pyproject}");
        assert!(!pyproject.contains("foo"), "{pyproject}");
        let cargo = said(diff(
            "Cargo.toml",
            concat!(
                " [dependencies]\n serde = \"1\"\n [dev-dependencies]\n+serde = \"1\"\n",
                " [target.\"cfg(unix)\".dependencies.nix]\n-version = \"0.27\"\n+version = \"0.29\"\n",
            ),
        ));
        assert!(cargo.contains("added serde 1"), "{cargo}");
        assert!(cargo.contains("nix 0.27 → 0.29"), "{cargo}");
        assert!(!cargo.contains("the version"), "{cargo}");
    }
}
