//! Turns, ids and stored records from outside: the turn schema and the
//! rules' JSON entry point agree, an id read from JSON is checked exactly as
//! one parsed from text, and the stored-message codec and the environment
//! readers never panic (and a timeout read from the environment is always a
//! usable one).
#![no_main]

use index_negotiation::{
    NegotiationState, OpportunityId, UserId, decide_negotiation_turn,
    decide_negotiation_turn_value, negotiation_ask_rounds_cap_from, parse_negotiation_turn,
    resolve_turn_timeout_ms_from, turn_timeout,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = index_js::number_from_str(text);
    let _ = negotiation_ask_rounds_cap_from(Some(text));
    let timeout = resolve_turn_timeout_ms_from(None, Some(text));
    assert!(
        timeout.is_finite() && timeout > 0.0,
        "a timeout from the environment is usable"
    );
    let _ = turn_timeout(timeout);
    let _ = index_negotiation_store::sql_rows::message_from_text("agent:alice".into(), text);
    let as_json = serde_json::to_string(text).unwrap_or_default();
    assert_eq!(
        UserId::parse(text).ok(),
        serde_json::from_str::<UserId>(&as_json).ok(),
        "a user id reads alike from text and JSON"
    );
    if let Ok(id) = OpportunityId::parse(text) {
        assert_eq!(
            id.as_str(),
            text.to_ascii_lowercase(),
            "one spelling per opportunity"
        );
    }
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    let (Ok(alice), Ok(bob)) = (UserId::parse("alice"), UserId::parse("bob")) else {
        return;
    };
    let state = NegotiationState::opened(alice.clone(), bob);
    let from_value = decide_negotiation_turn_value(Some(&state), &alice, &value);
    if let Ok(turn) = parse_negotiation_turn(&value) {
        assert_eq!(
            serde_json::to_value(decide_negotiation_turn(Some(&state), &alice, &turn)).ok(),
            serde_json::to_value(&from_value).ok(),
            "the typed and JSON entry points decide alike"
        );
    }
});
