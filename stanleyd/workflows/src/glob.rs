//! Path globs for rule scopes: `**/` (any leading folders, none included), `**` (anything), `*`
//! (anything but `/`), `?` (one character but `/`), `[...]` classes and `{a,b}` alternation;
//! anchored. Compiled by `globset` into one automaton per scope, so matching takes time linear
//! in the path whatever the pattern (a rules file is the repository's input). A pattern globset
//! cannot read (an unclosed `{` or `[`) matches its own text literally.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// One scope's patterns, compiled.
#[derive(Clone, Debug)]
pub struct Globs(GlobSet);

fn compile(pattern: &str) -> Glob {
    let build = |p: &str| GlobBuilder::new(p).literal_separator(true).build();
    build(pattern).unwrap_or_else(|_| {
        build(&globset::escape(pattern))
            .unwrap_or_else(|_| unreachable!("an escaped pattern is a literal glob"))
    })
}

impl Globs {
    /// The patterns of one scope.
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> Self {
        let mut set = GlobSetBuilder::new();
        for pattern in patterns {
            set.add(compile(pattern.as_ref()));
        }
        Self(set.build().unwrap_or_else(|_| GlobSet::empty()))
    }

    /// Whether `path` matches one of the patterns in full.
    pub fn is_match(&self, path: &str) -> bool {
        self.0.is_match(path)
    }
}

/// Whether `path` matches `pattern` in full.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    Globs::new(&[pattern]).is_match(path)
}

#[cfg(test)]
mod tests {
    use super::{Globs, glob_match};

    #[test]
    fn globs() {
        assert!(glob_match("**", "a/b/c.ts"));
        assert!(glob_match("src/**", "src/a/b.ts"));
        assert!(glob_match("**/*.ts", "a.ts"));
        assert!(glob_match("**/*.ts", "x/y/a.ts"));
        assert!(!glob_match("*.ts", "x/a.ts"));
        assert!(glob_match("src/*.{ts,js}", "src/a.js"));
        assert!(!glob_match("src/*.{ts,js}", "src/a.py"));
        assert!(glob_match("docs/?.md", "docs/a.md"));
        assert!(!glob_match("docs/?.md", "docs/ab.md"));
        assert!(!glob_match("docs/?.md", "docs//.md"), "? never matches /");
        assert!(!glob_match("src/**", "lib/a.ts"));
        assert!(glob_match("src/[ab].ts", "src/b.ts"));
        // What globset cannot read is its own text.
        assert!(glob_match("src/{a", "src/{a"));
        assert!(!glob_match("src/{a", "src/a"));
    }

    #[test]
    fn a_pattern_built_to_backtrack_matches_in_linear_time() {
        // `*a` twenty times against a long path of `a`s ending in `b`: a backtracking matcher
        // tries exponentially many splits; an automaton reads the path once.
        let pattern = "*a".repeat(20);
        let path = format!("{}b", "a".repeat(5_000));
        let scope = Globs::new(&[pattern.as_str()]);
        assert!(!scope.is_match(&path));
        assert!(scope.is_match(&"a".repeat(5_000)));
    }
}
