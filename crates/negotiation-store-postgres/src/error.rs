//! PostgreSQL's errors as the store port's: the one readable error type
//! (public, to downcast a [`StoreError::Backend`] to), and whether a
//! failure is worth another try.

use index_negotiation_store::StoreError;

/// PostgreSQL's errors as storage errors.
pub(crate) fn pg_error(err: tokio_postgres::Error) -> StoreError {
    StoreError::backend(ServerError::from(err))
}

/// The pool's failures: the database's own where there is one.
pub(crate) fn pool_error(err: deadpool_postgres::PoolError) -> StoreError {
    match err {
        deadpool_postgres::PoolError::Backend(err) => pg_error(err),
        other => StoreError::backend(other),
    }
}

/// A PostgreSQL failure that reads as what went wrong. `tokio_postgres`
/// shows only "db error" or "error connecting to server" and keeps the
/// reason in its source chain; this shows the server's severity, SQLSTATE
/// and message (or the connection's whole chain of causes) in one line. The
/// driver never puts the connection's password in an error, and neither
/// does this.
#[derive(Debug)]
pub struct ServerError {
    message: String,
    error: tokio_postgres::Error,
}

impl ServerError {
    /// The SQLSTATE the server sent, if the failure came from the server.
    pub fn code(&self) -> Option<&tokio_postgres::error::SqlState> {
        self.error.code()
    }

    /// Whether trying again on a fresh connection may succeed: a
    /// serialization failure, a deadlock, or a connection that was closed
    /// (a pooled one the server dropped, say).
    pub(crate) fn is_transient(&self) -> bool {
        use tokio_postgres::error::SqlState;
        // Class 57P: the server shut the connection down (an administrator,
        // a crash, a restart); class 08: the connection failed.
        self.error.is_closed()
            || matches!(self.code(), Some(code) if *code == SqlState::T_R_SERIALIZATION_FAILURE
                || *code == SqlState::T_R_DEADLOCK_DETECTED
                || code.code().starts_with("57P")
                || code.code().starts_with("08"))
    }
}

impl From<tokio_postgres::Error> for ServerError {
    fn from(error: tokio_postgres::Error) -> Self {
        let message = match error.as_db_error() {
            Some(db) => {
                let mut message = format!(
                    "{} (SQLSTATE {}): {}",
                    db.severity(),
                    db.code().code(),
                    db.message()
                );
                if let Some(detail) = db.detail() {
                    message.push_str(&format!(" ({detail})"));
                }
                message
            }
            None => {
                let mut message = error.to_string();
                let mut cause = std::error::Error::source(&error);
                while let Some(err) = cause {
                    message.push_str(&format!(": {err}"));
                    cause = err.source();
                }
                message
            }
        };
        ServerError { message, error }
    }
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ServerError {}
