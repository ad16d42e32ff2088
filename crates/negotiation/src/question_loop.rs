//! The question loop's rules: when a negotiation may park on a question for
//! one of its people, and when that person's answer may resume it.
//!
//! This is the protocol's second state machine, beside the turns, and it is
//! decided the same way: a host reads the state under the negotiation's
//! lock, calls [`decide_park`] or [`decide_answer`] once, and applies
//! exactly what it returns. The park itself lives in the state
//! ([`NegotiationState::park`], [`NegotiationState::ask_rounds`]), so two
//! parks, or two answers, racing on one negotiation serialize in the store
//! and the loser is refused as a value.
//!
//! ```text
//!  round ends at the turn limit ──park──▶ parked on a question ──answer──▶ the person's seat to move
//!  (nobody to move, in talks)             (turns and resumes refused)       (a fresh round)
//! ```

use serde::{Deserialize, Serialize};

use index_js as js;

use crate::ask::{ASK_USER_ACTION, ASK_USER_ANSWER_ACTION, NegotiationMessage, agent_sender_id};
use crate::decision::Decision;
use crate::ids::UserId;
use crate::state::{NegotiationState, Park};

/// The longest answer a person may give to a park's question, in UTF-16
/// code units once trimmed as JavaScript trims: the same bound as a turn's
/// message, since the answer is read by the agents the way a turn is.
pub const NEGOTIATION_ANSWER_LIMIT: usize = crate::NEGOTIATION_MESSAGE_LIMIT;

index_js::wire_enum! {
    crate index_negotiation;
    /// Why a negotiation may not park now.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum ParkRejection {
        /// There is no such negotiation.
        NotFound = "not_found",
        /// The user holds neither seat.
        NotASeat = "not_a_seat",
        /// The negotiation is over.
        AlreadySettled = "already_settled",
        /// A seat's intent is paused, removed or no longer shared.
        IntentInactive = "intent_inactive",
        /// The negotiation has not [ended
        /// unconcluded](NegotiationState::ended_unconcluded): a seat is to
        /// move, nothing was negotiated yet, or the last round ended on a
        /// decline.
        NotParkable = "not_parkable",
        /// It already waits on a person's answer.
        AlreadyParked = "already_parked",
        /// The negotiation has spent its ask rounds: the stall is final.
        AskCapReached = "ask_cap_reached",
    }
}

impl ParkRejection {
    /// One plain sentence for a person.
    pub fn explanation(self) -> &'static str {
        match self {
            ParkRejection::NotFound => "There is no negotiation with that id.",
            ParkRejection::NotASeat => "You do not hold a seat in this negotiation.",
            ParkRejection::AlreadySettled => {
                "This negotiation is over; nothing more can happen in it."
            }
            ParkRejection::IntentInactive => {
                "A seat's intent is paused or removed, so the negotiation cannot move."
            }
            ParkRejection::NotParkable => {
                "Only a negotiation whose last round ran out without agreement, with nobody to move, can wait on a question."
            }
            ParkRejection::AlreadyParked => "This negotiation already waits on a person's answer.",
            ParkRejection::AskCapReached => {
                "This negotiation has asked its people as often as it may; the stall is final."
            }
        }
    }
}

impl std::fmt::Display for ParkRejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A permitted park: the ask round it spends.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParkPermitted {
    /// Ask rounds spent once this park is recorded, this one included.
    pub ask_rounds: usize,
}

/// The decision on a park.
pub type ParkDecision = Decision<ParkPermitted, ParkRejection>;

/// Whether `user_id`'s agent may park the negotiation on a question for its
/// person, spending one of `cap` ask rounds.
///
/// Checked in this order: the negotiation exists; the user holds a seat;
/// it is not settled; both intents are active; it
/// [ended unconcluded](NegotiationState::ended_unconcluded) (nobody is to
/// move, and the round that ended ran to the turn limit rather than to a
/// decline, as the reference's finalize step reads a stall); it does
/// not already wait on an answer; the ask rounds spent are under `cap`. A
/// negotiation resumed by an answer has a seat to move, so it cannot park
/// again until another round runs out.
///
/// ```
/// use index_negotiation::*;
/// let (alice, bob) = (UserId::parse("alice")?, UserId::parse("bob")?);
/// let mut state = NegotiationState::opened(alice.clone(), bob.clone());
/// assert_eq!(decide_park(Some(&state), &alice, 3).rejection(), Some(ParkRejection::NotParkable));
/// // Twelve turns with no agreement: the round ran out.
/// state.turns = (0..12).map(|n| SeatTurn {
///     seat_user_id: if n % 2 == 0 { alice.clone() } else { bob.clone() },
///     action: if n == 0 { NegotiationAction::Propose } else { NegotiationAction::Counter },
///     message: "…".into(),
/// }).collect();
/// state.awaiting_user_id = None;
/// assert_eq!(decide_park(Some(&state), &alice, 3).permitted().map(|p| p.ask_rounds), Some(1));
/// state.ask_rounds = 3;
/// assert_eq!(decide_park(Some(&state), &alice, 3).rejection(), Some(ParkRejection::AskCapReached));
/// # Ok::<(), InvalidId>(())
/// ```
pub fn decide_park(state: Option<&NegotiationState>, user_id: &UserId, cap: usize) -> ParkDecision {
    let Some(state) = state else {
        return Decision::Refused(ParkRejection::NotFound);
    };
    let rejection = if !state.is_seat(user_id) {
        ParkRejection::NotASeat
    } else if state.settled {
        ParkRejection::AlreadySettled
    } else if !state.eligible {
        ParkRejection::IntentInactive
    } else if !state.ended_unconcluded() {
        ParkRejection::NotParkable
    } else if state.park.as_ref().is_some_and(Park::is_open) {
        ParkRejection::AlreadyParked
    } else if state.ask_rounds >= cap {
        ParkRejection::AskCapReached
    } else {
        return Decision::Permitted(ParkPermitted {
            ask_rounds: state.ask_rounds.saturating_add(1),
        });
    };
    Decision::Refused(rejection)
}

index_js::wire_enum! {
    crate index_negotiation;
    /// Why an answer is refused.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum AnswerRejection {
        /// There is no such negotiation.
        NotFound = "not_found",
        /// The user holds neither seat.
        NotASeat = "not_a_seat",
        /// The negotiation is over (closed while the question was open).
        AlreadySettled = "already_settled",
        /// A seat's intent is paused, removed or no longer shared.
        IntentInactive = "intent_inactive",
        /// The negotiation never parked on a question.
        NotParked = "not_parked",
        /// It waits on the other person's answer, not this one's.
        NotTheOwner = "not_the_owner",
        /// The question was answered already; the first answer stands.
        AlreadyAnswered = "already_answered",
        /// The answer is empty once trimmed.
        BlankAnswer = "blank_answer",
        /// The answer is longer than [`NEGOTIATION_ANSWER_LIMIT`].
        AnswerTooLong = "answer_too_long",
    }
}

impl AnswerRejection {
    /// One plain sentence for a person.
    pub fn explanation(self) -> &'static str {
        match self {
            AnswerRejection::NotFound => "There is no negotiation with that id.",
            AnswerRejection::NotASeat => "You do not hold a seat in this negotiation.",
            AnswerRejection::AlreadySettled => {
                "This negotiation is over; nothing more can happen in it."
            }
            AnswerRejection::IntentInactive => {
                "A seat's intent is paused or removed, so the negotiation cannot move."
            }
            AnswerRejection::NotParked => "This negotiation is not waiting on a question.",
            AnswerRejection::NotTheOwner => {
                "This negotiation waits on the other person's answer, not yours."
            }
            AnswerRejection::AlreadyAnswered => {
                "This question was answered already; the first answer stands."
            }
            AnswerRejection::BlankAnswer => "The answer is empty.",
            AnswerRejection::AnswerTooLong => {
                "The answer is too long: once trimmed, it must be at most 4000 UTF-16 code units."
            }
        }
    }
}

impl std::fmt::Display for AnswerRejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A permitted answer: recorded, and the negotiation resumed with the
/// answering person's seat to move.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerPermitted {
    /// The seat that now holds the turn: the person who answered.
    pub awaiting_user_id: UserId,
    /// The answer as recorded: trimmed.
    pub answer: String,
}

/// The decision on an answer.
pub type AnswerDecision = Decision<AnswerPermitted, AnswerRejection>;

/// Whether `user_id`'s `answer` settles the question the negotiation is
/// parked on, resuming it with their seat to move.
///
/// Checked in this order: the negotiation exists; the user holds a seat;
/// it is not settled; both intents are active; it parked; the park is the
/// user's; it is not answered yet; the answer, trimmed as JavaScript trims,
/// holds 1 to [`NEGOTIATION_ANSWER_LIMIT`] UTF-16 code units.
///
/// ```
/// use index_negotiation::*;
/// use index_question_block::{QuestionOption, StructuredQuestion};
/// let (alice, bob) = (UserId::parse("alice")?, UserId::parse("bob")?);
/// let mut state = NegotiationState::opened(alice.clone(), bob.clone());
/// state.awaiting_user_id = None;
/// let option = |l: &str| QuestionOption { label: l.into(), description: format!("Go with {l}.") };
/// let question = StructuredQuestion { title: "Budget".into(), prompt: "Which budget?".into(), options: vec![option("Low"), option("High")], multi_select: false };
/// state.park = Some(Park { user_id: alice.clone(), question, answer: None });
/// assert_eq!(decide_answer(Some(&state), &bob, "Low").rejection(), Some(AnswerRejection::NotTheOwner));
/// assert_eq!(decide_answer(Some(&state), &alice, " \n ").rejection(), Some(AnswerRejection::BlankAnswer));
/// let permitted = decide_answer(Some(&state), &alice, " Low\n");
/// assert_eq!(permitted.permitted().map(|p| p.answer.as_str()), Some("Low"));
/// # Ok::<(), InvalidId>(())
/// ```
pub fn decide_answer(
    state: Option<&NegotiationState>,
    user_id: &UserId,
    answer: &str,
) -> AnswerDecision {
    let Some(state) = state else {
        return Decision::Refused(AnswerRejection::NotFound);
    };
    let rejection = if !state.is_seat(user_id) {
        AnswerRejection::NotASeat
    } else if state.settled {
        AnswerRejection::AlreadySettled
    } else if !state.eligible {
        AnswerRejection::IntentInactive
    } else {
        match &state.park {
            None => AnswerRejection::NotParked,
            Some(park) if park.user_id != *user_id => AnswerRejection::NotTheOwner,
            Some(park) if !park.is_open() => AnswerRejection::AlreadyAnswered,
            Some(_) => match check_answer(answer) {
                Err(rejection) => rejection,
                Ok(answer) => {
                    return Decision::Permitted(AnswerPermitted {
                        awaiting_user_id: user_id.clone(),
                        answer: answer.to_owned(),
                    });
                }
            },
        }
    };
    Decision::Refused(rejection)
}

/// An answer as every surface takes it: trimmed as JavaScript trims, and
/// then 1 to [`NEGOTIATION_ANSWER_LIMIT`] UTF-16 code units long. Surfaces
/// check it before anything is delivered, so a blank answer is refused
/// whole; [`decide_answer`] checks it again inside the commit.
///
/// ```
/// use index_negotiation::{check_answer, AnswerRejection};
/// assert_eq!(check_answer("  Low \n"), Ok("Low"));
/// assert_eq!(check_answer("  "), Err(AnswerRejection::BlankAnswer));
/// ```
///
/// # Errors
///
/// [`AnswerRejection::BlankAnswer`] or [`AnswerRejection::AnswerTooLong`].
pub fn check_answer(answer: &str) -> Result<&str, AnswerRejection> {
    let answer = js::trim(answer);
    match js::utf16_len(answer) {
        0 => Err(AnswerRejection::BlankAnswer),
        length if length > NEGOTIATION_ANSWER_LIMIT => Err(AnswerRejection::AnswerTooLong),
        _ => Ok(answer),
    }
}

impl NegotiationState {
    /// The state as `user_id`'s seat may see it: a park that is the other
    /// person's is left out, question and answer, since what a person is
    /// unsure of is theirs to tell. (Whose answer it waits on stays a
    /// fact both seats see; stores report it in their summaries.)
    ///
    /// ```
    /// use index_negotiation::*;
    /// use index_question_block::{QuestionOption, StructuredQuestion};
    /// let (alice, bob) = (UserId::parse("alice")?, UserId::parse("bob")?);
    /// let mut state = NegotiationState::opened(alice.clone(), bob.clone());
    /// let option = |l: &str| QuestionOption { label: l.into(), description: format!("Go with {l}.") };
    /// let question = StructuredQuestion { title: "Budget".into(), prompt: "Which budget?".into(), options: vec![option("Low"), option("High")], multi_select: false };
    /// state.park = Some(Park { user_id: alice.clone(), question, answer: None });
    /// assert!(state.clone().seen_by(&alice).park.is_some());
    /// assert!(state.seen_by(&bob).park.is_none());
    /// # Ok::<(), InvalidId>(())
    /// ```
    #[must_use]
    pub fn seen_by(mut self, user_id: &UserId) -> Self {
        if self
            .park
            .as_ref()
            .is_some_and(|park| park.user_id != *user_id)
        {
            self.park = None;
        }
        self
    }
}

/// Whether `user_id`'s seat may read `message` from the negotiation's
/// record: every message but another person's park question and their
/// answer to it (see [`NegotiationState::seen_by`]).
///
/// ```
/// use index_negotiation::{ask_user_answer_message, is_visible_to, UserId};
/// let (alice, bob) = (UserId::parse("alice")?, UserId::parse("bob")?);
/// let answer = ask_user_answer_message(&alice, "Budget", "Low");
/// assert!(is_visible_to(&answer, &alice));
/// assert!(!is_visible_to(&answer, &bob));
/// # Ok::<(), index_negotiation::InvalidId>(())
/// ```
pub fn is_visible_to(message: &NegotiationMessage, user_id: &UserId) -> bool {
    let action = message
        .data()
        .and_then(|data| data.get("action"))
        .and_then(serde_json::Value::as_str);
    match action {
        Some(ASK_USER_ACTION) => message.sender_id == agent_sender_id(user_id),
        Some(ASK_USER_ANSWER_ACTION) => message.sender_id == format!("user:{user_id}"),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    // Tests report failure by panicking.
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use index_question_block::{QuestionOption, StructuredQuestion};

    use super::*;
    use crate::state::SeatTurn;
    use crate::{NEGOTIATION_MAX_TURNS, NegotiationAction, decide_negotiation_resume};

    fn user(name: &str) -> UserId {
        UserId::parse(name).unwrap()
    }

    fn question() -> StructuredQuestion {
        let option = |label: &str| QuestionOption {
            label: label.to_owned(),
            description: format!("Go with {label}."),
        };
        StructuredQuestion {
            title: "Budget".to_owned(),
            prompt: "Which budget?".to_owned(),
            options: vec![option("Low"), option("High")],
            multi_select: false,
        }
    }

    /// A negotiation whose first round ran out: nobody to move.
    fn stalled() -> NegotiationState {
        let (alice, bob) = (user("alice"), user("bob"));
        let mut state = NegotiationState::opened(alice.clone(), bob.clone());
        state.turns = (0..NEGOTIATION_MAX_TURNS)
            .map(|n| SeatTurn {
                seat_user_id: if n % 2 == 0 {
                    alice.clone()
                } else {
                    bob.clone()
                },
                action: if n == 0 {
                    NegotiationAction::Propose
                } else {
                    NegotiationAction::Counter
                },
                message: "Still talking.".to_owned(),
            })
            .collect();
        state.awaiting_user_id = None;
        state
    }

    fn parked() -> NegotiationState {
        let mut state = stalled();
        state.ask_rounds = 1;
        state.park = Some(Park {
            user_id: user("alice"),
            question: question(),
            answer: None,
        });
        state
    }

    #[test]
    fn only_an_unconcluded_end_with_nobody_to_move_parks() {
        let alice = user("alice");
        assert!(decide_park(Some(&stalled()), &alice, 3).is_ok());
        let mut resumed = stalled();
        resumed.awaiting_user_id = Some(alice.clone());
        assert_eq!(
            decide_park(Some(&resumed), &alice, 3).rejection(),
            Some(ParkRejection::NotParkable)
        );
        let mut declined = stalled();
        declined.turns.truncate(3);
        declined.turns.push(SeatTurn {
            seat_user_id: user("bob"),
            action: NegotiationAction::Decline,
            message: "No.".to_owned(),
        });
        assert_eq!(
            decide_park(Some(&declined), &alice, 3).rejection(),
            Some(ParkRejection::NotParkable)
        );
        let mut settled = stalled();
        settled.settled = true;
        assert_eq!(
            decide_park(Some(&settled), &alice, 3).rejection(),
            Some(ParkRejection::AlreadySettled)
        );
        assert_eq!(
            decide_park(Some(&stalled()), &user("carol"), 3).rejection(),
            Some(ParkRejection::NotASeat)
        );
        assert_eq!(
            decide_park(None, &alice, 3).rejection(),
            Some(ParkRejection::NotFound)
        );
    }

    #[test]
    fn a_parked_negotiation_neither_parks_again_nor_resumes() {
        let state = parked();
        for seat in ["alice", "bob"] {
            assert_eq!(
                decide_park(Some(&state), &user(seat), 3).rejection(),
                Some(ParkRejection::AlreadyParked)
            );
            assert_eq!(
                decide_negotiation_resume(Some(&state), &user(seat)).rejection(),
                Some(crate::NegotiationResumeRejection::AwaitingAnswer)
            );
        }
    }

    #[test]
    fn the_cap_counts_every_park_answered_or_not() {
        let mut state = parked();
        state.park.as_mut().unwrap().answer = Some("Low".to_owned());
        assert!(decide_park(Some(&state), &user("bob"), 2).is_ok());
        assert_eq!(
            decide_park(Some(&state), &user("bob"), 1).rejection(),
            Some(ParkRejection::AskCapReached)
        );
    }

    #[test]
    fn an_answer_is_the_owners_once_and_not_blank() {
        let (alice, bob) = (user("alice"), user("bob"));
        let state = parked();
        let permitted = decide_answer(Some(&state), &alice, "\u{3000}Low\u{feff}");
        assert_eq!(
            permitted.permitted(),
            Some(&AnswerPermitted {
                awaiting_user_id: alice.clone(),
                answer: "Low".to_owned()
            })
        );
        assert_eq!(
            decide_answer(Some(&state), &bob, "Low").rejection(),
            Some(AnswerRejection::NotTheOwner)
        );
        assert_eq!(
            decide_answer(Some(&state), &alice, " \u{feff}\u{2028} ").rejection(),
            Some(AnswerRejection::BlankAnswer)
        );
        let long = "é".repeat(NEGOTIATION_ANSWER_LIMIT + 1);
        assert_eq!(
            decide_answer(Some(&state), &alice, &long).rejection(),
            Some(AnswerRejection::AnswerTooLong)
        );
        assert!(decide_answer(Some(&state), &alice, &long[2..]).is_ok());
        let mut answered = state.clone();
        answered.park.as_mut().unwrap().answer = Some("Low".to_owned());
        assert_eq!(
            decide_answer(Some(&answered), &alice, "High").rejection(),
            Some(AnswerRejection::AlreadyAnswered)
        );
        assert_eq!(
            decide_answer(Some(&stalled()), &alice, "Low").rejection(),
            Some(AnswerRejection::NotParked)
        );
        let mut closed = state;
        closed.settled = true;
        assert_eq!(
            decide_answer(Some(&closed), &alice, "Low").rejection(),
            Some(AnswerRejection::AlreadySettled)
        );
    }
}
