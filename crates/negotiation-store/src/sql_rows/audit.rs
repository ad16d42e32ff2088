//! An audit entry's row, and a read's bounds as both SQL backends bind
//! them.

use crate::audit::{Actor, ActorKind, AuditEntry, AuditFilter, AuditStep};
use crate::error::StoreError;
use crate::time::UnixTime;

use super::stored_id;

/// The audit table's columns in the order [`StoredAudit`] reads them.
pub const AUDIT_COLUMNS: &str =
    "seq, at, step, negotiation_id, user_id, detail, actor_kind, key_id, request_id";

/// An entry's columns as a SQL backend keeps them, before they are checked.
#[derive(Debug, Clone)]
#[allow(missing_docs)] // each field is the column of the same name
pub struct StoredAudit {
    pub seq: i64,
    pub at: i64,
    pub step: String,
    pub negotiation_id: Option<String>,
    pub user_id: Option<String>,
    pub detail: Option<String>,
    pub actor_kind: String,
    pub key_id: Option<String>,
    pub request_id: Option<String>,
}

/// An entry read back from storage: an unknown step or actor kind, a
/// negative number or time, or an id that fails its check is
/// [`StoreError::Corrupt`].
///
/// ```
/// use index_negotiation_store::AuditStep;
/// use index_negotiation_store::sql_rows::{StoredAudit, stored_audit};
/// let row = StoredAudit {
///     seq: 1, at: 100, step: "parked".into(),
///     negotiation_id: Some("0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36".into()),
///     user_id: Some("dana".into()), detail: None,
///     actor_kind: "agent_key".into(), key_id: Some("k1".into()), request_id: None,
/// };
/// assert_eq!(stored_audit(row.clone())?.step, AuditStep::Parked);
/// assert!(stored_audit(StoredAudit { step: "erased".into(), ..row }).is_err());
/// # Ok::<(), index_negotiation_store::StoreError>(())
/// ```
///
/// # Errors
///
/// [`StoreError::Corrupt`] as above.
pub fn stored_audit(row: StoredAudit) -> Result<AuditEntry, StoreError> {
    let step = AuditStep::from_name(&row.step)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown audit step {:?}", row.step)))?;
    let kind = ActorKind::from_name(&row.actor_kind)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown actor kind {:?}", row.actor_kind)))?;
    let seq = u64::try_from(row.seq)
        .map_err(|_| StoreError::Corrupt(format!("an audit entry numbered {}", row.seq)))?;
    Ok(AuditEntry {
        seq,
        at: UnixTime::from_stored(row.at)?,
        step,
        negotiation: row.negotiation_id.map(stored_id).transpose()?,
        user: row.user_id.map(stored_id).transpose()?,
        detail: row.detail,
        actor: Actor::new(kind, row.key_id, row.request_id),
    })
}

/// A read's bounds as values a SQL backend binds, in this order: the
/// person, the negotiation, the step, `since`, `until` (each `NULL` when
/// unset), the `seq` to read after (0 for the start) and the page's size.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)] // each field is the filter's of the same name
pub struct AuditQuery<'a> {
    pub user: Option<&'a str>,
    pub negotiation: Option<&'a str>,
    pub step: Option<&'static str>,
    pub since: Option<i64>,
    pub until: Option<i64>,
    pub after: i64,
    pub limit: i64,
}

impl<'a> AuditQuery<'a> {
    /// The bounds of `filter`.
    ///
    /// ```
    /// use index_negotiation_store::AuditFilter;
    /// use index_negotiation_store::sql_rows::AuditQuery;
    /// let filter = AuditFilter::default();
    /// let query = AuditQuery::of(&filter);
    /// assert_eq!((query.after, query.limit, query.user), (0, 100, None));
    /// ```
    pub fn of(filter: &'a AuditFilter) -> Self {
        let stored = |seconds: UnixTime| seconds.to_stored();
        AuditQuery {
            user: filter.user.as_ref().map(|user| user.as_str()),
            negotiation: filter.negotiation.as_ref().map(|id| id.as_str()),
            step: filter.step.map(AuditStep::as_str),
            since: filter.since.map(stored),
            until: filter.until.map(stored),
            after: filter
                .after
                .map_or(0, |after| i64::try_from(after).unwrap_or(i64::MAX)),
            limit: i64::try_from(filter.page_size()).unwrap_or(i64::MAX),
        }
    }
}
