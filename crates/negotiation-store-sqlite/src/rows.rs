//! Reading rows back into the store's types. Anything the schema allows but
//! the types do not (an unknown action, say) is reported as corruption.

use rusqlite::{Connection, OptionalExtension, Row, params};

use index_negotiation::{NegotiationAction, NegotiationMessage, NegotiationOutcome, SeatTurn};
use index_negotiation_store::{
    NegotiationSummary, OpportunityId, RecordStatus, Seat, StoreError, UserId, message_from_text,
};

use crate::sql_error;

/// Columns of [`summary_from_row`], for `FROM negotiations n`.
pub(crate) const SUMMARY_COLUMNS: &str = "n.seq, n.id, n.initiator_user_id, n.initiator_intent_id, \
    n.responder_user_id, n.responder_intent_id, n.initiator_eligible, n.responder_eligible, \
    n.awaiting_user_id, n.outcome, n.settled, n.status, \
    (SELECT count(*) FROM turns t WHERE t.negotiation_seq = n.seq)";

/// A summary and its row's internal key.
pub(crate) struct Stored {
    pub(crate) seq: i64,
    pub(crate) summary: NegotiationSummary,
}

fn summary_from_row(row: &Row<'_>) -> rusqlite::Result<Result<Stored, StoreError>> {
    let initiator_eligible: bool = row.get(6)?;
    let responder_eligible: bool = row.get(7)?;
    let outcome: Option<String> = row.get(9)?;
    let status: String = row.get(11)?;
    let turn_count: i64 = row.get(12)?;
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
    Ok(Ok(Stored {
        seq: row.get(0)?,
        summary: NegotiationSummary {
            id: OpportunityId::new(row.get::<_, String>(1)?),
            initiator: Seat {
                user_id: row.get::<_, String>(2)?.into(),
                intent_id: row.get::<_, String>(3)?.into(),
            },
            responder: Seat {
                user_id: row.get::<_, String>(4)?.into(),
                intent_id: row.get::<_, String>(5)?.into(),
            },
            status,
            awaiting_user_id: row.get::<_, Option<String>>(8)?.map(UserId::from),
            outcome,
            settled: row.get(10)?,
            eligible: initiator_eligible && responder_eligible,
            turn_count: usize::try_from(turn_count).unwrap_or(0),
        },
    }))
}

/// The negotiation `id`, if it exists.
pub(crate) fn find(conn: &Connection, id: &OpportunityId) -> Result<Option<Stored>, StoreError> {
    let sql = format!("SELECT {SUMMARY_COLUMNS} FROM negotiations n WHERE n.id = ?1");
    conn.query_row(&sql, params![id.as_str()], summary_from_row)
        .optional()
        .map_err(sql_error)?
        .transpose()
}

/// Every negotiation where `user_id` holds a seat, oldest first.
pub(crate) fn of_user(
    conn: &Connection,
    user_id: &UserId,
) -> Result<Vec<NegotiationSummary>, StoreError> {
    let sql = format!(
        "SELECT {SUMMARY_COLUMNS} FROM negotiations n \
         WHERE n.initiator_user_id = ?1 OR n.responder_user_id = ?1 ORDER BY n.seq"
    );
    let mut statement = conn.prepare(&sql).map_err(sql_error)?;
    let rows = statement
        .query_map(params![user_id.as_str()], summary_from_row)
        .map_err(sql_error)?;
    rows.map(|row| row.map_err(sql_error)?.map(|stored| stored.summary))
        .collect()
}

/// The negotiation's turns, oldest first.
pub(crate) fn turns(conn: &Connection, seq: i64) -> Result<Vec<SeatTurn>, StoreError> {
    let mut statement = conn
        .prepare_cached(
            "SELECT seat_user_id, action, message FROM turns WHERE negotiation_seq = ?1 ORDER BY turn_index",
        )
        .map_err(sql_error)?;
    let rows = statement
        .query_map(params![seq], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
            ))
        })
        .map_err(sql_error)?;
    rows.map(|row| {
        let (seat_user_id, action, message) = row.map_err(sql_error)?;
        let action = NegotiationAction::from_name(&action)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown action {action:?}")))?;
        Ok(SeatTurn {
            seat_user_id,
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
