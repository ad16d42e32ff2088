//! Webhooks: each applied step queues its event, in its commit, for the
//! endpoints that want it and may hear of it; deliveries go out one at a
//! time per endpoint and negotiation, leased, retried, given up (which
//! disables the endpoint) and replayed; endpoints are registered, rotated
//! and removed.

use std::time::Duration;

use index_negotiation::NegotiationAction::{Accept, Decline, Propose};

use crate::{
    CloseReason, Delivery, DeliveryOutcome, EventFilter, EventType, NegotiationStore, ReplayRange,
    UnixTime, WebhookEndpoint, WebhookSecret, WebhookStore,
};

use super::fixtures::{ALICE, BOB, answer, host, open, park, resume, stall, turn, user};

const LEASE: Duration = Duration::from_secs(30);

/// An endpoint `id` for `who` (or the host's, for `None`) wanting `events`.
fn endpoint(id: &str, who: Option<&str>, events: EventFilter) -> WebhookEndpoint {
    WebhookEndpoint {
        id: id.to_owned(),
        user: who.map(user),
        url: format!("https://hooks.example/{id}"),
        events,
        secret: WebhookSecret::new(format!("whsec_{id}")),
        previous_secret: None,
        created_at: UnixTime::now(),
        disabled: None,
    }
}

async fn register<S: WebhookStore>(store: &S, endpoint: WebhookEndpoint) {
    assert!(store.insert_webhook(&endpoint).await.unwrap());
}

/// Claims and delivers until nothing is due at `now`, as `(endpoint,
/// delivery)` in the order claimed.
async fn drain<S: WebhookStore>(store: &S, now: UnixTime) -> Vec<Delivery> {
    let mut all = Vec::new();
    loop {
        let claimed = store.claim_deliveries(now, LEASE, 100).await.unwrap();
        if claimed.is_empty() {
            return all;
        }
        for delivery in claimed {
            store
                .finish_delivery(delivery.seq, now, &DeliveryOutcome::Delivered)
                .await
                .unwrap();
            all.push(delivery);
        }
    }
}

fn kinds_for(deliveries: &[Delivery], endpoint: &str) -> Vec<EventType> {
    deliveries
        .iter()
        .filter(|delivery| delivery.endpoint.id == endpoint)
        .map(|delivery| delivery.kind)
        .collect()
}

/// A whole negotiation reaches the host's endpoint and each seat's person's
/// in the order of its steps, each type as its step left the negotiation;
/// a park reaches only its own person's; a stranger's endpoint and one
/// that wants other types hear nothing; every endpoint hears an event
/// under the same id.
pub async fn events_reach_the_endpoints_that_may_hear_them<S: NegotiationStore + WebhookStore>(
    store: S,
) {
    register(&store, endpoint("wh_host", None, EventFilter::All)).await;
    register(&store, endpoint("wh_alice", Some(ALICE), EventFilter::All)).await;
    let parks = EventFilter::only([EventType::Parked]);
    register(&store, endpoint("wh_bob_parks", Some(BOB), parks)).await;
    let turns = EventFilter::only([EventType::TurnTaken, EventType::Settled]);
    register(&store, endpoint("wh_bob_turns", Some(BOB), turns)).await;
    register(
        &store,
        endpoint("wh_carol", Some("carol"), EventFilter::All),
    )
    .await;

    let id = open(&store, 1).await;
    stall(&store, &id, ALICE).await;
    assert!(park(&store, &id, ALICE, 3).await.is_ok());
    assert!(answer(&store, &id, ALICE, "Low").await.is_ok());
    assert!(turn(&store, &id, ALICE, Propose).await.is_ok());
    assert!(turn(&store, &id, BOB, Decline).await.is_ok());
    assert!(resume(&store, &id, BOB).await.is_ok());
    assert!(turn(&store, &id, BOB, Propose).await.is_ok());
    assert!(
        !turn(&store, &id, BOB, Propose).await.is_ok(),
        "not bob's turn"
    );
    assert!(turn(&store, &id, ALICE, Accept).await.is_ok());
    store
        .close_negotiation(&id, CloseReason::Passed, &host())
        .await
        .unwrap()
        .unwrap();

    let delivered = drain(&store, UnixTime::now()).await;
    use EventType::*;
    let whole: Vec<EventType> = [Opened]
        .into_iter()
        .chain([TurnTaken; 11])
        .chain([RoundEnded, Parked, Answered, TurnTaken, RoundEnded])
        .chain([Resumed, TurnTaken, Settled, Closed])
        .collect();
    assert_eq!(kinds_for(&delivered, "wh_host"), whole);
    assert_eq!(kinds_for(&delivered, "wh_alice"), whole);
    assert_eq!(
        kinds_for(&delivered, "wh_bob_parks"),
        [],
        "alice's park is hers"
    );
    let bobs: Vec<EventType> = whole
        .iter()
        .copied()
        .filter(|kind| matches!(kind, TurnTaken | Settled))
        .collect();
    assert_eq!(kinds_for(&delivered, "wh_bob_turns"), bobs);
    assert_eq!(
        kinds_for(&delivered, "wh_carol"),
        [],
        "a stranger hears nothing"
    );

    let ids = |endpoint: &str| -> Vec<&str> {
        delivered
            .iter()
            .filter(|delivery| delivery.endpoint.id == endpoint)
            .map(|delivery| delivery.message_id.as_str())
            .collect()
    };
    assert_eq!(ids("wh_host"), ids("wh_alice"), "one id per event");
    let mut unique = ids("wh_host");
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), whole.len(), "an id per event");

    let body = |kind: EventType| -> serde_json::Value {
        let delivery = delivered
            .iter()
            .find(|delivery| delivery.endpoint.id == "wh_host" && delivery.kind == kind)
            .unwrap();
        serde_json::from_str(&delivery.body).unwrap()
    };
    let parked = body(Parked);
    assert_eq!(parked["type"], "negotiation.parked");
    assert_eq!(parked["data"]["negotiationId"], id.as_str());
    assert_eq!(parked["data"]["user"], ALICE);
    assert_eq!(parked["data"]["question"]["title"], "budget");
    assert_eq!(body(Settled)["data"]["action"], "accept");
    assert_eq!(body(Closed)["data"]["reason"], "passed");
    assert!(body(Opened)["timestamp"].is_string());
    assert!(
        drain(&store, UnixTime::now()).await.is_empty(),
        "each is delivered once"
    );
}

/// A claimed delivery is not claimed again while its lease lasts, and is
/// once it ends, while another negotiation's go on; a retry waits for its
/// time; giving up disables the endpoint, whose events are still queued
/// but sent only once a replay enables it, its range again under the same
/// ids; a finish that comes after another attempt finished changes
/// nothing.
pub async fn deliveries_are_leased_retried_given_up_and_replayed<
    S: NegotiationStore + WebhookStore,
>(
    store: S,
) {
    register(&store, endpoint("wh_ops", None, EventFilter::All)).await;
    let id = open(&store, 1).await;
    assert!(turn(&store, &id, ALICE, Propose).await.is_ok());
    let now = UnixTime::now();
    let at = |seconds: u64| now.after(Duration::from_secs(seconds));
    let claim = |when: UnixTime| store.claim_deliveries(when, LEASE, 10);

    let first = claim(now).await.unwrap();
    assert_eq!(first.len(), 1, "only the head of the negotiation's queue");
    assert_eq!((first[0].kind, first[0].attempts), (EventType::Opened, 0));
    assert!(claim(now).await.unwrap().is_empty(), "leased");
    let other = open(&store, 2).await;
    let beside = claim(now).await.unwrap();
    assert_eq!(beside.len(), 1, "another negotiation's queue goes on");
    assert!(beside[0].body.contains(other.as_str()));
    let delivered = DeliveryOutcome::Delivered;
    store
        .finish_delivery(beside[0].seq, now, &delivered)
        .await
        .unwrap();
    let again = claim(at(31)).await.unwrap();
    assert_eq!(again.len(), 1, "a lapsed lease is claimed again");
    assert_eq!(again[0].message_id, first[0].message_id);

    let retry = DeliveryOutcome::Retry {
        at: at(100),
        error: "HTTP 503".to_owned(),
    };
    store
        .finish_delivery(again[0].seq, at(31), &retry)
        .await
        .unwrap();
    assert!(claim(at(99)).await.unwrap().is_empty(), "waits");
    let retried = claim(at(100)).await.unwrap();
    assert_eq!(
        (retried[0].kind, retried[0].attempts),
        (EventType::Opened, 1)
    );

    let give_up = DeliveryOutcome::GiveUp {
        error: "HTTP 500 for a day".to_owned(),
    };
    store
        .finish_delivery(retried[0].seq, at(100), &give_up)
        .await
        .unwrap();
    // The first claim's attempt, its lease long lapsed, ends only now.
    store
        .finish_delivery(first[0].seq, at(101), &delivered)
        .await
        .unwrap();
    let listed = store.list_webhooks().await.unwrap();
    let disabled = listed[0].disabled.as_ref().expect("disabled");
    assert_eq!(
        (disabled.at, disabled.reason.as_str()),
        (at(100), "HTTP 500 for a day")
    );
    assert!(claim(at(200)).await.unwrap().is_empty(), "disabled");
    assert!(turn(&store, &id, BOB, Accept).await.is_ok());
    assert!(claim(at(200)).await.unwrap().is_empty(), "still disabled");

    let everything = ReplayRange {
        endpoint: "wh_ops".to_owned(),
        since: None,
        until: None,
    };
    let queued = store.replay_deliveries(&everything, at(300)).await.unwrap();
    assert_eq!(
        queued,
        Some(4),
        "both openings, the proposal and the settlement"
    );
    assert!(store.list_webhooks().await.unwrap()[0].disabled.is_none());
    let replayed: Vec<_> = drain(&store, at(300))
        .await
        .into_iter()
        .filter(|delivery| delivery.body.contains(id.as_str()))
        .collect();
    let kinds: Vec<_> = replayed.iter().map(|delivery| delivery.kind).collect();
    assert_eq!(
        kinds,
        [EventType::Opened, EventType::TurnTaken, EventType::Settled],
        "what happened while it was disabled was queued, and is sent once it is enabled"
    );
    assert_eq!(replayed[0].message_id, first[0].message_id);

    let later = ReplayRange {
        since: Some(at(3600)),
        ..everything.clone()
    };
    assert_eq!(
        store.replay_deliveries(&later, at(400)).await.unwrap(),
        Some(0)
    );
    let unknown = ReplayRange {
        endpoint: "wh_none".to_owned(),
        ..everything
    };
    assert_eq!(
        store.replay_deliveries(&unknown, at(400)).await.unwrap(),
        None
    );
}

/// An endpoint reads back as registered; its id is taken once; a rotation
/// keeps the replaced secret until the overlap ends; a removed endpoint
/// takes its waiting deliveries with it.
pub async fn endpoints_are_registered_rotated_and_removed<S: NegotiationStore + WebhookStore>(
    store: S,
) {
    let alices = endpoint(
        "wh_alice",
        Some(ALICE),
        EventFilter::only([EventType::Parked]),
    );
    register(&store, alices.clone()).await;
    assert!(
        !store.insert_webhook(&alices).await.unwrap(),
        "the id is taken"
    );
    register(&store, endpoint("wh_host", None, EventFilter::All)).await;
    let listed = store.list_webhooks().await.unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed.iter().find(|e| e.id == "wh_alice"), Some(&alices));

    let until = UnixTime::now().after(Duration::from_secs(3600));
    let fresh = WebhookSecret::new("whsec_fresh");
    assert!(
        store
            .rotate_webhook_secret("wh_alice", &fresh, until)
            .await
            .unwrap()
    );
    assert!(
        !store
            .rotate_webhook_secret("wh_none", &fresh, until)
            .await
            .unwrap()
    );
    let rotated = store.list_webhooks().await.unwrap();
    let rotated = rotated.iter().find(|e| e.id == "wh_alice").unwrap();
    assert_eq!(rotated.secret, fresh);
    assert_eq!(
        rotated.previous_secret,
        Some((alices.secret.clone(), until))
    );
    assert_eq!(
        rotated.signing_secrets(UnixTime::now()),
        [&fresh, &alices.secret]
    );
    assert_eq!(rotated.signing_secrets(until), [&fresh]);

    open(&store, 1).await;
    assert!(store.remove_webhook("wh_host").await.unwrap());
    assert!(!store.remove_webhook("wh_host").await.unwrap());
    assert!(
        drain(&store, UnixTime::now()).await.is_empty(),
        "its deliveries went with it"
    );
    assert_eq!(store.list_webhooks().await.unwrap().len(), 1);
}
