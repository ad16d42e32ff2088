//! The REST API and the MCP endpoint on one axum router.
//!
//! Every route but `/healthz`, `/readyz`, `/openapi.json` and the OAuth
//! discovery paths authenticates first: a request without a valid key gets 401 and nothing
//! else. Every error has one JSON shape, whatever its status; every
//! response carries an `x-request-id`; bodies over [`BODY_LIMIT`] get 413.

use std::sync::{Arc, LazyLock};

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, any, get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};

use index_negotiation_store::{
    CloseReason, DeliveryReport, NegotiationPage, OpenNegotiation, OpportunityId, Seat,
};
use index_stall_gap::{ParkReport, ParkRequest};

use crate::error::HostError;
use crate::extract::{ApiJson, ApiQuery, Negotiation, OptionalApiJson};
use crate::host::{Host, ListQuery, NegotiationView, Resumed, TurnTaken, id_field, wait_duration};
use crate::keys::{Caller, bearer_token};
use crate::openapi::{Fails, Operation, Success, of};

pub use crate::limits::{BODY_LIMIT, REQUEST_TIMEOUT};

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

impl IntoResponse for HostError {
    fn into_response(self) -> Response {
        self.log_cause();
        (self.status(), Json(self.body())).into_response()
    }
}

/// The REST API: each route's handler beside what the OpenAPI document
/// says of it, so a route can be neither served undocumented nor
/// documented unserved.
fn routes() -> Vec<(Operation, MethodRouter<Host>)> {
    use Fails::{
        Answer, Body, CrossOrigin, HostKey, NotReady, Open, Oversize, Park, Request, Resume, Seat,
        SignIn, Turn,
    };
    let ok = |schema| Success::Json(StatusCode::OK, schema);
    vec![
        (
            Operation::new(Method::GET, "/healthz", "health", "Whether the host is alive.", ok(of::<Health>))
                .public(),
            get(|| async { Json(Health { status: "ok" }) }),
        ),
        (
            Operation::new(Method::GET, "/readyz", "readiness", "Whether the store answers.", ok(of::<Health>))
                .public()
                .fails(&[NotReady]),
            get(readyz),
        ),
        (
            Operation::new(Method::GET, "/openapi.json", "openapi", "This document.", ok(of::<serde_json::Map<String, serde_json::Value>>))
                .public(),
            get(|| async { ([(header::CONTENT_TYPE, "application/json")], OPENAPI.as_str()) }),
        ),
        (
            Operation::new(Method::GET, "/negotiations", "listNegotiations", "A page of the caller's negotiations, newest change first.", ok(of::<NegotiationPage>))
                .query(of::<ListQuery>)
                .fails(&[Request]),
            get(list),
        ),
        (
            Operation::new(Method::POST, "/negotiations", "openNegotiation", "Open a negotiation (host keys).", Success::Json(StatusCode::CREATED, of::<Changed>))
                .body(of::<OpenBody>)
                .fails(&[Body, Request, HostKey, Open]),
            post(open),
        ),
        (
            Operation::new(Method::GET, "/opportunities/{id}/negotiation", "getNegotiation", "The negotiation as the caller's seat sees it; with `wait`, once it changes or it is the caller's turn.", ok(of::<NegotiationView>))
                .query(of::<ShowQuery>)
                .fails(&[Seat, Request]),
            get(show),
        ),
        (
            Operation::new(Method::POST, "/opportunities/{id}/negotiation/turns", "takeTurn", "Take the caller's turn.", ok(of::<TurnTaken>))
                .body(of::<TurnBody>)
                .fails(&[Seat, Body, Request, Turn]),
            post(turn),
        ),
        (
            Operation::new(Method::POST, "/opportunities/{id}/negotiation/resume", "resumeNegotiation", "Resume a negotiation paused between rounds, the caller's seat first.", ok(of::<Resumed>))
                .fails(&[Seat, Resume]),
            post(resume),
        ),
        (
            Operation::new(Method::POST, "/opportunities/{id}/negotiation/close", "closeNegotiation", "Close a negotiation (host keys).", ok(of::<Changed>))
                .body(of::<CloseBody>)
                .fails(&[Seat, Body, HostKey]),
            post(close),
        ),
        (
            Operation::new(Method::GET, "/opportunities/{id}/negotiation/messages", "listMessages", "The negotiation's message record, as the caller's seat may read it.", ok(of::<Vec<index_negotiation::NegotiationMessage>>))
                .fails(&[Seat]),
            get(messages),
        ),
        (
            Operation::new(Method::POST, "/opportunities/{id}/negotiation/park", "parkNegotiation", "Park a stalled negotiation on a question for the caller's person, with this host's model.", ok(of::<ParkReport>))
                .optional_body(of::<ParkRequest>)
                .fails(&[Seat, Body, Request, Park]),
            post(park),
        ),
        (
            Operation::new(Method::POST, "/answers", "deliverAnswers", "Deliver the caller's answers to a question message; each negotiation they unblock resumes once.", ok(of::<DeliveryReport>))
                .body(of::<AnswersBody>)
                .fails(&[Body, Request, Answer]),
            post(answers),
        ),
        (
            Operation::new(Method::POST, "/session", "signIn", "Sign a browser in with a person's key or a login link: the session key goes into an HttpOnly cookie.", Success::Json(StatusCode::CREATED, of::<crate::web::SignedIn>))
                .public()
                .body(of::<crate::web::SignInBody>)
                .fails(&[Body, SignIn, CrossOrigin, Oversize]),
            post(crate::web::sign_in),
        ),
        (
            Operation::new(Method::GET, "/session", "session", "Who the caller is.", ok(of::<crate::web::SignedIn>)),
            get(crate::web::signed_in),
        ),
        (
            Operation::new(Method::DELETE, "/session", "signOut", "End the browser session the cookie carries, on every process of the store.", Success::Empty(StatusCode::NO_CONTENT))
                .fails(&[Request]),
            axum::routing::delete(crate::web::sign_out),
        ),
        (
            Operation::new(Method::GET, "/questions", "listQuestions", "The questions the caller's person is asked, as question messages, one per distinct question, and the negotiations whose question could not be read.", ok(of::<crate::host::Questions>)),
            get(crate::web::questions),
        ),
        (
            Operation::new(Method::GET, "/metrics", "metrics", "Prometheus metrics (host keys).", Success::Metrics)
                .fails(&[HostKey]),
            get(metrics),
        ),
    ]
}

/// The OpenAPI 3.1 document of the REST API, as `/openapi.json` serves it.
///
/// ```
/// let document = index_host::openapi();
/// assert_eq!(document["openapi"], "3.1.0");
/// assert!(document["paths"]["/opportunities/{id}/negotiation/turns"]["post"].is_object());
/// ```
pub fn openapi() -> serde_json::Value {
    crate::openapi::document(&operations())
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

/// What `/healthz` and `/readyz` answer when all is well.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Health {
    /// `ok` (the host is alive) or `ready` (its store answers).
    status: &'static str,
}

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
    // A client that meets a 401 looks for OAuth here; the answer says
    // there is none, without a key, so it asks for one instead.
    let public = public
        .route(
            "/.well-known/{*rest}",
            any(|| async { HostError::UnknownRoute }),
        )
        .merge(crate::web::pages())
        // A sign-in's body is held to the limit too, before any key.
        .layer(tower_http::limit::RequestBodyLimitLayer::new(BODY_LIMIT))
        .with_state(host.clone());
    let api = api
        .route("/events", get(crate::web::events))
        .with_state(host.clone())
        .merge(
            mcp.layer(middleware::from_fn(crate::mcp_gate::gate))
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
        .layer(middleware::map_response(crate::web::secured))
        .layer(middleware::from_fn_with_state(host, counted))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .layer(tower_http::trace::TraceLayer::new_for_http().make_span_with(request_span))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
        .layer(middleware::map_request(foreign_request_id_checked))
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
    tracing::info_span!(
        "request",
        request_id = ?id,
        method = %request.method(),
        path = ?request.uri().path(),
        user = tracing::field::Empty,
    )
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
        Ok(()) => Json(Health { status: "ready" }).into_response(),
        Err(err) => {
            let mut response = err.into_response();
            *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
            response
        }
    }
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
    match host.authenticate(token).await {
        Ok(caller) => {
            tracing::Span::current().record("user", caller.user_id.as_str());
            tracing::info!(user = ?caller.user_id.as_str(), key = %caller.key_id, "authenticated");
            if cookie.is_some() {
                request.extensions_mut().insert(crate::web::ByCookie);
            }
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

type Authed = Extension<Arc<Caller>>;

/// What `open` and `close` answer: the negotiation after the change, in
/// its own field order.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Changed {
    /// The negotiation after the change.
    pub(crate) negotiation: index_negotiation_store::NegotiationSummary,
}

fn refused(err: HostError) -> HostError {
    if let HostError::Refused(_) | HostError::Invalid { .. } = &err {
        tracing::info!(code = err.code(), "refused");
    }
    err
}

/// `GET …/negotiation`'s query.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ShowQuery {
    /// Seconds to wait for a change or for your turn before answering.
    #[schemars(range(min = 0, max = crate::host::MAX_WAIT.as_secs()))]
    wait: Option<f64>,
}

/// A turn as a request states it (`POST …/turns`, MCP's
/// `submit_negotiation_turn`).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TurnBody {
    /// What you do.
    pub(crate) action: index_negotiation::NegotiationAction,
    /// What you say to the other seat: 1 to 4000 UTF-16 code units once
    /// trimmed; stored trimmed.
    #[schemars(length(min = 1, max = 4000))]
    pub(crate) message: String,
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
    let turn = index_negotiation::parse_negotiation_turn(&turn)?;
    let taken = host.turn(&caller, &id, turn).await.map_err(refused)?;
    tracing::info!(user = ?caller.user_id.as_str(), turn_index = ?taken.decision.permitted().map(|p| p.turn_index), "turn");
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

/// `POST /negotiations` (and MCP's `open_negotiation`): the opening
/// request.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct OpenBody {
    /// The opportunity, which becomes the negotiation's id.
    #[schemars(with = "OpportunityId")]
    opportunity_id: String,
    /// The seat that opens it and moves first.
    initiator: SeatBody,
    /// The other seat.
    responder: SeatBody,
    /// Whether both seats' intents are active and shared (default true).
    #[serde(default = "eligible")]
    eligible: bool,
}

impl OpenBody {
    /// The opening, its ids checked by name.
    pub(crate) fn checked(self) -> Result<OpenNegotiation, HostError> {
        Ok(OpenNegotiation {
            opportunity_id: id_field("opportunityId", self.opportunity_id)?,
            initiator: self.initiator.checked("initiator")?,
            responder: self.responder.checked("responder")?,
            eligible: self.eligible,
        })
    }
}

fn eligible() -> bool {
    true
}

/// A seat as the request spells it: its ids are checked after the JSON is
/// read, so a bad one is refused by name rather than as malformed JSON.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SeatBody {
    /// The person.
    #[schemars(with = "index_negotiation::UserId")]
    user_id: String,
    /// The intent their seat negotiates for.
    #[schemars(with = "index_negotiation::IntentId")]
    intent_id: String,
}

impl SeatBody {
    /// The seat, its ids refused by name when blank or when they hold a
    /// character that would forge or hide text where they are printed
    /// (every log line of the seat's requests, `keys list`, listings).
    fn checked(self, what: &str) -> Result<Seat, HostError> {
        let (user, intent) = (format!("{what}.userId"), format!("{what}.intentId"));
        crate::names::check_name(&user, &self.user_id)?;
        crate::names::check_name(&intent, &self.intent_id)?;
        Ok(Seat {
            user_id: id_field(&user, self.user_id)?,
            intent_id: id_field(&intent, self.intent_id)?,
        })
    }
}

async fn open(
    State(host): State<Host>,
    Extension(caller): Authed,
    ApiJson(request): ApiJson<OpenBody>,
) -> Result<Response, HostError> {
    let opened = host
        .open(&caller, &request.checked()?)
        .await
        .map_err(refused)?;
    Ok((
        StatusCode::CREATED,
        Json(Changed {
            negotiation: opened,
        }),
    )
        .into_response())
}

/// `POST …/close` (and MCP's `close_negotiation`): why.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CloseBody {
    /// Why the negotiation closes.
    pub(crate) reason: CloseReason,
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
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AnswersBody {
    /// The question message as the person received it.
    message: Option<String>,
    /// Or its question block.
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    block: Option<serde_json::Value>,
    /// The person's answers.
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

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct AnswerBody {
    /// The question's position in the block, from 0.
    question: usize,
    /// The person's answer: 1 to 4000 UTF-16 code units once trimmed; a
    /// blank one is refused.
    #[schemars(length(min = 1, max = 4000))]
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
    OptionalApiJson(request): OptionalApiJson<index_stall_gap::ParkRequest>,
) -> Result<Response, HostError> {
    // No body at all is an empty request; a body of any other type is
    // refused, so the names and reasoning the safety gate checks against
    // always reach it.
    let request = request.unwrap_or_default();
    let parked = host.park(&caller, &id, &request).await.map_err(refused)?;
    Ok(Json(parked.report()).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

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
