//! Running the host: the HTTP listener (REST and MCP) with a graceful
//! shutdown, and the MCP server over stdio.

use std::future::Future;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use crate::error::HostError;
use crate::host::Host;
use crate::http::{BODY_LIMIT, router};
use crate::keys::Caller;
use crate::mcp::NegotiatorServer;

/// Serves the REST API and `/mcp` on `listener` until `shutdown` resolves;
/// then stops accepting, lets in-flight requests finish (a commit under
/// way completes or applies nothing), ends waits and MCP streams, and
/// returns. `allowed_hosts` are the `Host` header values MCP requests may
/// carry (empty: loopback names only, rmcp's guard against DNS rebinding).
///
/// # Errors
///
/// [`HostError::Io`] when the listener fails.
pub async fn serve(
    host: Host,
    listener: tokio::net::TcpListener,
    allowed_hosts: Vec<String>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), HostError> {
    let cancel = tokio_util::sync::CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(cancel.child_token())
        .with_max_request_body_bytes(BODY_LIMIT);
    if !allowed_hosts.is_empty() {
        config = config.with_allowed_hosts(allowed_hosts);
    }
    let for_sessions = host.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(NegotiatorServer::per_request(for_sessions.clone())),
        LocalSessionManager::default().into(),
        config,
    );
    let app = router(host.clone(), axum::Router::new().nest_service("/mcp", mcp));
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            tracing::info!("shutting down: finishing requests in flight");
            host.shut_down();
            cancel.cancel();
        })
        .await
        .map_err(HostError::io)
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
