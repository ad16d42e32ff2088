//! `index serve` and `index keys`: the negotiation host and its API keys.

use std::sync::Arc;

use serde::Serialize;

use index_host::{Host, HostError, HostSettings};
use index_negotiation_store::{
    Actor, ApiKeyRecord, AuditStep, HostStore, KeyKind, KeyScope, KeyState, StoreError, UnixTime,
    UserId,
};
use index_negotiation_store_sqlite::Synchronous;

use crate::cli::{KeysCommand, ServeArgs};
use crate::database::{Database, Use};
use crate::failure::Failure;
use crate::output::{BOLD, DIM, Out, styled, table};

impl From<HostError> for Failure {
    fn from(err: HostError) -> Self {
        match err {
            HostError::Store(err) => Failure::Storage(err),
            HostError::Unauthorized => {
                Failure::Usage("the key file holds no valid, unrevoked key".to_owned())
            }
            other => Failure::Input(other.to_string()),
        }
    }
}

async fn store(
    db: Option<String>,
    synchronous: Synchronous,
    purpose: Use,
) -> Result<Arc<dyn HostStore>, Failure> {
    Ok(Arc::from(
        Database::select(db, synchronous)?.open(purpose).await?,
    ))
}

/// `serve`: until SIGINT or SIGTERM (HTTP), or until the client goes
/// (stdio).
pub(crate) async fn serve(args: ServeArgs, synchronous: Synchronous) -> Result<(), Failure> {
    let traces = crate::traces::Traces::start(args.otlp_endpoint.as_deref())?;
    crate::logging::init_logging_and_traces("info", traces.as_ref());
    let served = serve_traced(args, synchronous).await;
    if let Some(traces) = traces {
        traces.stop().await;
    }
    served
}

/// [`serve`], its spans exported if traces are on.
async fn serve_traced(args: ServeArgs, synchronous: Synchronous) -> Result<(), Failure> {
    let model = match args.model {
        Some(choice) => Some(crate::questions::model(choice)?),
        None => index_stall_gap::OpenAiCompatibleModel::from_env()
            .map_err(|err| Failure::Usage(index_negotiation_store::ErrorChain(&err).to_string()))?
            .map(|model| Arc::new(model) as Arc<dyn index_stall_gap::StructuredModel>),
    };
    if args.judge.gate_judge && model.is_none() {
        return Err(Failure::Usage(
            "--gate-judge asks the host's model: set INDEX_MODEL_BASE_URL and INDEX_MODEL, or pass --model".to_owned(),
        ));
    }
    let author = model.map(|model| crate::questions::author(model, &args.judge));
    let mut settings = HostSettings::default();
    settings.author = author;
    settings.question_loop = crate::questions::question_loop_settings(args.ask_rounds_cap);
    settings.ask_user_window = Some(std::time::Duration::from_secs(args.ask_user_window));
    let store = store(args.db, synchronous, Use::Create).await?;
    if args.mcp_stdio {
        let host = Host::with_settings(store, settings).await?;
        return serve_stdio(host, args.key_file.as_deref()).await;
    }
    if args.oauth_issuer.is_some() && args.public_url.is_none() && !args.listen.ip().is_loopback() {
        return Err(Failure::Usage(
            "--oauth-issuer needs --public-url when the host listens beyond loopback: tokens name the URL clients reach it at".to_owned(),
        ));
    }
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|err| Failure::Usage(format!("cannot listen on {}: {err}", args.listen)))?;
    let address = listener
        .local_addr()
        .map_err(|err| Failure::Usage(err.to_string()))?;
    let reachable = args.public_url.is_some() || args.listen.ip().is_loopback();
    let public_url = args
        .public_url
        .unwrap_or_else(|| format!("http://{address}"));
    match args.oauth_issuer {
        Some(issuer) => {
            let resource = format!("{}/mcp", public_url.trim_end_matches('/'));
            let mut issuer = index_host::IssuerSettings::new(issuer, resource);
            issuer.user_claim = args.oauth_user_claim;
            settings.oauth_issuer = Some(issuer);
        }
        // Its own authorization server, at the URL clients reach: a host
        // beyond loopback without --public-url does not know it.
        None if reachable => {
            let mut authorization = index_host::AuthorizationSettings::new(&public_url);
            authorization.allow_local_clients = args.oauth_allow_local_clients;
            authorization.access_lifetime =
                std::time::Duration::from_secs(args.oauth_access_lifetime);
            settings.authorization = Some(authorization);
        }
        None => tracing::warn!(
            "OAuth is off: give --public-url (the URL clients reach this host at) to run the host's own authorization server"
        ),
    }
    let outbox = Arc::clone(&store);
    let host = Host::with_settings(store, settings).await?;
    // The one line a script waits for; the port is real even for :0.
    anstream::eprintln!("listening on http://{address} (REST at /, MCP at /mcp, inbox at /inbox)");
    let mut settings = index_host::ServeSettings::default();
    settings.allowed_hosts = args.allowed_hosts;
    settings.shutdown_grace = std::time::Duration::from_secs(args.shutdown_grace);
    settings.max_connections = args.max_connections;
    settings.max_connections_per_address = args.max_connections_per_address;
    settings.max_mcp_sessions = args.max_mcp_sessions;
    settings.max_mcp_sessions_per_key = args.max_mcp_sessions_per_key;
    settings.mcp_session_idle = std::time::Duration::from_secs(args.mcp_session_idle);
    // The outbox is delivered beside the listener, until the same signal.
    let mut webhooks = index_host::webhooks::WebhookSettings::default();
    webhooks.allow_private = args.webhooks_allow_private;
    if !args.webhook_retries.is_empty() {
        webhooks.retries = args.webhook_retries;
    }
    webhooks.timeout = std::time::Duration::from_secs(args.webhook_timeout);
    let stop = tokio_util::sync::CancellationToken::new();
    let delivering = tokio::spawn({
        let stop = stop.clone();
        async move {
            let delivered = index_host::webhooks::deliver_webhooks(outbox, webhooks, stop).await;
            // Said at once: no webhook is sent while the host serves on.
            if let Err(err) = &delivered {
                tracing::error!(error = %err, "webhook delivery stopped");
            }
            delivered
        }
    });
    let signal = index_host::shutdown_signal();
    let stopping = stop.clone();
    let served = index_host::serve_with(host, listener, settings, async move {
        signal.await;
        stopping.cancel();
    })
    .await;
    stop.cancel();
    if let Err(err) = delivering.await {
        tracing::error!(error = %err, "webhook delivery stopped");
    }
    served?;
    anstream::eprintln!("stopped");
    Ok(())
}

/// MCP over standard input and output, as the key in `key_file` (clap
/// makes `--mcp-stdio` require it).
async fn serve_stdio(host: Host, key_file: Option<&std::path::Path>) -> Result<(), Failure> {
    let path = key_file.ok_or_else(|| Failure::Usage("--mcp-stdio needs --key-file".to_owned()))?;
    let secret = std::fs::read_to_string(path)
        .map_err(|err| Failure::Input(format!("could not read {}: {err}", path.display())))?;
    let caller = host.authenticate(Some(secret.trim()), None).await?;
    tracing::info!(user = ?caller.user_id.as_str(), "serving MCP on stdio");
    Ok(index_host::serve_stdio(host, caller).await?)
}

/// A key as `keys` commands show it, in docs/cli-json.md's order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct KeyView<'a> {
    id: &'a str,
    name: Option<&'a str>,
    user_id: &'a UserId,
    scope: KeyScope,
    kind: KeyKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    client: Option<&'a str>,
    state: KeyState,
    revoked: bool,
    created_at: Option<UnixTime>,
    expires_at: Option<UnixTime>,
    last_used_at: Option<UnixTime>,
}

impl<'a> KeyView<'a> {
    fn of(key: &'a ApiKeyRecord, now: UnixTime) -> Self {
        KeyView {
            id: &key.id,
            name: key.name.as_deref(),
            user_id: &key.user_id,
            scope: key.scope,
            kind: key.kind,
            client: key.client.as_deref(),
            state: key.state(now),
            revoked: key.revoked,
            created_at: key.created_at,
            expires_at: key.expires_at,
            last_used_at: key.last_used_at,
        }
    }
}

/// A time for a table cell: RFC 3339, or `-` for none.
fn when(time: Option<UnixTime>) -> String {
    time.map_or_else(|| "-".to_owned(), |time| time.to_string())
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Created<'a> {
    #[serde(flatten)]
    key_view: KeyView<'a>,
    /// The key, when it is printed rather than written to a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<&'a str>,
    /// Where it was written, with `--output`.
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a std::path::Path>,
}

#[derive(Serialize)]
struct Whoami<'a> {
    #[serde(flatten)]
    key_view: KeyView<'a>,
    valid: bool,
}

/// Creates `path` for a key: new unless `force`, and readable by its owner
/// alone from the moment it exists (never world-readable under any
/// umask, not even empty).
fn key_file(path: &std::path::Path, force: bool) -> Result<std::fs::File, Failure> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if force {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(path).map_err(|err| {
        let why = if err.kind() == std::io::ErrorKind::AlreadyExists {
            "it exists (add --force to replace it)".to_owned()
        } else {
            err.to_string()
        };
        Failure::Input(format!("cannot write the key to {}: {why}", path.display()))
    })?;
    // A file that existed keeps its mode on open: make it the owner's.
    #[cfg(unix)]
    file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .map_err(|err| Failure::Input(format!("{}: {err}", path.display())))?;
    Ok(file)
}

/// `keys create|list|whoami|revoke`.
pub(crate) async fn keys(
    command: KeysCommand,
    synchronous: Synchronous,
    out: Out,
) -> Result<(), Failure> {
    match command {
        KeysCommand::Create {
            user,
            host,
            name,
            expires_in,
            output,
            force,
            db,
        } => {
            let store = store(db, synchronous, Use::Create).await?;
            let scope = if host {
                KeyScope::Host
            } else {
                KeyScope::Agent
            };
            // The file first: a key is made only once there is somewhere
            // safe to put it.
            let file = output
                .as_deref()
                .map(|path| key_file(path, force))
                .transpose()?;
            let mut options = index_host::keys::KeyOptions::default();
            options.name = name;
            options.expires_in = expires_in;
            let key = index_host::keys::create_key(store.as_ref(), user, scope, &options).await?;
            if let (Some(mut file), Some(path)) = (file, output.as_deref()) {
                use std::io::Write;
                writeln!(file, "{}", key.secret)
                    .and_then(|()| file.sync_all())
                    .map_err(|err| {
                        Failure::Input(format!(
                            "the key {} was made but could not be written to {}: {err}; revoke it with `index keys revoke {}`",
                            key.record.id,
                            path.display(),
                            key.record.id
                        ))
                    })?;
            }
            out.json(&Created {
                key_view: KeyView::of(&key.record, UnixTime::now()),
                key: output.is_none().then_some(key.secret.as_str()),
                file: output.as_deref(),
            });
            // The key alone on standard output, so `> user.key` keeps it
            // (with `--output` it went to the file instead).
            if output.is_none() {
                out.line(&key.secret);
            }
            if !out.json {
                anstream::eprintln!(
                    "{}",
                    styled(
                        DIM,
                        match output.as_deref() {
                            Some(path) => format!(
                                "Key {} for {} ({}) written to {}, readable by you alone; only its hash is stored.",
                                key.record.id,
                                key.record.user_id,
                                scope.as_str(),
                                path.display()
                            ),
                            None => format!(
                                "Key {} for {} ({}). This is the only time it is shown; only its hash is stored.",
                                key.record.id,
                                key.record.user_id,
                                scope.as_str()
                            ),
                        }
                    )
                );
            }
            Ok(())
        }
        KeysCommand::List { db } => {
            let keys = store(db, synchronous, Use::Read)
                .await?
                .list_api_keys()
                .await?;
            let now = UnixTime::now();
            out.json(
                &keys
                    .iter()
                    .map(|key| KeyView::of(key, now))
                    .collect::<Vec<_>>(),
            );
            if keys.is_empty() {
                out.line(styled(DIM, "No keys."));
                return Ok(());
            }
            let rows: Vec<Vec<String>> = keys
                .iter()
                .map(|k| {
                    vec![
                        k.id.clone(),
                        k.name.clone().unwrap_or_else(|| "-".to_owned()),
                        k.user_id.to_string(),
                        k.scope.as_str().to_owned(),
                        k.kind.as_str().to_owned(),
                        k.state(now).as_str().to_owned(),
                        when(k.created_at),
                        when(k.expires_at),
                        when(k.last_used_at),
                    ]
                })
                .collect();
            out.line(table(
                &[
                    "id",
                    "name",
                    "user",
                    "scope",
                    "kind",
                    "state",
                    "created",
                    "expires",
                    "last used",
                ],
                &rows,
            ));
            Ok(())
        }
        KeysCommand::Whoami { key_file, db } => {
            let secret = crate::output::read_input(&key_file)?;
            let store = store(db, synchronous, Use::Read).await?;
            let Some(key) =
                index_host::keys::find_key(store.as_ref(), index_js::trim(&secret)).await?
            else {
                out.json(&serde_json::json!({ "state": "unknown", "valid": false }));
                out.line("This is not a key this store knows: it authenticates nothing here.");
                return Err(Failure::Ended(1));
            };
            let now = UnixTime::now();
            let view = KeyView::of(&key, now);
            let state = view.state;
            out.json(&Whoami {
                key_view: view,
                valid: state == KeyState::Active,
            });
            let named = key
                .name
                .as_deref()
                .map(|name| format!(" ({name})"))
                .unwrap_or_default();
            out.line(format!(
                "Key {}{named} acts as {} ({}): {}.",
                styled(BOLD, &key.id),
                styled(BOLD, key.user_id.as_str()),
                key.scope.as_str(),
                match (state, key.expires_at) {
                    (KeyState::Active, Some(expires)) => format!("it works until {expires}"),
                    (KeyState::Active, _) => "it works, and does not expire".to_owned(),
                    (KeyState::Expired, _) => format!("it expired at {}", when(key.expires_at)),
                    _ => "it was revoked".to_owned(),
                }
            ));
            if state == KeyState::Active {
                Ok(())
            } else {
                Err(Failure::Ended(1))
            }
        }
        KeysCommand::LoginLink {
            user,
            base,
            expires_in,
            db,
        } => {
            let store = store(db, synchronous, Use::Create).await?;
            let key = index_host::keys::create_login_link(store.as_ref(), user, expires_in).await?;
            // The key rides in the fragment, which a browser never sends:
            // it reaches no server log and no referrer.
            let link = format!("{}/inbox#login={}", base.trim_end_matches('/'), key.secret);
            out.json(&serde_json::json!({
                "link": link,
                "key": KeyView::of(&key.record, UnixTime::now()),
            }));
            out.line(&link);
            if !out.json {
                anstream::eprintln!(
                    "{}",
                    styled(
                        DIM,
                        format!(
                            "Signs {} in once, until {}; revoke it with `index keys revoke {}`.",
                            key.record.user_id,
                            when(key.record.expires_at),
                            key.record.id
                        )
                    )
                );
            }
            Ok(())
        }
        KeysCommand::RotateSigningKey { overlap, db } => {
            let store = store(db, synchronous, Use::Write).await?;
            let overlap = overlap.max(index_host::signing::LEAST_ROTATION_OVERLAP);
            let id = index_host::signing::rotate_signing_key(store.as_ref(), overlap)
                .await
                .map_err(|err| match err {
                    index_host::signing::SignError::Store(err) => Failure::Storage(err),
                    other => Failure::Storage(StoreError::backend(other)),
                })?;
            out.json(&serde_json::json!({ "signingKey": id, "overlapSeconds": overlap.as_secs() }));
            out.line(format!(
                "Signing with key {}; the keys it replaces hold for {}.",
                styled(BOLD, &id),
                humantime::format_duration(overlap)
            ));
            Ok(())
        }
        KeysCommand::Revoke { id, db } => {
            let store = store(db, synchronous, Use::Write).await?;
            let operator = Actor::operator();
            let revocation = store
                .revoke_api_key(&id, AuditStep::KeyRevoked, &operator)
                .await?;
            if !revocation.found() {
                return Err(Failure::Usage(format!("there is no key {id:?}")));
            }
            // A token of an OAuth grant takes its grant with it: the
            // client's other tokens (its refresh token above all) end too.
            let grant = store
                .list_api_keys()
                .await?
                .into_iter()
                .find(|key| key.id == id)
                .and_then(|key| key.grant);
            let ended = match &grant {
                Some(grant) => store.revoke_grant(grant, &operator).await?,
                None => 0,
            };
            out.json(&serde_json::json!({ "revoked": id, "grantRevoked": grant.is_some() }));
            match grant {
                Some(_) => out.line(format!(
                    "Revoked {} and its OAuth grant ({ended} more token(s)).",
                    styled(BOLD, &id)
                )),
                None => out.line(format!("Revoked {}.", styled(BOLD, &id))),
            }
            Ok(())
        }
    }
}
