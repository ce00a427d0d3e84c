//! Why one of the daemon's sled stores (the judgment cache, the improvement queue) cannot be
//! opened, read, trusted or cleared: one enum for both, whose messages are the words the
//! daemon's warnings have always used.

use std::path::PathBuf;

/// A sled store's failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// sled refused to open the folder.
    #[error("it does not open: {0}")]
    Open(#[source] sled::Error),
    /// sled panicked opening it (it does on some damaged files).
    #[error("it does not open: sled panicked reading it")]
    OpenPanicked,
    /// sled panicked reading an open store.
    #[error("it cannot be read: sled panicked reading it")]
    ReadPanicked,
    /// A read or write inside an open store failed.
    #[error(transparent)]
    Sled(#[from] sled::Error),
    /// The store was written by another version of Stanley.
    #[error("it has schema {found}, not {expected}")]
    Schema {
        found: String,
        expected: &'static str,
    },
    /// An entry's signature is not this user's.
    #[error("an entry is not signed with this user's key")]
    Unsigned,
    /// An entry's payload is not what Stanley writes.
    #[error("an entry does not parse")]
    Unparsable,
    /// The store holds fewer answers than the manifest of its last flush counted.
    #[error("it holds {held} answers where {written} were written")]
    Lost { held: u64, written: u64 },
    /// The newest answers the manifest counted are missing.
    #[error("its newest answers are missing")]
    NewestMissing,
    /// A file or folder of the store could not be made or used.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The cache's signing key cannot be used.
    #[error("the cache's key at {} cannot be used: {why}", path.display())]
    Key { path: PathBuf, why: KeyProblem },
    /// A damaged cache could not be made again.
    #[error("the judgment cache cannot be rebuilt: {0}")]
    Rebuild(Box<StoreError>),
    /// Clearing the cache failed part way.
    #[error("cannot clear the judgment cache: {0}")]
    Clear(#[source] sled::Error),
    /// The queue's store opened but its jobs cannot be read.
    #[error("the store cannot be read: {0}")]
    Read(#[source] sled::Error),
    /// sled panicked reading the queue's jobs.
    #[error("the store cannot be read: sled panicked reading it")]
    JobsPanicked,
}

/// Why the cache's signing key cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyProblem {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Random(getrandom::Error),
    #[error("it is not a private file of this user's")]
    NotPrivate,
    #[error("it does not hold 32 bytes")]
    NotThirtyTwoBytes,
}
