//! The Index protocol's negotiation rules, as pure functions.
//!
//! Two seats, an initiator and a responder, negotiate for their people by
//! taking turns: `propose`, `counter`, `accept`, `decline`. Talks are split
//! into rounds, each capped at [`NEGOTIATION_MAX_TURNS`] turns. When a seat
//! declines, or a round fills up, that round is over and neither seat may
//! move; the pair is still in talks, and a seat
//! [resumes](decide_negotiation_resume) them once its person brings context
//! that matters for this pair. Only an `accept` of the other
//! seat's standing proposal settles a negotiation.
//!
//! Everything here decides and nothing applies: a host reads the state under
//! a lock, calls a `decide_*` function, and applies exactly what it returns
//! (see the `index-negotiation-store` crate). The same input always gets the
//! same decision, checked in the reference's order.
//!
//! ```
//! use index_negotiation::{decide_negotiation_turn, NegotiationAction, NegotiationState, NegotiationTurn, UserId};
//!
//! // Ids are checked once, when made; the rules take them as they are.
//! let (alice, bob) = (UserId::parse("alice")?, UserId::parse("bob")?);
//! let state = NegotiationState::opened(alice.clone(), bob.clone());
//! let turn = NegotiationTurn::new(NegotiationAction::Propose, "Intro call next week?");
//! let decision = decide_negotiation_turn(Some(&state), &alice, &turn);
//! let permitted = decision.permitted().expect("alice opens");
//! assert_eq!(permitted.awaiting_user_id, Some(bob));
//! # Ok::<(), index_negotiation::InvalidId>(())
//! ```
//!
//! The ask-round budget ([`count_negotiation_ask_rounds`],
//! [`negotiation_ask_rounds_cap`]) bounds how often a negotiation may stop to
//! ask its people a question.
//!
//! This crate is browser-safe: no I/O, no clock, no randomness.
//!
//! | module | holds |
//! |---|---|
//! | `limits` | the round's turn cap and the message limit |
//! | `ids` | `UserId`, `IntentId`, `OpportunityId`, checked when made and when read |
//! | `turn` | actions and the turn schema |
//! | `state` | `NegotiationState`: the log (from a round's start on), the park and the ask rounds |
//! | `apply` | how a permitted decision changes a state, for all four commits |
//! | `decision` | the ok/refused unions and rejection codes |
//! | `round` | the round in progress, each turn's round, whether talks ran to the turn cap (`ran_to_turn_cap`, `ended_unconcluded`) |
//! | `rules` | decide and observe for turns and resumes, and where a negotiation stands for a seat (`SeatStanding`) |
//! | `question_loop` | `decide_park`, `decide_answer`, what a seat may see of another's park |
//! | `audit` | a stored log replayed through the rules |
//! | `guidance` | the text agents read |
//! | `ask` | the ask-round budget and the park payload |
//! | `timeout` | the turn timeout setting |

mod apply;
mod ask;
mod audit;
mod decision;
mod guidance;
mod ids;
mod limits;
mod question_loop;
mod round;
mod rules;
mod state;
mod timeout;
mod turn;

pub use ask::{
    ASK_USER_ACTION, ASK_USER_ANSWER_ACTION, AskUser, AskUserAction, AskUserAssessment,
    AskUserTurn, DEFAULT_ASK_USER_WINDOW_MS, DEFAULT_NEGOTIATION_ASK_ROUNDS_CAP, MessagePart,
    NEGOTIATION_ASK_ROUNDS_CAP_ENV, NegotiationConsultationReason, NegotiationMessage,
    SuggestedRoles, agent_sender_id, ask_user_answer_message, count_negotiation_ask_rounds,
    has_prior_ask_user, negotiation_ask_rounds_cap, negotiation_ask_rounds_cap_from,
};
pub use audit::{LogFault, audit_negotiation_log};
pub use decision::{
    Decision, NegotiationDecision, NegotiationRejection, NegotiationResumeDecision,
    NegotiationResumeRejection, ResumePermitted, TurnPermitted,
};
pub use guidance::{CANONICAL_GUIDANCE_TOPICS, CanonicalGuidanceTopic, NEGOTIATION_GUIDANCE};
pub use ids::{IdKind, IntentId, InvalidId, OpportunityId, UserId, is_hyphenated_uuid};
pub use limits::{NEGOTIATION_MAX_TURNS, NEGOTIATION_MESSAGE_LIMIT};
pub use question_loop::{
    AnswerDecision, AnswerPermitted, AnswerRejection, NEGOTIATION_ANSWER_LIMIT, ParkDecision,
    ParkPermitted, ParkRejection, check_answer, decide_answer, decide_park, is_visible_to,
};
pub use round::{current_round, round_numbers};
pub use rules::{
    NegotiationObservation, SeatStanding, decide_negotiation_opening, decide_negotiation_resume,
    decide_negotiation_resume_value, decide_negotiation_turn, decide_negotiation_turn_value,
    negotiation_blocked_reason, observe_negotiation, seat_standing,
};
pub use state::{
    NegotiationOpened, NegotiationOpening, NegotiationOpeningDecision, NegotiationOutcome,
    NegotiationState, OpportunityStatus, Park, RoundEnded, SeatTurn,
};
pub use timeout::{
    DEFAULT_TURN_TIMEOUT_MS, NEGOTIATOR_TURN_TIMEOUT_MS_ENV, resolve_turn_timeout_ms,
    resolve_turn_timeout_ms_from, turn_timeout,
};
pub use turn::{
    HasAction, NegotiationAction, NegotiationTurn, TurnProblem, is_valid_turn,
    parse_negotiation_turn,
};
