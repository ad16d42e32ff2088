//! SQLite's errors as the store port's.

use index_negotiation_store::StoreError;

/// SQLite's errors as storage errors; a malformed file is reported as corrupt.
pub(crate) fn sql_error(err: rusqlite::Error) -> StoreError {
    match &err {
        rusqlite::Error::SqliteFailure(failure, _)
            if failure.code == rusqlite::ErrorCode::DatabaseCorrupt =>
        {
            StoreError::Corrupt(err.to_string())
        }
        _ => StoreError::backend(err),
    }
}
