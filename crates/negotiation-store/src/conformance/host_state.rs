//! What hosts share between requests: signing keys, spent tokens, tasks.

use std::sync::Arc;

use crate::{HostStateStore, SigningKey, TaskRecord, UnixTime};

use super::fixtures::{ALICE, BOB, user};

const NOW: UnixTime = UnixTime(1_800_000_000);

fn signing_key(n: u8, created_at: UnixTime) -> SigningKey {
    SigningKey {
        id: format!("key-{n}"),
        secret: [n; 32],
        created_at,
        retires_at: None,
    }
}

fn task(n: u32, owner: &str, started_at: UnixTime) -> TaskRecord {
    TaskRecord {
        id: format!("{n:064x}"),
        owner: user(owner),
        version: 0,
        started_at,
        lease_until: started_at.after(std::time::Duration::from_secs(15)),
        forget_at: None,
        body: format!("{{\"n\":{n}}}"),
    }
}

/// The first host to ask stores its candidate key and every host reads
/// that one; a rotation makes a new key the newest and retires the others
/// after the overlap, and keys retired before it are forgotten.
pub async fn signing_keys_are_shared_and_rotate_with_an_overlap<S: HostStateStore>(store: S) {
    let first = signing_key(1, NOW);
    assert_eq!(
        store.signing_keys(&first, NOW).await.unwrap(),
        vec![first.clone()]
    );
    assert_eq!(
        store.signing_keys(&signing_key(2, NOW), NOW).await.unwrap(),
        vec![first.clone()],
        "a second host reads the first host's key"
    );

    let later = UnixTime(NOW.0 + 100);
    let second = signing_key(3, later);
    let overlap_ends = UnixTime(later.0 + 3_600);
    store
        .rotate_signing_key(&second, overlap_ends)
        .await
        .unwrap();
    let mut first_retiring = first.clone();
    first_retiring.retires_at = Some(overlap_ends);
    assert_eq!(
        store
            .signing_keys(&signing_key(4, later), later)
            .await
            .unwrap(),
        [second.clone(), first_retiring],
        "newest first; the old one checks until the overlap ends"
    );
    assert_eq!(
        store
            .signing_keys(&signing_key(5, overlap_ends), overlap_ends)
            .await
            .unwrap(),
        vec![second.clone()],
        "retired keys are not handed out"
    );

    // A rotation after the first retired forgets it; the second retires.
    let much_later = UnixTime(overlap_ends.0 + 10);
    let third = signing_key(6, much_later);
    store.rotate_signing_key(&third, much_later).await.unwrap();
    assert_eq!(
        store
            .signing_keys(&signing_key(7, much_later), much_later)
            .await
            .unwrap(),
        [third],
        "a rotation with no overlap retires the others at once"
    );
}

/// A token is spent once on the whole store, even by racing spenders.
pub async fn a_token_is_spent_once<S: HostStateStore + 'static>(store: S) {
    let until = UnixTime(NOW.0 + 60);
    assert!(store.spend_token(&[1; 32], until, NOW).await.unwrap());
    assert!(!store.spend_token(&[1; 32], until, NOW).await.unwrap());
    assert!(store.spend_token(&[2; 32], until, NOW).await.unwrap());

    let store = Arc::new(store);
    for n in 10..18u8 {
        let racers: Vec<_> = (0..8)
            .map(|_| {
                let store = store.clone();
                tokio::spawn(async move { store.spend_token(&[n; 32], until, NOW).await.unwrap() })
            })
            .collect();
        let mut spent = 0;
        for racer in racers {
            spent += usize::from(racer.await.unwrap());
        }
        assert_eq!(spent, 1, "token {n}: one spend wins");
    }
    // Still spent while its record is kept.
    assert!(
        !store
            .spend_token(&[1; 32], until, UnixTime(NOW.0 + 59))
            .await
            .unwrap()
    );
}

/// A task is stored once, found by id until it may be forgotten, and
/// changed only from the version last read; of racing changes, one wins.
pub async fn a_task_changes_only_from_the_version_read<S: HostStateStore + 'static>(store: S) {
    let mut first = task(1, ALICE, NOW);
    assert!(store.insert_task(&first, 16, NOW).await.unwrap());
    assert!(
        store.insert_task(&first, 16, NOW).await.is_err(),
        "an id is taken once"
    );
    assert_eq!(
        store.find_task(&first.id, NOW).await.unwrap(),
        Some(first.clone())
    );
    assert_eq!(
        store.find_task(&task(9, ALICE, NOW).id, NOW).await.unwrap(),
        None
    );

    first.body = "{\"asking\":true}".to_owned();
    first.lease_until = UnixTime(NOW.0 + 30);
    assert!(store.replace_task(&first).await.unwrap());
    assert!(
        !store.replace_task(&first).await.unwrap(),
        "a replacement made from a version read before the last change changes nothing"
    );
    let found = store.find_task(&first.id, NOW).await.unwrap().unwrap();
    assert_eq!(found.version, first.version + 1);
    assert_eq!(
        (found.body.as_str(), found.lease_until),
        ("{\"asking\":true}", first.lease_until)
    );

    let store = Arc::new(store);
    let racers: Vec<_> = (0..8)
        .map(|n| {
            let (store, mut change) = (store.clone(), found.clone());
            change.body = format!("{{\"racer\":{n}}}");
            tokio::spawn(async move { store.replace_task(&change).await.unwrap() })
        })
        .collect();
    let mut won = 0;
    for racer in racers {
        won += usize::from(racer.await.unwrap());
    }
    assert_eq!(won, 1, "one of the racing changes wins");

    // Ended, it is found until it may be forgotten, then never again.
    let mut ended = store.find_task(&first.id, NOW).await.unwrap().unwrap();
    ended.forget_at = Some(UnixTime(NOW.0 + 60));
    assert!(store.replace_task(&ended).await.unwrap());
    assert!(
        store
            .find_task(&first.id, UnixTime(NOW.0 + 59))
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(
        store
            .find_task(&first.id, UnixTime(NOW.0 + 60))
            .await
            .unwrap(),
        None
    );
}

/// A person holds a bounded number of tasks: their oldest finished one
/// makes room, and when all of theirs run there is none; another
/// person's share is their own.
pub async fn a_person_holds_a_bounded_number_of_tasks<S: HostStateStore>(store: S) {
    const MOST: usize = 3;
    let at = |n: u64| UnixTime(NOW.0 + n);
    for n in 0..3u32 {
        assert!(
            store
                .insert_task(&task(n, ALICE, at(n.into())), MOST, NOW)
                .await
                .unwrap()
        );
    }
    assert!(
        !store
            .insert_task(&task(10, ALICE, at(10)), MOST, NOW)
            .await
            .unwrap(),
        "all three run: no room"
    );
    assert!(
        store
            .insert_task(&task(20, BOB, at(20)), MOST, NOW)
            .await
            .unwrap(),
        "bob's share is his own"
    );
    // Two end; the older of them makes room, the running oldest stays.
    for n in [2u32, 1] {
        let mut done = store
            .find_task(&task(n, ALICE, NOW).id, NOW)
            .await
            .unwrap()
            .unwrap();
        done.forget_at = Some(at(3_600));
        assert!(store.replace_task(&done).await.unwrap());
    }
    assert!(
        store
            .insert_task(&task(11, ALICE, at(11)), MOST, NOW)
            .await
            .unwrap()
    );
    let found = |n: u32| {
        let store = &store;
        async move {
            store
                .find_task(&task(n, ALICE, NOW).id, NOW)
                .await
                .unwrap()
                .is_some()
        }
    };
    assert!(found(0).await, "the running oldest stays");
    assert!(!found(1).await, "the oldest finished one made room");
    assert!(found(2).await && found(11).await);
}
