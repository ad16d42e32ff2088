//! API keys: made, shown once, stored as a hash, and checked on every
//! request.
//!
//! A key is `idx_` and 64 hex digits: 256 random bits from the operating
//! system. The store keeps its SHA-256, so a leaked database leaks no key;
//! a request's key is hashed and looked up by that hash, and the stored hash
//! is compared with it in constant time before it counts.

use sha2::{Digest, Sha256};

use std::time::Duration;

use index_negotiation_store::{
    Actor, ActorKind, ApiKeyRecord, ApiKeyStore, AuditStep, AuditStore, ErrorChain, KeyHash,
    KeyKind, KeyScope, KeyState, Revocation, StoreError, UnixTime, UserId,
};

use crate::service::error::HostError;

/// What every key starts with, so a key pasted in the wrong place is
/// recognisable (and a secret scanner can find one).
pub const KEY_PREFIX: &str = "idx_";

/// A key as made, before it is shown to its owner. Its `Debug` never shows
/// the secret, so a key cannot reach a log by accident.
pub struct NewKey {
    /// The secret: show it once, never store it.
    pub secret: String,
    /// What the store keeps of it.
    pub record: ApiKeyRecord,
}

impl std::fmt::Debug for NewKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewKey")
            .field("secret", &"<redacted>")
            .field("record", &self.record)
            .finish()
    }
}

/// Who is calling: the user a valid key acts as, and what it may do.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Caller {
    /// The user the key acts as.
    pub user_id: UserId,
    /// What the key may do.
    pub scope: KeyScope,
    /// The key's public id, for logs and the audit record.
    pub key_id: String,
    /// How the key was presented and came to be, for the audit record.
    pub kind: ActorKind,
    /// The id of the request that carries the call, when it came over
    /// HTTP (`x-request-id`), for the audit record.
    pub request_id: Option<String>,
}

/// What a key is made with besides its user and scope.
///
/// ```
/// use index_host::keys::KeyOptions;
/// let mut options = KeyOptions::default();
/// options.name = Some("laptop agent".to_owned());
/// options.expires_in = Some(std::time::Duration::from_secs(30 * 86_400));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeyOptions {
    /// What the key is for, shown by `keys list`: at most
    /// [`KEY_NAME_LIMIT`] characters once trimmed, not blank, no control
    /// characters.
    pub name: Option<String>,
    /// How long the key authenticates, at least a second; forever when
    /// `None`.
    pub expires_in: Option<Duration>,
    /// Who makes it, for the audit record: the operator unless said.
    pub made_by: Actor,
}

impl Default for KeyOptions {
    fn default() -> Self {
        KeyOptions {
            name: None,
            expires_in: None,
            made_by: Actor::operator(),
        }
    }
}

/// The most characters a key's name may have.
pub const KEY_NAME_LIMIT: usize = 64;

/// The names of the keys the host makes for itself begin with this; no
/// other key may take such a name, so the name says what the key is.
pub const RESERVED_NAME_PREFIX: &str = "index:";

/// The name of a login link's key: it signs its person in once (see
/// [`create_login_link`]).
pub const LOGIN_LINK_NAME: &str = "index: login link";

/// The name of a signed-in browser's session key (see [`sign_in`]).
pub const WEB_SESSION_NAME: &str = "index: web session";

/// How long a browser stays signed in.
pub const WEB_SESSION_LIFETIME: Duration = Duration::from_secs(12 * 60 * 60);

/// How long a login link works unless told otherwise.
pub const LOGIN_LINK_LIFETIME: Duration = Duration::from_secs(10 * 60);

/// `name` as a key keeps it, or why it cannot be one.
fn key_name(name: &str) -> Result<String, HostError> {
    let name = index_js::trim(name);
    if name.is_empty() {
        return Err(HostError::BadRequest(
            "a key's name cannot be blank".to_owned(),
        ));
    }
    if name.starts_with(RESERVED_NAME_PREFIX) {
        return Err(HostError::BadRequest(format!(
            "names beginning {RESERVED_NAME_PREFIX:?} are kept for the host's own keys"
        )));
    }
    if name.chars().count() > KEY_NAME_LIMIT {
        return Err(HostError::BadRequest(format!(
            "a key's name has at most {KEY_NAME_LIMIT} characters"
        )));
    }
    crate::service::names::check_name("a key's name", name)?;
    Ok(name.to_owned())
}

/// The SHA-256 of `secret`.
pub fn hash_key(secret: &str) -> KeyHash {
    KeyHash(Sha256::digest(secret.as_bytes()).into())
}

/// Makes a new key for `user_id` and stores its hash, named and expiring
/// as `options` say.
///
/// # Errors
///
/// [`HostError::BadRequest`] for a user id that holds a character no
/// name may (see [`crate::service::names`]: it would be printed in every log line
/// of the key's requests), or a name or lifetime `options` cannot have;
/// [`HostError::Store`] when the store fails or the system has no
/// randomness to give.
pub async fn create_key(
    store: &(impl ApiKeyStore + ?Sized),
    user_id: UserId,
    scope: KeyScope,
    options: &KeyOptions,
) -> Result<NewKey, HostError> {
    crate::service::names::check_name("the user id", user_id.as_str())?;
    let name = options.name.as_deref().map(key_name).transpose()?;
    let made = Made::by(AuditStep::KeyCreated, &options.made_by);
    make_key(
        store,
        user_id,
        scope,
        name,
        options.expires_in,
        made,
        |_| {},
    )
    .await
}

/// How a key comes to be made, for the audit record: the step and who
/// took it.
#[derive(Debug, Clone, Copy)]
struct Made<'a> {
    step: AuditStep,
    by: &'a Actor,
}

impl<'a> Made<'a> {
    fn by(step: AuditStep, by: &'a Actor) -> Self {
        Made { step, by }
    }
}

/// Makes one of an OAuth grant's tokens for `user_id`, an agent's: an
/// access token (`kind` [`KeyKind::OAuth`]) or a refresh token, named for
/// its client (a client's name is its own to choose, so it is made fit
/// for a table first).
pub(crate) async fn make_grant_key(
    store: &(impl ApiKeyStore + ?Sized),
    user_id: UserId,
    kind: KeyKind,
    grant: &str,
    client: (&str, &str),
    lifetime: Duration,
    actor: &Actor,
) -> Result<NewKey, HostError> {
    let (client_id, client_name) = client;
    let name: String = client_name
        .chars()
        .filter(|c| !crate::service::names::is_forbidden_in_name(*c))
        .take(KEY_NAME_LIMIT)
        .collect();
    let name = Some(name).filter(|name| !name.trim().is_empty());
    make_key(
        store,
        user_id,
        KeyScope::Agent,
        name,
        Some(lifetime),
        Made::by(AuditStep::KeyCreated, actor),
        |record| {
            record.kind = kind;
            record.grant = Some(grant.to_owned());
            record.client = Some(client_id.to_owned());
        },
    )
    .await
}

/// Makes a key named `name` (already checked, or one of the host's own),
/// the record made whole by `finish`.
async fn make_key(
    store: &(impl ApiKeyStore + ?Sized),
    user_id: UserId,
    scope: KeyScope,
    name: Option<String>,
    expires_in: Option<Duration>,
    made: Made<'_>,
    finish: impl FnOnce(&mut ApiKeyRecord),
) -> Result<NewKey, HostError> {
    if expires_in.is_some_and(|lifetime| lifetime.as_secs() == 0) {
        return Err(HostError::BadRequest(
            "a key lives at least a second".to_owned(),
        ));
    }
    let random = random_hex().map_err(|err| {
        HostError::Store(StoreError::Backend(
            format!("the system gave no randomness: {err}").into(),
        ))
    })?;
    let secret = format!("{KEY_PREFIX}{random}");
    let hash = hash_key(&secret);
    let now = UnixTime::now();
    // The first 48 bits of the hash: enough to tell keys apart in a list,
    // and nothing an attacker can use (the hash is of 256 random bits).
    let mut record = ApiKeyRecord::new(
        hex(hash.0.get(..6).unwrap_or_default()),
        hash,
        user_id,
        scope,
        now,
    );
    record.name = name;
    record.expires_at = expires_in.map(|lifetime| now.after(lifetime));
    finish(&mut record);
    if !store.insert_api_key(&record, made.step, made.by).await? {
        return Err(HostError::Store(StoreError::Backend(
            "a new key collided with a stored one; try again".into(),
        )));
    }
    Ok(NewKey { secret, record })
}

/// The stored key `secret` is, whatever its state, or `None` for a token
/// that is not a well-formed key or names none.
///
/// # Errors
///
/// [`HostError::Store`] when the store fails.
pub async fn find_key(
    store: &(impl ApiKeyStore + ?Sized),
    secret: &str,
) -> Result<Option<ApiKeyRecord>, HostError> {
    if !is_well_formed(secret) {
        return Ok(None);
    }
    let hash = hash_key(secret);
    Ok(store
        .find_api_key(&hash)
        .await?
        .filter(|record| constant_time_eq(&record.hash.0, &hash.0)))
}

/// Makes a login link's key for `user_id`: an agent key that works for
/// `lifetime` (at most a day) and only to sign its person into the inbox,
/// once, at `POST /session`, which revokes it as it does; to
/// [`authenticate`] it is no key at all.
///
/// # Errors
///
/// [`HostError::BadRequest`] for a user id as [`create_key`] refuses it,
/// or a lifetime under a second or over a day; [`HostError::Store`] as
/// [`create_key`].
pub async fn create_login_link(
    store: &(impl ApiKeyStore + ?Sized),
    user_id: UserId,
    lifetime: Duration,
) -> Result<NewKey, HostError> {
    crate::service::names::check_name("the user id", user_id.as_str())?;
    if lifetime > Duration::from_secs(86_400) {
        return Err(HostError::BadRequest(
            "a login link works for a day at most".to_owned(),
        ));
    }
    let name = Some(LOGIN_LINK_NAME.to_owned());
    let operator = Actor::operator();
    make_key(
        store,
        user_id,
        KeyScope::Agent,
        name,
        Some(lifetime),
        Made::by(AuditStep::KeyCreated, &operator),
        |_| {},
    )
    .await
}

/// Signs a browser in with `secret`, a person's key or a login link: the
/// session key it gets (kept in an `HttpOnly` cookie, never seen by the
/// page), which acts as the same user with the same scope for
/// [`WEB_SESSION_LIFETIME`]. A login link is revoked first, so it signs
/// in once; a session key cannot make another.
///
/// # Errors
///
/// As [`authenticate`]; [`HostError::Unauthorized`] for a session key;
/// [`HostError::LoginLinkUsed`] for a login link already used (or
/// revoked); [`HostError::HostKeySignIn`] for a host key.
pub async fn sign_in(
    store: &(impl ApiKeyStore + AuditStore + ?Sized),
    secret: &str,
    request_id: Option<&str>,
) -> Result<NewKey, HostError> {
    let record = active_key(store, Some(secret), Presented::ForSignIn, request_id).await?;
    let actor = Caller::of(record.clone(), Presented::ForSignIn, request_id).actor();
    if record.name.as_deref() == Some(WEB_SESSION_NAME) {
        return Err(HostError::Unauthorized);
    }
    // A browser session is a person's: a host key acts for no one person,
    // and a page that held its powers would be one script away from
    // opening and closing anyone's negotiations.
    if record.scope == KeyScope::Host {
        return Err(HostError::HostKeySignIn);
    }
    // A login link is spent by its first sign-in: revoked before the
    // session is made, and only the sign-in whose revoke it was goes on,
    // however many race with it.
    if record.name.as_deref() == Some(LOGIN_LINK_NAME)
        && store
            .revoke_api_key(&record.id, AuditStep::KeyRevoked, &actor)
            .await?
            != Revocation::Revoked
    {
        return Err(HostError::LoginLinkUsed);
    }
    let name = Some(WEB_SESSION_NAME.to_owned());
    make_key(
        store,
        record.user_id,
        record.scope,
        name,
        Some(WEB_SESSION_LIFETIME),
        Made::by(AuditStep::SignedIn, &actor),
        |_| {},
    )
    .await
}

/// The caller a request's bearer token names. A missing, malformed,
/// unknown or revoked key is [`HostError::Unauthorized`] (one answer for
/// all, so nothing is learned from it), and so is a login link, which
/// only signs in ([`sign_in`]), and a browser session of a host key made
/// before such sessions were refused; an expired key, which only its
/// holder can present, [`HostError::KeyExpired`]. A key's use is recorded
/// at most once a
/// [`KEY_USE_RESOLUTION`](index_negotiation_store::KEY_USE_RESOLUTION); a store that fails to record it
/// does not refuse the request.
///
/// # Errors
///
/// As above, and [`HostError::Store`] when the store fails to find the key.
pub async fn authenticate(
    store: &(impl ApiKeyStore + AuditStore + ?Sized),
    token: Option<&str>,
    request_id: Option<&str>,
) -> Result<Caller, HostError> {
    active_key(store, token, Presented::ForRequest, request_id)
        .await
        .map(|record| Caller::of(record, Presented::ForRequest, request_id))
}

/// The caller a browser's session cookie names: as [`authenticate`], but
/// only a session key made by [`sign_in`] counts. Any other key in the
/// cookie (an API key, an OAuth access token) is no session, since only a
/// person's own browser session approves a client or manages what is
/// connected, and a program can set any cookie and `Origin` it likes.
pub(crate) async fn authenticate_session(
    store: &(impl ApiKeyStore + AuditStore + ?Sized),
    token: Option<&str>,
    request_id: Option<&str>,
) -> Result<Caller, HostError> {
    active_key(store, token, Presented::AsSession, request_id)
        .await
        .map(|record| Caller::of(record, Presented::AsSession, request_id))
}

impl Caller {
    /// Who presents `record`, a key, as `presented`, in the request
    /// `request_id`.
    fn of(record: ApiKeyRecord, presented: Presented, request_id: Option<&str>) -> Self {
        // A sign-in presents a person's key or a login link, not yet a
        // session: it is named by the key it presents.
        let kind = match (presented, record.kind, record.scope) {
            (Presented::AsSession, _, _) => ActorKind::Session,
            (_, KeyKind::OAuth, _) => ActorKind::OAuth,
            (_, _, KeyScope::Host) => ActorKind::HostKey,
            _ => ActorKind::AgentKey,
        };
        Caller {
            user_id: record.user_id,
            scope: record.scope,
            key_id: record.id,
            kind,
            request_id: request_id.map(str::to_owned),
        }
    }

    /// Who the audit record names for the steps this caller's request
    /// takes: how its key was presented, the key's id, the request's id.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use index_host::keys::{KeyOptions, authenticate, create_key};
    /// use index_negotiation_store::{ActorKind, KeyScope, MemoryStore};
    /// let store = MemoryStore::new();
    /// let key = create_key(&store, "dana".parse()?, KeyScope::Agent, &KeyOptions::default()).await?;
    /// let caller = authenticate(&store, Some(&key.secret), Some("req-1")).await?;
    /// let actor = caller.actor();
    /// assert_eq!((actor.kind(), actor.request_id()), (ActorKind::AgentKey, Some("req-1")));
    /// assert_eq!(caller.actor_outside_request().request_id(), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn actor(&self) -> Actor {
        Actor::new(
            self.kind,
            Some(self.key_id.clone()),
            self.request_id.clone(),
        )
        .in_trace(crate::service::trace_context::current_traceparent())
    }

    /// As [`Caller::actor`], for a step this caller takes after its
    /// request is over (an answer given later in a form that request
    /// opened): the key, but no request id, since no request carries it.
    pub fn actor_outside_request(&self) -> Actor {
        Actor::new(self.kind, Some(self.key_id.clone()), None)
    }
}

/// What a key is presented for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presented {
    /// To authenticate a request.
    ForRequest,
    /// As a browser's session, in its cookie.
    AsSession,
    /// To sign a browser in, the one thing a login link does.
    ForSignIn,
}

/// The active key `token` is, its use recorded; as [`authenticate`]. A
/// key that no longer works, revoked or expired, is refused on the audit
/// record (only its holder can present it, so the entry is theirs); a
/// token that names no key is not, since anyone can send one.
async fn active_key(
    store: &(impl ApiKeyStore + AuditStore + ?Sized),
    token: Option<&str>,
    presented: Presented,
    request_id: Option<&str>,
) -> Result<ApiKeyRecord, HostError> {
    let Some(record) = find_key(store, token.unwrap_or_default()).await? else {
        return Err(HostError::Unauthorized);
    };
    // A login link rides in a URL, where it is likelier to leak than a
    // key in a file: for anything but a sign-in it is a key that never
    // was, expired or not, and its use is not recorded.
    // A refresh token is exchanged at the token endpoint, which finds it
    // by its hash; as a bearer it is no key at all. An access token is an
    // agent's, never a browser's session.
    if record.kind == KeyKind::OAuthRefresh
        || (record.kind == KeyKind::OAuth && presented == Presented::ForSignIn)
    {
        return Err(HostError::Unauthorized);
    }
    let only_signs_in = record.name.as_deref() == Some(LOGIN_LINK_NAME);
    let session = record.kind == KeyKind::Api && record.name.as_deref() == Some(WEB_SESSION_NAME);
    let host_session = session && record.scope == KeyScope::Host;
    if presented != Presented::ForSignIn && (only_signs_in || host_session) {
        return Err(HostError::Unauthorized);
    }
    if presented == Presented::AsSession && !session {
        return Err(HostError::Unauthorized);
    }
    let now = UnixTime::now();
    let refused = match record.state(now) {
        KeyState::Active => None,
        // A link is revoked as it signs in: revoked, it was spent (or
        // taken back), which only its holder can learn.
        KeyState::Revoked if only_signs_in => Some((HostError::LoginLinkUsed, "login_link_used")),
        KeyState::Expired => Some((HostError::KeyExpired, "key_expired")),
        _ => Some((HostError::Unauthorized, "key_revoked")),
    };
    if let Some((refusal, code)) = refused {
        let user = record.user_id.clone();
        let actor = Caller::of(record, presented, request_id).actor();
        if let Err(err) = store.record_refusal(&user, code, &actor).await {
            tracing::warn!(error = %ErrorChain(&err), "could not record a refused key on the audit record");
        }
        return Err(refusal);
    }
    if record.use_is_unrecorded(now)
        && let Err(err) = store.record_api_key_use(&record.id, now).await
    {
        tracing::warn!(key = %record.id, error = %ErrorChain(&err), "could not record a key's use");
    }
    Ok(record)
}

/// The bearer token of an `Authorization` header value, if it is one.
pub fn bearer_token(header: &str) -> Option<&str> {
    let (scheme, token) = header.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

fn is_well_formed(token: &str) -> bool {
    token
        .strip_prefix(KEY_PREFIX)
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Equal bytes, compared without stopping at the first difference.
fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

/// 256 random bits from the system, as hex: a secret nobody can guess
/// (an API key's body, a `requestState` token).
pub(crate) fn random_hex() -> Result<String, getrandom::Error> {
    let mut random = [0u8; 32];
    getrandom::fill(&mut random)?;
    Ok(hex(&random))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use index_negotiation_store::MemoryStore;

    /// A key for `user` with no name and no expiry.
    async fn plain_key(store: &MemoryStore, user: &str, scope: KeyScope) -> NewKey {
        create_key(store, user.parse().unwrap(), scope, &KeyOptions::default())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn a_key_authenticates_as_its_user_until_revoked() {
        let store = MemoryStore::new();
        let key = plain_key(&store, "dana", KeyScope::Agent).await;
        assert!(key.secret.starts_with(KEY_PREFIX) && key.secret.len() == 68);
        assert!(
            !format!("{key:?}").contains(&key.secret),
            "Debug hides the secret"
        );
        let caller = authenticate(&store, Some(&key.secret), None).await.unwrap();
        assert_eq!(
            (caller.user_id.as_str(), caller.scope),
            ("dana", KeyScope::Agent)
        );

        let other = plain_key(&store, "sam", KeyScope::Host).await;
        assert_ne!(other.record.id, key.record.id);
        assert_eq!(
            authenticate(&store, Some(&other.secret), None)
                .await
                .unwrap()
                .scope,
            KeyScope::Host
        );

        let mut wrong = key.secret.clone();
        wrong.replace_range(10..11, if &wrong[10..11] == "0" { "1" } else { "0" });
        for token in [
            None,
            Some(""),
            Some("idx_"),
            Some("not a key"),
            Some(wrong.as_str()),
        ] {
            assert!(
                matches!(
                    authenticate(&store, token, None).await,
                    Err(HostError::Unauthorized)
                ),
                "{token:?}"
            );
        }
        assert_eq!(
            store
                .revoke_api_key(&key.record.id, AuditStep::KeyRevoked, &Actor::operator())
                .await
                .unwrap(),
            Revocation::Revoked
        );
        assert!(matches!(
            authenticate(&store, Some(&key.secret), None).await,
            Err(HostError::Unauthorized)
        ));
        assert!(
            store
                .list_api_keys()
                .await
                .unwrap()
                .iter()
                .all(|k| k.hash != KeyHash([0; 32]))
        );
    }

    /// A store whose lookups take a while, so that sign-ins racing with
    /// one link all find it before any revokes it.
    struct SlowLookups(MemoryStore);

    #[async_trait::async_trait]
    impl ApiKeyStore for SlowLookups {
        async fn insert_api_key(
            &self,
            key: &ApiKeyRecord,
            step: AuditStep,
            actor: &Actor,
        ) -> Result<bool, StoreError> {
            self.0.insert_api_key(key, step, actor).await
        }
        async fn find_api_key(&self, hash: &KeyHash) -> Result<Option<ApiKeyRecord>, StoreError> {
            let found = self.0.find_api_key(hash).await;
            tokio::time::sleep(Duration::from_millis(20)).await;
            found
        }
        async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
            self.0.list_api_keys().await
        }
        async fn revoke_api_key(
            &self,
            id: &str,
            step: AuditStep,
            actor: &Actor,
        ) -> Result<Revocation, StoreError> {
            self.0.revoke_api_key(id, step, actor).await
        }
        async fn revoke_grant(&self, grant: &str, actor: &Actor) -> Result<u64, StoreError> {
            self.0.revoke_grant(grant, actor).await
        }
        async fn record_api_key_use(&self, id: &str, at: UnixTime) -> Result<(), StoreError> {
            self.0.record_api_key_use(id, at).await
        }
    }

    #[async_trait::async_trait]
    impl AuditStore for SlowLookups {
        async fn list_audit(
            &self,
            filter: &index_negotiation_store::AuditFilter,
        ) -> Result<Vec<index_negotiation_store::AuditEntry>, StoreError> {
            self.0.list_audit(filter).await
        }
        async fn record_refusal(
            &self,
            user: &UserId,
            code: &str,
            actor: &Actor,
        ) -> Result<(), StoreError> {
            self.0.record_refusal(user, code, actor).await
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_login_link_signs_in_once_however_many_race_with_it() {
        let store = std::sync::Arc::new(SlowLookups(MemoryStore::new()));
        let dana = "dana".parse::<UserId>().unwrap();
        let link = create_login_link(store.as_ref(), dana, Duration::from_secs(600))
            .await
            .unwrap();
        let racers: Vec<_> = (0..16)
            .map(|_| {
                let (store, secret) = (store.clone(), link.secret.clone());
                tokio::spawn(async move { sign_in(store.as_ref(), &secret, None).await })
            })
            .collect();
        let mut sessions = 0;
        for racer in racers {
            match racer.await.unwrap() {
                Ok(_) => sessions += 1,
                Err(err) => assert!(matches!(err, HostError::LoginLinkUsed), "{err:?}"),
            }
        }
        assert_eq!(sessions, 1, "one sign-in spends the link");
    }

    #[tokio::test]
    async fn a_key_is_named_and_expires_as_asked_and_its_use_is_recorded() {
        let store = MemoryStore::new();
        let dana = || "dana".parse::<UserId>().unwrap();
        let options = KeyOptions {
            name: Some("  laptop agent ".to_owned()),
            expires_in: Some(Duration::from_secs(3600)),
            ..KeyOptions::default()
        };
        let key = create_key(&store, dana(), KeyScope::Agent, &options)
            .await
            .unwrap();
        assert_eq!(key.record.name.as_deref(), Some("laptop agent"));
        let made = key.record.created_at.unwrap();
        assert_eq!(
            key.record.expires_at,
            Some(made.after(Duration::from_secs(3600)))
        );
        authenticate(&store, Some(&key.secret), None).await.unwrap();
        let stored = find_key(&store, &key.secret).await.unwrap().unwrap();
        assert!(stored.last_used_at.is_some_and(|used| used >= made));

        for (name, expires_in) in [
            (Some(" "), None),
            (Some("a\u{7}bell"), None),
            (Some("laptop\u{202e}tnega"), None),
            (Some("zero\u{200b}width"), None),
            (Some("line\u{2028}break"), None),
            (Some(&*"n".repeat(KEY_NAME_LIMIT + 1)), None),
            (None, Some(Duration::from_millis(999))),
        ] {
            let options = KeyOptions {
                name: name.map(str::to_owned),
                expires_in,
                ..KeyOptions::default()
            };
            assert!(
                matches!(
                    create_key(&store, dana(), KeyScope::Agent, &options).await,
                    Err(HostError::BadRequest(_))
                ),
                "{name:?} {expires_in:?}"
            );
        }
        assert_eq!(
            store.list_api_keys().await.unwrap().len(),
            1,
            "nothing refused is stored"
        );
    }

    #[tokio::test]
    async fn a_user_id_a_log_line_could_not_show_as_it_is_gets_no_key() {
        let store = MemoryStore::new();
        for user in ["mallory\nINFO user=root", "dana\u{202e}", "sam\u{200b}"] {
            let user = user.parse::<UserId>().unwrap();
            let made = create_key(
                &store,
                user.clone(),
                KeyScope::Agent,
                &KeyOptions::default(),
            )
            .await;
            assert!(
                matches!(&made, Err(HostError::BadRequest(why)) if why.starts_with("the user id")),
                "{made:?}"
            );
            let link = create_login_link(&store, user, LOGIN_LINK_LIFETIME).await;
            assert!(matches!(link, Err(HostError::BadRequest(_))), "{link:?}");
        }
        assert!(store.list_api_keys().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_login_link_only_signs_in_and_a_host_key_never_does() {
        let store = MemoryStore::new();
        let dana = "dana".parse::<UserId>().unwrap();
        let link = create_login_link(&store, dana.clone(), LOGIN_LINK_LIFETIME)
            .await
            .unwrap();
        assert!(
            matches!(
                authenticate(&store, Some(&link.secret), None).await,
                Err(HostError::Unauthorized)
            ),
            "a login link is no key for a request"
        );
        let stored = find_key(&store, &link.secret).await.unwrap().unwrap();
        assert_eq!(stored.last_used_at, None, "and its use is not recorded");
        let session = sign_in(&store, &link.secret, None).await.unwrap();
        assert_eq!(
            authenticate(&store, Some(&session.secret), None)
                .await
                .unwrap()
                .user_id,
            dana
        );

        let host = plain_key(&store, "host", KeyScope::Host).await;
        let before = store.list_api_keys().await.unwrap().len();
        assert!(matches!(
            sign_in(&store, &host.secret, None).await,
            Err(HostError::HostKeySignIn)
        ));
        assert_eq!(
            store.list_api_keys().await.unwrap().len(),
            before,
            "no session made"
        );
        assert_eq!(HostError::HostKeySignIn.code(), "forbidden");

        // A host's browser session made before they were refused acts no
        // more.
        let old = format!("{KEY_PREFIX}{}", "ab".repeat(32));
        let mut record = ApiKeyRecord::new(
            "feedfacecafe",
            hash_key(&old),
            "host".parse().unwrap(),
            KeyScope::Host,
            UnixTime::now(),
        );
        record.name = Some(WEB_SESSION_NAME.to_owned());
        assert!(
            store
                .insert_api_key(&record, AuditStep::KeyCreated, &Actor::operator())
                .await
                .unwrap()
        );
        assert!(matches!(
            authenticate(&store, Some(&old), None).await,
            Err(HostError::Unauthorized)
        ));
    }

    #[test]
    fn bearer_tokens_are_read_from_the_header() {
        assert_eq!(bearer_token("Bearer idx_abc"), Some("idx_abc"));
        assert_eq!(bearer_token("bearer  idx_abc "), Some("idx_abc"));
        assert_eq!(bearer_token("Basic dXNlcg=="), None);
        assert_eq!(bearer_token("Bearer"), None);
    }
}
