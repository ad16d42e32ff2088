//! Replaying a stored log through the rules, for a store's health check:
//! a store that only ever commits what the rules permit holds a log the
//! rules accept turn by turn, and a state that log leads to.

use std::fmt;

use crate::{
    Decision, NegotiationOutcome, NegotiationRejection, NegotiationState, NegotiationTurn, UserId,
    decide_negotiation_resume, decide_negotiation_turn,
};

/// Something in a stored negotiation that the rules would never have let
/// happen: a sign the store was written around them (by hand, by another
/// program, or by a bug).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LogFault {
    /// The turn at `index` would have been refused, for `rejection`. The
    /// replay stops there: what follows was decided on a state the rules
    /// never reached.
    RefusedTurn {
        /// Its place in the log, from 0.
        index: usize,
        /// Who took it.
        seat_user_id: UserId,
        /// Why the rules refuse it.
        rejection: NegotiationRejection,
    },
    /// The user recorded as the one to move holds neither seat.
    AwaitingStranger(UserId),
    /// The negotiation is settled, yet someone is recorded as to move.
    AwaitedWhileSettled(UserId),
    /// The negotiation waits on a person's answer, yet someone is recorded
    /// as to move: a park is only ever made with nobody to move, and the
    /// answer that hands a seat the turn closes it.
    AwaitedWhileParked(UserId),
    /// The negotiation is parked on a question for someone who holds no
    /// seat.
    ParkOfStranger(UserId),
    /// A park is recorded, but no ask round was counted for it.
    ParkUncounted,
    /// The stored state is not the one the log leads to.
    StateDiffers {
        /// Which part: `awaitingUserId`, `outcome` or `settled`.
        field: &'static str,
        /// As stored.
        stored: String,
        /// As the log leads to.
        replayed: String,
    },
}

impl fmt::Display for LogFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogFault::RefusedTurn {
                index,
                seat_user_id,
                rejection,
            } => write!(
                f,
                "turn {index} by {seat_user_id} breaks the rules: {} ({})",
                rejection.as_str(),
                rejection.explanation()
            ),
            LogFault::AwaitingStranger(user) => {
                write!(f, "{user} is to move but holds no seat")
            }
            LogFault::AwaitedWhileSettled(user) => {
                write!(f, "settled, yet {user} is recorded as to move")
            }
            LogFault::AwaitedWhileParked(user) => {
                write!(f, "parked on a question, yet {user} is recorded as to move")
            }
            LogFault::ParkOfStranger(user) => {
                write!(f, "parked on a question for {user}, who holds no seat")
            }
            LogFault::ParkUncounted => write!(f, "a park is recorded, but no ask round"),
            LogFault::StateDiffers {
                field,
                stored,
                replayed,
            } => write!(f, "{field} is {stored}, but the log leads to {replayed}"),
        }
    }
}

/// Replays `stored`'s turns through the rules from a freshly opened pair
/// and returns every fault found; empty when the log is one the rules
/// could have produced and the state is the one it leads to.
///
/// What the log does not record is granted as the rules allow it: a seat
/// resumes before the first turn of each later round (a resume writes no
/// turn), both seats are taken to have been eligible (eligibility is not
/// logged), and a negotiation closed by its host (outcome `closed`) may end
/// anywhere the rules had not settled it.
///
/// ```
/// use index_negotiation::{audit_negotiation_log, LogFault, NegotiationAction, NegotiationState, SeatTurn, UserId};
///
/// let (alice, bob) = (UserId::parse("alice")?, UserId::parse("bob")?);
/// let mut state = NegotiationState::opened(alice.clone(), bob.clone());
/// assert!(audit_negotiation_log(&state).is_empty());
/// // An accept as the very first turn: nothing was on the table.
/// state.turns.push(SeatTurn { seat_user_id: alice, action: NegotiationAction::Accept, message: "Deal".into() });
/// assert!(matches!(audit_negotiation_log(&state)[0], LogFault::RefusedTurn { index: 0, .. }));
/// # Ok::<(), index_negotiation::InvalidId>(())
/// ```
pub fn audit_negotiation_log(stored: &NegotiationState) -> Vec<LogFault> {
    let mut faults = Vec::new();
    if let Some(user) = &stored.awaiting_user_id {
        if !stored.is_seat(user) {
            faults.push(LogFault::AwaitingStranger(user.clone()));
        }
        if stored.settled {
            faults.push(LogFault::AwaitedWhileSettled(user.clone()));
        }
    }
    if let Some(park) = &stored.park {
        if !stored.is_seat(&park.user_id) {
            faults.push(LogFault::ParkOfStranger(park.user_id.clone()));
        }
        if stored.ask_rounds == 0 {
            faults.push(LogFault::ParkUncounted);
        }
        if let (true, Some(user)) = (park.is_open(), &stored.awaiting_user_id) {
            faults.push(LogFault::AwaitedWhileParked(user.clone()));
        }
    }
    let mut replayed = NegotiationState::opened(
        stored.initiator_user_id.clone(),
        stored.responder_user_id.clone(),
    );
    if stored.earlier_turns > 0 {
        // The log from the start of a later round: a round that ended
        // left nobody to move, and the first turn's seat resumed.
        replayed.earlier_turns = stored.earlier_turns;
        replayed.awaiting_user_id = None;
    }
    for (index, turn) in (stored.earlier_turns..).zip(&stored.turns) {
        if replayed.awaiting_user_id.is_none()
            && let Decision::Permitted(resumed) =
                decide_negotiation_resume(Some(&replayed), &turn.seat_user_id)
        {
            replayed.apply_resume(&resumed);
        }
        let proposed = NegotiationTurn::new(turn.action, turn.message.clone());
        match decide_negotiation_turn(Some(&replayed), &turn.seat_user_id, &proposed) {
            Decision::Permitted(permitted) => {
                replayed.apply_turn(&turn.seat_user_id, &proposed, &permitted);
            }
            Decision::Refused(rejection) => {
                faults.push(LogFault::RefusedTurn {
                    index,
                    seat_user_id: turn.seat_user_id.clone(),
                    rejection,
                });
                return faults;
            }
        }
    }
    compare_ends(stored, &replayed, &mut faults);
    faults
}

/// Whether the stored end is one the replayed log allows: the same, or
/// reached from it by what leaves no turn (a resume, or the host closing).
fn compare_ends(
    stored: &NegotiationState,
    replayed: &NegotiationState,
    faults: &mut Vec<LogFault>,
) {
    let closed_by_host = stored.outcome == Some(NegotiationOutcome::Closed) && !replayed.settled;
    if closed_by_host {
        return;
    }
    let mut differs = |field, stored: String, replayed: String| {
        if stored != replayed {
            faults.push(LogFault::StateDiffers {
                field,
                stored,
                replayed,
            });
        }
    };
    let outcome = |outcome: Option<NegotiationOutcome>| {
        outcome.map_or_else(|| "none".to_owned(), |o| o.as_str().to_owned())
    };
    differs(
        "outcome",
        outcome(stored.outcome),
        outcome(replayed.outcome),
    );
    differs(
        "settled",
        stored.settled.to_string(),
        replayed.settled.to_string(),
    );
    let resumed = replayed.awaiting_user_id.is_none()
        && stored.awaiting_user_id.as_ref().is_some_and(|user| {
            decide_negotiation_resume(Some(replayed), user)
                .permitted()
                .is_some()
        });
    if !resumed {
        let awaiting = |user: &Option<UserId>| {
            user.as_ref()
                .map_or_else(|| "nobody".to_owned(), |u| u.as_str().to_owned())
        };
        differs(
            "awaitingUserId",
            awaiting(&stored.awaiting_user_id),
            awaiting(&replayed.awaiting_user_id),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NegotiationAction::{Accept, Counter, Decline, Propose};
    use crate::{NegotiationAction, SeatTurn};

    fn user(name: &str) -> UserId {
        UserId::parse(name).unwrap_or_else(|_| unreachable!("a valid test id"))
    }

    /// Plays `turns` through the rules (resuming as each round's first
    /// seat), as a store that kept to them would have stored them.
    fn played(turns: &[(&str, NegotiationAction)]) -> NegotiationState {
        let mut state = NegotiationState::opened(user("dana"), user("sam"));
        for (who, action) in turns {
            let who = user(who);
            if state.awaiting_user_id.is_none()
                && let Decision::Permitted(resumed) = decide_negotiation_resume(Some(&state), &who)
            {
                state.apply_resume(&resumed);
            }
            let turn = NegotiationTurn::new(*action, "A turn.");
            let Decision::Permitted(permitted) = decide_negotiation_turn(Some(&state), &who, &turn)
            else {
                unreachable!("the test plays by the rules");
            };
            state.apply_turn(&who, &turn, &permitted);
        }
        state
    }

    #[test]
    fn a_log_kept_by_the_rules_has_no_faults() {
        let mut turns = vec![("dana", Propose)];
        for n in 1..crate::NEGOTIATION_MAX_TURNS {
            turns.push((if n % 2 == 1 { "sam" } else { "dana" }, Counter));
        }
        // The round filled up; sam resumes and the next round settles.
        turns.extend([("sam", Propose), ("dana", Accept)]);
        let state = played(&turns);
        assert!(state.settled);
        assert_eq!(audit_negotiation_log(&state), []);
    }

    #[test]
    fn what_leaves_no_turn_is_granted() {
        // A resume as the last write.
        let mut resumed = played(&[("dana", Decline)]);
        resumed.awaiting_user_id = Some(user("sam"));
        assert_eq!(audit_negotiation_log(&resumed), []);
        // A host closing an open negotiation.
        let mut closed = played(&[("dana", Propose)]);
        closed.awaiting_user_id = None;
        closed.outcome = Some(NegotiationOutcome::Closed);
        closed.settled = true;
        assert_eq!(audit_negotiation_log(&closed), []);
    }

    #[test]
    fn a_state_the_log_does_not_lead_to_is_named() {
        let mut state = played(&[("dana", Propose)]);
        state.awaiting_user_id = Some(user("dana"));
        assert_eq!(
            audit_negotiation_log(&state),
            [LogFault::StateDiffers {
                field: "awaitingUserId",
                stored: "dana".into(),
                replayed: "sam".into(),
            }]
        );
        let mut settled = played(&[("dana", Propose), ("sam", Accept)]);
        settled.outcome = None;
        let faults = audit_negotiation_log(&settled);
        assert!(
            faults
                .iter()
                .any(|f| f.to_string() == "outcome is none, but the log leads to agreed"),
            "{faults:?}"
        );
    }

    #[test]
    fn the_replay_stops_at_the_first_refused_turn() {
        let mut state = played(&[("dana", Propose), ("sam", Counter)]);
        state.turns[1].seat_user_id = user("dana");
        state.turns.push(SeatTurn {
            seat_user_id: user("mallory"),
            action: Propose,
            message: "Me too.".into(),
        });
        let faults = audit_negotiation_log(&state);
        assert_eq!(
            faults,
            [LogFault::RefusedTurn {
                index: 1,
                seat_user_id: user("dana"),
                rejection: NegotiationRejection::NotYourTurn,
            }]
        );
        assert!(
            faults[0]
                .to_string()
                .starts_with("turn 1 by dana breaks the rules: not_your_turn")
        );
    }

    #[test]
    fn a_park_the_rules_would_not_have_made_is_named() {
        let mut round = vec![("dana", Propose)];
        for n in 1..crate::NEGOTIATION_MAX_TURNS {
            round.push((if n % 2 == 1 { "sam" } else { "dana" }, Counter));
        }
        let stalled = played(&round);
        let question = index_question_block::StructuredQuestion {
            title: "Budget".into(),
            prompt: "Which budget?".into(),
            options: ["Low", "High"]
                .map(|label| index_question_block::QuestionOption {
                    label: label.into(),
                    description: format!("Go with {label}."),
                })
                .into(),
            multi_select: false,
        };
        let park = |who: &str| crate::Park {
            user_id: user(who),
            question: question.clone(),
            answer: None,
        };
        let mut parked = stalled.clone();
        parked.ask_rounds = 1;
        parked.park = Some(park("dana"));
        assert_eq!(audit_negotiation_log(&parked), []);
        let mut answered = parked.clone();
        answered.park.as_mut().unwrap().answer = Some("Low".into());
        answered.awaiting_user_id = Some(user("dana"));
        assert_eq!(audit_negotiation_log(&answered), [], "the answer's resume");
        let mut moving = parked.clone();
        moving.awaiting_user_id = Some(user("sam"));
        assert_eq!(
            audit_negotiation_log(&moving),
            [LogFault::AwaitedWhileParked(user("sam"))]
        );
        let mut stranger = parked.clone();
        stranger.park = Some(park("mallory"));
        stranger.ask_rounds = 0;
        assert_eq!(
            audit_negotiation_log(&stranger),
            [
                LogFault::ParkOfStranger(user("mallory")),
                LogFault::ParkUncounted
            ]
        );
    }
}
