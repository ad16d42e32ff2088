//! The canonical fixture and the example bodies in `fixtures/question-block/`.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::fs;
use std::path::{Path, PathBuf};

use index_question_block::fixture::{
    QUESTION_BLOCK_JSON_FIXTURE, QUESTION_MESSAGE_FIXTURE, QUESTION_PROSE_FIXTURE,
    question_block_fixture,
};
use index_question_block::{
    explain_question_message, parse_question_message, serialize_question_message,
};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/question-block")
}

fn bodies(kind: &str) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = fs::read_dir(fixtures_dir().join(kind))
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            (stem, fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn serializer_reproduces_the_hand_written_message_byte_for_byte() {
    let message =
        serialize_question_message(QUESTION_PROSE_FIXTURE, &question_block_fixture()).unwrap();
    assert_eq!(message, QUESTION_MESSAGE_FIXTURE);
}

#[test]
fn canonical_message_parses_to_the_canonical_prose_and_block() {
    let parsed = parse_question_message(QUESTION_MESSAGE_FIXTURE).unwrap();
    assert_eq!(parsed.prose, QUESTION_PROSE_FIXTURE);
    assert_eq!(parsed.block, question_block_fixture());
    assert_eq!(parsed.block.to_pretty_json(), QUESTION_BLOCK_JSON_FIXTURE);
}

#[test]
fn canonical_fixture_has_the_reference_fixture_shape() {
    let block = question_block_fixture();
    assert_eq!(QUESTION_PROSE_FIXTURE.lines().count(), 3);
    assert_eq!(block.questions.len(), 2);
    assert_eq!(
        block.questions[0].also_unblocks.as_ref().map(Vec::len),
        Some(1)
    );
    assert_eq!(block.questions[1].also_unblocks, None);
}

#[test]
fn every_valid_example_parses_and_round_trips_its_block() {
    let valid = bodies("valid");
    assert!(valid.len() >= 8);
    for (name, body) in valid {
        let parsed = explain_question_message(&body).unwrap_or_else(|why| panic!("{name}: {why}"));
        let again = serialize_question_message(&parsed.prose, &parsed.block).unwrap();
        assert_eq!(
            parse_question_message(&again).as_ref(),
            Some(&parsed),
            "{name}"
        );
    }
}

#[test]
fn every_invalid_example_breaks_the_rule_it_is_named_for() {
    let invalid = bodies("invalid");
    assert!(invalid.len() >= 12);
    for (name, body) in invalid {
        let why = explain_question_message(&body).expect_err(&name);
        assert_eq!(why.rule(), name, "{why}");
        assert!(parse_question_message(&body).is_none());
    }
}
