//! Every vector in `fixtures/negotiation/vectors.jsonl`: the turn schema's
//! output (trimmed) or refusal, resume decisions on state objects as JSON
//! (missing fields included), ask rounds counted over every kind of message
//! part the reference can hold (each message also reads and writes back
//! unchanged), recorded by running the reference's own functions (zod
//! 3.25.76); and the opening decision in the reference's published shape.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_negotiation::*;
use serde_json::{Value, json};

use index_negotiation::UserId;

/// A user id for a test, which is never blank.
fn user(id: &str) -> UserId {
    UserId::parse(id).unwrap()
}

const VECTORS: &str = include_str!("../../../fixtures/negotiation/vectors.jsonl");

fn check(vector: &Value) -> Option<String> {
    let name = vector["name"].as_str().unwrap();
    let (got, want) = match vector["kind"].as_str().unwrap() {
        "turn" => (
            parse_negotiation_turn(&vector["input"])
                .map_or(Value::Null, |turn| serde_json::to_value(turn).unwrap()),
            vector["output"].clone(),
        ),
        "resume" => (
            serde_json::to_value(decide_negotiation_resume_value(
                &vector["state"],
                &user(vector["userId"].as_str().unwrap()),
            ))
            .unwrap(),
            vector["output"].clone(),
        ),
        "ask_rounds" => {
            let messages: Vec<NegotiationMessage> =
                serde_json::from_value(vector["messages"].clone()).unwrap();
            let written = serde_json::to_value(&messages).unwrap();
            (
                json!({
                    "written": written,
                    "rounds": count_negotiation_ask_rounds(&messages),
                    "priorU1": has_prior_ask_user(&messages, &user("u1")),
                }),
                json!({
                    "written": vector["messages"],
                    "rounds": vector["rounds"],
                    "priorU1": vector["priorU1"],
                }),
            )
        }
        "opening" => {
            let pair: NegotiationOpening = serde_json::from_value(vector["input"].clone()).unwrap();
            (
                serde_json::to_value(decide_negotiation_opening(&pair)).unwrap(),
                vector["output"].clone(),
            )
        }
        other => return Some(format!("{name}: unknown kind {other}")),
    };
    (got != want).then(|| format!("{name}:\n  want {want}\n   got {got}"))
}

#[test]
fn every_vector_matches_the_reference() {
    let vectors: Vec<Value> = VECTORS
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(vectors.len() >= 70, "{}", vectors.len());
    let failures: Vec<String> = vectors.iter().filter_map(check).collect();
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n")
    );
}
