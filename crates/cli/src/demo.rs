//! `index demo`: a whole negotiation, step by step, with the command a user
//! would type for each step; then a second one left parked on a question,
//! so that a kept store gives the person something to answer in the inbox.

use std::path::PathBuf;

use index_negotiation::NegotiationAction::{self, Accept, Counter, Decline, Propose};
use index_negotiation_store::{InvalidId, ListFilter, OpportunityId, Seat};
use index_negotiation_store_sqlite::Synchronous;

use crate::cli::{JudgeArgs, ModelChoice, ParkArgs};
use crate::database::{Database, Use};
use crate::failure::Failure;
use crate::negotiation::{self, Opening, Session};
use crate::output::{BOLD, COMMAND, DIM, Out, styled};
use crate::questions;

const DANA: &str = "dana";
const SAM: &str = "sam";
const LEE: &str = "lee";

/// A user or intent id of the demo, checked as the command line checks one.
fn demo_id<T: TryFrom<String, Error = InvalidId>>(text: &str) -> Result<T, Failure> {
    T::try_from(text.to_owned()).map_err(|invalid| Failure::Usage(invalid.to_string()))
}

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
    negotiation::turn(session, id, &demo_id(who)?, action, message.to_owned())
        .await
        .map(|_| ())
}

async fn show(session: &Session, id: &OpportunityId, who: &str) -> Result<(), Failure> {
    typed(
        session.out,
        &format!("index negotiation show {id} --as {who}"),
    );
    negotiation::show(session, id, &demo_id(who)?, false).await
}

async fn resume(session: &Session, id: &OpportunityId, who: &str) -> Result<(), Failure> {
    typed(
        session.out,
        &format!("index negotiation resume {id} --as {who}"),
    );
    negotiation::resume(session, id, &demo_id(who)?).await
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
    // The store the closing hint names, as a shell reads it: a kept SQLite
    // file's path (a PostgreSQL URL may hold a password, so it is not
    // repeated).
    let kept = match (&scratch, &database) {
        (Some(_), _) => None,
        (None, Database::Sqlite(path, _)) => Some(shell_quote(&path.display().to_string())),
        (None, Database::Postgres(_)) => Some("<the same URL>".to_owned()),
    };
    let purpose = if scratch.is_some() {
        Use::Scratch
    } else {
        Use::Create
    };
    let session = Session::open(&database, purpose, out).await?;
    out.line(styled(
        BOLD,
        "A negotiation from opening to agreement, then one left on a question for the person, on the embedded SQLite store.",
    ));
    out.line(styled(DIM, format!("Store: {}", database.describe())));

    heading(
        out,
        1,
        "Dana's agent opens talks with Sam's about a founding-engineer role",
    );
    let opportunity = negotiation::new_opportunity_id();
    typed(
        out,
        &format!(
            "index negotiation open --initiator {DANA} --initiator-intent hire-founding-engineer --responder {SAM} --responder-intent join-early-startup --opportunity-id {opportunity}"
        ),
    );
    let id = negotiation::open(
        &session,
        Opening {
            id: opportunity,
            initiator: Seat {
                user_id: demo_id(DANA)?,
                intent_id: demo_id("hire-founding-engineer")?,
            },
            responder: Seat {
                user_id: demo_id(SAM)?,
                intent_id: demo_id("join-early-startup")?,
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
    out.line(styled(
        DIM,
        "(a real model answers when INDEX_MODEL_BASE_URL and INDEX_MODEL are set; the demo uses the scripted stand-in, and the park, its gate and its record run for real)",
    ));
    let seed = "Sam wants an early-stage climate role and has shipped forecasting systems.";
    typed(
        out,
        &format!(
            "index negotiation park {id} --as {DANA} --model scripted --name Dana --counterparty-name Sam --seed-reasoning {} > question.txt",
            shell_quote(seed)
        ),
    );
    let message = questions::park(
        &session,
        &id,
        &demo_id(DANA)?,
        ParkArgs {
            id: id.clone(),
            user: demo_id(DANA)?,
            model: ModelChoice::Scripted,
            name: Some("Dana".into()),
            signal_title: Some("Founding engineer".into()),
            signal: Some("Hire a founding engineer for a climate-data startup".into()),
            seed_reasoning: Some(seed.into()),
            counterparty_name: Some("Sam".into()),
            network: "climate-founders".into(),
            ask_rounds_cap: None,
            judge: JudgeArgs::default(),
        },
    )
    .await?;
    if message.is_empty() {
        return Err(Failure::Input("the demo expected a park".into()));
    }
    typed(out, &format!("index negotiation show {id} --as {DANA}"));
    negotiation::show(&session, &id, &demo_id(DANA)?, false).await?;
    out.line("");
    out.line("What Dana's client shows (the block read, its refs kept out of sight):");
    typed(out, "index question-block render question.txt");
    let scratch_message =
        std::env::temp_dir().join(format!("index-demo-question-{}.txt", uuid::Uuid::new_v4()));
    std::fs::write(&scratch_message, &message).map_err(|err| {
        Failure::Input(format!(
            "could not write {}: {err}",
            scratch_message.display()
        ))
    })?;
    questions::render(Some(&scratch_message), out)?;

    heading(
        out,
        6,
        "Dana answers, and the answer resumes the negotiation it unblocks",
    );
    typed(
        out,
        &format!(
            "index negotiation answer --as {DANA} --message question.txt --answer 1='1% to 3%'"
        ),
    );
    let delivered = questions::answer(
        &session,
        &demo_id(DANA)?,
        Some(&scratch_message),
        &[(0, "1% to 3%".to_owned())],
    )
    .await;
    let _ = std::fs::remove_file(&scratch_message);
    if delivered?.resumed().count() != 1 {
        return Err(Failure::Input(
            "the demo expected the answer to resume the negotiation".into(),
        ));
    }
    typed(out, &format!("index negotiation messages {id}"));
    negotiation::messages(&session, &id).await?;

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
    negotiation::list(&session, &demo_id(DANA)?, &ListFilter::default()).await?;

    heading(
        out,
        8,
        "Dana's agent talks with a second candidate, Lee; that round stalls too, and its question is left for Dana",
    );
    let second = negotiation::new_opportunity_id();
    typed(
        out,
        &format!(
            "index negotiation open --initiator {DANA} --initiator-intent hire-founding-engineer --responder {LEE} --responder-intent join-climate-startup --opportunity-id {second}"
        ),
    );
    let second = negotiation::open(
        &session,
        Opening {
            id: second,
            initiator: Seat {
                user_id: demo_id(DANA)?,
                intent_id: demo_id("hire-founding-engineer")?,
            },
            responder: Seat {
                user_id: demo_id(LEE)?,
                intent_id: demo_id("join-climate-startup")?,
            },
        },
    )
    .await?;
    let round: [(&str, NegotiationAction, &str); 12] = [
        (
            DANA,
            Propose,
            "Founding engineer role, 140k and 0.5% equity.",
        ),
        (LEE, Counter, "Is there room on the equity?"),
        (DANA, Propose, "0.8% on a four-year vest."),
        (LEE, Counter, "Could it reach 2%?"),
        (DANA, Propose, "1% with a one-year cliff."),
        (LEE, Counter, "What would move it past 1%?"),
        (
            DANA,
            Propose,
            "1% now and a review after the first customer.",
        ),
        (LEE, Counter, "A review is no commitment."),
        (DANA, Propose, "1.2% on a four-year vest."),
        (LEE, Counter, "Lee would need at least 1.8%."),
        (DANA, Propose, "1.3% and the first-engineer title."),
        (LEE, Counter, "Still short of 1.8%; over to Dana."),
    ];
    for (who, action, message) in round {
        turn(&session, &second, who, action, message).await?;
    }
    typed(
        out,
        &format!(
            "index negotiation park {second} --as {DANA} --model scripted --name Dana --counterparty-name Lee"
        ),
    );
    let left = questions::park(
        &session,
        &second,
        &demo_id(DANA)?,
        ParkArgs {
            id: second.clone(),
            user: demo_id(DANA)?,
            model: ModelChoice::Scripted,
            name: Some("Dana".into()),
            signal_title: Some("Founding engineer".into()),
            signal: Some("Hire a founding engineer for a climate-data startup".into()),
            seed_reasoning: None,
            counterparty_name: Some("Lee".into()),
            network: "climate-founders".into(),
            ask_rounds_cap: None,
            judge: JudgeArgs::default(),
        },
    )
    .await?;
    if left.is_empty() {
        return Err(Failure::Input("the demo expected a second park".into()));
    }
    typed(out, &format!("index negotiation list --as {DANA}"));
    negotiation::list(&session, &demo_id(DANA)?, &ListFilter::default()).await?;

    out.line("");
    out.line(styled(
        BOLD,
        "Done: the first opportunity is pending, waiting for Dana and Sam to review it; the second waits on Dana's answer.",
    ));
    out.line(match &kept {
        Some(db) => format!(
            "Answer it in the inbox: run `index serve --db {db}` and open the link `index keys login-link --user {DANA} --db {db}` prints."
        ),
        None => format!(
            "This store is thrown away; to answer the question in the inbox, keep it with `index demo --db index.db`, then run `index serve` and open the link `index keys login-link --user {DANA}` prints."
        ),
    });
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
