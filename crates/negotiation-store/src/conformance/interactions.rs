//! The interactions a host provides: stored once per person, listed in
//! pages, bounded, changed only from the version read, and response
//! commands decided inside one commit with one winner.

use std::sync::Arc;

use crate::{
    ACKNOWLEDGEMENTS_KEPT, Actor, AuditFilter, AuditStep, AuditStore, InteractionCursor,
    InteractionFilter, InteractionInsert, InteractionRecord, InteractionStatus, InteractionStore,
    ResponseKey, ResponseScene, ResponseWrite,
};

use super::fixtures::{ALICE, BOB, actor, user};

/// Who asks the interactions here: an agent's key.
fn asking() -> Actor {
    actor("agent")
}

fn interaction(owner: &str, n: u64, run: &str) -> InteractionRecord {
    InteractionRecord {
        owner: user(owner),
        id: format!("q-{n}"),
        run_id: run.to_owned(),
        environment_id: "env-1".to_owned(),
        session_id: "s-1".to_owned(),
        status: InteractionStatus::Pending,
        created_at_ms: 1_800_000_000_000 + n,
        version: 0,
        body: format!("{{\"n\":{n}}}"),
    }
}

fn key(operation: &str, run: &str, session: &str, id: &str) -> ResponseKey {
    ResponseKey {
        operation_id: operation.to_owned(),
        run_id: run.to_owned(),
        environment_id: "env-1".to_owned(),
        session_id: session.to_owned(),
        interaction_id: id.to_owned(),
    }
}

fn all(limit: usize) -> InteractionFilter {
    InteractionFilter {
        status: None,
        after: None,
        limit,
    }
}

/// What a command bound to `key` from `owner` is decided against, read
/// by a decider that writes nothing.
async fn look<S: InteractionStore>(store: &S, owner: &str, key: ResponseKey) -> ResponseScene {
    let (seen, saw) = std::sync::mpsc::channel();
    let acknowledgement = store
        .commit_interaction_response(
            &user(owner),
            &key,
            &Actor::operator(),
            Box::new(move |scene: ResponseScene| {
                seen.send(scene).unwrap();
                ResponseWrite {
                    acknowledgement: "{\"looked\":true}".to_owned(),
                    record: false,
                    interaction: None,
                    resolves: false,
                }
            }),
        )
        .await
        .unwrap();
    assert_eq!(
        acknowledgement, "{\"looked\":true}",
        "handed back as written"
    );
    saw.recv().unwrap()
}

/// An interaction is stored once per person (the same id again is handed
/// back, unchanged), another person's may share its id, and a person's
/// are listed oldest first, by status, in pages that neither repeat nor
/// skip.
pub async fn interactions_are_stored_once_per_person_and_listed_in_pages<S: InteractionStore>(
    store: S,
) {
    for n in [3, 1, 2] {
        let stored = store
            .insert_interaction(&interaction(ALICE, n, "run-1"), 16, &asking())
            .await
            .unwrap();
        assert_eq!(stored, InteractionInsert::Inserted);
    }
    let mut again = interaction(ALICE, 1, "run-2");
    again.body = "{\"other\":true}".to_owned();
    assert_eq!(
        store
            .insert_interaction(&again, 16, &asking())
            .await
            .unwrap(),
        InteractionInsert::Exists(interaction(ALICE, 1, "run-1")),
        "the id is taken: the stored one comes back, unchanged"
    );
    assert_eq!(
        store
            .insert_interaction(&interaction(BOB, 1, "run-1"), 16, &asking())
            .await
            .unwrap(),
        InteractionInsert::Inserted,
        "ids are per person"
    );
    assert_eq!(
        store.find_interaction(&user(ALICE), "q-1").await.unwrap(),
        Some(interaction(ALICE, 1, "run-1"))
    );
    assert_eq!(
        store.find_interaction(&user(ALICE), "q-9").await.unwrap(),
        None
    );

    let mut resolved = interaction(ALICE, 2, "run-1");
    resolved.status = InteractionStatus::Resolved;
    assert!(store.replace_interaction(&resolved).await.unwrap());

    let ids = |page: &[InteractionRecord]| page.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    let first = store
        .list_interactions(&user(ALICE), &all(2))
        .await
        .unwrap();
    assert_eq!(ids(&first), ["q-1", "q-2"]);
    let last = first.last().unwrap();
    let rest = InteractionFilter {
        after: Some(InteractionCursor {
            created_at_ms: last.created_at_ms,
            id: last.id.clone(),
        }),
        ..all(2)
    };
    assert_eq!(
        ids(&store.list_interactions(&user(ALICE), &rest).await.unwrap()),
        ["q-3"]
    );
    let pending = InteractionFilter {
        status: Some(InteractionStatus::Pending),
        ..all(10)
    };
    assert_eq!(
        ids(&store
            .list_interactions(&user(ALICE), &pending)
            .await
            .unwrap()),
        ["q-1", "q-3"]
    );
    let resolved_only = InteractionFilter {
        status: Some(InteractionStatus::Resolved),
        ..all(10)
    };
    let listed = store
        .list_interactions(&user(ALICE), &resolved_only)
        .await
        .unwrap();
    assert_eq!(ids(&listed), ["q-2"]);
    assert_eq!(listed[0].version, 1, "a replacement bumps the version");
    assert_eq!(
        ids(&store.list_interactions(&user(BOB), &all(10)).await.unwrap()),
        ["q-1"]
    );
}

/// A person holds at most so many interactions: past it, their oldest
/// settled one makes room, and when all are pending nothing is stored.
pub async fn a_person_holds_a_bounded_number_of_pending_interactions<S: InteractionStore>(
    store: S,
) {
    for n in 0..3 {
        let stored = store
            .insert_interaction(&interaction(ALICE, n, "run-1"), 3, &asking())
            .await
            .unwrap();
        assert_eq!(stored, InteractionInsert::Inserted);
    }
    assert_eq!(
        store
            .insert_interaction(&interaction(ALICE, 3, "run-1"), 3, &asking())
            .await
            .unwrap(),
        InteractionInsert::Full
    );
    assert_eq!(
        store
            .insert_interaction(&interaction(BOB, 3, "run-1"), 3, &asking())
            .await
            .unwrap(),
        InteractionInsert::Inserted,
        "the bound is per person"
    );
    for n in [2, 1] {
        let mut settled = interaction(ALICE, n, "run-1");
        settled.status = InteractionStatus::Cancelled;
        assert!(store.replace_interaction(&settled).await.unwrap());
    }
    assert_eq!(
        store
            .insert_interaction(&interaction(ALICE, 3, "run-1"), 3, &asking())
            .await
            .unwrap(),
        InteractionInsert::Inserted
    );
    assert_eq!(
        store.find_interaction(&user(ALICE), "q-1").await.unwrap(),
        None,
        "the oldest settled one made room"
    );
    assert!(
        store
            .find_interaction(&user(ALICE), "q-0")
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        store
            .find_interaction(&user(ALICE), "q-2")
            .await
            .unwrap()
            .is_some()
    );
}

/// A replacement made from an older read changes nothing; where and when
/// an interaction was asked never change.
pub async fn an_interaction_changes_only_from_the_version_read<S: InteractionStore>(store: S) {
    let asked = interaction(ALICE, 1, "run-1");
    store
        .insert_interaction(&asked, 16, &asking())
        .await
        .unwrap();
    let mut cancelled = asked.clone();
    cancelled.status = InteractionStatus::Cancelled;
    cancelled.run_id = "run-elsewhere".to_owned();
    cancelled.created_at_ms = 7;
    cancelled.body = "{\"cancelled\":true}".to_owned();
    assert!(store.replace_interaction(&cancelled).await.unwrap());
    let mut stale = asked.clone();
    stale.status = InteractionStatus::Resolved;
    assert!(!store.replace_interaction(&stale).await.unwrap());
    let mut strangers = cancelled.clone();
    strangers.owner = user(BOB);
    strangers.version = 1;
    assert!(!store.replace_interaction(&strangers).await.unwrap());
    let found = store
        .find_interaction(&user(ALICE), "q-1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.status, InteractionStatus::Cancelled);
    assert_eq!(found.body, "{\"cancelled\":true}");
    assert_eq!(found.version, 1);
    assert_eq!(
        (found.run_id.as_str(), found.created_at_ms),
        ("run-1", asked.created_at_ms)
    );
}

/// A response command's decider sees exactly what the store knows of
/// where the command is bound (the person's own interactions only), and
/// what it writes is applied: the acknowledgement recorded under the
/// operation id, and handed back as recorded on a replay; the interaction
/// replaced.
pub async fn a_response_is_decided_against_its_scene_and_recorded<
    S: InteractionStore + AuditStore,
>(
    store: S,
) {
    store
        .insert_interaction(&interaction(ALICE, 1, "run-1"), 16, &asking())
        .await
        .unwrap();
    store
        .insert_interaction(&interaction(BOB, 2, "run-9"), 16, &asking())
        .await
        .unwrap();
    let unknown_run = look(&store, ALICE, key("op-0", "run-9", "s-1", "q-2")).await;
    assert_eq!(
        (
            unknown_run.run_known,
            unknown_run.session_known,
            unknown_run.interaction
        ),
        (false, false, None),
        "another person's run is unknown"
    );
    let other_session = look(&store, ALICE, key("op-0", "run-1", "s-2", "q-1")).await;
    assert_eq!(
        (
            other_session.run_known,
            other_session.session_known,
            other_session.interaction
        ),
        (true, false, None)
    );
    let other_id = look(&store, ALICE, key("op-0", "run-1", "s-1", "q-7")).await;
    assert_eq!(
        (
            other_id.run_known,
            other_id.session_known,
            other_id.interaction
        ),
        (true, true, None)
    );
    let found = look(&store, ALICE, key("op-0", "run-1", "s-1", "q-1")).await;
    assert_eq!(found.interaction, Some(interaction(ALICE, 1, "run-1")));
    assert_eq!(found.replay, None, "nothing recorded yet");

    // Accepted: recorded, and the interaction resolved.
    let mut resolved = interaction(ALICE, 1, "run-1");
    resolved.status = InteractionStatus::Resolved;
    resolved.body = "{\"answered\":true}".to_owned();
    let recorded = "{ \"status\": \"accepted\",  \"as\": \"recorded\" }";
    let write = ResponseWrite {
        acknowledgement: recorded.to_owned(),
        record: true,
        interaction: Some(resolved.clone()),
        resolves: true,
    };
    let acknowledgement = store
        .commit_interaction_response(
            &user(ALICE),
            &key("op-1", "run-1", "s-1", "q-1"),
            &actor(ALICE),
            Box::new(move |_| write),
        )
        .await
        .unwrap();
    assert_eq!(acknowledgement, recorded);
    let now = store
        .find_interaction(&user(ALICE), "q-1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (now.status, now.body.as_str(), now.version),
        (InteractionStatus::Resolved, "{\"answered\":true}", 1)
    );
    let replay = look(&store, ALICE, key("op-1", "run-1", "s-1", "q-1")).await;
    assert_eq!(replay.replay.as_deref(), Some(recorded), "byte for byte");
    assert_eq!(replay.interaction, Some(now));
    let strangers = look(&store, BOB, key("op-1", "run-9", "s-1", "q-2")).await;
    assert_eq!(strangers.replay, None, "operation ids are per person");
    // A change the command only noticed (its time ran out) is not the
    // person's doing.
    let mut expired = interaction(BOB, 2, "run-9");
    expired.status = InteractionStatus::Expired;
    let write = ResponseWrite {
        acknowledgement: "{\"status\":\"expired\"}".to_owned(),
        record: true,
        interaction: Some(expired),
        resolves: false,
    };
    store
        .commit_interaction_response(
            &user(BOB),
            &key("op-2", "run-9", "s-1", "q-2"),
            &actor(BOB),
            Box::new(move |_| write),
        )
        .await
        .unwrap();
    // The two asks and the resolution alone are on the audit record: the
    // commits that changed no interaction (the looks, the replay) are not,
    // nor the one that only noticed a timeout.
    let audited: Vec<_> = store
        .list_audit(&AuditFilter::default())
        .await
        .unwrap()
        .into_iter()
        .map(|entry| (entry.step, entry.user, entry.detail, entry.actor))
        .collect();
    let entry = |step, who: &str, id: &str, by| (step, Some(user(who)), Some(id.to_owned()), by);
    assert_eq!(
        audited,
        vec![
            entry(AuditStep::InteractionRequested, ALICE, "q-1", asking()),
            entry(AuditStep::InteractionRequested, BOB, "q-2", asking()),
            entry(AuditStep::InteractionResolved, ALICE, "q-1", actor(ALICE)),
        ]
    );
}

/// Every person's newest acknowledgements are kept, at least
/// [`ACKNOWLEDGEMENTS_KEPT`] of them; past that, the oldest go first.
pub async fn the_newest_acknowledgements_are_kept<S: InteractionStore>(store: S) {
    let key = |n: usize| key(&format!("op-{n}"), "run-1", "s-1", "q-1");
    for n in 0..=ACKNOWLEDGEMENTS_KEPT {
        store
            .commit_interaction_response(
                &user(ALICE),
                &key(n),
                &Actor::operator(),
                Box::new(move |_| ResponseWrite {
                    acknowledgement: format!("{{\"n\":{n}}}"),
                    record: true,
                    interaction: None,
                    resolves: false,
                }),
            )
            .await
            .unwrap();
    }
    let replay = |n: usize| {
        let store = &store;
        async move { look(store, ALICE, key(n)).await.replay }
    };
    assert_eq!(replay(0).await, None, "the oldest is forgotten");
    assert_eq!(replay(1).await.as_deref(), Some("{\"n\":1}"));
    assert_eq!(
        replay(ACKNOWLEDGEMENTS_KEPT).await,
        Some(format!("{{\"n\":{ACKNOWLEDGEMENTS_KEPT}}}"))
    );
}

/// Sixteen commands racing on one interaction, each resolving it if it
/// still waits: exactly one does; each is recorded once.
pub async fn racing_responses_have_one_winner<S: InteractionStore + 'static>(store: S) {
    let store = Arc::new(store);
    store
        .insert_interaction(&interaction(ALICE, 1, "run-1"), 16, &asking())
        .await
        .unwrap();
    let racers = (0..16).map(|n| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            store
                .commit_interaction_response(
                    &user(ALICE),
                    &key(&format!("op-{n}"), "run-1", "s-1", "q-1"),
                    &Actor::operator(),
                    Box::new(move |scene: ResponseScene| {
                        let asked = scene.interaction.unwrap();
                        let wins = asked.status == InteractionStatus::Pending;
                        ResponseWrite {
                            acknowledgement: if wins { "accepted" } else { "already_resolved" }
                                .to_owned(),
                            record: true,
                            interaction: wins.then(|| InteractionRecord {
                                status: InteractionStatus::Resolved,
                                body: format!("{{\"by\":{n}}}"),
                                ..asked
                            }),
                            resolves: wins,
                        }
                    }),
                )
                .await
                .unwrap()
        })
    });
    let mut acknowledgements = Vec::new();
    for racer in racers.collect::<Vec<_>>() {
        acknowledgements.push(racer.await.unwrap());
    }
    let winners = acknowledgements.iter().filter(|a| *a == "accepted").count();
    eprintln!("16 racing responses: {winners} accepted");
    assert_eq!(winners, 1);
    let resolved = store
        .find_interaction(&user(ALICE), "q-1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (resolved.status, resolved.version),
        (InteractionStatus::Resolved, 1)
    );
    for (n, acknowledgement) in acknowledgements.iter().enumerate() {
        let key = key(&format!("op-{n}"), "run-1", "s-1", "q-1");
        let seen = look(&*store, ALICE, key).await;
        assert_eq!(seen.replay.as_ref(), Some(acknowledgement), "each recorded");
    }
}
