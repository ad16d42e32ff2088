//! SQLite's rows handed to the shared row kit (`index_negotiation_store::sql_rows`),
//! which reads them back into the store's types: anything the schema allows
//! but the types do not (an unknown action, say) is reported as corruption.
//! A listing's page is read one seat's index at a time.

use rusqlite::{Connection, OptionalExtension, Row, params};

use index_negotiation::{NegotiationMessage, NegotiationState};
use index_negotiation_store::sql_rows::{
    Locked, NegotiationRow, PageQuery, StoredNegotiation, TurnRow, Turns, message_from_text,
};
use index_negotiation_store::{
    ListFilter, NegotiationPage, NegotiationSummary, OpportunityId, StoreError, UserId,
};

use crate::error::sql_error;

/// A `SELECT` of [`negotiation_row`]'s columns from `negotiations n`,
/// followed by `$tail`: a literal, so every statement is a constant that
/// SQLite compiles once per connection and the cache keeps.
macro_rules! select_summary {
    ($($tail:expr),+) => {
        concat!(
            "SELECT n.seq, n.id, n.initiator_user_id, n.initiator_intent_id, ",
            "n.responder_user_id, n.responder_intent_id, n.initiator_eligible, n.responder_eligible, ",
            "n.awaiting_user_id, n.outcome, n.settled, n.status, ",
            "n.turn_count, n.ask_rounds, n.park_user_id, n.park_question, n.park_answer, ",
            "n.window_start, n.last_change ",
            "FROM negotiations n ",
            $($tail),+
        )
    };
}

/// The negotiation row `select_summary!` selects, as SQLite hands its
/// columns over; the kit checks it.
fn negotiation_row(row: &Row<'_>) -> rusqlite::Result<NegotiationRow> {
    let initiator_eligible: bool = row.get(6)?;
    let responder_eligible: bool = row.get(7)?;
    Ok(NegotiationRow {
        seq: row.get(0)?,
        id: row.get(1)?,
        initiator_user_id: row.get(2)?,
        initiator_intent_id: row.get(3)?,
        responder_user_id: row.get(4)?,
        responder_intent_id: row.get(5)?,
        eligible: initiator_eligible && responder_eligible,
        awaiting_user_id: row.get(8)?,
        outcome: row.get(9)?,
        settled: row.get(10)?,
        status: row.get(11)?,
        turn_count: row.get(12)?,
        ask_rounds: row.get(13)?,
        park_user_id: row.get(14)?,
        park_question: row.get(15)?,
        park_answer: row.get(16)?,
        window_start: row.get(17)?,
        last_change: row.get(18)?,
    })
}

/// The negotiation's row key, summary and state, with the turns `which`
/// names, all read through `conn`.
pub(crate) fn read_state(
    conn: &Connection,
    stored: StoredNegotiation,
    which: Turns,
) -> Result<(NegotiationSummary, NegotiationState), StoreError> {
    let from = stored.first_turn(which);
    let rows = turns(conn, stored.seq, from)?;
    stored.read_state(which, rows)
}

/// The negotiation as a commit decides on it, read through `conn` (the
/// commit's transaction).
pub(crate) fn locked(conn: &Connection, stored: StoredNegotiation) -> Result<Locked, StoreError> {
    let rows = turns(conn, stored.seq, stored.first_turn(Turns::Round))?;
    stored.locked(rows)
}

/// The negotiation `id`, if it exists.
pub(crate) fn find(
    conn: &Connection,
    id: &OpportunityId,
) -> Result<Option<StoredNegotiation>, StoreError> {
    conn.prepare_cached(select_summary!("WHERE n.id = ?1"))
        .and_then(|mut find| {
            find.query_row(params![id.as_str()], negotiation_row)
                .optional()
        })
        .map_err(sql_error)?
        .map(NegotiationRow::read)
        .transpose()
}

/// The seqs of one side's negotiations for a page: those where the user
/// (`?1`) holds the seat `$seat`, below the cursor (`?2`), settled or not
/// (`?3`, NULL for either), with `?4` (NULL for anyone) in the seat
/// `$other`, newest change first, at most `?5` (-1 for all), and `$and`
/// (the intent, when the listing names one). A literal, so SQLite uses the
/// seat's index and stops at the page's end.
macro_rules! side {
    ($seat:literal, $other:literal, $and:literal) => {
        concat!(
            "SELECT seq FROM (SELECT seq FROM negotiations WHERE ",
            $seat,
            "_user_id = ?1 AND last_change < ?2 AND (?3 IS NULL OR settled = ?3) AND (?4 IS NULL OR ",
            $other,
            "_user_id = ?4) ",
            $and,
            " ORDER BY last_change DESC LIMIT ?5)"
        )
    };
}

/// A page of the negotiations where `user_id` holds a seat and `filter`
/// passes, newest change first: each seat's side read through its own
/// index, then merged.
pub(crate) fn page_of_user(
    conn: &Connection,
    user_id: &UserId,
    filter: &ListFilter,
) -> Result<NegotiationPage, StoreError> {
    let sql = if filter.intent_id.is_some() {
        select_summary!(
            "WHERE n.seq IN (",
            side!("initiator", "responder", "AND initiator_intent_id = ?6"),
            " UNION ALL ",
            side!(
                "responder",
                "initiator",
                "AND responder_intent_id = ?6 AND initiator_user_id <> ?1"
            ),
            ") ORDER BY n.last_change DESC LIMIT ?5"
        )
    } else {
        select_summary!(
            "WHERE n.seq IN (",
            side!("initiator", "responder", ""),
            " UNION ALL ",
            side!("responder", "initiator", "AND initiator_user_id <> ?1"),
            ") ORDER BY n.last_change DESC LIMIT ?5"
        )
    };
    let query = PageQuery::of(user_id, filter);
    let mut statement = conn.prepare_cached(sql).map_err(sql_error)?;
    // SQLite's LIMIT -1 is no limit.
    let fetch = query.fetch.unwrap_or(-1);
    let mut bound: Vec<&dyn rusqlite::ToSql> = vec![
        &query.user,
        &query.below,
        &query.settled,
        &query.other,
        &fetch,
    ];
    if let Some(intent) = &query.intent {
        bound.push(intent);
    }
    let rows = statement
        .query_map(bound.as_slice(), negotiation_row)
        .map_err(sql_error)?;
    let found = rows
        .map(|row| Ok(row.map_err(sql_error)?.read()?.listed()))
        .collect::<Result<Vec<_>, StoreError>>()?;
    Ok(NegotiationPage::of(found, filter.limit))
}

/// The negotiation's turn rows from index `from` on, oldest first, for
/// the kit to check against the count its row keeps.
fn turns(
    conn: &Connection,
    seq: i64,
    from: i64,
) -> Result<Vec<Result<TurnRow, StoreError>>, StoreError> {
    let mut statement = conn
        .prepare_cached(
            "SELECT turn_index, seat_user_id, action, message FROM turns \
             WHERE negotiation_seq = ?1 AND turn_index >= ?2 ORDER BY turn_index",
        )
        .map_err(sql_error)?;
    let rows = statement
        .query_map(params![seq, from], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .map_err(sql_error)?;
    Ok(rows.map(|row| row.map_err(sql_error)).collect())
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
