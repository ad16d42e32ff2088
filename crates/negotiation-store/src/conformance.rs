//! The conformance suite: what every [`NegotiationStore`] must do, as async
//! functions that take a fresh, empty store.
//!
//! A backend runs all of it from its own tests with one line:
//!
//! ```text
//! index_negotiation_store::negotiation_store_conformance!(my_backend::fresh_store());
//! ```
//!
//! where the expression is a future resolving to an empty store (it is
//! evaluated once per test). The backend's test crate needs `tokio` with
//! the `macros` and `rt-multi-thread` features.
//!
//! The suite panics on a broken promise, as tests do; it is test code and
//! only compiled with the `conformance` feature.

// Test code reports a broken promise by panicking, and what a race did
// on standard error (shown with `--nocapture`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::print_stderr
)]

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use index_negotiation::NegotiationAction::{Accept, Counter, Decline, Propose};
use index_negotiation::{
    ASK_USER_ANSWER_ACTION, AnswerDecision, AnswerRejection, AskUser, AskUserAssessment,
    AskUserTurn, Decision, MessagePart, NEGOTIATION_MAX_TURNS, NegotiationAction,
    NegotiationConsultationReason, NegotiationDecision, NegotiationMessage, NegotiationOutcome,
    NegotiationRejection, NegotiationResumeDecision, NegotiationResumeRejection, NegotiationState,
    NegotiationTurn, ParkDecision, ParkRejection, RoundEnded, SuggestedRoles,
    audit_negotiation_log, count_negotiation_ask_rounds, current_round, decide_negotiation_resume,
    decide_negotiation_turn, observe_negotiation,
};
use index_question_block::{QuestionOption, StructuredQuestion};

use crate::{
    ApiKeyRecord, ApiKeyStore, CloseReason, IntentId, KeyHash, KeyScope, ListFilter,
    NegotiationStore, Negotiations, OpenDecision, OpenNegotiation, OpenRejection, OpportunityId,
    QuestionLoopSettings, RecordStatus, Revocation, Seat, StateFilter, UnixTime, UserId,
};

/// Generates one `#[tokio::test]` per conformance case, each on a fresh
/// store from `$make` (a future resolving to the store).
///
/// For a backend that needs a service which may be absent (a database
/// server), `negotiation_store_conformance!(ignore = "why", $make)` marks
/// every case `#[ignore = "why"]`: a plain `cargo test` lists them as not
/// run, with the reason, and `cargo test -- --ignored` runs them once the
/// service is there (a missing one then fails, never passes).
#[macro_export]
macro_rules! negotiation_store_conformance {
    ($make:expr) => {
        // `cfg(all())` is always true: the plain suite's cases carry no
        // attribute of their own.
        $crate::negotiation_store_conformance!(@each [cfg(all())] $make);
    };
    (ignore = $why:literal, $make:expr) => {
        $crate::negotiation_store_conformance!(@each [ignore = $why] $make);
    };
    (@each [$attr:meta] $make:expr) => {
        $crate::negotiation_store_conformance!(@cases [$attr] $make;
            opening_creates_a_negotiation_with_the_initiator_to_move,
            a_round_read_holds_what_the_rules_read,
            a_commit_hands_back_what_a_read_finds,
            opening_twice_is_refused,
            an_upper_case_id_names_the_same_negotiation,
            ineligible_pairs_are_not_opened,
            turns_alternate_and_are_logged_in_order,
            decline_ends_the_round_and_resume_starts_the_next,
            the_turn_limit_ends_the_round,
            resume_is_refused_while_a_seat_holds_the_turn,
            accept_settles_and_leaves_the_opportunity_pending,
            strangers_hold_no_seat,
            missing_negotiations_are_not_found,
            an_inactive_intent_blocks_turns_and_resumes,
            closed_negotiations_refuse_everything,
            decide_is_called_exactly_once_per_commit,
            refusals_change_nothing,
            messages_keep_their_order,
            listing_filters_by_intent_and_state,
            pages_never_repeat_or_lose_a_negotiation_while_commits_land,
            racing_turns_have_one_winner_per_index,
            racing_resumes_have_one_winner,
            racing_seats_never_lose_or_duplicate_a_turn,
            api_keys_are_found_by_hash_listed_and_revoked,
            api_keys_keep_their_name_expiry_and_last_use,
            racing_revokes_have_one_winner,
            a_park_waits_on_its_person_and_the_answer_resumes_it,
            a_resumed_negotiation_parks_again_only_after_another_stall,
            racing_parks_have_one_winner_and_the_cap_holds,
            an_answer_delivered_twice_at_once_is_recorded_once,
            an_answer_racing_a_close_is_whole_or_not_at_all,
            a_park_racing_a_resume_and_a_turn_never_leaves_both,
                );
    };
    (@cases [$attr:meta] $make:expr; $($case:ident),* $(,)?) => {
        $(
            #[::tokio::test(flavor = "multi_thread", worker_threads = 4)]
            #[$attr]
            async fn $case() {
                $crate::conformance::$case($make.await).await;
            }
        )*
    };
}

const ALICE: &str = "alice";
const BOB: &str = "bob";

fn id(n: u32) -> OpportunityId {
    OpportunityId::parse(format!("0b3c9e2a-4f6d-4a8b-9c1e-{n:012x}")).unwrap()
}

fn user(name: &str) -> UserId {
    UserId::parse(name).unwrap()
}

fn request(n: u32) -> OpenNegotiation {
    OpenNegotiation {
        opportunity_id: id(n),
        initiator: Seat {
            user_id: user(ALICE),
            intent_id: IntentId::parse(format!("alice-intent-{n}")).unwrap(),
        },
        responder: Seat {
            user_id: user(BOB),
            intent_id: IntentId::parse(format!("bob-intent-{n}")).unwrap(),
        },
        eligible: true,
    }
}

async fn open<S: NegotiationStore>(store: &S, n: u32) -> OpportunityId {
    let service = Negotiations::new(store);
    match service.open(&request(n)).await.unwrap() {
        OpenDecision::Opened { negotiation } => negotiation.id,
        OpenDecision::Refused { rejection } => panic!("opening {n} refused: {rejection:?}"),
    }
}

async fn turn<S: NegotiationStore>(
    store: &S,
    id: &OpportunityId,
    who: &str,
    action: NegotiationAction,
) -> NegotiationDecision {
    Negotiations::new(store)
        .execute(
            id,
            &user(who),
            NegotiationTurn::new(action, format!("{who} says {action}")),
        )
        .await
        .unwrap()
}

async fn resume<S: NegotiationStore>(
    store: &S,
    id: &OpportunityId,
    who: &str,
) -> NegotiationResumeDecision {
    Negotiations::new(store)
        .resume(id, &user(who))
        .await
        .unwrap()
}

async fn state<S: NegotiationStore>(store: &S, id: &OpportunityId) -> NegotiationState {
    store.read_negotiation_state(id).await.unwrap().unwrap()
}

fn rejection(decision: &NegotiationDecision) -> Option<NegotiationRejection> {
    decision.rejection()
}

/// Runs turns that must all be permitted.
async fn play<S: NegotiationStore>(
    store: &S,
    id: &OpportunityId,
    turns: &[(&str, NegotiationAction)],
) {
    for (who, action) in turns {
        let decision = turn(store, id, who, *action).await;
        assert!(decision.is_ok(), "{who} {action}: {decision:?}");
    }
}

/// A fresh negotiation is in talks, the initiator to move, no turns.
pub async fn opening_creates_a_negotiation_with_the_initiator_to_move<S: NegotiationStore>(
    store: S,
) {
    let id = open(&store, 1).await;
    let state = state(&store, &id).await;
    assert_eq!(state, NegotiationState::opened(user(ALICE), user(BOB)));
    let summary = store.get_negotiation(&id).await.unwrap().unwrap();
    assert_eq!(summary.status, RecordStatus::Negotiating);
    assert_eq!(summary.awaiting_user_id, Some(user(ALICE)));
    assert_eq!(summary.turn_count, 0);
}

/// One opportunity, one negotiation.
pub async fn opening_twice_is_refused<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    play(&store, &id, &[(ALICE, Propose)]).await;
    let again = Negotiations::new(&store).open(&request(1)).await.unwrap();
    assert_eq!(
        again,
        OpenDecision::Refused {
            rejection: OpenRejection::AlreadyExists
        }
    );
    assert_eq!(
        state(&store, &id).await.turns.len(),
        1,
        "the existing negotiation is untouched"
    );
}

/// A UUID written in upper case is the same opportunity: it cannot open a
/// second negotiation, and it finds (and moves) the first.
pub async fn an_upper_case_id_names_the_same_negotiation<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    let mut shouted = request(1);
    shouted.opportunity_id = OpportunityId::parse(id.as_str().to_ascii_uppercase()).unwrap();
    assert_eq!(shouted.opportunity_id, id);
    let again = Negotiations::new(&store).open(&shouted).await.unwrap();
    assert_eq!(
        again,
        OpenDecision::Refused {
            rejection: OpenRejection::AlreadyExists
        }
    );
    play(&store, &shouted.opportunity_id, &[(ALICE, Propose)]).await;
    assert_eq!(state(&store, &id).await.turns.len(), 1);
    let listed = store
        .list_negotiations(&user(ALICE), &ListFilter::default())
        .await
        .unwrap()
        .negotiations;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id.as_str(), id.as_str().to_ascii_lowercase());
}

/// The rules' opening decision is applied: nothing is stored for a refusal.
pub async fn ineligible_pairs_are_not_opened<S: NegotiationStore>(store: S) {
    let service = Negotiations::new(&store);
    let mut not_eligible = request(1);
    not_eligible.eligible = false;
    let mut same_person = request(2);
    same_person.responder.user_id = user(ALICE);
    let mut same_intent = request(3);
    same_intent.responder.intent_id = same_intent.initiator.intent_id.clone();
    for request in [not_eligible, same_person, same_intent] {
        let decision = service.open(&request).await.unwrap();
        assert_eq!(
            decision,
            OpenDecision::Refused {
                rejection: OpenRejection::Ineligible
            }
        );
        assert_eq!(
            store
                .get_negotiation(&request.opportunity_id)
                .await
                .unwrap(),
            None
        );
    }
}

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
            .close_negotiation(&missing, CloseReason::Passed)
            .await
            .unwrap(),
        None
    );
    let message = text_message(ALICE, "hello");
    assert!(!store.append_message(&missing, &message).await.unwrap());
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
        .close_negotiation(&passed, CloseReason::Passed)
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
        .close_negotiation(&expired, CloseReason::Expired)
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
        .close_negotiation(&agreed, CloseReason::Passed)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (summary.status, summary.outcome),
        (RecordStatus::Rejected, Some(NegotiationOutcome::Agreed))
    );
}

/// `decide` runs once per commit, permitted or refused, found or not.
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
        let decision = store
            .commit_negotiation_turn(
                &id,
                &user(who),
                &NegotiationTurn::new(action, "counted"),
                counted_turn(),
            )
            .await
            .unwrap();
        assert_eq!(decision.is_ok(), permitted, "{who} {action}");
        assert_eq!(calls.load(Ordering::SeqCst), expected_calls);
        assert_eq!(
            handed.lock().unwrap().last(),
            Some(&(user(who), NegotiationTurn::new(action, "counted"))),
            "the decider decides the seat and turn the store writes"
        );
    }
    let missing = store
        .commit_negotiation_turn(
            &self::id(9),
            &user(ALICE),
            &NegotiationTurn::new(Propose, "x"),
            counted_turn(),
        )
        .await
        .unwrap();
    assert_eq!(missing.rejection(), Some(NegotiationRejection::NotFound));
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
        let decision = store
            .commit_negotiation_resume(&id, &user(ALICE), decide)
            .await
            .unwrap();
        assert_eq!(decision.is_ok(), permitted);
        assert_eq!(calls.load(Ordering::SeqCst), expected_calls);
    }
}

/// A refused commit leaves state, summary and messages exactly as they were.
pub async fn refusals_change_nothing<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    play(&store, &id, &[(ALICE, Propose)]).await;
    store
        .append_message(&id, &text_message(ALICE, "note"))
        .await
        .unwrap();
    let before = (
        state(&store, &id).await,
        store.get_negotiation(&id).await.unwrap(),
        store.list_messages(&id).await.unwrap(),
    );
    let refusals = [(ALICE, Counter), (BOB, Propose), ("mallory", Accept)];
    for (who, action) in refusals {
        assert!(!turn(&store, &id, who, action).await.is_ok());
    }
    let blank = Negotiations::new(&store)
        .execute(&id, &user(BOB), NegotiationTurn::new(Counter, " \u{3000} "))
        .await
        .unwrap();
    assert_eq!(blank.rejection(), Some(NegotiationRejection::InvalidTurn));
    assert!(!resume(&store, &id, BOB).await.is_ok());
    let after = (
        state(&store, &id).await,
        store.get_negotiation(&id).await.unwrap(),
        store.list_messages(&id).await.unwrap(),
    );
    assert_eq!(before, after);
}

fn text_message(who: &str, text: &str) -> NegotiationMessage {
    NegotiationMessage {
        sender_id: format!("agent:{who}"),
        parts: vec![MessagePart::Text {
            text: text.to_owned(),
        }],
    }
}

fn ask_message(who: &str, n: usize) -> NegotiationMessage {
    let data = serde_json::json!({"action": "ask_user", "n": n});
    NegotiationMessage {
        sender_id: format!("agent:{who}"),
        parts: vec![MessagePart::Data {
            data: data.as_object().cloned().unwrap_or_default(),
        }],
    }
}

/// The record returns messages as appended, per negotiation.
pub async fn messages_keep_their_order<S: NegotiationStore>(store: S) {
    let first = open(&store, 1).await;
    let second = open(&store, 2).await;
    let mut expected = Vec::new();
    for n in 0..25 {
        let message = if n % 5 == 0 {
            ask_message(BOB, n)
        } else {
            text_message(ALICE, &format!("message {n}"))
        };
        assert!(store.append_message(&first, &message).await.unwrap());
        expected.push(message);
    }
    store
        .append_message(&second, &text_message(BOB, "elsewhere"))
        .await
        .unwrap();
    let listed = store.list_messages(&first).await.unwrap();
    assert_eq!(listed, expected);
    assert_eq!(count_negotiation_ask_rounds(&listed), 5);
    assert_eq!(store.list_messages(&second).await.unwrap().len(), 1);
}

/// Listings show the user's negotiations, newest change first, filtered
/// by intent, state and the other seat.
pub async fn listing_filters_by_intent_and_state<S: NegotiationStore>(store: S) {
    let a = open(&store, 1).await;
    let b = open(&store, 2).await;
    let c = open(&store, 3).await;
    play(&store, &b, &[(ALICE, Propose), (BOB, Accept)]).await;
    let mut other = request(4);
    other.initiator.user_id = user("carol");
    let d = match Negotiations::new(&store).open(&other).await.unwrap() {
        OpenDecision::Opened { negotiation } => negotiation.id,
        refused => panic!("{refused:?}"),
    };
    let list = async |who: &str, filter: ListFilter| {
        let page = store.list_negotiations(&user(who), &filter).await.unwrap();
        assert_eq!(page.next, None, "no limit, one page");
        page.negotiations
            .into_iter()
            .map(|summary| summary.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        list(ALICE, ListFilter::default()).await,
        [b.clone(), c.clone(), a.clone()]
    );
    let open_only = ListFilter {
        state: Some(StateFilter::Open),
        ..ListFilter::default()
    };
    assert_eq!(list(ALICE, open_only).await, [c.clone(), a.clone()]);
    let settled = ListFilter {
        state: Some(StateFilter::Settled),
        ..ListFilter::default()
    };
    assert_eq!(list(BOB, settled).await, std::slice::from_ref(&b));
    let by_intent = ListFilter {
        intent_id: Some(IntentId::parse("bob-intent-3").unwrap()),
        ..ListFilter::default()
    };
    assert_eq!(list(BOB, by_intent.clone()).await, std::slice::from_ref(&c));
    assert!(
        list(ALICE, by_intent).await.is_empty(),
        "the intent is bob's"
    );
    let with = |who: &str| ListFilter {
        other_user_id: Some(user(who)),
        ..ListFilter::default()
    };
    assert_eq!(list(BOB, with("carol")).await, std::slice::from_ref(&d));
    assert_eq!(list("carol", with(BOB)).await, [d]);
    assert!(list(ALICE, with("carol")).await.is_empty());
    assert_eq!(list(BOB, with(ALICE)).await, [b, c, a]);
    assert!(list("nobody", ListFilter::default()).await.is_empty());
}

/// Pages run newest change first and end with a cursor the next page
/// starts after. While commits land between pages, no negotiation is
/// listed twice, and every one that did not change is listed once; one
/// that changed has moved to the front, where a fresh first page finds it.
pub async fn pages_never_repeat_or_lose_a_negotiation_while_commits_land<S: NegotiationStore>(
    store: S,
) {
    const OPENED: u32 = 23;
    const PAGE: usize = 5;
    let mut ids = Vec::new();
    for n in 0..OPENED {
        ids.push(open(&store, 200 + n).await);
    }
    let first_page = ListFilter {
        limit: Some(PAGE),
        ..ListFilter::default()
    };
    let mut filter = first_page.clone();
    let (mut seen, mut changed) = (Vec::new(), BTreeSet::new());
    let mut pages = 0;
    loop {
        let page = store
            .list_negotiations(&user(ALICE), &filter)
            .await
            .unwrap();
        assert!(page.negotiations.len() <= PAGE);
        seen.extend(page.negotiations.iter().map(|summary| summary.id.clone()));
        pages += 1;
        // A commit lands between pages: on one already listed, and on one
        // still to come.
        for at in [0, OPENED as usize - 1 - pages] {
            let id = &ids[at];
            if changed.insert(id.clone()) {
                assert!(turn(&store, id, ALICE, Propose).await.is_ok());
            }
        }
        match page.next {
            Some(cursor) => filter.cursor = Some(cursor),
            None => break,
        }
        assert!(pages <= OPENED as usize, "the pages never end");
    }
    let unique: BTreeSet<_> = seen.iter().cloned().collect();
    assert_eq!(
        unique.len(),
        seen.len(),
        "a negotiation listed twice: {seen:?}"
    );
    for id in ids.iter().filter(|id| !changed.contains(*id)) {
        assert!(unique.contains(id), "{id} was never listed");
    }
    // A fresh first page leads with the newest changes.
    let fresh = store
        .list_negotiations(&user(ALICE), &first_page)
        .await
        .unwrap();
    assert!(changed.contains(&fresh.negotiations[0].id));
    assert!(fresh.next.is_some());
    // The whole listing in pages is the whole listing at once, when
    // nothing changes meanwhile.
    let whole: Vec<_> = store
        .list_negotiations(&user(ALICE), &ListFilter::default())
        .await
        .unwrap()
        .negotiations
        .into_iter()
        .map(|summary| summary.id)
        .collect();
    assert_eq!(whole.len(), OPENED as usize);
    let mut paged = Vec::new();
    let mut filter = first_page;
    loop {
        let page = store
            .list_negotiations(&user(ALICE), &filter)
            .await
            .unwrap();
        paged.extend(page.negotiations.into_iter().map(|summary| summary.id));
        match page.next {
            Some(cursor) => filter.cursor = Some(cursor),
            None => break,
        }
    }
    assert_eq!(paged, whole);
}

const RACERS: usize = 16;

/// Many tasks take the same turn at once: one wins, the rest are refused by
/// the rules against the winner's state.
pub async fn racing_turns_have_one_winner_per_index<S: NegotiationStore + Clone + 'static>(
    store: S,
) {
    let id = open(&store, 1).await;
    for (who, action) in [(ALICE, Propose), (BOB, Counter), (ALICE, Propose)] {
        let tasks: Vec<_> = (0..RACERS)
            .map(|_| {
                let store = store.clone();
                let id = id.clone();
                tokio::spawn(async move { turn(&store, &id, who, action).await })
            })
            .collect();
        let mut winners = 0;
        for task in tasks {
            match task.await.unwrap() {
                Decision::Permitted(_) => winners += 1,
                Decision::Refused(rejection) => {
                    assert_eq!(rejection, NegotiationRejection::NotYourTurn)
                }
            }
        }
        assert_eq!(winners, 1, "{who} {action}");
    }
    assert_eq!(state(&store, &id).await.turns.len(), 3);
}

/// Both seats race to resume: one wins, the rest are `not_paused`.
pub async fn racing_resumes_have_one_winner<S: NegotiationStore + Clone + 'static>(store: S) {
    let id = open(&store, 1).await;
    play(&store, &id, &[(ALICE, Decline)]).await;
    let tasks: Vec<_> = (0..RACERS)
        .map(|i| {
            let store = store.clone();
            let id = id.clone();
            let who = if i.is_multiple_of(2) { ALICE } else { BOB };
            tokio::spawn(async move { (who, resume(&store, &id, who).await) })
        })
        .collect();
    let mut winner = None;
    for task in tasks {
        let (who, decision) = task.await.unwrap();
        match decision {
            Decision::Permitted(permitted) => {
                assert!(winner.replace(who).is_none(), "two resumes won");
                assert_eq!(permitted.awaiting_user_id, who);
            }
            Decision::Refused(rejection) => {
                assert_eq!(rejection, NegotiationResumeRejection::NotPaused)
            }
        }
    }
    let winner = winner.expect("one resume wins");
    assert_eq!(
        state(&store, &id)
            .await
            .awaiting_user_id
            .as_ref()
            .map(UserId::as_str),
        Some(winner)
    );
}

/// Both seats hammer the negotiation through several rounds: every permitted
/// turn is in the log exactly once, at the index it was given, with no gaps;
/// every refusal is a rule, never a storage error.
pub async fn racing_seats_never_lose_or_duplicate_a_turn<S: NegotiationStore + Clone + 'static>(
    store: S,
) {
    let id = open(&store, 1).await;
    let tasks: Vec<_> = (0..8u32)
        .map(|worker| {
            let store = store.clone();
            let id = id.clone();
            tokio::spawn(async move {
                let who = if worker.is_multiple_of(2) { ALICE } else { BOB };
                let mut won = Vec::new();
                for attempt in 0..60 {
                    let action = if attempt % 3 == 0 { Counter } else { Propose };
                    match turn(&store, &id, who, action).await {
                        Decision::Permitted(permitted) => {
                            won.push((permitted.turn_index, who, action))
                        }
                        Decision::Refused(rejection) => {
                            assert!(
                                matches!(
                                    rejection,
                                    NegotiationRejection::NotYourTurn
                                        | NegotiationRejection::CounterIsFirst
                                        | NegotiationRejection::ProposeOverOffer
                                ),
                                "unexpected {rejection}"
                            );
                            let _ = resume(&store, &id, who).await;
                        }
                    }
                    tokio::task::yield_now().await;
                }
                won
            })
        })
        .collect();
    let mut won = Vec::new();
    for task in tasks {
        won.extend(task.await.unwrap());
    }
    won.sort_unstable();
    let state = state(&store, &id).await;
    assert!(!won.is_empty());
    assert_eq!(
        won.len(),
        state.turns.len(),
        "every permitted turn is logged once"
    );
    let indices: BTreeSet<usize> = won.iter().map(|(index, _, _)| *index).collect();
    assert_eq!(indices.len(), won.len(), "no index was granted twice");
    for (index, who, action) in &won {
        let logged = &state.turns[*index];
        assert_eq!(
            (logged.seat_user_id.as_str(), logged.action),
            (*who, *action),
            "turn {index}"
        );
    }
}

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

/// Four rounds between alice (initiator) and bob, as `(seat, action)`:
/// the first ends on a decline after three turns, the second and third at
/// the turn limit, and the fourth is two turns in.
fn four_rounds() -> Vec<(&'static str, NegotiationAction)> {
    let mut played = vec![(ALICE, Propose), (BOB, Counter), (ALICE, Decline)];
    for (first, second) in [(BOB, ALICE), (ALICE, BOB)] {
        for n in 0..NEGOTIATION_MAX_TURNS {
            played.push(if n % 2 == 0 {
                (first, Propose)
            } else {
                (second, Counter)
            });
        }
    }
    played.extend([(BOB, Propose), (ALICE, Counter)]);
    played
}

/// A turn log as a store written before schema version 4 holds it, for
/// backends' upgrade tests: write `turns` (with `awaiting` as the row's
/// awaiting seat) into a version-3 store, open it with this version, and
/// check with [`assert_rounds_upgraded`].
#[derive(Debug, Clone)]
pub struct LegacyLog {
    /// `(seat_user_id, action)`, from index 0.
    pub turns: Vec<(String, NegotiationAction)>,
    /// The seat to move, `None` between rounds.
    pub awaiting: Option<String>,
    /// Where the round before the current one starts: what the upgrade
    /// must find.
    pub window_start: usize,
}

/// Logs that end a round differently: none, one turn, a declined round,
/// one round after it at the turn limit, two, and a turn into the round
/// after those.
pub fn legacy_logs() -> Vec<LegacyLog> {
    let script = four_rounds();
    let limit = NEGOTIATION_MAX_TURNS;
    [
        (0, Some(ALICE), 0),
        (1, Some(BOB), 0),
        (3, None, 0),
        (3 + limit, None, 3),
        (3 + 2 * limit, None, 3 + limit),
        (4 + 2 * limit, Some(ALICE), 3 + limit),
    ]
    .into_iter()
    .map(|(len, awaiting, window_start)| LegacyLog {
        turns: script
            .iter()
            .take(len)
            .map(|(who, action)| ((*who).to_owned(), *action))
            .collect(),
        awaiting: awaiting.map(str::to_owned),
        window_start,
    })
    .collect()
}

/// Checks that `store`, written at schema version 3 with each of
/// [`legacy_logs`] under [`legacy_id`] (alice the initiator, bob the
/// responder, in talks), reads back what the upgrade must have made of
/// them: the turn count, the round read from the previous round's start,
/// the whole log unchanged, and a next commit at the next index.
pub async fn assert_rounds_upgraded<S: NegotiationStore>(store: &S) {
    let script = four_rounds();
    for (n, log) in legacy_logs().iter().enumerate() {
        let id = legacy_id(n);
        let whole = store.read_negotiation_state(&id).await.unwrap().unwrap();
        let round = store.read_negotiation_round(&id).await.unwrap().unwrap();
        let summary = store.get_negotiation(&id).await.unwrap().unwrap();
        let len = log.turns.len();
        assert_eq!(summary.turn_count, len, "{log:?}");
        assert_eq!(whole.turn_count(), len);
        assert_eq!(round.earlier_turns, log.window_start, "{log:?}");
        assert_eq!(round.turns, whole.turns.get(log.window_start..).unwrap());
        let Some((who, action)) = script.get(len) else {
            continue;
        };
        if log.awaiting.is_none() {
            assert!(resume(store, &id, who).await.is_ok(), "{log:?}");
        }
        let next = turn(store, &id, who, *action).await;
        assert!(
            matches!(next, Decision::Permitted(ref permitted) if permitted.turn_index == len),
            "{log:?}: {next:?}"
        );
    }
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
/// round, a resume and an accept; a refusal hands back nothing.
pub async fn a_commit_hands_back_what_a_read_finds<S: NegotiationStore>(store: S) {
    let negotiation = open(&store, 90).await;
    let id = &negotiation;
    let service = Negotiations::new(&store);
    let check = async |after: Option<crate::Committed>, what: &str| {
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
    let script = four_rounds();
    let mut round_over = false;
    for (n, (who, action)) in script
        .iter()
        .take(3 + NEGOTIATION_MAX_TURNS + 2)
        .enumerate()
    {
        if round_over {
            let (decision, after) = service.resume_returning(id, &user(who)).await.unwrap();
            assert!(decision.is_ok());
            check(after, &format!("resume before turn {n}")).await;
        }
        let turn = NegotiationTurn::new(*action, format!("turn {n}"));
        let (decision, after) = service
            .execute_returning(id, &user(who), turn)
            .await
            .unwrap();
        round_over = decision
            .permitted()
            .is_some_and(|permitted| permitted.round_ended.is_some());
        check(after, &format!("turn {n}")).await;
    }
    let refused = service
        .execute_returning(id, &user(BOB), NegotiationTurn::new(Propose, "out of turn"))
        .await
        .unwrap();
    assert!(!refused.0.is_ok() && refused.1.is_none(), "{refused:?}");
    let (proposed, after) = service
        .execute_returning(id, &user(ALICE), NegotiationTurn::new(Propose, "Final."))
        .await
        .unwrap();
    assert!(proposed.is_ok());
    check(after, "propose").await;
    let (accepted, after) = service
        .execute_returning(id, &user(BOB), NegotiationTurn::new(Accept, "Done."))
        .await
        .unwrap();
    assert!(accepted.is_ok());
    check(after, "accept").await;
    let missing = self::id(91);
    let (none, after) = service
        .resume_returning(&missing, &user(ALICE))
        .await
        .unwrap();
    assert!(!none.is_ok() && after.is_none());
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
            .insert_negotiation(&OpenNegotiation {
                opportunity_id: OpportunityId::parse(format!(
                    "7a1e5c3b-2d4f-4e6a-8b9c-{number:012x}"
                ))
                .unwrap(),
                initiator,
                responder,
                eligible: true,
            })
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

/// Keys are stored once, found by their hash, listed oldest first, and
/// revoked in place (a revoked key is still found, marked revoked).
pub async fn api_keys_are_found_by_hash_listed_and_revoked<S: NegotiationStore + ApiKeyStore>(
    store: S,
) {
    let key = |n: u8, scope: KeyScope| {
        ApiKeyRecord::new(
            format!("key-{n}"),
            KeyHash([n; 32]),
            user(if n.is_multiple_of(2) { ALICE } else { BOB }),
            scope,
            UnixTime(1_700_000_000 + u64::from(n)),
        )
    };
    assert!(
        store
            .insert_api_key(&key(1, KeyScope::Agent))
            .await
            .unwrap()
    );
    assert!(store.insert_api_key(&key(2, KeyScope::Host)).await.unwrap());
    let mut same_id = key(3, KeyScope::Agent);
    same_id.id = "key-1".to_owned();
    assert!(
        !store.insert_api_key(&same_id).await.unwrap(),
        "an id is taken once"
    );
    let mut same_hash = key(1, KeyScope::Agent);
    same_hash.id = "key-9".to_owned();
    assert!(
        !store.insert_api_key(&same_hash).await.unwrap(),
        "a hash is taken once"
    );

    assert_eq!(
        store.find_api_key(&KeyHash([2; 32])).await.unwrap(),
        Some(key(2, KeyScope::Host))
    );
    assert_eq!(store.find_api_key(&KeyHash([7; 32])).await.unwrap(), None);
    assert_eq!(
        store.list_api_keys().await.unwrap(),
        [key(1, KeyScope::Agent), key(2, KeyScope::Host)]
    );
    assert_eq!(
        store.revoke_api_key("key-1").await.unwrap(),
        Revocation::Revoked
    );
    assert_eq!(
        store.revoke_api_key("key-1").await.unwrap(),
        Revocation::AlreadyRevoked
    );
    assert_eq!(
        store.revoke_api_key("key-404").await.unwrap(),
        Revocation::NoSuchKey
    );
    let revoked = store
        .find_api_key(&KeyHash([1; 32]))
        .await
        .unwrap()
        .unwrap();
    assert!(revoked.revoked);
    assert_eq!(revoked.user_id, user(BOB));
}

/// Of revokes racing on one key, exactly one revokes it: a key meant for
/// one use is used once, however many present it at the same moment.
pub async fn racing_revokes_have_one_winner<S: NegotiationStore + ApiKeyStore + 'static>(store: S) {
    let store = std::sync::Arc::new(store);
    for n in 0..8u8 {
        let key = ApiKeyRecord::new(
            format!("once-{n}"),
            KeyHash([100 + n; 32]),
            user(ALICE),
            KeyScope::Agent,
            UnixTime(1_700_000_000),
        );
        assert!(store.insert_api_key(&key).await.unwrap());
        let racers: Vec<_> = (0..8)
            .map(|_| {
                let (store, id) = (store.clone(), key.id.clone());
                tokio::spawn(async move { store.revoke_api_key(&id).await.unwrap() })
            })
            .collect();
        let mut revoked = 0;
        for racer in racers {
            match racer.await.unwrap() {
                Revocation::Revoked => revoked += 1,
                Revocation::AlreadyRevoked => {}
                Revocation::NoSuchKey => panic!("the key is there"),
            }
        }
        assert_eq!(revoked, 1, "key {n}: one revoke wins");
    }
}

/// A key's name, making time and expiry are kept as given; its last use is
/// recorded at most once per [`KEY_USE_RESOLUTION`](crate::KEY_USE_RESOLUTION)
/// and never moves back, and a use of a key that does not exist records
/// nothing.
pub async fn api_keys_keep_their_name_expiry_and_last_use<S: NegotiationStore + ApiKeyStore>(
    store: S,
) {
    let made = UnixTime(1_700_000_000);
    let mut key = ApiKeyRecord::new(
        "named",
        KeyHash([5; 32]),
        user(ALICE),
        KeyScope::Agent,
        made,
    );
    key.name = Some("laptop agent — 🙂".to_owned());
    key.expires_at = Some(made.after(std::time::Duration::from_secs(86_400)));
    assert!(store.insert_api_key(&key).await.unwrap());
    async fn found<S: ApiKeyStore>(store: &S) -> ApiKeyRecord {
        store
            .find_api_key(&KeyHash([5; 32]))
            .await
            .unwrap()
            .unwrap()
    }
    assert_eq!(
        found(&store).await,
        key,
        "every field reads back as written"
    );

    let first = made.after(std::time::Duration::from_secs(10));
    store.record_api_key_use("named", first).await.unwrap();
    assert_eq!(found(&store).await.last_used_at, Some(first));
    store
        .record_api_key_use("named", first.after(std::time::Duration::from_secs(59)))
        .await
        .unwrap();
    assert_eq!(
        found(&store).await.last_used_at,
        Some(first),
        "a use within the minute is not written again"
    );
    store.record_api_key_use("named", made).await.unwrap();
    assert_eq!(
        found(&store).await.last_used_at,
        Some(first),
        "a use never moves back"
    );
    let later = first.after(std::time::Duration::from_secs(60));
    store.record_api_key_use("named", later).await.unwrap();
    assert_eq!(found(&store).await.last_used_at, Some(later));
    store.record_api_key_use("nobody", later).await.unwrap();
    assert_eq!(store.list_api_keys().await.unwrap().len(), 1);
}

/// Runs a whole round of proposes and counters from `first`, so it ends at
/// the turn limit with nobody to move: a stall.
async fn stall<S: NegotiationStore>(store: &S, id: &OpportunityId, first: &str) {
    let second = if first == ALICE { BOB } else { ALICE };
    for i in 0..12u32 {
        let (who, action) = if i.is_multiple_of(2) {
            (first, Propose)
        } else {
            (second, Counter)
        };
        let decision = turn(store, id, who, action).await;
        assert!(decision.is_ok(), "stalling, turn {i}: {decision:?}");
    }
}

/// A park turn asking about `title`, as the suite and backends' own tests
/// record it.
pub fn park_turn(title: &str) -> AskUserTurn {
    let option = |label: &str| QuestionOption {
        label: label.to_owned(),
        description: format!("Go on with {label}."),
    };
    AskUserTurn {
        action: Default::default(),
        assessment: AskUserAssessment {
            reasoning: "Paused for the person.".to_owned(),
            suggested_roles: SuggestedRoles::peers(),
        },
        message: (),
        ask_user: AskUser {
            reason: NegotiationConsultationReason::UnresolvedOwnerConstraint,
            question: StructuredQuestion {
                title: title.to_owned(),
                prompt: format!("What about the {title}?"),
                options: vec![option("Low"), option("High")],
                multi_select: false,
            },
        },
    }
}

async fn park<S: NegotiationStore>(
    store: &S,
    id: &OpportunityId,
    who: &str,
    cap: usize,
) -> ParkDecision {
    Negotiations::with_settings(
        store,
        QuestionLoopSettings {
            ask_rounds_cap: cap,
        },
    )
    .park(id, &user(who), &park_turn("budget"))
    .await
    .unwrap()
}

async fn answer<S: NegotiationStore>(
    store: &S,
    id: &OpportunityId,
    who: &str,
    text: &str,
) -> AnswerDecision {
    Negotiations::new(store)
        .answer(id, &user(who), text)
        .await
        .unwrap()
}

/// The record's parks and answers, in order: `("ask_user", sender)` or
/// `("ask_user_answer", text)`.
async fn loop_messages<S: NegotiationStore>(
    store: &S,
    id: &OpportunityId,
) -> Vec<(String, String)> {
    store
        .list_messages(id)
        .await
        .unwrap()
        .iter()
        .filter_map(|message| {
            let action = message.data()?.get("action")?.as_str()?.to_owned();
            if message.is_ask_user() {
                Some((action, message.sender_id.clone()))
            } else if action == ASK_USER_ANSWER_ACTION {
                let text = message.parts.iter().find_map(|part| match part {
                    MessagePart::Text { text } => Some(text.clone()),
                    _ => None,
                })?;
                Some((action, text))
            } else {
                None
            }
        })
        .collect()
}

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
                            .close_negotiation(&id, CloseReason::Passed)
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

/// One negotiation's message record as stores of schema version 2 kept the
/// question loop (parks and answers only as messages), and what an upgrade
/// must read from it. For backends' upgrade tests: write `messages` into a
/// version-2 store, open it with this version, and compare.
#[derive(Debug, Clone)]
pub struct LegacyRecord {
    /// `(sender_id, parts as JSON text)`, in order.
    pub messages: Vec<(String, String)>,
    /// The ask rounds the record spent.
    pub ask_rounds: usize,
    /// The last park's person and its answer, if the record parked.
    pub park: Option<(String, Option<String>)>,
}

/// The question every [`legacy_records`] park asks.
pub fn legacy_question() -> StructuredQuestion {
    park_turn("budget").ask_user.question
}

/// Records as version 2 wrote them: two parks, the last open; one park,
/// answered; a park followed by a text note only; and no park at all.
pub fn legacy_records() -> Vec<LegacyRecord> {
    let park = |who: &str| {
        let message = park_turn("budget").to_message(&user(who));
        (
            message.sender_id.clone(),
            crate::message_parts_text(&message).unwrap(),
        )
    };
    // Version 2's answer: the text, then data with a `turnCount` mark.
    let answer = |who: &str, text: &str| {
        let parts = serde_json::json!([
            {"kind": "text", "text": text},
            {"kind": "data", "data": {"action": "ask_user_answer", "title": "budget", "answer": text, "turnCount": 12}},
        ]);
        (format!("user:{who}"), parts.to_string())
    };
    let note = |who: &str| {
        let message = text_message(who, "see you then");
        (
            message.sender_id.clone(),
            crate::message_parts_text(&message).unwrap(),
        )
    };
    vec![
        LegacyRecord {
            messages: vec![park(BOB), answer(BOB, "High"), park(ALICE)],
            ask_rounds: 2,
            park: Some((ALICE.to_owned(), None)),
        },
        LegacyRecord {
            messages: vec![note(ALICE), park(BOB), answer(BOB, "Low"), note(BOB)],
            ask_rounds: 1,
            park: Some((BOB.to_owned(), Some("Low".to_owned()))),
        },
        LegacyRecord {
            messages: vec![park(ALICE), note(BOB)],
            ask_rounds: 1,
            park: Some((ALICE.to_owned(), None)),
        },
        LegacyRecord {
            messages: vec![note(ALICE), note(BOB)],
            ask_rounds: 0,
            park: None,
        },
    ]
}

/// The negotiation a backend's upgrade test writes `legacy_records()[n]`
/// into: between alice (initiator) and bob.
pub fn legacy_id(n: usize) -> OpportunityId {
    OpportunityId::parse(format!("7d1e4b2c-9a3f-4c6e-8b5d-{n:012x}")).unwrap()
}

/// Checks that `store`, written at schema version 2 with each of
/// [`legacy_records`] under [`legacy_id`], reads back what the upgrade
/// must have made of them: the ask rounds, the last park and its answer,
/// whose answer each waits on, and the record itself unchanged.
pub async fn assert_upgraded<S: NegotiationStore>(store: &S) {
    for (n, record) in legacy_records().iter().enumerate() {
        let id = legacy_id(n);
        let state = store.read_negotiation_state(&id).await.unwrap().unwrap();
        assert_eq!(state.ask_rounds, record.ask_rounds, "{record:?}");
        let park = state.park.as_ref().map(|park| {
            assert_eq!(park.question, legacy_question());
            (park.user_id.to_string(), park.answer.clone())
        });
        assert_eq!(park, record.park, "{record:?}");
        let summary = store.get_negotiation(&id).await.unwrap().unwrap();
        let waiting = record
            .park
            .as_ref()
            .filter(|(_, answer)| answer.is_none())
            .map(|(who, _)| who.as_str());
        assert_eq!(summary.waiting_on.as_ref().map(UserId::as_str), waiting);
        assert_eq!(
            store.list_messages(&id).await.unwrap().len(),
            record.messages.len(),
            "the record itself is kept as it was"
        );
    }
}
