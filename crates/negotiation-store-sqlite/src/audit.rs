//! Reading the audit record; the commits append to it (see `store`).

use async_trait::async_trait;
use rusqlite::params;

use index_negotiation_store::sql_rows::{AUDIT_COLUMNS, AuditQuery, StoredAudit, stored_audit};
use index_negotiation_store::{
    Actor, AuditEntry, AuditFilter, AuditStore, AuditWrite, StoreError, UserId,
};

use crate::SqliteStore;
use crate::error::sql_error;
use crate::store::append_audit;

#[async_trait]
impl AuditStore for SqliteStore {
    async fn list_audit(&self, filter: &AuditFilter) -> Result<Vec<AuditEntry>, StoreError> {
        let filter = filter.clone();
        self.pool
            .run(move |conn| {
                let query = AuditQuery::of(&filter);
                let sql = format!(
                    "SELECT {AUDIT_COLUMNS} FROM audit WHERE (?1 IS NULL OR user_id = ?1) \
                     AND (?2 IS NULL OR negotiation_id = ?2) AND (?3 IS NULL OR step = ?3) \
                     AND (?4 IS NULL OR at >= ?4) AND (?5 IS NULL OR at < ?5) AND seq > ?6 \
                     ORDER BY seq LIMIT ?7"
                );
                let mut select = conn.prepare_cached(&sql).map_err(sql_error)?;
                let rows = select
                    .query_map(
                        params![
                            query.user,
                            query.negotiation,
                            query.step,
                            query.since,
                            query.until,
                            query.after,
                            query.limit
                        ],
                        |row| {
                            Ok(StoredAudit {
                                seq: row.get(0)?,
                                at: row.get(1)?,
                                step: row.get(2)?,
                                negotiation_id: row.get(3)?,
                                user_id: row.get(4)?,
                                detail: row.get(5)?,
                                actor_kind: row.get(6)?,
                                key_id: row.get(7)?,
                                request_id: row.get(8)?,
                            })
                        },
                    )
                    .map_err(sql_error)?;
                rows.map(|row| stored_audit(row.map_err(sql_error)?))
                    .collect()
            })
            .await
    }

    async fn record_refusal(
        &self,
        user: &UserId,
        code: &str,
        actor: &Actor,
    ) -> Result<(), StoreError> {
        let (user, code, actor) = (user.clone(), code.to_owned(), actor.clone());
        self.pool
            .run_write(move |conn| append_audit(conn, AuditWrite::refused(&user, &code, &actor)))
            .await
    }
}
