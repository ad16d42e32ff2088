//! The negotiation host: how negotiator agents reach their negotiations.
//!
//! [`Host`] is the service: it authenticates a caller by API key (see
//! [`keys`]), lets the caller act only where it holds a seat (a negotiation
//! without the caller answers exactly like one that does not exist), and
//! calls the `Negotiations` service, which decides and commits through the
//! store. It never decides anything itself. Two surfaces sit on it: the
//! REST API and, at `/mcp` on the same listener, an MCP server
//! ([`router`]); and the MCP server alone over stdio ([`serve_stdio`]).
//!
//! ```no_run
//! # async fn run(store: std::sync::Arc<dyn index_negotiation_store::HostStore>) -> Result<(), index_host::HostError> {
//! use index_host::{Host, serve};
//! let host = Host::new(store).await?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await.map_err(index_host::HostError::io)?;
//! serve(host, listener, Vec::new(), index_host::shutdown_signal()).await?;
//! # Ok(()) }
//! ```

mod http;
mod mcp;
mod rest;
mod serve;
mod service;
mod web;

pub use keys::{Caller, NewKey};
pub use mcp::{NegotiatorServer, tools};
pub use serve::app::{openapi, router};
pub use serve::{ServeSettings, serve, serve_stdio, serve_with, shutdown_signal};
pub use service::error::{ErrorBody, ErrorCode, ErrorFields, HostError, Refusal};
pub use service::host::{Host, HostSettings};
pub use service::limits::{BODY_LIMIT, REQUEST_TIMEOUT};
pub use service::wire::{
    AskedQuestion, Changed, DEFAULT_PAGE, ListQuery, MAX_PAGE, MAX_WAIT, NegotiationView,
    ParkedQuestion, Questions, Resumed, TurnTaken, UnreadableQuestion,
};
pub use service::{keys, names};
