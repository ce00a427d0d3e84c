//! One order for judging hunks under a cap, shared by every diff analysis and `check`: source
//! before tests, tests before configuration and other files, those before documentation and CI,
//! unless the request names the file or its kind; then each analysis's own score; then diff
//! order. So no documentation or CI hunk is judged while a source hunk is left out, unless the
//! person asked about it.

use crate::diff::Hunk;
use crate::paths::PathKind;
use crate::text::has_word;

/// The words that put a kind of file first when the request uses them.
const KIND_WORDS: [(PathKind, &[&str]); 4] = [
    (
        PathKind::Documentation,
        &[
            "doc",
            "docs",
            "documentation",
            "readme",
            "changelog",
            "guide",
        ],
    ),
    (
        PathKind::Ci,
        &["ci", "pipeline", "workflow", "workflows", "github actions"],
    ),
    (
        PathKind::Config,
        &[
            "config",
            "configuration",
            "settings",
            "dependency",
            "dependencies",
        ],
    ),
    (PathKind::Test, &["test", "tests", "spec", "specs"]),
];

/// The tier of a kind of file: higher is judged first.
fn kind_tier(kind: PathKind) -> u8 {
    match kind {
        PathKind::Source => 3,
        PathKind::Test => 2,
        PathKind::Config | PathKind::Other => 1,
        _ => 0,
    }
}

/// Whether the request names this hunk's file (its name without extension, or its path) or
/// its kind of file.
fn named(hunk: &Hunk, request: &str) -> bool {
    let file = hunk.path.rsplit('/').next().unwrap_or(&hunk.path);
    let stem = file.split('.').next().unwrap_or(file).to_lowercase();
    (stem.len() >= 3 && has_word(request, &stem))
        || request.contains(&hunk.path.to_lowercase())
        || KIND_WORDS
            .iter()
            .any(|(kind, words)| *kind == hunk.kind && words.iter().any(|w| has_word(request, w)))
}

/// The hunk's tier for `request` (lowercased): its kind's, or the top when the request names it.
pub fn tier(hunk: &Hunk, request: &str) -> u8 {
    if named(hunk, request) {
        4
    } else {
        kind_tier(hunk.kind)
    }
}

/// Indexes into `hunks` in judging order: tier, then `score` (higher first), then diff order.
pub fn judging_order(hunks: &[&Hunk], request: &str, score: impl Fn(&Hunk) -> f64) -> Vec<usize> {
    let request = request.to_lowercase();
    let mut keyed: Vec<(usize, u8, f64)> = hunks
        .iter()
        .enumerate()
        .map(|(i, h)| (i, tier(h, &request), score(h)))
        .collect();
    // Stable: ties keep diff order.
    keyed.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.total_cmp(&a.2)));
    keyed.into_iter().map(|(i, ..)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::parse_diff;

    fn hunks(paths: &[&str]) -> Vec<Hunk> {
        let text: String = paths
            .iter()
            .map(|p| format!("diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-a\n+b\n"))
            .collect();
        parse_diff(&text)
            .into_iter()
            .flat_map(|f| f.hunks)
            .collect()
    }

    fn order(paths: &[&str], request: &str) -> Vec<String> {
        let hunks = hunks(paths);
        let refs: Vec<&Hunk> = hunks.iter().collect();
        judging_order(&refs, request, |_| 0.0)
            .into_iter()
            .map(|i| refs[i].path.clone())
            .collect()
    }

    #[test]
    fn source_before_tests_before_the_rest_before_docs_and_ci() {
        let paths = [
            ".github/workflows/ci.yml",
            "README.md",
            "netlify.toml",
            "tests/test_cart.py",
            "src/cart.py",
            "src/tax.py",
        ];
        assert_eq!(
            order(&paths, "Summarize what changed"),
            [
                "src/cart.py",
                "src/tax.py",
                "tests/test_cart.py",
                "netlify.toml",
                ".github/workflows/ci.yml",
                "README.md",
            ]
        );
    }

    #[test]
    fn what_the_request_names_comes_first() {
        let paths = [".github/workflows/ci.yml", "README.md", "src/cart.py"];
        assert_eq!(
            order(&paths, "Review the CI workflow change"),
            [".github/workflows/ci.yml", "src/cart.py", "README.md"]
        );
        assert_eq!(
            order(&paths, "Check the README wording"),
            ["README.md", "src/cart.py", ".github/workflows/ci.yml"]
        );
    }
}
