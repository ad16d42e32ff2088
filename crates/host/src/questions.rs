//! The person's side of a park: which question a negotiation waits on, and
//! delivering the person's answers to every negotiation they unblock.
//!
//! A park is an `ask_user` message in the negotiation's record (see
//! `index-stall-gap`); the negotiation waits on its person until an answer
//! message follows it. Delivering an answer records it first and resumes
//! second, so a crash between the two is mended by delivering again: the
//! answer is found recorded, the negotiation still paused where it was, and
//! only the resume is done. Anything else already answered is left alone,
//! so the same answers delivered twice change nothing.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::{Value, json};

use index_negotiation::{
    AskUserTurn, Decision, MessagePart, NegotiationMessage, NegotiationResumeRejection,
};
use index_negotiation::{
    NegotiationAction, NegotiationOutcome, current_round, negotiation_ask_rounds_cap,
};
use index_negotiation_store::{NegotiationStore, Negotiations, OpportunityId, UserId};
use index_question_block::{
    QuestionBlock, QuestionBlockQuestion, StructuredQuestion, serialize_question_message_checked,
};
use index_stall_gap::{
    NegotiationEnd, ParkContext, ParkOutcome, ParkSink, ParkSinkError, Signal, StallGapAuthor,
    TranscriptTurn, park_stalled_negotiation,
};

use crate::error::HostError;

/// The `action` of an answer message's data part.
pub const ANSWER_ACTION: &str = "ask_user_answer";

/// The question a negotiation waits on, and whose it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParkedQuestion {
    /// The person asked (their agent parked the negotiation).
    pub user_id: UserId,
    /// What they are asked, with its options.
    pub question: StructuredQuestion,
}

fn is_answer(message: &NegotiationMessage) -> bool {
    message
        .data()
        .and_then(|d| d.get("action"))
        .and_then(Value::as_str)
        == Some(ANSWER_ACTION)
}

/// The last park in `messages` and the answer after it, if any.
fn last_park(
    messages: &[NegotiationMessage],
) -> Option<(ParkedQuestion, Option<&NegotiationMessage>)> {
    let position = messages.iter().rposition(NegotiationMessage::is_ask_user)?;
    let park = messages.get(position)?;
    let turn: AskUserTurn = serde_json::from_value(Value::Object(park.data()?.clone())).ok()?;
    let user = park.sender_id.strip_prefix("agent:")?;
    let answer = messages.get(position + 1..)?.iter().find(|m| is_answer(m));
    Some((
        ParkedQuestion {
            user_id: UserId::parse(user).ok()?,
            question: turn.ask_user.question,
        },
        answer,
    ))
}

/// The question the negotiation waits on: its last park, if no answer has
/// followed it.
///
/// ```
/// use index_host::questions::parked_question;
/// assert_eq!(parked_question(&[]), None);
/// ```
pub fn parked_question(messages: &[NegotiationMessage]) -> Option<ParkedQuestion> {
    match last_park(messages)? {
        (parked, None) => Some(parked),
        (_, Some(_)) => None,
    }
}

/// The message that records `user_id`'s `answer` to `question`, made when
/// the negotiation had `turn_count` turns.
pub fn answer_message(
    user_id: &UserId,
    question: &StructuredQuestion,
    answer: &str,
    turn_count: usize,
) -> NegotiationMessage {
    let data = match json!({
        "action": ANSWER_ACTION,
        "title": question.title,
        "answer": answer,
        "turnCount": turn_count,
    }) {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    NegotiationMessage {
        sender_id: format!("user:{user_id}"),
        parts: vec![
            MessagePart::Text {
                text: answer.to_owned(),
            },
            MessagePart::Data { data },
        ],
    }
}

/// What became of one negotiation an answer named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
#[non_exhaustive]
pub enum RefOutcome {
    /// The answer was recorded and the negotiation resumed, the person's
    /// seat to move.
    Resumed,
    /// An answer recorded earlier had not been followed by its resume (a
    /// crash between the two); the resume was done now.
    Recovered,
    /// The answer was recorded, but a seat had already resumed the
    /// negotiation: the agents read the answer from the record.
    Recorded,
    /// The negotiation is not waiting on this person's answer (answered
    /// already, or never parked for them): nothing was changed.
    NotWaiting,
    /// No negotiation the person holds a seat in has this id; never guessed.
    Unknown,
    /// The store refused or failed; the other negotiations went on.
    Failed {
        /// Why.
        reason: String,
    },
}

/// One negotiation's line in a [`DeliveryReport`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
    /// The negotiations resumed by this delivery (recoveries included).
    pub fn resumed(&self) -> impl Iterator<Item = &str> {
        self.negotiations
            .iter()
            .filter(|r| matches!(r.outcome, RefOutcome::Resumed | RefOutcome::Recovered))
            .map(|r| r.opportunity_id.as_str())
    }
}

/// Delivers `person`'s `answers` (question position from 0, and the
/// answer) to the negotiations `block` names: for each question its primary
/// negotiation first, then its `alsoUnblocks`, each negotiation at most
/// once per delivery. An answer is recorded in a negotiation's message
/// record, then the negotiation is resumed with the person's seat to move.
/// One negotiation failing does not stop the others; a negotiation the
/// person holds no seat in is reported unknown, like a missing one.
pub async fn deliver_answers<S: NegotiationStore>(
    store: &S,
    person: &UserId,
    block: &QuestionBlock,
    answers: &[(usize, String)],
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
                    deliver_one(store, person, &id, answer).await
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

async fn deliver_one<S: NegotiationStore>(
    store: &S,
    person: &UserId,
    id: &OpportunityId,
    answer: &str,
) -> RefOutcome {
    let failed = |reason: String| RefOutcome::Failed { reason };
    let summary = match store.get_negotiation(id).await {
        Ok(Some(summary)) if summary.seat_of(person).is_some() => summary,
        Ok(_) => return RefOutcome::Unknown,
        Err(err) => return failed(err.to_string()),
    };
    let messages = match store.list_messages(id).await {
        Ok(messages) => messages,
        Err(err) => return failed(err.to_string()),
    };
    let paused = summary.awaiting_user_id.is_none() && !summary.settled;
    let outcome = match last_park(&messages) {
        Some((parked, None)) if parked.user_id == *person => {
            let record = answer_message(person, &parked.question, answer, summary.turn_count);
            match store.append_message(id, &record).await {
                Ok(true) => RefOutcome::Resumed,
                Ok(false) => return RefOutcome::Unknown,
                Err(err) => return failed(err.to_string()),
            }
        }
        // Recorded, and the negotiation still exactly where the answer found
        // it: the resume that should have followed never happened.
        Some((parked, Some(recorded)))
            if parked.user_id == *person
                && paused
                && recorded
                    .data()
                    .and_then(|d| d.get("turnCount"))
                    .and_then(Value::as_u64)
                    == u64::try_from(summary.turn_count).ok()
                && recorded.sender_id == format!("user:{person}") =>
        {
            RefOutcome::Recovered
        }
        _ => return RefOutcome::NotWaiting,
    };
    if !paused {
        // Answered, but a seat already moved on: the answer is on record for
        // the agents, and there is nothing to resume.
        return RefOutcome::Recorded;
    }
    match Negotiations::new(store).resume(id, person).await {
        Ok(Decision::Permitted(_)) => outcome,
        Ok(Decision::Refused(NegotiationResumeRejection::NotPaused)) => RefOutcome::NotWaiting,
        Ok(Decision::Refused(rejection)) => failed(rejection.explanation().to_owned()),
        Err(err) => failed(err.to_string()),
    }
}

/// What a park knows of the person beyond the store: everything optional,
/// with the store's ids standing in.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
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
    /// The other seat's name; the question may not contain it [default:
    /// its user id].
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

/// The negotiation's message record as a park's sink.
struct RecordSink<'a, S> {
    store: &'a S,
    id: &'a OpportunityId,
}

#[async_trait::async_trait]
impl<S: NegotiationStore> ParkSink for RecordSink<'_, S> {
    async fn persist(&self, message: &NegotiationMessage) -> Result<(), ParkSinkError> {
        match self.store.append_message(self.id, message).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(ParkSinkError(format!("no negotiation {}", self.id).into())),
            Err(err) => Err(ParkSinkError(Box::new(err))),
        }
    }
}

/// Parks `id` on a question for `user`'s person, if it stalled: the end
/// classified from the store, the gap authored by `author`, checked by the
/// safety gate, and recorded in the negotiation's message record.
///
/// # Errors
///
/// [`HostError::NotFound`] unless `user` holds a seat; [`HostError::Store`]
/// when the store fails.
pub async fn park<S: NegotiationStore>(
    store: &S,
    id: &OpportunityId,
    user: &UserId,
    request: &ParkRequest,
    author: &dyn StallGapAuthor,
) -> Result<Parked, HostError> {
    let summary = store
        .get_negotiation(id)
        .await?
        .ok_or(HostError::NotFound)?;
    let seat = summary.seat_of(user).cloned().ok_or(HostError::NotFound)?;
    let other = if summary.initiator.user_id == *user {
        &summary.responder
    } else {
        &summary.initiator
    };
    let state = store
        .read_negotiation_state(id)
        .await?
        .ok_or(HostError::NotFound)?;
    let messages = store.list_messages(id).await?;
    let last = state.turns.last();
    let end = NegotiationEnd {
        has_opportunity: state.outcome == Some(NegotiationOutcome::Agreed),
        screened_out: false,
        last_action: last.map(|turn| turn.action.to_string()),
        turn_count: state.turns.len(),
        // The last round ran to the turn limit: it ended, and not on a decline.
        at_turn_cap: last.is_some_and(|turn| turn.action != NegotiationAction::Decline)
            && current_round(&state.turns).is_empty()
            && !state.settled,
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
        counterparty_name: Some(counterparty.clone()),
        last_suggested_roles: None,
        messages,
        ask_rounds_cap: negotiation_ask_rounds_cap(),
    };
    let outcome = park_stalled_negotiation(&end, context, author, &RecordSink { store, id }).await;
    let message = match &outcome {
        ParkOutcome::Parked { gap, .. } => {
            Some(question_message(id, &counterparty, &gap.question)?)
        }
        _ => None,
    };
    Ok(Parked { outcome, message })
}

/// The question message for a park: prose that says what happened and
/// lists the options, and the block whose one question unparks `id`.
///
/// # Errors
///
/// [`HostError::BadRequest`] if the question cannot be written as a block
/// that reads back (the gate's limits are tighter than the block's, so only
/// text that forges a fence with U+2028 or U+2029 can fail).
pub fn question_message(
    id: &OpportunityId,
    counterparty: &str,
    question: &StructuredQuestion,
) -> Result<String, HostError> {
    let mut prose = format!(
        "Your agent paused its negotiation with {counterparty}: it needs one answer from you ({}).",
        question.title
    );
    for option in &question.options {
        prose.push_str(&format!("\n- {}: {}", option.label, option.description));
    }
    let block = QuestionBlock::new(vec![QuestionBlockQuestion::new(
        question.prompt.clone(),
        id.as_str(),
    )]);
    serialize_question_message_checked(&prose, &block)
        .map_err(|err| HostError::BadRequest(err.to_string()))
}
