//! API keys in their own table; each operation one statement.

use async_trait::async_trait;
use rusqlite::{OptionalExtension, params};

use index_negotiation_store::{
    ApiKeyRecord, ApiKeyStore, KeyHash, KeyScope, StoreError, stored_id,
};

use crate::SqliteStore;
use crate::error::sql_error;

macro_rules! select_key {
    ($tail:literal) => {
        concat!(
            "SELECT id, hash, user_id, scope, revoked FROM api_keys ",
            $tail
        )
    };
}

fn key_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Result<ApiKeyRecord, StoreError>> {
    let hash: Vec<u8> = row.get(1)?;
    let scope: String = row.get(3)?;
    let Ok(hash) = <[u8; 32]>::try_from(hash.as_slice()) else {
        return Ok(Err(StoreError::Corrupt(
            "a key hash is not 32 bytes".to_owned(),
        )));
    };
    let Some(scope) = KeyScope::from_name(&scope) else {
        return Ok(Err(StoreError::Corrupt(format!(
            "unknown key scope {scope:?}"
        ))));
    };
    let (id, user_id, revoked) = (row.get(0)?, row.get::<_, String>(2)?, row.get(4)?);
    Ok(stored_id(user_id).map(|user_id| ApiKeyRecord {
        id,
        hash: KeyHash(hash),
        user_id,
        scope,
        revoked,
    }))
}

#[async_trait]
impl ApiKeyStore for SqliteStore {
    async fn insert_api_key(&self, key: &ApiKeyRecord) -> Result<bool, StoreError> {
        let key = key.clone();
        self.pool
            .run_write(move |conn| {
                let inserted = conn
                    .prepare_cached(
                        "INSERT INTO api_keys (id, hash, user_id, scope, revoked) VALUES (?1, ?2, ?3, ?4, ?5) \
                         ON CONFLICT DO NOTHING",
                    )
                    .and_then(|mut insert| {
                        insert.execute(params![
                            key.id,
                            key.hash.0.as_slice(),
                            key.user_id.as_str(),
                            key.scope.as_str(),
                            key.revoked
                        ])
                    })
                    .map_err(sql_error)?;
                Ok(inserted == 1)
            })
            .await
    }

    async fn find_api_key(&self, hash: &KeyHash) -> Result<Option<ApiKeyRecord>, StoreError> {
        let hash = *hash;
        self.pool
            .run(move |conn| {
                conn.prepare_cached(select_key!("WHERE hash = ?1"))
                    .and_then(|mut find| {
                        find.query_row(params![hash.0.as_slice()], key_from_row)
                            .optional()
                    })
                    .map_err(sql_error)?
                    .transpose()
            })
            .await
    }

    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
        self.pool
            .run(move |conn| {
                let mut list = conn
                    .prepare_cached(select_key!("ORDER BY seq"))
                    .map_err(sql_error)?;
                let rows = list.query_map([], key_from_row).map_err(sql_error)?;
                rows.map(|row| row.map_err(sql_error)?).collect()
            })
            .await
    }

    async fn revoke_api_key(&self, id: &str) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.pool
            .run_write(move |conn| {
                let updated = conn
                    .execute("UPDATE api_keys SET revoked = 1 WHERE id = ?1", params![id])
                    .map_err(sql_error)?;
                Ok(updated == 1)
            })
            .await
    }
}
