//! The row kit the SQL backends share (feature `sql-rows`): a stored
//! negotiation, its turns, its messages and an API key as a SQL row holds
//! them, read back into the store's types and checked on the way, and a
//! listing's page as both bind it.
//!
//! A backend reads its columns (each database its own way) into the plain
//! rows here; everything after that is this module's, so SQLite and
//! PostgreSQL cannot disagree on what a stored negotiation is, on what
//! counts as corruption, or on which turns a decision reads. Whatever was
//! written around the store reads back as [`StoreError::Corrupt`], never as
//! a panic or as another negotiation.
//!
//! [`StoreError::Corrupt`]: crate::StoreError::Corrupt
//!
//! | module | holds |
//! |---|---|
//! | `negotiation` | a negotiation's row: columns as read, checked into a summary and a state |
//! | `turns` | a negotiation's turns as rows |
//! | `messages` | a message's parts as one JSON text |
//! | `keys` | an API key's row |
//! | `host_state` | a signing key's and a task's rows |
//! | `interactions` | an interaction's row |
//! | `audit` | an audit entry's row, and a read's bounds as both backends bind them |
//! | `webhooks` | a webhook endpoint's row and a claimed delivery's |
//! | `listing` | a listing's page as a SQL backend binds it |

mod audit;
mod host_state;
mod interactions;
mod keys;
mod listing;
mod messages;
mod negotiation;
mod turns;
mod webhooks;

pub use audit::{AUDIT_COLUMNS, AuditQuery, StoredAudit, stored_audit};
pub use host_state::{
    StoredSigningKey, StoredTask, stored_signing_key, stored_task, version_to_stored,
};
pub use interactions::{
    INTERACTION_COLUMNS, StoredInteraction, millis_to_stored, stored_interaction,
};
pub use keys::{StoredKey, stored_key};
pub use listing::PageQuery;
pub use messages::{message_from_text, message_parts_text};
pub use negotiation::{Locked, NegotiationRow, StoredNegotiation, Turns};
pub use turns::{TurnRow, stored_turns};
pub use webhooks::{
    DELIVERY_COLUMNS, ENDPOINT_COLUMNS, StoredDelivery, StoredEndpoint, stored_delivery,
    stored_endpoint,
};

use crate::error::StoreError;

/// An id read back from storage, checked as every id is. One that fails
/// its check was written around the store, so it is
/// [`StoreError::Corrupt`], never a panic.
///
/// ```
/// use index_negotiation_store::{StoreError, UserId, sql_rows::stored_id};
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
