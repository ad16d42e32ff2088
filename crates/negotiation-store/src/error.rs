//! Storage failures. A protocol refusal is a decision, never one of these.

/// Why a store could not do what was asked. Distinct from the rules'
/// rejections: a `StoreError` means the storage failed or refused to run,
/// and nothing was applied.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The storage engine failed (I/O, locking, a dropped connection). The
    /// engine's error is the source, to walk (as [`ErrorChain`] does) or
    /// downcast; the message is this error's own.
    ///
    /// ```
    /// use index_negotiation_store::{ErrorChain, StoreError};
    /// let err = StoreError::backend(std::io::Error::other("disk full"));
    /// assert_eq!(err.to_string(), "the negotiation store failed");
    /// assert!(std::error::Error::source(&err).is_some());
    /// assert_eq!(ErrorChain(&err).to_string(), "the negotiation store failed: disk full");
    /// ```
    #[error("the negotiation store failed")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// There is no store where one was expected, and the caller asked that
    /// none be created (a read, or a write to an existing store).
    #[error("there is no negotiation store at {path}")]
    Missing {
        /// Where it was looked for.
        path: String,
    },
    /// The store was opened for reading and needs a migration that only an
    /// open for writing may run; nothing was written.
    #[error(
        "{path} has schema version {found}; open it for writing once to migrate it to {supported}"
    )]
    NeedsMigration {
        /// Where it is.
        path: String,
        /// Its schema version.
        found: i64,
        /// The version this build writes.
        supported: i64,
    },
    /// A reader without write access found a write-ahead log that a writer
    /// left behind when it stopped, without the index SQLite reads it
    /// through, and cannot rebuild that index beside a file it may not
    /// write. Nothing was read or written.
    #[error(
        "{path} has a write-ahead log ({path}-wal) left by a writer that stopped, and no {path}-shm to read it through; this process cannot write there to rebuild it. Run any `index` command on the store once as a user who may write to its directory (that rebuilds the index; the next write folds the log into the file), then read it again"
    )]
    NeedsRecovery {
        /// Where it is.
        path: String,
    },
    /// The database exists but belongs to something else; it was left untouched.
    #[error("{path} is not an Index negotiation store; it was left untouched")]
    NotAStore {
        /// Where it is.
        path: String,
    },
    /// The database was written by a newer version of this software.
    #[error(
        "{path} has schema version {found}, newer than the {supported} this build understands; upgrade to open it"
    )]
    NewerSchema {
        /// Where it is.
        path: String,
        /// Its schema version.
        found: i64,
        /// The newest this build knows.
        supported: i64,
    },
    /// Stored data cannot be read back (an unknown action, a malformed message).
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The request itself is unusable (a connection string that does not
    /// parse, for example).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
}

/// An error and every cause it chains, as one line: each message after the
/// one before, separated by `: `. A cause whose message the one before it
/// already shows is left out, so an error that both shows and chains its
/// cause does not print it twice.
///
/// ```
/// use index_negotiation_store::{ErrorChain, StoreError};
/// let err = StoreError::Backend("a lock was poisoned".into());
/// assert_eq!(ErrorChain(&err).to_string(), "the negotiation store failed: a lock was poisoned");
/// ```
#[derive(Clone, Copy)]
pub struct ErrorChain<'a>(pub &'a (dyn std::error::Error + 'static));

impl std::fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut shown = self.0.to_string();
        f.write_str(&shown)?;
        let mut cause = self.0.source();
        while let Some(error) = cause {
            let message = error.to_string();
            if !shown.contains(&message) {
                write!(f, ": {message}")?;
            }
            shown = message;
            cause = error.source();
        }
        Ok(())
    }
}

impl std::fmt::Debug for ErrorChain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl StoreError {
    /// Wraps any engine error.
    pub fn backend(err: impl std::error::Error + Send + Sync + 'static) -> Self {
        StoreError::Backend(Box::new(err))
    }
}
