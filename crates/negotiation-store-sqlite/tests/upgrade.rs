//! Stores written by earlier schema versions open upgraded: version 2 kept
//! parks only as messages, and they are read back into each negotiation's
//! row; version 3 counted turns and rounds by reading the whole log, and
//! each row gets its turn count and round marks.

// Tests report failure by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use index_negotiation_store::conformance::{
    assert_rounds_upgraded, assert_upgraded, legacy_id as id, legacy_logs, legacy_records,
};
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
    // The records park without a turn taken, which the rules' replay reads
    // as the initiator still to move; the parks, answers and ask rounds
    // read back from them break none of the check's rules.
    let problems = store.check().await.unwrap();
    assert!(
        problems.iter().all(
            |problem| problem.ends_with("awaitingUserId is nobody, but the log leads to alice")
        ),
        "{problems:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_3_store_gets_its_turn_counts_and_round_marks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v3.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        for migration in [
            include_str!("../migrations/0001_initial.sql"),
            include_str!("../migrations/0002_api_keys.sql"),
            include_str!("../migrations/0003_question_loop.sql"),
        ] {
            conn.execute_batch(migration).unwrap();
        }
        conn.execute_batch("PRAGMA application_id = 1229866072; PRAGMA user_version = 3;")
            .unwrap();
        for (n, log) in legacy_logs().iter().enumerate() {
            conn.execute(
                "INSERT INTO negotiations (id, initiator_user_id, initiator_intent_id, responder_user_id, responder_intent_id, awaiting_user_id) \
                 VALUES (?1, 'alice', 'a-intent', 'bob', 'b-intent', ?2)",
                params![id(n).as_str(), log.awaiting],
            )
            .unwrap();
            for (index, (seat, action)) in log.turns.iter().enumerate() {
                conn.execute(
                    "INSERT INTO turns (negotiation_seq, turn_index, seat_user_id, action, message) \
                     VALUES ((SELECT seq FROM negotiations WHERE id = ?1), ?2, ?3, ?4, 'earlier')",
                    params![id(n).as_str(), index, seat, action.as_str()],
                )
                .unwrap();
            }
        }
    }
    let store = SqliteStore::open(&path).await.unwrap();
    assert_rounds_upgraded(&store).await;
    // The marks the migration walked are the ones the check expects.
    assert_eq!(store.check().await.unwrap(), Vec::<String>::new());
}
