//! The ask-round budget, the park payload and the turn timeout.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_negotiation::{
    AskUser, AskUserAssessment, AskUserTurn, DEFAULT_ASK_USER_WINDOW_MS, MessagePart,
    NegotiationConsultationReason, NegotiationMessage, SuggestedRoles,
    count_negotiation_ask_rounds, has_prior_ask_user, negotiation_ask_rounds_cap_from,
    resolve_turn_timeout_ms_from,
};
use index_question_block::{QuestionOption, StructuredQuestion};
use serde_json::json;

use index_negotiation::UserId;

/// A user id for a test, which is never blank.
fn user(id: &str) -> UserId {
    UserId::parse(id).unwrap()
}

fn message(sender: &str, parts: serde_json::Value) -> NegotiationMessage {
    serde_json::from_value(json!({"senderId": sender, "parts": parts})).unwrap()
}

#[test]
fn ask_rounds_count_the_first_data_part_only() {
    let messages = vec![
        message(
            "agent:alice",
            json!([{"kind": "data", "data": {"action": "ask_user"}}]),
        ),
        message(
            "agent:bob",
            json!([{"kind": "text", "text": "hi"}, {"kind": "data", "data": {"action": "ask_user"}}]),
        ),
        message(
            "agent:bob",
            json!([{"kind": "data", "data": {"action": "propose"}}, {"kind": "data", "data": {"action": "ask_user"}}]),
        ),
        message("agent:carol", json!([{"kind": "text", "text": "ask_user"}])),
        message(
            "agent:bob",
            json!([{"kind": "data", "data": {"action": "ASK_USER"}}]),
        ),
        message(
            "agent:bob",
            json!([{"kind": "data", "data": {"note": "no action"}}]),
        ),
        message("agent:bob", json!([])),
    ];
    assert_eq!(count_negotiation_ask_rounds(&messages), 2);
    assert!(has_prior_ask_user(&messages, &user("alice")));
    assert!(has_prior_ask_user(&messages, &user("bob")));
    assert!(!has_prior_ask_user(&messages, &user("carol")));
    assert!(!has_prior_ask_user(&messages[..1], &user("bob")));
    assert!(!has_prior_ask_user(&messages, &user("agent:alice")));
    assert_eq!(count_negotiation_ask_rounds(&[]), 0);
}

#[test]
fn the_cap_reads_only_positive_integers() {
    let cases: [(Option<&str>, usize); 16] = [
        (None, 3),
        (Some(""), 3),
        (Some("1"), 1),
        (Some("7"), 7),
        (Some(" 7\n"), 7),
        (Some("7.0"), 7),
        (Some("7e0"), 7),
        (Some("0x7"), 7),
        (Some("0"), 3),
        (Some("-2"), 3),
        (Some("2.5"), 3),
        (Some("abc"), 3),
        (Some("Infinity"), 3),
        (Some("   "), 3),
        (Some("1e300"), usize::MAX),
        (Some("0b11"), 3),
    ];
    for (raw, expected) in cases {
        assert_eq!(negotiation_ask_rounds_cap_from(raw), expected, "{raw:?}");
    }
}

#[test]
fn turn_timeout_prefers_a_valid_override_then_the_environment() {
    assert_eq!(resolve_turn_timeout_ms_from(None, None), 15000.0);
    assert_eq!(resolve_turn_timeout_ms_from(Some(2500.0), None), 2500.0);
    assert_eq!(resolve_turn_timeout_ms_from(Some(0.5), None), 0.5);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 9_007_199_254_740_992.0] {
        assert_eq!(
            resolve_turn_timeout_ms_from(Some(bad), Some("3000")),
            3000.0,
            "{bad}"
        );
    }
    assert_eq!(
        resolve_turn_timeout_ms_from(None, Some("9007199254740991")),
        9_007_199_254_740_991.0
    );
    assert_eq!(
        resolve_turn_timeout_ms_from(None, Some("9007199254740992")),
        15000.0
    );
    assert_eq!(resolve_turn_timeout_ms_from(None, Some("0")), 15000.0);
    assert_eq!(resolve_turn_timeout_ms_from(None, Some("")), 15000.0);
    assert_eq!(DEFAULT_ASK_USER_WINDOW_MS, 86_400_000);
}

#[test]
fn park_turn_wire_shape() {
    let option = |label: &str| QuestionOption {
        label: label.to_owned(),
        description: format!("The retry offers {label}."),
    };
    let turn = AskUserTurn {
        action: Default::default(),
        assessment: AskUserAssessment {
            reasoning: "Parked until the person answers.".to_owned(),
            suggested_roles: SuggestedRoles::peers(),
        },
        message: (),
        ask_user: AskUser {
            reason: NegotiationConsultationReason::InsufficientCommitmentAuthority,
            question: StructuredQuestion {
                title: "Scope".to_owned(),
                prompt: "How much can be committed?".to_owned(),
                options: vec![option("a pilot"), option("a full rollout")],
                multi_select: false,
            },
        },
    };
    insta::assert_snapshot!(serde_json::to_string_pretty(&turn).unwrap());
    let back: AskUserTurn = serde_json::from_value(serde_json::to_value(&turn).unwrap()).unwrap();
    assert_eq!(back, turn);
    let message = turn.to_message(&user("alice"));
    assert!(
        matches!(&message.parts[..], [MessagePart::Data { data }] if data["action"] == "ask_user")
    );
    assert_eq!(count_negotiation_ask_rounds(&[message]), 1);
    let wrong: Result<AskUserTurn, _> = serde_json::from_value(json!({"action": "propose"}));
    assert!(wrong.is_err());
}
