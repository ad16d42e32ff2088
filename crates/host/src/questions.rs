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
use index_negotiation_store::{
    NegotiationStore, Negotiations, OpportunityId, UserId, is_hyphenated_uuid,
};
use index_question_block::{QuestionBlock, StructuredQuestion};

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

/// The data part of a message, if it has one.
fn data(message: &NegotiationMessage) -> Option<&serde_json::Map<String, Value>> {
    message.parts.iter().find_map(|part| match part {
        MessagePart::Data { data } => Some(data),
        MessagePart::Text { .. } => None,
    })
}

fn is_answer(message: &NegotiationMessage) -> bool {
    data(message)
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
    let turn: AskUserTurn = serde_json::from_value(Value::Object(data(park)?.clone())).ok()?;
    let user = park.sender_id.strip_prefix("agent:")?;
    let answer = messages.get(position + 1..)?.iter().find(|m| is_answer(m));
    Some((
        ParkedQuestion {
            user_id: UserId::from(user),
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
            let outcome = if !is_hyphenated_uuid(reference) {
                RefOutcome::Unknown
            } else {
                let id = OpportunityId::new(reference.as_str());
                if !handled.insert(id.clone()) {
                    continue;
                }
                deliver_one(store, person, &id, answer).await
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
                && data(recorded)
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
