//! Interactions a host provides: an agent's typed question, permission or
//! plan for its person, kept until the person answers (or it times out, or
//! its asker takes it back), and every response command's acknowledgement,
//! kept under its operation id so a retried command is answered exactly
//! as the first time.
//!
//! The store keeps each interaction as a record whose body is the host's
//! (the request, and the response that resolved it); what it indexes is
//! what its lookups need: whose it is, where it was asked, and where it
//! stands. A response command is decided like a turn: the store reads what
//! the decision needs inside one commit, calls the decider once, and
//! applies what it says in the same commit, so of racing commands exactly
//! one resolves an interaction.

use async_trait::async_trait;

use crate::audit::Actor;
use crate::error::StoreError;
use index_negotiation::UserId;

index_js::wire_enum! {
    crate index_negotiation_store;
    /// Where a stored interaction stands, named as the contract names it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum InteractionStatus {
        /// Waiting for its person.
        Pending = "pending",
        /// Answered (or resolved by its default when its time ran out).
        Resolved = "resolved",
        /// Its time ran out and it failed.
        Expired = "expired",
        /// Its asker took it back.
        Cancelled = "cancelled",
    }
}

/// One interaction as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InteractionRecord {
    /// The person asked: only they answer it, and only their agents see
    /// or cancel it.
    pub owner: UserId,
    /// The interaction's id (the request's), unique per person.
    pub id: String,
    /// The run it was asked in.
    pub run_id: String,
    /// The environment it was asked in.
    pub environment_id: String,
    /// The provider session it was asked in.
    pub session_id: String,
    /// Where it stands.
    pub status: InteractionStatus,
    /// When the host accepted it, in milliseconds since the Unix epoch;
    /// listings run oldest first by it.
    pub created_at_ms: u64,
    /// Bumped by every change: a replacement made from an older read
    /// changes nothing (see [`InteractionStore::replace_interaction`]).
    pub version: u64,
    /// What the host keeps of it (the request, the response).
    pub body: String,
}

/// What storing a new interaction did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InteractionInsert {
    /// Stored.
    Inserted,
    /// The person has an interaction with that id already: this one,
    /// unchanged, for the host to compare with what it was asked to store.
    Exists(InteractionRecord),
    /// The person has as many interactions as they may, all pending:
    /// nothing stored.
    Full,
}

/// Where a page of a person's interactions starts: after this one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InteractionCursor {
    /// The last listed interaction's [`created_at_ms`](InteractionRecord::created_at_ms).
    pub created_at_ms: u64,
    /// Its id.
    pub id: String,
}

/// Which of a person's interactions to list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InteractionFilter {
    /// Only those with this status; every status when `None`.
    pub status: Option<InteractionStatus>,
    /// Only those after this one (the previous page's last).
    pub after: Option<InteractionCursor>,
    /// At most this many.
    pub limit: usize,
}

/// Where a response command is bound, as a store looks it up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseKey {
    /// The command's idempotency key, unique per answering person.
    pub operation_id: String,
    /// The run.
    pub run_id: String,
    /// The environment.
    pub environment_id: String,
    /// The provider session.
    pub session_id: String,
    /// The interaction.
    pub interaction_id: String,
}

/// What a response command is decided against, read inside its commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseScene {
    /// The acknowledgement recorded under the command's operation id, as
    /// recorded.
    pub replay: Option<String>,
    /// Whether the person has an interaction in the command's run.
    pub run_known: bool,
    /// Whether they have one in its run, environment and session.
    pub session_known: bool,
    /// Their interaction with the command's id in that run, environment
    /// and session.
    pub interaction: Option<InteractionRecord>,
}

/// What a decided response command writes, in the commit that read its
/// scene.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseWrite {
    /// The acknowledgement to answer with.
    pub acknowledgement: String,
    /// Whether to record it under the operation id (not for a replay,
    /// which is the recorded one).
    pub record: bool,
    /// The scene's interaction with its new status and body, when they
    /// change; its version is the one read.
    pub interaction: Option<InteractionRecord>,
    /// Whether the command's own response resolved the interaction (it
    /// was accepted), which the audit record keeps; a change the command
    /// only noticed (its time ran out) is not the person's.
    pub resolves: bool,
}

/// Decides a response command against what its commit read.
pub type ResponseDecider = Box<dyn FnOnce(ResponseScene) -> ResponseWrite + Send>;

/// How many acknowledgements a store keeps per person at least; past it,
/// the oldest are forgotten, and a command retried after that long is
/// decided afresh (against an interaction its first delivery resolved).
pub const ACKNOWLEDGEMENTS_KEPT: usize = 1_024;

/// Where a host keeps the interactions it provides. Every backend
/// implements it beside its negotiations; every change wakes the store's
/// change feed.
#[async_trait]
pub trait InteractionStore: Send + Sync {
    /// Stores a new interaction. When its owner holds `most_per_owner`
    /// interactions already, their oldest settled one makes room; when
    /// every one is pending, nothing is stored ([`InteractionInsert::Full`]).
    /// A stored one appends an
    /// [`AuditStep::InteractionRequested`](crate::AuditStep::InteractionRequested)
    /// by `actor` (the asking agent), in the same atomic step.
    async fn insert_interaction(
        &self,
        record: &InteractionRecord,
        most_per_owner: usize,
        actor: &Actor,
    ) -> Result<InteractionInsert, StoreError>;

    /// The owner's interaction `id`, if there is one.
    async fn find_interaction(
        &self,
        owner: &UserId,
        id: &str,
    ) -> Result<Option<InteractionRecord>, StoreError>;

    /// A page of the owner's interactions that pass `filter`, oldest first
    /// (by creation, then id).
    async fn list_interactions(
        &self,
        owner: &UserId,
        filter: &InteractionFilter,
    ) -> Result<Vec<InteractionRecord>, StoreError>;

    /// Replaces the interaction whose owner, id and version are
    /// `record`'s with its status and body, bumping the version: `false`,
    /// changing nothing, when it changed since that version was read (or
    /// is gone). Where it was asked and when never change.
    async fn replace_interaction(&self, record: &InteractionRecord) -> Result<bool, StoreError>;

    /// Decides and applies a response command from `owner`, bound to
    /// `key`: in one commit that serialises with every other change to the
    /// owner's interactions, reads the [`ResponseScene`], calls `decide`
    /// exactly once, records the acknowledgement under the operation id
    /// when told to (forgetting the owner's oldest past
    /// [`ACKNOWLEDGEMENTS_KEPT`]) and replaces the interaction when told
    /// to, appending then an [`AuditStep::InteractionResolved`](crate::AuditStep::InteractionResolved) by `actor`
    /// in the same commit. Returns the acknowledgement. A [`StoreError`]
    /// means nothing was applied.
    async fn commit_interaction_response(
        &self,
        owner: &UserId,
        key: &ResponseKey,
        actor: &Actor,
        decide: ResponseDecider,
    ) -> Result<String, StoreError>;
}

macro_rules! forward_interactions {
    ($($pointer:ty),*) => {$(
        #[async_trait]
        impl<S: InteractionStore + ?Sized> InteractionStore for $pointer {
            async fn insert_interaction(&self, record: &InteractionRecord, most_per_owner: usize, actor: &Actor) -> Result<InteractionInsert, StoreError> {
                (**self).insert_interaction(record, most_per_owner, actor).await
            }
            async fn find_interaction(&self, owner: &UserId, id: &str) -> Result<Option<InteractionRecord>, StoreError> {
                (**self).find_interaction(owner, id).await
            }
            async fn list_interactions(&self, owner: &UserId, filter: &InteractionFilter) -> Result<Vec<InteractionRecord>, StoreError> {
                (**self).list_interactions(owner, filter).await
            }
            async fn replace_interaction(&self, record: &InteractionRecord) -> Result<bool, StoreError> {
                (**self).replace_interaction(record).await
            }
            async fn commit_interaction_response(&self, owner: &UserId, key: &ResponseKey, actor: &Actor, decide: ResponseDecider) -> Result<String, StoreError> {
                (**self).commit_interaction_response(owner, key, actor, decide).await
            }
        }
    )*};
}

forward_interactions!(std::sync::Arc<S>, Box<S>, &S);
