//! API keys: made, shown once, stored as a hash, and checked on every
//! request.
//!
//! A key is `idx_` and 64 hex digits: 256 random bits from the operating
//! system. The store keeps its SHA-256, so a leaked database leaks no key;
//! a request's key is hashed and looked up by that hash, and the stored hash
//! is compared with it in constant time before it counts.

use sha2::{Digest, Sha256};

use index_negotiation_store::{ApiKeyRecord, ApiKeyStore, KeyHash, KeyScope, StoreError, UserId};

use crate::error::HostError;

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
pub struct Caller {
    /// The user the key acts as.
    pub user_id: UserId,
    /// What the key may do.
    pub scope: KeyScope,
    /// The key's public id, for logs.
    pub key_id: String,
}

/// The SHA-256 of `secret`.
pub fn hash_key(secret: &str) -> KeyHash {
    KeyHash(Sha256::digest(secret.as_bytes()).into())
}

/// Makes a new key for `user_id` and stores its hash.
///
/// # Errors
///
/// [`HostError::Store`] when the store fails or the system has no
/// randomness to give.
pub async fn create_key(
    store: &(impl ApiKeyStore + ?Sized),
    user_id: UserId,
    scope: KeyScope,
) -> Result<NewKey, HostError> {
    if user_id.as_str().trim().is_empty() {
        return Err(HostError::BadRequest("a key needs a user".to_owned()));
    }
    let mut random = [0u8; 32];
    getrandom::fill(&mut random).map_err(|err| {
        HostError::Store(StoreError::Backend(
            format!("the system gave no randomness: {err}").into(),
        ))
    })?;
    let secret = format!("{KEY_PREFIX}{}", hex(&random));
    let hash = hash_key(&secret);
    let record = ApiKeyRecord {
        // The first 48 bits of the hash: enough to tell keys apart in a list,
        // and nothing an attacker can use (the hash is of 256 random bits).
        id: hex(hash.0.get(..6).unwrap_or_default()),
        hash,
        user_id,
        scope,
        revoked: false,
    };
    if !store.insert_api_key(&record).await? {
        return Err(HostError::Store(StoreError::Backend(
            "a new key collided with a stored one; try again".into(),
        )));
    }
    Ok(NewKey { secret, record })
}

/// The caller a request's bearer token names, or [`HostError::Unauthorized`]
/// for a missing, malformed, unknown or revoked key (one answer for all, so
/// nothing is learned from it).
///
/// # Errors
///
/// As above, and [`HostError::Store`] when the store fails.
pub async fn authenticate(
    store: &(impl ApiKeyStore + ?Sized),
    token: Option<&str>,
) -> Result<Caller, HostError> {
    let Some(secret) = token.filter(|t| is_well_formed(t)) else {
        return Err(HostError::Unauthorized);
    };
    let hash = hash_key(secret);
    match store.find_api_key(&hash).await? {
        Some(record) if !record.revoked && constant_time_eq(&record.hash.0, &hash.0) => {
            Ok(Caller {
                user_id: record.user_id,
                scope: record.scope,
                key_id: record.id,
            })
        }
        _ => Err(HostError::Unauthorized),
    }
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use index_negotiation_store::MemoryStore;

    #[tokio::test]
    async fn a_key_authenticates_as_its_user_until_revoked() {
        let store = MemoryStore::new();
        let key = create_key(&store, "dana".parse().unwrap(), KeyScope::Agent)
            .await
            .unwrap();
        assert!(key.secret.starts_with(KEY_PREFIX) && key.secret.len() == 68);
        assert!(
            !format!("{key:?}").contains(&key.secret),
            "Debug hides the secret"
        );
        let caller = authenticate(&store, Some(&key.secret)).await.unwrap();
        assert_eq!(
            (caller.user_id.as_str(), caller.scope),
            ("dana", KeyScope::Agent)
        );

        let other = create_key(&store, "sam".parse().unwrap(), KeyScope::Host)
            .await
            .unwrap();
        assert_ne!(other.record.id, key.record.id);
        assert_eq!(
            authenticate(&store, Some(&other.secret))
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
                    authenticate(&store, token).await,
                    Err(HostError::Unauthorized)
                ),
                "{token:?}"
            );
        }
        assert!(store.revoke_api_key(&key.record.id).await.unwrap());
        assert!(matches!(
            authenticate(&store, Some(&key.secret)).await,
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

    #[test]
    fn bearer_tokens_are_read_from_the_header() {
        assert_eq!(bearer_token("Bearer idx_abc"), Some("idx_abc"));
        assert_eq!(bearer_token("bearer  idx_abc "), Some("idx_abc"));
        assert_eq!(bearer_token("Basic dXNlcg=="), None);
        assert_eq!(bearer_token("Bearer"), None);
    }
}
