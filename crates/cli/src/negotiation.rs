//! `index negotiation`: the negotiation commands, on the chosen store.

use serde::Serialize;

use index_host::Changed;
use index_negotiation::{
    Decision, MessagePart, NegotiationAction, NegotiationMessage, NegotiationRejection,
    NegotiationState, NegotiationTurn, SeatStanding, round_numbers,
};
use index_negotiation_store::{
    Actor, CloseReason, ListFilter, NegotiationStore, NegotiationSummary, Negotiations,
    OpenDecision, OpenNegotiation, OpportunityId, Refusal, Seat, UserId,
};

use crate::cli::OpenArgs;
use crate::database::{Database, Use};
use crate::failure::Failure;
use crate::output::{BOLD, DIM, GOOD, NOTE, Out, styled, table};

/// `open`'s request.
pub(crate) struct Opening {
    pub(crate) id: OpportunityId,
    pub(crate) initiator: Seat,
    pub(crate) responder: Seat,
}

impl From<OpenArgs> for Opening {
    fn from(args: OpenArgs) -> Self {
        Opening {
            id: args.opportunity_id.unwrap_or_else(new_opportunity_id),
            initiator: Seat {
                user_id: args.initiator,
                intent_id: args.initiator_intent,
            },
            responder: Seat {
                user_id: args.responder,
                intent_id: args.responder_intent,
            },
        }
    }
}

/// A fresh opportunity id, for an `open` that names none.
pub(crate) fn new_opportunity_id() -> OpportunityId {
    loop {
        // A v4 UUID is always one; the loop only spares an `expect`.
        if let Ok(id) = OpportunityId::parse(uuid::Uuid::new_v4().to_string()) {
            return id;
        }
    }
}

/// An open store and where output goes.
pub(crate) struct Session {
    pub(crate) negotiations: Negotiations<Box<dyn NegotiationStore>>,
    pub(crate) out: Out,
}

impl Session {
    /// Opens `database` for `purpose`.
    pub(crate) async fn open(database: &Database, purpose: Use, out: Out) -> Result<Self, Failure> {
        // Only the negotiations are needed here, not the keys.
        let store: Box<dyn NegotiationStore> = database.open(purpose).await?;
        Ok(Session {
            negotiations: Negotiations::new(store),
            out,
        })
    }

    fn store(&self) -> &dyn NegotiationStore {
        self.negotiations.store()
    }

    async fn summary(&self, id: &OpportunityId) -> Result<NegotiationSummary, Failure> {
        self.store()
            .get_negotiation(id)
            .await?
            .ok_or_else(Failure::not_found)
    }
}

/// `open`: a new negotiation, the initiator to move.
pub(crate) async fn open(session: &Session, opening: Opening) -> Result<OpportunityId, Failure> {
    let request = OpenNegotiation {
        opportunity_id: opening.id,
        initiator: opening.initiator,
        responder: opening.responder,
        eligible: true,
    };
    let decision = session
        .negotiations
        .open(&request, &Actor::operator())
        .await?;
    match decision {
        OpenDecision::Opened { negotiation } => {
            let changed = Changed { negotiation };
            session.out.json(&changed);
            let negotiation = changed.negotiation;
            session.out.line(format!(
                "Opened negotiation {} between {} and {}. {} moves first.",
                styled(BOLD, &negotiation.id),
                negotiation.initiator.user_id,
                negotiation.responder.user_id,
                negotiation.initiator.user_id
            ));
            Ok(negotiation.id)
        }
        OpenDecision::Refused { rejection } => Err(Failure::refused(rejection)),
    }
}

#[derive(Serialize)]
struct Shown<'a> {
    negotiation: &'a NegotiationSummary,
    state: &'a NegotiationState,
    observation: Seen<'a>,
    /// The question the negotiation waits on, when it is `user`'s own.
    parked: Option<&'a index_negotiation::Park>,
}

/// The observation as `show` prints it, in its own field order, the
/// guidance only when asked for.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Seen<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    guidance: Option<&'static str>,
    available_actions: &'a [index_negotiation::NegotiationAction],
    blocked_reason: Option<index_negotiation::NegotiationRejection>,
    max_turns: usize,
    remaining_turns: usize,
    message_limit: usize,
}

/// `show`: the log and what `user` may do now.
pub(crate) async fn show(
    session: &Session,
    id: &OpportunityId,
    user: &UserId,
    guidance: bool,
) -> Result<(), Failure> {
    // What a seat sees is the store's view's to say; someone without a
    // seat cannot tell the negotiation exists.
    let view = session
        .negotiations
        .view(id, user)
        .await?
        .ok_or_else(Failure::not_found)?;
    let (summary, state, observation) = (&view.summary, &view.state, &view.observation);
    let parked = view.parked();
    if session.out.json {
        session.out.json(&Shown {
            negotiation: summary,
            state,
            observation: Seen {
                guidance: guidance.then_some(observation.guidance),
                available_actions: &observation.available_actions,
                blocked_reason: observation.blocked_reason,
                max_turns: observation.max_turns,
                remaining_turns: observation.remaining_turns,
                message_limit: observation.message_limit,
            },
            parked,
        });
    }
    if session.out.json {
        return Ok(());
    }
    let out = session.out;
    out.line(format!(
        "Negotiation {}  ({})",
        styled(BOLD, &summary.id),
        summary.status.as_str()
    ));
    let width = summary
        .initiator
        .user_id
        .as_str()
        .chars()
        .count()
        .max(summary.responder.user_id.as_str().chars().count());
    for (seat, who) in [
        ("initiator", &summary.initiator),
        ("responder", &summary.responder),
    ] {
        out.line(format!(
            "  {seat}  {:<width$}  (intent {})",
            who.user_id.as_str(),
            who.intent_id
        ));
    }
    out.line("");
    if state.turns.is_empty() {
        out.line(styled(DIM, "  no turns yet"));
    } else {
        let rows: Vec<Vec<String>> = state
            .turns
            .iter()
            .zip(round_numbers(&state.turns))
            .enumerate()
            .map(|(i, (turn, round))| {
                vec![
                    (i + 1).to_string(),
                    round.to_string(),
                    turn.seat_user_id.to_string(),
                    turn.action.to_string(),
                    turn.message.clone(),
                ]
            })
            .collect();
        out.line(table(&["#", "round", "seat", "action", "message"], &rows));
    }
    out.line("");
    let to_move = match (&state.awaiting_user_id, state.settled, state.outcome) {
        (_, true, Some(outcome)) => format!("Settled: {}.", outcome.as_str()),
        (Some(seat), _, _) => format!("{seat} to move."),
        (None, _, _) => match &summary.waiting_on {
            Some(person) => format!("Nobody to move: the negotiation waits on {person}'s answer."),
            None => {
                "Nobody to move: the round has ended; a seat must resume it to go on.".to_owned()
            }
        },
    };
    out.line(styled(BOLD, to_move));
    match observation.blocked_reason {
        Some(reason) => out.line(format!(
            "{user} may not act now: {} ({})",
            reason.explanation(),
            styled(NOTE, reason.as_str())
        )),
        None => out.line(format!(
            "{user} may: {}",
            styled(
                GOOD,
                observation
                    .available_actions
                    .iter()
                    .map(|a| a.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        )),
    }
    // Between rounds, the round the count would describe has not begun.
    if state.awaiting_user_id.is_some() {
        out.line(format!(
            "Turns left in this round: {} of {}",
            observation.remaining_turns, observation.max_turns
        ));
    } else if !state.settled {
        out.line(format!(
            "The next round, once resumed, has {} turns.",
            observation.max_turns
        ));
    }
    if !state.eligible {
        out.line(styled(NOTE, "A seat's intent is inactive."));
    }
    match (parked, &summary.waiting_on) {
        (Some(park), _) => out.line(styled(
            NOTE,
            format!(
                "Waiting on your answer: {} ({})",
                park.question.prompt, park.question.title
            ),
        )),
        (None, Some(other)) => out.line(styled(
            NOTE,
            format!("Waiting on {other}'s answer to a question of theirs."),
        )),
        (None, None) => {}
    }
    if guidance {
        out.line("");
        out.line(styled(BOLD, "Guidance"));
        out.line(observation.guidance);
    }
    Ok(())
}

/// `turn`: one turn, decided and applied in one transaction; a refusal is
/// reported, never retried.
pub(crate) async fn turn(
    session: &Session,
    id: &OpportunityId,
    user: &UserId,
    action: NegotiationAction,
    message: String,
) -> Result<
    Decision<index_negotiation::TurnPermitted, index_negotiation::NegotiationRejection>,
    Failure,
> {
    let turn = NegotiationTurn::new(action, message).normalized();
    let length = index_js::utf16_len(&turn.message);
    let (decision, _) = session
        .negotiations
        .execute(id, user, turn, &Actor::operator())
        .await?;
    match &decision {
        Decision::Permitted(permitted) => {
            session.out.json(&decision);
            let mut line = format!("{user} {action}s (turn {}).", permitted.turn_index + 1);
            match (
                &permitted.awaiting_user_id,
                permitted.round_ended,
                permitted.outcome,
            ) {
                (_, _, Some(_)) => line.push_str(&format!(
                    " {}",
                    styled(GOOD, "Agreed: the opportunity is now pending review.")
                )),
                (_, Some(ended), _) => line.push_str(&format!(
                    " {}",
                    styled(
                        NOTE,
                        format!(
                            "Round ended ({}): nobody to move until a seat resumes.",
                            serde_json::to_value(ended)
                                .ok()
                                .and_then(|v| v.as_str().map(str::to_owned))
                                .unwrap_or_default()
                        )
                    )
                )),
                (Some(next), _, _) => line.push_str(&format!(" {next} to move.")),
                (None, None, None) => {}
            }
            session.out.line(line);
            Ok(decision)
        }
        Decision::Refused(NegotiationRejection::InvalidTurn) => Err(Failure::Refused {
            refusal: Refusal::Turn(NegotiationRejection::InvalidTurn),
            explanation: format!(
                "{} This one is {length} once trimmed.",
                NegotiationRejection::InvalidTurn.explanation()
            ),
        }),
        Decision::Refused(rejection) => Err(Failure::refused(*rejection)),
    }
}

/// `resume`: the resuming seat takes the first turn of a new round.
pub(crate) async fn resume(
    session: &Session,
    id: &OpportunityId,
    user: &UserId,
) -> Result<(), Failure> {
    let (decision, _) = session
        .negotiations
        .resume(id, user, &Actor::operator())
        .await?;
    match &decision {
        Decision::Permitted(permitted) => {
            session.out.json(&decision);
            session.out.line(format!(
                "{} resumed: a new round starts, {} to move.",
                user, permitted.awaiting_user_id
            ));
            Ok(())
        }
        Decision::Refused(rejection) => Err(Failure::refused(*rejection)),
    }
}

/// How a wait ended, under `--json`.
#[derive(Serialize)]
struct Waited<'a> {
    /// Where the negotiation stands for the seat (the rules'
    /// [`SeatStanding`]: `yourMove`, `roundEnded`, `settled` or `parked`),
    /// or `timedOut` when time ran out with the other seat to move.
    ended: &'static str,
    negotiation: &'a NegotiationSummary,
}

/// `wait`: until `user` may act, the negotiation settles or parks, or
/// `timeout` passes; each change the store's feed reports is looked at
/// once. The exit status says which (0, 6, 7, 8).
pub(crate) async fn wait(
    session: &Session,
    id: &OpportunityId,
    user: &UserId,
    timeout: std::time::Duration,
) -> Result<(), Failure> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut feed = session.store().change_feed().await?;
    loop {
        let view = session
            .negotiations
            .view(id, user)
            .await?
            .ok_or_else(Failure::not_found)?;
        let timed_out = tokio::time::Instant::now() >= deadline;
        // Where the negotiation stands is the rules' to say; the sentence
        // and the exit status are this command's, and so is running out
        // of time while the other seat is to move.
        let standing = view.standing;
        let ended = match standing {
            SeatStanding::TheirMove if !timed_out => None,
            SeatStanding::TheirMove => Some(("timedOut", 8, format!("Still not {user}'s move."))),
            SeatStanding::Settled => Some((
                standing.as_str(),
                6,
                "The negotiation is settled.".to_owned(),
            )),
            // The view's summary names whose answer it waits on whenever it
            // stands parked.
            SeatStanding::Parked => Some((
                standing.as_str(),
                7,
                match &view.summary.waiting_on {
                    Some(person) => {
                        format!("The negotiation waits on {person}'s answer to a question.")
                    }
                    None => "The negotiation waits on an answer to a question.".to_owned(),
                },
            )),
            SeatStanding::YourMove => Some((standing.as_str(), 0, format!("{user} to move."))),
            SeatStanding::RoundEnded => Some((
                standing.as_str(),
                0,
                format!("The round has ended: {user} may resume."),
            )),
        };
        if let Some((ended, status, sentence)) = ended {
            session.out.json(&Waited {
                ended,
                negotiation: &view.summary,
            });
            session.out.line(sentence);
            return match status {
                0 => Ok(()),
                status => Err(Failure::Ended(status)),
            };
        }
        // Sleep until something changes, or the deadline; a store without
        // a feed is looked at once more at the deadline.
        match &mut feed {
            Some(changes) => {
                if let Ok(None) = tokio::time::timeout_at(deadline, changes.recv()).await {
                    // The feed stopped watching: fall back to the deadline.
                    feed = None;
                }
            }
            None => tokio::time::sleep_until(deadline).await,
        }
    }
}

/// `list`: a person's negotiations, newest change first, a page when
/// `filter` has a limit.
pub(crate) async fn list(
    session: &Session,
    user: &UserId,
    filter: &ListFilter,
) -> Result<(), Failure> {
    let user = user.clone();
    let page = session.store().list_negotiations(&user, filter).await?;
    session.out.json(&page);
    // The table is the page; where the rest starts goes to stderr, so
    // stdout stays the table alone.
    let more = page
        .next
        .map(|cursor| format!("More after this page: the same command with --cursor {cursor}."));
    let found = page.negotiations;
    if found.is_empty() {
        session
            .out
            .line(styled(DIM, format!("No negotiations for {user}.")));
        return Ok(());
    }
    let rows: Vec<Vec<String>> = found
        .iter()
        .map(|s| {
            let (seat, intent, other) = if s.initiator.user_id == user {
                ("initiator", &s.initiator.intent_id, &s.responder.user_id)
            } else {
                ("responder", &s.responder.intent_id, &s.initiator.user_id)
            };
            let to_move = s
                .awaiting_user_id
                .as_ref()
                .map_or_else(|| "-".to_owned(), ToString::to_string);
            vec![
                s.id.to_string(),
                s.status.as_str().to_owned(),
                seat.to_owned(),
                intent.to_string(),
                other.to_string(),
                s.turn_count.to_string(),
                to_move,
            ]
        })
        .collect();
    session.out.line(table(
        &["id", "status", "seat", "intent", "with", "turns", "to move"],
        &rows,
    ));
    if let Some(more) = more {
        session.out.status(styled(DIM, more));
    }
    Ok(())
}

/// A one-line description of a message for people.
fn describe(message: &NegotiationMessage) -> String {
    message
        .parts
        .iter()
        .map(|part| match part {
            MessagePart::Text { text } => text.clone(),
            MessagePart::Data { data } => {
                let action = data
                    .get("action")
                    .and_then(|a| a.as_str())
                    .unwrap_or("data");
                match data.get("askUser").and_then(|a| a.get("question")) {
                    Some(question) => format!(
                        "{}: {} {}",
                        styled(NOTE, action),
                        question
                            .get("prompt")
                            .and_then(|p| p.as_str())
                            .unwrap_or_default(),
                        styled(
                            DIM,
                            format!(
                                "({} options)",
                                question
                                    .get("options")
                                    .and_then(|o| o.as_array())
                                    .map_or(0, Vec::len)
                            )
                        )
                    ),
                    None => format!(
                        "{}: {}",
                        styled(NOTE, action),
                        serde_json::Value::Object(data.clone())
                    ),
                }
            }
            // A part this tool does not write: shown as the JSON it is.
            MessagePart::Other(value) => value.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

/// `messages`: the negotiation's message record.
pub(crate) async fn messages(session: &Session, id: &OpportunityId) -> Result<(), Failure> {
    session.summary(id).await?;
    let messages = session.store().list_messages(id).await?;
    session.out.json(&messages);
    if messages.is_empty() {
        session.out.line(styled(DIM, "No messages."));
        return Ok(());
    }
    let rows: Vec<Vec<String>> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| vec![(i + 1).to_string(), m.sender_id.clone(), describe(m)])
        .collect();
    session.out.line(table(&["#", "sender", "content"], &rows));
    Ok(())
}

/// `close`: the negotiation closed from outside the rules.
pub(crate) async fn close(
    session: &Session,
    id: &OpportunityId,
    reason: CloseReason,
) -> Result<(), Failure> {
    let closed = session
        .store()
        .close_negotiation(id, reason, &Actor::operator())
        .await?
        .ok_or_else(Failure::not_found)?;
    let closed = Changed {
        negotiation: closed,
    };
    session.out.json(&closed);
    let closed = closed.negotiation;
    session.out.line(format!(
        "Closed {} ({}); nobody may act or resume.",
        styled(BOLD, id),
        closed.status.as_str()
    ));
    Ok(())
}

/// `eligibility`: one seat's intent marked active or not.
pub(crate) async fn eligibility(
    session: &Session,
    id: &OpportunityId,
    user: &UserId,
    eligible: bool,
) -> Result<(), Failure> {
    if !session
        .store()
        .set_seat_eligibility(id, user, eligible)
        .await?
    {
        return Err(Failure::not_found());
    }
    let summary = session.summary(id).await?;
    session.out.json(&Changed {
        negotiation: summary,
    });
    session.out.line(format!(
        "{user}'s intent is {} on {}.",
        if eligible { "active" } else { "inactive" },
        styled(BOLD, id)
    ));
    Ok(())
}
