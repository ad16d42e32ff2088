//! Recognising our database, refusing anything else untouched, and bringing
//! ours up to the current schema.
//!
//! Nothing here opens the database file (or its `-wal` and `-shm`) other
//! than through SQLite. POSIX advisory locks belong to the process, and
//! closing *any* descriptor of a file drops every lock the process holds
//! on it: a `File::open` and close of the database beside a live SQLite
//! connection would leave that connection unlocked, so another process
//! would take itself for the last user, checkpoint and delete the WAL
//! under it, and from then on the two would read different databases.
//! SQLite itself defers closing a descriptor while a lock on its file is
//! held. So what this module learns about the file before SQLite has it
//! comes from `stat` (which opens nothing), and everything else, whether
//! it is a database, whether it may be written, comes from SQLite.

use std::path::{Path, PathBuf};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, MAIN_DB, OpenFlags, TransactionBehavior};

use index_negotiation_store::StoreError;

use crate::error::sql_error;
use crate::options::Access;

/// `PRAGMA application_id` of an Index negotiation store ("INDX").
pub(crate) const APPLICATION_ID: i64 = 0x494E_4458;

/// Numbered migrations; a database at version N has run the first N.
const MIGRATIONS: [&str; 10] = [
    include_str!("../migrations/0001_initial.sql"),
    include_str!("../migrations/0002_api_keys.sql"),
    include_str!("../migrations/0003_question_loop.sql"),
    include_str!("../migrations/0004_rounds_and_changes.sql"),
    include_str!("../migrations/0005_key_details.sql"),
    include_str!("../migrations/0006_host_state.sql"),
    include_str!("../migrations/0007_interactions.sql"),
    include_str!("../migrations/0008_oauth_keys.sql"),
    include_str!("../migrations/0009_audit.sql"),
    include_str!("../migrations/0010_webhooks.sql"),
];

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// How one store's connections open its file, settled when the store is
/// opened so every connection of it behaves alike.
#[derive(Debug, Clone)]
pub(crate) struct Opener {
    path: PathBuf,
    access: Access,
    /// A `-wal` holding commits was there before this store opened the
    /// file: a reader then leaves it as it found it instead of
    /// checkpointing it into the database when it closes last (a log a
    /// killed writer left is the next writer's to recover; a read must not
    /// change the file's bytes). An empty one, which another reader made,
    /// does not count, so overlapping readers still clean up after
    /// themselves.
    found_wal: bool,
}

impl Opener {
    pub(crate) fn new(path: PathBuf, access: Access) -> Self {
        let found_wal = std::fs::metadata(sidecar(&path, "-wal")).is_ok_and(|wal| wal.len() > 0);
        Opener {
            path,
            access,
            found_wal,
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn access(&self) -> Access {
        self.access
    }

    /// A connection with the flags the store's access calls for.
    pub(crate) fn connect(&self) -> Result<Connection, StoreError> {
        self.connect_as(self.access)
    }

    /// A connection that only reads, whatever the store's access.
    pub(crate) fn connect_reader(&self) -> Result<Connection, StoreError> {
        self.connect_as(Access::ReadOnly)
    }

    /// Reading a WAL database needs its `-wal` and `-shm` files, and a
    /// connection opened read-only creates them and, unable to checkpoint,
    /// leaves them behind, owned by the reader and with the database's
    /// mode: a reader of someone else's store would break it for its
    /// owner. So a reader first asks SQLite for the file read-write (SQLite
    /// falls back to read-only by itself when the file is write-protected,
    /// and says so); given write access, it sets `query_only` (SQLite
    /// refuses every change, and the last connection to close removes the
    /// files it made). Without it, it reads through the files a live writer
    /// has, or, when there is no `-wal` (nobody is writing), as immutable,
    /// which needs neither.
    fn connect_as(&self, access: Access) -> Result<Connection, StoreError> {
        let no_mutex = OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let read_write = OpenFlags::SQLITE_OPEN_READ_WRITE | no_mutex;
        let path = &self.path;
        match access {
            Access::ReadOnly => {
                let conn = Connection::open_with_flags(path, read_write).map_err(sql_error)?;
                if !conn.is_readonly(MAIN_DB).map_err(sql_error)? {
                    conn.pragma_update(None, "query_only", true)
                        .map_err(sql_error)?;
                    if self.found_wal {
                        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
                            .map_err(sql_error)?;
                    }
                    return Ok(conn);
                }
                drop(conn);
                let wal = sidecar(path, "-wal").exists();
                if wal && !sidecar(path, "-shm").exists() {
                    return Err(StoreError::NeedsRecovery {
                        path: path.display().to_string(),
                    });
                }
                Connection::open_with_flags(
                    read_only_uri(path, !wal),
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | no_mutex,
                )
                .map_err(sql_error)
            }
            Access::Existing => Connection::open_with_flags(path, read_write).map_err(sql_error),
            Access::Create => {
                Connection::open_with_flags(path, read_write | OpenFlags::SQLITE_OPEN_CREATE)
                    .map_err(sql_error)
            }
        }
    }
}

/// `path` with `suffix` appended to its file name (`-wal`, `-shm`).
fn sidecar(path: &Path, suffix: &str) -> PathBuf {
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

/// Opens a connection through `opener` once the file is known to be ours
/// (or new and empty, when its access may create), migrating it to
/// [`SCHEMA_VERSION`] only if it is behind and the access may write.
/// Anything else is refused before a byte is written.
pub(crate) fn open_verified(opener: &Opener) -> Result<Connection, StoreError> {
    let (path, access) = (opener.path(), opener.access());
    let display = path.display().to_string();
    let missing = || StoreError::Missing {
        path: display.clone(),
    };
    // `stat` only: the file is not opened outside SQLite (see the module).
    match std::fs::metadata(path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            if access != Access::Create {
                return Err(missing());
            }
        }
        Err(err) => return Err(StoreError::backend(err)),
        Ok(meta) if !meta.is_file() => {
            return Err(StoreError::NotAStore {
                path: display.clone(),
            });
        }
        Ok(_) => {}
    }
    let mut conn = opener.connect()?;
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(sql_error)?;
    // Reading is harmless; a file that is not a database fails here, on
    // SQLite's first look at its header, before anything is written.
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
            let conn = open_verified(&Opener::new(path.clone(), Access::Create)).unwrap();
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
