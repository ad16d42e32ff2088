//! Reading the audit record; the commits append to it (see `store`).

use async_trait::async_trait;

use index_negotiation_store::sql_rows::{AUDIT_COLUMNS, AuditQuery, StoredAudit, stored_audit};
use index_negotiation_store::{
    Actor, AuditEntry, AuditFilter, AuditStore, AuditWrite, StoreError, UserId,
};

use crate::PostgresStore;
use crate::error::pg_error;
use crate::store::append_audit;

fn entry_from_row(row: &tokio_postgres::Row) -> Result<AuditEntry, StoreError> {
    stored_audit(StoredAudit {
        seq: row.try_get(0).map_err(pg_error)?,
        at: row.try_get(1).map_err(pg_error)?,
        step: row.try_get(2).map_err(pg_error)?,
        negotiation_id: row.try_get(3).map_err(pg_error)?,
        user_id: row.try_get(4).map_err(pg_error)?,
        detail: row.try_get(5).map_err(pg_error)?,
        actor_kind: row.try_get(6).map_err(pg_error)?,
        key_id: row.try_get(7).map_err(pg_error)?,
        request_id: row.try_get(8).map_err(pg_error)?,
    })
}

#[async_trait]
impl AuditStore for PostgresStore {
    async fn list_audit(&self, filter: &AuditFilter) -> Result<Vec<AuditEntry>, StoreError> {
        let query = AuditQuery::of(filter);
        let client = self.client().await?;
        let sql = format!(
            "SELECT {AUDIT_COLUMNS} FROM audit WHERE ($1::text IS NULL OR user_id = $1) \
             AND ($2::text IS NULL OR negotiation_id = $2) AND ($3::text IS NULL OR step = $3) \
             AND ($4::bigint IS NULL OR at >= $4) AND ($5::bigint IS NULL OR at < $5) \
             AND seq > $6 ORDER BY seq LIMIT $7"
        );
        let rows = client
            .query(
                &sql,
                &[
                    &query.user,
                    &query.negotiation,
                    &query.step,
                    &query.since,
                    &query.until,
                    &query.after,
                    &query.limit,
                ],
            )
            .await
            .map_err(pg_error)?;
        rows.iter().map(entry_from_row).collect()
    }

    async fn record_refusal(
        &self,
        user: &UserId,
        code: &str,
        actor: &Actor,
    ) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg_error)?;
        append_audit(&tx, AuditWrite::refused(user, code, actor)).await?;
        tx.commit().await.map_err(pg_error)
    }
}
