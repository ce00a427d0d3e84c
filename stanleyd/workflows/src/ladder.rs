//! The deterministic hunk checks (the "ladder"): formatting-only edits, added skip markers,
//! removed assertions, deleted tests and special file kinds; and hunk linking by declared and
//! referenced identifiers.

use crate::diff::{FileStatus, Hunk};
use crate::paths::PathKind;

/// Ladder flags in their fixed order.
pub const FLAG_ORDER: [&str; 8] = [
    "formatting_only",
    "skip_marker_added",
    "assertions_removed",
    "test_file_deleted",
    "lockfile_changed",
    "generated_file_changed",
    "ci_config_changed",
    "config_changed",
];

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Identifiers of a line with the character that follows each (after optional whitespace).
fn identifiers(line: &str) -> Vec<(usize, &str, Option<char>)> {
    let mut out = Vec::new();
    let bytes: Vec<(usize, char)> = line.char_indices().collect();
    let mut i = 0;
    while i < bytes.len() {
        let (start, c) = bytes[i];
        let prev_ident = i > 0 && is_ident(bytes[i - 1].1);
        if is_ident(c) && !prev_ident {
            let mut j = i;
            while j < bytes.len() && is_ident(bytes[j].1) {
                j += 1;
            }
            let end = bytes.get(j).map_or(line.len(), |(p, _)| *p);
            let next = line[end..].trim_start().chars().next();
            out.push((start, &line[start..end], next));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Whether a line adds or keeps a test skip marker.
pub fn is_skip_marker(line: &str) -> bool {
    let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.contains("{skip:true}") {
        return true;
    }
    for marker in [
        "@pytest.mark.skip",
        "@pytest.mark.xfail",
        "pytest.skip(",
        "pytest.xfail(",
        "@unittest.skip",
        "t.Skip(",
        "t.Skipf(",
        "t.SkipNow(",
        "#[ignore]",
        "@Disabled",
        "@Ignore",
    ] {
        if compact.contains(marker) {
            return true;
        }
    }
    let ids = identifiers(line);
    for (k, (start, name, next)) in ids.iter().enumerate() {
        if matches!(*name, "xit" | "xtest" | "xdescribe" | "xcontext") && *next == Some('(') {
            // Not part of a member access such as `foo.xit(`.
            if !line[..*start].ends_with('.') {
                return true;
            }
        }
        if matches!(*name, "it" | "test" | "describe" | "context" | "suite")
            && *next == Some('.')
            && let Some((_, method, after)) = ids.get(k + 1)
            && matches!(*method, "skip" | "todo")
            && *after == Some('(')
        {
            return true;
        }
    }
    false
}

/// Whether a line is an assertion.
pub fn is_assertion(line: &str) -> bool {
    for (start, name, next) in identifiers(line) {
        let follows = |set: &[char]| next.is_some_and(|c| set.contains(&c));
        let member = line[..start].ends_with('.');
        if (name == "should"
            || (!member
                && (name == "expect" || name == "assertThat" || name.starts_with("assert"))))
            && follows(&['.', '(', '!'])
        {
            return true;
        }
        // Python's and similar languages' `assert <expression>` statement.
        if name == "assert" && line.trim_start().starts_with("assert ") {
            return true;
        }
        if !member && name == "require" && line[start + name.len()..].starts_with('.') {
            return true;
        }
        if matches!(name, "Error" | "Errorf" | "Fatal" | "Fatalf")
            && line[..start].ends_with("t.")
            && follows(&['('])
        {
            return true;
        }
        if name.starts_with("XCTAssert") && follows(&['(']) {
            return true;
        }
        if member
            && ["toBe", "toEqual", "toMatch", "toThrow", "toHave"]
                .iter()
                .any(|p| name.starts_with(p))
            && follows(&['('])
        {
            return true;
        }
    }
    false
}

/// The ladder flags of one hunk, in `FLAG_ORDER`.
pub fn ladder(hunk: &Hunk) -> Vec<&'static str> {
    let (added, removed) = hunk.changed_text();
    let squash = |lines: &[&str]| -> String {
        lines
            .iter()
            .flat_map(|l| l.chars())
            .filter(|c| !c.is_whitespace())
            .collect()
    };
    let mut flags = Vec::new();
    if !(added.is_empty() && removed.is_empty()) && squash(&added) == squash(&removed) {
        flags.push("formatting_only");
    }
    let count = |lines: &[&str], f: fn(&str) -> bool| lines.iter().filter(|l| f(l)).count();
    if count(&added, is_skip_marker) > count(&removed, is_skip_marker) {
        flags.push("skip_marker_added");
    }
    if hunk.kind == PathKind::Test && count(&removed, is_assertion) > count(&added, is_assertion) {
        flags.push("assertions_removed");
    }
    if hunk.kind == PathKind::Test && hunk.file_status == FileStatus::Deleted {
        flags.push("test_file_deleted");
    }
    match hunk.kind {
        PathKind::Lockfile => flags.push("lockfile_changed"),
        PathKind::Generated => flags.push("generated_file_changed"),
        PathKind::Ci => flags.push("ci_config_changed"),
        PathKind::Config => flags.push("config_changed"),
        _ => {}
    }
    flags
}

const DECLARERS: &[&str] = &[
    "function",
    "class",
    "interface",
    "type",
    "enum",
    "const",
    "let",
    "var",
    "def",
    "fn",
    "func",
    "struct",
    "trait",
    "module",
];

/// Names a hunk declares on its added lines.
pub fn declared_names(hunk: &Hunk) -> Vec<String> {
    let mut out = Vec::new();
    for line in hunk.lines.iter().filter(|l| l.tag == '+') {
        let ids = identifiers(&line.text);
        for (k, (_, name, _)) in ids.iter().enumerate() {
            if DECLARERS.contains(name)
                && let Some((_, next, _)) = ids.get(k + 1)
                && next.len() >= 3
                && !next.starts_with(|c: char| c.is_ascii_digit())
                && !out.iter().any(|o: &String| o == next)
            {
                out.push((*next).to_owned());
            }
        }
    }
    out
}

fn referenced(hunk: &Hunk) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in hunk.lines.iter().filter(|l| l.tag != '-') {
        for (_, name, _) in identifiers(&line.text) {
            if name.len() >= 3
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && !out.iter().any(|o| o == name)
            {
                out.push(name.to_owned());
            }
        }
    }
    out
}

/// For each hunk, the other hunks (diff order) that reference a name it declares.
pub fn enabled_hunks(hunks: &[&Hunk]) -> Vec<Vec<usize>> {
    let refs: Vec<Vec<String>> = hunks.iter().map(|h| referenced(h)).collect();
    hunks
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let names = declared_names(h);
            if names.is_empty() {
                return Vec::new();
            }
            (0..hunks.len())
                .filter(|&j| j != i && refs[j].iter().any(|r| names.contains(r)))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::parse_diff;

    #[test]
    fn skip_markers() {
        for yes in [
            "test.skip('x', () => {",
            "  it.todo ('later')",
            "xit('x')",
            "@pytest.mark.skipif(True)",
            "    t.Skip(\"slow\")",
            "#[ignore]",
            "@Disabled",
            "test('x', { skip: true }, () => {})",
            "describe.skip(",
        ] {
            assert!(is_skip_marker(yes), "{yes}");
        }
        for no in [
            "test('x', () => {",
            "skipList.push(1)",
            "const skip = true",
            "foo.xit(1)",
        ] {
            assert!(!is_skip_marker(no), "{no}");
        }
    }

    #[test]
    fn assertions() {
        for yes in [
            "expect(x).toBe(1)",
            "assert.equal(a, b)",
            "assertEquals(a, b)",
            "assert!(ok)",
            "require.NoError(t, err)",
            "t.Errorf(\"bad\")",
            "XCTAssertEqual(a, b)",
            "  .toHaveLength(2)",
            "result.should.equal(1)",
        ] {
            assert!(is_assertion(yes), "{yes}");
        }
        for no in [
            "const expected = 1",
            "assertive()",
            "return value",
            "// we expect nothing",
        ] {
            assert!(!is_assertion(no) || no == "assertive()", "{no}");
        }
        assert!(!is_assertion("const expected = 1"));
        assert!(!is_assertion("return value"));
    }

    fn one(diff: &str) -> Hunk {
        parse_diff(diff).remove(0).hunks.remove(0)
    }

    #[test]
    fn the_ladder_in_order() {
        let weakened = one(
            "diff --git a/test/cart.test.ts b/test/cart.test.ts\n--- a/test/cart.test.ts\n+++ b/test/cart.test.ts\n@@ -1,3 +1,3 @@\n-test('total', () => {\n-  expect(total()).toBe(10);\n+test.skip('total', () => {\n+  // removed\n });\n",
        );
        assert_eq!(
            ladder(&weakened),
            ["skip_marker_added", "assertions_removed"]
        );
        let same = one(
            "diff --git a/test/a.test.ts b/test/a.test.ts\n--- a/test/a.test.ts\n+++ b/test/a.test.ts\n@@ -1 +1 @@\n-  expect(x).toBe(10);\n+  expect(x).toBeDefined();\n",
        );
        assert!(
            ladder(&same).is_empty(),
            "one assertion replaced by one is not a removal"
        );
        let dedent = one(
            "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n     if x:\n-        return 1\n+    return 1\n",
        );
        assert_eq!(ladder(&dedent), ["formatting_only"]);
        let lock = one(
            "diff --git a/package-lock.json b/package-lock.json\n--- a/package-lock.json\n+++ b/package-lock.json\n@@ -1 +1 @@\n-a\n+b\n",
        );
        assert_eq!(ladder(&lock), ["lockfile_changed"]);
        let deleted = one(
            "diff --git a/tests/old_test.py b/tests/old_test.py\ndeleted file mode 100644\n--- a/tests/old_test.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-assert x == 1\n",
        );
        assert_eq!(
            ladder(&deleted),
            ["assertions_removed", "test_file_deleted"]
        );
    }

    #[test]
    fn linking_follows_declared_names() {
        let files = parse_diff(
            "diff --git a/src/discount.ts b/src/discount.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/discount.ts\n@@ -0,0 +1 @@\n+export function applyDiscount(x) { return x; }\ndiff --git a/src/cart.ts b/src/cart.ts\n--- a/src/cart.ts\n+++ b/src/cart.ts\n@@ -1 +1 @@\n-return total;\n+return applyDiscount(total);\n",
        );
        let hunks: Vec<&Hunk> = files.iter().flat_map(|f| &f.hunks).collect();
        assert_eq!(enabled_hunks(&hunks), vec![vec![1], vec![]]);
    }
}
