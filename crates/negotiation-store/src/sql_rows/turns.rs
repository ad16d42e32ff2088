//! A negotiation's turns as rows.

use index_negotiation::{NegotiationAction, SeatTurn};

use crate::error::StoreError;

use super::stored_id;

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
/// use index_negotiation_store::{StoreError, sql_rows::stored_turns};
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
) -> Result<Vec<SeatTurn>, StoreError> {
    let read: Vec<SeatTurn> = (first..)
        .zip(rows)
        .map(|(position, row)| {
            let (index, seat_user_id, action, message) = row?;
            if usize::try_from(index).ok() != Some(position) {
                return Err(StoreError::Corrupt(format!(
                    "turn indexes are not dense: turn {position} is stored at index {index}"
                )));
            }
            let action = NegotiationAction::from_name(&action)
                .ok_or_else(|| StoreError::Corrupt(format!("unknown action {action:?}")))?;
            Ok(SeatTurn {
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
