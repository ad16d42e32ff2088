//! Turns and resumes racing on one negotiation: one winner per index,
//! every refusal a rule's.

use std::collections::BTreeSet;

use index_negotiation::NegotiationAction::{Counter, Decline, Propose};
use index_negotiation::{Decision, NegotiationRejection, NegotiationResumeRejection};

use crate::{NegotiationStore, UserId};

use super::fixtures::{ALICE, BOB, RACERS, open, play, resume, state, turn};

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
