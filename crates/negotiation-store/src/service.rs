//! The `Negotiations` service: the rules composed with a store, as a host's
//! request handlers use them.

use index_negotiation::{
    DEFAULT_NEGOTIATION_ASK_ROUNDS_CAP, NegotiationDecision, NegotiationObservation,
    NegotiationOpening, NegotiationResumeDecision, NegotiationTurn, decide_negotiation_opening,
    decide_negotiation_resume, decide_negotiation_turn, observe_negotiation,
};

use index_negotiation::{OpportunityId, UserId};

use crate::audit::Actor;
use crate::error::StoreError;
use crate::model::{
    Committed, NegotiationSummary, OpenDecision, OpenNegotiation, OpenRejection, RecordStatus,
};
use crate::store::NegotiationStore;

/// The question-loop settings a service is built with: read once when the
/// host starts, never from the environment inside a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QuestionLoopSettings {
    /// How many times one negotiation may park on a question, answered or
    /// not, before a stall is final.
    pub ask_rounds_cap: usize,
}

impl Default for QuestionLoopSettings {
    /// The reference's default cap,
    /// [`DEFAULT_NEGOTIATION_ASK_ROUNDS_CAP`].
    fn default() -> Self {
        QuestionLoopSettings {
            ask_rounds_cap: DEFAULT_NEGOTIATION_ASK_ROUNDS_CAP,
        }
    }
}

/// Observe, open, and the four commits (execute a turn, resume, park and
/// answer, the last two in the `question_loop` module): each reads or
/// commits through the store with the matching rule, so every decision is
/// made against locked, current data, and each commit hands back its
/// decision with the negotiation as it left it. Each commit names its
/// [`Actor`], whom the audit record keeps beside the step.
///
/// ```
/// use index_negotiation::{NegotiationAction, NegotiationTurn};
/// use index_negotiation_store::*;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let negotiations = Negotiations::new(MemoryStore::new());
/// let seat = |user: &str, intent: &str| -> Result<Seat, InvalidId> { Ok(Seat { user_id: user.parse()?, intent_id: intent.parse()? }) };
/// let opp: OpportunityId = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36".parse()?;
/// let request = OpenNegotiation {
///     opportunity_id: opp.clone(),
///     initiator: seat("alice", "intent-a")?,
///     responder: seat("bob", "intent-b")?,
///     eligible: true,
/// };
/// negotiations.open(&request, &Actor::operator()).await?;
/// let turn = NegotiationTurn::new(NegotiationAction::Propose, "Intro call?");
/// let (decision, after) = negotiations.execute(&opp, &"alice".parse()?, turn, &Actor::operator()).await?;
/// assert!(decision.is_ok());
/// assert_eq!(after.map(|after| after.summary.turn_count), Some(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct Negotiations<S> {
    store: S,
    settings: QuestionLoopSettings,
}

impl<S: NegotiationStore> Negotiations<S> {
    /// The service over `store`, with the default question-loop settings.
    pub fn new(store: S) -> Self {
        Self::with_settings(store, QuestionLoopSettings::default())
    }

    /// The service over `store`, parking under `settings`.
    pub fn with_settings(store: S, settings: QuestionLoopSettings) -> Self {
        Negotiations { store, settings }
    }

    /// The question-loop settings the service was built with.
    pub fn settings(&self) -> QuestionLoopSettings {
        self.settings
    }

    /// The store underneath, for what the service does not cover.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// What `user_id` sees and may do now; `None` when there is no such
    /// negotiation.
    pub async fn observe(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
    ) -> Result<Option<NegotiationObservation>, StoreError> {
        let state = self.store.read_negotiation_round(id).await?;
        Ok(state.map(|state| observe_negotiation(&state, user_id)))
    }

    /// Takes a turn: decided and applied in one commit, which hands back
    /// with the decision the negotiation as it left it when the turn was
    /// permitted (see [`NegotiationStore::commit_turn`]), so a reply needs
    /// no read after it. The turn is
    /// [normalized](NegotiationTurn::normalized) first, so the message
    /// decided on and stored is the trimmed one, as the reference stores it.
    pub async fn execute(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        turn: NegotiationTurn,
        actor: &Actor,
    ) -> Result<(NegotiationDecision, Option<Committed>), StoreError> {
        let turn = turn.normalized();
        self.store
            .commit_turn(id, user_id, &turn, actor, Box::new(decide_negotiation_turn))
            .await
    }

    /// Resumes a negotiation paused between rounds, giving `user_id` the
    /// first turn of the next; with the negotiation as the commit left it
    /// when the resume was permitted, as [`Self::execute`].
    pub async fn resume(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        actor: &Actor,
    ) -> Result<(NegotiationResumeDecision, Option<Committed>), StoreError> {
        self.store
            .commit_resume(id, user_id, actor, Box::new(decide_negotiation_resume))
            .await
    }

    /// Opens a negotiation if the rules permit the pair and the opportunity
    /// has none yet.
    pub async fn open(
        &self,
        request: &OpenNegotiation,
        actor: &Actor,
    ) -> Result<OpenDecision, StoreError> {
        let opening = NegotiationOpening {
            user_a: request.initiator.user_id.clone(),
            user_b: request.responder.user_id.clone(),
            intent_a: request.initiator.intent_id.clone(),
            intent_b: request.responder.intent_id.clone(),
            eligible: request.eligible,
        };
        if decide_negotiation_opening(&opening).is_none() {
            return Ok(OpenDecision::Refused {
                rejection: OpenRejection::Ineligible,
            });
        }
        if !self.store.insert_negotiation(request, actor).await? {
            return Ok(OpenDecision::Refused {
                rejection: OpenRejection::AlreadyExists,
            });
        }
        Ok(OpenDecision::Opened {
            negotiation: NegotiationSummary {
                id: request.opportunity_id.clone(),
                initiator: request.initiator.clone(),
                responder: request.responder.clone(),
                status: RecordStatus::Negotiating,
                awaiting_user_id: Some(request.initiator.user_id.clone()),
                outcome: None,
                settled: false,
                eligible: true,
                turn_count: 0,
                waiting_on: None,
            },
        })
    }
}
