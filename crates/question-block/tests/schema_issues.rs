//! Every problem, in order: the issue lists in
//! `fixtures/question-block/schema-issues.jsonl` were recorded from the
//! reference's zod schema, including which problems stop the duplicate-ref
//! rule from running; cases with a `question` are one question read by the
//! question schema on its own.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_question_block::{IssueCode, QuestionBlock, QuestionBlockQuestion};
use serde_json::Value;

const CASES: &str = include_str!("../../../fixtures/question-block/schema-issues.jsonl");

/// zod's name for the kind of problem each of our codes reports.
fn zod_code(code: &IssueCode) -> &'static str {
    match code {
        IssueCode::InvalidType { .. } => "invalid_type",
        IssueCode::InvalidVersion => "invalid_literal",
        IssueCode::TooSmall { .. } => "too_small",
        IssueCode::TooBig { .. } => "too_big",
        IssueCode::InvalidUuid => "invalid_string",
        IssueCode::UnrecognizedKeys { .. } => "unrecognized_keys",
        IssueCode::DuplicateRef { .. } => "custom",
        _ => "unknown",
    }
}

/// (path, code, sorted unknown keys) per issue. Unknown keys are compared as
/// a set: JavaScript lists integer-like keys first and the rest in insertion
/// order, which a parsed `serde_json::Map` does not keep (see STABILITY.md).
fn describe(case: &Value) -> Vec<(String, String, Vec<String>)> {
    let parsed = match case.get("question") {
        // A single question, read by its own schema.
        Some(question) => QuestionBlockQuestion::from_json_value(question).map(|_| ()),
        None => QuestionBlock::from_json_value(&case["block"]).map(|_| ()),
    };
    match parsed {
        Ok(()) => Vec::new(),
        Err(invalid) => invalid
            .issues()
            .iter()
            .map(|issue| {
                let path = match issue.path.segments() {
                    [] => String::new(),
                    _ => issue.path.to_string(),
                };
                let keys = match &issue.code {
                    IssueCode::UnrecognizedKeys { keys } => {
                        let mut keys = keys.clone();
                        keys.sort();
                        keys
                    }
                    _ => Vec::new(),
                };
                (path, zod_code(&issue.code).to_owned(), keys)
            })
            .collect(),
    }
}

fn expected(issues: &Value) -> Vec<(String, String, Vec<String>)> {
    issues
        .as_array()
        .unwrap()
        .iter()
        .map(|issue| {
            let mut keys: Vec<String> = issue["keys"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|k| k.as_str().unwrap().to_owned())
                .collect();
            keys.sort();
            (
                issue["path"].as_str().unwrap().to_owned(),
                issue["code"].as_str().unwrap().to_owned(),
                keys,
            )
        })
        .collect()
}

#[test]
fn issues_match_the_reference_in_order() {
    let mut failures = Vec::new();
    let mut cases = 0;
    for line in CASES.lines().filter(|l| !l.is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        cases += 1;
        let want = expected(&case["issues"]);
        let got = describe(&case);
        if want != got {
            failures.push(format!(
                "{}:\n  want {want:?}\n   got {got:?}",
                case["name"]
            ));
        }
    }
    assert!(cases >= 110, "only {cases} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
