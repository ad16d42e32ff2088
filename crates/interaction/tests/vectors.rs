//! Every vector in `fixtures/interaction/vectors.jsonl`, whose expected
//! results were recorded by running the reference (zod 4.4.3): schema
//! problems (path and code, in order) or the normalised output; answer and
//! response problems, in order, with typed specs and requests and with
//! plain JSON ones (`answer_json`, `response_json`; `throws` where the
//! reference throws, which the crate answers with `UnreadableSpec`).

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_interaction::*;
use serde_json::Value;

const VECTORS: &str = include_str!("../../../fixtures/interaction/vectors.jsonl");

fn issues(err: InvalidInteraction) -> Value {
    Value::Array(
        err.issues
            .iter()
            .map(|i| serde_json::json!([i.path.to_string(), i.code.as_str()]))
            .collect(),
    )
}

/// Parses `input` as `schema`; the issues, or the output as JSON.
fn schema(schema: &str, input: &Value) -> Result<Value, Value> {
    fn run<T: serde::Serialize>(parsed: Result<T, InvalidInteraction>) -> Result<Value, Value> {
        parsed
            .map(|value| serde_json::to_value(value).unwrap())
            .map_err(issues)
    }
    match schema {
        "field" => run(InteractionField::from_json_value(input)),
        "answerSpec" => run(InteractionAnswerSpec::from_json_value(input)),
        "capabilities" => run(InteractionCapabilities::from_json_value(input)),
        "subject" => run(InteractionSubject::from_json_value(input)),
        "resolution" => run(InteractionResolution::from_json_value(input)),
        "data" => run(InteractionDataRecord::from_json_value(input)),
        "request" => run(InteractionRequest::from_json_value(input)),
        "response" => run(InteractionResponse::from_json_value(input)),
        "binding" => run(InteractionBinding::from_json_value(input)),
        "responseCommand" => run(InteractionResponseCommand::from_json_value(input)),
        "acknowledgement" => run(InteractionAcknowledgement::from_json_value(input)),
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
            let spec = InteractionAnswerSpec::from_json_value(&vector["spec"]).unwrap();
            let data = vector.get("data").and_then(Value::as_object);
            let got: Vec<String> = validate_interaction_answer_value(&spec, data)
                .err()
                .unwrap_or_default()
                .iter()
                .map(AnswerProblem::code)
                .collect();
            let want: Vec<String> = serde_json::from_value(vector["problems"].clone()).unwrap();
            (got != want).then(|| format!("{name}:\n  want {want:?}\n   got {got:?}"))
        }
        "response" => {
            let request = InteractionRequest::from_json_value(&vector["request"]).unwrap();
            let got: Vec<String> = validate_interaction_response(&request, &vector["response"])
                .err()
                .unwrap_or_default()
                .iter()
                .map(ResponseProblem::code)
                .collect();
            let want: Vec<String> = serde_json::from_value(vector["problems"].clone()).unwrap();
            (got != want).then(|| format!("{name}:\n  want {want:?}\n   got {got:?}"))
        }
        "answer_json" | "response_json" => {
            let got = if vector["kind"] == "answer_json" {
                validate_interaction_answer_json(
                    &vector["spec"],
                    vector.get("data").and_then(Value::as_object),
                )
                .map(|problems| problems.iter().map(AnswerProblem::code).collect::<Vec<_>>())
            } else {
                validate_interaction_response_json(&vector["request"], &vector["response"])
                    .map(|problems| problems.iter().map(ResponseProblem::code).collect())
            };
            // Where the reference throws, the crate refuses the spec.
            let want = match vector.get("throws") {
                Some(_) => None,
                None => {
                    Some(serde_json::from_value::<Vec<String>>(vector["problems"].clone()).unwrap())
                }
            };
            (got.as_ref().ok() != want.as_ref())
                .then(|| format!("{name}:\n  want {want:?}\n   got {got:?}"))
        }
        other => Some(format!("{name}: unknown kind {other}")),
    }
}

#[test]
fn every_vector_matches_the_reference() {
    let vectors: Vec<Value> = VECTORS
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(vectors.len() >= 530, "{}", vectors.len());
    let failures: Vec<String> = vectors.iter().filter_map(check).collect();
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n")
    );
}
