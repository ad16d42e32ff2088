//! Webhook endpoints and the outbox: each commit queues its event in its
//! own transaction (`queue`, from `store::append_audit`); hosts claim,
//! finish and replay deliveries under the write lock.

use std::time::Duration;

use async_trait::async_trait;
use rusqlite::{Connection, Row, params};

use index_negotiation_store::sql_rows::{
    DELIVERY_COLUMNS, ENDPOINT_COLUMNS, StoredDelivery, StoredEndpoint, stored_delivery,
    stored_endpoint,
};
use index_negotiation_store::{
    Audience, Delivery, DeliveryOutcome, EventFilter, EventWrite, ReplayRange, StoreError,
    UnixTime, UserId, WebhookEndpoint, WebhookSecret, WebhookStore,
};

use crate::SqliteStore;
use crate::error::sql_error;
use crate::tx::{begin_write, execute};

/// Whether any endpoint is registered, read in `tx`: when none is, a
/// commit has no event to queue.
pub(crate) fn any_endpoint(tx: &Connection) -> Result<bool, StoreError> {
    tx.prepare_cached("SELECT EXISTS (SELECT 1 FROM webhook_endpoints)")
        .and_then(|mut any| any.query_row([], |row| row.get(0)))
        .map_err(sql_error)
}

/// Queues `event`, which audit entry `message` recorded at `at`, for every
/// endpoint that wants it and may hear of it, in `tx` (a disabled one
/// too: its deliveries wait for a replay to enable it).
pub(crate) fn queue(
    tx: &Connection,
    message: i64,
    at: UnixTime,
    event: &EventWrite<'_>,
) -> Result<(), StoreError> {
    let (person, negotiation) = match event.audience {
        Audience::Person(user) => (Some(user.as_str()), None),
        Audience::Seats(id) => (None, Some(id.as_str())),
    };
    execute(
        tx,
        "INSERT INTO webhook_deliveries (endpoint_id, message, event, queue, body, traceparent, \
         created_at, next_attempt_at) \
         SELECT e.id, ?1, ?2, ?3, ?4, ?9, ?5, ?5 FROM webhook_endpoints e \
         WHERE (e.events = '*' OR instr(e.events, ?6) > 0) \
         AND (e.user_id IS NULL OR e.user_id = ?7 OR e.user_id IN \
         (SELECT initiator_user_id FROM negotiations WHERE id = ?8 \
          UNION ALL SELECT responder_user_id FROM negotiations WHERE id = ?8))",
        params![
            message,
            event.kind.as_str(),
            event.queue,
            event.body,
            at.to_stored(),
            EventFilter::stored_pattern(event.kind),
            person,
            negotiation,
            event.trace
        ],
    )
    .map_err(sql_error)?;
    Ok(())
}

/// An endpoint's columns from `row`, starting at column `at`.
fn endpoint_row(row: &Row<'_>, at: usize) -> rusqlite::Result<StoredEndpoint> {
    Ok(StoredEndpoint {
        id: row.get(at)?,
        user_id: row.get(at + 1)?,
        url: row.get(at + 2)?,
        events: row.get(at + 3)?,
        secret: row.get(at + 4)?,
        previous_secret: row.get(at + 5)?,
        previous_until: row.get(at + 6)?,
        created_at: row.get(at + 7)?,
        disabled_at: row.get(at + 8)?,
        disabled_reason: row.get(at + 9)?,
    })
}

/// Claims the due heads of their queues in `tx`, which holds the write
/// lock.
fn claim(
    tx: &Connection,
    now: i64,
    lease_until: i64,
    limit: i64,
) -> Result<Vec<Delivery>, StoreError> {
    let sql = format!(
        "SELECT {DELIVERY_COLUMNS}, {ENDPOINT_COLUMNS} FROM webhook_deliveries d \
         JOIN webhook_endpoints e ON e.id = d.endpoint_id \
         WHERE NOT d.done AND e.disabled_at IS NULL AND d.next_attempt_at <= ?1 \
         AND (d.lease_until IS NULL OR d.lease_until <= ?1) \
         AND d.seq = (SELECT min(p.seq) FROM webhook_deliveries p \
         WHERE p.endpoint_id = d.endpoint_id AND p.queue = d.queue AND NOT p.done) \
         ORDER BY d.seq LIMIT ?2"
    );
    let mut select = tx.prepare_cached(&sql).map_err(sql_error)?;
    let rows = select
        .query_map(params![now, limit], |row| {
            Ok(StoredDelivery {
                seq: row.get(0)?,
                message: row.get(1)?,
                event: row.get(2)?,
                body: row.get(3)?,
                created_at: row.get(4)?,
                attempts: row.get(5)?,
                traceparent: row.get(6)?,
                endpoint: endpoint_row(row, 7)?,
            })
        })
        .map_err(sql_error)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql_error)?;
    let mut claimed = Vec::with_capacity(rows.len());
    for row in rows {
        execute(
            tx,
            "UPDATE webhook_deliveries SET lease_until = ?1 WHERE seq = ?2",
            params![lease_until, row.seq],
        )
        .map_err(sql_error)?;
        claimed.push(stored_delivery(row)?);
    }
    Ok(claimed)
}

#[async_trait]
impl WebhookStore for SqliteStore {
    async fn insert_webhook(&self, endpoint: &WebhookEndpoint) -> Result<bool, StoreError> {
        let endpoint = endpoint.clone();
        self.pool
            .run_write(move |conn| {
                let previous = endpoint.previous_secret.as_ref();
                let inserted = execute(
                    conn,
                    "INSERT INTO webhook_endpoints (id, user_id, url, events, secret, previous_secret, \
                     previous_until, created_at, disabled_at, disabled_reason) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) ON CONFLICT (id) DO NOTHING",
                    params![
                        endpoint.id,
                        endpoint.user.as_ref().map(UserId::as_str),
                        endpoint.url,
                        endpoint.events.to_stored(),
                        endpoint.secret.expose(),
                        previous.map(|(secret, _)| secret.expose()),
                        previous.map(|(_, until)| until.to_stored()),
                        endpoint.created_at.to_stored(),
                        endpoint.disabled.as_ref().map(|off| off.at.to_stored()),
                        endpoint.disabled.as_ref().map(|off| off.reason.as_str()),
                    ],
                )
                .map_err(sql_error)?;
                Ok(inserted == 1)
            })
            .await
    }

    async fn list_webhooks(&self) -> Result<Vec<WebhookEndpoint>, StoreError> {
        self.pool
            .run(|conn| {
                let sql = format!(
                    "SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints e ORDER BY e.created_at, e.id"
                );
                let mut select = conn.prepare_cached(&sql).map_err(sql_error)?;
                let rows = select
                    .query_map([], |row| endpoint_row(row, 0))
                    .map_err(sql_error)?;
                rows.map(|row| stored_endpoint(row.map_err(sql_error)?))
                    .collect()
            })
            .await
    }

    async fn remove_webhook(&self, id: &str) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.pool
            .run_write(move |conn| {
                let removed = execute(conn, "DELETE FROM webhook_endpoints WHERE id = ?1", [&id])
                    .map_err(sql_error)?;
                Ok(removed == 1)
            })
            .await
    }

    async fn rotate_webhook_secret(
        &self,
        id: &str,
        secret: &WebhookSecret,
        overlap_until: UnixTime,
    ) -> Result<bool, StoreError> {
        let (id, secret) = (id.to_owned(), secret.clone());
        self.pool
            .run_write(move |conn| {
                let rotated = execute(
                    conn,
                    "UPDATE webhook_endpoints SET previous_secret = secret, previous_until = ?1, \
                     secret = ?2 WHERE id = ?3",
                    params![overlap_until.to_stored(), secret.expose(), id],
                )
                .map_err(sql_error)?;
                Ok(rotated == 1)
            })
            .await
    }

    async fn claim_deliveries(
        &self,
        now: UnixTime,
        lease: Duration,
        limit: usize,
    ) -> Result<Vec<Delivery>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                let claimed = claim(&tx, now.to_stored(), now.after(lease).to_stored(), limit)?;
                tx.commit().map_err(sql_error)?;
                Ok(claimed)
            })
            .await
    }

    async fn finish_delivery(
        &self,
        seq: u64,
        now: UnixTime,
        outcome: &DeliveryOutcome,
    ) -> Result<(), StoreError> {
        let seq = i64::try_from(seq).unwrap_or(i64::MAX);
        let outcome = outcome.clone();
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                let (done, next, reason) = outcome.parts();
                let next = next.map(UnixTime::to_stored);
                let finished = execute(
                    &tx,
                    "UPDATE webhook_deliveries SET done = ?1, attempts = attempts + 1, \
                     next_attempt_at = coalesce(?2, next_attempt_at), lease_until = NULL \
                     WHERE seq = ?3 AND NOT done",
                    params![done, next, seq],
                )
                .map_err(sql_error)?;
                // A finish that found the delivery done already (its lease
                // lapsed and another attempt finished it) changes nothing.
                if let (1, Some(reason)) = (finished, reason) {
                    execute(
                        &tx,
                        "UPDATE webhook_endpoints SET disabled_at = ?1, disabled_reason = ?2 \
                         WHERE id = (SELECT endpoint_id FROM webhook_deliveries WHERE seq = ?3)",
                        params![now.to_stored(), reason, seq],
                    )
                    .map_err(sql_error)?;
                }
                tx.commit().map_err(sql_error)
            })
            .await
    }

    async fn replay_deliveries(
        &self,
        range: &ReplayRange,
        now: UnixTime,
    ) -> Result<Option<u64>, StoreError> {
        let range = range.clone();
        self.pool
            .run_write(move |conn| {
                let tx = begin_write(conn)?;
                let found = execute(
                    &tx,
                    "UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL \
                     WHERE id = ?1",
                    [&range.endpoint],
                )
                .map_err(sql_error)?;
                if found == 0 {
                    return Ok(None);
                }
                let queued = execute(
                    &tx,
                    "UPDATE webhook_deliveries SET done = 0, attempts = 0, next_attempt_at = ?1 \
                     WHERE endpoint_id = ?2 \
                     AND (?3 IS NULL OR created_at >= ?3) AND (?4 IS NULL OR created_at <= ?4)",
                    params![
                        now.to_stored(),
                        range.endpoint,
                        range.since.map(UnixTime::to_stored),
                        range.until.map(UnixTime::to_stored)
                    ],
                )
                .map_err(sql_error)?;
                tx.commit().map_err(sql_error)?;
                Ok(Some(u64::try_from(queued).unwrap_or(u64::MAX)))
            })
            .await
    }
}
