//! Why a body is not a question message: the reason, and where.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_question_block::{NotAQuestionMessage, explain_question_message};

const BLOCK: &str = r#"{"version": 1, "questions": [{"prompt": "Q?", "opportunityId": "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4"}]}"#;

/// The one place that calls the API: the rule and the message for `body`.
fn check(body: &str) -> (String, String) {
    match explain_question_message(body) {
        Ok(parsed) => ("ok".to_owned(), parsed.prose),
        Err(why) => (why.rule().to_owned(), why.to_string()),
    }
}

#[test]
fn reasons_follow_the_parser_order() {
    let cases: Vec<(String, &str, &str)> = vec![
        (
            "plain text".into(),
            "no-marker-fence",
            "no line opens an `index-questions` fence",
        ),
        (
            "Intro\n\n```index-questions".into(),
            "nothing-after-fence",
            "the `index-questions` fence on line 3 ends the message; no block follows it",
        ),
        (
            format!("Intro\n````index-questions\n{BLOCK}\n```"),
            "unclosed-fence",
            "the `index-questions` fence on line 2 is never closed by a line of exactly 4 backticks",
        ),
        (
            format!("```index-questions\n{BLOCK}\n```\n\n  thanks"),
            "content-after-block",
            "line 5 has text after the block's closing fence; the block must end the message",
        ),
        (
            "A\r\nB\r\n```index-questions\r\n{\"version\": 1,\r\n  \"questions\": [}\r\n```".into(),
            "invalid-json",
            "the block is not valid JSON at line 5, column 17: expected value",
        ),
        (
            "```index-questions\n{\"version\": 2, \"questions\": []}\n```".into(),
            "invalid-version",
            "invalid question block (2 problem(s))\n  version: should be the number 1\n  questions: needs at least 1 item(s)",
        ),
        (
            format!("Prose  \n\n```index-questions\n{BLOCK}\n```\n"),
            "ok",
            "Prose",
        ),
    ];
    for (body, rule, message) in cases {
        assert_eq!(
            check(&body),
            (rule.to_owned(), message.to_owned()),
            "{body:?}"
        );
    }
}

#[test]
fn the_last_marker_fence_decides_even_when_an_earlier_block_is_valid() {
    let body = format!("```index-questions\n{BLOCK}\n```\n\n```index-questions\n{{}}\n```");
    let why = explain_question_message(&body).unwrap_err();
    match why {
        NotAQuestionMessage::InvalidBlock(invalid) => {
            let paths: Vec<String> = invalid
                .issues()
                .iter()
                .map(|i| i.path.to_string())
                .collect();
            assert_eq!(paths, ["version", "questions"]);
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn duplicate_refs_point_at_the_repeat() {
    let body = r#"```index-questions
{"version": 1, "questions": [
  {"prompt": "A", "opportunityId": "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4", "alsoUnblocks": ["7c1f4e08-b2d9-4a63-8e5c-d0a9f3b61e27"]},
  {"prompt": "B", "opportunityId": "4b8e2f61-0d7c-4a95-b3e8-6f1d9c2a7e05", "alsoUnblocks": ["9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4"]}
]}
```"#;
    let why = explain_question_message(body).unwrap_err();
    assert_eq!(
        why.to_string(),
        "invalid question block (1 problem(s))\n  questions.1.alsoUnblocks.0: repeats negotiation ref 9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4, which may appear only once in a block"
    );
}
