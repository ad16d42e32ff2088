//! Tokens the host hands a client and takes back on another request,
//! perhaps on another host of the same store: what they carry is signed
//! with HMAC-SHA-256 under a key every host of the store shares (kept in
//! the store, see `HostStateStore::signing_keys`), so any host can check
//! that a token is one of theirs, unchanged, without remembering it.
//!
//! A token is `<key id>.<payload, base64url>.<HMAC, base64url>`. The
//! payload is readable by whoever holds the token (only the caller it was
//! handed to); what must stay secret never goes in one.
//!
//! Each host keeps the store's usable keys for a minute, signs with the
//! newest, and reads the store again at once when a token names a key it
//! does not hold (a key another host rotated in), at most four times a
//! second, so that tokens naming made-up keys cost the store little.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use index_negotiation_store::{HostStateStore, SigningKey, StoreError, UnixTime};

/// How long a host signs with the keys it read before reading them again:
/// a rotation's overlap must be longer.
const KEYS_KEPT: Duration = Duration::from_secs(60);

/// How soon a token naming an unknown key may have the store read again.
const UNKNOWN_KEY_REREAD: Duration = Duration::from_millis(250);

/// The shortest overlap a rotation may give the keys it retires: every
/// host reads the new key within a minute, so until then tokens
/// signed with the old one keep coming.
pub const LEAST_ROTATION_OVERLAP: Duration = Duration::from_secs(2 * 60);

/// A host's copy of the store's signing keys.
#[derive(Default)]
pub(crate) struct Signer {
    kept: Mutex<Option<Kept>>,
}

struct Kept {
    /// Newest first.
    keys: Vec<SigningKey>,
    read_at: Instant,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer").finish_non_exhaustive()
    }
}

/// Why a token could not be signed, or a key made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SignError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The system's random source failed.
    #[error("no random key could be drawn")]
    Random,
}

impl Signer {
    /// `payload`, signed with the newest key.
    pub(crate) async fn sign(
        &self,
        store: &dyn HostStateStore,
        payload: &[u8],
    ) -> Result<String, SignError> {
        let keys = self.keys(store, false).await?;
        let key = keys.first().ok_or(SignError::Random)?;
        let body = format!("{}.{}", key.id, URL_SAFE_NO_PAD.encode(payload));
        let mac = mac(key, &body).finalize().into_bytes();
        Ok(format!("{body}.{}", URL_SAFE_NO_PAD.encode(mac)))
    }

    /// What `token` carries, when one of the store's usable keys signed
    /// it and it is unchanged; `None` for anything else.
    pub(crate) async fn open(&self, store: &dyn HostStateStore, token: &str) -> Option<Vec<u8>> {
        let (body, signature) = token.rsplit_once('.')?;
        let (key_id, payload) = body.split_once('.')?;
        let signature = URL_SAFE_NO_PAD.decode(signature).ok()?;
        let find = |keys: &[SigningKey]| keys.iter().find(|key| key.id == key_id).cloned();
        let key = match find(&self.keys(store, false).await.ok()?) {
            Some(key) => key,
            None => find(&self.keys(store, true).await.ok()?)?,
        };
        mac(&key, body).verify_slice(&signature).ok()?;
        URL_SAFE_NO_PAD.decode(payload).ok()
    }

    /// The usable keys, newest first: the kept ones while fresh, else the
    /// store's (which makes the first when there is none). `unknown` asks
    /// for the store's now, unless it was read within the last quarter second.
    async fn keys(
        &self,
        store: &dyn HostStateStore,
        unknown: bool,
    ) -> Result<Vec<SigningKey>, SignError> {
        let now = UnixTime::now();
        if let Ok(kept) = self.kept.lock()
            && let Some(kept) = kept.as_ref()
        {
            let age = kept.read_at.elapsed();
            let fresh = if unknown {
                age < UNKNOWN_KEY_REREAD
            } else {
                age < KEYS_KEPT
            };
            let usable: Vec<_> = kept
                .keys
                .iter()
                .filter(|key| key.usable(now))
                .cloned()
                .collect();
            if fresh && !usable.is_empty() {
                return Ok(usable);
            }
        }
        let candidate = new_key(now).ok_or(SignError::Random)?;
        let keys = store.signing_keys(&candidate, now).await?;
        if let Ok(mut kept) = self.kept.lock() {
            *kept = Some(Kept {
                keys: keys.clone(),
                read_at: Instant::now(),
            });
        }
        Ok(keys)
    }
}

/// A fresh key made at `now`: 256 random bits, and a random id.
pub(crate) fn new_key(now: UnixTime) -> Option<SigningKey> {
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).ok()?;
    let mut id = [0u8; 8];
    getrandom::fill(&mut id).ok()?;
    Some(SigningKey {
        id: URL_SAFE_NO_PAD.encode(id),
        secret,
        created_at: now,
        retires_at: None,
    })
}

fn mac(key: &SigningKey, body: &str) -> Hmac<Sha256> {
    // HMAC pads a key shorter than its block with zeros, so the secret in
    // a zeroed block is the same key, given without a way to fail.
    let mut block = hmac::digest::Key::<Hmac<Sha256>>::default();
    for (slot, byte) in block.iter_mut().zip(key.secret) {
        *slot = byte;
    }
    let mut mac = <Hmac<Sha256> as KeyInit>::new(&block);
    mac.update(body.as_bytes());
    mac
}

/// Rotates the store's signing key: a new one signs from now on, and the
/// others check tokens for `overlap` more (at least
/// [`LEAST_ROTATION_OVERLAP`]), so that tokens already handed out hold.
/// Returns the new key's id. Every host of the store signs with the new
/// key within a minute, without a restart.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::time::Duration;
/// use index_host::signing::rotate_signing_key;
/// let store = index_negotiation_store::MemoryStore::new();
/// let id = rotate_signing_key(&store, Duration::from_secs(3_600)).await?;
/// assert!(!id.is_empty());
/// # Ok::<(), index_host::signing::SignError>(())
/// # }).unwrap();
/// ```
///
/// # Errors
///
/// [`SignError::Store`] when the store fails, [`SignError::Random`] when
/// no key can be drawn.
pub async fn rotate_signing_key(
    store: &dyn HostStateStore,
    overlap: Duration,
) -> Result<String, SignError> {
    let now = UnixTime::now();
    let key = new_key(now).ok_or(SignError::Random)?;
    store
        .rotate_signing_key(&key, now.after(overlap.max(LEAST_ROTATION_OVERLAP)))
        .await?;
    Ok(key.id)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use index_negotiation_store::MemoryStore;

    use super::*;

    #[test]
    fn the_mac_is_hmac_sha256_under_the_secret_itself() {
        let key = new_key(UnixTime(1)).unwrap();
        let mut standard = <Hmac<Sha256> as KeyInit>::new_from_slice(&key.secret).unwrap();
        standard.update(b"body");
        assert_eq!(
            mac(&key, "body").finalize().into_bytes(),
            standard.finalize().into_bytes()
        );
    }

    #[tokio::test]
    async fn a_token_opens_on_any_host_of_the_store_and_only_unchanged() {
        let store = MemoryStore::new();
        let (here, there) = (Signer::default(), Signer::default());
        let token = here.sign(&store, b"{\"n\":1}").await.unwrap();
        assert_eq!(there.open(&store, &token).await.unwrap(), b"{\"n\":1}");

        let (body, _) = token.rsplit_once('.').unwrap();
        let (key_id, _) = body.split_once('.').unwrap();
        let forged = format!("{key_id}.{}", URL_SAFE_NO_PAD.encode(b"{\"n\":2}"));
        let reused = format!("{forged}.{}", token.rsplit_once('.').unwrap().1);
        assert!(
            there.open(&store, &reused).await.is_none(),
            "a changed payload"
        );
        assert!(there.open(&store, "no-dots").await.is_none());
        assert!(there.open(&store, "a.b.c").await.is_none());
    }

    #[tokio::test]
    async fn a_rotated_key_keeps_checking_and_the_new_one_is_found_at_once() {
        let store = MemoryStore::new();
        let (here, there) = (Signer::default(), Signer::default());
        let before = here.sign(&store, b"old").await.unwrap();
        assert!(there.open(&store, &before).await.is_some());
        let new_id = rotate_signing_key(&store, Duration::from_secs(600))
            .await
            .unwrap();
        // A fresh host signs with the new key; one holding the old keys
        // finds the new one when it meets it (reading the store again at
        // most four times a second).
        tokio::time::sleep(UNKNOWN_KEY_REREAD).await;
        let after = Signer::default().sign(&store, b"new").await.unwrap();
        assert!(after.starts_with(&format!("{new_id}.")));
        assert_eq!(there.open(&store, &after).await.unwrap(), b"new");
        assert_eq!(there.open(&store, &before).await.unwrap(), b"old");
    }
}
