//! Renames and copies as `git diff -M -C` pairs them (`rename-policy@1`, D-117): the same
//! similarity (Git's span hashing of lines cut at 64 bytes, `diffcore-delta`), the same 50%
//! threshold, exact matches first (preferring an unused source with the same basename), then
//! the best four candidates per destination sorted by score and then by the same basename,
//! renames before copies, and a source used by several destinations a copy for all but the last.
//! Pure: the Git port hands over the paths, modes, object ids and sizes and a way to read the
//! bytes; this module decides the pairs. Checked pair for pair against Git itself on every real
//! repository the tests assemble (`tests/e2e/upstream.rs`).

use std::collections::HashMap;

/// The policy version recorded with the rename pairs.
pub const RENAME_POLICY: &str = "rename-policy@1";
/// Git's full similarity (`MAX_SCORE`).
pub const MAX_SCORE: u32 = 60_000;
/// Git's default threshold for `-M` and `-C` (50%).
pub const DEFAULT_MIN_SCORE: u32 = MAX_SCORE / 2;
/// Git's `diff.renameLimit` default: past this many sources or destinations (or their square)
/// only exact renames are looked for.
pub const RENAME_LIMIT: usize = 1000;
/// Candidates kept per destination (`NUM_CANDIDATE_PER_DST`).
const CANDIDATES_PER_DESTINATION: usize = 4;
/// Identical sources looked at per destination at most.
const IDENTICAL_LOOKS: usize = 100;
/// A chunk ends at a newline or after this many bytes.
const SPAN_BYTES: u32 = 64;
/// The prime the chunk hashes are reduced by (`HASHBASE`).
const HASH_BASE: u32 = 107_927;
/// Bytes looked at for a NUL when telling binary content from text.
const BINARY_PROBE: usize = 8000;
/// The mode of a regular file; Git compares only regular files by content.
const REGULAR: u32 = 0o100_000;

/// One side of a candidate file: where it is and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    /// The repository path.
    pub path: String,
    /// The Git file mode (`0o100644`, `0o100755`, `0o120000`, …).
    pub mode: u32,
    /// The blob id (hex), for exact matches.
    pub oid: String,
    /// The content's size in bytes.
    pub size: u64,
}

impl Side {
    fn regular(&self) -> bool {
        self.mode & 0o170_000 == REGULAR
    }
}

/// A file a rename or copy may come from: the old side of a deletion, or (copies) of a
/// modification, which stays where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub side: Side,
    /// Deleted (a rename may take it away) rather than modified (only copied from).
    pub deleted: bool,
}

/// Whether a pair is a rename or a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairKind {
    Renamed,
    Copied,
}

/// One destination paired with its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    /// Index into the destinations.
    pub destination: usize,
    /// Index into the sources.
    pub source: usize,
    /// Similarity, 0..=[`MAX_SCORE`].
    pub score: u32,
    pub kind: PairKind,
}

impl Pair {
    /// The similarity in percent as Git prints it (`R087`): rounded down.
    pub fn percent(&self) -> u32 {
        self.score * 100 / MAX_SCORE
    }
}

/// What a caller sets: Git's defaults for `git diff -M -C`.
#[derive(Clone, Copy, Debug)]
pub struct RenameOptions {
    /// Pairs below this score are not made.
    pub min_score: u32,
    /// Copies from modified files too (`-C`), not only renames.
    pub copies: bool,
    /// Inexact matching is skipped when the destinations left by exact renames times the
    /// sources exceed this squared (Git's `diff.renameLimit`).
    pub limit: usize,
}

impl Default for RenameOptions {
    fn default() -> Self {
        Self {
            min_score: DEFAULT_MIN_SCORE,
            copies: true,
            limit: RENAME_LIMIT,
        }
    }
}

/// Which file's bytes are asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wanted {
    Source(usize),
    Destination(usize),
}

/// A file's chunk hashes with the bytes each accounts for, sorted by hash.
type Spans = Vec<(u32, u64)>;

/// Git's chunk hashes of `data` (`hash_chars`): chunks end at a newline or after 64 bytes, the
/// CR of a CRLF is skipped in text, and a last chunk without a newline counts too (as Git does
/// since 2.44).
pub fn spans(data: &[u8]) -> Vec<(u32, u64)> {
    let text = !data[..data.len().min(BINARY_PROBE)].contains(&0);
    let mut counts: HashMap<u32, u64> = HashMap::new();
    let (mut n, mut a1, mut a2) = (0u32, 0u32, 0u32);
    let hash = |a1: u32, a2: u32| a1.wrapping_add(a2.wrapping_mul(0x61)) % HASH_BASE;
    for (i, &c) in data.iter().enumerate() {
        if text && c == b'\r' && data.get(i + 1) == Some(&b'\n') {
            continue;
        }
        let old = a1;
        a1 = (a1 << 7) ^ (a2 >> 25);
        a2 = (a2 << 7) ^ (old >> 25);
        a1 = a1.wrapping_add(u32::from(c));
        n += 1;
        if n < SPAN_BYTES && c != b'\n' {
            continue;
        }
        *counts.entry(hash(a1, a2)).or_default() += u64::from(n);
        (n, a1, a2) = (0, 0, 0);
    }
    if n > 0 {
        *counts.entry(hash(a1, a2)).or_default() += u64::from(n);
    }
    let mut out: Spans = counts.into_iter().collect();
    out.sort_unstable();
    out
}

/// Bytes of the destination that came from the source (`src_copied`).
fn copied(src: &[(u32, u64)], dst: &[(u32, u64)]) -> u64 {
    let (mut i, mut j, mut total) = (0, 0, 0);
    while i < src.len() && j < dst.len() {
        match src[i].0.cmp(&dst[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                total += src[i].1.min(dst[j].1);
                i += 1;
                j += 1;
            }
        }
    }
    total
}

/// Whether the two paths end in the same file name (`basename_same`).
fn same_basename(a: &str, b: &str) -> bool {
    a.rsplit('/').next() == b.rsplit('/').next()
}

/// One cell of a destination's candidate list.
#[derive(Clone, Copy, Debug)]
struct Score {
    destination: usize,
    source: usize,
    score: u32,
    name: bool,
}

/// Git's order of candidates: higher score first, then the same basename; `None` (an unused
/// slot) last.
fn worse(a: Option<&Score>, b: Option<&Score>) -> std::cmp::Ordering {
    use std::cmp::Ordering::{Equal, Greater, Less};
    match (a, b) {
        (None, None) => Equal,
        (None, Some(_)) => Greater,
        (Some(_), None) => Less,
        (Some(a), Some(b)) => b
            .score
            .cmp(&a.score)
            .then_with(|| u8::from(b.name).cmp(&u8::from(a.name))),
    }
}

/// Pairs destinations (added files, in Git's path order) with sources (deleted files, and with
/// copies modified files, in path order), as `git diff -M -C` does. `read` hands over a file's
/// bytes (None when it cannot be read: that candidate scores 0). Pairs come back in
/// destination order.
pub fn detect(
    sources: &[Source],
    destinations: &[Side],
    options: RenameOptions,
    mut read: impl FnMut(Wanted) -> Option<Vec<u8>>,
) -> Vec<Pair> {
    // How often each source is used: a modified file counts itself once (it stays).
    let mut used: Vec<u32> = sources.iter().map(|s| u32::from(!s.deleted)).collect();
    let mut paired: Vec<Option<(usize, u32)>> = vec![None; destinations.len()];
    if sources.is_empty() || destinations.is_empty() {
        return Vec::new();
    }
    exact(sources, destinations, options, &mut used, &mut paired);
    let left: Vec<usize> = (0..destinations.len())
        .filter(|&d| paired[d].is_none())
        .collect();
    // Git's rule (`too_many_rename_candidates`): inexact detection runs while the matrix of
    // destinations left by exact renames and sources stays within `limit` squared, however
    // many sources there are (1,300 modified files and 60 additions are paired).
    if !left.is_empty()
        && options.min_score < MAX_SCORE
        && (left.len() as u64) * (sources.len() as u64)
            <= (options.limit as u64) * (options.limit as u64)
    {
        inexact(
            sources,
            destinations,
            &left,
            options,
            &mut read,
            &mut used,
            &mut paired,
        );
    }
    // Renames and copies as Git names them, destinations in path order: each pair uses its
    // source once; while another pair still uses it after this one, this one is a copy.
    let mut remaining = used;
    paired
        .iter()
        .enumerate()
        .filter_map(|(destination, p)| {
            let (source, score) = (*p)?;
            remaining[source] -= 1;
            let kind = if remaining[source] > 0 {
                PairKind::Copied
            } else {
                PairKind::Renamed
            };
            Some(Pair {
                destination,
                source,
                score,
                kind,
            })
        })
        .collect()
}

/// Exact matches (`find_exact_renames`): for each destination, among the sources with the same
/// blob (and, for links and submodules, the same mode), the first in path order that is unused
/// and has the same basename, else unused, else (copies) with the same basename, else any.
fn exact(
    sources: &[Source],
    destinations: &[Side],
    options: RenameOptions,
    used: &mut [u32],
    paired: &mut [Option<(usize, u32)>],
) {
    let mut by_blob: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, s) in sources.iter().enumerate() {
        by_blob.entry(s.side.oid.as_str()).or_default().push(i);
    }
    for (d, dst) in destinations.iter().enumerate() {
        let Some(candidates) = by_blob.get(dst.oid.as_str()) else {
            continue;
        };
        let mut best: Option<(usize, u8)> = None;
        for &s in candidates.iter().take(IDENTICAL_LOOKS) {
            let src = &sources[s].side;
            if !(src.regular() && dst.regular()) && src.mode != dst.mode {
                continue;
            }
            if used[s] > 0 && !options.copies {
                continue;
            }
            let score = u8::from(used[s] == 0) + u8::from(same_basename(&src.path, &dst.path));
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((s, score));
                if score == 2 {
                    break;
                }
            }
        }
        if let Some((s, _)) = best {
            used[s] += 1;
            paired[d] = Some((s, MAX_SCORE));
        }
    }
}

/// Git's similarity of a source and a destination (`estimate_similarity`): 0 unless both are
/// regular files whose sizes are close enough to reach `min_score`.
fn similarity(
    src: &Side,
    dst: &Side,
    min_score: u32,
    spans_of: &mut dyn FnMut() -> Option<(std::rc::Rc<Spans>, std::rc::Rc<Spans>)>,
) -> u32 {
    if !(src.regular() && dst.regular()) {
        return 0;
    }
    let max = src.size.max(dst.size);
    let delta = max - src.size.min(dst.size);
    if max * u64::from(MAX_SCORE - min_score) < delta * u64::from(MAX_SCORE) {
        return 0;
    }
    if dst.size == 0 {
        return 0;
    }
    let Some((s, d)) = spans_of() else {
        return 0;
    };
    (copied(&s, &d) * u64::from(MAX_SCORE) / max) as u32
}

/// Inexact matches (`diffcore_rename`'s matrix): the best four candidates of each unpaired
/// destination, all sorted by score and basename (stable), taken first as renames of unused
/// sources, then (copies) as copies.
fn inexact(
    sources: &[Source],
    destinations: &[Side],
    left: &[usize],
    options: RenameOptions,
    read: &mut impl FnMut(Wanted) -> Option<Vec<u8>>,
    used: &mut [u32],
    paired: &mut [Option<(usize, u32)>],
) {
    use std::rc::Rc;
    let mut source_spans: HashMap<usize, Option<Rc<Spans>>> = HashMap::new();
    let mut matrix: Vec<Option<Score>> =
        Vec::with_capacity(left.len() * CANDIDATES_PER_DESTINATION);
    for &d in left {
        let dst = &destinations[d];
        let mut dst_spans: Option<Option<Rc<Spans>>> = None;
        let mut slots: [Option<Score>; CANDIDATES_PER_DESTINATION] =
            [None; CANDIDATES_PER_DESTINATION];
        for (s, src) in sources.iter().enumerate() {
            let mut load = || {
                let d_spans = dst_spans
                    .get_or_insert_with(|| read(Wanted::Destination(d)).map(|b| Rc::new(spans(&b))))
                    .clone()?;
                let s_spans = source_spans
                    .entry(s)
                    .or_insert_with(|| read(Wanted::Source(s)).map(|b| Rc::new(spans(&b))))
                    .clone()?;
                Some((s_spans, d_spans))
            };
            let candidate = Score {
                destination: d,
                source: s,
                score: similarity(&src.side, dst, options.min_score, &mut load),
                name: same_basename(&src.side.path, &dst.path),
            };
            // Replace the worst slot when the candidate is better (`record_if_better`).
            let mut worst = 0;
            for i in 1..CANDIDATES_PER_DESTINATION {
                if worse(slots[i].as_ref(), slots[worst].as_ref()) == std::cmp::Ordering::Greater {
                    worst = i;
                }
            }
            if worse(slots[worst].as_ref(), Some(&candidate)) == std::cmp::Ordering::Greater {
                slots[worst] = Some(candidate);
            }
        }
        matrix.extend(slots);
    }
    // Stable, as Git's STABLE_QSORT: ties keep destination order and slot order.
    matrix.sort_by(|a, b| worse(a.as_ref(), b.as_ref()));
    for copies in [false, true] {
        if copies && !options.copies {
            break;
        }
        for cell in &matrix {
            let Some(cell) = cell.filter(|c| c.score >= options.min_score) else {
                break;
            };
            if paired[cell.destination].is_some() || (!copies && used[cell.source] > 0) {
                continue;
            }
            used[cell.source] += 1;
            paired[cell.destination] = Some((cell.source, cell.score));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(path: &str, oid: &str, content: &str) -> Side {
        Side {
            path: path.into(),
            mode: 0o100_644,
            oid: oid.into(),
            size: content.len() as u64,
        }
    }

    fn run(
        sources: &[(&str, &str, bool)],
        destinations: &[(&str, &str)],
    ) -> Vec<(String, String, PairKind)> {
        let oid = |c: &str| stanley_core::sha256_hex(c.as_bytes());
        let src: Vec<Source> = sources
            .iter()
            .map(|(p, c, deleted)| Source {
                side: side(p, &oid(c), c),
                deleted: *deleted,
            })
            .collect();
        let dst: Vec<Side> = destinations
            .iter()
            .map(|(p, c)| side(p, &oid(c), c))
            .collect();
        detect(&src, &dst, RenameOptions::default(), |w| {
            Some(match w {
                Wanted::Source(i) => sources[i].1.as_bytes().to_vec(),
                Wanted::Destination(i) => destinations[i].1.as_bytes().to_vec(),
            })
        })
        .into_iter()
        .map(|p| {
            (
                src[p.source].side.path.clone(),
                dst[p.destination].path.clone(),
                p.kind,
            )
        })
        .collect()
    }

    fn lines(prefix: &str, n: usize) -> String {
        (0..n)
            .map(|i| format!("{prefix} line number {i}\n"))
            .collect()
    }

    #[test]
    fn exact_matches_prefer_an_unused_source_with_the_same_basename() {
        let body = lines("same", 20);
        let pairs = run(
            &[("a/one.py", &body, true), ("b/two.py", &body, true)],
            &[("c/two.py", &body), ("d/one.py", &body)],
        );
        assert_eq!(
            pairs,
            [
                ("b/two.py".into(), "c/two.py".into(), PairKind::Renamed),
                ("a/one.py".into(), "d/one.py".into(), PairKind::Renamed),
            ]
        );
    }

    #[test]
    fn inexact_matches_take_the_most_similar_and_copies_come_from_what_stays() {
        let old = lines("module", 40);
        let mut edited = old.clone();
        edited.push_str(&lines("added", 10));
        let pairs = run(
            &[
                ("pkg/mod.py", &old, true),
                ("pkg/keep.py", &lines("keep", 40), false),
            ],
            &[
                ("src/pkg/keep_copy.py", &lines("keep", 38)),
                ("src/pkg/mod.py", &edited),
            ],
        );
        assert_eq!(
            pairs,
            [
                (
                    "pkg/keep.py".into(),
                    "src/pkg/keep_copy.py".into(),
                    PairKind::Copied
                ),
                (
                    "pkg/mod.py".into(),
                    "src/pkg/mod.py".into(),
                    PairKind::Renamed
                ),
            ]
        );
        // Under half alike: no pair.
        let pairs = run(&[("a.py", &old, true)], &[("b.py", &lines("other", 40))]);
        assert!(pairs.is_empty());
    }

    #[test]
    fn more_sources_than_the_limit_still_pair_while_the_matrix_fits_as_in_git() {
        // 1,200 modified files (copy sources) and one added file: 1,200 × 1 is far inside
        // 1,000², so Git pairs the copy; so must we.
        let bodies: Vec<String> = (0..1200).map(|i| lines(&format!("file{i}"), 12)).collect();
        let mut sources: Vec<(String, &str, bool)> = bodies
            .iter()
            .enumerate()
            .map(|(i, b)| (format!("pkg/m{i:04}.py"), b.as_str(), false))
            .collect();
        sources.sort();
        let mut copy = bodies[7].clone();
        copy.push_str("extra line\n");
        let refs: Vec<(&str, &str, bool)> = sources
            .iter()
            .map(|(p, b, d)| (p.as_str(), *b, *d))
            .collect();
        let pairs = run(&refs, &[("other/copy.py", &copy)]);
        assert_eq!(
            pairs,
            [(
                "pkg/m0007.py".into(),
                "other/copy.py".into(),
                PairKind::Copied
            )]
        );
    }

    #[test]
    fn a_deleted_source_used_twice_is_a_copy_then_a_rename() {
        let body = lines("twice", 10);
        let pairs = run(
            &[("x.py", &body, true)],
            &[("a.py", &body), ("b.py", &body)],
        );
        assert_eq!(
            pairs,
            [
                ("x.py".into(), "a.py".into(), PairKind::Copied),
                ("x.py".into(), "b.py".into(), PairKind::Renamed),
            ]
        );
    }

    #[test]
    fn the_last_line_without_a_newline_counts_and_crlf_is_text() {
        assert_eq!(spans(b"abc"), spans(b"abc"));
        assert_eq!(spans(b"a\r\nb\r\n"), spans(b"a\nb\n"));
        assert!(!spans(b"no newline").is_empty());
        let long = "x".repeat(130);
        let total: u64 = spans(long.as_bytes()).iter().map(|(_, n)| n).sum();
        assert_eq!(total, 130);
    }
}
