//! The suite's shared cast and moves: two people, their negotiations, and
//! a turn, resume, park or answer each through the service, as a host
//! makes them.

use index_negotiation::NegotiationAction::{Counter, Decline, Propose};
use index_negotiation::{
    ASK_USER_ANSWER_ACTION, AnswerDecision, AskUser, AskUserAssessment, AskUserTurn, Decision,
    MessagePart, NEGOTIATION_MAX_TURNS, NegotiationAction, NegotiationConsultationReason,
    NegotiationDecision, NegotiationMessage, NegotiationRejection, NegotiationResumeDecision,
    NegotiationState, NegotiationTurn, ParkDecision, SuggestedRoles,
};
use index_question_block::{QuestionOption, StructuredQuestion};

use crate::{
    Actor, ActorKind, Committed, IntentId, NegotiationStore, Negotiations, OpenDecision,
    OpenNegotiation, OpportunityId, QuestionLoopSettings, Seat, UserId,
};

pub(super) const ALICE: &str = "alice";
pub(super) const BOB: &str = "bob";

pub(super) fn id(n: u32) -> OpportunityId {
    OpportunityId::parse(format!("0b3c9e2a-4f6d-4a8b-9c1e-{n:012x}")).unwrap()
}

pub(super) fn user(name: &str) -> UserId {
    UserId::parse(name).unwrap()
}

/// Who acts for `who`'s seat: their agent's key, in a request of theirs.
pub(super) fn actor(who: &str) -> Actor {
    Actor::new(
        ActorKind::AgentKey,
        Some(format!("key-{who}")),
        Some(format!("req-{who}")),
    )
}

/// Who opens and closes: the host's key.
pub(super) fn host() -> Actor {
    Actor::new(ActorKind::HostKey, Some("key-host".to_owned()), None)
}

pub(super) fn request(n: u32) -> OpenNegotiation {
    OpenNegotiation {
        opportunity_id: id(n),
        initiator: Seat {
            user_id: user(ALICE),
            intent_id: IntentId::parse(format!("alice-intent-{n}")).unwrap(),
        },
        responder: Seat {
            user_id: user(BOB),
            intent_id: IntentId::parse(format!("bob-intent-{n}")).unwrap(),
        },
        eligible: true,
    }
}

pub(super) async fn open<S: NegotiationStore>(store: &S, n: u32) -> OpportunityId {
    let service = Negotiations::new(store);
    match service.open(&request(n), &host()).await.unwrap() {
        OpenDecision::Opened { negotiation } => negotiation.id,
        OpenDecision::Refused { rejection } => panic!("opening {n} refused: {rejection:?}"),
    }
}

pub(super) async fn turn<S: NegotiationStore>(
    store: &S,
    id: &OpportunityId,
    who: &str,
    action: NegotiationAction,
) -> NegotiationDecision {
    let (decision, after) = Negotiations::new(store)
        .execute(
            id,
            &user(who),
            NegotiationTurn::new(action, format!("{who} says {action}")),
            &actor(who),
        )
        .await
        .unwrap();
    handed_back(decision, after)
}

pub(super) async fn resume<S: NegotiationStore>(
    store: &S,
    id: &OpportunityId,
    who: &str,
) -> NegotiationResumeDecision {
    let (decision, after) = Negotiations::new(store)
        .resume(id, &user(who), &actor(who))
        .await
        .unwrap();
    handed_back(decision, after)
}

pub(super) async fn state<S: NegotiationStore>(store: &S, id: &OpportunityId) -> NegotiationState {
    store.read_negotiation_state(id).await.unwrap().unwrap()
}

/// `decision`, once checked against what its commit handed back: the
/// negotiation as the commit left it exactly when the decision was
/// permitted (so applied), nothing with a refusal.
pub(super) fn handed_back<T: std::fmt::Debug, R: Copy + std::fmt::Debug>(
    decision: Decision<T, R>,
    after: Option<Committed>,
) -> Decision<T, R> {
    assert_eq!(
        after.is_some(),
        decision.is_ok(),
        "a commit hands back the negotiation exactly when it applied {decision:?}"
    );
    decision
}

pub(super) fn rejection(decision: &NegotiationDecision) -> Option<NegotiationRejection> {
    decision.rejection()
}

/// Runs turns that must all be permitted.
pub(super) async fn play<S: NegotiationStore>(
    store: &S,
    id: &OpportunityId,
    turns: &[(&str, NegotiationAction)],
) {
    for (who, action) in turns {
        let decision = turn(store, id, who, *action).await;
        assert!(decision.is_ok(), "{who} {action}: {decision:?}");
    }
}

pub(super) fn text_message(who: &str, text: &str) -> NegotiationMessage {
    NegotiationMessage {
        sender_id: format!("agent:{who}"),
        parts: vec![MessagePart::Text {
            text: text.to_owned(),
        }],
    }
}

pub(super) const RACERS: usize = 16;

/// Four rounds between alice (initiator) and bob, as `(seat, action)`:
/// the first ends on a decline after three turns, the second and third at
/// the turn limit, and the fourth is two turns in.
pub(super) fn four_rounds() -> Vec<(&'static str, NegotiationAction)> {
    let mut played = vec![(ALICE, Propose), (BOB, Counter), (ALICE, Decline)];
    for (first, second) in [(BOB, ALICE), (ALICE, BOB)] {
        for n in 0..NEGOTIATION_MAX_TURNS {
            played.push(if n % 2 == 0 {
                (first, Propose)
            } else {
                (second, Counter)
            });
        }
    }
    played.extend([(BOB, Propose), (ALICE, Counter)]);
    played
}

/// Runs a whole round of proposes and counters from `first`, so it ends at
/// the turn limit with nobody to move: a stall.
pub(super) async fn stall<S: NegotiationStore>(store: &S, id: &OpportunityId, first: &str) {
    let second = if first == ALICE { BOB } else { ALICE };
    for i in 0..12u32 {
        let (who, action) = if i.is_multiple_of(2) {
            (first, Propose)
        } else {
            (second, Counter)
        };
        let decision = turn(store, id, who, action).await;
        assert!(decision.is_ok(), "stalling, turn {i}: {decision:?}");
    }
}

/// A park turn asking about `title`, as the suite and backends' own tests
/// record it.
pub fn park_turn(title: &str) -> AskUserTurn {
    let option = |label: &str| QuestionOption {
        label: label.to_owned(),
        description: format!("Go on with {label}."),
    };
    AskUserTurn {
        action: Default::default(),
        assessment: AskUserAssessment {
            reasoning: "Paused for the person.".to_owned(),
            suggested_roles: SuggestedRoles::peers(),
        },
        message: (),
        ask_user: AskUser {
            reason: NegotiationConsultationReason::UnresolvedOwnerConstraint,
            question: StructuredQuestion {
                title: title.to_owned(),
                prompt: format!("What about the {title}?"),
                options: vec![option("Low"), option("High")],
                multi_select: false,
            },
        },
    }
}

pub(super) async fn park<S: NegotiationStore>(
    store: &S,
    id: &OpportunityId,
    who: &str,
    cap: usize,
) -> ParkDecision {
    let (decision, after) = Negotiations::with_settings(
        store,
        QuestionLoopSettings {
            ask_rounds_cap: cap,
        },
    )
    .park(id, &user(who), &park_turn("budget"), &actor(who))
    .await
    .unwrap();
    handed_back(decision, after)
}

pub(super) async fn answer<S: NegotiationStore>(
    store: &S,
    id: &OpportunityId,
    who: &str,
    text: &str,
) -> AnswerDecision {
    let (decision, after) = Negotiations::new(store)
        .answer(id, &user(who), text, &actor(who))
        .await
        .unwrap();
    handed_back(decision, after)
}

/// The record's parks and answers, in order: `("ask_user", sender)` or
/// `("ask_user_answer", text)`.
pub(super) async fn loop_messages<S: NegotiationStore>(
    store: &S,
    id: &OpportunityId,
) -> Vec<(String, String)> {
    store
        .list_messages(id)
        .await
        .unwrap()
        .iter()
        .filter_map(|message| {
            let action = message.data()?.get("action")?.as_str()?.to_owned();
            if message.is_ask_user() {
                Some((action, message.sender_id.clone()))
            } else if action == ASK_USER_ANSWER_ACTION {
                let text = message.parts.iter().find_map(|part| match part {
                    MessagePart::Text { text } => Some(text.clone()),
                    _ => None,
                })?;
                Some((action, text))
            } else {
                None
            }
        })
        .collect()
}
