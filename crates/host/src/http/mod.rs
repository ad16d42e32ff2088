//! What the HTTP transports share: extractors that refuse in the error
//! shape, and the OpenAPI description each transport gives of its routes.
//!
//! | module | holds |
//! |---|---|
//! | `extract` | the extractors every route uses (a path's negotiation, a JSON body, a query), refusing with the error shape |
//! | `openapi` | the OpenAPI 3.1 description of a table of routes, from the schemas |
//! | `oauth` | the host as an OAuth protected resource: its metadata (RFC 9728) and the challenge of a 401 |
//! | `respond` | a `HostError` as an HTTP answer |
//! | `security` | the headers every answer carries |

/// Marks a request its browser session's cookie authenticated (not a
/// bearer key): what changes things must then come from a page of this
/// host, and only such a request is a person's own (an OAuth approval).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ByCookie;

pub(crate) mod extract;
pub(crate) mod oauth;
pub(crate) mod openapi;
mod respond;
pub(crate) mod security;
