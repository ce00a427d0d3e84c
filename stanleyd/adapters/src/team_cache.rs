//! The team's shared judgment cache (issue 51): a second level behind the worktree's sled store,
//! on a store the team already runs (Redis, any S3-compatible store, the GitHub Actions cache),
//! through OpenDAL (D-171). Read through on a local miss, written behind.
//!
//! Keys are the local level's content keys (a hash of the redacted request, the resolved model
//! and the frame template), so the same question meets across clones and machines; values are
//! Jev's answers and token counts, never evidence. Every entry is signed with the team's key
//! (HMAC-SHA256 over the entry's schema, kind, key, the key's id and the value's exact bytes),
//! so an entry that is unsigned, signed with another key, moved under another key, malformed or
//! larger than [`MAX_ENTRY_BYTES`] is ignored and counted, never used.
//!
//! Nothing here fails or holds up a request. A read waits at most the deadline; a store that is
//! slow, full, unreachable or refuses the credentials costs that once, then the level is
//! bypassed for [`BYPASS`] (a breaker) with one warning line. Writes go to a bounded queue that
//! a background task drains; when it is full a write is dropped and counted.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use stanley_core::{CacheKey, CachedAnswers, RemoteJudgments};

/// The schema every entry carries.
pub const ENTRY_SCHEMA: &str = "stanley.team-judgment/1";
/// The largest entry read; anything larger is ignored (one frame's answers are a few KiB).
pub const MAX_ENTRY_BYTES: usize = 64 * 1024;
/// How long a read may take when `STANLEY_CACHE_REMOTE_DEADLINE_MS` does not say.
pub const DEFAULT_DEADLINE: Duration = Duration::from_millis(500);
/// How long the level is bypassed after the store failed or was too slow.
pub const BYPASS: Duration = Duration::from_secs(60);
/// Writes waiting for the background task at most; more are dropped and counted.
pub const WRITE_QUEUE: usize = 1024;
/// Writes in flight at once.
const WRITERS: usize = 8;
/// The shortest team key accepted, in bytes.
pub const MIN_TEAM_KEY: usize = 16;
/// How old an answer may be when it is read (the entry says when it was signed); Redis also
/// lets it expire then. Other stores: the team's own lifecycle rules remove old objects.
const ANSWERS_MAX_AGE: Duration = Duration::from_secs(30 * 24 * 3600);
/// Two reads in a row slower than half the deadline open the breaker.
const SLOW_IN_A_ROW: u32 = 2;
/// The folder every store's entries live under when the URL names no prefix.
const DEFAULT_PREFIX: &str = "stanley";

/// Which store the URL names, with what the URL says about it (no secret).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Store {
    /// `redis://[user[:password]@]host[:port][/db][?prefix=…]` (`rediss://` for TLS).
    Redis {
        /// `redis://host:port` or `rediss://host:port`.
        endpoint: String,
        /// The database number.
        db: i64,
        /// The user, when the URL names one.
        username: Option<String>,
        /// The folder inside the database.
        prefix: String,
    },
    /// `s3://bucket[/prefix][?endpoint=…&region=…]`.
    S3 {
        /// The bucket.
        bucket: String,
        /// The folder inside it.
        prefix: String,
        /// Another S3-compatible endpoint than AWS's (`endpoint=`).
        endpoint: Option<String>,
        /// The region (`region=`).
        region: Option<String>,
    },
    /// `gha://[prefix]`: the GitHub Actions cache of the job the request runs in.
    GithubActions {
        /// The folder the entries' names start with.
        prefix: String,
    },
}

/// Whether the level may write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Reads and writes (the default).
    #[default]
    ReadWrite,
    /// Reads only: for untrusted jobs, such as a fork's pull request.
    ReadOnly,
}

impl Mode {
    /// `read-write` or `read-only`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadWrite => "read-write",
            Self::ReadOnly => "read-only",
        }
    }
}

/// The team's signing key (`STANLEY_CACHE_TEAM_KEY`) and its public id (the first 8 bytes of
/// its SHA-256, which names whose entry a foreign one is without saying anything of the key).
#[derive(Clone, PartialEq, Eq)]
pub struct TeamKey {
    secret: Vec<u8>,
    id: String,
}

impl std::fmt::Debug for TeamKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TeamKey({})", self.id)
    }
}

impl TeamKey {
    /// The key from its secret text.
    pub fn new(secret: &str) -> Result<Self, SettingError> {
        let secret = secret.trim().as_bytes().to_vec();
        if secret.len() < MIN_TEAM_KEY {
            return Err(SettingError::ShortKey(secret.len()));
        }
        let digest = Sha256::digest(&secret);
        let id = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        Ok(Self { secret, id })
    }

    /// The key's public id.
    pub fn id(&self) -> &str {
        &self.id
    }

    fn mac(&self, kind: Kind, key: &str, made: u64, value: &str) -> String {
        // A key of any length is accepted by HMAC.
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.secret).expect("HMAC takes any key");
        let made = made.to_string();
        for part in [ENTRY_SCHEMA, kind.as_str(), key, &self.id, &made, value] {
            mac.update(part.as_bytes());
            mac.update(&[0]);
        }
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// Credentials and endpoints from the request's environment, by the backends' usual names.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    /// The Redis password, from the URL.
    pub redis_password: Option<String>,
    /// `AWS_ACCESS_KEY_ID`.
    pub aws_access_key_id: Option<String>,
    /// `AWS_SECRET_ACCESS_KEY`.
    pub aws_secret_access_key: Option<String>,
    /// `AWS_SESSION_TOKEN`.
    pub aws_session_token: Option<String>,
    /// `AWS_REGION` or `AWS_DEFAULT_REGION`.
    pub aws_region: Option<String>,
    /// `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`.
    pub aws_endpoint: Option<String>,
    /// `ACTIONS_RESULTS_URL` (the cache service, v2) or `ACTIONS_CACHE_URL` (v1).
    pub actions_url: Option<String>,
    /// `ACTIONS_RUNTIME_TOKEN`.
    pub actions_token: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credentials(..)")
    }
}

/// The team cache as one request's settings set it up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TeamCacheSettings {
    /// The store.
    pub store: Store,
    /// The URL as shown to a person: without its password.
    pub shown: String,
    /// The signing key.
    pub key: TeamKey,
    /// Whether the level writes.
    pub mode: Mode,
    /// How long one read may take.
    pub deadline: Duration,
    /// What the store's backend authenticates with.
    pub credentials: Credentials,
}

/// Why the team cache settings were not taken: one line for the person, the level stays off.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    /// The URL does not parse.
    #[error("STANLEY_CACHE_REMOTE is not a URL ({0}); the team cache is off")]
    NotUrl(String),
    /// A scheme no backend serves.
    #[error(
        "STANLEY_CACHE_REMOTE names a store Stanley does not know ({0}://); use redis://, rediss://, s3:// or gha://; the team cache is off"
    )]
    Scheme(String),
    /// `s3://` without a bucket, `redis://` without a host.
    #[error("STANLEY_CACHE_REMOTE {0}; the team cache is off")]
    Incomplete(&'static str),
    /// The database of a `redis://` URL is not a number.
    #[error(
        "STANLEY_CACHE_REMOTE names Redis database {0:?}, which is not a number; the team cache is off"
    )]
    Database(String),
    /// A query parameter no store takes.
    #[error(
        "STANLEY_CACHE_REMOTE has a parameter Stanley does not know ({0}); the team cache is off"
    )]
    Parameter(String),
    /// The URL is set and the key is not.
    #[error(
        "STANLEY_CACHE_REMOTE is set but STANLEY_CACHE_TEAM_KEY is not; the team cache is off until both are"
    )]
    NoKey,
    /// The key is too short to sign with.
    #[error(
        "STANLEY_CACHE_TEAM_KEY is {0} bytes long, and a team key needs at least 16; the team cache is off"
    )]
    ShortKey(usize),
    /// The mode is neither.
    #[error(
        "STANLEY_CACHE_REMOTE_MODE must be read-write or read-only (got {0:?}); the team cache is off"
    )]
    Mode(String),
    /// The deadline is not a whole number of milliseconds from 1 to 10,000.
    #[error(
        "STANLEY_CACHE_REMOTE_DEADLINE_MS must be a whole number of milliseconds from 1 to 10000 (got {0:?}); the team cache is off"
    )]
    Deadline(String),
    /// The store's backend refused the configuration.
    #[error("the team cache at {shown} cannot be set up: {reason}; the team cache is off")]
    Backend {
        /// The URL without its password.
        shown: String,
        /// What the backend said.
        reason: String,
    },
}

/// What a request's environment says of the team cache, as the daemon's settings read it (by
/// the names in `stanley_proto::env`; blank counts as unset).
#[derive(Clone, Default)]
pub struct TeamCacheVars {
    /// `STANLEY_CACHE_REMOTE`.
    pub remote: Option<String>,
    /// `STANLEY_CACHE_TEAM_KEY`.
    pub key: Option<String>,
    /// `STANLEY_CACHE_REMOTE_MODE`.
    pub mode: Option<String>,
    /// `STANLEY_CACHE_REMOTE_DEADLINE_MS`.
    pub deadline_ms: Option<String>,
    /// The backends' own variables (`AWS_*`, `ACTIONS_*`); the Redis password comes from the URL.
    pub credentials: Credentials,
}

impl TeamCacheSettings {
    /// The settings from a request's variables: `None` when `STANLEY_CACHE_REMOTE` is unset.
    pub fn from_vars(vars: TeamCacheVars) -> Result<Option<Self>, SettingError> {
        let Some(url) = vars.remote else {
            return Ok(None);
        };
        let (store, shown, redis_password) = parse_url(&url)?;
        let key = TeamKey::new(&vars.key.ok_or(SettingError::NoKey)?)?;
        let mode = match vars.mode.as_deref() {
            None | Some("read-write") => Mode::ReadWrite,
            Some("read-only") => Mode::ReadOnly,
            Some(other) => return Err(SettingError::Mode(other.to_owned())),
        };
        let deadline = match vars.deadline_ms {
            None => DEFAULT_DEADLINE,
            Some(v) => match v.parse::<u64>() {
                Ok(ms @ 1..=10_000) => Duration::from_millis(ms),
                _ => return Err(SettingError::Deadline(v)),
            },
        };
        let credentials = Credentials {
            redis_password,
            ..vars.credentials
        };
        Ok(Some(Self {
            store,
            shown,
            key,
            mode,
            deadline,
            credentials,
        }))
    }
}

/// The store a URL names, the URL without its password, and the password.
fn parse_url(text: &str) -> Result<(Store, String, Option<String>), SettingError> {
    let url = url::Url::parse(text).map_err(|e| SettingError::NotUrl(e.to_string()))?;
    let mut query: HashMap<String, String> = url.query_pairs().into_owned().collect();
    let mut take = |name: &str| query.remove(name).filter(|v| !v.is_empty());
    let folder = |path: &str| {
        let path = path.trim_matches('/');
        if path.is_empty() {
            DEFAULT_PREFIX.to_owned()
        } else {
            path.to_owned()
        }
    };
    let mut shown = url.clone();
    let _ = shown.set_password(None);
    let password = url.password().map(percent_decode).filter(|p| !p.is_empty());
    let store = match url.scheme() {
        scheme @ ("redis" | "rediss") => {
            let host = url
                .host_str()
                .filter(|h| !h.is_empty())
                .ok_or(SettingError::Incomplete(
                    "redis:// needs a host: redis://host:6379/0",
                ))?;
            let port = url.port().unwrap_or(6379);
            let db_text = url.path().trim_matches('/');
            let db = if db_text.is_empty() {
                0
            } else {
                db_text
                    .parse::<i64>()
                    .ok()
                    .filter(|d| *d >= 0)
                    .ok_or_else(|| SettingError::Database(db_text.to_owned()))?
            };
            Store::Redis {
                endpoint: format!("{scheme}://{host}:{port}"),
                db,
                username: Some(percent_decode(url.username())).filter(|u| !u.is_empty()),
                prefix: folder(&take("prefix").unwrap_or_default()),
            }
        }
        "s3" => {
            let bucket =
                url.host_str()
                    .filter(|h| !h.is_empty())
                    .ok_or(SettingError::Incomplete(
                        "s3:// needs a bucket: s3://bucket/prefix",
                    ))?;
            Store::S3 {
                bucket: bucket.to_owned(),
                prefix: folder(url.path()),
                endpoint: take("endpoint"),
                region: take("region"),
            }
        }
        "gha" => Store::GithubActions {
            prefix: folder(url.host_str().unwrap_or_default()),
        },
        other => return Err(SettingError::Scheme(other.to_owned())),
    };
    if let Some(name) = query.keys().next() {
        return Err(SettingError::Parameter(name.clone()));
    }
    Ok((store, shown.to_string(), password))
}

fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// What an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Kind {
    /// A frame's answers.
    Answers,
    /// The model a requested model resolved to.
    Model,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Self::Answers => "answers",
            Self::Model => "model",
        }
    }

    /// How old an entry of this kind may be when it is read. An answer keeps as long as the
    /// question it answers does not change (its key says so); which model an alias resolves to
    /// moves without notice, so that is believed for a day.
    fn max_age(self) -> Duration {
        match self {
            Self::Answers => ANSWERS_MAX_AGE,
            Self::Model => Duration::from_secs(24 * 3600),
        }
    }

    /// The entry's name inside the store's folder.
    fn path(self, key: &str) -> String {
        match self {
            Self::Answers => format!("j/{}/{key}", &key[..2.min(key.len())]),
            Self::Model => format!("m/{key}"),
        }
    }
}

/// One entry as stored: its value as the exact bytes that were signed, and when it was made.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Entry {
    schema: String,
    kind: Kind,
    key: String,
    team: String,
    /// Seconds since the Unix epoch when the entry was signed.
    made: u64,
    value: String,
    #[serde(default)]
    mac: String,
}

/// Why an entry was not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// No signature.
    Unsigned,
    /// Signed with another team's key.
    Foreign,
    /// Its signature does not match its contents, it was moved under another key, or it says it
    /// was made in the future.
    Tampered,
    /// Older than its kind may be ([`Kind::max_age`]): a genuine entry replayed past its time.
    Stale,
    /// Not an entry of this schema, or its value does not parse.
    Malformed,
    /// Larger than [`MAX_ENTRY_BYTES`].
    Oversized,
}

/// How far ahead of this machine's clock another machine's may be.
const CLOCK_SKEW: u64 = 3600;

/// Seconds since the Unix epoch.
fn now() -> u64 {
    jiff::Timestamp::now().as_second().max(0) as u64
}

/// An entry for `key`, signed, made at `made`.
fn seal(team: &TeamKey, kind: Kind, key: &str, value: String, made: u64) -> Vec<u8> {
    let entry = Entry {
        schema: ENTRY_SCHEMA.to_owned(),
        kind,
        key: key.to_owned(),
        team: team.id.clone(),
        made,
        mac: team.mac(kind, key, made, &value),
        value,
    };
    serde_json::to_vec(&entry).unwrap_or_default()
}

/// The value of an entry read under `key` at `now`, once its signature and age are checked.
fn open(
    team: &TeamKey,
    kind: Kind,
    key: &str,
    bytes: &[u8],
    now: u64,
) -> Result<String, Rejection> {
    if bytes.len() > MAX_ENTRY_BYTES {
        return Err(Rejection::Oversized);
    }
    let entry: Entry = serde_json::from_slice(bytes).map_err(|_| Rejection::Malformed)?;
    if entry.schema != ENTRY_SCHEMA {
        return Err(Rejection::Malformed);
    }
    if entry.mac.is_empty() {
        return Err(Rejection::Unsigned);
    }
    if entry.team != team.id {
        return Err(Rejection::Foreign);
    }
    let want = team.mac(entry.kind, &entry.key, entry.made, &entry.value);
    if !constant_time_eq(want.as_bytes(), entry.mac.as_bytes()) {
        return Err(Rejection::Tampered);
    }
    // Signed, but for another key: a replay of a genuine entry under a name it does not own.
    if entry.kind != kind || entry.key != key || entry.made > now + CLOCK_SKEW {
        return Err(Rejection::Tampered);
    }
    if now.saturating_sub(entry.made) > kind.max_age().as_secs() {
        return Err(Rejection::Stale);
    }
    Ok(entry.value)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// What `stanleyctl cache stats` shows of the team level.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TeamStats {
    /// The store, without its password.
    pub store: String,
    /// Whether the level writes.
    pub mode: Mode,
    /// Answers read and used.
    pub hits: u64,
    /// Reads that found nothing.
    pub misses: u64,
    /// Entries ignored: unsigned.
    pub unsigned: u64,
    /// Entries ignored: another team's key.
    pub foreign: u64,
    /// Entries ignored: a signature that does not match, or a moved entry.
    pub tampered: u64,
    /// Entries ignored: not an entry, or a value that does not parse.
    pub malformed: u64,
    /// Entries ignored: too large.
    pub oversized: u64,
    /// Entries ignored: older than their kind may be.
    pub stale: u64,
    /// Times the level was bypassed because it answered slowly.
    pub slow: u64,
    /// Reads that took longer than the deadline.
    pub timeouts: u64,
    /// Reads and writes the store failed.
    pub errors: u64,
    /// Reads and writes skipped while the level was bypassed.
    pub bypassed: u64,
    /// Entries written.
    pub writes: u64,
    /// Writes dropped because the queue was full.
    pub dropped: u64,
    /// Whether the level is bypassed now.
    pub bypassing: bool,
}

#[derive(Default)]
struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
    unsigned: AtomicU64,
    foreign: AtomicU64,
    tampered: AtomicU64,
    malformed: AtomicU64,
    oversized: AtomicU64,
    stale: AtomicU64,
    slow: AtomicU64,
    timeouts: AtomicU64,
    errors: AtomicU64,
    bypassed: AtomicU64,
    writes: AtomicU64,
    dropped: AtomicU64,
}

fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

/// The breaker: after a failure the level is bypassed until `until`.
#[derive(Default)]
struct Breaker {
    until: Mutex<Option<Instant>>,
    warning: Mutex<Option<String>>,
}

impl Breaker {
    fn is_open(&self) -> bool {
        let until = *self.until.lock().unwrap_or_else(|e| e.into_inner());
        until.is_some_and(|t| Instant::now() < t)
    }

    /// Opens the breaker; the first opening of a spell leaves one warning line.
    fn open(&self, shown: &str, why: &str) {
        let now = Instant::now();
        let mut until = self.until.lock().unwrap_or_else(|e| e.into_inner());
        if until.is_some_and(|t| now < t) {
            return;
        }
        *until = Some(now + BYPASS);
        let line = format!(
            "the team cache at {shown} {why}; it is bypassed for {} s and Jev is asked instead",
            BYPASS.as_secs()
        );
        tracing::warn!("{line}");
        *self.warning.lock().unwrap_or_else(|e| e.into_inner()) = Some(line);
    }
}

struct Level {
    backend: Backend,
    key: TeamKey,
    mode: Mode,
    deadline: Duration,
    shown: String,
    counters: Counters,
    breaker: Breaker,
    /// Requested models whose resolution is known (or was found missing, and when).
    resolved: Mutex<HashMap<String, (Option<String>, Instant)>>,
    /// Requested models whose resolution this daemon already wrote.
    told: Mutex<std::collections::HashSet<String>>,
    /// Reads in a row that took more than half the deadline.
    slow: AtomicU32,
}

/// The team's shared level, as the executor uses it ([`RemoteJudgments`]).
#[derive(Clone)]
pub struct TeamCache {
    level: Arc<Level>,
    writes: tokio::sync::mpsc::Sender<(String, Vec<u8>)>,
}

impl std::fmt::Debug for TeamCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeamCache")
            .field("store", &self.level.shown)
            .finish_non_exhaustive()
    }
}

/// How long a missing model resolution is believed before the store is asked again.
const MISSING_MODEL_FOR: Duration = Duration::from_secs(60);

impl TeamCache {
    /// The level for `settings`; needs a Tokio runtime (its writer runs there).
    pub fn open(settings: &TeamCacheSettings) -> Result<Self, SettingError> {
        let backend = Backend::new(settings).map_err(|reason| SettingError::Backend {
            shown: settings.shown.clone(),
            reason,
        })?;
        let level = Arc::new(Level {
            backend,
            slow: AtomicU32::new(0),
            key: settings.key.clone(),
            mode: settings.mode,
            deadline: settings.deadline,
            shown: settings.shown.clone(),
            counters: Counters::default(),
            breaker: Breaker::default(),
            resolved: Mutex::default(),
            told: Mutex::default(),
        });
        let (writes, rx) = tokio::sync::mpsc::channel(WRITE_QUEUE);
        tokio::spawn(drain(level.clone(), rx));
        Ok(Self { level, writes })
    }

    /// The level's counters.
    pub fn stats(&self) -> TeamStats {
        let c = &self.level.counters;
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
        TeamStats {
            store: self.level.shown.clone(),
            mode: self.level.mode,
            hits: n(&c.hits),
            misses: n(&c.misses),
            unsigned: n(&c.unsigned),
            foreign: n(&c.foreign),
            tampered: n(&c.tampered),
            malformed: n(&c.malformed),
            oversized: n(&c.oversized),
            stale: n(&c.stale),
            slow: n(&c.slow),
            timeouts: n(&c.timeouts),
            errors: n(&c.errors),
            bypassed: n(&c.bypassed),
            writes: n(&c.writes),
            dropped: n(&c.dropped),
            bypassing: self.level.breaker.is_open(),
        }
    }

    /// The breaker's warning line, once per spell of bypassing.
    pub fn take_warning(&self) -> Option<String> {
        self.level
            .breaker
            .warning
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// `stanleyctl doctor`'s check: a signed probe entry written, read back and verified, each
    /// step within the deadline. `Ok` with what was checked, or the step that failed.
    pub async fn probe(&self) -> Result<String, String> {
        let level = &self.level;
        let key = format!("probe-{}", level.key.id);
        let path = Kind::Model.path(&key);
        let value = format!("probe at {}", jiff::Timestamp::now());
        let bytes = seal(&level.key, Kind::Model, &key, value.clone(), now());
        let deadline = level.deadline.max(Duration::from_secs(2));
        if level.mode == Mode::ReadWrite {
            match tokio::time::timeout(deadline, level.backend.write(&path, bytes)).await {
                Err(_) => {
                    return Err(format!(
                        "writing took longer than {} ms",
                        deadline.as_millis()
                    ));
                }
                Ok(Err(Stored::Failed(why))) => return Err(format!("writing failed: {why}")),
                Ok(Err(Stored::Exists) | Ok(())) => {}
            }
        }
        let read = tokio::time::timeout(deadline, level.backend.read(&path)).await;
        match read {
            Err(_) => Err(format!(
                "reading took longer than {} ms",
                deadline.as_millis()
            )),
            Ok(Err(Fetch::NotFound)) => {
                if level.mode == Mode::ReadOnly {
                    Ok("reached (read-only: nothing written to read back)".to_owned())
                } else {
                    Err("the entry just written was not found".to_owned())
                }
            }
            Ok(Err(Fetch::Failed(why))) => Err(format!("reading failed: {why}")),
            Ok(Ok(bytes)) => match open(&level.key, Kind::Model, &key, &bytes, now()) {
                Ok(got) if level.mode == Mode::ReadOnly || got == value => Ok(format!(
                    "reached, {} and read back with a valid signature",
                    if level.mode == Mode::ReadWrite {
                        "written"
                    } else {
                        "not written (read-only)"
                    }
                )),
                Ok(_) => Err("read back another value than was written".to_owned()),
                Err(why) => Err(format!("read back an entry that fails its check ({why:?})")),
            },
        }
    }
}

/// Why a read gave no bytes.
enum Fetch {
    /// Nothing is stored under the name.
    NotFound,
    /// The store failed, in one line.
    Failed(String),
}

/// An OpenDAL error in one line, without the context lists it carries.
fn brief(e: &opendal::Error) -> String {
    // The kind, and the innermost cause OpenDAL kept (a person needs those, not the context
    // list its Display carries); read from the error's parts, never parsed from its text.
    use std::error::Error as _;
    let mut cause = e.source();
    while let Some(next) = cause.and_then(|c| c.source()) {
        cause = Some(next);
    }
    let said = cause.map_or_else(|| e.message().to_owned(), ToString::to_string);
    one_line(&format!("{}: {said}", e.kind()))
}

/// `text`'s first line, at most 160 characters.
fn one_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(160)
        .collect()
}

impl Level {
    /// Notes how long a read that answered took: the second read in a row slower than half the
    /// deadline opens the breaker (a store that always answers just in time would otherwise
    /// cost every read nearly the deadline).
    fn timed(&self, started: Instant) {
        let took = started.elapsed();
        if took * 2 <= self.deadline {
            self.slow.store(0, Ordering::Relaxed);
            return;
        }
        if self.slow.fetch_add(1, Ordering::Relaxed) + 1 >= SLOW_IN_A_ROW {
            bump(&self.counters.slow);
            self.breaker.open(
                &self.shown,
                &format!("answers slowly ({} ms a read)", took.as_millis()),
            );
        }
    }

    /// The entry's value under `key`, verified; every outcome counted.
    async fn read(&self, kind: Kind, key: &str) -> Option<String> {
        let c = &self.counters;
        if self.breaker.is_open() {
            bump(&c.bypassed);
            return None;
        }
        let path = kind.path(key);
        let started = Instant::now();
        let bytes = match tokio::time::timeout(self.deadline, self.backend.read(&path)).await {
            Err(_) => {
                bump(&c.timeouts);
                self.breaker.open(
                    &self.shown,
                    &format!("did not answer within {} ms", self.deadline.as_millis()),
                );
                return None;
            }
            Ok(Err(Fetch::NotFound)) => {
                self.timed(started);
                bump(&c.misses);
                return None;
            }
            Ok(Err(Fetch::Failed(why))) => {
                bump(&c.errors);
                self.breaker
                    .open(&self.shown, &format!("failed a read ({why})"));
                return None;
            }
            Ok(Ok(bytes)) => {
                self.timed(started);
                bytes
            }
        };
        match open(&self.key, kind, key, &bytes, now()) {
            Ok(value) => Some(value),
            Err(why) => {
                bump(match why {
                    Rejection::Stale => &c.stale,
                    Rejection::Unsigned => &c.unsigned,
                    Rejection::Foreign => &c.foreign,
                    Rejection::Tampered => &c.tampered,
                    Rejection::Malformed => &c.malformed,
                    Rejection::Oversized => &c.oversized,
                });
                tracing::debug!(path, ?why, "team cache entry ignored");
                None
            }
        }
    }
}

/// The background writer: drains the queue, a few writes at a time, until the level is gone.
async fn drain(level: Arc<Level>, mut rx: tokio::sync::mpsc::Receiver<(String, Vec<u8>)>) {
    let permits = Arc::new(tokio::sync::Semaphore::new(WRITERS));
    while let Some((path, bytes)) = rx.recv().await {
        let Ok(permit) = permits.clone().acquire_owned().await else {
            break;
        };
        let level = level.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let c = &level.counters;
            if level.breaker.is_open() {
                bump(&c.bypassed);
                return;
            }
            let limit = level.deadline * 4;
            match tokio::time::timeout(limit, level.backend.write(&path, bytes)).await {
                Ok(Ok(())) => bump(&c.writes),
                // Another writer got there first (the GitHub Actions cache keeps an entry
                // once): the entry is there, which is what was wanted.
                Ok(Err(Stored::Exists)) => {}
                Ok(Err(Stored::Failed(why))) => {
                    bump(&c.errors);
                    level
                        .breaker
                        .open(&level.shown, &format!("failed a write ({why})"));
                }
                Err(_) => {
                    bump(&c.timeouts);
                    level.breaker.open(
                        &level.shown,
                        &format!("did not take a write within {} ms", limit.as_millis()),
                    );
                }
            }
        });
    }
}

/// The name a requested model's resolution is kept under.
fn model_key(requested: &str) -> String {
    stanley_core::sha256_hex(requested.as_bytes())
}

impl TeamCache {
    fn enqueue(&self, kind: Kind, key: &str, value: String) {
        let level = &self.level;
        if level.mode == Mode::ReadOnly {
            return;
        }
        let entry = seal(&level.key, kind, key, value, now());
        if self.writes.try_send((kind.path(key), entry)).is_err() {
            bump(&level.counters.dropped);
        }
    }
}

impl RemoteJudgments for TeamCache {
    fn resolved<'a>(&'a self, requested: &'a str) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            let level = &self.level;
            if let Some((known, when)) = level
                .resolved
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(requested)
                .cloned()
                && (known.is_some() || when.elapsed() < MISSING_MODEL_FOR)
            {
                return known;
            }
            let model = level.read(Kind::Model, &model_key(requested)).await;
            level
                .resolved
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(requested.to_owned(), (model.clone(), Instant::now()));
            model
        })
    }

    fn get<'a>(&'a self, key: &'a CacheKey) -> BoxFuture<'a, Option<CachedAnswers>> {
        Box::pin(async move {
            let level = &self.level;
            let value = level.read(Kind::Answers, &key.0).await?;
            match serde_json::from_str::<CachedAnswers>(&value) {
                Ok(answers) => {
                    bump(&level.counters.hits);
                    Some(answers)
                }
                Err(_) => {
                    bump(&level.counters.malformed);
                    None
                }
            }
        })
    }

    fn put(&self, key: &CacheKey, requested: &str, value: &CachedAnswers) {
        let Ok(text) = serde_json::to_string(value) else {
            return;
        };
        self.enqueue(Kind::Answers, &key.0, text);
        let first = self
            .level
            .told
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(requested.to_owned());
        if first {
            self.level
                .resolved
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(
                    requested.to_owned(),
                    (Some(value.model.clone()), Instant::now()),
                );
            self.enqueue(Kind::Model, &model_key(requested), value.model.clone());
        }
    }
}

/// The HTTP client the S3 and GitHub Actions backends send with: rustls with ring, as the Jev
/// client.
fn http_client() -> Result<reqwest::Client, reqwest::Error> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .user_agent(crate::jev_http::USER_AGENT)
        .pool_idle_timeout(Duration::from_secs(90))
        .build()
}

/// Why a write did not happen.
enum Stored {
    /// The entry is there already (a store that keeps an entry once).
    Exists,
    /// The store failed, in one line.
    Failed(String),
}

/// The store: Redis through the `redis` crate (reads as `GETRANGE key 0 64 KiB`: one round trip
/// that can never bring more than an entry may hold), S3 and the GitHub Actions cache through
/// OpenDAL (reads as a stream cut off past the bound).
enum Backend {
    Redis(Box<RedisStore>),
    Dal(opendal::Operator),
}

/// A Redis store and its connection.
struct RedisStore {
    client: redis::Client,
    /// One multiplexed connection, made at the first use and dropped when it fails.
    conn: tokio::sync::Mutex<Option<redis::aio::MultiplexedConnection>>,
    prefix: String,
}

impl RedisStore {
    /// The key an entry's path is stored under.
    fn name(&self, path: &str) -> String {
        format!("{}/{path}", self.prefix)
    }

    /// `cmd`'s reply, on the connection (made when there is none, dropped when it fails, so the
    /// next use connects again); a failure in one line.
    async fn query<T: redis::FromRedisValue>(&self, cmd: redis::Cmd) -> Result<T, String> {
        let mut c = {
            let mut slot = self.conn.lock().await;
            match slot.as_ref() {
                Some(c) => c.clone(),
                None => {
                    let c = self
                        .client
                        .get_multiplexed_async_connection()
                        .await
                        .map_err(|e| redis_brief(&e))?;
                    slot.insert(c).clone()
                }
            }
        };
        let reply = cmd.query_async(&mut c).await;
        if reply.is_err() {
            *self.conn.lock().await = None;
        }
        reply.map_err(|e| redis_brief(&e))
    }
}

/// A Redis error in one line.
fn redis_brief(e: &redis::RedisError) -> String {
    one_line(&e.to_string())
}

impl Backend {
    fn new(settings: &TeamCacheSettings) -> Result<Self, String> {
        match &settings.store {
            Store::Redis {
                endpoint,
                db,
                username,
                prefix,
            } => {
                let userinfo = match (username, &settings.credentials.redis_password) {
                    (None, None) => String::new(),
                    (user, password) => {
                        let enc = |t: &str| {
                            percent_encoding::utf8_percent_encode(
                                t,
                                percent_encoding::NON_ALPHANUMERIC,
                            )
                            .to_string()
                        };
                        format!(
                            "{}:{}@",
                            user.as_deref().map(enc).unwrap_or_default(),
                            password.as_deref().map(enc).unwrap_or_default()
                        )
                    }
                };
                let (scheme, host) = endpoint.split_once("://").unwrap_or(("redis", endpoint));
                let client = redis::Client::open(format!("{scheme}://{userinfo}{host}/{db}"))
                    .map_err(|e| redis_brief(&e))?;
                let _ = rustls::crypto::ring::default_provider().install_default();
                Ok(Self::Redis(Box::new(RedisStore {
                    client,
                    conn: tokio::sync::Mutex::new(None),
                    prefix: prefix.clone(),
                })))
            }
            _ => operator(settings).map(Self::Dal).map_err(|e| brief(&e)),
        }
    }

    /// The bytes stored at `path`, never more than one past [`MAX_ENTRY_BYTES`].
    async fn read(&self, path: &str) -> Result<Vec<u8>, Fetch> {
        match self {
            Self::Redis(store) => {
                let cmd = redis::cmd("GETRANGE")
                    .arg(store.name(path))
                    .arg(0)
                    .arg(MAX_ENTRY_BYTES)
                    .to_owned();
                match store.query::<Vec<u8>>(cmd).await {
                    // A missing key reads as the empty string; no entry is empty.
                    Ok(bytes) if bytes.is_empty() => Err(Fetch::NotFound),
                    Ok(bytes) => Ok(bytes),
                    Err(why) => Err(Fetch::Failed(why)),
                }
            }
            Self::Dal(op) => fetch(op, path).await,
        }
    }

    async fn write(&self, path: &str, bytes: Vec<u8>) -> Result<(), Stored> {
        match self {
            Self::Redis(store) => {
                let cmd = redis::cmd("SET")
                    .arg(store.name(path))
                    .arg(bytes)
                    .arg("EX")
                    .arg(ANSWERS_MAX_AGE.as_secs())
                    .to_owned();
                store.query::<()>(cmd).await.map_err(Stored::Failed)
            }
            Self::Dal(op) => match op.write(path, bytes).await {
                Ok(_) => Ok(()),
                Err(e)
                    if matches!(
                        e.kind(),
                        opendal::ErrorKind::AlreadyExists | opendal::ErrorKind::ConditionNotMatch
                    ) =>
                {
                    Err(Stored::Exists)
                }
                Err(e) => Err(Stored::Failed(brief(&e))),
            },
        }
    }
}

/// The bytes OpenDAL reads at `path`, as a stream cut off one byte past [`MAX_ENTRY_BYTES`] (so
/// an entry too large is never read whole; [`open`] refuses it by its length).
async fn fetch(op: &opendal::Operator, path: &str) -> Result<Vec<u8>, Fetch> {
    use futures::StreamExt;
    let failed = |e: opendal::Error| {
        if e.kind() == opendal::ErrorKind::NotFound {
            Fetch::NotFound
        } else {
            Fetch::Failed(brief(&e))
        }
    };
    let reader = op.reader(path).await.map_err(failed)?;
    let mut stream = reader.into_bytes_stream(..).await.map_err(failed)?;
    let mut out = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Fetch::NotFound
            } else {
                // The stream's errors wrap OpenDAL's: said as any other.
                match e
                    .get_ref()
                    .and_then(|inner| inner.downcast_ref::<opendal::Error>())
                {
                    Some(inner) => Fetch::Failed(brief(inner)),
                    None => Fetch::Failed(one_line(&e.to_string())),
                }
            }
        })?;
        out.extend_from_slice(&chunk);
        if out.len() > MAX_ENTRY_BYTES {
            out.truncate(MAX_ENTRY_BYTES + 1);
            break;
        }
    }
    Ok(out)
}

/// The OpenDAL operator for an S3 or GitHub Actions store.
fn operator(settings: &TeamCacheSettings) -> Result<opendal::Operator, opendal::Error> {
    use opendal::services;
    let creds = &settings.credentials;
    let op = match &settings.store {
        Store::Redis { .. } => {
            return Err(opendal::Error::new(
                opendal::ErrorKind::Unsupported,
                "Redis is served by the redis crate",
            ));
        }
        Store::S3 {
            bucket,
            prefix,
            endpoint,
            region,
        } => {
            let mut b = services::S3::default()
                .bucket(bucket)
                .root(&format!("/{prefix}/"))
                .region(
                    region
                        .as_deref()
                        .or(creds.aws_region.as_deref())
                        .unwrap_or("us-east-1"),
                );
            if let Some(endpoint) = endpoint.as_ref().or(creds.aws_endpoint.as_ref()) {
                b = b.endpoint(endpoint);
            }
            if let (Some(id), Some(secret)) =
                (&creds.aws_access_key_id, &creds.aws_secret_access_key)
            {
                b = b.access_key_id(id).secret_access_key(secret);
                if let Some(token) = &creds.aws_session_token {
                    b = b.session_token(token);
                }
            }
            opendal::Operator::new(b)?
        }
        Store::GithubActions { prefix } => {
            let mut b = services::Ghac::default()
                .root(&format!("/{prefix}/"))
                .version(ENTRY_SCHEMA);
            if let Some(url) = &creds.actions_url {
                b = b.endpoint(url);
            }
            if let Some(token) = &creds.actions_token {
                b = b.runtime_token(token);
            }
            opendal::Operator::new(b)?
        }
    };
    with_http(op)
}

/// `op` sending with Stanley's HTTP client.
fn with_http(op: opendal::Operator) -> Result<opendal::Operator, opendal::Error> {
    let client = http_client().map_err(|e| {
        opendal::Error::new(
            opendal::ErrorKind::ConfigInvalid,
            "cannot build the HTTP client",
        )
        .set_source(e)
    })?;
    let transport = opendal::HttpTransporter::new(
        opendal_http_transport_reqwest::ReqwestTransport::new(client),
    );
    let ctx = op.context().with_http_transport(transport);
    Ok(op.with_context(ctx))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The variables as the daemon's settings would hand them over.
    fn env(pairs: &[(&str, &str)]) -> TeamCacheVars {
        let get = |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        };
        TeamCacheVars {
            remote: get("STANLEY_CACHE_REMOTE"),
            key: get("STANLEY_CACHE_TEAM_KEY"),
            mode: get("STANLEY_CACHE_REMOTE_MODE"),
            deadline_ms: get("STANLEY_CACHE_REMOTE_DEADLINE_MS"),
            credentials: Credentials {
                aws_access_key_id: get("AWS_ACCESS_KEY_ID"),
                ..Credentials::default()
            },
        }
    }

    const KEY: &str = "a team secret of some length";

    #[test]
    fn urls_name_their_store_and_never_show_a_password() {
        let s = TeamCacheSettings::from_vars(env(&[
            (
                "STANLEY_CACHE_REMOTE",
                "redis://ci:s3cr%40t@cache.internal:6380/2?prefix=team-a",
            ),
            ("STANLEY_CACHE_TEAM_KEY", KEY),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(
            s.store,
            Store::Redis {
                endpoint: "redis://cache.internal:6380".into(),
                db: 2,
                username: Some("ci".into()),
                prefix: "team-a".into(),
            }
        );
        assert_eq!(s.credentials.redis_password.as_deref(), Some("s3cr@t"));
        assert!(!s.shown.contains("s3cr"), "{}", s.shown);
        assert_eq!((s.mode, s.deadline), (Mode::ReadWrite, DEFAULT_DEADLINE));

        let s = TeamCacheSettings::from_vars(env(&[
            (
                "STANLEY_CACHE_REMOTE",
                "s3://judgments/team/a?endpoint=http://127.0.0.1:9000&region=eu-west-1",
            ),
            ("STANLEY_CACHE_TEAM_KEY", KEY),
            ("STANLEY_CACHE_REMOTE_MODE", "read-only"),
            ("AWS_ACCESS_KEY_ID", "id"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(
            s.store,
            Store::S3 {
                bucket: "judgments".into(),
                prefix: "team/a".into(),
                endpoint: Some("http://127.0.0.1:9000".into()),
                region: Some("eu-west-1".into()),
            }
        );
        assert_eq!(s.mode, Mode::ReadOnly);
        let s = TeamCacheSettings::from_vars(env(&[
            ("STANLEY_CACHE_REMOTE", "gha://"),
            ("STANLEY_CACHE_TEAM_KEY", KEY),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(
            s.store,
            Store::GithubActions {
                prefix: "stanley".into()
            }
        );
        assert_eq!(TeamCacheSettings::from_vars(env(&[])).unwrap(), None);
    }

    #[test]
    fn every_bad_setting_says_which_and_turns_the_level_off() {
        let with = |url: &str, extra: &[(&str, &str)]| {
            let mut pairs = vec![
                ("STANLEY_CACHE_REMOTE", url),
                ("STANLEY_CACHE_TEAM_KEY", KEY),
            ];
            pairs.extend_from_slice(extra);
            TeamCacheSettings::from_vars(env(&pairs)).unwrap_err()
        };
        assert!(matches!(with("not a url", &[]), SettingError::NotUrl(_)));
        assert_eq!(
            with("memcached://h", &[]),
            SettingError::Scheme("memcached".into())
        );
        assert!(matches!(with("s3:///x", &[]), SettingError::Incomplete(_)));
        assert_eq!(
            with("redis://h/zero", &[]),
            SettingError::Database("zero".into())
        );
        assert_eq!(
            with("redis://h/0?ttl=3", &[]),
            SettingError::Parameter("ttl".into())
        );
        assert_eq!(
            with("redis://h", &[("STANLEY_CACHE_REMOTE_MODE", "write-only")]),
            SettingError::Mode("write-only".into())
        );
        assert_eq!(
            with("redis://h", &[("STANLEY_CACHE_REMOTE_DEADLINE_MS", "0")]),
            SettingError::Deadline("0".into())
        );
        assert_eq!(
            TeamCacheSettings::from_vars(env(&[("STANLEY_CACHE_REMOTE", "redis://h")]))
                .unwrap_err(),
            SettingError::NoKey
        );
        assert_eq!(
            TeamCacheSettings::from_vars(env(&[
                ("STANLEY_CACHE_REMOTE", "redis://h"),
                ("STANLEY_CACHE_TEAM_KEY", "short"),
            ]))
            .unwrap_err(),
            SettingError::ShortKey(5)
        );
        for e in [SettingError::NoKey, SettingError::ShortKey(5)] {
            assert!(e.to_string().contains("the team cache is off"), "{e}");
        }
    }

    #[test]
    fn only_an_entry_signed_with_the_team_key_for_its_own_name_is_used() {
        let team = TeamKey::new(KEY).unwrap();
        let other = TeamKey::new("another team's secret, long enough").unwrap();
        let made = 1_800_000_000;
        let entry = seal(&team, Kind::Answers, "abcd", "{\"x\":1}".into(), made);
        assert_eq!(
            open(&team, Kind::Answers, "abcd", &entry, made).unwrap(),
            "{\"x\":1}"
        );
        // Moved under another key, or read as another kind: a replay.
        assert_eq!(
            open(&team, Kind::Answers, "abce", &entry, made),
            Err(Rejection::Tampered)
        );
        assert_eq!(
            open(&team, Kind::Model, "abcd", &entry, made),
            Err(Rejection::Tampered)
        );
        // Another team's key.
        let foreign = seal(&other, Kind::Answers, "abcd", "{\"x\":1}".into(), made);
        assert_eq!(
            open(&team, Kind::Answers, "abcd", &foreign, made),
            Err(Rejection::Foreign)
        );
        // A value changed after signing, and a forged id with a made-up MAC.
        let text = String::from_utf8(entry.clone()).unwrap();
        let changed = text.replace("{\\\"x\\\":1}", "{\\\"x\\\":2}");
        assert_ne!(changed, text);
        assert_eq!(
            open(&team, Kind::Answers, "abcd", changed.as_bytes(), made),
            Err(Rejection::Tampered)
        );
        let mut unsigned: serde_json::Value = serde_json::from_slice(&entry).unwrap();
        unsigned["mac"] = "".into();
        let unsigned = serde_json::to_vec(&unsigned).unwrap();
        assert_eq!(
            open(&team, Kind::Answers, "abcd", &unsigned, made),
            Err(Rejection::Unsigned)
        );
        assert_eq!(
            open(&team, Kind::Answers, "abcd", b"garbage", made),
            Err(Rejection::Malformed)
        );
        let big = vec![b' '; MAX_ENTRY_BYTES + 1];
        assert_eq!(
            open(&team, Kind::Answers, "abcd", &big, made),
            Err(Rejection::Oversized)
        );
        // An entry is believed for its kind's time, and never from the future.
        let day = 24 * 3600;
        assert!(open(&team, Kind::Answers, "abcd", &entry, made + 29 * day).is_ok());
        assert_eq!(
            open(&team, Kind::Answers, "abcd", &entry, made + 31 * day),
            Err(Rejection::Stale)
        );
        let model = seal(&team, Kind::Model, "m1", "jev-a".into(), made);
        assert_eq!(
            open(&team, Kind::Model, "m1", &model, made + 2 * day),
            Err(Rejection::Stale)
        );
        assert_eq!(
            open(&team, Kind::Model, "m1", &model, made - 2 * 3600),
            Err(Rejection::Tampered)
        );
        // The time is signed: moving it back or forth breaks the signature.
        let text = String::from_utf8(entry.clone()).unwrap();
        let moved = text.replace(&made.to_string(), &(made + day).to_string());
        assert_eq!(
            open(&team, Kind::Answers, "abcd", moved.as_bytes(), made + day),
            Err(Rejection::Tampered)
        );
        assert!(!format!("{team:?}").contains("secret"));
    }

    #[tokio::test]
    async fn two_slow_reads_in_a_row_bypass_the_level_and_a_fast_one_resets_the_count() {
        let settings = TeamCacheSettings::from_vars(env(&[
            ("STANLEY_CACHE_REMOTE", "redis://127.0.0.1:1/0"),
            ("STANLEY_CACHE_TEAM_KEY", KEY),
            ("STANLEY_CACHE_REMOTE_DEADLINE_MS", "400"),
        ]))
        .unwrap()
        .unwrap();
        let cache = TeamCache::open(&settings).unwrap();
        let level = &cache.level;
        let ago = |ms| Instant::now() - Duration::from_millis(ms);
        level.timed(ago(250));
        level.timed(ago(10));
        level.timed(ago(250));
        assert!(
            !level.breaker.is_open(),
            "a fast read between resets the count"
        );
        level.timed(ago(250));
        assert!(level.breaker.is_open());
        assert_eq!(cache.stats().slow, 1);
        let warning = cache.take_warning().unwrap();
        assert!(
            warning.contains("answers slowly (250 ms a read)"),
            "{warning}"
        );
        assert!(warning.contains("redis://127.0.0.1:1/0"), "{warning}");
    }
}
