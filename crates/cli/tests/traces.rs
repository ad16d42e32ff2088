//! Traces: `index serve --otlp-endpoint` exports its spans over OTLP/HTTP
//! to a receiver this test runs, which decodes them as a collector does.
//! A client's W3C `traceparent` (an HTTP header, or MCP's `_meta` on a
//! stdio server) is continued: the host's spans carry its trace id, and
//! the model call passes it on to the model server. A host without an
//! endpoint passes nothing on.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "support/serve.rs"]
mod serve;
#[path = "support/stall.rs"]
mod stall;
mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use index_test_support::openai_server::{Fake, Reply, gap};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;
use serde_json::{Value, json};

use serve::Host;

const TURNS: &str = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36";
const PARKED: &str = "7a1f3c2e-9b4d-4e8a-b6c5-2d1e0f9a8b7c";
const UNTRACED: &str = "5e2d8c1b-4a3f-4b9e-8c7d-6f5e4d3c2b1a";

/// A span as the receiver decoded it: ids in lowercase hex.
#[derive(Debug, Clone)]
struct Received {
    trace_id: String,
    span_id: String,
    parent_span_id: String,
    name: String,
    service: String,
}

/// Every span exported to the receiver, in arrival order; and the
/// `traceparent` of every webhook delivery posted to its `/hook`.
#[derive(Clone, Default)]
struct Receiver(Arc<Mutex<Vec<Received>>>, Arc<Mutex<Vec<String>>>);

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Receiver {
    /// Serves OTLP/HTTP's traces path on a free local port; its base URL.
    async fn start(&self) -> String {
        let spans = self.clone();
        let hooks = self.1.clone();
        let app = axum::Router::new().route(
            "/hook",
            axum::routing::post(move |headers: axum::http::HeaderMap| async move {
                let parent = headers
                    .get("traceparent")
                    .and_then(|value| value.to_str().ok())
                    .unwrap_or_default();
                hooks.lock().unwrap().push(parent.to_owned());
                axum::http::StatusCode::NO_CONTENT
            }),
        );
        let app = app.route(
            "/v1/traces",
            axum::routing::post(move |body: axum::body::Bytes| async move {
                let Ok(export) = ExportTraceServiceRequest::decode(body) else {
                    return (axum::http::StatusCode::BAD_REQUEST, Vec::new());
                };
                for resource in export.resource_spans {
                    let service = resource
                        .resource
                        .iter()
                        .flat_map(|r| &r.attributes)
                        .find(|a| a.key == "service.name")
                        .and_then(|a| a.value.as_ref())
                        .map(|v| format!("{:?}", v.value))
                        .unwrap_or_default();
                    for scope in resource.scope_spans {
                        for span in scope.spans {
                            spans.0.lock().unwrap().push(Received {
                                trace_id: hex(&span.trace_id),
                                span_id: hex(&span.span_id),
                                parent_span_id: hex(&span.parent_span_id),
                                name: span.name,
                                service: service.clone(),
                            });
                        }
                    }
                }
                // An empty ExportTraceServiceResponse: full success.
                (axum::http::StatusCode::OK, Vec::new())
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        base
    }

    /// The span named `name` in trace `trace_id`, once it has arrived.
    fn wait_for(&self, trace_id: &str, name: &str) -> Received {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let found = self
                .0
                .lock()
                .unwrap()
                .iter()
                .find(|span| span.trace_id == trace_id && span.name == name)
                .cloned();
            if let Some(span) = found {
                return span;
            }
            assert!(
                Instant::now() < deadline,
                "no span {name:?} in trace {trace_id}; received: {:#?}",
                self.0.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn all(&self) -> Vec<Received> {
        self.0.lock().unwrap().clone()
    }
}

/// A `traceparent` naming a sampled parent span in trace `trace_id`.
fn traceparent(trace_id: &str, parent: &str) -> String {
    format!("00-{trace_id}-{parent}-01")
}

/// `POST …/park` on `id` as `key`, naming `trace` as the parent's trace;
/// it must succeed.
fn park_over_rest(host: &Host, id: &str, key: &str, trace: &str) {
    let (status, body) = host.request_with(
        "POST",
        &format!("/opportunities/{id}/negotiation/park"),
        key,
        Some(&json!({})),
        &[("traceparent", &traceparent(trace, "b7ad6b7169203331"))],
    );
    assert_eq!(status, 200, "{body}");
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

fn key(dir: &Path, db: &str, user: &str) -> String {
    support::index_json(dir, db, &["keys", "create", "--user", user])["key"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn a_clients_trace_runs_through_the_host_to_the_model_and_the_collector() {
    let runtime = runtime();
    let receiver = Receiver::default();
    let collector = runtime.block_on(receiver.start());
    let (fake, model) = runtime.block_on(Fake::start([
        Reply::Content(gap("How much equity could you offer?")),
        Reply::Content(gap("How much equity could you offer?")),
    ]));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db").display().to_string();
    stall::open(dir.path(), &db, TURNS);
    stall::stall(dir.path(), &db, PARKED);
    stall::stall(dir.path(), &db, UNTRACED);
    let dana = key(dir.path(), &db, "dana");
    let hook = format!("{collector}/hook");
    support::index_json(
        dir.path(),
        &db,
        &[
            "webhooks",
            "add",
            "--url",
            &hook,
            "--host",
            "--events",
            "negotiation.turn_taken",
        ],
    );
    let model_env = [
        ("INDEX_MODEL_BASE_URL", model.as_str()),
        ("INDEX_MODEL", "gpt-4o-2024-08-06"),
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
    ];
    let host = Host::start_with_args(
        dir.path(),
        &db,
        &model_env,
        &["--otlp-endpoint", &collector, "--webhooks-allow-private"],
    );

    // A turn over REST, its trace named in the header.
    let turn_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let (status, body) = host.request_with(
        "POST",
        &format!("/opportunities/{TURNS}/negotiation/turns"),
        &dana,
        Some(&json!({"action": "propose", "message": "Intro call?"})),
        &[("traceparent", &traceparent(turn_trace, "00f067aa0ba902b7"))],
    );
    assert_eq!(status, 200, "{body}");
    let request = receiver.wait_for(turn_trace, "request");
    assert_eq!(request.parent_span_id, "00f067aa0ba902b7", "{request:?}");
    assert!(request.service.contains("index"), "{request:?}");
    let turn = receiver.wait_for(turn_trace, "turn");
    assert_eq!(turn.parent_span_id, request.span_id, "{turn:?}");
    // Its webhook delivery goes on in the same trace, and tells the
    // receiver its own span as the parent.
    let delivery = receiver.wait_for(turn_trace, "webhook_delivery");
    assert_eq!(
        receiver.1.lock().unwrap().clone(),
        [traceparent(turn_trace, &delivery.span_id)],
        "the receiver continues the turn's trace"
    );

    // A park over REST: the model call joins the trace, and the model
    // server is told the model call's span as its parent.
    let park_trace = "0af7651916cd43dd8448eb211c80319c";
    park_over_rest(&host, PARKED, &dana, park_trace);
    let park = receiver.wait_for(park_trace, "park");
    let model_call = receiver.wait_for(park_trace, "model call");
    assert_eq!(model_call.parent_span_id, park.span_id, "{model_call:?}");
    let sent = fake.traceparents.lock().unwrap().clone();
    assert_eq!(
        sent,
        [Some(traceparent(park_trace, &model_call.span_id))],
        "the model server continues the park's trace"
    );

    // A request that names no trace starts one of its own.
    let (status, _) = host.request(
        "GET",
        &format!("/opportunities/{TURNS}/negotiation"),
        &dana,
        None,
    );
    assert_eq!(status, 200);
    host.stop();
    let own: Vec<_> = receiver
        .all()
        .into_iter()
        .filter(|span| {
            span.name == "request" && span.trace_id != turn_trace && span.trace_id != park_trace
        })
        .collect();
    assert!(
        own.iter().any(|span| span.parent_span_id.is_empty()),
        "a request without a traceparent is a root: {own:#?}"
    );

    // Without an endpoint, nothing is passed on to the model.
    let untraced = Host::start_with(dir.path(), &db, &model_env[..2]);
    park_over_rest(&untraced, UNTRACED, &dana, park_trace);
    untraced.stop();
    assert_eq!(fake.traceparents.lock().unwrap().get(1), Some(&None));
}

#[test]
fn a_stdio_servers_tool_call_continues_the_trace_in_its_meta_and_exports_it_at_exit() {
    let runtime = runtime();
    let receiver = Receiver::default();
    let collector = runtime.block_on(receiver.start());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db").display().to_string();
    stall::open(dir.path(), &db, TURNS);
    let key_file = dir.path().join("dana.key");
    std::fs::write(&key_file, key(dir.path(), &db, "dana")).unwrap();
    // Exported only at exit: the batch waits longer than the test.
    let mut child = support::command(dir.path())
        .args(["serve", "--mcp-stdio", "--key-file"])
        .arg(&key_file)
        .args(["--db", &db])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector)
        .env("OTEL_BSP_SCHEDULE_DELAY", "600000")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut call = |id: u64, method: &str, params: Value| -> Value {
        writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        )
        .unwrap();
        stdin.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).unwrap() > 0,
                "the server hung up"
            );
            let reply: Value = serde_json::from_str(&line).unwrap();
            if reply["id"] == id {
                return reply;
            }
        }
    };
    call(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "traces-test", "version": "0"}}),
    );
    let trace = "5f0c4a1b2d3e4f5061728394a5b6c7d8";
    let reply = call(
        2,
        "tools/call",
        json!({"name": "get_negotiation", "arguments": {"opportunityId": TURNS},
               "_meta": {"traceparent": traceparent(trace, "1a2b3c4d5e6f7081")}}),
    );
    assert!(reply["result"]["structuredContent"].is_object(), "{reply}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let tool = receiver.wait_for(trace, "tool call");
    assert_eq!(tool.parent_span_id, "1a2b3c4d5e6f7081", "{tool:?}");
}
