//! `find`'s excerpt record and metadata errors as typed shapes: the old documents and words.

use serde_json::json;

use super::*;

#[test]
fn an_excerpt_is_the_old_decision_and_the_fallback_adds_its_text_last() {
    let mut excerpt = Excerpt {
        ranges: vec!["1-40".into()],
        total_lines: 120,
        high_mass: 0.8,
        expected: 3.0,
        target_definition_visible: 0.9,
        relevant_content_cut_off: 0.1,
        missing_evidence: "none".into(),
        text: None,
    };
    let old = json!({
        "ranges": ["1-40"],
        "totalLines": 120, "highMass": 0.8, "expected": 3.0,
        "targetDefinitionVisible": 0.9,
        "relevantContentCutOff": 0.1,
        "missingEvidence": "none",
    });
    assert_eq!(serde_json::to_string(&excerpt).unwrap(), old.to_string());
    excerpt.text = Some("1| fn a()".into());
    let mut with_text = old;
    with_text["text"] = json!("1| fn a()");
    assert_eq!(
        serde_json::to_string(&excerpt).unwrap(),
        with_text.to_string()
    );
}

#[test]
fn a_metadata_error_keeps_its_words_and_says_whether_it_was_judged() {
    assert_eq!(
        MetadataError::TooLarge.to_string(),
        "metadata frame too large even for one candidate"
    );
    let failed = MetadataError::Failed {
        reason: "budget",
        detail: "frames exhausted".into(),
        unjudged: true,
    };
    assert_eq!(failed.to_string(), "budget: frames exhausted");
}
