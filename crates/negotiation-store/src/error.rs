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

/// An id read back from storage, checked as every id is. One that fails
/// its check was written around the store, so it is
/// [`StoreError::Corrupt`], never a panic.
///
/// ```
/// use index_negotiation_store::{StoreError, UserId, stored_id};
/// let dana: UserId = stored_id("dana".to_owned())?;
/// assert_eq!(dana, "dana");
/// assert!(matches!(stored_id::<UserId>(" ".to_owned()), Err(StoreError::Corrupt(_))));
/// # Ok::<(), StoreError>(())
/// ```
pub fn stored_id<T>(text: String) -> Result<T, StoreError>
where
    T: TryFrom<String, Error = index_negotiation::InvalidId>,
{
    T::try_from(text).map_err(|invalid| StoreError::Corrupt(format!("a stored id: {invalid}")))
}

/// A park read back from storage: its person, its question as the JSON
/// text the store keeps, and its answer. A question that does not read
/// back as a valid structured question is [`StoreError::Corrupt`].
///
/// ```
/// use index_negotiation_store::{StoreError, stored_park};
/// let question = r#"{"title":"Budget","prompt":"Which budget?","options":[{"label":"Low","description":"Go low."},{"label":"High","description":"Go high."}],"multiSelect":false}"#;
/// let park = stored_park("dana".to_owned(), question, None)?;
/// assert!(park.is_open());
/// assert!(matches!(stored_park("dana".to_owned(), "{}", None), Err(StoreError::Corrupt(_))));
/// # Ok::<(), StoreError>(())
/// ```
pub fn stored_park(
    user_id: String,
    question: &str,
    answer: Option<String>,
) -> Result<index_negotiation::Park, StoreError> {
    let question = serde_json::from_str::<serde_json::Value>(question)
        .ok()
        .and_then(|value| index_question_block::StructuredQuestion::from_json_value(&value).ok())
        .ok_or_else(|| StoreError::Corrupt("a park's question does not read back".to_owned()))?;
    Ok(index_negotiation::Park {
        user_id: stored_id(user_id)?,
        question,
        answer,
    })
}

/// A turn as a SQL backend's row holds it: its index, seat, action name
/// and message.
pub type TurnRow = (i64, String, String, String);

/// A stored log's turns from index `first` on, of the `count` its
/// negotiation's row says it has, read back from `rows` (in index order).
/// Their indexes must run `first`, `first + 1`, … up to `count - 1`
/// without a gap: a log with a hole, or more or fewer turns than its row
/// counts, is corruption rather than another log.
///
/// ```
/// use index_negotiation_store::{StoreError, stored_turns};
/// let row = |index: i64| Ok((index, "dana".to_owned(), "propose".to_owned(), "Hi.".to_owned()));
/// assert_eq!(stored_turns(12, 14, [row(12), row(13)])?.len(), 2);
/// assert!(matches!(stored_turns(12, 14, [row(12), row(14)]), Err(StoreError::Corrupt(_))));
/// assert!(matches!(stored_turns(12, 15, [row(12), row(13)]), Err(StoreError::Corrupt(_))));
/// # Ok::<(), StoreError>(())
/// ```
///
/// # Errors
///
/// [`StoreError::Corrupt`] as above, or for an unknown action or a blank
/// seat; an error in `rows` as it is.
pub fn stored_turns(
    first: usize,
    count: usize,
    rows: impl IntoIterator<Item = Result<TurnRow, StoreError>>,
) -> Result<Vec<index_negotiation::SeatTurn>, StoreError> {
    let read: Vec<index_negotiation::SeatTurn> = (first..)
        .zip(rows)
        .map(|(position, row)| {
            let (index, seat_user_id, action, message) = row?;
            if usize::try_from(index).ok() != Some(position) {
                return Err(StoreError::Corrupt(format!(
                    "turn indexes are not dense: turn {position} is stored at index {index}"
                )));
            }
            let action = index_negotiation::NegotiationAction::from_name(&action)
                .ok_or_else(|| StoreError::Corrupt(format!("unknown action {action:?}")))?;
            Ok(index_negotiation::SeatTurn {
                seat_user_id: stored_id(seat_user_id)?,
                action,
                message,
            })
        })
        .collect::<Result<_, _>>()?;
    if first + read.len() != count {
        return Err(StoreError::Corrupt(format!(
            "the negotiation counts {count} turns, but {} are stored",
            first + read.len()
        )));
    }
    Ok(read)
}

/// The rules' view of a stored negotiation: its summary and turns, with
/// the question loop's columns as a SQL backend keeps them (the ask rounds,
/// and the last park's person, question as JSON text and answer).
///
/// # Errors
///
/// [`StoreError::Corrupt`] for a park that does not read back.
pub fn stored_state(
    summary: &crate::NegotiationSummary,
    turns: Vec<index_negotiation::SeatTurn>,
    ask_rounds: i64,
    park: Option<(String, String, Option<String>)>,
) -> Result<index_negotiation::NegotiationState, StoreError> {
    let park = park
        .map(|(user_id, question, answer)| stored_park(user_id, &question, answer))
        .transpose()?;
    let ask_rounds = usize::try_from(ask_rounds).unwrap_or(0);
    Ok(summary.state(turns, ask_rounds, park))
}
