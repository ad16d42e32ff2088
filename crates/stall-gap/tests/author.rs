//! The authoring loop against a scripted model, and the prompts it sends.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::time::Duration;

use index_negotiation::NegotiationConsultationReason;
use index_stall_gap::*;
use serde_json::{Value, json};

fn input(stall_reason: StallReason, conversation: bool) -> StallGapAuthorInput {
    StallGapAuthorInput {
        user_name: "Dana".into(),
        signal: Signal {
            title: "Pilot customer".into(),
            description: "A mid-size utility willing to pilot our forecasting tool".into(),
        },
        seed_reasoning: "The utility published a tender for load forecasting.".into(),
        transcript: vec![
            TranscriptTurn {
                action: "propose".into(),
                reasoning: "The tender matches the product.".into(),
                message: Some("Would a three-month pilot work for you?".into()),
            },
            TranscriptTurn {
                action: "counter".into(),
                reasoning:
                    "They need a price before committing.\nThey also asked about data hosting."
                        .into(),
                message: Some("What would the pilot cost?".into()),
            },
            TranscriptTurn {
                action: "counter".into(),
                reasoning: "No price authority on our side.".into(),
                message: None,
            },
        ],
        stall_reason,
        conversation: conversation.then(|| {
            vec![
                ConversationMessage {
                    role: ConversationRole::User,
                    text: "Keep the pilot under 20k, and we can host in their cloud.".into(),
                },
                ConversationMessage {
                    role: ConversationRole::Negotiator,
                    text: "Understood: under 20k, hosting flexible.".into(),
                },
            ]
        }),
    }
}

fn gap_answer() -> Value {
    json!({
        "hasGap": true,
        "reason": "insufficient_commitment_authority",
        "question": {
            "title": "Pilot price",
            "prompt": "What price can the retry offer for a three-month pilot?",
            "options": [
                {"label": "Free pilot", "description": "The retry offers the pilot at no cost to win the reference."},
                {"label": "Up to 20k", "description": "The retry quotes a price up to 20k."}
            ],
            "multiSelect": false
        }
    })
}

async fn run(
    answers: Vec<Scripted>,
) -> (Result<Option<NegotiationStallGap>, AuthorFailure>, usize) {
    let model = std::sync::Arc::new(ScriptedModel::new(answers));
    let author =
        ModelStallGapAuthor::with_timeout_ms(std::sync::Arc::clone(&model), Some(15_000.0));
    let result = author.author(&input(StallReason::TurnCap, false)).await;
    (result, model.call_count())
}

#[tokio::test]
async fn a_valid_first_answer_is_the_gap() {
    let (gap, calls) = run(vec![Scripted::Value(gap_answer())]).await;
    let gap = gap.unwrap().unwrap();
    assert_eq!(
        gap.reason,
        NegotiationConsultationReason::InsufficientCommitmentAuthority
    );
    assert_eq!(gap.question.title, "Pilot price");
    assert_eq!(calls, 1);
}

#[tokio::test]
async fn an_invalid_answer_earns_one_more_call() {
    let (gap, calls) = run(vec![
        Scripted::Value(json!({"hasGap": "yes"})),
        Scripted::Value(gap_answer()),
    ])
    .await;
    assert_eq!(
        gap.unwrap().unwrap().question.title,
        "Pilot price",
        "the second answer's gap"
    );
    assert_eq!(calls, 2);
}

#[tokio::test]
async fn two_invalid_answers_are_an_unreadable_model() {
    let bad = json!({"hasGap": true, "reason": "insufficient_commitment_authority", "question": {"title": "x"}});
    let (gap, calls) = run(vec![
        Scripted::Value(bad.clone()),
        Scripted::Value(bad),
        Scripted::Value(gap_answer()),
    ])
    .await;
    assert_eq!(gap, Err(AuthorFailure::Unreadable { attempts: 2 }));
    assert_eq!(calls, 2, "never a third call");
}

#[tokio::test]
async fn has_gap_false_is_final_after_one_call() {
    let (gap, calls) = run(vec![
        Scripted::Value(json!({"hasGap": false, "question": null})),
        Scripted::Value(gap_answer()),
    ])
    .await;
    assert_eq!(gap, Ok(None));
    assert_eq!(calls, 1);
}

#[tokio::test]
async fn a_gap_without_a_question_is_retried() {
    let (gap, calls) = run(vec![
        Scripted::Value(
            json!({"hasGap": true, "reason": "repeated_non_convergence", "question": null}),
        ),
        Scripted::Value(gap_answer()),
    ])
    .await;
    assert_eq!(
        gap.unwrap().unwrap().question.title,
        "Pilot price",
        "the second answer's gap"
    );
    assert_eq!(calls, 2);
    let (gap, calls) = run(vec![
        Scripted::Value(
            json!({"hasGap": true, "reason": null, "question": gap_answer()["question"]}),
        ),
        Scripted::Value(json!({"hasGap": true})),
    ])
    .await;
    assert_eq!(gap, Err(AuthorFailure::Unreadable { attempts: 2 }));
    assert_eq!(calls, 2);
}

#[tokio::test]
async fn a_model_error_is_a_failure_without_a_retry() {
    let (gap, calls) = run(vec![
        Scripted::Error("rate limited".into()),
        Scripted::Value(gap_answer()),
    ])
    .await;
    assert!(
        matches!(&gap, Err(AuthorFailure::Model(cause)) if cause.contains("rate limited")),
        "{gap:?}"
    );
    assert_eq!(calls, 1);
}

#[tokio::test(start_paused = true)]
async fn a_timeout_is_a_failure() {
    let slow = Scripted::Delayed(
        Duration::from_secs(16),
        Box::new(Scripted::Value(gap_answer())),
    );
    let started = tokio::time::Instant::now();
    let (gap, calls) = run(vec![slow, Scripted::Value(gap_answer())]).await;
    assert_eq!(gap, Err(AuthorFailure::Timeout { timeout_ms: 15_000 }));
    assert_eq!(calls, 1);
    assert_eq!(
        started.elapsed(),
        Duration::from_secs(15),
        "cut off at the timeout"
    );
    let just_in_time = Scripted::Delayed(
        Duration::from_secs(14),
        Box::new(Scripted::Value(gap_answer())),
    );
    let (gap, calls) = run(vec![just_in_time]).await;
    assert_eq!(
        (gap.unwrap().map(|gap| gap.question.title), calls),
        (Some("Pilot price".to_owned()), 1),
        "an answer just inside the timeout counts"
    );
}

#[test]
fn the_timeout_falls_back_to_the_default() {
    let author = ModelStallGapAuthor::with_timeout_ms(ScriptedModel::default(), Some(-5.0));
    let expected =
        index_negotiation::turn_timeout(index_negotiation::resolve_turn_timeout_ms(None));
    assert_eq!(author.timeout(), expected);
    let author = ModelStallGapAuthor::with_timeout_ms(ScriptedModel::default(), Some(2_500.0));
    assert_eq!(author.timeout(), Duration::from_millis(2_500));
}

fn render(messages: &[ChatMessage]) -> String {
    messages
        .iter()
        .map(|m| format!("--- {:?} ---\n{}", m.role, m.content))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn prompts_for_each_stall_reason_and_with_a_conversation() {
    for (name, reason, conversation) in [
        ("turn_cap", StallReason::TurnCap, false),
        ("timeout", StallReason::Timeout, false),
        ("stalled", StallReason::Stalled, false),
        ("turn_cap_with_conversation", StallReason::TurnCap, true),
    ] {
        let messages = stall_gap_messages(&input(reason, conversation));
        insta::assert_snapshot!(name, render(&messages));
    }
}

#[test]
fn the_conversation_rule_appears_only_with_a_conversation() {
    let with = stall_gap_messages(&input(StallReason::TurnCap, true));
    let without = stall_gap_messages(&input(StallReason::TurnCap, false));
    let mut empty = input(StallReason::TurnCap, false);
    empty.conversation = Some(Vec::new());
    let empty = stall_gap_messages(&empty);
    assert!(with[0].content.contains("own recent conversation"));
    assert!(with[1].content.contains("Dana: Keep the pilot under 20k"));
    assert!(with[1].content.contains("You: Understood"));
    for messages in [&without, &empty] {
        assert!(!messages[0].content.contains("conversation"));
        assert!(!messages[1].content.contains("conversation"));
    }
    let transcript: Vec<&str> = without[1]
        .content
        .lines()
        .filter(|l| l.starts_with("Turn "))
        .collect();
    assert_eq!(transcript.len(), 3, "one line per turn, line breaks folded");
}
