//! Turns and resumes: who may move when, what a round's end, a settlement,
//! a close or an inactive intent leaves, and what nobody may do.

use index_negotiation::NegotiationAction::{Accept, Counter, Decline, Propose};
use index_negotiation::{
    AnswerRejection, NegotiationAction, NegotiationOutcome, NegotiationRejection,
    NegotiationResumeRejection, ParkRejection, RoundEnded,
};

use crate::{CloseReason, NegotiationStore, Negotiations, RecordStatus, UserId};

use super::fixtures::{
    ALICE, BOB, answer, host, id, open, park, play, rejection, resume, state, turn, user,
};

/// Permitted turns land at their index for the acting seat, the turn passes.
pub async fn turns_alternate_and_are_logged_in_order<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    play(
        &store,
        &id,
        &[(ALICE, Propose), (BOB, Counter), (ALICE, Propose)],
    )
    .await;
    let state = state(&store, &id).await;
    let log: Vec<(&str, NegotiationAction)> = state
        .turns
        .iter()
        .map(|t| (t.seat_user_id.as_str(), t.action))
        .collect();
    assert_eq!(log, [(ALICE, Propose), (BOB, Counter), (ALICE, Propose)]);
    assert_eq!(state.turns[1].message, "bob says counter");
    assert_eq!(
        state.awaiting_user_id.as_ref().map(UserId::as_str),
        Some(BOB)
    );
    assert_eq!(
        store
            .get_negotiation(&id)
            .await
            .unwrap()
            .unwrap()
            .turn_count,
        3
    );
}

/// A decline pauses the pair; a resume hands the resuming seat a new round.
pub async fn decline_ends_the_round_and_resume_starts_the_next<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    play(&store, &id, &[(ALICE, Propose)]).await;
    let declined = turn(&store, &id, BOB, Decline).await;
    assert_eq!(
        declined.permitted().unwrap().round_ended,
        Some(RoundEnded::Declined)
    );
    let paused = state(&store, &id).await;
    assert_eq!(paused.awaiting_user_id, None);
    assert!(!paused.settled);
    assert_eq!(
        store.get_negotiation(&id).await.unwrap().unwrap().status,
        RecordStatus::Negotiating
    );
    for who in [ALICE, BOB] {
        assert_eq!(
            rejection(&turn(&store, &id, who, Propose).await),
            Some(NegotiationRejection::NotYourTurn)
        );
    }
    let resumed = resume(&store, &id, BOB).await;
    assert_eq!(resumed.permitted().unwrap().awaiting_user_id, BOB);
    assert_eq!(
        rejection(&turn(&store, &id, BOB, Counter).await),
        Some(NegotiationRejection::CounterIsFirst)
    );
    play(&store, &id, &[(BOB, Propose), (ALICE, Accept)]).await;
    assert!(state(&store, &id).await.settled);
}

/// The round's twelfth turn pauses the pair.
pub async fn the_turn_limit_ends_the_round<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    for i in 0..12u32 {
        let (who, action) = if i.is_multiple_of(2) {
            (ALICE, Propose)
        } else {
            (BOB, Counter)
        };
        let decision = turn(&store, &id, who, action).await;
        let ended = decision.permitted().unwrap().round_ended;
        assert_eq!(
            ended,
            (i == 11).then_some(RoundEnded::TurnLimit),
            "turn {i}"
        );
    }
    assert_eq!(state(&store, &id).await.awaiting_user_id, None);
    assert!(resume(&store, &id, ALICE).await.is_ok());
    play(&store, &id, &[(ALICE, Propose)]).await;
    assert_eq!(state(&store, &id).await.turns.len(), 13);
}

/// `not_paused` while someone holds the turn.
pub async fn resume_is_refused_while_a_seat_holds_the_turn<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    for who in [ALICE, BOB] {
        assert_eq!(
            resume(&store, &id, who).await.rejection(),
            Some(NegotiationResumeRejection::NotPaused)
        );
    }
    assert_eq!(
        state(&store, &id)
            .await
            .awaiting_user_id
            .as_ref()
            .map(UserId::as_str),
        Some(ALICE)
    );
}

/// Agreement settles; the opportunity goes to pending; nothing moves after.
pub async fn accept_settles_and_leaves_the_opportunity_pending<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    play(&store, &id, &[(ALICE, Propose), (BOB, Accept)]).await;
    let state = state(&store, &id).await;
    assert!(state.settled);
    assert_eq!(state.outcome, Some(NegotiationOutcome::Agreed));
    assert_eq!(state.awaiting_user_id, None);
    assert_eq!(
        store.get_negotiation(&id).await.unwrap().unwrap().status,
        RecordStatus::Pending
    );
    assert_eq!(
        rejection(&turn(&store, &id, ALICE, Propose).await),
        Some(NegotiationRejection::AlreadySettled)
    );
    assert_eq!(
        resume(&store, &id, ALICE).await.rejection(),
        Some(NegotiationResumeRejection::AlreadySettled)
    );
}

/// Someone without a seat can do nothing.
pub async fn strangers_hold_no_seat<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    assert_eq!(
        rejection(&turn(&store, &id, "mallory", Propose).await),
        Some(NegotiationRejection::NotASeat)
    );
    assert_eq!(
        resume(&store, &id, "mallory").await.rejection(),
        Some(NegotiationResumeRejection::NotASeat)
    );
    assert!(
        !store
            .set_seat_eligibility(&id, &user("mallory"), false)
            .await
            .unwrap()
    );
    assert!(state(&store, &id).await.turns.is_empty());
}

/// Every operation on an unknown id says so without writing.
pub async fn missing_negotiations_are_not_found<S: NegotiationStore>(store: S) {
    let missing = id(404);
    assert_eq!(store.read_negotiation_state(&missing).await.unwrap(), None);
    assert_eq!(
        rejection(&turn(&store, &missing, ALICE, Propose).await),
        Some(NegotiationRejection::NotFound)
    );
    assert_eq!(
        resume(&store, &missing, ALICE).await.rejection(),
        Some(NegotiationResumeRejection::NotFound)
    );
    assert_eq!(
        Negotiations::new(&store)
            .observe(&missing, &user(ALICE))
            .await
            .unwrap(),
        None
    );
    assert!(
        !store
            .set_seat_eligibility(&missing, &user(ALICE), false)
            .await
            .unwrap()
    );
    assert_eq!(
        store
            .close_negotiation(&missing, CloseReason::Passed, &host())
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        park(&store, &missing, ALICE, 3).await.rejection(),
        Some(ParkRejection::NotFound)
    );
    assert_eq!(
        answer(&store, &missing, ALICE, "Low").await.rejection(),
        Some(AnswerRejection::NotFound)
    );
    assert!(store.list_messages(&missing).await.unwrap().is_empty());
    assert_eq!(store.get_negotiation(&missing).await.unwrap(), None);
}

/// A paused intent blocks both seats until it is active again.
pub async fn an_inactive_intent_blocks_turns_and_resumes<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    assert!(
        store
            .set_seat_eligibility(&id, &user(BOB), false)
            .await
            .unwrap()
    );
    assert!(!state(&store, &id).await.eligible);
    assert_eq!(
        rejection(&turn(&store, &id, ALICE, Propose).await),
        Some(NegotiationRejection::IntentInactive)
    );
    assert!(
        store
            .set_seat_eligibility(&id, &user(ALICE), false)
            .await
            .unwrap()
    );
    assert!(
        store
            .set_seat_eligibility(&id, &user(BOB), true)
            .await
            .unwrap()
    );
    assert!(
        !state(&store, &id).await.eligible,
        "alice's intent is still paused"
    );
    play(&store, &id, &[]).await;
    assert!(
        store
            .set_seat_eligibility(&id, &user(ALICE), true)
            .await
            .unwrap()
    );
    play(&store, &id, &[(ALICE, Propose), (BOB, Decline)]).await;
    assert!(
        store
            .set_seat_eligibility(&id, &user(ALICE), false)
            .await
            .unwrap()
    );
    assert_eq!(
        resume(&store, &id, BOB).await.rejection(),
        Some(NegotiationResumeRejection::IntentInactive)
    );
}

/// A pass or an expiry ends the negotiation for both seats.
pub async fn closed_negotiations_refuse_everything<S: NegotiationStore>(store: S) {
    let passed = open(&store, 1).await;
    play(&store, &passed, &[(ALICE, Propose)]).await;
    let summary = store
        .close_negotiation(&passed, CloseReason::Passed, &host())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (summary.status, summary.settled, summary.outcome),
        (
            RecordStatus::Rejected,
            true,
            Some(NegotiationOutcome::Closed)
        )
    );
    for who in [ALICE, BOB] {
        assert_eq!(
            rejection(&turn(&store, &passed, who, Decline).await),
            Some(NegotiationRejection::AlreadySettled)
        );
        assert_eq!(
            resume(&store, &passed, who).await.rejection(),
            Some(NegotiationResumeRejection::AlreadySettled)
        );
    }
    let expired = open(&store, 2).await;
    play(&store, &expired, &[(ALICE, Decline)]).await;
    let summary = store
        .close_negotiation(&expired, CloseReason::Expired, &host())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(summary.status, RecordStatus::Expired);
    assert_eq!(
        resume(&store, &expired, BOB).await.rejection(),
        Some(NegotiationResumeRejection::AlreadySettled)
    );
    let agreed = open(&store, 3).await;
    play(&store, &agreed, &[(ALICE, Propose), (BOB, Accept)]).await;
    let summary = store
        .close_negotiation(&agreed, CloseReason::Passed, &host())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (summary.status, summary.outcome),
        (RecordStatus::Rejected, Some(NegotiationOutcome::Agreed))
    );
}
