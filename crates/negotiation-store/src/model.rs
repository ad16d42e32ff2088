//! What a store keeps beyond the rules' state: seats with their intents,
//! the opportunity's status, and the requests hosts make.

use serde::{Deserialize, Serialize};

use index_negotiation::{NegotiationOutcome, NegotiationState, Park};

use index_negotiation::{IntentId, OpportunityId, UserId};

/// A seat: a person and the intent they negotiate for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Seat {
    /// The person.
    pub user_id: UserId,
    /// Their intent.
    pub intent_id: IntentId,
}

index_js::wire_enum! {
    crate index_negotiation_store;
    /// The opportunity's status, as the store records it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum RecordStatus {
        /// In talks.
        Negotiating = "negotiating",
        /// The agents agreed; the people review.
        Pending = "pending",
        /// A person passed.
        Rejected = "rejected",
        /// An intent was archived or the opportunity ran out of time.
        Expired = "expired",
    }
}

impl From<index_negotiation::OpportunityStatus> for RecordStatus {
    fn from(status: index_negotiation::OpportunityStatus) -> Self {
        match status {
            index_negotiation::OpportunityStatus::Negotiating => RecordStatus::Negotiating,
            index_negotiation::OpportunityStatus::Pending => RecordStatus::Pending,
        }
    }
}

index_js::wire_enum! {
    crate index_negotiation_store;
    /// Why a negotiation is closed from outside the rules.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum CloseReason {
        /// A person passed on the opportunity: status `rejected`.
        Passed = "passed",
        /// It expired, or an intent was archived: status `expired`.
        Expired = "expired",
    }
}

impl CloseReason {
    /// The status a close with this reason leaves.
    pub fn status(self) -> RecordStatus {
        match self {
            CloseReason::Passed => RecordStatus::Rejected,
            CloseReason::Expired => RecordStatus::Expired,
        }
    }
}

/// A request to open a negotiation on an opportunity.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenNegotiation {
    /// The opportunity, which becomes the negotiation's id.
    pub opportunity_id: OpportunityId,
    /// The seat that moves first.
    pub initiator: Seat,
    /// The other seat.
    pub responder: Seat,
    /// Whether both are current members with active intents shared into a
    /// common network.
    pub eligible: bool,
}

index_js::wire_enum! {
    crate index_negotiation_store;
    /// Why a negotiation was not opened.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum OpenRejection {
        /// The rules refuse the pair: not eligible, one person twice, or one
        /// intent twice.
        Ineligible = "ineligible",
        /// The opportunity already has a negotiation.
        AlreadyExists = "already_exists",
    }
}

impl OpenRejection {
    /// One plain sentence for a person.
    pub fn explanation(self) -> &'static str {
        match self {
            OpenRejection::Ineligible => {
                "The pair cannot negotiate: they must be two different people with two different, active intents."
            }
            OpenRejection::AlreadyExists => "This opportunity already has a negotiation.",
        }
    }
}

/// The outcome of opening.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum OpenDecision {
    /// Opened.
    Opened {
        /// The new negotiation.
        negotiation: NegotiationSummary,
    },
    /// Not opened.
    Refused {
        /// Why.
        rejection: OpenRejection,
    },
}

/// A negotiation as a listing shows it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NegotiationSummary {
    /// The opportunity id.
    pub id: OpportunityId,
    /// The seat that opened it.
    pub initiator: Seat,
    /// The other seat.
    pub responder: Seat,
    /// The opportunity's status.
    pub status: RecordStatus,
    /// Whose turn it is, if anyone's.
    pub awaiting_user_id: Option<UserId>,
    /// How it ended, if it has.
    pub outcome: Option<NegotiationOutcome>,
    /// Whether it is over.
    pub settled: bool,
    /// Whether both seats' intents are active.
    pub eligible: bool,
    /// Turns taken so far.
    pub turn_count: usize,
    /// The person whose answer to a parked question the negotiation waits
    /// on, if it is parked. Only that person's own view carries the
    /// question itself.
    pub waiting_on: Option<UserId>,
}

impl NegotiationSummary {
    /// The rules' view of this negotiation, given its turns, the ask rounds
    /// it spent and its last park.
    pub fn state(
        &self,
        turns: Vec<index_negotiation::SeatTurn>,
        ask_rounds: usize,
        park: Option<Park>,
    ) -> NegotiationState {
        NegotiationState {
            initiator_user_id: self.initiator.user_id.clone(),
            responder_user_id: self.responder.user_id.clone(),
            awaiting_user_id: self.awaiting_user_id.clone(),
            outcome: self.outcome,
            settled: self.settled,
            eligible: self.eligible,
            turns,
            ask_rounds,
            park,
        }
    }

    /// The seat `user_id` holds, if any.
    pub fn seat_of(&self, user_id: &UserId) -> Option<&Seat> {
        [&self.initiator, &self.responder]
            .into_iter()
            .find(|seat| &seat.user_id == user_id)
    }
}

/// Which negotiations a listing returns, of those where the user holds a seat.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListFilter {
    /// Only those where the user's own seat negotiates for this intent.
    pub intent_id: Option<IntentId>,
    /// Only open (not settled) or only settled ones.
    pub state: Option<StateFilter>,
}

impl ListFilter {
    /// Whether `summary` passes for `user_id`.
    pub fn matches(&self, summary: &NegotiationSummary, user_id: &UserId) -> bool {
        let Some(seat) = summary.seat_of(user_id) else {
            return false;
        };
        let intent_ok = self
            .intent_id
            .as_ref()
            .is_none_or(|intent| &seat.intent_id == intent);
        let state_ok = match self.state {
            None => true,
            Some(StateFilter::Open) => !summary.settled,
            Some(StateFilter::Settled) => summary.settled,
        };
        intent_ok && state_ok
    }
}

index_js::wire_enum! {
    crate index_negotiation_store;
    /// Open or settled.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum StateFilter {
        /// Not settled: in talks, paused or blocked.
        Open = "open",
        /// Agreed or closed.
        Settled = "settled",
    }
}
