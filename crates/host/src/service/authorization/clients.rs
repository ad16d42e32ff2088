//! Who a client is: a Client ID Metadata Document's URL, fetched (the way
//! the MCP authorization spec prefers), or an id this host gave it at
//! Dynamic Client Registration (RFC 7591), which carries the registration
//! itself, signed, so that any host of the store reads it and none stores
//! it.
//!
//! A metadata document is fetched over HTTPS (plain HTTP only on
//! loopback, and only with local clients allowed), with a timeout, a size
//! limit, no redirect, and never from an address that is not public
//! unless local clients are allowed: a client id is anyone's to choose,
//! and the host must not become a way into its own network.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::service::authorization::OAuthError;
use crate::service::host::Host;
use crate::service::outbound;

/// How long fetching a metadata document may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest metadata document read.
const DOCUMENT_LIMIT: usize = 16 * 1024;

/// The most redirect URIs a client may register.
const MOST_REDIRECTS: usize = 8;

/// The longest redirect URI or client name taken.
const LONGEST_FIELD: usize = 2048;

/// The prefix of the client ids this host gives at registration.
const REGISTERED_PREFIX: &str = "index-client.";

/// A client as the host knows it for one authorization.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Client {
    /// Its id: the metadata document's URL, or the one registration gave.
    pub(crate) id: String,
    /// What it calls itself, shown to the person who approves it.
    pub(crate) name: String,
    /// Where it may be sent back to.
    pub(crate) redirect_uris: Vec<String>,
}

/// What a client sends to register (RFC 7591), the fields the host uses.
#[derive(Debug, Deserialize)]
pub(crate) struct Registration {
    #[serde(default)]
    pub(crate) redirect_uris: Vec<String>,
    #[serde(default)]
    pub(crate) client_name: Option<String>,
    #[serde(default)]
    pub(crate) token_endpoint_auth_method: Option<String>,
    #[serde(default)]
    pub(crate) grant_types: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) response_types: Option<Vec<String>>,
}

/// What the registration's id carries, signed.
#[derive(Serialize, Deserialize)]
struct Registered {
    name: String,
    redirect_uris: Vec<String>,
}

/// Registers a client: checks what it asks for and gives it an id that
/// carries the registration, signed with the store's key.
pub(crate) async fn register(
    host: &Host,
    registration: Registration,
    allow_local: bool,
) -> Result<Client, OAuthError> {
    let invalid = |why: &str| OAuthError::invalid_client_metadata(why);
    if registration
        .token_endpoint_auth_method
        .as_deref()
        .is_some_and(|method| method != "none")
    {
        return Err(invalid(
            "this server registers public clients only (token_endpoint_auth_method none)",
        ));
    }
    let supported = |asked: &Option<Vec<String>>, allowed: &[&str]| {
        asked
            .iter()
            .flatten()
            .all(|value| allowed.contains(&value.as_str()))
    };
    if !supported(
        &registration.grant_types,
        &["authorization_code", "refresh_token"],
    ) || !supported(&registration.response_types, &["code"])
    {
        return Err(invalid(
            "only the authorization code grant (with refresh) is offered",
        ));
    }
    let name = client_name(registration.client_name.as_deref());
    let redirect_uris = redirect_uris(&registration.redirect_uris, allow_local)?;
    let registered = Registered {
        name: name.clone(),
        redirect_uris: redirect_uris.clone(),
    };
    let payload = serde_json::to_vec(&registered).map_err(OAuthError::server)?;
    let signed = host.sign(&payload).await.map_err(OAuthError::server)?;
    Ok(Client {
        id: format!("{REGISTERED_PREFIX}{signed}"),
        name,
        redirect_uris,
    })
}

/// The client `id` names: one this host (or another of its store)
/// registered, or one whose metadata document is at `id`.
pub(crate) async fn resolve(
    host: &Host,
    id: &str,
    allow_local: bool,
) -> Result<Client, OAuthError> {
    if let Some(signed) = id.strip_prefix(REGISTERED_PREFIX) {
        let payload = host
            .open_signed(signed)
            .await
            .ok_or_else(|| OAuthError::invalid_client("an unknown client"))?;
        let registered: Registered = serde_json::from_slice(&payload)
            .map_err(|_| OAuthError::invalid_client("an unknown client"))?;
        return Ok(Client {
            id: id.to_owned(),
            name: registered.name,
            redirect_uris: registered.redirect_uris,
        });
    }
    let url = metadata_url(id, allow_local).ok_or_else(|| {
        OAuthError::invalid_client(
            "an unknown client: neither registered here nor a metadata document's https URL",
        )
    })?;
    let document = fetch_document(&url, allow_local).await.map_err(|why| {
        tracing::info!(client = ?id, why, "a client's metadata document could not be read");
        OAuthError::invalid_client("the client's metadata document could not be read")
    })?;
    if document.get("client_id").and_then(Value::as_str) != Some(id) {
        return Err(OAuthError::invalid_client(
            "the metadata document names another client_id",
        ));
    }
    let auth_method = document
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str);
    if auth_method.is_some_and(|method| method != "none") {
        return Err(OAuthError::invalid_client(
            "this server takes public clients only (token_endpoint_auth_method none)",
        ));
    }
    let uris: Vec<String> = document
        .get("redirect_uris")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|uri| uri.as_str().map(str::to_owned))
        .collect();
    Ok(Client {
        id: id.to_owned(),
        name: client_name(document.get("client_name").and_then(Value::as_str)),
        redirect_uris: redirect_uris(&uris, allow_local)
            .map_err(|_| OAuthError::invalid_client("the metadata document's redirect_uris"))?,
    })
}

/// A name fit to show: at most 64 characters of what the client said,
/// none that could hide or reorder text; "an unnamed client" when empty.
fn client_name(name: Option<&str>) -> String {
    let name: String = name
        .unwrap_or_default()
        .chars()
        .filter(|c| !crate::service::names::is_forbidden_in_name(*c))
        .take(crate::service::keys::KEY_NAME_LIMIT)
        .collect();
    match name.trim() {
        "" => "an unnamed client".to_owned(),
        name => name.to_owned(),
    }
}

/// Checks redirect URIs: one to [`MOST_REDIRECTS`], each an absolute
/// https URL, or http on a loopback address (a native app, RFC 8252),
/// without a fragment.
fn redirect_uris(uris: &[String], allow_local: bool) -> Result<Vec<String>, OAuthError> {
    let invalid = OAuthError::invalid_redirect_uri;
    if uris.is_empty() || uris.len() > MOST_REDIRECTS {
        return Err(invalid("one to eight redirect_uris"));
    }
    for uri in uris {
        let url = reqwest::Url::parse(uri).map_err(|_| invalid("a redirect URI that is no URL"))?;
        let loopback = crate::service::loopback::is_loopback(&url);
        let allowed = match url.scheme() {
            "https" => true,
            "http" => loopback || allow_local,
            _ => false,
        };
        if !allowed || uri.len() > LONGEST_FIELD || url.fragment().is_some() {
            return Err(invalid(
                "a redirect URI must be https (or http on a loopback address), without a fragment",
            ));
        }
    }
    Ok(uris.to_vec())
}

/// Whether `given` is `registered`: the same string, or, for a loopback
/// redirect, the same but for the port, which a native app picks when it
/// starts (RFC 8252, section 7.3).
pub(crate) fn redirect_matches(registered: &str, given: &str) -> bool {
    if registered == given {
        return true;
    }
    let (Ok(mut registered), Ok(mut given)) =
        (reqwest::Url::parse(registered), reqwest::Url::parse(given))
    else {
        return false;
    };
    if registered.scheme() != "http" || !crate::service::loopback::is_loopback(&registered) {
        return false;
    }
    let (Ok(()), Ok(())) = (registered.set_port(None), given.set_port(None)) else {
        return false;
    };
    registered == given
}

/// The URL a metadata document client id names: https with a path, or
/// http on loopback when local clients are allowed.
fn metadata_url(id: &str, allow_local: bool) -> Option<reqwest::Url> {
    let url = reqwest::Url::parse(id).ok()?;
    let scheme_ok = match url.scheme() {
        "https" => true,
        "http" => allow_local,
        _ => false,
    };
    let shaped = url.path() != "/"
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none();
    (scheme_ok && shaped).then_some(url)
}

/// The JSON object at `url`, read to [`DOCUMENT_LIMIT`].
async fn fetch_document(
    url: &reqwest::Url,
    allow_local: bool,
) -> Result<serde_json::Map<String, Value>, &'static str> {
    if !outbound::literal_allowed(url, allow_local) {
        return Err("a private address");
    }
    let http = outbound::client(FETCH_TIMEOUT, allow_local).map_err(|_| "no HTTP client")?;
    let mut response = http
        .get(url.clone())
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|_| "the fetch failed")?;
    if !response.status().is_success() {
        return Err("the document's server refused");
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|_| "the fetch failed")? {
        if body.len() + chunk.len() > DOCUMENT_LIMIT {
            return Err("the document is too large");
        }
        body.extend_from_slice(&chunk);
    }
    match serde_json::from_slice(&body) {
        Ok(Value::Object(document)) => Ok(document),
        _ => Err("the document is not a JSON object"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::IpAddr;

    #[test]
    fn a_loopback_redirect_may_change_its_port_and_nothing_else_may() {
        assert!(redirect_matches(
            "http://127.0.0.1/cb",
            "http://127.0.0.1:53111/cb"
        ));
        assert!(redirect_matches(
            "http://localhost:1/cb",
            "http://localhost:2/cb"
        ));
        assert!(!redirect_matches(
            "http://127.0.0.1/cb",
            "http://127.0.0.1:53111/other"
        ));
        assert!(!redirect_matches(
            "https://app.example/cb",
            "https://app.example:8443/cb"
        ));
        assert!(!redirect_matches(
            "https://app.example/cb",
            "https://app.example/cb?x=1"
        ));
        assert!(redirect_matches(
            "https://app.example/cb",
            "https://app.example/cb"
        ));
    }

    #[test]
    fn only_public_addresses_are_fetched_unless_local_clients_are_allowed() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:10.0.0.1",
            "192.0.0.8",
            "64:ff9b::a00:1",
            "2002:a00:1::1",
            "2001:0:a00:1::1",
            "2001:db8::1",
            "fec0::1",
            "::a00:1",
        ] {
            let ip: IpAddr = private.parse().unwrap_or(IpAddr::from([0, 0, 0, 0]));
            assert!(!outbound::reachable(ip, false), "{private}");
            assert!(outbound::reachable(ip, true), "{private}");
        }
        for public in ["93.184.215.14", "2606:4700::1111"] {
            let ip: IpAddr = public.parse().unwrap_or(IpAddr::from([0, 0, 0, 0]));
            assert!(outbound::reachable(ip, false), "{public}");
        }
    }

    #[test]
    fn a_client_id_is_a_metadata_url_only_with_https_and_a_path() {
        assert!(metadata_url("https://app.example/oauth/client.json", false).is_some());
        assert!(metadata_url("https://app.example/", false).is_none());
        assert!(metadata_url("http://127.0.0.1:9/client.json", false).is_none());
        assert!(metadata_url("http://127.0.0.1:9/client.json", true).is_some());
        assert!(metadata_url("my-client", false).is_none());
    }
}
