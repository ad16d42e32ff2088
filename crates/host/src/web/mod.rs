//! The person's side, in a browser: the inbox page (files embedded in the
//! binary), the session a browser signs in to, and what the page reads.
//!
//! A browser signs in at `POST /session` with its person's key or a login
//! link, and gets a session key in an `HttpOnly`, `SameSite=Strict`
//! cookie: the page never sees a key, and the session ends, for every
//! process on the store, when its key is revoked (`DELETE /session`).
//! A request the cookie authenticates that changes anything must come
//! from a page of this host (its `Origin` is the host's own), which with
//! the cookie's `SameSite` stops cross-site request forgery. Every answer
//! carries a strict Content-Security-Policy and its companions.

use std::convert::Infallible;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use axum::{Extension, Json, Router};
use serde::{Deserialize, Serialize};

use index_negotiation_store::{KeyScope, UserId};

use crate::http::openapi::{Fails, Operation, Success, of};
use crate::service::authorization::connections::Connections;
use crate::service::error::HostError;
use crate::service::host::Host;
use crate::service::keys::{Caller, WEB_SESSION_LIFETIME};
use crate::service::wire::Questions;

/// The cookie a signed-in browser carries: its session key.
pub(crate) const SESSION_COOKIE: &str = "index_session";

/// The inbox's files, by path: its type and its bytes.
const FILES: &[(&str, &str, &[u8])] = &[
    (
        "/inbox",
        "text/html; charset=utf-8",
        include_bytes!("../../inbox/index.html"),
    ),
    (
        "/inbox/inbox.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../inbox/inbox.js"),
    ),
    (
        "/inbox/inbox.css",
        "text/css; charset=utf-8",
        include_bytes!("../../inbox/inbox.css"),
    ),
    (
        "/oauth/authorize",
        "text/html; charset=utf-8",
        include_bytes!("../../inbox/authorize.html"),
    ),
    (
        "/inbox/authorize.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../inbox/authorize.js"),
    ),
    (
        "/inbox/icon.svg",
        "image/svg+xml",
        include_bytes!("../../inbox/icon.svg"),
    ),
    (
        "/inbox/pkg/index.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../inbox/pkg/index.js"),
    ),
    (
        "/inbox/pkg/index_question_block_bg.wasm",
        "application/wasm",
        include_bytes!("../../inbox/pkg/index_question_block_bg.wasm"),
    ),
];

/// The browser's session and what its page reads, each route beside what
/// the OpenAPI document says of it.
pub(crate) fn routes() -> Vec<(Operation, MethodRouter<Host>)> {
    use Fails::{Body, Connection, CrossOrigin, Oversize, Request, Session, SignIn};
    let ok = |schema| Success::Json(StatusCode::OK, schema);
    vec![
        (
            Operation::new(Method::POST, "/session", "signIn", "Sign a browser in with a person's key or a login link: the session key goes into an HttpOnly cookie.", Success::Json(StatusCode::CREATED, of::<SignedIn>))
                .public()
                .body(of::<SignInBody>)
                .fails(&[Body, SignIn, CrossOrigin, Oversize]),
            post(sign_in),
        ),
        (
            Operation::new(Method::GET, "/session", "session", "Who the caller is.", ok(of::<SignedIn>)),
            get(signed_in),
        ),
        (
            Operation::new(Method::DELETE, "/session", "signOut", "End the browser session the cookie carries, on every process of the store.", Success::Empty(StatusCode::NO_CONTENT))
                .fails(&[Request]),
            axum::routing::delete(sign_out),
        ),
        (
            Operation::new(Method::GET, "/questions", "listQuestions", "The questions the caller's person is asked, as question messages, one per distinct question, and the negotiations whose question could not be read.", ok(of::<crate::service::wire::Questions>)),
            get(questions),
        ),
        (
            Operation::new(Method::GET, "/connections", "listConnections", "The clients the caller's person connected through OAuth that can still act (their grant's refresh token is active), newest approval first. For the person's browser session only.", ok(of::<Connections>))
                .fails(&[Session]),
            get(connections),
        ),
        (
            Operation::new(Method::DELETE, "/connections/{connectionId}", "disconnect", "End a connected client's grant: every token of it, on every process of the store. For the person's browser session only.", Success::Empty(StatusCode::NO_CONTENT))
                .fails(&[Session, Connection]),
            axum::routing::delete(disconnect),
        ),
    ]
}

/// The inbox's files, served to anyone: they hold no data.
pub(crate) fn pages() -> Router<Host> {
    FILES
        .iter()
        .fold(Router::new(), |router, &(path, kind, bytes)| {
            router.route(
                path,
                get(move || async move {
                    (
                        [
                            (header::CONTENT_TYPE, kind),
                            (header::CACHE_CONTROL, "no-cache"),
                        ],
                        bytes,
                    )
                }),
            )
        })
}

/// Sends a browser that opens the host's own address (`GET /`, asking for
/// a page) to the inbox. Any other request at `/` goes on as before: an
/// API client gets the error shape (401 without a key, 404 with one).
pub(crate) async fn browser_home(request: Request, next: Next) -> Response {
    let home = request.uri().path() == "/"
        && matches!(*request.method(), Method::GET | Method::HEAD)
        && wants_a_page(request.headers());
    if home {
        return (StatusCode::SEE_OTHER, [(header::LOCATION, "/inbox")]).into_response();
    }
    next.run(request).await
}

/// Whether `Accept` names HTML, as a browser's does when it opens a page
/// (and not with `q=0`, which refuses it); `*/*` alone is an API client's.
fn wants_a_page(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|accept| accept.split(','))
        .any(|range| {
            let mut parts = range.split(';').map(str::trim);
            let html = parts
                .next()
                .is_some_and(|kind| kind.eq_ignore_ascii_case("text/html"));
            let refused = parts.any(|param| {
                param.split_once('=').is_some_and(|(name, q)| {
                    name.trim() == "q" && q.trim().parse::<f32>().is_ok_and(|q| q <= 0.0)
                })
            });
            html && !refused
        })
}

/// The session key a request's cookie carries, if any.
pub(crate) fn session_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|cookies| cookies.split(';'))
        .filter_map(|cookie| cookie.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value)
}

/// Whether a request comes from a page of this host: its `Origin` names
/// the host it was sent to, and the browser did not call it cross-site.
pub(crate) fn same_origin(headers: &HeaderMap) -> bool {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    let origin_host = origin.and_then(|origin| {
        origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
    });
    let site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    host.is_some() && origin_host == host && site.is_none_or(|site| site == "same-origin")
}

/// Refuses a request its cookie authenticated that would change
/// something, unless it comes from a page of this host.
pub(crate) async fn forgery_checked(request: Request, next: Next) -> Response {
    let safe = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    let by_cookie = request
        .extensions()
        .get::<crate::http::ByCookie>()
        .is_some();
    if by_cookie && !safe && !same_origin(request.headers()) {
        tracing::info!("refused a cross-origin request by cookie");
        return HostError::CrossOrigin.into_response();
    }
    next.run(request).await
}

/// `POST /session`'s body.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SignInBody {
    /// The person's API key, or the key of a login link (which then works
    /// no more).
    key: String,
}

/// Who a session acts as.
#[derive(Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SignedIn {
    /// The person.
    user_id: UserId,
    /// What their key may do.
    scope: KeyScope,
}

/// `POST /session`: signs a browser in; the session key goes into the
/// cookie, never into the body. A browser must send it from a page of
/// this host (a login from another site is refused).
pub(crate) async fn sign_in(
    State(host): State<Host>,
    headers: HeaderMap,
    crate::http::extract::ApiJson(body): crate::http::extract::ApiJson<SignInBody>,
) -> Result<Response, HostError> {
    if headers.contains_key(header::ORIGIN) && !same_origin(&headers) {
        return Err(HostError::CrossOrigin);
    }
    let request_id = crate::http::extract::request_id(&headers);
    let session = host.sign_in(index_js::trim(&body.key), request_id).await?;
    tracing::info!(user = ?session.record.user_id.as_str(), key = %session.record.id, "signed in");
    // Secure when the page was served over TLS (by a proxy in front).
    let secure = headers
        .get(header::ORIGIN)
        .is_some_and(|origin| origin.as_bytes().starts_with(b"https://"));
    let cookie = session_cookie(&session.secret, WEB_SESSION_LIFETIME.as_secs(), secure)?;
    let signed_in = SignedIn {
        user_id: session.record.user_id,
        scope: session.record.scope,
    };
    Ok((
        StatusCode::CREATED,
        [(header::SET_COOKIE, cookie)],
        Json(signed_in),
    )
        .into_response())
}

/// The `Set-Cookie` value that keeps `value` as the session for `max_age`
/// seconds (0 clears it), out of the page's reach and off other sites.
fn session_cookie(value: &str, max_age: u64, secure: bool) -> Result<HeaderValue, HostError> {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}{secure}"
    ))
    .map_err(|_| HostError::BadRequest("the session cookie could not be written".to_owned()))
}

/// `GET /session`: who the caller is.
pub(crate) async fn signed_in(caller: Extension<std::sync::Arc<Caller>>) -> Json<SignedIn> {
    Json(SignedIn {
        user_id: caller.user_id.clone(),
        scope: caller.scope,
    })
}

/// `DELETE /session`: ends the session the cookie carries, on every
/// process of the store, and clears the cookie. Only a session ends so: a
/// bearer key is revoked with `index keys revoke`.
pub(crate) async fn sign_out(
    State(host): State<Host>,
    caller: Extension<std::sync::Arc<Caller>>,
    by_cookie: Option<Extension<crate::http::ByCookie>>,
) -> Result<Response, HostError> {
    if by_cookie.is_none() {
        return Err(HostError::BadRequest(
            "only a browser's session is ended here; revoke a key with `index keys revoke`"
                .to_owned(),
        ));
    }
    host.sign_out(&caller).await?;
    tracing::info!(user = ?caller.user_id.as_str(), key = %caller.key_id, "signed out");
    let cleared = session_cookie("", 0, false)?;
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, cleared)]).into_response())
}

/// `GET /questions`: what the caller's person is asked, as question
/// messages for the page to read, and which negotiations' questions could
/// not be read (one damaged negotiation must not hide the others).
pub(crate) async fn questions(
    State(host): State<Host>,
    caller: Extension<std::sync::Arc<Caller>>,
) -> Result<Json<Questions>, HostError> {
    Ok(Json(host.questions(&caller).await?))
}

/// `GET /connections`, for a person's browser session only: what is
/// connected is managed by the person, not by any of their agents.
pub(crate) async fn connections(
    State(host): State<Host>,
    caller: Extension<std::sync::Arc<Caller>>,
    by_cookie: Option<Extension<crate::http::ByCookie>>,
) -> Result<Json<Connections>, HostError> {
    if by_cookie.is_none() {
        return Err(HostError::Forbidden);
    }
    Ok(Json(
        crate::service::authorization::connections::connections(&host, &caller).await?,
    ))
}

/// `DELETE /connections/{connectionId}`: an id that does not read is
/// `not_found`, as one that names nothing.
pub(crate) async fn disconnect(
    State(host): State<Host>,
    caller: Extension<std::sync::Arc<Caller>>,
    by_cookie: Option<Extension<crate::http::ByCookie>>,
    id: Result<axum::extract::Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<StatusCode, HostError> {
    if by_cookie.is_none() {
        return Err(HostError::Forbidden);
    }
    let axum::extract::Path(id) = id.map_err(|_| HostError::NotFound)?;
    crate::service::authorization::connections::disconnect(&host, &caller, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// How many of the caller's negotiations an event stream watches: the
/// newest page's worth.
const MOST_WATCHED: usize = 50;

/// `GET /events`: server-sent events, a `changed` event naming each of
/// the caller's negotiations as it changes (its newest [`MOST_WATCHED`],
/// as the stream began; a browser reconnects to watch newer ones).
pub(crate) async fn events(
    State(host): State<Host>,
    caller: Extension<std::sync::Arc<Caller>>,
) -> Result<Response, HostError> {
    let filter = index_negotiation_store::ListFilter {
        limit: Some(MOST_WATCHED),
        ..Default::default()
    };
    let page = host.list(&caller, &filter).await?;
    let ids = page.negotiations.into_iter().map(|summary| summary.id);
    let changes = host.changes_of(&caller, ids).await?;
    let stream = futures_util::stream::unfold(changes, |mut changes| async move {
        let id = changes.next().await?;
        let event = Event::default().event("changed").data(id.as_str());
        Some((Ok::<_, Infallible>(event), changes))
    });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            if let Ok(value) = HeaderValue::from_str(value) {
                headers.append(*name, value);
            }
        }
        headers
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let sent = headers(&[("cookie", "a=1; index_session=idx_abc; b=2")]);
        assert_eq!(session_token(&sent), Some("idx_abc"));
        let split = headers(&[("cookie", "a=1"), ("cookie", "index_session=x")]);
        assert_eq!(session_token(&split), Some("x"));
        assert_eq!(
            session_token(&headers(&[("cookie", "xindex_session=1")])),
            None
        );
    }

    #[test]
    fn a_browser_asks_for_a_page_and_an_api_client_does_not() {
        let accepts = |value: &str| wants_a_page(&headers(&[("accept", value)]));
        assert!(accepts(
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        ));
        assert!(accepts("application/json, TEXT/HTML;q=0.5"));
        assert!(!accepts("application/json"));
        assert!(!accepts("*/*"));
        assert!(!accepts("text/html;q=0"));
        assert!(!accepts("text/htmlx"));
        assert!(!wants_a_page(&HeaderMap::new()));
    }

    #[test]
    fn only_a_page_of_this_host_is_same_origin() {
        let from = |origin: &str, site: Option<&str>| {
            let mut pairs = vec![("host", "127.0.0.1:8080"), ("origin", origin)];
            if let Some(site) = site {
                pairs.push(("sec-fetch-site", site));
            }
            same_origin(&headers(&pairs))
        };
        assert!(from("http://127.0.0.1:8080", Some("same-origin")));
        assert!(from("https://127.0.0.1:8080", None));
        assert!(!from("http://127.0.0.1:8081", None));
        assert!(!from("http://evil.example", None));
        assert!(!from("http://127.0.0.1:8080", Some("cross-site")));
        assert!(!from("null", None));
        assert!(!same_origin(&headers(&[("host", "127.0.0.1:8080")])));
    }
}
