//! An API key's row.

use crate::error::StoreError;
use crate::keys::{ApiKeyRecord, KeyHash, KeyKind, KeyScope};
use crate::time::UnixTime;

use super::stored_id;

/// A key's columns as a SQL backend keeps them, before they are checked:
/// each backend reads its row into this, and [`stored_key`] is the one
/// check of what it read.
#[derive(Debug, Clone)]
#[allow(missing_docs)] // each field is the record's of the same name
pub struct StoredKey {
    pub id: String,
    pub hash: Vec<u8>,
    pub user_id: String,
    pub scope: String,
    pub revoked: bool,
    pub name: Option<String>,
    pub created_at: Option<i64>,
    pub expires_at: Option<i64>,
    pub last_used_at: Option<i64>,
    pub kind: String,
    pub grant: Option<String>,
    pub client: Option<String>,
}

/// A key read back from storage: a hash that is not 32 bytes, an unknown
/// scope, a blank user or a negative time is [`StoreError::Corrupt`].
///
/// ```
/// use index_negotiation_store::sql_rows::{StoredKey, stored_key};
/// use index_negotiation_store::{KeyScope, UnixTime};
/// let row = StoredKey {
///     id: "3f9a1c2b7d10".into(), hash: vec![0; 32], user_id: "dana".into(),
///     scope: "agent".into(), revoked: false, name: None,
///     created_at: Some(100), expires_at: None, last_used_at: None,
///     kind: "api".into(), grant: None, client: None,
/// };
/// let key = stored_key(row.clone())?;
/// assert_eq!((key.scope, key.created_at), (KeyScope::Agent, Some(UnixTime(100))));
/// assert!(stored_key(StoredKey { expires_at: Some(-1), ..row }).is_err());
/// # Ok::<(), index_negotiation_store::StoreError>(())
/// ```
///
/// # Errors
///
/// [`StoreError::Corrupt`] as above.
pub fn stored_key(row: StoredKey) -> Result<ApiKeyRecord, StoreError> {
    let hash = <[u8; 32]>::try_from(row.hash.as_slice())
        .map_err(|_| StoreError::Corrupt("a key hash is not 32 bytes".to_owned()))?;
    let scope = KeyScope::from_name(&row.scope)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown key scope {:?}", row.scope)))?;
    let kind = KeyKind::from_name(&row.kind)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown key kind {:?}", row.kind)))?;
    let time = |seconds: Option<i64>| seconds.map(UnixTime::from_stored).transpose();
    Ok(ApiKeyRecord {
        id: row.id,
        hash: KeyHash(hash),
        user_id: stored_id(row.user_id)?,
        scope,
        name: row.name,
        created_at: time(row.created_at)?,
        expires_at: time(row.expires_at)?,
        last_used_at: time(row.last_used_at)?,
        revoked: row.revoked,
        kind,
        grant: row.grant,
        client: row.client,
    })
}
