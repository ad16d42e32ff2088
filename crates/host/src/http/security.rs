//! The headers every answer carries, whatever answered it: a content
//! security policy that lets the inbox load only its own files, no
//! sniffing of types, no referrer, no framing.

use axum::http::{HeaderValue, header};
use axum::response::Response;

/// What the page may load and do: its own files, its own API, and
/// WebAssembly compiled from its own module; no inline script, no frames.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
     style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

/// Adds the security headers to every answer: the policy above, no
/// sniffing of types, no referrer, no framing.
pub(crate) async fn secured(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in SECURITY_HEADERS {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// The headers every answer carries, the refusals hyper writes before any
/// route included.
pub(crate) const SECURITY_HEADERS: [(header::HeaderName, &str); 4] = [
    (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::REFERRER_POLICY, "no-referrer"),
    (header::X_FRAME_OPTIONS, "DENY"),
];
