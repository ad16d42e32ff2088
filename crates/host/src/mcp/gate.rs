//! What stands between an authenticated request and rmcp's `/mcp` service:
//! the key the request's session is counted against, the body read once
//! and held to the limit, and rmcp's own refusals put in the host's shape.
//!
//! rmcp reads a body through whatever limit wraps it and answers a body
//! found over the limit while being read as a 500, a body that is not JSON
//! as a 415, and every refusal as plain text. The gate reads the body
//! first (413, 415 and `malformed_json` in the error shape), and turns
//! what rmcp answers in plain text into `{"error": {"code", "message"}}`
//! with the same status. A call rmcp is slow to answer is held on an event
//! stream that keeps the connection alive (`crate::mcp::keep_alive`).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;

use crate::mcp::sessions::SESSION_KEY;
use index_negotiation::NegotiationRejection;
use index_negotiation_store::Refusal;

use crate::service::error::{Code, ErrorCode, HostError};
use crate::service::keys::Caller;
use crate::service::limits::BODY_LIMIT;

/// The gate itself, as an axum middleware in front of the MCP service.
pub(crate) async fn gate(request: Request, next: Next) -> Response {
    let key = request
        .extensions()
        .get::<Arc<Caller>>()
        .map(|caller| caller.key_id.clone())
        .unwrap_or_default();
    let request = match read_body(request).await {
        Ok(request) => request,
        Err(err) => return err.into_response(),
    };
    let streams = request.method() == Method::POST
        && request
            .headers()
            .get(header::ACCEPT)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|accept| accept.contains("text/event-stream"));
    let answer = SESSION_KEY.scope(key, next.run(request));
    let response = if streams {
        crate::mcp::keep_alive::kept_alive(answer).await
    } else {
        answer.await
    };
    shaped(response).await
}

/// The request with its body read whole (a POST's); or the refusal of a
/// body over the limit, not JSON, or not sent as JSON.
async fn read_body(request: Request) -> Result<Request, HostError> {
    if request.method() != Method::POST {
        return Ok(request);
    }
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return Err(HostError::UnsupportedMediaType);
    }
    let (parts, body) = request.into_parts();
    let bytes = http_body_util::Limited::new(body, BODY_LIMIT)
        .collect()
        .await
        .map_err(|err| {
            if over_limit(&*err) {
                HostError::PayloadTooLarge
            } else {
                HostError::BadRequest("the request body could not be read".to_owned())
            }
        })?
        .to_bytes();
    serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).map_err(|err| HostError::Invalid {
        code: Code::Host(ErrorCode::MalformedJson),
        message: format!("the body is not JSON: {err}"),
    })?;
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// Whether a body failed because it is over a limit, this gate's or the
/// one the router puts on every body (which comes wrapped in axum's error).
fn over_limit(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(err);
    while let Some(err) = cause {
        if err.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        cause = err.source();
    }
    false
}

/// rmcp's answer, in the host's shape where it is plain text.
async fn shaped(response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
    let (parts, body) = response.into_parts();
    // rmcp's refusals are a line of text or one JSON-RPC error; anything
    // longer is cut, never read without bound.
    let bytes = http_body_util::Limited::new(body, BODY_LIMIT)
        .collect()
        .await
        .map(http_body_util::Collected::to_bytes)
        .unwrap_or_default();
    if json {
        return Response::from_parts(parts, Body::from(bytes));
    }
    let code = match status {
        StatusCode::PAYLOAD_TOO_LARGE => Code::Host(ErrorCode::PayloadTooLarge),
        StatusCode::METHOD_NOT_ALLOWED => Code::Host(ErrorCode::MethodNotAllowed),
        StatusCode::NOT_FOUND => Code::Rules(Refusal::Turn(NegotiationRejection::NotFound)),
        _ if status.is_server_error() => Code::Host(ErrorCode::Unavailable),
        _ => Code::Host(ErrorCode::InvalidRequest),
    };
    let message = String::from_utf8_lossy(&bytes).trim().to_owned();
    let body = HostError::Invalid { code, message }.body();
    let mut shaped = (status, axum::Json(body)).into_response();
    for name in [header::ALLOW, header::WWW_AUTHENTICATE] {
        if let Some(value) = parts.headers.get(&name) {
            shaped.headers_mut().insert(name, value.clone());
        }
    }
    shaped
}
