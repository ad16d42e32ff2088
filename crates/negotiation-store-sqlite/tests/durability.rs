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
use std::time::Duration;

use index_negotiation::NegotiationAction::{self, Counter, Decline, Propose};
use index_negotiation::{
    Decision, NEGOTIATION_MAX_TURNS, NegotiationRejection, NegotiationState, NegotiationTurn,
    decide_negotiation_resume, decide_negotiation_turn,
};
use index_negotiation_store::Actor;
use index_negotiation_store::AuditStep;
use index_negotiation_store::{
    ListFilter, NegotiationStore, Negotiations, OpenNegotiation, OpportunityId, Seat, StoreError,
    UserId,
};
use index_negotiation_store_sqlite::{Access, SqliteOptions, SqliteStore, Synchronous};

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
    open_negotiation(store, &opp()).await;
}

/// Opens `id` between alice and bob.
async fn open_negotiation<S: NegotiationStore>(store: &S, id: &OpportunityId) {
    let request = OpenNegotiation {
        opportunity_id: id.clone(),
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
    Negotiations::new(store)
        .open(&request, &Actor::operator())
        .await
        .unwrap();
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
        let (decision, _) = service
            .execute(
                &opp(),
                &who.parse().unwrap(),
                NegotiationTurn::new(action, "step"),
                &Actor::operator(),
            )
            .await
            .unwrap();
        return decision.is_ok();
    }
    service
        .resume(&opp(), &who.parse().unwrap(), &Actor::operator())
        .await
        .unwrap()
        .0
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
        // A round to the turn limit, then a park, so the record holds a
        // message too.
        for who in ["alice", "bob"].repeat(NEGOTIATION_MAX_TURNS / 2) {
            assert!(step(&store, who).await);
        }
        let park = index_negotiation_store::conformance::park_turn("budget");
        let (parked, _) = Negotiations::new(&store)
            .park(&opp(), &"alice".parse().unwrap(), &park, &Actor::operator())
            .await
            .unwrap();
        assert!(parked.is_ok(), "{parked:?}");
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
    assert_eq!(after.0.unwrap().turns.len(), NEGOTIATION_MAX_TURNS);
    assert_eq!(after.1.len(), 1, "the park's message");
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
                        &Actor::operator(),
                    )
                    .await
                    .unwrap()
                    .0
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
    let (first, _) = Negotiations::new(&store)
        .execute(
            &opp(),
            &"alice".parse().unwrap(),
            NegotiationTurn::new(Propose, "first"),
            &Actor::operator(),
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
        .commit_turn(
            &opp(),
            &"bob".parse().unwrap(),
            &turn,
            &Actor::operator(),
            stale,
        )
        .await
        .unwrap()
        .0
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
            .negotiations
            .len(),
        1
    );
    reader.check_integrity().await.unwrap();
    // Bob's turn, which a writer would take, is refused before anything
    // is decided.
    let write = Negotiations::new(&reader)
        .execute(
            &opp(),
            &"bob".parse().unwrap(),
            NegotiationTurn::new(Counter, "From a reader?"),
            &Actor::operator(),
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
            &Actor::operator(),
        )
        .await;
    assert!(
        matches!(turn, Err(StoreError::Corrupt(_))),
        "nothing is decided on a broken log: {turn:?}"
    );
}

/// Which part a child process of the multi-process tests plays, and on
/// which file: `INDEX_SQLITE_TEST_ROLE` is `writer`, `reader`, `opener` or
/// `looper`.
const ROLE_ENV: &str = "INDEX_SQLITE_TEST_ROLE";
const PATH_ENV: &str = "INDEX_SQLITE_TEST_PATH";
const COMMITS_ENV: &str = "INDEX_SQLITE_TEST_COMMITS";

/// The negotiations the racers share.
fn race_ids() -> Vec<OpportunityId> {
    (0..6u32)
        .map(|n| OpportunityId::parse(format!("3c9a7e21-5b4d-4f08-9e6a-{n:012x}")).unwrap())
        .collect()
}

/// A new store at `name` with the shared negotiations open, and a runtime
/// to drive it from a plain test.
fn race_store(name: &str) -> (PathBuf, tokio::runtime::Runtime) {
    let path = scratch(name);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = SqliteStore::open(&path).await.unwrap();
        for id in race_ids() {
            open_negotiation(&store, &id).await;
        }
    });
    (path, runtime)
}

/// Takes turns on the shared negotiations through `store` until `commits`
/// were permitted (forever without a count), handing each `(id, index)` to
/// `acknowledged` as soon as its commit returned. Returns how many commits
/// it attempted (refusals included).
async fn take_turns(
    store: &SqliteStore,
    commits: Option<u64>,
    mut acknowledged: impl FnMut(&OpportunityId, usize),
) -> u64 {
    let service = Negotiations::new(store);
    let ids = race_ids();
    let (mut won, mut attempts) = (0u64, 0u64);
    for n in 0usize.. {
        if commits.is_some_and(|commits| won >= commits) {
            break;
        }
        let id = &ids[n % ids.len()];
        let state = store.read_negotiation_state(id).await.unwrap().unwrap();
        let Some(who) = state.awaiting_user_id.clone() else {
            let _ = service
                .resume(id, &"alice".parse().unwrap(), &Actor::operator())
                .await
                .unwrap();
            continue;
        };
        let Some(action) = index_negotiation::observe_negotiation(&state, &who)
            .available_actions
            .into_iter()
            .find(|a| *a == Propose || *a == Counter)
        else {
            continue;
        };
        let turn = NegotiationTurn::new(action, format!("turn {n}"));
        attempts += 1;
        match service
            .execute(id, &who, turn, &Actor::operator())
            .await
            .unwrap()
            .0
        {
            Decision::Permitted(permitted) => {
                won += 1;
                acknowledged(id, permitted.turn_index);
            }
            // Another process moved first; the rules said so.
            Decision::Refused(rejection) => assert!(
                matches!(
                    rejection,
                    NegotiationRejection::NotYourTurn
                        | NegotiationRejection::CounterIsFirst
                        | NegotiationRejection::ProposeOverOffer
                        | NegotiationRejection::Raced
                ),
                "{rejection}"
            ),
        }
    }
    attempts
}

/// A writer process: takes turns from a store of its own, printing
/// `ID INDEX` for each acknowledged turn at once, so a parent that kills it
/// knows what it was told, and `attempts N` when it is done.
fn race_writer(path: &str, commits: Option<u64>) {
    use std::io::Write;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let options = SqliteOptions::default().with_access(Access::Existing);
        let store = SqliteStore::open_with(path, options).await.unwrap();
        let mut stdout = std::io::stdout().lock();
        let attempts = take_turns(&store, commits, |id, index| {
            writeln!(stdout, "{id} {index}").unwrap();
            stdout.flush().unwrap();
        })
        .await;
        writeln!(stdout, "attempts {attempts}").unwrap();
    });
}

/// A short-lived reader: opens the store read-only and reads every shared
/// negotiation; or, as an `opener`, opens it for writing and reads. Either
/// way its connections close while the writers hold theirs.
fn race_reader(path: &str, access: Access) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = SqliteStore::open_with(path, SqliteOptions::default().with_access(access))
            .await
            .unwrap();
        for id in race_ids() {
            assert!(store.read_negotiation_state(&id).await.unwrap().is_some());
        }
    });
}

/// Runs this test binary as a child playing `role`.
fn child(role: &str, path: &Path, commits: Option<u64>) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "child_process",
            "--test-threads=1",
            "--quiet",
            "--nocapture",
        ])
        .env(ROLE_ENV, role)
        .env(PATH_ENV, path)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit());
    if let Some(commits) = commits {
        command.env(COMMITS_ENV, commits.to_string());
    }
    command
}

/// The entry point of every child process (a no-op when run as a test).
#[test]
fn child_process() {
    let (Ok(role), Ok(path)) = (std::env::var(ROLE_ENV), std::env::var(PATH_ENV)) else {
        return;
    };
    let commits = std::env::var(COMMITS_ENV).ok().map(|n| n.parse().unwrap());
    match role.as_str() {
        "writer" => race_writer(&path, commits),
        "reader" => race_reader(&path, Access::ReadOnly),
        "opener" => race_reader(&path, Access::Existing),
        "looper" => question_looper(&path),
        other => panic!("unknown role {other}"),
    }
}

/// The `ID INDEX` lines a writer printed: one per acknowledged turn.
fn acknowledged(stdout: &[u8]) -> Vec<(String, usize)> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|line| !line.starts_with("attempts "))
        .filter_map(|line| {
            let (id, index) = line.split_once(' ')?;
            Some((id.to_owned(), index.parse().ok()?))
        })
        .collect()
}

/// Every turn in the store, as `(id, index)`, and each log replayed.
async fn turns_found(store: &SqliteStore) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    for id in race_ids() {
        let state = store.read_negotiation_state(&id).await.unwrap().unwrap();
        assert_replays(&state);
        found.extend((0..state.turns.len()).map(|index| (id.to_string(), index)));
    }
    found
}

const WRITERS: u64 = 4;
const COMMITS_PER_WRITER: u64 = 2_500;

#[test]
fn writer_processes_lose_and_double_nothing_while_readers_come_and_go() {
    let (path, runtime) = race_store("processes");
    // Each writer's acknowledgements are collected as they come, so none
    // ever waits on a full pipe.
    let writers: Vec<_> = (0..WRITERS)
        .map(|_| {
            let writer = child("writer", &path, Some(COMMITS_PER_WRITER))
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            std::thread::spawn(move || writer.wait_with_output().unwrap())
        })
        .collect();
    // This process is a host meanwhile: a long-lived store with its change
    // feed, writing between the short-lived processes and stores that open,
    // read and close the file (some read-only, some for writing; some in
    // this very process, beside the host's connections).
    let host = runtime.block_on(SqliteStore::open(&path)).unwrap();
    let feed = runtime.block_on(host.change_feed()).unwrap();
    let mut acked = Vec::new();
    let (mut processes, mut stores, mut attempts) = (0u32, 0u32, 0u64);
    while writers.iter().any(|writer| !writer.is_finished()) {
        attempts += runtime.block_on(take_turns(&host, Some(5), |id, index| {
            acked.push((id.to_string(), index));
        }));
        let role = if processes % 3 == 2 {
            "opener"
        } else {
            "reader"
        };
        let status = child(role, &path, None)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "a {role} failed");
        processes += 1;
        runtime.block_on(async {
            // A store opened beside the host's sees all the host was told.
            let options = SqliteOptions::default().with_access(Access::ReadOnly);
            let reader = SqliteStore::open_with(&path, options).await.unwrap();
            for id in race_ids() {
                let logged = reader.read_negotiation_state(&id).await.unwrap().unwrap();
                let id = id.to_string();
                assert!(
                    acked
                        .iter()
                        .all(|(of, index)| *of != id || *index < logged.turns.len()),
                    "a turn the host committed is missing from {id}"
                );
            }
        });
        stores += 1;
    }
    drop((feed, host));
    let host_commits = acked.len();
    for writer in writers {
        let out = writer.join().unwrap();
        attempts += String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|line| line.strip_prefix("attempts ")?.parse::<u64>().ok())
            .expect("a writer that finished says how often it tried");
        assert!(out.status.success(), "a writer failed");
        acked.extend(acknowledged(&out.stdout));
    }
    let found = runtime.block_on(async {
        let store = SqliteStore::open(&path).await.unwrap();
        store.check_integrity().await.unwrap();
        turns_found(&store).await
    });
    let total = usize::try_from(WRITERS * COMMITS_PER_WRITER).unwrap();
    assert_eq!(
        acked.len(),
        total + host_commits,
        "every writer made its commits"
    );
    let mut sorted = acked.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), acked.len(), "no turn index was granted twice");
    let mut found_sorted = found.clone();
    found_sorted.sort();
    assert_eq!(
        found_sorted, sorted,
        "every acknowledged turn is stored, and nothing else"
    );
    eprintln!(
        "{WRITERS} writer processes and this one ({host_commits} commits), {attempts} attempts, {} commits acknowledged, {} found; {processes} reader processes, {stores} reader stores",
        acked.len(),
        found.len()
    );
    let (_, wal, shm) = snapshot(&path);
    assert!(!wal && !shm, "the last process to close cleaned up");
}

/// The `-wal` file's bytes, if there is one.
fn wal_bytes(path: &Path) -> Option<Vec<u8>> {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    std::fs::read(name).ok()
}

const KILLS: usize = 5;

#[test]
fn writers_killed_mid_write_lose_nothing_they_acknowledged() {
    use std::io::BufRead;
    let (path, runtime) = race_store("killed");
    let mut acked = Vec::new();
    for kill in 0..KILLS {
        let mut writer = child("writer", &path, None)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(writer.stdout.take().unwrap()).lines();
        // Let it write a while, then kill it without warning.
        let started = acked.len();
        while acked.len() < started + 40 {
            let Some(line) = lines.next() else { break };
            acked.extend(acknowledged(line.unwrap().as_bytes()));
        }
        writer.kill().unwrap();
        writer.wait().unwrap();
        // What it printed before it died was acknowledged too.
        for line in lines {
            acked.extend(acknowledged(line.unwrap().as_bytes()));
        }
        assert!(acked.len() >= started + 40, "writer {kill} made progress");
        // A read-only process on the file the killed writer left: it reads
        // through the hot log and leaves it, and the file, as they were.
        let (file, _, _) = snapshot(&path);
        let wal = wal_bytes(&path);
        assert!(wal.is_some(), "a killed writer leaves its log");
        let status = child("reader", &path, None)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "the reader after kill {kill} failed");
        assert!(snapshot(&path).0 == file, "a read changed the file");
        assert!(wal_bytes(&path) == wal, "a read changed the log");
    }
    runtime.block_on(async {
        let store = SqliteStore::open(&path).await.unwrap();
        store.check_integrity().await.unwrap();
        let found = turns_found(&store).await;
        for turn in &acked {
            assert!(found.contains(turn), "acknowledged {turn:?} is lost");
        }
        // A commit may land in the moment between its commit and its line.
        assert!(
            found.len() <= acked.len() + KILLS,
            "{} found for {} acknowledged",
            found.len(),
            acked.len()
        );
        eprintln!(
            "{KILLS} writers killed: {} commits acknowledged, {} found",
            acked.len(),
            found.len()
        );
        // And the store still works.
        let mut more = 0;
        take_turns(&store, Some(1), |_, _| more += 1).await;
        assert_eq!(more, 1);
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overlapping_readers_of_a_quiet_store_leave_nothing_behind() {
    let path = scratch("overlapping-readers");
    {
        let store = SqliteStore::open(&path).await.unwrap();
        open_pair(&store).await;
        assert!(step(&store, "alice").await);
    }
    let before = snapshot(&path);
    let read_only = SqliteOptions::default().with_access(Access::ReadOnly);
    let first = SqliteStore::open_with(&path, read_only.clone())
        .await
        .unwrap();
    assert!(
        first
            .read_negotiation_state(&opp())
            .await
            .unwrap()
            .is_some()
    );
    // The second opens while the first's (empty) log is there.
    let second = SqliteStore::open_with(&path, read_only).await.unwrap();
    assert!(
        second
            .read_negotiation_state(&opp())
            .await
            .unwrap()
            .is_some()
    );
    drop(first);
    drop(second);
    assert!(
        snapshot(&path) == before,
        "the file as it was, no -wal or -shm left"
    );
}

/// A question-loop process: round after round on the shared negotiations,
/// plays each round to the turn limit, parks it, answers the park, and
/// goes on, forever, printing `parked ID N` and `answered ID N` (N the
/// ask round) the moment each commit returns; a parent kills it anywhere.
fn question_looper(path: &str) {
    use index_negotiation_store::QuestionLoopSettings;
    use std::io::Write;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let options = SqliteOptions::default().with_access(Access::Existing);
        let store = SqliteStore::open_with(path, options).await.unwrap();
        let service = Negotiations::with_settings(
            &store,
            QuestionLoopSettings {
                ask_rounds_cap: 1 << 20,
            },
        );
        let park = index_negotiation_store::conformance::park_turn("budget");
        let mut stdout = std::io::stdout().lock();
        let ids = race_ids();
        for n in 0usize.. {
            let id = &ids[n % ids.len()];
            let state = store.read_negotiation_state(id).await.unwrap().unwrap();
            if let Some(owner) = state.waiting_on().cloned() {
                let (answered, _) = service
                    .answer(id, &owner, &format!("answer {n}"), &Actor::operator())
                    .await
                    .unwrap();
                if answered.is_ok() {
                    writeln!(stdout, "answered {id} {}", state.ask_rounds).unwrap();
                }
            } else if let Some(who) = state.awaiting_user_id.clone() {
                let action = index_negotiation::observe_negotiation(&state, &who)
                    .available_actions
                    .into_iter()
                    .find(|a| *a == Propose || *a == Counter);
                if let Some(action) = action {
                    let turn = NegotiationTurn::new(action, format!("turn {n}"));
                    service
                        .execute(id, &who, turn, &Actor::operator())
                        .await
                        .unwrap();
                }
            } else {
                let who: UserId = if n % 2 == 0 { "alice" } else { "bob" }.parse().unwrap();
                match service
                    .park(id, &who, &park, &Actor::operator())
                    .await
                    .unwrap()
                    .0
                {
                    Decision::Permitted(permitted) => {
                        writeln!(stdout, "parked {id} {}", permitted.ask_rounds).unwrap();
                    }
                    Decision::Refused(rejection) => panic!("a stalled round parks: {rejection}"),
                }
            }
            stdout.flush().unwrap();
        }
    });
}

/// A question-loop process killed again and again, wherever it is: every
/// park and answer it was told of is in the store, an answer is never on
/// record without its resume (nor the reverse), and the loop goes on.
#[test]
fn question_loops_killed_between_park_and_answer_lose_and_half_apply_nothing() {
    use std::io::BufRead;
    let (path, runtime) = race_store("killed-loop");
    let mut acked: Vec<(String, String, usize)> = Vec::new();
    for kill in 0..KILLS {
        let mut looper = child("looper", &path, None)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(looper.stdout.take().unwrap()).lines();
        let read = |line: String| {
            let mut words = line.split(' ');
            Some((
                words.next()?.to_owned(),
                words.next()?.to_owned(),
                words.next()?.parse().ok()?,
            ))
        };
        let started = acked.len();
        // A different number of steps each time, so the kill lands in
        // different places of the loop.
        while acked.len() < started + 11 + 3 * kill {
            let Some(line) = lines.next() else { break };
            acked.extend(read(line.unwrap()));
        }
        looper.kill().unwrap();
        looper.wait().unwrap();
        acked.extend(lines.map_while(Result::ok).filter_map(read));
        assert!(acked.len() > started, "looper {kill} made progress");
    }
    runtime.block_on(async {
        let store = SqliteStore::open(&path).await.unwrap();
        store.check_integrity().await.unwrap();
        assert_eq!(store.check().await.unwrap(), Vec::<String>::new());
        let (mut parks, mut answers) = (0, 0);
        for id in race_ids() {
            let state = store.read_negotiation_state(&id).await.unwrap().unwrap();
            let messages = store.list_messages(&id).await.unwrap();
            let asked = messages.iter().filter(|m| m.is_ask_user()).count();
            let answered = messages
                .iter()
                .filter(|m| {
                    m.data().and_then(|d| d.get("action")).and_then(|a| a.as_str())
                        == Some(index_negotiation::ASK_USER_ANSWER_ACTION)
                })
                .count();
            let open = state.waiting_on().is_some();
            assert_eq!(asked, state.ask_rounds, "{id}: one park message per ask round");
            assert_eq!(answered + usize::from(open), asked, "{id}: every closed park has its answer");
            if open {
                assert_eq!(state.awaiting_user_id, None, "{id}: parked, nobody moves");
            }
            for (what, acked_id, round) in &acked {
                if *acked_id != id.to_string() {
                    continue;
                }
                assert!(*round <= state.ask_rounds, "{id}: acknowledged {what} {round} is lost");
                if what == "answered" {
                    assert!(*round < state.ask_rounds || !open, "{id}: answer {round} is lost");
                }
            }
            parks += asked;
            answers += answered;
        }
        eprintln!(
            "{KILLS} question loops killed: {} commits acknowledged; {parks} parks and {answers} answers found",
            acked.len()
        );
        assert!(parks > 0 && answers > 0);
    });
}

/// A key is looked up right on the caller's thread when it can be, on a
/// connection of the store's own: a revoke committed through another store
/// on the file is seen by the very next lookup, from a runtime with one
/// thread or several.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_revoked_by_another_store_is_found_revoked_at_once() {
    use index_negotiation_store::{ApiKeyRecord, ApiKeyStore, KeyHash, KeyScope, UnixTime};
    let path = scratch("keys");
    let host = SqliteStore::open(&path).await.unwrap();
    let tool = SqliteStore::open(&path).await.unwrap();
    for n in 0..20u8 {
        let key = ApiKeyRecord::new(
            format!("key-{n}"),
            KeyHash([n; 32]),
            UserId::parse("alice").unwrap(),
            KeyScope::Agent,
            UnixTime(1_700_000_000),
        );
        assert!(
            tool.insert_api_key(&key, AuditStep::KeyCreated, &Actor::operator())
                .await
                .unwrap()
        );
        let found = host.find_api_key(&KeyHash([n; 32])).await.unwrap().unwrap();
        assert!(
            !found.revoked,
            "a key made by another store is found at once"
        );
        assert_eq!(
            tool.revoke_api_key(&key.id, AuditStep::KeyRevoked, &Actor::operator())
                .await
                .unwrap(),
            index_negotiation_store::Revocation::Revoked
        );
        let found = host.find_api_key(&KeyHash([n; 32])).await.unwrap().unwrap();
        assert!(
            found.revoked,
            "key {n}: a revoke by another store is seen at the next lookup"
        );
    }
    // Lookups from many tasks at once: those that find the quick
    // connection taken read through the pool, and all agree.
    let host = std::sync::Arc::new(host);
    let lookups: Vec<_> = (0..64u8)
        .map(|n| {
            let host = host.clone();
            tokio::spawn(async move { host.find_api_key(&KeyHash([n % 20; 32])).await })
        })
        .collect();
    for lookup in lookups {
        assert!(lookup.await.unwrap().unwrap().unwrap().revoked);
    }
}
