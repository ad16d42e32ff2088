//! The extractors every route uses: a path's negotiation, a JSON body and
//! a query, each refusing with the one error shape.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};

use index_negotiation_store::OpportunityId;

use crate::service::error::HostError;
use crate::service::trace_context::TraceContext;

/// The negotiation a path names: its opportunity id, a UUID in canonical
/// form. Anything else is the same `not_found` as a missing negotiation.
pub(crate) struct Negotiation(pub(crate) OpportunityId);

impl<S: Send + Sync> FromRequestParts<S> for Negotiation {
    type Rejection = HostError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, HostError> {
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| HostError::NotFound)?;
        OpportunityId::parse(id)
            .map(Negotiation)
            .map_err(|_| HostError::NotFound)
    }
}

/// The interaction a path names, by its id: an empty one is the same
/// `not_found` as a missing interaction.
pub(crate) struct Interaction(pub(crate) String);

impl<S: Send + Sync> FromRequestParts<S> for Interaction {
    type Rejection = HostError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, HostError> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(id)) if !id.is_empty() => Ok(Interaction(id)),
            _ => Err(HostError::NoInteraction),
        }
    }
}

/// The webhook endpoint a path names, by its id: an empty one is the same
/// `not_found` as a missing endpoint.
pub(crate) struct Webhook(pub(crate) String);

impl<S: Send + Sync> FromRequestParts<S> for Webhook {
    type Rejection = HostError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, HostError> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(id)) if !id.is_empty() => Ok(Webhook(id)),
            _ => Err(HostError::NoWebhook),
        }
    }
}

/// A JSON body, or the one error shape: `malformed_json`,
/// `unsupported_media_type` for a body not sent as JSON, or
/// `payload_too_large` for a chunked body found over the limit.
pub(crate) struct ApiJson<T>(pub(crate) T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = HostError;

    async fn from_request(request: Request, state: &S) -> Result<Self, HostError> {
        Json::<T>::from_request(request, state)
            .await
            .map(|Json(value)| ApiJson(value))
            .map_err(malformed)
    }
}

/// A JSON body that may be left out: a request with no `Content-Type`
/// and nothing in its body is `None`. Any body at all must be JSON, as
/// [`ApiJson`] takes it: one sent as text, or with no type, is refused,
/// never read as empty, since what it says may be what a check needs.
pub(crate) struct OptionalApiJson<T>(pub(crate) Option<T>);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequest<S> for OptionalApiJson<T> {
    type Rejection = HostError;

    async fn from_request(request: Request, state: &S) -> Result<Self, HostError> {
        if request.headers().contains_key(header::CONTENT_TYPE) {
            let ApiJson(value) = ApiJson::from_request(request, state).await?;
            return Ok(OptionalApiJson(Some(value)));
        }
        let body = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    HostError::PayloadTooLarge
                } else {
                    HostError::BadRequest(rejection.body_text())
                }
            })?;
        if body.is_empty() {
            Ok(OptionalApiJson(None))
        } else {
            Err(HostError::UnsupportedMediaType)
        }
    }
}

/// A query string, or the one error shape (`invalid_request`).
pub(crate) struct ApiQuery<T>(pub(crate) T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = HostError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, HostError> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(value)| ApiQuery(value))
            .map_err(|rejection| HostError::BadRequest(rejection.body_text()))
    }
}

/// A JSON body refused: `payload_too_large`, `unsupported_media_type`
/// or `malformed_json`.
fn malformed(rejection: JsonRejection) -> HostError {
    // A chunked body over the limit is found only while it is read.
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return HostError::PayloadTooLarge;
    }
    if let JsonRejection::MissingJsonContentType(_) = rejection {
        return HostError::UnsupportedMediaType;
    }
    HostError::Invalid {
        code: crate::service::error::Code::Host(crate::service::error::ErrorCode::MalformedJson),
        message: rejection.body_text(),
    }
}

/// The header that carries a request's id, set (or kept from the client)
/// before anything else reads the request.
pub(crate) const REQUEST_ID: axum::http::HeaderName =
    axum::http::HeaderName::from_static("x-request-id");

/// The request's id, as the outer layers set it: the audit record names
/// it beside each step the request takes.
pub(crate) fn request_id(headers: &HeaderMap) -> Option<&str> {
    headers.get(REQUEST_ID).and_then(|id| id.to_str().ok())
}

/// The W3C trace context a request's headers carry: one of each (a
/// second `traceparent` makes the request name no trace, as the W3C rules
/// say; of two `tracestate` headers, which the rules would join, neither is
/// kept: a vendor's state is passed on only as it came).
pub(crate) fn trace_context(headers: &HeaderMap) -> TraceContext<'_> {
    let one = |name: &str| {
        let mut values = headers.get_all(name).iter();
        let first = values.next()?.to_str().ok();
        values.next().is_none().then_some(first).flatten()
    };
    TraceContext {
        traceparent: one("traceparent"),
        tracestate: one("tracestate"),
    }
}
