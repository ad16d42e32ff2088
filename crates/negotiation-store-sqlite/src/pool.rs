//! A small pool of connections, each used by one blocking task at a time.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::Connection;

use index_negotiation_store::StoreError;

use crate::{SqliteOptions, Synchronous, schema, sql_error};

#[derive(Debug)]
pub(crate) struct Pool {
    opener: schema::Opener,
    options: SqliteOptions,
    idle: Mutex<Vec<Connection>>,
    /// Taken around write transactions so this process's writers queue here
    /// instead of colliding on SQLite's lock and sleeping in its busy
    /// handler. Other processes still serialize through SQLite itself.
    writer: Mutex<()>,
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
            writer: Mutex::new(()),
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
    pub(crate) async fn run<T, F>(self: &std::sync::Arc<Self>, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        self.run_inner(false, work).await
    }

    /// Runs `work`, which writes, behind this process's writer lock. A
    /// read-only store refuses before touching the file.
    pub(crate) async fn run_write<T, F>(
        self: &std::sync::Arc<Self>,
        work: F,
    ) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        self.run_inner(true, work).await
    }

    async fn run_inner<T, F>(
        self: &std::sync::Arc<Self>,
        writes: bool,
        work: F,
    ) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        if writes && self.options.access == crate::Access::ReadOnly {
            return Err(StoreError::InvalidRequest(format!(
                "{} was opened for reading only",
                self.path().display()
            )));
        }
        let pool = std::sync::Arc::clone(self);
        let job = move || {
            // A poisoned writer lock only means another writer panicked; the
            // database itself is protected by its own transaction.
            let _writer = writes.then(|| {
                pool.writer
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
            });
            let mut conn = pool.take()?;
            let result = work(&mut conn);
            if result.is_ok() {
                pool.put(conn);
            }
            result
        };
        // SQLite blocks, so its work must not hold up the executor. On a
        // multi-threaded runtime `block_in_place` runs it right here and
        // hands this worker's other tasks to another thread: no hop to the
        // blocking pool and back, which cost a commit about a third of its
        // time. A current-thread runtime cannot do that, so there the work
        // goes to the blocking pool; outside tokio it simply runs.
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
}
