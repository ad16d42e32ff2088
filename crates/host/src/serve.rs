//! Running the host: the HTTP listener (REST and MCP) with a graceful
//! shutdown, and the MCP server over stdio.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::sync::Semaphore;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use crate::error::HostError;
use crate::host::Host;
use crate::http::{BODY_LIMIT, router};
use crate::keys::Caller;
use crate::mcp::NegotiatorServer;

/// How [`serve_with`] runs its listener.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServeSettings {
    /// The `Host` header values MCP requests may carry (empty: loopback
    /// names only, rmcp's guard against DNS rebinding).
    pub allowed_hosts: Vec<String>,
    /// How long a client may take to send a request's head; a connection
    /// that has not sent it by then is closed.
    pub header_read_timeout: Duration,
    /// How long a shutdown waits for requests in flight before it closes
    /// the connections that remain.
    pub shutdown_grace: Duration,
    /// The most connections served at once; more wait to be accepted.
    pub max_connections: usize,
}

impl Default for ServeSettings {
    fn default() -> Self {
        ServeSettings {
            allowed_hosts: Vec::new(),
            header_read_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(30),
            max_connections: 10_000,
        }
    }
}

/// Serves the REST API and `/mcp` on `listener` until `shutdown` resolves;
/// then stops accepting, lets in-flight requests finish (a commit under
/// way completes or applies nothing), ends waits and MCP streams, and
/// returns. `allowed_hosts` are the `Host` header values MCP requests may
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
    let cancel = tokio_util::sync::CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(cancel.child_token())
        .with_max_request_body_bytes(BODY_LIMIT);
    if !settings.allowed_hosts.is_empty() {
        config = config.with_allowed_hosts(settings.allowed_hosts);
    }
    let for_sessions = host.clone();
    let sessions = Arc::new(LocalSessionManager::default());
    host.metrics().watch_sessions(sessions.clone());
    let mcp = StreamableHttpService::new(
        move || Ok(NegotiatorServer::per_request(for_sessions.clone())),
        sessions,
        config,
    );
    let app = router(host.clone(), axum::Router::new().nest_service("/mcp", mcp));
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(settings.header_read_timeout);
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(settings.max_connections.max(1)));
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
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // A connection that failed before it was accepted (reset, or
            // out of descriptors for a moment) ends only itself.
            Err(err) => {
                tracing::warn!(error = %err, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let service = TowerToHyperService::new(app.clone());
        let connection = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), service)
            .into_owned();
        let served = graceful.watch(connection);
        while connections.try_join_next().is_some() {}
        connections.spawn(async move {
            if let Err(err) = served.await {
                tracing::debug!(error = %err, "connection ended");
            }
            drop(slot);
        });
    }
    drop(listener);
    tracing::info!("shutting down: finishing requests in flight");
    host.shut_down();
    cancel.cancel();
    if tokio::time::timeout(settings.shutdown_grace, graceful.shutdown())
        .await
        .is_err()
    {
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
