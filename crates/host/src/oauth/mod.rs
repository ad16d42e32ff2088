//! The host's own OAuth 2.1 authorization server over HTTP: its metadata
//! (RFC 8414), registration (RFC 7591), the person's approval, the token
//! endpoint and revocation (RFC 7009). What each does is the service's
//! (`crate::service::authorization`); this is its wire.
//!
//! The person approves in their browser: the page at `/oauth/authorize`
//! (served with the inbox's files) reads the request it was opened with
//! from `GET /oauth/authorization` and sends the person's decision to
//! `POST /oauth/authorization`, both with the inbox's session cookie, the
//! second refused from any page but the host's own. Only a browser
//! session approves: a bearer key, an agent's, approves nothing.

use std::sync::Arc;

use axum::extract::rejection::FormRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Form, Json, Router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use index_negotiation_store::{Actor, ActorKind};

use crate::service::authorization::clients::{self, Client, Registration, redirect_matches};
use crate::service::authorization::grants::{self, Approval, Exchange};
use crate::service::authorization::{AuthorizationSettings, OAuthError};
use crate::service::error::HostError;
use crate::service::host::Host;
use crate::service::issuer::AGENT_SCOPE;
use crate::service::keys::Caller;

/// The endpoints any client reaches without a key: the metadata,
/// registration, the token endpoint and revocation. They are OAuth's,
/// described by the metadata and their RFCs (and their errors are OAuth's
/// shape), not by the REST API's OpenAPI document.
pub(crate) fn public() -> Router<Host> {
    Router::new()
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/oauth/register", post(register))
        .route("/oauth/token", post(token))
        .route("/oauth/revoke", post(revoke))
}

/// What the consent page reads and sends, as its person's browser
/// session: the request it was opened with, and the decision.
pub(crate) fn by_session() -> Router<Host> {
    Router::new().route("/oauth/authorization", get(describe).post(decide))
}

fn settings(host: &Host) -> Result<&AuthorizationSettings, HostError> {
    host.authorization().ok_or(HostError::UnknownRoute)
}

/// The refusal of an OAuth endpoint on a host that runs no authorization
/// server.
fn no_server() -> Refused {
    Refused(
        StatusCode::NOT_FOUND,
        OAuthError::invalid_request("this host runs no authorization server"),
    )
}

/// An OAuth error as its endpoints answer it: JSON, never cached.
struct Refused(StatusCode, OAuthError);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        let Refused(status, err) = self;
        let body = serde_json::json!({"error": err.error, "error_description": err.description});
        (status, [(header::CACHE_CONTROL, "no-store")], Json(body)).into_response()
    }
}

/// An error of a request the consent page reads or sends: 400 whatever
/// it is (an unknown client included), since a 401 there means the person
/// is not signed in.
fn for_the_page(err: OAuthError) -> Refused {
    let status = match err.error {
        "server_error" => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    };
    Refused(status, err)
}

impl From<OAuthError> for Refused {
    fn from(err: OAuthError) -> Self {
        let status = match err.error {
            "invalid_client" => StatusCode::UNAUTHORIZED,
            "server_error" => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        };
        Refused(status, err)
    }
}

async fn metadata(State(host): State<Host>) -> Result<Response, HostError> {
    let base = &settings(&host)?.public_url;
    let metadata = serde_json::json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/oauth/authorize"),
        "token_endpoint": format!("{base}/oauth/token"),
        "registration_endpoint": format!("{base}/oauth/register"),
        "revocation_endpoint": format!("{base}/oauth/revoke"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": [AGENT_SCOPE],
        "client_id_metadata_document_supported": true,
        "authorization_response_iss_parameter_supported": true,
    });
    Ok(Json(metadata).into_response())
}

async fn register(State(host): State<Host>, body: axum::body::Bytes) -> Result<Response, Refused> {
    let settings = settings(&host).map_err(|_| no_server())?;
    let registration: Registration = serde_json::from_slice(&body)
        .map_err(|_| OAuthError::invalid_client_metadata("the body is not a registration"))?;
    let client = clients::register(&host, registration, settings.allow_local_clients).await?;
    tracing::info!(client = ?client.name, "an OAuth client registered");
    let registered = serde_json::json!({
        "client_id": client.id,
        "client_name": client.name,
        "redirect_uris": client.redirect_uris,
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "client_id_issued_at": index_negotiation_store::UnixTime::now().0,
    });
    Ok((
        StatusCode::CREATED,
        [(header::CACHE_CONTROL, "no-store")],
        Json(registered),
    )
        .into_response())
}

/// The token endpoint's form (RFC 6749, sections 4.1.3 and 6).
// No `Debug`: it holds a code, a verifier or a refresh token.
#[derive(Deserialize)]
struct TokenForm {
    grant_type: String,
    code: Option<String>,
    redirect_uri: Option<String>,
    code_verifier: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    refresh_token: Option<String>,
    resource: Option<String>,
}

/// A form body, or OAuth's `invalid_request` (not axum's plain text).
fn form<T>(form: Result<Form<T>, FormRejection>) -> Result<T, Refused> {
    form.map(|Form(form)| form)
        .map_err(|_| OAuthError::invalid_request("the body is not a form of this endpoint").into())
}

async fn token(
    State(host): State<Host>,
    headers: HeaderMap,
    sent: Result<Form<TokenForm>, FormRejection>,
) -> Result<Response, Refused> {
    let actor = client(&headers);
    let settings = settings(&host).map_err(|_| no_server())?;
    let form = form(sent)?;
    if form.client_secret.is_some() {
        return Err(
            OAuthError::invalid_client("this server's clients are public: send no secret").into(),
        );
    }
    let client_id = form
        .client_id
        .as_deref()
        .ok_or_else(|| OAuthError::invalid_request("client_id is required"))?;
    if form
        .resource
        .as_deref()
        .is_some_and(|resource| resource.trim_end_matches('/') != settings.resource())
    {
        return Err(OAuthError::invalid_target().into());
    }
    let tokens = match form.grant_type.as_str() {
        "authorization_code" => {
            let code = form
                .code
                .as_deref()
                .ok_or_else(|| OAuthError::invalid_request("code is required"))?;
            let exchange = Exchange {
                client_id,
                redirect_uri: form.redirect_uri.as_deref(),
                verifier: form.code_verifier.as_deref(),
                resource: form.resource.as_deref(),
            };
            grants::exchange(&host, code, &exchange, &actor).await?
        }
        "refresh_token" => {
            let refresh = form
                .refresh_token
                .as_deref()
                .ok_or_else(|| OAuthError::invalid_request("refresh_token is required"))?;
            grants::refresh(&host, refresh, client_id, &actor).await?
        }
        _ => return Err(OAuthError::unsupported_grant_type().into()),
    };
    Ok(([(header::CACHE_CONTROL, "no-store")], Json(tokens)).into_response())
}

/// Who acts at the token and revocation endpoints, for the audit record:
/// an OAuth client, which presents no key of its own, in this request.
fn client(headers: &HeaderMap) -> Actor {
    let request_id = crate::http::extract::request_id(headers).map(str::to_owned);
    Actor::new(ActorKind::OAuth, None, request_id)
}

/// The revocation endpoint's form (RFC 7009).
// No `Debug`: it holds a token.
#[derive(Deserialize)]
struct RevokeForm {
    token: String,
}

async fn revoke(
    State(host): State<Host>,
    headers: HeaderMap,
    sent: Result<Form<RevokeForm>, FormRejection>,
) -> Result<Response, Refused> {
    settings(&host).map_err(|_| no_server())?;
    let form = form(sent)?;
    grants::revoke(&host, &form.token, &client(&headers)).await?;
    Ok(StatusCode::OK.into_response())
}

/// An authorization request's parameters (RFC 6749, section 4.1.1, with
/// PKCE and RFC 8707's resource).
#[derive(Debug, Default, Deserialize)]
struct AuthorizeQuery {
    response_type: Option<String>,
    client_id: Option<String>,
    redirect_uri: Option<String>,
    scope: Option<String>,
    state: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
    resource: Option<String>,
}

/// What the consent page shows its person.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Asked {
    /// The client, as it names itself.
    client_name: String,
    /// Its id: a URL when it has a metadata document.
    client_id: String,
    /// Where the person's browser goes back to: its host.
    redirect_host: String,
    /// What it may do: act as the person's agent.
    scope: &'static str,
    /// The person who would approve it.
    user_id: index_negotiation_store::UserId,
}

/// A request that goes back to its client with an error: the page says
/// why, and offers the way back.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Undone {
    /// The OAuth error the client hears.
    error: &'static str,
    /// What is wrong, for the person.
    error_description: &'static str,
    /// The client's redirect URI with the error, the state and the issuer.
    redirect: String,
    /// Its host, to name on the way back.
    redirect_host: String,
}

/// The person's decision on the request the page was opened with.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Decision {
    /// The page's query string, exactly as it was opened with.
    request: String,
    /// Whether the person approves.
    approve: bool,
}

/// Where the person's browser goes next: back to the client.
// No `Debug`: its redirect carries the code.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Decided {
    /// The client's redirect URI with the code (or the refusal), the
    /// state and the issuer.
    redirect: String,
}

/// A checked request: the approval it would give, its state, and what is
/// wrong with it that the client hears of (at its redirect URI).
struct Checked {
    approval: Approval,
    state: Option<String>,
    refused: Option<(&'static str, &'static str)>,
}

/// Checks a request. Its client and redirect URI first: a request whose
/// client is unknown or whose redirect URI is not the client's is refused
/// to the person alone, never sent anywhere (RFC 6749, section 4.1.2.1).
async fn check(host: &Host, query: &AuthorizeQuery) -> Result<Checked, OAuthError> {
    let settings =
        settings(host).map_err(|_| OAuthError::invalid_request("no authorization server here"))?;
    let client_id = query
        .client_id
        .as_deref()
        .ok_or_else(|| OAuthError::invalid_request("client_id is required"))?;
    let client: Client = clients::resolve(host, client_id, settings.allow_local_clients).await?;
    let redirect_uri = match query.redirect_uri.as_deref() {
        Some(given) => client
            .redirect_uris
            .iter()
            .any(|registered| redirect_matches(registered, given))
            .then(|| given.to_owned()),
        None => match client.redirect_uris.as_slice() {
            [only] => Some(only.clone()),
            _ => None,
        },
    }
    .ok_or_else(|| {
        OAuthError::invalid_request("the redirect_uri is not one the client registered")
    })?;
    let refused = if query.response_type.as_deref() != Some("code") {
        Some(("unsupported_response_type", "response_type must be code"))
    } else if query.code_challenge.as_deref().is_none_or(str::is_empty)
        || query.code_challenge_method.as_deref() != Some("S256")
    {
        Some(("invalid_request", "PKCE with S256 is required"))
    } else if query
        .scope
        .as_deref()
        .is_some_and(|scope| scope.split_whitespace().any(|scope| scope != AGENT_SCOPE))
    {
        Some(("invalid_scope", "this server grants the agent scope only"))
    } else if query
        .resource
        .as_deref()
        .is_some_and(|resource| resource.trim_end_matches('/') != settings.resource())
    {
        Some((
            "invalid_target",
            "tokens of this server are for its /mcp only",
        ))
    } else {
        None
    };
    Ok(Checked {
        approval: Approval {
            client,
            redirect_uri,
            redirect_given: query.redirect_uri.is_some(),
            challenge: query.code_challenge.clone().unwrap_or_default(),
            resource: settings.resource(),
        },
        state: query.state.clone(),
        refused,
    })
}

/// `redirect_uri` with `parameters`, the state and the issuer added.
fn back_to(
    host: &Host,
    redirect_uri: &str,
    state: Option<&str>,
    parameters: &[(&str, &str)],
) -> Result<String, OAuthError> {
    let issuer = settings(host)
        .map(|settings| settings.public_url.clone())
        .map_err(OAuthError::server)?;
    let mut url = reqwest::Url::parse(redirect_uri).map_err(OAuthError::server)?;
    {
        let mut query = url.query_pairs_mut();
        for (name, value) in parameters {
            query.append_pair(name, value);
        }
        if let Some(state) = state {
            query.append_pair("state", state);
        }
        query.append_pair("iss", &issuer);
    }
    Ok(url.into())
}

/// Refuses any caller but a browser session: only a person approves, and
/// an agent's bearer key must not approve a client for its person.
fn from_a_browser(session: Option<&crate::http::ByCookie>) -> Result<(), Refused> {
    session.map(|_| ()).ok_or(Refused(
        StatusCode::FORBIDDEN,
        OAuthError::invalid_request("only a person's browser session approves a client"),
    ))
}

async fn describe(
    State(host): State<Host>,
    caller: Extension<Arc<Caller>>,
    session: Option<Extension<crate::http::ByCookie>>,
    Query(query): Query<AuthorizeQuery>,
) -> Result<Response, Refused> {
    from_a_browser(session.as_deref())?;
    let checked = check(&host, &query).await.map_err(for_the_page)?;
    let redirect_host = reqwest::Url::parse(&checked.approval.redirect_uri)
        .ok()
        .and_then(|url| url.host_str().map(str::to_owned))
        .unwrap_or_default();
    // Shown, not followed: the person goes back to the client only if they
    // choose to, so the page never bounces a browser on by itself.
    if let Some((error, description)) = checked.refused {
        let redirect = back_to(
            &host,
            &checked.approval.redirect_uri,
            checked.state.as_deref(),
            &[("error", error), ("error_description", description)],
        )?;
        return Ok(Json(Undone {
            error,
            error_description: description,
            redirect,
            redirect_host,
        })
        .into_response());
    }
    Ok(Json(Asked {
        client_name: checked.approval.client.name,
        client_id: checked.approval.client.id,
        redirect_host,
        scope: AGENT_SCOPE,
        user_id: caller.user_id.clone(),
    })
    .into_response())
}

async fn decide(
    State(host): State<Host>,
    caller: Extension<Arc<Caller>>,
    session: Option<Extension<crate::http::ByCookie>>,
    crate::http::extract::ApiJson(decision): crate::http::extract::ApiJson<Decision>,
) -> Result<Response, Refused> {
    from_a_browser(session.as_deref())?;
    let query: AuthorizeQuery =
        serde_urlencoded::from_str(decision.request.trim_start_matches('?'))
            .map_err(|_| OAuthError::invalid_request("the request is not a query string"))?;
    let checked = check(&host, &query).await.map_err(for_the_page)?;
    let state = checked.state.as_deref();
    let redirect_uri = &checked.approval.redirect_uri;
    let redirect = match (checked.refused, decision.approve) {
        (Some((error, description)), _) => back_to(
            &host,
            redirect_uri,
            state,
            &[("error", error), ("error_description", description)],
        )?,
        (None, false) => back_to(
            &host,
            redirect_uri,
            state,
            &[
                ("error", "access_denied"),
                ("error_description", "the person declined"),
            ],
        )?,
        (None, true) => {
            let code = grants::code(&host, &caller.user_id, &checked.approval).await?;
            tracing::info!(user = ?caller.user_id.as_str(), client = ?checked.approval.client.name, "a person approved an OAuth client");
            back_to(&host, redirect_uri, state, &[("code", &code)])?
        }
    };
    let mut response = Json(Decided { redirect }).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}
