//! Every vector in `fixtures/interaction/v0_44/vectors.jsonl`, read through
//! the crate's 0.44 path, whose expected results were recorded by running
//! the 0.44.0 reference (zod 4.4.3): schema
//! problems (path and code, in order) or the normalised output; answer and
//! response problems, in order, with typed specs and requests and with
//! plain JSON ones (`answer_json`, `response_json`; `throws` where the
//! reference throws, which the crate answers with the one problem
//! `Unreadable`).

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_interaction::v0_44;
use index_interaction::*;
use serde_json::Value;

mod support;

const VECTORS: &str = include_str!("../../../fixtures/interaction/v0_44/vectors.jsonl");

/// Parses `input` as `schema`; the issues, or the output as JSON.
fn schema(schema: &str, input: &Value) -> Result<Value, Value> {
    use support::recorded as run;
    use v0_44::from_json_value as read;
    match schema {
        "field" => run(read::<InteractionField>(input)),
        "answerSpec" => run(read::<InteractionAnswerSpec>(input)),
        "capabilities" => run(read::<InteractionCapabilities>(input)),
        "subject" => run(read::<InteractionSubject>(input)),
        "resolution" => run(read::<InteractionResolution>(input)),
        "data" => run(read::<InteractionDataRecord>(input)),
        "request" => run(v0_44::InteractionRequest::from_json_value(input)),
        "response" => run(read::<InteractionResponse>(input)),
        "binding" => run(v0_44::InteractionBinding::from_json_value(input)),
        "responseCommand" => run(v0_44::InteractionResponseCommand::from_json_value(input)),
        "acknowledgement" => run(v0_44::InteractionAcknowledgement::from_json_value(input)),
        other => panic!("unknown schema {other}"),
    }
}

fn check(vector: &Value) -> Option<String> {
    let name = vector["name"].as_str().unwrap();
    match vector["kind"].as_str().unwrap() {
        "schema" => {
            let got = schema(vector["schema"].as_str().unwrap(), &vector["input"]);
            let want = match vector.get("output") {
                Some(output) => Ok(output.clone()),
                None => Err(vector["issues"].clone()),
            };
            (got != want).then(|| format!("{name}:\n  want {want:?}\n   got {got:?}"))
        }
        "answer" => {
            let spec = v0_44::from_json_value::<InteractionAnswerSpec>(&vector["spec"]).unwrap();
            let data = vector.get("data").and_then(Value::as_object);
            let got: Vec<String> = v0_44::validate_interaction_answer_value(&spec, data)
                .err()
                .map(index_js::Problems::into_vec)
                .unwrap_or_default()
                .iter()
                .map(AnswerProblem::code)
                .collect();
            let want: Vec<String> = serde_json::from_value(vector["problems"].clone()).unwrap();
            (got != want).then(|| format!("{name}:\n  want {want:?}\n   got {got:?}"))
        }
        "response" => {
            let request = v0_44::InteractionRequest::from_json_value(&vector["request"]).unwrap();
            let got: Vec<String> =
                v0_44::validate_interaction_response(&request, &vector["response"])
                    .err()
                    .map(index_js::Problems::into_vec)
                    .unwrap_or_default()
                    .iter()
                    .map(ResponseProblem::code)
                    .collect();
            let want: Vec<String> = serde_json::from_value(vector["problems"].clone()).unwrap();
            (got != want).then(|| format!("{name}:\n  want {want:?}\n   got {got:?}"))
        }
        "answer_json" | "response_json" => {
            let got: Vec<String> = if vector["kind"] == "answer_json" {
                v0_44::validate_interaction_answer_json(
                    &vector["spec"],
                    vector.get("data").and_then(Value::as_object),
                )
                .err()
                .map(index_js::Problems::into_vec)
                .unwrap_or_default()
                .iter()
                .map(AnswerProblem::code)
                .collect()
            } else {
                v0_44::validate_interaction_response_json(&vector["request"], &vector["response"])
                    .err()
                    .map(index_js::Problems::into_vec)
                    .unwrap_or_default()
                    .iter()
                    .map(ResponseProblem::code)
                    .collect()
            };
            // Where the reference throws, the crate reports the spec (or
            // request) unreadable, alone.
            let want: Vec<String> = match vector.get("throws") {
                Some(_) if vector["kind"] == "answer_json" => vec!["unreadable_spec".to_owned()],
                Some(_) => vec!["unreadable_request".to_owned()],
                None => serde_json::from_value(vector["problems"].clone()).unwrap(),
            };
            (got != want).then(|| format!("{name}:\n  want {want:?}\n   got {got:?}"))
        }
        other => Some(format!("{name}: unknown kind {other}")),
    }
}

#[test]
fn every_0_44_vector_matches_the_0_44_reference() {
    support::assert_all_match(&support::vectors(VECTORS, 550), check);
}
