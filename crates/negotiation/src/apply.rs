//! How a permitted decision changes a negotiation: the one definition,
//! which hosts that keep the state in memory call and hosts with tables
//! write as rows. Beside the state and the decisions, so that neither
//! depends on the other.

use index_question_block::StructuredQuestion;

use crate::decision::{ResumePermitted, TurnPermitted};
use crate::ids::UserId;
use crate::question_loop::{AnswerPermitted, ParkPermitted};
use crate::state::{NegotiationState, Park, SeatTurn};
use crate::turn::NegotiationTurn;

impl NegotiationState {
    /// Applies a permitted turn: appends it for `user_id`, hands the turn on
    /// as decided, and records a settlement. Hosts that keep the state in
    /// memory call this inside their lock; hosts with tables write the same
    /// changes as rows.
    ///
    /// ```
    /// use index_negotiation::*;
    /// let (alice, bob) = (UserId::parse("alice")?, UserId::parse("bob")?);
    /// let mut state = NegotiationState::opened(alice.clone(), bob.clone());
    /// let turn = NegotiationTurn::new(NegotiationAction::Propose, "Coffee Tuesday?");
    /// if let Decision::Permitted(permitted) = decide_negotiation_turn(Some(&state), &alice, &turn) {
    ///     state.apply_turn(&alice, &turn, &permitted);
    /// }
    /// assert_eq!(state.turns.len(), 1);
    /// assert_eq!(state.awaiting_user_id, Some(bob));
    /// # Ok::<(), InvalidId>(())
    /// ```
    pub fn apply_turn(
        &mut self,
        user_id: &UserId,
        turn: &NegotiationTurn,
        permitted: &TurnPermitted,
    ) {
        self.turns.push(SeatTurn {
            seat_user_id: user_id.clone(),
            action: turn.action,
            message: turn.message.clone(),
        });
        self.awaiting_user_id
            .clone_from(&permitted.awaiting_user_id);
        if let Some(outcome) = permitted.outcome {
            self.outcome = Some(outcome);
            self.settled = true;
        }
    }

    /// Applies a permitted resume: the resuming seat holds the turn.
    pub fn apply_resume(&mut self, permitted: &ResumePermitted) {
        self.awaiting_user_id = Some(permitted.awaiting_user_id.clone());
    }

    /// Applies a permitted park: `user_id`'s person is asked `question`,
    /// and the ask round is spent. Nobody is to move until the answer.
    pub fn apply_park(
        &mut self,
        user_id: &UserId,
        question: &StructuredQuestion,
        permitted: &ParkPermitted,
    ) {
        self.ask_rounds = permitted.ask_rounds;
        self.park = Some(Park {
            user_id: user_id.clone(),
            question: question.clone(),
            answer: None,
        });
    }

    /// Applies a permitted answer: the park is answered and the answering
    /// person's seat takes the first turn of a new round.
    pub fn apply_answer(&mut self, permitted: &AnswerPermitted) {
        if let Some(park) = &mut self.park {
            park.answer = Some(permitted.answer.clone());
        }
        self.awaiting_user_id = Some(permitted.awaiting_user_id.clone());
    }
}
