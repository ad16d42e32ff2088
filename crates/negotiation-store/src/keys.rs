//! API keys, as a host stores them: only a hash of each key, the user it
//! acts as, and what it may do.

use async_trait::async_trait;
use serde::Serialize;

use crate::error::StoreError;
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
    /// Whether it was revoked (a revoked key authenticates nothing).
    pub revoked: bool,
}

/// Where a host keeps its API keys. Every backend of
/// [`NegotiationStore`](crate::NegotiationStore) implements it, in a table
/// of its own.
#[async_trait]
pub trait ApiKeyStore: Send + Sync {
    /// Stores a new key. Returns `false`, storing nothing, when its id or
    /// hash is already taken.
    async fn insert_api_key(&self, key: &ApiKeyRecord) -> Result<bool, StoreError>;

    /// The key with this hash, revoked or not.
    async fn find_api_key(&self, hash: &KeyHash) -> Result<Option<ApiKeyRecord>, StoreError>;

    /// Every key, oldest first.
    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError>;

    /// Revokes the key `id`. Returns `false` when there is no such key.
    async fn revoke_api_key(&self, id: &str) -> Result<bool, StoreError>;
}

macro_rules! forward_keys {
    ($($pointer:ty),*) => {$(
        #[async_trait]
        impl<S: ApiKeyStore + ?Sized> ApiKeyStore for $pointer {
            async fn insert_api_key(&self, key: &ApiKeyRecord) -> Result<bool, StoreError> {
                (**self).insert_api_key(key).await
            }
            async fn find_api_key(&self, hash: &KeyHash) -> Result<Option<ApiKeyRecord>, StoreError> {
                (**self).find_api_key(hash).await
            }
            async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
                (**self).list_api_keys().await
            }
            async fn revoke_api_key(&self, id: &str) -> Result<bool, StoreError> {
                (**self).revoke_api_key(id).await
            }
        }
    )*};
}

forward_keys!(std::sync::Arc<S>, Box<S>, &S);
