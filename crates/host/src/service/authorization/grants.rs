//! Codes and tokens: what a person's approval gives a client, and what the
//! client exchanges it for.
//!
//! A code carries the approval itself (whose, for which client, redirect
//! URI, PKCE challenge and resource, until when), signed with the store's
//! key, and is spent in the store the first time it is exchanged, so it
//! is good once on every host. Its exchange starts a grant: an access
//! token and a refresh token, both keys of the store (so `index keys list`
//! shows them and `index keys revoke` ends them on every host), sharing
//! the grant's id. A refresh token is spent by its exchange for the
//! grant's next pair; presented again, it ends the whole grant, since
//! only a stolen copy is presented twice.

use std::time::Duration;

use base64::Engine;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use index_negotiation_store::{Actor, ApiKeyStore, AuditStep, KeyKind, UnixTime, UserId};

use crate::service::authorization::OAuthError;
use crate::service::authorization::clients::Client;
use crate::service::host::Host;
use crate::service::issuer::AGENT_SCOPE;
use crate::service::keys::{hash_key, hex, make_grant_key, random_hex};

/// How long a code may wait for its exchange.
pub(crate) const CODE_LIFETIME: Duration = Duration::from_secs(60);

/// How long a spent code stays spent past its own end: longer than any
/// two hosts' clocks should differ.
const SPEND_MARGIN: Duration = Duration::from_secs(5 * 60);

/// How long an access token works unless the settings say otherwise.
pub(crate) const ACCESS_LIFETIME: Duration = Duration::from_secs(60 * 60);

/// How long a refresh token may wait for its exchange.
pub(crate) const REFRESH_LIFETIME: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// What a code carries, signed.
// No `Debug`: it is a code's content, which opens a grant.
#[derive(Serialize, Deserialize)]
struct Code {
    user: UserId,
    client: String,
    client_name: String,
    redirect_uri: String,
    /// Whether the request named its redirect URI (else it was the
    /// client's only one): then the exchange must name it too.
    redirect_given: bool,
    /// The PKCE challenge (S256), base64url without padding.
    challenge: String,
    resource: String,
    /// When it stops working, in Unix seconds.
    expires: u64,
    /// 128 random bits: no two codes are the same, and each is spent by
    /// its digest.
    nonce: String,
}

/// What an approval asks for, checked already: the client, where it is
/// sent back, its PKCE challenge, and the resource.
#[derive(Debug, Clone)]
pub(crate) struct Approval {
    pub(crate) client: Client,
    pub(crate) redirect_uri: String,
    /// Whether the request named `redirect_uri` itself.
    pub(crate) redirect_given: bool,
    pub(crate) challenge: String,
    pub(crate) resource: String,
}

/// A code for `user`'s approval.
pub(crate) async fn code(
    host: &Host,
    user: &UserId,
    approval: &Approval,
) -> Result<String, OAuthError> {
    let nonce = random_hex().map_err(OAuthError::server)?;
    let code = Code {
        user: user.clone(),
        client: approval.client.id.clone(),
        client_name: approval.client.name.clone(),
        redirect_uri: approval.redirect_uri.clone(),
        redirect_given: approval.redirect_given,
        challenge: approval.challenge.clone(),
        resource: approval.resource.clone(),
        expires: UnixTime::now().after(CODE_LIFETIME).0,
        nonce,
    };
    let payload = serde_json::to_vec(&code).map_err(OAuthError::server)?;
    host.sign(&payload).await.map_err(OAuthError::server)
}

/// What a token response carries.
// No `Debug`: it holds the tokens.
#[derive(Serialize)]
pub(crate) struct Tokens {
    pub(crate) access_token: String,
    pub(crate) token_type: &'static str,
    pub(crate) expires_in: u64,
    pub(crate) refresh_token: String,
    pub(crate) scope: &'static str,
}

/// What a code exchange brings besides the code.
pub(crate) struct Exchange<'a> {
    pub(crate) client_id: &'a str,
    pub(crate) redirect_uri: Option<&'a str>,
    pub(crate) verifier: Option<&'a str>,
    pub(crate) resource: Option<&'a str>,
}

/// Exchanges `code` for a new grant's tokens, once.
pub(crate) async fn exchange(
    host: &Host,
    code: &str,
    exchange: &Exchange<'_>,
    actor: &Actor,
) -> Result<Tokens, OAuthError> {
    let invalid = |why: &str| OAuthError::invalid_grant(why);
    let payload = host
        .open_signed(code)
        .await
        .ok_or_else(|| invalid("an unknown or altered code"))?;
    let claims: Code = serde_json::from_slice(&payload).map_err(|_| invalid("an unknown code"))?;
    let now = UnixTime::now();
    if now.0 >= claims.expires {
        return Err(invalid("the code has expired"));
    }
    if claims.client != exchange.client_id {
        return Err(invalid("the code was given to another client"));
    }
    // The very URI the code was sent to, if the request named it (RFC
    // 6749, section 4.1.3); if not, one sent must still be that one.
    let named = claims.redirect_given || exchange.redirect_uri.is_some();
    if named && exchange.redirect_uri != Some(claims.redirect_uri.as_str()) {
        return Err(invalid(
            "the redirect_uri is not the one the code was given for",
        ));
    }
    if exchange.resource.is_some_and(|resource| {
        resource.trim_end_matches('/') != claims.resource.trim_end_matches('/')
    }) {
        return Err(OAuthError::invalid_target());
    }
    let verifier = exchange
        .verifier
        .ok_or_else(|| OAuthError::invalid_request("code_verifier is required"))?;
    if !pkce_holds(verifier, &claims.challenge) {
        return Err(invalid(
            "the code_verifier does not match the code_challenge",
        ));
    }
    // Spent once on the whole store: the first exchange wins. The spend is
    // kept past the code's end by a margin for hosts whose clocks differ.
    let digest: [u8; 32] = Sha256::digest(claims.nonce.as_bytes()).into();
    let kept_until = UnixTime(claims.expires.saturating_add(SPEND_MARGIN.as_secs()));
    let spent = host
        .store()
        .spend_token(&digest, kept_until, now)
        .await
        .map_err(OAuthError::server)?;
    // The grant is named for its code, so that a code presented again ends
    // what it gave (RFC 6749, section 4.1.2): only a thief presents it twice.
    let grant = hex(&Sha256::digest(
        format!("grant:{}", claims.nonce).as_bytes(),
    ));
    if !spent {
        tracing::warn!(user = ?claims.user.as_str(), "a code was presented again: its grant is revoked");
        host.keys()
            .revoke_grant(&grant, actor)
            .await
            .map_err(OAuthError::server)?;
        return Err(invalid("the code was used already"));
    }
    tokens(
        host,
        &claims.user,
        &grant,
        (&claims.client, &claims.client_name),
        actor,
    )
    .await
}

/// The grant's next pair of tokens for its refresh token `secret`; the
/// refresh token is spent. Presented after it was spent (or revoked), it
/// ends the whole grant.
pub(crate) async fn refresh(
    host: &Host,
    secret: &str,
    client_id: &str,
    actor: &Actor,
) -> Result<Tokens, OAuthError> {
    let invalid = || OAuthError::invalid_grant("an unknown, expired or revoked refresh token");
    let record = host
        .store()
        .find_api_key(&hash_key(secret))
        .await
        .map_err(OAuthError::server)?
        .filter(|record| record.kind == KeyKind::OAuthRefresh)
        .ok_or_else(invalid)?;
    let grant = record.grant.clone().ok_or_else(invalid)?;
    if record.client.as_deref() != Some(client_id) {
        return Err(OAuthError::invalid_grant(
            "the refresh token was given to another client",
        ));
    }
    if record.revoked {
        tracing::warn!(user = ?record.user_id.as_str(), key = %record.id, "a spent refresh token was presented again: its grant is revoked");
        host.keys()
            .revoke_grant(&grant, actor)
            .await
            .map_err(OAuthError::server)?;
        return Err(invalid());
    }
    if record
        .expires_at
        .is_some_and(|expires| expires <= UnixTime::now())
    {
        return Err(invalid());
    }
    let client = record.client.clone().unwrap_or_default();
    let name = record.name.clone().unwrap_or_default();
    // The next pair first, then the spend: a second exchange racing this
    // one loses the spend and ends the grant, these tokens with it.
    let tokens = tokens(host, &record.user_id, &grant, (&client, &name), actor).await?;
    let spent = host
        .keys()
        .revoke_api_key(&record.id, AuditStep::KeyRevoked, actor)
        .await
        .map_err(OAuthError::server)?;
    if spent != index_negotiation_store::Revocation::Revoked {
        tracing::warn!(user = ?record.user_id.as_str(), key = %record.id, "a refresh token was exchanged twice at once: its grant is revoked");
        host.keys()
            .revoke_grant(&grant, actor)
            .await
            .map_err(OAuthError::server)?;
        return Err(invalid());
    }
    Ok(tokens)
}

/// Ends the grant `secret` belongs to, whichever of its tokens it is
/// (RFC 7009); nothing for a token the host does not know.
pub(crate) async fn revoke(host: &Host, secret: &str, actor: &Actor) -> Result<(), OAuthError> {
    let found = host
        .store()
        .find_api_key(&hash_key(secret))
        .await
        .map_err(OAuthError::server)?;
    if let Some(grant) = found.and_then(|record| record.grant) {
        host.keys()
            .revoke_grant(&grant, actor)
            .await
            .map_err(OAuthError::server)?;
    }
    Ok(())
}

/// A new access token and refresh token of `grant`.
async fn tokens(
    host: &Host,
    user: &UserId,
    grant: &str,
    client: (&str, &str),
    actor: &Actor,
) -> Result<Tokens, OAuthError> {
    let store = host.store().as_ref();
    let lifetime = host
        .authorization()
        .map_or(ACCESS_LIFETIME, |settings| settings.access_lifetime);
    let access = make_grant_key(
        store,
        user.clone(),
        KeyKind::OAuth,
        grant,
        client,
        lifetime,
        actor,
    )
    .await
    .map_err(OAuthError::server)?;
    let refresh = make_grant_key(
        store,
        user.clone(),
        KeyKind::OAuthRefresh,
        grant,
        client,
        REFRESH_LIFETIME,
        actor,
    )
    .await
    .map_err(OAuthError::server)?;
    Ok(Tokens {
        access_token: access.secret,
        token_type: "Bearer",
        expires_in: lifetime.as_secs(),
        refresh_token: refresh.secret,
        scope: AGENT_SCOPE,
    })
}

/// Whether `verifier` is the one `challenge` was made from (S256, RFC
/// 7636): 43 to 128 unreserved characters whose SHA-256, base64url
/// without padding, is the challenge.
fn pkce_holds(verifier: &str, challenge: &str) -> bool {
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b));
    let made = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    well_formed && made == challenge
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_takes_the_verifier_its_challenge_was_made_from_and_no_other() {
        // RFC 7636, appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(pkce_holds(verifier, challenge));
        assert!(!pkce_holds(
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXl",
            challenge
        ));
        assert!(!pkce_holds("short", challenge));
    }
}
