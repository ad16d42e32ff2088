//! What checking an interaction costs: reading a request (its digest
//! included), validating a response against it (typed, and with the
//! request as JSON, read on every call as the reference does), and a
//! response command against it, for the recorded question example; and the digest alone
//! over a tool input near the contract's bounds. Run with
//! `cargo bench -p index-interaction --bench interaction`.

// A benchmark reports setup mistakes by panicking, and criterion's macros
// generate undocumented items.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use index_interaction::{
    InteractionRequest, InteractionResponseCommand, Sha256Digest, validate_interaction_response,
    validate_interaction_response_command,
};
use serde_json::{Value, json};

const QUESTION: &str = include_str!("../../../fixtures/interaction/valid/request-question.json");
const ANSWER: &str = include_str!("../../../fixtures/interaction/valid/response-accepted.json");

fn interaction(c: &mut Criterion) {
    let request_json: Value = serde_json::from_str(QUESTION).unwrap();
    let answer: Value = serde_json::from_str(ANSWER).unwrap();
    let request = InteractionRequest::from_json_value(&request_json).unwrap();
    let response = validate_interaction_response(&request, &answer).unwrap();
    let command = serde_json::to_value(InteractionResponseCommand::new(
        "op-1",
        request.command_binding(),
        response,
    ))
    .unwrap();
    // A tool input of 1000 short entries, each an object of three members.
    let input = Value::Array(
        (0..1000)
            .map(
                |i| json!({"path": format!("/src/file-{i}.rs"), "lines": i, "changed": i % 2 == 0}),
            )
            .collect(),
    );

    let mut group = c.benchmark_group("interaction");
    group.bench_function("read-request", |b| {
        b.iter(|| InteractionRequest::from_json_value(black_box(&request_json)))
    });
    group.bench_function("validate-response", |b| {
        b.iter(|| validate_interaction_response(black_box(&request), black_box(&answer)))
    });
    // The reference's only form: the request as JSON, read on every call.
    group.bench_function("validate-response-json", |b| {
        b.iter(|| {
            index_interaction::validate_interaction_response_json(
                black_box(&request_json),
                black_box(&answer),
            )
        })
    });
    group.bench_function("validate-command", |b| {
        b.iter(|| validate_interaction_response_command(black_box(&request), black_box(&command)))
    });
    group.bench_function("digest-large-input", |b| {
        b.iter(|| Sha256Digest::of_json(black_box(&input)))
    });
    group.finish();
}

criterion_group!(benches, interaction);
criterion_main!(benches);
