//! What hosts share between requests, each operation one transaction
//! (the ones that read before they write take the write lock first).

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};

use index_negotiation_store::sql_rows::{
    StoredSigningKey, StoredTask, stored_signing_key, stored_task, version_to_stored,
};
use index_negotiation_store::{HostStateStore, Room, SigningKey, StoreError, TaskRecord, UnixTime};

use crate::SqliteStore;
use crate::error::sql_error;
use crate::tx::begin_write;

fn usable_keys(conn: &Connection, now: UnixTime) -> Result<Vec<SigningKey>, StoreError> {
    let mut select = conn
        .prepare_cached(
            "SELECT id, secret, created_at, retires_at FROM signing_keys \
             WHERE retires_at IS NULL OR retires_at > ?1 ORDER BY created_at DESC, id DESC",
        )
        .map_err(sql_error)?;
    let rows = select
        .query_map(params![now.to_stored()], |row| {
            Ok(StoredSigningKey {
                id: row.get(0)?,
                secret: row.get(1)?,
                created_at: row.get(2)?,
                retires_at: row.get(3)?,
            })
        })
        .map_err(sql_error)?;
    rows.map(|row| stored_signing_key(row.map_err(sql_error)?))
        .collect()
}

fn insert_key(conn: &Connection, key: &SigningKey) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO signing_keys (id, secret, created_at, retires_at) VALUES (?1, ?2, ?3, ?4)",
        params![
            key.id,
            key.secret.as_slice(),
            key.created_at.to_stored(),
            key.retires_at.map(UnixTime::to_stored)
        ],
    )
    .map_err(sql_error)?;
    Ok(())
}

fn task_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<StoredTask> {
    Ok(StoredTask {
        id: row.get(0)?,
        owner: row.get(1)?,
        version: row.get(2)?,
        started_at: row.get(3)?,
        lease_until: row.get(4)?,
        forget_at: row.get(5)?,
        body: row.get(6)?,
    })
}

#[async_trait]
impl HostStateStore for SqliteStore {
    async fn signing_keys(
        &self,
        candidate: &SigningKey,
        now: UnixTime,
    ) -> Result<Vec<SigningKey>, StoreError> {
        let found = self.pool.run(move |conn| usable_keys(conn, now)).await?;
        if !found.is_empty() {
            return Ok(found);
        }
        let candidate = candidate.clone();
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                if usable_keys(&tx, now)?.is_empty() {
                    insert_key(&tx, &candidate)?;
                }
                let keys = usable_keys(&tx, now)?;
                tx.commit().map_err(sql_error)?;
                Ok(keys)
            })
            .await
    }

    async fn rotate_signing_key(
        &self,
        key: &SigningKey,
        retire_others_at: UnixTime,
    ) -> Result<(), StoreError> {
        let key = key.clone();
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                tx.execute(
                    "DELETE FROM signing_keys WHERE retires_at IS NOT NULL AND retires_at <= ?1",
                    params![key.created_at.to_stored()],
                )
                .map_err(sql_error)?;
                tx.execute(
                    "UPDATE signing_keys SET retires_at = ?1 \
                     WHERE retires_at IS NULL OR retires_at > ?1",
                    params![retire_others_at.to_stored()],
                )
                .map_err(sql_error)?;
                insert_key(&tx, &key)?;
                tx.commit().map_err(sql_error)
            })
            .await
    }

    async fn spend_token(
        &self,
        digest: &[u8; 32],
        until: UnixTime,
        now: UnixTime,
    ) -> Result<bool, StoreError> {
        let digest = *digest;
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                tx.prepare_cached("DELETE FROM spent_tokens WHERE kept_until <= ?1")
                    .and_then(|mut forget| forget.execute(params![now.to_stored()]))
                    .map_err(sql_error)?;
                let spent = tx
                    .prepare_cached(
                        "INSERT INTO spent_tokens (digest, kept_until) VALUES (?1, ?2) \
                         ON CONFLICT DO NOTHING",
                    )
                    .and_then(|mut spend| {
                        spend.execute(params![digest.as_slice(), until.to_stored()])
                    })
                    .map_err(sql_error)?;
                tx.commit().map_err(sql_error)?;
                Ok(spent == 1)
            })
            .await
    }

    async fn insert_task(
        &self,
        task: &TaskRecord,
        most_per_owner: usize,
        now: UnixTime,
    ) -> Result<bool, StoreError> {
        let task = task.clone();
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                tx.execute(
                    "DELETE FROM host_tasks WHERE forget_at IS NOT NULL AND forget_at <= ?1",
                    params![now.to_stored()],
                )
                .map_err(sql_error)?;
                let theirs: Vec<(i64, bool, String)> = {
                    let mut select = tx
                        .prepare_cached(
                            "SELECT started_at, forget_at IS NOT NULL, id FROM host_tasks \
                             WHERE owner = ?1",
                        )
                        .map_err(sql_error)?;
                    let rows = select
                        .query_map(params![task.owner.as_str()], |row| {
                            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                        })
                        .map_err(sql_error)?;
                    rows.collect::<Result<_, _>>().map_err(sql_error)?
                };
                let held = theirs
                    .iter()
                    .map(|(started, ended, id)| {
                        Ok((UnixTime::from_stored(*started)?, *ended, id.as_str()))
                    })
                    .collect::<Result<Vec<_>, StoreError>>()?;
                match Room::among(&held, most_per_owner) {
                    Room::Full => return Ok(false),
                    Room::Forgetting(id) => {
                        tx.execute("DELETE FROM host_tasks WHERE id = ?1", params![id])
                            .map_err(sql_error)?;
                    }
                    Room::Free => {}
                }
                let inserted = tx
                    .execute(
                        "INSERT INTO host_tasks \
                         (id, owner, version, started_at, lease_until, forget_at, body) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING",
                        params![
                            task.id,
                            task.owner.as_str(),
                            version_to_stored(task.version),
                            task.started_at.to_stored(),
                            task.lease_until.to_stored(),
                            task.forget_at.map(UnixTime::to_stored),
                            task.body
                        ],
                    )
                    .map_err(sql_error)?;
                if inserted == 0 {
                    return Err(StoreError::InvalidRequest(format!(
                        "task {} exists",
                        task.id
                    )));
                }
                tx.commit().map_err(sql_error)?;
                Ok(true)
            })
            .await
    }

    async fn find_task(&self, id: &str, now: UnixTime) -> Result<Option<TaskRecord>, StoreError> {
        let id = id.to_owned();
        self.pool
            .run(move |conn| {
                conn.prepare_cached(
                    "SELECT id, owner, version, started_at, lease_until, forget_at, body \
                     FROM host_tasks WHERE id = ?1 AND (forget_at IS NULL OR forget_at > ?2)",
                )
                .and_then(|mut find| {
                    find.query_row(params![id, now.to_stored()], task_from_row)
                        .optional()
                })
                .map_err(sql_error)?
                .map(stored_task)
                .transpose()
            })
            .await
    }

    async fn replace_task(&self, task: &TaskRecord) -> Result<bool, StoreError> {
        let task = task.clone();
        self.pool
            .run_write(move |conn| {
                let replaced = conn
                    .prepare_cached(
                        "UPDATE host_tasks SET version = version + 1, lease_until = ?3, \
                         forget_at = ?4, body = ?5 WHERE id = ?1 AND version = ?2",
                    )
                    .and_then(|mut replace| {
                        replace.execute(params![
                            task.id,
                            version_to_stored(task.version),
                            task.lease_until.to_stored(),
                            task.forget_at.map(UnixTime::to_stored),
                            task.body
                        ])
                    })
                    .map_err(sql_error)?;
                Ok(replaced == 1)
            })
            .await
    }
}
