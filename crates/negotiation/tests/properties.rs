//! Invariants over random operation sequences: seats and strangers taking
//! turns with messages of every length, resumes, intents pausing and
//! negotiations closing.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_negotiation::{
    Decision, NEGOTIATION_MAX_TURNS, NegotiationAction, NegotiationOutcome, NegotiationState,
    NegotiationTurn, current_round, decide_negotiation_resume, decide_negotiation_turn,
    observe_negotiation,
};
use proptest::prelude::*;

use index_negotiation::UserId;

/// A user id for a test, which is never blank.
fn user(id: &str) -> UserId {
    UserId::parse(id).unwrap()
}

const USERS: [&str; 3] = ["alice", "bob", "carol"];

#[derive(Debug, Clone)]
enum Op {
    Turn(usize, NegotiationAction, String),
    Resume(usize),
    SetEligible(bool),
    Close,
}

fn message() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-z ]{1,40}",
        1 => Just(String::new()),
        1 => Just(" \u{feff}\u{3000}\n".to_owned()),
        1 => Just("x".repeat(4000)),
        1 => Just("x".repeat(4001)),
        1 => Just("🙂".repeat(2001)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let action = prop::sample::select(NegotiationAction::ALL.to_vec());
    prop_oneof![
        20 => (prop_oneof![8 => 0usize..2, 1 => Just(2usize)], action, message()).prop_map(|(u, a, m)| Op::Turn(u, a, m)),
        4 => (0usize..3).prop_map(Op::Resume),
        1 => any::<bool>().prop_map(Op::SetEligible),
        1 => Just(Op::Close),
    ]
}

/// Checks that observe offers exactly what decide permits, for every user
/// and action, with a valid message.
fn observe_agrees_with_decide(state: &NegotiationState) -> Result<(), TestCaseError> {
    for user in USERS.map(user) {
        let user = &user;
        let offered = observe_negotiation(state, user).available_actions;
        for action in NegotiationAction::ALL {
            let permitted = decide_negotiation_turn(
                Some(state),
                user,
                &NegotiationTurn::new(action, "a valid message"),
            )
            .is_ok();
            prop_assert_eq!(
                offered.contains(&action),
                permitted,
                "{} {} on {:?}",
                user,
                action,
                state
            );
        }
    }
    Ok(())
}

/// `default` cases, or as many as `PROPTEST_CASES` asks for, so a long
/// run needs no code change.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(400)))]

    #[test]
    fn rules_hold_over_random_histories(ops in prop::collection::vec(op(), 0..80)) {
        let mut state = NegotiationState::opened(user("alice"), user("bob"));
        // Length of each round so far, as ended by the decisions themselves.
        let mut rounds: Vec<usize> = vec![0];
        for op in ops {
            observe_agrees_with_decide(&state)?;
            match op {
                Op::Turn(seat, action, message) => {
                    let user = &user(USERS[seat]);
                    let turn = NegotiationTurn::new(action, message);
                    let round_before = current_round(&state.turns).to_vec();
                    if let Decision::Permitted(permitted) = decide_negotiation_turn(Some(&state), user, &turn) {
                        if permitted.outcome == Some(NegotiationOutcome::Agreed) {
                            prop_assert_eq!(action, NegotiationAction::Accept);
                            let standing = round_before.last().unwrap();
                            prop_assert_eq!(standing.action, NegotiationAction::Propose);
                            prop_assert_ne!(&standing.seat_user_id, user);
                        }
                        prop_assert!(state.is_seat(user));
                        state.apply_turn(user, &turn, &permitted);
                        *rounds.last_mut().unwrap() += 1;
                        if permitted.round_ended.is_some() {
                            prop_assert_eq!(&state.awaiting_user_id, &None);
                            rounds.push(0);
                        }
                    }
                }
                Op::Resume(seat) => {
                    let user = &user(USERS[seat]);
                    let was_paused = state.awaiting_user_id.is_none();
                    if let Decision::Permitted(permitted) = decide_negotiation_resume(Some(&state), user) {
                        prop_assert!(was_paused && state.is_seat(user) && !state.settled && state.eligible);
                        prop_assert_eq!(&permitted.awaiting_user_id, user);
                        state.apply_resume(&permitted);
                    }
                }
                Op::SetEligible(eligible) => state.eligible = eligible,
                Op::Close => {
                    state.settled = true;
                    state.outcome.get_or_insert(NegotiationOutcome::Closed);
                    state.awaiting_user_id = None;
                }
            }
            prop_assert!(rounds.iter().all(|&len| len <= NEGOTIATION_MAX_TURNS), "{:?}", rounds);
            prop_assert_eq!(current_round(&state.turns).len(), *rounds.last().unwrap());
            prop_assert_eq!(rounds.iter().sum::<usize>(), state.turns.len());
        }
        observe_agrees_with_decide(&state)?;
    }

    #[test]
    fn decisions_never_panic_on_arbitrary_states(
        initiator in "[ab]", responder in "[ab]", awaiting in prop::option::of("[abc]"),
        settled in any::<bool>(), eligible in any::<bool>(),
        log in prop::collection::vec(("[abc]", prop::sample::select(NegotiationAction::ALL.to_vec())), 0..40),
        mover in "[abc]", action in prop::sample::select(NegotiationAction::ALL.to_vec()), message in message(),
    ) {
        let mut state = NegotiationState::opened(user(&initiator), user(&responder));
        state.awaiting_user_id = awaiting.as_deref().map(user);
        state.settled = settled;
        state.eligible = eligible;
        state.turns = log.into_iter().map(|(seat, action)| index_negotiation::SeatTurn { seat_user_id: user(&seat), action, message: "m".into() }).collect();
        let mover = user(&mover);
        let _ = decide_negotiation_turn(Some(&state), &mover, &NegotiationTurn::new(action, message));
        let _ = decide_negotiation_resume(Some(&state), &mover);
        let observation = observe_negotiation(&state, &mover);
        prop_assert!(observation.remaining_turns >= 1 && observation.remaining_turns <= NEGOTIATION_MAX_TURNS);
    }

    #[test]
    fn current_round_is_the_suffix_after_the_last_boundary(log in prop::collection::vec(prop::sample::select(NegotiationAction::ALL.to_vec()), 0..100)) {
        let round = current_round(&log);
        prop_assert!(round.len() < NEGOTIATION_MAX_TURNS);
        prop_assert!(!round.contains(&NegotiationAction::Decline));
        prop_assert_eq!(round, &log[log.len() - round.len()..]);
    }
}
