//! A store written by schema version 2, which kept parks only as messages,
//! opens with the question loop read back into each negotiation's row.

// Tests report failure by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use index_negotiation_store::NegotiationStore;
use index_negotiation_store::conformance::{assert_upgraded, legacy_id as id, legacy_records};
use index_negotiation_store_postgres::{PostgresOptions, PostgresStore};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn a_version_2_store_reads_its_parks_back_from_the_record() {
    let url = support::database_url();
    let schema = support::fresh_schema();
    let records = legacy_records();
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
    client
        .batch_execute(include_str!("../migrations/0001_initial.sql"))
        .await
        .unwrap();
    client
        .batch_execute(include_str!("../migrations/0002_api_keys.sql"))
        .await
        .unwrap();
    client
        .batch_execute(
            "CREATE TABLE index_schema_version (version INTEGER NOT NULL); \
             INSERT INTO index_schema_version (version) VALUES (2);",
        )
        .await
        .unwrap();
    for (n, record) in records.iter().enumerate() {
        let seq: i64 = client
            .query_one(
                "INSERT INTO negotiations (id, initiator_user_id, initiator_intent_id, responder_user_id, responder_intent_id) \
                 VALUES ($1, 'alice', 'a-intent', 'bob', 'b-intent') RETURNING seq",
                &[&id(n).as_str()],
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
