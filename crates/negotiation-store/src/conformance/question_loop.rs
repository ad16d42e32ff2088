//! The question loop: a stalled negotiation parked on one person's
//! question, the answer recorded and resumed in one commit, and the
//! message record both leave.

use std::collections::BTreeSet;

use index_negotiation::NegotiationAction::Propose;
use index_negotiation::{
    ASK_USER_ANSWER_ACTION, AnswerRejection, Decision, NegotiationRejection,
    NegotiationResumeRejection, ParkRejection, ask_user_answer_message,
    count_negotiation_ask_rounds,
};

use crate::{CloseReason, NegotiationStore, Negotiations, OpportunityId, QuestionLoopSettings};

use super::fixtures::{
    ALICE, BOB, RACERS, actor, answer, host, loop_messages, open, park, park_turn, resume, stall,
    state, turn, user,
};

/// A stalled negotiation parks on its person's question; while it waits
/// nobody moves or resumes, only its person may answer, a blank answer is
/// refused, and the answer is recorded and resumes it in one commit.
pub async fn a_park_waits_on_its_person_and_the_answer_resumes_it<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    assert_eq!(
        park(&store, &id, ALICE, 3).await.rejection(),
        Some(ParkRejection::NotParkable),
        "a seat is to move"
    );
    assert_eq!(
        answer(&store, &id, ALICE, "Low").await.rejection(),
        Some(AnswerRejection::NotParked)
    );
    stall(&store, &id, ALICE).await;
    let parked = park(&store, &id, ALICE, 3).await;
    assert_eq!(parked.permitted().map(|p| p.ask_rounds), Some(1));
    let waiting = state(&store, &id).await;
    assert_eq!(waiting.ask_rounds, 1);
    assert_eq!(waiting.waiting_on(), Some(&user(ALICE)));
    assert_eq!(
        waiting.park.as_ref().map(|p| p.question.clone()),
        Some(park_turn("budget").ask_user.question)
    );
    let summary = store.get_negotiation(&id).await.unwrap().unwrap();
    assert_eq!(summary.waiting_on, Some(user(ALICE)));
    assert_eq!(
        park(&store, &id, BOB, 3).await.rejection(),
        Some(ParkRejection::AlreadyParked)
    );
    for seat in [ALICE, BOB] {
        assert_eq!(
            resume(&store, &id, seat).await.rejection(),
            Some(NegotiationResumeRejection::AwaitingAnswer)
        );
        assert_eq!(
            turn(&store, &id, seat, Propose).await.rejection(),
            Some(NegotiationRejection::NotYourTurn)
        );
    }
    assert_eq!(
        answer(&store, &id, BOB, "High").await.rejection(),
        Some(AnswerRejection::NotTheOwner)
    );
    assert_eq!(
        answer(&store, &id, ALICE, " \t\u{3000} ").await.rejection(),
        Some(AnswerRejection::BlankAnswer)
    );
    assert_eq!(state(&store, &id).await, waiting, "refusals change nothing");
    let answered = answer(&store, &id, ALICE, "  Low\n").await;
    assert_eq!(
        answered
            .permitted()
            .map(|p| (p.awaiting_user_id.as_str(), p.answer.as_str())),
        Some((ALICE, "Low"))
    );
    let resumed = state(&store, &id).await;
    assert_eq!(resumed.awaiting_user_id, Some(user(ALICE)));
    assert_eq!(resumed.waiting_on(), None);
    assert_eq!(resumed.park.and_then(|p| p.answer).as_deref(), Some("Low"));
    let summary = store.get_negotiation(&id).await.unwrap().unwrap();
    assert_eq!(summary.waiting_on, None);
    assert_eq!(
        answer(&store, &id, ALICE, "High").await.rejection(),
        Some(AnswerRejection::AlreadyAnswered)
    );
    assert_eq!(
        loop_messages(&store, &id).await,
        [
            ("ask_user".to_owned(), format!("agent:{ALICE}")),
            (ASK_USER_ANSWER_ACTION.to_owned(), "Low".to_owned()),
        ]
    );
    assert!(
        turn(&store, &id, ALICE, Propose).await.is_ok(),
        "the person's seat moves first"
    );
}

/// The answer's resume hands a seat the turn, so the negotiation cannot
/// park again until another round runs out; then it can, until the cap.
pub async fn a_resumed_negotiation_parks_again_only_after_another_stall<S: NegotiationStore>(
    store: S,
) {
    let id = open(&store, 1).await;
    stall(&store, &id, ALICE).await;
    assert!(park(&store, &id, ALICE, 2).await.is_ok());
    assert!(answer(&store, &id, ALICE, "Low").await.is_ok());
    assert_eq!(
        park(&store, &id, ALICE, 2).await.rejection(),
        Some(ParkRejection::NotParkable)
    );
    stall(&store, &id, ALICE).await;
    assert_eq!(
        park(&store, &id, BOB, 2)
            .await
            .permitted()
            .map(|p| p.ask_rounds),
        Some(2)
    );
    assert!(answer(&store, &id, BOB, "High").await.is_ok());
    stall(&store, &id, BOB).await;
    assert_eq!(
        park(&store, &id, ALICE, 2).await.rejection(),
        Some(ParkRejection::AskCapReached)
    );
    assert_eq!(state(&store, &id).await.ask_rounds, 2);
    assert_eq!(
        count_negotiation_ask_rounds(&store.list_messages(&id).await.unwrap()),
        2
    );
}

/// Many parks at once on one stalled negotiation: exactly one wins, the
/// rest see it parked; and at the cap's last round, racing parks never
/// spend more than the cap.
pub async fn racing_parks_have_one_winner_and_the_cap_holds<
    S: NegotiationStore + Clone + 'static,
>(
    store: S,
) {
    let id = open(&store, 1).await;
    let race = |store: S, id: OpportunityId| async move {
        let tasks: Vec<_> = (0..RACERS)
            .map(|i| {
                let (store, id) = (store.clone(), id.clone());
                let who = if i.is_multiple_of(2) { ALICE } else { BOB };
                tokio::spawn(async move { (who, park(&store, &id, who, 2).await) })
            })
            .collect();
        let mut winners = Vec::new();
        let mut refusals = BTreeSet::new();
        for task in tasks {
            match task.await.unwrap() {
                (who, Decision::Permitted(_)) => winners.push(who),
                (_, Decision::Refused(rejection)) => {
                    refusals.insert(rejection);
                }
            }
        }
        (winners, refusals)
    };
    stall(&store, &id, ALICE).await;
    let (winners, refusals) = race(store.clone(), id.clone()).await;
    assert_eq!(winners.len(), 1, "one park wins: {winners:?}");
    assert_eq!(refusals, BTreeSet::from([ParkRejection::AlreadyParked]));
    assert!(answer(&store, &id, winners[0], "Low").await.is_ok());
    stall(&store, &id, winners[0]).await;
    let (second, _) = race(store.clone(), id.clone()).await;
    assert_eq!(
        second.len(),
        1,
        "the cap's last round is spent once: {second:?}"
    );
    assert!(answer(&store, &id, second[0], "High").await.is_ok());
    stall(&store, &id, second[0]).await;
    let (third, refusals) = race(store.clone(), id.clone()).await;
    assert!(third.is_empty(), "no park past the cap: {third:?}");
    eprintln!(
        "racing parks: 3 races of {RACERS}; won {}, {}, {}; past the cap: {refusals:?}",
        winners.len(),
        second.len(),
        third.len()
    );
    assert_eq!(refusals, BTreeSet::from([ParkRejection::AskCapReached]));
    assert_eq!(state(&store, &id).await.ask_rounds, 2);
    let parks = loop_messages(&store, &id).await;
    assert_eq!(
        parks
            .iter()
            .filter(|(action, _)| action == "ask_user")
            .count(),
        2
    );
}

/// The same question answered by many deliveries at once: one answer is
/// recorded and resumes the negotiation; the others are refused, and
/// nothing is recorded twice.
pub async fn an_answer_delivered_twice_at_once_is_recorded_once<
    S: NegotiationStore + Clone + 'static,
>(
    store: S,
) {
    let id = open(&store, 1).await;
    stall(&store, &id, ALICE).await;
    assert!(park(&store, &id, BOB, 3).await.is_ok());
    let tasks: Vec<_> = (0..RACERS)
        .map(|i| {
            let (store, id) = (store.clone(), id.clone());
            tokio::spawn(async move {
                let text = format!("answer {i}");
                (text.clone(), answer(&store, &id, BOB, &text).await)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            (text, Decision::Permitted(_)) => winners.push(text),
            (_, Decision::Refused(rejection)) => {
                assert_eq!(rejection, AnswerRejection::AlreadyAnswered)
            }
        }
    }
    assert_eq!(winners.len(), 1, "one answer wins: {winners:?}");
    eprintln!(
        "racing answers: {RACERS} at once, 1 recorded, {} already_answered",
        RACERS - 1
    );
    let answers: Vec<_> = loop_messages(&store, &id)
        .await
        .into_iter()
        .filter(|(action, _)| action == ASK_USER_ANSWER_ACTION)
        .map(|(_, text)| text)
        .collect();
    assert_eq!(answers, winners, "the winner's answer, once");
    let after = state(&store, &id).await;
    assert_eq!(after.awaiting_user_id, Some(user(BOB)));
    assert_eq!(after.park.and_then(|p| p.answer), winners.pop());
}

/// An answer and a close at once, on several negotiations: whichever wins,
/// the answer is either recorded with its resume, or refused with nothing
/// recorded, and the negotiation ends closed.
pub async fn an_answer_racing_a_close_is_whole_or_not_at_all<
    S: NegotiationStore + Clone + 'static,
>(
    store: S,
) {
    let mut ids = Vec::new();
    for n in 0..8 {
        let id = open(&store, n).await;
        stall(&store, &id, ALICE).await;
        assert!(park(&store, &id, ALICE, 3).await.is_ok());
        ids.push(id);
    }
    let tasks: Vec<_> = ids
        .iter()
        .enumerate()
        .map(|(n, id)| {
            let (store, id) = (store.clone(), id.clone());
            tokio::spawn(async move {
                let closing = {
                    let (store, id) = (store.clone(), id.clone());
                    tokio::spawn(async move {
                        store
                            .close_negotiation(&id, CloseReason::Passed, &host())
                            .await
                            .unwrap()
                    })
                };
                // A different head start for the close each time, so both
                // orders happen.
                for _ in 0..n % 4 {
                    tokio::task::yield_now().await;
                }
                let answered = answer(&store, &id, ALICE, "Low").await;
                assert!(closing.await.unwrap().is_some());
                answered
            })
        })
        .collect();
    let mut answers_won = 0;
    for (id, task) in ids.iter().zip(tasks) {
        let answered = task.await.unwrap();
        answers_won += usize::from(answered.is_ok());
        let after = state(&store, id).await;
        assert!(after.settled, "closed either way");
        let recorded = loop_messages(&store, id)
            .await
            .iter()
            .filter(|(action, _)| action == ASK_USER_ANSWER_ACTION)
            .count();
        match answered {
            Decision::Permitted(_) => {
                assert_eq!(recorded, 1);
                assert_eq!(after.park.and_then(|p| p.answer).as_deref(), Some("Low"));
            }
            Decision::Refused(rejection) => {
                assert_eq!(rejection, AnswerRejection::AlreadySettled);
                assert_eq!(recorded, 0);
                assert!(after.park.is_some_and(|p| p.is_open()));
            }
        }
    }
    eprintln!(
        "answers racing closes: {} pairs; the answer first {answers_won}, the close first {}",
        ids.len(),
        ids.len() - answers_won
    );
}

/// One seat parks while the other resumes and moves, on several stalled
/// negotiations at once: exactly one of park and resume wins each, and no
/// negotiation ends up both parked and with a seat to move.
pub async fn a_park_racing_a_resume_and_a_turn_never_leaves_both<
    S: NegotiationStore + Clone + 'static,
>(
    store: S,
) {
    let mut ids = Vec::new();
    for n in 0..8 {
        let id = open(&store, n).await;
        stall(&store, &id, ALICE).await;
        ids.push(id);
    }
    let tasks: Vec<_> = ids
        .iter()
        .enumerate()
        .map(|(n, id)| {
            let (store, id) = (store.clone(), id.clone());
            tokio::spawn(async move {
                let parking = {
                    let (store, id) = (store.clone(), id.clone());
                    tokio::spawn(async move { park(&store, &id, ALICE, 3).await })
                };
                for _ in 0..n % 4 {
                    tokio::task::yield_now().await;
                }
                let resumed = resume(&store, &id, BOB).await;
                let moved = turn(&store, &id, BOB, Propose).await;
                (parking.await.unwrap(), resumed, moved)
            })
        })
        .collect();
    let mut parks_won = 0;
    for (id, task) in ids.iter().zip(tasks) {
        let (parked, resumed, moved) = task.await.unwrap();
        parks_won += usize::from(parked.is_ok());
        let after = state(&store, id).await;
        match (&parked, &resumed) {
            (Decision::Permitted(_), Decision::Refused(rejection)) => {
                assert_eq!(*rejection, NegotiationResumeRejection::AwaitingAnswer);
                assert_eq!(moved.rejection(), Some(NegotiationRejection::NotYourTurn));
                assert_eq!(after.waiting_on(), Some(&user(ALICE)));
                assert_eq!(after.awaiting_user_id, None);
            }
            (Decision::Refused(rejection), Decision::Permitted(_)) => {
                assert_eq!(*rejection, ParkRejection::NotParkable);
                assert!(moved.is_ok());
                assert_eq!(after.waiting_on(), None);
                assert_eq!(after.awaiting_user_id, Some(user(ALICE)));
            }
            other => panic!("exactly one of park and resume wins: {other:?}"),
        }
    }
    eprintln!(
        "parks racing resumes: {} pairs; the park first {parks_won}, the resume first {}",
        ids.len(),
        ids.len() - parks_won
    );
}

/// The record holds each negotiation's parks and answers in the order
/// their commits made them: through five rounds of the question loop,
/// parked by each seat in turn, each on its own question, beside another
/// negotiation's own record.
pub async fn messages_keep_their_order<S: NegotiationStore>(store: S) {
    const ROUNDS: usize = 5;
    let first = open(&store, 1).await;
    let second = open(&store, 2).await;
    let service = Negotiations::with_settings(
        &store,
        QuestionLoopSettings {
            ask_rounds_cap: ROUNDS,
        },
    );
    let mut expected = Vec::new();
    let mut to_move = ALICE;
    for n in 0..ROUNDS {
        stall(&store, &first, to_move).await;
        let who = if n % 2 == 0 { BOB } else { ALICE };
        let title = format!("question {n}");
        let asked = park_turn(&title);
        let (parked, _) = service
            .park(&first, &user(who), &asked, &actor(who))
            .await
            .unwrap();
        assert!(parked.is_ok(), "park {n}: {parked:?}");
        expected.push(asked.to_message(&user(who)));
        let text = format!("answer {n}");
        let (answered, _) = service
            .answer(&first, &user(who), &text, &actor(who))
            .await
            .unwrap();
        let permitted = answered.permitted().cloned().unwrap();
        expected.push(ask_user_answer_message(
            &user(who),
            &title,
            &permitted.answer,
        ));
        to_move = who;
    }
    stall(&store, &second, ALICE).await;
    assert!(park(&store, &second, ALICE, 3).await.is_ok());
    let listed = store.list_messages(&first).await.unwrap();
    assert_eq!(listed, expected);
    assert_eq!(count_negotiation_ask_rounds(&listed), ROUNDS);
    assert_eq!(
        store.list_messages(&second).await.unwrap(),
        [park_turn("budget").to_message(&user(ALICE))]
    );
}
