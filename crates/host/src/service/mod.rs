//! The service every transport stands on: who the caller is, what a seat
//! may see and do, the shapes that go over any wire, and what went wrong.
//! Nothing here knows HTTP, MCP or a browser.
//!
//! | module | holds |
//! |---|---|
//! | `host` | the service: who may do what, waits that wake on change, park watchers |
//! | `interactions` | the host as a provider of the interaction contract: asks, reads, waits, cancels, and response commands decided in the store's commit |
//! | `audit` | the audit record read out to host keys, in pages |
//! | `wire` | the bodies requests carry and the views answers give, one shape on every transport |
//! | `attached` | one value of each type a transport keeps beside the host |
//! | `keys` | making, hashing and checking API keys |
//! | `authorization` | the host's own OAuth authorization server: clients, codes, grants whose tokens are keys |
//! | `issuer` | access tokens from the operator's own identity provider: JWTs checked against its published keys |
//! | `outbound` | requests the host sends to URLs others name, kept off private addresses |
//! | `webhooks` | endpoints registered through the host, deliveries signed the Standard Webhooks way and sent from the outbox |
//! | `loopback` | which URLs name this machine, where plain http is taken |
//! | `key_cache` | the keys a host looked up, kept until any process changes a key |
//! | `feed_relay` | a store's feed relayed to what listens for it, while the host lives |
//! | `signing` | tokens any host of the store can check: HMAC-SHA-256 under the store's shared, rotatable keys |
//! | `names` | the names a caller gives that reach a log or a table, refused when they hold control or format characters |
//! | `limits` | the body limit and the request timeout every transport holds requests to |
//! | `error` | the one error shape, its codes and the status map |
//! | `metrics` | what `/metrics` counts, in Prometheus's format |
//! | `trace_context` | a client's W3C trace continued in the host's spans |
//! | `schema` | JSON Schemas made from the wire types' `JsonSchema`, descriptions as prose |

pub(crate) mod attached;
pub(crate) mod audit;
pub(crate) mod authorization;
pub(crate) mod error;
pub(crate) mod feed_relay;
pub(crate) mod host;
pub(crate) mod interactions;
pub(crate) mod issuer;
pub(crate) mod key_cache;
pub mod keys;
pub(crate) mod limits;
pub mod loopback;
pub(crate) mod metrics;
pub mod names;
pub(crate) mod outbound;
pub(crate) mod schema;
pub mod signing;
pub(crate) mod trace_context;
pub mod webhooks;
pub(crate) mod wire;
