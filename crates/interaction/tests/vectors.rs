//! Every vector in `fixtures/interaction/v0_46/vectors.jsonl`, whose
//! expected results were recorded by running the 0.46.0 reference (zod
//! 4.4.3, `@noble/hashes` 1.8.0): schema problems (path and code, in order)
//! or the normalised output; answer, response and command problems as
//! codes, in order; request and command digests and canonical JSON, to the
//! byte. Where the reference throws instead of answering (`throws`), the
//! expected problems are those it reports with the digest left unchecked:
//! the crate refuses with them (see STABILITY.md).

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_interaction::*;
use serde_json::Value;

mod support;

const VECTORS: &str = include_str!("../../../fixtures/interaction/v0_46/vectors.jsonl");

/// Parses `input` as `schema`; the issues, or the output as JSON.
fn schema(schema: &str, input: &Value) -> Result<Value, Value> {
    use support::recorded as run;
    match schema {
        "field" => run(InteractionField::from_json_value(input)),
        "answerSpec" => run(InteractionAnswerSpec::from_json_value(input)),
        "capabilities" => run(InteractionCapabilities::from_json_value(input)),
        "subject" => run(InteractionSubject::from_json_value(input)),
        "resolution" => run(InteractionResolution::from_json_value(input)),
        "data" => run(InteractionDataRecord::from_json_value(input)),
        "request" => run(InteractionRequest::from_json_value(input)),
        "response" => run(InteractionResponse::from_json_value(input)),
        "requestBinding" => run(InteractionRequestBinding::from_json_value(input)),
        "binding" => run(InteractionBinding::from_json_value(input)),
        "responseCommand" => run(InteractionResponseCommand::from_json_value(input)),
        "acknowledgement" => run(InteractionAcknowledgement::from_json_value(input)),
        "secretHandle" => run(SecretHandle::from_json_value(input)),
        other => panic!("unknown schema {other}"),
    }
}

fn codes<P>(
    problems: Result<InteractionResponse, index_js::Problems<P>>,
    code: impl Fn(&P) -> String,
) -> Vec<String> {
    problems
        .err()
        .map(index_js::Problems::into_vec)
        .unwrap_or_default()
        .iter()
        .map(code)
        .collect()
}

fn want_codes(vector: &Value) -> Vec<String> {
    serde_json::from_value(vector["problems"].clone()).unwrap()
}

fn differs<T: PartialEq + std::fmt::Debug>(name: &str, want: T, got: T) -> Option<String> {
    (got != want).then(|| format!("{name}:\n  want {want:?}\n   got {got:?}"))
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
            differs(name, want, got)
        }
        "answer" => {
            let got: Vec<String> =
                validate_interaction_answer_json(&vector["spec"], vector.get("data"))
                    .err()
                    .map(index_js::Problems::into_vec)
                    .unwrap_or_default()
                    .iter()
                    .map(AnswerProblem::code)
                    .collect();
            differs(name, want_codes(vector), got)
        }
        "response" => {
            let got = validate_interaction_response_json(&vector["request"], &vector["response"]);
            let output = got.as_ref().ok().map(|r| serde_json::to_value(r).unwrap());
            let got = codes(got, ResponseProblem::code);
            differs(
                name,
                (want_codes(vector), vector.get("output").cloned()),
                (got, output),
            )
        }
        "command" => {
            let got = codes(
                validate_interaction_response_command_json(&vector["request"], &vector["command"]),
                ResponseProblem::code,
            );
            differs(name, want_codes(vector), got)
        }
        "digest" => {
            let got = interaction_request_digest(&vector["material"]);
            match vector.get("digest") {
                None => got
                    .is_ok()
                    .then(|| format!("{name}: the reference refuses, got {got:?}")),
                Some(want) => {
                    let got = got.map(|d| d.to_string()).map_err(|e| e.to_string());
                    let sealed = InteractionRequest::from_material(&vector["material"])
                        .map(|r| canonical_json(&serde_json::to_value(r).unwrap()))
                        .map_err(|e| e.to_string());
                    differs(
                        name,
                        (
                            Ok(want.as_str().unwrap().to_owned()),
                            Ok(vector["canonical"].as_str().unwrap().to_owned()),
                        ),
                        (got, sealed),
                    )
                }
            }
        }
        "command_digest" => {
            let binding = InteractionBinding::from_json_value(&vector["binding"]).unwrap();
            let response = InteractionResponse::from_json_value(&vector["response"]).unwrap();
            let got = interaction_response_command_digest(&binding, &response).to_string();
            differs(name, vector["digest"].as_str().unwrap().to_owned(), got)
        }
        "canonical" => {
            let text = canonical_json(&vector["value"]);
            let digest = Sha256Digest::of_json(&vector["value"]).to_string();
            differs(
                name,
                (
                    vector["canonical"].as_str().unwrap(),
                    vector["digest"].as_str().unwrap(),
                ),
                (text.as_str(), digest.as_str()),
            )
        }
        other => Some(format!("{name}: unknown kind {other}")),
    }
}

#[test]
fn every_vector_matches_the_reference() {
    support::assert_all_match(&support::vectors(VECTORS, 1000), check);
}

#[test]
fn the_vectors_cover_every_kind_and_the_reference_defect() {
    let vectors = support::vectors(VECTORS, 1000);
    for kind in [
        "schema",
        "answer",
        "response",
        "command",
        "digest",
        "command_digest",
        "canonical",
    ] {
        assert!(
            vectors.iter().any(|v| v["kind"] == kind),
            "no {kind} vector"
        );
    }
    assert!(vectors.iter().filter(|v| v.get("throws").is_some()).count() >= 12);
}
