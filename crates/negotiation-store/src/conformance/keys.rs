//! The API keys every backend keeps beside its negotiations.

use crate::{
    ApiKeyRecord, ApiKeyStore, AuditStep, KeyHash, KeyKind, KeyScope, NegotiationStore, Revocation,
    UnixTime,
};

use super::fixtures::{ALICE, BOB, host, user};

/// Keys are stored once, found by their hash, listed oldest first, and
/// revoked in place (a revoked key is still found, marked revoked).
pub async fn api_keys_are_found_by_hash_listed_and_revoked<S: NegotiationStore + ApiKeyStore>(
    store: S,
) {
    let key = |n: u8, scope: KeyScope| {
        ApiKeyRecord::new(
            format!("key-{n}"),
            KeyHash([n; 32]),
            user(if n.is_multiple_of(2) { ALICE } else { BOB }),
            scope,
            UnixTime(1_700_000_000 + u64::from(n)),
        )
    };
    assert!(
        store
            .insert_api_key(&key(1, KeyScope::Agent), AuditStep::KeyCreated, &host())
            .await
            .unwrap()
    );
    assert!(
        store
            .insert_api_key(&key(2, KeyScope::Host), AuditStep::KeyCreated, &host())
            .await
            .unwrap()
    );
    let mut same_id = key(3, KeyScope::Agent);
    same_id.id = "key-1".to_owned();
    assert!(
        !store
            .insert_api_key(&same_id, AuditStep::KeyCreated, &host())
            .await
            .unwrap(),
        "an id is taken once"
    );
    let mut same_hash = key(1, KeyScope::Agent);
    same_hash.id = "key-9".to_owned();
    assert!(
        !store
            .insert_api_key(&same_hash, AuditStep::KeyCreated, &host())
            .await
            .unwrap(),
        "a hash is taken once"
    );

    assert_eq!(
        store.find_api_key(&KeyHash([2; 32])).await.unwrap(),
        Some(key(2, KeyScope::Host))
    );
    assert_eq!(store.find_api_key(&KeyHash([7; 32])).await.unwrap(), None);
    assert_eq!(
        store.list_api_keys().await.unwrap(),
        [key(1, KeyScope::Agent), key(2, KeyScope::Host)]
    );
    assert_eq!(
        store
            .revoke_api_key("key-1", AuditStep::KeyRevoked, &host())
            .await
            .unwrap(),
        Revocation::Revoked
    );
    assert_eq!(
        store
            .revoke_api_key("key-1", AuditStep::KeyRevoked, &host())
            .await
            .unwrap(),
        Revocation::AlreadyRevoked
    );
    assert_eq!(
        store
            .revoke_api_key("key-404", AuditStep::KeyRevoked, &host())
            .await
            .unwrap(),
        Revocation::NoSuchKey
    );
    let revoked = store
        .find_api_key(&KeyHash([1; 32]))
        .await
        .unwrap()
        .unwrap();
    assert!(revoked.revoked);
    assert_eq!(revoked.user_id, user(BOB));
}

/// Of revokes racing on one key, exactly one revokes it: a key meant for
/// one use is used once, however many present it at the same moment.
pub async fn racing_revokes_have_one_winner<S: NegotiationStore + ApiKeyStore + 'static>(store: S) {
    let store = std::sync::Arc::new(store);
    for n in 0..8u8 {
        let key = ApiKeyRecord::new(
            format!("once-{n}"),
            KeyHash([100 + n; 32]),
            user(ALICE),
            KeyScope::Agent,
            UnixTime(1_700_000_000),
        );
        assert!(
            store
                .insert_api_key(&key, AuditStep::KeyCreated, &host())
                .await
                .unwrap()
        );
        let racers: Vec<_> = (0..8)
            .map(|_| {
                let (store, id) = (store.clone(), key.id.clone());
                tokio::spawn(async move {
                    store
                        .revoke_api_key(&id, AuditStep::KeyRevoked, &host())
                        .await
                        .unwrap()
                })
            })
            .collect();
        let mut revoked = 0;
        for racer in racers {
            match racer.await.unwrap() {
                Revocation::Revoked => revoked += 1,
                Revocation::AlreadyRevoked => {}
                Revocation::NoSuchKey => panic!("the key is there"),
            }
        }
        assert_eq!(revoked, 1, "key {n}: one revoke wins");
    }
}

/// The tokens of one OAuth grant are revoked together, and no other key:
/// a revoke of one key takes only that key (a refresh token spent as it
/// rotates), and a revoke of the grant takes every token it holds, spent
/// or not. Kind, grant and client are kept as given.
pub async fn a_grant_is_revoked_whole<S: NegotiationStore + ApiKeyStore>(store: S) {
    let key = |n: u8, kind: KeyKind, grant: Option<&str>| {
        let mut key = ApiKeyRecord::new(
            format!("grant-key-{n}"),
            KeyHash([200 + n; 32]),
            user(ALICE),
            KeyScope::Agent,
            UnixTime(1_700_000_000),
        );
        key.kind = kind;
        key.grant = grant.map(str::to_owned);
        key.client = grant.map(|_| "https://client.example/metadata.json".to_owned());
        key
    };
    let keys = [
        key(1, KeyKind::OAuthRefresh, Some("grant-a")),
        key(2, KeyKind::OAuth, Some("grant-a")),
        key(3, KeyKind::OAuthRefresh, Some("grant-a")),
        key(4, KeyKind::OAuth, Some("grant-b")),
        key(5, KeyKind::Api, None),
    ];
    for key in &keys {
        assert!(
            store
                .insert_api_key(key, AuditStep::KeyCreated, &host())
                .await
                .unwrap()
        );
    }
    assert_eq!(
        store.find_api_key(&KeyHash([201; 32])).await.unwrap(),
        Some(keys[0].clone()),
        "kind, grant and client are kept"
    );
    let revoked = |n: u8| {
        let store = &store;
        async move {
            store
                .find_api_key(&KeyHash([200 + n; 32]))
                .await
                .unwrap()
                .unwrap()
                .revoked
        }
    };
    assert_eq!(
        store
            .revoke_api_key("grant-key-1", AuditStep::KeyRevoked, &host())
            .await
            .unwrap(),
        Revocation::Revoked
    );
    assert!(!revoked(2).await && !revoked(3).await, "one key alone");
    assert_eq!(store.revoke_grant("grant-a", &host()).await.unwrap(), 2);
    assert!(revoked(2).await && revoked(3).await, "the grant whole");
    assert!(
        !revoked(4).await && !revoked(5).await,
        "no other grant, no API key"
    );
    assert_eq!(store.revoke_grant("grant-a", &host()).await.unwrap(), 0);
    assert_eq!(
        store.revoke_grant("no-such-grant", &host()).await.unwrap(),
        0
    );
}

/// A key's name, making time and expiry are kept as given; its last use is
/// recorded at most once per [`KEY_USE_RESOLUTION`](crate::KEY_USE_RESOLUTION)
/// and never moves back, and a use of a key that does not exist records
/// nothing.
pub async fn api_keys_keep_their_name_expiry_and_last_use<S: NegotiationStore + ApiKeyStore>(
    store: S,
) {
    let made = UnixTime(1_700_000_000);
    let mut key = ApiKeyRecord::new(
        "named",
        KeyHash([5; 32]),
        user(ALICE),
        KeyScope::Agent,
        made,
    );
    key.name = Some("laptop agent — 🙂".to_owned());
    key.expires_at = Some(made.after(std::time::Duration::from_secs(86_400)));
    assert!(
        store
            .insert_api_key(&key, AuditStep::KeyCreated, &host())
            .await
            .unwrap()
    );
    async fn found<S: ApiKeyStore>(store: &S) -> ApiKeyRecord {
        store
            .find_api_key(&KeyHash([5; 32]))
            .await
            .unwrap()
            .unwrap()
    }
    assert_eq!(
        found(&store).await,
        key,
        "every field reads back as written"
    );

    let first = made.after(std::time::Duration::from_secs(10));
    store.record_api_key_use("named", first).await.unwrap();
    assert_eq!(found(&store).await.last_used_at, Some(first));
    store
        .record_api_key_use("named", first.after(std::time::Duration::from_secs(59)))
        .await
        .unwrap();
    assert_eq!(
        found(&store).await.last_used_at,
        Some(first),
        "a use within the minute is not written again"
    );
    store.record_api_key_use("named", made).await.unwrap();
    assert_eq!(
        found(&store).await.last_used_at,
        Some(first),
        "a use never moves back"
    );
    let later = first.after(std::time::Duration::from_secs(60));
    store.record_api_key_use("named", later).await.unwrap();
    assert_eq!(found(&store).await.last_used_at, Some(later));
    store.record_api_key_use("nobody", later).await.unwrap();
    assert_eq!(store.list_api_keys().await.unwrap().len(), 1);
}
