//! How a store is opened: its durability, its access, its pool.

use std::time::Duration;

#[cfg(doc)]
use index_negotiation_store::StoreError;

/// How hard SQLite works to make each commit durable (the store runs in
/// WAL mode).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Synchronous {
    /// `synchronous=NORMAL`: a commit survives the process crashing or
    /// being killed at any point. After a power loss or an operating-system
    /// crash, the last commits before it may be lost (the database is never
    /// corrupted; it rolls back to an earlier commit). The WAL is synced at
    /// each checkpoint rather than at each commit.
    #[default]
    Normal,
    /// `synchronous=FULL`: the WAL is synced to the disk before each commit
    /// returns, so a commit that returned also survives a power loss, at
    /// a quarter to a half of the commit rate.
    Full,
}

/// Whether a store may be written, and whether opening it may create it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Access {
    /// Read and write, creating the file (and migrating it) when needed.
    #[default]
    Create,
    /// Read and write an existing store, migrating it when needed; a
    /// missing file is [`StoreError::Missing`].
    Existing,
    /// Read an existing store without writing a byte: no migration, no
    /// journal change, and no `-wal` or `-shm` file left behind, so a file
    /// on a read-only mount, or another user's, can be listed and shown. A
    /// missing file is [`StoreError::Missing`]; one that needs a migration
    /// is [`StoreError::NeedsMigration`]; every write fails.
    ReadOnly,
}

/// Settings for [`SqliteStore::open_with`](crate::SqliteStore::open_with). Build them with the `with_*`
/// methods, so that a setting added later is not a breaking change.
///
/// ```
/// use index_negotiation_store_sqlite::{Access, SqliteOptions, Synchronous};
/// let options = SqliteOptions::default().with_synchronous(Synchronous::Full).with_access(Access::Existing);
/// assert_eq!(options.synchronous, Synchronous::Full);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SqliteOptions {
    /// Durability of each commit.
    pub synchronous: Synchronous,
    /// How long a commit waits for another connection's write lock before
    /// failing with a storage error.
    pub busy_timeout: Duration,
    /// Connections kept open for reuse.
    pub max_idle_connections: usize,
    /// Whether the store may be written or created.
    pub access: Access,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        SqliteOptions {
            synchronous: Synchronous::Normal,
            busy_timeout: Duration::from_secs(10),
            max_idle_connections: 8,
            access: Access::Create,
        }
    }
}

impl SqliteOptions {
    /// With `synchronous` durability.
    #[must_use]
    pub fn with_synchronous(mut self, synchronous: Synchronous) -> Self {
        self.synchronous = synchronous;
        self
    }

    /// With a commit waiting up to `busy_timeout` for another writer.
    #[must_use]
    pub fn with_busy_timeout(mut self, busy_timeout: Duration) -> Self {
        self.busy_timeout = busy_timeout;
        self
    }

    /// Keeping at most `max_idle_connections` open for reuse.
    #[must_use]
    pub fn with_max_idle_connections(mut self, max_idle_connections: usize) -> Self {
        self.max_idle_connections = max_idle_connections;
        self
    }

    /// With `access`.
    #[must_use]
    pub fn with_access(mut self, access: Access) -> Self {
        self.access = access;
        self
    }
}
