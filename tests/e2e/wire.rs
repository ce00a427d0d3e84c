//! Our System One JSON agrees with the published `typesafe-jev` crate, field for field: every
//! question kind we send parses as its question type, every answer kind it produces passes our
//! validation, and the responses our fake server sends parse as its `Response`.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use stanley_core::validate;
use stanley_core::{JevRequest, Question, Questions};
use typesafe_jev as tj;

fn ours() -> Questions {
    Questions::new()
        .with(
            "n",
            Question::noul(
                json!({"question": "Is it?", "note": "structured"}),
                "yes",
                "no",
            ),
        )
        .with(
            "c",
            Question::choice(
                "Which?",
                [("a", json!("first")), ("b", json!({"detail": "second"}))],
            ),
        )
        .with("s", Question::score("How much?", ["none", "some", "lots"]))
}

#[test]
fn every_question_kind_parses_as_the_crate_type_and_round_trips() {
    for (name, question) in &ours().0 {
        let json = question.to_json();
        let theirs: tj::Question =
            serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(serde_json::to_value(&theirs).unwrap(), json, "{name}");
    }
    let questions: tj::Questions = serde_json::from_value(ours().to_json()).unwrap();
    assert_eq!(questions.ids().collect::<Vec<_>>(), ["n", "c", "s"]);
}

#[test]
fn the_request_body_has_the_documented_fields() {
    let request = JevRequest {
        model: "jev-1.13.0".into(),
        state: json!({"x": 1}),
        questions: ours().to_json(),
    };
    let body: Value = serde_json::from_str(&request.body()).unwrap();
    assert_eq!(
        body.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["model", "state", "questions"]
    );
    let _: tj::Questions = serde_json::from_value(body["questions"].clone()).unwrap();
}

#[test]
fn crate_answers_pass_our_validation() {
    let mut probabilities = indexmap_like([("a", 0.7), ("b", 0.3)]);
    let choice = tj::ChoiceAnswer::new("a", 0.7, std::mem::take(&mut probabilities));
    let score = tj::ScoreAnswer::new(
        0.5,
        0.6,
        BTreeMap::new(),
        BTreeMap::from([(0, 0.6), (1, 0.3), (2, 0.1)]),
    );
    let answers = json!({
        "n": serde_json::to_value(tj::Answer::Noul(tj::NoulAnswer::new(0.25))).unwrap(),
        "c": serde_json::to_value(tj::Answer::Choice(choice)).unwrap(),
        "s": serde_json::to_value(tj::Answer::Score(score)).unwrap(),
    });
    let checked = validate::answers(&ours(), answers.as_object().unwrap()).unwrap();
    assert_eq!(checked.noul("n"), 0.25);
    assert_eq!(checked.get("c").unwrap().p("a"), 0.7);
    assert!((checked.get("s").unwrap().mass_at_least(1) - 0.4).abs() < 1e-9);
}

fn indexmap_like<const N: usize>(pairs: [(&str, f64); N]) -> indexmap::IndexMap<String, f64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

#[tokio::test]
async fn the_http_client_and_the_fake_speak_the_crate_response() {
    use stanley_core::Jev;
    let fake = stanley_tests::FakeJev::start().await;
    let config = stanley_adapters::JevConfig::from_settings(&stanley_adapters::JevSettings {
        api_key: Some("k-123456789".to_owned()),
        base_url: Some(fake.base_url()),
        model: None,
        max_concurrency: None,
        ca_file: None,
    })
    .unwrap();
    let client = stanley_adapters::HttpJev::new(config).unwrap();
    let request = JevRequest {
        model: "jev-1.13.0".into(),
        state: json!({"request": "x"}),
        questions: ours().to_json(),
    };
    let body = client
        .ask(&request, std::time::Duration::from_secs(5))
        .await
        .unwrap();
    let response: tj::Response = serde_json::from_value(body.clone()).unwrap();
    assert_eq!(response.model, "jev-1.13.0");
    assert!(
        response.noul("n").is_some()
            && response.choice("c").is_some()
            && response.score("s").is_some()
    );
    let envelope = validate::envelope(&body).unwrap();
    validate::answers(&ours(), &envelope.answers).unwrap();
    assert_eq!(fake.auth_headers(), ["Bearer k-123456789"]);
    assert_eq!(
        fake.requests()[0],
        serde_json::from_str::<Value>(&request.body()).unwrap()
    );
}
