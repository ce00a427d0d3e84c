//! Path classification: what kind of file a repository path names (source, test, secret,
//! binary, vendored, …), and which paths are credential-shaped and must never be read or sent.

use serde::Serialize;

/// The kind of a repository path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathKind {
    Source,
    Test,
    Documentation,
    Config,
    Ci,
    Lockfile,
    Generated,
    Vendored,
    Secret,
    Binary,
    Other,
}

impl PathKind {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            PathKind::Source => "source",
            PathKind::Test => "test",
            PathKind::Documentation => "documentation",
            PathKind::Config => "config",
            PathKind::Ci => "ci",
            PathKind::Lockfile => "lockfile",
            PathKind::Generated => "generated",
            PathKind::Vendored => "vendored",
            PathKind::Secret => "secret",
            PathKind::Binary => "binary",
            PathKind::Other => "other",
        }
    }
}

const BINARY_EXT: &[&str] = &[
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz",
    ".7z", ".jar", ".class", ".so", ".dylib", ".dll", ".exe", ".wasm", ".woff", ".woff2", ".ttf",
    ".otf", ".mp3", ".mp4", ".mov", ".bin", ".sqlite", ".db", ".pyc", ".pyo", ".pyd", ".o", ".obj",
    ".a", ".lib", ".rlib", ".rmeta", ".beam", ".elc", ".dex", ".pdb", ".whl", ".egg",
];
const VENDORED: &[&str] = &[
    "node_modules",
    "vendor",
    "third_party",
    "third-party",
    ".venv",
    "venv",
    "pods",
];
const LOCKFILES: &[&str] = &[
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lock",
    "bun.lockb",
    "Cargo.lock",
    "go.sum",
    "composer.lock",
    "Gemfile.lock",
    "poetry.lock",
    "uv.lock",
    "Pipfile.lock",
];
const GENERATED_DIRS: &[&str] = &[
    "dist",
    "build",
    "coverage",
    "generated",
    "__generated__",
    ".next",
    "out",
    "target",
];
const GENERATED_MARKS: &[&str] = &[
    ".min.js",
    ".min.css",
    ".generated.",
    ".g.cs",
    ".g.go",
    ".g.ts",
    "_generated.",
    ".pb.go",
    "_pb2.py",
];
const TEST_DIRS: &[&str] = &["test", "tests", "spec", "specs", "__tests__", "__mocks__"];
const DOC_EXT: &[&str] = &[".md", ".mdx", ".rst", ".adoc", ".txt"];
const CONFIG_EXT: &[&str] = &[".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf"];
const LANGUAGES: &[(&str, &str)] = &[
    (".c", "C"),
    (".cc", "C++"),
    (".cpp", "C++"),
    (".cxx", "C++"),
    (".cs", "C#"),
    (".css", "CSS"),
    (".dart", "Dart"),
    (".ex", "Elixir"),
    (".exs", "Elixir"),
    (".go", "Go"),
    (".graphql", "GraphQL"),
    (".gql", "GraphQL"),
    (".h", "C/C++ header"),
    (".hpp", "C/C++ header"),
    (".html", "HTML"),
    (".htm", "HTML"),
    (".java", "Java"),
    (".js", "JavaScript"),
    (".cjs", "JavaScript"),
    (".mjs", "JavaScript"),
    (".jsx", "JavaScript"),
    (".json", "JSON"),
    (".kt", "Kotlin"),
    (".kts", "Kotlin"),
    (".lua", "Lua"),
    (".md", "Markdown"),
    (".mdx", "MDX"),
    (".php", "PHP"),
    (".py", "Python"),
    (".rb", "Ruby"),
    (".rs", "Rust"),
    (".scala", "Scala"),
    (".scss", "SCSS"),
    (".sh", "Shell"),
    (".bash", "Shell"),
    (".zsh", "Shell"),
    (".sql", "SQL"),
    (".svelte", "Svelte"),
    (".swift", "Swift"),
    (".toml", "TOML"),
    (".ts", "TypeScript"),
    (".mts", "TypeScript"),
    (".cts", "TypeScript"),
    (".tsx", "TypeScript"),
    (".txt", "Text"),
    (".vue", "Vue"),
    (".xml", "XML"),
    (".yaml", "YAML"),
    (".yml", "YAML"),
    (".zig", "Zig"),
];

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn extension(base: &str) -> Option<&str> {
    match base.rfind('.') {
        Some(0) | None => None,
        Some(i) => Some(&base[i..]),
    }
}

/// Whether `path` looks like it holds credentials (`.env`, keys, `.ssh/`, `secrets.yaml`, …).
pub fn is_secret_path(path: &str) -> bool {
    let lower = path.replace('\\', "/").to_lowercase();
    let base = basename(&lower);
    if base == ".env"
        || (base.starts_with(".env.")
            && ![".example", ".sample", ".template"]
                .iter()
                .any(|s| base.ends_with(s)))
    {
        return true;
    }
    for key in ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"] {
        if (base == key || base.starts_with(&format!("{key}."))) && !base.ends_with(".pub") {
            return true;
        }
    }
    if [".pem", ".p12", ".pfx", ".key", ".jks", ".keystore", ".kdbx"]
        .iter()
        .any(|e| base.ends_with(e))
    {
        return true;
    }
    if [
        ".npmrc",
        ".pypirc",
        ".netrc",
        "credentials",
        "credentials.json",
        "secret.json",
        "secrets.json",
        "secret.yaml",
        "secrets.yaml",
        "secret.yml",
        "secrets.yml",
        "secret.toml",
        "secrets.toml",
    ]
    .contains(&base)
    {
        return true;
    }
    lower
        .split('/')
        .any(|seg| matches!(seg, ".ssh" | ".aws" | "secrets"))
}

fn is_test_basename(base: &str) -> bool {
    // `[._-](test|spec).<ext>`, `test_*.py`, `*_test.go`, `*_test.py`.
    for marker in ["test", "spec"] {
        for sep in ['.', '_', '-'] {
            let needle = format!("{sep}{marker}.");
            if let Some(i) = base.find(&needle) {
                let rest = &base[i + needle.len()..];
                if !rest.is_empty() {
                    return true;
                }
            }
        }
    }
    (base.starts_with("test_") && base.ends_with(".py"))
        || base.ends_with("_test.go")
        || base.ends_with("_test.py")
}

/// Classifies a repository-relative path, first match wins (secret, binary, vendored, lockfile,
/// generated, test, ci, documentation, config, source, other).
pub fn classify_path(path: &str) -> PathKind {
    let original = path.replace('\\', "/");
    let lower = original.to_lowercase();
    let base = basename(&lower);
    let ext = extension(base);
    let segments: Vec<&str> = lower.split('/').collect();
    let dirs = &segments[..segments.len().saturating_sub(1)];
    if is_secret_path(&lower) {
        return PathKind::Secret;
    }
    if ext.is_some_and(|e| BINARY_EXT.contains(&e)) {
        return PathKind::Binary;
    }
    if segments.iter().any(|s| VENDORED.contains(s)) {
        return PathKind::Vendored;
    }
    if LOCKFILES.contains(&basename(&original)) {
        return PathKind::Lockfile;
    }
    if dirs.iter().any(|s| {
        GENERATED_DIRS.contains(s) || s.ends_with(".egg-info") || s.ends_with(".dist-info")
    }) || GENERATED_MARKS.iter().any(|m| lower.contains(m))
        || lower.ends_with(".snap")
    {
        return PathKind::Generated;
    }
    // CI before tests: `.github/workflows/test.yml` runs tests, it is not one.
    if lower.starts_with(".github/")
        || lower.starts_with(".gitlab-ci")
        || lower.starts_with(".circleci/")
        || base == ".travis.yml"
        || base == "azure-pipelines.yml"
        || base == "appveyor.yml"
    {
        return PathKind::Ci;
    }
    if segments.iter().any(|s| TEST_DIRS.contains(s)) || is_test_basename(base) {
        return PathKind::Test;
    }
    if ext.is_some_and(|e| DOC_EXT.contains(&e)) || segments.first() == Some(&"docs") {
        return PathKind::Documentation;
    }
    if ext.is_some_and(|e| CONFIG_EXT.contains(&e))
        || matches!(
            base,
            "package.json"
                | "dockerfile"
                | "makefile"
                | ".gitignore"
                | ".editorconfig"
                | "biome.json"
        )
        || (base.starts_with("tsconfig") && base.ends_with(".json"))
        || base.starts_with(".eslintrc")
        || base.starts_with(".prettierrc")
    {
        return PathKind::Config;
    }
    if language(&lower) != "unknown" {
        return PathKind::Source;
    }
    PathKind::Other
}

/// The language of a path by extension (`Dockerfile` and `Make` by name), else `unknown`.
pub fn language(path: &str) -> &'static str {
    let lower = path.replace('\\', "/").to_lowercase();
    let base = basename(&lower);
    if base == "dockerfile" {
        return "Dockerfile";
    }
    if base == "makefile" {
        return "Make";
    }
    extension(base)
        .and_then(|e| LANGUAGES.iter().find(|(x, _)| *x == e))
        .map_or("unknown", |(_, l)| l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_in_priority_order() {
        let cases = [
            (".env", PathKind::Secret),
            ("config/.env.production", PathKind::Secret),
            (".env.example", PathKind::Other),
            ("home/.ssh/config", PathKind::Secret),
            ("certs/server.pem", PathKind::Secret),
            ("id_rsa.pub", PathKind::Other),
            ("logo.PNG", PathKind::Binary),
            ("node_modules/x/index.js", PathKind::Vendored),
            ("Cargo.lock", PathKind::Lockfile),
            ("dist/app.js", PathKind::Generated),
            ("src/app.min.js", PathKind::Generated),
            ("pkg/__pycache__/x.cpython-312.pyc", PathKind::Binary),
            ("requests.egg-info/SOURCES.txt", PathKind::Generated),
            ("x-1.0.dist-info/RECORD", PathKind::Generated),
            ("src/api.test.ts", PathKind::Test),
            ("tests/auth.rs", PathKind::Test),
            ("pkg/x_test.go", PathKind::Test),
            ("test_x.py", PathKind::Test),
            (".github/workflows/ci.yml", PathKind::Ci),
            (".github/workflows/ci-test.yml", PathKind::Ci),
            (".github/workflows/tests/run.yml", PathKind::Ci),
            ("README.md", PathKind::Documentation),
            ("docs/guide.html", PathKind::Documentation),
            ("config.yaml", PathKind::Config),
            ("Dockerfile", PathKind::Config),
            ("tsconfig.build.json", PathKind::Config),
            ("src/lib.rs", PathKind::Source),
            ("data.csv", PathKind::Other),
        ];
        for (path, kind) in cases {
            assert_eq!(classify_path(path), kind, "{path}");
        }
    }

    #[test]
    fn secret_paths() {
        for p in [
            ".env",
            "a/.env.local",
            "id_ed25519",
            "x/.aws/credentials",
            "secrets/db.txt",
            ".npmrc",
            "secrets.yaml",
            "k.p12",
        ] {
            assert!(is_secret_path(p), "{p}");
        }
        for p in [
            ".env.sample",
            "id_rsa.pub",
            "src/secret_handler.rs",
            "README.md",
        ] {
            assert!(!is_secret_path(p), "{p}");
        }
    }
}
