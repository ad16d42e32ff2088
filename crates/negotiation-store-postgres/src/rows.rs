//! PostgreSQL's rows handed to the shared row kit
//! (`index_negotiation_store::sql_rows`), which reads them back into the
//! store's types; a listing's page in SQL.

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use index_negotiation::{NegotiationMessage, NegotiationState};
use index_negotiation_store::sql_rows::{
    Locked, NegotiationRow, PageQuery, StoredNegotiation, TurnRow, Turns, message_from_text,
};
use index_negotiation_store::{
    ListFilter, NegotiationPage, NegotiationSummary, OpportunityId, StoreError, UserId,
};

use crate::error::pg_error;

/// A `SELECT` of [`negotiation_row`]'s columns from `negotiations n`, then
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

/// The negotiation row `select_summary!` selects, as PostgreSQL hands its
/// columns over (a column of another type is an error, never a panic); the
/// kit checks it.
fn negotiation_row(row: &Row) -> Result<NegotiationRow, StoreError> {
    let turn_count: i32 = row.try_get(11).map_err(pg_error)?;
    let ask_rounds: i32 = row.try_get(12).map_err(pg_error)?;
    let window_start: i32 = row.try_get(16).map_err(pg_error)?;
    Ok(NegotiationRow {
        seq: row.try_get(0).map_err(pg_error)?,
        id: row.try_get(1).map_err(pg_error)?,
        initiator_user_id: row.try_get(2).map_err(pg_error)?,
        initiator_intent_id: row.try_get(3).map_err(pg_error)?,
        responder_user_id: row.try_get(4).map_err(pg_error)?,
        responder_intent_id: row.try_get(5).map_err(pg_error)?,
        awaiting_user_id: row.try_get(6).map_err(pg_error)?,
        outcome: row.try_get(7).map_err(pg_error)?,
        settled: row.try_get(8).map_err(pg_error)?,
        status: row.try_get(9).map_err(pg_error)?,
        eligible: row.try_get(10).map_err(pg_error)?,
        turn_count: i64::from(turn_count),
        ask_rounds: i64::from(ask_rounds),
        park_user_id: row.try_get(13).map_err(pg_error)?,
        park_question: row.try_get(14).map_err(pg_error)?,
        park_answer: row.try_get(15).map_err(pg_error)?,
        window_start: i64::from(window_start),
        last_change: row.try_get(17).map_err(pg_error)?,
    })
}

/// The negotiation's summary and state, with the turns `which` names, all
/// read through `client`.
pub(crate) async fn read_state(
    client: &impl GenericClient,
    stored: StoredNegotiation,
    which: Turns,
) -> Result<(NegotiationSummary, NegotiationState), StoreError> {
    let rows = turns(client, stored.seq, stored.first_turn(which)).await?;
    stored.read_state(which, rows)
}

/// The negotiation as a commit decides on it, read through `client` (the
/// commit's transaction, which holds its row's lock).
pub(crate) async fn locked(
    client: &impl GenericClient,
    stored: StoredNegotiation,
) -> Result<Locked, StoreError> {
    let rows = turns(client, stored.seq, stored.first_turn(Turns::Round)).await?;
    stored.locked(rows)
}

/// The negotiation `id`, if it exists.
pub(crate) async fn find(
    client: &impl GenericClient,
    id: &OpportunityId,
) -> Result<Option<StoredNegotiation>, StoreError> {
    find_with(client, select_summary!("WHERE n.id = $1"), id).await
}

/// The negotiation `id`, its row locked `FOR UPDATE` until the transaction
/// ends: the lock and the read in one round trip. Seats are not locked:
/// eligibility changes lock this same row first, so they wait for it.
pub(crate) async fn find_locked(
    client: &impl GenericClient,
    id: &OpportunityId,
) -> Result<Option<StoredNegotiation>, StoreError> {
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
) -> Result<Option<StoredNegotiation>, StoreError> {
    let statement = client.prepare_cached(sql).await.map_err(pg_error)?;
    let row = client
        .query_opt(&statement, &[&id.as_str()])
        .await
        .map_err(pg_error)?;
    row.as_ref()
        .map(|row| negotiation_row(row)?.read())
        .transpose()
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
    let query = PageQuery::of(user_id, filter);
    let mut bound: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![
        &query.user,
        &query.below,
        &query.settled,
        &query.other,
        &query.fetch,
    ];
    if let Some(intent) = &query.intent {
        bound.push(intent);
    }
    let rows = client.query(&statement, &bound).await.map_err(pg_error)?;
    let found = rows
        .iter()
        .map(|row| Ok(negotiation_row(row)?.read()?.listed()))
        .collect::<Result<Vec<_>, StoreError>>()?;
    Ok(NegotiationPage::of(found, filter.limit))
}

/// The negotiation's turn rows from index `from` on, oldest first, for
/// the kit to check against the count its row keeps.
async fn turns(
    client: &impl GenericClient,
    seq: i64,
    from: i64,
) -> Result<Vec<Result<TurnRow, StoreError>>, StoreError> {
    let statement = client
        .prepare_cached(
            "SELECT turn_index, seat_user_id, action, message FROM turns \
             WHERE negotiation_seq = $1 AND turn_index >= $2 ORDER BY turn_index",
        )
        .await
        .map_err(pg_error)?;
    // `turn_index` is an `integer`; a start past its range matches nothing.
    let from = i32::try_from(from).unwrap_or(i32::MAX);
    let rows = client
        .query(&statement, &[&seq, &from])
        .await
        .map_err(pg_error)?;
    Ok(rows
        .iter()
        .map(|row| {
            let index: i32 = row.try_get(0).map_err(pg_error)?;
            Ok((
                i64::from(index),
                row.try_get(1).map_err(pg_error)?,
                row.try_get(2).map_err(pg_error)?,
                row.try_get(3).map_err(pg_error)?,
            ))
        })
        .collect())
}

/// The negotiation's message record, in order.
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
            let parts: String = row.try_get(1).map_err(pg_error)?;
            message_from_text(row.try_get(0).map_err(pg_error)?, &parts)
        })
        .collect()
}
