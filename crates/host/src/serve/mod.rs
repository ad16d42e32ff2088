//! Running the host: the HTTP listener (REST, MCP and the inbox on one
//! router) with a graceful shutdown, and the MCP server over stdio.
//!
//! | module | holds |
//! |---|---|
//! | `app` | the router: every transport's routes behind one authentication, request ids, body limit, tracing, the OpenAPI document |
//! | `connection` | one connection from accept to close: HTTP/1.1 only, its requests in flight, the per-address budget |
//! | `raw_refusal` | hyper's own refusals of heads it cannot read, replaced on their way out by the host's error shape |

pub(crate) mod app;
mod connection;
mod raw_refusal;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt};

use crate::mcp::NegotiatorServer;
use crate::mcp::sessions::{BoundedSessions, SessionBounds};
use crate::serve::app::router;
use crate::serve::connection::{AddressBudget, InFlight, serve_connection};
use crate::serve::raw_refusal::Shaped;
use crate::service::error::HostError;
use crate::service::host::Host;
use crate::service::keys::Caller;
use crate::service::limits::BODY_LIMIT;

/// How long a shutdown gives waits to answer before it ends MCP's streams;
/// a wait answers as soon as the host stops, so this is only a bound.
const WAITS_ANSWER_WITHIN: Duration = Duration::from_secs(2);

/// How long the answers of waits just ended get to reach their streams.
const ANSWERS_REACH_STREAMS: Duration = Duration::from_millis(100);

/// How [`serve_with`] runs its listener.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServeSettings {
    /// The `Host` header values MCP requests may carry (empty: loopback
    /// names only, rmcp's guard against DNS rebinding).
    pub allowed_hosts: Vec<String>,
    /// How long a client may take to send a request's head, counted from
    /// the moment the connection waits for one (its start, or the end of
    /// its last answer); a connection that has not sent it by then is
    /// closed.
    pub header_read_timeout: Duration,
    /// How long a shutdown waits for requests in flight before it closes
    /// the connections that remain (idle and half-sent ones close at once).
    pub shutdown_grace: Duration,
    /// The most connections served at once; more wait to be accepted.
    pub max_connections: usize,
    /// The most connections one client address holds at once (an IPv6
    /// address counts by its /64); one more is closed as soon as it is
    /// accepted, so no one client can take every slot. Behind a proxy,
    /// every client shares the proxy's address: raise it to
    /// `max_connections` there.
    pub max_connections_per_address: usize,
    /// The most MCP sessions one key holds open; a new one closes the
    /// key's least recently used session.
    pub max_mcp_sessions_per_key: usize,
    /// The most MCP sessions open in all; a new one closes the least
    /// recently used session of any key.
    pub max_mcp_sessions: usize,
    /// How long an MCP session may go unused before it is closed.
    pub mcp_session_idle: Duration,
}

impl Default for ServeSettings {
    fn default() -> Self {
        ServeSettings {
            allowed_hosts: Vec::new(),
            header_read_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(30),
            max_connections: 10_000,
            max_connections_per_address: 256,
            max_mcp_sessions_per_key: 32,
            max_mcp_sessions: 2_048,
            mcp_session_idle: Duration::from_secs(300),
        }
    }
}

/// Serves the REST API and `/mcp` on `listener` until `shutdown` resolves;
/// then stops accepting, lets in-flight requests finish (a commit under
/// way completes or applies nothing), ends waits and MCP streams, and
/// returns. Connections speak HTTP/1.1 (see [`ServeSettings`] for the
/// limits each has). `allowed_hosts` are the `Host` header values MCP requests may
/// carry (empty: loopback names only, rmcp's guard against DNS rebinding).
/// The other settings are [`ServeSettings`]'s defaults.
///
/// # Errors
///
/// As [`serve_with`].
pub async fn serve(
    host: Host,
    listener: tokio::net::TcpListener,
    allowed_hosts: Vec<String>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), HostError> {
    let settings = ServeSettings {
        allowed_hosts,
        ..ServeSettings::default()
    };
    serve_with(host, listener, settings, shutdown).await
}

/// [`serve`] with `settings`: a request head not sent within
/// `header_read_timeout` closes its connection, at most `max_connections`
/// are served at once, and a shutdown waits `shutdown_grace` at most for
/// what is in flight.
///
/// ```no_run
/// # async fn run(host: index_host::Host) -> Result<(), index_host::HostError> {
/// use std::time::Duration;
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8787").await.map_err(index_host::HostError::io)?;
/// let mut settings = index_host::ServeSettings::default();
/// settings.shutdown_grace = Duration::from_secs(5);
/// index_host::serve_with(host, listener, settings, index_host::shutdown_signal()).await
/// # }
/// ```
///
/// # Errors
///
/// None once serving: a connection that fails to be accepted is logged and
/// the next one served. The result leaves room for a listener that can
/// fail for good.
pub async fn serve_with(
    host: Host,
    listener: tokio::net::TcpListener,
    settings: ServeSettings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), HostError> {
    let for_sessions = host.clone();
    let server = move || NegotiatorServer::per_request(for_sessions.clone());
    serve_mcp(host, listener, settings, server, shutdown).await
}

/// Serves the host as [`serve_with`] does, each MCP session's server with
/// the official conformance suite's fixtures beside the host's tools (see
/// `examples/conformance_server.rs`, the suite's test server). Every
/// request is authenticated as always. The `conformance` feature, for
/// that test server only.
///
/// # Errors
///
/// As [`serve_with`].
#[cfg(feature = "conformance")]
pub async fn serve_conformance(
    host: Host,
    listener: tokio::net::TcpListener,
    settings: ServeSettings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), HostError> {
    let for_sessions = host.clone();
    let server =
        move || crate::mcp::conformance::ConformanceServer::per_request(for_sessions.clone());
    serve_mcp(host, listener, settings, server, shutdown).await
}

/// [`serve_with`], each MCP session served by a server `server` makes.
async fn serve_mcp<S: ServerHandler + Send + 'static>(
    host: Host,
    listener: tokio::net::TcpListener,
    settings: ServeSettings,
    server: impl Fn() -> S + Send + Sync + 'static,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), HostError> {
    let cancel = CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(cancel.child_token())
        .with_max_request_body_bytes(BODY_LIMIT)
        // Under the read timeout common HTTP clients use, so a session's
        // stream that waits is never taken for a dead one.
        .with_sse_keep_alive(Some(crate::mcp::keep_alive::KEEP_ALIVE));
    if !settings.allowed_hosts.is_empty() {
        config = config.with_allowed_hosts(settings.allowed_hosts.clone());
    }
    let mut local = LocalSessionManager::default();
    local.session_config.keep_alive = Some(settings.mcp_session_idle);
    let sessions = Arc::new(BoundedSessions::new(
        local,
        SessionBounds {
            per_key: settings.max_mcp_sessions_per_key,
            total: settings.max_mcp_sessions,
        },
    ));
    let counted = sessions.clone();
    host.metrics()
        .watch_sessions(Arc::new(move || counted.open()));
    let mcp = StreamableHttpService::new(move || Ok(server()), sessions.clone(), config);
    let app = router(host.clone(), axum::Router::new().nest_service("/mcp", mcp));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(settings.header_read_timeout);
    let slots = Arc::new(Semaphore::new(settings.max_connections.max(1)));
    let per_address = AddressBudget::new(settings.max_connections_per_address);
    let stopping = CancellationToken::new();
    let mut connections = tokio::task::JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            () = &mut shutdown => break,
            slot = slots.clone().acquire_owned() => slot,
        };
        let Ok(slot) = slot else { break };
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            // A connection that failed before it was accepted (reset, or
            // out of descriptors for a moment) ends only itself.
            Err(err) => {
                tracing::warn!(error = %err, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Over its address's budget: closed at once, before a byte is read.
        let Some(address_slot) = per_address.take(peer) else {
            tracing::debug!(peer = %peer.ip(), "connection refused: its address holds its limit");
            continue;
        };
        let in_flight = InFlight::default();
        let io = TokioIo::new(Shaped::new(stream, in_flight.clone()));
        let served = serve_connection(
            builder.clone(),
            io,
            app.clone(),
            in_flight,
            stopping.clone(),
        );
        while connections.try_join_next().is_some() {}
        connections.spawn(async move {
            served.await;
            drop((slot, address_slot));
        });
    }
    drop(listener);
    tracing::info!(
        connections = connections.len(),
        "shutting down: finishing requests in flight"
    );
    // Waits answer first, each with the negotiation as it is, while MCP's
    // streams are still open to carry the answers; only then are the
    // streams ended (a wait's answer on a stream ended first never reaches
    // its client, which then waits for its own timeout).
    host.shut_down();
    let answered = tokio::time::timeout(
        settings.shutdown_grace.min(WAITS_ANSWER_WITHIN),
        host.metrics().waits_ended(),
    );
    if answered.await.is_err() {
        tracing::warn!("waits still open after the shutdown's first seconds; ending them");
    }
    // A wait's guard ends as it returns, a moment before rmcp puts its
    // answer on the stream: that moment, before the streams end.
    tokio::time::sleep(ANSWERS_REACH_STREAMS).await;
    cancel.cancel();
    stopping.cancel();
    let drained = tokio::time::timeout(settings.shutdown_grace, async {
        while connections.join_next().await.is_some() {}
        sessions.all_closed().await;
    });
    if drained.await.is_err() {
        tracing::warn!("shutdown grace ended; closing the connections left");
        connections.abort_all();
    }
    Ok(())
}

/// Serves MCP over standard input and output, acting as `caller` for
/// every call, until the client disconnects.
///
/// # Errors
///
/// [`HostError::Io`] when the transport fails.
pub async fn serve_stdio(host: Host, caller: Caller) -> Result<(), HostError> {
    let running = NegotiatorServer::as_caller(host, caller)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|err| HostError::io(std::io::Error::other(err.to_string())))?;
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|err| HostError::io(std::io::Error::other(err.to_string())))
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
