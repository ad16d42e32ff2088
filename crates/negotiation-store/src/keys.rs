//! API keys, as a host stores them: only a hash of each key, the user it
//! acts as, and what it may do.

use async_trait::async_trait;
use serde::Serialize;

use crate::audit::{Actor, AuditStep};
use crate::error::StoreError;
use crate::time::UnixTime;
use index_negotiation::UserId;

index_js::wire_enum! {
    crate index_negotiation_store;
    /// What a key may do. Every key acts as its user; a host key may also open
    /// and close negotiations for anyone, which only the host itself should.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum KeyScope {
        /// A negotiator agent: acts only where its user holds a seat.
        Agent = "agent",
        /// The host: may also open and close negotiations.
        Host = "host",
    }
}

index_js::wire_enum! {
    crate index_negotiation_store;
    /// How a key came to be: made by its operator, or by an OAuth
    /// authorization a person approved.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum KeyKind {
        /// An API key made with `keys create` (or a login link, or a
        /// browser session).
        Api = "api",
        /// An OAuth access token: short lived, part of a grant.
        OAuth = "oauth",
        /// An OAuth refresh token: it never authenticates a request; it is
        /// exchanged, once, for the grant's next access and refresh tokens.
        OAuthRefresh = "oauth_refresh",
    }
}

/// The SHA-256 of a key: all a store ever holds of it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyHash(pub [u8; 32]);

impl std::fmt::Debug for KeyHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A hash is not the key, but it is what a lookup is keyed by; keep
        // it out of logs all the same.
        f.write_str("KeyHash(..)")
    }
}

/// One stored key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ApiKeyRecord {
    /// A short public name for the key, for listing and revoking; not secret.
    pub id: String,
    /// The hash the key is found by.
    #[serde(skip)]
    pub hash: KeyHash,
    /// The user the key acts as.
    pub user_id: UserId,
    /// What it may do.
    pub scope: KeyScope,
    /// A name its maker gave it (what it is for), if any.
    pub name: Option<String>,
    /// When it was made; `None` for a key made before stores kept it.
    pub created_at: Option<UnixTime>,
    /// When it stops authenticating, if it does.
    pub expires_at: Option<UnixTime>,
    /// When it last authenticated a request, to within
    /// [`KEY_USE_RESOLUTION`](crate::KEY_USE_RESOLUTION); `None` if never.
    pub last_used_at: Option<UnixTime>,
    /// Whether it was revoked (a revoked key authenticates nothing).
    pub revoked: bool,
    /// How it came to be.
    pub kind: KeyKind,
    /// The OAuth grant it belongs to, shared by every token one
    /// authorization made: revoking any of them revokes them all.
    pub grant: Option<String>,
    /// The OAuth client its grant was made for (its client id).
    pub client: Option<String>,
}

index_js::wire_enum! {
    crate index_negotiation_store;
    /// Whether a key authenticates, and if not, why.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum KeyState {
        /// It authenticates.
        Active = "active",
        /// It was revoked.
        Revoked = "revoked",
        /// Its expiry has passed.
        Expired = "expired",
    }
}

impl ApiKeyRecord {
    /// A key for `user_id` with `scope`, made `created_at`, with no name,
    /// no expiry, never used and not revoked.
    ///
    /// ```
    /// use index_negotiation_store::{ApiKeyRecord, KeyHash, KeyScope, KeyState, UnixTime};
    /// let mut key = ApiKeyRecord::new("3f9a1c2b7d10", KeyHash([1; 32]), "dana".parse().unwrap(), KeyScope::Agent, UnixTime(100));
    /// key.expires_at = Some(UnixTime(200));
    /// assert_eq!(key.state(UnixTime(199)), KeyState::Active);
    /// assert_eq!(key.state(UnixTime(200)), KeyState::Expired);
    /// ```
    pub fn new(
        id: impl Into<String>,
        hash: KeyHash,
        user_id: UserId,
        scope: KeyScope,
        created_at: UnixTime,
    ) -> Self {
        ApiKeyRecord {
            id: id.into(),
            hash,
            user_id,
            scope,
            name: None,
            created_at: Some(created_at),
            expires_at: None,
            last_used_at: None,
            revoked: false,
            kind: KeyKind::Api,
            grant: None,
            client: None,
        }
    }

    /// Whether the key authenticates at `now`: revoked outranks expired.
    pub fn state(&self, now: UnixTime) -> KeyState {
        if self.revoked {
            KeyState::Revoked
        } else if self.expires_at.is_some_and(|expires| expires <= now) {
            KeyState::Expired
        } else {
            KeyState::Active
        }
    }

    /// Whether a use at `now` should be recorded: never recorded, or the
    /// record is [`KEY_USE_RESOLUTION`](crate::KEY_USE_RESOLUTION) old.
    pub fn use_is_unrecorded(&self, now: UnixTime) -> bool {
        self.last_used_at.is_none_or(|last| {
            UnixTime::latest_use_replaced_at(now).is_some_and(|latest| last <= latest)
        })
    }
}

/// What [`ApiKeyStore::revoke_api_key`] did.
///
/// ```
/// use index_negotiation_store::Revocation;
/// assert!(Revocation::Revoked.found());
/// assert!(Revocation::AlreadyRevoked.found());
/// assert!(!Revocation::NoSuchKey.found());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revocation {
    /// This call revoked the key.
    Revoked,
    /// The key had been revoked already.
    AlreadyRevoked,
    /// There is no such key.
    NoSuchKey,
}

impl Revocation {
    /// Whether the key exists (and is now revoked, by this call or before).
    pub fn found(self) -> bool {
        self != Revocation::NoSuchKey
    }

    /// What a revoke found when its update (`... WHERE NOT revoked`)
    /// changed no row: keys are never deleted, so the key was revoked
    /// before when it `exists`, and there is none when not.
    ///
    /// ```
    /// use index_negotiation_store::Revocation;
    /// assert_eq!(Revocation::unchanged(true), Revocation::AlreadyRevoked);
    /// assert_eq!(Revocation::unchanged(false), Revocation::NoSuchKey);
    /// ```
    pub fn unchanged(exists: bool) -> Self {
        if exists {
            Revocation::AlreadyRevoked
        } else {
            Revocation::NoSuchKey
        }
    }
}

/// How a host can learn that any process changed a key (made, revoked,
/// or changed one's user, scope or expiry), so that it may keep the keys
/// it looked up instead of reading each request's key again.
#[derive(Debug)]
#[non_exhaustive]
pub enum KeyChanges {
    /// There is no such signal: every request's key is looked up.
    Unsignalled,
    /// A number any key change bumps, in the change's own transaction
    /// ([`ApiKeyStore::keys_version`]): much cheaper to read than a key, and
    /// a kept key holds while the number is the one it was kept under.
    Version,
    /// A feed that wakes on every key change, by any process, once it is
    /// committed; a feed that closes means the backend stopped watching,
    /// and the keys kept must be dropped.
    Feed(crate::feed::ChangeFeed),
}

/// Where a host keeps its API keys. Every backend of
/// [`NegotiationStore`](crate::NegotiationStore) implements it, in a table
/// of its own.
///
/// A key made or revoked is on the audit record (see
/// [`AuditStore`](crate::AuditStore)) as `step`, by `actor`, for the key's
/// person and with its id, appended in the same atomic step as the change.
#[async_trait]
pub trait ApiKeyStore: Send + Sync {
    /// Stores a new key and appends `step` for it. Returns `false`, storing
    /// and appending nothing, when its id or hash is already taken.
    async fn insert_api_key(
        &self,
        key: &ApiKeyRecord,
        step: AuditStep,
        actor: &Actor,
    ) -> Result<bool, StoreError>;

    /// The key with this hash, revoked or not.
    async fn find_api_key(&self, hash: &KeyHash) -> Result<Option<ApiKeyRecord>, StoreError>;

    /// Every key, oldest first.
    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError>;

    /// Revokes the key `id`, saying whether this call did: of calls that
    /// race to revoke one key, on any process of the store, exactly one
    /// hears [`Revocation::Revoked`], which is how a key meant for one use
    /// (a login link, a refresh token) is used once. Only that call
    /// appends `step`.
    async fn revoke_api_key(
        &self,
        id: &str,
        step: AuditStep,
        actor: &Actor,
    ) -> Result<Revocation, StoreError>;

    /// Revokes every key of the OAuth grant `grant` in one write (an
    /// authorization taken back, or a refresh token presented after it was
    /// used), appending a [`AuditStep::KeyRevoked`] for each; how many
    /// this call revoked.
    async fn revoke_grant(&self, grant: &str, actor: &Actor) -> Result<u64, StoreError>;

    /// Records that the key `id` authenticated a request at `at`, unless
    /// its recorded last use is less than [`KEY_USE_RESOLUTION`](crate::KEY_USE_RESOLUTION) before
    /// `at` (or later): a busy key is written once a minute, and a
    /// recorded use never moves back.
    async fn record_api_key_use(&self, id: &str, at: UnixTime) -> Result<(), StoreError>;

    /// How this store tells a host that keys changed; by default it does
    /// not, and a host looks every key up.
    async fn key_changes(&self) -> Result<KeyChanges, StoreError> {
        Ok(KeyChanges::Unsignalled)
    }

    /// The number every key change bumps, where [`key_changes`](Self::key_changes)
    /// is [`KeyChanges::Version`]; 0 elsewhere.
    async fn keys_version(&self) -> Result<u64, StoreError> {
        Ok(0)
    }
}

macro_rules! forward_keys {
    ($($pointer:ty),*) => {$(
        #[async_trait]
        impl<S: ApiKeyStore + ?Sized> ApiKeyStore for $pointer {
            async fn insert_api_key(&self, key: &ApiKeyRecord, step: AuditStep, actor: &Actor) -> Result<bool, StoreError> {
                (**self).insert_api_key(key, step, actor).await
            }
            async fn find_api_key(&self, hash: &KeyHash) -> Result<Option<ApiKeyRecord>, StoreError> {
                (**self).find_api_key(hash).await
            }
            async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
                (**self).list_api_keys().await
            }
            async fn revoke_api_key(&self, id: &str, step: AuditStep, actor: &Actor) -> Result<Revocation, StoreError> {
                (**self).revoke_api_key(id, step, actor).await
            }
            async fn revoke_grant(&self, grant: &str, actor: &Actor) -> Result<u64, StoreError> {
                (**self).revoke_grant(grant, actor).await
            }
            async fn record_api_key_use(&self, id: &str, at: UnixTime) -> Result<(), StoreError> {
                (**self).record_api_key_use(id, at).await
            }
            async fn key_changes(&self) -> Result<KeyChanges, StoreError> {
                (**self).key_changes().await
            }
            async fn keys_version(&self) -> Result<u64, StoreError> {
                (**self).keys_version().await
            }
        }
    )*};
}

forward_keys!(std::sync::Arc<S>, Box<S>, &S);
