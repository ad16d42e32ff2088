//! `SqliteStore::check` against damage done behind the store's back: a
//! store written by the store passes, and each way of breaking a rule the
//! readers rely on is reported, named after its negotiation or key.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use index_negotiation::{NegotiationAction, NegotiationTurn};
use index_negotiation_store::Actor;
use index_negotiation_store::AuditStep;
use index_negotiation_store::conformance::park_turn;
use index_negotiation_store::{
    ApiKeyRecord, ApiKeyStore, CloseReason, KeyHash, KeyScope, NegotiationStore, Negotiations,
    OpenNegotiation, OpportunityId, Seat, UnixTime, UserId,
};
use index_negotiation_store_sqlite::{Access, SqliteOptions, SqliteStore};

/// Parked on a question after a full round, answered, and two turns into
/// the next round: 14 turns, the round in progress from turn 12.
const PARKED: &str = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36";
/// Proposed and declined: the round ended, nobody to move.
const DECLINED: &str = "1d7fab63-4c2e-4a8f-b3d9-6ea5f2c18a47";
/// Proposed and accepted.
const AGREED: &str = "2e80bc74-5d3f-4b9a-84ea-7fb6a3d29b58";
/// Proposed, then closed by its host.
const CLOSED: &str = "3f91cd85-6e4a-4cab-95fb-80c7b4e3ac69";
/// Accepted on the twelfth turn of its round.
const FULL_ACCEPT: &str = "40a2de96-7f5b-4dbc-a60c-91d8c5f4bd7a";

/// The agent key's id.
const KEY: &str = "3f9a1c2b7d10";

fn user(name: &str) -> UserId {
    name.parse().unwrap()
}

fn opp(id: &str) -> OpportunityId {
    id.parse().unwrap()
}

async fn open(service: &Negotiations<SqliteStore>, id: &str, seats: [(&str, &str); 2]) {
    let seat = |(user_id, intent): (&str, &str)| Seat {
        user_id: user(user_id),
        intent_id: intent.parse().unwrap(),
    };
    let opened = service
        .open(
            &OpenNegotiation {
                opportunity_id: opp(id),
                initiator: seat(seats[0]),
                responder: seat(seats[1]),
                eligible: true,
            },
            &Actor::operator(),
        )
        .await
        .unwrap();
    assert!(
        matches!(opened, index_negotiation_store::OpenDecision::Opened { .. }),
        "{opened:?}"
    );
}

async fn turn(
    service: &Negotiations<SqliteStore>,
    id: &str,
    who: &str,
    action: NegotiationAction,
    message: &str,
) {
    let (decision, _) = service
        .execute(
            &opp(id),
            &user(who),
            NegotiationTurn::new(action, message),
            &Actor::operator(),
        )
        .await
        .unwrap();
    assert!(decision.is_ok(), "{id}: {who} {action}: {decision:?}");
}

/// `who` and `other` take turns from a proposal by `who`, `count` of them.
async fn alternate(
    service: &Negotiations<SqliteStore>,
    id: &str,
    [who, other]: [&str; 2],
    count: usize,
) {
    for n in 0..count {
        let (seat, action) = match n {
            0 => (who, NegotiationAction::Propose),
            n if n % 2 == 1 => (other, NegotiationAction::Counter),
            _ => (who, NegotiationAction::Counter),
        };
        turn(service, id, seat, action, "Still talking.").await;
    }
}

/// A store with a negotiation in each shape the rules allow, its record,
/// and keys as the host makes them, written through the store alone.
async fn write_clean(path: &Path) {
    let store = SqliteStore::open(path).await.unwrap();
    let service = Negotiations::new(store.clone());

    open(&service, PARKED, [("dana", "hire"), ("sam", "join")]).await;
    alternate(&service, PARKED, ["dana", "sam"], 12).await;
    let (parked, _) = service
        .park(
            &opp(PARKED),
            &user("dana"),
            &park_turn("budget"),
            &Actor::operator(),
        )
        .await
        .unwrap();
    assert!(parked.is_ok(), "{parked:?}");
    let (answered, _) = service
        .answer(&opp(PARKED), &user("dana"), " Low\n", &Actor::operator())
        .await
        .unwrap();
    assert!(answered.is_ok(), "{answered:?}");
    turn(
        &service,
        PARKED,
        "dana",
        NegotiationAction::Propose,
        "  Low it is.\n",
    )
    .await;
    turn(
        &service,
        PARKED,
        "sam",
        NegotiationAction::Counter,
        "How low?",
    )
    .await;

    open(&service, DECLINED, [("alex", "design"), ("kim", "build")]).await;
    turn(
        &service,
        DECLINED,
        "alex",
        NegotiationAction::Propose,
        "Intro call?",
    )
    .await;
    turn(
        &service,
        DECLINED,
        "kim",
        NegotiationAction::Decline,
        "Not now.",
    )
    .await;

    open(&service, AGREED, [("alex", "design-2"), ("lee", "build")]).await;
    turn(
        &service,
        AGREED,
        "alex",
        NegotiationAction::Propose,
        "Intro call?",
    )
    .await;
    turn(&service, AGREED, "lee", NegotiationAction::Accept, "Deal.").await;

    open(&service, CLOSED, [("kim", "build-2"), ("lee", "design")]).await;
    turn(
        &service,
        CLOSED,
        "kim",
        NegotiationAction::Propose,
        "Intro call?",
    )
    .await;
    store
        .close_negotiation(&opp(CLOSED), CloseReason::Passed, &Actor::operator())
        .await
        .unwrap()
        .unwrap();

    open(&service, FULL_ACCEPT, [("ana", "hire"), ("bo", "join")]).await;
    alternate(&service, FULL_ACCEPT, ["ana", "bo"], 10).await;
    turn(
        &service,
        FULL_ACCEPT,
        "ana",
        NegotiationAction::Propose,
        "Final offer.",
    )
    .await;
    turn(
        &service,
        FULL_ACCEPT,
        "bo",
        NegotiationAction::Accept,
        "Deal.",
    )
    .await;

    let mut agent = ApiKeyRecord::new(
        KEY,
        KeyHash([7; 32]),
        user("dana"),
        KeyScope::Agent,
        UnixTime(1_800_000_000),
    );
    // As long as a name may be: 64 characters, of two bytes each.
    agent.name = Some("é".repeat(64));
    agent.expires_at = Some(UnixTime(1_900_000_000));
    assert!(
        store
            .insert_api_key(&agent, AuditStep::KeyCreated, &Actor::operator())
            .await
            .unwrap()
    );
    let mut link = ApiKeyRecord::new(
        "a0b1c2d3e4f5",
        KeyHash([8; 32]),
        user("sam"),
        KeyScope::Agent,
        UnixTime(1_800_000_000),
    );
    link.name = Some("index: login link".to_owned());
    link.expires_at = Some(UnixTime(1_800_000_600));
    link.last_used_at = Some(UnixTime(1_800_000_100));
    link.revoked = true;
    assert!(
        store
            .insert_api_key(&link, AuditStep::KeyCreated, &Actor::operator())
            .await
            .unwrap()
    );
    let mut host = ApiKeyRecord::new(
        "99aa88bb77cc",
        KeyHash([9; 32]),
        user("host"),
        KeyScope::Host,
        UnixTime(0),
    );
    // Made before stores kept a key's making time.
    host.created_at = None;
    assert!(
        store
            .insert_api_key(&host, AuditStep::KeyCreated, &Actor::operator())
            .await
            .unwrap()
    );
}

/// A scratch directory with the clean store written once, copied for each
/// damage.
struct Fixture {
    dir: tempfile::TempDir,
    clean: PathBuf,
}

impl Fixture {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let clean = dir.path().join("clean.db");
        write_clean(&clean).await;
        // Everything in the database file, so a copy of it is the store.
        let raw = rusqlite::Connection::open(&clean).unwrap();
        raw.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        drop(raw);
        Fixture { dir, clean }
    }

    /// A copy of the clean store, `damage` done to it with plain SQL.
    fn damaged(&self, name: &str, damage: &str) -> PathBuf {
        let path = self.dir.path().join(format!("{name}.db"));
        std::fs::copy(&self.clean, &path).unwrap();
        let raw = rusqlite::Connection::open(&path).unwrap();
        raw.execute_batch(damage)
            .unwrap_or_else(|err| panic!("{damage}: {err}"));
        drop(raw);
        path
    }

    /// What the check finds in the store after `damage`.
    async fn problems(&self, name: &str, damage: &str) -> Vec<String> {
        check(&self.damaged(name, damage)).await
    }

    /// Asserts that each damage is reported with the problem expected.
    async fn assert_reported(&self, cases: &[(&str, &str)]) {
        for (n, (damage, expected)) in cases.iter().enumerate() {
            let problems = self.problems(&format!("case-{n}"), damage).await;
            assert!(
                problems.iter().any(|problem| problem.contains(expected)),
                "{damage}: {expected:?} not in {problems:#?}"
            );
        }
    }
}

/// `check` on the store at `path`, opened for reading as `store check`
/// opens it.
async fn check(path: &Path) -> Vec<String> {
    let options = SqliteOptions::default().with_access(Access::ReadOnly);
    let store = SqliteStore::open_with(path, options).await.unwrap();
    store.check().await.unwrap()
}

/// `UPDATE`'s `WHERE` for the negotiation `id`'s turns or messages.
fn of(id: &str) -> String {
    format!("negotiation_seq = (SELECT seq FROM negotiations WHERE id = '{id}')")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_written_by_the_store_passes() {
    let fixture = Fixture::new().await;
    assert_eq!(check(&fixture.clean).await, Vec::<String>::new());
    // Stores migrated to schema version 4 hold a round that an accept
    // filled as ended; that is theirs, not damage.
    let migrated = fixture
        .problems(
            "migrated",
            &format!("UPDATE negotiations SET round_start = 12 WHERE id = '{FULL_ACCEPT}'"),
        )
        .await;
    assert_eq!(migrated, Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_of_an_unknown_scope_is_reported() {
    let fixture = Fixture::new().await;
    let path = fixture.damaged(
        "root",
        &format!("UPDATE api_keys SET scope = 'root' WHERE id = '{KEY}'"),
    );
    // What `keys list` meets: the whole listing fails.
    let store = SqliteStore::open_with(
        &path,
        SqliteOptions::default().with_access(Access::ReadOnly),
    )
    .await
    .unwrap();
    assert!(store.list_api_keys().await.is_err());
    assert_eq!(
        store.check().await.unwrap(),
        [format!(
            "key {KEY}: stored data is corrupt: unknown key scope \"root\""
        )]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrimmed_turn_message_is_reported() {
    let fixture = Fixture::new().await;
    let problems = fixture
        .problems(
            "untrimmed",
            &format!(
                "UPDATE turns SET message = message || ' ' WHERE turn_index = 1 AND {}",
                of(PARKED)
            ),
        )
        .await;
    assert_eq!(
        problems,
        [format!(
            "negotiation {PARKED}: turn 1: its message is not stored trimmed"
        )]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_without_a_park_is_reported() {
    let fixture = Fixture::new().await;
    let problems = fixture
        .problems(
            "answer",
            &format!("UPDATE negotiations SET park_answer = 'Low' WHERE id = '{DECLINED}'"),
        )
        .await;
    assert_eq!(
        problems,
        [format!(
            "negotiation {DECLINED}: an answer is recorded without a park"
        )]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gap_in_the_message_record_is_reported() {
    let fixture = Fixture::new().await;
    let problems = fixture
        .problems(
            "gap",
            &format!(
                "UPDATE messages SET position = 5 WHERE position = 1 AND {}",
                of(PARKED)
            ),
        )
        .await;
    assert_eq!(
        problems,
        [format!(
            "negotiation {PARKED}: the message record is not dense: message 1 is stored at position 5"
        )]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_start_past_the_log_is_reported() {
    let fixture = Fixture::new().await;
    let problems = fixture
        .problems(
            "round",
            &format!("UPDATE negotiations SET round_start = 20 WHERE id = '{PARKED}'"),
        )
        .await;
    assert_eq!(
        problems,
        [format!(
            "negotiation {PARKED}: round_start is 20, past the log's 14 turns"
        )]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_negotiation_column_holds_what_the_store_writes() {
    let fixture = Fixture::new().await;
    let set = |assignment: &str, id: &str| {
        format!("UPDATE negotiations SET {assignment} WHERE id = '{id}'")
    };
    let cases = [
        (set("settled = 2", DECLINED), "settled holds 2, not 0 or 1"),
        (
            set("initiator_eligible = 'yes'", DECLINED),
            "initiator_eligible holds text, not 0 or 1",
        ),
        (
            set("turn_count = 'two'", DECLINED),
            "turn_count holds text, not an integer",
        ),
        (
            set("round_start = 1.5", DECLINED),
            "round_start holds a real number, not an integer",
        ),
        (
            set("outcome = x'07'", DECLINED),
            "outcome holds a blob, not text or NULL",
        ),
        (
            set("id = x'00'", DECLINED),
            "negotiations row 2: id holds a blob, not text",
        ),
        (
            set("park_question = x'7b7d'", PARKED),
            "park_question holds a blob, not text or NULL",
        ),
    ];
    let cases: Vec<(&str, &str)> = cases.iter().map(|(d, e)| (d.as_str(), *e)).collect();
    fixture.assert_reported(&cases).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_negotiation_row_is_held_to_what_its_commits_leave() {
    let fixture = Fixture::new().await;
    let set = |assignment: &str, id: &str| {
        format!("UPDATE negotiations SET {assignment} WHERE id = '{id}'")
    };
    let cases = [
        (
            set("responder_user_id = 'alex'", DECLINED),
            "alex holds both seats",
        ),
        (
            set("responder_intent_id = 'design'", DECLINED),
            "both seats hold the intent design",
        ),
        (
            set("turn_count = -1", DECLINED),
            "turn_count is -1, below 0",
        ),
        (
            set("ask_rounds = -1", DECLINED),
            "ask_rounds is -1, below 0",
        ),
        (
            set("last_change = 0", DECLINED),
            "last_change is 0; changes are numbered from 1",
        ),
        (
            format!(
                "DROP INDEX negotiations_by_change; {}",
                set(
                    &format!(
                        "last_change = (SELECT last_change FROM negotiations WHERE id = '{PARKED}')"
                    ),
                    DECLINED
                )
            ),
            "share last_change",
        ),
        (
            set("outcome = 'agreed'", DECLINED),
            "the outcome is agreed, but it is not settled",
        ),
        (
            set("outcome = NULL", AGREED),
            "settled, but no outcome is recorded",
        ),
        (
            set("status = 'expired'", DECLINED),
            "the status is expired, but it is not settled",
        ),
        (
            set("status = 'negotiating'", CLOSED),
            "the status is negotiating, but it is settled",
        ),
        (
            set("status = 'pending'", CLOSED),
            "the status is pending, but nothing was agreed",
        ),
        (
            set("park_user_id = NULL", PARKED),
            "a park holds a question but names no person",
        ),
        (
            set("park_question = NULL", PARKED),
            "a park names its person but no question",
        ),
        (
            set("park_answer = ' Low'", PARKED),
            "the park's answer is not stored trimmed",
        ),
        (
            set("park_answer = '  '", PARKED),
            "the park's answer is blank",
        ),
        (
            set(
                "park_answer = replace(hex(zeroblob(4001)), '00', 'x')",
                PARKED,
            ),
            "the park's answer is longer than 4000 UTF-16 code units",
        ),
        (
            set("ask_rounds = 2", PARKED),
            "ask_rounds is 2, but the message record holds 1 question",
        ),
        (
            set("window_start = 13", PARKED),
            "window_start is 13, after round_start 12",
        ),
        (
            set("window_start = -1", PARKED),
            "window_start is -1, before the log",
        ),
        (
            set("window_start = 12", PARKED),
            "window_start is 12, but the round before the one in progress starts at turn 0",
        ),
        (
            set("round_start = 13", PARKED),
            "round_start is 13, but the round in progress starts at turn 12",
        ),
    ];
    let cases: Vec<(&str, &str)> = cases.iter().map(|(d, e)| (d.as_str(), *e)).collect();
    fixture.assert_reported(&cases).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turns_and_messages_are_held_to_what_the_store_writes() {
    let fixture = Fixture::new().await;
    let cases = [
        (
            format!(
                "UPDATE turns SET message = x'41' WHERE turn_index = 0 AND {}",
                of(DECLINED)
            ),
            "turn 0: message holds a blob, not text",
        ),
        (
            format!(
                "UPDATE turns SET turn_index = 'one' WHERE turn_index = 1 AND {}",
                of(DECLINED)
            ),
            "a turn: turn_index holds text, not an integer",
        ),
        (
            format!(
                "UPDATE turns SET message = char(9) || message WHERE turn_index = 13 AND {}",
                of(PARKED)
            ),
            "turn 13: its message is not stored trimmed",
        ),
        (
            format!(
                "UPDATE messages SET parts = x'5b5d' WHERE position = 0 AND {}",
                of(PARKED)
            ),
            "the message at position 0: parts holds a blob, not text",
        ),
        (
            format!(
                "UPDATE messages SET position = 'first' WHERE position = 0 AND {}",
                of(PARKED)
            ),
            "a message: position holds text, not an integer",
        ),
        (
            format!(
                "UPDATE messages SET position = position + 10 WHERE {}",
                of(PARKED)
            ),
            "the message record is not dense: message 0 is stored at position 10",
        ),
        (
            format!(
                "UPDATE messages SET parts = '{{' WHERE position = 1 AND {}",
                of(PARKED)
            ),
            "a stored message does not read back",
        ),
    ];
    let cases: Vec<(&str, &str)> = cases.iter().map(|(d, e)| (d.as_str(), *e)).collect();
    fixture.assert_reported(&cases).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_key_is_held_to_what_its_readers_and_makers_take() {
    let fixture = Fixture::new().await;
    let set = |assignment: &str| format!("UPDATE api_keys SET {assignment} WHERE id = '{KEY}'");
    let cases = [
        (set("hash = zeroblob(31)"), "a key hash is not 32 bytes"),
        (set("hash = 'abc'"), "hash holds text, not a blob"),
        (set("user_id = ' '"), "a stored id"),
        (set("expires_at = -1"), "a stored time of -1 seconds"),
        (
            set("created_at = 'yesterday'"),
            "created_at holds text, not an integer or NULL",
        ),
        (
            set("last_used_at = 2.5"),
            "last_used_at holds a real number",
        ),
        (set("revoked = 2"), "revoked holds 2, not 0 or 1"),
        (set("name = ' laptop'"), "its name is not stored trimmed"),
        (set("name = ''"), "its name is blank"),
        (
            set("name = replace(hex(zeroblob(65)), '00', 'x')"),
            "its name is longer than 64 characters",
        ),
        (
            set("name = 'a' || char(10) || 'b'"),
            "its name holds a control character",
        ),
        (set("name = 'index: admin'"), "its name begins \"index:\""),
        (set("id = 'a b'"), "key a b: its id holds whitespace"),
        (set("id = ''"), "its id is empty"),
        (
            set("id = x'01'"),
            "api_keys row 1: id holds a blob, not text",
        ),
    ];
    let cases: Vec<(&str, &str)> = cases.iter().map(|(d, e)| (d.as_str(), *e)).collect();
    fixture.assert_reported(&cases).await;
}

/// A check of a store that a host commits to meanwhile reads it as it
/// stood at one moment: a row and its turns from two different moments
/// would disagree on how many turns there are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_during_commits_sees_one_moment() {
    const NEGOTIATIONS: usize = 40;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.db");
    let host = SqliteStore::open(&path).await.unwrap();
    let service = Negotiations::new(host.clone());
    let ids: Vec<String> = (0..NEGOTIATIONS)
        .map(|n| format!("5ab3ef07-8a6c-4ecd-b71d-{n:012x}"))
        .collect();
    for id in &ids {
        open(&service, id, [("dana", "hire"), ("sam", "join")]).await;
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = tokio::spawn({
        let stop = stop.clone();
        async move {
            let mut commits = 0_usize;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                for id in &ids {
                    // dana opens each round and resumes the next; twelve
                    // turns make a round.
                    let at = commits / NEGOTIATIONS;
                    let place = at % index_negotiation::NEGOTIATION_MAX_TURNS;
                    if place == 0 && at > 0 {
                        let (resumed, _) = service
                            .resume(&opp(id), &user("dana"), &Actor::operator())
                            .await
                            .unwrap();
                        assert!(resumed.is_ok(), "{resumed:?}");
                    }
                    let (who, action) = match place {
                        0 => ("dana", NegotiationAction::Propose),
                        n if n % 2 == 1 => ("sam", NegotiationAction::Counter),
                        _ => ("dana", NegotiationAction::Counter),
                    };
                    turn(&service, id, who, action, "Still talking.").await;
                    commits += 1;
                }
            }
            commits
        }
    });
    let options = SqliteOptions::default().with_access(Access::ReadOnly);
    let reader = SqliteStore::open_with(&path, options).await.unwrap();
    for _ in 0..100 {
        assert_eq!(reader.check().await.unwrap(), Vec::<String>::new());
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let commits = writer.await.unwrap();
    assert!(
        commits > NEGOTIATIONS,
        "the host committed during the checks"
    );
}
