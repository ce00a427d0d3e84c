//! Executor behavior against a scripted in-memory Jev port.

use serde_json::json;

use super::*;
use crate::budget::BudgetLimits;
use crate::cache::{CacheKey, CacheUse, CachedAnswers};
use crate::jev::Question;
use crate::testing::{MemoryCache, MemoryRemote, ScriptedJev};

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
    let a = a.as_str();
    assert!(a.starts_with("f_") && a.len() == 18 && a[2..].chars().all(|c| c.is_ascii_hexdigit()));
}

#[tokio::test(start_paused = true)]
async fn transient_failures_are_retried_and_counted() {
    let jev = ScriptedJev::new(|n, _| {
        if n < 2 {
            Err(JevError::new(Failure::Status(503), "unavailable"))
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
    let jev = ScriptedJev::new(|_, _| Err(JevError::new(Failure::Status(401), "bad key")));
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
    let prepare = Prepare::rewriting(|req: &mut JevRequest, _: &str| {
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
        (JevError::new(Failure::Status(401), "unauthorized"), |t| {
            matches!(t, JevTrouble::Auth { status: Some(401) })
        }),
        (
            JevError::new(
                Failure::Unreachable { certificate: None },
                "connection refused",
            ),
            |t| matches!(t, JevTrouble::Unreachable { detail, certificate: None } if detail.contains("refused")),
        ),
        (JevError::new(Failure::Status(503), "busy"), |t| {
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
        (JevError::new(Failure::TimedOut, "slow"), |t| {
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

fn cached_executor(jev: Arc<ScriptedJev>, cache: Arc<MemoryCache>, write: bool) -> Executor {
    two_level_executor(jev, cache, None, write, Cancel::new())
}

fn two_level_executor(
    jev: Arc<ScriptedJev>,
    cache: Arc<MemoryCache>,
    remote: Option<Arc<MemoryRemote>>,
    write: bool,
    cancel: Cancel,
) -> Executor {
    Executor::new(
        Some(jev),
        Arc::new(Budget::new(BudgetLimits::TREE)),
        ExecutorOptions::new("jev-1.13.0")
            .retries(1)
            .cache(CacheUse {
                cache,
                remote: remote.map(|r| r as Arc<dyn crate::cache::RemoteJudgments>),
                write,
                endpoint: "http://jev.test".into(),
            }),
        cancel,
    )
}

#[tokio::test(start_paused = true)]
async fn a_second_clone_is_answered_by_the_team_level_and_keeps_the_answer_locally() {
    let jev = ScriptedJev::new(|_, _| Ok(noul_answer(0.7)));
    let remote = MemoryRemote::new();
    // The first clone asks Jev and tells both levels, the model's resolution included.
    let first = two_level_executor(
        jev.clone(),
        MemoryCache::new(),
        Some(remote.clone()),
        true,
        Cancel::new(),
    );
    first.run(frame("a")).await.unwrap();
    assert_eq!((jev.calls(), remote.len(), remote.writes()), (1, 1, 1));

    // A second clone: its own level is empty, and it never learnt that jev-1.13.0 answers as
    // jev-test; the team level says both.
    let local = MemoryCache::new();
    let second = two_level_executor(
        jev.clone(),
        local.clone(),
        Some(remote.clone()),
        true,
        Cancel::new(),
    );
    let hit = second.run(frame("a")).await.unwrap();
    assert!(hit.cached);
    assert_eq!(
        (hit.answers.noul("q"), hit.model.as_str()),
        (0.7, "jev-test")
    );
    assert_eq!(jev.calls(), 1, "nothing sent");
    let usage = second.usage();
    assert_eq!((usage.requests, usage.cached, usage.remote), (0, 1, 1));
    assert_eq!(local.len(), 1, "the answer is kept locally for next time");

    // Next time the local level answers, and the team level is not read again.
    let reads = remote.reads();
    let third = two_level_executor(
        jev.clone(),
        local.clone(),
        Some(remote.clone()),
        true,
        Cancel::new(),
    );
    third.run(frame("a")).await.unwrap();
    assert_eq!(third.usage().remote, 0);
    assert_eq!(
        remote.reads(),
        reads,
        "a local hit does not ask the team level"
    );

    // A read-only request keeps nothing in either level.
    let read_only = two_level_executor(
        jev.clone(),
        MemoryCache::new(),
        Some(remote.clone()),
        false,
        Cancel::new(),
    );
    read_only.run(frame("new")).await.unwrap();
    assert_eq!((jev.calls(), remote.len()), (2, 1));
}

#[tokio::test(start_paused = true)]
async fn a_team_level_that_never_answers_does_not_outlive_the_runs_cancel() {
    let jev = ScriptedJev::new(|_, _| Ok(noul_answer(0.7)));
    let remote = MemoryRemote::new();
    remote
        .stall
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let cancel = Cancel::new();
    let ex = two_level_executor(
        jev.clone(),
        MemoryCache::new(),
        Some(remote.clone()),
        true,
        cancel.clone(),
    );
    let run = tokio::spawn(ex.run(frame("a")));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!run.is_finished(), "the stand-in store holds the read");
    cancel.cancel();
    let outcome = tokio::time::timeout(Duration::from_secs(1), run)
        .await
        .expect("the cancel ends the wait")
        .unwrap();
    assert!(outcome.is_err());
    assert_eq!(jev.calls(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_validated_answer_is_served_from_the_cache_the_next_time_and_not_charged() {
    let jev = ScriptedJev::new(|_, _| Ok(noul_answer(0.7)));
    let cache = MemoryCache::new();
    let first = cached_executor(jev.clone(), cache.clone(), true);
    let live = first.run(frame("a")).await.unwrap();
    assert!(!live.cached);
    assert_eq!((jev.calls(), cache.len()), (1, 1));

    let second = cached_executor(jev.clone(), cache.clone(), true);
    let hit = second.run(frame("a")).await.unwrap();
    assert!(hit.cached);
    assert_eq!(hit.answers.noul("q"), 0.7);
    assert_eq!(hit.model, "jev-test");
    assert_eq!(jev.calls(), 1, "the second run sends nothing");
    let usage = second.usage();
    assert_eq!((usage.requests, usage.cached), (0, 1));
    assert_eq!((usage.cached_input_tokens, usage.input_tokens), (10, 0));
    assert_eq!(usage.status, JevStatus::Used);
    assert_eq!(second.budget().requests(), 0);

    // Another state is another question.
    second.run(frame("b")).await.unwrap();
    assert_eq!(jev.calls(), 2);
}

#[tokio::test(start_paused = true)]
async fn errors_invalid_answers_and_read_only_runs_keep_nothing() {
    let jev = ScriptedJev::new(|n, _| match n {
        0 => Err(JevError::new(Failure::Status(400), "rejected")),
        1 | 2 => Ok(
            json!({"model": "jev-test", "answers": {"q": {"type": "noul", "noul": 7.0}}, "usage": {"input_tokens": 1, "output_tokens": 1}}),
        ),
        _ => Ok(noul_answer(0.2)),
    });
    let cache = MemoryCache::new();
    let ex = cached_executor(jev.clone(), cache.clone(), true);
    assert!(ex.run(frame("a")).await.is_err());
    assert!(ex.run(frame("b")).await.is_err(), "invalid twice");
    assert!(cache.is_empty(), "no error and no invalid answer is kept");
    let read_only = cached_executor(jev.clone(), cache.clone(), false);
    read_only.run(frame("c")).await.unwrap();
    assert!(cache.is_empty(), "a read-only run keeps nothing");
}

#[tokio::test(start_paused = true)]
async fn a_stored_answer_that_no_longer_fits_the_questions_is_a_miss() {
    let jev = ScriptedJev::new(|_, _| Ok(noul_answer(0.7)));
    let cache = MemoryCache::new();
    let key = CacheKey::of(
        "http://jev.test",
        "jev-test",
        "t@1",
        &JevRequest {
            model: "jev-1.13.0".into(),
            state: json!({"x": "a"}),
            questions: frame("a").questions.to_json(),
        },
    );
    let mut answers = serde_json::Map::new();
    answers.insert("other".into(), json!({"type": "noul", "noul": 0.1}));
    crate::cache::JudgmentCache::put(
        cache.as_ref(),
        &key,
        "http://jev.test jev-1.13.0",
        &CachedAnswers {
            model: "jev-test".into(),
            answers,
            input_tokens: 1,
            output_tokens: 1,
        },
    );
    let ex = cached_executor(jev.clone(), cache, true);
    let out = ex.run(frame("a")).await.unwrap();
    assert!(!out.cached);
    assert_eq!(jev.calls(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_model_that_resolves_differently_is_asked_again() {
    let jev = ScriptedJev::new(|_, _| Ok(noul_answer(0.7)));
    let cache = MemoryCache::new();
    cached_executor(jev.clone(), cache.clone(), true)
        .run(frame("a"))
        .await
        .unwrap();
    // The same request model now resolves to another model: the old answer is not served.
    crate::cache::JudgmentCache::put(
        cache.as_ref(),
        &CacheKey("unrelated".into()),
        "http://jev.test jev-1.13.0",
        &CachedAnswers {
            model: "jev-next".into(),
            answers: serde_json::Map::new(),
            input_tokens: 0,
            output_tokens: 0,
        },
    );
    let out = cached_executor(jev.clone(), cache, true)
        .run(frame("a"))
        .await
        .unwrap();
    assert!(!out.cached);
    assert_eq!(jev.calls(), 2);
}

/// A frame whose state came written as stable JSON (D-230) is the frame its tree makes: the
/// same id, the same cache entry, the same state sent; a hit answers it without building its
/// request, and a redaction hook that knows its content clean is not asked to rewrite it.
#[tokio::test(start_paused = true)]
async fn a_frame_written_from_its_type_is_the_frame_its_tree_makes() {
    let state = json!({"b": [1, "é\n"], "a": {"z": null, "y": 2.5}});
    let tree = || Frame {
        state: state.clone(),
        ..frame("a")
    };
    let written = || WrittenFrame {
        frame: Frame {
            state: Value::Null,
            ..frame("a")
        },
        state: StableJson::from_value(&state),
    };
    let seen = Arc::new(Mutex::new(Vec::new()));
    let jev = ScriptedJev::new({
        let seen = seen.clone();
        move |_, req| {
            seen.lock().unwrap().push(req.state.clone());
            Ok(noul_answer(0.3))
        }
    });
    // Asked as written first (a miss: the state parsed back and sent), then as a tree (a hit).
    let cache = MemoryCache::new();
    let first = cached_executor(jev.clone(), cache.clone(), true);
    let (_, out) = first.run_planned_written(vec![written()]).await;
    let sent = out[0].as_ref().unwrap();
    assert_eq!(sent.frame_id, tree().id());
    assert_eq!(*seen.lock().unwrap(), vec![state.clone()]);
    let second = cached_executor(jev.clone(), cache.clone(), true);
    let (_, out) = second.run_planned(vec![tree()]).await;
    assert!(
        out[0].as_ref().unwrap().cached,
        "the tree's key is the written one's"
    );
    assert_eq!(jev.calls(), 1);

    // A hit on a written frame behind a hook that knows it clean: nothing rewritten or built.
    let rewrites = Arc::new(Mutex::new(0));
    let prepare = Prepare::new(|_| true, {
        let rewrites = rewrites.clone();
        move |_: &mut JevRequest, _: &str| {
            *rewrites.lock().unwrap() += 1;
            0
        }
    });
    let third = Executor::new(
        Some(jev.clone()),
        Arc::new(Budget::new(BudgetLimits::TREE)),
        ExecutorOptions::new("jev-1.13.0")
            .prepare(prepare)
            .cache(CacheUse {
                cache: cache.clone(),
                remote: None,
                write: true,
                endpoint: "http://jev.test".into(),
            }),
        Cancel::new(),
    );
    let (_, out) = third.run_planned_written(vec![written()]).await;
    assert!(out[0].as_ref().unwrap().cached);
    assert_eq!((*rewrites.lock().unwrap(), jev.calls()), (0, 1));
}

/// The words an attempt's result is recorded with are the words the records always had: a
/// transport failure under its class's name.
#[test]
fn an_attempt_that_failed_is_recorded_under_its_class_word() {
    for class in [
        ErrorClass::Aborted,
        ErrorClass::Auth,
        ErrorClass::TooLarge,
        ErrorClass::Transient,
        ErrorClass::Rejected,
        ErrorClass::Unknown,
    ] {
        assert_eq!(AttemptResult::from(class).as_str(), class.as_str());
    }
    assert_eq!(
        serde_json::to_string(&AttemptResult::Cached).unwrap(),
        r#""cached""#
    );
}
