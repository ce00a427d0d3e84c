//! Routing policy: acceptance thresholds and fallback texts.

use super::*;
use serde_json::json;

fn choice(pick: &str, confidence: f64, probs: &[(&str, f64)]) -> Answer {
    Answer::Choice {
        choice: pick.into(),
        confidence,
        probabilities: probs.iter().map(|(l, p)| ((*l).to_owned(), *p)).collect(),
    }
}

fn candidates(available: bool) -> Vec<Candidate> {
    vec![Candidate {
        id: "summarize".into(),
        metadata: json!({}),
        available,
    }]
}

#[test]
fn accepts_a_confident_available_pick() {
    let a = accept(
        &choice(
            "summarize",
            0.9,
            &[("summarize", 0.9), ("cannot_tell", 0.1)],
        ),
        &candidates(true),
    );
    assert_eq!(
        a,
        Acceptance {
            selected: Some("summarize".into()),
            reason: RouteReason::Selected,
            unavailable: None,
        }
    );
}

#[test]
fn cannot_tell_wins_whatever_its_confidence() {
    let a = accept(
        &choice(
            "cannot_tell",
            0.2,
            &[("summarize", 0.45), ("cannot_tell", 0.55)],
        ),
        &candidates(true),
    );
    assert_eq!(a.reason, RouteReason::CannotTell);
}

#[test]
fn unavailable_picks_are_refused() {
    let a = accept(
        &choice(
            "summarize",
            0.9,
            &[("summarize", 0.9), ("cannot_tell", 0.1)],
        ),
        &candidates(false),
    );
    assert_eq!(a.reason, RouteReason::Unavailable);
}

#[test]
fn thresholds_make_the_model_uncertain() {
    let cases = [
        (0.59, [0.8, 0.2]),  // confidence
        (0.9, [0.54, 0.46]), // probability
        (0.9, [0.56, 0.44]), // margin 0.12
    ];
    for (confidence, [p, q]) in cases {
        let a = accept(
            &choice(
                "summarize",
                confidence,
                &[("summarize", p), ("cannot_tell", q)],
            ),
            &candidates(true),
        );
        assert_eq!(
            a.reason,
            RouteReason::ModelUncertain,
            "{confidence} {p} {q}"
        );
    }
    let ok = accept(
        &choice(
            "summarize",
            0.6,
            &[("summarize", 0.58), ("cannot_tell", 0.42)],
        ),
        &candidates(true),
    );
    assert_eq!(ok.reason, RouteReason::Selected);
}

#[test]
fn the_routing_frame_lists_candidates_then_cannot_tell() {
    let frame = route_frame(
        "Summarize",
        Facts {
            diff: true,
            input: InputShape::None,
        },
        &candidates(true),
    );
    assert_eq!(frame.template, "route-intent@1");
    assert_eq!(frame.scope, "cli-request");
    assert_eq!(
        frame.state["context"],
        json!({"diff": "present", "input": "none", "capabilities": {"summarize": true}})
    );
    let Some(Question::Choice {
        criteria,
        instructions,
    }) = frame.questions.get("route")
    else {
        panic!("route is a choice")
    };
    let labels: Vec<&str> = criteria.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels, ["summarize", "cannot_tell"]);
    assert_eq!(instructions.as_array().unwrap().len(), 5);
}

#[test]
fn fallback_texts() {
    let none = Facts {
        diff: false,
        input: InputShape::None,
    };
    let f = fallback(None, none, false, None);
    assert_eq!(f.status, Status::Unsupported);
    // One paragraph, in lines of at most 100 columns (issue 34).
    assert!(
        f.text.lines().all(|l| l.chars().count() <= 100),
        "{}",
        f.text
    );
    let text = f.text.replace('\n', " ");
    assert!(text.starts_with("No installed workflow can confidently handle"));
    assert!(
        text.ends_with("There is no current diff or recognized input to disambiguate the request.")
    );
    let text_input = fallback(
        None,
        Facts {
            diff: true,
            input: InputShape::Text,
        },
        true,
        None,
    );
    assert!(
        text_input
            .text
            .replace('\n', " ")
            .contains("not recognized as failures")
    );
    assert_eq!(
        text_input.data,
        json!({"reason": "unroutable", "inputProvided": true})
    );
    let deploy = fallback(Some(Action::ExternalAction), none, false, None);
    assert!(
        deploy
            .text
            .replace('\n', " ")
            .contains("cannot run commands")
    );
    let fix = fallback(Some(Action::CodeChange), none, false, None);
    assert!(fix.text.contains("cannot implement or fix code"));
    assert_eq!(fix.data["requested"], "code_change");
    let spent = fallback(None, none, false, Some(Denial::Requests));
    assert_eq!(spent.status, Status::BudgetExhausted);
    assert!(spent.text.contains("shared requests budget was exhausted"));
}

/// An input shape is kept as its wire word; a word this version does not know (a queued job
/// from another version) reads as no input rather than failing the queue.
#[test]
fn input_shapes_keep_their_words() {
    for shape in [
        InputShape::None,
        InputShape::ReviewComments,
        InputShape::FailureLog,
        InputShape::Text,
    ] {
        assert_eq!(serde_json::to_value(shape).unwrap(), shape.as_str());
        let back: InputShape = serde_json::from_value(json!(shape.as_str())).unwrap();
        assert_eq!(back, shape);
    }
    let unknown: InputShape = serde_json::from_value(json!("pdf")).unwrap();
    assert_eq!(unknown, InputShape::None);
}
