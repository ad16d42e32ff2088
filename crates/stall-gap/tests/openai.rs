//! `OpenAiCompatibleModel` against a local server that answers in OpenAI's
//! wire format: the request it sends, and every failure read as "no gap".

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::time::Duration;

use index_stall_gap::*;
use index_test_support::openai_server::{Fake, Reply, gap};

fn input() -> StallGapAuthorInput {
    StallGapAuthorInput {
        user_name: "Dana".into(),
        signal: Signal {
            title: "Founding engineer".into(),
            description: "An early engineer for a battery startup".into(),
        },
        seed_reasoning: "Both work on battery chemistry.".into(),
        transcript: vec![],
        stall_reason: StallReason::TurnCap,
        conversation: None,
    }
}

async fn author(base: &str, timeout_ms: f64) -> ModelStallGapAuthor<OpenAiCompatibleModel> {
    let model = OpenAiCompatibleModel::new(base, "gpt-4o", Some("sk-test-secret".into())).unwrap();
    ModelStallGapAuthor::with_timeout_ms(model, Some(timeout_ms))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gap_comes_back_from_a_strict_json_schema_request() {
    let (fake, base) =
        Fake::start([Reply::Content(gap("How much equity would you accept?"))]).await;
    let found = author(&base, 5_000.0)
        .await
        .author(&input())
        .await
        .expect("an answer")
        .expect("a gap");
    assert_eq!(found.question.prompt, "How much equity would you accept?");
    assert_eq!(found.question.options.len(), 2);
    let requests = fake.requests.lock().unwrap();
    let (auth, body) = &requests[0];
    assert_eq!(auth.as_deref(), Some("Bearer sk-test-secret"));
    assert_eq!(body["model"], "gpt-4o");
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["strict"], true);
    assert_eq!(
        body["response_format"]["json_schema"]["schema"],
        gap_output_schema()
    );
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limit_is_retried_once_after_its_retry_after() {
    let (fake, base) = Fake::start([
        Reply::Status(429, Some(1)),
        Reply::Content(gap("Which city?")),
    ])
    .await;
    let started = std::time::Instant::now();
    assert!(
        author(&base, 5_000.0)
            .await
            .author(&input())
            .await
            .is_ok_and(|gap| gap.is_some())
    );
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "Retry-After was honoured"
    );
    assert_eq!(fake.request_count(), 2);

    // Two server errors in a row: a failure, after exactly one retry per call.
    let (fake, base) = Fake::start([
        Reply::Status(503, Some(0)),
        Reply::Status(503, Some(0)),
        Reply::Status(500, None),
        Reply::Status(500, None),
    ])
    .await;
    assert!(matches!(
        author(&base, 5_000.0).await.author(&input()).await,
        Err(AuthorFailure::Model(_))
    ));
    assert_eq!(
        fake.request_count(),
        2,
        "a model error is final for the author: one call, one retry"
    );

    // A Retry-After longer than the author's timeout ends in a timeout, in time.
    let (_, base) = Fake::start([
        Reply::Status(429, Some(4)),
        Reply::Content(gap("Never read.")),
    ])
    .await;
    let started = std::time::Instant::now();
    assert_eq!(
        author(&base, 500.0).await.author(&input()).await,
        Err(AuthorFailure::Timeout { timeout_ms: 500 })
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "bounded by the author's timeout"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_failure_is_a_failure_that_never_shows_the_key() {
    for (name, replies) in [
        (
            "not JSON content",
            vec![
                Reply::Content("Sure! Here is the question: ...".into()),
                Reply::Content("still prose".into()),
            ],
        ),
        (
            "wrong shape",
            vec![
                Reply::Content("{\"hasGap\": \"yes\"}".into()),
                Reply::Content("[1, 2]".into()),
            ],
        ),
        ("a refusal", vec![Reply::Refusal]),
        ("no choices", vec![Reply::NoChoices]),
        ("a body that is not JSON", vec![Reply::Garbage]),
        ("a 401", vec![Reply::Status(401, None)]),
    ] {
        let (_, base) = Fake::start(replies).await;
        let failure = author(&base, 5_000.0)
            .await
            .author(&input())
            .await
            .expect_err(name);
        assert!(
            !failure.to_string().contains("sk-test-secret"),
            "{name}: {failure}"
        );
        assert!(!format!("{failure:?}").contains("sk-test-secret"), "{name}");
    }
    // A server that takes longer than the author's timeout.
    let (_, base) = Fake::start([Reply::Slow(Duration::from_secs(3))]).await;
    let started = std::time::Instant::now();
    assert_eq!(
        author(&base, 300.0).await.author(&input()).await,
        Err(AuthorFailure::Timeout { timeout_ms: 300 })
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    // Nobody listening.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    assert!(matches!(
        author(&base, 2_000.0).await.author(&input()).await,
        Err(AuthorFailure::Model(_))
    ));
}

#[test]
fn the_environment_names_the_model_and_the_key_stays_secret() {
    assert!(
        OpenAiCompatibleModel::from_values(None, None, None)
            .unwrap()
            .is_none()
    );
    let model = OpenAiCompatibleModel::from_values(
        Some("http://127.0.0.1:1/v1/".into()),
        Some("llama3".into()),
        Some("sk-very-secret".into()),
    )
    .unwrap()
    .unwrap();
    let shown = format!("{model:?}");
    assert!(
        shown.contains("llama3")
            && shown.contains("/v1/chat/completions")
            && !shown.contains("sk-very-secret"),
        "{shown}"
    );
    let half = OpenAiCompatibleModel::from_values(
        Some("http://x/v1".into()),
        None,
        Some("sk-very-secret".into()),
    )
    .unwrap_err();
    assert!(!half.to_string().contains("sk-very-secret"));
    assert!(OpenAiCompatibleModel::new("localhost:8080", "m", None).is_err());
}
