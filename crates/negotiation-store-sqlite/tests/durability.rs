//! What only a file-backed store must show: data survives reopening, two
//! stores on one file serialize, a killed writer leaves the file consistent,
//! and a file that is not ours is refused without being touched.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use index_negotiation::NegotiationAction::{self, Counter, Decline, Propose};
use index_negotiation::{
    Decision, MessagePart, NegotiationMessage, NegotiationRejection, NegotiationState,
    NegotiationTurn, decide_negotiation_resume, decide_negotiation_turn,
};
use index_negotiation_store::{
    ListFilter, NegotiationStore, Negotiations, OpenNegotiation, OpportunityId, Seat, StoreError,
    UserId,
};
use index_negotiation_store_sqlite::{Access, SqliteOptions, SqliteStore, Synchronous};

const CHILD_ENV: &str = "INDEX_SQLITE_TEST_WRITER";

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sqlite-durability");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}-{name}.db", std::process::id()));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

fn opp() -> OpportunityId {
    OpportunityId::parse("5a7e1c3d-9b2f-4e60-8d14-7c3b9a0e2f51").unwrap()
}

async fn open_pair<S: NegotiationStore>(store: &S) {
    let request = OpenNegotiation {
        opportunity_id: opp(),
        initiator: Seat {
            user_id: "alice".parse().unwrap(),
            intent_id: "a".parse().unwrap(),
        },
        responder: Seat {
            user_id: "bob".parse().unwrap(),
            intent_id: "b".parse().unwrap(),
        },
        eligible: true,
    };
    Negotiations::new(store).open(&request).await.unwrap();
}

/// Takes the next sensible step for `who`: its turn if it has one, or a
/// resume if the pair is paused. Returns whether anything was applied.
async fn step<S: NegotiationStore>(store: &S, who: &str) -> bool {
    let service = Negotiations::new(store);
    let Some(seen) = service
        .observe(&opp(), &who.parse().unwrap())
        .await
        .unwrap()
    else {
        return false;
    };
    let action = seen
        .available_actions
        .iter()
        .copied()
        .find(|a| *a != NegotiationAction::Accept && *a != NegotiationAction::Decline)
        .unwrap_or(Decline);
    if seen.blocked_reason.is_none() {
        let decision = service
            .execute(
                &opp(),
                &who.parse().unwrap(),
                NegotiationTurn::new(action, "step"),
            )
            .await
            .unwrap();
        return decision.is_ok();
    }
    service
        .resume(&opp(), &who.parse().unwrap())
        .await
        .unwrap()
        .is_ok()
}

/// Replays the log through the rules from an opened state and checks the
/// stored state is exactly what the rules would have produced.
fn assert_replays(stored: &NegotiationState) {
    let mut replayed = NegotiationState::opened("alice".parse().unwrap(), "bob".parse().unwrap());
    for turn in &stored.turns {
        if replayed.awaiting_user_id.is_none() {
            let resumed = decide_negotiation_resume(Some(&replayed), &turn.seat_user_id);
            replayed.apply_resume(resumed.permitted().expect("a resume preceded this round"));
        }
        let proposed = NegotiationTurn::new(turn.action, turn.message.clone());
        let decision = decide_negotiation_turn(Some(&replayed), &turn.seat_user_id, &proposed);
        let permitted = decision
            .permitted()
            .cloned()
            .unwrap_or_else(|| panic!("stored turn refused: {decision:?}"));
        replayed.apply_turn(&turn.seat_user_id, &proposed, &permitted);
    }
    if stored.awaiting_user_id.is_some() && replayed.awaiting_user_id.is_none() {
        // A resume was the last write.
        replayed
            .awaiting_user_id
            .clone_from(&stored.awaiting_user_id);
    }
    assert_eq!(&replayed, stored);
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_survives_dropping_and_reopening_the_store() {
    let path = scratch("reopen");
    let before = {
        let store = SqliteStore::open_with(
            &path,
            SqliteOptions::default().with_synchronous(Synchronous::Full),
        )
        .await
        .unwrap();
        open_pair(&store).await;
        for who in ["alice", "bob", "alice", "bob", "alice"] {
            assert!(step(&store, who).await);
        }
        let message = NegotiationMessage {
            sender_id: "agent:alice".into(),
            parts: vec![MessagePart::Text {
                text: "kept".into(),
            }],
        };
        assert!(store.append_message(&opp(), &message).await.unwrap());
        (
            store.read_negotiation_state(&opp()).await.unwrap(),
            store.list_messages(&opp()).await.unwrap(),
            store.get_negotiation(&opp()).await.unwrap(),
        )
    };
    let store = SqliteStore::open(&path).await.unwrap();
    let after = (
        store.read_negotiation_state(&opp()).await.unwrap(),
        store.list_messages(&opp()).await.unwrap(),
        store.get_negotiation(&opp()).await.unwrap(),
    );
    assert_eq!(before, after);
    assert_eq!(after.0.unwrap().turns.len(), 5);
    store.check_integrity().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_stores_on_one_file_serialize_their_commits() {
    let path = scratch("two-stores");
    let first = SqliteStore::open(&path).await.unwrap();
    let second = SqliteStore::open(&path).await.unwrap();
    open_pair(&first).await;
    // One turn index, many racers across both stores: one winner.
    let racers: Vec<_> = (0..16u32)
        .map(|i| {
            let store = alternate(&first, &second, i);
            tokio::spawn(async move {
                Negotiations::new(store)
                    .execute(
                        &opp(),
                        &"alice".parse().unwrap(),
                        NegotiationTurn::new(Propose, format!("racer {i}")),
                    )
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut winners = 0;
    for racer in racers {
        match racer.await.unwrap() {
            Decision::Permitted(permitted) => {
                winners += 1;
                assert_eq!(permitted.turn_index, 0);
            }
            Decision::Refused(rejection) => {
                assert_eq!(rejection, NegotiationRejection::NotYourTurn)
            }
        }
    }
    assert_eq!(winners, 1);
    // Then both seats step through rounds from both stores at once.
    let workers: Vec<_> = (0..6u32)
        .map(|i| {
            let store = alternate(&first, &second, i);
            tokio::spawn(async move {
                let who = if i % 3 == 0 { "alice" } else { "bob" };
                let mut applied = 0;
                for _ in 0..40 {
                    applied += usize::from(step(&store, who).await);
                    // Let the other seats' workers in between steps, so the
                    // stores really interleave (a step may not wait at all).
                    tokio::task::yield_now().await;
                }
                applied
            })
        })
        .collect();
    for worker in workers {
        worker.await.unwrap();
    }
    let state = second
        .read_negotiation_state(&opp())
        .await
        .unwrap()
        .unwrap();
    assert!(
        state.turns.len() > 12,
        "several rounds were played: {}",
        state.turns.len()
    );
    assert_replays(&state);
    first.check_integrity().await.unwrap();
}

/// The child half of the killed-writer test: writes until it is killed.
fn run_writer(path: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = SqliteStore::open(path).await.unwrap();
        loop {
            step(&store, "alice").await;
            step(&store, "bob").await;
        }
    });
}

#[test]
fn a_writer_killed_mid_write_leaves_the_file_consistent() {
    if let Ok(path) = std::env::var(CHILD_ENV) {
        run_writer(&path);
        return;
    }
    let path = scratch("killed");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = SqliteStore::open(&path).await.unwrap();
        open_pair(&store).await;
    });
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_writer_killed_mid_write_leaves_the_file_consistent",
            "--test-threads=1",
            "--quiet",
        ])
        .env(CHILD_ENV, &path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Let it write a while, then kill it without warning.
    let started = Instant::now();
    let reader = runtime.block_on(SqliteStore::open(&path)).unwrap();
    loop {
        let turns = runtime
            .block_on(reader.read_negotiation_state(&opp()))
            .unwrap()
            .map_or(0, |s| s.turns.len());
        if turns >= 40 || started.elapsed() > Duration::from_secs(20) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    drop(reader);
    runtime.block_on(async {
        let store = SqliteStore::open(&path).await.unwrap();
        store.check_integrity().await.unwrap();
        let state = store.read_negotiation_state(&opp()).await.unwrap().unwrap();
        assert!(
            state.turns.len() >= 40,
            "the writer made progress: {}",
            state.turns.len()
        );
        assert_replays(&state);
        // And the store still works.
        let who = state
            .awaiting_user_id
            .clone()
            .map_or_else(|| "alice".to_owned(), String::from);
        assert!(step(&store, &who).await);
    });
}

fn assert_refused_untouched(path: &Path, expected: impl Fn(&StoreError) -> bool) {
    let before = std::fs::read(path).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let err = runtime.block_on(SqliteStore::open(path)).unwrap_err();
    assert!(expected(&err), "unexpected error: {err}");
    assert_eq!(
        std::fs::read(path).unwrap(),
        before,
        "the file was modified"
    );
    for suffix in ["-wal", "-shm"] {
        let sidecar = format!("{}{suffix}", path.display());
        assert!(!Path::new(&sidecar).exists(), "{sidecar} was created");
    }
}

#[test]
fn files_that_are_not_ours_are_refused_and_left_untouched() {
    let text = scratch("text");
    std::fs::write(&text, "hello, this is a text file, not a database\n").unwrap();
    assert_refused_untouched(&text, |e| matches!(e, StoreError::NotAStore { .. }));

    let garbage = scratch("garbage");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend(std::iter::repeat_n(0xA5u8, 4096));
    std::fs::write(&garbage, &bytes).unwrap();
    assert_refused_untouched(&garbage, |e| {
        matches!(e, StoreError::NotAStore { .. } | StoreError::Corrupt(_))
    });

    let foreign = scratch("foreign");
    {
        let conn = rusqlite_connection(&foreign);
        conn.execute_batch("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL);")
            .unwrap();
    }
    assert_refused_untouched(&foreign, |e| matches!(e, StoreError::NotAStore { .. }));
}

#[test]
fn a_database_from_a_newer_schema_is_refused() {
    let path = scratch("newer");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(SqliteStore::open(&path)).unwrap();
    {
        let conn = rusqlite_connection(&path);
        conn.pragma_update(None, "user_version", 99).unwrap();
        conn.pragma_update(None, "journal_mode", "DELETE").unwrap();
    }
    assert_refused_untouched(
        &path,
        |e| matches!(e, StoreError::NewerSchema { found: 99, supported, .. } if *supported == index_negotiation_store_sqlite::CURRENT_SCHEMA_VERSION),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_primary_key_reports_a_taken_index_as_raced() {
    let path = scratch("raced");
    let store = SqliteStore::open(&path).await.unwrap();
    open_pair(&store).await;
    let first = Negotiations::new(&store)
        .execute(
            &opp(),
            &"alice".parse().unwrap(),
            NegotiationTurn::new(Propose, "first"),
        )
        .await
        .unwrap();
    assert!(first.is_ok());
    // Deciders that ignore the log and claim index 0 again.
    assert_eq!(
        commit_stale(&store, Counter).await,
        Some(NegotiationRejection::CounterIsFirst)
    );
    assert_eq!(
        commit_stale(&store, Propose).await,
        Some(NegotiationRejection::Raced)
    );
    let state = store.read_negotiation_state(&opp()).await.unwrap().unwrap();
    assert_eq!(state.turns.len(), 1);
    assert_eq!(
        state.awaiting_user_id.as_ref().map(UserId::as_str),
        Some("bob"),
        "the raced commit applied nothing"
    );
}

/// Commits `action` for bob through a decider that sees an empty log, so a
/// permitted turn claims index 0, which is already taken.
async fn commit_stale(
    store: &SqliteStore,
    action: NegotiationAction,
) -> Option<NegotiationRejection> {
    let turn = NegotiationTurn::new(action, "stale");
    let stale = Box::new(|state: Option<&NegotiationState>, user: &_, turn: &_| {
        let mut stale = state.cloned().unwrap();
        stale.turns.clear();
        stale.awaiting_user_id = Some("bob".parse().unwrap());
        decide_negotiation_turn(Some(&stale), user, turn)
    });
    store
        .commit_negotiation_turn(&opp(), &"bob".parse().unwrap(), &turn, stale)
        .await
        .unwrap()
        .rejection()
}

/// A raw SQLite connection, used only to build hostile files.
fn rusqlite_connection(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

/// The file's bytes and which of its sidecar files exist.
fn snapshot(path: &Path) -> (Vec<u8>, bool, bool) {
    let sidecar = |suffix: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        Path::new(&name).exists()
    };
    (
        std::fs::read(path).unwrap(),
        sidecar("-wal"),
        sidecar("-shm"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opening_for_reading_writes_nothing_and_creates_nothing() {
    let path = scratch("read-only");
    let read_only = SqliteOptions::default().with_access(Access::ReadOnly);
    let missing = SqliteStore::open_with(&path, read_only.clone()).await;
    assert!(
        matches!(missing, Err(StoreError::Missing { .. })),
        "{missing:?}"
    );
    let existing = SqliteStore::open_with(
        &path,
        SqliteOptions::default().with_access(Access::Existing),
    )
    .await;
    assert!(
        matches!(existing, Err(StoreError::Missing { .. })),
        "{existing:?}"
    );
    assert!(!path.exists(), "neither mode creates the file");

    {
        let store = SqliteStore::open(&path).await.unwrap();
        open_pair(&store).await;
        assert!(step(&store, "alice").await);
    }
    let before = snapshot(&path);
    assert_eq!(
        (before.1, before.2),
        (false, false),
        "the last writer cleaned up"
    );

    let reader = SqliteStore::open_with(&path, read_only).await.unwrap();
    let state = reader
        .read_negotiation_state(&opp())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(state.turns.len(), 1);
    assert_eq!(
        reader
            .list_negotiations(&"bob".parse().unwrap(), &ListFilter::default())
            .await
            .unwrap()
            .len(),
        1
    );
    reader.check_integrity().await.unwrap();
    let write = reader
        .append_message(
            &opp(),
            &NegotiationMessage {
                sender_id: "bob".into(),
                parts: vec![MessagePart::Text { text: "hi".into() }],
            },
        )
        .await;
    assert!(
        matches!(write, Err(StoreError::InvalidRequest(_))),
        "{write:?}"
    );
    drop(reader);
    assert_eq!(
        snapshot(&path),
        before,
        "not a byte changed, no -wal or -shm left"
    );

    // Reopening for writing an up-to-date store does not touch the header.
    let writer = SqliteStore::open_with(
        &path,
        SqliteOptions::default().with_access(Access::Existing),
    )
    .await
    .unwrap();
    drop(writer);
    assert_eq!(snapshot(&path).0[..100], before.0[..100]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_sees_what_a_live_writer_commits() {
    let path = scratch("read-while-writing");
    let writer = SqliteStore::open(&path).await.unwrap();
    open_pair(&writer).await;
    let reader = SqliteStore::open_with(
        &path,
        SqliteOptions::default().with_access(Access::ReadOnly),
    )
    .await
    .unwrap();
    for (n, who) in ["alice", "bob", "alice"].into_iter().enumerate() {
        assert!(step(&writer, who).await);
        let state = reader
            .read_negotiation_state(&opp())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(state.turns.len(), n + 1);
    }
}

#[test]
fn a_store_that_needs_a_migration_is_not_migrated_for_reading() {
    let path = scratch("blank");
    std::fs::write(&path, b"").unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let opened = runtime.block_on(SqliteStore::open_with(
        &path,
        SqliteOptions::default().with_access(Access::ReadOnly),
    ));
    assert!(
        matches!(opened, Err(StoreError::Missing { .. })),
        "an empty file holds no store: {opened:?}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"");

    let old = rusqlite_connection(&path);
    old.execute_batch("PRAGMA application_id = 1229866072; PRAGMA user_version = 0; CREATE TABLE placeholder (x);").unwrap();
    drop(old);
    let before = std::fs::read(&path).unwrap();
    let opened = runtime.block_on(SqliteStore::open_with(
        &path,
        SqliteOptions::default().with_access(Access::ReadOnly),
    ));
    assert!(
        matches!(
            opened,
            Err(StoreError::NeedsMigration {
                found: 0,
                supported: index_negotiation_store_sqlite::CURRENT_SCHEMA_VERSION,
                ..
            })
        ),
        "{opened:?}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_change_feed_wakes_on_another_stores_commit() {
    let path = scratch("change-feed");
    let watcher = SqliteStore::open(&path).await.unwrap();
    let writer = SqliteStore::open(&path).await.unwrap();
    let mut feed = watcher
        .change_feed()
        .await
        .unwrap()
        .expect("SQLite has a feed");
    open_pair(&writer).await;
    tokio::time::timeout(Duration::from_secs(5), feed.recv())
        .await
        .expect("woken within the deadline")
        .expect("the feed is open");
    // Nothing else happens: no wake without a commit.
    assert!(
        tokio::time::timeout(Duration::from_millis(300), feed.recv())
            .await
            .is_err()
    );
    assert!(step(&writer, "alice").await);
    tokio::time::timeout(Duration::from_secs(5), feed.recv())
        .await
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_log_with_a_gap_is_corrupt_not_short() {
    let path = scratch("gap");
    let store = SqliteStore::open(&path).await.unwrap();
    open_pair(&store).await;
    for who in ["alice", "bob", "alice"] {
        assert!(step(&store, who).await);
    }
    let raw = rusqlite_connection(&path);
    raw.execute("UPDATE turns SET turn_index = 20 WHERE turn_index = 2", [])
        .unwrap();
    drop(raw);
    let read = store.read_negotiation_state(&opp()).await;
    assert!(
        matches!(&read, Err(StoreError::Corrupt(why)) if why.contains("not dense")),
        "{read:?}"
    );
    let turn = Negotiations::new(&store)
        .execute(
            &opp(),
            &"bob".parse().unwrap(),
            NegotiationTurn::new(Counter, "On a broken log?"),
        )
        .await;
    assert!(
        matches!(turn, Err(StoreError::Corrupt(_))),
        "nothing is decided on a broken log: {turn:?}"
    );
}
