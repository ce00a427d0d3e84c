//! One exclusion policy for find and the diff analyses: which files are never judged (credential
//! paths, binaries, compiled output, vendored code, lockfiles, generated, minified and large
//! data files, links and submodules), each with its rule and a reason recorded in `excluded`.

use serde::Serialize;

use crate::paths::PathKind;

/// Bytes of a file's beginning that are read to look for a generated-file marker.
pub const HEAD_BYTES: usize = 2048;
/// Lines of a file's beginning searched for a generated-file marker.
const MARKER_LINES: usize = 12;
/// A data file larger than this is left out (`large data file`).
pub const LARGE_DATA_BYTES: u64 = 64 * 1024;
/// A line at least this long in a code or style file marks it as minified.
pub const MINIFIED_LINE_CHARS: usize = 1000;

/// What is known of one file besides its path: the side that would be judged (the new side, or
/// the old side of a deletion).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileFacts {
    /// Its size in bytes.
    pub bytes: u64,
    /// Its first [`HEAD_BYTES`] bytes, decoded lossily.
    pub head: String,
    /// A symbolic link (its target is never followed).
    pub symlink: bool,
    /// A submodule (a commit of another repository).
    pub submodule: bool,
    /// What the change does to the file as a whole (added, deleted), when the Git port knows.
    pub change: Option<WholeFile>,
}

/// A change to a whole file, which a binary change's label names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WholeFile {
    Added,
    Deleted,
}

/// The rule that left a file out (`exclusion-policy@2`): every exclusion names one, so a
/// person can tell which convention decided it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// A credential-shaped path (`.env`, keys, `.ssh/`).
    SecretPath,
    /// A binary or compiled file by its extension.
    BinaryExtension,
    /// Binary content (a NUL byte), or a binary change.
    BinaryContent,
    /// Inside a vendored folder (`vendor/`, `_vendor/`, `third_party/`, `node_modules/`, …).
    VendoredFolder,
    /// A package manager's lockfile.
    Lockfile,
    /// Written by a tool, told by its folder or name (`dist/`, `*.min.js`, `PKG-INFO`).
    GeneratedPath,
    /// Written by a tool, told by a header comment that says so.
    GeneratedHeader,
    /// A code, style or data file with a line of 1,000 characters or more.
    Minified,
    /// A data file over 64 KiB.
    LargeData,
    /// A folder whose changed files are near-copies of another folder's in the same change.
    MirrorFolder,
    /// JavaScript or declarations built from TypeScript sources that change too.
    CompiledOutput,
    /// A symbolic link.
    Symlink,
    /// A submodule.
    Submodule,
    /// Renamed or copied without an edit.
    Unchanged,
    /// A mode change and nothing else.
    ModeOnly,
    /// A file with no content (added or deleted empty).
    EmptyFile,
    /// Not readable here (gone, not a regular file, or a size past a limit).
    Unreadable,
    /// Past the size limit of a diff or an untracked file.
    SizeLimit,
}

impl Rule {
    /// The wire spelling (`vendored-folder`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::SecretPath => "secret-path",
            Rule::BinaryExtension => "binary-extension",
            Rule::BinaryContent => "binary-content",
            Rule::VendoredFolder => "vendored-folder",
            Rule::Lockfile => "lockfile",
            Rule::GeneratedPath => "generated-path",
            Rule::GeneratedHeader => "generated-header",
            Rule::Minified => "minified",
            Rule::LargeData => "large-data",
            Rule::MirrorFolder => "mirror-folder",
            Rule::CompiledOutput => "compiled-output",
            Rule::Symlink => "symlink",
            Rule::Submodule => "submodule",
            Rule::Unchanged => "unchanged",
            Rule::ModeOnly => "mode-only",
            Rule::EmptyFile => "empty-file",
            Rule::Unreadable => "unreadable",
            Rule::SizeLimit => "size-limit",
        }
    }

    /// Whether files this rule leaves out are still read by deterministic checks (lockfiles
    /// and what tools write are set aside rather than dropped).
    pub fn sets_aside(self) -> bool {
        matches!(
            self,
            Rule::Lockfile | Rule::GeneratedPath | Rule::GeneratedHeader | Rule::CompiledOutput
        )
    }
}

/// Why a file is left out: the rule and a sentence that names what matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub rule: Rule,
    pub reason: String,
}

impl Verdict {
    /// A verdict of `rule` for `reason`.
    pub fn new(rule: Rule, reason: impl Into<String>) -> Self {
        Self {
            rule,
            reason: reason.into(),
        }
    }
}

/// Why a path is left out by its path alone (its kind, and what matched), if it is.
pub fn by_path(path: &str, kind: PathKind) -> Option<Verdict> {
    match kind {
        PathKind::Secret => Some(Verdict::new(Rule::SecretPath, "credential-shaped path")),
        PathKind::Binary => Some(Verdict::new(
            Rule::BinaryExtension,
            "binary or compiled file",
        )),
        PathKind::Vendored => Some(Verdict::new(
            Rule::VendoredFolder,
            match crate::paths::vendored_folder(path) {
                Some(folder) => format!("vendored dependency (in a `{folder}/` folder)"),
                None => "vendored dependency".to_owned(),
            },
        )),
        PathKind::Lockfile => Some(Verdict::new(Rule::Lockfile, "lockfile")),
        PathKind::Generated => Some(Verdict::new(
            Rule::GeneratedPath,
            match crate::paths::generated_by_path(path) {
                Some(mark) => format!("generated file (by its {mark})"),
                None => "generated file".to_owned(),
            },
        )),
        _ => None,
    }
}

/// The phrases a header comment uses to say its file is generated. Each must describe the
/// file: `@generated`, "do not edit" (unless it is about a line or a section), "this file is
/// (automatically) generated", "generated by …" opening the comment, "code generated by".
fn marks_file_generated(comment: &str) -> bool {
    const ANYWHERE: &[&str] = &[
        "@generated",
        "code generated by",
        "this file is generated",
        "this file was generated",
        "this file is auto-generated",
        "this file was auto-generated",
        "this file is automatically generated",
        "this file was automatically generated",
        "this file is autogenerated",
        "this file was autogenerated",
        "file generated by",
        "automatically generated by",
        "auto-generated by",
        "autogenerated by",
        "generated code",
    ];
    const OPENING: &[&str] = &[
        "generated by",
        "generated from",
        "auto-generated",
        "autogenerated",
        "automatically generated",
        "this is a generated file",
    ];
    const NOT_THE_FILE: &[&str] = &[
        "this line",
        "these lines",
        "the line",
        "below",
        "above",
        "this section",
        "this block",
        "between",
    ];
    let text = comment.to_lowercase();
    let text = text.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '@');
    if ANYWHERE.iter().any(|m| text.contains(m)) || OPENING.iter().any(|m| text.starts_with(m)) {
        return true;
    }
    ["do not edit", "do not modify", "don't edit"]
        .iter()
        .filter_map(|m| text.find(m).map(|at| &text[at + m.len()..]))
        .any(|rest| about_the_file(rest) && !NOT_THE_FILE.iter().any(|m| rest.contains(m)))
}

/// Whether what follows "do not edit" is about the whole file: nothing, punctuation, "this
/// file", "manually", "by hand", "directly" or "it" (not "the ASYFUNCNAME sets by hand").
fn about_the_file(rest: &str) -> bool {
    let rest = rest.trim_start();
    rest.is_empty()
        || rest.starts_with(|c: char| !c.is_alphanumeric())
        || [
            "this file",
            "the file",
            "this generated",
            "manually",
            "by hand",
            "directly",
            "it",
            "unless",
        ]
        .iter()
        .any(|w| {
            rest.strip_prefix(w)
                .is_some_and(|after| !after.starts_with(char::is_alphanumeric))
        })
}

/// The generated-file marker in `head`'s header comment, if any: only comments before the
/// first line of code count (after a shebang or encoding line), and only a phrase that says the
/// file itself is generated. A version line ending in `# DO NOT EDIT THIS LINE` or a comment
/// that some values are generated is not a marker.
pub fn generated_marker(head: &str) -> Option<String> {
    let mut block: Option<&str> = None;
    for (i, raw) in head.lines().take(MARKER_LINES).enumerate() {
        let line = raw.trim();
        let comment = if let Some(end) = block {
            if line.contains(end) {
                block = None;
            }
            Some(line)
        } else if line.is_empty() || (i == 0 && line.starts_with("#!")) {
            continue;
        } else if let Some(rest) = ["/*", "<!--", "\"\"\"", "'''", "{-", "(*"]
            .iter()
            .find_map(|open| line.strip_prefix(open).map(|rest| (open, rest)))
        {
            let close = match *rest.0 {
                "/*" => "*/",
                "<!--" => "-->",
                "{-" => "-}",
                "(*" => "*)",
                other => other,
            };
            if !rest.1.contains(close) {
                block = Some(close);
            }
            Some(rest.1)
        } else {
            ["//", "#", "--", ";", "%", "*"]
                .iter()
                .find_map(|open| line.strip_prefix(open))
        };
        let Some(comment) = comment else {
            // The first line of code ends the header.
            return None;
        };
        if marks_file_generated(comment) {
            let cut: String = line.chars().take(80).collect();
            return Some(if cut.len() < line.len() {
                format!("{cut}…")
            } else {
                cut
            });
        }
    }
    None
}

/// Whether `path` names a data file by its extension.
pub fn is_data_path(path: &str) -> bool {
    const DATA: &[&str] = &[
        ".json", ".jsonl", ".ndjson", ".geojson", ".csv", ".tsv", ".xml", ".dat", ".yaml", ".yml",
        ".tab", ".psv", ".arff", ".dic",
    ];
    let lower = path.to_lowercase();
    DATA.iter().any(|e| lower.ends_with(e))
}

/// Whether a file of `kind` whose longest line has `longest` characters is minified: a code,
/// style or data file with a line of at least [`MINIFIED_LINE_CHARS`].
pub fn is_minified(path: &str, longest: usize) -> bool {
    const MINIFIABLE: &[&str] = &[
        ".js", ".mjs", ".cjs", ".css", ".json", ".svg", ".html", ".map",
    ];
    let lower = path.to_lowercase();
    longest >= MINIFIED_LINE_CHARS && MINIFIABLE.iter().any(|e| lower.ends_with(e))
}

/// Why a file is left out, judging by its path kind and what is known of its content; None when
/// it may be judged. `longest` is the longest line seen of it (in its diff, or its head).
pub fn reason(
    path: &str,
    kind: PathKind,
    facts: Option<&FileFacts>,
    longest: usize,
) -> Option<Verdict> {
    if let Some(facts) = facts {
        if facts.submodule {
            return Some(Verdict::new(
                Rule::Submodule,
                "submodule (its commits are not read)",
            ));
        }
        if facts.symlink {
            return Some(Verdict::new(
                Rule::Symlink,
                "symbolic link (its target is not followed)",
            ));
        }
    }
    if let Some(v) = by_path(path, kind) {
        return Some(v);
    }
    if let Some(facts) = facts {
        if let Some(marker) = generated_marker(&facts.head) {
            return Some(Verdict::new(
                Rule::GeneratedHeader,
                format!("generated file (marked \"{marker}\")"),
            ));
        }
        if is_data_path(path) && facts.bytes > LARGE_DATA_BYTES {
            return Some(Verdict::new(
                Rule::LargeData,
                format!(
                    "large data file ({} bytes, over {LARGE_DATA_BYTES})",
                    facts.bytes
                ),
            ));
        }
    }
    if is_minified(path, longest) {
        return Some(Verdict::new(
            Rule::Minified,
            format!("minified file (a line of {longest} characters)"),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(bytes: u64, head: &str) -> FileFacts {
        FileFacts {
            bytes,
            head: head.into(),
            ..FileFacts::default()
        }
    }

    #[test]
    fn markers_in_the_first_lines_mark_a_file_generated() {
        for head in [
            "// DO NOT EDIT THIS FILE. IT WAS AUTOMATICALLY GENERATED BY:\n//\n//   ucd-generate",
            "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x",
            "# @generated by pip-compile\nrequests==2",
            "/* eslint-disable */\n/**\n * This file was generated by a tool.\n */",
        ] {
            assert!(generated_marker(head).is_some(), "{head}");
        }
        assert_eq!(generated_marker("fn main() {}\n// edit freely"), None);
        // A marker has to describe the file, in the header comment.
        for head in [
            "__version__ = \"1.2.0\"  # DO NOT EDIT THIS LINE MANUALLY. LET bump2version UTILITY DO IT",
            "# Some classifiers are generated from the list below\n[project]\nname = \"x\"",
            "import os\n# This file is generated\n",
            "# Edit the list below; DO NOT EDIT the lines above by hand\nx = 1",
            "\"\"\"\n    pygments.lexers._asy_builtins\n\n    Do not edit the ASYFUNCNAME and ASYVARNAME sets by hand.\n\"\"\"",
        ] {
            assert_eq!(generated_marker(head), None, "{head}");
        }
        for head in [
            "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# Generated by Django 4.2 on 2024-01-01\n",
            "\"\"\"\nThis file was automatically generated by tools/gen.py.\n\"\"\"\nX = 1",
            "<!-- DO NOT EDIT: generated from schema.json -->\n<table>",
        ] {
            assert!(generated_marker(head).is_some(), "{head}");
        }
        let late = format!("{}// DO NOT EDIT", "x\n".repeat(MARKER_LINES));
        assert_eq!(generated_marker(&late), None, "only the first lines count");
    }

    #[test]
    fn reasons_in_order() {
        let link = FileFacts {
            symlink: true,
            ..FileFacts::default()
        };
        let text = |v: Option<Verdict>| v.map(|v| (v.rule, v.reason));
        assert_eq!(
            text(reason("a.rs", PathKind::Source, Some(&link), 0)),
            Some((
                Rule::Symlink,
                "symbolic link (its target is not followed)".into()
            ))
        );
        assert_eq!(
            text(reason("Cargo.lock", PathKind::Lockfile, None, 0)),
            Some((Rule::Lockfile, "lockfile".into()))
        );
        let generated = facts(10, "// @generated\n");
        assert_eq!(
            text(reason(
                "src/tables.rs",
                PathKind::Source,
                Some(&generated),
                0
            )),
            Some((
                Rule::GeneratedHeader,
                "generated file (marked \"// @generated\")".into()
            ))
        );
        assert_eq!(
            text(reason(
                "src/pip/_vendor/rich/console.py",
                PathKind::Vendored,
                None,
                0
            )),
            Some((
                Rule::VendoredFolder,
                "vendored dependency (in a `_vendor/` folder)".into()
            ))
        );
        let big = facts(LARGE_DATA_BYTES + 1, "{\n");
        assert!(
            reason("db.json", PathKind::Other, Some(&big), 0)
                .is_some_and(|r| r.reason.starts_with("large data file"))
        );
        let big_source = facts(LARGE_DATA_BYTES + 1, "fn x() {}\n");
        assert_eq!(
            reason("src/big.rs", PathKind::Source, Some(&big_source), 80),
            None
        );
        assert!(
            reason("app.js", PathKind::Source, Some(&facts(9, "x")), 5000)
                .is_some_and(|r| r.rule == Rule::Minified)
        );
        assert_eq!(
            reason("src/lib.rs", PathKind::Source, Some(&facts(9, "x")), 5000),
            None
        );
    }
}
