//! What every request, job and flow of the daemon shares: its configuration, the repository,
//! the HTTP pool, the improvement queue, the warm workflow host, the flow lease, and the count
//! of active requests that decides when it is idle.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use stanley_adapters::jev_http::{HttpJev, JevConfig, JevConfigError, JevSettings};
use stanley_adapters::judgments::{CacheStats, SledJudgments};
use stanley_adapters::store_error::StoreError;
use stanley_adapters::{Git2Repo, HttpShared};
use stanley_core::{Cancel, Jev, JudgmentCache};
use stanley_workflows::improve::{JobQueue, QueueError};
use stanley_workflows::ports::{Git, GitError, Workspace};
use tokio::time::Instant;

use crate::config::DaemonConfig;
use crate::error::{DaemonError, RequestError};

pub(crate) mod flows;
pub(crate) mod improve;
pub(crate) mod page;
pub(crate) mod repo;
pub(crate) mod team;

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

/// Why the judgment cache is off: said once, on the next request; requests then ask Jev
/// everything.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CacheOff {
    /// No home to keep the cache's signing key in.
    #[error(
        "the judgment cache is off: the daemon knows no HOME or XDG_STATE_HOME to keep its key in"
    )]
    NoHome,
    /// The signing key cannot be made or read.
    #[error("the judgment cache is off: {0}")]
    Key(#[source] StoreError),
    /// The cache's folder cannot be used.
    #[error("the judgment cache is off: {0}")]
    Folder(#[source] StoreError),
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

/// The judgment cache as the daemon uses it: core's `JudgmentCache`, and what `stanleyctl
/// cache` and the request path need besides. `SledJudgments` in the daemon.
pub(crate) trait CacheStore: JudgmentCache {
    /// Entries, sizes, hits and misses.
    fn stats(&self) -> CacheStats;
    /// Removes every answer; how many there were.
    fn clear(&self) -> Result<u64, stanley_adapters::store_error::StoreError>;
    /// Writes new answers to disk.
    fn flush(&self);
    /// What opening found wrong, once.
    fn take_warning(&self) -> Option<String>;
}

impl CacheStore for SledJudgments {
    fn stats(&self) -> CacheStats {
        SledJudgments::stats(self)
    }
    fn clear(&self) -> Result<u64, stanley_adapters::store_error::StoreError> {
        SledJudgments::clear(self)
    }
    fn flush(&self) {
        SledJudgments::flush(self)
    }
    fn take_warning(&self) -> Option<String> {
        SledJudgments::take_warning(self)
    }
}

/// Run events kept for a slow `WatchRuns` listener before it is told it missed some.
const RUN_EVENTS: usize = 64;

/// What every request shares.
pub(crate) struct DaemonState {
    pub(crate) config: DaemonConfig,
    pub(crate) git: Arc<dyn Repo>,
    /// How requests reach Jev (System One over one shared HTTP pool, which holds no key).
    pub(crate) jev: Box<dyn JevPort>,
    /// The flow's store, its journal lock and the supervisor's single-runner lease.
    pub(crate) flows: flows::FlowSlot,
    /// The improvement queue, the worker's turn at it and its wake-up channel.
    pub(crate) improve: improve::ImproveQueue,
    /// The judgment cache under `.stanley/state/judgments/` (None when its folder cannot be
    /// used; requests then ask Jev everything).
    pub(crate) judgments: Option<Arc<dyn CacheStore>>,
    /// Why the cache is off, said once on the next request.
    cache_problem: Mutex<Option<CacheOff>>,
    /// The team's shared level behind the judgment cache, when requests set one up.
    pub(crate) team: team::TeamLevel,
    /// Run folders of requests in progress: retention never removes them.
    pub(crate) active_runs: Arc<Mutex<std::collections::HashSet<String>>>,
    /// The repository workflows and their warm host.
    pub(crate) repo: repo::RepoSlot,
    /// The local web page, while it serves.
    pub(crate) ui: page::UiSlot,
    /// Run events for `Runs.WatchRuns`: a run ended, a finding was marked seen. Sent whether or
    /// not anyone listens; a listener that falls behind is told to read the findings again.
    pub(crate) run_events: tokio::sync::broadcast::Sender<stanley_proto::v1::WatchRunsResponse>,
    /// The last branch diff's evidence, kept by its commits (issue 32).
    pub(crate) evidence: crate::warm::EvidenceMemo,
    /// Whole built-in answers whose every judgment came from the cache (issue 32).
    pub(crate) results: crate::warm::ResultMemo,
    /// Texts the requests' redactors found clean, for the last set of secrets (D-132).
    pub(crate) clean_texts: stanley_adapters::redact::CleanMemory,
    /// The live delegations' capabilities (`crate::delegation`).
    pub(crate) delegations: Arc<crate::delegation::Delegations>,
    pub(crate) started: Instant,
    last_activity: Mutex<Instant>,
    active: AtomicUsize,
    next_id: AtomicU64,
    running: Mutex<HashMap<u64, Cancel>>,
    stop: Cancel,
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

/// Opens the judgment cache beside the queue; a folder that cannot be used leaves the daemon
/// without a cache (logged), never without service.
fn open_judgments(
    config: &DaemonConfig,
    state_usable: bool,
    key: Result<stanley_adapters::user_key::UserKey, CacheOff>,
) -> (
    Option<Arc<stanley_adapters::judgments::SledJudgments>>,
    Option<CacheOff>,
) {
    if !state_usable {
        // `.stanley/state/` itself is refused (planted, or not ours): nothing goes under it.
        return (None, None);
    }
    // Entries are signed with a key of the user's own, kept beside the trust file, outside
    // the worktree: a repository can plant files under `.stanley/`, not that key.
    let secret = match key {
        Ok(k) => k,
        Err(off) => return (None, Some(off)),
    };
    let dir = config.files.root.join(".stanley/state/judgments");
    match stanley_adapters::judgments::SledJudgments::open(&dir, config.cache_max_bytes, secret) {
        Ok(cache) => (Some(Arc::new(cache)), None),
        Err(e) => {
            tracing::warn!(error = %e, "the judgment cache is off: its folder cannot be used");
            (None, Some(CacheOff::Folder(e)))
        }
    }
}

/// Builds a [`DaemonState`] ([`DaemonState::builder`]): each port is the one supplied, or the
/// real one.
pub(crate) struct StateBuilder<'a> {
    config: &'a DaemonConfig,
    stop: Cancel,
    jev: Option<Box<dyn JevPort>>,
    repo: Option<Arc<dyn Repo>>,
}

impl StateBuilder<'_> {
    /// Jev through `jev` instead of the HTTP client.
    #[cfg(test)]
    pub(crate) fn jev(mut self, jev: Box<dyn JevPort>) -> Self {
        self.jev = Some(jev);
        self
    }

    /// The repository through `repo` instead of git2 on the worktree.
    #[cfg(test)]
    pub(crate) fn repo(mut self, repo: Arc<dyn Repo>) -> Self {
        self.repo = Some(repo);
        self
    }

    /// Opens what was not supplied and builds the state.
    pub(crate) fn build(self) -> Result<DaemonState, DaemonError> {
        let git = match self.repo {
            Some(repo) => repo,
            None => Arc::new(
                Git2Repo::open(&self.config.files.root).map_err(DaemonError::NotARepository)?,
            ),
        };
        let jev = match self.jev {
            Some(jev) => jev,
            // An unused connection closes when the warm state goes (D-150).
            None => Box::new(HttpPort(HttpShared::new(self.config.warm_idle).map_err(
                |e| DaemonError::Io {
                    what: "cannot build the HTTP client".into(),
                    source: std::io::Error::other(e.message),
                },
            )?)),
        };
        Ok(DaemonState::from_ports(self.config, self.stop, git, jev))
    }
}

impl DaemonState {
    /// A request's settings, read once from its environment: a live delegation capability
    /// brings its parent's Jev settings in place of the request's own (`crate::delegation`).
    pub(crate) fn settings(
        &self,
        env: &HashMap<String, String>,
    ) -> crate::settings::RequestSettings {
        let env = self.delegations.resolve(env);
        crate::settings::RequestSettings::parse(&env, &self.config.files.root)
    }

    /// The cache's warning about a damaged store it rebuilt, the first time it is asked for.
    pub(crate) fn take_cache_warning(&self) -> Option<String> {
        let off = self
            .cache_problem
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        off.map(|off| off.to_string())
            .or_else(|| self.judgments.as_ref().and_then(|j| j.take_warning()))
    }

    /// The state with every port opened for real (git2 on the worktree, the HTTP client to
    /// System One, sled under `.stanley/state/`).
    pub(crate) fn new(config: &DaemonConfig, stop: Cancel) -> Result<Self, DaemonError> {
        Self::builder(config, stop).build()
    }

    /// A builder that takes the ports a caller supplies (tests inject theirs) and opens the
    /// others for real.
    pub(crate) fn builder(config: &DaemonConfig, stop: Cancel) -> StateBuilder<'_> {
        StateBuilder {
            config,
            stop,
            jev: None,
            repo: None,
        }
    }

    fn from_ports(
        config: &DaemonConfig,
        stop: Cancel,
        git: Arc<dyn Repo>,
        jev: Box<dyn JevPort>,
    ) -> Self {
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
        let (judgments, cache_problem) = open_judgments(
            config,
            !matches!(&queue, Err(QueueProblem::Refused(_))),
            key,
        );
        Self {
            config: config.clone(),
            git,
            flows: flows::FlowSlot::new(Arc::new(
                stanley_adapters::flow_store::FileFlowStore::new(&config.files.root, flow_key),
            )),
            jev,
            judgments: judgments.map(|j| j as Arc<dyn CacheStore>),
            cache_problem: Mutex::new(cache_problem),
            team: team::TeamLevel::default(),
            active_runs: Arc::new(Mutex::new(std::collections::HashSet::new())),
            improve: improve::ImproveQueue::new(queue.map(|q| q as Arc<dyn JobQueue>), recovery),
            repo: tokio::sync::Mutex::new(None),
            ui: page::UiSlot::default(),
            run_events: tokio::sync::broadcast::channel(RUN_EVENTS).0,
            evidence: crate::warm::EvidenceMemo::default(),
            results: crate::warm::ResultMemo::default(),
            clean_texts: stanley_adapters::redact::CleanMemory::default(),
            delegations: Arc::default(),
            started: Instant::now(),
            last_activity: Mutex::new(Instant::now()),
            active: AtomicUsize::new(0),
            next_id: AtomicU64::new(0),
            running: Mutex::new(HashMap::new()),
            stop,
        }
    }

    /// Lets go of the warm evidence (the last branch diff, here and in the Git port); the
    /// allocator is told to purge its freed pages until work resumes (D-137, D-150).
    pub(crate) fn let_go_warm(&self) {
        self.evidence.clear();
        self.results.clear();
        self.clean_texts.clear();
        self.git.let_go();
        crate::memory::give_back();
        if self.active.load(Ordering::SeqCst) > 0 {
            // Work began while the warm state was let go: it keeps freed pages for reuse.
            crate::memory::resume();
        }
        tracing::debug!("warm evidence released");
    }

    /// How long nothing has been running.
    pub(crate) fn idle_for(&self) -> Duration {
        if self.active.load(Ordering::SeqCst) > 0 {
            return Duration::ZERO;
        }
        self.last_activity
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
    }

    /// Marks activity now (the idle clock restarts; freed pages are kept for reuse again after a
    /// trim, D-150).
    pub(crate) fn touch(&self) {
        *self.last_activity.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        crate::memory::resume();
    }

    /// Cancels every running request (shutdown).
    pub(crate) fn cancel_all(&self) {
        for cancel in self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
        {
            cancel.cancel();
        }
    }
}

impl DaemonState {
    /// `TMPDIR` for the processes Stanley starts for its own work (the workflow hosts, the
    /// agent): a folder of this daemon's inside the private runtime folder, made when missing.
    pub(crate) fn private_tmp(&self) -> Result<std::path::PathBuf, stanley_proto::private::Unsafe> {
        self.config.files.ensure_private()
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

    /// Cancelled when the daemon begins to stop.
    pub(crate) fn stop_token(&self) -> Cancel {
        self.stop.clone()
    }

    /// Registers background work (the improvement worker) like a request: it keeps the daemon
    /// from idling out and is cancelled at shutdown for as long as the guard lives.
    pub(crate) fn background(self: &Arc<Self>) -> (ActiveGuard, Cancel) {
        let cancel = Cancel::new();
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        self.active.fetch_add(1, Ordering::SeqCst);
        // Work again: after a quiet stretch, freed pages are kept for reuse again (D-150).
        crate::memory::resume();
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, cancel.clone());
        (
            ActiveGuard {
                state: self.clone(),
                id,
            },
            cancel,
        )
    }
}

/// Counts a request as active for as long as it lives.
pub(crate) struct ActiveGuard {
    state: Arc<DaemonState>,
    id: u64,
}

impl DaemonState {
    /// Requests and jobs running now.
    pub(crate) fn active_requests(&self) -> usize {
        self.active.load(Ordering::SeqCst)
    }
}

impl ActiveGuard {
    /// The number of the request or job it counts.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        self.state
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.id);
        self.state.active.fetch_sub(1, Ordering::SeqCst);
        self.state.touch();
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

    /// Without a home for the key the cache is off for that reason, said in its words; with
    /// one whose key is not a private file, the key is named as the fault.
    #[test]
    fn the_cache_is_off_for_a_reason_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = DaemonConfig::new(crate::DaemonFiles::new(
            dir.path(),
            dir.path().join("d.sock"),
        ));
        config.trust_file = None;
        let (cache, off) = open_judgments(&config, true, user_key(&config));
        assert!(cache.is_none());
        let off = off.unwrap();
        assert!(matches!(off, CacheOff::NoHome), "{off:?}");
        assert_eq!(
            off.to_string(),
            "the judgment cache is off: the daemon knows no HOME or XDG_STATE_HOME to keep its key in"
        );
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        std::fs::write(home.join("cache.key"), b"short").unwrap();
        config.trust_file = Some(home.join("trust.json"));
        let (cache, off) = open_judgments(&config, true, user_key(&config));
        assert!(cache.is_none());
        let off = off.unwrap();
        assert!(matches!(off, CacheOff::Key(_)), "{off:?}");
        assert!(
            off.to_string()
                .starts_with("the judgment cache is off: the cache's key at ")
        );
    }
}
