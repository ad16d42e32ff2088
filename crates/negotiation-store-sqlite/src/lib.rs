//! The embedded default backend for the negotiation store: one SQLite file.
//!
//! Every commit is one `BEGIN IMMEDIATE` transaction: it takes the
//! database's write lock, reads the negotiation and both seats'
//! eligibility, asks the rules once, and writes the turn and the new state
//! before committing, so concurrent tasks and separate processes on the
//! same file serialize. The `(negotiation, turn_index)` primary key is the
//! backstop: an index already taken is reported as `raced`. The journal is
//! WAL. Every statement is a constant, compiled once per connection and
//! kept in its statement cache. SQLite's work never holds up the async
//! executor: on a multi-threaded runtime it runs in place under
//! `block_in_place` (no hop to another thread and back per commit), on a
//! current-thread runtime on tokio's blocking pool. This process's writes
//! go one at a time: a lone write runs in place, and writes that arrive
//! while one runs wait as futures and are run back to back by one writer
//! thread, so a busy host does not spend its cores handing threads
//! around.
//!
//! **Durability.** [`Synchronous::Normal`] (the default) keeps every commit
//! through a crash or kill of the process; a power loss or an operating
//! system crash may lose the last commits, never corrupt the file.
//! [`Synchronous::Full`] syncs each commit before it returns, so it
//! survives those too, at about a quarter to a half of the commit rate
//! (`cargo bench --bench sqlite_vs_raw` measures both). The `index` tool
//! takes `--sqlite-sync full`.
//!
//! Opening a file that is not a database, belongs to another program, or
//! was written by a newer schema is refused with a clear error before
//! anything is written to it.
//!
//! ```
//! use index_negotiation::{NegotiationAction, NegotiationTurn};
//! use index_negotiation_store::{Actor, Negotiations, OpenNegotiation, OpportunityId, Seat};
//! use index_negotiation_store_sqlite::SqliteStore;
//!
//! # tokio::runtime::Builder::new_multi_thread().build().unwrap().block_on(async {
//! let dir = tempfile::tempdir().unwrap();
//! let store = SqliteStore::open(dir.path().join("index.db")).await?;
//! let negotiations = Negotiations::new(store);
//! let opp: OpportunityId = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36".parse()?;
//! negotiations.open(&OpenNegotiation {
//!     opportunity_id: opp.clone(),
//!     initiator: Seat { user_id: "alice".parse()?, intent_id: "hire".parse()? },
//!     responder: Seat { user_id: "bob".parse()?, intent_id: "join".parse()? },
//!     eligible: true,
//! }, &Actor::operator()).await?;
//! let turn = NegotiationTurn::new(NegotiationAction::Propose, "Intro call?");
//! let (decision, after) = negotiations.execute(&opp, &"alice".parse()?, turn, &Actor::operator()).await?;
//! assert!(decision.is_ok());
//! assert_eq!(after.map(|after| after.summary.turn_count), Some(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! | module | holds |
//! |---|---|
//! | `options` | `SqliteOptions`, `Synchronous`, `Access` |
//! | `schema` | recognising our file, migrations, connections for each access |
//! | `pool` | connections, with SQLite work off the async executor; a request's key looked up right on it, on connections that never wait |
//! | `writes` | this process's writes queued for one writer thread |
//! | `store` | each operation as one `BEGIN IMMEDIATE` transaction |
//! | `tx` | a write transaction that locks from its start, and statements through the connection's cache |
//! | `rows` | SQLite's rows handed to the row kit, and a listing's page read one seat's index at a time |
//! | `keys` | the API keys |
//! | `audit` | reading the audit record (the commits in `store` append to it) |
//! | `webhooks` | webhook endpoints, and the outbox each commit queues its event in |
//! | `host_state` | what hosts share between requests: signing keys, spent tokens, tasks |
//! | `interactions` | the interactions a host provides, and each response command decided under the write lock |
//! | `holders` | the other processes that have the file open (`/proc/locks`) |
//! | `check` | `store check`'s rules: every column as the store writes it, and what ties rows, logs, records and keys together |
//! | `error` | SQLite's errors as the port's |

mod audit;
mod check;
mod error;
#[cfg(unix)]
mod holders;
mod host_state;
mod interactions;
mod keys;
mod options;
mod pool;
mod rows;
mod schema;
mod store;
mod tx;
mod webhooks;
mod writes;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use index_negotiation_store::StoreError;

pub use options::{Access, SqliteOptions, Synchronous};
pub use schema::SCHEMA_VERSION as CURRENT_SCHEMA_VERSION;

use crate::error::sql_error;

/// A negotiation store in one SQLite file. Cheap to clone; clones share
/// their connections.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: Arc<pool::Pool>,
}

impl SqliteStore {
    /// Opens (creating if missing) the store at `path` with default options.
    ///
    /// # Errors
    ///
    /// [`StoreError::NotAStore`] for a file that is not ours,
    /// [`StoreError::NewerSchema`] for one from a newer version, and
    /// [`StoreError::Backend`] when SQLite fails; the file is untouched in
    /// the first two cases. With [`Access::Existing`] or [`Access::ReadOnly`],
    /// also [`StoreError::Missing`], and with [`Access::ReadOnly`]
    /// [`StoreError::NeedsMigration`].
    pub async fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::open_with(path, SqliteOptions::default()).await
    }

    /// Opens the store at `path` with `options`.
    ///
    /// # Errors
    ///
    /// As [`SqliteStore::open`].
    pub async fn open_with(
        path: impl AsRef<Path>,
        options: SqliteOptions,
    ) -> Result<Self, StoreError> {
        let path: PathBuf = path.as_ref().to_path_buf();
        let pool = tokio::task::spawn_blocking(move || pool::Pool::open(path, options))
            .await
            .map_err(StoreError::backend)??;
        Ok(SqliteStore {
            pool: Arc::new(pool),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        self.pool.path()
    }

    /// The other processes that have this store's file open right now, by
    /// process id, ascending; `None` where the system does not say (it is
    /// read from Linux's `/proc/locks`, without opening the file). A check
    /// of a store that others have open is a check of one moment: their
    /// commits after it are not covered.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use index_negotiation_store_sqlite::SqliteStore;
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = SqliteStore::open(dir.path().join("index.db")).await?;
    /// // Only this process has it open.
    /// assert!(store.other_processes().is_none_or(|others| others.is_empty()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn other_processes(&self) -> Option<Vec<u32>> {
        #[cfg(unix)]
        return holders::other_processes(self.path());
        #[cfg(not(unix))]
        return None;
    }

    /// Runs SQLite's integrity check; `Ok(())` when the file is consistent.
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] with SQLite's findings, or a storage error.
    pub async fn check_integrity(&self) -> Result<(), StoreError> {
        self.pool
            .run(|conn| {
                let verdict: String = conn
                    .query_row("PRAGMA integrity_check", [], |row| row.get(0))
                    .map_err(sql_error)?;
                if verdict == "ok" {
                    Ok(())
                } else {
                    Err(StoreError::Corrupt(verdict))
                }
            })
            .await
    }

    /// Everything [`SqliteStore::check_integrity`] checks, then every rule
    /// the store's readers rely on and SQLite does not enforce, table by
    /// table, in one read transaction:
    ///
    /// - every column holds what the store writes there: text, an integer,
    ///   a key's hash a blob, a flag 0 or 1;
    /// - each negotiation's row reads back (its ids, and known outcomes and
    ///   statuses); its seats are two people with two intents; it is
    ///   settled exactly when it has an outcome, with the status the commit
    ///   that settled it (or not) wrote; a park names its person and its
    ///   question together, an answer has a park and is stored trimmed;
    ///   its counters are not negative, its `last_change` is its own and
    ///   positive;
    /// - its turn indexes are dense and each turn's message is stored
    ///   trimmed; its log replays through the rules to the stored state
    ///   ([`index_negotiation::audit_negotiation_log`]); its round marks
    ///   fall inside the log, where the log puts them;
    /// - its message record is dense from position 0, every message
    ///   decodes, and it holds one question per ask round counted;
    /// - no turn or message belongs to a negotiation that is not there;
    /// - every API key reads back as its readers read it (a 32-byte hash,
    ///   a known scope, a valid user, times not negative), its id is one
    ///   word, and its name is one a key can be made with.
    ///
    /// Reads only, so it runs on a store opened with [`Access::ReadOnly`].
    /// Returns each problem found, named after its negotiation or key;
    /// empty when there is none.
    ///
    /// # Errors
    ///
    /// A storage error when the file cannot be read at all.
    pub async fn check(&self) -> Result<Vec<String>, StoreError> {
        let mut problems = match self.check_integrity().await {
            Ok(()) => Vec::new(),
            Err(StoreError::Corrupt(verdict)) => vec![format!("SQLite: {verdict}")],
            Err(other) => return Err(other),
        };
        problems.extend(self.pool.run(check::problems).await?);
        Ok(problems)
    }
}
