//! The judgment cache in sled under `.stanley/state/judgments/`: validated Jev answers keyed by
//! the hash of what was sent, bounded in size with least-recently-used eviction.
//!
//! Trees: `entries` (32-byte key → stamp, MAC, answers JSON), `lru` (stamp → key; the
//! smallest stamp is evicted first), `models` (requested model → the model it last resolved
//! to), and a `schema` key. Stamps come from sled's monotonic id generator, so the order
//! survives restarts. Values are answers and token counts, never evidence.
//!
//! Every entry is signed with HMAC-SHA256 under a key of the user's own, kept outside the
//! worktree (`cache.key` beside the trust file, 0600): a checkout can overwrite ignored files, so
//! a repository could plant a store inside the user's own `.stanley/state/`, but not one signed
//! with that key. An entry that fails its MAC drops the whole store.
//!
//! sled recovers a cut-short log silently, keeping what it can read. So after every flush the
//! cache writes `stanley-manifest.json` beside sled's files (the entry count and the newest
//! stamp); a store that comes back with fewer entries or without its newest one lost data.
//!
//! Nothing here fails a request. A store that does not open, holds another schema, lost data,
//! or has an entry whose signature does not match is dropped and rebuilt empty, with one warning
//! for the next request ([`SledJudgments::take_warning`]); a write that fails (a full disk) is
//! skipped and logged once.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, RwLock};

use serde::{Deserialize, Serialize};
use stanley_core::{CacheKey, CachedAnswers, JudgmentCache};

use crate::store_error::StoreError;

/// The store's schema, kept under the `schema` key.
pub const SCHEMA: &str = "stanley.judgments/2";
/// Bytes of MAC kept per entry (HMAC-SHA256, truncated).
const MAC_BYTES: usize = crate::user_key::MAC_BYTES;

/// The key entries are signed with: the user's own ([`crate::user_key`]).
pub use crate::user_key::{KEY_FILE, UserKey as CacheSecret};

/// The size bound when the daemon's settings do not give one: 32 MiB of keys and values.
pub const DEFAULT_MAX_BYTES: u64 = 32 * 1024 * 1024;

/// The manifest's file name, inside the store's folder.
const MANIFEST: &str = "stanley-manifest.json";

/// What the store held at its last flush.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Manifest {
    entries: u64,
    newest: u64,
}

/// What `stanleyctl cache stats` shows.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheStats {
    /// Where the store lives.
    pub path: String,
    /// Answers kept.
    pub entries: u64,
    /// Bytes of keys and values kept (what the bound counts).
    pub bytes: u64,
    /// The bound.
    pub max_bytes: u64,
    /// sled's files on disk.
    pub disk_bytes: u64,
    /// Lookups answered since the daemon started.
    pub hits: u64,
    /// Lookups that found nothing usable since the daemon started.
    pub misses: u64,
    /// Entries evicted to stay under the bound since the daemon started.
    pub evictions: u64,
}

struct Store {
    db: sled::Db,
    entries: sled::Tree,
    lru: sled::Tree,
    models: sled::Tree,
}

/// The sled-backed judgment cache.
pub struct SledJudgments {
    dir: PathBuf,
    secret: CacheSecret,
    max_bytes: u64,
    store: RwLock<Option<Store>>,
    /// Serialises writers, so eviction sees a consistent byte count.
    write: Mutex<()>,
    bytes: AtomicU64,
    count: AtomicU64,
    newest: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: AtomicU64,
    warning: Mutex<Option<String>>,
    write_failed: AtomicBool,
    /// Something was written since the last flush.
    dirty: AtomicBool,
}

impl std::fmt::Debug for SledJudgments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SledJudgments")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

/// Opens sled in `dir`; a panic inside sled (it has them on some damaged files) is an error.
fn open_sled(dir: &Path) -> Result<sled::Db, StoreError> {
    crate::records::open_sled(dir, 1024 * 1024, sled::Mode::LowSpace)
}

/// `stamp | mac | payload`.
fn encode(secret: &CacheSecret, key: &[u8], stamp: u64, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + MAC_BYTES + payload.len());
    out.extend_from_slice(&stamp.to_be_bytes());
    out.extend_from_slice(&secret.mac(key, payload));
    out.extend_from_slice(payload);
    out
}

/// The stamp and payload of a stored value, or None when it is damaged or not signed with this
/// user's key.
fn decode<'a>(secret: &CacheSecret, key: &[u8], value: &'a [u8]) -> Option<(u64, &'a [u8])> {
    if value.len() < 8 + MAC_BYTES {
        return None;
    }
    let stamp = u64::from_be_bytes(value[..8].try_into().ok()?);
    let payload = &value[8 + MAC_BYTES..];
    let expected = secret.mac(key, payload);
    // Constant time is not needed here (the MAC is not a secret a caller could probe), but a
    // plain comparison of fixed-size arrays is all this takes.
    (value[8..8 + MAC_BYTES] == expected[..]).then_some((stamp, payload))
}

/// The 32 bytes of a 64-hex-digit key.
fn raw_key(key: &CacheKey) -> Option<[u8; 32]> {
    let hex = key.0.as_bytes();
    if hex.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in hex.chunks(2).enumerate() {
        let text = std::str::from_utf8(pair).ok()?;
        out[i] = u8::from_str_radix(text, 16).ok()?;
    }
    Some(out)
}

/// Opens the store and checks every entry; returns it with its byte count, or why it cannot
/// be trusted.
fn open_store(dir: &Path, secret: &CacheSecret) -> Result<(Store, Held), StoreError> {
    let db = open_sled(dir)?;
    let checked = catch_unwind(AssertUnwindSafe(|| -> Result<(Store, Held), StoreError> {
        match db.get("schema")? {
            Some(v) if v.as_ref() != SCHEMA.as_bytes() => {
                return Err(StoreError::Schema {
                    found: String::from_utf8_lossy(&v).into_owned(),
                    expected: SCHEMA,
                });
            }
            Some(_) => {}
            None => {
                db.insert("schema", SCHEMA)?;
            }
        }
        let entries = db.open_tree("entries")?;
        let lru = db.open_tree("lru")?;
        let models = db.open_tree("models")?;
        // The eviction order is rebuilt from the entries' own stamps, so an order cut short by
        // a crash between two writes cannot leave an entry that is never evicted.
        lru.clear()?;
        let mut held = Held::default();
        for item in entries.iter() {
            let (key, value) = item?;
            let Some((stamp, payload)) = decode(secret, &key, &value) else {
                return Err(StoreError::Unsigned);
            };
            if serde_json::from_slice::<CachedAnswers>(payload).is_err() {
                return Err(StoreError::Unparsable);
            }
            lru.insert(stamp.to_be_bytes(), key.as_ref())?;
            held.bytes += (key.len() + value.len()) as u64;
            held.entries += 1;
            held.newest = held.newest.max(stamp);
        }
        Ok((
            Store {
                db: db.clone(),
                entries,
                lru,
                models,
            },
            held,
        ))
    }));
    match checked {
        Ok(r) => r,
        Err(_) => Err(StoreError::ReadPanicked),
    }
}

/// What an opened store holds.
#[derive(Clone, Copy, Debug, Default)]
struct Held {
    entries: u64,
    bytes: u64,
    newest: u64,
}

/// Why a store that opened lost data, judged against the manifest of its last flush.
fn lost_data(dir: &Path, held: Held) -> Option<StoreError> {
    let text = crate::records::read_bounded(&dir.join(MANIFEST), 1024 * 1024).ok()?;
    let manifest: Manifest = serde_json::from_slice(&text).ok()?;
    if held.entries < manifest.entries {
        return Some(StoreError::Lost {
            held: held.entries,
            written: manifest.entries,
        });
    }
    if manifest.entries > 0 && held.newest < manifest.newest {
        return Some(StoreError::NewestMissing);
    }
    None
}

impl SledJudgments {
    /// Opens (or creates) the cache in `dir`, bounded to `max_bytes` of keys and values. A
    /// store that cannot be trusted is moved aside and rebuilt empty, with a warning; only a
    /// folder that cannot be created at all is an error (the daemon then runs without a cache).
    pub fn open(dir: &Path, max_bytes: u64, secret: CacheSecret) -> Result<Self, StoreError> {
        crate::records::create_private_dir(dir)?;
        // A store Stanley did not make (a repository that committed one, which a checkout
        // writes 0755) could hold answers chosen for its own diff: it is never opened.
        crate::records::refuse_foreign_dir(dir)?;
        // sled opens its own files by name: a link planted among them would be written through.
        crate::records::refuse_links_within(dir)?;
        let opened =
            open_store(dir, &secret).and_then(|(store, held)| match lost_data(dir, held) {
                Some(why) => Err(why),
                None => Ok((store, held)),
            });
        let (store, held, warning) = match opened {
            Ok((store, held)) => (store, held, None),
            Err(why) => {
                let (store, held) = rebuild(dir, &secret)?;
                (store, held, Some(damaged(dir, &why)))
            }
        };
        if let Some(w) = &warning {
            tracing::warn!("{w}");
        }
        let this = Self {
            dir: dir.to_owned(),
            secret,
            max_bytes: max_bytes.max(64 * 1024),
            store: RwLock::new(Some(store)),
            write: Mutex::new(()),
            bytes: AtomicU64::new(held.bytes),
            count: AtomicU64::new(held.entries),
            newest: AtomicU64::new(held.newest),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
            warning: Mutex::new(warning),
            write_failed: AtomicBool::new(false),
            dirty: AtomicBool::new(false),
        };
        // A smaller bound than the store was written under applies at once.
        {
            let _guard = this.write.lock().unwrap_or_else(|e| e.into_inner());
            this.evict();
        }
        Ok(this)
    }

    /// The one-line warning about a cache that was damaged and rebuilt, the first time it is
    /// asked for.
    pub fn take_warning(&self) -> Option<String> {
        self.warning
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// Counts and sizes.
    pub fn stats(&self) -> CacheStats {
        let store = self.store.read().unwrap_or_else(|e| e.into_inner());
        let (entries, disk_bytes) = store.as_ref().map_or((0, 0), |s| {
            (s.entries.len() as u64, s.db.size_on_disk().unwrap_or(0))
        });
        CacheStats {
            path: self.dir.display().to_string(),
            entries,
            bytes: self.bytes.load(Ordering::SeqCst),
            max_bytes: self.max_bytes,
            disk_bytes,
            hits: self.hits.load(Ordering::SeqCst),
            misses: self.misses.load(Ordering::SeqCst),
            evictions: self.evictions.load(Ordering::SeqCst),
        }
    }

    /// Removes every answer (and what models resolved to); returns how many answers went.
    pub fn clear(&self) -> Result<u64, StoreError> {
        let _guard = self.write.lock().unwrap_or_else(|e| e.into_inner());
        let store = self.store.read().unwrap_or_else(|e| e.into_inner());
        let Some(s) = store.as_ref() else {
            return Ok(0);
        };
        let n = s.entries.len() as u64;
        for tree in [&s.entries, &s.lru, &s.models] {
            tree.clear().map_err(StoreError::Clear)?;
        }
        s.db.flush().map_err(StoreError::Clear)?;
        self.bytes.store(0, Ordering::SeqCst);
        self.count.store(0, Ordering::SeqCst);
        self.write_manifest();
        Ok(n)
    }

    /// Writes what is buffered to disk, then the manifest of what it holds (after each
    /// request, off the request's path).
    pub fn flush(&self) {
        // A request that kept or touched nothing costs no disk write.
        if !self.dirty.swap(false, Ordering::SeqCst) {
            return;
        }
        let _guard = self.write.lock().unwrap_or_else(|e| e.into_inner());
        let flushed = {
            let store = self.store.read().unwrap_or_else(|e| e.into_inner());
            match store.as_ref().map(|s| s.db.flush()) {
                Some(Ok(_)) => true,
                Some(Err(e)) => {
                    self.write_failed(&e.to_string());
                    false
                }
                None => false,
            }
        };
        if flushed {
            self.write_manifest();
        }
    }

    /// Records what the store holds now; the caller holds the write lock.
    fn write_manifest(&self) {
        let manifest = Manifest {
            entries: self.count.load(Ordering::SeqCst),
            newest: self.newest.load(Ordering::SeqCst),
        };
        let bytes = serde_json::to_vec(&manifest).unwrap_or_default();
        if let Err(e) = crate::records::write_atomic(&self.dir.join(MANIFEST), &bytes) {
            self.write_failed(&e.to_string());
        }
    }

    fn stamp(&self, db: &sled::Db) -> Option<u64> {
        let stamp = db.generate_id().ok()?;
        self.newest.fetch_max(stamp, Ordering::SeqCst);
        Some(stamp)
    }

    fn write_failed(&self, why: &str) {
        if !self.write_failed.swap(true, Ordering::SeqCst) {
            tracing::warn!(
                error = why,
                "the judgment cache cannot be written; answers are not kept until it can"
            );
        }
    }

    /// A damaged entry was found while serving: the store is rebuilt empty, with a warning.
    fn drop_damaged(&self, why: &StoreError) {
        let _guard = self.write.lock().unwrap_or_else(|e| e.into_inner());
        let mut store = self.store.write().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = store.take() {
            drop(old);
        }
        let warning = damaged(&self.dir, why);
        tracing::warn!("{warning}");
        *self.warning.lock().unwrap_or_else(|e| e.into_inner()) = Some(warning);
        let held = match rebuild(&self.dir, &self.secret) {
            Ok((fresh, held)) => {
                *store = Some(fresh);
                held
            }
            Err(e) => {
                tracing::warn!(error = %e, "the judgment cache could not be rebuilt; running without it");
                Held::default()
            }
        };
        self.bytes.store(held.bytes, Ordering::SeqCst);
        self.count.store(held.entries, Ordering::SeqCst);
        self.newest.store(held.newest, Ordering::SeqCst);
    }

    /// Evicts the least recently used entries until the store is under its bound. The caller
    /// holds the write lock.
    fn evict(&self) {
        let store = self.store.read().unwrap_or_else(|e| e.into_inner());
        let Some(s) = store.as_ref() else {
            return;
        };
        let before = self.evictions.load(Ordering::SeqCst);
        while self.bytes.load(Ordering::SeqCst) > self.max_bytes {
            let Ok(Some((stamp, key))) = s.lru.pop_min() else {
                break;
            };
            // A stamp the entry no longer carries was left by a touch; it only goes.
            let current = s.entries.get(&key).ok().flatten();
            if let Some(value) = current
                && value.len() >= 8
                && value[..8] == stamp[..]
                && s.entries.remove(&key).is_ok()
            {
                self.bytes
                    .fetch_sub((key.len() + value.len()) as u64, Ordering::SeqCst);
                self.count.fetch_sub(1, Ordering::SeqCst);
                self.evictions.fetch_add(1, Ordering::SeqCst);
            }
        }
        if self.evictions.load(Ordering::SeqCst) != before {
            // sled may persist the smaller store before the next flush: a lower count is
            // always safe to record, and keeps the next open from calling it damaged.
            self.write_manifest();
        }
    }

    fn lookup(&self, key: &[u8; 32]) -> Result<Option<CachedAnswers>, StoreError> {
        let store = self.store.read().unwrap_or_else(|e| e.into_inner());
        let Some(s) = store.as_ref() else {
            return Ok(None);
        };
        let Some(value) = s.entries.get(key)? else {
            return Ok(None);
        };
        let Some((old_stamp, payload)) = decode(&self.secret, key, &value) else {
            return Err(StoreError::Unsigned);
        };
        let Ok(answers) = serde_json::from_slice::<CachedAnswers>(payload) else {
            return Err(StoreError::Unparsable);
        };
        // An entry in the younger half of the eviction order (fewer stamps issued since its own
        // than half the entries) is not touched: at least half the store goes before it, and a
        // request's hundreds of hits then cost no writes.
        let since = self.newest.load(Ordering::SeqCst).saturating_sub(old_stamp);
        if since < self.count.load(Ordering::SeqCst) / 2 {
            return Ok(Some(answers));
        }
        // Touch: the entry moves to the young end of the eviction order, only if it is still the
        // value just read (an eviction, a clear or a newer answer in between wins).
        self.dirty.store(true, Ordering::SeqCst);
        if let Some(stamp) = self.stamp(&s.db) {
            let touched = encode(&self.secret, key, stamp, payload);
            match s.entries.compare_and_swap(key, Some(&value), Some(touched)) {
                Ok(Ok(())) => {
                    let ok = s.lru.insert(stamp.to_be_bytes(), &key[..]).is_ok()
                        && s.lru.remove(old_stamp.to_be_bytes()).is_ok();
                    if !ok {
                        self.write_failed("touching an entry failed");
                    }
                }
                Ok(Err(_)) => {}
                Err(e) => self.write_failed(&e.to_string()),
            }
        }
        Ok(Some(answers))
    }
}

impl Drop for SledJudgments {
    fn drop(&mut self) {
        // The daemon stops: what is buffered goes to disk with a manifest that matches it.
        self.flush();
    }
}

/// The warning for a store that could not be trusted.
fn damaged(dir: &Path, why: &StoreError) -> String {
    format!(
        "the judgment cache at {} was damaged ({why}); it was dropped and rebuilt empty, so \
         earlier answers are asked again",
        dir.display()
    )
}

/// Removes the store's files and opens an empty one.
fn rebuild(dir: &Path, secret: &CacheSecret) -> Result<(Store, Held), StoreError> {
    let cannot = |e: StoreError| StoreError::Rebuild(Box::new(e));
    if let Ok(entries) = crate::records::list_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            let gone = if entry.file_type().is_ok_and(|t| t.is_dir()) {
                crate::records::remove_tree(&path)
            } else {
                crate::records::remove_file(&path)
            };
            gone.map_err(|e| cannot(e.into()))?;
        }
    }
    crate::records::create_private_dir(dir).map_err(|e| cannot(e.into()))?;
    open_store(dir, secret).map_err(cannot)
}

impl JudgmentCache for SledJudgments {
    fn resolved(&self, requested: &str) -> Option<String> {
        let store = self.store.read().unwrap_or_else(|e| e.into_inner());
        let value = store.as_ref()?.models.get(requested).ok()??;
        String::from_utf8(value.to_vec()).ok()
    }

    fn get(&self, key: &CacheKey) -> Option<CachedAnswers> {
        let raw = raw_key(key)?;
        match self.lookup(&raw) {
            Ok(Some(hit)) => {
                self.hits.fetch_add(1, Ordering::SeqCst);
                Some(hit)
            }
            Ok(None) => {
                self.misses.fetch_add(1, Ordering::SeqCst);
                None
            }
            Err(why) => {
                self.misses.fetch_add(1, Ordering::SeqCst);
                self.drop_damaged(&why);
                None
            }
        }
    }

    fn put(&self, key: &CacheKey, requested: &str, value: &CachedAnswers) {
        let Some(raw) = raw_key(key) else {
            return;
        };
        let Ok(payload) = serde_json::to_vec(value) else {
            return;
        };
        let _guard = self.write.lock().unwrap_or_else(|e| e.into_inner());
        {
            let store = self.store.read().unwrap_or_else(|e| e.into_inner());
            let Some(s) = store.as_ref() else {
                return;
            };
            let Some(stamp) = self.stamp(&s.db) else {
                self.write_failed("no stamp");
                return;
            };
            let encoded = encode(&self.secret, &raw, stamp, &payload);
            self.dirty.store(true, Ordering::SeqCst);
            let added = (raw.len() + encoded.len()) as u64;
            match s.entries.insert(raw, encoded) {
                Ok(old) => {
                    if let Some(old) = old {
                        self.bytes
                            .fetch_sub((raw.len() + old.len()) as u64, Ordering::SeqCst);
                        if old.len() >= 8 {
                            let _ = s.lru.remove(&old[..8]);
                        }
                    } else {
                        self.count.fetch_add(1, Ordering::SeqCst);
                    }
                    self.bytes.fetch_add(added, Ordering::SeqCst);
                }
                Err(e) => {
                    self.write_failed(&e.to_string());
                    return;
                }
            }
            let written = s.lru.insert(stamp.to_be_bytes(), &raw[..]).and_then(|_| {
                s.models
                    .insert(requested.as_bytes(), value.model.as_bytes())
                    .map(|_| ())
            });
            if let Err(e) = written {
                self.write_failed(&e.to_string());
            }
        }
        self.evict();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

    fn secret() -> CacheSecret {
        CacheSecret::from_bytes([7; 32])
    }

    fn key(n: u32) -> CacheKey {
        CacheKey(stanley_core::sha256_hex(&n.to_be_bytes()))
    }

    fn answers(p: f64) -> CachedAnswers {
        let mut answers = Map::new();
        answers.insert("q".into(), json!({"type": "noul", "noul": p}));
        CachedAnswers {
            model: "jev-1.13.0".into(),
            answers,
            input_tokens: 100,
            output_tokens: 4,
        }
    }

    #[test]
    fn answers_survive_reopening_and_models_are_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("judgments");
        {
            let cache = SledJudgments::open(&path, DEFAULT_MAX_BYTES, secret()).unwrap();
            assert!(cache.get(&key(1)).is_none());
            cache.put(&key(1), "jev-latest", &answers(0.25));
            assert_eq!(cache.get(&key(1)), Some(answers(0.25)));
            cache.flush();
            let stats = cache.stats();
            assert_eq!((stats.entries, stats.hits, stats.misses), (1, 1, 1));
        }
        let cache = SledJudgments::open(&path, DEFAULT_MAX_BYTES, secret()).unwrap();
        assert!(cache.take_warning().is_none());
        assert_eq!(cache.get(&key(1)), Some(answers(0.25)));
        assert_eq!(cache.resolved("jev-latest").as_deref(), Some("jev-1.13.0"));
        assert_eq!(cache.clear().unwrap(), 1);
        assert!(cache.get(&key(1)).is_none());
        assert_eq!(cache.stats().bytes, 0);
    }

    #[test]
    fn the_least_recently_used_answers_go_first_when_the_bound_is_reached() {
        let dir = tempfile::tempdir().unwrap();
        let cache = SledJudgments::open(&dir.path().join("j"), 64 * 1024, secret()).unwrap();
        let one = {
            cache.put(&key(0), "m", &answers(0.5));
            cache.stats().bytes
        };
        let fits = (64 * 1024 / one) as u32;
        for n in 1..fits {
            cache.put(&key(n), "m", &answers(0.5));
            // Key 0 is used all along, so it is never the oldest.
            assert!(cache.get(&key(0)).is_some());
        }
        assert_eq!(cache.stats().evictions, 0);
        for n in fits..fits + 10 {
            cache.put(&key(n), "m", &answers(0.5));
        }
        let stats = cache.stats();
        assert!(stats.bytes <= 64 * 1024, "{stats:?}");
        assert!(stats.evictions >= 10, "{stats:?}");
        assert!(cache.get(&key(0)).is_some(), "the one in use stays");
        assert!(cache.get(&key(1)).is_none(), "the oldest unused went");
        assert!(cache.get(&key(fits + 9)).is_some(), "the newest stays");
    }

    #[test]
    fn a_hit_in_the_younger_half_writes_nothing_and_an_older_one_moves_up() {
        let dir = tempfile::tempdir().unwrap();
        let cache =
            SledJudgments::open(&dir.path().join("j"), DEFAULT_MAX_BYTES, secret()).unwrap();
        for n in 0..100 {
            cache.put(&key(n), "m", &answers(0.5));
        }
        let newest = || cache.newest.load(Ordering::SeqCst);
        let before = newest();
        for _ in 0..10 {
            assert!(cache.get(&key(99)).is_some());
        }
        assert_eq!(newest(), before, "a young entry is not touched");
        assert!(cache.get(&key(0)).is_some());
        assert!(newest() > before, "the oldest entry moved to the young end");
        let after = newest();
        assert!(cache.get(&key(0)).is_some());
        assert_eq!(newest(), after, "and is young now");
    }

    #[test]
    fn a_damaged_store_is_rebuilt_with_a_warning_and_never_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("judgments");
        {
            let cache = SledJudgments::open(&path, DEFAULT_MAX_BYTES, secret()).unwrap();
            for n in 0..200 {
                cache.put(&key(n), "m", &answers(0.5));
            }
            cache.flush();
        }
        // Cut sled's data file short, as a crash or a full disk might.
        let db = path.join("db");
        let len = std::fs::metadata(&db).unwrap().len();
        let file = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
        file.set_len(len / 3).unwrap();
        drop(file);
        let cache = SledJudgments::open(&path, DEFAULT_MAX_BYTES, secret()).unwrap();
        let served: Vec<_> = (0..200).filter_map(|n| cache.get(&key(n))).collect();
        // sled alone would come back with the part it could read; the manifest says more was
        // written, so the store is rebuilt.
        let w = cache.take_warning().expect("a warning");
        assert!(
            w.contains("was damaged") && w.contains("rebuilt empty"),
            "{w}"
        );
        assert!(served.is_empty());
        cache.put(&key(1), "m", &answers(0.75));
        assert_eq!(cache.get(&key(1)), Some(answers(0.75)));
    }

    #[test]
    fn an_entry_that_fails_its_checksum_drops_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("judgments");
        let cache = SledJudgments::open(&path, DEFAULT_MAX_BYTES, secret()).unwrap();
        cache.put(&key(1), "m", &answers(0.5));
        cache.put(&key(2), "m", &answers(0.5));
        {
            let store = cache.store.read().unwrap();
            let s = store.as_ref().unwrap();
            let raw = raw_key(&key(1)).unwrap();
            let mut value = s.entries.get(raw).unwrap().unwrap().to_vec();
            let last = value.len() - 3;
            value[last] ^= 0x20;
            s.entries.insert(raw, value).unwrap();
        }
        assert!(cache.get(&key(1)).is_none());
        let warning = cache.take_warning().unwrap();
        assert!(
            warning.contains("is not signed with this user's key"),
            "{warning}"
        );
        assert!(cache.get(&key(2)).is_none(), "the whole store was dropped");
        assert_eq!(cache.stats().entries, 0);
    }

    #[test]
    fn a_store_signed_with_another_key_is_never_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("judgments");
        {
            let planted =
                SledJudgments::open(&path, DEFAULT_MAX_BYTES, CacheSecret::from_bytes([1; 32]))
                    .unwrap();
            planted.put(&key(1), "m", &answers(0.01));
        }
        let cache = SledJudgments::open(&path, DEFAULT_MAX_BYTES, secret()).unwrap();
        let warning = cache.take_warning().expect("a warning");
        assert!(
            warning.contains("is not signed with this user's key"),
            "{warning}"
        );
        assert!(cache.get(&key(1)).is_none());
    }

    #[test]
    fn the_signing_key_is_made_once_and_must_be_a_private_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state/stanley");
        let a = CacheSecret::load_or_create(&state).unwrap();
        let b = CacheSecret::load_or_create(&state).unwrap();
        assert_eq!(
            a.mac(b"k", b"p"),
            b.mac(b"k", b"p"),
            "the same key is read back"
        );
        let file = state.join(KEY_FILE);
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let refused = CacheSecret::load_or_create(&state).unwrap_err();
        assert!(
            matches!(
                &refused,
                StoreError::Key {
                    why: crate::store_error::KeyProblem::NotPrivate,
                    ..
                }
            ),
            "{refused}"
        );
        assert!(
            refused.to_string().contains("not a private file"),
            "{refused}"
        );
    }

    #[test]
    fn a_store_stanley_did_not_make_is_never_opened() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("judgments");
        {
            let cache = SledJudgments::open(&path, DEFAULT_MAX_BYTES, secret()).unwrap();
            cache.put(&key(1), "m", &answers(0.99));
            cache.flush();
        }
        // What a checkout of a repository that committed the folder leaves: mode 0755.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let refused = SledJudgments::open(&path, DEFAULT_MAX_BYTES, secret()).unwrap_err();
        assert!(matches!(&refused, StoreError::Io(_)), "{refused:?}");
        assert!(
            refused.to_string().contains("was not made by Stanley"),
            "{refused}"
        );
    }

    #[test]
    fn a_store_of_another_schema_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("judgments");
        {
            crate::records::create_private_dir(&path).unwrap();
            let db = open_sled(&path).unwrap();
            db.insert("schema", "stanley.judgments/0").unwrap();
            db.flush().unwrap();
        }
        let cache = SledJudgments::open(&path, DEFAULT_MAX_BYTES, secret()).unwrap();
        assert!(
            cache
                .take_warning()
                .unwrap()
                .contains("schema stanley.judgments/0")
        );
    }
}
