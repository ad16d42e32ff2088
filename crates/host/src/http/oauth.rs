//! The host as an OAuth 2.1 protected resource, when it takes an identity
//! provider's tokens (`index serve --oauth-issuer`): the metadata a client
//! discovers the provider from (RFC 9728), and the challenge every 401
//! carries so that a client that knows only the host's URL finds it.
//!
//! Without an issuer there is no metadata (404) and the challenge is a
//! bare `Bearer`: a client then asks its user for an API key.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, Method, StatusCode};
use axum::routing::{MethodRouter, get};
use schemars::JsonSchema;
use serde::Serialize;

use crate::http::openapi::{Fails, Operation, Success, of};
use crate::service::error::HostError;
use crate::service::host::Host;
use crate::service::issuer::AGENT_SCOPE;

/// Where the metadata is, at the root and, as RFC 9728 places it for a
/// resource with a path, after the MCP endpoint's path.
const METADATA: &str = "/.well-known/oauth-protected-resource";
const METADATA_FOR_MCP: &str = "/.well-known/oauth-protected-resource/mcp";

/// What a client learns of this resource (RFC 9728, section 2).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ProtectedResource {
    /// This host's MCP endpoint: the audience its tokens must name.
    resource: String,
    /// The issuer whose tokens the host takes.
    authorization_servers: Vec<String>,
    /// The scopes a token may carry: `agent`, what a person's agent may do.
    scopes_supported: Vec<&'static str>,
    /// How a token is sent: in the `Authorization` header only.
    bearer_methods_supported: Vec<&'static str>,
    /// A name for people.
    resource_name: &'static str,
}

/// The metadata routes, each with what the OpenAPI document says of it.
pub(crate) fn routes() -> Vec<(Operation, MethodRouter<Host>)> {
    let ok = |schema| Success::Json(StatusCode::OK, schema);
    [(METADATA, "protectedResource"), (METADATA_FOR_MCP, "protectedResourceMcp")]
        .into_iter()
        .map(|(path, id)| {
            let operation = Operation::new(
                Method::GET,
                path,
                id,
                "The host as an OAuth protected resource (RFC 9728): the issuer whose access tokens it takes; 404 when it takes none.",
                ok(of::<ProtectedResource>),
            )
            .public()
            .fails(&[Fails::NoIssuer]);
            (operation, get(metadata))
        })
        .collect()
}

/// This host as a protected resource, if it is one: the resource its
/// tokens are for, and the authorization server that issues them (an
/// identity provider, or the host itself).
fn protected(host: &Host) -> Option<(String, String)> {
    if let Some(issuer) = host.oauth_issuer() {
        return Some((issuer.resource.clone(), issuer.issuer.clone()));
    }
    host.authorization()
        .map(|server| (server.resource(), server.public_url.clone()))
}

async fn metadata(State(host): State<Host>) -> Result<Json<ProtectedResource>, HostError> {
    let (resource, server) = protected(&host).ok_or(HostError::UnknownRoute)?;
    Ok(Json(ProtectedResource {
        resource,
        authorization_servers: vec![server],
        scopes_supported: vec![AGENT_SCOPE],
        bearer_methods_supported: vec!["header"],
        resource_name: "Index negotiation host",
    }))
}

/// The `WWW-Authenticate` of a refusal (RFC 6750, section 3): where the
/// metadata is and the scope to ask for, when the host takes an issuer's
/// tokens; `invalid_token` when a token was sent (with why, when it was an
/// expired key), so that a client asks for another rather than starting
/// over; `insufficient_scope` for a token without the agent scope.
pub(crate) fn challenge(host: &Host, sent: bool, refused: &HostError) -> HeaderValue {
    let mut parts: Vec<String> = Vec::new();
    if let Some((resource, _)) = protected(host) {
        let resource = resource.trim_end_matches('/');
        let origin = resource.strip_suffix("/mcp").unwrap_or(resource);
        parts.push(format!("resource_metadata=\"{origin}{METADATA_FOR_MCP}\""));
        parts.push(format!("scope=\"{AGENT_SCOPE}\""));
    }
    match refused {
        HostError::InsufficientScope => {
            parts.push("error=\"insufficient_scope\"".to_owned());
        }
        HostError::KeyExpired => {
            parts.push("error=\"invalid_token\"".to_owned());
            parts.push("error_description=\"The API key has expired\"".to_owned());
        }
        _ if sent => parts.push("error=\"invalid_token\"".to_owned()),
        _ => {}
    }
    let challenge = match parts.is_empty() {
        true => "Bearer".to_owned(),
        false => format!("Bearer {}", parts.join(", ")),
    };
    // Every part is ASCII the host wrote (the resource is a URL the
    // operator gave and `IssuerSettings` does not check): a value a header
    // cannot carry falls back to the bare challenge.
    HeaderValue::from_str(&challenge).unwrap_or(HeaderValue::from_static("Bearer"))
}
