//! What only a shared database must show: two hosts (two pools) racing on
//! one negotiation and one opening, a connection dropped mid-transaction, a
//! statement timeout, and a database from a newer schema.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stderr
)]

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use index_negotiation::NegotiationAction::{Counter, Propose};
use index_negotiation::{
    NegotiationRejection, NegotiationState, NegotiationTurn, decide_negotiation_turn,
};
use index_negotiation_store::Actor;
use index_negotiation_store::{
    NegotiationStore, Negotiations, OpenDecision, OpenNegotiation, OpportunityId, Seat, StoreError,
    UserId,
};
use index_negotiation_store_postgres::{PostgresOptions, PostgresStore};

fn request(id: &str) -> OpenNegotiation {
    OpenNegotiation {
        opportunity_id: id.parse().unwrap(),
        initiator: Seat {
            user_id: "alice".parse().unwrap(),
            intent_id: "a".parse().unwrap(),
        },
        responder: Seat {
            user_id: "bob".parse().unwrap(),
            intent_id: "b".parse().unwrap(),
        },
        eligible: true,
    }
}

/// Two stores on one schema: two hosts sharing a database.
async fn two_hosts() -> (PostgresStore, PostgresStore, String, String) {
    let (first, url, schema) = support::fresh_store_with(PostgresOptions::default()).await;
    let second =
        PostgresStore::connect_with(&url, PostgresOptions::default().with_schema(schema.clone()))
            .await
            .unwrap();
    (first, second, url, schema)
}

/// A plain connection with the test schema on its search path.
async fn raw(url: &str, schema: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(&format!("SET search_path TO {schema}"))
        .await
        .unwrap();
    client
}

/// The handle racer `i` uses: even racers the first, odd ones the second, so
/// both handles compete for every commit.
fn alternate<S: Clone>(first: &S, second: &S, i: u32) -> S {
    if i.is_multiple_of(2) {
        first.clone()
    } else {
        second.clone()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn two_hosts_racing_one_opening_create_one_negotiation() {
    let (first, second, _, _) = two_hosts().await;
    let tasks: Vec<_> = (0..16u32)
        .map(|i| {
            let store = alternate(&first, &second, i);
            tokio::spawn(async move {
                Negotiations::new(store)
                    .open(
                        &request("0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a64"),
                        &Actor::operator(),
                    )
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut opened = 0;
    for task in tasks {
        if matches!(task.await.unwrap(), OpenDecision::Opened { .. }) {
            opened += 1;
        }
    }
    assert_eq!(opened, 1);
    assert_eq!(
        first
            .list_negotiations(&"alice".parse().unwrap(), &Default::default())
            .await
            .unwrap()
            .negotiations
            .len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn two_hosts_racing_turns_have_one_winner_per_index() {
    let (first, second, _, _) = two_hosts().await;
    Negotiations::new(&first)
        .open(
            &request("0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a61"),
            &Actor::operator(),
        )
        .await
        .unwrap();
    for (round, (who, action)) in [
        ("alice", Propose),
        ("bob", Counter),
        ("alice", Propose),
        ("bob", Counter),
    ]
    .into_iter()
    .enumerate()
    {
        let tasks: Vec<_> = (0..12u32)
            .map(|i| {
                let store = alternate(&first, &second, i);
                tokio::spawn(async move {
                    Negotiations::new(store)
                        .execute(
                            &"0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a61".parse().unwrap(),
                            &who.parse().unwrap(),
                            NegotiationTurn::new(action, format!("racer {i}")),
                            &Actor::operator(),
                        )
                        .await
                        .unwrap()
                        .0
                })
            })
            .collect();
        let mut winners = 0;
        for task in tasks {
            match task.await.unwrap().rejection() {
                None => winners += 1,
                Some(rejection) => assert_eq!(rejection, NegotiationRejection::NotYourTurn),
            }
        }
        assert_eq!(winners, 1, "round {round}");
    }
    let state = second
        .read_negotiation_state(&"0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a61".parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(state.turns.len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn a_connection_dropped_mid_transaction_applies_nothing() {
    let (store, url, schema) = support::fresh_store_with(PostgresOptions::default()).await;
    let negotiations = Negotiations::new(&store);
    negotiations
        .open(
            &request("0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a62"),
            &Actor::operator(),
        )
        .await
        .unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    let turn = NegotiationTurn::new(Propose, "never lands");
    // While the commit holds its lock and asks for a decision, kill the
    // backend holding the lock on this schema's negotiations.
    let decide = Box::new(
        move |state: Option<&NegotiationState>, user: &UserId, turn: &NegotiationTurn| {
            counter.fetch_add(1, Ordering::SeqCst);
            let (url, schema) = (url.clone(), schema.clone());
            std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async {
                let client = raw(&url, &schema).await;
                let killed = client
                    .query(
                        "SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation \
                         JOIN pg_namespace n ON n.oid = c.relnamespace \
                         WHERE n.nspname = $1 AND c.relname = 'negotiations' AND l.mode = 'RowShareLock' AND l.pid <> pg_backend_pid()",
                        &[&schema],
                    )
                    .await
                    .unwrap();
                assert_eq!(killed.len(), 1, "exactly the committing backend holds the lock");
            });
        })
        .join()
        .unwrap();
            decide_negotiation_turn(state, user, turn)
        },
    );
    let result = store
        .commit_turn(
            &"0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a62".parse().unwrap(),
            &"alice".parse().unwrap(),
            &turn,
            &Actor::operator(),
            decide,
        )
        .await;
    assert!(matches!(result, Err(StoreError::Backend(_))), "{result:?}");
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "decide ran once and was not retried"
    );
    let state = store
        .read_negotiation_state(&"0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a62".parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(state.turns.is_empty(), "nothing was applied");
    let (again, _) = negotiations
        .execute(
            &"0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a62".parse().unwrap(),
            &"alice".parse().unwrap(),
            NegotiationTurn::new(Propose, "lands"),
            &Actor::operator(),
        )
        .await
        .unwrap();
    assert!(again.is_ok(), "the pool replaced the dead connection");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn a_statement_timeout_is_honoured() {
    let options = PostgresOptions::default().with_statement_timeout(Duration::from_millis(300));
    let (store, url, schema) = support::fresh_store_with(options).await;
    Negotiations::new(&store)
        .open(
            &request("0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a63"),
            &Actor::operator(),
        )
        .await
        .unwrap();
    let mut blocker = raw(&url, &schema).await;
    let tx = blocker.transaction().await.unwrap();
    tx.query(
        "SELECT seq FROM negotiations WHERE id = '0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a63' FOR UPDATE",
        &[],
    )
    .await
    .unwrap();
    let started = std::time::Instant::now();
    let result = Negotiations::new(&store)
        .execute(
            &"0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a63".parse().unwrap(),
            &"alice".parse().unwrap(),
            NegotiationTurn::new(Propose, "blocked"),
            &Actor::operator(),
        )
        .await;
    assert!(matches!(result, Err(StoreError::Backend(_))), "{result:?}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the timeout cut the wait short"
    );
    tx.rollback().await.unwrap();
    let state = store
        .read_negotiation_state(&"0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a63".parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(state.turns.is_empty());
    let id = OpportunityId::parse("0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a63").unwrap();
    assert!(
        Negotiations::new(&store)
            .execute(
                &id,
                &"alice".parse().unwrap(),
                NegotiationTurn::new(Propose, "now"),
                &Actor::operator(),
            )
            .await
            .unwrap()
            .0
            .is_ok()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn a_newer_schema_is_refused() {
    let (_store, url, schema) = support::fresh_store_with(PostgresOptions::default()).await;
    raw(&url, &schema)
        .await
        .batch_execute("UPDATE index_schema_version SET version = 99")
        .await
        .unwrap();
    let refused =
        PostgresStore::connect_with(&url, PostgresOptions::default().with_schema(schema)).await;
    assert!(
        matches!(refused, Err(StoreError::NewerSchema { found: 99, .. })),
        "{refused:?}"
    );
}

#[tokio::test]
async fn malformed_settings_are_refused() {
    let bad_url = PostgresStore::connect("definitely not a url = = =").await;
    assert!(
        matches!(bad_url, Err(StoreError::InvalidRequest(_))),
        "{bad_url:?}"
    );
    let bad_schema = PostgresStore::connect_with(
        "postgres://localhost/x",
        PostgresOptions::default().with_schema("Robert'); DROP"),
    )
    .await;
    assert!(
        matches!(bad_schema, Err(StoreError::InvalidRequest(_))),
        "{bad_schema:?}"
    );
}

#[tokio::test]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn a_failure_reads_as_the_server_said_it() {
    let url = support::database_url();
    let (base, _) = url.rsplit_once('/').unwrap();
    let missing = PostgresStore::connect(&format!("{base}/index_no_such_database")).await;
    // What a person reads: the error and the causes it chains.
    let message = index_negotiation_store::ErrorChain(&missing.unwrap_err()).to_string();
    assert!(
        message.contains("SQLSTATE 3D000")
            && message.contains("\"index_no_such_database\" does not exist"),
        "{message}"
    );
    let refused = PostgresStore::connect("postgres://someone:hunter2@127.0.0.1:1/x").await;
    let message = index_negotiation_store::ErrorChain(&refused.unwrap_err()).to_string();
    assert!(message.contains("Connection refused"), "{message}");
    assert!(
        !message.contains("hunter2"),
        "the password never shows: {message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn the_change_feed_wakes_on_another_hosts_commit() {
    let (watcher, writer, _, _) = two_hosts().await;
    let mut feed = watcher
        .change_feed()
        .await
        .unwrap()
        .expect("PostgreSQL has a feed");
    let service = Negotiations::new(&writer);
    let opening = request("0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a65");
    service.open(&opening, &Actor::operator()).await.unwrap();
    tokio::time::timeout(Duration::from_secs(5), feed.recv())
        .await
        .unwrap()
        .unwrap();
    let turn = NegotiationTurn::new(Propose, "Over LISTEN.");
    let (decision, _) = service
        .execute(
            &opening.opportunity_id,
            &"alice".parse().unwrap(),
            turn,
            &Actor::operator(),
        )
        .await
        .unwrap();
    assert!(decision.is_ok());
    tokio::time::timeout(Duration::from_secs(5), feed.recv())
        .await
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn a_turn_log_with_a_gap_is_corrupt_not_short() {
    let (store, url, schema) = support::fresh_store_with(PostgresOptions::default()).await;
    let service = Negotiations::new(&store);
    let opening = request("0f9b2c1e-7a3d-4e58-9b60-1c2d3e4f5a66");
    service.open(&opening, &Actor::operator()).await.unwrap();
    for (who, action) in [("alice", Propose), ("bob", Counter), ("alice", Propose)] {
        let turn = NegotiationTurn::new(action, "A turn.");
        assert!(
            service
                .execute(
                    &opening.opportunity_id,
                    &who.parse().unwrap(),
                    turn,
                    &Actor::operator()
                )
                .await
                .unwrap()
                .0
                .is_ok()
        );
    }
    raw(&url, &schema)
        .await
        .batch_execute("UPDATE turns SET turn_index = 20 WHERE turn_index = 2")
        .await
        .unwrap();
    let read = store.read_negotiation_state(&opening.opportunity_id).await;
    assert!(
        matches!(&read, Err(StoreError::Corrupt(why)) if why.contains("not dense")),
        "{read:?}"
    );
}
