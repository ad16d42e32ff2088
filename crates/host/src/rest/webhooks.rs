//! The webhook routes: register, list, remove an endpoint, rotate its
//! secret, replay its deliveries. An agent's key manages its person's
//! endpoints; a host key, anyone's and the host's own.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, delete, get, post};
use axum::{Extension, Json};

use crate::http::extract::{ApiJson, OptionalApiJson, Webhook};
use crate::http::openapi::{Fails, Operation, Success, of};
use crate::service::error::HostError;
use crate::service::host::Host;
use crate::service::keys::Caller;
use crate::service::webhooks::{NewWebhook, ReplayQuery, Replayed, WebhookView, WebhookWithSecret};

type Authed = Extension<Arc<Caller>>;

/// The webhook routes, each beside what the OpenAPI document says of it.
pub(crate) fn routes() -> Vec<(Operation, MethodRouter<Host>)> {
    use Fails::{Body, HostKey, Request, Webhook as Missing};
    let ok = |schema| Success::Json(StatusCode::OK, schema);
    vec![
        (
            Operation::new(Method::POST, "/webhooks", "addWebhook", "Register a webhook endpoint: the caller's person's, or (host keys) anyone's or the host's own. The answer holds its `whsec_` secret, shown only this once.", Success::Json(StatusCode::CREATED, of::<WebhookWithSecret>))
                .body(of::<NewWebhook>)
                .fails(&[Body, Request, HostKey]),
            post(add),
        ),
        (
            Operation::new(Method::GET, "/webhooks", "listWebhooks", "The webhook endpoints the caller may see, oldest first, without their secrets.", ok(of::<Vec<WebhookView>>)),
            get(list),
        ),
        (
            Operation::new(Method::DELETE, "/webhooks/{webhookId}", "removeWebhook", "Remove a webhook endpoint and the deliveries waiting for it.", Success::Empty(StatusCode::NO_CONTENT))
                .fails(&[Missing]),
            delete(remove),
        ),
        (
            Operation::new(Method::POST, "/webhooks/{webhookId}/rotate-secret", "rotateWebhookSecret", "Give an endpoint a new secret; the old one signs beside it for a day. The answer holds the new secret, shown only this once.", ok(of::<WebhookWithSecret>))
                .fails(&[Missing]),
            post(rotate),
        ),
        (
            Operation::new(Method::POST, "/webhooks/{webhookId}/replay", "replayWebhook", "Send an endpoint's deliveries of a range of events again, under their own `webhook-id`s, enabling it if it was disabled.", ok(of::<Replayed>))
                .optional_body(of::<ReplayQuery>)
                .fails(&[Missing, Body, Request]),
            post(replay),
        ),
    ]
}

async fn add(
    State(host): State<Host>,
    Extension(caller): Authed,
    ApiJson(hook): ApiJson<NewWebhook>,
) -> Result<Response, HostError> {
    let added = host.add_webhook(&caller, hook).await?;
    Ok((StatusCode::CREATED, Json(added)).into_response())
}

async fn list(State(host): State<Host>, Extension(caller): Authed) -> Result<Response, HostError> {
    Ok(Json(host.webhooks(&caller).await?).into_response())
}

async fn remove(
    State(host): State<Host>,
    Extension(caller): Authed,
    Webhook(id): Webhook,
) -> Result<Response, HostError> {
    host.remove_webhook(&caller, &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn rotate(
    State(host): State<Host>,
    Extension(caller): Authed,
    Webhook(id): Webhook,
) -> Result<Response, HostError> {
    Ok(Json(host.rotate_webhook_secret(&caller, &id).await?).into_response())
}

async fn replay(
    State(host): State<Host>,
    Extension(caller): Authed,
    Webhook(id): Webhook,
    OptionalApiJson(query): OptionalApiJson<ReplayQuery>,
) -> Result<Response, HostError> {
    let query = query.unwrap_or_default();
    Ok(Json(host.replay_webhook(&caller, &id, query).await?).into_response())
}
