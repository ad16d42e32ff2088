//! What a hostile or careless client sends a live host, and what it gets:
//! a body that is not sent as JSON is refused, never read as empty; a
//! name that would forge a log line is refused where it comes in; a
//! request id the host cannot log as it is is replaced; a damaged park
//! hides no other question; a login link is no key, a host key signs no
//! browser in, and a path or query that is not text is refused.

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

use index_negotiation_store::{ApiKeyStore, MemoryStore, OpportunityId};
use support::{OPP, Running};

const SECOND: &str = "7b2d4f61-0a9c-4e35-8d17-c6f0e2a9b843";

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
        "opportunityId": SECOND,
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

/// A user or intent id that would forge a log line (a newline) or hide
/// what it says (a direction override, a zero-width space) is refused
/// where it comes in, by name, over REST and MCP; nothing is opened.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_with_control_or_format_characters_opens_nothing() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let seats = [
        (
            "initiator.userId",
            json!({"userId": "mallory\nINFO user=root", "intentId": "hire"}),
            json!({"userId": "sam", "intentId": "join"}),
        ),
        (
            "responder.userId",
            json!({"userId": "dana", "intentId": "hire"}),
            json!({"userId": "sam\u{200b}", "intentId": "join"}),
        ),
        (
            "responder.intentId",
            json!({"userId": "dana", "intentId": "hire"}),
            json!({"userId": "sam", "intentId": "nioj\u{202e}"}),
        ),
        (
            "initiator.intentId",
            json!({"userId": "dana", "intentId": "hire\u{2028}"}),
            json!({"userId": "sam", "intentId": "join"}),
        ),
    ];
    let mut admin = host.mcp_session(&host.host_key).await;
    for (field, initiator, responder) in seats {
        let body = json!({"opportunityId": OPP, "initiator": initiator, "responder": responder});
        let opened = host
            .call(
                "POST",
                "/negotiations",
                Some(&host.host_key),
                Some(body.clone()),
            )
            .await;
        let message = opened.body["error"]["message"].as_str().unwrap_or_default();
        assert_eq!(
            (opened.status, support::code(&opened)),
            (400, "invalid_request"),
            "{field}: {}",
            opened.body
        );
        assert!(message.starts_with(field), "{field}: {message}");
        let tool = admin.call_tool("open_negotiation", body).await;
        let error = &support::refusal(&tool)["error"];
        assert_eq!(
            (&tool["isError"], &error["code"]),
            (&json!(true), &json!("invalid_request")),
            "{field}: {tool}"
        );
        assert!(
            error["message"].as_str().unwrap().starts_with(field),
            "{field}: {tool}"
        );
    }
    let listed = host
        .call("GET", "/negotiations", Some(&host.dana), None)
        .await;
    assert_eq!(listed.body["negotiations"], json!([]), "nothing was opened");
    assert_eq!(host.open(OPP).await.status, 201, "plain ids still open");
    host.stop().await;
}

/// `GET /healthz` with each `x-request-id` header in `sent`: the id the
/// answer carries.
async fn request_id_answered(host: &Running, sent: &[&str]) -> String {
    let mut request = host.http.get(format!("{}/healthz", host.base));
    for id in sent {
        request = request.header("x-request-id", *id);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    let ids: Vec<_> = response.headers().get_all("x-request-id").iter().collect();
    assert_eq!(ids.len(), 1, "one id in the answer: {ids:?}");
    ids[0].to_str().unwrap().to_owned()
}

/// A client's own request id is echoed when it is plain; anything else
/// (too long, spaces, quotes, markup, two of them) is replaced by a fresh
/// one, so the log's request id is always one the host can print as is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_id_is_kept_only_when_plain() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let longest = "a".repeat(64);
    for plain in [
        "req-1",
        "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36",
        "trace.v1:span_2",
        &longest,
    ] {
        assert_eq!(request_id_answered(&host, &[plain]).await, plain);
    }
    let huge = "x".repeat(4096);
    let too_long = "a".repeat(65);
    for hostile in [
        &[r#"a" user="root"#][..],
        &["two words"],
        &["<script>alert(1)</script>"],
        &["a\tb"],
        &[huge.as_str()],
        &[too_long.as_str()],
        &["first", "second"],
    ] {
        let answered = request_id_answered(&host, hostile).await;
        assert!(
            !hostile.contains(&answered.as_str()),
            "{hostile:?} was replaced, not echoed"
        );
        assert!(
            uuid::Uuid::parse_str(&answered).is_ok(),
            "a fresh id: {answered}"
        );
    }
    host.stop().await;
}

/// One park row that no longer reads back (its question is not JSON) is
/// named in `unreadable`; the person's other question is still shown, and
/// the answer is 200, not a 500 that leaves the inbox with nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_unreadable_park_hides_no_other_question() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("host.db");
    let store = index_negotiation_store_sqlite::SqliteStore::open(&path)
        .await
        .unwrap();
    let mut host = Running::start(Arc::new(store)).await;
    for id in [OPP, SECOND] {
        host.open(id).await;
        support::stall_and_park(&host.store, &OpportunityId::parse(id).unwrap(), "dana").await;
    }
    let damaged = rusqlite::Connection::open(&path).unwrap();
    let changed = damaged
        .execute(
            "UPDATE negotiations SET park_question = '{not json' WHERE id = ?1",
            [SECOND],
        )
        .unwrap();
    assert_eq!(changed, 1);
    drop(damaged);

    let asked = host.call("GET", "/questions", Some(&host.dana), None).await;
    assert_eq!(asked.status, 200, "{}", asked.body);
    let questions = asked.body["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 1, "{}", asked.body);
    assert_eq!(questions[0]["opportunityIds"], json!([OPP]));
    let message = questions[0]["message"].as_str().unwrap();
    assert!(index_question_block::parse_question_message(message).is_some());
    let unreadable = asked.body["unreadable"].as_array().unwrap();
    assert_eq!(unreadable.len(), 1, "{}", asked.body);
    assert_eq!(unreadable[0]["opportunityId"], SECOND);
    assert!(
        !asked.body.to_string().contains("not json"),
        "the cause is logged, not sent: {}",
        asked.body
    );
    let none = host.call("GET", "/questions", Some(&host.sam), None).await;
    assert_eq!(
        (none.status, &none.body),
        (200, &json!({"questions": [], "unreadable": []}))
    );
    host.stop().await;
}

/// `GET /negotiations` with `key` as a bearer token: the status, the
/// body and the challenge.
async fn listed_with(host: &Running, key: &str) -> (u16, Value, Option<String>) {
    let response = host
        .http
        .get(format!("{}/negotiations", host.base))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|value| value.to_str().unwrap().to_owned());
    (status, response.json().await.unwrap(), challenge)
}

/// A login link signs its person in, once, and does nothing else: as a
/// bearer key, over REST or MCP, it is refused exactly as a key that never
/// existed is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_link_signs_in_and_is_no_key_anywhere_else() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let link = index_host::keys::create_login_link(
        host.store.as_ref(),
        "dana".parse().unwrap(),
        std::time::Duration::from_secs(600),
    )
    .await
    .unwrap();
    let unknown = format!("idx_{}", "0".repeat(64));
    assert_eq!(
        listed_with(&host, &link.secret).await,
        listed_with(&host, &unknown).await,
        "a login link answers as an unknown key"
    );
    assert_eq!(listed_with(&host, &link.secret).await.0, 401);
    assert_eq!(host.mcp_initialize(&link.secret).await.status(), 401);
    let signed_in = host
        .http
        .post(format!("{}/session", host.base))
        .json(&json!({"key": link.secret}))
        .send()
        .await
        .unwrap();
    assert_eq!(signed_in.status(), 201, "it still signs in");
    host.stop().await;
}

/// An inbox session is a person's: a host key that tries to sign a
/// browser in is refused, and no session is made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_key_signs_no_browser_in() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let keys = host.store.list_api_keys().await.unwrap().len();
    let response = host
        .http
        .post(format!("{}/session", host.base))
        .header("origin", &host.base)
        .json(&json!({"key": host.host_key}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    assert!(response.headers().get("set-cookie").is_none(), "no cookie");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "forbidden", "{body}");
    assert_eq!(host.store.list_api_keys().await.unwrap().len(), keys);
    host.stop().await;
}

/// A path or query that is not UTF-8 once percent-decoded is refused,
/// never read with U+FFFD in place of its bytes; a key is asked for first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_or_query_that_is_not_utf8_is_refused() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    host.open(OPP).await;
    for path in [
        "/negotiations?with=%FF".to_owned(),
        "/negotiations?with=sam%C3%28".to_owned(),
        "/opportunities/%FF%FE/negotiation".to_owned(),
        format!("/opportunities/{OPP}/negotiation?wait=%C0%801"),
    ] {
        let refused = host.call("GET", &path, Some(&host.dana), None).await;
        assert_eq!(
            (refused.status, support::code(&refused)),
            (400, "invalid_request"),
            "{path}: {}",
            refused.body
        );
        let anonymous = host.call("GET", &path, None, None).await;
        assert_eq!(anonymous.status, 401, "{path}");
    }
    let text = host
        .call("GET", "/negotiations?with=sa%6D", Some(&host.dana), None)
        .await;
    assert_eq!(
        (
            text.status,
            text.body["negotiations"].as_array().map(Vec::len)
        ),
        (200, Some(1)),
        "{}",
        text.body
    );
    host.stop().await;
}
