//! Access tokens from an identity provider the operator already runs
//! (`index serve --oauth-issuer URL`): the host is then an OAuth 2.1
//! protected resource for that issuer. A token is a JWT signed with one
//! of the issuer's published keys, issued by it (`iss`), for this host
//! (`aud` holds the resource, RFC 8707), unexpired, and carrying the
//! [`AGENT_SCOPE`]; the person it acts for is the claim the operator names
//! (`sub` unless told otherwise). It acts as that person's agent, as an
//! agent key does. API keys keep working beside it.
//!
//! The issuer's keys are found through its metadata (RFC 8414, else
//! OpenID Connect discovery) and kept. A token signed with a key not yet
//! seen, or keys kept for over [`KEYS_LAST`], fetch them again, but no
//! fetch starts within [`REFETCH_AFTER`] of the last one, whether it
//! worked or not, so neither forged key ids nor an issuer that is down
//! make the host hammer it. Reading the kept keys never waits for a
//! fetch: only a token whose key is unknown waits, for the one fetch in
//! flight. Every fetch has a timeout and a size limit, follows no
//! redirect, and runs to its end even if the request that started it
//! goes away.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;
use sha2::{Digest, Sha256};

use index_negotiation_store::{ActorKind, KeyScope, UserId};

use crate::service::error::HostError;
use crate::service::keys::Caller;

/// The scope a token needs: what a person's agent may do, as an agent
/// key may.
pub const AGENT_SCOPE: &str = "agent";

/// The least time between two fetches of the issuer's keys.
const REFETCH_AFTER: Duration = Duration::from_secs(30);

/// How long fetched keys are kept before they are fetched again.
const KEYS_LAST: Duration = Duration::from_secs(60 * 60);

/// How long a fetch from the issuer may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest metadata document or key set read from the issuer.
const FETCH_LIMIT: usize = 1024 * 1024;

/// How far a token's times may be off the host's clock.
const CLOCK_SKEW_SECS: u64 = 60;

/// The signature algorithms a token may use: the issuer's public keys
/// check them. Never a shared secret, never none.
const ALGORITHMS: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Which issuer's tokens the host takes, and for what.
///
/// ```
/// use index_host::IssuerSettings;
/// let issuer = IssuerSettings::new(
///     "https://login.example.com/",
///     "https://negotiate.example.com/mcp",
/// );
/// assert_eq!(issuer.user_claim, "sub");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IssuerSettings {
    /// The issuer's identifier, exactly as its tokens' `iss` says it.
    pub issuer: String,
    /// This host's MCP endpoint as clients reach it: the audience a
    /// token must name, and the resource the host describes.
    pub resource: String,
    /// The claim that names the person a token acts for.
    pub user_claim: String,
}

impl IssuerSettings {
    /// Tokens of `issuer` for `resource`, the person in `sub`.
    pub fn new(issuer: impl Into<String>, resource: impl Into<String>) -> Self {
        IssuerSettings {
            issuer: issuer.into(),
            resource: resource.into(),
            user_claim: "sub".to_owned(),
        }
    }
}

/// The issuer's keys as last fetched.
struct Keys {
    keys: Vec<Jwk>,
    fetched: Instant,
}

/// What the fetching side remembers: when the last fetch started, and
/// where the keys are once the metadata said so.
#[derive(Default)]
struct Fetching {
    last_attempt: Option<Instant>,
    jwks_uri: Option<String>,
}

/// Checks tokens of one issuer.
pub(crate) struct Issuer {
    settings: IssuerSettings,
    http: reqwest::Client,
    /// The keys as last fetched, read without waiting for a fetch.
    keys: RwLock<Option<Arc<Keys>>>,
    /// Held by the one fetch in flight; a request that needs a key not
    /// yet seen waits on it.
    fetching: tokio::sync::Mutex<Fetching>,
}

impl std::fmt::Debug for Issuer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Issuer")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl Issuer {
    /// A checker for `settings`' tokens; nothing is fetched yet.
    ///
    /// # Errors
    ///
    /// [`HostError::BadRequest`] for an issuer that is not an https URL
    /// (plain http only on loopback, for tests), or when the HTTP client
    /// cannot be built.
    pub(crate) fn new(settings: IssuerSettings) -> Result<Self, HostError> {
        if !crate::service::loopback::is_secure_or_loopback(&settings.issuer) {
            return Err(HostError::BadRequest(format!(
                "the issuer {:?} is not an https URL: its keys decide who a token is",
                settings.issuer
            )));
        }
        let http = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|err| {
                HostError::BadRequest(format!("no HTTP client for the issuer: {err}"))
            })?;
        Ok(Issuer {
            settings,
            http,
            keys: RwLock::new(None),
            fetching: tokio::sync::Mutex::new(Fetching::default()),
        })
    }

    pub(crate) fn settings(&self) -> &IssuerSettings {
        &self.settings
    }

    /// The caller `token` is, if it is a valid token of this issuer for
    /// this host; [`HostError::InsufficientScope`] for one without the
    /// agent scope, [`HostError::Unauthorized`] for any other (why is
    /// logged, never told).
    pub(crate) async fn authenticate(self: &Arc<Self>, token: &str) -> Result<Caller, HostError> {
        self.check(token).await.map_err(|why| {
            tracing::info!(why, "an access token was refused");
            match why {
                NO_AGENT_SCOPE => HostError::InsufficientScope,
                _ => HostError::Unauthorized,
            }
        })
    }

    async fn check(self: &Arc<Self>, token: &str) -> Result<Caller, &'static str> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| "not a JWT")?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err("an algorithm the host does not take");
        }
        let key = self.key(header.kid.as_deref(), header.alg).await?;
        let mut validation = Validation::new(header.alg);
        validation.algorithms = vec![header.alg];
        validation.set_issuer(&[&self.settings.issuer]);
        validation.set_audience(&[&self.settings.resource]);
        validation.leeway = CLOCK_SKEW_SECS;
        validation.validate_nbf = true;
        validation.required_spec_claims = ["exp", "iss", "aud"].map(str::to_owned).into();
        let claims =
            jsonwebtoken::decode::<serde_json::Map<String, Value>>(token, &key, &validation)
                .map_err(|_| "a bad signature, issuer, audience or time")?
                .claims;
        if !scopes(&claims).any(|scope| scope == AGENT_SCOPE) {
            return Err(NO_AGENT_SCOPE);
        }
        // An e-mail address names a person only once the issuer checked it.
        if self.settings.user_claim == "email"
            && claims.get("email_verified").and_then(Value::as_bool) != Some(true)
        {
            return Err("an e-mail address the issuer has not verified");
        }
        let user = claims
            .get(&self.settings.user_claim)
            .and_then(Value::as_str)
            .ok_or("no user claim")?;
        let user_id = UserId::parse(user).map_err(|_| "a user claim that is no user id")?;
        crate::service::names::check_name("the user id", user_id.as_str())
            .map_err(|_| "a user claim that is no name")?;
        // Stands in for a key id in logs and per-key limits: the same for
        // every token of one person from this issuer, and nothing else.
        let mut digest = Sha256::new();
        digest.update(self.settings.issuer.as_bytes());
        digest.update([0]);
        digest.update(user_id.as_str().as_bytes());
        let digest = digest.finalize();
        let key_id = format!(
            "oauth:{}",
            digest
                .iter()
                .take(6)
                .map(|byte| format!("{byte:02x}"))
                .collect::<String>()
        );
        Ok(Caller {
            user_id,
            scope: KeyScope::Agent,
            key_id,
            kind: ActorKind::OAuth,
            request_id: None,
        })
    }

    /// The issuer's key `kid` names (the only one, when the token names
    /// none and there is one) for `alg`: from the kept keys, or, when they
    /// lack it or are old, from a fetch (the one in flight, or a new one
    /// if none started within [`REFETCH_AFTER`]).
    async fn key(
        self: &Arc<Self>,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<DecodingKey, &'static str> {
        let kept = self.kept();
        if let Some(jwk) = kept.as_ref().and_then(|keys| find(&keys.keys, kid)) {
            let stale = kept
                .as_ref()
                .is_some_and(|keys| keys.fetched.elapsed() > KEYS_LAST);
            if stale && self.refresh_due() {
                // Still good while fresh ones are fetched behind it.
                let issuer = Arc::clone(self);
                tokio::spawn(async move { issuer.refresh().await });
            }
            return decoding_key(jwk, alg);
        }
        // Unknown: the one fetch, on a task of its own so that it ends
        // even if this request goes away.
        let issuer = Arc::clone(self);
        let _ = tokio::spawn(async move { issuer.refresh().await }).await;
        let kept = self.kept();
        let jwk = kept
            .as_ref()
            .and_then(|keys| find(&keys.keys, kid))
            .ok_or("a key the issuer does not publish (or its keys could not be fetched)")?;
        decoding_key(jwk, alg)
    }

    fn kept(&self) -> Option<Arc<Keys>> {
        self.keys.read().ok().and_then(|keys| keys.clone())
    }

    /// Whether a refresh would fetch: none is in flight, and none started
    /// within [`REFETCH_AFTER`]. Checked before a task is spawned for one,
    /// so that requests on stale keys do not each spawn a task that only
    /// finds the fetch done.
    fn refresh_due(&self) -> bool {
        self.fetching.try_lock().is_ok_and(|fetching| {
            fetching
                .last_attempt
                .is_none_or(|last| last.elapsed() >= REFETCH_AFTER)
        })
    }

    /// Fetches the keys, unless a fetch started within [`REFETCH_AFTER`]:
    /// then it waits for that one, if it is still in flight, and returns.
    async fn refresh(&self) {
        let mut fetching = self.fetching.lock().await;
        if fetching
            .last_attempt
            .is_some_and(|last| last.elapsed() < REFETCH_AFTER)
        {
            return;
        }
        fetching.last_attempt = Some(Instant::now());
        match self.fetch_keys(&mut fetching).await {
            Ok(fetched) => {
                if let Ok(mut keys) = self.keys.write() {
                    *keys = Some(Arc::new(Keys {
                        keys: fetched,
                        fetched: Instant::now(),
                    }));
                }
            }
            Err(err) => {
                tracing::warn!(issuer = %self.settings.issuer, error = %err, "the issuer's keys could not be fetched; the kept ones serve");
            }
        }
    }

    /// The issuer's published signing keys, through its metadata (read
    /// once, then its `jwks_uri` kept).
    async fn fetch_keys(&self, fetching: &mut Fetching) -> Result<Vec<Jwk>, String> {
        let jwks_uri = match &fetching.jwks_uri {
            Some(uri) => uri.clone(),
            None => {
                let metadata = self.metadata().await?;
                let uri = metadata
                    .get("jwks_uri")
                    .and_then(Value::as_str)
                    .ok_or("the issuer's metadata names no jwks_uri")?;
                let downgraded =
                    self.settings.issuer.starts_with("https://") && !uri.starts_with("https://");
                if !crate::service::loopback::is_secure_or_loopback(uri) || downgraded {
                    return Err(format!("the issuer's jwks_uri {uri} is not https"));
                }
                fetching.jwks_uri = Some(uri.to_owned());
                uri.to_owned()
            }
        };
        let set = self.fetch_json(&jwks_uri).await?;
        // A key the host cannot use (another type, one for encryption, a
        // shared secret) is left out; the others still serve.
        Ok(set
            .get("keys")
            .and_then(Value::as_array)
            .ok_or("the key set has no keys")?
            .iter()
            .filter_map(|key| serde_json::from_value::<Jwk>(key.clone()).ok())
            .filter(|key| !matches!(key.common.public_key_use, Some(PublicKeyUse::Encryption)))
            .filter(|key| !matches!(key.algorithm, AlgorithmParameters::OctetKey(_)))
            .collect())
    }

    /// The issuer's metadata: RFC 8414's, else OpenID Connect's; it must
    /// name the issuer exactly as configured.
    async fn metadata(&self) -> Result<serde_json::Map<String, Value>, String> {
        let issuer = self.settings.issuer.trim_end_matches('/');
        let url =
            reqwest::Url::parse(issuer).map_err(|err| format!("the issuer is no URL: {err}"))?;
        let path = url.path().trim_end_matches('/');
        let origin = url.origin().ascii_serialization();
        let candidates = [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{issuer}/.well-known/openid-configuration"),
        ];
        let mut last = String::new();
        for candidate in candidates {
            match self.fetch_json(&candidate).await {
                Ok(Value::Object(metadata)) => {
                    let named = metadata.get("issuer").and_then(Value::as_str);
                    if named == Some(self.settings.issuer.as_str()) {
                        return Ok(metadata);
                    }
                    last = format!("{candidate} names another issuer");
                }
                Ok(_) => last = format!("{candidate} is not a JSON object"),
                Err(err) => last = err,
            }
        }
        Err(last)
    }

    /// `url`'s JSON, read to [`FETCH_LIMIT`].
    async fn fetch_json(&self, url: &str) -> Result<Value, String> {
        let mut response = self
            .http
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|err| format!("{url}: {err}"))?;
        if !response.status().is_success() {
            return Err(format!("{url}: {}", response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|err| format!("{url}: {err}"))?
        {
            if body.len() + chunk.len() > FETCH_LIMIT {
                return Err(format!("{url}: over {FETCH_LIMIT} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|err| format!("{url}: {err}"))
    }
}

/// A token without the agent scope: refused with 403, not 401.
const NO_AGENT_SCOPE: &str = "no agent scope";

/// Whether `url` is https, or plain http on a loopback address.
/// `jwk` as a key that checks `alg`: its own `alg` if it names one, else
/// one its type and curve allow (RFC 7517 makes `alg` optional, and some
/// issuers leave it out).
fn decoding_key(jwk: &Jwk, alg: Algorithm) -> Result<DecodingKey, &'static str> {
    let fits = match jwk.common.key_algorithm {
        Some(declared) => declared.to_string() == format!("{alg:?}"),
        None => match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => matches!(
                alg,
                Algorithm::RS256
                    | Algorithm::RS384
                    | Algorithm::RS512
                    | Algorithm::PS256
                    | Algorithm::PS384
                    | Algorithm::PS512
            ),
            AlgorithmParameters::EllipticCurve(ec) => matches!(
                (&ec.curve, alg),
                (EllipticCurve::P256, Algorithm::ES256) | (EllipticCurve::P384, Algorithm::ES384)
            ),
            AlgorithmParameters::OctetKeyPair(okp) => {
                okp.curve == EllipticCurve::Ed25519 && alg == Algorithm::EdDSA
            }
            _ => false,
        },
    };
    if !fits {
        return Err("a key used with another algorithm than its own");
    }
    DecodingKey::from_jwk(jwk).map_err(|_| "a key the host cannot use")
}

/// The key `kid` names, or the only key when there is no `kid`.
fn find<'a>(keys: &'a [Jwk], kid: Option<&str>) -> Option<&'a Jwk> {
    match kid {
        Some(kid) => keys
            .iter()
            .find(|key| key.common.key_id.as_deref() == Some(kid)),
        None => match keys {
            [only] => Some(only),
            _ => None,
        },
    }
}

/// The scopes a token's claims grant: `scope` (space-separated, RFC 9068)
/// or `scp` (a list, or space-separated, as providers write it).
fn scopes(claims: &serde_json::Map<String, Value>) -> impl Iterator<Item = &str> {
    let spaced = ["scope", "scp"]
        .into_iter()
        .filter_map(|claim| claims.get(claim).and_then(Value::as_str))
        .flat_map(str::split_whitespace);
    let listed = claims
        .get("scp")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    spaced.chain(listed)
}
