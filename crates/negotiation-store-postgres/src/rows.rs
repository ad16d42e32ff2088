//! Reading rows back into the store's types.

use tokio_postgres::{GenericClient, Row};

use index_negotiation::{NegotiationAction, NegotiationMessage, NegotiationOutcome, SeatTurn};
use index_negotiation_store::{
    NegotiationSummary, OpportunityId, RecordStatus, Seat, StoreError, UserId, message_from_text,
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

/// Columns of [`summary`], for `FROM negotiations n`.
const SUMMARY: &str = "SELECT n.seq, n.id, n.initiator_user_id, n.initiator_intent_id, n.responder_user_id, \
     n.responder_intent_id, n.awaiting_user_id, n.outcome, n.settled, n.status, \
     COALESCE((SELECT bool_and(s.eligible) FROM seats s WHERE s.negotiation_seq = n.seq), true), \
     (SELECT count(*) FROM turns t WHERE t.negotiation_seq = n.seq) \
     FROM negotiations n";

/// A summary and its row's internal key.
pub(crate) struct Stored {
    pub(crate) seq: i64,
    pub(crate) summary: NegotiationSummary,
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
    Ok(Stored {
        seq: row.get(0),
        summary: NegotiationSummary {
            id: OpportunityId::new(row.get::<_, String>(1)),
            initiator: Seat {
                user_id: row.get::<_, String>(2).into(),
                intent_id: row.get::<_, String>(3).into(),
            },
            responder: Seat {
                user_id: row.get::<_, String>(4).into(),
                intent_id: row.get::<_, String>(5).into(),
            },
            awaiting_user_id: row.get::<_, Option<String>>(6).map(UserId::from),
            outcome,
            settled: row.get(8),
            status,
            eligible: row.get(10),
            turn_count: usize::try_from(turn_count).unwrap_or(0),
        },
    })
}

pub(crate) async fn find(
    client: &impl GenericClient,
    id: &OpportunityId,
) -> Result<Option<Stored>, StoreError> {
    let row = client
        .query_opt(&format!("{SUMMARY} WHERE n.id = $1"), &[&id.as_str()])
        .await
        .map_err(pg_error)?;
    row.as_ref().map(summary).transpose()
}

pub(crate) async fn of_user(
    client: &impl GenericClient,
    user_id: &UserId,
) -> Result<Vec<NegotiationSummary>, StoreError> {
    let rows = client
        .query(&format!("{SUMMARY} WHERE n.initiator_user_id = $1 OR n.responder_user_id = $1 ORDER BY n.seq"), &[&user_id.as_str()])
        .await
        .map_err(pg_error)?;
    rows.iter()
        .map(|row| summary(row).map(|stored| stored.summary))
        .collect()
}

pub(crate) async fn turns(
    client: &impl GenericClient,
    seq: i64,
) -> Result<Vec<SeatTurn>, StoreError> {
    let rows = client
        .query("SELECT seat_user_id, action, message FROM turns WHERE negotiation_seq = $1 ORDER BY turn_index", &[&seq])
        .await
        .map_err(pg_error)?;
    rows.iter()
        .map(|row| {
            let action: String = row.get(1);
            Ok(SeatTurn {
                seat_user_id: row.get(0),
                action: NegotiationAction::from_name(&action)
                    .ok_or_else(|| StoreError::Corrupt(format!("unknown action {action:?}")))?,
                message: row.get(2),
            })
        })
        .collect()
}

pub(crate) async fn messages(
    client: &impl GenericClient,
    seq: i64,
) -> Result<Vec<NegotiationMessage>, StoreError> {
    let rows = client
        .query(
            "SELECT sender_id, parts FROM messages WHERE negotiation_seq = $1 ORDER BY position",
            &[&seq],
        )
        .await
        .map_err(pg_error)?;
    rows.iter()
        .map(|row| {
            let parts: String = row.get(1);
            message_from_text(row.get(0), &parts)
        })
        .collect()
}
