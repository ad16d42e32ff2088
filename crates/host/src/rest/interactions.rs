//! The interaction routes: an agent asks its person, reads, waits on and
//! cancels what it asked; the person's side delivers response commands.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use axum::{Extension, Json};
use serde::Deserialize;

use crate::http::extract::{ApiJson, ApiQuery, Interaction};
use crate::http::openapi::{Fails, Operation, Success, of};
use crate::service::error::HostError;
use crate::service::host::Host;
use crate::service::interactions::{
    Asked, ContractObject, InteractionPage, InteractionQuery, InteractionView,
};
use crate::service::keys::Caller;
use crate::service::wire::wait_duration;

type Authed = Extension<Arc<Caller>>;

/// The interaction routes, each beside what the OpenAPI document says of
/// it.
pub(crate) fn routes() -> Vec<(Operation, MethodRouter<Host>)> {
    use Fails::{Ask, Body, Interaction as Missing, Request};
    let ok = |schema| Success::Json(StatusCode::OK, schema);
    vec![
        (
            Operation::new(Method::POST, "/interactions", "askInteraction", "Ask the caller's person for typed input: the body is the interaction contract's `InteractionRequest` (0.46). The same request again is answered with the one stored.", Success::Made(of::<InteractionView>))
                .body(of::<ContractObject>)
                .fails(&[Body, Request, Ask]),
            post(ask),
        ),
        (
            Operation::new(Method::GET, "/interactions", "listInteractions", "A page of the caller's person's interactions, oldest first.", ok(of::<InteractionPage>))
                .query(of::<InteractionQuery>)
                .fails(&[Request]),
            get(list),
        ),
        (
            Operation::new(Method::POST, "/interactions/responses", "respondToInteraction", "Deliver an `InteractionResponseCommand` from the caller's person: answered with its `InteractionAcknowledgement` whatever the outcome (a replayed operation id gets the recorded one, byte for byte).", ok(of::<ContractObject>))
                .body(of::<ContractObject>)
                .fails(&[Body, Request]),
            post(respond),
        ),
        (
            Operation::new(Method::GET, "/interactions/{interactionId}", "getInteraction", "One of the caller's person's interactions; with `wait`, once it stops being pending.", ok(of::<InteractionView>))
                .query(of::<WaitQuery>)
                .fails(&[Missing, Request]),
            get(show),
        ),
        (
            Operation::new(Method::POST, "/interactions/{interactionId}/cancel", "cancelInteraction", "Take an interaction back: cancelled if it is still pending; one already settled stays as it is.", ok(of::<InteractionView>))
                .fails(&[Missing]),
            post(cancel),
        ),
    ]
}

/// `GET /interactions/{interactionId}`'s query.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WaitQuery {
    /// Seconds to wait for it to stop being pending before answering.
    #[schemars(range(min = 0, max = crate::service::wire::MAX_WAIT.as_secs()))]
    wait: Option<f64>,
}

async fn ask(
    State(host): State<Host>,
    Extension(caller): Authed,
    ApiJson(request): ApiJson<serde_json::Value>,
) -> Result<Response, HostError> {
    let (asked, view) = host.ask(&caller, &request).await?;
    let status = match asked {
        Asked::Created => StatusCode::CREATED,
        _ => StatusCode::OK,
    };
    Ok((status, Json(view)).into_response())
}

async fn list(
    State(host): State<Host>,
    Extension(caller): Authed,
    ApiQuery(query): ApiQuery<InteractionQuery>,
) -> Result<Response, HostError> {
    Ok(Json(host.interactions(&caller, &query).await?).into_response())
}

async fn show(
    State(host): State<Host>,
    Extension(caller): Authed,
    Interaction(id): Interaction,
    ApiQuery(query): ApiQuery<WaitQuery>,
) -> Result<Response, HostError> {
    let view = match query.wait {
        None => host.interaction(&caller, &id).await?,
        Some(seconds) => {
            host.wait_interaction(&caller, &id, wait_duration(seconds)?)
                .await?
        }
    };
    Ok(Json(view).into_response())
}

async fn cancel(
    State(host): State<Host>,
    Extension(caller): Authed,
    Interaction(id): Interaction,
) -> Result<Response, HostError> {
    Ok(Json(host.cancel_interaction(&caller, &id).await?).into_response())
}

/// The acknowledgement as the host recorded it: sent as its text, so a
/// replay is the first answer byte for byte.
async fn respond(
    State(host): State<Host>,
    Extension(caller): Authed,
    ApiJson(command): ApiJson<serde_json::Value>,
) -> Result<Response, HostError> {
    let acknowledgement = host.respond(&caller, &command).await?;
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        acknowledgement,
    )
        .into_response())
}
