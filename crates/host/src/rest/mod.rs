//! The REST API: the negotiations, the answers, parks, the interactions,
//! and the host's own health, readiness and metrics, each route beside
//! what the OpenAPI document says of it.
//!
//! | module | holds |
//! |---|---|
//! | `interactions` | the interaction routes: ask, list, read and wait, cancel, respond |
//! | `webhooks` | the webhook routes: register, list, remove, rotate a secret, replay |

mod interactions;
mod webhooks;

use std::sync::Arc;

use axum::extract::State;
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use axum::{Extension, Json};
use serde::Deserialize;

use index_negotiation_store::{DeliveryReport, NegotiationPage};
use index_stall_gap::{ParkReport, ParkRequest};

use crate::http::extract::{ApiJson, ApiQuery, Negotiation, OptionalApiJson};
use crate::http::openapi::{Fails, Operation, Success, of};
use crate::service::audit::{AuditPage, AuditQuery};
use crate::service::error::HostError;
use crate::service::host::Host;
use crate::service::keys::Caller;
use crate::service::wire::{AnswersBody, Changed, CloseBody, OpenBody, TurnBody};
use crate::service::wire::{ListQuery, NegotiationView, Resumed, TurnTaken, wait_duration};

/// The REST API: each route's handler beside what the OpenAPI document
/// says of it, so a route can be neither served undocumented nor
/// documented unserved.
pub(crate) fn routes() -> Vec<(Operation, MethodRouter<Host>)> {
    use Fails::{Answer, Body, HostKey, NotReady, Open, Park, Request, Resume, Seat, Turn};
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
            Operation::new(Method::GET, "/audit", "listAudit", "A page of the audit record, oldest first: who took which step, when, in which request (host keys).", ok(of::<AuditPage>))
                .query(of::<AuditQuery>)
                .fails(&[Request, HostKey]),
            get(audit),
        ),
        (
            Operation::new(Method::GET, "/metrics", "metrics", "Prometheus metrics (host keys).", Success::Metrics)
                .fails(&[HostKey]),
            get(metrics),
        ),
    ]
    .into_iter()
    .chain(interactions::routes())
    .chain(webhooks::routes())
    .collect()
}
/// What `/healthz` and `/readyz` answer when all is well.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Health {
    /// `ok` (the host is alive) or `ready` (its store answers).
    status: &'static str,
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
type Authed = Extension<Arc<Caller>>;

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
    #[schemars(range(min = 0, max = crate::service::wire::MAX_WAIT.as_secs()))]
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
async fn audit(
    State(host): State<Host>,
    Extension(caller): Authed,
    ApiQuery(query): ApiQuery<AuditQuery>,
) -> Result<Response, HostError> {
    let page = host.audit(&caller, &query.filter()?).await?;
    Ok(Json(page).into_response())
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
async fn answers(
    State(host): State<Host>,
    Extension(caller): Authed,
    ApiJson(request): ApiJson<AnswersBody>,
) -> Result<Response, HostError> {
    let (block, answers) = request.into_parts()?;
    Ok(Json(host.answer(&caller, &block, &answers).await).into_response())
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
