//! API keys in their own table; each operation one statement.

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};

use index_negotiation_store::sql_rows::{StoredKey, stored_key};
use index_negotiation_store::{
    Actor, ApiKeyRecord, ApiKeyStore, AuditStep, AuditWrite, KeyChanges, KeyHash, Revocation,
    StoreError, UnixTime,
};

use crate::SqliteStore;
use crate::error::sql_error;
use crate::store::append_audit;
use crate::tx::begin_write;

macro_rules! select_key {
    ($tail:literal) => {
        concat!(
            "SELECT id, hash, user_id, scope, revoked, name, created_at, expires_at, last_used_at, \
             kind, grant_id, client FROM api_keys ",
            $tail
        )
    };
}

fn key_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Result<ApiKeyRecord, StoreError>> {
    Ok(stored_key(StoredKey {
        id: row.get(0)?,
        hash: row.get(1)?,
        user_id: row.get(2)?,
        scope: row.get(3)?,
        revoked: row.get(4)?,
        name: row.get(5)?,
        created_at: row.get(6)?,
        expires_at: row.get(7)?,
        last_used_at: row.get(8)?,
        kind: row.get(9)?,
        grant: row.get(10)?,
        client: row.get(11)?,
    }))
}

/// Appends `step` by `actor` for each key `which` (a condition on `?6`,
/// `value`) selects, with its person and id.
fn audit_keys(
    conn: &Connection,
    which: &str,
    value: &str,
    step: AuditStep,
    actor: &Actor,
) -> Result<(), StoreError> {
    let sql = format!(
        "INSERT INTO audit (at, step, user_id, detail, actor_kind, key_id, request_id) \
         SELECT ?1, ?2, user_id, id, ?3, ?4, ?5 FROM api_keys WHERE {which} ORDER BY seq"
    );
    conn.prepare_cached(&sql)
        .and_then(|mut insert| {
            insert.execute(params![
                UnixTime::now().to_stored(),
                step.as_str(),
                actor.kind().as_str(),
                actor.key_id(),
                actor.request_id(),
                value
            ])
        })
        .map_err(sql_error)?;
    Ok(())
}

#[async_trait]
impl ApiKeyStore for SqliteStore {
    async fn insert_api_key(
        &self,
        key: &ApiKeyRecord,
        step: AuditStep,
        actor: &Actor,
    ) -> Result<bool, StoreError> {
        let (key, actor) = (key.clone(), actor.clone());
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                let inserted = tx
                    .prepare_cached(
                        "INSERT INTO api_keys \
                         (id, hash, user_id, scope, revoked, name, created_at, expires_at, last_used_at, \
                          kind, grant_id, client) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) ON CONFLICT DO NOTHING",
                    )
                    .and_then(|mut insert| {
                        insert.execute(params![
                            key.id,
                            key.hash.0.as_slice(),
                            key.user_id.as_str(),
                            key.scope.as_str(),
                            key.revoked,
                            key.name,
                            key.created_at.map(UnixTime::to_stored),
                            key.expires_at.map(UnixTime::to_stored),
                            key.last_used_at.map(UnixTime::to_stored),
                            key.kind.as_str(),
                            key.grant,
                            key.client
                        ])
                    })
                    .map_err(sql_error)?;
                if inserted == 1 {
                    append_audit(&tx, AuditWrite::key(step, &key.user_id, &key.id, &actor))?;
                }
                tx.commit().map_err(sql_error)?;
                Ok(inserted == 1)
            })
            .await
    }

    /// Found right here when it can be (see `Pool::quick`): every request
    /// looks its key up, and a revoked key stops at its next request.
    async fn find_api_key(&self, hash: &KeyHash) -> Result<Option<ApiKeyRecord>, StoreError> {
        let hash = *hash;
        let find = move |conn: &Connection| {
            conn.prepare_cached(select_key!("WHERE hash = ?1"))
                .and_then(|mut find| {
                    find.query_row(params![hash.0.as_slice()], key_from_row)
                        .optional()
                })
        };
        if let Some(found) = self.pool.quick(find) {
            return found.transpose();
        }
        self.pool
            .run(move |conn| find(conn).map_err(sql_error)?.transpose())
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

    async fn revoke_api_key(
        &self,
        id: &str,
        step: AuditStep,
        actor: &Actor,
    ) -> Result<Revocation, StoreError> {
        let (id, actor) = (id.to_owned(), actor.clone());
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                // The update is the one that decides.
                let updated = tx
                    .execute(
                        "UPDATE api_keys SET revoked = 1 WHERE id = ?1 AND revoked = 0",
                        params![id],
                    )
                    .map_err(sql_error)?;
                if updated == 1 {
                    audit_keys(&tx, "id = ?6", &id, step, &actor)?;
                    tx.commit().map_err(sql_error)?;
                    return Ok(Revocation::Revoked);
                }
                let exists: bool = tx
                    .query_row(
                        "SELECT EXISTS (SELECT 1 FROM api_keys WHERE id = ?1)",
                        params![id],
                        |row| row.get(0),
                    )
                    .map_err(sql_error)?;
                Ok(Revocation::unchanged(exists))
            })
            .await
    }

    async fn revoke_grant(&self, grant: &str, actor: &Actor) -> Result<u64, StoreError> {
        let (grant, actor) = (grant.to_owned(), actor.clone());
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                let step = AuditStep::KeyRevoked;
                audit_keys(&tx, "grant_id = ?6 AND revoked = 0", &grant, step, &actor)?;
                let revoked = tx
                    .execute(
                        "UPDATE api_keys SET revoked = 1 WHERE grant_id = ?1 AND revoked = 0",
                        params![grant],
                    )
                    .map_err(sql_error)?;
                tx.commit().map_err(sql_error)?;
                Ok(u64::try_from(revoked).unwrap_or(u64::MAX))
            })
            .await
    }

    async fn key_changes(&self) -> Result<KeyChanges, StoreError> {
        Ok(KeyChanges::Version)
    }

    /// Read right here when it can be, as a key is (see `Pool::quick`):
    /// a host reads it on every request it answers from its kept keys.
    async fn keys_version(&self) -> Result<u64, StoreError> {
        let read = |conn: &Connection| {
            conn.prepare_cached("SELECT version FROM keys_version")
                .and_then(|mut read| read.query_row([], |row| row.get::<_, i64>(0)))
        };
        let version = match self.pool.quick(read) {
            Some(version) => version,
            None => {
                self.pool
                    .run(move |conn| read(conn).map_err(sql_error))
                    .await?
            }
        };
        u64::try_from(version)
            .map_err(|_| StoreError::Corrupt(format!("a keys version of {version}")))
    }

    async fn record_api_key_use(&self, id: &str, at: UnixTime) -> Result<(), StoreError> {
        let id = id.to_owned();
        self.pool
            .run_write(move |conn| {
                conn.execute(
                    "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1 \
                     AND (last_used_at IS NULL OR last_used_at <= ?3)",
                    params![
                        id,
                        at.to_stored(),
                        UnixTime::latest_use_replaced_at(at).map(UnixTime::to_stored)
                    ],
                )
                .map_err(sql_error)?;
                Ok(())
            })
            .await
    }
}
