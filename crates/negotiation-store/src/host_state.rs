//! What a host keeps between requests beside the negotiations: the
//! secrets its tokens are signed with, the single-use tokens already
//! spent, and the long calls it runs as tasks. Kept in the store rather
//! than in a process so that every host of a shared store answers every
//! request alike, and a balancer may send each to any of them.
//!
//! The store holds these as records; what they mean (how a token is
//! signed, what a task's body says) is the host's. A task's body is
//! opaque text to the store, changed only by compare-and-set on its
//! version, so every change to a task is decided against the task as it
//! is, by whichever host makes it.

use async_trait::async_trait;

use crate::error::StoreError;
use crate::time::UnixTime;
use index_negotiation::UserId;

/// A secret every host of a store signs its tokens with. Keys are made
/// by a host and kept in the store; a key rotated out stays good for
/// checking until it retires, so a token signed just before a rotation
/// still holds on every host.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningKey {
    /// Names the key inside a token, so a checker finds it.
    pub id: String,
    /// The secret itself: 256 random bits.
    pub secret: [u8; 32],
    /// When it was made.
    pub created_at: UnixTime,
    /// When it stops being good for checking; `None` while it is the
    /// newest (see [`HostStateStore::rotate_signing_key`]).
    pub retires_at: Option<UnixTime>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("id", &self.id)
            .field("secret", &"..")
            .field("created_at", &self.created_at)
            .field("retires_at", &self.retires_at)
            .finish()
    }
}

impl SigningKey {
    /// Whether the key still checks tokens at `now`.
    ///
    /// ```
    /// use index_negotiation_store::{SigningKey, UnixTime};
    /// let mut key = SigningKey { id: "k1".into(), secret: [7; 32], created_at: UnixTime(10), retires_at: None };
    /// assert!(key.usable(UnixTime(1_000)));
    /// key.retires_at = Some(UnixTime(100));
    /// assert!(key.usable(UnixTime(99)) && !key.usable(UnixTime(100)));
    /// assert!(!format!("{key:?}").contains('7'), "the secret stays out of Debug");
    /// ```
    pub fn usable(&self, now: UnixTime) -> bool {
        self.retires_at.is_none_or(|retires| retires > now)
    }
}

/// One long call running as a task, as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRecord {
    /// The task's id: 256 random bits, in hex.
    pub id: String,
    /// Whose it is: only they read, answer or cancel it.
    pub owner: UserId,
    /// Bumped by every [`replace_task`](HostStateStore::replace_task): a
    /// replacement made from an older read changes nothing.
    pub version: u64,
    /// When it started; a person's oldest finished task makes room first.
    pub started_at: UnixTime,
    /// Until when the host running its work vouches for it; past it, with
    /// the task unfinished, any host may end it (its host stopped).
    pub lease_until: UnixTime,
    /// Set when it ends: from then on it may be forgotten.
    pub forget_at: Option<UnixTime>,
    /// What the host keeps of it (its status, what it asks, its result).
    pub body: String,
}

impl TaskRecord {
    /// Whether the task has ended.
    pub fn ended(&self) -> bool {
        self.forget_at.is_some()
    }

    /// Whether it may be forgotten at `now`.
    ///
    /// ```
    /// use index_negotiation_store::{TaskRecord, UnixTime};
    /// let mut task = TaskRecord {
    ///     id: "t".into(), owner: "dana".parse().unwrap(), version: 0, started_at: UnixTime(0),
    ///     lease_until: UnixTime(15), forget_at: None, body: "{}".into(),
    /// };
    /// assert!(!task.forgotten_at(UnixTime(1_000)), "a running task is never forgotten");
    /// task.forget_at = Some(UnixTime(60));
    /// assert!(!task.forgotten_at(UnixTime(59)) && task.forgotten_at(UnixTime(60)));
    /// ```
    pub fn forgotten_at(&self, now: UnixTime) -> bool {
        self.forget_at.is_some_and(|at| at <= now)
    }
}

/// Where a host keeps what it must share with the other hosts of its
/// store. Every backend implements it beside its negotiations.
#[async_trait]
pub trait HostStateStore: Send + Sync {
    /// Every signing key still usable at `now`, newest first. When there
    /// is none, `candidate` is stored first; of hosts racing to do so,
    /// one wins and every one of them reads the winner.
    async fn signing_keys(
        &self,
        candidate: &SigningKey,
        now: UnixTime,
    ) -> Result<Vec<SigningKey>, StoreError>;

    /// Makes `key` the newest and retires every other key at
    /// `retire_others_at` (or sooner, if it retires sooner already);
    /// keys retired before `key` was made are forgotten.
    async fn rotate_signing_key(
        &self,
        key: &SigningKey,
        retire_others_at: UnixTime,
    ) -> Result<(), StoreError>;

    /// Spends the single-use token whose SHA-256 is `digest`: `true` for
    /// the first spend on any process of the store, `false` for every
    /// later one. The record is kept until `until` (when the token expires
    /// anyway), after which it may be forgotten.
    async fn spend_token(
        &self,
        digest: &[u8; 32],
        until: UnixTime,
        now: UnixTime,
    ) -> Result<bool, StoreError>;

    /// Stores a new task, forgetting tasks whose time is up. When its
    /// owner holds `most_per_owner` tasks already, their oldest finished
    /// one makes room; when every one is still running, nothing is stored
    /// and the answer is `false`. An id taken already is refused as an
    /// invalid request.
    async fn insert_task(
        &self,
        task: &TaskRecord,
        most_per_owner: usize,
        now: UnixTime,
    ) -> Result<bool, StoreError>;

    /// The task `id`, unless there is none or it may be forgotten at `now`.
    async fn find_task(&self, id: &str, now: UnixTime) -> Result<Option<TaskRecord>, StoreError>;

    /// Replaces the task whose id and version are `task`'s with `task`
    /// (its lease, its end, its body), bumping the version: `false`,
    /// changing nothing, when the task changed since that version was read
    /// (or is gone). The owner and start never change.
    async fn replace_task(&self, task: &TaskRecord) -> Result<bool, StoreError>;
}

macro_rules! forward_host_state {
    ($($pointer:ty),*) => {$(
        #[async_trait]
        impl<S: HostStateStore + ?Sized> HostStateStore for $pointer {
            async fn signing_keys(&self, candidate: &SigningKey, now: UnixTime) -> Result<Vec<SigningKey>, StoreError> {
                (**self).signing_keys(candidate, now).await
            }
            async fn rotate_signing_key(&self, key: &SigningKey, retire_others_at: UnixTime) -> Result<(), StoreError> {
                (**self).rotate_signing_key(key, retire_others_at).await
            }
            async fn spend_token(&self, digest: &[u8; 32], until: UnixTime, now: UnixTime) -> Result<bool, StoreError> {
                (**self).spend_token(digest, until, now).await
            }
            async fn insert_task(&self, task: &TaskRecord, most_per_owner: usize, now: UnixTime) -> Result<bool, StoreError> {
                (**self).insert_task(task, most_per_owner, now).await
            }
            async fn find_task(&self, id: &str, now: UnixTime) -> Result<Option<TaskRecord>, StoreError> {
                (**self).find_task(id, now).await
            }
            async fn replace_task(&self, task: &TaskRecord) -> Result<bool, StoreError> {
                (**self).replace_task(task).await
            }
        }
    )*};
}

forward_host_state!(std::sync::Arc<S>, Box<S>, &S);

/// Whether an owner holding `held` tasks, given as `(started_at, ended,
/// id)`, has room for one more below `most`. Shared by the backends so that
/// they agree on which task makes room.
///
/// ```
/// use index_negotiation_store::{Room, UnixTime};
/// let held = [(UnixTime(1), false, "a"), (UnixTime(2), true, "b"), (UnixTime(3), true, "c")];
/// assert_eq!(Room::among(&held, 4), Room::Free);
/// assert_eq!(Room::among(&held, 3), Room::Forgetting("b"));
/// assert_eq!(Room::among(&held[..1], 1), Room::Full);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Room<'a> {
    /// There is room.
    Free,
    /// There is room once this task, the owner's oldest finished one, is
    /// forgotten.
    Forgetting(&'a str),
    /// Every one of the owner's tasks is still running: no room.
    Full,
}

impl<'a> Room<'a> {
    /// The room among `held` below `most`, each given as when it started
    /// (any ordered time), whether it ended, and its id.
    pub fn among<T: Ord + Copy>(held: &[(T, bool, &'a str)], most: usize) -> Room<'a> {
        if held.len() < most {
            return Room::Free;
        }
        held.iter()
            .filter(|(_, ended, _)| *ended)
            .min_by_key(|(started, _, id)| (*started, *id))
            .map_or(Room::Full, |(_, _, id)| Room::Forgetting(id))
    }
}
