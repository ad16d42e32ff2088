//! Webhooks: the endpoints people and operators register, the events a
//! commit reports to them, and the outbox those reports wait in until a
//! host delivers them.
//!
//! An event is written in the same transaction as the step it reports
//! (one delivery row per endpoint that wants it), so no step goes
//! unreported and no report tells of a step that did not happen. Any host
//! of the store delivers: it claims due deliveries for a while (a lease),
//! sends them, and records how that went. Deliveries to one endpoint about
//! one negotiation go out in the order of their steps, each after the one
//! before it is delivered or given up.

use std::fmt;

use async_trait::async_trait;
use serde_json::json;

use crate::audit::{AuditStep, AuditWrite, TurnEnd};
use crate::error::StoreError;
use crate::time::UnixTime;
use index_negotiation::{OpportunityId, UserId};

index_js::wire_enum! {
    crate index_negotiation_store;
    /// What an event reports. Each step a commit applies is one event of
    /// one type: a turn is `negotiation.turn_taken`, or
    /// `negotiation.round_ended` when it ends a round without agreement, or
    /// `negotiation.settled` when it settles the negotiation.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum EventType {
        /// A negotiation was opened.
        Opened = "negotiation.opened",
        /// A seat took a turn that neither ended its round nor settled.
        TurnTaken = "negotiation.turn_taken",
        /// A turn ended its round without agreement: the pair pauses until
        /// a seat resumes.
        RoundEnded = "negotiation.round_ended",
        /// A turn settled the negotiation: an offer accepted.
        Settled = "negotiation.settled",
        /// A seat's agent parked the negotiation on a question for its
        /// person; only that person's endpoints (and the host's) hear it,
        /// with the question.
        Parked = "negotiation.parked",
        /// The person answered the question a park asked.
        Answered = "negotiation.answered",
        /// A seat resumed the paused pair.
        Resumed = "negotiation.resumed",
        /// The negotiation was closed.
        Closed = "negotiation.closed",
        /// An agent asked its person for input (an interaction).
        InteractionRequested = "interaction.requested",
        /// A person's response resolved an interaction an agent asked them.
        InteractionResolved = "interaction.resolved",
    }
}

/// The event types an endpoint wants: all of them, or some.
///
/// It is stored as `*` or as the types between commas (`,a,b,`), so a SQL
/// backend matches a type with one string search.
///
/// ```
/// use index_negotiation_store::{EventFilter, EventType};
/// let some = EventFilter::only([EventType::Parked, EventType::Settled]);
/// assert!(some.wants(EventType::Parked) && !some.wants(EventType::Opened));
/// assert_eq!(some.to_stored(), ",negotiation.settled,negotiation.parked,");
/// assert_eq!(EventFilter::from_stored(&some.to_stored()).unwrap(), some);
/// assert!(EventFilter::All.wants(EventType::Opened));
/// assert_eq!(EventFilter::only([]), EventFilter::All);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum EventFilter {
    /// Every type, those added later included.
    #[default]
    All,
    /// These types only (never empty), in the order they are declared.
    Only(Vec<EventType>),
}

impl EventFilter {
    /// The filter that wants `types`, or [`EventFilter::All`] when they
    /// are none.
    pub fn only(types: impl IntoIterator<Item = EventType>) -> Self {
        let wanted: Vec<EventType> = types.into_iter().collect();
        let kept: Vec<EventType> = EventType::ALL
            .into_iter()
            .filter(|kind| wanted.contains(kind))
            .collect();
        if kept.is_empty() {
            EventFilter::All
        } else {
            EventFilter::Only(kept)
        }
    }

    /// Whether an event of `kind` passes.
    pub fn wants(&self, kind: EventType) -> bool {
        match self {
            EventFilter::All => true,
            EventFilter::Only(types) => types.contains(&kind),
        }
    }

    /// The filter as a SQL backend keeps it.
    pub fn to_stored(&self) -> String {
        match self {
            EventFilter::All => "*".to_owned(),
            EventFilter::Only(types) => types.iter().fold(",".to_owned(), |mut text, kind| {
                text.push_str(kind.as_str());
                text.push(',');
                text
            }),
        }
    }

    /// A stored filter read back.
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] for a type this version does not know.
    pub fn from_stored(text: &str) -> Result<Self, StoreError> {
        if text == "*" {
            return Ok(EventFilter::All);
        }
        let types = text
            .split(',')
            .filter(|kind| !kind.is_empty())
            .map(|kind| {
                EventType::from_name(kind)
                    .ok_or_else(|| StoreError::Corrupt(format!("a webhook event type {kind:?}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(EventFilter::only(types))
    }

    /// The pattern a stored filter holds when it wants `kind`.
    pub fn stored_pattern(kind: EventType) -> String {
        format!(",{},", kind.as_str())
    }
}

/// An endpoint's signing secret, `whsec_` and the base64 of its key, as
/// Standard Webhooks writes it. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret(String);

impl WebhookSecret {
    /// The prefix every secret starts with.
    pub const PREFIX: &'static str = "whsec_";

    /// A secret as stored or made.
    pub fn new(secret: impl Into<String>) -> Self {
        WebhookSecret(secret.into())
    }

    /// The secret, to sign with or to show its endpoint's owner once.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret(..)")
    }
}

/// Why an endpoint stopped receiving, and since when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disabled {
    /// When deliveries to it were given up.
    pub at: UnixTime,
    /// What the last attempt met.
    pub reason: String,
}

/// A registered endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookEndpoint {
    /// Its public id (`wh_…`).
    pub id: String,
    /// The person whose negotiations it hears of, or `None` for a host's
    /// endpoint, which hears of every negotiation.
    pub user: Option<UserId>,
    /// Where deliveries are posted.
    pub url: String,
    /// The event types it wants.
    pub events: EventFilter,
    /// The secret deliveries are signed with.
    pub secret: WebhookSecret,
    /// The secret a rotation replaced, still signed with until the moment
    /// given, so a receiver can move to the new one without missing one.
    pub previous_secret: Option<(WebhookSecret, UnixTime)>,
    /// When it was registered.
    pub created_at: UnixTime,
    /// Set when deliveries to it were given up; nothing is delivered to it
    /// until a replay enables it again.
    pub disabled: Option<Disabled>,
}

impl WebhookEndpoint {
    /// The secrets a delivery at `now` is signed with: the current one,
    /// and the one it replaced while the overlap lasts.
    pub fn signing_secrets(&self, now: UnixTime) -> Vec<&WebhookSecret> {
        let previous = self
            .previous_secret
            .as_ref()
            .filter(|(_, until)| now < *until)
            .map(|(secret, _)| secret);
        std::iter::once(&self.secret).chain(previous).collect()
    }
}

/// Who hears of an event, besides every host endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience<'a> {
    /// The people of both seats of the negotiation.
    Seats(&'a OpportunityId),
    /// This person only.
    Person(&'a UserId),
}

/// The event a commit writes beside its audit entry: its type, who hears
/// of it, and the body every delivery of it posts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventWrite<'a> {
    /// What it reports.
    pub kind: EventType,
    /// Who hears of it, besides the host endpoints.
    pub audience: Audience<'a>,
    /// The ordering key: deliveries of one endpoint and key go out in
    /// order, each after the one before. The negotiation's id, or
    /// `person:` and the person's id for an event of no negotiation (an
    /// interaction's), so one person's failing deliveries hold up no one
    /// else's.
    pub queue: String,
    /// The JSON body: `type`, `timestamp` and `data`, as Standard Webhooks
    /// lays a payload out.
    pub body: String,
    /// The `traceparent` of the step's span, which its deliveries continue.
    pub trace: Option<&'a str>,
}

impl<'a> AuditWrite<'a> {
    /// The event that reports this step at `at`, or `None` for a step no
    /// webhook hears of (a key's, a refusal).
    pub fn event(&self, at: UnixTime) -> Option<EventWrite<'a>> {
        let negotiation = self.negotiation;
        let (kind, audience) = match (self.step, negotiation, self.user) {
            (AuditStep::Opened, Some(id), _) => (EventType::Opened, Audience::Seats(id)),
            (AuditStep::Turn, Some(id), _) => {
                let kind = match self.turn_end {
                    TurnEnd::Continues => EventType::TurnTaken,
                    TurnEnd::RoundEnded => EventType::RoundEnded,
                    TurnEnd::Settled => EventType::Settled,
                };
                (kind, Audience::Seats(id))
            }
            (AuditStep::Parked, Some(_), Some(user)) => (EventType::Parked, Audience::Person(user)),
            (AuditStep::Answered, Some(id), _) => (EventType::Answered, Audience::Seats(id)),
            (AuditStep::Resumed, Some(id), _) => (EventType::Resumed, Audience::Seats(id)),
            (AuditStep::Closed, Some(id), _) => (EventType::Closed, Audience::Seats(id)),
            (AuditStep::InteractionRequested, _, Some(user)) => {
                (EventType::InteractionRequested, Audience::Person(user))
            }
            (AuditStep::InteractionResolved, _, Some(user)) => {
                (EventType::InteractionResolved, Audience::Person(user))
            }
            _ => return None,
        };
        let mut data = serde_json::Map::new();
        if let Some(id) = negotiation {
            data.insert("negotiationId".into(), json!(id.as_str()));
        }
        if let Some(user) = self.user {
            data.insert("user".into(), json!(user.as_str()));
        }
        let detail_name = match self.step {
            AuditStep::Turn => Some("action"),
            AuditStep::Closed => Some("reason"),
            AuditStep::InteractionRequested | AuditStep::InteractionResolved => {
                Some("interactionId")
            }
            _ => None,
        };
        if let (Some(name), Some(detail)) = (detail_name, self.detail) {
            data.insert(name.into(), json!(detail));
        }
        if let Some(question) = self.question {
            data.insert("question".into(), question.clone());
        }
        let body = json!({"type": kind.as_str(), "timestamp": at, "data": data}).to_string();
        Some(EventWrite {
            kind,
            audience,
            queue: match (negotiation, self.user) {
                (Some(id), _) => id.as_str().to_owned(),
                (None, Some(user)) => format!("person:{}", user.as_str()),
                (None, None) => String::new(),
            },
            body,
            trace: self.actor.trace(),
        })
    }
}

/// A delivery a host claimed: the event, and where and how to send it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// Its row, to record how it went.
    pub seq: u64,
    /// The event's id, the same for every delivery of it and every
    /// attempt (`webhook-id`: `msg_` and its audit entry's number).
    pub message_id: String,
    /// What it reports.
    pub kind: EventType,
    /// The body to post, byte for byte on every attempt.
    pub body: String,
    /// When the event was written.
    pub created_at: UnixTime,
    /// Attempts made before this one.
    pub attempts: u32,
    /// The `traceparent` of the step's span, which the delivery's span
    /// continues.
    pub trace: Option<String>,
    /// The endpoint.
    pub endpoint: WebhookEndpoint,
}

/// The `webhook-id` of the event an audit entry `seq` reported.
///
/// ```
/// assert_eq!(index_negotiation_store::message_id(42), "msg_42");
/// ```
pub fn message_id(seq: u64) -> String {
    format!("msg_{seq}")
}

/// How an attempt went, as [`WebhookStore::finish_delivery`] records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryOutcome {
    /// The endpoint answered with a 2xx status.
    Delivered,
    /// It did not; try again at `at`. `error` says what the attempt met.
    Retry {
        /// When to try again.
        at: UnixTime,
        /// What the attempt met (a status, a timeout), never a body.
        error: String,
    },
    /// It did not, and the retries are spent: the delivery is given up and
    /// its endpoint disabled with `error` as the reason.
    GiveUp {
        /// What the last attempt met.
        error: String,
    },
}

impl DeliveryOutcome {
    /// What a store writes for it: whether the delivery is done with
    /// (delivered or given up), when to try again, and the reason its
    /// endpoint is disabled for.
    ///
    /// ```
    /// use index_negotiation_store::{DeliveryOutcome, UnixTime};
    /// assert_eq!(DeliveryOutcome::Delivered.parts(), (true, None, None));
    /// let retry = DeliveryOutcome::Retry { at: UnixTime(9), error: "HTTP 500".into() };
    /// assert_eq!(retry.parts(), (false, Some(UnixTime(9)), None));
    /// let gave_up = DeliveryOutcome::GiveUp { error: "timed out".into() };
    /// assert_eq!(gave_up.parts(), (true, None, Some("timed out")));
    /// ```
    pub fn parts(&self) -> (bool, Option<UnixTime>, Option<&str>) {
        match self {
            DeliveryOutcome::Delivered => (true, None, None),
            DeliveryOutcome::Retry { at, .. } => (false, Some(*at), None),
            DeliveryOutcome::GiveUp { error } => (true, None, Some(error)),
        }
    }
}

/// The deliveries [`WebhookStore::replay_deliveries`] sends again: those
/// to `endpoint` of events written in `since..until` (both inclusive,
/// either open).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayRange {
    /// The endpoint.
    pub endpoint: String,
    /// The earliest event time, if any.
    pub since: Option<UnixTime>,
    /// The latest event time, if any.
    pub until: Option<UnixTime>,
}

impl ReplayRange {
    /// Whether an event written `at` is in the range.
    pub fn holds(&self, at: UnixTime) -> bool {
        self.since.is_none_or(|since| since <= at) && self.until.is_none_or(|until| at <= until)
    }
}

/// Where webhook endpoints and the outbox live. Every backend implements
/// it; the events themselves are written by the commits of
/// [`NegotiationStore`](crate::NegotiationStore) and
/// [`InteractionStore`](crate::InteractionStore), in their transactions.
#[async_trait]
pub trait WebhookStore: Send + Sync {
    /// Registers `endpoint`. Returns `false`, storing nothing, when its id
    /// is taken.
    async fn insert_webhook(&self, endpoint: &WebhookEndpoint) -> Result<bool, StoreError>;

    /// Every endpoint, oldest first.
    async fn list_webhooks(&self) -> Result<Vec<WebhookEndpoint>, StoreError>;

    /// Removes the endpoint `id` and every delivery waiting for it;
    /// whether there was one.
    async fn remove_webhook(&self, id: &str) -> Result<bool, StoreError>;

    /// Makes `secret` the endpoint's, keeping the one it replaces for
    /// signing until `overlap_until`; whether there was such an endpoint.
    async fn rotate_webhook_secret(
        &self,
        id: &str,
        secret: &WebhookSecret,
        overlap_until: UnixTime,
    ) -> Result<bool, StoreError>;

    /// Claims up to `limit` deliveries due at `now`, each the oldest
    /// undelivered one of its endpoint and negotiation, for `lease`
    /// seconds: no other claim takes them while the lease lasts, and an
    /// unfinished one (its host died) is claimed again once it ends.
    async fn claim_deliveries(
        &self,
        now: UnixTime,
        lease: std::time::Duration,
        limit: usize,
    ) -> Result<Vec<Delivery>, StoreError>;

    /// Records how the attempt at the claimed delivery `seq` went.
    async fn finish_delivery(
        &self,
        seq: u64,
        now: UnixTime,
        outcome: &DeliveryOutcome,
    ) -> Result<(), StoreError>;

    /// Sends the deliveries of `range` again, due at `now`, with their own
    /// `webhook-id`s, and enables the endpoint if it was disabled; how many
    /// were queued, or `None` when there is no such endpoint.
    async fn replay_deliveries(
        &self,
        range: &ReplayRange,
        now: UnixTime,
    ) -> Result<Option<u64>, StoreError>;
}

macro_rules! forward_webhooks {
    ($($pointer:ty),*) => {$(
        #[async_trait]
        impl<S: WebhookStore + ?Sized> WebhookStore for $pointer {
            async fn insert_webhook(&self, endpoint: &WebhookEndpoint) -> Result<bool, StoreError> {
                (**self).insert_webhook(endpoint).await
            }
            async fn list_webhooks(&self) -> Result<Vec<WebhookEndpoint>, StoreError> {
                (**self).list_webhooks().await
            }
            async fn remove_webhook(&self, id: &str) -> Result<bool, StoreError> {
                (**self).remove_webhook(id).await
            }
            async fn rotate_webhook_secret(&self, id: &str, secret: &WebhookSecret, overlap_until: UnixTime) -> Result<bool, StoreError> {
                (**self).rotate_webhook_secret(id, secret, overlap_until).await
            }
            async fn claim_deliveries(&self, now: UnixTime, lease: std::time::Duration, limit: usize) -> Result<Vec<Delivery>, StoreError> {
                (**self).claim_deliveries(now, lease, limit).await
            }
            async fn finish_delivery(&self, seq: u64, now: UnixTime, outcome: &DeliveryOutcome) -> Result<(), StoreError> {
                (**self).finish_delivery(seq, now, outcome).await
            }
            async fn replay_deliveries(&self, range: &ReplayRange, now: UnixTime) -> Result<Option<u64>, StoreError> {
                (**self).replay_deliveries(range, now).await
            }
        }
    )*};
}

forward_webhooks!(std::sync::Arc<S>, Box<S>, &S);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::Actor;

    #[test]
    fn an_interactions_events_go_to_its_person_alone_and_keys_have_none() {
        let dana: UserId = "dana".parse().unwrap();
        let agent = Actor::operator();
        let at = UnixTime(1_796_400_000);
        for (write, kind) in [
            (
                AuditWrite::interaction_requested(&dana, "q-1", &agent),
                EventType::InteractionRequested,
            ),
            (
                AuditWrite::interaction_resolved(&dana, "q-1", &agent),
                EventType::InteractionResolved,
            ),
        ] {
            let event = write.event(at).unwrap();
            assert_eq!(event.queue, "person:dana");
            assert_eq!(
                (event.kind, event.audience),
                (kind, Audience::Person(&dana))
            );
            let body: serde_json::Value = serde_json::from_str(&event.body).unwrap();
            assert_eq!(body["type"], kind.as_str());
            assert_eq!(body["timestamp"], "2026-12-04T16:00:00Z");
            assert_eq!(
                body["data"],
                json!({"user": "dana", "interactionId": "q-1"})
            );
        }
        let key = AuditWrite::key(AuditStep::KeyCreated, &dana, "k1", &agent);
        assert_eq!(key.event(at), None);
        assert_eq!(
            AuditWrite::refused(&dana, "key_revoked", &agent).event(at),
            None
        );
    }
}
