//! The memory store's webhook endpoints and outbox, under one lock, which
//! a commit takes (after the audit record's) to queue its event.

use std::time::Duration;

use async_trait::async_trait;

use super::{MemoryStore, poisoned};
use crate::error::StoreError;
use crate::time::UnixTime;
use crate::webhooks::{
    Audience, Delivery, DeliveryOutcome, Disabled, EventType, EventWrite, ReplayRange,
    WebhookEndpoint, WebhookSecret, WebhookStore, message_id,
};
use index_negotiation::UserId;

/// Every endpoint, oldest first, and every delivery, in the order queued.
#[derive(Debug, Default)]
pub(super) struct Webhooks {
    endpoints: Vec<WebhookEndpoint>,
    deliveries: Vec<Row>,
    next_seq: u64,
}

/// One delivery as the outbox keeps it.
#[derive(Debug)]
struct Row {
    seq: u64,
    endpoint: String,
    message: u64,
    kind: EventType,
    queue: String,
    body: String,
    trace: Option<String>,
    created_at: UnixTime,
    attempts: u32,
    next_attempt_at: UnixTime,
    lease_until: Option<UnixTime>,
    done: bool,
}

impl Webhooks {
    /// Queues `event`, reported by audit entry `message` at `at`, for every
    /// endpoint that wants it (a disabled one too): the host's, and those of `seats`
    /// (both seats' people, for an event about the whole negotiation).
    pub(super) fn queue(
        &mut self,
        message: u64,
        at: UnixTime,
        event: &EventWrite<'_>,
        seats: Option<[&UserId; 2]>,
    ) {
        let hears = |endpoint: &WebhookEndpoint| match (&endpoint.user, event.audience) {
            (None, _) => true,
            (Some(user), Audience::Person(person)) => user == person,
            (Some(user), Audience::Seats(_)) => seats.is_some_and(|seats| seats.contains(&user)),
        };
        let wanting: Vec<String> = self
            .endpoints
            .iter()
            .filter(|endpoint| endpoint.events.wants(event.kind))
            .filter(|endpoint| hears(endpoint))
            .map(|endpoint| endpoint.id.clone())
            .collect();
        for endpoint in wanting {
            self.next_seq += 1;
            self.deliveries.push(Row {
                seq: self.next_seq,
                endpoint,
                message,
                kind: event.kind,
                queue: event.queue.clone(),
                body: event.body.clone(),
                trace: event.trace.map(str::to_owned),
                created_at: at,
                attempts: 0,
                next_attempt_at: at,
                lease_until: None,
                done: false,
            });
        }
    }

    fn endpoint(&mut self, id: &str) -> Option<&mut WebhookEndpoint> {
        self.endpoints.iter_mut().find(|endpoint| endpoint.id == id)
    }
}

#[async_trait]
impl WebhookStore for MemoryStore {
    async fn insert_webhook(&self, endpoint: &WebhookEndpoint) -> Result<bool, StoreError> {
        let mut hooks = self.inner.webhooks.lock().map_err(|_| poisoned())?;
        if hooks.endpoint(&endpoint.id).is_some() {
            return Ok(false);
        }
        hooks.endpoints.push(endpoint.clone());
        Ok(true)
    }

    async fn list_webhooks(&self) -> Result<Vec<WebhookEndpoint>, StoreError> {
        let hooks = self.inner.webhooks.lock().map_err(|_| poisoned())?;
        Ok(hooks.endpoints.clone())
    }

    async fn remove_webhook(&self, id: &str) -> Result<bool, StoreError> {
        let mut hooks = self.inner.webhooks.lock().map_err(|_| poisoned())?;
        let before = hooks.endpoints.len();
        hooks.endpoints.retain(|endpoint| endpoint.id != id);
        hooks.deliveries.retain(|row| row.endpoint != id);
        Ok(hooks.endpoints.len() != before)
    }

    async fn rotate_webhook_secret(
        &self,
        id: &str,
        secret: &WebhookSecret,
        overlap_until: UnixTime,
    ) -> Result<bool, StoreError> {
        let mut hooks = self.inner.webhooks.lock().map_err(|_| poisoned())?;
        let Some(endpoint) = hooks.endpoint(id) else {
            return Ok(false);
        };
        let old = std::mem::replace(&mut endpoint.secret, secret.clone());
        endpoint.previous_secret = Some((old, overlap_until));
        Ok(true)
    }

    async fn claim_deliveries(
        &self,
        now: UnixTime,
        lease: Duration,
        limit: usize,
    ) -> Result<Vec<Delivery>, StoreError> {
        let mut hooks = self.inner.webhooks.lock().map_err(|_| poisoned())?;
        let Webhooks {
            endpoints,
            deliveries,
            ..
        } = &mut *hooks;
        // The first undone row of each endpoint and queue is its head; only
        // a head is ever sent.
        let mut seen = std::collections::BTreeSet::new();
        let heads: Vec<usize> = deliveries
            .iter()
            .enumerate()
            .filter(|(_, row)| {
                !row.done && seen.insert((row.endpoint.as_str(), row.queue.as_str()))
            })
            .map(|(index, _)| index)
            .collect();
        let mut claimed = Vec::new();
        for index in heads {
            if claimed.len() == limit {
                break;
            }
            let Some(row) = deliveries.get_mut(index) else {
                continue;
            };
            let leased = row.lease_until.is_some_and(|until| now < until);
            let Some(endpoint) = endpoints.iter().find(|e| e.id == row.endpoint) else {
                continue;
            };
            if leased || row.next_attempt_at > now || endpoint.disabled.is_some() {
                continue;
            }
            row.lease_until = Some(now.after(lease));
            claimed.push(Delivery {
                seq: row.seq,
                message_id: message_id(row.message),
                kind: row.kind,
                body: row.body.clone(),
                created_at: row.created_at,
                attempts: row.attempts,
                trace: row.trace.clone(),
                endpoint: endpoint.clone(),
            });
        }
        Ok(claimed)
    }

    async fn finish_delivery(
        &self,
        seq: u64,
        now: UnixTime,
        outcome: &DeliveryOutcome,
    ) -> Result<(), StoreError> {
        let mut hooks = self.inner.webhooks.lock().map_err(|_| poisoned())?;
        let Some(row) = hooks
            .deliveries
            .iter_mut()
            .find(|row| row.seq == seq && !row.done)
        else {
            return Ok(());
        };
        row.lease_until = None;
        row.attempts = row.attempts.saturating_add(1);
        let (done, next, reason) = outcome.parts();
        row.done = done;
        if let Some(at) = next {
            row.next_attempt_at = at;
        }
        let disable = reason.map(|reason| (row.endpoint.clone(), reason.to_owned()));
        if let Some((id, reason)) = disable
            && let Some(endpoint) = hooks.endpoint(&id)
        {
            endpoint.disabled = Some(Disabled { at: now, reason });
        }
        Ok(())
    }

    async fn replay_deliveries(
        &self,
        range: &ReplayRange,
        now: UnixTime,
    ) -> Result<Option<u64>, StoreError> {
        let mut hooks = self.inner.webhooks.lock().map_err(|_| poisoned())?;
        let Some(endpoint) = hooks.endpoint(&range.endpoint) else {
            return Ok(None);
        };
        endpoint.disabled = None;
        let mut queued = 0;
        for row in hooks
            .deliveries
            .iter_mut()
            .filter(|row| row.endpoint == range.endpoint && range.holds(row.created_at))
        {
            row.done = false;
            row.attempts = 0;
            row.next_attempt_at = now;
            queued += 1;
        }
        Ok(Some(queued))
    }
}
