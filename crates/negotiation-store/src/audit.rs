//! The audit record: who took which step, when, and in which request.
//!
//! A backend appends one [`AuditEntry`] for every step a commit applies, in
//! the commit's own transaction: a step is never on record without having
//! happened, nor the other way round. A refused commit writes nothing, so
//! it leaves no entry. The record is append-only: nothing in the port
//! changes or removes an entry.
//!
//! An entry names the step, never its words: no turn message, question or
//! answer is kept here, so the record shows nothing beyond what the
//! negotiation's own views show, and no secret (a key is named by its
//! public id).

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use index_negotiation::{NegotiationTurn, OpportunityId, TurnPermitted, UserId};

use crate::error::StoreError;
use crate::model::{CloseReason, OpenNegotiation};
use crate::time::UnixTime;

index_js::wire_enum! {
    crate index_negotiation_store;
    /// How the actor of a step was authenticated.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum ActorKind {
        /// An agent's API key.
        AgentKey = "agent_key",
        /// A host's API key.
        HostKey = "host_key",
        /// An OAuth access token a person's approval made.
        OAuth = "oauth",
        /// A person's browser session.
        Session = "session",
        /// Someone with the store itself and no key: the `index` tool, or
        /// a program using the store directly.
        Operator = "operator",
        /// A host on its own, with no request behind the step: one that
        /// delivers the answer a stopped host had received.
        Host = "host",
    }
}

/// Who took a step: how they were authenticated, the public id of the key
/// they presented, and the id of the request that carried it.
///
/// ```
/// use index_negotiation_store::{Actor, ActorKind};
/// let actor = Actor::new(ActorKind::AgentKey, Some("k_7f3a".to_owned()), Some("req-1".to_owned()));
/// assert_eq!(actor.key_id(), Some("k_7f3a"));
/// assert_eq!(Actor::operator().kind(), ActorKind::Operator);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Actor {
    /// How they were authenticated.
    kind: ActorKind,
    /// The public id of the key they presented.
    #[serde(rename = "keyId", default, skip_serializing_if = "Option::is_none")]
    key_id: Option<String>,
    /// The id of the request that carried the step.
    #[serde(rename = "requestId", default, skip_serializing_if = "Option::is_none")]
    request_id: Option<String>,
    /// The W3C `traceparent` of the span the step was taken in: carried to
    /// the step's webhook deliveries, never kept on the record.
    #[serde(skip)]
    #[cfg_attr(feature = "schemars", schemars(skip))]
    trace: Option<String>,
}

/// The most characters an actor's key id or request id keeps: what is
/// longer is cut, so one caller cannot grow the record without bound.
pub const ACTOR_FIELD_LIMIT: usize = 128;

impl Actor {
    /// An actor; a key id or request id longer than
    /// [`ACTOR_FIELD_LIMIT`] characters is cut there.
    pub fn new(kind: ActorKind, key_id: Option<String>, request_id: Option<String>) -> Self {
        let cut = |text: String| match text.char_indices().nth(ACTOR_FIELD_LIMIT) {
            Some((end, _)) => text[..end].to_owned(),
            None => text,
        };
        Actor {
            kind,
            key_id: key_id.map(cut),
            request_id: request_id.map(cut),
            trace: None,
        }
    }

    /// This actor, acting in the trace `traceparent` names (W3C), which the
    /// step's webhook deliveries continue; one longer than
    /// [`ACTOR_FIELD_LIMIT`] is dropped.
    ///
    /// ```
    /// use index_negotiation_store::Actor;
    /// let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    /// let actor = Actor::operator().in_trace(Some(parent.to_owned()));
    /// assert_eq!(actor.trace(), Some(parent));
    /// assert_eq!(serde_json::to_string(&actor).unwrap(), r#"{"kind":"operator"}"#);
    /// ```
    pub fn in_trace(mut self, traceparent: Option<String>) -> Self {
        self.trace = traceparent.filter(|parent| parent.len() <= ACTOR_FIELD_LIMIT);
        self
    }

    /// The `traceparent` of the span the step was taken in, if any.
    pub fn trace(&self) -> Option<&str> {
        self.trace.as_deref()
    }

    /// Someone with the store itself, with no key and no request.
    pub fn operator() -> Self {
        Actor::new(ActorKind::Operator, None, None)
    }

    /// How the actor was authenticated.
    pub fn kind(&self) -> ActorKind {
        self.kind
    }

    /// The public id of the key the actor presented, if any.
    pub fn key_id(&self) -> Option<&str> {
        self.key_id.as_deref()
    }

    /// The id of the request that carried the step, if any.
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }
}

index_js::wire_enum! {
    crate index_negotiation_store;
    /// A step the record keeps.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum AuditStep {
        /// A negotiation was opened.
        Opened = "opened",
        /// A seat took a turn (the entry's detail is its action).
        Turn = "turn",
        /// A seat resumed a paused negotiation.
        Resumed = "resumed",
        /// A seat's agent parked on a question for its person.
        Parked = "parked",
        /// The person answered, resuming the negotiation.
        Answered = "answered",
        /// The negotiation was closed from outside the rules (the entry's
        /// detail is the reason).
        Closed = "closed",
        /// A key was made: with `keys create`, as a login link, or as an
        /// OAuth grant's token (the detail is the new key's id).
        KeyCreated = "key_created",
        /// A key was revoked (the detail is its id).
        KeyRevoked = "key_revoked",
        /// A browser signed in: its session key was made (the detail is
        /// the session key's id).
        SignedIn = "signed_in",
        /// A browser signed out: its session key was revoked (the detail
        /// is the session key's id).
        SignedOut = "signed_out",
        /// A request was refused with a key that no longer works (the
        /// detail is the refusal's code: `key_revoked`, `key_expired`,
        /// `login_link_used`).
        Refused = "refused",
        /// An agent asked its person for input: an interaction stored
        /// (the detail is its id).
        InteractionRequested = "interaction_requested",
        /// The person's response resolved an interaction an agent asked
        /// them (the detail is the interaction's id).
        InteractionResolved = "interaction_resolved",
    }
}

/// How a turn left its negotiation, which names its event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnEnd {
    /// The negotiation goes on in the same round.
    Continues,
    /// The round ended without agreement.
    RoundEnded,
    /// The negotiation settled.
    Settled,
}

impl TurnEnd {
    /// How the permitted turn leaves its negotiation.
    pub fn of(permitted: &TurnPermitted) -> Self {
        if permitted.outcome.is_some() {
            TurnEnd::Settled
        } else if permitted.round_ended.is_some() {
            TurnEnd::RoundEnded
        } else {
            TurnEnd::Continues
        }
    }
}

/// A step as a commit appends it: everything but its place in the record
/// and its time, which the backend gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditWrite<'a> {
    /// What was done.
    pub step: AuditStep,
    /// The negotiation it was done to, if any.
    pub negotiation: Option<&'a OpportunityId>,
    /// The person it was done for: the acting seat's (the initiator's for
    /// an opening, the key's for a key's step), or `None` for a close.
    pub user: Option<&'a UserId>,
    /// A word more, as [`AuditStep`] says: a turn's action, a close's
    /// reason, a key's id, a refusal's code.
    pub detail: Option<&'a str>,
    /// Who did it.
    pub actor: &'a Actor,
    /// How a turn left its negotiation (which names its webhook event);
    /// [`TurnEnd::Continues`] for every other step.
    pub turn_end: TurnEnd,
    /// A park's question, which its webhook event carries to the person's
    /// endpoints (never to the audit record).
    pub question: Option<&'a serde_json::Value>,
}

impl<'a> AuditWrite<'a> {
    /// `step`, done by `actor` for `user`'s seat.
    pub fn by_seat(
        step: AuditStep,
        negotiation: &'a OpportunityId,
        user: &'a UserId,
        actor: &'a Actor,
    ) -> Self {
        AuditWrite {
            step,
            negotiation: Some(negotiation),
            user: Some(user),
            detail: None,
            actor,
            turn_end: TurnEnd::Continues,
            question: None,
        }
    }

    /// `user`'s turn, its action the detail, which left the negotiation as
    /// `end` says.
    pub fn turn(
        negotiation: &'a OpportunityId,
        user: &'a UserId,
        turn: &NegotiationTurn,
        end: TurnEnd,
        actor: &'a Actor,
    ) -> Self {
        AuditWrite {
            detail: Some(turn.action.as_str()),
            turn_end: end,
            ..AuditWrite::by_seat(AuditStep::Turn, negotiation, user, actor)
        }
    }

    /// `user`'s agent parked `negotiation` on `question` (the question's
    /// JSON, for the webhook event).
    pub fn parked(
        negotiation: &'a OpportunityId,
        user: &'a UserId,
        question: &'a serde_json::Value,
        actor: &'a Actor,
    ) -> Self {
        AuditWrite {
            question: Some(question),
            ..AuditWrite::by_seat(AuditStep::Parked, negotiation, user, actor)
        }
    }

    /// The opening of `negotiation`, for its initiator.
    pub fn opened(negotiation: &'a OpenNegotiation, actor: &'a Actor) -> Self {
        AuditWrite::by_seat(
            AuditStep::Opened,
            &negotiation.opportunity_id,
            &negotiation.initiator.user_id,
            actor,
        )
    }

    /// A close for `reason`, the reason the detail.
    pub fn closed(negotiation: &'a OpportunityId, reason: CloseReason, actor: &'a Actor) -> Self {
        AuditWrite {
            step: AuditStep::Closed,
            negotiation: Some(negotiation),
            user: None,
            detail: Some(reason.as_str()),
            actor,
            turn_end: TurnEnd::Continues,
            question: None,
        }
    }

    /// `step` done to `key` (made, revoked, signed in or out with), which
    /// is `user`'s: the key's id the detail.
    pub fn key(step: AuditStep, user: &'a UserId, key: &'a str, actor: &'a Actor) -> Self {
        AuditWrite {
            step,
            negotiation: None,
            user: Some(user),
            detail: Some(key),
            actor,
            turn_end: TurnEnd::Continues,
            question: None,
        }
    }

    /// `user`'s interaction `id` asked by `actor`, their agent.
    pub fn interaction_requested(user: &'a UserId, id: &'a str, actor: &'a Actor) -> Self {
        AuditWrite {
            step: AuditStep::InteractionRequested,
            ..AuditWrite::interaction_resolved(user, id, actor)
        }
    }

    /// `user`'s interaction `id` resolved by their response, by `actor`.
    pub fn interaction_resolved(user: &'a UserId, id: &'a str, actor: &'a Actor) -> Self {
        AuditWrite {
            step: AuditStep::InteractionResolved,
            negotiation: None,
            user: Some(user),
            detail: Some(id),
            actor,
            turn_end: TurnEnd::Continues,
            question: None,
        }
    }

    /// A request refused with `code`, by `actor` presenting `user`'s key.
    pub fn refused(user: &'a UserId, code: &'a str, actor: &'a Actor) -> Self {
        AuditWrite {
            step: AuditStep::Refused,
            negotiation: None,
            user: Some(user),
            detail: Some(code),
            actor,
            turn_end: TurnEnd::Continues,
            question: None,
        }
    }
}

/// One entry of the record, as `GET /audit` and `index audit --json`
/// write it and read back.
///
/// ```
/// use index_negotiation_store::{AuditEntry, AuditStep};
/// let line = r#"{"seq":7,"at":"2026-12-06T16:31:40Z","step":"turn","negotiation":null,"user":"sam","detail":"propose","actor":{"kind":"agent_key","keyId":"3f9a1c2b7d10"}}"#;
/// let entry: AuditEntry = serde_json::from_str(line).unwrap();
/// assert_eq!((entry.step, entry.actor.key_id()), (AuditStep::Turn, Some("3f9a1c2b7d10")));
/// assert_eq!(serde_json::to_string(&entry).unwrap(), line);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct AuditEntry {
    /// Its place in the record: later entries have larger numbers.
    pub seq: u64,
    /// When it was written.
    pub at: UnixTime,
    /// What was done.
    pub step: AuditStep,
    /// The negotiation it was done to.
    pub negotiation: Option<OpportunityId>,
    /// The person it was done for.
    pub user: Option<UserId>,
    /// A word more, as [`AuditStep`] says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Who did it.
    pub actor: Actor,
}

/// The most entries one read of the record returns.
pub const AUDIT_PAGE_LIMIT: usize = 1000;

/// Which entries a read of the record returns: those every set field
/// matches, oldest first, from after `after`, at most `limit` (capped at
/// [`AUDIT_PAGE_LIMIT`]).
///
/// ```
/// use index_negotiation_store::{AuditFilter, AuditStep};
/// let mut filter = AuditFilter::default();
/// filter.step = Some(AuditStep::Answered);
/// assert_eq!(filter.page_size(), 100);
/// filter.limit = 5_000;
/// assert_eq!(filter.page_size(), 1000);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuditFilter {
    /// Only steps done for this person.
    pub user: Option<UserId>,
    /// Only steps done to this negotiation.
    pub negotiation: Option<OpportunityId>,
    /// Only this step.
    pub step: Option<AuditStep>,
    /// Only entries written at or after this time.
    pub since: Option<UnixTime>,
    /// Only entries written before this time.
    pub until: Option<UnixTime>,
    /// Only entries after this one: the last `seq` of the previous page.
    pub after: Option<u64>,
    /// The most entries to return.
    pub limit: usize,
}

impl Default for AuditFilter {
    fn default() -> Self {
        AuditFilter {
            user: None,
            negotiation: None,
            step: None,
            since: None,
            until: None,
            after: None,
            limit: 100,
        }
    }
}

impl AuditFilter {
    /// How many entries a page holds at most.
    pub fn page_size(&self) -> usize {
        self.limit.min(AUDIT_PAGE_LIMIT)
    }

    /// Whether `entry` passes the filter (the page bounds aside), as a
    /// backend without a query language applies it.
    pub fn passes(&self, entry: &AuditEntry) -> bool {
        self.user
            .as_ref()
            .is_none_or(|user| entry.user.as_ref() == Some(user))
            && self
                .negotiation
                .as_ref()
                .is_none_or(|id| entry.negotiation.as_ref() == Some(id))
            && self.step.is_none_or(|step| entry.step == step)
            && self.since.is_none_or(|since| entry.at >= since)
            && self.until.is_none_or(|until| entry.at < until)
            && self.after.is_none_or(|after| entry.seq > after)
    }
}

/// Reading the audit record, and recording what no commit writes.
///
/// The steps that change something are appended only by the commit that
/// changes it (see [`NegotiationStore`](crate::NegotiationStore),
/// [`ApiKeyStore`](crate::ApiKeyStore) and
/// [`InteractionStore`](crate::InteractionStore)), so none is on record
/// without having happened. The one entry appended on its own is a
/// refused request, which changes nothing.
#[async_trait]
pub trait AuditStore: Send + Sync {
    /// The entries `filter` passes, oldest first.
    async fn list_audit(&self, filter: &AuditFilter) -> Result<Vec<AuditEntry>, StoreError>;

    /// Appends an [`AuditStep::Refused`]: `actor` presented `user`'s key,
    /// and was refused with `code`.
    async fn record_refusal(
        &self,
        user: &UserId,
        code: &str,
        actor: &Actor,
    ) -> Result<(), StoreError>;
}

macro_rules! forward_audit {
    ($($pointer:ty),*) => {$(
        #[async_trait]
        impl<S: AuditStore + ?Sized> AuditStore for $pointer {
            async fn list_audit(&self, filter: &AuditFilter) -> Result<Vec<AuditEntry>, StoreError> {
                (**self).list_audit(filter).await
            }
            async fn record_refusal(&self, user: &UserId, code: &str, actor: &Actor) -> Result<(), StoreError> {
                (**self).record_refusal(user, code, actor).await
            }
        }
    )*};
}

forward_audit!(std::sync::Arc<S>, Box<S>, &S);
