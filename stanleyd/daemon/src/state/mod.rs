//! What every request, job and flow of the daemon shares: its configuration, the repository,
//! the HTTP pool, the improvement queue, the warm workflow host, the flow lease, and the count
//! of active requests that decides when it is idle.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use stanley_adapters::jev_http::{HttpJev, JevConfig, JevConfigError, JevSettings};
use stanley_adapters::{Git2Repo, HttpShared};
use stanley_core::{Cancel, Jev};
use stanley_workflows::improve::{JobQueue, QueueError};
use stanley_workflows::ports::{Git, GitError, Workspace};

use crate::config::DaemonConfig;
use crate::error::{DaemonError, RequestError};

pub(crate) mod activity;
pub(crate) mod cache_levels;
pub(crate) mod flows;
pub(crate) mod improve;
pub(crate) mod live_runs;
pub(crate) mod page;
pub(crate) mod repo;
pub(crate) mod team;

pub(crate) use cache_levels::{CacheOff, CacheStore};

/// Why the improvement queue cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum QueueProblem {
    /// `.stanley/state/` (or something in it) is a link or not this user's: the repository is
    /// at fault, so a request that needs the queue has an input error.
    #[error("the improvement queue cannot be used: {0}")]
    Refused(#[source] std::io::Error),
    /// The queue's store does not open.
    #[error(transparent)]
    Store(#[from] QueueError),
    /// No key of the user's own to seal the queue with (no home, or the key file is unusable).
    #[error("the improvement queue is off: {0}")]
    NoKey(String),
    /// The daemon has no queue and no reason recorded.
    #[error("the improvement queue is not open")]
    NotOpen,
}

/// A planted `.stanley/state/` is the request's input at fault (65); a store that does not
/// open leaves the queue unavailable (69).
impl From<&QueueProblem> for RequestError {
    fn from(e: &QueueProblem) -> Self {
        match e {
            QueueProblem::Refused(_) => Self::input(e.to_string()),
            QueueProblem::Store(_) | QueueProblem::NoKey(_) | QueueProblem::NotOpen => {
                Self::unavailable(e.to_string())
            }
        }
    }
}

/// A request's way to Jev: the port, the model it names, and the API root (named when Jev
/// cannot be reached).
pub(crate) struct JevLink {
    pub(crate) jev: Arc<dyn Jev>,
    pub(crate) model: String,
    pub(crate) base_url: String,
}

/// How the daemon reaches Jev with a request's settings: over HTTP through the shared pool, or
/// (tests) a scripted port.
pub(crate) trait JevPort: Send + Sync {
    /// The link for these settings, or why they cannot be used (no key, a bad model or URL).
    fn link(&self, settings: &JevSettings) -> Result<JevLink, JevConfigError>;
}

/// System One over HTTP, through one connection pool for every request.
struct HttpPort(HttpShared);

impl JevPort for HttpPort {
    fn link(&self, settings: &JevSettings) -> Result<JevLink, JevConfigError> {
        let config = JevConfig::from_settings(settings)?;
        Ok(JevLink {
            model: config.model.clone(),
            base_url: config.base_url.clone(),
            jev: Arc::new(HttpJev::with_shared(config, &self.0)?),
        })
    }
}

/// The repository as the daemon uses it: the workflows' `Git` and `Workspace` ports, and a
/// snapshot to tell what an agent wrote. `Git2Repo` in the daemon; a fake in tests.
pub(crate) trait Repo: Git + Workspace {
    /// Every non-ignored status entry and the hash of the tracked worktree diff.
    fn snapshot(&self) -> Result<(BTreeSet<String>, String), GitError>;
    /// Forgets what it keeps warm (the last branch diff).
    fn let_go(&self) {}
}

impl Repo for Git2Repo {
    fn snapshot(&self) -> Result<(BTreeSet<String>, String), GitError> {
        Git2Repo::snapshot(self)
    }

    fn let_go(&self) {
        Git2Repo::let_go(self);
    }
}

/// What a request's settings are read from: the daemon's configuration and the live
/// delegations' capabilities (a delegated request reads its parent's Jev settings). Cheap to
/// clone: a service that needs nothing else holds this alone.
#[derive(Clone)]
pub(crate) struct SettingsSource {
    config: Arc<DaemonConfig>,
    delegations: Arc<crate::delegation::Delegations>,
}

impl SettingsSource {
    /// The daemon's configuration.
    pub(crate) fn config(&self) -> &DaemonConfig {
        &self.config
    }

    /// A request's settings, read once from its environment: a live delegation capability
    /// brings its parent's Jev settings in place of the request's own (`crate::delegation`).
    pub(crate) fn settings(
        &self,
        env: &HashMap<String, String>,
    ) -> crate::settings::RequestSettings {
        let env = self.delegations.resolve(env);
        crate::settings::RequestSettings::parse(&env, &self.config.files.root)
    }
}

/// What every request shares: one handle per concern, each reached through its accessor
/// (no field is open to the rest of the daemon).
pub(crate) struct DaemonState {
    /// The configuration and the live delegations, which a request's settings are read from.
    source: SettingsSource,
    git: Arc<dyn Repo>,
    /// How requests reach Jev (System One over one shared HTTP pool, which holds no key).
    jev: Box<dyn JevPort>,
    /// The flow's store, its journal lock and the supervisor's single-runner lease.
    flows: flows::FlowSlot,
    /// The improvement queue, the worker's turn at it and its wake-up channel.
    improve: improve::ImproveQueue,
    /// The judgment cache's local and team levels.
    caches: Arc<cache_levels::CacheLevels>,
    /// Runs in progress and the run events for `Runs.WatchRuns`.
    runs: Arc<live_runs::LiveRuns>,
    /// The repository workflows and their warm host.
    repo: repo::RepoSlot,
    /// The local web page, while it serves.
    ui: page::UiSlot,
    /// The last branch evidence, whole answers from the cache, clean texts (issue 32, D-132).
    warm: Arc<crate::warm::WarmMemo>,
    /// What runs now, since when nothing has, and the stop.
    activity: activity::Activity,
}

/// The user's own signing key, beside the trust file (outside every worktree), or why there is
/// none.
fn user_key(config: &DaemonConfig) -> Result<stanley_adapters::user_key::UserKey, CacheOff> {
    let state_dir = config
        .trust_file
        .as_deref()
        .and_then(std::path::Path::parent)
        .ok_or(CacheOff::NoHome)?;
    stanley_adapters::user_key::UserKey::load_or_create(state_dir).map_err(|e| {
        tracing::warn!(error = %e, "no signing key of the user's own");
        CacheOff::Key(e)
    })
}

/// Opens the improvement queue; on failure, why, and whether the repository is at fault.
fn open_queue(
    root: &std::path::Path,
    key: Result<&stanley_adapters::user_key::UserKey, String>,
) -> Result<Arc<stanley_adapters::queue::SledQueue>, QueueProblem> {
    use stanley_adapters::records::{create_private_dir, refuse_foreign_dir, refuse_links_within};
    let dir = &root.join(".stanley/state");
    // What Git tracks came with a commit: never Stanley's own queue, whatever its modes.
    for rel in [".stanley/state", ".stanley/queue.ndjson"] {
        if stanley_adapters::tracked::tracked(root, rel) {
            let e = std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{} is tracked by Git, so it was not made by Stanley; remove it from the repository (`git rm -r --cached {rel}`) or move it aside",
                    root.join(rel).display()
                ),
            );
            tracing::error!(error = %e, "cannot open the improvement queue");
            return Err(QueueProblem::Refused(e));
        }
    }
    let key = key.map_err(QueueProblem::NoKey)?;
    let planted = create_private_dir(dir)
        .and_then(|()| refuse_foreign_dir(dir))
        .and_then(|()| refuse_links_within(dir))
        .err()
        .filter(|e| e.kind() == std::io::ErrorKind::InvalidInput);
    if let Some(e) = planted {
        tracing::error!(error = %e, "cannot open the improvement queue");
        return Err(QueueProblem::Refused(e));
    }
    stanley_adapters::queue::SledQueue::open(dir, key.clone())
        .map(Arc::new)
        .map_err(|e| {
            tracing::error!(error = %e, "cannot open the improvement queue");
            QueueProblem::Store(e)
        })
}

/// The ports a daemon serves with ([`crate::run`]): each one supplied is used, and any other
/// is opened for real (git2 on the worktree, System One over the shared HTTP pool). Tests in
/// this crate supply theirs (`Ports { jev: Some(..), ..Ports::real() }`).
#[derive(Default)]
pub struct Ports {
    /// How requests reach Jev.
    pub(crate) jev: Option<Box<dyn JevPort>>,
    /// The repository.
    pub(crate) repo: Option<Arc<dyn Repo>>,
}

impl Ports {
    /// Every port opened for real when the daemon starts.
    pub fn real() -> Self {
        Self::default()
    }

    /// Opens what was not supplied.
    fn open(self, config: &DaemonConfig) -> Result<Opened, DaemonError> {
        let git = match self.repo {
            Some(repo) => repo,
            None => {
                Arc::new(Git2Repo::open(&config.files.root).map_err(DaemonError::NotARepository)?)
            }
        };
        let jev = match self.jev {
            Some(jev) => jev,
            // An unused connection closes when the warm state goes (D-150).
            None => Box::new(HttpPort(HttpShared::new(config.warm_idle).map_err(
                |e| DaemonError::Io {
                    what: "cannot build the HTTP client".into(),
                    source: std::io::Error::other(e.message),
                },
            )?)),
        };
        Ok(Opened { git, jev })
    }
}

/// Every port, opened.
struct Opened {
    git: Arc<dyn Repo>,
    jev: Box<dyn JevPort>,
}

impl DaemonState {
    /// The daemon's configuration (its files, limits and the trust file's place).
    pub(crate) fn config(&self) -> &DaemonConfig {
        &self.source.config
    }

    /// What a request's settings are read from, for a service that needs nothing else.
    pub(crate) fn settings_source(&self) -> &SettingsSource {
        &self.source
    }

    /// The repository port.
    pub(crate) fn git(&self) -> &Arc<dyn Repo> {
        &self.git
    }

    /// How requests reach Jev.
    pub(crate) fn jev(&self) -> &dyn JevPort {
        self.jev.as_ref()
    }

    /// The flow's store, its journal lock and the supervisor's lease.
    pub(crate) fn flows(&self) -> &flows::FlowSlot {
        &self.flows
    }

    /// The improvement queue and its worker's turn.
    pub(crate) fn improve(&self) -> &improve::ImproveQueue {
        &self.improve
    }

    /// The judgment cache's levels.
    pub(crate) fn caches(&self) -> &Arc<cache_levels::CacheLevels> {
        &self.caches
    }

    /// Runs in progress and their events.
    pub(crate) fn runs(&self) -> &Arc<live_runs::LiveRuns> {
        &self.runs
    }

    /// The repository workflows and their warm host.
    pub(crate) fn repo(&self) -> &repo::RepoSlot {
        &self.repo
    }

    /// The local web page, while it serves.
    pub(crate) fn ui(&self) -> &page::UiSlot {
        &self.ui
    }

    /// The warm memo.
    pub(crate) fn warm(&self) -> &Arc<crate::warm::WarmMemo> {
        &self.warm
    }

    /// The live delegations' capabilities.
    pub(crate) fn delegations(&self) -> &Arc<crate::delegation::Delegations> {
        &self.source.delegations
    }

    /// What runs now, and the stop.
    pub(crate) fn activity(&self) -> &activity::Activity {
        &self.activity
    }

    /// A request's settings, read once from its environment ([`SettingsSource::settings`]).
    pub(crate) fn settings(
        &self,
        env: &HashMap<String, String>,
    ) -> crate::settings::RequestSettings {
        self.source.settings(env)
    }

    /// The state over `ports` (those not supplied opened for real), with the stores under
    /// `.stanley/state/` opened; `stop` is cancelled when the daemon begins to stop.
    pub(crate) fn new(
        config: &DaemonConfig,
        stop: Cancel,
        ports: Ports,
    ) -> Result<Self, DaemonError> {
        let Opened { git, jev } = ports.open(config)?;
        let key = user_key(config);
        let queue = open_queue(
            &config.files.root,
            key.as_ref().map_err(ToString::to_string),
        );
        // Without a home for the key, the flow's records are sealed with a key of this daemon's
        // own: they hold while it runs, and nothing from before is believed.
        let flow_key = key
            .as_ref()
            .ok()
            .cloned()
            .unwrap_or_else(stanley_adapters::user_key::UserKey::ephemeral);
        let recovery = queue
            .as_ref()
            .ok()
            .and_then(|q| q.recovery())
            .map(|r| r.line());
        let caches = cache_levels::CacheLevels::open(
            config,
            !matches!(&queue, Err(QueueProblem::Refused(_))),
            key,
        );
        Ok(Self {
            source: SettingsSource {
                config: Arc::new(config.clone()),
                delegations: Arc::default(),
            },
            git,
            flows: flows::FlowSlot::new(Arc::new(
                stanley_adapters::flow_store::FileFlowStore::new(&config.files.root, flow_key),
            )),
            jev,
            caches: Arc::new(caches),
            runs: Arc::default(),
            improve: improve::ImproveQueue::new(queue.map(|q| q as Arc<dyn JobQueue>), recovery),
            repo: tokio::sync::Mutex::new(None),
            ui: page::UiSlot::default(),
            warm: Arc::default(),
            activity: activity::Activity::new(stop),
        })
    }

    /// Lets go of the warm evidence (the last branch diff, here and in the Git port); the
    /// allocator is told to purge its freed pages until work resumes (D-137, D-150).
    pub(crate) fn let_go_warm(&self) {
        self.warm.clear();
        self.git.let_go();
        crate::memory::give_back();
        if self.activity.running_now() > 0 {
            // Work began while the warm state was let go: it keeps freed pages for reuse.
            crate::memory::resume();
        }
        tracing::debug!("warm evidence released");
    }
}

impl DaemonState {
    /// `TMPDIR` for the processes Stanley starts for its own work (the workflow hosts, the
    /// agent): a folder of this daemon's inside the private runtime folder, made when missing.
    pub(crate) fn private_tmp(&self) -> Result<std::path::PathBuf, stanley_proto::private::Unsafe> {
        self.source.config.files.ensure_private()
    }

    /// [`Self::private_tmp`] for the agent, or none (with a warning in the log) when it cannot
    /// be made; the agent then keeps the request's own `TMPDIR`.
    pub(crate) fn agent_tmp(&self) -> Option<std::path::PathBuf> {
        self.private_tmp()
            .inspect_err(|e| tracing::warn!(error = %e, "no private TMPDIR for the agent"))
            .ok()
    }

    /// Whether the flow supervisor (`stanleyctl flow run`) is running.
    pub(crate) fn flow_supervised(&self) -> bool {
        self.flows.running().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `.stanley/state/` planted as a link is the repository's fault: the variant says so,
    /// and a request needing the queue gets an input error (65), not an unavailable one.
    #[test]
    fn a_planted_state_folder_is_refused_as_the_repositorys_fault() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::create_dir(dir.path().join(".stanley")).unwrap();
        let state = dir.path().join(".stanley/state");
        std::os::unix::fs::symlink(&elsewhere, &state).unwrap();
        let key = stanley_adapters::user_key::UserKey::from_bytes([1; 32]);
        let problem = open_queue(dir.path(), Ok(&key)).map(|_| ()).unwrap_err();
        assert!(matches!(problem, QueueProblem::Refused(_)), "{problem:?}");
        assert!(
            problem
                .to_string()
                .starts_with("the improvement queue cannot be used: "),
            "{problem}"
        );
        assert_eq!(RequestError::from(&problem).exit_code(), 65);
        let not_open = QueueProblem::NotOpen;
        assert_eq!(not_open.to_string(), "the improvement queue is not open");
        assert_eq!(RequestError::from(&not_open).exit_code(), 69);
    }
}
