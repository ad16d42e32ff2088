//! `index demo`: a whole negotiation, step by step, with the command a user
//! would type for each step.

use std::path::PathBuf;

use index_negotiation::NegotiationAction::{self, Accept, Counter, Decline, Propose};
use index_negotiation::{MessagePart, NegotiationMessage, negotiation_ask_rounds_cap};
use index_negotiation_store::{NegotiationStore, OpportunityId, Seat};
use index_question_block::{
    QuestionBlock, QuestionBlockQuestion, parse_question_message, serialize_question_message,
};
use index_stall_gap::{
    ModelStallGapAuthor, NegotiationEnd, ParkContext, ParkOutcome, Scripted, ScriptedModel, Signal,
    TranscriptTurn, park_stalled_negotiation,
};

use crate::database::{Database, Use};
use crate::failure::Failure;
use crate::negotiation::{self, Opening, Session};
use crate::output::{BOLD, COMMAND, DIM, NOTE, Out, styled};
use crate::sink::RecordSink;
use index_negotiation_store_sqlite::Synchronous;

const DANA: &str = "dana";
const SAM: &str = "sam";

fn heading(out: Out, n: usize, text: &str) {
    out.line("");
    out.line(styled(BOLD, format!("{n}. {text}")));
}

fn typed(out: Out, command: &str) {
    out.line(styled(COMMAND, format!("$ {command}")));
}

/// `text` quoted for a POSIX shell, so the printed command can be pasted.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

async fn turn(
    session: &Session,
    id: &OpportunityId,
    who: &str,
    action: NegotiationAction,
    message: &str,
) -> Result<(), Failure> {
    typed(
        session.out,
        &format!(
            "index negotiation turn {id} --as {who} --action {action} --message {}",
            shell_quote(message)
        ),
    );
    negotiation::turn(session, id, &who.into(), action, message.to_owned())
        .await
        .map(|_| ())
}

async fn show(session: &Session, id: &OpportunityId, who: &str) -> Result<(), Failure> {
    typed(
        session.out,
        &format!("index negotiation show {id} --as {who}"),
    );
    negotiation::show(session, id, &who.into(), false).await
}

async fn resume(session: &Session, id: &OpportunityId, who: &str) -> Result<(), Failure> {
    typed(
        session.out,
        &format!("index negotiation resume {id} --as {who}"),
    );
    negotiation::resume(session, id, &who.into()).await
}

/// The gap the scripted model "authors": what a real model, given this
/// transcript, would be expected to ask.
fn scripted_gap() -> serde_json::Value {
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

/// Runs the walk-through on the store at `db`, or on a temporary one.
pub(crate) async fn run(
    db: Option<String>,
    synchronous: Synchronous,
    out: Out,
) -> Result<(), Failure> {
    let scratch = match &db {
        Some(_) => None,
        None => Some(tempdir()?),
    };
    let database = match (db, &scratch) {
        (Some(db), _) => Database::select(Some(db), synchronous)?,
        (None, scratch) => Database::Sqlite(
            scratch
                .as_ref()
                .map(|dir| dir.join("demo.db"))
                .unwrap_or_default(),
            synchronous,
        ),
    };
    let session = Session::open(&database, Use::Create, out).await?;
    out.line(styled(
        BOLD,
        "A negotiation from opening to agreement, on the embedded SQLite store.",
    ));
    out.line(styled(DIM, format!("Store: {}", database.describe())));

    heading(
        out,
        1,
        "Dana's agent opens talks with Sam's about a founding-engineer role",
    );
    let id_text = uuid::Uuid::new_v4().to_string();
    typed(
        out,
        &format!(
            "index negotiation open --initiator {DANA} --initiator-intent hire-founding-engineer --responder {SAM} --responder-intent join-early-startup --opportunity-id {id_text}"
        ),
    );
    let id = negotiation::open(
        &session,
        Opening {
            id: OpportunityId::new(id_text),
            initiator: Seat {
                user_id: DANA.into(),
                intent_id: "hire-founding-engineer".into(),
            },
            responder: Seat {
                user_id: SAM.into(),
                intent_id: "join-early-startup".into(),
            },
        },
    )
    .await?;

    heading(out, 2, "A first round that ends in a decline");
    turn(
        &session,
        &id,
        DANA,
        Propose,
        "Founding engineer role, 150k and 0.5% equity.",
    )
    .await?;
    turn(
        &session,
        &id,
        SAM,
        Counter,
        "The salary works; is the equity negotiable?",
    )
    .await?;
    turn(
        &session,
        &id,
        DANA,
        Decline,
        "Not without checking with Dana first.",
    )
    .await?;
    show(&session, &id, SAM).await?;

    heading(
        out,
        3,
        "Sam's person adds context that bears on the pair, so Sam's agent resumes",
    );
    resume(&session, &id, SAM).await?;

    heading(
        out,
        4,
        "A second round runs to the turn limit without agreement",
    );
    let round: [(&str, NegotiationAction, &str); 12] = [
        (SAM, Propose, "Sam would join at 150k with 2% equity."),
        (DANA, Counter, "Would 1% with a faster vest work?"),
        (SAM, Propose, "1.8% on a three-year vest."),
        (DANA, Counter, "What about a performance top-up instead?"),
        (SAM, Propose, "1.5% plus a top-up after a year."),
        (DANA, Counter, "How large a top-up?"),
        (SAM, Propose, "0.5% more after the first milestone."),
        (DANA, Counter, "Which milestone would count?"),
        (SAM, Propose, "The first paying customer."),
        (DANA, Counter, "Could the base equity start lower?"),
        (SAM, Propose, "1.2% base, 0.5% top-up, three-year vest."),
        (
            DANA,
            Counter,
            "That needs Dana's say on the equity ceiling.",
        ),
    ];
    for (who, action, message) in round {
        turn(&session, &id, who, action, message).await?;
    }

    heading(
        out,
        5,
        "The stall is classified and Dana's agent asks Dana one question",
    );
    let messages = session.negotiations.store().list_messages(&id).await?;
    let end = NegotiationEnd {
        turn_count: 15,
        at_turn_cap: true,
        last_action: Some("counter".into()),
        opportunity_id: Some(id.to_string()),
        source_intent_id: Some("hire-founding-engineer".into()),
        network_id: Some("climate-founders".into()),
        ..NegotiationEnd::default()
    };
    out.line(format!(
        "Stall reason: {}",
        styled(NOTE, end.stall_reason().as_str())
    ));
    let context = ParkContext {
        source_user_id: DANA.into(),
        user_name: "Dana".into(),
        signal: Signal {
            title: "Founding engineer".into(),
            description: "Hire a founding engineer for a climate-data startup".into(),
        },
        seed_reasoning:
            "Sam wants an early-stage climate role and has shipped forecasting systems.".into(),
        transcript: round
            .iter()
            .map(|(_, action, message)| TranscriptTurn {
                action: action.to_string(),
                reasoning: "Working towards terms.".into(),
                message: Some((*message).to_owned()),
            })
            .collect(),
        conversation: None,
        counterparty_name: Some("Sam".into()),
        last_suggested_roles: None,
        messages,
        ask_rounds_cap: negotiation_ask_rounds_cap(),
    };
    out.line(styled(
        DIM,
        "(the host's finalize step does this with its model; here a scripted model stands in, and park_stalled_negotiation runs for real)",
    ));
    let author = ModelStallGapAuthor::new(ScriptedModel::new([Scripted::Value(scripted_gap())]));
    let sink = RecordSink {
        store: session.negotiations.store(),
        id: id.clone(),
    };
    let outcome = park_stalled_negotiation(&end, context, &author, &sink).await;
    let ParkOutcome::Parked {
        gap, ask_rounds, ..
    } = outcome
    else {
        return Err(Failure::Input(format!(
            "the demo expected a park, got {outcome:?}"
        )));
    };
    out.line(format!(
        "Parked (ask round {ask_rounds}); the question passed the safety gate."
    ));
    let block = QuestionBlock::new(vec![QuestionBlockQuestion::new(
        gap.question.prompt.clone(),
        id.as_str(),
    )]);
    let prose = "Sam's agent and I went a full round on equity without landing it.\nOne answer from you and I can pick the negotiation back up.";
    let message =
        serialize_question_message(prose, &block).map_err(|e| Failure::Input(e.to_string()))?;
    out.line("The message Dana receives, with the question block at its end:");
    out.line(styled(DIM, "----"));
    out.line(&message);
    out.line(styled(DIM, "----"));
    let read_back = parse_question_message(&message)
        .ok_or_else(|| Failure::Input("the question message did not read back".into()))?;
    out.line(format!(
        "The client reads it back: {} question, prose intact: {}. The options Dana sees:",
        read_back.block.questions.len(),
        read_back.prose == prose
    ));
    for option in &gap.question.options {
        out.line(format!("  - {}: {}", option.label, option.description));
    }

    heading(
        out,
        6,
        "Dana answers, and Dana's agent resumes with the answer",
    );
    let answer = NegotiationMessage {
        sender_id: format!("user:{DANA}"),
        parts: vec![MessagePart::Text {
            text: "1% to 3%".into(),
        }],
    };
    session
        .negotiations
        .store()
        .append_message(&id, &answer)
        .await?;
    out.line(styled(
        DIM,
        "(answers arrive through the host's chat; the demo records Dana's choice directly)",
    ));
    out.line("Dana picks \"1% to 3%\".");
    typed(out, &format!("index negotiation messages {id}"));
    negotiation::messages(&session, &id).await?;
    resume(&session, &id, DANA).await?;

    heading(out, 7, "A third round ends in agreement");
    turn(
        &session,
        &id,
        DANA,
        Propose,
        "1.5% base plus 0.5% at the first paying customer, three-year vest.",
    )
    .await?;
    turn(&session, &id, SAM, Accept, "Agreed.").await?;
    typed(out, &format!("index negotiation list --as {DANA}"));
    negotiation::list(&session, &DANA.into(), None, None).await?;

    out.line("");
    out.line(styled(
        BOLD,
        "Done: the opportunity is pending, waiting for Dana and Sam to review it.",
    ));
    drop(session);
    if let Some(dir) = scratch {
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(())
}

/// A fresh directory under the system's temporary directory.
fn tempdir() -> Result<PathBuf, Failure> {
    let dir = std::env::temp_dir().join(format!("index-demo-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir)
        .map_err(|err| Failure::Input(format!("could not create {}: {err}", dir.display())))?;
    Ok(dir)
}
