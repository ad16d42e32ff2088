//! Reading rows back into the store's types. Anything the schema allows but
//! the types do not (an unknown action, say) is reported as corruption.

use rusqlite::{Connection, OptionalExtension, Row, params};

use index_negotiation::{NegotiationMessage, NegotiationOutcome, NegotiationState, SeatTurn};
use index_negotiation_store::{
    ListFilter, NegotiationPage, NegotiationSummary, OpportunityId, RecordStatus, Seat,
    StateFilter, StoreError, UserId, message_from_text, stored_id, stored_state, stored_turns,
};

use crate::error::sql_error;

/// A `SELECT` of [`summary_from_row`]'s columns from `negotiations n`,
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

/// A summary and its row's internal key, with the question loop's columns
/// as stored (the question is parsed only when the state is read).
pub(crate) struct Stored {
    pub(crate) seq: i64,
    pub(crate) summary: NegotiationSummary,
    ask_rounds: i64,
    park: Option<(String, String, Option<String>)>,
    /// Where the previous round starts in the log.
    window_start: i64,
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
    /// from `conn`.
    pub(crate) fn read_state(
        self,
        conn: &Connection,
        which: Turns,
    ) -> Result<(NegotiationSummary, NegotiationState), StoreError> {
        let from = match which {
            Turns::All => 0,
            Turns::Round => self.window_start,
        };
        let turns = turns(conn, self.seq, from, self.summary.turn_count)?;
        let state = stored_state(&self.summary, turns, self.ask_rounds, self.park)?;
        Ok((self.summary, state))
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
    let window_start: i64 = row.get(17)?;
    let last_change: i64 = row.get(18)?;
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
        window_start,
        last_change,
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
    let below = filter.cursor.map_or(i64::MAX, |cursor| {
        i64::try_from(cursor.change()).unwrap_or(i64::MAX)
    });
    let settled = filter.state.map(|state| state == StateFilter::Settled);
    // One more than the page, to know whether another follows.
    let fetch = filter
        .limit
        .map_or(-1, |limit| i64::try_from(limit).unwrap_or(i64::MAX - 1) + 1);
    let mut statement = conn.prepare_cached(sql).map_err(sql_error)?;
    let other = filter.other_user_id.as_ref().map(UserId::as_str);
    let user = user_id.as_str();
    let mut bound: Vec<&dyn rusqlite::ToSql> = vec![&user, &below, &settled, &other, &fetch];
    let intent = filter.intent_id.as_ref().map(|intent| intent.as_str());
    if let Some(intent) = &intent {
        bound.push(intent);
    }
    let rows = statement
        .query_map(bound.as_slice(), summary_from_row)
        .map_err(sql_error)?;
    let found = rows
        .map(|row| {
            let stored = row.map_err(sql_error)??;
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
/// … up to `count - 1` without a gap: a log with a hole, a repeat or more
/// or fewer turns than its row counts is reported as corruption rather
/// than read as another log.
fn turns(
    conn: &Connection,
    seq: i64,
    from: i64,
    count: usize,
) -> Result<Vec<SeatTurn>, StoreError> {
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
    stored_turns(
        usize::try_from(from).unwrap_or(0),
        count,
        rows.map(|row| row.map_err(sql_error)),
    )
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
