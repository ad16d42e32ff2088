//! The store against raw SQLite doing the same transactions, side by side
//! in one run: turn commits per second at 1 and 8 concurrent writers, WAL,
//! `synchronous=NORMAL` and `FULL`, and the store's share of raw's rate.
//!
//! Raw is what a careful hand-written program does with `rusqlite`: one
//! connection per writer, statements prepared once and cached, and (with
//! eight writers in one process) a mutex around each write transaction so
//! writers queue instead of sleeping in SQLite's busy handler. Each commit
//! is the store's: `BEGIN IMMEDIATE`; read the negotiation and its turns
//! from the previous round's start; insert the turn; update the
//! negotiation (its round marks and last change too); append the step to
//! the audit record; `COMMIT`, with a resume every 13th commit and a new
//! negotiation every 130 (each with its audit entry too), as
//! `drive_commits` does.
//!
//! `cargo bench -p index-negotiation-store-sqlite --bench sqlite_vs_raw`;
//! without `--bench` (`cargo test --benches`, as CI runs it) it runs once
//! on a few commits, so a benchmark that no longer works fails there.

// A benchmark reports by printing; setup failures panic.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::indexing_slicing
)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use index_negotiation_store::conformance::{drive_commits, drive_commits_in_parallel};
use index_negotiation_store_sqlite::{SqliteOptions, SqliteStore, Synchronous};
use rusqlite::{Connection, TransactionBehavior, params};

/// Whether this is the short run (`cargo test --benches`): the same work
/// on a few commits, once.
fn quick() -> bool {
    !std::env::args().any(|a| a == "--bench")
}

/// Commits per measurement (two negotiations' worth in the short run).
fn commits() -> u64 {
    if quick() { 260 } else { 6_000 }
}

/// Measurements of each kind, the best of which counts.
fn runs() -> usize {
    if quick() { 1 } else { 5 }
}

const FIND: &str = "SELECT n.seq, n.id, n.initiator_user_id, n.initiator_intent_id, n.responder_user_id, \
    n.responder_intent_id, n.initiator_eligible, n.responder_eligible, n.awaiting_user_id, n.outcome, \
    n.settled, n.status, n.turn_count, n.ask_rounds, n.park_user_id, n.park_question, n.park_answer, \
    n.window_start FROM negotiations n WHERE n.id = ?1";
const TURNS: &str = "SELECT turn_index, seat_user_id, action, message FROM turns \
    WHERE negotiation_seq = ?1 AND turn_index >= ?2 ORDER BY turn_index";

fn raw_connection(path: &Path, synchronous: Synchronous) -> Connection {
    let conn = Connection::open(path).unwrap();
    conn.pragma_update(
        None,
        "synchronous",
        if synchronous == Synchronous::Full {
            "FULL"
        } else {
            "NORMAL"
        },
    )
    .unwrap();
    conn.pragma_update(None, "foreign_keys", "ON").unwrap();
    conn.busy_timeout(Duration::from_secs(10)).unwrap();
    conn
}

/// One writer's share of the raw workload, on its own negotiations.
fn raw_lane(conn: &mut Connection, lane: u64, commits: u64, lock: &Mutex<()>) {
    let mut seq = 0i64;
    let mut turns = 0i64;
    let mut id = String::new();
    for done in 0..commits {
        let position = done % 130;
        let _writer = lock.lock().unwrap();
        if position == 0 {
            id = format!("raw-{lane}-{done}-{}", std::process::id());
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .unwrap();
            tx.prepare_cached(
                "INSERT INTO negotiations (id, initiator_user_id, initiator_intent_id, responder_user_id, \
                 responder_intent_id, awaiting_user_id, last_change) VALUES (?1, 'alice', 'a', 'bob', 'b', 'alice', \
                 (SELECT coalesce(max(last_change), 0) + 1 FROM negotiations))",
            )
            .unwrap()
            .execute(params![id])
            .unwrap();
            seq = tx.last_insert_rowid();
            audit(&tx, "opened", &id, "alice", None);
            tx.commit().unwrap();
            turns = 0;
        }
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .unwrap();
        let (count, window_start): (i64, i64) = tx
            .prepare_cached(FIND)
            .unwrap()
            .query_row(params![id], |r| Ok((r.get(12)?, r.get(17)?)))
            .unwrap();
        let log: Vec<(i64, String, String, String)> = tx
            .prepare_cached(TURNS)
            .unwrap()
            .query_map(params![seq, window_start], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(window_start + log.len() as i64, turns);
        assert_eq!(count, turns);
        if position % 13 == 12 {
            tx.prepare_cached(
                "UPDATE negotiations SET awaiting_user_id = ?1, \
                 last_change = (SELECT max(last_change) + 1 FROM negotiations) WHERE seq = ?2",
            )
            .unwrap()
            .execute(params!["alice", seq])
            .unwrap();
            audit(&tx, "resumed", &id, "alice", None);
        } else {
            let (who, action, next) = if (position % 13).is_multiple_of(2) {
                ("alice", "propose", "bob")
            } else {
                ("bob", "counter", "alice")
            };
            tx.prepare_cached(
                "INSERT INTO turns (negotiation_seq, turn_index, seat_user_id, action, message) VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .unwrap()
            .execute(params![seq, turns, who, action, "A benchmark turn."])
            .unwrap();
            // The twelfth turn of a round ends it: the round marks move.
            let round_ended = position % 13 == 11;
            tx.prepare_cached(
                "UPDATE negotiations SET awaiting_user_id = ?1, outcome = coalesce(?2, outcome), \
                 settled = CASE WHEN ?2 IS NULL THEN settled ELSE 1 END, status = ?3, turn_count = ?5 + 1, \
                 window_start = CASE WHEN ?6 THEN round_start ELSE window_start END, \
                 round_start = CASE WHEN ?6 THEN ?5 + 1 ELSE round_start END, \
                 last_change = (SELECT max(last_change) + 1 FROM negotiations) WHERE seq = ?4",
            )
            .unwrap()
            .execute(params![
                (!round_ended).then_some(next),
                Option::<String>::None,
                "negotiating",
                seq,
                turns,
                round_ended
            ])
            .unwrap();
            audit(&tx, "turn", &id, who, Some(action));
            turns += 1;
        }
        tx.commit().unwrap();
    }
}

/// Appends a step to the audit record as the store does, in `tx`.
fn audit(tx: &Connection, step: &str, id: &str, who: &str, detail: Option<&str>) {
    tx.prepare_cached(
        "INSERT INTO audit (at, step, negotiation_id, user_id, detail, actor_kind, key_id, request_id) \
         VALUES (?1, ?2, ?3, ?4, ?5, 'operator', NULL, NULL)",
    )
    .unwrap()
    .execute(params![
        i64::try_from(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
        )
        .unwrap(),
        step,
        id,
        who,
        detail
    ])
    .unwrap();
}

/// The raw side's time, from its first commit to its last, as the store's
/// is: its connections open before the clock starts and close (the last
/// one checkpointing the log) after it stops.
fn raw(path: &Path, synchronous: Synchronous, lanes: u64) -> Duration {
    let lock = Arc::new(Mutex::new(()));
    let connections: Vec<_> = (0..lanes)
        .map(|_| raw_connection(path, synchronous))
        .collect();
    let started = Instant::now();
    let threads: Vec<_> = connections
        .into_iter()
        .zip(0..)
        .map(|(mut conn, lane)| {
            let lock = Arc::clone(&lock);
            std::thread::spawn(move || {
                raw_lane(&mut conn, lane, commits() / lanes, &lock);
                conn
            })
        })
        .collect();
    let connections: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let took = started.elapsed();
    drop(connections);
    took
}

fn store(
    runtime: &tokio::runtime::Runtime,
    path: &Path,
    synchronous: Synchronous,
    lanes: u64,
) -> Duration {
    let store = runtime
        .block_on(SqliteStore::open_with(
            path,
            SqliteOptions::default().with_synchronous(synchronous),
        ))
        .unwrap();
    runtime.block_on(async {
        let started = Instant::now();
        if lanes == 1 {
            drive_commits(&store, commits()).await;
        } else {
            drive_commits_in_parallel(&store, lanes, commits()).await;
        }
        started.elapsed()
    })
}

/// One measurement, on a fresh store file in a directory of its own that
/// is removed as soon as the measurement ends. Removed, the file's dirty
/// pages are dropped; left, the kernel would write them back while the
/// next measurement runs, and charge that side for this one's writes.
fn on_a_fresh_file(measure: impl FnOnce(&Path) -> Duration) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    drop(runtime.block_on(SqliteStore::open(&path)).unwrap());
    measure(&path)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "{:<8} {:>7}  {:>12}  {:>12}  {:>6}",
        "sync", "writers", "store c/s", "raw c/s", "ratio"
    );
    for (name, synchronous) in [("NORMAL", Synchronous::Normal), ("FULL", Synchronous::Full)] {
        for lanes in [1u64, 8] {
            // Best of runs() for each, interleaved, and each side first
            // in turn, so neither always runs in the other's wake.
            let (mut best_store, mut best_raw) = (Duration::MAX, Duration::MAX);
            for run in 0..runs() {
                for store_now in [run % 2 == 1, run % 2 == 0] {
                    if store_now {
                        let took =
                            on_a_fresh_file(|path| store(&runtime, path, synchronous, lanes));
                        best_store = best_store.min(took);
                    } else {
                        best_raw =
                            best_raw.min(on_a_fresh_file(|path| raw(path, synchronous, lanes)));
                    }
                }
            }
            let rate = |d: Duration| commits() as f64 / d.as_secs_f64();
            println!(
                "{name:<8} {lanes:>7}  {:>12.0}  {:>12.0}  {:>5.2}x",
                rate(best_store),
                rate(best_raw),
                rate(best_store) / rate(best_raw)
            );
        }
    }
}
