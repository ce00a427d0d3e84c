//! The campaign: each target run for a fixed number of inputs, half made fresh by its
//! structure-aware generator, half by byte-level mutation of inputs kept so far (the stored
//! corpus, the regressions, and every input whose output had a shape not seen before); faults
//! kept as regression inputs; the slowest input's time per megabyte; and the extremes (a 10 MB
//! single line, a 100,000-deep document) with their time and memory.

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use serde_json::{Value, json};

use super::{Target, Verdict, generate, input_name, run, stored};

/// How a campaign runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Inputs per target.
    pub inputs: u64,
    /// The random stream's seed (a campaign is reproducible).
    pub seed: u64,
    /// Write grown corpus inputs and faults under `tests/fuzz/`.
    pub save: bool,
    /// Most corpus inputs one campaign adds to a target's folder.
    pub max_saved: usize,
}

/// A deterministic random stream (SplitMix64).
#[derive(Debug)]
pub struct Rng(u64);

impl Rng {
    /// A stream from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n + 8);
        while out.len() < n {
            out.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        out.truncate(n);
        out
    }
}

/// One fault a campaign found.
#[derive(Clone, Debug)]
pub struct Fault {
    /// What broke (the verdict's first line).
    pub what: String,
    /// The input's name (its file under `regressions/<target>/`).
    pub input: String,
    /// The input's size.
    pub bytes: usize,
}

/// What a campaign over one target found.
#[derive(Debug, Default)]
pub struct Figures {
    /// Inputs tried.
    pub inputs: u64,
    /// Distinct faults (by what broke).
    pub faults: Vec<Fault>,
    /// Inputs that found a fault, all told.
    pub faulty_inputs: u64,
    /// Corpus inputs stored before, and added by this campaign.
    pub corpus_before: usize,
    /// Corpus inputs this campaign added (kept in memory; written with `save`).
    pub corpus_added: usize,
    /// Distinct output shapes seen.
    pub shapes: usize,
    /// Bytes tried, all told.
    pub bytes: u64,
    /// The slowest input: its size and time.
    pub slowest: (usize, Duration),
    /// The most milliseconds per megabyte any input of at least 4 KiB took.
    pub worst_ms_per_mb: f64,
    /// Wall time.
    pub elapsed: Duration,
}

impl Figures {
    /// The figures as JSON.
    pub fn to_json(&self) -> Value {
        let (size, time) = self.slowest;
        json!({
            "inputs": self.inputs,
            "bytes": self.bytes,
            "faults": self.faults.iter().map(|f| json!({"what": f.what, "input": f.input, "bytes": f.bytes})).collect::<Vec<_>>(),
            "faultyInputs": self.faulty_inputs,
            "corpusBefore": self.corpus_before,
            "corpusAdded": self.corpus_added,
            "shapes": self.shapes,
            "slowestInput": {"bytes": size, "ms": ms(time),
                "msPerMb": ms(time) / (size.max(1) as f64 / 1e6)},
            "worstMsPerMbFrom4KiB": round(self.worst_ms_per_mb),
            "seconds": round(self.elapsed.as_secs_f64()),
        })
    }
}

fn ms(d: Duration) -> f64 {
    round(d.as_secs_f64() * 1000.0)
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn save(kind: &str, target: &str, bytes: &[u8]) -> String {
    let name = input_name(bytes);
    let dir = super::fuzz_dir().join(kind).join(target);
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(&name), bytes);
    name
}

/// Runs `target` for `settings.inputs` inputs.
pub fn campaign(target: &Target, settings: &Settings) -> Figures {
    let started = Instant::now();
    let mut rng = Rng::new(settings.seed ^ super::shape(&[target.name.len() as u64]));
    let mut pool: Vec<Vec<u8>> = stored("corpus", target.name)
        .into_iter()
        .chain(stored("regressions", target.name))
        .map(|(_, b)| b)
        .collect();
    let mut figures = Figures {
        corpus_before: pool.len(),
        ..Figures::default()
    };
    let mut shapes: HashSet<u64> = HashSet::new();
    let mut seen_faults: BTreeMap<String, ()> = BTreeMap::new();
    for _ in 0..settings.inputs {
        let len = 64 + (rng.next_u64() % 4096) as usize;
        let noise = rng.bytes(len);
        let mut u = Unstructured::new(&noise);
        let fresh = pool.is_empty() || rng.next_u64().is_multiple_of(2);
        let input = if fresh {
            (target.generate)(&mut u).unwrap_or_default()
        } else {
            let a = (rng.next_u64() % pool.len() as u64) as usize;
            let b = (rng.next_u64() % pool.len() as u64) as usize;
            generate::havoc(&mut u, &pool[a], &pool[b]).unwrap_or_default()
        };
        let at = Instant::now();
        let verdict = run(target, &input);
        let took = at.elapsed();
        figures.inputs += 1;
        figures.bytes += input.len() as u64;
        if took > figures.slowest.1 {
            figures.slowest = (input.len(), took);
        }
        if input.len() >= 4096 {
            let per_mb = took.as_secs_f64() * 1000.0 / (input.len() as f64 / 1e6);
            figures.worst_ms_per_mb = figures.worst_ms_per_mb.max(per_mb);
        }
        match verdict {
            Verdict::Held(shape) => {
                if shapes.insert(shape) && input.len() <= 64 * 1024 {
                    if settings.save && figures.corpus_added < settings.max_saved {
                        save("corpus", target.name, &input);
                    }
                    figures.corpus_added += 1;
                    pool.push(input);
                }
            }
            fault => {
                figures.faulty_inputs += 1;
                let what = fault.to_string().lines().next().unwrap_or("").to_owned();
                // One fault is one rule broken (or one panic site), whatever the numbers.
                let key: String = what
                    .chars()
                    .filter(|c| !c.is_ascii_digit())
                    .take(160)
                    .collect();
                if seen_faults.insert(key, ()).is_none() {
                    let name = if settings.save {
                        save("regressions", target.name, &input)
                    } else {
                        input_name(&input)
                    };
                    figures.faults.push(Fault {
                        what,
                        input: name,
                        bytes: input.len(),
                    });
                }
            }
        }
    }
    figures.shapes = shapes.len();
    figures.elapsed = started.elapsed();
    figures
}

/// A process's peak resident memory (KiB) since the last reset.
fn peak_kib() -> Option<u64> {
    super::super::bench::proc_kib(std::process::id() as i32, "VmHWM")
}

/// Resets the peak to the memory in use now (`/proc/self/clear_refs`, 5).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// One extreme input: whether the invariants held, its time per megabyte and the memory it
/// took above what was in use before.
pub fn extreme(target: &Target, input: &[u8]) -> Value {
    reset_peak();
    let before = super::super::bench::rss_kib(std::process::id() as i32).unwrap_or(0);
    let at = Instant::now();
    let verdict = run(target, input);
    let took = at.elapsed();
    let peak = peak_kib().unwrap_or(0);
    let mb = input.len() as f64 / 1e6;
    json!({
        "bytes": input.len(),
        "verdict": verdict.to_string(),
        "ms": ms(took),
        "msPerMb": round(took.as_secs_f64() * 1000.0 / mb.max(1e-6)),
        "peakMemoryAboveBeforeMb": round((peak.saturating_sub(before)) as f64 / 1024.0),
        "peakMemoryPerInputByte": round(peak.saturating_sub(before) as f64 * 1024.0 / input.len().max(1) as f64),
    })
}
