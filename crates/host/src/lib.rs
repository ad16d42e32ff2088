//! The negotiation host: how negotiator agents reach their negotiations.
//!
//! [`Host`] is the service: it authenticates a caller by API key (see
//! [`keys`]), lets the caller act only where it holds a seat (a negotiation
//! without the caller answers exactly like one that does not exist), and
//! calls the `Negotiations` service, which decides and commits through the
//! store. It never decides anything itself. Three transports stand side by
//! side on it, none importing another: the REST API, an MCP server at
//! `/mcp`, and the person's inbox, all on one listener behind one
//! authentication ([`router`]); and the MCP server alone over stdio
//! ([`serve_stdio`]).
//!
//! ```no_run
//! # async fn run(store: std::sync::Arc<dyn index_negotiation_store::HostStore>) -> Result<(), index_host::HostError> {
//! use index_host::{Host, serve};
//! let host = Host::new(store).await?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await.map_err(index_host::HostError::io)?;
//! serve(host, listener, Vec::new(), index_host::shutdown_signal()).await?;
//! # Ok(()) }
//! ```
//!
//! | module | holds |
//! |---|---|
//! | `service` | what every transport stands on: the `Host` service (who may do what, waits that wake on change), the wire bodies and views, keys, names, errors, metrics, limits, schemas; nothing of HTTP or MCP |
//! | `http` | what the HTTP transports share: extractors that refuse in the error shape, the OpenAPI description of routes, the security headers |
//! | `rest` | the REST API: each route beside its OpenAPI description |
//! | `mcp` | the rmcp server: seventeen `#[tool]`s (negotiations, interactions, webhooks), `input_required`, elicitation, tasks, resources, and what stands in front of rmcp at `/mcp` |
//! | `oauth` | the host's own OAuth authorization server: metadata, registration, the consent page's API, tokens, revocation |
//! | `web` | the inbox: its embedded files (`crates/host/inbox`), a browser sent there from `/`, sessions by cookie, the forgery check, the event stream |
//! | `serve` | one router for all three behind one authentication, the listener (connection cap, per-address budget, HTTP/1.1 only, hyper's refusals reshaped), the shutdown, and stdio |

mod http;
mod mcp;
mod oauth;
mod rest;
mod serve;
mod service;
mod web;

pub use index_negotiation_store::{Refusal, RefusalKind};
pub use keys::{Caller, NewKey};
pub use mcp::{NegotiatorServer, tools};
pub use serve::app::{openapi, router};
#[cfg(feature = "conformance")]
pub use serve::serve_conformance;
pub use serve::{ServeSettings, serve, serve_stdio, serve_with, shutdown_signal};
pub use service::audit::{AuditPage, AuditQuery, DEFAULT_AUDIT_PAGE};
pub use service::authorization::AuthorizationSettings;
pub use service::error::{Code, ErrorBody, ErrorCode, ErrorFields, HostError, refusal_status};
pub use service::host::{Host, HostSettings};
pub use service::interactions::{
    Asked, InteractionPage, InteractionQuery, InteractionView, MOST_INTERACTIONS,
};
pub use service::issuer::{AGENT_SCOPE, IssuerSettings};
pub use service::limits::{BODY_LIMIT, REQUEST_TIMEOUT};
pub use service::wire::{
    AskedQuestion, Changed, DEFAULT_PAGE, ListQuery, MAX_PAGE, MAX_WAIT, NegotiationView,
    ParkedQuestion, Questions, Resumed, TurnTaken, UnreadableQuestion,
};
pub use service::{keys, loopback, names, signing, webhooks};
