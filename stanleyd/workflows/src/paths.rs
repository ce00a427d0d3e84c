//! Path classification: what kind of file a repository path names (source, test, secret,
//! binary, vendored, …), and which paths are credential-shaped and must never be read or sent.

use serde::Serialize;

use crate::declared::{Attribute, Declared};

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
/// Folder names that hold someone else's code, in any position (`vendor/`, `src/pkg/_vendor/`,
/// `third_party/`, `node_modules/`, …), after the well-known conventions of package managers
/// and of GitHub linguist's vendored paths.
const VENDORED: &[&str] = &[
    "node_modules",
    "bower_components",
    "jspm_packages",
    "vendor",
    "vendors",
    "vendored",
    "_vendor",
    "_vendored",
    "third_party",
    "third-party",
    "thirdparty",
    "3rdparty",
    "3rd_party",
    "3rd-party",
    "extern",
    ".venv",
    "venv",
    "site-packages",
    "pods",
    "carthage",
    "godeps",
];
/// The lockfiles and generated manifests of the package managers in common use, by exact name
/// (D-163): GitHub linguist's generated lockfiles and the "recommended files" of GitHub's
/// dependency-graph ecosystems, then the other managers' own lockfiles. Each has a test from a
/// real file (`tests/fixtures/lockfiles/`).
pub const LOCKFILES: &[&str] = &[
    // JavaScript and TypeScript.
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lock",
    "bun.lockb",
    "deno.lock",
    // Rust, Go.
    "Cargo.lock",
    "go.sum",
    "Gopkg.lock",
    "glide.lock",
    // Python.
    "Pipfile.lock",
    "poetry.lock",
    "pdm.lock",
    "uv.lock",
    "pixi.lock",
    "conda-lock.yml",
    // PHP, Ruby.
    "composer.lock",
    "Gemfile.lock",
    // Swift, Objective-C, Dart.
    "Package.resolved",
    "Podfile.lock",
    "Cartfile.resolved",
    "pubspec.lock",
    // Elixir, Erlang.
    "mix.lock",
    "rebar.lock",
    // .NET, JVM.
    "packages.lock.json",
    "paket.lock",
    "gradle.lockfile",
    "maven_install.json",
    // Build systems and infrastructure.
    "MODULE.bazel.lock",
    "flake.lock",
    ".terraform.lock.hcl",
    "conan.lock",
    // Haskell, Julia, R, Crystal, OCaml.
    "stack.yaml.lock",
    "cabal.project.freeze",
    "Manifest.toml",
    "renv.lock",
    "shard.lock",
    "esy.lock",
];

/// Whether `path` is a lockfile or a generated manifest: one of [`LOCKFILES`] by name, a
/// file of Yarn Plug'n'Play's (`.pnp.cjs`, `.pnp.loader.mjs`), or a file inside an esy lock
/// folder (`esy.lock/index.json`).
pub fn is_lockfile(path: &str) -> bool {
    let path = path.replace('\\', "/");
    let base = basename(&path);
    LOCKFILES.contains(&base)
        || base.starts_with(".pnp.")
        || path.split('/').rev().skip(1).any(|d| d == "esy.lock")
}
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
/// Of those, the names a project may also give a folder of build scripts.
const BUILD_DIRS: &[&str] = &["build", "out", "target"];
/// Name endings of files tools write (bundles, minified files, protobuf output, source maps,
/// snapshots).
const GENERATED_SUFFIXES: &[&str] = &[
    ".min.js",
    ".min.mjs",
    ".min.css",
    "-min.js",
    ".bundle.js",
    ".js.map",
    ".css.map",
    ".g.cs",
    ".g.go",
    ".g.js",
    ".g.ts",
    ".g.dart",
    ".freezed.dart",
    ".designer.cs",
    ".pb.go",
    ".pb.cc",
    ".pb.h",
    "_pb2.py",
    "_pb2.pyi",
    "_pb2_grpc.py",
    ".snap",
];
/// Name parts that say a tool wrote the file (`schema.generated.ts`, `api_generated.rs`).
const GENERATED_INFIXES: &[&str] = &[".generated.", "_generated."];
/// Configuration by name: tool settings that are not the program (`jest.config.js`,
/// `tsconfig.test.json`, `vite.config.ts`, `babel.config.json`, `.eslintrc.json`).
fn is_config_name(base: &str, ext: Option<&str>) -> bool {
    let stem = ext.map_or(base, |e| &base[..base.len() - e.len()]);
    (base.starts_with("tsconfig") && base.ends_with(".json"))
        || base.starts_with("jsconfig")
        || stem.ends_with(".config")
        || matches!(
            base,
            "package.json"
                | "dockerfile"
                | "makefile"
                | ".gitignore"
                | ".gitattributes"
                | ".gitmodules"
                | ".npmignore"
                | ".dockerignore"
                | ".editorconfig"
                | "biome.json"
                | "manifest.in"
                | "cargo.toml.orig"
                | "setup.cfg"
                | "tox.ini"
                | "codeowners"
        )
}

/// A tool's own dot-file or dot-folder (`.cargo_vcs_info.json`, `.devcontainer/`,
/// `.pre-commit-config.yaml`, `.nvmrc`): configuration, never the program. Dot-folders that
/// hold CI are told apart before this.
fn is_tool_dotfile(base: &str, dirs: &[&str]) -> bool {
    let source_ext = extension(base).is_some_and(|e| {
        !matches!(
            e,
            ".json" | ".yaml" | ".yml" | ".toml" | ".ini" | ".cfg" | ".conf" | ".txt" | ".xml"
        ) && language_of_ext(e).is_some()
    });
    (base.starts_with('.') && !source_ext)
        || dirs.iter().any(|d| {
            matches!(
                *d,
                ".devcontainer" | ".vscode" | ".idea" | ".husky" | ".cargo"
            )
        })
}
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
    (".pyi", "Python"),
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

/// The vendored folder a path sits in (`_vendor`, `node_modules`, …), if any.
pub fn vendored_folder(path: &str) -> Option<&'static str> {
    let lower = path.replace('\\', "/").to_lowercase();
    let segments: Vec<&str> = lower.split('/').collect();
    let dirs = &segments[..segments.len().saturating_sub(1)];
    dirs.iter()
        .find_map(|s| VENDORED.iter().find(|v| *v == s).copied())
}

/// What marks a path as written by a tool: a build folder (`dist/`, `*.egg-info/`), a name
/// mark (`.min.js`, `_pb2.py`) or a metadata file name (`PKG-INFO`); None for a path alone
/// says nothing about.
pub fn generated_by_path(path: &str) -> Option<String> {
    let lower = path.replace('\\', "/").to_lowercase();
    let segments: Vec<&str> = lower.split('/').collect();
    let dirs = &segments[..segments.len().saturating_sub(1)];
    let base = basename(&lower);
    // `build/`, `out/` and `target/` also hold sources a build runs (a crate's
    // `build/probe.rs`, a `build/gen_tables.py`): Rust and Python files there are written by
    // people, except under Python's own `build/lib/` output.
    let script = matches!(extension(base), Some(".rs" | ".py"))
        && !lower.contains("build/lib/")
        && !lower.contains("build/bdist");
    if let Some(dir) = dirs.iter().find(|s| {
        (GENERATED_DIRS.contains(s) && !(script && BUILD_DIRS.contains(s)))
            || s.ends_with(".egg-info")
            || s.ends_with(".dist-info")
    }) {
        return Some(format!("`{dir}/` folder"));
    }
    if let Some(mark) = GENERATED_SUFFIXES.iter().find(|m| base.ends_with(*m)) {
        return Some(format!("`*{mark}` name"));
    }
    if let Some(mark) = GENERATED_INFIXES.iter().find(|m| base.contains(*m)) {
        return Some(format!("`*{mark}*` name"));
    }
    // A source distribution's metadata, which setuptools writes.
    (base == "pkg-info").then(|| "`PKG-INFO` name".to_owned())
}

/// Classifies a repository-relative path, first match wins (secret, binary, vendored, lockfile,
/// generated, ci, configuration by name and tool dot-files, test, documentation,
/// configuration by extension, source, other).
pub fn classify_path(path: &str) -> PathKind {
    classify_guessing(path, Guesses::ALL)
}

/// [`classify_path`] after what the repository declares about the path (D-163): a credential
/// path is a secret whatever it is declared; then `linguist-vendored`, `linguist-generated`
/// and `linguist-documentation` set the kind, and each `=false` turns off Stanley's own guess
/// of that kind (a `vendor/` folder, a `dist/` folder or a lockfile name, a `docs/` folder).
pub fn classify_declared(path: &str, declared: &Declared) -> PathKind {
    if is_secret_path(path) {
        return PathKind::Secret;
    }
    let says = |a| declared.says(a);
    if says(Attribute::LinguistVendored) == Some(true) {
        return PathKind::Vendored;
    }
    // A lockfile the repository declares generated stays a lockfile, the finer kind.
    if says(Attribute::LinguistGenerated) == Some(true) {
        return if is_lockfile(path) {
            PathKind::Lockfile
        } else {
            PathKind::Generated
        };
    }
    if says(Attribute::LinguistDocumentation) == Some(true) {
        return PathKind::Documentation;
    }
    classify_guessing(
        path,
        Guesses {
            vendored: says(Attribute::LinguistVendored) != Some(false),
            generated: says(Attribute::LinguistGenerated) != Some(false),
            documentation: says(Attribute::LinguistDocumentation) != Some(false),
        },
    )
}

/// Which of Stanley's own guesses by path are made.
#[derive(Clone, Copy, Debug)]
struct Guesses {
    vendored: bool,
    generated: bool,
    documentation: bool,
}

impl Guesses {
    const ALL: Guesses = Guesses {
        vendored: true,
        generated: true,
        documentation: true,
    };
}

fn classify_guessing(path: &str, guess: Guesses) -> PathKind {
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
    if guess.vendored && vendored_folder(&lower).is_some() {
        return PathKind::Vendored;
    }
    if guess.generated && is_lockfile(&original) {
        return PathKind::Lockfile;
    }
    if guess.generated && generated_by_path(&lower).is_some() {
        return PathKind::Generated;
    }
    // CI before tests: `.github/workflows/test.yml` runs tests, it is not one. The rest of
    // `.github/` is templates and settings: its Markdown is documentation.
    if lower.starts_with(".github/") {
        return if lower.starts_with(".github/workflows/") || lower.starts_with(".github/actions/") {
            PathKind::Ci
        } else if ext.is_some_and(|e| DOC_EXT.contains(&e)) {
            PathKind::Documentation
        } else {
            PathKind::Config
        };
    }
    if lower.starts_with(".gitlab-ci")
        || lower.starts_with(".circleci/")
        || lower.starts_with(".buildkite/")
        || base == ".travis.yml"
        || base == "azure-pipelines.yml"
        || base == "appveyor.yml"
        || base == "jenkinsfile"
    {
        return PathKind::Ci;
    }
    // Configuration by name before tests: `tsconfig.test.json` and `jest.config.json` set up
    // tests, they are not tests.
    if is_config_name(base, ext) || is_tool_dotfile(base, dirs) {
        return PathKind::Config;
    }
    if segments.iter().any(|s| TEST_DIRS.contains(s)) || is_test_basename(base) {
        return PathKind::Test;
    }
    if guess.documentation
        && (ext.is_some_and(|e| DOC_EXT.contains(&e)) || segments.first() == Some(&"docs"))
    {
        return PathKind::Documentation;
    }
    if ext.is_some_and(|e| CONFIG_EXT.contains(&e)) {
        return PathKind::Config;
    }
    if language(&lower) != "unknown" {
        return PathKind::Source;
    }
    PathKind::Other
}

fn language_of_ext(ext: &str) -> Option<&'static str> {
    LANGUAGES.iter().find(|(x, _)| *x == ext).map(|(_, l)| *l)
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
            (".env.example", PathKind::Config),
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
            ("src/pip/_vendor/rich/console.py", PathKind::Vendored),
            ("third_party/zlib/inflate.c", PathKind::Vendored),
            ("extern/fmt/format.h", PathKind::Vendored),
            ("web/node_modules/x/index.js", PathKind::Vendored),
            ("jest.config.json", PathKind::Config),
            ("packages/api/api.jest.config.json", PathKind::Config),
            ("jest.config.js", PathKind::Config),
            ("vite.config.ts", PathKind::Config),
            ("tsconfig.test.json", PathKind::Config),
            (".devcontainer/devcontainer.json", PathKind::Config),
            (".cargo_vcs_info.json", PathKind::Config),
            (".pre-commit-config.yaml", PathKind::Config),
            (".github/pull_request_template.md", PathKind::Documentation),
            (".github/ISSUE_TEMPLATE/bug.md", PathKind::Documentation),
            (".github/dependabot.yml", PathKind::Config),
            (".github/actions/setup/action.yml", PathKind::Ci),
            ("PKG-INFO", PathKind::Generated),
            ("dist/app.js.map", PathKind::Generated),
            ("tests/__snapshots__/a.test.ts.snap", PathKind::Generated),
            ("src/.hidden.py", PathKind::Source),
            ("tests/conftest.py", PathKind::Test),
            ("src/attr/__init__.pyi", PathKind::Source),
            ("build/probe.rs", PathKind::Source),
            ("build/lib/pkg/mod.py", PathKind::Generated),
            ("build/cjs/index.js", PathKind::Generated),
            ("Cargo.toml.orig", PathKind::Config),
        ];
        for (path, kind) in cases {
            assert_eq!(classify_path(path), kind, "{path}");
        }
    }

    #[test]
    fn what_a_repository_declares_wins_over_the_guess_in_both_directions() {
        use crate::declared::{Declaration, State};
        let declared = |pairs: &[(Attribute, State)]| Declared {
            declarations: pairs
                .iter()
                .map(|(attribute, state)| Declaration {
                    attribute: *attribute,
                    state: state.clone(),
                    origin: None,
                })
                .collect(),
        };
        let no = |a| declared(&[(a, State::Value("false".into()))]);
        let yes = |a| declared(&[(a, State::Set)]);
        let cases = [
            (
                "vendor/x/a.go",
                no(Attribute::LinguistVendored),
                PathKind::Source,
            ),
            (
                "dist/app.js",
                no(Attribute::LinguistGenerated),
                PathKind::Source,
            ),
            (
                "Package.resolved",
                no(Attribute::LinguistGenerated),
                PathKind::Other,
            ),
            (
                "docs/conf.py",
                no(Attribute::LinguistDocumentation),
                PathKind::Source,
            ),
            (
                "src/parser.c",
                yes(Attribute::LinguistGenerated),
                PathKind::Generated,
            ),
            (
                "mypy/typeshed/a.pyi",
                yes(Attribute::LinguistVendored),
                PathKind::Vendored,
            ),
            (
                "src/guide.rs",
                yes(Attribute::LinguistDocumentation),
                PathKind::Documentation,
            ),
            // A credential path is a secret whatever it is declared.
            (".env", no(Attribute::LinguistVendored), PathKind::Secret),
            ("src/x.rs", Declared::default(), PathKind::Source),
        ];
        for (path, d, kind) in cases {
            assert_eq!(classify_declared(path, &d), kind, "{path}");
        }
        for path in [
            "ios/App.xcworkspace/xcshareddata/swiftpm/Package.resolved",
            "infra/.terraform.lock.hcl",
            ".pnp.cjs",
            "esy.lock/index.json",
            "pubspec.lock",
        ] {
            assert_eq!(classify_path(path), PathKind::Lockfile, "{path}");
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
