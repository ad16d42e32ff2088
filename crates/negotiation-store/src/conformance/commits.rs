//! The commit contract itself: `decide` asked once, a refusal writes
//! nothing, a decision reads the round, and a commit hands back what a read
//! finds.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use index_negotiation::NegotiationAction::{Accept, Counter, Decline, Propose};
use index_negotiation::{
    AnswerRejection, Decision, NEGOTIATION_MAX_TURNS, NegotiationRejection, NegotiationState,
    NegotiationTurn, ParkRejection, audit_negotiation_log, current_round, decide_answer,
    decide_negotiation_resume, decide_negotiation_turn, decide_park, observe_negotiation,
};

use crate::{Committed, NegotiationStore, Negotiations, UserId};

use super::fixtures::{
    ALICE, BOB, actor, answer, four_rounds, id, open, park, park_turn, resume, stall, state, turn,
    user,
};

/// `decide` runs once per commit (turn, resume, park or answer),
/// permitted or refused, found or not, and is handed the seat (and turn or
/// answer) the store writes.
pub async fn decide_is_called_exactly_once_per_commit<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    let calls = Arc::new(AtomicUsize::new(0));
    // What each decider was handed: the seat and turn the store writes.
    let handed = Arc::new(std::sync::Mutex::new(Vec::new()));
    let counted_turn = || {
        let (calls, handed) = (Arc::clone(&calls), Arc::clone(&handed));
        Box::new(
            move |state: Option<&NegotiationState>, who: &UserId, turn: &NegotiationTurn| {
                calls.fetch_add(1, Ordering::SeqCst);
                if let Ok(mut handed) = handed.lock() {
                    handed.push((who.clone(), turn.clone()));
                }
                decide_negotiation_turn(state, who, turn)
            },
        )
    };
    let cases = [
        (ALICE, Propose, true),
        (ALICE, Propose, false),
        (BOB, Decline, true),
        (BOB, Propose, false),
    ];
    for (expected_calls, (who, action, permitted)) in (1..).zip(cases) {
        let (decision, after) = store
            .commit_turn(
                &id,
                &user(who),
                &NegotiationTurn::new(action, "counted"),
                &actor(who),
                counted_turn(),
            )
            .await
            .unwrap();
        assert_eq!(decision.is_ok(), permitted, "{who} {action}");
        assert_eq!(after.is_some(), permitted, "{who} {action}");
        assert_eq!(calls.load(Ordering::SeqCst), expected_calls);
        assert_eq!(
            handed.lock().unwrap().last(),
            Some(&(user(who), NegotiationTurn::new(action, "counted"))),
            "the decider decides the seat and turn the store writes"
        );
    }
    let (missing, after) = store
        .commit_turn(
            &self::id(9),
            &user(ALICE),
            &NegotiationTurn::new(Propose, "x"),
            &actor(ALICE),
            counted_turn(),
        )
        .await
        .unwrap();
    assert_eq!(missing.rejection(), Some(NegotiationRejection::NotFound));
    assert!(after.is_none());
    assert_eq!(calls.load(Ordering::SeqCst), 5);
    for (expected_calls, permitted) in [(6, true), (7, false)] {
        let counter = Arc::clone(&calls);
        let decide = Box::new(move |state: Option<&NegotiationState>, who: &UserId| {
            counter.fetch_add(1, Ordering::SeqCst);
            assert_eq!(
                who,
                &user(ALICE),
                "the decider decides for the seat resuming"
            );
            decide_negotiation_resume(state, who)
        });
        let (decision, _) = store
            .commit_resume(&id, &user(ALICE), &actor(ALICE), decide)
            .await
            .unwrap();
        assert_eq!(decision.is_ok(), permitted);
        assert_eq!(calls.load(Ordering::SeqCst), expected_calls);
    }
    stall(&store, &id, ALICE).await;
    for (expected_calls, where_, permitted) in
        [(8, &id, true), (9, &id, false), (10, &self::id(9), false)]
    {
        let counter = Arc::clone(&calls);
        let decide = Box::new(move |state: Option<&NegotiationState>, who: &UserId| {
            counter.fetch_add(1, Ordering::SeqCst);
            assert_eq!(who, &user(BOB), "the decider decides for the seat parking");
            decide_park(state, who, 3)
        });
        let (decision, _) = store
            .commit_park(
                where_,
                &user(BOB),
                &park_turn("budget"),
                &actor(BOB),
                decide,
            )
            .await
            .unwrap();
        assert_eq!(decision.is_ok(), permitted, "park {expected_calls}");
        assert_eq!(calls.load(Ordering::SeqCst), expected_calls);
    }
    for (expected_calls, where_, permitted) in
        [(11, &id, true), (12, &id, false), (13, &self::id(9), false)]
    {
        let counter = Arc::clone(&calls);
        let decide = Box::new(
            move |state: Option<&NegotiationState>, who: &UserId, answer: &str| {
                counter.fetch_add(1, Ordering::SeqCst);
                assert_eq!(
                    (who, answer),
                    (&user(BOB), "Low"),
                    "the decider decides the person and answer the store writes"
                );
                decide_answer(state, who, answer)
            },
        );
        let (decision, _) = store
            .commit_answer(where_, &user(BOB), "Low", &actor(BOB), decide)
            .await
            .unwrap();
        assert_eq!(decision.is_ok(), permitted, "answer {expected_calls}");
        assert_eq!(calls.load(Ordering::SeqCst), expected_calls);
    }
}

/// A refused commit of any kind leaves state, summary and message record
/// exactly as they were.
pub async fn refusals_change_nothing<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    // A record to keep: a park and its answer, which resumes alice's seat
    // in a fresh round.
    stall(&store, &id, ALICE).await;
    assert!(park(&store, &id, ALICE, 3).await.is_ok());
    assert!(answer(&store, &id, ALICE, "Low").await.is_ok());
    let before = (
        state(&store, &id).await,
        store.get_negotiation(&id).await.unwrap(),
        store.list_messages(&id).await.unwrap(),
    );
    assert_eq!(before.2.len(), 2, "the park and the answer are on record");
    let refusals = [(ALICE, Counter), (BOB, Propose), ("mallory", Accept)];
    for (who, action) in refusals {
        assert!(!turn(&store, &id, who, action).await.is_ok());
    }
    let (blank, after) = Negotiations::new(&store)
        .execute(
            &id,
            &user(ALICE),
            NegotiationTurn::new(Counter, " \u{3000} "),
            &actor(ALICE),
        )
        .await
        .unwrap();
    assert_eq!(blank.rejection(), Some(NegotiationRejection::InvalidTurn));
    assert!(after.is_none());
    assert!(!resume(&store, &id, BOB).await.is_ok());
    assert_eq!(
        park(&store, &id, ALICE, 3).await.rejection(),
        Some(ParkRejection::NotParkable)
    );
    assert_eq!(
        answer(&store, &id, ALICE, "High").await.rejection(),
        Some(AnswerRejection::AlreadyAnswered)
    );
    let after = (
        state(&store, &id).await,
        store.get_negotiation(&id).await.unwrap(),
        store.list_messages(&id).await.unwrap(),
    );
    assert_eq!(before, after);
}

/// A decision reads the round, not the log: after rounds ended by a
/// decline and by the turn limit, the round read starts at the previous
/// round's first turn, agrees with the whole log on everything a rule
/// reads, and each commit lands at the index the whole log gives.
pub async fn a_round_read_holds_what_the_rules_read<S: NegotiationStore>(store: S) {
    let negotiation = open(&store, 70).await;
    let id = &negotiation;
    let played = four_rounds();
    let mut round_over = false;
    for (n, (who, action)) in played.iter().enumerate() {
        if round_over {
            assert!(
                resume(&store, id, who).await.is_ok(),
                "resume before turn {n}"
            );
        }
        let decision = turn(&store, id, who, *action).await;
        let Decision::Permitted(permitted) = decision else {
            panic!("turn {n} refused: {decision:?}");
        };
        assert_eq!(permitted.turn_index, n);
        round_over = permitted.round_ended.is_some();
    }
    let whole = state(&store, id).await;
    let round = store.read_negotiation_round(id).await.unwrap().unwrap();
    let previous_round_start = 3 + NEGOTIATION_MAX_TURNS;
    assert_eq!(whole.earlier_turns, 0);
    assert_eq!(whole.turn_count(), played.len());
    assert_eq!(round.turn_count(), played.len());
    assert_eq!(round.earlier_turns, previous_round_start);
    assert_eq!(
        round.turns,
        whole.turns.get(previous_round_start..).unwrap()
    );
    assert_eq!(current_round(&round.turns), current_round(&whole.turns));
    let without_turns = |state: &NegotiationState| NegotiationState {
        turns: Vec::new(),
        earlier_turns: 0,
        ..state.clone()
    };
    assert_eq!(without_turns(&round), without_turns(&whole));
    for who in [ALICE, BOB] {
        assert_eq!(
            observe_negotiation(&round, &user(who)),
            observe_negotiation(&whole, &user(who))
        );
        for action in [Propose, Counter, Accept, Decline] {
            let next = NegotiationTurn::new(action, "next");
            assert_eq!(
                decide_negotiation_turn(Some(&round), &user(who), &next),
                decide_negotiation_turn(Some(&whole), &user(who), &next),
                "{who} {action}"
            );
        }
    }
    assert!(audit_negotiation_log(&round).is_empty());
    assert!(audit_negotiation_log(&whole).is_empty());
    let missing = self::id(71);
    assert_eq!(store.read_negotiation_round(&missing).await.unwrap(), None);
}

/// A commit that hands back the negotiation as it left it hands back what
/// a read afterwards finds: after turns mid-round, the turn that ends a
/// round, a resume, a park, its answer and an accept; a refusal of any of
/// the four hands back nothing.
pub async fn a_commit_hands_back_what_a_read_finds<S: NegotiationStore>(store: S) {
    let negotiation = open(&store, 90).await;
    let id = &negotiation;
    let service = Negotiations::new(&store);
    let check = async |after: Option<Committed>, what: &str| {
        let after = after.unwrap_or_else(|| panic!("{what}: nothing handed back"));
        assert_eq!(
            Some(after.summary),
            store.get_negotiation(id).await.unwrap(),
            "{what}: summary"
        );
        assert_eq!(
            Some(after.state),
            store.read_negotiation_round(id).await.unwrap(),
            "{what}: state"
        );
    };
    // Two rounds and two turns of a third, then the third played to the
    // turn limit: a stall.
    let mut script = four_rounds();
    script.truncate(3 + NEGOTIATION_MAX_TURNS + 2);
    script.extend((2..NEGOTIATION_MAX_TURNS).map(|n| {
        if n % 2 == 0 {
            (ALICE, Propose)
        } else {
            (BOB, Counter)
        }
    }));
    let mut round_over = false;
    for (n, (who, action)) in script.iter().enumerate() {
        if round_over {
            let (decision, after) = service.resume(id, &user(who), &actor(who)).await.unwrap();
            assert!(decision.is_ok());
            check(after, &format!("resume before turn {n}")).await;
        }
        let turn = NegotiationTurn::new(*action, format!("turn {n}"));
        let (decision, after) = service
            .execute(id, &user(who), turn, &actor(who))
            .await
            .unwrap();
        round_over = decision
            .permitted()
            .is_some_and(|permitted| permitted.round_ended.is_some());
        check(after, &format!("turn {n}")).await;
    }
    assert!(round_over, "the script ends on a stall");
    let (parked, after) = service
        .park(id, &user(ALICE), &park_turn("budget"), &actor(ALICE))
        .await
        .unwrap();
    assert!(parked.is_ok());
    check(after, "park").await;
    let refused = service
        .park(id, &user(BOB), &park_turn("budget"), &actor(BOB))
        .await
        .unwrap();
    assert!(!refused.0.is_ok() && refused.1.is_none(), "{refused:?}");
    let refused = service
        .answer(id, &user(BOB), "High", &actor(BOB))
        .await
        .unwrap();
    assert!(!refused.0.is_ok() && refused.1.is_none(), "{refused:?}");
    let (answered, after) = service
        .answer(id, &user(ALICE), "Low", &actor(ALICE))
        .await
        .unwrap();
    assert!(answered.is_ok());
    check(after, "answer").await;
    let refused = service
        .execute(
            id,
            &user(BOB),
            NegotiationTurn::new(Propose, "out of turn"),
            &actor(BOB),
        )
        .await
        .unwrap();
    assert!(!refused.0.is_ok() && refused.1.is_none(), "{refused:?}");
    let (proposed, after) = service
        .execute(
            id,
            &user(ALICE),
            NegotiationTurn::new(Propose, "Final."),
            &actor(ALICE),
        )
        .await
        .unwrap();
    assert!(proposed.is_ok());
    check(after, "propose").await;
    let (accepted, after) = service
        .execute(
            id,
            &user(BOB),
            NegotiationTurn::new(Accept, "Done."),
            &actor(BOB),
        )
        .await
        .unwrap();
    assert!(accepted.is_ok());
    check(after, "accept").await;
    let missing = self::id(91);
    let (none, after) = service
        .resume(&missing, &user(ALICE), &actor(ALICE))
        .await
        .unwrap();
    assert!(!none.is_ok() && after.is_none());
}
