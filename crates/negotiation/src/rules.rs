//! The rules: openings, turns, resumes, what a seat may do now and where
//! it stands.

use serde::Serialize;

use crate::decision::{
    Decision, NegotiationDecision, NegotiationRejection, NegotiationResumeDecision,
    NegotiationResumeRejection, ResumePermitted, TurnPermitted,
};
use crate::guidance::NEGOTIATION_GUIDANCE;
use crate::ids::UserId;
use crate::round::current_round;
use crate::state::{
    NegotiationOpened, NegotiationOpening, NegotiationOpeningDecision, NegotiationOutcome,
    NegotiationState, OpportunityStatus, RoundEnded,
};
use crate::turn::{NegotiationAction, NegotiationTurn, is_valid_turn, parse_negotiation_turn};
use crate::{NEGOTIATION_MAX_TURNS, NEGOTIATION_MESSAGE_LIMIT};

/// Whether a pair may open a negotiation: eligible, two different people,
/// two different intents. The initiator moves first.
///
/// ```
/// use index_negotiation::{decide_negotiation_opening, NegotiationOpening};
/// let pair = NegotiationOpening {
///     user_a: "alice".parse()?, user_b: "bob".parse()?,
///     intent_a: "i-1".parse()?, intent_b: "i-2".parse()?, eligible: true,
/// };
/// assert_eq!(decide_negotiation_opening(&pair).unwrap().awaiting_user_id, "alice");
/// # Ok::<(), index_negotiation::InvalidId>(())
/// ```
pub fn decide_negotiation_opening(pair: &NegotiationOpening) -> NegotiationOpeningDecision {
    (pair.eligible && pair.user_a != pair.user_b && pair.intent_a != pair.intent_b).then(|| {
        NegotiationOpened {
            awaiting_user_id: pair.user_a.clone(),
            opportunity_status: OpportunityStatus::Negotiating,
        }
    })
}

/// Why `user_id` may not act on `state` right now, checked in this order:
/// not a seat, settled, an intent inactive, not this seat's turn.
pub fn negotiation_blocked_reason(
    state: &NegotiationState,
    user_id: &UserId,
) -> Option<NegotiationRejection> {
    if !state.is_seat(user_id) {
        Some(NegotiationRejection::NotASeat)
    } else if state.settled {
        Some(NegotiationRejection::AlreadySettled)
    } else if !state.eligible {
        Some(NegotiationRejection::IntentInactive)
    } else if state.awaiting_user_id.as_ref() != Some(user_id) {
        Some(NegotiationRejection::NotYourTurn)
    } else {
        None
    }
}

/// The complete transition for `user_id` taking `turn` on the locked
/// `state`, or why it is refused.
///
/// Checks run in the reference's order: the negotiation exists; the blocked
/// reasons of [`negotiation_blocked_reason`]; the turn is valid; a round
/// does not open with a counter; an accept answers the other seat's
/// standing propose; a propose does not answer one. Only an accept settles
/// (`outcome` agreed, status pending). A decline, or the round's last turn,
/// ends the round with nobody to move.
///
/// ```
/// use index_negotiation::{decide_negotiation_turn, NegotiationAction, NegotiationRejection, NegotiationState, NegotiationTurn, UserId};
/// let alice = UserId::parse("alice")?;
/// let state = NegotiationState::opened(alice.clone(), UserId::parse("bob")?);
/// let counter = NegotiationTurn::new(NegotiationAction::Counter, "What is on offer?");
/// let decision = decide_negotiation_turn(Some(&state), &alice, &counter);
/// assert_eq!(decision.rejection(), Some(NegotiationRejection::CounterIsFirst));
/// # Ok::<(), index_negotiation::InvalidId>(())
/// ```
pub fn decide_negotiation_turn(
    state: Option<&NegotiationState>,
    user_id: &UserId,
    turn: &NegotiationTurn,
) -> NegotiationDecision {
    decide_turn(state, user_id, is_valid_turn(turn).then_some(turn.action))
}

/// [`decide_negotiation_turn`] for a turn that arrives as untyped JSON: an
/// unknown action, a missing or non-string message, or a message out of
/// bounds is `invalid_turn`, reported after the checks that come before it.
///
/// ```
/// use index_negotiation::{decide_negotiation_turn_value, NegotiationRejection, NegotiationState, UserId};
/// let alice = UserId::parse("alice")?;
/// let state = NegotiationState::opened(alice.clone(), UserId::parse("bob")?);
/// let turn = serde_json::json!({"action": "haggle", "message": "hm"});
/// assert_eq!(decide_negotiation_turn_value(Some(&state), &alice, &turn).rejection(), Some(NegotiationRejection::InvalidTurn));
/// assert_eq!(decide_negotiation_turn_value(None, &alice, &turn).rejection(), Some(NegotiationRejection::NotFound));
/// # Ok::<(), index_negotiation::InvalidId>(())
/// ```
pub fn decide_negotiation_turn_value(
    state: Option<&NegotiationState>,
    user_id: &UserId,
    turn: &serde_json::Value,
) -> NegotiationDecision {
    decide_turn(
        state,
        user_id,
        parse_negotiation_turn(turn).ok().map(|turn| turn.action),
    )
}

/// The shared decision; `action` is `None` when the turn failed its schema.
fn decide_turn(
    state: Option<&NegotiationState>,
    user_id: &UserId,
    action: Option<NegotiationAction>,
) -> NegotiationDecision {
    let Some(state) = state else {
        return Decision::Refused(NegotiationRejection::NotFound);
    };
    if let Some(blocked) = negotiation_blocked_reason(state, user_id) {
        return Decision::Refused(blocked);
    }
    let turn_index = state.turn_count();
    let Some(action) = action else {
        return Decision::Refused(NegotiationRejection::InvalidTurn);
    };
    let round = current_round(&state.turns);
    let previous = round.last();
    if action == NegotiationAction::Counter && round.is_empty() {
        return Decision::Refused(NegotiationRejection::CounterIsFirst);
    }
    // Only a propose stands to be accepted: a counter asks without offering.
    let other_seat_proposed = previous
        .is_some_and(|p| p.seat_user_id != *user_id && p.action == NegotiationAction::Propose);
    if action == NegotiationAction::Accept && !other_seat_proposed {
        return Decision::Refused(NegotiationRejection::AcceptWithoutOffer);
    }
    if action == NegotiationAction::Propose && other_seat_proposed {
        return Decision::Refused(NegotiationRejection::ProposeOverOffer);
    }

    let agreed = action == NegotiationAction::Accept;
    let round_ended = if agreed {
        None
    } else if action == NegotiationAction::Decline {
        Some(RoundEnded::Declined)
    } else if round.len() + 1 >= NEGOTIATION_MAX_TURNS {
        Some(RoundEnded::TurnLimit)
    } else {
        None
    };
    let awaiting_user_id =
        (!agreed && round_ended.is_none()).then(|| state.other_seat(user_id).to_owned());
    Decision::Permitted(TurnPermitted {
        turn_index,
        outcome: agreed.then_some(NegotiationOutcome::Agreed),
        round_ended,
        awaiting_user_id,
        opportunity_status: if agreed {
            OpportunityStatus::Pending
        } else {
            OpportunityStatus::Negotiating
        },
    })
}

/// Whether `user_id` may resume a negotiation paused between rounds, taking
/// the first turn of a new one. Nothing resumes on its own: a seat resumes
/// when its person's new context bears on the pair. A negotiation parked on
/// a question ([`decide_park`](crate::decide_park)) is not resumed by a
/// seat: it waits for the answer, which resumes it (`awaiting_answer`; the
/// reference has no parks in its state, see STABILITY.md).
///
/// ```
/// use index_negotiation::{decide_negotiation_resume, NegotiationResumeRejection, NegotiationState, UserId};
/// let bob = UserId::parse("bob")?;
/// let mut state = NegotiationState::opened(UserId::parse("alice")?, bob.clone());
/// assert_eq!(decide_negotiation_resume(Some(&state), &bob).rejection(), Some(NegotiationResumeRejection::NotPaused));
/// state.awaiting_user_id = None;
/// assert_eq!(decide_negotiation_resume(Some(&state), &bob).permitted().unwrap().awaiting_user_id, bob);
/// # Ok::<(), index_negotiation::InvalidId>(())
/// ```
pub fn decide_negotiation_resume(
    state: Option<&NegotiationState>,
    user_id: &UserId,
) -> NegotiationResumeDecision {
    let Some(state) = state else {
        return Decision::Refused(NegotiationResumeRejection::NotFound);
    };
    let rejection = if !state.is_seat(user_id) {
        NegotiationResumeRejection::NotASeat
    } else if state.settled {
        NegotiationResumeRejection::AlreadySettled
    } else if !state.eligible {
        NegotiationResumeRejection::IntentInactive
    } else if state.awaiting_user_id.is_some() {
        NegotiationResumeRejection::NotPaused
    } else if state.waiting_on().is_some() {
        NegotiationResumeRejection::AwaitingAnswer
    } else {
        return Decision::Permitted(ResumePermitted {
            awaiting_user_id: user_id.clone(),
        });
    };
    Decision::Refused(rejection)
}

/// [`decide_negotiation_resume`] on a state as JSON, read as the reference
/// reads its argument: a falsy state (`null`, `false`, `0`, `""`) is not
/// found; the seats are compared with `===`; `settled` and `eligible` are
/// read for truthiness; and only an `awaitingUserId` that is exactly `null`
/// counts as paused, so a state without the field is `not_paused`
/// (`undefined !== null`).
///
/// ```
/// use index_negotiation::{decide_negotiation_resume_value, NegotiationResumeRejection, UserId};
/// let paused = serde_json::json!({"initiatorUserId": "u1", "responderUserId": "u2",
///     "awaitingUserId": null, "settled": false, "eligible": true, "turns": []});
/// let u2 = UserId::parse("u2")?;
/// assert!(decide_negotiation_resume_value(&paused, &u2).permitted().is_some());
/// let mut missing = paused.clone();
/// missing.as_object_mut().unwrap().remove("awaitingUserId");
/// assert_eq!(decide_negotiation_resume_value(&missing, &u2).rejection(), Some(NegotiationResumeRejection::NotPaused));
/// # Ok::<(), index_negotiation::InvalidId>(())
/// ```
pub fn decide_negotiation_resume_value(
    state: &serde_json::Value,
    user_id: &UserId,
) -> NegotiationResumeDecision {
    use serde_json::Value;
    /// JavaScript's truthiness; a missing property is `undefined`, falsy.
    fn truthy(value: Option<&Value>) -> bool {
        match value {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Array(_) | Value::Object(_)) => true,
        }
    }
    if !truthy(Some(state)) {
        return Decision::Refused(NegotiationResumeRejection::NotFound);
    }
    // Only an object has these properties; on anything else they are
    // `undefined`.
    let get = |key: &str| state.as_object().and_then(|object| object.get(key));
    let is = |key: &str| get(key).and_then(Value::as_str) == Some(user_id.as_str());
    let rejection = if !is("initiatorUserId") && !is("responderUserId") {
        NegotiationResumeRejection::NotASeat
    } else if truthy(get("settled")) {
        NegotiationResumeRejection::AlreadySettled
    } else if !truthy(get("eligible")) {
        NegotiationResumeRejection::IntentInactive
    } else if !matches!(get("awaitingUserId"), Some(Value::Null)) {
        NegotiationResumeRejection::NotPaused
    } else {
        return Decision::Permitted(ResumePermitted {
            awaiting_user_id: user_id.clone(),
        });
    };
    Decision::Refused(rejection)
}

/// What a seat sees when it looks at a negotiation: the guidance, what it
/// may do now, and the limits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct NegotiationObservation {
    /// The guidance negotiators follow ([`NEGOTIATION_GUIDANCE`]).
    pub guidance: &'static str,
    /// The actions the seat may take now, in the reference's order; empty
    /// when blocked.
    pub available_actions: Vec<NegotiationAction>,
    /// Why the seat may not act now, if it may not.
    pub blocked_reason: Option<NegotiationRejection>,
    /// The most turns a round may have ([`NEGOTIATION_MAX_TURNS`]).
    pub max_turns: usize,
    /// Turns left in the current round.
    pub remaining_turns: usize,
    /// The longest message, in UTF-16 code units once trimmed
    /// ([`NEGOTIATION_MESSAGE_LIMIT`]).
    pub message_limit: usize,
}

/// What `user_id` may do on `state` now. An action is offered exactly when
/// [`decide_negotiation_turn`] would permit it with a valid message.
///
/// ```
/// use index_negotiation::{observe_negotiation, NegotiationAction::*, NegotiationState, UserId};
/// let (alice, bob) = (UserId::parse("alice")?, UserId::parse("bob")?);
/// let state = NegotiationState::opened(alice.clone(), bob.clone());
/// assert_eq!(observe_negotiation(&state, &alice).available_actions, [Propose, Decline]);
/// assert!(observe_negotiation(&state, &bob).available_actions.is_empty());
/// # Ok::<(), index_negotiation::InvalidId>(())
/// ```
pub fn observe_negotiation(state: &NegotiationState, user_id: &UserId) -> NegotiationObservation {
    let blocked_reason = negotiation_blocked_reason(state, user_id);
    let round = current_round(&state.turns);
    let available_actions = match (blocked_reason, round.last().map(|turn| turn.action)) {
        (Some(_), _) => Vec::new(),
        (None, None) => vec![NegotiationAction::Propose, NegotiationAction::Decline],
        (None, Some(NegotiationAction::Propose)) => vec![
            NegotiationAction::Counter,
            NegotiationAction::Accept,
            NegotiationAction::Decline,
        ],
        (None, Some(_)) => vec![
            NegotiationAction::Propose,
            NegotiationAction::Counter,
            NegotiationAction::Decline,
        ],
    };
    NegotiationObservation {
        guidance: NEGOTIATION_GUIDANCE,
        available_actions,
        blocked_reason,
        max_turns: NEGOTIATION_MAX_TURNS,
        remaining_turns: NEGOTIATION_MAX_TURNS.saturating_sub(round.len()),
        message_limit: NEGOTIATION_MESSAGE_LIMIT,
    }
}

index_js::wire_enum! {
    crate index_negotiation;
    /// Where a negotiation stands for one seat: whose move it is, or why
    /// nobody may move. Surfaces that wait for a seat's move, or tell a
    /// person where talks are, read this instead of weighing the state's
    /// fields themselves (see [`seat_standing`]).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum SeatStanding {
        /// The seat is to move.
        YourMove = "yourMove",
        /// The other seat is to move.
        TheirMove = "theirMove",
        /// A round has ended (on a decline or at the turn cap) and nobody
        /// is to move until a seat resumes.
        RoundEnded = "roundEnded",
        /// Nobody is to move: the negotiation waits on a person's answer
        /// to a parked question, which resumes it.
        Parked = "parked",
        /// The negotiation is over; nothing more happens in it.
        Settled = "settled",
    }
}

impl std::fmt::Display for SeatStanding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where `state` stands for `user_id`'s seat, checked in this order:
/// settled; parked on anyone's question (whoever's it is, so read it on
/// the state before [`seen_by`](NegotiationState::seen_by) leaves another
/// person's park out); this seat to move; nobody to move (a round
/// ended); the other seat to move.
///
/// ```
/// use index_negotiation::{seat_standing, NegotiationState, SeatStanding, UserId};
/// let (alice, bob) = (UserId::parse("alice")?, UserId::parse("bob")?);
/// let mut state = NegotiationState::opened(alice.clone(), bob.clone());
/// assert_eq!(seat_standing(&state, &alice), SeatStanding::YourMove);
/// assert_eq!(seat_standing(&state, &bob), SeatStanding::TheirMove);
/// state.awaiting_user_id = None;
/// assert_eq!(seat_standing(&state, &bob), SeatStanding::RoundEnded);
/// state.settled = true;
/// assert_eq!(seat_standing(&state, &bob), SeatStanding::Settled);
/// # Ok::<(), index_negotiation::InvalidId>(())
/// ```
pub fn seat_standing(state: &NegotiationState, user_id: &UserId) -> SeatStanding {
    if state.settled {
        SeatStanding::Settled
    } else if state.waiting_on().is_some() {
        SeatStanding::Parked
    } else {
        match &state.awaiting_user_id {
            Some(seat) if seat == user_id => SeatStanding::YourMove,
            Some(_) => SeatStanding::TheirMove,
            None => SeatStanding::RoundEnded,
        }
    }
}
