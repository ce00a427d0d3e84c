//! The daemon's warm evidence (issue 32): the last branch diff's evidence (hunks split, kinds,
//! exclusions), kept by the commits it was made from, so a repeated request on an unchanged
//! branch does not split and classify the same diff again. Commits never change, so the key is
//! exact; worktree and staged selections are always made afresh.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use stanley_core::Status;
use stanley_core::cache::RequestUsage;
use stanley_workflows::diff::{DiffEvidence, DiffSource, Scope};

/// How long the warm evidence outlives the last request.
pub(crate) const WARM_IDLE: Duration = Duration::from_secs(60);

/// What the daemon keeps warm between requests and lets go of when it goes quiet: the last
/// branch evidence, whole answers made from the cache, and the texts redaction found clean.
#[derive(Default)]
pub(crate) struct WarmMemo {
    evidence: EvidenceMemo,
    results: ResultMemo,
    clean_texts: stanley_adapters::redact::CleanMemory,
}

impl WarmMemo {
    /// The last branch diff's evidence, kept by its commits.
    pub(crate) fn evidence(&self) -> &EvidenceMemo {
        &self.evidence
    }

    /// Whole built-in answers whose every judgment came from the cache.
    pub(crate) fn results(&self) -> &ResultMemo {
        &self.results
    }

    /// Texts the requests' redactors found clean, for the last set of secrets (D-132).
    pub(crate) fn clean_texts(&self) -> &stanley_adapters::redact::CleanMemory {
        &self.clean_texts
    }

    /// Forgets all of it.
    pub(crate) fn clear(&self) {
        self.evidence.clear();
        self.results.clear();
        self.clean_texts.clear();
    }
}

/// The last branch evidence and what it was made from.
#[derive(Default)]
pub(crate) struct EvidenceMemo {
    last: Mutex<Option<(String, Arc<DiffEvidence>)>>,
}

impl EvidenceMemo {
    /// The evidence of `source`: the kept one when `source` is the same branch diff, else made
    /// now (and kept, when it is a branch diff).
    pub(crate) fn evidence(&self, source: impl Into<Arc<DiffSource>>) -> Arc<DiffEvidence> {
        let source = source.into();
        let key = key(&source);
        if let Some(key) = &key
            && let Some((kept, evidence)) = self.lock().as_ref()
            && kept == key
        {
            return evidence.clone();
        }
        // The kept evidence's split hunks serve every file the new diff did not change.
        let before = self.lock().as_ref().map(|(_, e)| e.clone());
        let evidence = Arc::new(match before {
            Some(before) => DiffEvidence::from_source_after(source, &before),
            None => DiffEvidence::from_source(source),
        });
        if let Some(key) = key {
            *self.lock() = Some((key, evidence.clone()));
        }
        evidence
    }

    /// Forgets what is kept (an idle daemon gives its memory back).
    pub(crate) fn clear(&self) {
        *self.lock() = None;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(String, Arc<DiffEvidence>)>> {
        self.last.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A built-in's whole answer, kept when every judgment in it came from the judgment cache: the
/// same request on the same commits with the same settings would ask the same questions and
/// get the same answers, so the answer is given again without building it (issue 32).
pub(crate) struct Remembered {
    pub(crate) status: Status,
    /// The output as compact JSON text, which holds less memory than its tree (D-147);
    /// numbers read back exactly (`serde_json`'s `float_roundtrip`).
    output: Box<str>,
    /// The report with every item listed (`--verbose`, D-127).
    pub(crate) verbose: Option<String>,
    /// What the answer cost when it was made: every answer from the cache, nothing sent.
    pub(crate) usage: RequestUsage,
}

impl Remembered {
    pub(crate) fn new(
        status: Status,
        output: &Value,
        verbose: Option<String>,
        usage: RequestUsage,
    ) -> Self {
        Self {
            status,
            // A `Value` always serializes.
            output: serde_json::to_string(output).unwrap_or_default().into(),
            verbose,
            usage,
        }
    }

    /// Whether an answer that cost `usage` is kept: every judgment in it came from the cache
    /// and nothing was sent.
    pub(crate) fn keeps(usage: &RequestUsage) -> bool {
        usage.requests == 0 && usage.cached > 0
    }

    /// The output as it was kept (None only if the text were damaged).
    pub(crate) fn output(&self) -> Option<Value> {
        serde_json::from_str(&self.output).ok()
    }
}

/// How many whole answers of one branch diff are kept (review and summarize, and a few more).
const RESULTS_KEPT: usize = 4;

/// The key of a built-in's whole answer ([`result_key`]): the branch diff's commits, and the
/// request on them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ResultKey {
    diff: String,
    request: String,
}

/// The last few whole answers about the last branch diff, by [`result_key`].
#[derive(Default)]
pub(crate) struct ResultMemo {
    kept: Mutex<VecDeque<(ResultKey, Arc<Remembered>)>>,
}

impl ResultMemo {
    pub(crate) fn get(&self, key: &ResultKey) -> Option<Arc<Remembered>> {
        self.lock()
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, r)| r.clone())
    }

    /// Keeps `answer` under `key` when it was answered whole from the cache. Answers about
    /// other commits go (the branch moved on: they would only hold memory), and the oldest
    /// goes when more than [`RESULTS_KEPT`] are kept.
    pub(crate) fn keep(&self, key: ResultKey, answer: Remembered) {
        if !Remembered::keeps(&answer.usage) {
            return;
        }
        let mut kept = self.lock();
        kept.retain(|(k, _)| *k != key && k.diff == key.diff);
        kept.push_back((key, Arc::new(answer)));
        while kept.len() > RESULTS_KEPT {
            kept.pop_front();
        }
    }

    /// Forgets every answer (the judgment cache was cleared, or the daemon went idle).
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(ResultKey, Arc<Remembered>)>> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The key of a built-in's whole answer: the request's settings (`settings`, a digest of its
/// environment, model, budget and Jev endpoint), the built-in, the request's text, and the
/// branch diff's commits. `None` when the diff is not a branch diff (its files can change
/// under the same commits).
pub(crate) fn result_key(
    settings: &str,
    workflow: &str,
    text: &str,
    source: &DiffSource,
) -> Option<ResultKey> {
    Some(ResultKey {
        diff: key(source)?,
        request: format!("{settings}\0{workflow}\0{text}"),
    })
}

/// What a branch diff is a function of: its base ref and commit, `HEAD`, and how it was made.
fn key(source: &DiffSource) -> Option<String> {
    if source.scope != Scope::Branch {
        return None;
    }
    Some(format!(
        "{}\0{}\0{}\0{}",
        source.base_ref.as_deref()?,
        source.base_commit.as_deref()?,
        source.head_commit.as_deref()?,
        source.probe
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stanley_workflows::diff::Diff;

    fn branch(head: &str) -> DiffSource {
        DiffSource {
            scope: Scope::Branch,
            base_ref: Some("main".into()),
            base_commit: Some("b".into()),
            head_commit: Some(head.into()),
            probe: "git-diff-U3:branch".into(),
            ..DiffSource::worktree(Diff::default())
        }
    }

    #[test]
    fn the_same_branch_diff_is_split_once_and_another_head_afresh() {
        let memo = EvidenceMemo::default();
        let a = memo.evidence(branch("h1"));
        assert!(Arc::ptr_eq(&a, &memo.evidence(branch("h1"))));
        let b = memo.evidence(branch("h2"));
        assert!(!Arc::ptr_eq(&a, &b));
        // A worktree selection is never kept: its files may change under the same commits.
        let w1 = memo.evidence(DiffSource::worktree(Diff::default()));
        let w2 = memo.evidence(DiffSource::worktree(Diff::default()));
        assert!(!Arc::ptr_eq(&w1, &w2));
        memo.clear();
        assert!(!Arc::ptr_eq(&b, &memo.evidence(branch("h2"))));
    }

    fn answer(requests: u64, cached: u64) -> Remembered {
        let usage = RequestUsage {
            requests,
            cached,
            ..RequestUsage::default()
        };
        Remembered::new(
            Status::Complete,
            &serde_json::json!({"text": "t"}),
            None,
            usage,
        )
    }

    /// A kept answer is given back as it was made, numbers to the last bit: floats whose
    /// shortest form has 17 digits, tiny and huge ones, and integers past 2^53.
    #[test]
    fn a_kept_output_reads_back_exactly() {
        let mut floats: Vec<f64> = vec![
            0.1 + 0.2,
            1.0 / 3.0,
            2.0 / 3.0,
            1e-300,
            1.7976931348623157e308,
        ];
        // A spread of doubles with long shortest forms.
        let mut x = 0.123_456_789_f64;
        for _ in 0..2000 {
            x = (x * 7.919 + 0.577_215_664_901_532_9).fract();
            floats.push(x);
            floats.push(x * 1e-7);
        }
        let output = serde_json::json!({
            "floats": floats,
            "big": u64::MAX,
            "negative": i64::MIN,
            "text": "é\u{0}\"",
        });
        let kept = Remembered::new(Status::Complete, &output, None, RequestUsage::default());
        let back = kept.output().expect("the kept text reads back");
        let changed: Vec<(f64, Option<f64>)> = floats
            .iter()
            .zip(back["floats"].as_array().expect("floats"))
            .filter(|(a, b)| b.as_f64() != Some(**a))
            .map(|(a, b)| (*a, b.as_f64()))
            .take(3)
            .collect();
        assert!(
            changed.is_empty(),
            "floats read back differently: {changed:?}"
        );
        assert_eq!(back, output);
    }

    fn on(head: &str, text: &str) -> ResultKey {
        result_key("s", "review", text, &branch(head)).expect("a branch diff has a key")
    }

    #[test]
    fn only_answers_made_wholly_from_the_cache_are_kept_and_the_oldest_goes_first() {
        let memo = ResultMemo::default();
        let k = |n: &str| on("h1", n);
        memo.keep(k("sent"), answer(1, 5));
        memo.keep(k("nothing asked"), answer(0, 0));
        assert!(
            memo.get(&k("sent")).is_none(),
            "an answer that sent a question"
        );
        assert!(
            memo.get(&k("nothing asked")).is_none(),
            "an answer that used no cache"
        );
        for n in 0..=RESULTS_KEPT {
            memo.keep(k(&format!("k{n}")), answer(0, 3));
        }
        assert!(memo.get(&k("k0")).is_none(), "the oldest went");
        assert!((1..=RESULTS_KEPT).all(|n| memo.get(&k(&format!("k{n}"))).is_some()));
        // The same key kept again replaces its answer instead of taking a second place.
        memo.keep(k("k4"), answer(0, 9));
        assert_eq!(memo.get(&k("k4")).unwrap().usage.cached, 9);
        assert!(memo.get(&k("k1")).is_some());
        // An answer about other commits lets the older commits' answers go.
        memo.keep(on("h2", "k1"), answer(0, 2));
        assert!(memo.get(&k("k4")).is_none(), "the branch moved on");
        assert!(memo.get(&on("h2", "k1")).is_some());
        memo.clear();
        assert!(memo.get(&on("h2", "k1")).is_none());
        // Only a branch diff has a key.
        assert!(result_key("s", "review", "t", &branch("h1")).is_some());
        assert!(result_key("s", "review", "t", &DiffSource::worktree(Diff::default())).is_none());
    }
}
