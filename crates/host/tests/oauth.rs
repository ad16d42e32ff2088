//! The host as an OAuth protected resource of an identity provider the
//! test itself serves (`HostSettings::oauth_issuer`): what a client that
//! knows only the host's URL discovers, the tokens it takes, the ones it
//! refuses, and the API keys that keep working beside them.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use index_host::{Host, HostSettings, IssuerSettings, ServeSettings, serve_with};
use index_negotiation_store::{KeyScope, MemoryStore};

/// The issuer's signing key (Ed25519, PKCS #8) and its public half as the
/// issuer publishes it.
const ISSUER_KEY: &str = "MC4CAQAwBQYDK2VwBCIEIK8Ig0/XkRc/f0zRMFN/ozetSoiYfHhm6pNPmVPMF5QK";
const ISSUER_PUBLIC_X: &str = "uDcNI0xdakQkF9SmeekL7fpY35AcS0jebNKGI0ZC5IA";
/// A key the issuer never published: a forger's.
const FORGER_KEY: &str = "MC4CAQAwBQYDK2VwBCIEIIaBlRBJoTq2ifdnTe4ennjXrPh82yZ8uf7j/Ay6nZCx";

fn der(base64: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(base64)
        .unwrap()
}

/// An identity provider: RFC 8414 metadata and a key set, counting how
/// often its keys are fetched, and failing them while `down`.
struct Issuer {
    url: String,
    key_fetches: Arc<AtomicUsize>,
    down: Arc<AtomicBool>,
}

async fn issuer() -> Issuer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let key_fetches = Arc::new(AtomicUsize::new(0));
    let down = Arc::new(AtomicBool::new(false));
    let (metadata_url, fetches, failing) = (url.clone(), key_fetches.clone(), down.clone());
    let app = axum::Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            axum::routing::get(move || {
                let url = metadata_url.clone();
                async move {
                    axum::Json(json!({
                        "issuer": url,
                        "authorization_endpoint": format!("{url}/authorize"),
                        "token_endpoint": format!("{url}/token"),
                        "jwks_uri": format!("{url}/jwks"),
                    }))
                }
            }),
        )
        .route(
            "/jwks",
            axum::routing::get(move || {
                fetches.fetch_add(1, Ordering::SeqCst);
                let failing = failing.load(Ordering::SeqCst);
                async move {
                    if failing {
                        return Err(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
                    }
                    Ok(axum::Json(json!({"keys": [
                        // As some issuers publish it: no `alg`.
                        {"kty": "OKP", "crv": "Ed25519", "x": ISSUER_PUBLIC_X, "kid": "issuer-1", "use": "sig"},
                        {"kty": "oct", "k": "c2VjcmV0", "kid": "shared", "alg": "HS256"},
                        {"kty": "OKP", "crv": "Ed25519", "x": ISSUER_PUBLIC_X, "kid": "for-encryption", "use": "enc"},
                    ]})))
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    Issuer {
        url,
        key_fetches,
        down,
    }
}

/// A host that takes `issuer`'s tokens, and its base URL.
async fn host(issuer: &Issuer) -> (String, Host) {
    host_with(issuer, |_| {}).await
}

/// [`host`], its issuer's settings changed by `change`.
async fn host_with(issuer: &Issuer, change: impl FnOnce(&mut IssuerSettings)) -> (String, Host) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let mut settings = HostSettings::default();
    let mut issuer = IssuerSettings::new(&issuer.url, format!("{base}/mcp"));
    change(&mut issuer);
    settings.oauth_issuer = Some(issuer);
    let host = Host::with_settings(Arc::new(MemoryStore::new()), settings)
        .await
        .unwrap();
    tokio::spawn(serve_with(
        host.clone(),
        listener,
        ServeSettings::default(),
        std::future::pending(),
    ));
    (base, host)
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A token signed with `key` (under `kid`) carrying `claims`.
fn token(key: &str, kid: &str, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, &EncodingKey::from_ed_der(&der(key))).unwrap()
}

/// What the issuer would sign for dana's agent at `base`.
fn claims(issuer: &Issuer, base: &str) -> Value {
    json!({
        "iss": issuer.url,
        "aud": format!("{base}/mcp"),
        "sub": "dana",
        "scope": "openid agent",
        "iat": now(),
        "exp": now() + 600,
    })
}

/// `GET /negotiations` with `token`: the status and the challenge.
async fn list(base: &str, token: Option<&str>) -> (u16, Option<String>) {
    let mut request = reqwest::Client::new().get(format!("{base}/negotiations"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|value| value.to_str().unwrap().to_owned());
    (response.status().as_u16(), challenge)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_knows_only_the_url_finds_the_issuer() {
    let issuer = issuer().await;
    let (base, _host) = host(&issuer).await;
    // A 401 says where the metadata is and which scope to ask for.
    let (status, challenge) = list(&base, None).await;
    assert_eq!(status, 401);
    let challenge = challenge.unwrap();
    let metadata_url = format!("{base}/.well-known/oauth-protected-resource/mcp");
    assert!(
        challenge.starts_with("Bearer ")
            && challenge.contains(&format!("resource_metadata=\"{metadata_url}\""))
            && challenge.contains("scope=\"agent\"")
            && !challenge.contains("invalid_token"),
        "{challenge}"
    );
    // The metadata names the issuer and this resource, at both places.
    for url in [
        metadata_url.clone(),
        format!("{base}/.well-known/oauth-protected-resource"),
    ] {
        let metadata: Value = reqwest::get(&url).await.unwrap().json().await.unwrap();
        assert_eq!(metadata["resource"], format!("{base}/mcp"), "{metadata}");
        assert_eq!(metadata["authorization_servers"], json!([issuer.url]));
        assert_eq!(metadata["scopes_supported"], json!(["agent"]));
        assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));
    }
    // Other well-known paths are still nothing.
    let other = reqwest::get(format!("{base}/.well-known/openid-configuration"))
        .await
        .unwrap();
    assert_eq!(other.status(), 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_issuers_token_acts_as_its_persons_agent_and_keys_still_work() {
    let issuer = issuer().await;
    let (base, host) = host(&issuer).await;
    let token = token(ISSUER_KEY, "issuer-1", &claims(&issuer, &base));
    assert_eq!(list(&base, Some(&token)).await.0, 200);
    // As dana's agent, on MCP too: fifteen tools, not the host's seventeen.
    let response = reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .bearer_auth(&token)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    let listed = text
        .lines()
        .find_map(|line| line.strip_prefix("data:"))
        .map_or(text.as_str(), str::trim);
    let listed: Value = serde_json::from_str(listed).unwrap();
    assert_eq!(listed["result"]["tools"].as_array().map(Vec::len), Some(15));
    // An API key works as before.
    let key = host
        .create_key("sam".parse().unwrap(), KeyScope::Agent)
        .await
        .unwrap();
    assert_eq!(list(&base, Some(&key.secret)).await.0, 200);
    // The keys were fetched once for both requests.
    assert_eq!(issuer.key_fetches.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_that_do_not_hold_are_refused_with_invalid_token() {
    let issuer = issuer().await;
    let (base, _host) = host(&issuer).await;
    let good = claims(&issuer, &base);
    let with = |change: Value| {
        let mut claims = good.clone();
        claims
            .as_object_mut()
            .unwrap()
            .extend(change.as_object().unwrap().clone());
        claims
    };
    let without = |claim: &str| {
        let mut claims = good.clone();
        claims.as_object_mut().unwrap().remove(claim);
        claims
    };
    // A token for another resource, from another issuer, out of time,
    // without the scope, without its person, or not a name.
    let refused = [
        (
            "another audience",
            token(
                ISSUER_KEY,
                "issuer-1",
                &with(json!({"aud": "http://elsewhere.example/mcp"})),
            ),
        ),
        (
            "another issuer",
            token(
                ISSUER_KEY,
                "issuer-1",
                &with(json!({"iss": "http://elsewhere.example"})),
            ),
        ),
        (
            "expired",
            token(ISSUER_KEY, "issuer-1", &with(json!({"exp": now() - 3600}))),
        ),
        (
            "not yet valid",
            token(ISSUER_KEY, "issuer-1", &with(json!({"nbf": now() + 3600}))),
        ),
        ("no expiry", token(ISSUER_KEY, "issuer-1", &without("exp"))),
        ("no person", token(ISSUER_KEY, "issuer-1", &without("sub"))),
        (
            "a person no name can be",
            token(
                ISSUER_KEY,
                "issuer-1",
                &with(json!({"sub": "dana\u{202e}"})),
            ),
        ),
        (
            "a forger's key under the issuer's id",
            token(FORGER_KEY, "issuer-1", &good),
        ),
        (
            "a key published for encryption",
            token(ISSUER_KEY, "for-encryption", &good),
        ),
        ("not a JWT", "not.a.token".to_owned()),
    ];
    for (why, token) in &refused {
        let (status, challenge) = list(&base, Some(token)).await;
        assert_eq!(status, 401, "{why}");
        assert!(
            challenge.unwrap().contains("error=\"invalid_token\""),
            "{why}"
        );
    }
    // A token signed with the issuer's published shared key as an HMAC
    // secret (algorithm confusion) is no token of the issuer.
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("shared".to_owned());
    let hmac = jsonwebtoken::encode(
        &header,
        &good,
        &EncodingKey::from_secret(b"secret").unwrap(),
    )
    .unwrap();
    assert_eq!(list(&base, Some(&hmac)).await.0, 401);
    // Unknown key ids fetch the keys again once, not once each.
    let before = issuer.key_fetches.load(Ordering::SeqCst);
    for kid in ["unknown-1", "unknown-2", "unknown-3"] {
        let forged = token(FORGER_KEY, kid, &good);
        assert_eq!(list(&base, Some(&forged)).await.0, 401);
    }
    assert!(issuer.key_fetches.load(Ordering::SeqCst) <= before + 1);
    // The good token still holds, with its audience in a list too.
    let valid = token(ISSUER_KEY, "issuer-1", &good);
    assert_eq!(list(&base, Some(&valid)).await.0, 200);
    let listed = with(json!({"aud": ["http://elsewhere.example", format!("{base}/mcp")]}));
    assert_eq!(
        list(&base, Some(&token(ISSUER_KEY, "issuer-1", &listed)))
            .await
            .0,
        200
    );
    // As a browser's session cookie, it is no session.
    let cookie = reqwest::Client::new()
        .get(format!("{base}/negotiations"))
        .header("cookie", format!("index_session={valid}"))
        .send()
        .await
        .unwrap();
    assert_eq!(cookie.status(), 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_without_the_agent_scope_is_told_which_scope_to_ask_for() {
    let issuer = issuer().await;
    let (base, _host) = host(&issuer).await;
    let mut claims = claims(&issuer, &base);
    claims["scope"] = json!("openid profile");
    let (status, challenge) = list(&base, Some(&token(ISSUER_KEY, "issuer-1", &claims))).await;
    assert_eq!(status, 403);
    let challenge = challenge.unwrap();
    assert!(
        challenge.contains("error=\"insufficient_scope\"") && challenge.contains("scope=\"agent\""),
        "{challenge}"
    );
    // `scp` as some providers write it, a list or a string, is a scope.
    for scp in [json!(["agent"]), json!("openid agent")] {
        claims["scope"] = Value::Null;
        claims["scp"] = scp;
        assert_eq!(
            list(&base, Some(&token(ISSUER_KEY, "issuer-1", &claims)))
                .await
                .0,
            200
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_person_is_the_claim_the_operator_names_and_an_email_only_once_verified() {
    let issuer = issuer().await;
    let (base, _host) =
        host_with(&issuer, |settings| settings.user_claim = "email".to_owned()).await;
    let mut claims = claims(&issuer, &base);
    claims["email"] = json!("dana@example.com");
    assert_eq!(
        list(&base, Some(&token(ISSUER_KEY, "issuer-1", &claims)))
            .await
            .0,
        401
    );
    claims["email_verified"] = json!(true);
    assert_eq!(
        list(&base, Some(&token(ISSUER_KEY, "issuer-1", &claims)))
            .await
            .0,
        200
    );
    // A token without a key id is checked with the issuer's one signing
    // key (the others are for encryption or are shared secrets, unused).
    let header = Header::new(Algorithm::EdDSA);
    let key = EncodingKey::from_ed_der(&der(ISSUER_KEY));
    let unnamed = jsonwebtoken::encode(&header, &claims, &key).unwrap();
    assert_eq!(list(&base, Some(&unnamed)).await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_issuer_that_is_down_is_asked_again_only_after_a_while_and_keys_go_on_working() {
    let issuer = issuer().await;
    let (base, host) = host(&issuer).await;
    issuer.down.store(true, Ordering::SeqCst);
    let good = token(ISSUER_KEY, "issuer-1", &claims(&issuer, &base));
    for _ in 0..5 {
        assert_eq!(list(&base, Some(&good)).await.0, 401);
    }
    assert_eq!(
        issuer.key_fetches.load(Ordering::SeqCst),
        1,
        "one fetch, however many tokens come"
    );
    // API keys never wait for the issuer.
    let key = host
        .create_key("sam".parse().unwrap(), KeyScope::Agent)
        .await
        .unwrap();
    assert_eq!(list(&base, Some(&key.secret)).await.0, 200);
}

#[tokio::test]
async fn without_an_issuer_a_401_asks_for_a_key_and_there_is_no_metadata() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let host = Host::new(Arc::new(MemoryStore::new())).await.unwrap();
    tokio::spawn(serve_with(
        host,
        listener,
        ServeSettings::default(),
        std::future::pending(),
    ));
    assert_eq!(list(&base, None).await, (401, Some("Bearer".to_owned())));
    let metadata = reqwest::get(format!("{base}/.well-known/oauth-protected-resource"))
        .await
        .unwrap();
    assert_eq!(metadata.status(), 404);
}
