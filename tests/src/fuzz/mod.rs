//! Fuzz targets over every parser of outside input (issue 36, D-123): each target is the
//! function that first sees the bytes, a structure-aware generator built from the real captures
//! the tests keep, and the invariants its output must keep besides not panicking. The property
//! tests (`e2e/fuzz.rs`) run every target for a short budget; the campaign (`stanley-fuzz`)
//! runs each for a fixed number of inputs and grows the corpus under `tests/fuzz/`.

pub mod campaign;
pub mod generate;
mod parsers;
mod records;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use arbitrary::Unstructured;

/// What an input broke: one of a target's invariants.
#[derive(Debug, thiserror::Error)]
pub enum Violation {
    /// An invariant did not hold.
    #[error("{rule}: {detail}")]
    Broken {
        /// The invariant, as the target lists it.
        rule: &'static str,
        /// What was seen.
        detail: String,
    },
}

/// Fails with `rule` unless `holds`; `detail` is only built on failure.
pub fn ensure(holds: bool, rule: &'static str, detail: impl FnOnce() -> String) -> Checked {
    if holds {
        Ok(0)
    } else {
        Err(Violation::Broken {
            rule,
            detail: detail(),
        })
    }
}

/// A check's outcome: the output's coarse shape (a few numbers hashed, which the campaign uses
/// to keep inputs that made the parser do something new), or the invariant broken.
pub type Checked = Result<u64, Violation>;

/// The coarse shape of an output, from a few numbers.
pub fn shape(parts: &[u64]) -> u64 {
    // FNV-1a over the numbers: stable across runs, so the corpus is reproducible.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// A size class for a count, so the shape does not grow with every count.
pub fn class(n: usize) -> u64 {
    match n {
        0..=3 => n as u64,
        4..=15 => 4,
        16..=99 => 5,
        _ => 6,
    }
}

/// One parser of outside input.
pub struct Target {
    /// The target's name (its corpus folder).
    pub name: &'static str,
    /// The function that first sees the bytes.
    pub entry: &'static str,
    /// What the check asserts besides not panicking.
    pub invariants: &'static [&'static str],
    /// A structure-aware input.
    pub generate: fn(&mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>>,
    /// Runs the parser on `bytes` and checks the invariants.
    pub check: fn(&[u8]) -> Checked,
    /// A single line of about `n` bytes in the target's own format.
    pub long_line: fn(usize) -> Vec<u8>,
    /// A document nested `n` deep in the target's own format.
    pub deep: fn(usize) -> Vec<u8>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target").field("name", &self.name).finish()
    }
}

/// Every target.
pub fn targets() -> Vec<Target> {
    let mut all = parsers::targets();
    all.extend(records::targets());
    all
}

/// The target named `name`.
pub fn target(name: &str) -> Option<Target> {
    targets().into_iter().find(|t| t.name == name)
}

/// What one input did.
#[derive(Debug)]
pub enum Verdict {
    /// The invariants held; the output's shape.
    Held(u64),
    /// An invariant broke.
    Broken(Violation),
    /// The parser panicked, with the panic's message.
    Panicked(String),
}

impl Verdict {
    /// Whether the input found a fault.
    pub fn is_fault(&self) -> bool {
        !matches!(self, Verdict::Held(_))
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Held(_) => write!(f, "held"),
            Verdict::Broken(v) => write!(f, "invariant broken: {v}"),
            Verdict::Panicked(m) => write!(f, "panicked: {m}"),
        }
    }
}

/// Runs `target` on `bytes`, catching a panic.
pub fn run(target: &Target, bytes: &[u8]) -> Verdict {
    match catch_unwind(AssertUnwindSafe(|| (target.check)(bytes))) {
        Ok(Ok(shape)) => Verdict::Held(shape),
        Ok(Err(v)) => Verdict::Broken(v),
        Err(payload) => Verdict::Panicked(
            payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "a panic without a message".to_owned()),
        ),
    }
}

/// `tests/fuzz/`: the grown corpus (`corpus/<target>/`) and the inputs that once failed
/// (`regressions/<target>/`), both replayed by the property tests.
pub fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The files of `tests/fuzz/<kind>/<target>/`, sorted by name.
pub fn stored(kind: &str, target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = fuzz_dir().join(kind).join(target);
    let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect();
    files.sort();
    files
}

/// A stable name for an input: 16 hex digits of its FNV-1a hash.
pub fn input_name(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}
