//! Recognising our database, refusing anything else untouched, and bringing
//! ours up to the current schema.

use std::io::Read;
use std::path::Path;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use index_negotiation_store::StoreError;

use crate::{Access, sql_error};

/// `PRAGMA application_id` of an Index negotiation store ("INDX").
pub(crate) const APPLICATION_ID: i64 = 0x494E_4458;

/// Numbered migrations; a database at version N has run the first N.
const MIGRATIONS: [&str; 2] = [
    include_str!("../migrations/0001_initial.sql"),
    include_str!("../migrations/0002_api_keys.sql"),
];

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Opens a connection to `path` with the flags `access` calls for.
///
/// Reading a WAL database needs its `-wal` and `-shm` files, and a
/// connection opened read-only creates them and, unable to checkpoint,
/// leaves them behind, owned by the reader and with the database's mode: a
/// reader of someone else's store would break it for its owner. So a
/// [`Access::ReadOnly`] store this process can write is opened read-write
/// with `query_only` set (SQLite refuses every change, and the last
/// connection to close removes the files it made); one it cannot write is
/// opened read-only through the files a live writer has, or, when there is
/// no `-wal` (nobody is writing), as immutable, which needs neither.
pub(crate) fn connect(path: &Path, access: Access) -> rusqlite::Result<Connection> {
    let no_mutex = OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let read_write = OpenFlags::SQLITE_OPEN_READ_WRITE | no_mutex;
    match access {
        Access::ReadOnly if can_write(path) => {
            let conn = Connection::open_with_flags(path, read_write)?;
            conn.pragma_update(None, "query_only", true)?;
            Ok(conn)
        }
        Access::ReadOnly => {
            let quiescent = !sidecar(path, "-wal").exists();
            Connection::open_with_flags(
                read_only_uri(path, quiescent),
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | no_mutex,
            )
        }
        Access::Existing => Connection::open_with_flags(path, read_write),
        Access::Create => {
            Connection::open_with_flags(path, read_write | OpenFlags::SQLITE_OPEN_CREATE)
        }
    }
}

/// Whether this process may open `path` for writing (opening for writing
/// without truncating changes nothing).
fn can_write(path: &Path) -> bool {
    std::fs::OpenOptions::new().write(true).open(path).is_ok()
}

/// `path` with `suffix` appended to its file name (`-wal`, `-shm`).
fn sidecar(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// `file:` URI for `path`, read-only (and immutable when `quiescent`),
/// every byte but the plainest escaped.
fn read_only_uri(path: &Path, quiescent: bool) -> String {
    let mut uri = String::from("file:");
    for &byte in path.as_os_str().as_encoded_bytes() {
        if byte.is_ascii_alphanumeric() || b"/._-~".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri.push_str(if quiescent {
        "?mode=ro&immutable=1"
    } else {
        "?mode=ro"
    });
    uri
}

/// Opens a connection to `path` once it is known to be ours (or new and
/// empty, when `access` may create), migrating it to [`SCHEMA_VERSION`]
/// only if it is behind and `access` may write. Anything else is refused
/// before a byte is written.
pub(crate) fn open_verified(path: &Path, access: Access) -> Result<Connection, StoreError> {
    let display = path.display().to_string();
    let missing = || StoreError::Missing {
        path: display.clone(),
    };
    match file_start(path)? {
        FileStart::Missing if access != Access::Create => return Err(missing()),
        FileStart::Foreign => {
            return Err(StoreError::NotAStore {
                path: display.clone(),
            });
        }
        FileStart::Missing | FileStart::Empty | FileStart::Sqlite => {}
    }
    let mut conn = connect(path, access).map_err(sql_error)?;
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
    if access == Access::ReadOnly {
        if blank {
            return Err(missing());
        }
        if version < SCHEMA_VERSION {
            return Err(StoreError::NeedsMigration {
                path: display,
                found: version,
                supported: SCHEMA_VERSION,
            });
        }
        return Ok(conn);
    }
    if version < SCHEMA_VERSION {
        migrate(&mut conn, &display)?;
    }
    let journal: String = conn
        .pragma_query_value(None, "journal_mode", |row| row.get(0))
        .map_err(sql_error)?;
    if !journal.eq_ignore_ascii_case("wal") {
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sql_error)?;
    }
    Ok(conn)
}

/// What the first bytes of a file say about it.
enum FileStart {
    Missing,
    Empty,
    Sqlite,
    Foreign,
}

/// Whether the file is missing, empty, starts like an SQLite database, or
/// is something else.
fn file_start(path: &Path) -> Result<FileStart, StoreError> {
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(FileStart::Missing),
        Err(err) => return Err(StoreError::backend(err)),
    };
    let mut header = Vec::with_capacity(16);
    file.by_ref()
        .take(16)
        .read_to_end(&mut header)
        .map_err(StoreError::backend)?;
    Ok(if header.is_empty() {
        FileStart::Empty
    } else if header.as_slice() == SQLITE_HEADER {
        FileStart::Sqlite
    } else {
        FileStart::Foreign
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quiescent_store_is_read_through_its_uri_without_sidecar_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("odd name?#%.db");
        {
            let conn = open_verified(&path, Access::Create).unwrap();
            conn.execute_batch("INSERT INTO negotiations (id, initiator_user_id, initiator_intent_id, responder_user_id, responder_intent_id) VALUES ('x', 'a', 'i', 'b', 'j')").unwrap();
        }
        let before = std::fs::read(&path).unwrap();
        let conn = Connection::open_with_flags(
            read_only_uri(&path, true),
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
        )
        .unwrap();
        let ids: i64 = conn
            .query_row("SELECT count(*) FROM negotiations", [], |row| row.get(0))
            .unwrap();
        assert_eq!(ids, 1);
        assert!(conn.execute_batch("DELETE FROM negotiations").is_err());
        drop(conn);
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert!(!sidecar(&path, "-wal").exists() && !sidecar(&path, "-shm").exists());
    }
}
