//! Mirrored folders (`mirror-policy@1`, D-118): a folder whose changed files are near-copies of
//! another folder's in the same change (a second copy of the sources for another runtime, such
//! as `python2/` beside `python3/` or `deno/lib/` beside `src/`), found by the changes
//! themselves: files with the same path below two different folders whose changed lines are
//! mostly the same, or files under other names in the same folders below them whose changed
//! lines are (a copy that renamed its files). The copy is left out with its rule; the folder it copies is judged. And
//! build output committed beside its TypeScript sources (`lib/a.js` built from `src/a.ts`).

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;

use super::{DiffFile, FileStatus};

/// Changed lines two files must share (of the larger side) to be near-copies.
pub const NEAR_COPY: f64 = 0.6;
/// Near-copies a pair of folders needs before one is called a mirror of the other.
pub const MIN_FILES: usize = 2;
/// Changed lines the near-copies of a pair must hold together (a one-line licence bump in two
/// files of the same name is not a mirror).
pub const MIN_LINES: usize = 20;
/// Files sharing a basename compared at most (a group larger than this is skipped: `mod.rs`,
/// `__init__.py` in every folder of a large tree say nothing).
const MAX_GROUP: usize = 64;

/// Folder names that say their files are a copy built for another runtime or target.
const COPY_NAMES: &[&str] = &[
    "deno", "esm", "esm5", "mjs", "cjs", "es", "es5", "es6", "es2015", "es2017", "es2020",
    "esnext", "fesm2015", "fesm2020", "fesm2022", "lib-esm", "umd", "amd", "commonjs", "module",
    "modules", "types", "typings", "legacy", "compat", "browser", "node", "mirror", "py2",
    "python2", "lib2", "dist", "build", "out",
];

/// One file left out as a mirror: its path, the folder it copies, and its counterpart there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mirrored {
    pub path: String,
    /// The folder it is a copy of (`python3`).
    pub of_folder: String,
    /// The copied file (`python3/httplib2/auth.py`).
    pub counterpart: String,
    /// The mirror folder (`python2`).
    pub folder: String,
}

impl Mirrored {
    /// The reason recorded in `excluded`.
    pub fn reason(&self) -> String {
        format!(
            "mirror of `{}/` (`{}/` holds a near-copy of each changed file: this one copies {})",
            self.of_folder, self.folder, self.counterpart
        )
    }
}

/// A near-copy: the file in the first folder, its copy in the second, and its changed lines.
type NearCopy = (usize, usize, usize);

/// The changed lines of a file, whitespace-trimmed, with their tags, counted.
fn changed(file: &DiffFile) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for line in file.hunks.iter().flat_map(|h| h.lines.iter()) {
        if line.tag == ' ' {
            continue;
        }
        let text = line.text.split_whitespace().collect::<Vec<_>>().join(" ");
        *out.entry(format!("{}{text}", line.tag)).or_default() += 1;
    }
    out
}

/// How much of the larger file's changed lines the two share, 0..=1.
fn shared(a: &HashMap<String, usize>, b: &HashMap<String, usize>) -> f64 {
    let (na, nb): (usize, usize) = (a.values().sum(), b.values().sum());
    if na == 0 || nb == 0 {
        return 0.0;
    }
    let common: usize = a
        .iter()
        .map(|(line, n)| (*n).min(b.get(line).copied().unwrap_or(0)))
        .sum();
    common as f64 / na.max(nb) as f64
}

/// A file name without its extensions (`index` for `index.ts`, `index.js` and `index.d.ts`):
/// a copy built for another runtime may change the extension.
fn stem(name: &str) -> &str {
    match name.find('.') {
        Some(0) | None => name,
        Some(i) => &name[..i],
    }
}

/// The folders above the longest common ending of two paths (`python2` and `python3` for
/// `python2/httplib2/auth.py` and `python3/httplib2/auth.py`; `src` and `esm` for `src/a.ts`
/// and `esm/a.js`); None when one has no folder left or the file names' stems differ.
fn roots(a: &str, b: &str) -> Option<(String, String)> {
    let (fa, fb) = (a.rsplit('/').next()?, b.rsplit('/').next()?);
    if stem(fa) != stem(fb) {
        return None;
    }
    folder_roots(a, b)
}

/// [`roots`] whatever the file names: the folders above the longest common ending of the two
/// files' folders (`python2` and `python3` for `python2/httplib2/core.py` and
/// `python3/httplib2/__init__.py`), for a copy that renamed its files.
fn folder_roots(a: &str, b: &str) -> Option<(String, String)> {
    let (pa, pb): (Vec<&str>, Vec<&str>) = (a.split('/').collect(), b.split('/').collect());
    let (da, db) = (&pa[..pa.len() - 1], &pb[..pb.len() - 1]);
    let common = da
        .iter()
        .rev()
        .zip(db.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ra, rb) = (&da[..da.len() - common], &db[..db.len() - common]);
    // Two folders side by side, neither inside the other.
    let nested = ra.starts_with(rb) || rb.starts_with(ra);
    (!ra.is_empty() && !rb.is_empty() && !nested).then(|| (ra.join("/"), rb.join("/")))
}

/// Whether a folder lies inside tests, fixtures or examples.
fn in_tests(folder: &str) -> bool {
    folder.split('/').any(|s| {
        matches!(
            s.to_lowercase().as_str(),
            "test"
                | "tests"
                | "spec"
                | "specs"
                | "__tests__"
                | "fixtures"
                | "testdata"
                | "examples"
        )
    })
}

/// The trailing number of a folder name (`python3` → 3), for choosing the newer copy.
fn version_of(folder: &str) -> Option<u32> {
    let name = folder.rsplit('/').next().unwrap_or(folder);
    let digits: String = name
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().ok()
}

/// Whether a folder's name says it holds a build for another runtime or target.
fn named(folder: &str) -> bool {
    folder
        .split('/')
        .any(|s| COPY_NAMES.contains(&s.to_lowercase().as_str()))
}

/// Whether two folders sit inside the same folder of the project (`src/runtime/a` and
/// `src/runtime/a_alt`, `src/node` and `src/browser`): there, a copy is an alternative the
/// project keeps by hand (its shared edits are asked once anyway), unless exactly one of them is
/// named for another runtime (`pkg/src` beside `pkg/deno`).
fn inside_one_tree(a: &str, b: &str) -> bool {
    a.split('/').next() == b.split('/').next() && named(a) == named(b)
}

/// Which of two folders is the copy: one named for another runtime or target, else the one
/// beside a `src` folder, else the lower version (`python2` beside `python3`), else the deeper
/// one, else the later in path order.
fn copy_of_pair<'a>(a: &'a str, b: &'a str) -> (&'a str, &'a str) {
    let src = |f: &str| f.split('/').any(|s| s == "src");
    if named(a) != named(b) {
        return if named(a) { (a, b) } else { (b, a) };
    }
    if src(a) != src(b) {
        return if src(b) { (a, b) } else { (b, a) };
    }
    if let (Some(va), Some(vb)) = (version_of(a), version_of(b))
        && va != vb
    {
        return if va < vb { (a, b) } else { (b, a) };
    }
    let depth = |f: &str| f.matches('/').count();
    if depth(a) != depth(b) {
        return if depth(a) > depth(b) { (a, b) } else { (b, a) };
    }
    if a > b { (a, b) } else { (b, a) }
}

/// The files of `files` (indexes of those still judged) that copy another folder's files in
/// this change, each with its counterpart. Deleted files are neither copies nor copied.
pub fn find(files: &[DiffFile], candidates: &[usize]) -> Vec<(usize, Mirrored)> {
    let live: Vec<usize> = candidates
        .iter()
        .copied()
        .filter(|&i| files[i].status != FileStatus::Deleted && !files[i].hunks.is_empty())
        .collect();
    let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for &i in &live {
        let name = files[i].path.rsplit('/').next().unwrap_or(&files[i].path);
        by_name.entry(stem(name)).or_default().push(i);
    }
    // Each file's changed lines, counted when a pair first needs them (most files share their
    // name with no other file, or only with files in no two parallel folders).
    let mut lines: HashMap<usize, HashMap<String, usize>> = HashMap::new();
    // (folder a, folder b) → near-copy pairs (file in a, file in b, changed lines).
    let mut pairs: BTreeMap<(String, String), Vec<NearCopy>> = BTreeMap::new();
    // Candidate pairs: files of the same name, then files of other names that share one of
    // their rarer changed lines (a copy that renamed its files).
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    for group in by_name
        .values()
        .filter(|g| g.len() >= 2 && g.len() <= MAX_GROUP)
    {
        for (n, &a) in group.iter().enumerate() {
            candidates.extend(group[n + 1..].iter().map(|&b| (a, b)));
        }
    }
    candidates.extend(renamed_candidates(files, &live));
    candidates.sort_unstable();
    candidates.dedup();
    for (a, b) in candidates {
        let Some((ra, rb)) = roots(&files[a].path, &files[b].path)
            .or_else(|| folder_roots(&files[a].path, &files[b].path))
        else {
            continue;
        };
        for i in [a, b] {
            lines.entry(i).or_insert_with(|| changed(&files[i]));
        }
        if shared(&lines[&a], &lines[&b]) < NEAR_COPY {
            continue;
        }
        let size = lines[&a].values().sum::<usize>();
        let (key, pair) = if ra <= rb {
            ((ra, rb), (a, b, size))
        } else {
            ((rb, ra), (b, a, size))
        };
        pairs.entry(key).or_default().push(pair);
    }
    let under = |folder: &str| {
        live.iter()
            .filter(|&&i| files[i].path.starts_with(&format!("{folder}/")))
            .count()
    };
    let qualifying: Vec<(&(String, String), &Vec<NearCopy>)> = pairs
        .iter()
        .filter(|((fa, fb), near)| {
            let lines_total: usize = near.iter().map(|p| p.2).sum();
            let (copy, _) = copy_of_pair(fa, fb);
            // Enough shared change, and most of the copy's changed files are near-copies (else
            // it is a folder of its own that shares a few files); fixtures and examples that
            // resemble each other are not a copy of the sources.
            near.len() >= MIN_FILES
                && lines_total >= MIN_LINES
                && near.len() * 2 >= under(copy)
                && !in_tests(fa)
                && !in_tests(fb)
                && !inside_one_tree(fa, fb)
        })
        .collect();
    // A mirror is one folder copying one other: a folder that resembles several (a family of
    // similar fixtures or examples) is none.
    let partners = |folder: &str| {
        qualifying
            .iter()
            .filter(|((a, b), _)| a == folder || b == folder)
            .count()
    };
    let mut out: Vec<(usize, Mirrored)> = Vec::new();
    for ((fa, fb), near) in qualifying.iter().copied() {
        if partners(fa) > 1 || partners(fb) > 1 {
            continue;
        }
        let (copy, original) = copy_of_pair(fa, fb);
        for &(a, b, _) in near {
            let (mirror, counterpart) = if copy == fa { (a, b) } else { (b, a) };
            if out.iter().any(|(i, _)| *i == mirror) {
                continue;
            }
            out.push((
                mirror,
                Mirrored {
                    path: files[mirror].path.clone(),
                    of_folder: original.to_owned(),
                    counterpart: files[counterpart].path.clone(),
                    folder: copy.to_owned(),
                },
            ));
        }
    }
    out.sort_by_key(|(i, _)| *i);
    out
}

/// Changed lines of a file looked at for partners under other names at most: its rarest.
const PROBE_LINES: usize = 16;
/// Changed lines shorter than this say too little to pair two files (`}`, `return x`).
const MIN_PROBE_CHARS: usize = 24;

/// Pairs of files with different names whose changed lines meet: for each file, up to
/// [`PROBE_LINES`] of its distinctive changed lines (long enough, and in at most
/// [`MAX_GROUP`] files), and the other files that change them too. Linear in the changed lines.
fn renamed_candidates(files: &[DiffFile], live: &[usize]) -> Vec<(usize, usize)> {
    // Lines are held by the hash of their tag and whitespace-normalized text: two lines that
    // merely collide make a candidate pair that the shared-lines count then turns down, and no
    // line is copied into a key of its own.
    let hasher = std::hash::RandomState::new();
    let mut holders: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut probes: Vec<(usize, Vec<u64>)> = Vec::new();
    let mut normal = String::new();
    for &i in live {
        let mut own: Vec<u64> = Vec::new();
        for line in files[i].hunks.iter().flat_map(|h| h.lines.iter()) {
            if line.tag == ' ' {
                continue;
            }
            normal.clear();
            normal.push(line.tag);
            for (n, word) in line.text.split_whitespace().enumerate() {
                if n > 0 {
                    normal.push(' ');
                }
                normal.push_str(word);
            }
            if normal.len() - line.tag.len_utf8() < MIN_PROBE_CHARS {
                continue;
            }
            let key = hasher.hash_one(normal.as_str());
            let at = holders.entry(key).or_default();
            if at.last() != Some(&i) {
                at.push(i);
                own.push(key);
            }
        }
        probes.push((i, own));
    }
    let name = |i: usize| stem(files[i].path.rsplit('/').next().unwrap_or(&files[i].path));
    let mut out = Vec::new();
    for (i, mut own) in probes {
        own.retain(|k| holders[k].len() <= MAX_GROUP);
        own.sort_by_key(|k| holders[k].len());
        for key in own.iter().take(PROBE_LINES) {
            for &j in &holders[key] {
                if j > i && name(i) != name(j) {
                    out.push((i, j));
                }
            }
        }
    }
    out
}

/// Endings of what a TypeScript build writes.
const COMPILED: &[&str] = &[
    ".js",
    ".mjs",
    ".cjs",
    ".jsx",
    ".js.map",
    ".d.ts",
    ".d.mts",
    ".d.cts",
    ".d.ts.map",
];
/// Endings of TypeScript sources (a declaration file is not one).
const TYPED: &[&str] = &[".ts", ".tsx", ".mts", ".cts"];

fn is_typed_source(name: &str) -> bool {
    TYPED.iter().any(|e| name.ends_with(e)) && !name.contains(".d.")
}

fn is_compiled(name: &str) -> bool {
    COMPILED.iter().any(|e| name.ends_with(e))
}

/// Build output committed beside its sources: a JavaScript or declaration file whose
/// TypeScript source at the same path below another folder changes too (`lib/a/b.js`,
/// `lib/a/b.d.ts` beside `src/a/b.ts`), at least [`MIN_FILES`] such files between the same two
/// folders. Each comes back with its source's path and the two folders.
pub fn compiled(files: &[DiffFile], candidates: &[usize]) -> Vec<(usize, String)> {
    let live: Vec<usize> = candidates
        .iter()
        .copied()
        .filter(|&i| files[i].status != FileStatus::Deleted)
        .collect();
    let name = |i: usize| files[i].path.rsplit('/').next().unwrap_or(&files[i].path);
    let mut by_stem: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for &i in &live {
        by_stem.entry(stem(name(i))).or_default().push(i);
    }
    // (output folder, source folder) → (output, source) pairs.
    let mut pairs: BTreeMap<(String, String), Vec<(usize, usize)>> = BTreeMap::new();
    for group in by_stem
        .values()
        .filter(|g| g.len() >= 2 && g.len() <= MAX_GROUP)
    {
        for &out in group.iter().filter(|&&i| is_compiled(name(i))) {
            let Some(&src) = group.iter().find(|&&i| {
                is_typed_source(name(i)) && roots(&files[out].path, &files[i].path).is_some()
            }) else {
                continue;
            };
            if let Some(key) = roots(&files[out].path, &files[src].path) {
                pairs.entry(key).or_default().push((out, src));
            }
        }
    }
    let mut found: Vec<(usize, String)> = pairs
        .into_values()
        .filter(|p| p.len() >= MIN_FILES)
        .flatten()
        .map(|(out, src)| (out, files[src].path.clone()))
        .collect();
    found.sort();
    found.dedup_by_key(|(i, _)| *i);
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::parse_diff;

    fn file(path: &str, body: &[&str]) -> String {
        let lines: String = body.iter().map(|l| format!("+{l}\n")).collect();
        format!(
            "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,0 +1,{} @@\n{lines}",
            body.len()
        )
    }

    #[test]
    fn a_second_copy_of_the_changed_files_is_a_mirror_and_the_newer_is_kept() {
        let body: Vec<String> = (0..15)
            .map(|i| format!("value_{i} = compute({i})"))
            .collect();
        let body: Vec<&str> = body.iter().map(String::as_str).collect();
        let mut py2 = body.clone();
        py2[0] = "value_0 = compute(0L)";
        let text = [
            file("python2/pkg/auth.py", &py2),
            file("python2/pkg/error.py", &body),
            file("python3/pkg/auth.py", &body),
            file("python3/pkg/error.py", &body),
            file("tests/test_auth.py", &body[..3]),
        ]
        .concat();
        let files = parse_diff(&text);
        let all: Vec<usize> = (0..files.len()).collect();
        let found = find(&files, &all);
        let paths: Vec<&str> = found.iter().map(|(_, m)| m.path.as_str()).collect();
        assert_eq!(paths, ["python2/pkg/auth.py", "python2/pkg/error.py"]);
        assert_eq!(found[0].1.of_folder, "python3");
        assert_eq!(copy_of_pair("src", "deno/lib"), ("deno/lib", "src"));
        assert_eq!(
            roots("src/util/a.ts", "esm/util/a.js"),
            Some(("src".into(), "esm".into()))
        );
        assert_eq!(roots("src/a.ts", "esm/b.js"), None);
        assert_eq!(roots("a/x.ts", "a/b/x.ts"), None);
        assert!(inside_one_tree(
            "src/runtime/scheduler/multi_thread",
            "src/runtime/scheduler/multi_thread_alt"
        ));
        assert!(!inside_one_tree(
            "packages/zod/src",
            "packages/zod/deno/lib"
        ));
    }

    #[test]
    fn javascript_built_from_changed_typescript_is_compiled_output() {
        let text = [
            file("src/util/a.ts", &["export const a: number = 1;"]),
            file("src/b.ts", &["export const b: string = 'b';"]),
            file("lib/util/a.js", &["export const a = 1;"]),
            file("lib/util/a.d.ts", &["export declare const a: number;"]),
            file("lib/b.js", &["export const b = 'b';"]),
            file("lib/c.js", &["export const c = 3;"]),
            file("scripts/b.js", &["run();"]),
        ]
        .concat();
        let files = parse_diff(&text);
        let all: Vec<usize> = (0..files.len()).collect();
        let built = compiled(&files, &all);
        let found: Vec<(&str, &str)> = built
            .iter()
            .map(|(i, source)| (files[*i].path.as_str(), source.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                ("lib/util/a.js", "src/util/a.ts"),
                ("lib/util/a.d.ts", "src/util/a.ts"),
                ("lib/b.js", "src/b.ts"),
            ]
        );
    }

    #[test]
    fn similar_fixtures_are_not_a_mirror() {
        let body: Vec<String> = (0..15)
            .map(|i| format!("line {i} of the licence"))
            .collect();
        let body: Vec<&str> = body.iter().map(String::as_str).collect();
        let text = [
            file("tests/fixtures/one/LICENSE", &body),
            file("tests/fixtures/one/README.rst", &body),
            file("tests/fixtures/two/LICENSE", &body),
            file("tests/fixtures/two/README.rst", &body),
            file("a/LICENSE", &body),
            file("a/README.rst", &body),
            file("b/LICENSE", &body),
            file("b/README.rst", &body),
            file("c/LICENSE", &body),
            file("c/README.rst", &body),
        ]
        .concat();
        let files = parse_diff(&text);
        let all: Vec<usize> = (0..files.len()).collect();
        assert!(find(&files, &all).is_empty(), "{:?}", find(&files, &all));
    }

    #[test]
    fn a_small_shared_edit_is_not_a_mirror() {
        let text = [
            file("a/util.py", &["# Copyright 2024"]),
            file("b/util.py", &["# Copyright 2024"]),
            file("a/io.py", &["# Copyright 2024"]),
            file("b/io.py", &["# Copyright 2024"]),
        ]
        .concat();
        let files = parse_diff(&text);
        let all: Vec<usize> = (0..files.len()).collect();
        assert!(find(&files, &all).is_empty());
    }
}
