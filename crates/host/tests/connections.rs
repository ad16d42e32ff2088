//! The listener under clients that misbehave at the connection level:
//! silent and half-sent connections, HTTP/2 prefaces, one address taking
//! every slot, heads hyper refuses on its own, oversized and malformed
//! `/mcp` bodies, MCP sessions without end, and a shutdown with all of it
//! open.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use index_host::ServeSettings;
use index_negotiation_store::MemoryStore;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use support::{OPP, Running};

fn settings(change: impl FnOnce(&mut ServeSettings)) -> ServeSettings {
    let mut settings = ServeSettings::default();
    change(&mut settings);
    settings
}

async fn start(settings: ServeSettings) -> Running {
    Running::start_with(Arc::new(MemoryStore::new()), None, settings).await
}

fn address(running: &Running) -> SocketAddr {
    running
        .base
        .trim_start_matches("http://")
        .parse()
        .expect("the host's address")
}

/// A connection to `to` from the loopback address `from`.
async fn connect_from(from: [u8; 4], to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("a socket");
    socket
        .bind(SocketAddr::from((from, 0)))
        .expect("a loopback source");
    socket.connect(to).await.expect("connected")
}

/// Everything the host sends on `stream` until it closes it, or `None`
/// when it is still open after `within`.
async fn until_closed(stream: &mut TcpStream, within: Duration) -> Option<Vec<u8>> {
    let mut received = Vec::new();
    let read = tokio::time::timeout(within, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buf[..n]),
            }
        }
    });
    read.await.ok().map(|()| received)
}

/// One raw request head (and body) on a fresh connection; the status, the
/// headers by lower-case name and the body of the answer.
async fn raw(to: SocketAddr, request: &[u8]) -> (u16, Vec<(String, String)>, Value) {
    let mut stream = TcpStream::connect(to).await.expect("connected");
    stream.write_all(request).await.expect("sent");
    let bytes = until_closed(&mut stream, Duration::from_secs(5))
        .await
        .expect("the host closes the connection");
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut response = httparse::Response::new(&mut headers);
    let httparse::Status::Complete(at) = response.parse(&bytes).expect("a response") else {
        panic!("incomplete response: {}", String::from_utf8_lossy(&bytes));
    };
    let headers = response
        .headers
        .iter()
        .map(|h| {
            (
                h.name.to_ascii_lowercase(),
                String::from_utf8_lossy(h.value).into_owned(),
            )
        })
        .collect();
    let body = serde_json::from_slice(&bytes[at..]).unwrap_or(Value::Null);
    (response.code.expect("a status"), headers, body)
}

/// What the host first sends back for `request` on a fresh connection,
/// lower-cased, read without waiting for the connection to close.
async fn first_answer(to: SocketAddr, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(to).await.expect("connected");
    stream.write_all(request).await.expect("sent");
    let mut buf = [0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf))
        .await
        .expect("an answer")
        .expect("read");
    String::from_utf8_lossy(&buf[..n]).to_ascii_lowercase()
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

#[tokio::test]
async fn silent_and_half_sent_connections_are_closed_by_the_head_deadline() {
    let mut running = start(settings(|s| {
        s.header_read_timeout = Duration::from_millis(300);
    }))
    .await;
    let to = address(&running);
    // Nothing at all; half a head; half and all of an HTTP/2 preface.
    let openings: [&[u8]; 4] = [
        b"",
        b"GET /healthz HTTP/1.1\r\nHo",
        b"PRI * HTTP/2.0\r\n",
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    ];
    for opening in openings {
        let mut stream = TcpStream::connect(to).await.expect("connected");
        stream.write_all(opening).await.expect("sent");
        let closed = until_closed(&mut stream, Duration::from_secs(3)).await;
        assert!(
            closed.is_some(),
            "a connection that sent {:?} is still open",
            String::from_utf8_lossy(opening)
        );
    }
    // An idle kept-alive connection is closed too, after its answer.
    let mut stream = TcpStream::connect(to).await.expect("connected");
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("sent");
    let answered = until_closed(&mut stream, Duration::from_secs(3))
        .await
        .expect("closed once idle");
    assert!(answered.starts_with(b"HTTP/1.1 200"));
    running.stop().await;
}

#[tokio::test]
async fn one_address_cannot_take_every_slot() {
    let mut running = start(settings(|s| {
        s.max_connections = 8;
        s.max_connections_per_address = 4;
    }))
    .await;
    let to = address(&running);
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(connect_from([127, 0, 0, 1], to).await);
    }
    // The fifth from the same address is closed before anything is read.
    let mut fifth = connect_from([127, 0, 0, 1], to).await;
    let _ = fifth
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await;
    let answer = until_closed(&mut fifth, Duration::from_secs(3))
        .await
        .expect("closed at once");
    assert!(answer.is_empty(), "it was answered: {answer:?}");
    // Another address is served at once.
    let mut other = connect_from([127, 0, 0, 2], to).await;
    other
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .expect("sent");
    let answer = until_closed(&mut other, Duration::from_secs(3))
        .await
        .expect("answered");
    assert!(answer.starts_with(b"HTTP/1.1 200"), "{answer:?}");
    drop(held);
    running.stop().await;
}

#[tokio::test]
async fn a_refused_request_whose_body_is_unread_says_the_connection_closes() {
    let mut running = start(ServeSettings::default()).await;
    let to = address(&running);
    // Refused at once, its body not sent yet: the answer must not invite
    // the client to send its next request on this connection.
    let (status, headers, _) = raw(
        to,
        b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
    )
    .await;
    assert_eq!(status, 401);
    assert_eq!(header(&headers, "connection"), Some("close"));
    // Without a body the connection stays open for the next request.
    let head = first_answer(to, b"GET /negotiations HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert!(head.starts_with("http/1.1 401"), "{head}");
    assert!(!head.contains("connection: close"), "{head}");
    running.stop().await;
}

#[tokio::test]
async fn any_answer_that_leaves_a_body_unread_says_the_connection_closes() {
    let mut running = start(ServeSettings::default()).await;
    let to = address(&running);
    let key = running.host_key.clone();
    // Refused after authentication, before the body is read: a path that
    // is not UTF-8, and a body over the limit.
    let not_text = format!(
        "POST /opportunities/%FF/negotiation/turns HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    );
    let (status, headers, _) = raw(to, not_text.as_bytes()).await;
    assert_eq!(status, 400);
    assert_eq!(header(&headers, "connection"), Some("close"));
    let over_the_limit = format!(
        "POST /opportunities/{OPP}/negotiation/turns HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n"
    );
    let (status, headers, _) = raw(to, over_the_limit.as_bytes()).await;
    assert_eq!(status, 413);
    assert_eq!(header(&headers, "connection"), Some("close"));
    // A body read to its end leaves the connection open, whatever the
    // answer: a refused turn reads its body first.
    let body = r#"{"action":"propose","message":"Intro?"}"#;
    let read_through = format!(
        "POST /opportunities/{OPP}/negotiation/turns HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        running.stranger,
        body.len()
    );
    let head = first_answer(to, read_through.as_bytes()).await;
    assert!(head.starts_with("http/1.1 404"), "{head}");
    assert!(!head.contains("connection: close"), "{head}");
    running.stop().await;
}

#[tokio::test]
async fn heads_hyper_refuses_are_answered_in_the_error_shape() {
    let mut running = start(ServeSettings::default()).await;
    let to = address(&running);
    let long_query = format!(
        "GET /healthz?q={} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(100_000)
    );
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        ("a space in the path", b"GET /a b HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 400),
        (
            "raw non-UTF-8 bytes in the path",
            b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            400,
        ),
        (
            "two different Content-Lengths",
            b"POST /answers HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}".to_vec(),
            400,
        ),
        (
            "a transfer coding other than chunked",
            b"POST /answers HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n".to_vec(),
            400,
        ),
        ("a 100 KB query", long_query.into_bytes(), 414),
    ];
    for (what, request, status) in cases {
        let (got, headers, body) = raw(to, &request).await;
        assert_eq!(got, status, "{what}");
        assert_eq!(body["error"]["code"], "invalid_request", "{what}: {body}");
        assert!(body["error"]["message"].is_string(), "{what}");
        assert!(header(&headers, "x-request-id").is_some(), "{what}");
        assert_eq!(header(&headers, "x-frame-options"), Some("DENY"), "{what}");
        assert_eq!(
            header(&headers, "x-content-type-options"),
            Some("nosniff"),
            "{what}"
        );
        assert!(
            header(&headers, "content-type").is_some_and(|v| v.starts_with("application/json")),
            "{what}"
        );
    }
    running.stop().await;
}

#[tokio::test]
async fn mcp_bodies_are_refused_in_the_error_shape() {
    let mut running = start(ServeSettings::default()).await;
    let mcp = format!("{}/mcp", running.base);
    let post = |body: reqwest::Body, content_type: &str| {
        running
            .http
            .post(&mcp)
            .bearer_auth(&running.dana)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", content_type)
            .body(body)
    };
    // Over the limit, sent chunked: found only while it is read.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..20).map(|_| Ok(vec![b' '; 8 * 1024])).collect();
    let chunked = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
    let response = post(chunked, "application/json")
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 413);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], "payload_too_large");

    let response = post("{not json".into(), "application/json")
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], "malformed_json");

    let response = post("{}".into(), "text/plain").send().await.expect("sent");
    assert_eq!(response.status(), 415);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], "unsupported_media_type");

    // A session rmcp does not know: its plain-text 404, in the shape.
    let response = running
        .http
        .post(&mcp)
        .bearer_auth(&running.dana)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", "no-such-session")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.expect("JSON");
    assert!(body["error"]["code"].is_string(), "{body}");
    running.stop().await;
}

#[tokio::test]
async fn a_served_method_with_parameters_of_the_wrong_type_is_invalid_params() {
    let mut running = start(ServeSettings::default()).await;
    let mut mcp = running.mcp_session(&running.dana.clone()).await;
    let answer = mcp.request("tools/call", json!({"name": 7})).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    // An older session keeps the methods the current protocol removed.
    let answer = mcp.request("resources/subscribe", json!({"uri": 7})).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    // The tasks extension's methods this host never served are unknown.
    for method in ["tasks/list", "tasks/result"] {
        let answer = mcp.request(method, json!({"taskId": "t"})).await;
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
    }
    drop(mcp);
    running.stop().await;
}

#[tokio::test]
async fn mcp_sessions_are_bounded_per_key_and_in_all() {
    let mut running = start(settings(|s| {
        s.max_mcp_sessions_per_key = 2;
        s.max_mcp_sessions = 3;
    }))
    .await;
    let session = |response: reqwest::Response| {
        assert_eq!(response.status(), 200);
        response.headers()["mcp-session-id"]
            .to_str()
            .expect("a session id")
            .to_owned()
    };
    let ping = |key: String, id: String| {
        let request = running
            .http
            .post(format!("{}/mcp", running.base))
            .bearer_auth(key)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", id)
            .json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        async move { request.send().await.expect("sent").status().as_u16() }
    };
    let dana = running.dana.clone();
    let sam = running.sam.clone();
    let first = session(running.mcp_initialize(&dana).await);
    let second = session(running.mcp_initialize(&dana).await);
    assert_eq!(ping(dana.clone(), first.clone()).await, 202);
    // A third of dana's closes dana's least recently used: the second.
    let third = session(running.mcp_initialize(&dana).await);
    assert_eq!(ping(dana.clone(), second.clone()).await, 404);
    assert_eq!(ping(dana.clone(), first.clone()).await, 202);
    assert_eq!(ping(dana.clone(), third.clone()).await, 202);
    // Sam's first fits; his second finds the host full and closes the
    // least recently used of all: dana's first.
    let sams = session(running.mcp_initialize(&sam).await);
    let _ = session(running.mcp_initialize(&sam).await);
    assert_eq!(ping(dana.clone(), first).await, 404);
    assert_eq!(ping(dana.clone(), third).await, 202);
    assert_eq!(ping(sam.clone(), sams).await, 202);
    running.stop().await;
}

#[tokio::test]
async fn an_unused_mcp_session_is_closed() {
    let mut running = start(settings(|s| {
        s.mcp_session_idle = Duration::from_millis(500);
    }))
    .await;
    let dana = running.dana.clone();
    let started = running.mcp_initialize(&dana).await;
    assert_eq!(started.status(), 200);
    let id = started.headers()["mcp-session-id"]
        .to_str()
        .expect("a session id")
        .to_owned();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let status = running
        .http
        .post(format!("{}/mcp", running.base))
        .bearer_auth(&dana)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", id)
        .json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .send()
        .await
        .expect("sent")
        .status();
    assert_eq!(status, 404, "the idle session is gone");
    running.stop().await;
}

#[tokio::test]
async fn a_shutdown_closes_idle_and_half_sent_connections_at_once_and_answers_waits() {
    let mut running = start(settings(|s| {
        s.header_read_timeout = Duration::from_secs(30);
        s.shutdown_grace = Duration::from_secs(30);
    }))
    .await;
    assert_eq!(running.open(OPP).await.status, 201);
    let to = address(&running);
    let mut held = Vec::new();
    for n in 0..100 {
        let mut stream = connect_from([127, 0, 0, 3], to).await;
        if n % 2 == 0 {
            stream
                .write_all(b"GET /healthz HTTP/1.1\r\nHo")
                .await
                .expect("sent");
        } else {
            stream
                .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                .await
                .expect("sent");
        }
        held.push(stream);
    }
    // Sam waits for a change that never comes.
    let wait = running.http.get(format!(
        "{}/opportunities/{OPP}/negotiation?wait=50",
        running.base
    ));
    let wait = tokio::spawn(wait.bearer_auth(running.sam.clone()).send());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    running.stop().await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "the shutdown took {took:?}");
    let answered = wait.await.expect("joined").expect("answered");
    assert_eq!(answered.status(), 200);
    for mut stream in held {
        assert!(
            until_closed(&mut stream, Duration::from_secs(1))
                .await
                .is_some(),
            "a connection is still open after the shutdown"
        );
    }
}
