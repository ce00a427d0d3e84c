//! The repository's attributes for the files of a diff, as `git check-attr` reads them: each
//! attribute's state from libgit2's lookup (nested `.gitattributes`, `info/attributes`, macros,
//! the worktree file then the index), and the attributes file and line that set it, so an
//! exclusion names what a person can open (D-163).

use std::collections::HashMap;
use std::path::Path;

use git2::{AttrCheckFlags, AttrValue, Repository};
use stanley_workflows::declared::{
    Attribute, AttributesFile, Declaration, Declared, Placement, State, origin,
};

/// Largest attributes file read to name a declaration's line (1 MiB).
const MAX_ATTRIBUTES_BYTES: u64 = 1 << 20;

/// The attributes files outside the worktree: `info/attributes` (which wins over every
/// `.gitattributes`) and `core.attributesFile` (which loses to them).
#[derive(Default)]
struct Outer {
    info: Option<AttributesFile>,
    global: Option<AttributesFile>,
}

/// Attribute lookups for one diff, with the attributes files read once each.
pub(super) struct Attributes<'r> {
    repo: &'r Repository,
    root: &'r Path,
    /// `.gitattributes` by folder (`""` for the top), None where there is none.
    folders: HashMap<String, Option<AttributesFile>>,
    /// `info/attributes` and the configured global file, read on first need.
    outer: Option<Outer>,
}

impl<'r> Attributes<'r> {
    pub(super) fn new(repo: &'r Repository, root: &'r Path) -> Self {
        Self {
            repo,
            root,
            folders: HashMap::new(),
            outer: None,
        }
    }

    /// What the repository declares about `path`: every attribute of [`Attribute::ALL`] that is
    /// specified for it, with the line that set it where one can be named.
    pub(super) fn of(&mut self, path: &str) -> Declared {
        let mut declared = Declared::default();
        for attribute in Attribute::ALL {
            let Ok(value) = self.repo.get_attr(
                Path::new(path),
                attribute.name(),
                AttrCheckFlags::FILE_THEN_INDEX,
            ) else {
                continue;
            };
            let state = match AttrValue::from_string(value) {
                AttrValue::True => State::Set,
                AttrValue::False => State::Unset,
                AttrValue::String(v) => State::Value(v.to_owned()),
                AttrValue::Bytes(v) => State::Value(String::from_utf8_lossy(v).into_owned()),
                AttrValue::Unspecified => continue,
            };
            declared.declarations.push(Declaration {
                attribute,
                state,
                origin: None,
            });
        }
        if declared.is_empty() {
            return declared;
        }
        self.load_for(path);
        let files = self.precedence(path);
        for d in &mut declared.declarations {
            d.origin = origin(&files, path, d.attribute);
        }
        declared
    }

    /// [`Attributes::of`], asking libgit2 only when a line of the attributes files that bear
    /// on `path` matches it and states one of the attributes: a tree of many files with few
    /// declarations costs a pattern match per file, not four lookups (find, D-163). Git's
    /// system file and the default global file are not read here.
    pub(super) fn of_stated(&mut self, path: &str) -> Declared {
        self.load_for(path);
        let files = self.precedence(path);
        if Attribute::ALL
            .iter()
            .all(|a| origin(&files, path, *a).is_none())
        {
            return Declared::default();
        }
        self.of(path)
    }

    /// Reads the attributes files that can bear on `path`.
    fn load_for(&mut self, path: &str) {
        if self.outer.is_none() {
            let mut outer = Outer::default();
            let info = self.repo.path().join("info").join("attributes");
            if let Some(text) = read_text(&info) {
                outer.info = Some(AttributesFile::parse(
                    ".git/info/attributes",
                    Placement {
                        folder: "",
                        top_level: true,
                    },
                    &text,
                ));
            }
            if let Some(global) = self
                .repo
                .config()
                .ok()
                .and_then(|c| c.get_path("core.attributesFile").ok())
                && let Some(text) = read_text(&global)
            {
                outer.global = Some(AttributesFile::parse(
                    &global.display().to_string(),
                    Placement {
                        folder: "",
                        top_level: true,
                    },
                    &text,
                ));
            }
            self.outer = Some(outer);
        }
        for folder in folders_of(path) {
            if self.folders.contains_key(folder) {
                continue;
            }
            let name = if folder.is_empty() {
                ".gitattributes".to_owned()
            } else {
                format!("{folder}/.gitattributes")
            };
            let file = self.read_in_repo(&name).map(|text| {
                AttributesFile::parse(
                    &name,
                    Placement {
                        folder,
                        top_level: folder.is_empty(),
                    },
                    &text,
                )
            });
            self.folders.insert(folder.to_owned(), file);
        }
    }

    /// The files that bear on `path`, the one that wins first: `info/attributes`, the nearest
    /// `.gitattributes` up to the top one, then the global file.
    fn precedence(&self, path: &str) -> Vec<&AttributesFile> {
        let outer = self.outer.as_ref();
        let mut files: Vec<&AttributesFile> =
            outer.and_then(|o| o.info.as_ref()).into_iter().collect();
        files.extend(folders_of(path).filter_map(|f| self.folders.get(f).and_then(Option::as_ref)));
        files.extend(outer.and_then(|o| o.global.as_ref()));
        files
    }

    /// A repository file's text: the worktree's regular file, else the index's, as Git's
    /// lookup takes it (a link is never followed).
    fn read_in_repo(&self, name: &str) -> Option<String> {
        if let Some(text) = read_text(&self.root.join(name)) {
            return Some(text);
        }
        let index = self.repo.index().ok()?;
        let entry = index.get_path(Path::new(name), 0)?;
        let blob = self.repo.find_blob(entry.id).ok()?;
        (blob.size() as u64 <= MAX_ATTRIBUTES_BYTES)
            .then(|| String::from_utf8_lossy(blob.content()).into_owned())
    }
}

/// A regular file's text, bounded, not through a link.
fn read_text(path: &Path) -> Option<String> {
    crate::records::read_bounded(path, MAX_ATTRIBUTES_BYTES)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// The folders above `path`, nearest first, ending with `""` (the top).
fn folders_of(path: &str) -> impl Iterator<Item = &str> {
    let mut at = Some(path);
    std::iter::from_fn(move || {
        let current = at?;
        match current.rfind('/') {
            Some(i) => {
                at = Some(&current[..i]);
                Some(&current[..i])
            }
            None => {
                at = None;
                Some("")
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_nearest_first_then_the_top() {
        assert_eq!(
            folders_of("a/b/c.txt").collect::<Vec<_>>(),
            vec!["a/b", "a", ""]
        );
        assert_eq!(folders_of("c.txt").collect::<Vec<_>>(), vec![""]);
    }
}
