//! The daemon's parts in one process for unit tests: a real repository made with git2 in a
//! temporary folder, the real `DaemonState` over it, and a scripted Jev in place of System One.
//! Nothing here starts a process.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use stanley_adapters::jev_http::{JevConfigError, JevSettings};
use stanley_core::Cancel;
use stanley_core::testing::ScriptedJev;
use stanley_proto::env as var;
use stanley_workflows::diff::{DiffSource, Scope};
use stanley_workflows::ports::{Git, GitError, Workspace};

use crate::settings::RequestSettings;
use crate::state::{DaemonState, JevLink, JevPort, Ports, Repo};
use crate::{DaemonConfig, DaemonFiles};

/// A scripted Jev behind the daemon's Jev port; like System One, it needs a key.
struct ScriptedPort(Arc<ScriptedJev>);

impl JevPort for ScriptedPort {
    fn link(&self, settings: &JevSettings) -> Result<JevLink, JevConfigError> {
        settings
            .api_key
            .as_ref()
            .ok_or(JevConfigError::MissingKey)?;
        Ok(JevLink {
            jev: self.0.clone(),
            model: "jev-test".into(),
            base_url: "http://127.0.0.1:9".into(),
        })
    }
}

/// The scene's repository with a diff that fails, as a damaged object store makes `git diff`
/// fail; everything else reads the real repository.
pub(crate) struct BrokenDiff(pub(crate) Arc<dyn Repo>);

impl Git for BrokenDiff {
    fn diff(
        &self,
        _scope: Scope,
        _base: Option<&str>,
        _input_file: Option<&str>,
    ) -> Result<std::sync::Arc<DiffSource>, GitError> {
        Err(GitError::Git {
            context: "diff",
            message: "object not found - no match for id (3f2a9c)".into(),
            source: None,
        })
    }
}

impl Workspace for BrokenDiff {
    fn tracked(&self) -> Result<Vec<String>, GitError> {
        self.0.tracked()
    }
    fn read_lines(&self, path: &str) -> Option<Vec<String>> {
        self.0.read_lines(path)
    }
    fn file_size(&self, path: &str) -> Option<u64> {
        self.0.file_size(path)
    }
}

impl Repo for BrokenDiff {
    fn snapshot(&self) -> Result<(BTreeSet<String>, String), GitError> {
        self.0.snapshot()
    }
}

/// A repository and a daemon state over it.
pub(crate) struct Scene {
    _dir: tempfile::TempDir,
    config: DaemonConfig,
    pub(crate) root: PathBuf,
    pub(crate) state: Arc<DaemonState>,
    pub(crate) jev: Arc<ScriptedJev>,
}

/// Writes `files` under `root`, making folders.
pub(crate) fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
}

impl Scene {
    /// A repository with one commit of `committed`, then `changed` written over it, and Jev
    /// answering every question through `answer(name, question, state)`.
    pub(crate) fn new(
        committed: &[(&str, &str)],
        changed: &[(&str, &str)],
        answer: impl Fn(&str, &Value, &Value) -> Value + Send + Sync + 'static,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("repo")).unwrap();
        let root = dir.path().join("repo").canonicalize().unwrap();
        let repo = git2::Repository::init(&root).unwrap();
        write(&root, committed);
        let mut index = repo.index().unwrap();
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        index.write().unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let who =
            git2::Signature::new("T", "t@example.com", &git2::Time::new(1_700_000_000, 0)).unwrap();
        repo.commit(Some("HEAD"), &who, &who, "initial", &tree, &[])
            .unwrap();
        write(&root, changed);
        // As the daemon does before it opens anything: `.stanley/` with its `.gitignore`.
        stanley_adapters::records::ensure_state_dir(&root).unwrap();
        let mut config = DaemonConfig::new(DaemonFiles::new(&root, dir.path().join("d.sock")));
        config.watch_info = false;
        config.trust_file = Some(dir.path().join("state/stanley/trust.json"));
        let jev = ScriptedJev::per_question(answer);
        let ports = Ports {
            jev: Some(Box::new(ScriptedPort(jev.clone()))),
            ..Ports::real()
        };
        let state = DaemonState::new(&config, Cancel::new(), ports).unwrap();
        Self {
            _dir: dir,
            config,
            root,
            state: Arc::new(state),
            jev,
        }
    }

    /// The same scene with a state whose repository port is `wrap` of the real one.
    pub(crate) fn with_repo(self, wrap: impl FnOnce(Arc<dyn Repo>) -> Arc<dyn Repo>) -> Self {
        let Self {
            _dir,
            config,
            root,
            state,
            jev,
        } = self;
        // The first state lets go of its stores before the second opens them.
        drop(state);
        let real = Arc::new(stanley_adapters::Git2Repo::open(&root).unwrap());
        let ports = Ports {
            jev: Some(Box::new(ScriptedPort(jev.clone()))),
            repo: Some(wrap(real)),
        };
        let state = DaemonState::new(&config, Cancel::new(), ports).unwrap();
        Self {
            _dir,
            config,
            root,
            state: Arc::new(state),
            jev,
        }
    }

    /// A request's settings: a key, no agent binary or Node.js reachable, trusted or not.
    pub(crate) fn settings(&self, trusted: bool) -> RequestSettings {
        let mut env = HashMap::from([
            (
                var::TYPESAFE_API_KEY.to_owned(),
                "sk-test-0123456789".to_owned(),
            ),
            (var::PATH.to_owned(), "/nonexistent".to_owned()),
        ]);
        if trusted {
            env.insert(var::STANLEY_TRUST_WORKTREE.to_owned(), "1".to_owned());
        }
        RequestSettings::parse(&env, &self.root)
    }
}
