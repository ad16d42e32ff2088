//! The browser's side of a live host: signing in for a session cookie
//! (with a key, or once with a login link), the cookie refused for a
//! change sent from another site, signing out for every process, the
//! questions as question messages, the event stream, and the security
//! headers on every answer.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use index_negotiation_store::{Actor, AuditStep};
use index_negotiation_store::{MemoryStore, OpportunityId};
use support::{OPP, Running};

const SECOND: &str = "7b2d4f61-0a9c-4e35-8d17-c6f0e2a9b843";

/// One request with the session `cookie`, from a page at `origin` (if
/// any): its status and JSON.
async fn by_cookie(
    host: &Running,
    method: &str,
    path: &str,
    cookie: &str,
    origin: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut request = host
        .http
        .request(method, format!("{}{path}", host.base))
        .header("cookie", format!("index_session={cookie}"));
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Signs in with `key` from the host's own page: the answer's status,
/// body and session cookie (with its attributes).
async fn sign_in(host: &Running, key: &str) -> (u16, Value, Option<String>) {
    let response = host
        .http
        .post(format!("{}/session", host.base))
        .header("origin", &host.base)
        .json(&json!({ "key": key }))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let cookie = response
        .headers()
        .get("set-cookie")
        .map(|value| value.to_str().unwrap().to_owned());
    (status, response.json().await.unwrap_or(Value::Null), cookie)
}

/// The session key a `Set-Cookie` value carries.
fn session_of(set_cookie: &str) -> String {
    let pair = set_cookie.split(';').next().unwrap();
    pair.strip_prefix("index_session=").unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_signs_a_browser_in_to_a_cookie_the_page_never_reads() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let (status, body, cookie) = sign_in(&host, &host.dana).await;
    assert_eq!((status, &body["userId"]), (201, &json!("dana")), "{body}");
    let cookie = cookie.unwrap();
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"] {
        assert!(cookie.contains(attribute), "{attribute} in {cookie}");
    }
    assert!(!cookie.contains("Secure"), "not over TLS: {cookie}");
    let session = session_of(&cookie);
    assert_ne!(session, host.dana, "a session of its own, not the key");
    assert!(!body.to_string().contains(&session), "never in the body");

    let (status, who) = by_cookie(&host, "GET", "/session", &session, None, None).await;
    assert_eq!((status, &who["userId"]), (200, &json!("dana")));
    host.open(OPP).await;
    let (status, page) = by_cookie(&host, "GET", "/negotiations", &session, None, None).await;
    assert_eq!(
        (status, page["negotiations"].as_array().unwrap().len()),
        (200, 1)
    );

    // A session cannot make another; a stranger's page cannot sign in.
    assert_eq!(sign_in(&host, &session).await.0, 401);
    assert_eq!(sign_in(&host, "idx_nope").await.0, 401);
    let foreign = host
        .http
        .post(format!("{}/session", host.base))
        .header("origin", "http://evil.example")
        .json(&json!({ "key": host.dana }))
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);
    let oversize = host
        .http
        .post(format!("{}/session", host.base))
        .header("content-type", "application/json")
        .body(format!(
            r#"{{"key": "{}"}}"#,
            "x".repeat(index_host::BODY_LIMIT)
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(
        oversize.status(),
        413,
        "a sign-in is held to the body limit"
    );
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_by_cookie_must_come_from_a_page_of_this_host() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    host.open(OPP).await;
    let session = session_of(&sign_in(&host, &host.dana).await.2.unwrap());
    let turn = json!({"action": "propose", "message": "Hello"});
    let path = format!("/opportunities/{OPP}/negotiation/turns");
    for origin in [None, Some("http://evil.example"), Some("null")] {
        let (status, body) =
            by_cookie(&host, "POST", &path, &session, origin, Some(turn.clone())).await;
        assert_eq!(
            (status, &body["error"]["code"]),
            (403, &json!("cross_origin")),
            "{origin:?}: {body}"
        );
    }
    let seen = host.view(OPP, &host.dana).await;
    assert_eq!(
        seen.body["negotiation"]["turnCount"], 0,
        "nothing was taken"
    );
    let (status, body) = by_cookie(
        &host,
        "POST",
        &path,
        &session,
        Some(&host.base.clone()),
        Some(turn),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_out_ends_the_session_and_a_login_link_signs_in_once() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let session = session_of(&sign_in(&host, &host.dana).await.2.unwrap());
    let base = host.base.clone();
    let (status, _) = by_cookie(&host, "DELETE", "/session", &session, Some(&base), None).await;
    assert_eq!(status, 204);
    let (status, body) = by_cookie(&host, "GET", "/session", &session, None, None).await;
    assert_eq!(status, 401, "{body}");
    // A bearer key is not a session to end.
    let ended = host
        .call("DELETE", "/session", Some(&host.dana), None)
        .await;
    assert_eq!(ended.status, 400);

    let link = index_host::keys::create_login_link(
        host.store.as_ref(),
        "sam".parse().unwrap(),
        Duration::from_secs(600),
    )
    .await
    .unwrap();
    let (status, body, cookie) = sign_in(&host, &link.secret).await;
    assert_eq!((status, &body["userId"]), (201, &json!("sam")), "{body}");
    assert!(cookie.is_some());
    let (status, again, cookie) = sign_in(&host, &link.secret).await;
    assert_eq!(
        (status, &again["error"]["code"]),
        (401, &json!("login_link_used")),
        "used once, and said so: {again}"
    );
    assert!(cookie.is_none());
    let made = index_host::keys::create_key(
        host.store.as_ref(),
        "sam".parse().unwrap(),
        index_negotiation_store::KeyScope::Agent,
        &{
            let mut options = index_host::keys::KeyOptions::default();
            options.name = Some("index: login link".to_owned());
            options
        },
    )
    .await;
    assert!(made.is_err(), "the host's own names are kept for it");
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persons_questions_are_question_messages_one_per_question() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    for id in [OPP, SECOND] {
        host.open(id).await;
        support::stall_and_park(&host.store, &OpportunityId::parse(id).unwrap(), "dana").await;
    }
    let asked = host.call("GET", "/questions", Some(&host.dana), None).await;
    assert_eq!(asked.status, 200, "{}", asked.body);
    let questions = asked.body["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 1, "one question for both: {}", asked.body);
    let message = questions[0]["message"].as_str().unwrap();
    let parsed = index_question_block::parse_question_message(message).unwrap();
    let question = &parsed.block.questions[0];
    assert_eq!(question.prompt, "How much equity?");
    // Beside the message, the question as asked: its options to offer as
    // choices.
    assert_eq!(
        questions[0]["question"],
        serde_json::to_value(support::question()).unwrap()
    );
    assert_eq!(questions[0]["question"]["multiSelect"], false);
    assert_eq!(
        questions[0]["question"]["options"][1],
        json!({"label": "3%", "description": "Retry with 3%."})
    );
    let mut named = vec![question.opportunity_id.clone()];
    named.extend(question.also_unblocks.clone().unwrap_or_default());
    named.sort();
    assert_eq!(named, [OPP, SECOND]);
    let none = host.call("GET", "/questions", Some(&host.sam), None).await;
    assert_eq!(none.body["questions"], json!([]), "sam is asked nothing");

    let answers = json!({"message": message, "answers": [{"question": 0, "answer": "3%"}]});
    let answered = host
        .call("POST", "/answers", Some(&host.dana), Some(answers))
        .await;
    let outcomes: Vec<&Value> = answered.body["negotiations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| &n["outcome"])
        .collect();
    assert_eq!(outcomes, [&json!("resumed"), &json!("resumed")]);
    let after = host.call("GET", "/questions", Some(&host.dana), None).await;
    assert_eq!(after.body["questions"], json!([]));
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_stream_names_a_negotiation_as_the_other_seat_moves() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    host.open(OPP).await;
    let session = session_of(&sign_in(&host, &host.sam).await.2.unwrap());
    let mut stream = host
        .http
        .get(format!("{}/events", host.base))
        .header("cookie", format!("index_session={session}"))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    assert_eq!(
        stream.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    assert_eq!(
        host.turn(OPP, &host.dana, "propose", "Hi").await.status,
        200
    );
    let mut seen = String::new();
    while !seen.contains(OPP) {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.chunk())
            .await
            .expect("an event within 10 s")
            .unwrap()
            .expect("the stream stays open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains("event: changed"), "{seen}");
    drop(stream);
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inbox_is_served_with_a_strict_policy_and_so_is_every_answer() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    for (path, kind) in [
        ("/inbox", "text/html; charset=utf-8"),
        ("/inbox/inbox.js", "text/javascript; charset=utf-8"),
        ("/inbox/inbox.css", "text/css; charset=utf-8"),
        ("/inbox/icon.svg", "image/svg+xml"),
        ("/inbox/pkg/index.js", "text/javascript; charset=utf-8"),
        (
            "/inbox/pkg/index_question_block_bg.wasm",
            "application/wasm",
        ),
        ("/negotiations", "application/json"),
    ] {
        let response = host
            .http
            .get(format!("{}{path}", host.base))
            .send()
            .await
            .unwrap();
        let headers = response.headers();
        let policy = headers["content-security-policy"].to_str().unwrap();
        for rule in [
            "default-src 'self'",
            "script-src 'self' 'wasm-unsafe-eval'",
            "frame-ancestors 'none'",
        ] {
            assert!(policy.contains(rule), "{path}: {rule} in {policy}");
        }
        assert!(!policy.contains("unsafe-inline"), "{path}: {policy}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(headers["referrer-policy"], "no-referrer", "{path}");
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
        assert_eq!(headers["content-type"], kind, "{path}");
        let expected = if path == "/negotiations" { 401 } else { 200 };
        assert_eq!(response.status(), expected, "{path}");
    }
    let page = host
        .http
        .get(format!("{}/inbox", host.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        !page.contains("<script>")
            && page.contains(r#"<script type="module" src="/inbox/inbox.js">"#),
        "no inline script: {page}"
    );
    host.stop().await;
}

/// A browser that opens the host's own address is sent to the inbox; an
/// API client at `/` gets the error shape it always got.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_at_the_root_is_sent_to_the_inbox() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let root = format!("{}/", host.base);
    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    for method in [reqwest::Method::GET, reqwest::Method::HEAD] {
        let sent = http
            .request(method.clone(), &root)
            .header("accept", browser)
            .send()
            .await
            .unwrap();
        assert_eq!(sent.status(), 303, "{method}");
        assert_eq!(sent.headers()["location"], "/inbox", "{method}");
        assert_eq!(sent.headers()["x-frame-options"], "DENY", "{method}");
        assert!(sent.headers().contains_key("x-request-id"), "{method}");
    }
    // Followed, it is the inbox page.
    let page = host
        .http
        .get(&root)
        .header("accept", browser)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["content-type"], "text/html; charset=utf-8");

    // Anything else at `/` is answered as before.
    let api = |key: Option<&str>, accept: Option<&str>, method: reqwest::Method| {
        let mut request = http.request(method, &root);
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        if let Some(accept) = accept {
            request = request.header("accept", accept);
        }
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (
                status,
                response.json::<Value>().await.unwrap_or(Value::Null),
            )
        }
    };
    for accept in [None, Some("application/json"), Some("*/*")] {
        let (status, body) = api(None, accept, reqwest::Method::GET).await;
        assert_eq!(
            (status, &body["error"]["code"]),
            (401, &json!("unauthorized")),
            "{accept:?}"
        );
        let (status, body) = api(Some(&host.dana), accept, reqwest::Method::GET).await;
        assert_eq!(
            (status, &body["error"]["code"]),
            (404, &json!("unknown_route")),
            "{accept:?}"
        );
    }
    let (status, body) = api(None, Some(browser), reqwest::Method::POST).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (401, &json!("unauthorized"))
    );
    host.stop().await;
}

/// Each way a sign-in fails has its own code, for the page to say what
/// happened: a link used already, a link or key past its time, a key the
/// host does not know (or a session key), a host key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_that_fails_says_why() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let link = |lifetime| {
        index_host::keys::create_login_link(
            host.store.as_ref(),
            "dana".parse().unwrap(),
            Duration::from_secs(lifetime),
        )
    };
    let (used, expiring) = (link(600).await.unwrap(), link(1).await.unwrap());
    assert_eq!(sign_in(&host, &used.secret).await.0, 201);
    let session = session_of(&sign_in(&host, &host.dana).await.2.unwrap());
    // A link revoked before it was used reads as spent too.
    let revoked = link(600).await.unwrap();
    host.store
        .revoke_api_key(
            &revoked.record.id,
            AuditStep::KeyRevoked,
            &Actor::operator(),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let unknown = format!("idx_{}", "0".repeat(64));
    for (key, status, code) in [
        (used.secret.as_str(), 401, "login_link_used"),
        (revoked.secret.as_str(), 401, "login_link_used"),
        (expiring.secret.as_str(), 401, "key_expired"),
        (unknown.as_str(), 401, "unauthorized"),
        ("not a key", 401, "unauthorized"),
        (session.as_str(), 401, "unauthorized"),
        (host.host_key.as_str(), 403, "forbidden"),
    ] {
        let (got, body, cookie) = sign_in(&host, key).await;
        assert_eq!(
            (got, &body["error"]["code"]),
            (status, &json!(code)),
            "{body}"
        );
        assert!(cookie.is_none(), "{code}");
    }
    // Anywhere but a sign-in, a used link is still a key that never was.
    let listed = host
        .call("GET", "/negotiations", Some(&used.secret), None)
        .await;
    assert_eq!(
        (listed.status, support::code(&listed)),
        (401, "unauthorized")
    );
    host.stop().await;
}
