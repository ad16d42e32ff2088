//! An interaction's row.

use crate::error::StoreError;
use crate::interactions::{InteractionRecord, InteractionStatus};

use super::stored_id;

/// An interaction's columns as a SQL backend keeps them, before they are
/// checked by [`stored_interaction`].
#[derive(Debug, Clone)]
#[allow(missing_docs)] // each field is the record's of the same name
pub struct StoredInteraction {
    pub owner: String,
    pub id: String,
    pub run_id: String,
    pub environment_id: String,
    pub session_id: String,
    pub status: String,
    pub created_at_ms: i64,
    pub version: i64,
    pub body: String,
}

/// The columns a SQL backend selects for a [`StoredInteraction`], in its
/// fields' order.
pub const INTERACTION_COLUMNS: &str =
    "owner, id, run_id, environment_id, session_id, status, created_at_ms, version, body";

/// An interaction read back from storage: a blank owner, an unknown
/// status, a negative time or version is [`StoreError::Corrupt`].
///
/// ```
/// use index_negotiation_store::sql_rows::{StoredInteraction, stored_interaction};
/// let row = StoredInteraction {
///     owner: "dana".into(), id: "q-1".into(), run_id: "r".into(), environment_id: "e".into(),
///     session_id: "s".into(), status: "pending".into(), created_at_ms: 1, version: 0, body: "{}".into(),
/// };
/// assert_eq!(stored_interaction(row.clone())?.id, "q-1");
/// assert!(stored_interaction(StoredInteraction { status: "answered".into(), ..row.clone() }).is_err());
/// assert!(stored_interaction(StoredInteraction { created_at_ms: -1, ..row }).is_err());
/// # Ok::<(), index_negotiation_store::StoreError>(())
/// ```
///
/// # Errors
///
/// [`StoreError::Corrupt`] as above.
pub fn stored_interaction(row: StoredInteraction) -> Result<InteractionRecord, StoreError> {
    let corrupt = |what: &str| StoreError::Corrupt(format!("interaction {:?}: {what}", row.id));
    let status = InteractionStatus::from_name(&row.status)
        .ok_or_else(|| corrupt(&format!("a status of {:?}", row.status)))?;
    let created_at_ms =
        u64::try_from(row.created_at_ms).map_err(|_| corrupt("a negative creation time"))?;
    let version = u64::try_from(row.version).map_err(|_| corrupt("a negative version"))?;
    Ok(InteractionRecord {
        owner: stored_id(row.owner)?,
        id: row.id,
        run_id: row.run_id,
        environment_id: row.environment_id,
        session_id: row.session_id,
        status,
        created_at_ms,
        version,
        body: row.body,
    })
}

/// A time in milliseconds as a SQL backend stores it (saturating, some
/// 292 million years out).
pub fn millis_to_stored(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}
