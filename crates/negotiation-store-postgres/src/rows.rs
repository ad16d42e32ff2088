//! Reading rows back into the store's types.

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use index_negotiation::{NegotiationMessage, NegotiationOutcome, NegotiationState, SeatTurn};
use index_negotiation_store::{
    ListFilter, NegotiationPage, NegotiationSummary, OpportunityId, RecordStatus, Seat,
    StateFilter, StoreError, UserId, message_from_text, stored_id, stored_state, stored_turns,
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
    ($($tail:expr),+) => {
        concat!(
            "SELECT n.seq, n.id, n.initiator_user_id, n.initiator_intent_id, n.responder_user_id, ",
            "n.responder_intent_id, n.awaiting_user_id, n.outcome, n.settled, n.status, ",
            "COALESCE((SELECT bool_and(s.eligible) FROM seats s WHERE s.negotiation_seq = n.seq), true), ",
            "n.turn_count, n.ask_rounds, n.park_user_id, n.park_question, n.park_answer, ",
            "n.window_start, n.last_change ",
            "FROM negotiations n ",
            $($tail),+
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
    /// Where the previous round starts in the log.
    window_start: i32,
    /// Its place in the store's order of changes.
    last_change: i64,
}

/// Which of a negotiation's turns a read hands the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Turns {
    /// The whole log.
    All,
    /// The log from the previous round's first turn on: all a decision
    /// reads, however long the log.
    Round,
}

impl Stored {
    /// The row's summary and the rules' view of it, with its turns read
    /// through `client`.
    pub(crate) async fn read_state(
        self,
        client: &impl GenericClient,
        which: Turns,
    ) -> Result<(NegotiationSummary, NegotiationState), StoreError> {
        let from = match which {
            Turns::All => 0,
            Turns::Round => self.window_start,
        };
        let turns = turns(client, self.seq, from, self.summary.turn_count).await?;
        let state = stored_state(&self.summary, turns, i64::from(self.ask_rounds), self.park)?;
        Ok((self.summary, state))
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
    let turn_count: i32 = row.get(11);
    let park_user: Option<String> = row.get(13);
    let park_question: Option<String> = row.get(14);
    let park_answer: Option<String> = row.get(15);
    let waiting_on = park_user.clone().filter(|_| park_answer.is_none());
    Ok(Stored {
        seq: row.get(0),
        ask_rounds: row.get(12),
        window_start: row.get(16),
        last_change: row.get(17),
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

/// The seqs of one side's negotiations for a page: those where the user
/// (`$1`) holds the seat `$seat`, below the cursor (`$2`), settled or not
/// (`$3`, NULL for either), with `$4` (NULL for anyone) in the seat
/// `$other`, newest change first, at most `$5` (NULL for all), and `$and`
/// (the intent, when the listing names one). A literal, so the planner
/// uses the seat's index and stops at the page's end.
macro_rules! side {
    ($seat:literal, $other:literal, $and:literal) => {
        concat!(
            "(SELECT seq FROM negotiations WHERE ",
            $seat,
            "_user_id = $1 AND last_change < $2 AND ($3::boolean IS NULL OR settled = $3) \
             AND ($4::text IS NULL OR ",
            $other,
            "_user_id = $4) ",
            $and,
            " ORDER BY last_change DESC LIMIT $5)"
        )
    };
}

/// A page of the negotiations where `user_id` holds a seat and `filter`
/// passes, newest change first: each seat's side read through its own
/// index, then merged. The same test as [`ListFilter::matches`], written
/// in SQL.
pub(crate) async fn page_of_user(
    client: &impl GenericClient,
    user_id: &UserId,
    filter: &ListFilter,
) -> Result<NegotiationPage, StoreError> {
    let sql = if filter.intent_id.is_some() {
        select_summary!(
            "WHERE n.seq IN (",
            side!("initiator", "responder", "AND initiator_intent_id = $6"),
            " UNION ALL ",
            side!(
                "responder",
                "initiator",
                "AND responder_intent_id = $6 AND initiator_user_id <> $1"
            ),
            ") ORDER BY n.last_change DESC LIMIT $5"
        )
    } else {
        select_summary!(
            "WHERE n.seq IN (",
            side!("initiator", "responder", ""),
            " UNION ALL ",
            side!("responder", "initiator", "AND initiator_user_id <> $1"),
            ") ORDER BY n.last_change DESC LIMIT $5"
        )
    };
    let statement = client.prepare_cached(sql).await.map_err(pg_error)?;
    let below = filter.cursor.map_or(i64::MAX, |cursor| {
        i64::try_from(cursor.change()).unwrap_or(i64::MAX)
    });
    let settled = filter.state.map(|state| state == StateFilter::Settled);
    let other = filter.other_user_id.as_ref().map(UserId::as_str);
    // One more than the page, to know whether another follows.
    let fetch = filter
        .limit
        .map(|limit| i64::try_from(limit).unwrap_or(i64::MAX - 1) + 1);
    let user = user_id.as_str();
    let intent = filter.intent_id.as_ref().map(|intent| intent.as_str());
    let mut bound: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> =
        vec![&user, &below, &settled, &other, &fetch];
    if let Some(intent) = &intent {
        bound.push(intent);
    }
    let rows = client.query(&statement, &bound).await.map_err(pg_error)?;
    let found = rows
        .iter()
        .map(|row| {
            let stored = summary(row)?;
            Ok((
                u64::try_from(stored.last_change).unwrap_or(0),
                stored.summary,
            ))
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    Ok(NegotiationPage::of(found, filter.limit))
}

/// The negotiation's turns from index `from` on, oldest first, of the
/// `count` its row says it has. Their indexes must run `from`, `from + 1`,
/// … up to `count - 1` without a gap: a log with a hole or more or fewer
/// turns than its row counts is reported as corruption rather than read
/// as another log.
async fn turns(
    client: &impl GenericClient,
    seq: i64,
    from: i32,
    count: usize,
) -> Result<Vec<SeatTurn>, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT turn_index, seat_user_id, action, message FROM turns \
             WHERE negotiation_seq = $1 AND turn_index >= $2 ORDER BY turn_index",
        )
        .await
        .map_err(pg_error)?;
    let rows = client
        .query(&statement, &[&seq, &from])
        .await
        .map_err(pg_error)?;
    let turns = rows.iter().map(|row| {
        Ok((
            i64::from(row.get::<_, i32>(0)),
            row.get(1),
            row.get(2),
            row.get(3),
        ))
    });
    stored_turns(usize::try_from(from).unwrap_or(0), count, turns)
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
