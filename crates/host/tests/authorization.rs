//! The host's own OAuth authorization server, driven the way a client
//! that knows only the host's URL drives it: discovery from a 401,
//! registration (or a metadata document the test serves), the person's
//! approval in their browser session, the code exchanged with its PKCE
//! verifier, refresh tokens that rotate, and revocation; and each way a
//! request that does not hold is refused.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use index_host::{AuthorizationSettings, Host, HostSettings, ServeSettings, serve_with};
use index_negotiation_store::{KeyKind, KeyScope, MemoryStore};

/// A PKCE verifier, and its S256 challenge.
const VERIFIER: &str = "a-verifier-of-forty-three-or-more-unreserved-characters";

/// `text` as a form encodes it.
fn urlencoded(text: &str) -> String {
    serde_urlencoded::to_string([("", text)])
        .unwrap()
        .trim_start_matches('=')
        .to_owned()
}

fn challenge(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// A host running its own authorization server, with dana's key.
struct Server {
    base: String,
    store: Arc<MemoryStore>,
    http: reqwest::Client,
    dana_key: String,
}

async fn server(allow_local_clients: bool) -> Server {
    server_with(|settings| settings.allow_local_clients = allow_local_clients).await
}

/// A host whose authorization server runs with what `configure` sets.
async fn server_with(configure: impl FnOnce(&mut AuthorizationSettings)) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let mut authorization = AuthorizationSettings::new(&base);
    configure(&mut authorization);
    let mut settings = HostSettings::default();
    settings.authorization = Some(authorization);
    let store = Arc::new(MemoryStore::new());
    let host = Host::with_settings(store.clone(), settings).await.unwrap();
    let dana_key = host
        .create_key("dana".parse().unwrap(), KeyScope::Agent)
        .await
        .unwrap()
        .secret;
    tokio::spawn(serve_with(
        host.clone(),
        listener,
        ServeSettings::default(),
        std::future::pending(),
    ));
    Server {
        base,
        store,
        http: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
        dana_key,
    }
}

impl Server {
    async fn get_json(&self, path: &str) -> (u16, Value) {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap();
        (
            response.status().as_u16(),
            response.json().await.unwrap_or(Value::Null),
        )
    }

    /// A browser session for dana, signed in from the host's own page.
    async fn session(&self) -> String {
        self.session_of(&self.dana_key).await
    }

    /// A browser session for `key`'s person: its cookie.
    async fn session_of(&self, key: &str) -> String {
        let response = self
            .http
            .post(format!("{}/session", self.base))
            .header("origin", &self.base)
            .json(&json!({ "key": key }))
            .send()
            .await
            .unwrap();
        let cookie = response.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .to_owned();
        cookie.split(';').next().unwrap().to_owned()
    }

    /// Registers a client sent back to `redirect`: its id.
    async fn register(&self, redirect: &str) -> String {
        let response = self
            .http
            .post(format!("{}/oauth/register", self.base))
            .json(&json!({"client_name": "Test agent", "redirect_uris": [redirect], "token_endpoint_auth_method": "none"}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
        let registered: Value = response.json().await.unwrap();
        registered["client_id"].as_str().unwrap().to_owned()
    }

    /// The query an authorization request for `client` carries.
    fn request(&self, client: &str, redirect: &str) -> String {
        let query = [
            ("response_type", "code"),
            ("client_id", client),
            ("redirect_uri", redirect),
            ("code_challenge", &challenge(VERIFIER)),
            ("code_challenge_method", "S256"),
            ("state", "the-state"),
            ("scope", "agent"),
            ("resource", &format!("{}/mcp", self.base)),
        ];
        format!("?{}", serde_urlencoded::to_string(query).unwrap())
    }

    /// The person's decision on `request` from the host's own page (or
    /// `origin`): the status and answer.
    async fn decide(
        &self,
        cookie: &str,
        request: &str,
        approve: bool,
        origin: &str,
    ) -> (u16, Value) {
        let response = self
            .http
            .post(format!("{}/oauth/authorization", self.base))
            .header("cookie", cookie)
            .header("origin", origin)
            .json(&json!({ "request": request, "approve": approve }))
            .send()
            .await
            .unwrap();
        (
            response.status().as_u16(),
            response.json().await.unwrap_or(Value::Null),
        )
    }

    /// A form to the token endpoint: its status and answer.
    async fn token(&self, form: &[(&str, &str)]) -> (u16, Value) {
        let response = self
            .http
            .post(format!("{}/oauth/token", self.base))
            .form(form)
            .send()
            .await
            .unwrap();
        (
            response.status().as_u16(),
            response.json().await.unwrap_or(Value::Null),
        )
    }

    /// An approved code for `client`, as dana's browser gets it.
    async fn code(&self, client: &str, redirect: &str) -> String {
        let cookie = self.session().await;
        let (status, decided) = self
            .decide(&cookie, &self.request(client, redirect), true, &self.base)
            .await;
        assert_eq!(status, 200, "{decided}");
        let back = reqwest::Url::parse(decided["redirect"].as_str().unwrap()).unwrap();
        let parameter = |name: &str| {
            back.query_pairs()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.into_owned())
        };
        assert_eq!(parameter("state").as_deref(), Some("the-state"));
        assert_eq!(parameter("iss"), Some(self.base.clone()));
        parameter("code").unwrap()
    }

    /// The tokens `client` gets for an approved code.
    async fn tokens(&self, client: &str) -> Value {
        let code = self.code(client, REDIRECT).await;
        let (status, tokens) = self
            .token(&[
                ("grant_type", "authorization_code"),
                ("code", code.as_str()),
                ("redirect_uri", REDIRECT),
                ("client_id", client),
                ("code_verifier", VERIFIER),
            ])
            .await;
        assert_eq!(status, 200, "{tokens}");
        tokens
    }

    /// `GET /negotiations` with `token`: the status.
    async fn list(&self, token: &str) -> u16 {
        let response = self
            .http
            .get(format!("{}/negotiations", self.base))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        response.status().as_u16()
    }
}

const REDIRECT: &str = "http://127.0.0.1:53123/callback";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_knows_only_the_url_is_approved_by_its_person_and_acts_as_their_agent() {
    let server = server(false).await;
    // Discovery, from the 401 on.
    let response = server
        .http
        .get(format!("{}/mcp", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let challenge_header = response.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_owned();
    let metadata_url = format!("{}/.well-known/oauth-protected-resource/mcp", server.base);
    assert!(
        challenge_header.contains(&metadata_url),
        "{challenge_header}"
    );
    let (_, resource) = server
        .get_json("/.well-known/oauth-protected-resource/mcp")
        .await;
    assert_eq!(resource["authorization_servers"], json!([server.base]));
    let (status, metadata) = server
        .get_json("/.well-known/oauth-authorization-server")
        .await;
    assert_eq!(status, 200);
    assert_eq!(metadata["issuer"], server.base.as_str());
    assert_eq!(
        metadata["code_challenge_methods_supported"],
        json!(["S256"])
    );
    assert_eq!(metadata["client_id_metadata_document_supported"], true);
    assert_eq!(
        metadata["authorization_response_iss_parameter_supported"],
        true
    );

    // Registration, and what the consent page shows dana (a loopback
    // redirect may come back on another port).
    let client = server.register("http://127.0.0.1/callback").await;
    let cookie = server.session().await;
    let request = server.request(&client, REDIRECT);
    let asked = server
        .http
        .get(format!("{}/oauth/authorization{request}", server.base))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), 200);
    let asked: Value = asked.json().await.unwrap();
    assert_eq!(asked["clientName"], "Test agent");
    assert_eq!(asked["redirectHost"], "127.0.0.1");
    assert_eq!(asked["userId"], "dana");

    // The code, exchanged once with its verifier.
    let code = server.code(&client, REDIRECT).await;
    let exchange = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", REDIRECT),
        ("client_id", client.as_str()),
        ("code_verifier", VERIFIER),
    ];
    let (status, tokens) = server.token(&exchange).await;
    assert_eq!(status, 200, "{tokens}");
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["scope"], "agent");
    let access = tokens["access_token"].as_str().unwrap().to_owned();
    let refresh = tokens["refresh_token"].as_str().unwrap().to_owned();
    assert_eq!(server.list(&access).await, 200);
    assert_eq!(
        server.list(&refresh).await,
        401,
        "a refresh token is no bearer"
    );
    // (A code presented again ends the grant: see what_does_not_hold_is_refused.)

    // The grant is keys of the store: listed with its client.
    let keys = index_negotiation_store::ApiKeyStore::list_api_keys(server.store.as_ref())
        .await
        .unwrap();
    let grant: Vec<_> = keys.iter().filter(|key| key.grant.is_some()).collect();
    assert_eq!(grant.len(), 2);
    assert!(
        grant
            .iter()
            .all(|key| key.client.as_deref() == Some(client.as_str()))
    );
    assert!(grant.iter().any(|key| key.kind == KeyKind::OAuth));
    assert_eq!(grant[0].name.as_deref(), Some("Test agent"));

    // A refresh rotates; the spent refresh token, presented again, ends
    // the grant, the new tokens with it.
    let refreshing = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh.as_str()),
        ("client_id", client.as_str()),
    ];
    let (status, rotated) = server.token(&refreshing).await;
    assert_eq!(status, 200, "{rotated}");
    let new_access = rotated["access_token"].as_str().unwrap().to_owned();
    assert_ne!(rotated["refresh_token"], tokens["refresh_token"]);
    assert_eq!(server.list(&new_access).await, 200);
    let (status, reused) = server.token(&refreshing).await;
    assert_eq!(
        (status, &reused["error"]),
        (400, &json!("invalid_grant")),
        "{reused}"
    );
    assert_eq!(server.list(&new_access).await, 401, "the whole grant ends");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_grant_ends_at_once_and_so_does_a_revoked_key_of_it() {
    let server = server(false).await;
    let client = server.register(REDIRECT).await;
    let tokens = server.tokens(&client).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(server.list(access).await, 200);
    let revoked = server
        .http
        .post(format!("{}/oauth/revoke", server.base))
        .form(&[("token", tokens["refresh_token"].as_str().unwrap())])
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), 200);
    assert_eq!(server.list(access).await, 401);
    // A token the host does not know is revoked without a word (RFC 7009).
    let unknown = server
        .http
        .post(format!("{}/oauth/revoke", server.base))
        .form(&[("token", "idx_0000")])
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_sees_their_connected_clients_and_disconnects_one_nobody_else_can() {
    let server = server(false).await;
    let client = server.register(REDIRECT).await;
    let tokens = server.tokens(&client).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(server.list(access).await, 200);
    let cookie = server.session().await;
    let listed = |cookie: String| {
        let request = server
            .http
            .get(format!("{}/connections", server.base))
            .header("cookie", cookie);
        async move {
            let response = request.send().await.unwrap();
            assert_eq!(response.status(), 200);
            response.json::<Value>().await.unwrap()["connections"]
                .as_array()
                .unwrap()
                .clone()
        }
    };
    let mine = listed(cookie.clone()).await;
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert_eq!(mine[0]["clientName"], "Test agent");
    assert_eq!(mine[0]["clientId"], client.as_str());
    assert!(mine[0]["connectedAt"].as_str().unwrap().ends_with('Z'));
    let id = mine[0]["id"].as_str().unwrap().to_owned();

    // Sam sees none of it, and cannot end it: to him it does not exist.
    let sam = index_host::keys::create_key(
        server.store.as_ref(),
        "sam".parse().unwrap(),
        KeyScope::Agent,
        &index_host::keys::KeyOptions::default(),
    )
    .await
    .unwrap()
    .secret;
    let sams = server.session_of(&sam).await;
    assert!(listed(sams.clone()).await.is_empty());
    let disconnect = |cookie: String, origin: &str| {
        server
            .http
            .delete(format!("{}/connections/{id}", server.base))
            .header("cookie", cookie)
            .header("origin", origin)
            .send()
    };
    let refused = disconnect(sams, &server.base).await.unwrap();
    assert_eq!(refused.status(), 404);
    assert_eq!(server.list(access).await, 200);
    // Nor can another site, with dana's cookie.
    let forged = disconnect(cookie.clone(), "https://elsewhere.example")
        .await
        .unwrap();
    assert_eq!(forged.status(), 403);
    // Nor any of dana's agents: a connected client manages no others.
    for bearer in [server.dana_key.as_str(), access] {
        let by_agent = server
            .http
            .delete(format!("{}/connections/{id}", server.base))
            .bearer_auth(bearer)
            .send()
            .await
            .unwrap();
        assert_eq!(by_agent.status(), 403);
        let listing = server
            .http
            .get(format!("{}/connections", server.base))
            .bearer_auth(bearer)
            .send()
            .await
            .unwrap();
        assert_eq!(listing.status(), 403);
    }
    assert_eq!(server.list(access).await, 200);

    // Dana ends it in her inbox: every token of it, at once.
    let ended = disconnect(cookie.clone(), &server.base).await.unwrap();
    assert_eq!(ended.status(), 204);
    assert_eq!(server.list(access).await, 401);
    let refresh = tokens["refresh_token"].as_str().unwrap();
    let (status, _) = server
        .token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh),
            ("client_id", client.as_str()),
        ])
        .await;
    assert_eq!(status, 400);
    assert!(listed(cookie).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_access_token_is_refused_until_its_client_refreshes_it() {
    let server = server_with(|settings| settings.access_lifetime = Duration::from_secs(1)).await;
    let client = server.register(REDIRECT).await;
    let tokens = server.tokens(&client).await;
    assert_eq!(tokens["expires_in"], 1);
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(server.list(access).await, 200);
    // Keys expire on whole seconds: two of them are past its end.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let refused = server
        .http
        .get(format!("{}/mcp", server.base))
        .bearer_auth(access)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let challenge = refused.headers()["www-authenticate"].to_str().unwrap();
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    let refresh = tokens["refresh_token"].as_str().unwrap();
    let (status, next) = server
        .token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh),
            ("client_id", client.as_str()),
        ])
        .await;
    assert_eq!(status, 200, "{next}");
    assert_eq!(
        server.list(next["access_token"].as_str().unwrap()).await,
        200
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_does_not_hold_is_refused() {
    let server = server(false).await;
    let client = server.register(REDIRECT).await;
    let exchange = |code: &str, redirect: &str, client: &str, verifier: &str| {
        vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code.to_owned()),
            ("redirect_uri", redirect.to_owned()),
            ("client_id", client.to_owned()),
            ("code_verifier", verifier.to_owned()),
        ]
    };
    let refused = |(status, body): (u16, Value), error: &str| {
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some(error)),
            "{body}"
        );
    };
    let token = |pairs: Vec<(&'static str, String)>| {
        let server = &server;
        async move {
            let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
            server.token(&pairs).await
        }
    };
    // A PKCE verifier that is not the challenge's.
    let code = server.code(&client, REDIRECT).await;
    let wrong = "another-verifier-of-forty-three-or-more-unreserved-chars";
    refused(
        token(exchange(&code, REDIRECT, &client, wrong)).await,
        "invalid_grant",
    );
    // A redirect URI that is not the code's.
    let code = server.code(&client, REDIRECT).await;
    let elsewhere = "http://127.0.0.1:53124/callback";
    refused(
        token(exchange(&code, elsewhere, &client, VERIFIER)).await,
        "invalid_grant",
    );
    // Another client's code.
    let other = server.register("http://localhost:53123/elsewhere").await;
    let code = server.code(&client, REDIRECT).await;
    refused(
        token(exchange(&code, REDIRECT, &other, VERIFIER)).await,
        "invalid_grant",
    );
    // Another resource.
    let code = server.code(&client, REDIRECT).await;
    let mut elsewhere = exchange(&code, REDIRECT, &client, VERIFIER);
    elsewhere.push(("resource", "http://elsewhere.example/mcp".to_owned()));
    refused(token(elsewhere).await, "invalid_target");
    // A code presented again ends the grant it gave.
    let code = server.code(&client, REDIRECT).await;
    let (status, first) = server
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", REDIRECT),
            ("client_id", client.as_str()),
            ("code_verifier", VERIFIER),
        ])
        .await;
    assert_eq!(status, 200, "{first}");
    let given = first["access_token"].as_str().unwrap();
    assert_eq!(server.list(given).await, 200);
    refused(
        token(exchange(&code, REDIRECT, &client, VERIFIER)).await,
        "invalid_grant",
    );
    assert_eq!(server.list(given).await, 401, "the replay ends the grant");
    // A request that left its redirect URI out (the client's only one)
    // exchanges without it; one that named it must name it again.
    let cookie = server.session().await;
    let unnamed = server
        .request(&client, REDIRECT)
        .replace(&format!("&redirect_uri={}", urlencoded(REDIRECT)), "");
    assert!(!unnamed.contains("redirect_uri"), "{unnamed}");
    let (status, decided) = server.decide(&cookie, &unnamed, true, &server.base).await;
    assert_eq!(status, 200, "{decided}");
    let back = reqwest::Url::parse(decided["redirect"].as_str().unwrap()).unwrap();
    let code = back
        .query_pairs()
        .find(|(key, _)| key == "code")
        .unwrap()
        .1
        .into_owned();
    let (status, body) = server
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("client_id", client.as_str()),
            ("code_verifier", VERIFIER),
        ])
        .await;
    assert_eq!(status, 200, "{body}");
    let code = server.code(&client, REDIRECT).await;
    let (status, body) = server
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("client_id", client.as_str()),
            ("code_verifier", VERIFIER),
        ])
        .await;
    assert_eq!((status, &body["error"]), (400, &json!("invalid_grant")));
    // A body that is no form is OAuth's invalid_request, as JSON.
    let not_a_form = server
        .http
        .post(format!("{}/oauth/token", server.base))
        .json(&json!({"grant_type": "authorization_code"}))
        .send()
        .await
        .unwrap();
    assert_eq!(not_a_form.status(), 400);
    let said: Value = not_a_form.json().await.unwrap();
    assert_eq!(said["error"], "invalid_request", "{said}");
    // A code that was altered.
    refused(
        token(exchange("not-a-code", REDIRECT, &client, VERIFIER)).await,
        "invalid_grant",
    );

    // A redirect URI the client did not register is refused to the person
    // alone, never sent anywhere.
    let cookie = server.session().await;
    let (status, body) = server
        .decide(
            &cookie,
            &server.request(&client, "https://attacker.example/cb"),
            true,
            &server.base,
        )
        .await;
    assert_eq!((status, body["redirect"].is_null()), (400, true), "{body}");
    // A request without PKCE goes back to the client as an error.
    let without_pkce = format!(
        "?{}",
        serde_urlencoded::to_string([
            ("response_type", "code"),
            ("client_id", &client),
            ("redirect_uri", REDIRECT),
            ("state", "s")
        ])
        .unwrap()
    );
    let (status, body) = server
        .decide(&cookie, &without_pkce, true, &server.base)
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["redirect"]
            .as_str()
            .unwrap()
            .contains("error=invalid_request"),
        "{body}"
    );
    // Read by the page, it is said there; the page never sends the
    // browser on by itself.
    let shown = server
        .http
        .get(format!("{}/oauth/authorization{without_pkce}", server.base))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(shown.status(), 200);
    let shown: Value = shown.json().await.unwrap();
    assert_eq!(shown["error"], "invalid_request", "{shown}");
    assert_eq!(shown["redirectHost"], "127.0.0.1", "{shown}");
    // A client nobody knows is the page's 400, never its 401 (which
    // would ask the person to sign in again).
    let stranger = server.request("index-client.not-a-registration", REDIRECT);
    let unknown = server
        .http
        .get(format!("{}/oauth/authorization{stranger}", server.base))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 400);
    // An API key or an access token in the cookie is no session: only a
    // person's own browser session approves.
    let tokens = server.tokens(&client).await;
    for key in [
        server.dana_key.clone(),
        tokens["access_token"].as_str().unwrap().to_owned(),
    ] {
        let (status, _) = server
            .decide(
                &format!("index_session={key}"),
                &server.request(&client, REDIRECT),
                true,
                &server.base,
            )
            .await;
        assert_eq!(status, 401);
    }
    // A decision sent from another site's page is refused.
    let request = server.request(&client, REDIRECT);
    let (status, body) = server
        .decide(&cookie, &request, true, "https://attacker.example")
        .await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (403, &json!("cross_origin")),
        "{body}"
    );
    // An agent's bearer key approves nothing.
    let by_key = server
        .http
        .post(format!("{}/oauth/authorization", server.base))
        .bearer_auth(&server.dana_key)
        .json(&json!({ "request": request, "approve": true }))
        .send()
        .await
        .unwrap();
    assert_eq!(by_key.status(), 403);
    // A denial goes back as access_denied.
    let (_, body) = server.decide(&cookie, &request, false, &server.base).await;
    assert!(
        body["redirect"]
            .as_str()
            .unwrap()
            .contains("error=access_denied"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_is_its_metadata_document_fetched_only_from_public_addresses() {
    // A metadata document the test serves, on loopback.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let document_url = format!("http://{}/client.json", listener.local_addr().unwrap());
    let id = document_url.clone();
    let app = axum::Router::new().route(
        "/client.json",
        axum::routing::get(move || {
            let id = id.clone();
            async move {
                axum::Json(json!({
                    "client_id": id,
                    "client_name": "Documented agent",
                    "redirect_uris": [REDIRECT],
                    "token_endpoint_auth_method": "none",
                }))
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });

    // Refused where local clients are not allowed: the host fetches no
    // private address for a stranger.
    let strict = server(false).await;
    let cookie = strict.session().await;
    let (status, body) = strict
        .decide(
            &cookie,
            &strict.request(&document_url, REDIRECT),
            true,
            &strict.base,
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_client")),
        "{body}"
    );

    // Taken where they are (development and tests).
    let local = server(true).await;
    let code = local.code(&document_url, REDIRECT).await;
    let (status, tokens) = local
        .token(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", REDIRECT),
            ("client_id", document_url.as_str()),
            ("code_verifier", VERIFIER),
        ])
        .await;
    assert_eq!(status, 200, "{tokens}");
    let keys = index_negotiation_store::ApiKeyStore::list_api_keys(local.store.as_ref())
        .await
        .unwrap();
    assert!(
        keys.iter()
            .any(|key| key.name.as_deref() == Some("Documented agent"))
    );
}
