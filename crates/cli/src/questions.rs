//! The question loop on the command line: park a stalled negotiation on a
//! question for its person, render the message as the person sees it, and
//! deliver the person's answers to every negotiation they unblock.

use std::path::Path;
use std::sync::Arc;

use index_negotiation_store::{
    Actor, DeliveryReport, Negotiations, OpportunityId, QuestionLoopSettings, RefOutcome, UserId,
};
use index_question_block::parse_question_message;
use index_stall_gap::{
    ChatMessage, Completion, ModelError, ModelQuestionJudge, ModelStallGapAuthor,
    OpenAiCompatibleModel, OutputSchema, ParkError, ParkOutcome, ParkRequest, StallGapAuthor,
    StructuredModel, judge_output_schema, park_negotiation,
};

use crate::cli::{JudgeArgs, ModelChoice, ParkArgs};
use crate::failure::Failure;
use crate::negotiation::Session;
use crate::output::{BOLD, DIM, GOOD, NOTE, Out, read_input, styled};

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

/// `--model scripted`: a stand-in that answers every call with
/// [`scripted_gap`], so the demo and a first try need no model server (and
/// the shipped tool no test double).
struct CannedModel;

#[async_trait::async_trait]
impl StructuredModel for CannedModel {
    async fn complete(&self, _messages: &[ChatMessage]) -> Result<serde_json::Value, ModelError> {
        Ok(scripted_gap())
    }

    /// The judge, asked about the canned question, finds it safe.
    async fn complete_with_schema(
        &self,
        messages: &[ChatMessage],
        schema: &OutputSchema,
    ) -> Result<Completion, ModelError> {
        let value = if schema.name == judge_output_schema().name {
            serde_json::json!({"verdict": "safe", "reason": "none"})
        } else {
            self.complete(messages).await?
        };
        Ok(Completion { value, usage: None })
    }
}

/// The author a command parks with: `model`, and behind the gate's rules
/// the judge `judge` asks for, on the same model.
pub(crate) fn author(
    model: Arc<dyn StructuredModel>,
    judge: &JudgeArgs,
) -> Arc<dyn StallGapAuthor> {
    let author = ModelStallGapAuthor::new(model.clone());
    Arc::new(if judge.gate_judge {
        author.with_judge(Arc::new(ModelQuestionJudge::new(
            model,
            judge.gate_judge_on_failure.into(),
        )))
    } else {
        author
    })
}

pub(crate) fn model(choice: ModelChoice) -> Result<Arc<dyn StructuredModel>, Failure> {
    match choice {
        ModelChoice::Scripted => Ok(Arc::new(CannedModel)),
        ModelChoice::Openai => match OpenAiCompatibleModel::from_env() {
            Ok(Some(model)) => Ok(Arc::new(model)),
            Ok(None) => Err(Failure::Usage(
                "no model: set INDEX_MODEL_BASE_URL and INDEX_MODEL (and INDEX_MODEL_API_KEY if the server wants one), or pass --model scripted".to_owned(),
            )),
            Err(err) => Err(Failure::Usage(
                index_negotiation_store::ErrorChain(&err).to_string(),
            )),
        },
    }
}

/// The question loop's settings for one command: `--ask-rounds-cap`, else
/// `NEGOTIATION_ASK_ROUNDS_CAP` as the reference reads it, read once here.
pub(crate) fn question_loop_settings(ask_rounds_cap: Option<u32>) -> QuestionLoopSettings {
    QuestionLoopSettings {
        ask_rounds_cap: ask_rounds_cap
            .map_or_else(index_negotiation::negotiation_ask_rounds_cap, |cap| {
                usize::try_from(cap).unwrap_or(usize::MAX)
            }),
    }
}

/// `negotiation park`: classify the end, author the gap, gate it, park.
/// In text mode the question message, when it parked, is all that goes to
/// standard output (so `park > question.txt` is the message to send), and
/// what happened goes to standard error. A model that failed is a failure
/// (exit 5) after its report.
pub(crate) async fn park(
    session: &Session,
    id: &OpportunityId,
    user: &UserId,
    args: ParkArgs,
) -> Result<String, Failure> {
    crate::logging::init_logging("warn");
    let author = author(model(args.model)?, &args.judge);
    let mut request = ParkRequest::default();
    request.name = args.name;
    request.signal_title = args.signal_title;
    request.signal = args.signal;
    request.seed_reasoning = args.seed_reasoning;
    request.counterparty_name = args.counterparty_name;
    request.network = Some(args.network);
    let negotiations = Negotiations::with_settings(
        session.negotiations.store(),
        question_loop_settings(args.ask_rounds_cap),
    );
    let parked = match park_negotiation(
        &negotiations,
        id,
        user,
        &request,
        &*author,
        &Actor::operator(),
    )
    .await
    {
        Ok(parked) => parked,
        Err(ParkError::NotFound) => return Err(Failure::not_found()),
        Err(ParkError::Store(err)) => return Err(err.into()),
        Err(err) => return Err(Failure::Input(err.to_string())),
    };
    // A park the rules refused at its commit is refused as a turn is.
    if let ParkOutcome::Refused { rejection, .. } = parked.outcome {
        return Err(Failure::refused(rejection));
    }
    let out = session.out;
    out.json(&parked.report());
    match (&parked.outcome, &parked.message) {
        (ParkOutcome::Parked { ask_rounds, .. }, Some(message)) => {
            out.status(styled(
                NOTE,
                format!("Parked (ask round {ask_rounds}); the question message for {user} follows on standard output."),
            ));
            out.line(message);
        }
        (ParkOutcome::AskCapReached { ask_rounds, cap }, _) => out.status(format!(
            "No park: the ask-round budget is spent ({ask_rounds} of {cap}); the stall is final."
        )),
        (ParkOutcome::NoGap { .. }, _) => {
            out.status("No park: the model found nothing only the person can answer.")
        }
        (ParkOutcome::AuthorFailed { failure, .. }, _) => {
            return Err(Failure::Reported(Box::new(Failure::Model(format!(
                "no park: {failure}"
            )))));
        }
        (ParkOutcome::UnsafeGap { .. }, _) => {
            out.status("No park: the model's question failed the safety gate; nobody is asked.")
        }
        (ParkOutcome::SinkFailed { error, .. }, _) => {
            return Err(Failure::Reported(Box::new(Failure::Input(format!(
                "could not record the park: {error}"
            )))));
        }
        _ => out.status("Nothing to ask: the negotiation did not end unconcluded."),
    }
    Ok(parked.message.unwrap_or_default())
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

/// `negotiation answer`: deliver the answers and say what each did.
pub(crate) async fn answer(
    session: &Session,
    user: &UserId,
    message: Option<&Path>,
    answers: &[(usize, String)],
) -> Result<DeliveryReport, Failure> {
    let body = read_input(message.unwrap_or(Path::new("-")))?;
    let parsed = crate::question_block::read_message(&body)?;
    let report = session
        .negotiations
        .deliver_answers(user, &parsed.block, answers, &Actor::operator())
        .await;
    let out = session.out;
    out.json(&report);
    for line in &report.negotiations {
        let (style, said) = match &line.outcome {
            RefOutcome::Resumed => (GOOD, format!("resumed: {user} moves first")),
            RefOutcome::NotWaiting { rejection } => (
                DIM,
                format!("skipped: not waiting on {user}'s answer ({rejection})"),
            ),
            RefOutcome::Refused { rejection } => (
                NOTE,
                format!("refused ({rejection}): {}", rejection.explanation()),
            ),
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
