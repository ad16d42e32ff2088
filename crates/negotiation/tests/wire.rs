//! JSON shapes, byte for byte: the decision unions, the state and the
//! observation, with the reference's key order and nulls kept as nulls.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_negotiation::{
    CANONICAL_GUIDANCE_TOPICS, NEGOTIATION_GUIDANCE, NEGOTIATION_MAX_TURNS, NegotiationAction,
    NegotiationDecision, NegotiationResumeDecision, NegotiationState, NegotiationTurn,
    decide_negotiation_resume, decide_negotiation_turn, observe_negotiation,
};

use index_negotiation::UserId;

/// A user id for a test, which is never blank.
fn user(id: &str) -> UserId {
    UserId::parse(id).unwrap()
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap()
}

#[test]
fn turn_decisions_serialize_as_the_reference_union() {
    let state = NegotiationState::opened(user("alice"), user("bob"));
    let propose = NegotiationTurn::new(NegotiationAction::Propose, "Intro?");
    let ok = decide_negotiation_turn(Some(&state), &user("alice"), &propose);
    assert_eq!(
        json(&ok),
        r#"{"ok":true,"turnIndex":0,"outcome":null,"roundEnded":null,"awaitingUserId":"bob","opportunityStatus":"negotiating"}"#
    );
    let refused = decide_negotiation_turn(Some(&state), &user("bob"), &propose);
    assert_eq!(
        json(&refused),
        r#"{"ok":false,"rejection":"not_your_turn"}"#
    );
    for decision in [ok, refused] {
        let back: NegotiationDecision = serde_json::from_str(&json(&decision)).unwrap();
        assert_eq!(back, decision);
    }
}

#[test]
fn resume_decisions_serialize_as_the_reference_union() {
    let mut state = NegotiationState::opened(user("alice"), user("bob"));
    assert_eq!(
        json(&decide_negotiation_resume(Some(&state), &user("bob"))),
        r#"{"ok":false,"rejection":"not_paused"}"#
    );
    state.awaiting_user_id = None;
    let ok = decide_negotiation_resume(Some(&state), &user("bob"));
    assert_eq!(json(&ok), r#"{"ok":true,"awaitingUserId":"bob"}"#);
    let back: NegotiationResumeDecision = serde_json::from_str(&json(&ok)).unwrap();
    assert_eq!(back, ok);
    assert!(
        serde_json::from_str::<NegotiationResumeDecision>(r#"{"awaitingUserId":"bob"}"#).is_err()
    );
    assert!(
        serde_json::from_str::<NegotiationResumeDecision>(r#"{"ok":false,"rejection":"raced"}"#)
            .is_err()
    );
}

#[test]
fn state_keeps_nulls() {
    let mut state = NegotiationState::opened(user("alice"), user("bob"));
    state.awaiting_user_id = None;
    assert_eq!(
        json(&state),
        r#"{"initiatorUserId":"alice","responderUserId":"bob","awaitingUserId":null,"outcome":null,"settled":false,"eligible":true,"turns":[]}"#
    );
}

#[test]
fn observation_shape() {
    let state = NegotiationState::opened(user("alice"), user("bob"));
    let value = serde_json::to_value(observe_negotiation(&state, &user("alice"))).unwrap();
    let keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut expected = [
        "guidance",
        "availableActions",
        "blockedReason",
        "maxTurns",
        "remainingTurns",
        "messageLimit",
    ];
    expected.sort_unstable();
    assert_eq!(keys, expected);
    assert_eq!(
        value["availableActions"],
        serde_json::json!(["propose", "decline"])
    );
    assert_eq!(value["blockedReason"], serde_json::Value::Null);
    assert_eq!(value["remainingTurns"], 12);
    assert_eq!(value["messageLimit"], 4000);
}

#[test]
fn guidance_states_the_rules_with_the_real_limit() {
    assert!(
        NEGOTIATION_GUIDANCE.contains(&format!("rounds of at most {NEGOTIATION_MAX_TURNS} turns"))
    );
    for phrase in [
        "decline steps back for now",
        "closes that round but keeps the pair in talks, with nobody to move",
        "Resume only when your person adds context that bears on this pair",
        "Only an agreement settles",
        "when a person passes, when it expires, or when an intent is removed",
        "ever counts as consent",
        "read the negotiation again",
    ] {
        assert!(NEGOTIATION_GUIDANCE.contains(phrase), "{phrase}");
    }
    let names: Vec<&str> = CANONICAL_GUIDANCE_TOPICS
        .iter()
        .map(|t| t.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "identity-context",
            "intents",
            "communities-networks",
            "opportunities",
            "negotiations",
            "workflows"
        ]
    );
    for topic in CANONICAL_GUIDANCE_TOPICS {
        assert!(topic.content().starts_with("## "), "{}", topic.as_str());
        assert_eq!(serde_json::to_value(topic).unwrap(), topic.as_str());
    }
    let negotiations = index_negotiation::CanonicalGuidanceTopic::Negotiations.content();
    assert!(negotiations.contains(&format!("at most {NEGOTIATION_MAX_TURNS} turns")));
}
