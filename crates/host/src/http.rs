//! The REST API and the MCP endpoint on one axum router.
//!
//! Every route but `/healthz`, `/readyz` and the OAuth discovery paths
//! authenticates first: a request without a valid key gets 401 and nothing
//! else. Every error has one JSON shape, whatever its status; every
//! response carries an `x-request-id`; bodies over [`BODY_LIMIT`] get 413.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};

use index_negotiation_store::{CloseReason, OpenNegotiation, OpportunityId, Seat};

use crate::error::HostError;
use crate::host::{Host, ListQuery, id_field, wait_duration};
use crate::keys::{Caller, bearer_token};

/// The largest request body accepted, in bytes.
pub const BODY_LIMIT: usize = 64 * 1024;

/// How long one request may take before it is answered 408; waits are
/// bounded by [`crate::MAX_WAIT`], below this.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(90);

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

impl IntoResponse for HostError {
    fn into_response(self) -> Response {
        if let HostError::Store(err) = &self {
            tracing::error!(error = %index_negotiation_store::ErrorChain(err), "store failed");
        }
        (self.status(), Json(self.body())).into_response()
    }
}

/// The router: the REST routes and, at `/mcp`, the MCP service, all behind
/// authentication; `/healthz`, `/readyz` and the OAuth discovery paths
/// before it, which hold no data.
pub fn router(host: Host, mcp: Router) -> Router {
    let public = Router::new()
        .route(
            "/healthz",
            get(|| async { Json(serde_json::json!({"status": "ok"})) }),
        )
        .route("/readyz", get(readyz))
        // A client that meets a 401 looks for OAuth here; the answer says
        // there is none, without a key, so it asks for one instead.
        .route(
            "/.well-known/{*rest}",
            any(|| async { HostError::UnknownRoute }),
        )
        .with_state(host.clone());
    let api = Router::new()
        .route("/negotiations", get(list).post(open))
        .route("/opportunities/{id}/negotiation", get(show))
        .route("/opportunities/{id}/negotiation/turns", post(turn))
        .route("/opportunities/{id}/negotiation/resume", post(resume))
        .route("/opportunities/{id}/negotiation/close", post(close))
        .route("/opportunities/{id}/negotiation/messages", get(messages))
        .route("/opportunities/{id}/negotiation/park", post(park))
        .route("/answers", post(answers))
        .route("/metrics", get(metrics))
        .with_state(host.clone())
        .merge(mcp.layer(middleware::from_fn(session_ended)))
        .fallback(|| async { HostError::UnknownRoute })
        // Inside authentication: an anonymous client learns nothing, not
        // even the limit.
        .layer(tower_http::limit::RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(host.clone(), authenticate));
    public
        .merge(api)
        .layer(middleware::map_response(one_error_shape))
        .layer(middleware::from_fn_with_state(host, counted))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .layer(
            tower_http::trace::TraceLayer::new_for_http().make_span_with(|request: &Request| {
                let id = request
                    .headers()
                    .get(&REQUEST_ID)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default();
                // The path, never the query or a body: neither is logged.
                tracing::info_span!(
                    "request",
                    request_id = %id,
                    method = %request.method(),
                    path = %request.uri().path(),
                    user = tracing::field::Empty,
                )
            }),
        )
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
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
    let labels = crate::metrics::request_labels(&request);
    let response = next.run(request).await;
    host.metrics()
        .request(labels, response.status().as_u16(), started.elapsed());
    response
}

/// `GET /metrics`: Prometheus's text format, for a host key.
async fn metrics(State(host): State<Host>, caller: Authed) -> Result<Response, HostError> {
    let text = host.metrics_text(&caller).await?;
    Ok((
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        text,
    )
        .into_response())
}

/// Whether the store answers: 200, or 503 with the error shape.
async fn readyz(State(host): State<Host>) -> Response {
    match host.ready().await {
        Ok(()) => Json(serde_json::json!({"status": "ready"})).into_response(),
        Err(err) => {
            let mut response = err.into_response();
            *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
            response
        }
    }
}

/// The error shape on the answers that the router, its layers and the MCP
/// service write as plain text or empty: a body over the limit (413), a
/// method a route does not take (405, keeping its `Allow`).
async fn one_error_shape(response: Response) -> Response {
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
    let error = match response.status() {
        _ if json => return response,
        StatusCode::PAYLOAD_TOO_LARGE => HostError::PayloadTooLarge,
        StatusCode::METHOD_NOT_ALLOWED => HostError::MethodNotAllowed,
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
/// (where the MCP service finds it too).
async fn authenticate(State(host): State<Host>, mut request: Request, next: Next) -> Response {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(bearer_token);
    match host.authenticate(token).await {
        Ok(caller) => {
            tracing::Span::current().record("user", caller.user_id.as_str());
            tracing::info!(user = %caller.user_id, key = %caller.key_id, "authenticated");
            request.extensions_mut().insert(Arc::new(caller));
            next.run(request).await
        }
        Err(err) => {
            tracing::info!(code = err.code(), "refused");
            // A key that was sent and is not valid says so, so that a client
            // asks its user for another rather than for an OAuth login.
            let challenge = match (&err, token) {
                (HostError::KeyExpired, _) => {
                    "Bearer error=\"invalid_token\", error_description=\"The API key has expired\""
                }
                (_, Some(_)) => "Bearer error=\"invalid_token\"",
                (_, None) => "Bearer",
            };
            let unauthorized = err.status() == StatusCode::UNAUTHORIZED;
            let mut response = err.into_response();
            if unauthorized {
                response.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static(challenge),
                );
            }
            response
        }
    }
}

type Authed = Extension<Arc<Caller>>;

/// The negotiation a path names: its opportunity id, a UUID in canonical
/// form. Anything else is the same `not_found` as a missing negotiation.
struct Negotiation(OpportunityId);

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

/// A JSON body, or the one error shape: `malformed_json`, or
/// `payload_too_large` for a chunked body found over the limit.
struct ApiJson<T>(T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = HostError;

    async fn from_request(request: Request, state: &S) -> Result<Self, HostError> {
        Json::<T>::from_request(request, state)
            .await
            .map(|Json(value)| ApiJson(value))
            .map_err(malformed)
    }
}

/// A query string, or the one error shape (`invalid_request`).
struct ApiQuery<T>(T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = HostError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, HostError> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(value)| ApiQuery(value))
            .map_err(|rejection| HostError::BadRequest(rejection.body_text()))
    }
}

/// What `open` and `close` answer: the negotiation after the change, in
/// its own field order.
#[derive(serde::Serialize)]
struct Changed {
    negotiation: index_negotiation_store::NegotiationSummary,
}

fn malformed(rejection: JsonRejection) -> HostError {
    // A chunked body over the limit is found only while it is read.
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return HostError::PayloadTooLarge;
    }
    HostError::Invalid {
        code: crate::error::ErrorCode::MalformedJson.as_str(),
        message: rejection.body_text(),
    }
}

fn refused(err: HostError) -> HostError {
    if let HostError::Refused(_) | HostError::Invalid { .. } = &err {
        tracing::info!(code = err.code(), "refused");
    }
    err
}

#[derive(Deserialize)]
struct ShowQuery {
    /// Seconds to wait for a change or the caller's turn.
    wait: Option<f64>,
}

async fn show(
    State(host): State<Host>,
    Extension(caller): Authed,
    Negotiation(id): Negotiation,
    ApiQuery(query): ApiQuery<ShowQuery>,
) -> Result<Response, HostError> {
    let view = match query.wait {
        None => host.view(&caller, &id).await?,
        Some(seconds) => host.wait(&caller, &id, wait_duration(seconds)?).await?,
    };
    Ok(Json(view).into_response())
}

async fn turn(
    State(host): State<Host>,
    Extension(caller): Authed,
    Negotiation(id): Negotiation,
    ApiJson(turn): ApiJson<serde_json::Value>,
) -> Result<Response, HostError> {
    // A turn is `{action, message}`; a key beyond them is refused, as every
    // route and tool refuses what its schema does not define.
    if let Some(key) = turn.as_object().and_then(|object| {
        object
            .keys()
            .find(|key| !matches!(key.as_str(), "action" | "message"))
    }) {
        return Err(HostError::BadRequest(format!(
            "a turn takes no key {key:?}"
        )));
    }
    let taken = host.turn(&caller, &id, &turn).await.map_err(refused)?;
    tracing::info!(user = %caller.user_id, turn_index = ?taken.decision.permitted().map(|p| p.turn_index), "turn");
    Ok(Json(taken).into_response())
}

async fn resume(
    State(host): State<Host>,
    Extension(caller): Authed,
    Negotiation(id): Negotiation,
) -> Result<Response, HostError> {
    Ok(Json(host.resume(&caller, &id).await.map_err(refused)?).into_response())
}

async fn messages(
    State(host): State<Host>,
    Extension(caller): Authed,
    Negotiation(id): Negotiation,
) -> Result<Response, HostError> {
    Ok(Json(host.messages(&caller, &id).await?).into_response())
}

async fn list(
    State(host): State<Host>,
    Extension(caller): Authed,
    ApiQuery(query): ApiQuery<ListQuery>,
) -> Result<Response, HostError> {
    let page = host.list(&caller, &query.filter()?).await?;
    Ok(Json(page).into_response())
}

/// `POST /negotiations`: the opening request.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct OpenBody {
    opportunity_id: String,
    initiator: SeatBody,
    responder: SeatBody,
    #[serde(default = "eligible")]
    eligible: bool,
}

fn eligible() -> bool {
    true
}

/// A seat as the request spells it: its ids are checked after the JSON is
/// read, so a bad one is refused by name rather than as malformed JSON.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SeatBody {
    user_id: String,
    intent_id: String,
}

impl SeatBody {
    fn checked(self, what: &str) -> Result<Seat, HostError> {
        Ok(Seat {
            user_id: id_field(&format!("{what}.userId"), self.user_id)?,
            intent_id: id_field(&format!("{what}.intentId"), self.intent_id)?,
        })
    }
}

async fn open(
    State(host): State<Host>,
    Extension(caller): Authed,
    ApiJson(request): ApiJson<OpenBody>,
) -> Result<Response, HostError> {
    let negotiation = OpenNegotiation {
        opportunity_id: id_field("opportunityId", request.opportunity_id)?,
        initiator: request.initiator.checked("initiator")?,
        responder: request.responder.checked("responder")?,
        eligible: request.eligible,
    };
    let opened = host.open(&caller, &negotiation).await.map_err(refused)?;
    Ok((
        StatusCode::CREATED,
        Json(Changed {
            negotiation: opened,
        }),
    )
        .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CloseBody {
    reason: CloseReason,
}

async fn close(
    State(host): State<Host>,
    Extension(caller): Authed,
    Negotiation(id): Negotiation,
    ApiJson(request): ApiJson<CloseBody>,
) -> Result<Response, HostError> {
    let closed = host.close(&caller, &id, request.reason).await?;
    Ok(Json(Changed {
        negotiation: closed,
    })
    .into_response())
}

/// `POST /answers`: the caller's answers to a question message (or its
/// block), question positions from 0.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AnswersBody {
    /// The question message as the person received it.
    message: Option<String>,
    /// Or its block.
    block: Option<serde_json::Value>,
    answers: Vec<AnswerBody>,
}

impl AnswersBody {
    /// The block the answers go to, and the answers by question position,
    /// each trimmed. A blank or overlong answer refuses the whole request
    /// (400, `blank_answer` or `answer_too_long`) before anything is
    /// delivered, as the command line refuses it.
    pub(crate) fn into_parts(
        self,
    ) -> Result<(index_question_block::QuestionBlock, Vec<(usize, String)>), HostError> {
        let block = question_block(self.message, self.block)?;
        let answers = self
            .answers
            .into_iter()
            .map(|a| match index_negotiation::check_answer(&a.answer) {
                Ok(answer) => Ok((a.question, answer.to_owned())),
                Err(rejection) => Err(HostError::Invalid {
                    code: rejection.as_str(),
                    message: format!(
                        "answer to question {}: {}",
                        a.question,
                        rejection.explanation()
                    ),
                }),
            })
            .collect::<Result<_, _>>()?;
        Ok((block, answers))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerBody {
    question: usize,
    answer: String,
}

async fn answers(
    State(host): State<Host>,
    Extension(caller): Authed,
    ApiJson(request): ApiJson<AnswersBody>,
) -> Result<Response, HostError> {
    let (block, answers) = request.into_parts()?;
    Ok(Json(host.answer(&caller, &block, &answers).await).into_response())
}

/// The block answers go to: read from the question message, or given.
fn question_block(
    message: Option<String>,
    block: Option<serde_json::Value>,
) -> Result<index_question_block::QuestionBlock, HostError> {
    match (message, block) {
        (Some(message), None) => index_question_block::parse_question_message(&message)
            .map(|parsed| parsed.block)
            .ok_or_else(|| HostError::BadRequest("message is not a question message".to_owned())),
        (None, Some(block)) => index_question_block::QuestionBlock::from_json_value(&block)
            .map_err(|invalid| HostError::BadRequest(invalid.to_string())),
        _ => Err(HostError::BadRequest(
            "give the question message or its block, one of the two".to_owned(),
        )),
    }
}

/// `POST /opportunities/:id/negotiation/park`: park on a question for the
/// caller's person, with this host's model.
async fn park(
    State(host): State<Host>,
    Extension(caller): Authed,
    Negotiation(id): Negotiation,
    request: Result<Json<index_stall_gap::ParkRequest>, JsonRejection>,
) -> Result<Response, HostError> {
    let request = match request {
        Ok(Json(request)) => request,
        // No body at all is an empty request.
        Err(JsonRejection::MissingJsonContentType(_)) => index_stall_gap::ParkRequest::default(),
        Err(rejection) => return Err(malformed(rejection)),
    };
    let parked = host.park(&caller, &id, &request).await.map_err(refused)?;
    Ok(Json(parked.report()).into_response())
}
