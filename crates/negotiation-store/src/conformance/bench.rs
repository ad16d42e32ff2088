//! Drivers for the backends' benchmarks: commits, listings and the growth
//! of history.

use std::sync::atomic::{AtomicUsize, Ordering};

use index_negotiation::NEGOTIATION_MAX_TURNS;
use index_negotiation::NegotiationAction::{Counter, Propose};

use crate::{IntentId, ListFilter, NegotiationStore, OpenNegotiation, OpportunityId, Seat, UserId};

use super::fixtures::{ALICE, BOB, host, open, resume, turn, user};

/// Drives `commits` permitted commits through `store` for benchmarks: turns
/// alternate between the seats, each full round is followed by a resume
/// (which counts as a commit), and a fresh negotiation is opened every ten
/// rounds so logs stay the length real negotiations have.
pub async fn drive_commits<S: NegotiationStore>(store: &S, commits: u64) {
    static NEXT_NEGOTIATION: AtomicUsize = AtomicUsize::new(1_000_000);
    const COMMITS_PER_NEGOTIATION: u64 = 130;
    let mut id = None;
    for done in 0..commits {
        let position = done % COMMITS_PER_NEGOTIATION;
        if position == 0 {
            let n = NEXT_NEGOTIATION.fetch_add(1, Ordering::Relaxed);
            id = Some(open(store, u32::try_from(n).unwrap_or(u32::MAX)).await);
        }
        let Some(id) = id.as_ref() else { continue };
        let in_round = position % 13;
        let permitted = if in_round == 12 {
            resume(store, id, ALICE).await.is_ok()
        } else if in_round.is_multiple_of(2) {
            turn(store, id, ALICE, Propose).await.is_ok()
        } else {
            turn(store, id, BOB, Counter).await.is_ok()
        };
        assert!(permitted, "commit {done} was refused");
    }
}

/// [`drive_commits`] split across `lanes` tasks, each on its own
/// negotiations, all committing at once.
pub async fn drive_commits_in_parallel<S: NegotiationStore + Clone + 'static>(
    store: &S,
    lanes: u64,
    commits: u64,
) {
    let tasks: Vec<_> = (0..lanes)
        .map(|lane| {
            let store = store.clone();
            let share = commits / lanes + u64::from(lane < commits % lanes);
            tokio::spawn(async move { drive_commits(&store, share).await })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
}

/// Opens negotiations for list benchmarks: `count` where `who` holds a
/// seat (initiator and responder in turn, across from fifty others), the
/// last [`RARE_INTENT_ROWS`] for `who`'s intent `rare`, the rest for
/// `common`; ids numbered from `first`.
pub async fn open_for_listing<S: NegotiationStore>(store: &S, who: &str, first: u32, count: u32) {
    let seat = |user_id: UserId, intent: &str| Seat {
        intent_id: IntentId::parse(format!("{user_id}-{intent}")).unwrap(),
        user_id,
    };
    for n in 0..count {
        let intent = if n + RARE_INTENT_ROWS >= count {
            "rare"
        } else {
            "common"
        };
        let mine = seat(user(who), intent);
        let other = seat(user(&format!("{who}-peer-{}", n % 50)), "peer");
        let (initiator, responder) = if n % 2 == 0 {
            (mine, other)
        } else {
            (other, mine)
        };
        let number = first + n;
        let opened = store
            .insert_negotiation(
                &OpenNegotiation {
                    opportunity_id: OpportunityId::parse(format!(
                        "7a1e5c3b-2d4f-4e6a-8b9c-{number:012x}"
                    ))
                    .unwrap(),
                    initiator,
                    responder,
                    eligible: true,
                },
                &host(),
            )
            .await
            .unwrap();
        assert!(opened, "negotiation {number} was not opened");
    }
}

/// How many of a user's negotiations [`open_for_listing`] gives the intent
/// `rare`.
pub const RARE_INTENT_ROWS: u32 = 5;

/// Opens negotiation `n` (alice and bob) and plays `turns` turns on it
/// through the rules: rounds of [`NEGOTIATION_MAX_TURNS`] proposes and
/// counters, each resumed by the seat that moves first in the next, so the
/// log grows as a long negotiation's does. For growth benchmarks; returns
/// the id, with alice to move, or between rounds when `turns` ends one.
pub async fn open_with_turns<S: NegotiationStore>(
    store: &S,
    n: u32,
    turns: usize,
) -> OpportunityId {
    let id = open(store, n).await;
    for index in 0..turns {
        commit_next_turn(store, &id, index).await;
    }
    id
}

/// The next commit [`open_with_turns`] would make on a negotiation with
/// `turns` turns: a resume first when a round just ended, then the turn.
/// For growth benchmarks, which time it.
pub async fn commit_next_turn<S: NegotiationStore>(store: &S, id: &OpportunityId, turns: usize) {
    let in_round = turns % NEGOTIATION_MAX_TURNS;
    if in_round == 0 && turns > 0 {
        assert!(resume(store, id, ALICE).await.is_ok());
    }
    let (who, action) = if in_round.is_multiple_of(2) {
        (ALICE, Propose)
    } else {
        (BOB, Counter)
    };
    assert!(turn(store, id, who, action).await.is_ok(), "turn {turns}");
}

/// How large the growth benchmark makes history.
#[derive(Debug, Clone, Copy)]
pub struct GrowthScale {
    /// Turns of log before the timed commit, short and long.
    pub turns: [usize; 2],
    /// Negotiations timed at each length (one commit on each).
    pub negotiations: u32,
    /// A user's negotiations, few and many, for the listings.
    pub rows: [u32; 2],
    /// Times each listing is run, the mean counting.
    pub lists: u32,
}

impl GrowthScale {
    /// The scale the targets are stated at: a commit on 13 turns of log
    /// and on 1,201 (one turn into a round each, so the round view is as
    /// long in both); a user with 100 negotiations and one with 100,000.
    pub const FULL: GrowthScale = GrowthScale {
        turns: [13, 1_201],
        negotiations: 40,
        rows: [100, 100_000],
        lists: 200,
    };
    /// A short run of the same work, to show the benchmark still runs.
    pub const SHORT: GrowthScale = GrowthScale {
        turns: [13, 61],
        negotiations: 2,
        rows: [10, 100],
        lists: 2,
    };
}

/// One measurement of the growth benchmark: what, and its mean time with
/// little history and with much.
#[derive(Debug, Clone)]
pub struct GrowthRow {
    /// What was timed, at which sizes.
    pub what: String,
    /// With little history.
    pub small: std::time::Duration,
    /// With much.
    pub large: std::time::Duration,
}

/// Times what should not grow with history on `store` (an empty one):
/// a commit and a decision's state read, by length of log, and a page of
/// 50 and one intent's negotiations, by how many the user has.
pub async fn measure_growth<S: NegotiationStore>(store: &S, scale: GrowthScale) -> Vec<GrowthRow> {
    use std::time::{Duration, Instant};
    // Reads change nothing, so each is timed as the mean of several.
    const READS: u32 = 20;
    // Everything is in the store before anything is timed, and the two
    // sizes are timed in turn, so both see the same table and caches.
    let mut logs: [Vec<OpportunityId>; 2] = [Vec::new(), Vec::new()];
    for (size, turns) in scale.turns.into_iter().enumerate() {
        let base = 500_000 + 10_000 * u32::try_from(size).unwrap();
        for n in 0..scale.negotiations {
            logs[size].push(open_with_turns(store, base + n, turns).await);
        }
    }
    let users = ["few", "many"];
    for (size, (who, rows)) in users.into_iter().zip(scale.rows).enumerate() {
        let first = 1_000_000 + 1_000_000 * u32::try_from(size).unwrap();
        open_for_listing(store, who, first, rows).await;
    }
    let mut commits = [Duration::ZERO; 2];
    let mut reads = [Duration::ZERO; 2];
    let [short_logs, long_logs] = &logs;
    for (short_log, long_log) in short_logs.iter().zip(long_logs) {
        for (size, (id, turns)) in [short_log, long_log]
            .into_iter()
            .zip(scale.turns)
            .enumerate()
        {
            let started = Instant::now();
            for _ in 0..READS {
                store.read_negotiation_round(id).await.unwrap().unwrap();
            }
            reads[size] += started.elapsed() / READS;
            let started = Instant::now();
            commit_next_turn(store, id, turns).await;
            commits[size] += started.elapsed();
        }
    }
    let mut pages = [Duration::ZERO; 2];
    let mut intents = [Duration::ZERO; 2];
    for _ in 0..scale.lists {
        for (size, (who, rows)) in users.into_iter().zip(scale.rows).enumerate() {
            let page = ListFilter {
                limit: Some(50),
                ..ListFilter::default()
            };
            let rare = ListFilter {
                intent_id: Some(IntentId::parse(format!("{who}-rare")).unwrap()),
                ..ListFilter::default()
            };
            let started = Instant::now();
            let listed = store.list_negotiations(&user(who), &page).await.unwrap();
            pages[size] += started.elapsed();
            assert_eq!(listed.negotiations.len(), 50.min(rows as usize));
            let started = Instant::now();
            let listed = store.list_negotiations(&user(who), &rare).await.unwrap();
            intents[size] += started.elapsed();
            assert_eq!(listed.negotiations.len(), RARE_INTENT_ROWS as usize);
        }
    }
    let [short, long] = scale.turns;
    let [few, many] = scale.rows;
    let row = |what: String, [small, large]: [Duration; 2], count: u32| GrowthRow {
        what,
        small: small / count.max(1),
        large: large / count.max(1),
    };
    vec![
        row(
            format!("commit, {short} vs {long} turns of log"),
            commits,
            scale.negotiations,
        ),
        row(
            format!("decision's state read, {short} vs {long} turns"),
            reads,
            scale.negotiations,
        ),
        row(
            format!("page of 50, user with {few} vs {many}"),
            pages,
            scale.lists,
        ),
        row(
            format!("one intent's {RARE_INTENT_ROWS}, user with {few} vs {many}"),
            intents,
            scale.lists,
        ),
    ]
}
