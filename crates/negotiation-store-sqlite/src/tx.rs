//! The two ways every write here starts: a transaction that holds the
//! write lock from its first statement, and a statement run through the
//! connection's cache.

use rusqlite::{Connection, Transaction, TransactionBehavior};

use index_negotiation_store::StoreError;

use crate::error::sql_error;

/// Starts a write transaction, taking the database's write lock now rather
/// than at the first write, so the read that follows is the locked state.
pub(crate) fn begin_write(conn: &mut Connection) -> Result<Transaction<'_>, StoreError> {
    conn.transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql_error)
}

/// Runs a constant statement through the connection's statement cache, so
/// SQLite compiles it once per connection rather than on every commit.
pub(crate) fn execute(
    conn: &Connection,
    sql: &'static str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}
