//! The negotiation as a host reads it, and what a decision may change.

use serde::{Deserialize, Serialize};

use crate::ids::{IntentId, UserId};
use crate::turn::{HasAction, NegotiationAction};
use index_question_block::StructuredQuestion;

index_js::wire_enum! {
    crate index_negotiation;
    /// How a negotiation ended, if it has.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum NegotiationOutcome {
        /// A seat accepted the other's proposal.
        Agreed = "agreed",
        /// Recorded by hosts that ended talks on a decline before rounds existed.
        Declined = "declined",
        /// A person passed, the negotiation expired, or an intent was removed.
        Closed = "closed",
    }
}

/// A turn in the log: who took it, what they did and said.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SeatTurn {
    /// The seat (user id) that took the turn.
    pub seat_user_id: UserId,
    /// What it did.
    pub action: NegotiationAction,
    /// What it said.
    pub message: String,
}

impl HasAction for SeatTurn {
    fn action(&self) -> NegotiationAction {
        self.action
    }
}

/// The park a negotiation holds: the last question one of its seats' agents
/// parked it on, whose it is, and the answer once there is one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Park {
    /// The person asked: their seat's agent parked the negotiation.
    pub user_id: UserId,
    /// What they are asked.
    pub question: StructuredQuestion,
    /// Their answer, trimmed; `None` while the negotiation waits on it.
    pub answer: Option<String>,
}

impl Park {
    /// Whether the negotiation still waits on this park's answer.
    pub fn is_open(&self) -> bool {
        self.answer.is_none()
    }
}

/// The authoritative state of one negotiation, as the host locked it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct NegotiationState {
    /// The seat that opened the negotiation.
    pub initiator_user_id: UserId,
    /// The other seat.
    pub responder_user_id: UserId,
    /// The seat whose turn it is, or `None` (JSON `null`) when nobody may
    /// move: between rounds, or once settled.
    pub awaiting_user_id: Option<UserId>,
    /// How the negotiation ended, or `None` while in talks.
    pub outcome: Option<NegotiationOutcome>,
    /// Whether the negotiation is over; nothing may happen after.
    pub settled: bool,
    /// Whether both seats' intents are still active and shared.
    pub eligible: bool,
    /// The turns, oldest first, across rounds: every turn so far, or,
    /// when [`earlier_turns`](Self::earlier_turns) is not zero, the log
    /// from the first turn of a round on (see [`turn_count`](Self::turn_count)).
    pub turns: Vec<SeatTurn>,
    /// How many turns of the log come before the first of
    /// [`turns`](Self::turns). A decision reads only the round in progress
    /// and the last turn, so a store may hand the rules the log from the
    /// start of the previous round on instead of the whole of it; `turns`
    /// then starts at the first turn of a round, where
    /// [`current_round`](crate::current_round) finds the same round as in
    /// the whole log. Absent from JSON when zero: `turns` is the whole log,
    /// as in the reference's shape.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub earlier_turns: usize,
    /// How many times the negotiation has parked on a question, answered
    /// or not: the ask rounds it has spent (see
    /// [`decide_park`](crate::decide_park)). Absent from JSON when zero,
    /// so a state in the reference's shape reads as one that never parked.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ask_rounds: usize,
    /// The last question it parked on, if it ever did; while unanswered,
    /// no seat may move or resume. Absent from JSON when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub park: Option<Park>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl NegotiationState {
    /// A freshly opened negotiation: eligible, no turns, the initiator to move.
    ///
    /// ```
    /// use index_negotiation::{NegotiationState, UserId};
    /// let alice = UserId::parse("alice")?;
    /// let state = NegotiationState::opened(alice.clone(), UserId::parse("bob")?);
    /// assert_eq!(state.awaiting_user_id, Some(alice));
    /// # Ok::<(), index_negotiation::InvalidId>(())
    /// ```
    pub fn opened(initiator: UserId, responder: UserId) -> Self {
        NegotiationState {
            awaiting_user_id: Some(initiator.clone()),
            initiator_user_id: initiator,
            responder_user_id: responder,
            outcome: None,
            settled: false,
            eligible: true,
            turns: Vec::new(),
            earlier_turns: 0,
            ask_rounds: 0,
            park: None,
        }
    }

    /// How many turns the negotiation has taken: the index the next turn
    /// gets.
    ///
    /// ```
    /// use index_negotiation::{NegotiationState, UserId};
    /// let mut state = NegotiationState::opened(UserId::parse("alice")?, UserId::parse("bob")?);
    /// assert_eq!(state.turn_count(), 0);
    /// // The first 24 turns left out: only the last two rounds are at hand.
    /// state.earlier_turns = 24;
    /// assert_eq!(state.turn_count(), 24);
    /// # Ok::<(), index_negotiation::InvalidId>(())
    /// ```
    pub fn turn_count(&self) -> usize {
        self.earlier_turns.saturating_add(self.turns.len())
    }

    /// This state with its log from turn `index` on, the turns before it
    /// counted in [`earlier_turns`](Self::earlier_turns); only the turns
    /// kept are copied. `index` should be the first turn of a round, where
    /// the rules read the shorter log as they read the whole (an index
    /// before the turns held keeps them all, one past the last keeps none).
    ///
    /// ```
    /// use index_negotiation::{NegotiationAction, NegotiationState, SeatTurn, UserId};
    /// let alice = UserId::parse("alice")?;
    /// let mut state = NegotiationState::opened(alice.clone(), UserId::parse("bob")?);
    /// let decline = SeatTurn { seat_user_id: alice, action: NegotiationAction::Decline, message: "No.".into() };
    /// state.turns = vec![decline.clone(), decline];
    /// let tail = state.log_from(1);
    /// assert_eq!((tail.earlier_turns, tail.turns.len(), tail.turn_count()), (1, 1, 2));
    /// # Ok::<(), index_negotiation::InvalidId>(())
    /// ```
    pub fn log_from(&self, index: usize) -> NegotiationState {
        let skip = index
            .saturating_sub(self.earlier_turns)
            .min(self.turns.len());
        NegotiationState {
            initiator_user_id: self.initiator_user_id.clone(),
            responder_user_id: self.responder_user_id.clone(),
            awaiting_user_id: self.awaiting_user_id.clone(),
            turns: self.turns.get(skip..).unwrap_or_default().to_vec(),
            earlier_turns: self.earlier_turns.saturating_add(skip),
            park: self.park.clone(),
            ..*self
        }
    }

    /// The person whose answer the negotiation waits on, while it is
    /// parked.
    pub fn waiting_on(&self) -> Option<&UserId> {
        self.park
            .as_ref()
            .filter(|park| park.is_open())
            .map(|park| &park.user_id)
    }

    /// Whether `user_id` holds one of the two seats.
    pub fn is_seat(&self, user_id: &UserId) -> bool {
        *user_id == self.initiator_user_id || *user_id == self.responder_user_id
    }

    /// The seat across from `user_id` (the initiator for anyone else).
    pub fn other_seat(&self, user_id: &UserId) -> &UserId {
        if *user_id == self.initiator_user_id {
            &self.responder_user_id
        } else {
            &self.initiator_user_id
        }
    }
}

index_js::wire_enum! {
    crate index_negotiation;
    /// The opportunity's status as a turn leaves it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum OpportunityStatus {
        /// Still in talks.
        Negotiating = "negotiating",
        /// Agreed by the agents; waiting for the people to review.
        Pending = "pending",
    }
}

index_js::wire_enum! {
    crate index_negotiation;
    /// What closed the round with this turn; no seat may move again until one resumes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum RoundEnded {
        /// The turn was a decline.
        Declined = "declined",
        /// The turn was the round's last.
        TurnLimit = "turn_limit",
    }
}

/// A pair that might open a negotiation, with what the host knows of it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NegotiationOpening {
    /// The user who would initiate.
    pub user_a: UserId,
    /// The user who would respond.
    pub user_b: UserId,
    /// The initiator's intent.
    pub intent_a: IntentId,
    /// The responder's intent.
    pub intent_b: IntentId,
    /// Whether both are current members with active intents shared into a
    /// common network.
    pub eligible: bool,
}

/// The decision on an opening: the permitted opening, or `None` (JSON
/// `null`) when the pair may not negotiate.
pub type NegotiationOpeningDecision = Option<NegotiationOpened>;

/// A permitted opening, in the reference's shape: who moves first, and the
/// opportunity's status once opened (`{"awaitingUserId": "u1",
/// "opportunityStatus": "negotiating"}`). The seats are the pair's: user A
/// initiates, user B responds.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NegotiationOpened {
    /// Who moves first: the initiator, user A.
    pub awaiting_user_id: UserId,
    /// Always [`OpportunityStatus::Negotiating`].
    pub opportunity_status: OpportunityStatus,
}
