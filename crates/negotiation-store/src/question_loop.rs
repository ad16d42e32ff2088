//! The question loop, composed with a store: a park committed under the
//! negotiation's lock, and a person's answers delivered to every
//! negotiation they unblock, each recorded and resumed in one commit.
//!
//! What the model asks, and whether the safety gate lets it, is decided
//! before any of this (see `index-stall-gap`); here only the rules decide,
//! inside the commit, so nothing checked outside the lock can go stale.

use std::collections::BTreeSet;

use serde::Serialize;

use index_negotiation::{
    AnswerDecision, AnswerRejection, AskUserTurn, Decision, Park, ParkDecision, decide_answer,
    decide_park,
};
use index_negotiation::{OpportunityId, UserId};
use index_question_block::QuestionBlock;

use crate::audit::Actor;
use crate::error::StoreError;
use crate::model::{Committed, ListFilter, NegotiationSummary, StateFilter};
use crate::service::Negotiations;
use crate::store::NegotiationStore;

/// What became of one negotiation an answer named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", tag = "outcome")]
#[non_exhaustive]
pub enum RefOutcome {
    /// The answer was recorded and the negotiation resumed, the person's
    /// seat to move.
    Resumed,
    /// The negotiation does not wait on this person's answer: answered
    /// already (delivering the same answers again changes nothing), parked
    /// for the other person, or never parked. Nothing was changed.
    NotWaiting {
        /// Which of those.
        rejection: AnswerRejection,
    },
    /// No negotiation the person holds a seat in has this id; never guessed.
    Unknown,
    /// The rules refused the answer: the negotiation was closed, an intent
    /// is inactive, or the answer is blank or too long. Nothing was changed.
    Refused {
        /// Why.
        rejection: AnswerRejection,
    },
    /// The store failed; the other negotiations went on.
    Failed {
        /// Why.
        reason: String,
    },
}

impl RefOutcome {
    fn of(decision: AnswerDecision) -> Self {
        match decision {
            Decision::Permitted(_) => RefOutcome::Resumed,
            Decision::Refused(AnswerRejection::NotFound | AnswerRejection::NotASeat) => {
                RefOutcome::Unknown
            }
            Decision::Refused(
                rejection @ (AnswerRejection::NotParked
                | AnswerRejection::NotTheOwner
                | AnswerRejection::AlreadyAnswered),
            ) => RefOutcome::NotWaiting { rejection },
            Decision::Refused(rejection) => RefOutcome::Refused { rejection },
        }
    }
}

/// One negotiation's line in a [`DeliveryReport`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RefReport {
    /// The question's position in the block, from 0.
    pub question: usize,
    /// The negotiation, as the block names it.
    pub opportunity_id: String,
    /// What happened.
    #[serde(flatten)]
    pub outcome: RefOutcome,
}

/// What a delivery did, negotiation by negotiation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliveryReport {
    /// Each negotiation the answers named, in the order handled.
    pub negotiations: Vec<RefReport>,
    /// Answers to a question the block does not have (positions from 0).
    pub unknown_questions: Vec<usize>,
    /// Second answers to one question: the first was kept.
    pub duplicates: Vec<usize>,
}

impl DeliveryReport {
    /// The negotiations this delivery resumed.
    pub fn resumed(&self) -> impl Iterator<Item = &str> {
        self.negotiations
            .iter()
            .filter(|r| r.outcome == RefOutcome::Resumed)
            .map(|r| r.opportunity_id.as_str())
    }
}

impl<S: NegotiationStore> Negotiations<S> {
    /// Parks the negotiation on `turn`'s question for `user_id`'s person,
    /// if [`decide_park`] permits it against the locked state with this
    /// service's ask-round cap; with the negotiation as the commit left it
    /// when it parked, as [`Negotiations::execute`]. A caller that authored
    /// the question outside the lock (a model call) learns here, as a
    /// value, whether the negotiation could still park: a racing park or
    /// turn may have won.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store fails; nothing was applied.
    pub async fn park(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        turn: &AskUserTurn,
        actor: &Actor,
    ) -> Result<(ParkDecision, Option<Committed>), StoreError> {
        let cap = self.settings().ask_rounds_cap;
        let decide =
            Box::new(move |state: Option<&_>, user: &UserId| decide_park(state, user, cap));
        self.store()
            .commit_park(id, user_id, turn, actor, decide)
            .await
    }

    /// Records `user_id`'s answer to the question the negotiation is
    /// parked on and resumes it with their seat to move, in one commit, if
    /// [`decide_answer`] permits it; with the negotiation as the commit
    /// left it when it was answered, as [`Negotiations::execute`].
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store fails; nothing was applied.
    pub async fn answer(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        answer: &str,
        actor: &Actor,
    ) -> Result<(AnswerDecision, Option<Committed>), StoreError> {
        let decide = Box::new(|state: Option<&_>, user: &UserId, answer: &str| {
            decide_answer(state, user, answer)
        });
        self.store()
            .commit_answer(id, user_id, answer, actor, decide)
            .await
    }

    /// Delivers `person`'s `answers` (question position from 0, and the
    /// answer) to the negotiations `block` names: for each question its
    /// primary negotiation first, then its `alsoUnblocks`, each negotiation
    /// at most once per delivery, each through [`Negotiations::answer`] by
    /// `actor`.
    /// One negotiation failing does not stop the others; a negotiation the
    /// person holds no seat in is reported unknown, like a missing one.
    pub async fn deliver_answers(
        &self,
        person: &UserId,
        block: &QuestionBlock,
        answers: &[(usize, String)],
        actor: &Actor,
    ) -> DeliveryReport {
        let mut report = DeliveryReport::default();
        let mut answered = BTreeSet::new();
        let mut handled = BTreeSet::new();
        for (position, answer) in answers {
            let Some(question) = block.questions.get(*position) else {
                report.unknown_questions.push(*position);
                continue;
            };
            if !answered.insert(*position) {
                report.duplicates.push(*position);
                continue;
            }
            let refs = std::iter::once(&question.opportunity_id)
                .chain(question.also_unblocks.iter().flatten());
            for reference in refs {
                let outcome = match OpportunityId::parse(reference.as_str()) {
                    Err(_) => RefOutcome::Unknown,
                    Ok(id) => {
                        if !handled.insert(id.clone()) {
                            continue;
                        }
                        match self.answer(&id, person, answer, actor).await {
                            Ok((decision, _)) => RefOutcome::of(decision),
                            Err(err) => RefOutcome::Failed {
                                reason: err.to_string(),
                            },
                        }
                    }
                };
                report.negotiations.push(RefReport {
                    question: *position,
                    opportunity_id: reference.clone(),
                    outcome,
                });
            }
        }
        report
    }

    /// The open negotiations of `person`'s that wait on their answer, each
    /// with the park it waits on, newest change first.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store fails.
    pub async fn waiting_on(
        &self,
        person: &UserId,
    ) -> Result<Vec<(NegotiationSummary, Park)>, StoreError> {
        let filter = ListFilter {
            state: Some(StateFilter::Open),
            ..ListFilter::default()
        };
        let mut waiting = Vec::new();
        let open = self.store().list_negotiations(person, &filter).await?;
        for summary in open.negotiations {
            if summary.waiting_on.as_ref() != Some(person) {
                continue;
            }
            let park = self
                .store()
                .read_negotiation_round(&summary.id)
                .await?
                .and_then(|state| state.park)
                .filter(|park| park.is_open() && park.user_id == *person);
            if let Some(park) = park {
                waiting.push((summary, park));
            }
        }
        Ok(waiting)
    }
}
