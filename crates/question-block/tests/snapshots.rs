//! The serializer's exact output for the canonical fixture and each edge
//! case, pinned as insta snapshots of the bytes (not of a re-formatted
//! JSON value), plus the reasons `explain` gives for each invalid example.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_question_block::fixture::{QUESTION_PROSE_FIXTURE, question_block_fixture};
use index_question_block::{
    QuestionBlock, QuestionBlockQuestion, explain_question_message, serialize_question_message,
};

const A: &str = "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4";
const B: &str = "7c1f4e08-b2d9-4a63-8e5c-d0a9f3b61e27";

fn one(prompt: &str) -> QuestionBlock {
    QuestionBlock::new(vec![QuestionBlockQuestion::new(prompt, A)])
}

/// The one place that serializes for a snapshot.
fn message(prose: &str, block: &QuestionBlock) -> String {
    serialize_question_message(prose, block).unwrap()
}

#[test]
fn canonical() {
    insta::assert_snapshot!(message(QUESTION_PROSE_FIXTURE, &question_block_fixture()));
}

#[test]
fn backticks_in_a_prompt_force_a_longer_fence() {
    insta::assert_snapshot!(message(
        "The prompt quotes a fence.",
        &one("Keep ```strict``` mode, or switch to ````loose````?")
    ));
}

#[test]
fn empty_prose_leaves_the_block_alone() {
    insta::assert_snapshot!(message(" \n\t", &one("Start date?")));
}

#[test]
fn crlf_prose_keeps_inner_line_endings_and_loses_trailing_ones() {
    insta::assert_debug_snapshot!(message(
        "First line.\r\nSecond line.\r\n\r\n",
        &one("Budget?")
    ));
}

#[test]
fn astral_plane_text_is_written_as_is() {
    insta::assert_snapshot!(message(
        "Ready when you are 🚀",
        &one("Which 🌍 region should the pilot start in? 👩‍💻")
    ));
}

#[test]
fn the_marker_quoted_in_prose_stays_prose() {
    insta::assert_snapshot!(message(
        "Answers go in the ```index-questions block below:\n```index-questions\n(not this one)",
        &one("Team size?")
    ));
}

#[test]
fn control_characters_and_quotes_are_escaped_as_json_stringify_does() {
    insta::assert_snapshot!(message(
        "Escapes:",
        &one("Tab\there, \"quoted\", back\\slash, bell\u{7}, line\u{2028}separator")
    ));
}

#[test]
fn also_unblocks_empty_and_full() {
    let block = QuestionBlock::new(vec![
        QuestionBlockQuestion::new("First?", A).also_unblocking(Vec::<String>::new()),
        QuestionBlockQuestion::new("Second?", B).also_unblocking([
            "11111111-1111-4111-8111-111111111111",
            "22222222-2222-4222-8222-222222222222",
        ]),
    ]);
    insta::assert_snapshot!(message("Two lists.", &block));
}

#[test]
fn explain_reasons_for_the_invalid_examples() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/question-block/invalid");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    let report: String = names
        .iter()
        .map(|path| {
            let body = std::fs::read_to_string(path).unwrap();
            let why = explain_question_message(&body).unwrap_err();
            format!(
                "{}:\n  {}\n",
                path.file_name().unwrap().to_string_lossy(),
                why.to_string().replace('\n', "\n  ")
            )
        })
        .collect();
    insta::assert_snapshot!(report);
}
