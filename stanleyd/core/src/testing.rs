//! Test doubles shared by every crate's tests (feature `testing`): a scripted in-memory Jev
//! that records what it was asked, and builders for the answers it gives back.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::jev::{BoxFuture, Jev, JevError, JevRequest};

type Script = dyn Fn(usize, &JevRequest) -> Result<Value, JevError> + Send + Sync;

/// A Jev port that answers from a script and records every request.
pub struct ScriptedJev {
    calls: AtomicUsize,
    script: Box<Script>,
    seen: Mutex<Vec<JevRequest>>,
}

impl ScriptedJev {
    /// Answers the `n`th request (from 0) with whatever `script` returns: a whole response
    /// body, or an error.
    pub fn new(
        script: impl Fn(usize, &JevRequest) -> Result<Value, JevError> + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            calls: AtomicUsize::new(0),
            script: Box::new(script),
            seen: Mutex::new(Vec::new()),
        })
    }

    /// Answers every question of every request through `answer(name, question, state)`.
    pub fn per_question(
        answer: impl Fn(&str, &Value, &Value) -> Value + Send + Sync + 'static,
    ) -> Arc<Self> {
        Self::new(move |_, request| {
            let answers: Map<String, Value> = request
                .questions
                .as_object()
                .into_iter()
                .flatten()
                .map(|(name, q)| (name.clone(), answer(name, q, &request.state)))
                .collect();
            Ok(envelope(Value::Object(answers)))
        })
    }

    /// Requests answered so far.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<JevRequest> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Jev for ScriptedJev {
    fn ask<'a>(
        &'a self,
        request: &'a JevRequest,
        _timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, JevError>> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        self.seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(request.clone());
        let result = (self.script)(n, request);
        Box::pin(async move { result })
    }
}

/// A response body around `answers`, from model `jev-test`, one token each way.
pub fn envelope(answers: Value) -> Value {
    json!({"model": "jev-test", "answers": answers, "usage": {"input_tokens": 1, "output_tokens": 1}})
}

/// A noul answer.
pub fn noul(p: f64) -> Value {
    json!({"type": "noul", "noul": p})
}

/// A choice answer to `question` picking `label` with `mass`, the rest spread evenly.
pub fn choice(question: &Value, label: &str, mass: f64) -> Value {
    let labels: Vec<&String> = question["criteria"]
        .as_object()
        .map(|c| c.keys().collect())
        .unwrap_or_default();
    let rest = (1.0 - mass) / (labels.len().max(2) - 1) as f64;
    let probabilities: Map<String, Value> = labels
        .iter()
        .map(|l| ((*l).clone(), json!(if *l == label { mass } else { rest })))
        .collect();
    json!({"type": "choice", "choice": label, "confidence": mass, "probabilities": probabilities})
}

/// A judgment cache in memory, for tests of what uses one.
#[derive(Default)]
pub struct MemoryCache {
    entries: Mutex<std::collections::HashMap<String, crate::cache::CachedAnswers>>,
    models: Mutex<std::collections::HashMap<String, String>>,
}

impl MemoryCache {
    /// An empty cache.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Entries kept.
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl crate::cache::JudgmentCache for MemoryCache {
    fn resolved(&self, requested: &str) -> Option<String> {
        self.models
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(requested)
            .cloned()
    }

    fn get(&self, key: &crate::cache::CacheKey) -> Option<crate::cache::CachedAnswers> {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key.0)
            .cloned()
    }

    fn put(
        &self,
        key: &crate::cache::CacheKey,
        requested: &str,
        value: &crate::cache::CachedAnswers,
    ) {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.0.clone(), value.clone());
        self.models
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(requested.to_owned(), value.model.clone());
    }
}

/// A shared cache level in memory, for tests: a [`MemoryCache`] behind the port, counting
/// how often it was read and written; `stall` makes every read wait forever (a store that
/// never answers).
#[derive(Default)]
pub struct MemoryRemote {
    held: MemoryCache,
    reads: AtomicUsize,
    writes: AtomicUsize,
    /// Reads never finish.
    pub stall: std::sync::atomic::AtomicBool,
}

impl MemoryRemote {
    /// An empty level.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Entries kept.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// Reads asked (answers and resolutions).
    pub fn reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }

    /// Writes told.
    pub fn writes(&self) -> usize {
        self.writes.load(Ordering::SeqCst)
    }

    async fn read<T>(&self, value: Option<T>) -> Option<T> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        if self.stall.load(Ordering::SeqCst) {
            futures::future::pending::<()>().await;
        }
        value
    }
}

impl crate::cache::RemoteJudgments for MemoryRemote {
    fn resolved<'a>(&'a self, requested: &'a str) -> BoxFuture<'a, Option<String>> {
        use crate::cache::JudgmentCache;
        Box::pin(self.read(self.held.resolved(requested)))
    }

    fn get<'a>(
        &'a self,
        key: &'a crate::cache::CacheKey,
    ) -> BoxFuture<'a, Option<crate::cache::CachedAnswers>> {
        use crate::cache::JudgmentCache;
        Box::pin(self.read(self.held.get(key)))
    }

    fn put(
        &self,
        key: &crate::cache::CacheKey,
        requested: &str,
        value: &crate::cache::CachedAnswers,
    ) {
        use crate::cache::JudgmentCache;
        self.writes.fetch_add(1, Ordering::SeqCst);
        self.held.put(key, requested, value);
    }
}
