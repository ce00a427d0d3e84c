//! `find` against a scripted Jev: oversized shards split in halves, empty answers fail the
//! candidates with their errors.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use stanley_core::{
    BoxFuture, Budget, BudgetLimits, Cancel, Executor, ExecutorOptions, Jev, JevError, JevRequest,
};

use super::*;
use crate::ports::{GitError, NoRecords};
use crate::testing::{FixedClock, NoRedact};

struct Files(Vec<String>);

impl Workspace for Files {
    fn tracked(&self) -> Result<Vec<String>, GitError> {
        Ok(self.0.clone())
    }
    fn read_lines(&self, path: &str) -> Option<Vec<String>> {
        Some(vec![format!(
            "export function f_{}() {{}}",
            path.replace(['/', '.'], "_")
        )])
    }
    fn file_size(&self, _path: &str) -> Option<u64> {
        Some(40)
    }
}

/// Refuses requests with more than five candidates as too large; answers the rest neutrally, or
/// with an empty answers object.
struct Picky {
    empty: bool,
    sizes: Mutex<Vec<usize>>,
}

impl Jev for Picky {
    fn ask<'a>(
        &'a self,
        request: &'a JevRequest,
        _t: Duration,
    ) -> BoxFuture<'a, Result<Value, JevError>> {
        let n = request.state["candidates"].as_array().map_or(0, Vec::len);
        self.sizes.lock().unwrap().push(n);
        if n > 5 {
            return Box::pin(async {
                Err(JevError::new(
                    stanley_core::Failure::Status(413),
                    "too large",
                ))
            });
        }
        let answers: serde_json::Map<String, Value> = if self.empty {
            serde_json::Map::new()
        } else {
            request.questions.as_object().unwrap().iter().map(|(k, q)| {
                let a = if q["type"] == "score" {
                    json!({"type": "score", "score": 0.2, "confidence": 0.8, "probabilities": {"0": 0.8, "1": 0.2, "2": 0.0, "3": 0.0}})
                } else {
                    let labels: Vec<&String> = q["criteria"].as_object().unwrap().keys().collect();
                    let probs: serde_json::Map<String, Value> = labels.iter().map(|l| ((*l).clone(), json!(if *l == "unrelated" { 0.7 } else { 0.05 }))).collect();
                    json!({"type": "choice", "choice": "unrelated", "confidence": 0.7, "probabilities": probs})
                };
                (k.clone(), a)
            }).collect()
        };
        Box::pin(async move {
            Ok(
                json!({"model": "m", "answers": answers, "usage": {"input_tokens": 1, "output_tokens": 1}}),
            )
        })
    }
}

async fn run_find(jev: Arc<Picky>) -> crate::run::Packet {
    let files: Vec<String> = (0..45).map(|i| format!("src/m{i}.ts")).collect();
    let ws = Files(files.clone());
    let executor = Executor::new(
        Some(jev),
        Arc::new(Budget::new(BudgetLimits::TREE)),
        ExecutorOptions::new("m").retries(0),
        Cancel::new(),
    );
    let input = FindInput::new("Find the webhook retry code");
    let mut run = Run::start(
        crate::runs::RunId::parse("find-1").unwrap(),
        "find@1",
        Arc::new(NoRecords),
        Arc::new(FixedClock),
        BudgetLimits::TREE,
        "m",
        recorded_inputs(&input, files.len()),
    );
    find(&input, &files, &ws, &NoRedact, &executor, &mut run).await;
    run.finish(&executor)
}

#[tokio::test]
async fn oversized_shards_are_split_until_they_fit() {
    let jev = Arc::new(Picky {
        empty: false,
        sizes: Mutex::new(Vec::new()),
    });
    let packet = run_find(jev.clone()).await;
    assert_eq!(packet.json["coverage"]["judged"], 45);
    assert_eq!(packet.json["coverage"]["failed"], 0);
    assert_eq!(packet.json["coverage"]["unjudged"], 0);
    assert!(jev.sizes.lock().unwrap().iter().all(|n| *n <= 20));
    assert!(
        packet.json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["flag"] == "no_strong_candidate")
    );
    assert_eq!(
        packet.json["results"],
        json!([]),
        "irrelevant candidates never pad the shortlist"
    );
}

#[tokio::test]
async fn empty_answers_fail_the_candidates_with_their_errors() {
    let jev = Arc::new(Picky {
        empty: true,
        sizes: Mutex::new(Vec::new()),
    });
    let packet = run_find(jev).await;
    let coverage = &packet.json["coverage"];
    let failed = coverage["failed"].as_u64().unwrap();
    // After eight answers in a row that do not fit, the rest are not asked
    // (issue 49): each is failed with its error, or left unjudged with the reason.
    assert!(failed >= 1, "{coverage}");
    assert_eq!(failed + coverage["unjudged"].as_u64().unwrap(), 45);
    let rows = packet.json["results"].as_array().unwrap();
    assert!(
        rows.iter().all(|r| {
            let e = r["error"].as_str().unwrap();
            e.starts_with("invalid: ") || e == "unavailable: its answers did not fit the questions"
        }),
        "{rows:?}"
    );
    assert_eq!(
        packet.json["statusReason"],
        "Jev's answers did not fit the questions"
    );
}
