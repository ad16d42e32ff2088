//! The park decision at the end of an unconcluded negotiation: stop for
//! good, or pause on one question for the person.

use async_trait::async_trait;

use index_negotiation::{
    AskUser, AskUserAssessment, AskUserTurn, Decision, IntentId, NegotiationMessage, OpportunityId,
    ParkDecision, ParkRejection, SuggestedRoles, UserId, agent_sender_id,
    count_negotiation_ask_rounds, has_prior_ask_user,
};
use index_negotiation_store::ErrorChain;

use crate::author::{AuthorFailure, StallGapAuthor};
use crate::input::{
    ConversationMessage, NegotiationStallGap, Signal, StallGapAuthorInput, StallReason,
    TranscriptTurn,
};
use crate::judge::JudgeReason;
use crate::safety::{GateRefusal, GateRule, check_authored_negotiation_question};

/// The reasoning recorded on every park turn. Fixed, never model text: the
/// park turn enters the shared record, and the question itself (which the
/// gate checked) already says why.
pub const NEGOTIATION_PARK_REASONING: &str =
    "Paused until the person this seat acts for answers the question below.";

/// Actions that end a negotiation as an explicit refusal, not a stall.
pub const REJECT_LIKE_ACTIONS: [&str; 2] = ["reject", "decline"];

/// Records a park: a store's park commit, where the rules decide again
/// under the negotiation's lock (see `Negotiations::park` in
/// `index-negotiation-store`).
#[async_trait]
pub trait ParkSink: Send + Sync {
    /// Records `turn` as the park of `user_id`'s agent, if the rules still
    /// permit it; a refusal (a racing park or turn won) writes nothing.
    async fn persist(
        &self,
        user_id: &UserId,
        turn: &AskUserTurn,
    ) -> Result<ParkDecision, ParkSinkError>;
}

/// Why a park could not be persisted.
///
/// The cause is the source, to walk (as [`ErrorChain`] does) or downcast;
/// the message is this error's own.
///
/// ```
/// use index_negotiation_store::ErrorChain;
/// use index_stall_gap::ParkSinkError;
/// let err = ParkSinkError("disk full".into());
/// assert_eq!(err.to_string(), "could not persist the park");
/// assert_eq!(ErrorChain(&err).to_string(), "could not persist the park: disk full");
/// ```
///
/// [`ErrorChain`]: index_negotiation_store::ErrorChain
#[derive(Debug, thiserror::Error)]
#[error("could not persist the park")]
pub struct ParkSinkError(#[source] pub Box<dyn std::error::Error + Send + Sync>);

/// How the negotiation ended, as the host's finalize step knows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NegotiationEnd {
    /// Whether an opportunity came out of it (an agreement).
    pub has_opportunity: bool,
    /// Whether screening stopped it before the first turn.
    pub screened_out: bool,
    /// The last turn's action, if any.
    pub last_action: Option<String>,
    /// How many turns were taken.
    pub turn_count: usize,
    /// Whether it stopped at the turn cap.
    pub at_turn_cap: bool,
    /// The error it stopped on, if any.
    pub error: Option<String>,
    /// The opportunity the negotiation runs on.
    pub opportunity_id: Option<OpportunityId>,
    /// The parking side's intent.
    pub source_intent_id: Option<IntentId>,
    /// The network the pair met in.
    pub network_id: Option<String>,
}

impl NegotiationEnd {
    /// Whether it ended without a conclusion: no opportunity, not screened
    /// out, not ended by a reject-like action, and at least one turn taken.
    pub fn ended_unconcluded(&self) -> bool {
        !self.has_opportunity
            && !self.screened_out
            && !self
                .last_action
                .as_deref()
                .is_some_and(|action| REJECT_LIKE_ACTIONS.contains(&action))
            && self.turn_count > 0
    }

    /// Why it stalled.
    pub fn stall_reason(&self) -> StallReason {
        StallReason::classify(self.at_turn_cap, self.error.as_deref())
    }

    /// Whether every id a park records is there. The typed ids cannot be
    /// empty; the network id is free text and counts only when not empty,
    /// as the reference's truthiness check reads it.
    fn has_ids(&self) -> bool {
        self.opportunity_id.is_some()
            && self.source_intent_id.is_some()
            && self.network_id.as_deref().is_some_and(|id| !id.is_empty())
    }
}

/// What the park needs besides how the negotiation ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParkContext {
    /// The side that would park: its person is asked.
    pub source_user_id: UserId,
    /// That person's display name.
    pub user_name: String,
    /// Their signal.
    pub signal: Signal,
    /// Why the match was suggested (also checked against echoes).
    pub seed_reasoning: String,
    /// The negotiation's turns.
    pub transcript: Vec<TranscriptTurn>,
    /// The person's conversation with their negotiator, if any.
    pub conversation: Option<Vec<ConversationMessage>>,
    /// The counterparty's name (never allowed in the question).
    pub counterparty_name: Option<String>,
    /// The roles the last turn suggested; peers when none.
    pub last_suggested_roles: Option<SuggestedRoles>,
    /// The negotiation's message record, whose other-seat reasoning the
    /// question may not echo.
    pub messages: Vec<NegotiationMessage>,
    /// The ask rounds the negotiation has spent (its state's count).
    pub ask_rounds: usize,
    /// The ask-round cap in force.
    pub ask_rounds_cap: usize,
}

index_js::wire_enum! {
    crate index_stall_gap;
    /// Which [`ParkOutcome`] a park had, as its report's `outcome` names it:
    /// snake_case, as the reference spells its wire names (`turn_cap`,
    /// `ask_user`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum ParkOutcomeKind {
        /// [`ParkOutcome::NotApplicable`].
        NotApplicable = "not_applicable",
        /// [`ParkOutcome::AskCapReached`].
        AskCapReached = "ask_cap_reached",
        /// [`ParkOutcome::NoGap`].
        NoGap = "no_gap",
        /// [`ParkOutcome::AuthorFailed`].
        AuthorFailed = "author_failed",
        /// [`ParkOutcome::UnsafeGap`].
        UnsafeGap = "unsafe_gap",
        /// [`ParkOutcome::Refused`].
        Refused = "refused",
        /// [`ParkOutcome::SinkFailed`].
        SinkFailed = "sink_failed",
        /// [`ParkOutcome::Parked`].
        Parked = "parked",
    }
}

/// What the park decision did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParkOutcome {
    /// The negotiation concluded, or lacks the ids a park needs: nothing to do.
    NotApplicable,
    /// The ask-round budget is spent: a terminal stall, no model call.
    AskCapReached {
        /// Rounds spent.
        ask_rounds: usize,
        /// The cap.
        cap: usize,
    },
    /// The author found no gap: a terminal stall.
    NoGap {
        /// Why it stalled.
        stall_reason: StallReason,
    },
    /// The author could not tell (the model failed, timed out or never
    /// answered in shape): a terminal stall, as the reference has it, but
    /// reported, since it is an operator's problem and not the
    /// negotiation's.
    AuthorFailed {
        /// Why it stalled.
        stall_reason: StallReason,
        /// What went wrong.
        failure: AuthorFailure,
    },
    /// The gate refused the authored question: a terminal stall.
    UnsafeGap {
        /// Why it stalled.
        stall_reason: StallReason,
        /// Which rule refused it, on which field.
        refusal: GateRefusal,
    },
    /// The rules refused the park when it was committed: another park, a
    /// resume or a turn won the race while the question was authored.
    Refused {
        /// Why it stalled.
        stall_reason: StallReason,
        /// Why the commit refused.
        rejection: ParkRejection,
    },
    /// The park could not be persisted: a terminal stall.
    SinkFailed {
        /// Why it stalled.
        stall_reason: StallReason,
        /// What the sink said.
        error: String,
    },
    /// Parked on the question.
    Parked {
        /// Why it stalled.
        stall_reason: StallReason,
        /// Ask rounds spent, this one included.
        ask_rounds: usize,
        /// The question it parked on.
        gap: NegotiationStallGap,
        /// The message persisted.
        message: NegotiationMessage,
    },
}

impl ParkOutcome {
    /// Which outcome this is, by its wire name.
    ///
    /// ```
    /// use index_stall_gap::{ParkOutcome, ParkOutcomeKind};
    /// assert_eq!(ParkOutcome::NotApplicable.kind(), ParkOutcomeKind::NotApplicable);
    /// assert_eq!(ParkOutcomeKind::NotApplicable.as_str(), "not_applicable");
    /// ```
    pub fn kind(&self) -> ParkOutcomeKind {
        match self {
            ParkOutcome::NotApplicable => ParkOutcomeKind::NotApplicable,
            ParkOutcome::AskCapReached { .. } => ParkOutcomeKind::AskCapReached,
            ParkOutcome::NoGap { .. } => ParkOutcomeKind::NoGap,
            ParkOutcome::AuthorFailed { .. } => ParkOutcomeKind::AuthorFailed,
            ParkOutcome::UnsafeGap { .. } => ParkOutcomeKind::UnsafeGap,
            ParkOutcome::Refused { .. } => ParkOutcomeKind::Refused,
            ParkOutcome::SinkFailed { .. } => ParkOutcomeKind::SinkFailed,
            ParkOutcome::Parked { .. } => ParkOutcomeKind::Parked,
        }
    }
}

/// Decides, at the end of a negotiation, whether to park it on a question.
///
/// Applies only to an unconcluded end with an opportunity, source intent
/// and network. At or over the ask-round cap the stall is terminal without
/// calling the author. Otherwise the author is asked; a gap the safety gate
/// passes (checked against the counterparty's name, the seed reasoning and
/// the reasoning of the other seat's turns in the record) is handed to the
/// sink as an `ask_user` park turn from the source side's agent (after the
/// author's [`judge`](StallGapAuthor::judge), if it has one, passes it too), and the
/// sink's commit decides once more under the lock (the model call took
/// time; the negotiation may have moved). Every failure ends as a terminal
/// stall, each with its own outcome: this never returns an error.
pub async fn park_stalled_negotiation(
    end: &NegotiationEnd,
    context: ParkContext,
    author: &dyn StallGapAuthor,
    sink: &dyn ParkSink,
) -> ParkOutcome {
    let Some(opportunity_id) = end.opportunity_id.as_ref().map(OpportunityId::as_str) else {
        return ParkOutcome::NotApplicable;
    };
    if !end.ended_unconcluded() || !end.has_ids() {
        return ParkOutcome::NotApplicable;
    }
    let stall_reason = end.stall_reason();
    let ask_rounds = context.ask_rounds;
    let cap = context.ask_rounds_cap;
    if ask_rounds >= cap {
        tracing::info!(
            name: "negotiation_ask_cap_terminal",
            opportunity_id,
            ask_rounds,
            ask_rounds_cap = cap,
            stall_reason = stall_reason.as_str(),
            "ask-round cap reached; the negotiation stalls for good"
        );
        return ParkOutcome::AskCapReached { ask_rounds, cap };
    }

    let input = StallGapAuthorInput {
        user_name: context.user_name,
        signal: context.signal,
        seed_reasoning: context.seed_reasoning,
        transcript: context.transcript,
        stall_reason,
        conversation: context.conversation,
    };
    let gap = match author.author(&input).await {
        Ok(Some(gap)) => gap,
        Ok(None) => return ParkOutcome::NoGap { stall_reason },
        Err(failure) => {
            tracing::warn!(
                name: "negotiation_park_author_failed",
                opportunity_id,
                error = %failure,
                "the stall-gap author failed; the negotiation stalls without a park"
            );
            return ParkOutcome::AuthorFailed {
                stall_reason,
                failure,
            };
        }
    };
    let forbidden_identifiers: Vec<String> = context
        .counterparty_name
        .as_deref()
        .map(index_js::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .into_iter()
        .collect();
    let forbidden_source_text = private_texts(
        &input.seed_reasoning,
        &context.messages,
        &context.source_user_id,
    );
    // The rules first; the judge, if the author has one, only on what
    // they pass, and only to refuse more.
    let refused = match check_authored_negotiation_question(
        &gap.question,
        &forbidden_identifiers,
        &forbidden_source_text,
    ) {
        Err(refusal) => Some((refusal, None)),
        Ok(()) => match author.judge() {
            Some(judge) => judge
                .judge(
                    &gap.question,
                    &forbidden_identifiers,
                    &forbidden_source_text,
                )
                .await
                .err()
                .map(|reason| {
                    let refusal = GateRefusal {
                        rule: GateRule::ModelJudge,
                        field: None,
                    };
                    (refusal, Some(reason))
                }),
            None => None,
        },
    };
    if let Some((refusal, judged)) = refused {
        tracing::warn!(
            name: "negotiation_park_unsafe_gap",
            opportunity_id,
            rule = refusal.rule.as_str(),
            field = refusal.field.map(|field| field.to_string()),
            judge_reason = judged.map(JudgeReason::as_str),
            "dropping an unsafe post-stall question; the negotiation stalls without a park"
        );
        return ParkOutcome::UnsafeGap {
            stall_reason,
            refusal,
        };
    }

    let turn = AskUserTurn {
        action: Default::default(),
        assessment: AskUserAssessment {
            reasoning: NEGOTIATION_PARK_REASONING.to_owned(),
            suggested_roles: context
                .last_suggested_roles
                .unwrap_or_else(SuggestedRoles::peers),
        },
        message: (),
        ask_user: AskUser {
            reason: gap.reason,
            question: gap.question.clone(),
        },
    };
    let permitted = match sink.persist(&context.source_user_id, &turn).await {
        Ok(Decision::Permitted(permitted)) => permitted,
        Ok(Decision::Refused(rejection)) => {
            tracing::info!(
                name: "negotiation_park_refused",
                opportunity_id,
                rejection = rejection.as_str(),
                "the negotiation changed while its question was authored; no park"
            );
            return ParkOutcome::Refused {
                stall_reason,
                rejection,
            };
        }
        Err(err) => {
            tracing::error!(
                name: "negotiation_park_failed",
                opportunity_id,
                error = %ErrorChain(&err),
                "could not park the stalled negotiation"
            );
            return ParkOutcome::SinkFailed {
                stall_reason,
                error: ErrorChain(&err).to_string(),
            };
        }
    };
    let ask_rounds = permitted.ask_rounds;
    let message = turn.to_message(&context.source_user_id);
    tracing::info!(
        name: "negotiation_parked",
        opportunity_id,
        recipient_user_id = context.source_user_id.as_str(),
        ask_rounds,
        ask_rounds_cap = cap,
        stall_reason = stall_reason.as_str(),
        "negotiation parked on a question for its person"
    );
    ParkOutcome::Parked {
        stall_reason,
        ask_rounds,
        gap,
        message,
    }
}

/// Everything the park knows is private, for the gate's echo rule: the seed
/// reasoning, and the reasoning of every turn in the record that the other
/// seat's agent sent (its assessment is never shown to this side's person).
/// The fixed park reasoning is not private.
fn private_texts(
    seed: &str,
    messages: &[NegotiationMessage],
    source_user_id: &UserId,
) -> Vec<String> {
    let own_agent = agent_sender_id(source_user_id);
    let others = messages
        .iter()
        .filter(|message| message.sender_id != own_agent)
        .flat_map(|message| &message.parts)
        .filter_map(|part| part.data()?.get("assessment")?.get("reasoning")?.as_str());
    std::iter::once(seed)
        .chain(others)
        .map(index_js::trim)
        .filter(|text| !text.is_empty() && *text != NEGOTIATION_PARK_REASONING)
        .map(str::to_owned)
        .collect()
}

/// Whether a mid-negotiation consult may spend an ask round: this side has
/// not asked yet, and the negotiation is under the cap.
///
/// ```
/// use index_stall_gap::can_spend_ask_round;
/// let alice = "alice".parse()?;
/// assert!(can_spend_ask_round(&[], &alice, 3));
/// assert!(!can_spend_ask_round(&[], &alice, 0));
/// # Ok::<(), index_negotiation::InvalidId>(())
/// ```
pub fn can_spend_ask_round(messages: &[NegotiationMessage], user_id: &UserId, cap: usize) -> bool {
    !has_prior_ask_user(messages, user_id) && count_negotiation_ask_rounds(messages) < cap
}
