//! Reading rows back into the store's types. Anything the schema allows but
//! the types do not (an unknown action, say) is reported as corruption.

use rusqlite::{Connection, OptionalExtension, Row, params};

use index_negotiation::{
    NegotiationAction, NegotiationMessage, NegotiationOutcome, NegotiationState, SeatTurn,
};
use index_negotiation_store::{
    NegotiationSummary, OpportunityId, RecordStatus, Seat, StoreError, UserId, message_from_text,
    stored_id, stored_state,
};

use crate::sql_error;

/// A `SELECT` of [`summary_from_row`]'s columns from `negotiations n`,
/// followed by `$tail`: a literal, so every statement is a constant that
/// SQLite compiles once per connection and the cache keeps.
macro_rules! select_summary {
    ($tail:literal) => {
        concat!(
            "SELECT n.seq, n.id, n.initiator_user_id, n.initiator_intent_id, ",
            "n.responder_user_id, n.responder_intent_id, n.initiator_eligible, n.responder_eligible, ",
            "n.awaiting_user_id, n.outcome, n.settled, n.status, ",
            "(SELECT count(*) FROM turns t WHERE t.negotiation_seq = n.seq), ",
            "n.ask_rounds, n.park_user_id, n.park_question, n.park_answer ",
            "FROM negotiations n ",
            $tail
        )
    };
}

/// A summary and its row's internal key, with the question loop's columns
/// as stored (the question is parsed only when the state is read).
pub(crate) struct Stored {
    pub(crate) seq: i64,
    pub(crate) summary: NegotiationSummary,
    ask_rounds: i64,
    park: Option<(String, String, Option<String>)>,
}

impl Stored {
    /// The rules' view of the row, given its turns.
    pub(crate) fn state(self, turns: Vec<SeatTurn>) -> Result<NegotiationState, StoreError> {
        stored_state(&self.summary, turns, self.ask_rounds, self.park)
    }
}

fn summary_from_row(row: &Row<'_>) -> rusqlite::Result<Result<Stored, StoreError>> {
    let initiator_eligible: bool = row.get(6)?;
    let responder_eligible: bool = row.get(7)?;
    let outcome: Option<String> = row.get(9)?;
    let status: String = row.get(11)?;
    let turn_count: i64 = row.get(12)?;
    let ask_rounds: i64 = row.get(13)?;
    let park_user: Option<String> = row.get(14)?;
    let park_question: Option<String> = row.get(15)?;
    let park_answer: Option<String> = row.get(16)?;
    let waiting_on = park_user.clone().filter(|_| park_answer.is_none());
    let park = park_user
        .zip(park_question)
        .map(|(user, question)| (user, question, park_answer));
    let outcome = match outcome
        .as_deref()
        .map(|name| (name, NegotiationOutcome::from_name(name)))
    {
        None => None,
        Some((_, Some(outcome))) => Some(outcome),
        Some((name, None)) => {
            return Ok(Err(StoreError::Corrupt(format!(
                "unknown outcome {name:?}"
            ))));
        }
    };
    let Some(status) = RecordStatus::from_name(&status) else {
        return Ok(Err(StoreError::Corrupt(format!(
            "unknown status {status:?}"
        ))));
    };
    let text = |index| row.get::<_, String>(index);
    let (id, initiator, initiator_intent, responder, responder_intent) =
        (text(1)?, text(2)?, text(3)?, text(4)?, text(5)?);
    let awaiting: Option<String> = row.get(8)?;
    let seq = row.get(0)?;
    let settled = row.get(10)?;
    let summary = || {
        Ok(NegotiationSummary {
            id: stored_id(id)?,
            initiator: Seat {
                user_id: stored_id(initiator)?,
                intent_id: stored_id(initiator_intent)?,
            },
            responder: Seat {
                user_id: stored_id(responder)?,
                intent_id: stored_id(responder_intent)?,
            },
            status,
            awaiting_user_id: awaiting.map(stored_id).transpose()?,
            outcome,
            settled,
            eligible: initiator_eligible && responder_eligible,
            turn_count: usize::try_from(turn_count).unwrap_or(0),
            waiting_on: waiting_on.map(stored_id).transpose()?,
        })
    };
    Ok(summary().map(|summary| Stored {
        seq,
        summary,
        ask_rounds,
        park,
    }))
}

/// The negotiation `id`, if it exists.
pub(crate) fn find(conn: &Connection, id: &OpportunityId) -> Result<Option<Stored>, StoreError> {
    conn.prepare_cached(select_summary!("WHERE n.id = ?1"))
        .and_then(|mut find| {
            find.query_row(params![id.as_str()], summary_from_row)
                .optional()
        })
        .map_err(sql_error)?
        .transpose()
}

/// Every negotiation where `user_id` holds a seat, oldest first.
pub(crate) fn of_user(
    conn: &Connection,
    user_id: &UserId,
) -> Result<Vec<NegotiationSummary>, StoreError> {
    let mut statement = conn
        .prepare_cached(select_summary!(
            "WHERE n.initiator_user_id = ?1 OR n.responder_user_id = ?1 ORDER BY n.seq"
        ))
        .map_err(sql_error)?;
    let rows = statement
        .query_map(params![user_id.as_str()], summary_from_row)
        .map_err(sql_error)?;
    rows.map(|row| row.map_err(sql_error)?.map(|stored| stored.summary))
        .collect()
}

/// The negotiation's turns, oldest first. Their indexes must run 0, 1, 2, …
/// without a gap: a log with a hole (or, were the key ever dropped, a
/// repeat) is reported as corruption rather than read as a shorter log.
pub(crate) fn turns(conn: &Connection, seq: i64) -> Result<Vec<SeatTurn>, StoreError> {
    let mut statement = conn
        .prepare_cached(
            "SELECT turn_index, seat_user_id, action, message FROM turns WHERE negotiation_seq = ?1 ORDER BY turn_index",
        )
        .map_err(sql_error)?;
    let rows = statement
        .query_map(params![seq], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
            ))
        })
        .map_err(sql_error)?;
    rows.enumerate()
        .map(|(position, row)| {
            let (index, seat_user_id, action, message) = row.map_err(sql_error)?;
            if usize::try_from(index).ok() != Some(position) {
                return Err(StoreError::Corrupt(format!(
                    "turn indexes are not dense: turn {position} is stored at index {index}"
                )));
            }
            let action = NegotiationAction::from_name(&action)
                .ok_or_else(|| StoreError::Corrupt(format!("unknown action {action:?}")))?;
            Ok(SeatTurn {
                seat_user_id: stored_id(seat_user_id)?,
                action,
                message,
            })
        })
        .collect()
}

/// The negotiation's message record, in order.
pub(crate) fn messages(conn: &Connection, seq: i64) -> Result<Vec<NegotiationMessage>, StoreError> {
    let mut statement = conn
        .prepare_cached(
            "SELECT sender_id, parts FROM messages WHERE negotiation_seq = ?1 ORDER BY position",
        )
        .map_err(sql_error)?;
    let rows = statement
        .query_map(params![seq], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })
        .map_err(sql_error)?;
    rows.map(|row| {
        let (sender_id, parts) = row.map_err(sql_error)?;
        message_from_text(sender_id, &parts)
    })
    .collect()
}
