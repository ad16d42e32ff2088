//! What a store keeps beyond the rules' state: seats with their intents,
//! the opportunity's status, and the requests hosts make.

use serde::{Deserialize, Serialize};

use index_negotiation::{NegotiationOutcome, NegotiationState, Park};

use index_negotiation::{IntentId, OpportunityId, UserId};

/// A seat: a person and the intent they negotiate for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
    /// it spent and its last park. `turns` is the whole log, or its tail
    /// from the first turn of a round on: the turns before it are counted
    /// from [`turn_count`](Self::turn_count) as the state's
    /// [`earlier_turns`](NegotiationState::earlier_turns).
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
            earlier_turns: self.turn_count.saturating_sub(turns.len()),
            turns,
            ask_rounds,
            park,
        }
    }

    /// This summary once `state` (its negotiation's state after a change)
    /// holds, with the record's new status if the change set one: what a
    /// commit hands back without reading the row again.
    pub fn after(&self, state: &NegotiationState, status: Option<RecordStatus>) -> Self {
        NegotiationSummary {
            awaiting_user_id: state.awaiting_user_id.clone(),
            outcome: state.outcome,
            settled: state.settled,
            eligible: state.eligible,
            turn_count: state.turn_count(),
            waiting_on: state.waiting_on().cloned(),
            status: status.unwrap_or(self.status),
            ..self.clone()
        }
    }

    /// The seat `user_id` holds, if any.
    pub fn seat_of(&self, user_id: &UserId) -> Option<&Seat> {
        [&self.initiator, &self.responder]
            .into_iter()
            .find(|seat| &seat.user_id == user_id)
    }
}

/// A negotiation as a commit left it: its summary, and its state from the
/// previous round's first turn on (as
/// [`read_negotiation_round`](crate::NegotiationStore::read_negotiation_round)
/// gives it), made from what the commit read and applied, so a caller
/// answering with it reads nothing after the commit. Every commit of
/// [`NegotiationStore`](crate::NegotiationStore) hands one back with a
/// decision it applied; a backend makes it with the `after_*` functions
/// below from what it decided on, or reads it inside its transaction.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Committed {
    /// The summary after the commit.
    pub summary: NegotiationSummary,
    /// The state after the commit.
    pub state: NegotiationState,
}

impl Committed {
    /// The negotiation after `user_id`'s permitted `turn`, from the summary
    /// and state the commit decided on (for backends): the turn applied,
    /// and the log from the previous round's start on once the turn ends a
    /// round.
    pub fn after_turn(
        summary: &NegotiationSummary,
        state: &NegotiationState,
        user_id: &UserId,
        turn: &index_negotiation::NegotiationTurn,
        permitted: &index_negotiation::TurnPermitted,
    ) -> Self {
        // Once the turn ends its round, that round is the previous one.
        let keep_from = if permitted.round_ended.is_some() {
            state.round_start()
        } else {
            state.earlier_turns
        };
        let mut after = state.log_from(keep_from);
        after.apply_turn(user_id, turn, permitted);
        Committed {
            summary: summary.after(&after, Some(permitted.opportunity_status.into())),
            state: after,
        }
    }

    /// The negotiation after a permitted resume, from the summary and state
    /// the commit decided on (for backends).
    pub fn after_resume(
        summary: &NegotiationSummary,
        state: &NegotiationState,
        permitted: &index_negotiation::ResumePermitted,
    ) -> Self {
        Self::changed(summary, state, |after| after.apply_resume(permitted))
    }

    /// The negotiation after a permitted park on `question` for `user_id`'s
    /// person, from the summary and state the commit decided on (for
    /// backends): parked, waiting on that person, the ask round spent.
    pub fn after_park(
        summary: &NegotiationSummary,
        state: &NegotiationState,
        user_id: &UserId,
        question: &index_question_block::StructuredQuestion,
        permitted: &index_negotiation::ParkPermitted,
    ) -> Self {
        Self::changed(summary, state, |after| {
            after.apply_park(user_id, question, permitted);
        })
    }

    /// The negotiation after a permitted answer, from the summary and state
    /// the commit decided on (for backends): the park answered, the
    /// person's seat to move.
    pub fn after_answer(
        summary: &NegotiationSummary,
        state: &NegotiationState,
        permitted: &index_negotiation::AnswerPermitted,
    ) -> Self {
        Self::changed(summary, state, |after| after.apply_answer(permitted))
    }

    /// `state` changed by `apply`, which adds no turn (so the round read
    /// keeps its start), and its summary after, the status unchanged.
    fn changed(
        summary: &NegotiationSummary,
        state: &NegotiationState,
        apply: impl FnOnce(&mut NegotiationState),
    ) -> Self {
        let mut after = state.clone();
        apply(&mut after);
        Committed {
            summary: summary.after(&after, None),
            state: after,
        }
    }
}

/// Which negotiations a listing returns, of those where the user holds a
/// seat, and which page of them.
///
/// A listing runs newest change first (a turn, a resume, a park, an
/// answer, a close or an eligibility change each count as one). A page
/// holds at most [`limit`](Self::limit) negotiations; the next starts
/// after the [`cursor`](Self::cursor) the page before returned. A
/// negotiation that changes while a caller pages moves to the front: it is
/// never listed twice, and the caller finds it on a fresh first page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ListFilter {
    /// Only those where the user's own seat negotiates for this intent.
    pub intent_id: Option<IntentId>,
    /// Only open (not settled) or only settled ones.
    pub state: Option<StateFilter>,
    /// Only those with this user in the other seat.
    pub other_user_id: Option<UserId>,
    /// At most this many; `None` for all.
    pub limit: Option<usize>,
    /// Where the page starts: after the negotiation the cursor names.
    pub cursor: Option<ListCursor>,
}

impl ListFilter {
    /// Whether `summary` passes for `user_id` (the limit and the cursor
    /// aside).
    ///
    /// ```
    /// use index_negotiation_store::{ListFilter, StateFilter};
    /// # use index_negotiation_store::{NegotiationSummary, RecordStatus, Seat};
    /// # let seat = |user: &str| Seat { user_id: user.parse().unwrap(), intent_id: format!("{user}-intent").parse().unwrap() };
    /// # let summary = NegotiationSummary { id: "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36".parse()?, initiator: seat("dana"), responder: seat("sam"),
    /// #     status: RecordStatus::Negotiating, awaiting_user_id: None, outcome: None, settled: false, eligible: true, turn_count: 0, waiting_on: None };
    /// let open_with_sam = ListFilter {
    ///     state: Some(StateFilter::Open),
    ///     other_user_id: Some("sam".parse()?),
    ///     ..ListFilter::default()
    /// };
    /// assert!(open_with_sam.matches(&summary, &"dana".parse()?));
    /// assert!(!open_with_sam.matches(&summary, &"sam".parse()?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn matches(&self, summary: &NegotiationSummary, user_id: &UserId) -> bool {
        let Some(seat) = summary.seat_of(user_id) else {
            return false;
        };
        let other = if summary.initiator.user_id == *user_id {
            &summary.responder
        } else {
            &summary.initiator
        };
        let intent_ok = self
            .intent_id
            .as_ref()
            .is_none_or(|intent| &seat.intent_id == intent);
        let other_ok = self
            .other_user_id
            .as_ref()
            .is_none_or(|user| &other.user_id == user);
        let state_ok = match self.state {
            None => true,
            Some(StateFilter::Open) => !summary.settled,
            Some(StateFilter::Settled) => summary.settled,
        };
        intent_ok && other_ok && state_ok
    }
}

/// Where a page of a listing ends, to start the next one after: the
/// position of its last negotiation in the store's order of changes.
/// Opaque to callers; its text form (`Display`, `FromStr`) is what crosses
/// the wire.
///
/// ```
/// use index_negotiation_store::ListCursor;
/// let cursor: ListCursor = "c42".parse()?;
/// assert_eq!(cursor.to_string(), "c42");
/// assert!("42".parse::<ListCursor>().is_err());
/// # Ok::<(), index_negotiation_store::InvalidCursor>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ListCursor(u64);

impl ListCursor {
    /// The cursor after the negotiation whose last change is `change` in
    /// the store's order (for backends).
    pub fn after(change: u64) -> Self {
        ListCursor(change)
    }

    /// The position in the store's order of changes the next page starts
    /// below (for backends).
    pub fn change(self) -> u64 {
        self.0
    }
}

impl Serialize for ListCursor {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// On the wire a cursor is its text: `c` and digits, passed back as given.
#[cfg(feature = "schemars")]
impl schemars::JsonSchema for ListCursor {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("ListCursor")
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^c[0-9]+$",
            "description": "Where the next page starts: pass it back as `cursor`."
        })
    }
}

impl std::fmt::Display for ListCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "c{}", self.0)
    }
}

/// A text that is not a [`ListCursor`] a listing returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a listing cursor (a cursor is passed on as a page returned it)")]
pub struct InvalidCursor;

impl std::str::FromStr for ListCursor {
    type Err = InvalidCursor;

    fn from_str(text: &str) -> Result<Self, InvalidCursor> {
        let digits = text.strip_prefix('c').ok_or(InvalidCursor)?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(InvalidCursor);
        }
        digits.parse().map(ListCursor).map_err(|_| InvalidCursor)
    }
}

/// One page of a listing: the negotiations, newest change first, and the
/// cursor the next page starts after (`None` when this page is the last).
/// On the wire: `{"negotiations": [...], "nextCursor": "c42" | null}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct NegotiationPage {
    /// The negotiations on this page.
    pub negotiations: Vec<NegotiationSummary>,
    /// Where the next page starts, if there may be one.
    #[serde(rename = "nextCursor")]
    pub next: Option<ListCursor>,
}

impl NegotiationPage {
    /// The page of `found` (newest change first, each with its position
    /// in the store's order of changes, at most `limit + 1` of them): the
    /// first `limit`, and a cursor when there were more (for backends).
    pub fn of(mut found: Vec<(u64, NegotiationSummary)>, limit: Option<usize>) -> Self {
        let next = match limit {
            Some(limit) if found.len() > limit => {
                found.truncate(limit);
                found.last().map(|(change, _)| ListCursor::after(*change))
            }
            _ => None,
        };
        NegotiationPage {
            negotiations: found.into_iter().map(|(_, summary)| summary).collect(),
            next,
        }
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
