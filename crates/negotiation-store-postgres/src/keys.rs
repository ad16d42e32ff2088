//! API keys in their own table.

use async_trait::async_trait;

use index_negotiation_store::sql_rows::{StoredKey, stored_key};
use index_negotiation_store::{
    Actor, ApiKeyRecord, ApiKeyStore, AuditStep, KeyChanges, KeyHash, Revocation, StoreError,
    UnixTime,
};

use crate::PostgresStore;
use crate::error::pg_error;

const SELECT: &str = "SELECT id, hash, user_id, scope, revoked, name, created_at, expires_at, last_used_at, \
                      kind, grant_id, client FROM api_keys";

fn key_from_row(row: &tokio_postgres::Row) -> Result<ApiKeyRecord, StoreError> {
    stored_key(StoredKey {
        id: row.try_get(0).map_err(pg_error)?,
        hash: row.try_get(1).map_err(pg_error)?,
        user_id: row.try_get(2).map_err(pg_error)?,
        scope: row.try_get(3).map_err(pg_error)?,
        revoked: row.try_get(4).map_err(pg_error)?,
        name: row.try_get(5).map_err(pg_error)?,
        created_at: row.try_get(6).map_err(pg_error)?,
        expires_at: row.try_get(7).map_err(pg_error)?,
        last_used_at: row.try_get(8).map_err(pg_error)?,
        kind: row.try_get(9).map_err(pg_error)?,
        grant: row.try_get(10).map_err(pg_error)?,
        client: row.try_get(11).map_err(pg_error)?,
    })
}

/// Runs `changed`, a statement on `api_keys` that returns the `user_id`
/// and `id` of each key it changed (taking `params`, `$1` to `$n`), with
/// an audit entry of `step` by `actor` appended for each, in one statement:
/// how many keys it changed.
async fn changed_and_audited(
    store: &PostgresStore,
    changed: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    step: AuditStep,
    actor: &Actor,
) -> Result<u64, StoreError> {
    let first = params.len() + 1;
    let [at, named, kind, key, request] = std::array::from_fn(|n| first + n);
    let sql = format!(
        "WITH changed AS ({changed} RETURNING user_id, id), \
         audit AS (INSERT INTO audit (at, step, user_id, detail, actor_kind, key_id, request_id) \
         SELECT ${at}::bigint, ${named}::text, user_id, id, ${kind}::text, ${key}::text, ${request}::text FROM changed) \
         SELECT count(*) FROM changed"
    );
    let audit: [&(dyn tokio_postgres::types::ToSql + Sync); 5] = [
        &UnixTime::now().to_stored(),
        &step.as_str(),
        &actor.kind().as_str(),
        &actor.key_id(),
        &actor.request_id(),
    ];
    let all: Vec<_> = params.iter().copied().chain(audit).collect();
    let client = store.client().await?;
    let count: i64 = client
        .query_one(&sql, &all)
        .await
        .and_then(|row| row.try_get(0))
        .map_err(pg_error)?;
    Ok(u64::try_from(count).unwrap_or(0))
}

#[async_trait]
impl ApiKeyStore for PostgresStore {
    async fn insert_api_key(
        &self,
        key: &ApiKeyRecord,
        step: AuditStep,
        actor: &Actor,
    ) -> Result<bool, StoreError> {
        let inserted = changed_and_audited(
            self,
            "INSERT INTO api_keys \
             (id, hash, user_id, scope, revoked, name, created_at, expires_at, last_used_at, \
              kind, grant_id, client) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING",
            &[
                &key.id.as_str(),
                &key.hash.0.as_slice(),
                &key.user_id.as_str(),
                &key.scope.as_str(),
                &key.revoked,
                &key.name,
                &key.created_at.map(UnixTime::to_stored),
                &key.expires_at.map(UnixTime::to_stored),
                &key.last_used_at.map(UnixTime::to_stored),
                &key.kind.as_str(),
                &key.grant,
                &key.client,
            ],
            step,
            actor,
        )
        .await?;
        Ok(inserted == 1)
    }

    async fn find_api_key(&self, hash: &KeyHash) -> Result<Option<ApiKeyRecord>, StoreError> {
        crate::store::reading!(self, |client| async {
            let find = client
                .prepare_cached(&format!("{SELECT} WHERE hash = $1"))
                .await
                .map_err(pg_error)?;
            let row = client
                .query_opt(&find, &[&hash.0.as_slice()])
                .await
                .map_err(pg_error)?;
            row.as_ref().map(key_from_row).transpose()
        })
    }

    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(&format!("{SELECT} ORDER BY seq"), &[])
            .await
            .map_err(pg_error)?;
        rows.iter().map(key_from_row).collect()
    }

    async fn revoke_api_key(
        &self,
        id: &str,
        step: AuditStep,
        actor: &Actor,
    ) -> Result<Revocation, StoreError> {
        // The update is the one that decides.
        let updated = changed_and_audited(
            self,
            "UPDATE api_keys SET revoked = true WHERE id = $1 AND NOT revoked",
            &[&id],
            step,
            actor,
        )
        .await?;
        if updated == 1 {
            return Ok(Revocation::Revoked);
        }
        let client = self.client().await?;
        let exists: bool = client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM api_keys WHERE id = $1)",
                &[&id],
            )
            .await
            .and_then(|row| row.try_get(0))
            .map_err(pg_error)?;
        Ok(Revocation::unchanged(exists))
    }
    async fn revoke_grant(&self, grant: &str, actor: &Actor) -> Result<u64, StoreError> {
        changed_and_audited(
            self,
            "UPDATE api_keys SET revoked = true WHERE grant_id = $1 AND NOT revoked",
            &[&grant],
            AuditStep::KeyRevoked,
            actor,
        )
        .await
    }

    /// A feed on a connection of its own that LISTENs for the notification
    /// every key change sends.
    async fn key_changes(&self) -> Result<KeyChanges, StoreError> {
        self.listen(crate::listen::KEYS_CHANNEL)
            .await
            .map(KeyChanges::Feed)
    }

    async fn record_api_key_use(&self, id: &str, at: UnixTime) -> Result<(), StoreError> {
        let client = self.client().await?;
        let replaced = UnixTime::latest_use_replaced_at(at).map(UnixTime::to_stored);
        client
            .execute(
                "UPDATE api_keys SET last_used_at = $2 WHERE id = $1 \
                 AND (last_used_at IS NULL OR last_used_at <= $3)",
                &[&id, &at.to_stored(), &replaced],
            )
            .await
            .map_err(pg_error)?;
        Ok(())
    }
}
