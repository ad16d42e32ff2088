//! `SqliteStore::check`'s rules: what the store's readers take for granted
//! of every table, beyond what SQLite itself enforces.
//!
//! SQLite keeps whatever a statement writes: any column may hold any type,
//! and only the schema's constraints are enforced. A reader that meets a
//! value the store never writes either fails (text where it reads an
//! integer) or, worse, reads on as if it were another value (a `settled`
//! of 2 reads as settled, yet matches neither listing filter). So every row
//! is first read as SQLite holds it and held to what the store writes;
//! only a negotiation whose rows all pass is then read through the store's
//! own readers, replayed through the rules and held to the marks a commit
//! keeps in its row.

use rusqlite::types::Value;
use rusqlite::{Connection, Row, params};

use index_negotiation::{
    AnswerRejection, NEGOTIATION_ANSWER_LIMIT, NEGOTIATION_MAX_TURNS, NegotiationAction,
    NegotiationOutcome, audit_negotiation_log, check_answer, count_negotiation_ask_rounds,
};
use index_negotiation_store::sql_rows::{StoredKey, Turns, stored_id, stored_key};
use index_negotiation_store::{ErrorChain, OpportunityId, RecordStatus, StoreError};

use crate::error::sql_error;
use crate::rows;

/// What a column holds, as the store writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    TextOrNull,
    Integer,
    IntegerOrNull,
    /// A boolean: 0 or 1, and nothing else.
    Flag,
    Blob,
}

impl Kind {
    fn admits(self, value: &Value) -> bool {
        matches!(
            (self, value),
            (Kind::Text | Kind::TextOrNull, Value::Text(_))
                | (Kind::TextOrNull | Kind::IntegerOrNull, Value::Null)
                | (Kind::Integer | Kind::IntegerOrNull, Value::Integer(_))
                | (Kind::Flag, Value::Integer(0 | 1))
                | (Kind::Blob, Value::Blob(_))
        )
    }

    fn describe(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::TextOrNull => "text or NULL",
            Kind::Integer => "an integer",
            Kind::IntegerOrNull => "an integer or NULL",
            Kind::Flag => "0 or 1",
            Kind::Blob => "a blob",
        }
    }
}

/// A value as a problem names it: numbers as they are, anything else by
/// its type (a text may be long, or not fit on a line).
fn held(value: &Value) -> String {
    match value {
        Value::Null => "NULL".to_owned(),
        Value::Integer(n) => n.to_string(),
        Value::Real(_) => "a real number".to_owned(),
        Value::Text(_) => "text".to_owned(),
        Value::Blob(_) => "a blob".to_owned(),
    }
}

/// The columns a raw read selects, in order, with what each holds.
type Columns = &'static [(&'static str, Kind)];

const NEGOTIATION_COLUMNS: Columns = &[
    ("seq", Kind::Integer),
    ("id", Kind::Text),
    ("initiator_user_id", Kind::Text),
    ("initiator_intent_id", Kind::Text),
    ("responder_user_id", Kind::Text),
    ("responder_intent_id", Kind::Text),
    ("initiator_eligible", Kind::Flag),
    ("responder_eligible", Kind::Flag),
    ("awaiting_user_id", Kind::TextOrNull),
    ("outcome", Kind::TextOrNull),
    ("settled", Kind::Flag),
    ("status", Kind::Text),
    ("turn_count", Kind::Integer),
    ("ask_rounds", Kind::Integer),
    ("park_user_id", Kind::TextOrNull),
    ("park_question", Kind::TextOrNull),
    ("park_answer", Kind::TextOrNull),
    ("window_start", Kind::Integer),
    ("round_start", Kind::Integer),
    ("last_change", Kind::Integer),
];

const NEGOTIATIONS: &str = "SELECT seq, id, initiator_user_id, initiator_intent_id, \
     responder_user_id, responder_intent_id, initiator_eligible, responder_eligible, \
     awaiting_user_id, outcome, settled, status, turn_count, ask_rounds, park_user_id, \
     park_question, park_answer, window_start, round_start, last_change \
     FROM negotiations ORDER BY seq";

const TURN_COLUMNS: Columns = &[
    ("turn_index", Kind::Integer),
    ("seat_user_id", Kind::Text),
    ("action", Kind::Text),
    ("message", Kind::Text),
];

const TURNS: &str = "SELECT turn_index, seat_user_id, action, message FROM turns \
     WHERE negotiation_seq = ?1 ORDER BY turn_index";

const MESSAGE_COLUMNS: Columns = &[
    ("position", Kind::Integer),
    ("sender_id", Kind::Text),
    ("parts", Kind::Text),
];

const MESSAGES: &str = "SELECT position, sender_id, parts FROM messages \
     WHERE negotiation_seq = ?1 ORDER BY position";

const KEY_COLUMNS: Columns = &[
    ("seq", Kind::Integer),
    ("id", Kind::Text),
    ("hash", Kind::Blob),
    ("user_id", Kind::Text),
    ("scope", Kind::Text),
    ("revoked", Kind::Flag),
    ("name", Kind::TextOrNull),
    ("created_at", Kind::IntegerOrNull),
    ("expires_at", Kind::IntegerOrNull),
    ("last_used_at", Kind::IntegerOrNull),
    ("kind", Kind::Text),
    ("grant_id", Kind::TextOrNull),
    ("client", Kind::TextOrNull),
];

const KEYS: &str = "SELECT seq, id, hash, user_id, scope, revoked, name, created_at, \
     expires_at, last_used_at, kind, grant_id, client FROM api_keys ORDER BY seq";

static NULL: Value = Value::Null;

/// One row as SQLite holds it, each value under its column's name.
struct Raw {
    columns: Columns,
    values: Vec<Value>,
}

impl Raw {
    fn read(row: &Row<'_>, columns: Columns) -> rusqlite::Result<Self> {
        let values = (0..columns.len())
            .map(|index| row.get(index))
            .collect::<rusqlite::Result<_>>()?;
        Ok(Raw { columns, values })
    }

    /// Every raw read of `sql` (bound to `bound`), with `columns`.
    fn all(
        conn: &Connection,
        sql: &str,
        bound: impl rusqlite::Params,
        columns: Columns,
    ) -> Result<Vec<Raw>, StoreError> {
        let mut statement = conn.prepare(sql).map_err(sql_error)?;
        let rows = statement
            .query_map(bound, |row| Raw::read(row, columns))
            .map_err(sql_error)?;
        rows.map(|row| row.map_err(sql_error)).collect()
    }

    fn value(&self, name: &str) -> &Value {
        self.columns
            .iter()
            .zip(&self.values)
            .find(|((column, _), _)| *column == name)
            .map_or(&NULL, |(_, value)| value)
    }

    /// The column's text, when it holds text.
    fn text(&self, name: &str) -> Option<&str> {
        match self.value(name) {
            Value::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The column's integer, when it holds one.
    fn integer(&self, name: &str) -> Option<i64> {
        match self.value(name) {
            Value::Integer(n) => Some(*n),
            _ => None,
        }
    }

    /// Each column that holds what the store never writes there.
    fn kind_faults(&self) -> Vec<String> {
        self.columns
            .iter()
            .zip(&self.values)
            .filter(|((_, kind), value)| !kind.admits(value))
            .map(|((column, kind), value)| {
                format!("{column} holds {}, not {}", held(value), kind.describe())
            })
            .collect()
    }
}

/// Every problem in the store's tables, read in one read transaction so a
/// store in use is checked as it stood at one moment.
pub(crate) fn problems(conn: &mut Connection) -> Result<Vec<String>, StoreError> {
    let tx = conn.transaction().map_err(sql_error)?;
    let mut found = Vec::new();
    {
        let mut statement = tx.prepare(NEGOTIATIONS).map_err(sql_error)?;
        let mut negotiations = statement.query([]).map_err(sql_error)?;
        while let Some(row) = negotiations.next().map_err(sql_error)? {
            let row = Raw::read(row, NEGOTIATION_COLUMNS).map_err(sql_error)?;
            found.extend(negotiation(&tx, &row)?);
        }
    }
    found.extend(shared_changes(&tx)?);
    found.extend(orphans(&tx)?);
    found.extend(keys(&tx)?);
    tx.commit().map_err(sql_error)?;
    Ok(found)
}

/// One negotiation's problems, each named after it.
fn negotiation(conn: &Connection, row: &Raw) -> Result<Vec<String>, StoreError> {
    let seq = row.integer("seq").unwrap_or_default();
    let turns = Raw::all(conn, TURNS, params![seq], TURN_COLUMNS)?;
    let messages = Raw::all(conn, MESSAGES, params![seq], MESSAGE_COLUMNS)?;
    let mut faults = row.kind_faults();
    for turn in &turns {
        let which = turn
            .integer("turn_index")
            .map_or_else(|| "a turn".to_owned(), |index| format!("turn {index}"));
        faults.extend(
            turn.kind_faults()
                .into_iter()
                .map(|fault| format!("{which}: {fault}")),
        );
    }
    for message in &messages {
        let which = message.integer("position").map_or_else(
            || "a message".to_owned(),
            |position| format!("the message at position {position}"),
        );
        faults.extend(
            message
                .kind_faults()
                .into_iter()
                .map(|fault| format!("{which}: {fault}")),
        );
    }
    // A row, turn or message that does not hold what the store writes
    // fails the readers below with nothing more to say than that.
    let readable = faults.is_empty();
    faults.extend(row_rules(row));
    faults.extend(trimmed_turns(&turns));
    faults.extend(dense_record(&messages));
    if readable {
        faults.extend(read_back(conn, row)?);
    }
    let name = row.text("id").map_or_else(
        || format!("negotiations row {seq}"),
        |id| format!("negotiation {id}"),
    );
    Ok(faults
        .into_iter()
        .map(|fault| format!("{name}: {fault}"))
        .collect())
}

/// What ties a negotiation's columns to one another, as every commit
/// leaves them.
fn row_rules(row: &Raw) -> Vec<String> {
    let mut faults = Vec::new();
    let same = |a: &str, b: &str| match (row.text(a), row.text(b)) {
        (Some(a), Some(b)) if a == b => Some(a.to_owned()),
        _ => None,
    };
    if let Some(user) = same("initiator_user_id", "responder_user_id") {
        faults.push(format!("{user} holds both seats"));
    }
    if let Some(intent) = same("initiator_intent_id", "responder_intent_id") {
        faults.push(format!("both seats hold the intent {intent}"));
    }
    for counter in ["turn_count", "ask_rounds"] {
        if let Some(n) = row.integer(counter).filter(|n| *n < 0) {
            faults.push(format!("{counter} is {n}, below 0"));
        }
    }
    if let Some(change) = row.integer("last_change").filter(|n| *n < 1) {
        faults.push(format!(
            "last_change is {change}; changes are numbered from 1"
        ));
    }
    faults.extend(round_bounds(row));
    faults.extend(ending(row));
    faults.extend(park(row));
    faults
}

/// The round marks fall inside the log, the earlier first: a decision
/// reads the log from `window_start` on, and a round that ends moves
/// `round_start` there.
fn round_bounds(row: &Raw) -> Option<String> {
    let (Some(window), Some(round), Some(count)) = (
        row.integer("window_start"),
        row.integer("round_start"),
        row.integer("turn_count"),
    ) else {
        return None;
    };
    if window < 0 {
        Some(format!("window_start is {window}, before the log"))
    } else if window > round {
        Some(format!(
            "window_start is {window}, after round_start {round}"
        ))
    } else if round > count.max(0) {
        Some(format!(
            "round_start is {round}, past the log's {count} turns"
        ))
    } else {
        None
    }
}

/// A negotiation is settled exactly when it has an outcome, and its status
/// is the one the commit that settled it (or not) wrote.
fn ending(row: &Raw) -> Vec<String> {
    let mut faults = Vec::new();
    let Some(settled) = row.integer("settled").filter(|n| matches!(n, 0 | 1)) else {
        return faults;
    };
    let settled = settled == 1;
    let outcome = row.text("outcome");
    match (outcome, settled) {
        (Some(outcome), false) => {
            faults.push(format!("the outcome is {outcome}, but it is not settled"));
        }
        (None, true) if row.value("outcome") == &Value::Null => {
            faults.push("settled, but no outcome is recorded".to_owned());
        }
        _ => {}
    }
    let Some(status) = row.text("status").and_then(RecordStatus::from_name) else {
        return faults;
    };
    let open = status == RecordStatus::Negotiating;
    if open == settled {
        faults.push(format!(
            "the status is {}, but it is {}",
            status.as_str(),
            if settled { "settled" } else { "not settled" }
        ));
    }
    let agreed =
        outcome.and_then(NegotiationOutcome::from_name) == Some(NegotiationOutcome::Agreed);
    if status == RecordStatus::Pending && !agreed {
        faults.push("the status is pending, but nothing was agreed".to_owned());
    }
    faults
}

/// A park is its person and question together, and an answer belongs to
/// one, kept as an answer is decided: trimmed, and not too long.
fn park(row: &Raw) -> Vec<String> {
    let mut faults = Vec::new();
    let present = |column| row.value(column) != &Value::Null;
    match (present("park_user_id"), present("park_question")) {
        (true, false) => faults.push("a park names its person but no question".to_owned()),
        (false, true) => faults.push("a park holds a question but names no person".to_owned()),
        (false, false) if present("park_answer") => {
            faults.push("an answer is recorded without a park".to_owned());
        }
        _ => {}
    }
    if let Some(answer) = row.text("park_answer") {
        match check_answer(answer) {
            Ok(kept) if kept == answer => {}
            Ok(_) => faults.push("the park's answer is not stored trimmed".to_owned()),
            Err(AnswerRejection::BlankAnswer) => {
                faults.push("the park's answer is blank".to_owned());
            }
            Err(_) => faults.push(format!(
                "the park's answer is longer than {NEGOTIATION_ANSWER_LIMIT} UTF-16 code units"
            )),
        }
    }
    faults
}

/// Turn messages are stored as the turn schema hands them on: trimmed.
fn trimmed_turns(turns: &[Raw]) -> Vec<String> {
    turns
        .iter()
        .filter_map(|turn| {
            let message = turn.text("message")?;
            (index_js::trim(message) != message).then(|| {
                format!(
                    "turn {}: its message is not stored trimmed",
                    held(turn.value("turn_index"))
                )
            })
        })
        .collect()
}

/// The message record is numbered from 0 without a hole: the first
/// position that breaks it, if any.
fn dense_record(messages: &[Raw]) -> Option<String> {
    messages
        .iter()
        .zip(0_i64..)
        .find_map(|(message, expected)| {
            let position = message.integer("position")?;
            (position != expected).then(|| {
                format!(
                    "the message record is not dense: message {expected} is stored at position {position}"
                )
            })
        })
}

/// The negotiation read as the store reads it: every row back into its
/// types, its log replayed through the rules, and the marks a commit keeps
/// beside the log held to the log.
fn read_back(conn: &Connection, row: &Raw) -> Result<Vec<String>, StoreError> {
    let Some(id) = row.text("id") else {
        return Ok(Vec::new());
    };
    let read = stored_id::<OpportunityId>(id.to_owned())
        .and_then(|id| rows::find(conn, &id))
        .and_then(|stored| match stored {
            None => Ok(None),
            Some(stored) => {
                let seq = stored.seq;
                let (_, state) = rows::read_state(conn, stored, Turns::All)?;
                let messages = rows::messages(conn, seq)?;
                Ok(Some((state, messages)))
            }
        });
    let (state, messages) = match read {
        Ok(Some(read)) => read,
        Ok(None) => return Ok(Vec::new()),
        Err(err @ StoreError::Corrupt(_)) => return Ok(vec![err.to_string()]),
        Err(err) => return Ok(vec![ErrorChain(&err).to_string()]),
    };
    let mut faults: Vec<String> = audit_negotiation_log(&state)
        .iter()
        .map(ToString::to_string)
        .collect();
    let asked = count_negotiation_ask_rounds(&messages);
    if row.integer("ask_rounds") != i64::try_from(asked).ok() {
        faults.push(format!(
            "ask_rounds is {}, but the message record holds {asked} question{}",
            held(row.value("ask_rounds")),
            if asked == 1 { "" } else { "s" }
        ));
    }
    // The marks are compared only for a log the rules accept, inside its
    // bounds: otherwise what they should be is not defined.
    if faults.is_empty() && round_bounds(row).is_none() {
        let actions: Vec<NegotiationAction> = state.turns.iter().map(|turn| turn.action).collect();
        faults.extend(round_marks(row, &actions));
    }
    Ok(faults)
}

/// Where the round in progress and the one before it start, as commits
/// move them: a round ends at a decline, or at its
/// [`NEGOTIATION_MAX_TURNS`]th turn unless that turn is an accept, which
/// settles instead. The migration to schema version 4 walked the logs
/// before it without that exception, so `accept_fills` ends a round on a
/// last accept too.
fn walk(actions: &[NegotiationAction], accept_fills: bool) -> (usize, usize) {
    let (mut round, mut window) = (0, 0);
    for (index, action) in actions.iter().enumerate() {
        let full = index + 1 - round >= NEGOTIATION_MAX_TURNS;
        let accept = *action == NegotiationAction::Accept;
        if *action == NegotiationAction::Decline || (full && (accept_fills || !accept)) {
            window = round;
            round = index + 1;
        }
    }
    (round, window)
}

/// `round_start` and `window_start` as the log puts them: a decision reads
/// the log from `window_start` on, so a mark elsewhere hands the rules
/// another round than the one in progress.
fn round_marks(row: &Raw, actions: &[NegotiationAction]) -> Vec<String> {
    let stored = (
        row.integer("round_start")
            .and_then(|n| usize::try_from(n).ok()),
        row.integer("window_start")
            .and_then(|n| usize::try_from(n).ok()),
    );
    let (round, window) = walk(actions, false);
    let migrated = walk(actions, true);
    if stored == (Some(round), Some(window)) || stored == (Some(migrated.0), Some(migrated.1)) {
        return Vec::new();
    }
    let mut faults = Vec::new();
    if stored.0 != Some(round) {
        faults.push(format!(
            "round_start is {}, but the round in progress starts at turn {round}",
            held(row.value("round_start"))
        ));
    }
    if stored.1 != Some(window) {
        faults.push(format!(
            "window_start is {}, but the round before the one in progress starts at turn {window}",
            held(row.value("window_start"))
        ));
    }
    faults
}

/// Listings page by `last_change`, so no two negotiations share one (the
/// schema's unique index says so, for as long as it is there).
fn shared_changes(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut statement = conn
        .prepare(
            "SELECT last_change, group_concat(id, ', ') FROM negotiations \
             WHERE typeof(last_change) = 'integer' AND typeof(id) = 'text' \
             GROUP BY last_change HAVING count(*) > 1 ORDER BY last_change",
        )
        .map_err(sql_error)?;
    let rows = statement
        .query_map([], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })
        .map_err(sql_error)?;
    rows.map(|row| {
        let (change, ids) = row.map_err(sql_error)?;
        Ok(format!(
            "negotiations {ids} share last_change {change}; a listing would skip some of them"
        ))
    })
    .collect()
}

/// Rows that name a negotiation that is not there (SQLite's
/// `foreign_key_check`, which enforcement alone does not cover: a file
/// written with foreign keys off keeps them).
fn orphans(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut check = conn
        .prepare("PRAGMA foreign_key_check")
        .map_err(sql_error)?;
    let rows = check
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, Option<i64>>(1)?,
                row.get::<_, String>(2)?,
            ))
        })
        .map_err(sql_error)?;
    rows.map(|row| {
        let (table, rowid, parent) = row.map_err(sql_error)?;
        let rowid = rowid.map_or_else(|| "a row".to_owned(), |rowid| format!("row {rowid}"));
        Ok(format!("{table}: {rowid} refers to a missing {parent} row"))
    })
    .collect()
}

/// The most characters a key's name has, as `index_host::keys` makes
/// names (that crate sits above this one; the `index` tool's tests hold the
/// two to each other).
const KEY_NAME_LIMIT: usize = 64;

/// Names beginning this are the host's own keys'.
const RESERVED_NAME_PREFIX: &str = "index:";

/// The names the host gives its own keys: a login link's, and a signed-in
/// browser's session's.
const HOST_KEY_NAMES: [&str; 2] = ["index: login link", "index: web session"];

/// Every key's problems: each as its readers read it (`keys list`, a
/// request's lookup), and its id and name as keys are made.
fn keys(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut found = Vec::new();
    for key in Raw::all(conn, KEYS, [], KEY_COLUMNS)? {
        let mut faults = key.kind_faults();
        if faults.is_empty() {
            faults.extend(read_key(&key).err());
        }
        faults.extend(key_id(&key));
        faults.extend(key_name(&key));
        let name = key.text("id").map_or_else(
            || format!("api_keys row {}", held(key.value("seq"))),
            |id| format!("key {id}"),
        );
        found.extend(faults.into_iter().map(|fault| format!("{name}: {fault}")));
    }
    Ok(found)
}

/// The key as its readers read it (see `stored_key`).
fn read_key(key: &Raw) -> Result<(), String> {
    let text = |column| key.text(column).unwrap_or_default().to_owned();
    let time = |column| key.integer(column);
    let hash = match key.value("hash") {
        Value::Blob(hash) => hash.clone(),
        _ => Vec::new(),
    };
    stored_key(StoredKey {
        id: text("id"),
        hash,
        user_id: text("user_id"),
        scope: text("scope"),
        revoked: key.integer("revoked") == Some(1),
        name: key.text("name").map(str::to_owned),
        created_at: time("created_at"),
        expires_at: time("expires_at"),
        last_used_at: time("last_used_at"),
        kind: text("kind"),
        grant: key.text("grant_id").map(str::to_owned),
        client: key.text("client").map(str::to_owned),
    })
    .map(drop)
    .map_err(|err| err.to_string())
}

/// A key's id is one word a person can read in `keys list` and type to
/// `keys revoke`.
fn key_id(key: &Raw) -> Option<String> {
    let id = key.text("id")?;
    if id.is_empty() {
        Some("its id is empty".to_owned())
    } else if id.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Some("its id holds whitespace or a control character".to_owned())
    } else {
        None
    }
}

/// A key's name as keys are made: trimmed, not blank, at most
/// [`KEY_NAME_LIMIT`] characters, none a control character, and a name
/// beginning [`RESERVED_NAME_PREFIX`] only on the host's own keys, so the
/// name says what the key is (signing in treats those two apart).
fn key_name(key: &Raw) -> Vec<String> {
    let Some(name) = key.text("name") else {
        return Vec::new();
    };
    let mut faults = Vec::new();
    if index_js::trim(name).is_empty() {
        faults.push("its name is blank".to_owned());
    } else if index_js::trim(name) != name {
        faults.push("its name is not stored trimmed".to_owned());
    }
    if name.chars().count() > KEY_NAME_LIMIT {
        faults.push(format!(
            "its name is longer than {KEY_NAME_LIMIT} characters"
        ));
    }
    if name.chars().any(char::is_control) {
        faults.push("its name holds a control character".to_owned());
    }
    if name.starts_with(RESERVED_NAME_PREFIX) && !HOST_KEY_NAMES.contains(&name) {
        faults.push(format!(
            "its name begins {RESERVED_NAME_PREFIX:?}, which only the host's own keys' names do ({})",
            HOST_KEY_NAMES.join(", ")
        ));
    }
    faults
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Access;
    use crate::schema::{Opener, open_verified};

    #[test]
    fn each_raw_read_names_the_columns_it_selects() {
        let dir = tempfile::tempdir().unwrap();
        let conn =
            open_verified(&Opener::new(dir.path().join("index.db"), Access::Create)).unwrap();
        for (sql, columns) in [
            (NEGOTIATIONS, NEGOTIATION_COLUMNS),
            (TURNS, TURN_COLUMNS),
            (MESSAGES, MESSAGE_COLUMNS),
            (KEYS, KEY_COLUMNS),
        ] {
            let statement = conn.prepare(sql).unwrap();
            let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
            assert_eq!(statement.column_names(), names, "{sql}");
        }
    }

    #[test]
    fn rounds_end_at_a_decline_or_when_full() {
        use NegotiationAction::{Accept, Counter, Decline, Propose};
        assert_eq!(walk(&[], false), (0, 0));
        assert_eq!(walk(&[Propose, Decline], false), (2, 0));
        assert_eq!(walk(&[Propose, Decline, Propose, Decline], false), (4, 2));
        let mut full = vec![Propose];
        full.extend([Counter; 11]);
        assert_eq!(walk(&full, false), (12, 0));
        full.push(Propose);
        assert_eq!(walk(&full, false), (12, 0));
        // A twelfth turn that accepts settles; only the migration's walk
        // counted it as the round's end.
        let mut accepted = vec![Propose];
        accepted.extend([Counter; 10]);
        accepted.push(Accept);
        assert_eq!(walk(&accepted, false), (0, 0));
        assert_eq!(walk(&accepted, true), (12, 0));
    }
}
