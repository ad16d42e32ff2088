//! Webhook endpoints and the outbox: each commit queues its event in its
//! own statement (`queue_event!` in `store`); hosts claim due deliveries
//! with `FOR UPDATE SKIP LOCKED`, so two hosts never take the same one,
//! and hold them by a lease while they send.

use std::time::Duration;

use async_trait::async_trait;
use tokio_postgres::Row;

use index_negotiation_store::sql_rows::{
    DELIVERY_COLUMNS, ENDPOINT_COLUMNS, StoredDelivery, StoredEndpoint, stored_delivery,
    stored_endpoint,
};
use index_negotiation_store::{
    Delivery, DeliveryOutcome, ReplayRange, StoreError, UnixTime, UserId, WebhookEndpoint,
    WebhookSecret, WebhookStore,
};

use crate::PostgresStore;
use crate::error::pg_error;

/// An endpoint's columns from `row`, starting at column `at`.
fn endpoint_row(row: &Row, at: usize) -> Result<StoredEndpoint, StoreError> {
    let get = |n: usize| n + at;
    Ok(StoredEndpoint {
        id: row.try_get(get(0)).map_err(pg_error)?,
        user_id: row.try_get(get(1)).map_err(pg_error)?,
        url: row.try_get(get(2)).map_err(pg_error)?,
        events: row.try_get(get(3)).map_err(pg_error)?,
        secret: row.try_get(get(4)).map_err(pg_error)?,
        previous_secret: row.try_get(get(5)).map_err(pg_error)?,
        previous_until: row.try_get(get(6)).map_err(pg_error)?,
        created_at: row.try_get(get(7)).map_err(pg_error)?,
        disabled_at: row.try_get(get(8)).map_err(pg_error)?,
        disabled_reason: row.try_get(get(9)).map_err(pg_error)?,
    })
}

fn delivery_row(row: &Row) -> Result<Delivery, StoreError> {
    let attempts: i32 = row.try_get(5).map_err(pg_error)?;
    stored_delivery(StoredDelivery {
        seq: row.try_get(0).map_err(pg_error)?,
        message: row.try_get(1).map_err(pg_error)?,
        event: row.try_get(2).map_err(pg_error)?,
        body: row.try_get(3).map_err(pg_error)?,
        created_at: row.try_get(4).map_err(pg_error)?,
        attempts: i64::from(attempts),
        traceparent: row.try_get(6).map_err(pg_error)?,
        endpoint: endpoint_row(row, 7)?,
    })
}

#[async_trait]
impl WebhookStore for PostgresStore {
    async fn insert_webhook(&self, endpoint: &WebhookEndpoint) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let previous = endpoint.previous_secret.as_ref();
        let inserted = client
            .execute(
                "INSERT INTO webhook_endpoints (id, user_id, url, events, secret, previous_secret, \
                 previous_until, created_at, disabled_at, disabled_reason) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING",
                &[
                    &endpoint.id,
                    &endpoint.user.as_ref().map(UserId::as_str),
                    &endpoint.url,
                    &endpoint.events.to_stored(),
                    &endpoint.secret.expose(),
                    &previous.map(|(secret, _)| secret.expose()),
                    &previous.map(|(_, until)| until.to_stored()),
                    &endpoint.created_at.to_stored(),
                    &endpoint.disabled.as_ref().map(|off| off.at.to_stored()),
                    &endpoint.disabled.as_ref().map(|off| off.reason.as_str()),
                ],
            )
            .await
            .map_err(pg_error)?;
        Ok(inserted == 1)
    }

    async fn list_webhooks(&self) -> Result<Vec<WebhookEndpoint>, StoreError> {
        let client = self.client().await?;
        let sql = format!(
            "SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints e ORDER BY e.created_at, e.id"
        );
        let rows = client.query(&sql, &[]).await.map_err(pg_error)?;
        rows.iter()
            .map(|row| stored_endpoint(endpoint_row(row, 0)?))
            .collect()
    }

    async fn remove_webhook(&self, id: &str) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let removed = client
            .execute("DELETE FROM webhook_endpoints WHERE id = $1", &[&id])
            .await
            .map_err(pg_error)?;
        Ok(removed == 1)
    }

    async fn rotate_webhook_secret(
        &self,
        id: &str,
        secret: &WebhookSecret,
        overlap_until: UnixTime,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let rotated = client
            .execute(
                "UPDATE webhook_endpoints SET previous_secret = secret, previous_until = $1, \
                 secret = $2 WHERE id = $3",
                &[&overlap_until.to_stored(), &secret.expose(), &id],
            )
            .await
            .map_err(pg_error)?;
        Ok(rotated == 1)
    }

    /// One statement: the due heads locked (skipping those another host
    /// is claiming right now), leased and returned. A row another host
    /// leased between this statement's snapshot and its lock is re-checked
    /// on its newest version, and left.
    async fn claim_deliveries(
        &self,
        now: UnixTime,
        lease: Duration,
        limit: usize,
    ) -> Result<Vec<Delivery>, StoreError> {
        let client = self.client().await?;
        let sql = format!(
            "WITH due AS (SELECT d.seq FROM webhook_deliveries d \
             JOIN webhook_endpoints e ON e.id = d.endpoint_id \
             WHERE NOT d.done AND e.disabled_at IS NULL AND d.next_attempt_at <= $1 \
             AND (d.lease_until IS NULL OR d.lease_until <= $1) \
             AND d.seq = (SELECT min(p.seq) FROM webhook_deliveries p \
             WHERE p.endpoint_id = d.endpoint_id AND p.queue = d.queue AND NOT p.done) \
             ORDER BY d.seq LIMIT $3 FOR UPDATE OF d SKIP LOCKED) \
             UPDATE webhook_deliveries d SET lease_until = $2 FROM due, webhook_endpoints e \
             WHERE d.seq = due.seq AND e.id = d.endpoint_id \
             RETURNING {DELIVERY_COLUMNS}, {ENDPOINT_COLUMNS}"
        );
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = client
            .query(
                &sql,
                &[&now.to_stored(), &now.after(lease).to_stored(), &limit],
            )
            .await
            .map_err(pg_error)?;
        let mut claimed = rows
            .iter()
            .map(delivery_row)
            .collect::<Result<Vec<_>, _>>()?;
        claimed.sort_by_key(|delivery| delivery.seq);
        Ok(claimed)
    }

    async fn finish_delivery(
        &self,
        seq: u64,
        now: UnixTime,
        outcome: &DeliveryOutcome,
    ) -> Result<(), StoreError> {
        let seq = i64::try_from(seq).unwrap_or(i64::MAX);
        let (done, next, reason) = outcome.parts();
        let next = next.map(UnixTime::to_stored);
        let client = self.client().await?;
        client
            .execute(
                "WITH finished AS (UPDATE webhook_deliveries SET done = $1, attempts = attempts + 1, \
                 next_attempt_at = COALESCE($2, next_attempt_at), lease_until = NULL \
                 WHERE seq = $3 AND NOT done RETURNING endpoint_id) \
                 UPDATE webhook_endpoints SET disabled_at = $4, disabled_reason = $5 \
                 WHERE $5::text IS NOT NULL AND id IN (SELECT endpoint_id FROM finished)",
                &[&done, &next, &seq, &now.to_stored(), &reason],
            )
            .await
            .map_err(pg_error)?;
        Ok(())
    }

    async fn replay_deliveries(
        &self,
        range: &ReplayRange,
        now: UnixTime,
    ) -> Result<Option<u64>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_one(
                "WITH found AS (UPDATE webhook_endpoints SET disabled_at = NULL, \
                 disabled_reason = NULL WHERE id = $1 RETURNING id), \
                 queued AS (UPDATE webhook_deliveries SET done = FALSE, attempts = 0, \
                 next_attempt_at = $2 WHERE endpoint_id IN (SELECT id FROM found) \
                 AND ($3::bigint IS NULL OR created_at >= $3) AND ($4::bigint IS NULL OR created_at <= $4) \
                 RETURNING seq) \
                 SELECT (SELECT count(*) FROM found), (SELECT count(*) FROM queued)",
                &[
                    &range.endpoint,
                    &now.to_stored(),
                    &range.since.map(UnixTime::to_stored),
                    &range.until.map(UnixTime::to_stored),
                ],
            )
            .await
            .map_err(pg_error)?;
        let found: i64 = row.try_get(0).map_err(pg_error)?;
        let queued: i64 = row.try_get(1).map_err(pg_error)?;
        Ok((found == 1).then(|| u64::try_from(queued).unwrap_or(0)))
    }
}
