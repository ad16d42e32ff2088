//! Recognising our database, refusing anything else untouched, and bringing
//! ours up to the current schema.

use std::io::Read;
use std::path::Path;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use index_negotiation_store::StoreError;

use crate::sql_error;

/// `PRAGMA application_id` of an Index negotiation store ("INDX").
pub(crate) const APPLICATION_ID: i64 = 0x494E_4458;

/// Numbered migrations; a database at version N has run the first N.
const MIGRATIONS: [&str; 1] = [include_str!("../migrations/0001_initial.sql")];

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Opens a connection to `path` once it is known to be ours (or new and
/// empty), migrating it to [`SCHEMA_VERSION`]. Anything else is refused
/// before a byte is written.
pub(crate) fn open_verified(path: &Path) -> Result<Connection, StoreError> {
    let display = path.display().to_string();
    if !has_sqlite_header_or_is_empty(path)? {
        return Err(StoreError::NotAStore { path: display });
    }
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sql_error)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(sql_error)?;
    // Reading is harmless; a file that is not a database fails here.
    let (application_id, version, objects) = identity(&conn).map_err(|err| match err {
        rusqlite::Error::SqliteFailure(failure, _)
            if failure.code == rusqlite::ErrorCode::NotADatabase =>
        {
            StoreError::NotAStore {
                path: display.clone(),
            }
        }
        other => sql_error(other),
    })?;
    let ours = application_id == APPLICATION_ID;
    let blank = application_id == 0 && version == 0 && objects == 0;
    if !ours && !blank {
        return Err(StoreError::NotAStore { path: display });
    }
    if version > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            path: display,
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    migrate(&mut conn, &display)?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(sql_error)?;
    Ok(conn)
}

/// Whether the file is missing, empty, or starts like an SQLite database.
fn has_sqlite_header_or_is_empty(path: &Path) -> Result<bool, StoreError> {
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(true),
        Err(err) => return Err(StoreError::backend(err)),
    };
    let mut header = Vec::with_capacity(16);
    file.by_ref()
        .take(16)
        .read_to_end(&mut header)
        .map_err(StoreError::backend)?;
    Ok(header.is_empty() || header.as_slice() == SQLITE_HEADER)
}

fn identity(conn: &Connection) -> rusqlite::Result<(i64, i64, i64)> {
    let application_id = conn.pragma_query_value(None, "application_id", |row| row.get(0))?;
    let version = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let objects = conn.query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))?;
    Ok((application_id, version, objects))
}

/// Runs the missing migrations in one IMMEDIATE transaction, re-reading the
/// version inside it so two processes opening a new file migrate once.
fn migrate(conn: &mut Connection, display: &str) -> Result<(), StoreError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql_error)?;
    let (application_id, version, objects) = identity(&tx).map_err(sql_error)?;
    if application_id != APPLICATION_ID && (application_id != 0 || objects != 0) {
        return Err(StoreError::NotAStore {
            path: display.to_owned(),
        });
    }
    if version > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            path: display.to_owned(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    let applied = usize::try_from(version).unwrap_or(0);
    for migration in MIGRATIONS.iter().skip(applied) {
        tx.execute_batch(migration).map_err(sql_error)?;
    }
    tx.pragma_update(None, "application_id", APPLICATION_ID)
        .map_err(sql_error)?;
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(sql_error)?;
    tx.commit().map_err(sql_error)
}
