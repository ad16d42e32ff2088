//! The store contract, implemented with one transaction per operation.

use async_trait::async_trait;
use rusqlite::{Connection, ErrorCode, Transaction, params};

use index_negotiation::{
    AnswerDecision, AnswerPermitted, AskUserTurn, Decision, NegotiationDecision,
    NegotiationMessage, NegotiationOutcome, NegotiationRejection, NegotiationResumeDecision,
    NegotiationState, NegotiationTurn, ParkDecision, ParkPermitted, ResumePermitted, TurnPermitted,
};
use index_negotiation_store::sql_rows::{Locked, Turns, message_parts_text};
use index_negotiation_store::{
    Actor, AnswerDecider, AuditStep, AuditWrite, ChangeFeed, CloseReason, Committed, ListFilter,
    NegotiationPage, NegotiationStore, NegotiationSummary, OpenNegotiation, OpportunityId,
    ParkDecider, RecordStatus, ResumeDecider, StoreError, TurnDecider, TurnEnd, UnixTime, UserId,
};

use crate::SqliteStore;
use crate::error::sql_error;
use crate::rows;
use crate::tx::{begin_write, execute};

/// The negotiation as a commit decides on it, read in `tx` (which holds
/// the write lock), or `None` when there is none.
fn locked_state(tx: &Transaction<'_>, id: &OpportunityId) -> Result<Option<Locked>, StoreError> {
    rows::find(tx, id)?
        .map(|stored| rows::locked(tx, stored))
        .transpose()
}

/// Reads the negotiation's state in one read transaction, so the row and
/// its turns agree.
fn read_state(
    conn: &mut Connection,
    id: &OpportunityId,
    which: Turns,
) -> Result<Option<NegotiationState>, StoreError> {
    let tx = conn.transaction().map_err(sql_error)?;
    let state = rows::find(&tx, id)?
        .map(|stored| rows::read_state(&tx, stored, which))
        .transpose()?
        .map(|(_, state)| state);
    tx.commit().map_err(sql_error)?;
    Ok(state)
}

/// The assignment that raises a row's `last_change` past every other
/// row's, part of every statement that changes the row: listings put it
/// first. (A literal, so each statement stays one constant.)
macro_rules! raise_last_change {
    () => {
        "last_change = (SELECT max(last_change) + 1 FROM negotiations)"
    };
}

/// What a commit's `apply` does with a permitted decision: `None` when it
/// wrote it, or the decision to answer instead, with nothing committed (a
/// turn index already taken is `raced`).
type Applied<T, R> = Result<Option<Decision<T, R>>, StoreError>;

/// One commit, in one `BEGIN IMMEDIATE` transaction: the negotiation locked
/// and read, `decide` asked once, and `apply` run on a permitted decision
/// with what was locked, then `audit` appended; the transaction commits
/// only then. An applied commit hands back the negotiation as it left it,
/// which `after` makes from what the commit decided on: nothing is read
/// after the write.
fn commit_decided<'a, T, R>(
    conn: &mut Connection,
    id: &OpportunityId,
    audit: impl FnOnce(&T) -> AuditWrite<'a>,
    decide: impl FnOnce(Option<&NegotiationState>) -> Decision<T, R>,
    apply: impl FnOnce(&Transaction<'_>, &Locked, &T) -> Applied<T, R>,
    after: impl FnOnce(&Locked, &T) -> Committed,
) -> Result<(Decision<T, R>, Option<Committed>), StoreError> {
    let tx = begin_write(conn)?;
    let Some(locked) = locked_state(&tx, id)? else {
        return Ok((decide(None), None));
    };
    let decision = decide(Some(&locked.state));
    let Decision::Permitted(permitted) = &decision else {
        return Ok((decision, None));
    };
    if let Some(instead) = apply(&tx, &locked, permitted)? {
        return Ok((instead, None));
    }
    append_audit(&tx, audit(permitted))?;
    tx.commit().map_err(sql_error)?;
    let after = after(&locked, permitted);
    Ok((decision, Some(after)))
}

/// A turn's commit.
fn commit_turn(
    conn: &mut Connection,
    id: &OpportunityId,
    user_id: &UserId,
    turn: &NegotiationTurn,
    actor: &Actor,
    decide: TurnDecider,
) -> Result<(NegotiationDecision, Option<Committed>), StoreError> {
    let audit = |permitted: &TurnPermitted| {
        AuditWrite::turn(id, user_id, turn, TurnEnd::of(permitted), actor)
    };
    let decide = |state: Option<&_>| decide(state, user_id, turn);
    let apply = |tx: &Transaction<'_>, locked: &Locked, permitted: &TurnPermitted| {
        let seq = locked.seq;
        let index = i64::try_from(permitted.turn_index).unwrap_or(i64::MAX);
        let inserted = execute(
            tx,
            "INSERT INTO turns (negotiation_seq, turn_index, seat_user_id, action, message) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                seq,
                index,
                user_id.as_str(),
                turn.action.as_str(),
                turn.message
            ],
        );
        match inserted {
            Err(err) if is_constraint_violation(&err) => {
                return Ok(Some(Decision::Refused(NegotiationRejection::Raced)));
            }
            other => other.map_err(sql_error)?,
        };
        // The round marks move on when the turn ends a round (every
        // right-hand side reads the row before the update).
        execute(tx, concat!("UPDATE negotiations SET awaiting_user_id = ?1, outcome = coalesce(?2, outcome), \
             settled = CASE WHEN ?2 IS NULL THEN settled ELSE 1 END, status = ?3, turn_count = ?5 + 1, \
             window_start = CASE WHEN ?6 THEN round_start ELSE window_start END, \
             round_start = CASE WHEN ?6 THEN ?5 + 1 ELSE round_start END, ", raise_last_change!(), " WHERE seq = ?4"),
            params![
                permitted.awaiting_user_id.as_ref().map(UserId::as_str),
                permitted.outcome.map(NegotiationOutcome::as_str),
                RecordStatus::from(permitted.opportunity_status).as_str(),
                seq,
                index,
                permitted.round_ended.is_some()
            ],
        )
        .map_err(sql_error)?;
        Ok(None)
    };
    commit_decided(conn, id, audit, decide, apply, |locked, permitted| {
        Committed::after_turn(&locked.summary, &locked.state, user_id, turn, permitted)
    })
}

/// A resume's commit.
fn commit_resume(
    conn: &mut Connection,
    id: &OpportunityId,
    user_id: &UserId,
    actor: &Actor,
    decide: ResumeDecider,
) -> Result<(NegotiationResumeDecision, Option<Committed>), StoreError> {
    let audit = |_: &_| AuditWrite::by_seat(AuditStep::Resumed, id, user_id, actor);
    let decide = |state: Option<&_>| decide(state, user_id);
    let apply = |tx: &Transaction<'_>, locked: &Locked, permitted: &ResumePermitted| {
        execute(
            tx,
            concat!(
                "UPDATE negotiations SET awaiting_user_id = ?1, ",
                raise_last_change!(),
                " WHERE seq = ?2"
            ),
            params![permitted.awaiting_user_id.as_str(), locked.seq],
        )
        .map_err(sql_error)?;
        Ok(None)
    };
    commit_decided(conn, id, audit, decide, apply, |locked, permitted| {
        Committed::after_resume(&locked.summary, &locked.state, permitted)
    })
}

/// A park's commit: the park turn recorded as `user_id`'s agent's message,
/// and the question kept as JSON text beside the counted ask round.
fn commit_park(
    conn: &mut Connection,
    id: &OpportunityId,
    user_id: &UserId,
    turn: &AskUserTurn,
    actor: &Actor,
    decide: ParkDecider,
) -> Result<(ParkDecision, Option<Committed>), StoreError> {
    let message = turn.to_message(user_id);
    let parts = message_parts_text(&message)?;
    let asked = serde_json::to_value(&turn.ask_user.question).map_err(StoreError::backend)?;
    let question = asked.to_string();
    let audit = |_: &_| AuditWrite::parked(id, user_id, &asked, actor);
    let decide = |state: Option<&_>| decide(state, user_id);
    let apply = |tx: &Transaction<'_>, locked: &Locked, permitted: &ParkPermitted| {
        append(tx, locked.seq, &message.sender_id, &parts)?;
        execute(
            tx,
            concat!(
                "UPDATE negotiations SET ask_rounds = ?1, park_user_id = ?2, park_question = ?3, \
             park_answer = NULL, ",
                raise_last_change!(),
                " WHERE seq = ?4"
            ),
            params![
                i64::try_from(permitted.ask_rounds).unwrap_or(i64::MAX),
                user_id.as_str(),
                question,
                locked.seq
            ],
        )
        .map_err(sql_error)?;
        Ok(None)
    };
    commit_decided(conn, id, audit, decide, apply, |locked, permitted| {
        let question = &turn.ask_user.question;
        Committed::after_park(&locked.summary, &locked.state, user_id, question, permitted)
    })
}

/// An answer's commit: the answer recorded as the person's message and
/// the park answered, with the resume, in the one transaction.
fn commit_answer(
    conn: &mut Connection,
    id: &OpportunityId,
    user_id: &UserId,
    answer: &str,
    actor: &Actor,
    decide: AnswerDecider,
) -> Result<(AnswerDecision, Option<Committed>), StoreError> {
    let audit = |_: &_| AuditWrite::by_seat(AuditStep::Answered, id, user_id, actor);
    let decide = |state: Option<&_>| decide(state, user_id, answer);
    let apply = |tx: &Transaction<'_>, locked: &Locked, permitted: &AnswerPermitted| {
        let message = locked.answer_message(user_id, permitted);
        append(
            tx,
            locked.seq,
            &message.sender_id,
            &message_parts_text(&message)?,
        )?;
        execute(
            tx,
            concat!(
                "UPDATE negotiations SET park_answer = ?1, awaiting_user_id = ?2, ",
                raise_last_change!(),
                " WHERE seq = ?3"
            ),
            params![
                permitted.answer,
                permitted.awaiting_user_id.as_str(),
                locked.seq
            ],
        )
        .map_err(sql_error)?;
        Ok(None)
    };
    commit_decided(conn, id, audit, decide, apply, |locked, permitted| {
        Committed::after_answer(&locked.summary, &locked.state, permitted)
    })
}

/// Appends a message at the end of the negotiation's record.
fn append(tx: &Transaction<'_>, seq: i64, sender_id: &str, parts: &str) -> Result<(), StoreError> {
    execute(
        tx,
        "INSERT INTO messages (negotiation_seq, position, sender_id, parts) VALUES (?1, \
         (SELECT coalesce(max(position) + 1, 0) FROM messages WHERE negotiation_seq = ?1), ?2, ?3)",
        params![seq, sender_id, parts],
    )
    .map_err(sql_error)?;
    Ok(())
}

/// Appends `write` to the audit record, in the transaction of the step it
/// records, and queues its event for every endpoint that wants it (see
/// `webhooks`).
pub(crate) fn append_audit(tx: &Connection, write: AuditWrite<'_>) -> Result<(), StoreError> {
    let at = UnixTime::now();
    execute(
        tx,
        "INSERT INTO audit (at, step, negotiation_id, user_id, detail, actor_kind, key_id, request_id) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            at.to_stored(),
            write.step.as_str(),
            write.negotiation.map(OpportunityId::as_str),
            write.user.map(UserId::as_str),
            write.detail,
            write.actor.kind().as_str(),
            write.actor.key_id(),
            write.actor.request_id()
        ],
    )
    .map_err(sql_error)?;
    // Most stores have no endpoint: one cheap look spares every commit
    // the event's body.
    if crate::webhooks::any_endpoint(tx)?
        && let Some(event) = write.event(at)
    {
        crate::webhooks::queue(tx, tx.last_insert_rowid(), at, &event)?;
    }
    Ok(())
}

fn is_constraint_violation(err: &rusqlite::Error) -> bool {
    matches!(err, rusqlite::Error::SqliteFailure(failure, _) if failure.code == ErrorCode::ConstraintViolation)
}

#[async_trait]
impl NegotiationStore for SqliteStore {
    async fn read_negotiation_state(
        &self,
        id: &OpportunityId,
    ) -> Result<Option<NegotiationState>, StoreError> {
        let id = id.clone();
        self.pool
            .run(move |conn| read_state(conn, &id, Turns::All))
            .await
    }

    async fn read_negotiation_round(
        &self,
        id: &OpportunityId,
    ) -> Result<Option<NegotiationState>, StoreError> {
        let id = id.clone();
        self.pool
            .run(move |conn| read_state(conn, &id, Turns::Round))
            .await
    }

    async fn commit_turn(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        turn: &NegotiationTurn,
        actor: &Actor,
        decide: TurnDecider,
    ) -> Result<(NegotiationDecision, Option<Committed>), StoreError> {
        let (id, user_id, turn, actor) = (id.clone(), user_id.clone(), turn.clone(), actor.clone());
        self.pool
            .run_write(move |conn| commit_turn(conn, &id, &user_id, &turn, &actor, decide))
            .await
    }

    async fn commit_resume(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        actor: &Actor,
        decide: ResumeDecider,
    ) -> Result<(NegotiationResumeDecision, Option<Committed>), StoreError> {
        let (id, user_id, actor) = (id.clone(), user_id.clone(), actor.clone());
        self.pool
            .run_write(move |conn| commit_resume(conn, &id, &user_id, &actor, decide))
            .await
    }

    async fn commit_park(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        turn: &AskUserTurn,
        actor: &Actor,
        decide: ParkDecider,
    ) -> Result<(ParkDecision, Option<Committed>), StoreError> {
        let (id, user_id, turn, actor) = (id.clone(), user_id.clone(), turn.clone(), actor.clone());
        self.pool
            .run_write(move |conn| commit_park(conn, &id, &user_id, &turn, &actor, decide))
            .await
    }

    async fn commit_answer(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        answer: &str,
        actor: &Actor,
        decide: AnswerDecider,
    ) -> Result<(AnswerDecision, Option<Committed>), StoreError> {
        let (id, user_id, answer, actor) = (
            id.clone(),
            user_id.clone(),
            answer.to_owned(),
            actor.clone(),
        );
        self.pool
            .run_write(move |conn| commit_answer(conn, &id, &user_id, &answer, &actor, decide))
            .await
    }

    async fn insert_negotiation(
        &self,
        negotiation: &OpenNegotiation,
        actor: &Actor,
    ) -> Result<bool, StoreError> {
        let (negotiation, actor) = (negotiation.clone(), actor.clone());
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                let inserted = execute(&tx, "INSERT INTO negotiations (id, initiator_user_id, initiator_intent_id, responder_user_id, \
                         responder_intent_id, awaiting_user_id, last_change) VALUES (?1, ?2, ?3, ?4, ?5, ?2, \
                         (SELECT coalesce(max(last_change), 0) + 1 FROM negotiations)) \
                         ON CONFLICT (id) DO NOTHING",
                        params![
                            negotiation.opportunity_id.as_str(),
                            negotiation.initiator.user_id.as_str(),
                            negotiation.initiator.intent_id.as_str(),
                            negotiation.responder.user_id.as_str(),
                            negotiation.responder.intent_id.as_str(),
                        ],
                    )
                    .map_err(sql_error)?;
                if inserted == 1 {
                    append_audit(&tx, AuditWrite::opened(&negotiation, &actor))?;
                }
                tx.commit().map_err(sql_error)?;
                Ok(inserted == 1)
            })
            .await
    }

    async fn set_seat_eligibility(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        eligible: bool,
    ) -> Result<bool, StoreError> {
        let (id, user_id) = (id.clone(), user_id.clone());
        self.pool
            .run_write(move |conn| {
                let updated = execute(conn, concat!("UPDATE negotiations SET \
                         initiator_eligible = CASE WHEN initiator_user_id = ?1 THEN ?2 ELSE initiator_eligible END, \
                         responder_eligible = CASE WHEN responder_user_id = ?1 THEN ?2 ELSE responder_eligible END, ",
                         raise_last_change!(), " WHERE id = ?3 AND (initiator_user_id = ?1 OR responder_user_id = ?1)"),
                        params![user_id.as_str(), eligible, id.as_str()],
                    )
                    .map_err(sql_error)?;
                Ok(updated == 1)
            })
            .await
    }

    async fn close_negotiation(
        &self,
        id: &OpportunityId,
        reason: CloseReason,
        actor: &Actor,
    ) -> Result<Option<NegotiationSummary>, StoreError> {
        let (id, actor) = (id.clone(), actor.clone());
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                let closed = execute(&tx, concat!("UPDATE negotiations SET outcome = CASE WHEN settled THEN outcome ELSE ?1 END, settled = 1, \
                     awaiting_user_id = NULL, status = ?2, ", raise_last_change!(), " WHERE id = ?3"),
                    params![
                        NegotiationOutcome::Closed.as_str(),
                        reason.status().as_str(),
                        id.as_str()
                    ],
                )
                .map_err(sql_error)?;
                if closed == 1 {
                    append_audit(&tx, AuditWrite::closed(&id, reason, &actor))?;
                }
                let summary = rows::find(&tx, &id)?.map(|stored| stored.summary);
                tx.commit().map_err(sql_error)?;
                Ok(summary)
            })
            .await
    }

    async fn get_negotiation(
        &self,
        id: &OpportunityId,
    ) -> Result<Option<NegotiationSummary>, StoreError> {
        let id = id.clone();
        self.pool
            .run(move |conn| Ok(rows::find(conn, &id)?.map(|stored| stored.summary)))
            .await
    }

    async fn list_negotiations(
        &self,
        user_id: &UserId,
        filter: &ListFilter,
    ) -> Result<NegotiationPage, StoreError> {
        let (user_id, filter) = (user_id.clone(), filter.clone());
        self.pool
            .run(move |conn| rows::page_of_user(conn, &user_id, &filter))
            .await
    }

    async fn list_messages(
        &self,
        id: &OpportunityId,
    ) -> Result<Vec<NegotiationMessage>, StoreError> {
        let id = id.clone();
        self.pool
            .run(move |conn| {
                let tx = conn.transaction().map_err(sql_error)?;
                let messages = match rows::find(&tx, &id)? {
                    None => Vec::new(),
                    Some(stored) => rows::messages(&tx, stored.seq)?,
                };
                tx.commit().map_err(sql_error)?;
                Ok(messages)
            })
            .await
    }

    /// Watches `PRAGMA data_version` on a connection of its own, which
    /// changes whenever any other connection (in this process or another)
    /// commits to the file: one cheap read every 50 ms, never a read of a
    /// negotiation. The watching thread ends when the feed is dropped.
    async fn change_feed(&self) -> Result<Option<ChangeFeed>, StoreError> {
        let conn = self.pool.reader()?;
        let version = |conn: &Connection| -> rusqlite::Result<i64> {
            conn.pragma_query_value(None, "data_version", |row| row.get(0))
        };
        let mut seen = version(&conn).map_err(sql_error)?;
        let (wake, feed) = tokio::sync::mpsc::channel(1);
        std::thread::Builder::new()
            .name("index-sqlite-changes".to_owned())
            .spawn(move || {
                loop {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    if wake.is_closed() {
                        return;
                    }
                    match version(&conn) {
                        Ok(now) if now != seen => {
                            seen = now;
                            // Full means a wake is already pending: coalesced.
                            if let Err(tokio::sync::mpsc::error::TrySendError::Closed(())) =
                                wake.try_send(())
                            {
                                return;
                            }
                        }
                        Ok(_) => {}
                        // The feed closes; waiters fall back to their deadlines.
                        Err(_) => return,
                    }
                }
            })
            .map_err(StoreError::backend)?;
        Ok(Some(feed))
    }
}
