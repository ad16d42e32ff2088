//! The host's own OAuth 2.1 authorization server, so that one `index
//! serve` is enough for the MCP clients that connect only through OAuth:
//! the authorization code grant with PKCE (S256 only), clients known by
//! their metadata document's URL or registered on the spot (RFC 7591),
//! refresh tokens that rotate, revocation (RFC 7009). A person approves a
//! client in their browser, signed in as for the inbox; what the approval
//! gives is a grant whose tokens are keys of the store.
//!
//! | module | holds |
//! |---|---|
//! | `clients` | who a client is: its metadata document, fetched safely, or its signed registration |
//! | `connections` | the clients a person connected, as their inbox lists and ends them |
//! | `grants` | codes (signed, spent once) and the tokens a grant holds: made, rotated, revoked |

use std::time::Duration;

pub(crate) mod clients;
pub(crate) mod connections;
pub(crate) mod grants;

/// How the host's own authorization server runs.
///
/// ```
/// use index_host::AuthorizationSettings;
/// let settings = AuthorizationSettings::new("https://negotiate.example.com");
/// assert!(!settings.allow_local_clients);
/// assert_eq!(settings.access_lifetime.as_secs(), 3600);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthorizationSettings {
    /// The URL clients reach the host at, without a trailing slash: the
    /// issuer, the base of every endpoint, and (with `/mcp`) the resource.
    pub public_url: String,
    /// Whether a client's metadata document may be fetched from a
    /// loopback or private address, and over plain HTTP: for development
    /// and tests only.
    pub allow_local_clients: bool,
    /// How long an access token works before its client refreshes it
    /// (an hour unless set): the longest a token lives that nobody
    /// revoked, and how often a client comes back for the next one.
    pub access_lifetime: Duration,
}

impl AuthorizationSettings {
    /// The authorization server of a host reached at `public_url`.
    pub fn new(public_url: impl Into<String>) -> Self {
        AuthorizationSettings {
            public_url: public_url.into().trim_end_matches('/').to_owned(),
            allow_local_clients: false,
            access_lifetime: grants::ACCESS_LIFETIME,
        }
    }

    /// The MCP endpoint tokens are for.
    pub(crate) fn resource(&self) -> String {
        format!("{}/mcp", self.public_url)
    }
}

/// An OAuth error (RFC 6749, section 5.2; RFC 7591, section 3.2.2): its
/// code, what went wrong, and whether the client itself is unknown.
#[derive(Debug)]
pub(crate) struct OAuthError {
    pub(crate) error: &'static str,
    pub(crate) description: String,
}

impl OAuthError {
    fn new(error: &'static str, description: impl Into<String>) -> Self {
        OAuthError {
            error,
            description: description.into(),
        }
    }
    pub(crate) fn invalid_request(why: &str) -> Self {
        Self::new("invalid_request", why)
    }
    pub(crate) fn invalid_client(why: &str) -> Self {
        Self::new("invalid_client", why)
    }
    pub(crate) fn invalid_grant(why: &str) -> Self {
        Self::new("invalid_grant", why)
    }
    pub(crate) fn invalid_target() -> Self {
        Self::new(
            "invalid_target",
            "tokens of this server are for its /mcp only",
        )
    }
    pub(crate) fn invalid_client_metadata(why: &str) -> Self {
        Self::new("invalid_client_metadata", why)
    }
    pub(crate) fn invalid_redirect_uri(why: &str) -> Self {
        Self::new("invalid_redirect_uri", why)
    }
    pub(crate) fn unsupported_grant_type() -> Self {
        Self::new(
            "unsupported_grant_type",
            "authorization_code and refresh_token only",
        )
    }
    /// The server's own failure: logged, and told as no more than that.
    pub(crate) fn server(err: impl std::fmt::Display) -> Self {
        tracing::warn!(error = %err, "an OAuth request failed on the server's side");
        Self::new("server_error", "the server could not do it; try again")
    }
}
