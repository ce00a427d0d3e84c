//! Executor behavior against a scripted in-memory Jev port.

use serde_json::json;

use super::*;
use crate::budget::BudgetLimits;
use crate::jev::Question;
use crate::testing::ScriptedJev;

fn noul_answer(p: f64) -> Value {
    json!({"model": "jev-test", "answers": {"q": {"type": "noul", "noul": p}}, "usage": {"input_tokens": 10, "output_tokens": 4}})
}

fn frame(scope: &str) -> Frame {
    Frame {
        template: "t@1".into(),
        scope: scope.into(),
        state: json!({"x": scope}),
        questions: Questions::new().with("q", Question::noul("?", "yes", "no")),
        provenance: json!([]),
    }
}

fn executor(jev: Arc<ScriptedJev>, limits: BudgetLimits, retries: u32) -> Executor {
    Executor::new(
        Some(jev),
        Arc::new(Budget::new(limits)),
        ExecutorOptions::new("jev-1.13.0")
            .retries(retries)
            .concurrency(2),
        Cancel::new(),
    )
}

#[test]
fn frame_ids_are_stable_and_content_derived() {
    let a = frame("a").id();
    assert_eq!(a, frame("a").id());
    assert_ne!(a, frame("b").id());
    assert!(a.starts_with("f_") && a.len() == 18 && a[2..].chars().all(|c| c.is_ascii_hexdigit()));
}

#[tokio::test(start_paused = true)]
async fn transient_failures_are_retried_and_counted() {
    let jev = ScriptedJev::new(|n, _| {
        if n < 2 {
            Err(JevError::new(Some(503), "", "unavailable"))
        } else {
            Ok(noul_answer(0.4))
        }
    });
    let ex = executor(jev.clone(), BudgetLimits::TREE, 2);
    let out = ex.run(frame("a")).await.unwrap();
    assert_eq!(out.answers.noul("q"), 0.4);
    let usage = ex.usage();
    assert_eq!(
        (jev.calls(), usage.requests, usage.failed_requests),
        (3, 3, 2)
    );
    assert_eq!(usage.status, JevStatus::Used);
    assert_eq!(
        ex.budget().input_tokens(),
        10,
        "failed attempts cost no tokens"
    );
}

#[tokio::test]
async fn auth_failure_disables_the_port_for_every_later_frame() {
    let jev = ScriptedJev::new(|_, _| Err(JevError::new(Some(401), "", "bad key")));
    let ex = executor(jev.clone(), BudgetLimits::TREE, 2);
    let outs = ex.run_all(vec![frame("a"), frame("b"), frame("c")]).await;
    assert_eq!(jev.calls(), 1);
    assert!(
        outs.iter()
            .all(|o| o.as_ref().unwrap_err().reason == FailReason::Unavailable)
    );
    assert_eq!(ex.usage().status, JevStatus::Unavailable);
    assert_eq!(ex.disabled(), Some("authentication failed"));
}

#[tokio::test]
async fn invalid_answers_fail_invalid_without_retries() {
    let jev = ScriptedJev::new(|_, _| Ok(noul_answer(7.0)));
    let ex = executor(jev.clone(), BudgetLimits::TREE, 0);
    let err = ex.run(frame("a")).await.unwrap_err();
    assert_eq!(err.reason, FailReason::Invalid);
    assert_eq!(ex.usage().invalid_responses, 1);
    assert_eq!(jev.calls(), 1);
}

#[tokio::test]
async fn invalid_answers_are_retried_immediately() {
    let jev = ScriptedJev::new(|n, _| Ok(noul_answer(if n == 0 { 7.0 } else { 0.2 })));
    let ex = executor(jev.clone(), BudgetLimits::TREE, 1);
    assert!(ex.run(frame("a")).await.is_ok());
    assert_eq!(jev.calls(), 2);
}

#[tokio::test]
async fn the_budget_denies_the_third_request() {
    let jev = ScriptedJev::new(|_, _| Ok(noul_answer(0.1)));
    let limits = BudgetLimits {
        requests: 2,
        ..BudgetLimits::TREE
    };
    let ex = Executor::new(
        Some(jev.clone()),
        Arc::new(Budget::new(limits)),
        ExecutorOptions::new("m").concurrency(1).retries(0),
        Cancel::new(),
    );
    let outs = ex.run_all(vec![frame("a"), frame("b"), frame("c")]).await;
    let oks: Vec<bool> = outs.iter().map(Result::is_ok).collect();
    assert_eq!(oks, [true, true, false]);
    assert_eq!(
        outs[2].as_ref().unwrap_err().detail,
        "budget exhausted: requests"
    );
    assert_eq!(jev.calls(), 2);
    assert_eq!(ex.budget().exhausted(), Some(Denial::Requests));
}

#[tokio::test]
async fn identical_frames_are_asked_once() {
    let jev = ScriptedJev::new(|_, _| Ok(noul_answer(0.1)));
    let ex = executor(jev.clone(), BudgetLimits::TREE, 0);
    let outs = ex.run_all(vec![frame("a"), frame("a")]).await;
    assert!(outs.iter().all(Result::is_ok));
    assert_eq!(jev.calls(), 1);
}

#[tokio::test]
async fn a_cancelled_run_sends_nothing() {
    let jev = ScriptedJev::new(|_, _| Ok(noul_answer(0.1)));
    let cancel = Cancel::new();
    let ex = Executor::new(
        Some(jev.clone()),
        Arc::new(Budget::new(BudgetLimits::TREE)),
        ExecutorOptions::new("m"),
        cancel.clone(),
    );
    cancel.cancel();
    assert_eq!(
        ex.run(frame("a")).await.unwrap_err().reason,
        FailReason::Aborted
    );
    assert_eq!(jev.calls(), 0);
}

#[tokio::test]
async fn prepare_rewrites_what_is_sent_and_counts() {
    let jev = ScriptedJev::new(|_, req| {
        assert_eq!(req.state, json!({"x": "[gone]"}));
        Ok(noul_answer(0.1))
    });
    let prepare: Prepare = Arc::new(|req: &mut JevRequest| {
        req.state = json!({"x": "[gone]"});
        2
    });
    let ex = Executor::new(
        Some(jev),
        Arc::new(Budget::new(BudgetLimits::TREE)),
        ExecutorOptions::new("m").prepare(prepare),
        Cancel::new(),
    );
    assert!(ex.run(frame("a")).await.is_ok());
    assert_eq!(ex.redactions(), 2);
}

/// A failure the port returns, and what the trouble recorded for it must look like.
type TroubleCase = (JevError, fn(&JevTrouble) -> bool);

#[tokio::test(start_paused = true)]
async fn jev_trouble_is_recorded_for_the_request() {
    let cases: [TroubleCase; 4] = [
        (JevError::new(Some(401), "", "unauthorized"), |t| {
            matches!(t, JevTrouble::Auth { status: Some(401) })
        }),
        (
            JevError::new(None, "ConnectionError", "connection refused"),
            |t| matches!(t, JevTrouble::Unreachable { detail } if detail.contains("refused")),
        ),
        (JevError::new(Some(503), "", "busy"), |t| {
            matches!(
                t,
                JevTrouble::Unavailable {
                    status: Some(503),
                    attempts: 3,
                    timed_out: false,
                    ..
                }
            )
        }),
        (JevError::new(None, "TimeoutError", "slow"), |t| {
            matches!(
                t,
                JevTrouble::Unavailable {
                    timed_out: true,
                    ..
                }
            )
        }),
    ];
    for (error, expected) in cases {
        let jev = ScriptedJev::new(move |_, _| Err(error.clone()));
        let cell = TroubleCell::default();
        let ex = Executor::new(
            Some(jev),
            Arc::new(Budget::new(BudgetLimits::TREE)),
            ExecutorOptions::new("jev-1.13.0")
                .retries(2)
                .trouble(cell.clone()),
            Cancel::new(),
        );
        assert!(ex.run(frame("a")).await.is_err());
        let trouble = cell.get().expect("trouble recorded");
        assert!(expected(&trouble), "{trouble:?}");
    }
    // An invalid answer is not Jev trouble.
    let jev = ScriptedJev::new(|_, _| Ok(json!({"model": "m", "answers": {}, "usage": {}})));
    let cell = TroubleCell::default();
    let ex = Executor::new(
        Some(jev),
        Arc::new(Budget::new(BudgetLimits::TREE)),
        ExecutorOptions::new("jev-1.13.0").trouble(cell.clone()),
        Cancel::new(),
    );
    assert!(ex.run(frame("a")).await.is_err());
    assert_eq!(cell.get(), None);
}
