//! The storage port: what a host must provide for the rules to be applied
//! safely.

use std::sync::Arc;

use async_trait::async_trait;

use index_negotiation::{
    AnswerDecision, AskUserTurn, NegotiationDecision, NegotiationMessage,
    NegotiationResumeDecision, NegotiationState, NegotiationTurn, ParkDecision,
};

use crate::audit::Actor;
use crate::error::StoreError;
use crate::feed::ChangeFeed;
use crate::model::{
    CloseReason, Committed, ListFilter, NegotiationPage, NegotiationSummary, OpenNegotiation,
};
use index_negotiation::{OpportunityId, UserId};

/// Decides a turn against the state as locked inside the commit's
/// transaction (`None` when there is no such negotiation), for the seat and
/// the turn the store will write: the store hands over exactly what it
/// applies, so what is decided and what is written cannot differ.
pub type TurnDecider = Box<
    dyn FnOnce(Option<&NegotiationState>, &UserId, &NegotiationTurn) -> NegotiationDecision + Send,
>;

/// Decides a resume against the state as locked inside the commit's
/// transaction, for the seat that resumes.
pub type ResumeDecider =
    Box<dyn FnOnce(Option<&NegotiationState>, &UserId) -> NegotiationResumeDecision + Send>;

/// Decides a park against the state as locked inside the commit's
/// transaction, for the seat whose agent parks. The ask-round cap is the
/// decider's to hold (it is a setting of the host, not of the store).
pub type ParkDecider = Box<dyn FnOnce(Option<&NegotiationState>, &UserId) -> ParkDecision + Send>;

/// Decides an answer against the state as locked inside the commit's
/// transaction, for the person who answers and the answer as given.
pub type AnswerDecider =
    Box<dyn FnOnce(Option<&NegotiationState>, &UserId, &str) -> AnswerDecision + Send>;

/// What a host needs of one store: the negotiations, the API keys, what
/// hosts share between requests, the interactions they provide, and the
/// audit record.
pub trait HostStore:
    NegotiationStore
    + crate::ApiKeyStore
    + crate::HostStateStore
    + crate::InteractionStore
    + crate::AuditStore
    + crate::WebhookStore
{
}

impl<
    S: NegotiationStore
        + crate::ApiKeyStore
        + crate::HostStateStore
        + crate::InteractionStore
        + crate::AuditStore
        + crate::WebhookStore
        + ?Sized,
> HostStore for S
{
}

/// Where negotiations live.
///
/// **The commit contract.** The four commits, [`commit_turn`](Self::commit_turn),
/// [`commit_resume`](Self::commit_resume), [`commit_park`](Self::commit_park)
/// and [`commit_answer`](Self::commit_answer), each lock the negotiation,
/// read its current state (both seats' eligibility included; at least the
/// turns [`read_negotiation_round`](Self::read_negotiation_round) gives),
/// call `decide` exactly once with that state and the user (and turn,
/// park turn or answer) they were given, and apply the decision in the
/// same atomic step:
///
/// * a permitted turn appends the turn for the acting seat at the decided
///   index and sets the awaiting seat, outcome, settlement and opportunity
///   status from the decision;
/// * a permitted resume gives the turn to the resuming seat;
/// * a permitted park records the park turn as a message from the seat's
///   agent, counts the ask round, and makes the question the state's open
///   [`park`](NegotiationState::park);
/// * a permitted answer records the answer as a message from the person,
///   marks the park answered and gives the turn to the person's seat, all
///   in the one transaction, so an answer is never on record without its
///   resume, nor the other way round;
/// * a refusal writes nothing.
///
/// Each applied commit, like an opening and a close, also appends its
/// step to the audit record, with `actor`, in the same transaction (see
/// [`AuditStore`](crate::AuditStore)); a refusal appends nothing.
///
/// Each hands back the decision with, when it was permitted and applied,
/// the negotiation as the commit left it ([`Committed`]: its summary, and
/// its state as [`read_negotiation_round`](Self::read_negotiation_round)
/// would read it), made from what the commit read and applied, so a
/// caller answering with it reads nothing after the commit; with a
/// refusal, `None`.
///
/// Concurrent commits on one negotiation serialize: exactly one wins each
/// turn index, and a loser gets the rules' answer against the state the
/// winner left (typically `not_your_turn`), never a storage error. A turn
/// index already taken is reported as the `raced` rejection. Parks and
/// answers serialize with turns the same way: of two parks racing, one is
/// `already_parked`; of two answers, one is `already_answered`. A
/// [`StoreError`] means nothing was applied.
///
/// The message record ([`list_messages`](Self::list_messages)) is written
/// only by parks and answers: there is no way to add to it around the
/// rules.
#[async_trait]
pub trait NegotiationStore: Send + Sync {
    /// The negotiation's current state, or `None` when there is none.
    async fn read_negotiation_state(
        &self,
        id: &OpportunityId,
    ) -> Result<Option<NegotiationState>, StoreError>;

    /// The negotiation's state as a decision reads it, or `None` when
    /// there is none: like [`read_negotiation_state`](Self::read_negotiation_state),
    /// but its `turns` start at the first turn of the previous round (the
    /// current one's before any round ended), with
    /// [`earlier_turns`](NegotiationState::earlier_turns) counting the turns
    /// before, so the read costs the same however long the log has grown.
    /// Nothing a rule decides reads further back.
    async fn read_negotiation_round(
        &self,
        id: &OpportunityId,
    ) -> Result<Option<NegotiationState>, StoreError>;

    /// Decides and applies `user_id`'s turn atomically, handing back the
    /// decision and, when it was applied, the negotiation as it left it
    /// (see the trait's contract).
    async fn commit_turn(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        turn: &NegotiationTurn,
        actor: &Actor,
        decide: TurnDecider,
    ) -> Result<(NegotiationDecision, Option<Committed>), StoreError>;

    /// Decides and applies `user_id`'s resume atomically, as
    /// [`commit_turn`](Self::commit_turn) does a turn.
    async fn commit_resume(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        actor: &Actor,
        decide: ResumeDecider,
    ) -> Result<(NegotiationResumeDecision, Option<Committed>), StoreError>;

    /// Decides and applies a park atomically, as
    /// [`commit_turn`](Self::commit_turn) does a turn: `turn` is what
    /// `user_id`'s agent records.
    async fn commit_park(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        turn: &AskUserTurn,
        actor: &Actor,
        decide: ParkDecider,
    ) -> Result<(ParkDecision, Option<Committed>), StoreError>;

    /// Decides and applies `user_id`'s answer atomically, with its resume,
    /// as [`commit_turn`](Self::commit_turn) does a turn.
    async fn commit_answer(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        answer: &str,
        actor: &Actor,
        decide: AnswerDecider,
    ) -> Result<(AnswerDecision, Option<Committed>), StoreError>;

    /// Creates the negotiation an opening decision permitted, with the
    /// initiator to move. Returns `false`, writing nothing, when the
    /// opportunity already has one.
    async fn insert_negotiation(
        &self,
        negotiation: &OpenNegotiation,
        actor: &Actor,
    ) -> Result<bool, StoreError>;

    /// Marks one seat's intent active or not. Returns `false` when there is
    /// no such negotiation or the user holds no seat in it.
    async fn set_seat_eligibility(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        eligible: bool,
    ) -> Result<bool, StoreError>;

    /// Closes the negotiation from outside the rules: nobody may act or
    /// resume after. A negotiation still in talks is settled with outcome
    /// `closed`; one already agreed keeps its outcome. Either way the
    /// status becomes the reason's. `None` when there is no such negotiation.
    async fn close_negotiation(
        &self,
        id: &OpportunityId,
        reason: CloseReason,
        actor: &Actor,
    ) -> Result<Option<NegotiationSummary>, StoreError>;

    /// The negotiation's summary, or `None`.
    async fn get_negotiation(
        &self,
        id: &OpportunityId,
    ) -> Result<Option<NegotiationSummary>, StoreError>;

    /// A page of the negotiations where `user_id` holds a seat and `filter`
    /// passes, newest change first (see [`ListFilter`]). What a page costs
    /// depends on its size, not on how many negotiations the user has.
    async fn list_negotiations(
        &self,
        user_id: &UserId,
        filter: &ListFilter,
    ) -> Result<NegotiationPage, StoreError>;

    /// The negotiation's message record (its parks and answers), in the
    /// order the commits recorded them.
    async fn list_messages(
        &self,
        id: &OpportunityId,
    ) -> Result<Vec<NegotiationMessage>, StoreError>;

    /// A feed of changes made by other processes on the same store, for
    /// hosts that wait on a negotiation instead of polling it. `None` (the
    /// default) when no other process can reach the store, as in memory;
    /// a host notices its own commits without one.
    async fn change_feed(&self) -> Result<Option<ChangeFeed>, StoreError> {
        Ok(None)
    }
}

macro_rules! forward_store {
    ($($pointer:ty),*) => {$(
        #[async_trait]
        impl<S: NegotiationStore + ?Sized> NegotiationStore for $pointer {
            async fn read_negotiation_state(&self, id: &OpportunityId) -> Result<Option<NegotiationState>, StoreError> {
                (**self).read_negotiation_state(id).await
            }
            async fn read_negotiation_round(&self, id: &OpportunityId) -> Result<Option<NegotiationState>, StoreError> {
                (**self).read_negotiation_round(id).await
            }
            async fn commit_turn(&self, id: &OpportunityId, user_id: &UserId, turn: &NegotiationTurn, actor: &Actor, decide: TurnDecider) -> Result<(NegotiationDecision, Option<Committed>), StoreError> {
                (**self).commit_turn(id, user_id, turn, actor, decide).await
            }
            async fn commit_resume(&self, id: &OpportunityId, user_id: &UserId, actor: &Actor, decide: ResumeDecider) -> Result<(NegotiationResumeDecision, Option<Committed>), StoreError> {
                (**self).commit_resume(id, user_id, actor, decide).await
            }
            async fn commit_park(&self, id: &OpportunityId, user_id: &UserId, turn: &AskUserTurn, actor: &Actor, decide: ParkDecider) -> Result<(ParkDecision, Option<Committed>), StoreError> {
                (**self).commit_park(id, user_id, turn, actor, decide).await
            }
            async fn commit_answer(&self, id: &OpportunityId, user_id: &UserId, answer: &str, actor: &Actor, decide: AnswerDecider) -> Result<(AnswerDecision, Option<Committed>), StoreError> {
                (**self).commit_answer(id, user_id, answer, actor, decide).await
            }
            async fn insert_negotiation(&self, negotiation: &OpenNegotiation, actor: &Actor) -> Result<bool, StoreError> {
                (**self).insert_negotiation(negotiation, actor).await
            }
            async fn set_seat_eligibility(&self, id: &OpportunityId, user_id: &UserId, eligible: bool) -> Result<bool, StoreError> {
                (**self).set_seat_eligibility(id, user_id, eligible).await
            }
            async fn close_negotiation(&self, id: &OpportunityId, reason: CloseReason, actor: &Actor) -> Result<Option<NegotiationSummary>, StoreError> {
                (**self).close_negotiation(id, reason, actor).await
            }
            async fn get_negotiation(&self, id: &OpportunityId) -> Result<Option<NegotiationSummary>, StoreError> {
                (**self).get_negotiation(id).await
            }
            async fn list_negotiations(&self, user_id: &UserId, filter: &ListFilter) -> Result<NegotiationPage, StoreError> {
                (**self).list_negotiations(user_id, filter).await
            }
            async fn list_messages(&self, id: &OpportunityId) -> Result<Vec<NegotiationMessage>, StoreError> {
                (**self).list_messages(id).await
            }
            async fn change_feed(&self) -> Result<Option<ChangeFeed>, StoreError> {
                (**self).change_feed().await
            }
        }
    )*};
}

forward_store!(Arc<S>, Box<S>, &S);
