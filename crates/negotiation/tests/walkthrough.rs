//! One negotiation from opening to agreement, checked at every step: a round
//! that ends in a decline, a resume, a round run to the turn limit, a resume,
//! and agreement.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_negotiation::NegotiationAction::{self, Accept, Counter, Decline, Propose};
use index_negotiation::{
    Decision, NegotiationOpening, NegotiationOutcome, NegotiationRejection, NegotiationState,
    NegotiationTurn, OpportunityStatus, RoundEnded, decide_negotiation_opening,
    decide_negotiation_resume, decide_negotiation_turn, observe_negotiation,
};

use index_negotiation::UserId;

/// A user id for a test, which is never blank.
fn user(id: &str) -> UserId {
    UserId::parse(id).unwrap()
}

struct Walk {
    state: NegotiationState,
    status: OpportunityStatus,
}

impl Walk {
    fn turn(&mut self, user: &str, action: NegotiationAction) -> Option<RoundEnded> {
        let turn = NegotiationTurn::new(action, format!("{user} {action}s"));
        let seat = self::user(user);
        match decide_negotiation_turn(Some(&self.state), &seat, &turn) {
            Decision::Permitted(permitted) => {
                assert_eq!(permitted.turn_index, self.state.turns.len());
                self.state.apply_turn(&seat, &turn, &permitted);
                self.status = permitted.opportunity_status;
                permitted.round_ended
            }
            Decision::Refused(rejection) => panic!("{user} {action} refused: {rejection}"),
        }
    }

    fn resume(&mut self, user: &str) {
        let permitted = decide_negotiation_resume(Some(&self.state), &self::user(user))
            .permitted()
            .cloned()
            .unwrap();
        assert_eq!(permitted.awaiting_user_id, user);
        self.state.apply_resume(&permitted);
    }

    fn remaining(&self, user: &str) -> usize {
        observe_negotiation(&self.state, &self::user(user)).remaining_turns
    }

    /// Nobody may move: both seats are refused and offered nothing.
    fn assert_paused(&self) {
        assert_eq!(self.state.awaiting_user_id, None);
        for seat in ["alice", "bob"].map(user) {
            let seat = &seat;
            let observation = observe_negotiation(&self.state, seat);
            assert!(observation.available_actions.is_empty());
            assert_eq!(
                observation.blocked_reason,
                Some(NegotiationRejection::NotYourTurn)
            );
            let refused = decide_negotiation_turn(
                Some(&self.state),
                seat,
                &NegotiationTurn::new(Propose, "again"),
            );
            assert_eq!(refused.rejection(), Some(NegotiationRejection::NotYourTurn));
        }
    }
}

#[test]
fn decline_resume_turn_limit_resume_agree() {
    let opening = NegotiationOpening {
        user_a: user("alice"),
        user_b: user("bob"),
        intent_a: "intent-a".parse().unwrap(),
        intent_b: "intent-b".parse().unwrap(),
        eligible: true,
    };
    let opened = decide_negotiation_opening(&opening).unwrap();
    assert_eq!(
        serde_json::to_value(&opened).unwrap(),
        serde_json::json!({"awaitingUserId": "alice", "opportunityStatus": "negotiating"}),
        "the reference's shape"
    );
    let mut walk = Walk {
        state: NegotiationState::opened(opened.awaiting_user_id, opening.user_b.clone()),
        status: OpportunityStatus::Negotiating,
    };
    assert_eq!(walk.remaining("alice"), 12);
    assert_eq!(
        observe_negotiation(&walk.state, &user("alice")).available_actions,
        [Propose, Decline]
    );

    // Round one: a proposal, a question, a decline.
    assert_eq!(walk.turn("alice", Propose), None);
    assert_eq!(
        observe_negotiation(&walk.state, &user("bob")).available_actions,
        [Counter, Accept, Decline]
    );
    assert_eq!(walk.turn("bob", Counter), None);
    assert_eq!(
        observe_negotiation(&walk.state, &user("alice")).available_actions,
        [Propose, Counter, Decline]
    );
    assert_eq!(walk.remaining("alice"), 10);
    assert_eq!(walk.turn("alice", Decline), Some(RoundEnded::Declined));
    assert_eq!(walk.status, OpportunityStatus::Negotiating);
    assert_eq!(walk.remaining("alice"), 12);
    walk.assert_paused();

    // Bob's person adds context: bob resumes and opens round two.
    walk.resume("bob");
    assert_eq!(
        observe_negotiation(&walk.state, &user("bob")).available_actions,
        [Propose, Decline]
    );
    let seats = ["bob", "alice"];
    for i in 0..12 {
        let action = if i % 2 == 0 { Propose } else { Counter };
        assert_eq!(walk.remaining(seats[i % 2]), 12 - i);
        let ended = walk.turn(seats[i % 2], action);
        assert_eq!(
            ended,
            (i == 11).then_some(RoundEnded::TurnLimit),
            "turn {i}"
        );
    }
    assert_eq!(walk.state.turns.len(), 15);
    walk.assert_paused();

    // Alice resumes; round three ends in agreement.
    walk.resume("alice");
    assert_eq!(walk.turn("alice", Propose), None);
    assert_eq!(walk.remaining("bob"), 11);
    assert_eq!(walk.turn("bob", Accept), None);
    assert_eq!(walk.status, OpportunityStatus::Pending);
    assert!(walk.state.settled);
    assert_eq!(walk.state.outcome, Some(NegotiationOutcome::Agreed));
    assert_eq!(walk.state.turns.len(), 17);
    for seat in ["alice", "bob"].map(user) {
        assert_eq!(
            observe_negotiation(&walk.state, &seat).blocked_reason,
            Some(NegotiationRejection::AlreadySettled)
        );
    }
}
