//! What a hostile or careless client sends a live host, and what it gets:
//! a body that is not sent as JSON is refused, never read as empty.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support;

use std::sync::Arc;

use serde_json::{Value, json};

use index_negotiation_store::MemoryStore;
use support::{OPP, Running};

/// `POST path` as `key` with `body` raw, its `Content-Type` `kind` (none
/// when `None`): the status and the error code, if any.
async fn post_raw(
    host: &Running,
    path: &str,
    key: &str,
    kind: Option<&str>,
    body: &str,
) -> (u16, String) {
    let mut request = host
        .http
        .post(format!("{}{path}", host.base))
        .bearer_auth(key)
        .body(body.to_owned());
    if let Some(kind) = kind {
        request = request.header("content-type", kind);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    let code = body["error"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (status, code)
}

/// A park's body holds what the safety gate checks the question against
/// (the other seat's name, the seed reasoning): it is read as JSON or
/// refused, never dropped. On a host without a model, a park whose body
/// was read reaches the model check (`no_model`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_park_body_not_sent_as_json_is_refused_not_read_as_empty() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    host.open(OPP).await;
    let path = format!("/opportunities/{OPP}/negotiation/park");
    let body = r#"{"counterpartyName": "Sam", "seedReasoning": "Sam's runway is short."}"#;
    let sent = [
        (Some("application/json"), body, (400, "no_model")),
        (Some("text/plain"), body, (415, "unsupported_media_type")),
        (None, body, (415, "unsupported_media_type")),
        (None, "", (400, "no_model")),
    ];
    for (kind, body, expected) in sent {
        let (status, code) = post_raw(&host, &path, &host.dana, kind, body).await;
        assert_eq!(
            (status, code.as_str()),
            expected,
            "{kind:?} with {} bytes",
            body.len()
        );
    }
    host.stop().await;
}

/// Every route that takes a body refuses one not sent as JSON with 415,
/// in the error shape.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_body_not_sent_as_json_is_415() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    host.open(OPP).await;
    let turn = r#"{"action": "propose", "message": "Hello"}"#;
    let open = json!({
        "opportunityId": "7b2d4f61-0a9c-4e35-8d17-c6f0e2a9b843",
        "initiator": {"userId": "dana", "intentId": "hire"},
        "responder": {"userId": "sam", "intentId": "join"},
    })
    .to_string();
    let routes = [
        (
            format!("/opportunities/{OPP}/negotiation/turns"),
            turn.to_owned(),
            &host.dana,
        ),
        ("/negotiations".to_owned(), open, &host.host_key),
        (
            format!("/opportunities/{OPP}/negotiation/close"),
            r#"{"reason": "passed"}"#.to_owned(),
            &host.host_key,
        ),
        (
            "/answers".to_owned(),
            r#"{"message": "x", "answers": []}"#.to_owned(),
            &host.dana,
        ),
        (
            "/session".to_owned(),
            format!(r#"{{"key": "{}"}}"#, host.dana),
            &host.dana,
        ),
    ];
    for (path, body, key) in &routes {
        for kind in [
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            None,
        ] {
            let (status, code) = post_raw(&host, path, key, kind, body).await;
            assert_eq!(
                (status, code.as_str()),
                (415, "unsupported_media_type"),
                "{path} as {kind:?}"
            );
        }
    }
    let seen = host.view(OPP, &host.dana).await;
    assert_eq!(
        seen.body["negotiation"]["turnCount"], 0,
        "nothing was taken"
    );
    host.stop().await;
}
