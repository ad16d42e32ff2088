//! The host as the official MCP conformance suite tests it: the
//! negotiation tools and, beside them on the same MCP service, the suite's
//! own fixture tools, prompts and resources (the `conformance` feature).
//! A test server, never a product: `index` does not carry the fixtures.
//!
//! ```text
//! cargo run -p index-host --example conformance_server -- --db FILE --listen 127.0.0.1:0
//! ```
//!
//! It prints `listening on URL` first, as `index serve` does, and serves
//! `/mcp` at that URL without a key, since the suite sends no
//! credentials. It does so only on a loopback address, and only `/mcp`: a
//! small proxy in front of the host adds one agent key to each request
//! and passes the rest (the `Host` and `Origin` headers included, which
//! the DNS-rebinding scenario is about) through untouched but for the
//! hop-by-hop headers. The host itself authenticates every request as it
//! always does. `--db` must name a file that does not exist yet: the
//! server writes its key there and never revokes it.

// The one line a script waits for, and the reason it stopped, go to
// standard error as `index serve` writes them.
#![allow(clippy::print_stderr)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::TryStreamExt;

use index_host::keys::{KeyOptions, create_key};
use index_host::{Host, HostError, ServeSettings};
use index_negotiation_store::{HostStore, KeyScope, UserId};
use index_negotiation_store_sqlite::SqliteStore;

/// The user whose agent key the proxy adds.
const USER: &str = "conformance";

/// `--db FILE --listen ADDR`, both required.
struct Args {
    db: PathBuf,
    listen: SocketAddr,
}

impl Args {
    fn parse() -> Result<Args, String> {
        let mut args = std::env::args().skip(1);
        let (mut db, mut listen) = (None, None);
        while let Some(flag) = args.next() {
            let value = args.next().ok_or(format!("{flag} needs a value"))?;
            match flag.as_str() {
                "--db" => db = Some(PathBuf::from(value)),
                "--listen" => {
                    listen = Some(
                        value
                            .parse::<SocketAddr>()
                            .map_err(|err| format!("--listen {value}: {err}"))?,
                    );
                }
                _ => return Err(format!("unknown argument {flag}")),
            }
        }
        let usage = "usage: conformance_server --db FILE --listen ADDR";
        let args = Args {
            db: db.ok_or(usage)?,
            listen: listen.ok_or(usage)?,
        };
        if args.db.exists() {
            return Err(format!(
                "--db {}: give a file that does not exist yet; the conformance server writes a key it never revokes",
                args.db.display()
            ));
        }
        if !args.listen.ip().is_loopback() {
            return Err(format!(
                "--listen {}: the conformance server serves /mcp without a key, so only on a loopback address",
                args.listen
            ));
        }
        Ok(args)
    }
}

/// Where the proxy sends requests, and the key it adds to them.
#[derive(Clone)]
struct Upstream {
    base: String,
    key: Arc<HeaderValue>,
    http: reqwest::Client,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("conformance_server: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let args = Args::parse()?;
    let failed = |err: HostError| err.to_string();
    let store: Arc<dyn HostStore> = Arc::new(
        SqliteStore::open(&args.db)
            .await
            .map_err(|err| format!("cannot open {}: {err}", args.db.display()))?,
    );
    let user = UserId::parse(USER).map_err(|err| err.to_string())?;
    let key = create_key(&*store, user, KeyScope::Agent, &KeyOptions::default())
        .await
        .map_err(failed)?;
    let host = Host::new(store).await.map_err(failed)?;

    let inner = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|err| err.to_string())?;
    let inner_address = inner.local_addr().map_err(|err| err.to_string())?;
    let outer = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|err| format!("cannot listen on {}: {err}", args.listen))?;
    let address = outer.local_addr().map_err(|err| err.to_string())?;
    eprintln!("listening on http://{address} (MCP at /mcp, without a key)");

    let upstream = Upstream {
        base: format!("http://{inner_address}"),
        key: Arc::new({
            let mut value = HeaderValue::from_str(&format!("Bearer {}", key.secret))
                .map_err(|err| err.to_string())?;
            value.set_sensitive(true);
            value
        }),
        http: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|err| err.to_string())?,
    };
    let proxy = axum::Router::new()
        .route("/mcp", axum::routing::any(forward))
        .with_state(upstream);
    let served = index_host::serve_conformance(
        host,
        inner,
        ServeSettings::default(),
        index_host::shutdown_signal(),
    );
    let proxied = axum::serve(outer, proxy).with_graceful_shutdown(index_host::shutdown_signal());
    // Whichever stops first stops the server: a proxy without its host
    // would only answer 502.
    tokio::select! {
        served = served => served.map_err(failed),
        proxied = proxied => proxied.map_err(|err| err.to_string()),
    }
}

/// The headers that belong to one connection, not to the request or the
/// answer (RFC 9110, section 7.6.1), besides those `Connection` names.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// `headers` without the hop-by-hop ones.
fn end_to_end(mut headers: HeaderMap) -> HeaderMap {
    let named: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|name| name.trim().to_ascii_lowercase())
        .collect();
    for name in HOP_BY_HOP
        .iter()
        .copied()
        .chain(named.iter().map(String::as_str))
    {
        headers.remove(name);
    }
    headers
}

/// One request passed to the host with the key added, its answer streamed
/// back as it comes (an event stream stays open as long as the host
/// keeps it).
async fn forward(State(upstream): State<Upstream>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts
        .uri
        .path_and_query()
        .map_or("/mcp", |path| path.as_str());
    let mut headers = end_to_end(parts.headers);
    headers.insert(header::AUTHORIZATION, (*upstream.key).clone());
    // Streamed as it comes: the host holds a body to its own limit.
    let body = reqwest::Body::wrap_stream(body.into_data_stream());
    let sent = upstream
        .http
        .request(parts.method, format!("{}{path}", upstream.base))
        .headers(headers)
        .body(body)
        .send()
        .await;
    let answer = match sent {
        Ok(answer) => answer,
        Err(err) => return (StatusCode::BAD_GATEWAY, err.to_string()).into_response(),
    };
    let mut response = Response::builder().status(answer.status());
    if let Some(headers) = response.headers_mut() {
        headers.extend(end_to_end(answer.headers().clone()));
    }
    let stream = answer.bytes_stream().map_err(std::io::Error::other);
    response
        .body(Body::from_stream(stream))
        .unwrap_or_else(|err| (StatusCode::BAD_GATEWAY, err.to_string()).into_response())
}
