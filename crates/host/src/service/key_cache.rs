//! The keys a host looked up, kept so that a request need not read its
//! key from the store again, and dropped the moment any process changes a
//! key, by the store's own signal (`KeyChanges`):
//!
//! - where the store keeps a keys version (SQLite, memory), each request
//!   reads that one number, which every key change bumps in its own
//!   transaction, and the kept keys hold while it stands: no window at all;
//! - where the store notifies (PostgreSQL's `LISTEN`), the kept keys are
//!   dropped when the notification arrives, which PostgreSQL sends as the
//!   change commits; a feed that closes turns the keeping off;
//! - where it gives no signal, nothing is kept.
//!
//! Only keys found are kept (a key made later is found at its first use),
//! each with the state it had, so an expired key is refused by the clock;
//! and a lookup that began before a change is never kept after it.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use async_trait::async_trait;

use index_negotiation_store::{
    Actor, ApiKeyRecord, ApiKeyStore, AuditEntry, AuditFilter, AuditStep, AuditStore, HostStore,
    KEY_USE_RESOLUTION, KeyChanges, KeyHash, Revocation, StoreError, UnixTime, UserId,
};

/// How many keys a host keeps; past it, it starts again from none.
const MOST_KEPT: usize = 10_000;

/// A host's kept keys.
pub(crate) struct KeyCache {
    kept: Mutex<BTreeMap<KeyHash, ApiKeyRecord>>,
    /// When this host last put each key's refusal on the audit record:
    /// a key that no longer works is recorded refused once a
    /// [`KEY_USE_RESOLUTION`], however often its holder tries it, so a
    /// leaked key cannot flood the record (or, on SQLite, the write lock).
    refused: Mutex<BTreeMap<String, UnixTime>>,
    /// Bumped by every drop: a lookup kept only if none came between.
    drops: AtomicU64,
    how: How,
}

enum How {
    Off,
    /// The keys version the kept keys were kept under.
    Version(Mutex<Option<u64>>),
    /// Whether the store's feed still runs.
    Feed(AtomicBool),
}

impl std::fmt::Debug for KeyCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyCache").finish_non_exhaustive()
    }
}

impl KeyCache {
    /// A cache kept by the store's signal; for a feed, the feed to watch
    /// (see [`KeyCache::watch`]).
    pub(crate) fn new(
        changes: KeyChanges,
    ) -> (KeyCache, Option<index_negotiation_store::ChangeFeed>) {
        let (how, feed) = match changes {
            KeyChanges::Version => (How::Version(Mutex::new(None)), None),
            KeyChanges::Feed(feed) => (How::Feed(AtomicBool::new(true)), Some(feed)),
            _ => (How::Off, None),
        };
        let cache = KeyCache {
            kept: Mutex::new(BTreeMap::new()),
            refused: Mutex::new(BTreeMap::new()),
            drops: AtomicU64::new(0),
            how,
        };
        (cache, feed)
    }

    /// Drops every kept key on each message of `feed`, and keeps none
    /// once it closes. Holds the cache weakly, and ends with the host (see
    /// [`crate::service::feed_relay`]).
    pub(crate) fn watch(
        cache: std::sync::Weak<KeyCache>,
        feed: index_negotiation_store::ChangeFeed,
        gone: tokio_util::sync::CancellationToken,
    ) {
        let each = {
            let cache = cache.clone();
            move || cache.upgrade().map(|cache| cache.drop_all()).is_some()
        };
        let closed = move || {
            if let Some(cache) = cache.upgrade() {
                if let How::Feed(running) = &cache.how {
                    running.store(false, Ordering::SeqCst);
                }
                cache.drop_all();
                tracing::warn!(
                    "the store stopped telling of key changes: every request's key is looked up from now on"
                );
            }
        };
        crate::service::feed_relay::relay(feed, gone, each, closed);
    }

    fn drop_all(&self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut kept) = self.kept.lock() {
            kept.clear();
        }
    }

    /// The store seen through this cache.
    pub(crate) fn over<'a>(&'a self, store: &'a dyn HostStore) -> Cached<'a> {
        Cached { cache: self, store }
    }
}

/// A store's keys, looked up through a host's cache.
pub(crate) struct Cached<'a> {
    cache: &'a KeyCache,
    store: &'a dyn HostStore,
}

impl Cached<'_> {
    /// Whether the kept keys may be used now: for a version, after
    /// reading it (and dropping them if it moved).
    async fn usable(&self) -> Result<bool, StoreError> {
        match &self.cache.how {
            How::Off => Ok(false),
            How::Feed(running) => Ok(running.load(Ordering::SeqCst)),
            How::Version(seen) => {
                let now = self.store.keys_version().await?;
                let moved = seen.lock().map(|mut seen| seen.replace(now) != Some(now));
                if moved.unwrap_or(true) {
                    self.cache.drop_all();
                }
                Ok(true)
            }
        }
    }
}

/// The audit record is the store's; a refused key is recorded there at
/// most once a [`KEY_USE_RESOLUTION`] per key and host.
#[async_trait]
impl AuditStore for Cached<'_> {
    async fn list_audit(&self, filter: &AuditFilter) -> Result<Vec<AuditEntry>, StoreError> {
        self.store.list_audit(filter).await
    }

    async fn record_refusal(
        &self,
        user: &UserId,
        code: &str,
        actor: &Actor,
    ) -> Result<(), StoreError> {
        let now = UnixTime::now();
        let fresh = self.cache.refused.lock().map(|mut refused| {
            let key = actor.key_id().unwrap_or_default().to_owned();
            let recent = refused
                .get(&key)
                .is_some_and(|at| now.0.saturating_sub(at.0) < KEY_USE_RESOLUTION.as_secs());
            if !recent {
                if refused.len() >= MOST_KEPT {
                    refused.clear();
                }
                refused.insert(key, now);
            }
            !recent
        });
        if fresh.unwrap_or(true) {
            self.store.record_refusal(user, code, actor).await?;
        }
        Ok(())
    }
}

#[async_trait]
impl ApiKeyStore for Cached<'_> {
    async fn insert_api_key(
        &self,
        key: &ApiKeyRecord,
        step: AuditStep,
        actor: &Actor,
    ) -> Result<bool, StoreError> {
        self.store.insert_api_key(key, step, actor).await
    }

    async fn find_api_key(&self, hash: &KeyHash) -> Result<Option<ApiKeyRecord>, StoreError> {
        if !self.usable().await? {
            return self.store.find_api_key(hash).await;
        }
        if let Some(kept) = self
            .cache
            .kept
            .lock()
            .ok()
            .and_then(|kept| kept.get(hash).cloned())
        {
            return Ok(Some(kept));
        }
        let drops = self.cache.drops.load(Ordering::SeqCst);
        let found = self.store.find_api_key(hash).await?;
        if let Some(record) = &found
            && let Ok(mut kept) = self.cache.kept.lock()
            // A change between the lookup and now may have made what was
            // found stale: not kept.
            && self.cache.drops.load(Ordering::SeqCst) == drops
        {
            if kept.len() >= MOST_KEPT {
                kept.clear();
            }
            kept.insert(*hash, record.clone());
        }
        Ok(found)
    }

    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
        self.store.list_api_keys().await
    }

    /// Revoked in the store, and every kept key dropped at once: the
    /// store's own signal may reach this host a moment later.
    async fn revoke_api_key(
        &self,
        id: &str,
        step: AuditStep,
        actor: &Actor,
    ) -> Result<Revocation, StoreError> {
        let revoked = self.store.revoke_api_key(id, step, actor).await;
        self.cache.drop_all();
        revoked
    }

    /// As a key's revoke: every kept key dropped at once.
    async fn revoke_grant(&self, grant: &str, actor: &Actor) -> Result<u64, StoreError> {
        let revoked = self.store.revoke_grant(grant, actor).await;
        self.cache.drop_all();
        revoked
    }

    async fn record_api_key_use(&self, id: &str, at: UnixTime) -> Result<(), StoreError> {
        self.store.record_api_key_use(id, at).await?;
        // The kept key learns its use too, or it would be recorded again
        // on every request.
        if let Ok(mut kept) = self.cache.kept.lock()
            && let Some(record) = kept.values_mut().find(|record| record.id == id)
        {
            record.last_used_at = record.last_used_at.max(Some(at));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use index_negotiation_store::{KeyScope, MemoryStore};

    use super::*;

    fn record(n: u8) -> ApiKeyRecord {
        ApiKeyRecord::new(
            format!("key-{n}"),
            KeyHash([n; 32]),
            "dana".parse().unwrap(),
            KeyScope::Agent,
            UnixTime(1_800_000_000),
        )
    }

    /// Whether `hash` was answered from the kept keys: the store's copy
    /// had its use recorded behind the cache's back (which bumps no
    /// version), so a kept copy still has none.
    async fn kept(cache: &KeyCache, store: &MemoryStore, hash: &KeyHash) -> bool {
        let id = store.find_api_key(hash).await.unwrap().unwrap().id;
        store
            .record_api_key_use(&id, UnixTime::now())
            .await
            .unwrap();
        let found = cache.over(store).find_api_key(hash).await.unwrap().unwrap();
        found.last_used_at.is_none()
    }

    #[tokio::test]
    async fn a_kept_key_holds_until_the_keys_version_moves() {
        let store = MemoryStore::new();
        store
            .insert_api_key(&record(1), AuditStep::KeyCreated, &Actor::operator())
            .await
            .unwrap();
        let (cache, feed) = KeyCache::new(store.key_changes().await.unwrap());
        assert!(feed.is_none());
        assert!(
            cache
                .over(&store)
                .find_api_key(&KeyHash([1; 32]))
                .await
                .unwrap()
                .is_some()
        );
        assert!(
            kept(&cache, &store, &KeyHash([1; 32])).await,
            "answered from the kept keys"
        );
        // Revoked by another process (straight on the store): the next
        // lookup sees it.
        store
            .revoke_api_key("key-1", AuditStep::KeyRevoked, &Actor::operator())
            .await
            .unwrap();
        let found = cache
            .over(&store)
            .find_api_key(&KeyHash([1; 32]))
            .await
            .unwrap();
        assert!(found.unwrap().revoked);
        assert_eq!(
            cache
                .over(&store)
                .find_api_key(&KeyHash([9; 32]))
                .await
                .unwrap(),
            None
        );
        store
            .insert_api_key(&record(9), AuditStep::KeyCreated, &Actor::operator())
            .await
            .unwrap();
        assert!(
            cache
                .over(&store)
                .find_api_key(&KeyHash([9; 32]))
                .await
                .unwrap()
                .is_some(),
            "a miss is never kept"
        );
    }

    #[tokio::test]
    async fn a_feed_drops_the_kept_keys_and_a_closed_one_stops_the_keeping() {
        let store = MemoryStore::new();
        store
            .insert_api_key(&record(1), AuditStep::KeyCreated, &Actor::operator())
            .await
            .unwrap();
        let (tell, feed) = tokio::sync::mpsc::channel(1);
        let (cache, feed) = KeyCache::new(KeyChanges::Feed(feed));
        let cache = std::sync::Arc::new(cache);
        KeyCache::watch(
            std::sync::Arc::downgrade(&cache),
            feed.unwrap(),
            tokio_util::sync::CancellationToken::new(),
        );
        let hash = KeyHash([1; 32]);
        cache.over(&store).find_api_key(&hash).await.unwrap();
        assert!(kept(&cache, &store, &hash).await);
        tell.send(()).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(
            !kept(&cache, &store, &hash).await,
            "dropped on the feed's word"
        );
        cache.over(&store).find_api_key(&hash).await.unwrap();
        drop(tell);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(
            !kept(&cache, &store, &hash).await,
            "a closed feed keeps nothing"
        );
        assert!(!kept(&cache, &store, &hash).await);
    }

    #[tokio::test]
    async fn a_watch_ends_with_its_host_though_the_feed_stays_silent() {
        let (tell, feed) = tokio::sync::mpsc::channel(1);
        let (cache, feed) = KeyCache::new(KeyChanges::Feed(feed));
        let cache = std::sync::Arc::new(cache);
        let gone = tokio_util::sync::CancellationToken::new();
        KeyCache::watch(
            std::sync::Arc::downgrade(&cache),
            feed.unwrap(),
            gone.clone(),
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        assert!(
            !tell.is_closed(),
            "the watch holds the feed while the host lives"
        );
        drop(gone.drop_guard());
        tokio::time::timeout(std::time::Duration::from_secs(5), tell.closed())
            .await
            .expect("the watch let go of the feed once its host was gone");
    }

    #[tokio::test]
    async fn a_revoke_through_the_cache_drops_the_kept_keys_at_once() {
        let store = MemoryStore::new();
        store
            .insert_api_key(&record(1), AuditStep::KeyCreated, &Actor::operator())
            .await
            .unwrap();
        // A feed that never speaks: only the revoke itself can drop.
        let (_tell, feed) = tokio::sync::mpsc::channel(1);
        let (cache, _) = KeyCache::new(KeyChanges::Feed(feed));
        let hash = KeyHash([1; 32]);
        cache.over(&store).find_api_key(&hash).await.unwrap();
        cache
            .over(&store)
            .revoke_api_key("key-1", AuditStep::KeyRevoked, &Actor::operator())
            .await
            .unwrap();
        assert!(
            cache
                .over(&store)
                .find_api_key(&hash)
                .await
                .unwrap()
                .unwrap()
                .revoked
        );
    }
}
