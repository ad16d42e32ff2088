//! Properties over generated blocks, prose and hostile bodies.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_js::{trim_end, utf16_len};
use index_question_block::{
    JsonSyntaxError, QuestionBlock, QuestionBlockQuestion, explain_question_message,
    explain_question_message_from_fence_line_with, explain_question_message_with,
    parse_question_message, parse_question_message_with, serialize_question_message,
};
use proptest::prelude::*;

/// Characters that stress the format: fences, line terminators of every
/// kind, JavaScript-only whitespace, escapes and astral text.
fn tricky_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => any::<char>(),
        4 => prop::sample::select(vec![
            '`', '\n', '\r', '\u{2028}', '\u{2029}', '\u{85}', '\u{feff}', '\u{a0}', '\u{3000}',
            ' ', '\t', '\u{b}', '"', '\\', '{', '}', '🙂', 'é', '\u{0}',
        ]),
        2 => prop::char::range('a', 'z'),
    ]
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(tricky_char(), 0..max).prop_map(|chars| chars.into_iter().collect())
}

fn prompt() -> impl Strategy<Value = String> {
    text(60).prop_map(|s| if s.is_empty() { "?".to_owned() } else { s })
}

/// A UUID spelled in any case, as the reference's check accepts.
fn uuid_ref() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(b"0123456789abcdefABCDEF".to_vec()), 32).prop_map(
        |digits| {
            let mut out = String::with_capacity(36);
            for (i, d) in digits.into_iter().enumerate() {
                if matches!(i, 8 | 12 | 16 | 20) {
                    out.push('-');
                }
                out.push(char::from(d));
            }
            out
        },
    )
}

fn valid_block() -> impl Strategy<Value = QuestionBlock> {
    prop::collection::vec((prompt(), prop::option::of(0usize..=8)), 1..=20)
        .prop_flat_map(|questions| {
            let refs_needed: usize = questions
                .iter()
                .map(|(_, also)| 1 + also.unwrap_or(0))
                .sum();
            (
                Just(questions),
                prop::collection::btree_set(uuid_ref(), refs_needed),
            )
        })
        .prop_map(|(questions, refs)| {
            let mut refs = refs.into_iter();
            QuestionBlock::new(
                questions
                    .into_iter()
                    .map(|(prompt, also)| {
                        let mut question =
                            QuestionBlockQuestion::new(prompt, refs.next().unwrap_or_default());
                        if let Some(n) = also {
                            question =
                                question.also_unblocking(refs.by_ref().take(n).collect::<Vec<_>>());
                        }
                        question
                    })
                    .collect(),
            )
        })
}

/// Any block, valid or not: wrong lengths, bad or repeated refs.
fn any_block() -> impl Strategy<Value = QuestionBlock> {
    let reference = prop_oneof![
        uuid_ref(),
        Just("not-a-uuid".to_owned()),
        Just(String::new())
    ];
    let question = (
        text(8),
        reference.clone(),
        prop::option::of(prop::collection::vec(reference, 0..10)),
    )
        .prop_map(|(prompt, id, also)| QuestionBlockQuestion {
            prompt,
            opportunity_id: id,
            also_unblocks: also,
        });
    prop::collection::vec(question, 0..23).prop_map(QuestionBlock::new)
}

/// Bodies assembled from the pieces the parser cares about.
fn hostile_body() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("```".to_owned()),
        Just("````".to_owned()),
        Just("index-questions".to_owned()),
        Just("```index-questions\n".to_owned()),
        Just("\n```\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\r".to_owned()),
        Just("\u{2028}".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("{\"version\": 1, \"questions\": [".to_owned()),
        Just("{\"prompt\": \"\\ud800\", \"opportunityId\": \"9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4\"}".to_owned()),
        Just("]}".to_owned()),
        text(6),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

/// A payload of `first` questions, then optionally a repeated `questions`
/// key (which JavaScript lets replace the first) of `second`, then `tail`.
fn many_questions_body() -> impl Strategy<Value = String> {
    let tail = prop_oneof![Just("}"), Just(", \"extra\": 1}"), Just(",}"), Just("")];
    (0usize..30, prop::option::of(0usize..30), tail).prop_map(|(first, second, tail)| {
        let list = |n: usize, seed: usize| {
            let items: Vec<String> = (0..n)
                .map(|i| format!("{{\"prompt\": \"Q{i}?\", \"opportunityId\": \"9d2e7a41-c3b8-4f05-a6e9-{:012x}\"}}", seed + i))
                .collect();
            format!("[{}]", items.join(", "))
        };
        let mut payload = format!("{{\"version\": 1, \"questions\": {}", list(first, 0));
        if let Some(second) = second {
            payload.push_str(&format!(", \"questions\": {}", list(second, 1000)));
        }
        payload.push_str(tail);
        format!("Some prose.\n\n```index-questions\n{payload}\n```")
    })
}

/// Where the browser package hands a message to
/// [`explain_question_message_from_fence_line_with`]: the start of the line
/// of the marker's last occurrence, when three or more backticks start that
/// line right before it.
fn fence_line(body: &str) -> Option<usize> {
    let marker = body.rfind("index-questions")?;
    let start = body[..marker].trim_end_matches('`').len();
    let line_start = body[..start]
        .chars()
        .next_back()
        .is_none_or(|c| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'));
    (marker - start >= 3 && line_start).then_some(start)
}

fn serde_reader(payload: &str) -> Result<serde_json::Value, JsonSyntaxError> {
    serde_json::from_str(payload).map_err(|err| JsonSyntaxError {
        offset: 0,
        reason: err.to_string(),
    })
}

/// `default` cases, or as many as `PROPTEST_CASES` asks for, so a long
/// run needs no code change.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(512)))]

    #[test]
    fn serialize_then_parse_returns_the_block_and_trimmed_prose(prose in text(80), block in valid_block()) {
        let message = serialize_question_message(&prose, &block).unwrap();
        let parsed = parse_question_message(&message).unwrap();
        prop_assert_eq!(parsed.prose, trim_end(&prose));
        prop_assert_eq!(parsed.block, block);
    }

    #[test]
    fn the_end_from_the_fence_line_decides_as_the_whole_body(prose in text(40), body in hostile_body()) {
        let body = format!("{prose}{body}");
        let Some(start) = fence_line(&body) else {
            return Ok(());
        };
        let whole = explain_question_message_with(&body, serde_reader);
        let end = explain_question_message_from_fence_line_with(&body[start..], serde_reader);
        match end {
            // The line opens no fence: read alone, the end holds none, so
            // the whole body's fence, if any, is an earlier one.
            None => {
                let alone = explain_question_message_with(&body[start..], serde_reader);
                prop_assert_eq!(alone.unwrap_err().rule(), "no-marker-fence");
            }
            Some(Ok(parsed)) => {
                let whole = whole.unwrap();
                prop_assert_eq!(parsed.block, whole.block);
                prop_assert_eq!(trim_end(&body[..start]), whole.prose);
            }
            Some(Err(why)) => prop_assert_eq!(why.rule(), whole.unwrap_err().rule()),
        }
    }

    #[test]
    fn parse_and_explain_never_panic_and_agree(body in hostile_body()) {
        let explained = explain_question_message(&body);
        let parsed = parse_question_message(&body);
        prop_assert_eq!(parsed, explained.ok());
    }

    #[test]
    fn parse_stops_early_only_when_explain_agrees(body in many_questions_body()) {
        let explained = explain_question_message(&body).ok();
        prop_assert_eq!(parse_question_message(&body), explained.clone());
        let read = |payload: &str| serde_json::from_str::<serde_json::Value>(payload).ok();
        prop_assert_eq!(parse_question_message_with(&body, read), explained);
    }

    #[test]
    fn a_host_json_reader_makes_the_same_decisions(body in hostile_body()) {
        // serde_json refuses escaped lone surrogates, which JSON.parse takes.
        prop_assume!(!body.contains("\\u"));
        let read = |payload: &str| serde_json::from_str::<serde_json::Value>(payload).ok();
        prop_assert_eq!(parse_question_message_with(&body, read), parse_question_message(&body));
        let explained = explain_question_message_with(&body, |payload: &str| {
            serde_json::from_str::<serde_json::Value>(payload)
                .map_err(|err| JsonSyntaxError { offset: 0, reason: err.to_string() })
        });
        prop_assert_eq!(
            explained.map_err(|why| why.rule()),
            explain_question_message(&body).map_err(|why| why.rule())
        );
    }

    #[test]
    fn parse_never_panics_on_any_string(body in any::<String>()) {
        let _ = parse_question_message(&body);
    }

    #[test]
    fn typed_and_json_validation_report_the_same_problems(block in any_block()) {
        let typed = block.validate().err().map(|e| e.issues().to_vec());
        let value = serde_json::to_value(&block).unwrap();
        let json = QuestionBlock::from_json_value(&value).err().map(|e| e.issues().to_vec());
        prop_assert_eq!(typed, json);
    }

    #[test]
    fn serialize_refuses_every_invalid_block(prose in text(10), block in any_block()) {
        let valid = block.validate().is_ok();
        prop_assert_eq!(serialize_question_message(&prose, &block).is_ok(), valid);
    }

    #[test]
    fn prompt_limits_count_utf16_code_units(prompt in text(40)) {
        let block = QuestionBlock::new(vec![QuestionBlockQuestion::new(
            prompt.repeat(60),
            "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4",
        )]);
        let length = utf16_len(&prompt) * 60;
        prop_assert_eq!(block.validate().is_ok(), (1..=2000).contains(&length));
    }
}
