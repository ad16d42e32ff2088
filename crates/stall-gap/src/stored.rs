//! Parking a stored negotiation: the park decision of [`crate::park`] run
//! on what a store holds, committed through the store's park commit, and
//! the question message that goes to the person.
//!
//! The model call is the slow part and runs outside any lock; the rules
//! are asked before it (so nothing is authored for a negotiation that
//! cannot park) and once more inside the commit, which alone decides.

use async_trait::async_trait;

use index_negotiation::{
    AskUserTurn, Decision, NegotiationOutcome, ParkDecision, ParkRejection, decide_park,
};
use index_negotiation_store::{
    Actor, NegotiationStore, Negotiations, OpportunityId, StoreError, UserId,
};
use index_question_block::{
    QuestionBlock, QuestionBlockQuestion, StructuredQuestion, serialize_question_message_checked,
};

use crate::author::StallGapAuthor;
use crate::input::{Signal, TranscriptTurn};
use crate::park::{
    NegotiationEnd, ParkContext, ParkOutcome, ParkSink, ParkSinkError, park_stalled_negotiation,
};

/// What a park knows of the person beyond the store: everything optional,
/// with the store's ids standing in.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct ParkRequest {
    /// The person's name, as the model addresses them [default: the user id].
    pub name: Option<String>,
    /// What the person is looking for, in a few words [default: the intent id].
    pub signal_title: Option<String>,
    /// What the person is looking for [default: the intent id].
    pub signal: Option<String>,
    /// Why the pair was matched; the question may not echo it.
    pub seed_reasoning: Option<String>,
    /// The other seat's name; neither the question nor the message around
    /// it may contain it [default: its user id].
    pub counterparty_name: Option<String>,
    /// The network the pair met in [default: `local`].
    pub network: Option<String>,
}

/// A park's result, with the question message to send when it parked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parked {
    /// What the park decision did.
    pub outcome: ParkOutcome,
    /// The message for the person (prose listing the options, and the
    /// block), when it parked.
    pub message: Option<String>,
}

impl Parked {
    /// The park as the REST API, MCP and the CLI report it. The model's
    /// failure is named, never its request: nothing secret is in it.
    pub fn report(&self) -> ParkReport {
        let mut report = ParkReport {
            outcome: self.outcome.kind(),
            message: None,
            question: None,
            ask_rounds: None,
            cap: None,
            rule: None,
            field: None,
            rejection: None,
            error: None,
        };
        match &self.outcome {
            ParkOutcome::Parked {
                gap, ask_rounds, ..
            } => {
                report.message = self.message.clone();
                report.question = Some(gap.question.clone());
                report.ask_rounds = Some(*ask_rounds);
            }
            ParkOutcome::AskCapReached { ask_rounds, cap } => {
                report.ask_rounds = Some(*ask_rounds);
                report.cap = Some(*cap);
            }
            ParkOutcome::AuthorFailed { failure, .. } => report.error = Some(failure.to_string()),
            ParkOutcome::UnsafeGap { refusal, .. } => {
                report.rule = Some(refusal.rule);
                report.field = Some(refusal.field.map(|field| field.to_string()));
            }
            ParkOutcome::Refused { rejection, .. } => report.rejection = Some(*rejection),
            ParkOutcome::NotApplicable
            | ParkOutcome::NoGap { .. }
            | ParkOutcome::SinkFailed { .. } => {}
        }
        report
    }
}

/// A park as the REST API, MCP and the CLI report it: the outcome, and
/// what that outcome names (the message and question when it parked, the
/// rounds and cap when the budget is spent, the gate's rule and field, the
/// commit's rejection, the model's failure). Fields an outcome does not
/// name are left out.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ParkReport {
    /// What the park did.
    pub outcome: crate::park::ParkOutcomeKind,
    /// The question message to send the person, when it parked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The question it parked on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question: Option<StructuredQuestion>,
    /// Ask rounds spent, this one included when it parked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ask_rounds: Option<usize>,
    /// The ask-round cap, when it is reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cap: Option<usize>,
    /// The safety gate's rule that refused the question.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<crate::safety::GateRule>,
    /// The field that rule fired on (`null` for the option count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<Option<String>>,
    /// Why the commit refused the park.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejection: Option<ParkRejection>,
    /// What went wrong with the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Why a stored negotiation could not be considered for a park at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ParkError {
    /// No negotiation has this id, or the user holds no seat in it.
    #[error("no such negotiation")]
    NotFound,
    /// The store failed before anything was decided.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The question cannot be written as a block that reads back (only
    /// text that forges a fence with U+2028 or U+2029 can do that, since
    /// the gate's limits are tighter than the block's). It was parked.
    #[error("the parked question cannot be written as a question message: {0}")]
    Unwritable(String),
}

/// The store's park commit as a park's sink.
struct CommitSink<'a, S> {
    negotiations: &'a Negotiations<S>,
    id: &'a OpportunityId,
    actor: &'a Actor,
}

#[async_trait]
impl<S: NegotiationStore> ParkSink for CommitSink<'_, S> {
    async fn persist(
        &self,
        user_id: &UserId,
        turn: &AskUserTurn,
    ) -> Result<ParkDecision, ParkSinkError> {
        self.negotiations
            .park(self.id, user_id, turn, self.actor)
            .await
            .map(|(decision, _)| decision)
            .map_err(|err| ParkSinkError(Box::new(err)))
    }
}

/// Parks `id` on a question for `user`'s person, if it stalled: the end
/// read from the store, the gap authored by `author`, checked by the safety
/// gate, and committed under the negotiation's lock with the service's
/// ask-round cap, `actor` on the audit record as the one who parked.
///
/// # Errors
///
/// [`ParkError::NotFound`] unless `user` holds a seat; [`ParkError::Store`]
/// when the store fails before the park is decided.
pub async fn park_negotiation<S: NegotiationStore>(
    negotiations: &Negotiations<S>,
    id: &OpportunityId,
    user: &UserId,
    request: &ParkRequest,
    author: &dyn StallGapAuthor,
    actor: &Actor,
) -> Result<Parked, ParkError> {
    let store = negotiations.store();
    let summary = store
        .get_negotiation(id)
        .await?
        .ok_or(ParkError::NotFound)?;
    let seat = summary.seat_of(user).cloned().ok_or(ParkError::NotFound)?;
    let other = if summary.initiator.user_id == *user {
        &summary.responder
    } else {
        &summary.initiator
    };
    let state = store
        .read_negotiation_state(id)
        .await?
        .ok_or(ParkError::NotFound)?;
    let end = NegotiationEnd {
        has_opportunity: state.outcome == Some(NegotiationOutcome::Agreed),
        screened_out: false,
        last_action: state.turns.last().map(|turn| turn.action.to_string()),
        turn_count: state.turn_count(),
        at_turn_cap: state.ran_to_turn_cap(),
        error: None,
        opportunity_id: Some(id.clone()),
        source_intent_id: Some(seat.intent_id.clone()),
        network_id: Some(
            request
                .network
                .clone()
                .unwrap_or_else(|| "local".to_owned()),
        ),
    };
    let cap = negotiations.settings().ask_rounds_cap;
    // The cap is the park decision's own to report; any other refusal
    // means there is nothing to author a question for.
    if let Decision::Refused(rejection) = decide_park(Some(&state), user, cap)
        && rejection != ParkRejection::AskCapReached
    {
        let outcome = if end.ended_unconcluded() {
            ParkOutcome::Refused {
                stall_reason: end.stall_reason(),
                rejection,
            }
        } else {
            ParkOutcome::NotApplicable
        };
        return Ok(Parked {
            outcome,
            message: None,
        });
    }
    let counterparty = request
        .counterparty_name
        .clone()
        .unwrap_or_else(|| other.user_id.to_string());
    let context = ParkContext {
        source_user_id: user.clone(),
        user_name: request.name.clone().unwrap_or_else(|| user.to_string()),
        signal: Signal {
            title: request
                .signal_title
                .clone()
                .unwrap_or_else(|| seat.intent_id.to_string()),
            description: request
                .signal
                .clone()
                .unwrap_or_else(|| seat.intent_id.to_string()),
        },
        seed_reasoning: request.seed_reasoning.clone().unwrap_or_default(),
        transcript: state
            .turns
            .iter()
            .map(|turn| TranscriptTurn {
                action: turn.action.to_string(),
                reasoning: String::new(),
                message: Some(turn.message.clone()),
            })
            .collect(),
        conversation: None,
        counterparty_name: Some(counterparty),
        last_suggested_roles: None,
        messages: store.list_messages(id).await?,
        ask_rounds: state.ask_rounds,
        ask_rounds_cap: cap,
    };
    let sink = CommitSink {
        negotiations,
        id,
        actor,
    };
    let outcome = park_stalled_negotiation(&end, context, author, &sink).await;
    let message = match &outcome {
        ParkOutcome::Parked { gap, .. } => Some(
            question_message(id, &gap.question)
                .map_err(|err| ParkError::Unwritable(err.to_string()))?,
        ),
        _ => None,
    };
    Ok(Parked { outcome, message })
}

/// The question message for a park: prose that says what happened and
/// lists the options, and the block whose one question unparks `id`.
///
/// The prose holds only the question's own title and options, which the
/// safety gate checked, around fixed words: like the question, it never
/// names the other seat (the reference asks in the person's own terms,
/// never the counterparty's).
///
/// ```
/// use index_question_block::{QuestionOption, StructuredQuestion, parse_question_message};
/// let option = |l: &str| QuestionOption { label: l.into(), description: format!("Retry with {l}.") };
/// let question = StructuredQuestion { title: "Budget".into(), prompt: "Which budget?".into(), options: vec![option("Low"), option("High")], multi_select: false };
/// let id = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36".parse()?;
/// let message = index_stall_gap::question_message(&id, &question)?;
/// assert!(message.starts_with("Your agent paused a negotiation"));
/// assert_eq!(parse_question_message(&message).unwrap().block.questions[0].prompt, "Which budget?");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// When the question cannot be written as a block that reads back.
pub fn question_message(
    id: &OpportunityId,
    question: &StructuredQuestion,
) -> Result<String, index_question_block::UnsendableQuestionMessage> {
    question_message_unblocking(id, &[], question)
}

/// [`question_message`] for a question that `id` and the negotiations
/// `also` are all parked on: its one question names `id` and, as
/// `alsoUnblocks`, the others, so that one answer resumes them all.
///
/// ```
/// use index_question_block::{QuestionOption, StructuredQuestion, parse_question_message};
/// let option = |l: &str| QuestionOption { label: l.into(), description: format!("Retry with {l}.") };
/// let question = StructuredQuestion { title: "Budget".into(), prompt: "Which budget?".into(), options: vec![option("Low"), option("High")], multi_select: false };
/// let id = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36".parse()?;
/// let other = "7b2d4f61-0a9c-4e35-8d17-c6f0e2a9b843".parse()?;
/// let message = index_stall_gap::question_message_unblocking(&id, &[other], &question)?;
/// let parsed = parse_question_message(&message).unwrap();
/// assert_eq!(parsed.block.questions[0].also_unblocks.as_deref(), Some(&["7b2d4f61-0a9c-4e35-8d17-c6f0e2a9b843".to_owned()][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`question_message`].
pub fn question_message_unblocking(
    id: &OpportunityId,
    also: &[OpportunityId],
    question: &StructuredQuestion,
) -> Result<String, index_question_block::UnsendableQuestionMessage> {
    let mut prose = format!(
        "Your agent paused a negotiation: it needs one answer from you ({}).",
        question.title
    );
    for option in &question.options {
        prose.push_str(&format!("\n- {}: {}", option.label, option.description));
    }
    serialize_question_message_checked(&prose, &question_block(id, also, question))
}

/// The block that asks `question` of the person whose negotiation `id`
/// and, as `alsoUnblocks`, the negotiations `also` are parked on it: the
/// block a question message carries, and the one its answer is delivered
/// against.
///
/// ```
/// use index_question_block::{QuestionOption, StructuredQuestion};
/// let option = |l: &str| QuestionOption { label: l.into(), description: format!("Retry with {l}.") };
/// let question = StructuredQuestion { title: "Budget".into(), prompt: "Which budget?".into(), options: vec![option("Low"), option("High")], multi_select: false };
/// let id = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36".parse()?;
/// let block = index_stall_gap::question_block(&id, &[], &question);
/// assert_eq!(block.questions[0].prompt, "Which budget?");
/// assert_eq!(block.questions[0].also_unblocks, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn question_block(
    id: &OpportunityId,
    also: &[OpportunityId],
    question: &StructuredQuestion,
) -> QuestionBlock {
    let mut asked = QuestionBlockQuestion::new(question.prompt.clone(), id.as_str());
    if !also.is_empty() {
        asked.also_unblocks = Some(also.iter().map(ToString::to_string).collect());
    }
    QuestionBlock::new(vec![asked])
}
