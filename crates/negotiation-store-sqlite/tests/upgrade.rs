//! A store written by schema version 2, which kept parks only as messages,
//! opens with the question loop read back into each negotiation's row.

// Tests report failure by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use index_negotiation_store::conformance::{assert_upgraded, legacy_id as id, legacy_records};
use index_negotiation_store_sqlite::SqliteStore;
use rusqlite::params;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_2_store_reads_its_parks_back_from_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v2.db");
    let records = legacy_records();
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(include_str!("../migrations/0001_initial.sql"))
            .unwrap();
        conn.execute_batch(include_str!("../migrations/0002_api_keys.sql"))
            .unwrap();
        conn.execute_batch("PRAGMA application_id = 1229866072; PRAGMA user_version = 2;")
            .unwrap();
        for (n, record) in records.iter().enumerate() {
            conn.execute(
                "INSERT INTO negotiations (id, initiator_user_id, initiator_intent_id, responder_user_id, responder_intent_id, awaiting_user_id) \
                 VALUES (?1, 'alice', 'a-intent', 'bob', 'b-intent', NULL)",
                params![id(n).as_str()],
            )
            .unwrap();
            for (position, (sender, parts)) in record.messages.iter().enumerate() {
                conn.execute(
                    "INSERT INTO messages (negotiation_seq, position, sender_id, parts) \
                     VALUES ((SELECT seq FROM negotiations WHERE id = ?1), ?2, ?3, ?4)",
                    params![id(n).as_str(), position, sender, parts],
                )
                .unwrap();
            }
        }
    }
    let store = SqliteStore::open(&path).await.unwrap();
    assert_upgraded(&store).await;
}
