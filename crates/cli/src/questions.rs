//! The question loop on the command line: park a stalled negotiation on a
//! question for its person, render the message as the person sees it, and
//! deliver the person's answers to every negotiation they unblock.

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use index_host::questions::{DeliveryReport, RefOutcome, deliver_answers};
use index_negotiation::{
    NegotiationAction, NegotiationOutcome, current_round, negotiation_ask_rounds_cap,
};
use index_negotiation_store::{OpportunityId, UserId};
use index_question_block::{
    QuestionBlock, QuestionBlockQuestion, StructuredQuestion, parse_question_message,
    serialize_question_message,
};
use index_stall_gap::{
    ModelStallGapAuthor, NegotiationEnd, OpenAiCompatibleModel, ParkContext, ParkOutcome, Scripted,
    ScriptedModel, Signal, StructuredModel, TranscriptTurn, park_stalled_negotiation,
};

use crate::cli::{ModelChoice, ParkArgs};
use crate::failure::Failure;
use crate::negotiation::Session;
use crate::output::{BOLD, DIM, GOOD, NOTE, Out, read_input, styled};
use crate::sink::RecordSink;

/// What `park` reports under `--json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase", tag = "outcome")]
enum ParkReport {
    /// Parked: the message to send the person.
    Parked {
        message: String,
        question: StructuredQuestion,
        ask_rounds: usize,
    },
    /// Not an unconcluded end: nothing to ask.
    NotApplicable,
    /// The ask-round budget is spent: the stall is final.
    AskCapReached { ask_rounds: usize, cap: usize },
    /// The model found nothing only the person can answer.
    NoGap,
    /// The model's question failed the safety gate; nobody is asked.
    UnsafeGap,
}

/// The gap the scripted model "authors" for the demo and tests: what a real
/// model, given the demo's transcript, would be expected to ask.
pub(crate) fn scripted_gap() -> serde_json::Value {
    serde_json::json!({
        "hasGap": true,
        "reason": "unresolved_owner_constraint",
        "question": {
            "title": "Equity",
            "prompt": "How much equity can you offer a founding engineer?",
            "options": [
                {"label": "Up to 1%", "description": "The retry offers up to 1% with a four-year vest."},
                {"label": "1% to 3%", "description": "The retry offers between 1% and 3%, matching the usual range."},
                {"label": "Above 3%", "description": "The retry leads with more than 3% to close quickly."}
            ],
            "multiSelect": false
        }
    })
}

fn model(choice: ModelChoice) -> Result<Arc<dyn StructuredModel>, Failure> {
    match choice {
        ModelChoice::Scripted => Ok(Arc::new(ScriptedModel::new([Scripted::Value(scripted_gap())]))),
        ModelChoice::Openai => match OpenAiCompatibleModel::from_env() {
            Ok(Some(model)) => Ok(Arc::new(model)),
            Ok(None) => Err(Failure::Usage(
                "no model: set INDEX_MODEL_BASE_URL and INDEX_MODEL (and INDEX_MODEL_API_KEY if the server wants one), or pass --model scripted".to_owned(),
            )),
            Err(err) => Err(Failure::Usage(err.to_string())),
        },
    }
}

/// The question message for a park: prose that says what happened and
/// lists the options, and the block whose one question unparks `id`.
pub(crate) fn question_message(
    id: &OpportunityId,
    counterparty: &str,
    question: &StructuredQuestion,
) -> Result<String, Failure> {
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
    serialize_question_message(&prose, &block).map_err(|err| Failure::Input(err.to_string()))
}

/// `negotiation park`: classify the end, author the gap, gate it, park.
pub(crate) async fn park(
    session: &Session,
    id: &OpportunityId,
    user: &UserId,
    args: ParkArgs,
) -> Result<String, Failure> {
    let store = session.negotiations.store();
    let summary = store
        .get_negotiation(id)
        .await?
        .ok_or_else(Failure::not_found)?;
    let Some(seat) = summary.seat_of(user).cloned() else {
        return Err(Failure::not_found());
    };
    let other = if summary.initiator.user_id == *user {
        &summary.responder
    } else {
        &summary.initiator
    };
    let state = store
        .read_negotiation_state(id, user)
        .await?
        .ok_or_else(Failure::not_found)?;
    let messages = store.list_messages(id).await?;
    let last = state.turns.last();
    let end = NegotiationEnd {
        has_opportunity: state.outcome == Some(NegotiationOutcome::Agreed),
        screened_out: false,
        last_action: last.map(|turn| turn.action.to_string()),
        turn_count: state.turns.len(),
        at_turn_cap: last.is_some_and(|turn| turn.action != NegotiationAction::Decline)
            && current_round(&state.turns).is_empty()
            && !state.settled,
        error: None,
        opportunity_id: Some(id.to_string()),
        source_intent_id: Some(seat.intent_id.to_string()),
        network_id: Some(args.network.clone()),
    };
    let counterparty = args
        .counterparty_name
        .clone()
        .unwrap_or_else(|| other.user_id.to_string());
    let context = ParkContext {
        source_user_id: user.to_string(),
        user_name: args.name.clone().unwrap_or_else(|| user.to_string()),
        signal: Signal {
            title: args
                .signal_title
                .clone()
                .unwrap_or_else(|| seat.intent_id.to_string()),
            description: args
                .signal
                .clone()
                .unwrap_or_else(|| seat.intent_id.to_string()),
        },
        seed_reasoning: args.seed_reasoning.clone().unwrap_or_default(),
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
    let author = ModelStallGapAuthor::new(model(args.model)?);
    let sink = RecordSink {
        store,
        id: id.clone(),
    };
    let out = session.out;
    let (report, message) = match park_stalled_negotiation(&end, context, &author, &sink).await {
        ParkOutcome::Parked {
            gap, ask_rounds, ..
        } => {
            let message = question_message(id, &counterparty, &gap.question)?;
            (
                ParkReport::Parked {
                    message: message.clone(),
                    question: gap.question,
                    ask_rounds,
                },
                Some(message),
            )
        }
        ParkOutcome::NotApplicable => (ParkReport::NotApplicable, None),
        ParkOutcome::AskCapReached { ask_rounds, cap } => {
            (ParkReport::AskCapReached { ask_rounds, cap }, None)
        }
        ParkOutcome::NoGap { .. } => (ParkReport::NoGap, None),
        ParkOutcome::UnsafeGap { .. } => (ParkReport::UnsafeGap, None),
        ParkOutcome::SinkFailed { error, .. } => {
            return Err(Failure::Input(format!("could not park: {error}")));
        }
    };
    out.json(&report);
    match (&report, &message) {
        (ParkReport::Parked { ask_rounds, .. }, Some(message)) => {
            out.line(styled(
                NOTE,
                format!("Parked (ask round {ask_rounds}); the message for {user}:"),
            ));
            out.line(message);
        }
        (ParkReport::NotApplicable, _) => {
            out.line("Nothing to ask: the negotiation did not end unconcluded.")
        }
        (ParkReport::AskCapReached { ask_rounds, cap }, _) => out.line(format!(
            "No park: the ask-round budget is spent ({ask_rounds} of {cap}); the stall is final."
        )),
        (ParkReport::NoGap, _) => {
            out.line("No park: the model found nothing only the person can answer.")
        }
        (ParkReport::UnsafeGap, _) => {
            out.line("No park: the model's question failed the safety gate; nobody is asked.")
        }
        (ParkReport::Parked { .. }, None) => {}
    }
    Ok(message.unwrap_or_default())
}

/// `question-block render`: the message as a person sees it, the prose and
/// then the numbered questions, refs never shown; any other body as its
/// plain text (a client never shows a block it cannot read).
pub(crate) fn render(file: Option<&Path>, out: Out) -> Result<(), Failure> {
    let body = read_input(file.unwrap_or(Path::new("-")))?;
    match parse_question_message(&body) {
        Some(parsed) => {
            out.json(&parsed);
            out.line(parsed.prose.trim_end());
            out.line("");
            for (n, question) in parsed.block.questions.iter().enumerate() {
                out.line(format!("{}. {}", n + 1, question.prompt));
            }
        }
        None => {
            out.json(&serde_json::json!({ "prose": body, "block": null }));
            out.line(body.trim_end());
        }
    }
    Ok(())
}

/// One `--answer N=TEXT`, N counting questions from 1.
pub(crate) fn parse_answer(text: &str) -> Result<(usize, String), String> {
    let (number, answer) = text
        .split_once('=')
        .ok_or("an answer is N=TEXT, N the question's number")?;
    let number: usize = number
        .trim()
        .parse()
        .map_err(|_| format!("{number:?} is not a question number"))?;
    if number == 0 {
        return Err("questions are numbered from 1".to_owned());
    }
    if answer.trim().is_empty() {
        return Err(format!("the answer to question {number} is empty"));
    }
    Ok((number - 1, answer.trim().to_owned()))
}

/// `negotiation answer`: deliver the answers and say what each did.
pub(crate) async fn answer(
    session: &Session,
    user: &UserId,
    message: Option<&Path>,
    answers: &[(usize, String)],
) -> Result<DeliveryReport, Failure> {
    let body = read_input(message.unwrap_or(Path::new("-")))?;
    let parsed = parse_question_message(&body).ok_or_else(|| {
        Failure::NotAMessage("not a question message: nothing to answer".to_owned())
    })?;
    let report = deliver_answers(session.negotiations.store(), user, &parsed.block, answers).await;
    let out = session.out;
    out.json(&report);
    for line in &report.negotiations {
        let (style, said) = match &line.outcome {
            RefOutcome::Resumed => (GOOD, format!("resumed: {user} moves first")),
            RefOutcome::Recovered => (
                GOOD,
                "resumed (the answer was already on record)".to_owned(),
            ),
            RefOutcome::Recorded => (
                NOTE,
                "answer recorded; a seat had already resumed".to_owned(),
            ),
            RefOutcome::NotWaiting => (DIM, format!("skipped: not waiting on {user}'s answer")),
            RefOutcome::Unknown => (
                NOTE,
                "skipped: no negotiation of yours has this id".to_owned(),
            ),
            RefOutcome::Failed { reason } => (NOTE, format!("failed: {reason}")),
            _ => (DIM, "skipped".to_owned()),
        };
        out.line(format!(
            "question {}  {}  {}",
            line.question + 1,
            styled(BOLD, &line.opportunity_id),
            styled(style, said)
        ));
    }
    for n in &report.duplicates {
        out.line(styled(
            DIM,
            format!(
                "question {}: a second answer, ignored (the first was kept)",
                n + 1
            ),
        ));
    }
    for n in &report.unknown_questions {
        out.line(styled(
            NOTE,
            format!("question {}: the message has no such question", n + 1),
        ));
    }
    Ok(report)
}
