//! A small pool of connections, each used by one blocking task at a time.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::Connection;

use index_negotiation_store::StoreError;

use crate::error::sql_error;
use crate::options::{SqliteOptions, Synchronous};
use crate::schema;
use crate::writes::{Submitted, Write, Writes};

pub(crate) struct Pool {
    opener: schema::Opener,
    options: SqliteOptions,
    idle: Mutex<Vec<Connection>>,
    /// The connections of [`Pool::quick`], which never wait on a lock:
    /// one for each core at least, so a quick read almost always finds
    /// one free rather than falling back to [`Pool::run`].
    quick: Box<[Mutex<Option<Connection>>]>,
    /// This process's writes, one at a time, so they queue here instead of
    /// colliding on SQLite's lock and sleeping in its busy handler.
    writes: Arc<Writes>,
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.writes.close();
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("opener", &self.opener)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// How many quick reads may run at once: at least eight, and one for each
/// core. A read takes microseconds, so two collide only when two threads
/// read in the same few microseconds, and no more threads than cores run
/// at once; with a slot for each, one is almost always free.
fn quick_connections() -> usize {
    std::thread::available_parallelism().map_or(8, |cores| cores.get().max(8))
}

impl Pool {
    /// Verifies and migrates the file, keeping the connection that did it.
    pub(crate) fn open(path: PathBuf, options: SqliteOptions) -> Result<Self, StoreError> {
        let opener = schema::Opener::new(path, options.access);
        let conn = schema::open_verified(&opener)?;
        let pool = Pool {
            opener,
            options,
            idle: Mutex::new(Vec::new()),
            quick: (0..quick_connections()).map(|_| Mutex::new(None)).collect(),
            writes: Writes::start()?,
        };
        pool.configure(&conn)?;
        pool.put(conn);
        Ok(pool)
    }

    pub(crate) fn path(&self) -> &Path {
        self.opener.path()
    }

    /// A connection of its own that only reads, for work that outlives
    /// one call (the change feed).
    pub(crate) fn reader(&self) -> Result<Connection, StoreError> {
        self.opener.connect_reader()
    }

    fn configure(&self, conn: &Connection) -> Result<(), StoreError> {
        let synchronous = match self.options.synchronous {
            Synchronous::Normal => "NORMAL",
            Synchronous::Full => "FULL",
        };
        conn.pragma_update(None, "synchronous", synchronous)
            .map_err(sql_error)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(sql_error)?;
        // Room for every statement the store prepares, so none is evicted.
        conn.set_prepared_statement_cache_capacity(32);
        conn.busy_timeout(self.options.busy_timeout)
            .map_err(sql_error)
    }

    fn take(&self) -> Result<Connection, StoreError> {
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        match idle {
            Some(conn) => Ok(conn),
            None => {
                let conn = self.opener.connect()?;
                self.configure(&conn)?;
                Ok(conn)
            }
        }
    }

    fn put(&self, conn: Connection) {
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < self.options.max_idle_connections
        {
            idle.push(conn);
        }
    }

    /// Runs read-only `work` with a connection, off the async executor. A
    /// connection whose work failed is closed rather than reused.
    pub(crate) async fn run<T, F>(self: &Arc<Self>, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let pool = Arc::clone(self);
        off_executor(move || pool.with_connection(work)).await
    }

    /// Runs a short read right here, on the caller's thread, when it can
    /// finish at once: on one of the quick connections, which never wait
    /// on a lock, when one is free. `None` when none was, or the read
    /// failed; the caller then reads through [`Pool::run`],
    /// which waits as long as it must and says what went wrong.
    ///
    /// A lookup of one row by an index takes microseconds, a few times less
    /// than handing the executor's core to another thread for it, as
    /// [`Pool::run`] does; it is how a request's key is found.
    pub(crate) fn quick<T>(
        &self,
        work: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Option<T> {
        let mut quick = self.quick.iter().find_map(|slot| match slot.try_lock() {
            Ok(quick) => Some(quick),
            // A read that panicked left its connection in doubt: the slot
            // starts afresh.
            Err(std::sync::TryLockError::Poisoned(poisoned)) => {
                let mut quick = poisoned.into_inner();
                *quick = None;
                Some(quick)
            }
            Err(std::sync::TryLockError::WouldBlock) => None,
        })?;
        if quick.is_none() {
            let conn = self.opener.connect().ok()?;
            self.configure(&conn).ok()?;
            conn.busy_timeout(std::time::Duration::ZERO).ok()?;
            *quick = Some(conn);
        }
        let result = work(quick.as_ref()?);
        if let Err(err) = &result
            && !matches!(
                err.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            )
        {
            // Worse than busy: the next quick read starts afresh.
            *quick = None;
        }
        result.ok()
    }

    /// Runs `work`, which writes, one at a time with this process's other
    /// writes (see [`crate::writes`]). A read-only store refuses before
    /// touching the file.
    pub(crate) async fn run_write<T, F>(self: &Arc<Self>, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        if self.options.access == crate::options::Access::ReadOnly {
            return Err(StoreError::InvalidRequest(format!(
                "{} was opened for reading only",
                self.path().display()
            )));
        }
        let (done, result) = tokio::sync::oneshot::channel();
        let pool = Arc::clone(self);
        let write: Write = Box::new(move || {
            // The waiter may have given up (its future dropped); the write
            // stands either way, as a commit whose reply was lost does.
            let _ = done.send(pool.with_connection(work));
        });
        if let Submitted::RunHere(write) = self.writes.submit(write) {
            let writes = Arc::clone(&self.writes);
            off_executor(move || {
                writes.run_here(write);
                Ok(())
            })
            .await?;
        }
        result
            .await
            .map_err(|_| StoreError::Backend("the write stopped before it finished".into()))?
    }

    /// Runs `work` with a pooled connection; one whose work failed is
    /// closed rather than reused.
    fn with_connection<T>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut conn = self.take()?;
        let result = work(&mut conn);
        if result.is_ok() {
            self.put(conn);
        }
        result
    }
}

/// Runs blocking `job` without holding up the async executor. On a
/// multi-threaded runtime `block_in_place` runs it right here and hands this
/// worker's other tasks to another thread: no hop to the blocking pool and
/// back, which cost a commit about a third of its time. A current-thread
/// runtime cannot do that, so there the job goes to the blocking pool;
/// outside tokio it simply runs.
async fn off_executor<T: Send + 'static>(
    job: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    match tokio::runtime::Handle::try_current().map(|handle| handle.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => {
            let result = tokio::task::block_in_place(job);
            // Work that never awaits would let a loop of store calls hold
            // its worker forever; spend the task's budget like any I/O.
            tokio::task::consume_budget().await;
            result
        }
        Ok(_) => tokio::task::spawn_blocking(job)
            .await
            .map_err(StoreError::backend)?,
        Err(_) => job(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(conn: &Connection) -> rusqlite::Result<i64> {
        conn.query_row("SELECT 1", [], |row| row.get(0))
    }

    #[test]
    fn a_quick_read_finds_a_free_connection_while_others_are_held() {
        let dir = tempfile::tempdir().unwrap();
        let pool = Pool::open(dir.path().join("quick.db"), SqliteOptions::default()).unwrap();
        // Every slot but the last is busy with a read of its own.
        let slots = pool.quick.len();
        assert!(slots >= 8);
        let held: Vec<_> = pool.quick[..slots - 1]
            .iter()
            .map(|slot| slot.lock().unwrap())
            .collect();
        assert_eq!(pool.quick(one), Some(1));
        // With the last held too, it says so, and the caller falls back.
        let last = pool.quick[slots - 1].lock().unwrap();
        assert_eq!(pool.quick(one), None);
        drop((held, last));
        assert_eq!(pool.quick(one), Some(1));
    }
}
