//! The router every transport is served on: the REST API, the browser's
//! pages and session, and, at `/mcp`, the MCP service, all behind one
//! authentication; `/healthz`, `/readyz`, `/openapi.json` and the OAuth
//! discovery paths before it, which hold no data.
//!
//! A request without a valid key gets 401 and nothing else. Every error
//! has one JSON shape, whatever its status; every response carries an
//! `x-request-id`; bodies over [`BODY_LIMIT`] get 413.

use std::sync::{Arc, LazyLock};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, any, get};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};

use crate::http::openapi::{Operation, Success, of};
use crate::service::error::HostError;
use crate::service::host::Host;
use crate::service::keys::bearer_token;
use crate::service::limits::{BODY_LIMIT, REQUEST_TIMEOUT};

use crate::http::extract::{REQUEST_ID, request_id};

/// Every route the router serves beside `/mcp`, each with what the
/// OpenAPI document says of it: the REST API's, the browser's, and the
/// document itself.
fn routes() -> Vec<(Operation, MethodRouter<Host>)> {
    let mut routes = crate::rest::routes();
    routes.extend(crate::web::routes());
    routes.extend(crate::http::oauth::routes());
    let ok = |schema| Success::Json(StatusCode::OK, schema);
    routes.push((
        Operation::new(
            Method::GET,
            "/openapi.json",
            "openapi",
            "This document.",
            ok(of::<serde_json::Map<String, serde_json::Value>>),
        )
        .public(),
        get(|| async {
            (
                [(header::CONTENT_TYPE, "application/json")],
                OPENAPI.as_str(),
            )
        }),
    ));
    routes
}

/// The OpenAPI 3.1 document of the REST API, as `/openapi.json` serves it.
///
/// ```
/// let document = index_host::openapi();
/// assert_eq!(document["openapi"], "3.1.0");
/// assert!(document["paths"]["/opportunities/{id}/negotiation/turns"]["post"].is_object());
/// ```
pub fn openapi() -> serde_json::Value {
    crate::http::openapi::document(&operations())
}
/// The REST operations, without their handlers.
pub(crate) fn operations() -> Vec<Operation> {
    routes()
        .into_iter()
        .map(|(operation, _)| operation)
        .collect()
}
/// The document as served, written once.
static OPENAPI: LazyLock<String> = LazyLock::new(|| openapi().to_string());

/// The router: the REST routes and, at `/mcp`, the MCP service, all behind
/// authentication; `/healthz`, `/readyz`, `/openapi.json` and the OAuth
/// discovery paths before it, which hold no data.
pub fn router(host: Host, mcp: Router) -> Router {
    let (mut public, mut api) = (Router::new(), Router::new());
    for (operation, handler) in routes() {
        if operation.public {
            public = public.route(operation.path, handler);
        } else {
            api = api.route(operation.path, handler);
        }
    }
    // A client that meets a 401 looks for OAuth here: the protected
    // resource's metadata is routed above, and any other path says there
    // is nothing, without a key.
    let public = public
        .route(
            "/.well-known/{*rest}",
            any(|| async { HostError::UnknownRoute }),
        )
        .merge(crate::web::pages())
        .merge(crate::oauth::public())
        // A sign-in's body is held to the limit too, before any key.
        .layer(tower_http::limit::RequestBodyLimitLayer::new(BODY_LIMIT))
        .with_state(host.clone());
    let api = api
        .route("/events", get(crate::web::events))
        .merge(crate::oauth::by_session())
        .with_state(host.clone())
        .merge(
            mcp.layer(middleware::from_fn(crate::mcp::gate::gate))
                .layer(middleware::from_fn(session_ended)),
        )
        .fallback(|| async { HostError::UnknownRoute })
        // Inside authentication: an anonymous client learns nothing, not
        // even the limit.
        .layer(tower_http::limit::RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(middleware::from_fn(crate::web::forgery_checked))
        .layer(middleware::from_fn(text_checked))
        .layer(middleware::from_fn_with_state(host.clone(), authenticate));
    public
        .merge(api)
        .layer(middleware::from_fn(crate::web::browser_home))
        .layer(middleware::map_response(one_error_shape))
        .layer(middleware::map_response(crate::http::security::secured))
        .layer(middleware::from_fn_with_state(host, counted))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .layer(tower_http::trace::TraceLayer::new_for_http().make_span_with(request_span))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
        .layer(middleware::map_request(foreign_request_id_checked))
        .layer(middleware::from_fn(closes_when_unread))
}

/// The longest request id the host keeps from a client.
const REQUEST_ID_LIMIT: usize = 64;

/// Whether a client's `x-request-id` is one to keep: 1 to
/// [`REQUEST_ID_LIMIT`] letters, digits and `.`, `_`, `:`, `-`, enough for
/// a UUID, a trace id or a proxy's counter and too plain to forge a log
/// line or carry markup.
fn is_plain_request_id(value: &HeaderValue) -> bool {
    let bytes = value.as_bytes();
    (1..=REQUEST_ID_LIMIT).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b".:_-".contains(b))
}
/// Drops a client's request id unless it is plain (one header, as
/// [`is_plain_request_id`] says), before the id is set: the host then
/// makes a fresh one, which the log and the answer both carry.
async fn foreign_request_id_checked(mut request: Request) -> Request {
    let sent = request.headers().get_all(&REQUEST_ID);
    let mut ids = sent.iter();
    let kept = ids.next().is_none_or(is_plain_request_id) && ids.next().is_none();
    if !kept {
        request.headers_mut().remove(&REQUEST_ID);
    }
    request
}
/// The span every request's events are logged in: its id, method and
/// path (never the query or a body: neither is logged), and the user once
/// the key is known. Each is written quoted and escaped, as every string
/// a client chose is.
fn request_span(request: &Request) -> tracing::Span {
    let id = request
        .headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let span = tracing::info_span!(
        "request",
        request_id = ?id,
        method = %request.method(),
        path = ?request.uri().path(),
        user = tracing::field::Empty,
    );
    crate::http::extract::trace_context(request.headers()).continue_in(&span);
    span
}
/// An MCP session ended by its client (`DELETE /mcp`) answers 204: the
/// MCP service says 202, which the official Python SDK reports as a failed
/// termination (it takes 200 or 204, as a completed DELETE reads).
async fn session_ended(request: Request, next: Next) -> Response {
    let delete = request.method() == axum::http::Method::DELETE;
    let response = next.run(request).await;
    if delete && response.status() == StatusCode::ACCEPTED {
        return StatusCode::NO_CONTENT.into_response();
    }
    response
}
/// Counts every answered request, with its route and latency, whatever
/// answered it (a route, authentication, the fallback).
async fn counted(State(host): State<Host>, request: Request, next: Next) -> Response {
    let started = std::time::Instant::now();
    let labels = crate::service::metrics::request_labels(&request);
    let response = next.run(request).await;
    host.metrics()
        .request(labels, response.status().as_u16(), started.elapsed());
    response
}
/// The error shape on the answers that the router, its layers and the MCP
/// service write as plain text or empty: a body over the limit (413), a
/// method a route does not take (405, keeping its `Allow`), a request
/// past the timeout (408).
async fn one_error_shape(response: Response) -> Response {
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
    let error = match response.status() {
        _ if json => return response,
        StatusCode::PAYLOAD_TOO_LARGE => HostError::PayloadTooLarge,
        StatusCode::METHOD_NOT_ALLOWED => HostError::MethodNotAllowed,
        StatusCode::REQUEST_TIMEOUT => HostError::RequestTimeout,
        _ => return response,
    };
    let allow = response.headers().get(header::ALLOW).cloned();
    let mut shaped = error.into_response();
    if let Some(allow) = allow {
        shaped.headers_mut().insert(header::ALLOW, allow);
    }
    shaped
}
/// Authenticates every request, putting the [`Caller`] into its extensions
/// (where the MCP service finds it too): by its bearer key, or else by a
/// browser's session cookie (marked, for the forgery check).
async fn authenticate(State(host): State<Host>, mut request: Request, next: Next) -> Response {
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(bearer_token);
    let cookie = crate::web::session_token(request.headers()).filter(|_| bearer.is_none());
    let token = bearer.or(cookie);
    let request_id = request_id(request.headers());
    let authenticated = match cookie {
        Some(_) => host.authenticate_session(token, request_id).await,
        None => host.authenticate(token, request_id).await,
    };
    match authenticated {
        Ok(caller) => {
            tracing::Span::current().record("user", caller.user_id.as_str());
            tracing::info!(user = ?caller.user_id.as_str(), key = %caller.key_id, "authenticated");
            if cookie.is_some() {
                request.extensions_mut().insert(crate::http::ByCookie);
            }
            request.extensions_mut().insert(Arc::new(caller));
            next.run(request).await
        }
        Err(err) => {
            tracing::info!(code = err.code(), "refused");
            let challenge = crate::http::oauth::challenge(&host, token.is_some(), &err);
            let challenged = matches!(
                err.status(),
                StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN
            );
            let mut response = err.into_response();
            if challenged {
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, challenge);
            }
            response
        }
    }
}
/// Whether a request's head announces a body.
fn sends_a_body(headers: &HeaderMap) -> bool {
    headers.contains_key(header::TRANSFER_ENCODING)
        || headers
            .get(header::CONTENT_LENGTH)
            .is_some_and(|length| length.as_bytes() != b"0")
}

/// Says `Connection: close` on an answer to a request whose body was not
/// read to its end, whatever answered it (authentication, the text or
/// origin checks, the body limit, the timeout, a route that refuses before
/// its extractor reads). The connection cannot carry another request
/// until the rest of that body has gone by, so the server closes it once
/// the answer is out: said so, a client sends its next request (an OAuth
/// client's discovery, after the 401) on a new connection instead of one
/// that is going away.
async fn closes_when_unread(request: Request, next: Next) -> Response {
    if !sends_a_body(request.headers()) {
        return next.run(request).await;
    }
    let read = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let request = request.map(|body| {
        axum::body::Body::new(ReadToEnd {
            inner: body,
            read: read.clone(),
        })
    });
    let mut response = next.run(request).await;
    if !read.load(std::sync::atomic::Ordering::Acquire) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// A request body that notes when it has been read to its end.
struct ReadToEnd {
    inner: axum::body::Body,
    read: Arc<std::sync::atomic::AtomicBool>,
}

impl http_body::Body for ReadToEnd {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let polled = std::pin::Pin::new(&mut self.inner).poll_frame(cx);
        let ended = match &polled {
            std::task::Poll::Ready(None) => true,
            std::task::Poll::Ready(Some(Ok(_))) => self.inner.is_end_stream(),
            _ => false,
        };
        if ended {
            self.read.store(true, std::sync::atomic::Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// Refuses a request whose path or query, percent-decoded, is not UTF-8
/// (400 `invalid_request`), once its key is known. Read lossily, each bad
/// byte would become U+FFFD, so a filter or an id the client never sent
/// would be acted on; and a path id that cannot be text is no negotiation
/// anyway.
async fn text_checked(request: Request, next: Next) -> Response {
    let uri = request.uri();
    if let Some(part) = [("path", Some(uri.path())), ("query", uri.query())]
        .into_iter()
        .find_map(|(part, text)| text.filter(|text| !decodes_to_utf8(text)).map(|_| part))
    {
        tracing::info!(part, "refused a request that is not UTF-8");
        return HostError::BadRequest(format!(
            "the request's {part}, percent-decoded, is not UTF-8"
        ))
        .into_response();
    }
    next.run(request).await
}
/// Whether `text`, each `%` and two hex digits read as the byte they
/// name (a `%` without them as itself), is UTF-8.
fn decodes_to_utf8(text: &str) -> bool {
    fn hex(digit: u8) -> Option<u8> {
        char::from(digit)
            .to_digit(16)
            .and_then(|value| u8::try_from(value).ok())
    }
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        let escaped = match (byte, bytes.get(at + 1), bytes.get(at + 2)) {
            (b'%', Some(&high), Some(&low)) => hex(high).zip(hex(low)),
            _ => None,
        };
        match escaped {
            Some((high, low)) => {
                decoded.push((high << 4) | low);
                at += 3;
            }
            None => {
                decoded.push(byte);
                at += 1;
            }
        }
    }
    std::str::from_utf8(&decoded).is_ok()
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_read_and_written_has_one_shape() {
        let crate::http::openapi::Described { written, read, .. } =
            crate::http::openapi::described(&operations());
        for (name, schema) in &read {
            if let Some(other) = written.get(name) {
                assert_eq!(schema, other, "{name} reads and writes in two shapes");
            }
        }
        assert!(read.contains_key("TurnBody") && written.contains_key("NegotiationView"));
    }

    #[test]
    fn a_path_or_query_is_text_only_when_its_escapes_make_utf8() {
        for text in [
            "/negotiations",
            "with=Jos%C3%A9&state=open",
            "with=%E5%B1%B1%E7%94%B0",
            "100%",
            "a%2",
            "%zz",
            "with=dana+sam",
        ] {
            assert!(decodes_to_utf8(text), "{text}");
        }
        for text in [
            "with=%FF",
            "/opportunities/%C3/negotiation",
            "a=%C3%28",
            "%ED%A0%80",
            "x=%c0%af",
        ] {
            assert!(!decodes_to_utf8(text), "{text}");
        }
    }

    #[tokio::test]
    async fn the_timeout_layers_empty_answer_is_in_the_error_shape() {
        let empty = StatusCode::REQUEST_TIMEOUT.into_response();
        let shaped = one_error_shape(empty).await;
        assert_eq!(shaped.status(), StatusCode::REQUEST_TIMEOUT);
        let body = axum::body::to_bytes(shaped.into_body(), 1024)
            .await
            .expect("a body");
        let body: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(body["error"]["code"], "request_timeout");
    }
}
