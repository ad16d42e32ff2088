//! Stores written by earlier schema versions open upgraded: version 2 kept
//! parks only as messages, and they are read back into each negotiation's
//! row; version 3 counted turns and rounds by reading the whole log, and
//! each row gets its turn count and round marks.

// Tests report failure by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use index_negotiation_store::NegotiationStore;
use index_negotiation_store::conformance::{
    assert_rounds_upgraded, assert_upgraded, legacy_id as id, legacy_logs, legacy_records,
};
use index_negotiation_store_postgres::{PostgresOptions, PostgresStore};

/// A fresh schema at `version`, as that version's migrations left it, and
/// a client on it; with the database's URL and the schema's name.
async fn legacy_schema(version: i32) -> (tokio_postgres::Client, String, String) {
    let url = support::database_url();
    let schema = support::fresh_schema();
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(&format!(
            "CREATE SCHEMA {schema}; SET search_path TO {schema};"
        ))
        .await
        .unwrap();
    let migrations = [
        include_str!("../migrations/0001_initial.sql"),
        include_str!("../migrations/0002_api_keys.sql"),
        include_str!("../migrations/0003_question_loop.sql"),
    ];
    for migration in migrations.iter().take(usize::try_from(version).unwrap()) {
        client.batch_execute(migration).await.unwrap();
    }
    client
        .execute(
            "CREATE TABLE index_schema_version (version INTEGER NOT NULL)",
            &[],
        )
        .await
        .unwrap();
    client
        .execute(
            "INSERT INTO index_schema_version (version) VALUES ($1)",
            &[&version],
        )
        .await
        .unwrap();
    (client, url, schema)
}

/// Writes negotiation `id` between alice and bob, with both seats, as
/// every version has; its row key.
async fn legacy_negotiation(
    client: &tokio_postgres::Client,
    id: &index_negotiation_store::OpportunityId,
    awaiting: Option<&str>,
) -> i64 {
    let seq: i64 = client
        .query_one(
            "INSERT INTO negotiations (id, initiator_user_id, initiator_intent_id, responder_user_id, responder_intent_id, awaiting_user_id) \
             VALUES ($1, 'alice', 'a-intent', 'bob', 'b-intent', $2) RETURNING seq",
            &[&id.as_str(), &awaiting],
        )
        .await
        .unwrap()
        .get(0);
    client
        .execute(
            "INSERT INTO seats (negotiation_seq, user_id) VALUES ($1, 'alice'), ($1, 'bob')",
            &[&seq],
        )
        .await
        .unwrap();
    seq
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn a_version_2_store_reads_its_parks_back_from_the_record() {
    let records = legacy_records();
    let (client, url, schema) = legacy_schema(2).await;
    for (n, record) in records.iter().enumerate() {
        let seq = legacy_negotiation(&client, &id(n), None).await;
        for (position, (sender, parts)) in record.messages.iter().enumerate() {
            let position = i32::try_from(position).unwrap();
            client
                .execute(
                    "INSERT INTO messages (negotiation_seq, position, sender_id, parts) VALUES ($1, $2, $3, $4)",
                    &[&seq, &position, sender, parts],
                )
                .await
                .unwrap();
        }
    }
    // A record that is not JSON is left out of the upgrade, not fatal.
    let broken = id(9);
    client
        .batch_execute(&format!(
            "INSERT INTO negotiations (id, initiator_user_id, initiator_intent_id, responder_user_id, responder_intent_id) \
             VALUES ('{broken}', 'alice', 'a-intent', 'bob', 'b-intent'); \
             INSERT INTO messages (negotiation_seq, position, sender_id, parts) \
             SELECT seq, 0, 'agent:alice', 'not json' FROM negotiations WHERE id = '{broken}';"
        ))
        .await
        .unwrap();
    let store = PostgresStore::connect_with(&url, PostgresOptions::default().with_schema(schema))
        .await
        .unwrap();
    assert_upgraded(&store).await;
    let state = store
        .read_negotiation_state(&broken)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((state.ask_rounds, state.park), (0, None));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn a_version_3_store_gets_its_turn_counts_and_round_marks() {
    let (client, url, schema) = legacy_schema(3).await;
    for (n, log) in legacy_logs().iter().enumerate() {
        let seq = legacy_negotiation(&client, &id(n), log.awaiting.as_deref()).await;
        for (index, (seat, action)) in log.turns.iter().enumerate() {
            let index = i32::try_from(index).unwrap();
            client
                .execute(
                    "INSERT INTO turns (negotiation_seq, turn_index, seat_user_id, action, message) \
                     VALUES ($1, $2, $3, $4, 'earlier')",
                    &[&seq, &index, seat, &action.as_str()],
                )
                .await
                .unwrap();
        }
    }
    let store = PostgresStore::connect_with(&url, PostgresOptions::default().with_schema(schema))
        .await
        .unwrap();
    assert_rounds_upgraded(&store).await;
}
