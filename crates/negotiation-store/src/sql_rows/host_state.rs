//! A signing key's and a task's rows.

use crate::error::StoreError;
use crate::host_state::{SigningKey, TaskRecord};
use crate::time::UnixTime;

use super::stored_id;

/// A signing key's columns as a SQL backend keeps them, before they are
/// checked by [`stored_signing_key`].
#[derive(Clone)]
#[allow(missing_docs)] // each field is the key's of the same name
pub struct StoredSigningKey {
    pub id: String,
    pub secret: Vec<u8>,
    pub created_at: i64,
    pub retires_at: Option<i64>,
}

/// A signing key read back from storage: a secret that is not 32 bytes or
/// a negative time is [`StoreError::Corrupt`].
///
/// ```
/// use index_negotiation_store::sql_rows::{StoredSigningKey, stored_signing_key};
/// let row = StoredSigningKey { id: "k".into(), secret: vec![1; 32], created_at: 5, retires_at: None };
/// assert_eq!(stored_signing_key(row.clone())?.secret, [1; 32]);
/// assert!(stored_signing_key(StoredSigningKey { secret: vec![1; 31], ..row }).is_err());
/// # Ok::<(), index_negotiation_store::StoreError>(())
/// ```
///
/// # Errors
///
/// [`StoreError::Corrupt`] as above.
pub fn stored_signing_key(row: StoredSigningKey) -> Result<SigningKey, StoreError> {
    let secret = <[u8; 32]>::try_from(row.secret.as_slice())
        .map_err(|_| StoreError::Corrupt("a signing key is not 32 bytes".to_owned()))?;
    Ok(SigningKey {
        id: row.id,
        secret,
        created_at: UnixTime::from_stored(row.created_at)?,
        retires_at: row.retires_at.map(UnixTime::from_stored).transpose()?,
    })
}

/// A task's columns as a SQL backend keeps them, before they are checked
/// by [`stored_task`].
#[derive(Debug, Clone)]
#[allow(missing_docs)] // each field is the record's of the same name
pub struct StoredTask {
    pub id: String,
    pub owner: String,
    pub version: i64,
    pub started_at: i64,
    pub lease_until: i64,
    pub forget_at: Option<i64>,
    pub body: String,
}

/// A task read back from storage: a blank owner, a negative version or a
/// negative time is [`StoreError::Corrupt`].
///
/// ```
/// use index_negotiation_store::sql_rows::{StoredTask, stored_task};
/// let row = StoredTask {
///     id: "t".into(), owner: "dana".into(), version: 2, started_at: 1,
///     lease_until: 16, forget_at: None, body: "{}".into(),
/// };
/// assert_eq!(stored_task(row.clone())?.version, 2);
/// assert!(stored_task(StoredTask { version: -1, ..row }).is_err());
/// # Ok::<(), index_negotiation_store::StoreError>(())
/// ```
///
/// # Errors
///
/// [`StoreError::Corrupt`] as above.
pub fn stored_task(row: StoredTask) -> Result<TaskRecord, StoreError> {
    Ok(TaskRecord {
        id: row.id,
        owner: stored_id(row.owner)?,
        version: u64::try_from(row.version)
            .map_err(|_| StoreError::Corrupt("a negative task version".to_owned()))?,
        started_at: UnixTime::from_stored(row.started_at)?,
        lease_until: UnixTime::from_stored(row.lease_until)?,
        forget_at: row.forget_at.map(UnixTime::from_stored).transpose()?,
        body: row.body,
    })
}

/// A task's version as a SQL backend stores it (saturating; a task is
/// changed far fewer than 2^63 times).
pub fn version_to_stored(version: u64) -> i64 {
    i64::try_from(version).unwrap_or(i64::MAX)
}
