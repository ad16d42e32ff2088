//! Reading rows back into the store's types.

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use index_negotiation::{
    NegotiationAction, NegotiationMessage, NegotiationOutcome, NegotiationState, SeatTurn,
};
use index_negotiation_store::{
    ListFilter, NegotiationSummary, OpportunityId, RecordStatus, Seat, StateFilter, StoreError,
    UserId, message_from_text, stored_id, stored_state,
};

/// PostgreSQL's errors as storage errors.
pub(crate) fn pg_error(err: tokio_postgres::Error) -> StoreError {
    StoreError::backend(ServerError::from(err))
}

/// The pool's failures: the database's own where there is one.
pub(crate) fn pool_error(err: deadpool_postgres::PoolError) -> StoreError {
    match err {
        deadpool_postgres::PoolError::Backend(err) => pg_error(err),
        other => StoreError::backend(other),
    }
}

/// A PostgreSQL failure that reads as what went wrong. `tokio_postgres`
/// shows only "db error" or "error connecting to server" and keeps the
/// reason in its source chain; this shows the server's severity, SQLSTATE
/// and message (or the connection's whole chain of causes) in one line. The
/// driver never puts the connection's password in an error, and neither
/// does this.
#[derive(Debug)]
pub struct ServerError {
    message: String,
    error: tokio_postgres::Error,
}

impl ServerError {
    /// The SQLSTATE the server sent, if the failure came from the server.
    pub fn code(&self) -> Option<&tokio_postgres::error::SqlState> {
        self.error.code()
    }

    /// Whether trying again on a fresh connection may succeed: a
    /// serialization failure, a deadlock, or a connection that was closed
    /// (a pooled one the server dropped, say).
    pub(crate) fn is_transient(&self) -> bool {
        use tokio_postgres::error::SqlState;
        // Class 57P: the server shut the connection down (an administrator,
        // a crash, a restart); class 08: the connection failed.
        self.error.is_closed()
            || matches!(self.code(), Some(code) if *code == SqlState::T_R_SERIALIZATION_FAILURE
                || *code == SqlState::T_R_DEADLOCK_DETECTED
                || code.code().starts_with("57P")
                || code.code().starts_with("08"))
    }
}

impl From<tokio_postgres::Error> for ServerError {
    fn from(error: tokio_postgres::Error) -> Self {
        let message = match error.as_db_error() {
            Some(db) => {
                let mut message = format!(
                    "{} (SQLSTATE {}): {}",
                    db.severity(),
                    db.code().code(),
                    db.message()
                );
                if let Some(detail) = db.detail() {
                    message.push_str(&format!(" ({detail})"));
                }
                message
            }
            None => {
                let mut message = error.to_string();
                let mut cause = std::error::Error::source(&error);
                while let Some(err) = cause {
                    message.push_str(&format!(": {err}"));
                    cause = err.source();
                }
                message
            }
        };
        ServerError { message, error }
    }
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ServerError {}

/// A `SELECT` of [`summary`]'s columns from `negotiations n`, then
/// `$tail`: a literal, so each statement is a constant the connection
/// prepares once and keeps in its statement cache.
macro_rules! select_summary {
    ($tail:literal) => {
        concat!(
            "SELECT n.seq, n.id, n.initiator_user_id, n.initiator_intent_id, n.responder_user_id, ",
            "n.responder_intent_id, n.awaiting_user_id, n.outcome, n.settled, n.status, ",
            "COALESCE((SELECT bool_and(s.eligible) FROM seats s WHERE s.negotiation_seq = n.seq), true), ",
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
    ask_rounds: i32,
    park: Option<(String, String, Option<String>)>,
}

impl Stored {
    /// The rules' view of the row, given its turns.
    pub(crate) fn state(self, turns: Vec<SeatTurn>) -> Result<NegotiationState, StoreError> {
        stored_state(&self.summary, turns, i64::from(self.ask_rounds), self.park)
    }
}

fn summary(row: &Row) -> Result<Stored, StoreError> {
    let outcome: Option<String> = row.get(7);
    let outcome = match outcome {
        None => None,
        Some(name) => Some(
            NegotiationOutcome::from_name(&name)
                .ok_or_else(|| StoreError::Corrupt(format!("unknown outcome {name:?}")))?,
        ),
    };
    let status: String = row.get(9);
    let status = RecordStatus::from_name(&status)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown status {status:?}")))?;
    let turn_count: i64 = row.get(11);
    let park_user: Option<String> = row.get(13);
    let park_question: Option<String> = row.get(14);
    let park_answer: Option<String> = row.get(15);
    let waiting_on = park_user.clone().filter(|_| park_answer.is_none());
    Ok(Stored {
        seq: row.get(0),
        ask_rounds: row.get(12),
        park: park_user
            .zip(park_question)
            .map(|(user, question)| (user, question, park_answer)),
        summary: NegotiationSummary {
            id: stored_id(row.get(1))?,
            initiator: Seat {
                user_id: stored_id(row.get(2))?,
                intent_id: stored_id(row.get(3))?,
            },
            responder: Seat {
                user_id: stored_id(row.get(4))?,
                intent_id: stored_id(row.get(5))?,
            },
            awaiting_user_id: row.get::<_, Option<String>>(6).map(stored_id).transpose()?,
            outcome,
            settled: row.get(8),
            status,
            eligible: row.get(10),
            turn_count: usize::try_from(turn_count).unwrap_or(0),
            waiting_on: waiting_on.map(stored_id).transpose()?,
        },
    })
}

/// The negotiation `id`, if it exists.
pub(crate) async fn find(
    client: &impl GenericClient,
    id: &OpportunityId,
) -> Result<Option<Stored>, StoreError> {
    find_with(client, select_summary!("WHERE n.id = $1"), id).await
}

/// The negotiation `id`, its row locked `FOR UPDATE` until the transaction
/// ends: the lock and the read in one round trip. Seats are not locked:
/// eligibility changes lock this same row first, so they wait for it.
pub(crate) async fn find_locked(
    client: &impl GenericClient,
    id: &OpportunityId,
) -> Result<Option<Stored>, StoreError> {
    find_with(
        client,
        select_summary!("WHERE n.id = $1 FOR UPDATE OF n"),
        id,
    )
    .await
}

/// The one summary `sql` (a `select_summary!` by id) reads for `id`.
async fn find_with(
    client: &impl GenericClient,
    sql: &'static str,
    id: &OpportunityId,
) -> Result<Option<Stored>, StoreError> {
    let statement = client.prepare_cached(sql).await.map_err(pg_error)?;
    let row = client
        .query_opt(&statement, &[&id.as_str()])
        .await
        .map_err(pg_error)?;
    row.as_ref().map(summary).transpose()
}

/// The negotiations where `user_id` holds a seat and `filter` passes,
/// oldest first, filtered by the database (the seat indexes serve it).
/// The same test as [`ListFilter::matches`], written in SQL.
pub(crate) async fn of_user(
    client: &impl GenericClient,
    user_id: &UserId,
    filter: &ListFilter,
) -> Result<Vec<NegotiationSummary>, StoreError> {
    let statement = client
        .prepare_cached(select_summary!(
            "WHERE (n.initiator_user_id = $1 AND ($2::text IS NULL OR n.initiator_intent_id = $2) \
             OR n.responder_user_id = $1 AND ($2::text IS NULL OR n.responder_intent_id = $2)) \
             AND ($3::boolean IS NULL OR n.settled = $3) ORDER BY n.seq"
        ))
        .await
        .map_err(pg_error)?;
    let settled = filter.state.map(|state| state == StateFilter::Settled);
    let intent = filter.intent_id.as_ref().map(|intent| intent.as_str());
    let rows = client
        .query(&statement, &[&user_id.as_str(), &intent, &settled])
        .await
        .map_err(pg_error)?;
    rows.iter()
        .map(|row| summary(row).map(|stored| stored.summary))
        .collect()
}

/// The negotiation's turns, oldest first. Their indexes must run 0, 1, 2, …
/// without a gap: a log with a hole is reported as corruption rather than
/// read as a shorter log.
pub(crate) async fn turns(
    client: &impl GenericClient,
    seq: i64,
) -> Result<Vec<SeatTurn>, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT turn_index, seat_user_id, action, message FROM turns WHERE negotiation_seq = $1 ORDER BY turn_index",
        )
        .await
        .map_err(pg_error)?;
    let rows = client.query(&statement, &[&seq]).await.map_err(pg_error)?;
    rows.iter()
        .enumerate()
        .map(|(position, row)| {
            let index: i32 = row.get(0);
            if usize::try_from(index).ok() != Some(position) {
                return Err(StoreError::Corrupt(format!(
                    "turn indexes are not dense: turn {position} is stored at index {index}"
                )));
            }
            let action: String = row.get(2);
            Ok(SeatTurn {
                seat_user_id: stored_id(row.get(1))?,
                action: NegotiationAction::from_name(&action)
                    .ok_or_else(|| StoreError::Corrupt(format!("unknown action {action:?}")))?,
                message: row.get(3),
            })
        })
        .collect()
}

pub(crate) async fn messages(
    client: &impl GenericClient,
    seq: i64,
) -> Result<Vec<NegotiationMessage>, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT sender_id, parts FROM messages WHERE negotiation_seq = $1 ORDER BY position",
        )
        .await
        .map_err(pg_error)?;
    let rows = client.query(&statement, &[&seq]).await.map_err(pg_error)?;
    rows.iter()
        .map(|row| {
            let parts: String = row.get(1);
            message_from_text(row.get(0), &parts)
        })
        .collect()
}
