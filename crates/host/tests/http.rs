//! The host over HTTP, end to end: a real listener on a free local port,
//! the SQLite store in a temporary directory, and reqwest as the client.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use index_negotiation_store::{HostStore, KeyScope, NegotiationStore, OpportunityId};
use index_negotiation_store_sqlite::SqliteStore;

use index_negotiation_store::{Actor, AuditStep};
use support::{OPP, Running, code};

async fn sqlite(dir: &tempfile::TempDir) -> Arc<dyn HostStore> {
    Arc::new(SqliteStore::open(dir.path().join("host.db")).await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_turns_reply_carries_the_rounds_not_the_whole_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Running::start(sqlite(&dir).await).await;
    assert_eq!(host.open(OPP).await.status, 201);
    let resume = format!("/opportunities/{OPP}/negotiation/resume");
    let mut last = None;
    // Two rounds to the turn limit, then one turn into a third.
    for index in 0..=(2 * index_negotiation::NEGOTIATION_MAX_TURNS) {
        let in_round = index % index_negotiation::NEGOTIATION_MAX_TURNS;
        if in_round == 0 && index > 0 {
            let resumed = host.call("POST", &resume, Some(&host.dana), None).await;
            assert_eq!(resumed.status, 200, "{}", resumed.body);
        }
        let (key, action) = if in_round.is_multiple_of(2) {
            (&host.dana, "propose")
        } else {
            (&host.sam, "counter")
        };
        let taken = host.turn(OPP, key, action, &format!("turn {index}")).await;
        assert_eq!(taken.status, 200, "{}", taken.body);
        last = Some(taken.body);
    }
    let last = last.unwrap();
    let state = &last["negotiation"]["state"];
    // The log from the second round's first turn: it and the third's.
    assert_eq!(state["earlierTurns"], 12);
    assert_eq!(state["turns"].as_array().unwrap().len(), 13);
    assert_eq!(state["turns"][0]["message"], "turn 12");
    assert_eq!(last["negotiation"]["negotiation"]["turnCount"], 25);
    assert_eq!(last["negotiation"]["observation"]["remainingTurns"], 11);
    let whole = host.view(OPP, &host.sam).await;
    assert_eq!(whole.body["state"]["turns"].as_array().unwrap().len(), 25);
    assert_eq!(whole.body["state"].get("earlierTurns"), None);
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_keys_negotiate_to_agreement() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Running::start(sqlite(&dir).await).await;
    let opened = host.open(OPP).await;
    assert_eq!(opened.status, 201, "{}", opened.body);
    assert_eq!(opened.body["negotiation"]["awaitingUserId"], "dana");

    let proposed = host
        .turn(OPP, &host.dana, "propose", "  Intro call next week?  ")
        .await;
    assert_eq!(proposed.status, 200, "{}", proposed.body);
    assert_eq!(proposed.body["decision"]["ok"], true);
    assert_eq!(proposed.body["decision"]["turnIndex"], 0);
    assert_eq!(
        proposed.body["negotiation"]["state"]["turns"][0]["message"], "Intro call next week?",
        "stored trimmed"
    );

    let seen = host.view(OPP, &host.sam).await;
    assert_eq!(seen.status, 200);
    assert_eq!(
        seen.body["observation"]["availableActions"],
        json!(["counter", "accept", "decline"])
    );
    assert_eq!(seen.body["observation"]["remainingTurns"], 11);
    assert_eq!(seen.body["observation"]["messageLimit"], 4000);

    let declined = host.turn(OPP, &host.sam, "decline", "Not this week.").await;
    assert_eq!(declined.body["decision"]["roundEnded"], "declined");
    let resumed = host
        .call(
            "POST",
            &format!("/opportunities/{OPP}/negotiation/resume"),
            Some(&host.sam),
            None,
        )
        .await;
    assert_eq!(resumed.status, 200, "{}", resumed.body);
    assert_eq!(resumed.body["decision"]["awaitingUserId"], "sam");
    assert_eq!(
        host.turn(OPP, &host.sam, "propose", "The week after?")
            .await
            .status,
        200
    );
    let accepted = host.turn(OPP, &host.dana, "accept", "Deal.").await;
    assert_eq!(accepted.status, 200, "{}", accepted.body);
    assert_eq!(accepted.body["decision"]["outcome"], "agreed");
    assert_eq!(
        accepted.body["negotiation"]["negotiation"]["status"],
        "pending"
    );

    let started = std::time::Instant::now();
    let settled = host
        .call(
            "GET",
            &format!("/opportunities/{OPP}/negotiation?wait=30"),
            Some(&host.sam),
            None,
        )
        .await;
    assert_eq!(settled.body["negotiation"]["settled"], true);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "no turn can come: the wait answers at once"
    );

    let listed = host
        .call("GET", "/negotiations?state=settled", Some(&host.dana), None)
        .await;
    assert_eq!(listed.body["negotiations"].as_array().unwrap().len(), 1);
    assert_eq!(listed.body["nextCursor"], Value::Null);
    let open_only = host
        .call("GET", "/negotiations?state=open", Some(&host.dana), None)
        .await;
    assert_eq!(
        open_only.body,
        json!({"negotiations": [], "nextCursor": null})
    );
    let with_sam = host
        .call(
            "GET",
            "/negotiations?with=sam&limit=1",
            Some(&host.dana),
            None,
        )
        .await;
    assert_eq!(with_sam.body["negotiations"][0]["id"], OPP);
    let with_eve = host
        .call("GET", "/negotiations?with=eve", Some(&host.dana), None)
        .await;
    assert_eq!(with_eve.body["negotiations"], json!([]));
    for bad in [
        "limit=0",
        "limit=201",
        "limit=ten",
        "cursor=soon",
        "state=ongoing",
        "page=2",
    ] {
        let refused = host
            .call(
                "GET",
                &format!("/negotiations?{bad}"),
                Some(&host.dana),
                None,
            )
            .await;
        assert_eq!(refused.status, 400, "{bad}: {}", refused.body);
        assert_eq!(refused.body["error"]["code"], "invalid_request", "{bad}");
    }
    let messages = host
        .call(
            "GET",
            &format!("/opportunities/{OPP}/negotiation/messages"),
            Some(&host.dana),
            None,
        )
        .await;
    assert_eq!((messages.status, messages.body.clone()), (200, json!([])));
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_rejection_has_its_status_and_one_error_shape() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Running::start(sqlite(&dir).await).await;
    host.open(OPP).await;
    let mut seen = Vec::new();
    let mut expect = |reply: support::Reply, status: u16, wanted: &str| {
        assert_eq!(
            (reply.status, code(&reply)),
            (status, wanted),
            "{}",
            reply.body
        );
        let error = reply.body["error"].as_object().unwrap();
        assert_eq!(error.len(), 2, "{}", reply.body);
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()));
        assert!(
            reply.request_id.is_some(),
            "every response has a request id"
        );
        seen.push(wanted.to_owned());
    };
    expect(
        host.turn(OPP, &host.sam, "propose", "Me first?").await,
        403,
        "not_your_turn",
    );
    expect(
        host.turn(OPP, &host.dana, "counter", "Counter what?").await,
        400,
        "counter_is_first",
    );
    expect(
        host.turn(OPP, &host.dana, "accept", "Accept what?").await,
        400,
        "accept_without_offer",
    );
    expect(
        host.turn(OPP, &host.dana, "propose", "   ").await,
        400,
        "invalid_turn",
    );
    expect(
        host.turn(OPP, &host.dana, "haggle", "Hm.").await,
        400,
        "invalid_turn",
    );
    expect(
        host.turn(OPP, &host.dana, "propose", &"x".repeat(4001))
            .await,
        400,
        "invalid_turn",
    );
    expect(
        host.call(
            "POST",
            &format!("/opportunities/{OPP}/negotiation/resume"),
            Some(&host.dana),
            None,
        )
        .await,
        409,
        "not_paused",
    );
    host.turn(OPP, &host.dana, "propose", "Intro call?").await;
    expect(
        host.turn(OPP, &host.sam, "propose", "My own offer.").await,
        400,
        "propose_over_offer",
    );
    host.store
        .set_seat_eligibility(
            &OpportunityId::parse(OPP).unwrap(),
            &"sam".parse().unwrap(),
            false,
        )
        .await
        .unwrap();
    expect(
        host.turn(OPP, &host.sam, "accept", "Yes.").await,
        409,
        "intent_inactive",
    );
    host.store
        .set_seat_eligibility(
            &OpportunityId::parse(OPP).unwrap(),
            &"sam".parse().unwrap(),
            true,
        )
        .await
        .unwrap();
    host.turn(OPP, &host.sam, "accept", "Yes.").await;
    expect(
        host.turn(OPP, &host.dana, "propose", "More?").await,
        409,
        "already_settled",
    );
    expect(
        host.call(
            "GET",
            "/opportunities/7b2d4f61-0a9c-4e35-8d17-c6f0e2a9b843/negotiation",
            Some(&host.dana),
            None,
        )
        .await,
        404,
        "not_found",
    );
    expect(
        host.call(
            "GET",
            "/opportunities/not-a-uuid/negotiation",
            Some(&host.dana),
            None,
        )
        .await,
        404,
        "not_found",
    );
    expect(host.open(OPP).await, 409, "already_exists");
    let agent_opens = host
        .call("POST", "/negotiations", Some(&host.dana), Some(json!({
            "opportunityId": "7b2d4f61-0a9c-4e35-8d17-c6f0e2a9b843",
            "initiator": {"userId": "dana", "intentId": "i"}, "responder": {"userId": "sam", "intentId": "j"},
        })))
        .await;
    expect(agent_opens, 403, "forbidden");
    let closing = host
        .call(
            "POST",
            &format!("/opportunities/{OPP}/negotiation/close"),
            Some(&host.sam),
            Some(json!({"reason": "passed"})),
        )
        .await;
    expect(closing, 403, "forbidden");
    let closed = host
        .call(
            "POST",
            &format!("/opportunities/{OPP}/negotiation/close"),
            Some(&host.host_key),
            Some(json!({"reason": "passed"})),
        )
        .await;
    assert_eq!(
        (closed.status, closed.body["negotiation"]["status"].clone()),
        (200, json!("rejected"))
    );
    assert_eq!(seen.len(), 15);
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stranger_sees_nothing_and_a_bad_key_gets_401() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Running::start(sqlite(&dir).await).await;
    host.open(OPP).await;
    host.turn(OPP, &host.dana, "propose", "Intro call?").await;
    let missing = "7b2d4f61-0a9c-4e35-8d17-c6f0e2a9b843";
    for path in [
        format!("/opportunities/{OPP}/negotiation"),
        format!("/opportunities/{OPP}/negotiation/messages"),
        format!("/opportunities/{missing}/negotiation"),
    ] {
        let reply = host.call("GET", &path, Some(&host.stranger), None).await;
        assert_eq!((reply.status, code(&reply)), (404, "not_found"), "{path}");
    }
    // The stranger's answer about a real negotiation is the missing one's, byte for byte.
    let real = host.turn(OPP, &host.stranger, "accept", "Mine now.").await;
    let fake = host
        .turn(missing, &host.stranger, "accept", "Mine now.")
        .await;
    assert_eq!(
        (real.status, real.body.clone()),
        (fake.status, fake.body.clone())
    );
    let resume = host
        .call(
            "POST",
            &format!("/opportunities/{OPP}/negotiation/resume"),
            Some(&host.stranger),
            None,
        )
        .await;
    assert_eq!(resume.status, 404);
    let listed = host
        .call("GET", "/negotiations", Some(&host.stranger), None)
        .await;
    assert_eq!(listed.body, json!({"negotiations": [], "nextCursor": null}));
    let unchanged = host.view(OPP, &host.sam).await;
    assert_eq!(
        unchanged.body["state"]["turns"].as_array().unwrap().len(),
        1
    );

    let revoked = host
        .host
        .create_key(
            "dana".parse().unwrap(),
            index_negotiation_store::KeyScope::Agent,
        )
        .await
        .unwrap();
    assert_eq!(
        host.call("GET", "/negotiations", Some(&revoked.secret), None)
            .await
            .status,
        200
    );
    host.store
        .revoke_api_key(
            &revoked.record.id,
            AuditStep::KeyRevoked,
            &Actor::operator(),
        )
        .await
        .unwrap();
    for key in [
        None,
        Some("idx_nope"),
        Some(revoked.secret.as_str()),
        Some(&host.dana[..60]),
    ] {
        for (method, path) in [
            ("GET", "/negotiations".to_owned()),
            ("POST", format!("/opportunities/{OPP}/negotiation/turns")),
            ("POST", "/mcp".to_owned()),
        ] {
            let reply = host
                .call(
                    method,
                    &path,
                    key,
                    Some(json!({"action": "accept", "message": "x"})),
                )
                .await;
            assert_eq!(
                (reply.status, code(&reply)),
                (401, "unauthorized"),
                "{method} {path} with {key:?}"
            );
        }
    }
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn oversize_and_malformed_bodies_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Running::start(sqlite(&dir).await).await;
    host.open(OPP).await;
    let url = format!("{}/opportunities/{OPP}/negotiation/turns", host.base);
    let send = |body: String| {
        host.http
            .post(&url)
            .bearer_auth(&host.dana)
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    // Over a raw connection, so that the refusal is read before the body
    // is written: a client still writing when the host refuses and closes
    // would see a reset instead of the answer.
    let huge = oversize_status(&host, &url, index_host::BODY_LIMIT + 10).await;
    assert_eq!(huge, 413);
    let malformed = send("{\"action\": ".to_owned()).await.unwrap();
    assert_eq!(malformed.status().as_u16(), 400);
    let body: serde_json::Value = malformed.json().await.unwrap();
    assert_eq!(body["error"]["code"], "malformed_json");
    let not_an_object = send("[1, 2]".to_owned()).await.unwrap();
    let body: serde_json::Value = not_an_object.json().await.unwrap();
    assert_eq!(body["error"]["code"], "invalid_turn");
    // A key the turn does not define is refused, named, not ignored.
    let extra = send(r#"{"action": "propose", "message": "Hi", "urgent": true}"#.to_owned())
        .await
        .unwrap();
    assert_eq!(extra.status().as_u16(), 400);
    let body: serde_json::Value = extra.json().await.unwrap();
    assert_eq!(body["error"]["code"], "invalid_request");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("urgent"),
        "{body}"
    );
    // A wait longer than the host allows is refused, not cut short.
    let long_wait = host
        .http
        .get(format!(
            "{}/opportunities/{OPP}/negotiation?wait=9999",
            host.base
        ))
        .bearer_auth(&host.dana)
        .send()
        .await
        .unwrap();
    assert_eq!(long_wait.status().as_u16(), 400);
    let body: serde_json::Value = long_wait.json().await.unwrap();
    assert!(
        body["error"]["message"].as_str().unwrap().contains("9999"),
        "{body}"
    );
    let state = host
        .store
        .read_negotiation_state(&OpportunityId::parse(OPP).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(state.turns.is_empty(), "nothing was applied");
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_status_has_the_error_shape_and_only_health_is_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Running::start(sqlite(&dir).await).await;
    host.open(OPP).await;
    let shaped = |reply: &support::Reply, status: u16, code: &str| {
        assert_eq!(reply.status, status, "{}", reply.body);
        assert_eq!(reply.body["error"]["code"], code, "{}", reply.body);
        assert!(reply.body["error"]["message"].is_string(), "{}", reply.body);
    };
    // An unknown route, to a caller; to a stranger to the host, 401 first.
    shaped(
        &host.call("GET", "/nope", Some(&host.dana), None).await,
        404,
        "unknown_route",
    );
    shaped(
        &host.call("GET", "/nope", None, None).await,
        401,
        "unauthorized",
    );
    // A method the route does not take.
    let path = format!("/opportunities/{OPP}/negotiation");
    let delete = host
        .http
        .delete(format!("{}{path}", host.base))
        .bearer_auth(&host.dana)
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status().as_u16(), 405);
    assert_eq!(delete.headers()["allow"], "GET,HEAD");
    let body: serde_json::Value = delete.json().await.unwrap();
    assert_eq!(body["error"]["code"], "method_not_allowed");
    // A body over the limit, announced or chunked, to a caller; to no one,
    // the limit is not even told.
    let url = format!("{}/opportunities/{OPP}/negotiation/turns", host.base);
    let announced = raw_post(&host, &url, Some(&host.dana), index_host::BODY_LIMIT + 10).await;
    assert!(announced.starts_with("HTTP/1.1 413"), "{announced}");
    assert!(announced.contains("\"payload_too_large\""), "{announced}");
    let anonymous = raw_post(&host, &url, None, index_host::BODY_LIMIT + 10).await;
    assert!(anonymous.starts_with("HTTP/1.1 401"), "{anonymous}");
    let chunked = raw_post(&host, &url, Some(&host.dana), 0).await;
    assert!(chunked.starts_with("HTTP/1.1 413"), "{chunked}");
    assert!(chunked.contains("\"payload_too_large\""), "{chunked}");
    // A key that was sent and is wrong says so, and OAuth discovery
    // answers, without a key, that there is none.
    let wrong = host
        .http
        .get(format!("{}/negotiations", host.base))
        .bearer_auth("idx_nope")
        .send()
        .await
        .unwrap();
    assert_eq!(
        wrong.headers()["www-authenticate"],
        "Bearer error=\"invalid_token\""
    );
    let body: serde_json::Value = wrong.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("invalid API key")
    );
    let none = host
        .http
        .get(format!("{}/negotiations", host.base))
        .send()
        .await
        .unwrap();
    assert_eq!(none.headers()["www-authenticate"], "Bearer");
    // An expired key is told apart, since only its holder can send it.
    let expired_secret = format!("idx_{}", "e".repeat(64));
    let mut expired = index_negotiation_store::ApiKeyRecord::new(
        "expired",
        index_host::keys::hash_key(&expired_secret),
        "dana".parse().unwrap(),
        KeyScope::Agent,
        index_negotiation_store::UnixTime(1_700_000_000),
    );
    expired.expires_at = Some(index_negotiation_store::UnixTime(1_700_000_060));
    assert!(
        host.store
            .insert_api_key(&expired, AuditStep::KeyCreated, &Actor::operator())
            .await
            .unwrap()
    );
    let refused = host
        .http
        .get(format!("{}/negotiations", host.base))
        .bearer_auth(&expired_secret)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 401);
    assert_eq!(
        refused.headers()["www-authenticate"],
        "Bearer error=\"invalid_token\", error_description=\"The API key has expired\""
    );
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "key_expired", "{body}");
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
    ] {
        shaped(
            &host.call("GET", path, None, None).await,
            404,
            "unknown_route",
        );
    }
    // Health needs no key and shows no data.
    let health = host.call("GET", "/healthz", None, None).await;
    assert_eq!(
        (health.status, health.body.clone()),
        (200, json!({"status": "ok"}))
    );
    let ready = host.call("GET", "/readyz", None, None).await;
    assert_eq!(
        (ready.status, ready.body.clone()),
        (200, json!({"status": "ready"}))
    );
    host.stop().await;
}

/// Readiness follows the store: a store that cannot answer makes `/readyz`
/// 503 with the error shape (and no cause), while `/healthz`, which asks
/// nothing of the store, stays 200.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_is_lost_when_the_store_cannot_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Running::start(sqlite(&dir).await).await;
    assert_eq!(host.call("GET", "/readyz", None, None).await.status, 200);
    // Another process breaks the file under the host.
    let other = rusqlite::Connection::open(dir.path().join("host.db")).unwrap();
    other
        .execute_batch("ALTER TABLE negotiations RENAME TO gone")
        .unwrap();
    let ready = host.call("GET", "/readyz", None, None).await;
    assert_eq!(ready.status, 503, "{}", ready.body);
    assert_eq!(
        ready.body,
        json!({"error": {"code": "store_failed", "message": "the store failed"}})
    );
    assert_eq!(host.call("GET", "/healthz", None, None).await.status, 200);
    other
        .execute_batch("ALTER TABLE gone RENAME TO negotiations")
        .unwrap();
    assert_eq!(host.call("GET", "/readyz", None, None).await.status, 200);
    host.stop().await;
}

/// A client that ends its MCP session hears 204, which every SDK reads as
/// done, and the session is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_session_ends_with_204() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Running::start(sqlite(&dir).await).await;
    let url = format!("{}/mcp", host.base);
    let started = host.mcp_initialize(&host.dana).await;
    assert_eq!(started.status().as_u16(), 200);
    let session = started.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let end = || {
        host.http
            .delete(&url)
            .bearer_auth(&host.dana)
            .header("mcp-session-id", &session)
            .send()
    };
    assert_eq!(end().await.unwrap().status().as_u16(), 204);
    let after = host
        .http
        .post(&url)
        .bearer_auth(&host.dana)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .json(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .send()
        .await
        .unwrap();
    assert_eq!(after.status().as_u16(), 404, "the ended session is gone");
    host.stop().await;
}

/// The whole answer to a POST to `url`, with `key` if any: announcing a
/// body of `length` bytes and sending none of it, or (`length` 0) sending
/// a chunked body past the limit.
async fn raw_post(host: &Running, url: &str, key: Option<&str>, length: usize) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = host.base.trim_start_matches("http://");
    let path = url.trim_start_matches(&host.base);
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let authorization = key
        .map(|key| format!("Authorization: Bearer {key}\r\n"))
        .unwrap_or_default();
    let framing = match length {
        0 => "Transfer-Encoding: chunked".to_owned(),
        _ => format!("Content-Length: {length}"),
    };
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\n{authorization}\
         Content-Type: application/json\r\n{framing}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    if length == 0 {
        let chunk = format!("2000\r\n{}\r\n", " ".repeat(0x2000));
        for _ in 0..index_host::BODY_LIMIT / 0x2000 + 2 {
            // The host may answer and close before the body is all sent.
            if stream.write_all(chunk.as_bytes()).await.is_err() {
                break;
            }
        }
    }
    let mut response = Vec::new();
    let mut buffer = [0; 4096];
    // Until the host closes, or its whole answer (head and a JSON body) is in.
    loop {
        let read = stream.read(&mut buffer).await.unwrap_or(0);
        response.extend_from_slice(&buffer[..read]);
        if read == 0 || response.ends_with(b"}}") {
            break;
        }
    }
    String::from_utf8_lossy(&response).into_owned()
}

/// The status line's code for a POST to `url` announcing a body of
/// `length` bytes, read before any of the body is sent.
async fn oversize_status(host: &Running, url: &str, length: usize) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = host.base.trim_start_matches("http://");
    let path = url.trim_start_matches(&host.base);
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n",
        host.dana
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut response = vec![0; 64];
    let read = stream.read(&mut response).await.unwrap();
    let status = String::from_utf8_lossy(&response[..read]).into_owned();
    status
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {status:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_turns_over_http_have_one_winner_per_index() {
    let dir = tempfile::tempdir().unwrap();
    let host = Running::start(sqlite(&dir).await).await;
    host.open(OPP).await;
    let host = Arc::new(host);
    let mut winners = Vec::new();
    for round in 0..5 {
        let racers: Vec<_> = (0..16)
            .map(|n| {
                let host = Arc::clone(&host);
                // Even racers are dana proposing, odd ones sam countering: only
                // the seat whose turn it is can win, and only once.
                tokio::spawn(async move {
                    let (key, action) = if round % 2 == 0 {
                        (host.dana.clone(), "propose")
                    } else {
                        (host.sam.clone(), "counter")
                    };
                    host.turn(OPP, &key, action, &format!("racer {round}-{n}"))
                        .await
                })
            })
            .collect();
        let mut won = Vec::new();
        for racer in racers {
            let reply = racer.await.unwrap();
            match reply.status {
                200 => won.push(reply.body["decision"]["turnIndex"].as_u64().unwrap()),
                403 | 409 => assert!(
                    ["not_your_turn", "raced"].contains(&code(&reply)),
                    "{}",
                    reply.body
                ),
                other => panic!("{other}: {}", reply.body),
            }
        }
        assert_eq!(won, [round], "exactly one winner for index {round}");
        winners.extend(won);
    }
    let state = host
        .store
        .read_negotiation_state(&OpportunityId::parse(OPP).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(state.turns.len(), 5, "no turn lost or doubled");
    let mut host = Arc::into_inner(host).unwrap();
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_wait_returns_when_the_other_seat_moves_even_from_another_process() {
    let dir = tempfile::tempdir().unwrap();
    // A second host on the same file stands in for another process: it has
    // its own store handle and its own host, and shares only the file.
    let second: Arc<dyn HostStore> =
        Arc::new(SqliteStore::open(dir.path().join("host.db")).await.unwrap());
    wait_across_hosts(sqlite(&dir).await, second).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn on_postgres_a_wait_wakes_on_another_hosts_turn() {
    let url = std::env::var("INDEX_TEST_DATABASE_URL")
        .expect("INDEX_TEST_DATABASE_URL (bash .ci/postgres)");
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let schema = format!("host_wait_{}_{nanos}", std::process::id());
    let options =
        || index_negotiation_store_postgres::PostgresOptions::default().with_schema(schema.clone());
    let connect = || async {
        index_negotiation_store_postgres::PostgresStore::connect_with(&url, options())
            .await
            .unwrap()
    };
    let first: Arc<dyn HostStore> = Arc::new(connect().await);
    let second: Arc<dyn HostStore> = Arc::new(connect().await);
    wait_across_hosts(first, second).await;
}

/// A wait on one host wakes when a turn commits through another host on
/// the same database (another process, as far as the first can tell).
async fn wait_across_hosts(first_store: Arc<dyn HostStore>, second_store: Arc<dyn HostStore>) {
    let mut first = Running::start(first_store).await;
    assert_eq!(first.open(OPP).await.status, 201);
    let second = index_host::Host::new(second_store).await.unwrap();
    let dana = second.authenticate(Some(&first.dana), None).await.unwrap();

    let started = std::time::Instant::now();
    let path = format!("/opportunities/{OPP}/negotiation?wait=20");
    let sam_waits = first.call("GET", &path, Some(&first.sam), None);
    let dana_moves = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        second
            .turn(
                &dana,
                &OpportunityId::parse(OPP).unwrap(),
                index_negotiation::NegotiationTurn::new(
                    index_negotiation::NegotiationAction::Propose,
                    "Hello from elsewhere.",
                ),
            )
            .await
            .unwrap();
    };
    let (reply, ()) = tokio::join!(sam_waits, dana_moves);
    let waited = started.elapsed();
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["negotiation"]["awaitingUserId"], "sam");
    assert!(
        waited >= Duration::from_millis(300) && waited < Duration::from_secs(10),
        "{waited:?}"
    );

    // It is sam's turn now: a wait answers at once.
    let started = std::time::Instant::now();
    first.call("GET", &path, Some(&first.sam), None).await;
    assert!(started.elapsed() < Duration::from_secs(2));
    // Dana waits with nothing happening: the wait ends on its deadline.
    let started = std::time::Instant::now();
    let idle = first
        .call(
            "GET",
            &format!("/opportunities/{OPP}/negotiation?wait=0.5"),
            Some(&first.dana),
            None,
        )
        .await;
    assert_eq!(idle.status, 200);
    assert!(started.elapsed() >= Duration::from_millis(450));
    let bad = first
        .call(
            "GET",
            &format!("/opportunities/{OPP}/negotiation?wait=-1"),
            Some(&first.dana),
            None,
        )
        .await;
    assert_eq!(bad.status, 400);
    first.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn shutting_down_under_load_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Running::start(sqlite(&dir).await).await;
    let ids: Vec<String> = (0..8)
        .map(|n| format!("0c6e9a52-3b1d-4f7e-a2c8-{n:012x}"))
        .collect();
    for id in &ids {
        assert_eq!(host.open(id).await.status, 201);
    }
    let (dana, sam, base, http) = (
        host.dana.clone(),
        host.sam.clone(),
        host.base.clone(),
        host.http.clone(),
    );
    let workers: Vec<_> = ids
        .iter()
        .cloned()
        .map(|id| {
            let (dana, sam, base, http) = (dana.clone(), sam.clone(), base.clone(), http.clone());
            tokio::spawn(async move {
                let mut acknowledged = 0usize;
                let mut n = 0;
                while n < 500 {
                    let (key, action) = if n % 2 == 0 {
                        (&dana, "propose")
                    } else {
                        (&sam, "counter")
                    };
                    let sent = http
                        .post(format!("{base}/opportunities/{id}/negotiation/turns"))
                        .bearer_auth(key)
                        .json(&json!({"action": action, "message": format!("turn {n}")}))
                        .send()
                        .await;
                    match sent {
                        Ok(reply) if reply.status().as_u16() == 200 => {
                            acknowledged += 1;
                            n += 1;
                        }
                        // The round ended at the turn limit: this seat resumes
                        // (and so moves first) and tries the same turn again.
                        Ok(reply) if reply.status().as_u16() == 403 => {
                            let resumed = http
                                .post(format!("{base}/opportunities/{id}/negotiation/resume"))
                                .bearer_auth(key)
                                .send()
                                .await;
                            if !resumed.is_ok_and(|r| r.status().is_success()) {
                                return (id, acknowledged, false);
                            }
                        }
                        Ok(_) | Err(_) => return (id, acknowledged, false),
                    }
                }
                (id, acknowledged, true)
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(150)).await;
    host.stop().await;
    let mut total = 0;
    let mut stopped_early = BTreeSet::new();
    for worker in workers {
        let (id, acknowledged, finished) = worker.await.unwrap();
        let state = host
            .store
            .read_negotiation_state(&OpportunityId::parse(&id).unwrap())
            .await
            .unwrap()
            .unwrap();
        // Requests in flight finished and were answered: every acknowledged
        // turn is there, and nothing else (nothing half-applied).
        assert_eq!(state.turns.len(), acknowledged, "{id}");
        for (n, turn) in state.turns.iter().enumerate() {
            assert_eq!(
                turn.message,
                format!("turn {n}"),
                "{id}: in order, none doubled"
            );
        }
        total += acknowledged;
        if !finished {
            stopped_early.insert(id);
        }
    }
    assert!(total > 0, "the load ran before the shutdown");
    assert!(
        !stopped_early.is_empty(),
        "the shutdown came in the middle of the load"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_parked_negotiation_shows_its_question_to_its_person_only_and_an_answer_resumes_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Running::start(sqlite(&dir).await).await;
    host.open(OPP).await;
    support::stall_and_park(&host.store, &OpportunityId::parse(OPP).unwrap(), "dana").await;

    let view = |key: String| {
        let host = &host;
        async move {
            host.call(
                "GET",
                &format!("/opportunities/{OPP}/negotiation"),
                Some(&key),
                None,
            )
            .await
        }
    };
    let owner = view(host.dana.clone()).await;
    assert_eq!(owner.body["parked"]["userId"], "dana");
    assert_eq!(
        owner.body["parked"]["question"]["prompt"],
        "How much equity?"
    );
    assert_eq!(owner.body["negotiation"]["waitingOn"], "dana");
    let other = view(host.sam.clone()).await;
    assert_eq!(
        other.body["parked"],
        json!(null),
        "sam never sees dana's question"
    );
    assert_eq!(other.body["state"].get("park"), None);
    assert_eq!(
        other.body["negotiation"]["waitingOn"], "dana",
        "but knows whose answer it waits on"
    );
    assert!(
        !other.body.to_string().contains("How much equity"),
        "{}",
        other.body
    );
    let records = host
        .call(
            "GET",
            &format!("/opportunities/{OPP}/negotiation/messages"),
            Some(&host.sam),
            None,
        )
        .await;
    assert!(
        !records.body.to_string().contains("How much equity"),
        "{}",
        records.body
    );
    let resumed = host
        .call(
            "POST",
            &format!("/opportunities/{OPP}/negotiation/resume"),
            Some(&host.sam),
            None,
        )
        .await;
    assert_eq!(
        (resumed.status, code(&resumed)),
        (409, "awaiting_answer"),
        "{}",
        resumed.body
    );

    let block =
        json!({"version": 1, "questions": [{"prompt": "How much equity?", "opportunityId": OPP}]});
    let answers = json!({"block": block, "answers": [{"question": 0, "answer": "3%"}]});
    let stranger = host
        .call(
            "POST",
            "/answers",
            Some(&host.stranger),
            Some(answers.clone()),
        )
        .await;
    assert_eq!(stranger.body["negotiations"][0]["outcome"], "unknown");
    for blank in ["", "  \n\u{3000}"] {
        let refused = host
            .call(
                "POST",
                "/answers",
                Some(&host.dana),
                Some(json!({"block": block, "answers": [{"question": 0, "answer": blank}]})),
            )
            .await;
        assert_eq!(
            (refused.status, code(&refused)),
            (400, "blank_answer"),
            "{}",
            refused.body
        );
    }
    let answered = host
        .call("POST", "/answers", Some(&host.dana), Some(answers.clone()))
        .await;
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(answered.body["negotiations"][0]["outcome"], "resumed");
    let after = host.view(OPP, &host.sam).await;
    assert_eq!(
        (
            after.body["parked"].clone(),
            after.body["negotiation"]["awaitingUserId"].clone()
        ),
        (json!(null), json!("dana"))
    );
    let again = host
        .call("POST", "/answers", Some(&host.dana), Some(answers))
        .await;
    assert_eq!(again.body["negotiations"][0]["outcome"], "not_waiting");
    assert_eq!(
        again.body["negotiations"][0]["rejection"],
        "already_answered"
    );
    let neither = host
        .call(
            "POST",
            "/answers",
            Some(&host.dana),
            Some(json!({"answers": []})),
        )
        .await;
    assert_eq!((neither.status, code(&neither)), (400, "invalid_request"));
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_seat_parks_with_the_hosts_model_and_a_host_without_one_refuses() {
    use index_stall_gap::{ModelStallGapAuthor, Scripted, ScriptedModel, StallGapAuthor};
    let gap = json!({"hasGap": true, "reason": "repeated_non_convergence", "question": {
        "title": "Equity", "prompt": "How much equity could you offer?", "multiSelect": false,
        "options": [{"label": "1%", "description": "Retry with 1%."}, {"label": "3%", "description": "Retry with 3%."}]}});
    let dir = tempfile::tempdir().unwrap();
    let store = sqlite(&dir).await;
    let author: Arc<dyn StallGapAuthor> = Arc::new(ModelStallGapAuthor::new(ScriptedModel::new([
        Scripted::Value(gap),
    ])));
    let without = Running::start(store.clone()).await;
    // The same store under a host that has a model.
    let mut with_model = Running::start_with_author(store.clone(), Some(author)).await;
    without.open(OPP).await;
    for n in 0..12 {
        let (key, action) = if n % 2 == 0 {
            (&without.dana, "propose")
        } else {
            (&without.sam, "counter")
        };
        assert_eq!(
            without
                .turn(OPP, key, action, &format!("Offer {n}"))
                .await
                .status,
            200
        );
    }
    let path = format!("/opportunities/{OPP}/negotiation/park");
    let refused = without
        .call("POST", &path, Some(&without.dana), Some(json!({})))
        .await;
    assert_eq!((refused.status, code(&refused)), (400, "no_model"));
    let stranger = without
        .call("POST", &path, Some(&without.stranger), Some(json!({})))
        .await;
    assert_eq!(stranger.status, 404);

    let parked = with_model
        .call(
            "POST",
            &path,
            Some(&without.dana),
            Some(json!({"counterpartyName": "Sam", "name": "Dana"})),
        )
        .await;
    assert_eq!(
        (parked.status, parked.body["outcome"].clone()),
        (200, json!("parked")),
        "{}",
        parked.body
    );
    let message = parked.body["message"].as_str().unwrap();
    assert!(index_question_block::parse_question_message(message).is_some());
    assert!(
        !message.contains("Sam"),
        "the message never names the other seat: {message}"
    );
    // Parked already: refused by the rules, before any model call (the
    // scripted model has no second answer, so a call would fail).
    let again = with_model
        .call("POST", &path, Some(&without.sam), Some(json!({})))
        .await;
    assert_eq!(
        (again.status, code(&again)),
        (409, "already_parked"),
        "a park the rules refuse is refused as a turn is: {}",
        again.body
    );
    let unknown_field = with_model
        .call(
            "POST",
            &path,
            Some(&without.dana),
            Some(json!({"nonsense": 1})),
        )
        .await;
    assert_eq!(
        (unknown_field.status, code(&unknown_field)),
        (400, "malformed_json")
    );
    let seen = without
        .call(
            "GET",
            &format!("/opportunities/{OPP}/negotiation"),
            Some(&without.dana),
            None,
        )
        .await;
    assert_eq!(
        seen.body["parked"]["question"]["prompt"],
        "How much equity could you offer?"
    );
    let other = without
        .call(
            "GET",
            &format!("/opportunities/{OPP}/negotiation"),
            Some(&without.sam),
            None,
        )
        .await;
    assert_eq!(other.body["parked"], json!(null));
    let mut without = without;
    without.stop().await;
    with_model.stop().await;
}

/// A host served with `settings` on a free port: its address, the way to
/// stop it, and the serving task.
async fn serve_with(
    dir: &tempfile::TempDir,
    settings: index_host::ServeSettings,
) -> (
    String,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<Result<(), index_host::HostError>>,
) {
    let host = index_host::Host::new(sqlite(dir).await).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(index_host::serve_with(
        host,
        listener,
        settings,
        async move {
            let _ = stopped.await;
        },
    ));
    (address, stop, served)
}

/// A connection to `address` that has sent `bytes` and nothing more.
async fn sent(address: &str, bytes: &[u8]) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    stream
}

/// A connection to `address` that has sent half a request head.
async fn half_open(address: &str) -> tokio::net::TcpStream {
    sent(address, b"GET /healthz HTTP/1.1\r\nHost: x\r\n").await
}

/// All the host sends on `stream` until it closes it, which it must within
/// 20 seconds: `held` says what it would otherwise be holding.
async fn until_closed(stream: &mut tokio::net::TcpStream, held: &str) -> String {
    use tokio::io::AsyncReadExt;
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "{held} was held past its timeout");
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_half_sent_request_head_is_dropped_and_never_holds_up_a_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = index_host::ServeSettings::default();
    settings.header_read_timeout = Duration::from_millis(200);
    let (address, stop, served) = serve_with(&dir, settings).await;
    let mut stream = half_open(&address).await;
    // The host gives up on the head: it answers 408 or just closes.
    let answer = until_closed(&mut stream, "the half-sent head").await;
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    stop.send(()).unwrap();
    served.await.unwrap().unwrap();

    // A head that would be waited for a minute does not hold a shutdown
    // past its grace.
    let mut settings = index_host::ServeSettings::default();
    settings.header_read_timeout = Duration::from_secs(60);
    settings.shutdown_grace = Duration::from_millis(300);
    let (address, stop, served) = serve_with(&dir, settings).await;
    let _held = half_open(&address).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.send(()).unwrap();
    let stopped = tokio::time::timeout(Duration::from_secs(20), served).await;
    assert!(stopped.is_ok(), "the shutdown waited on a half-sent head");
}

/// A kept-alive connection that goes quiet after its answer is closed once
/// the header timeout passes: idle connections cannot pile up against the
/// connection cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_idle_kept_alive_connection_is_closed_after_the_header_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = index_host::ServeSettings::default();
    settings.header_read_timeout = Duration::from_millis(200);
    let (address, stop, served) = serve_with(&dir, settings).await;
    let mut stream = sent(&address, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await;
    let answer = until_closed(&mut stream, "the idle connection").await;
    assert!(
        answer.starts_with("HTTP/1.1 200"),
        "answered first: {answer}"
    );
    assert_eq!(answer.matches("HTTP/1.1").count(), 1, "{answer}");
    stop.send(()).unwrap();
    served.await.unwrap().unwrap();
}

/// `/metrics` is for a host key, in Prometheus's text format: requests by
/// route and status (never an id), commits and refusals by code, waits in
/// flight, and the MCP sessions open.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn metrics_count_requests_commits_waits_and_sessions_for_a_host_key() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Running::start(sqlite(&dir).await).await;
    host.open(OPP).await;
    assert_eq!(
        host.turn(OPP, &host.dana, "propose", "Intro call?")
            .await
            .status,
        200
    );
    assert_eq!(
        host.turn(OPP, &host.dana, "propose", "Again?").await.status,
        403
    );
    let scrape = |key: Option<String>| {
        let host = &host;
        async move { host.call("GET", "/metrics", key.as_deref(), None).await }
    };
    assert_eq!(scrape(None).await.status, 401);
    assert_eq!(
        scrape(Some(host.dana.clone())).await.status,
        403,
        "an agent key may not read them"
    );

    // A wait under way shows in flight until a turn wakes it.
    let waiting = {
        let http = host.http.clone();
        let url = format!("{}/opportunities/{OPP}/negotiation?wait=30", host.base);
        let key = host.dana.clone();
        tokio::spawn(async move {
            http.get(url)
                .bearer_auth(key)
                .send()
                .await
                .unwrap()
                .status()
        })
    };
    let mut in_flight = false;
    for _ in 0..100 {
        let text = scrape(Some(host.host_key.clone()))
            .await
            .body
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if text.contains("index_waits_in_flight 1") {
            in_flight = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(in_flight, "the wait shows in flight");
    assert_eq!(
        host.turn(OPP, &host.sam, "counter", "Next week.")
            .await
            .status,
        200
    );
    assert_eq!(waiting.await.unwrap().as_u16(), 200);

    let session = host.mcp_initialize(&host.dana).await;
    assert_eq!(session.status().as_u16(), 200);

    let scraped = scrape(Some(host.host_key.clone())).await;
    assert_eq!(scraped.status, 200);
    let text = scraped.body.as_str().unwrap().to_owned();
    for line in [
        r#"index_http_requests_total{method="POST",route="/opportunities/{id}/negotiation/turns",status="200"} 2"#,
        r#"index_http_requests_total{method="POST",route="/opportunities/{id}/negotiation/turns",status="403"} 1"#,
        r#"index_http_requests_total{method="GET",route="/metrics",status="401"} 1"#,
        r#"index_commits_total{operation="turn",outcome="ok"} 2"#,
        r#"index_commits_total{operation="turn",outcome="not_your_turn"} 1"#,
        r#"index_commits_total{operation="open",outcome="ok"} 1"#,
        "index_waits_in_flight 0",
        "index_mcp_sessions 1",
    ] {
        assert!(text.lines().any(|l| l == line), "no {line} in\n{text}");
    }
    assert!(
        text.contains(r#"index_http_request_duration_seconds_bucket{le="+Inf",route="/opportunities/{id}/negotiation/turns"} 3"#)
            || text.contains(r#"index_http_request_duration_seconds_count{route="/opportunities/{id}/negotiation/turns"} 3"#),
        "latency is recorded per route:\n{text}"
    );
    assert!(!text.contains(OPP), "no id in a label");
    host.stop().await;
}

/// REST answers print a negotiation's fields in its documented order, as
/// the `index` tool does: `open` and `close` included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rest_answers_keep_the_documented_field_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Running::start(sqlite(&dir).await).await;
    let body = json!({
        "opportunityId": OPP,
        "initiator": {"userId": "dana", "intentId": "hire"},
        "responder": {"userId": "sam", "intentId": "join"},
    });
    let opened = host
        .http
        .post(format!("{}/negotiations", host.base))
        .bearer_auth(&host.host_key)
        .json(&body)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let prefix = format!(
        r#"{{"negotiation":{{"id":"{OPP}","initiator":{{"userId":"dana","intentId":"hire"}}"#
    );
    assert!(opened.starts_with(&prefix), "{opened}");
    let closed = host
        .http
        .post(format!(
            "{}/opportunities/{OPP}/negotiation/close",
            host.base
        ))
        .bearer_auth(&host.host_key)
        .json(&json!({"reason": "passed"}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(closed.starts_with(&prefix), "{closed}");
    host.stop().await;
}
