//! Runs every shared test vector in `fixtures/question-block/vectors.jsonl`,
//! whose expected results were recorded from the reference implementation.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_question_block::{
    QuestionBlock, parse_question_message, parse_question_message_utf16,
    serialize_question_message, serialize_question_message_from_json,
};
use serde_json::Value;

const VECTORS: &str = include_str!("../../../fixtures/question-block/vectors.jsonl");

struct Vector {
    name: String,
    kind: String,
    fields: Value,
}

fn vectors() -> Vec<Vector> {
    VECTORS
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let fields: Value = serde_json::from_str(line).expect("every vector line is JSON");
            Vector {
                name: fields["name"].as_str().expect("name").to_owned(),
                kind: fields["kind"].as_str().expect("kind").to_owned(),
                fields,
            }
        })
        .collect()
}

/// The one place that calls the API for a vector; returns a description of
/// the mismatch, if any.
fn check(vector: &Vector) -> Option<String> {
    let expected = &vector.fields["expected"];
    match vector.kind.as_str() {
        "parse" => {
            let body = vector.fields["body"].as_str().expect("body");
            let actual = parse_question_message(body)
                .map(|parsed| serde_json::to_value(parsed).expect("serializable"))
                .unwrap_or(Value::Null);
            (actual != *expected).then(|| format!("expected {expected}\n   got {actual}"))
        }
        "parse_utf16" => {
            let units: Vec<u16> =
                serde_json::from_value(vector.fields["units"].clone()).expect("units");
            let actual = parse_question_message_utf16(&units)
                .map(|parsed| serde_json::to_value(parsed).expect("serializable"))
                .unwrap_or(Value::Null);
            (actual != *expected).then(|| format!("expected {expected}\n   got {actual}"))
        }
        "serialize" => {
            let prose = vector.fields["prose"].as_str().expect("prose");
            let block = &vector.fields["block"];
            let actual = QuestionBlock::from_json_value(block)
                .ok()
                .and_then(|block| serialize_question_message(prose, &block).ok());
            let actual = actual.map_or(Value::Null, Value::String);
            // The same block, written straight from its JSON.
            let from_json = serialize_question_message_from_json(prose, &block)
                .map_or(Value::Null, Value::String);
            if from_json != actual {
                return Some(format!("from JSON {from_json}\n   typed {actual}"));
            }
            (actual != *expected).then(|| format!("expected {expected}\n   got {actual}"))
        }
        other => Some(format!("unknown vector kind {other}")),
    }
}

#[test]
fn every_vector_matches_the_reference() {
    let vectors = vectors();
    assert!(vectors.len() >= 300, "only {} vectors", vectors.len());
    let failures: Vec<String> = vectors
        .iter()
        .filter_map(|vector| check(vector).map(|why| format!("{}: {why}", vector.name)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} vectors differ from the reference:\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n")
    );
}

#[test]
fn vectors_cover_both_outcomes_of_both_functions() {
    let vectors = vectors();
    let count = |kind: &str, null: bool| {
        vectors
            .iter()
            .filter(|v| v.kind == kind && v.fields["expected"].is_null() == null)
            .count()
    };
    assert!(count("parse", false) >= 100);
    assert!(count("parse", true) >= 100);
    assert!(count("serialize", false) >= 40);
    assert!(count("serialize", true) >= 40);
}

#[test]
fn vector_names_are_unique() {
    let vectors = vectors();
    let mut names: Vec<&str> = vectors.iter().map(|v| v.name.as_str()).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len());
}
