//! What hosts share between requests. An operation that reads before it
//! writes takes a transaction-scoped advisory lock first (on the signing
//! keys, or on the task owner), so racing hosts decide one after another.

use async_trait::async_trait;
use deadpool_postgres::GenericClient;

use index_negotiation_store::sql_rows::{
    StoredSigningKey, StoredTask, stored_signing_key, stored_task, version_to_stored,
};
use index_negotiation_store::{HostStateStore, Room, SigningKey, StoreError, TaskRecord, UnixTime};

use crate::PostgresStore;
use crate::error::pg_error;

/// An arbitrary, fixed advisory-lock key that serialises changes to the
/// signing keys.
const SIGNING_KEYS_LOCK: i64 = 0x494E_4458_4B45_5953;

async fn usable_keys(
    client: &impl GenericClient,
    now: UnixTime,
) -> Result<Vec<SigningKey>, StoreError> {
    let rows = client
        .query(
            "SELECT id, secret, created_at, retires_at FROM signing_keys \
             WHERE retires_at IS NULL OR retires_at > $1 ORDER BY created_at DESC, id DESC",
            &[&now.to_stored()],
        )
        .await
        .map_err(pg_error)?;
    rows.iter()
        .map(|row| {
            stored_signing_key(StoredSigningKey {
                id: row.try_get(0).map_err(pg_error)?,
                secret: row.try_get(1).map_err(pg_error)?,
                created_at: row.try_get(2).map_err(pg_error)?,
                retires_at: row.try_get(3).map_err(pg_error)?,
            })
        })
        .collect()
}

async fn insert_key(client: &impl GenericClient, key: &SigningKey) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO signing_keys (id, secret, created_at, retires_at) VALUES ($1, $2, $3, $4)",
            &[
                &key.id,
                &key.secret.as_slice(),
                &key.created_at.to_stored(),
                &key.retires_at.map(UnixTime::to_stored),
            ],
        )
        .await
        .map_err(pg_error)?;
    Ok(())
}

async fn lock_signing_keys(client: &impl GenericClient) -> Result<(), StoreError> {
    client
        .execute("SELECT pg_advisory_xact_lock($1)", &[&SIGNING_KEYS_LOCK])
        .await
        .map_err(pg_error)?;
    Ok(())
}

#[async_trait]
impl HostStateStore for PostgresStore {
    async fn signing_keys(
        &self,
        candidate: &SigningKey,
        now: UnixTime,
    ) -> Result<Vec<SigningKey>, StoreError> {
        let mut client = self.client().await?;
        let found = usable_keys(&client, now).await?;
        if !found.is_empty() {
            return Ok(found);
        }
        let tx = client.transaction().await.map_err(pg_error)?;
        lock_signing_keys(&tx).await?;
        if usable_keys(&tx, now).await?.is_empty() {
            insert_key(&tx, candidate).await?;
        }
        let keys = usable_keys(&tx, now).await?;
        tx.commit().await.map_err(pg_error)?;
        Ok(keys)
    }

    async fn rotate_signing_key(
        &self,
        key: &SigningKey,
        retire_others_at: UnixTime,
    ) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg_error)?;
        lock_signing_keys(&tx).await?;
        tx.execute(
            "DELETE FROM signing_keys WHERE retires_at IS NOT NULL AND retires_at <= $1",
            &[&key.created_at.to_stored()],
        )
        .await
        .map_err(pg_error)?;
        tx.execute(
            "UPDATE signing_keys SET retires_at = $1 WHERE retires_at IS NULL OR retires_at > $1",
            &[&retire_others_at.to_stored()],
        )
        .await
        .map_err(pg_error)?;
        insert_key(&tx, key).await?;
        tx.commit().await.map_err(pg_error)
    }

    async fn spend_token(
        &self,
        digest: &[u8; 32],
        until: UnixTime,
        now: UnixTime,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        client
            .execute(
                "DELETE FROM spent_tokens WHERE kept_until <= $1",
                &[&now.to_stored()],
            )
            .await
            .map_err(pg_error)?;
        let spent = client
            .execute(
                "INSERT INTO spent_tokens (digest, kept_until) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[&digest.as_slice(), &until.to_stored()],
            )
            .await
            .map_err(pg_error)?;
        Ok(spent == 1)
    }

    async fn insert_task(
        &self,
        task: &TaskRecord,
        most_per_owner: usize,
        now: UnixTime,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg_error)?;
        tx.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
            &[&task.owner.as_str()],
        )
        .await
        .map_err(pg_error)?;
        tx.execute(
            "DELETE FROM host_tasks WHERE owner = $1 AND forget_at <= $2",
            &[&task.owner.as_str(), &now.to_stored()],
        )
        .await
        .map_err(pg_error)?;
        let rows = tx
            .query(
                "SELECT started_at, forget_at IS NOT NULL, id FROM host_tasks WHERE owner = $1",
                &[&task.owner.as_str()],
            )
            .await
            .map_err(pg_error)?;
        let theirs = rows
            .iter()
            .map(|row| {
                let started: i64 = row.try_get(0).map_err(pg_error)?;
                let ended: bool = row.try_get(1).map_err(pg_error)?;
                let id: &str = row.try_get(2).map_err(pg_error)?;
                Ok((UnixTime::from_stored(started)?, ended, id))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        match Room::among(&theirs, most_per_owner) {
            Room::Full => return Ok(false),
            Room::Forgetting(id) => {
                tx.execute("DELETE FROM host_tasks WHERE id = $1", &[&id])
                    .await
                    .map_err(pg_error)?;
            }
            Room::Free => {}
        }
        let inserted = tx
            .execute(
                "INSERT INTO host_tasks \
                 (id, owner, version, started_at, lease_until, forget_at, body) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
                &[
                    &task.id,
                    &task.owner.as_str(),
                    &version_to_stored(task.version),
                    &task.started_at.to_stored(),
                    &task.lease_until.to_stored(),
                    &task.forget_at.map(UnixTime::to_stored),
                    &task.body,
                ],
            )
            .await
            .map_err(pg_error)?;
        if inserted == 0 {
            return Err(StoreError::InvalidRequest(format!(
                "task {} exists",
                task.id
            )));
        }
        tx.commit().await.map_err(pg_error)?;
        Ok(true)
    }

    async fn find_task(&self, id: &str, now: UnixTime) -> Result<Option<TaskRecord>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                "SELECT id, owner, version, started_at, lease_until, forget_at, body \
                 FROM host_tasks WHERE id = $1 AND (forget_at IS NULL OR forget_at > $2)",
                &[&id, &now.to_stored()],
            )
            .await
            .map_err(pg_error)?;
        row.map(|row| {
            stored_task(StoredTask {
                id: row.try_get(0).map_err(pg_error)?,
                owner: row.try_get(1).map_err(pg_error)?,
                version: row.try_get(2).map_err(pg_error)?,
                started_at: row.try_get(3).map_err(pg_error)?,
                lease_until: row.try_get(4).map_err(pg_error)?,
                forget_at: row.try_get(5).map_err(pg_error)?,
                body: row.try_get(6).map_err(pg_error)?,
            })
        })
        .transpose()
    }

    async fn replace_task(&self, task: &TaskRecord) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let replaced = client
            .execute(
                "UPDATE host_tasks SET version = version + 1, lease_until = $3, \
                 forget_at = $4, body = $5 WHERE id = $1 AND version = $2",
                &[
                    &task.id,
                    &version_to_stored(task.version),
                    &task.lease_until.to_stored(),
                    &task.forget_at.map(UnixTime::to_stored),
                    &task.body,
                ],
            )
            .await
            .map_err(pg_error)?;
        Ok(replaced == 1)
    }
}
