//! The audit record: every applied step on record with its actor, in the
//! order the commits applied them; nothing for a refusal; the keys' steps
//! for the keys' people; reads filtered and paged.

use index_negotiation::NegotiationAction::{Accept, Counter, Decline, Propose};

use crate::{
    Actor, ApiKeyRecord, ApiKeyStore, AuditEntry, AuditFilter, AuditStep, AuditStore, CloseReason,
    KeyHash, KeyScope, NegotiationStore, UnixTime,
};

use super::fixtures::{ALICE, BOB, actor, answer, host, id, open, park, resume, stall, turn, user};

/// Every entry, oldest first.
async fn everything<S: AuditStore>(store: &S) -> Vec<AuditEntry> {
    store.list_audit(&AuditFilter::default()).await.unwrap()
}

/// Each entry as `(step, user, detail, actor)`.
fn shown(entries: &[AuditEntry]) -> Vec<(AuditStep, Option<String>, Option<String>, Actor)> {
    entries
        .iter()
        .map(|entry| {
            (
                entry.step,
                entry.user.as_ref().map(ToString::to_string),
                entry.detail.clone(),
                entry.actor.clone(),
            )
        })
        .collect()
}

/// An opening, turns, a park, its answer, a resume and a close each append
/// one entry with the actor that committed it, the seat's person and the
/// detail; the refused ones in between append nothing.
pub async fn each_applied_step_is_audited_with_its_actor<S: NegotiationStore + AuditStore>(
    store: S,
) {
    let before = UnixTime::now();
    let id = open(&store, 1).await;
    assert!(
        !turn(&store, &id, ALICE, Counter).await.is_ok(),
        "nothing to counter"
    );
    stall(&store, &id, ALICE).await;
    assert!(park(&store, &id, ALICE, 3).await.is_ok());
    assert!(!park(&store, &id, BOB, 3).await.is_ok(), "already parked");
    assert!(
        !answer(&store, &id, BOB, "High").await.is_ok(),
        "not bob's park"
    );
    assert!(answer(&store, &id, ALICE, "Low").await.is_ok());
    assert!(turn(&store, &id, ALICE, Propose).await.is_ok());
    assert!(turn(&store, &id, BOB, Decline).await.is_ok());
    assert!(resume(&store, &id, BOB).await.is_ok());
    assert!(
        !resume(&store, &id, ALICE).await.is_ok(),
        "bob holds the turn"
    );
    store
        .close_negotiation(&id, CloseReason::Passed, &host())
        .await
        .unwrap()
        .unwrap();
    let entries = everything(&store).await;
    let seat = |step, who: &str, detail: Option<&str>| {
        (
            step,
            Some(who.to_owned()),
            detail.map(str::to_owned),
            actor(who),
        )
    };
    let stalled = (0..12).map(|n| {
        if n % 2 == 0 {
            seat(AuditStep::Turn, ALICE, Some("propose"))
        } else {
            seat(AuditStep::Turn, BOB, Some("counter"))
        }
    });
    let expected: Vec<_> =
        std::iter::once((AuditStep::Opened, Some(ALICE.to_owned()), None, host()))
            .chain(stalled)
            .chain([
                seat(AuditStep::Parked, ALICE, None),
                seat(AuditStep::Answered, ALICE, None),
                seat(AuditStep::Turn, ALICE, Some("propose")),
                seat(AuditStep::Turn, BOB, Some("decline")),
                seat(AuditStep::Resumed, BOB, None),
                (AuditStep::Closed, None, Some("passed".to_owned()), host()),
            ])
            .collect();
    assert_eq!(shown(&entries), expected);
    assert!(
        entries
            .iter()
            .all(|entry| entry.negotiation.as_ref() == Some(&id)),
        "every entry names its negotiation"
    );
    assert!(
        entries.windows(2).all(|pair| pair[0].seq < pair[1].seq),
        "numbered in the order written"
    );
    let after = UnixTime::now();
    assert!(
        entries
            .iter()
            .all(|entry| (before..=after).contains(&entry.at)),
        "written at the commit's time"
    );
    // A refused opening and a close of nothing append nothing either.
    assert!(!open_again(&store).await);
    let missing = self::id(99);
    assert!(
        store
            .close_negotiation(&missing, CloseReason::Expired, &host())
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(everything(&store).await.len(), entries.len());
}

/// Opens negotiation 1 again: refused, since it exists.
async fn open_again<S: NegotiationStore>(store: &S) -> bool {
    store
        .insert_negotiation(&super::fixtures::request(1), &host())
        .await
        .unwrap()
}

/// A read keeps only the entries every set field matches, oldest first,
/// in pages that continue after the last `seq` read.
pub async fn the_audit_record_is_filtered_and_paged<S: NegotiationStore + AuditStore>(store: S) {
    let first = open(&store, 1).await;
    let second = open(&store, 2).await;
    for id in [&first, &second] {
        assert!(turn(&store, id, ALICE, Propose).await.is_ok());
        assert!(turn(&store, id, BOB, Accept).await.is_ok());
    }
    let read = |filter: AuditFilter| {
        let store = &store;
        async move { store.list_audit(&filter).await.unwrap() }
    };
    let filter = AuditFilter {
        negotiation: Some(second.clone()),
        ..AuditFilter::default()
    };
    let seconds = read(filter).await;
    assert_eq!(seconds.len(), 3, "{seconds:?}");
    assert!(
        seconds
            .iter()
            .all(|entry| entry.negotiation.as_ref() == Some(&second))
    );

    let filter = AuditFilter {
        user: Some(user(BOB)),
        ..AuditFilter::default()
    };
    let bobs = read(filter).await;
    assert_eq!(
        bobs.iter()
            .map(|entry| (entry.negotiation.clone(), entry.detail.clone()))
            .collect::<Vec<_>>(),
        vec![
            (Some(first.clone()), Some("accept".to_owned())),
            (Some(second.clone()), Some("accept".to_owned())),
        ]
    );

    let filter = AuditFilter {
        step: Some(AuditStep::Opened),
        negotiation: Some(first.clone()),
        ..AuditFilter::default()
    };
    assert_eq!(read(filter).await.len(), 1);

    // Pages of two, each after the last one read, cover the record once.
    let all = read(AuditFilter::default()).await;
    assert_eq!(all.len(), 6);
    let mut paged = Vec::new();
    let mut after = None;
    loop {
        let filter = AuditFilter {
            limit: 2,
            after,
            ..AuditFilter::default()
        };
        let page = read(filter).await;
        let Some(last) = page.last() else { break };
        assert!(page.len() <= 2);
        after = Some(last.seq);
        paged.extend(page);
    }
    assert_eq!(paged, all);

    // Time bounds: `since` keeps what is at or after it, `until` what is
    // strictly before it.
    let written = all[0].at;
    let filter = AuditFilter {
        since: Some(UnixTime(written.0 + 3_600)),
        ..AuditFilter::default()
    };
    assert!(read(filter).await.is_empty());
    let filter = AuditFilter {
        until: Some(written),
        ..AuditFilter::default()
    };
    assert!(read(filter).await.iter().all(|entry| entry.at < written));
    let filter = AuditFilter {
        since: Some(UnixTime(0)),
        until: Some(UnixTime(written.0 + 3_600)),
        ..AuditFilter::default()
    };
    assert_eq!(read(filter).await.len(), 6);
    let filter = AuditFilter {
        limit: 0,
        ..AuditFilter::default()
    };
    assert!(read(filter).await.is_empty(), "a page of none holds none");
}

/// A key made, revoked, or revoked with its grant appends one entry per
/// key changed, for the key's person and with its id; a change that does
/// not happen (a taken id, a second revoke) appends nothing; and a refused
/// request is appended on its own.
pub async fn key_steps_are_audited_for_the_keys_person<S: ApiKeyStore + AuditStore>(store: S) {
    let key = |n: u8, who: &str, grant: Option<&str>| {
        let mut key = ApiKeyRecord::new(
            format!("audit-key-{n}"),
            KeyHash([n; 32]),
            user(who),
            KeyScope::Agent,
            UnixTime(1_700_000_000),
        );
        key.grant = grant.map(str::to_owned);
        key
    };
    let dana = actor("dana");
    for (n, grant) in [(1, None), (2, Some("grant-a")), (3, Some("grant-a"))] {
        let made = key(n, ALICE, grant);
        assert!(
            store
                .insert_api_key(&made, AuditStep::KeyCreated, &host())
                .await
                .unwrap()
        );
    }
    let taken = key(1, BOB, None);
    assert!(
        !store
            .insert_api_key(&taken, AuditStep::KeyCreated, &host())
            .await
            .unwrap()
    );
    let session = key(4, BOB, None);
    assert!(
        store
            .insert_api_key(&session, AuditStep::SignedIn, &dana)
            .await
            .unwrap()
    );
    for _ in 0..2 {
        store
            .revoke_api_key("audit-key-1", AuditStep::KeyRevoked, &host())
            .await
            .unwrap();
    }
    store
        .revoke_api_key("audit-key-4", AuditStep::SignedOut, &dana)
        .await
        .unwrap();
    assert_eq!(store.revoke_grant("grant-a", &dana).await.unwrap(), 2);
    assert_eq!(store.revoke_grant("grant-a", &dana).await.unwrap(), 0);
    store
        .record_refusal(&user(ALICE), "key_revoked", &dana)
        .await
        .unwrap();
    let shown: Vec<_> = everything(&store)
        .await
        .into_iter()
        .map(|entry| {
            assert_eq!(entry.negotiation, None, "a key's step names no negotiation");
            (
                entry.step,
                entry.user.map(|user| user.to_string()),
                entry.detail,
                entry.actor,
            )
        })
        .collect();
    let entry = |step, who: &str, detail: &str, actor: &Actor| {
        (
            step,
            Some(who.to_owned()),
            Some(detail.to_owned()),
            actor.clone(),
        )
    };
    let mut grant = vec![
        entry(AuditStep::KeyRevoked, ALICE, "audit-key-2", &dana),
        entry(AuditStep::KeyRevoked, ALICE, "audit-key-3", &dana),
    ];
    let mut found_grant: Vec<_> = shown[6..8].to_vec();
    found_grant.sort_by(|a, b| a.2.cmp(&b.2));
    grant.sort_by(|a, b| a.2.cmp(&b.2));
    assert_eq!(found_grant, grant, "one entry for each of the grant's keys");
    assert_eq!(
        [&shown[..6], &shown[8..]].concat(),
        vec![
            entry(AuditStep::KeyCreated, ALICE, "audit-key-1", &host()),
            entry(AuditStep::KeyCreated, ALICE, "audit-key-2", &host()),
            entry(AuditStep::KeyCreated, ALICE, "audit-key-3", &host()),
            entry(AuditStep::SignedIn, BOB, "audit-key-4", &dana),
            entry(AuditStep::KeyRevoked, ALICE, "audit-key-1", &host()),
            entry(AuditStep::SignedOut, BOB, "audit-key-4", &dana),
            entry(AuditStep::Refused, ALICE, "key_revoked", &dana),
        ]
    );
}
