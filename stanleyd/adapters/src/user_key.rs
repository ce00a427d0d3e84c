//! The user's own signing key, kept beside the trust file outside every worktree: what makes
//! Stanley's state provably its own. Anything Stanley reads back that decides what runs or what a
//! person is told (the judgment cache, the improvement queue and its job log, the flow's journal,
//! ledger and the record of a question to a person) carries a MAC under this key, so a file a
//! repository committed, or another user wrote, never passes for Stanley's whatever its modes.

use std::path::Path;

use crate::store_error::{KeyProblem, StoreError};

/// The signing key's file, in the per-user state folder.
pub const KEY_FILE: &str = "cache.key";
/// Bytes of a MAC kept (HMAC-SHA256, truncated).
pub const MAC_BYTES: usize = 16;

/// The user's signing key: 32 random bytes in `cache.key`, 0600, beside the trust file.
#[derive(Clone)]
pub struct UserKey([u8; 32]);

impl std::fmt::Debug for UserKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UserKey(..)")
    }
}

impl UserKey {
    /// A secret from these bytes (tests).
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// The user's signing key in `dir/cache.key` (the per-user state folder), created with 32
    /// random bytes the first time. A key file that is a link, another user's, readable by
    /// others or not 32 bytes is refused.
    pub fn load_or_create(dir: &Path) -> Result<Self, StoreError> {
        use std::io::{Read, Write};
        use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
        let path = dir.join(KEY_FILE);
        let cannot = |why: KeyProblem| StoreError::Key {
            path: path.clone(),
            why,
        };
        let io = |e: std::io::Error| cannot(KeyProblem::Io(e));
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(io)?;
        let mut fresh = [0u8; 32];
        getrandom::getrandom(&mut fresh).map_err(|e| cannot(KeyProblem::Random(e)))?;
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(&fresh)
                    .and_then(|()| f.sync_all())
                    .map_err(io)?;
                return Ok(Self(fresh));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io(e)),
        }
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(io)?;
        let meta = f.metadata().map_err(io)?;
        let uid = crate::records::current_uid();
        if !meta.is_file() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
            return Err(cannot(KeyProblem::NotPrivate));
        }
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes).map_err(io)?;
        let key: [u8; 32] = bytes
            .try_into()
            .map_err(|_| cannot(KeyProblem::NotThirtyTwoBytes))?;
        Ok(Self(key))
    }

    /// The MAC of `key` then `payload` (the judgment cache's entries).
    pub fn mac(&self, key: &[u8], payload: &[u8]) -> [u8; MAC_BYTES] {
        use hmac::{Hmac, Mac};
        let mut m = <Hmac<sha2::Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length"));
        m.update(key);
        m.update(payload);
        let full = m.finalize().into_bytes();
        let mut out = [0u8; MAC_BYTES];
        out.copy_from_slice(&full[..MAC_BYTES]);
        out
    }
}

impl UserKey {
    /// A key for this process only (no home to keep one in): what it seals is Stanley's for
    /// as long as the daemon runs, and nothing of an earlier daemon opens under it.
    /// Without the system's randomness (never seen), the bytes come from the time and the
    /// process, hashed: weaker, but the key still never leaves the process.
    pub fn ephemeral() -> Self {
        let mut bytes = [0u8; 32];
        if getrandom::getrandom(&mut bytes).is_err() {
            use sha2::Digest;
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default();
            let seed = format!("{now}:{}:{:p}", std::process::id(), &bytes);
            bytes.copy_from_slice(&sha2::Sha256::digest(seed.as_bytes()));
        }
        Self(bytes)
    }

    /// The MAC of `payload` in `domain` (each kind of record its own, so one never passes for
    /// another), as lowercase hex.
    pub fn tag(&self, domain: &str, payload: &[u8]) -> String {
        let mut framed = Vec::with_capacity(domain.len() + 1 + payload.len());
        framed.extend_from_slice(domain.as_bytes());
        framed.push(0);
        framed.extend_from_slice(payload);
        self.mac(b"stanley.sealed/1", &framed)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Whether `tag` is the MAC of `payload` in `domain`, compared without stopping at the
    /// first differing byte.
    pub fn verify(&self, domain: &str, payload: &[u8], tag: &str) -> bool {
        let want = self.tag(domain, payload);
        want.len() == tag.len()
            && want
                .bytes()
                .zip(tag.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }

    /// `<tag> <payload>`: one sealed line or record.
    pub fn seal(&self, domain: &str, payload: &str) -> String {
        format!("{} {payload}", self.tag(domain, payload.as_bytes()))
    }

    /// The payload of a sealed line when its tag holds under this key.
    pub fn unseal<'a>(&self, domain: &str, sealed: &'a str) -> Option<&'a str> {
        let (tag, payload) = sealed.split_once(' ')?;
        self.verify(domain, payload.as_bytes(), tag)
            .then_some(payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_line_opens_only_under_its_key_and_domain() {
        let mine = UserKey::from_bytes([7; 32]);
        let theirs = UserKey::from_bytes([8; 32]);
        let line = mine.seal("stanley.job-log/2", r#"{"put":{}}"#);
        assert_eq!(
            mine.unseal("stanley.job-log/2", &line),
            Some(r#"{"put":{}}"#)
        );
        assert_eq!(theirs.unseal("stanley.job-log/2", &line), None);
        assert_eq!(mine.unseal("stanley.flow-state/1", &line), None);
        let forged = line.replacen("{", "[", 1);
        assert_eq!(mine.unseal("stanley.job-log/2", &forged), None);
        assert_eq!(mine.unseal("stanley.job-log/2", "no-space"), None);
    }
}
