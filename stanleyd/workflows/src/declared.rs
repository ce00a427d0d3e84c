//! What a repository declares about a file in its gitattributes (`linguist-generated`,
//! `linguist-vendored`, `linguist-documentation`, `diff` and the `binary` macro): the first
//! source of a file's kind, ahead of Stanley's own guesses by path or content, in both
//! directions (`linguist-vendored=false` keeps a `vendor/` file in the review).

use serde::Serialize;

/// An attribute a repository uses to say what a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Attribute {
    LinguistGenerated,
    LinguistVendored,
    LinguistDocumentation,
    Diff,
}

impl Attribute {
    /// Every attribute read, in the order a verdict looks at them.
    pub const ALL: [Attribute; 4] = [
        Attribute::LinguistVendored,
        Attribute::LinguistGenerated,
        Attribute::LinguistDocumentation,
        Attribute::Diff,
    ];

    /// The attribute's name as gitattributes spell it.
    pub fn name(self) -> &'static str {
        match self {
            Attribute::LinguistGenerated => "linguist-generated",
            Attribute::LinguistVendored => "linguist-vendored",
            Attribute::LinguistDocumentation => "linguist-documentation",
            Attribute::Diff => "diff",
        }
    }
}

/// An attribute's state for one path, as Git reports it (`git check-attr`): set, unset, or a
/// value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// `name`, or `name=true` for the linguist attributes.
    Set,
    /// `-name`, or `name=false` for the linguist attributes.
    Unset,
    /// `name=value` (a diff driver: `diff=json`).
    Value(String),
}

/// Where a declaration was made: the attributes file and line whose pattern matched last, and
/// the macro it came through, if any (`binary` unsets `diff`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Origin {
    /// `.gitattributes`, `tests/.gitattributes`, `.git/info/attributes`, or the global
    /// attributes file's path.
    pub file: String,
    /// 1-based.
    pub line: usize,
    /// The macro the line names, when the attribute is not named itself.
    #[serde(rename = "macro", skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

/// One declaration: an attribute, its state for the file, and where it was set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    pub attribute: Attribute,
    pub state: State,
    /// None when no attributes file could be named (Git's system file, say).
    pub origin: Option<Origin>,
}

impl Declaration {
    /// Whether the declaration says yes: for the linguist attributes `set` or `=true`; for
    /// `diff`, set or a driver (the file is diffed as text). None for a value that says neither
    /// (`linguist-generated=maybe`).
    pub fn says(&self) -> Option<bool> {
        match (&self.state, self.attribute) {
            (State::Set, _) => Some(true),
            (State::Unset, _) => Some(false),
            (State::Value(_), Attribute::Diff) => Some(true),
            (State::Value(v), _) if v.eq_ignore_ascii_case("true") => Some(true),
            (State::Value(v), _) if v.eq_ignore_ascii_case("false") => Some(false),
            (State::Value(_), _) => None,
        }
    }

    /// Whether it takes a file out of review: vendored or generated, or not diffed.
    pub fn leaves_out(&self) -> bool {
        match self.attribute {
            Attribute::LinguistVendored | Attribute::LinguistGenerated => self.says() == Some(true),
            Attribute::Diff => self.says() == Some(false),
            Attribute::LinguistDocumentation => false,
        }
    }

    /// The attribute as the file states it: `linguist-generated`, `-diff`, `diff=json`, or the
    /// macro that carries it (`binary`).
    pub fn spelled(&self) -> String {
        if let Some(via) = self.origin.as_ref().and_then(|o| o.via.as_deref()) {
            return via.to_owned();
        }
        let name = self.attribute.name();
        match &self.state {
            State::Set => name.to_owned(),
            State::Unset => format!("-{name}"),
            State::Value(v) => format!("{name}={v}"),
        }
    }

    /// `` `linguist-generated` in tests/.gitattributes:3 ``: what a person looks up.
    pub fn describe(&self) -> String {
        match &self.origin {
            Some(o) => format!("`{}` in {}:{}", self.spelled(), o.file, o.line),
            None => format!("`{}` in the attributes", self.spelled()),
        }
    }

    /// The record of the declaration, as run records and results show it.
    pub fn record(&self) -> DeclaredBy {
        DeclaredBy {
            attribute: self.spelled(),
            file: self.origin.as_ref().map(|o| o.file.clone()),
            line: self.origin.as_ref().map(|o| o.line),
        }
    }
}

/// The declaration behind an exclusion, as recorded: the attribute as written and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeclaredBy {
    pub attribute: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

/// What the repository declares about one file: each attribute that is specified for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Declared {
    pub declarations: Vec<Declaration>,
}

impl Declared {
    /// The declaration of `attribute`, if the file has one.
    pub fn get(&self, attribute: Attribute) -> Option<&Declaration> {
        self.declarations.iter().find(|d| d.attribute == attribute)
    }

    /// What the declaration of `attribute` says, if there is one that says yes or no.
    pub fn says(&self, attribute: Attribute) -> Option<bool> {
        self.get(attribute).and_then(Declaration::says)
    }

    /// The declaration of `attribute` when it says `yes`.
    pub fn saying(&self, attribute: Attribute, yes: bool) -> Option<&Declaration> {
        self.get(attribute).filter(|d| d.says() == Some(yes))
    }

    /// Whether nothing is declared.
    pub fn is_empty(&self) -> bool {
        self.declarations.is_empty()
    }
}

/// One attributes file, parsed once: its lines' patterns compiled, for naming the line that
/// declared an attribute (Git itself decides the attribute's state; this only says where).
#[derive(Clone, Debug)]
pub struct AttributesFile {
    /// The name shown for it (`tests/.gitattributes`, `.git/info/attributes`).
    name: String,
    lines: Vec<AttributeLine>,
    /// `[attr]name …` definitions, honoured in the top-level files only, as Git does.
    macros: Vec<(String, Vec<String>)>,
}

#[derive(Clone, Debug)]
struct AttributeLine {
    number: usize,
    pattern: crate::glob::Globs,
    /// The attribute tokens as written (`linguist-generated`, `-diff`, `binary`).
    tokens: Vec<String>,
}

/// Where an attributes file sits: the folder whose paths its patterns are relative to
/// (`""` for the top), and whether it may define macros.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement<'a> {
    pub folder: &'a str,
    pub top_level: bool,
}

impl AttributesFile {
    /// Parses `text`, the attributes file shown as `name` and placed at `at`.
    pub fn parse(name: &str, at: Placement<'_>, text: &str) -> Self {
        let mut lines = Vec::new();
        let mut macros = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (pattern, rest) = split_pattern(line);
            let tokens: Vec<String> = rest.split_whitespace().map(str::to_owned).collect();
            if let Some(name) = pattern.strip_prefix("[attr]") {
                if at.top_level {
                    macros.push((name.to_owned(), tokens));
                }
                continue;
            }
            // A pattern that ends in `/` names folders, and attributes are never given to a
            // folder's files through it; a negative pattern is refused by Git.
            if pattern.ends_with('/') || pattern.starts_with('!') || tokens.is_empty() {
                continue;
            }
            let Some(glob) = to_glob(at.folder, &pattern) else {
                continue;
            };
            lines.push(AttributeLine {
                number: i + 1,
                pattern: crate::glob::Globs::new(&[glob]),
                tokens,
            });
        }
        Self {
            name: name.to_owned(),
            lines,
            macros,
        }
    }

    /// The `[attr]` macros this file defines.
    pub fn macros(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.macros.iter().map(|(n, t)| (n.as_str(), t.as_slice()))
    }

    /// The last line whose pattern matches `path` and that states `attribute`, itself or
    /// through a macro of `macros` (`binary` is Git's own).
    fn stating(&self, path: &str, attribute: Attribute, macros: &Macros<'_>) -> Option<Origin> {
        self.lines.iter().rev().find_map(|line| {
            if !line.pattern.is_match(path) {
                return None;
            }
            // Within a line, the last token wins (`binary diff=json` is diffed).
            line.tokens.iter().rev().find_map(|token| {
                let name = token.trim_start_matches(['-', '!']);
                let name = name.split_once('=').map_or(name, |(n, _)| n);
                if token.starts_with('!') {
                    return None;
                }
                if name == attribute.name() {
                    return Some(Origin {
                        file: self.name.clone(),
                        line: line.number,
                        via: None,
                    });
                }
                (!token.starts_with('-') && macros.states(name, attribute, 0)).then(|| Origin {
                    file: self.name.clone(),
                    line: line.number,
                    via: Some(name.to_owned()),
                })
            })
        })
    }
}

/// The macros in force: Git's `binary` and those of the top-level files.
struct Macros<'a>(Vec<(&'a str, &'a [String])>);

impl Macros<'_> {
    fn states(&self, name: &str, attribute: Attribute, depth: usize) -> bool {
        if name == "binary" && attribute == Attribute::Diff {
            return true;
        }
        if depth > 8 {
            return false;
        }
        self.0
            .iter()
            .filter(|(n, _)| *n == name)
            .any(|(_, tokens)| {
                tokens.iter().any(|t| {
                    let n = t.trim_start_matches(['-', '!']);
                    let n = n.split_once('=').map_or(n, |(n, _)| n);
                    n == attribute.name()
                        || (!t.starts_with(['-', '!']) && self.states(n, attribute, depth + 1))
                })
            })
    }
}

/// The line of `files` (in Git's order of precedence, the one that wins first) that declared
/// `attribute` for `path`, if one can be named.
pub fn origin(files: &[&AttributesFile], path: &str, attribute: Attribute) -> Option<Origin> {
    let macros = Macros(files.iter().flat_map(|f| f.macros()).collect());
    files
        .iter()
        .find_map(|file| file.stating(path, attribute, &macros))
}

/// A line's pattern (unquoted) and the rest of it.
fn split_pattern(line: &str) -> (String, &str) {
    if let Some(quoted) = line.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => return (out, &quoted[i + 1..]),
                '\\' => {
                    if let Some((_, next)) = chars.next() {
                        out.push(next);
                    }
                }
                c => out.push(c),
            }
        }
        return (out, "");
    }
    match line.find(char::is_whitespace) {
        Some(at) => (line[..at].to_owned(), &line[at..]),
        None => (line.to_owned(), ""),
    }
}

/// A gitattributes pattern as a glob over repository paths: a pattern without a `/` matches a
/// name at any depth under its file's folder, one with a `/` is relative to that folder, and a
/// `**` that is not a whole path segment is a `*`, as in Git.
fn to_glob(folder: &str, pattern: &str) -> Option<String> {
    let anchored = pattern.contains('/');
    let pattern = pattern.strip_prefix('/').unwrap_or(pattern);
    if pattern.is_empty() {
        return None;
    }
    let segments: Vec<String> = pattern
        .split('/')
        .map(|s| {
            if s == "**" {
                s.to_owned()
            } else {
                let mut s = s.to_owned();
                while s.contains("**") {
                    s = s.replace("**", "*");
                }
                s
            }
        })
        .collect();
    let pattern = segments.join("/");
    let prefix = if folder.is_empty() {
        String::new()
    } else {
        format!("{}/", globset::escape(folder.trim_end_matches('/')))
    };
    Some(if anchored {
        format!("{prefix}{pattern}")
    } else {
        format!("{prefix}**/{pattern}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(attribute: Attribute, state: State, via: Option<&str>) -> Declaration {
        Declaration {
            attribute,
            state,
            origin: Some(Origin {
                file: "tests/.gitattributes".into(),
                line: 3,
                via: via.map(str::to_owned),
            }),
        }
    }

    fn file(name: &str, folder: &str, text: &str) -> AttributesFile {
        AttributesFile::parse(
            name,
            Placement {
                folder,
                top_level: folder.is_empty(),
            },
            text,
        )
    }

    #[test]
    fn the_line_that_declared_an_attribute_is_named_as_git_matches_patterns() {
        let top = file(
            ".gitattributes",
            "",
            "* text=auto eol=lf\n*/src/parser.c linguist-generated\nbindings/python/** linguist-generated\n[attr]gen linguist-generated\nsetup.py gen\n",
        );
        let nested = file(
            "tests/_data/out/.gitattributes",
            "tests/_data/out",
            "*.snap.*   linguist-generated binary\n*.json linguist-generated binary diff=json\n",
        );
        let files = [&nested, &top];
        let at = |path: &str, attribute| {
            origin(&files, path, attribute).map(|o| (o.file, o.line, o.via))
        };
        assert_eq!(
            at(
                "tree-sitter-markdown/src/parser.c",
                Attribute::LinguistGenerated
            ),
            Some((".gitattributes".into(), 2, None))
        );
        // `*` does not cross a folder; a pattern with a slash is anchored.
        assert_eq!(at("a/b/src/parser.c", Attribute::LinguistGenerated), None);
        assert_eq!(
            at(
                "bindings/python/tests/test_binding.py",
                Attribute::LinguistGenerated
            ),
            Some((".gitattributes".into(), 3, None))
        );
        assert_eq!(
            at("setup.py", Attribute::LinguistGenerated),
            Some((".gitattributes".into(), 5, Some("gen".into())))
        );
        // A nested file wins over the top one, and a name without a slash matches at any depth.
        assert_eq!(
            at("tests/_data/out/deep/x.snap.xml", Attribute::Diff),
            Some((
                "tests/_data/out/.gitattributes".into(),
                1,
                Some("binary".into())
            ))
        );
        assert_eq!(
            at("tests/_data/out/a.snap.json", Attribute::Diff),
            Some(("tests/_data/out/.gitattributes".into(), 2, None))
        );
        assert_eq!(at("other/a.json", Attribute::Diff), None);
        // Macros are not defined below the top level.
        let low = file(
            "a/.gitattributes",
            "a",
            "[attr]gen linguist-vendored\n*.c gen\n",
        );
        assert_eq!(origin(&[&low], "a/x.c", Attribute::LinguistVendored), None);
    }

    #[test]
    fn linguist_values_say_yes_or_no_and_a_diff_driver_is_diffed() {
        let cases = [
            (Attribute::LinguistGenerated, State::Set, Some(true)),
            (
                Attribute::LinguistGenerated,
                State::Value("true".into()),
                Some(true),
            ),
            (
                Attribute::LinguistVendored,
                State::Value("false".into()),
                Some(false),
            ),
            (Attribute::LinguistVendored, State::Unset, Some(false)),
            (
                Attribute::LinguistDocumentation,
                State::Value("x".into()),
                None,
            ),
            (Attribute::Diff, State::Value("json".into()), Some(true)),
            (Attribute::Diff, State::Unset, Some(false)),
        ];
        for (attribute, state, says) in cases {
            assert_eq!(
                declared(attribute, state.clone(), None).says(),
                says,
                "{attribute:?} {state:?}"
            );
        }
    }

    #[test]
    fn a_declaration_names_what_to_look_up() {
        let d = declared(Attribute::Diff, State::Unset, Some("binary"));
        assert_eq!(d.describe(), "`binary` in tests/.gitattributes:3");
        let d = declared(
            Attribute::LinguistGenerated,
            State::Value("false".into()),
            None,
        );
        assert_eq!(
            d.describe(),
            "`linguist-generated=false` in tests/.gitattributes:3"
        );
        assert_eq!(
            serde_json::to_value(d.record()).unwrap(),
            serde_json::json!({"attribute": "linguist-generated=false", "file": "tests/.gitattributes", "line": 3})
        );
    }
}
