//! What one seat sees of a negotiation: the record, the rules' state as
//! that seat may see it, what it may do now, where talks stand for it and
//! the question it is asked. Every surface (the host's transports, the
//! command line) shows a seat this one view, each in its own shape, so
//! none decides for itself what a seat may see.

use index_negotiation::{
    NegotiationObservation, NegotiationState, Park, SeatStanding, observe_negotiation,
    seat_standing,
};
use index_negotiation::{OpportunityId, UserId};

use crate::error::StoreError;
use crate::model::NegotiationSummary;
use crate::service::Negotiations;
use crate::store::NegotiationStore;

/// A negotiation as one seat sees it, made only by [`SeatView::new`] (or
/// [`Negotiations::view`]), so its parts always agree: the summary's
/// fields the state also holds are the state's, the park is left out of
/// the state unless it is the seat's own person's (whose answer the
/// negotiation waits on stays in the summary's
/// [`waiting_on`](NegotiationSummary::waiting_on), a fact both seats see),
/// and the observation and standing are the rules' for this seat.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SeatView {
    /// The record: seats, status, whose turn, whose answer it waits on.
    pub summary: NegotiationSummary,
    /// The rules' state as this seat may see it
    /// ([`NegotiationState::seen_by`]): another person's park, question
    /// and answer, left out.
    pub state: NegotiationState,
    /// What this seat may do now ([`observe_negotiation`]).
    pub observation: NegotiationObservation,
    /// Where the negotiation stands for this seat ([`seat_standing`]),
    /// read before another person's park was left out, so a negotiation
    /// parked on the other seat's question stands
    /// [`Parked`](SeatStanding::Parked) for both.
    pub standing: SeatStanding,
}

impl SeatView {
    /// The negotiation `summary` and `state` describe, as `user_id`'s seat
    /// sees it: for a view read from a store, or one a commit handed back
    /// ([`Committed`](crate::Committed)), so a reply after a commit shows
    /// exactly what a read would.
    ///
    /// ```
    /// use index_negotiation::{NegotiationState, Park, SeatStanding, UserId};
    /// use index_negotiation_store::*;
    /// use index_question_block::{QuestionOption, StructuredQuestion};
    /// let (alice, bob) = (UserId::parse("alice")?, UserId::parse("bob")?);
    /// let seat = |user: &UserId| -> Result<Seat, InvalidId> { Ok(Seat { user_id: user.clone(), intent_id: "intent".parse()? }) };
    /// let summary = NegotiationSummary {
    ///     id: "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36".parse()?, initiator: seat(&alice)?, responder: seat(&bob)?,
    ///     status: RecordStatus::Negotiating, awaiting_user_id: None, outcome: None, settled: false,
    ///     eligible: true, turn_count: 0, waiting_on: Some(alice.clone()),
    /// };
    /// let mut state = NegotiationState::opened(alice.clone(), bob.clone());
    /// state.awaiting_user_id = None;
    /// let option = |l: &str| QuestionOption { label: l.into(), description: format!("Go with {l}.") };
    /// let question = StructuredQuestion { title: "Budget".into(), prompt: "Which budget?".into(), options: vec![option("Low"), option("High")], multi_select: false };
    /// state.park = Some(Park { user_id: alice.clone(), question, answer: None });
    ///
    /// let hers = SeatView::new(summary.clone(), state.clone(), &alice);
    /// assert_eq!(hers.parked().map(|park| park.question.title.as_str()), Some("Budget"));
    /// let his = SeatView::new(summary, state, &bob);
    /// assert!(his.parked().is_none() && his.state.park.is_none());
    /// assert_eq!(his.standing, SeatStanding::Parked);
    /// assert_eq!(his.summary.waiting_on, Some(alice));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(summary: NegotiationSummary, state: NegotiationState, user_id: &UserId) -> Self {
        // The record and the state are two reads: where a commit fell
        // between them, the record's fields the state also holds (whose
        // turn, whose answer, …) are taken from the state, so the view
        // says one thing.
        let summary = summary.after(&state, None);
        let standing = seat_standing(&state, user_id);
        let state = state.seen_by(user_id);
        SeatView {
            observation: observe_negotiation(&state, user_id),
            summary,
            state,
            standing,
        }
    }

    /// The question the negotiation waits on, when it is this seat's own
    /// person's: the only park a seat is shown.
    pub fn parked(&self) -> Option<&Park> {
        self.state.park.as_ref().filter(|park| park.is_open())
    }
}

impl<S: NegotiationStore> Negotiations<S> {
    /// Negotiation `id` as `user_id`'s seat sees it, its whole log
    /// included; `None` when there is no such negotiation or `user_id`
    /// holds neither seat, so someone without a seat cannot tell it
    /// exists.
    ///
    /// ```
    /// use index_negotiation::SeatStanding;
    /// use index_negotiation_store::*;
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let negotiations = Negotiations::new(MemoryStore::new());
    /// let seat = |user: &str, intent: &str| -> Result<Seat, InvalidId> { Ok(Seat { user_id: user.parse()?, intent_id: intent.parse()? }) };
    /// let opp: OpportunityId = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36".parse()?;
    /// negotiations.open(&OpenNegotiation {
    ///     opportunity_id: opp.clone(),
    ///     initiator: seat("alice", "intent-a")?,
    ///     responder: seat("bob", "intent-b")?,
    ///     eligible: true,
    /// }, &Actor::operator()).await?;
    /// let view = negotiations.view(&opp, &"bob".parse()?).await?;
    /// assert_eq!(view.map(|view| view.standing), Some(SeatStanding::TheirMove));
    /// assert!(negotiations.view(&opp, &"carol".parse()?).await?.is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store fails.
    pub async fn view(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
    ) -> Result<Option<SeatView>, StoreError> {
        let store = self.store();
        let Some(summary) = store.get_negotiation(id).await? else {
            return Ok(None);
        };
        if summary.seat_of(user_id).is_none() {
            return Ok(None);
        }
        let Some(state) = store.read_negotiation_state(id).await? else {
            return Ok(None);
        };
        Ok(Some(SeatView::new(summary, state, user_id)))
    }
}
