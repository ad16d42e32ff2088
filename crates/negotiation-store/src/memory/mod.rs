//! An in-memory store, for tests and for embedding where nothing needs to
//! survive the process.
//!
//! | module | holds |
//! |---|---|
//! | `interactions` | the interactions and their acknowledgements, under one lock |
//! | `webhooks` | the webhook endpoints and the outbox, under one lock |

mod interactions;
mod webhooks;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use async_trait::async_trait;

use index_negotiation::{
    AnswerDecision, AskUserTurn, Decision, NegotiationDecision, NegotiationMessage,
    NegotiationOutcome, NegotiationRejection, NegotiationResumeDecision, NegotiationState,
    NegotiationTurn, ParkDecision, ask_user_answer_message,
};

use crate::audit::TurnEnd;
use crate::audit::{Actor, AuditEntry, AuditFilter, AuditStep, AuditStore, AuditWrite};
use crate::error::StoreError;
use crate::host_state::{HostStateStore, Room, SigningKey, TaskRecord};
use crate::keys::{ApiKeyRecord, ApiKeyStore, KeyChanges, KeyHash, Revocation};
use crate::model::{
    CloseReason, Committed, ListCursor, ListFilter, NegotiationPage, NegotiationSummary,
    OpenNegotiation, RecordStatus, Seat,
};
use crate::store::{AnswerDecider, NegotiationStore, ParkDecider, ResumeDecider, TurnDecider};
use crate::time::UnixTime;
use index_negotiation::{IntentId, OpportunityId, UserId};

/// Negotiations in memory.
///
/// Each negotiation has its own lock, held only while a commit reads,
/// decides and applies, which never awaits; the map of negotiations is
/// locked only long enough to find one. Cloning is cheap and every clone
/// shares the same negotiations.
#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Numbers openings and changes, each once, in the order they happen.
    clock: AtomicU64,
    negotiations: RwLock<Negotiations>,
    keys: Mutex<Vec<ApiKeyRecord>>,
    /// Bumped by every key made or revoked (see [`KeyChanges::Version`]).
    keys_version: AtomicU64,
    shared: Mutex<Shared>,
    interactions: Mutex<interactions::Interactions>,
    /// The audit record, oldest first. Appended to while a commit holds its
    /// negotiation's lock, and never held while another lock is taken.
    audit: Mutex<Vec<AuditEntry>>,
    /// Taken while the audit record's lock is held, never the other way.
    webhooks: Mutex<webhooks::Webhooks>,
}

/// What hosts share between requests (see [`HostStateStore`]).
#[derive(Debug, Default)]
struct Shared {
    /// Oldest first.
    signing_keys: Vec<SigningKey>,
    spent: BTreeMap<[u8; 32], UnixTime>,
    tasks: BTreeMap<String, TaskRecord>,
}

/// Every negotiation by id, and each seat's by last change: under the
/// seat's user, and under the user and the seat's intent, so a page reads
/// only its own rows (seats never change).
#[derive(Debug, Default)]
struct Negotiations {
    by_id: BTreeMap<OpportunityId, Arc<Mutex<Record>>>,
    by_user: BTreeMap<UserId, Changes>,
    by_intent: BTreeMap<(UserId, IntentId), Changes>,
}

/// Negotiations by their last change on the store's clock.
type Changes = BTreeMap<u64, Arc<Mutex<Record>>>;

/// A change a record's indexes must follow: its seats, and its place on
/// the clock before and after.
struct Moved {
    seats: [Seat; 2],
    from: u64,
    to: u64,
}

impl Negotiations {
    /// Files `record` under each seat at `moved.to`, out of `moved.from`.
    fn reindex(&mut self, record: &Arc<Mutex<Record>>, moved: &Moved) {
        for seat in &moved.seats {
            for changes in [
                self.by_user.entry(seat.user_id.clone()).or_default(),
                self.by_intent
                    .entry((seat.user_id.clone(), seat.intent_id.clone()))
                    .or_default(),
            ] {
                changes.remove(&moved.from);
                changes.insert(moved.to, Arc::clone(record));
            }
        }
    }
}

#[derive(Debug)]
struct Record {
    id: OpportunityId,
    initiator: Seat,
    responder: Seat,
    initiator_eligible: bool,
    responder_eligible: bool,
    status: RecordStatus,
    /// The rules' view; `eligible` is kept equal to both seats' flags.
    state: NegotiationState,
    /// Where the previous round starts in the log (the current one's
    /// start before any round ended), and where the current one starts:
    /// what [`read_negotiation_round`](NegotiationStore::read_negotiation_round)
    /// hands out begins at the first.
    window_start: usize,
    round_start: usize,
    messages: Vec<NegotiationMessage>,
    /// When it last changed, on the store's clock: listings run newest
    /// first.
    change: u64,
}

impl Record {
    /// The state from the previous round's first turn on: what a decision
    /// reads, whatever the log's length.
    fn round_view(&self) -> NegotiationState {
        self.state.log_from(self.window_start)
    }

    fn summary(&self) -> NegotiationSummary {
        NegotiationSummary {
            id: self.id.clone(),
            initiator: self.initiator.clone(),
            responder: self.responder.clone(),
            status: self.status,
            awaiting_user_id: self.state.awaiting_user_id.clone(),
            outcome: self.state.outcome,
            settled: self.state.settled,
            eligible: self.state.eligible,
            turn_count: self.state.turns.len(),
            waiting_on: self.state.waiting_on().cloned(),
        }
    }
}

pub(crate) fn poisoned() -> StoreError {
    StoreError::Backend("a negotiation's lock was poisoned by a panic in another task".into())
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStore::default()
    }

    fn record(&self, id: &OpportunityId) -> Result<Option<Arc<Mutex<Record>>>, StoreError> {
        let map = self.inner.negotiations.read().map_err(|_| poisoned())?;
        Ok(map.by_id.get(id).cloned())
    }

    /// The next tick of the store's clock.
    fn tick(&self) -> u64 {
        self.inner.clock.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn lock(record: &Mutex<Record>) -> Result<MutexGuard<'_, Record>, StoreError> {
        record.lock().map_err(|_| poisoned())
    }

    /// Moves `record` to the front of the store's order of changes; the
    /// caller hands the result to [`Self::reindex`] once it has let go of
    /// the record's lock (a listing holds the map, then records).
    fn touch(&self, record: &mut Record) -> Moved {
        let from = record.change;
        record.change = self.tick();
        Moved {
            seats: [record.initiator.clone(), record.responder.clone()],
            from,
            to: record.change,
        }
    }

    fn reindex(&self, record: &Arc<Mutex<Record>>, moved: Option<Moved>) -> Result<(), StoreError> {
        if let Some(moved) = moved {
            let mut map = self.inner.negotiations.write().map_err(|_| poisoned())?;
            map.reindex(record, &moved);
        }
        Ok(())
    }

    /// Appends `write` to the audit record. It cannot fail, so a change
    /// is never applied without its entry: a push is whole or not done,
    /// so a record a panic poisoned is still whole.
    /// Its event, if it has one, is queued for the endpoints that want it
    /// (`seats` are the negotiation's two people, for one about a
    /// negotiation).
    fn append_entry(&self, write: AuditWrite<'_>, seats: Option<[&UserId; 2]>) {
        let mut audit = self
            .inner
            .audit
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let seq = audit.last().map_or(1, |last| last.seq + 1);
        let at = UnixTime::now();
        if let Some(event) = write.event(at) {
            self.inner
                .webhooks
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .queue(seq, at, &event, seats);
        }
        audit.push(AuditEntry {
            seq,
            at,
            step: write.step,
            negotiation: write.negotiation.cloned(),
            user: write.user.cloned(),
            detail: write.detail.map(str::to_owned),
            actor: write.actor.clone(),
        });
    }

    /// One commit: `decide` on the record's round view under its lock, and
    /// `apply` on a permitted decision (which may answer another decision
    /// instead, applying nothing); then `audit` is appended, still under
    /// the lock, and the indexes follow the change. An applied commit hands
    /// back the negotiation as it left it, read under the same lock.
    fn commit<'a, T, R>(
        &self,
        id: &OpportunityId,
        audit: impl FnOnce(&T) -> AuditWrite<'a>,
        decide: impl FnOnce(Option<&NegotiationState>) -> Decision<T, R>,
        apply: impl FnOnce(&mut Record, &T) -> Option<Decision<T, R>>,
    ) -> Result<(Decision<T, R>, Option<Committed>), StoreError> {
        let Some(shared) = self.record(id)? else {
            return Ok((decide(None), None));
        };
        let (decision, moved, after) = {
            let mut record = Self::lock(&shared)?;
            let decision = decide(Some(&record.round_view()));
            match &decision {
                Decision::Permitted(permitted) => match apply(&mut record, permitted) {
                    Some(instead) => (instead, None, None),
                    None => {
                        let seats = [&record.initiator.user_id, &record.responder.user_id];
                        self.append_entry(audit(permitted), Some(seats));
                        let moved = self.touch(&mut record);
                        let after = Committed {
                            summary: record.summary(),
                            state: record.round_view(),
                        };
                        (decision, Some(moved), Some(after))
                    }
                },
                Decision::Refused(_) => (decision, None, None),
            }
        };
        self.reindex(&shared, moved)?;
        Ok((decision, after))
    }

    /// Runs `f` on the locked record, or returns `missing` when there is none.
    fn with_record<T>(
        &self,
        id: &OpportunityId,
        missing: T,
        f: impl FnOnce(&mut Record) -> T,
    ) -> Result<T, StoreError> {
        match self.record(id)? {
            None => Ok(missing),
            Some(record) => Ok(f(&mut *Self::lock(&record)?)),
        }
    }
}

#[async_trait]
impl NegotiationStore for MemoryStore {
    async fn read_negotiation_state(
        &self,
        id: &OpportunityId,
    ) -> Result<Option<NegotiationState>, StoreError> {
        self.with_record(id, None, |record| Some(record.state.clone()))
    }

    async fn read_negotiation_round(
        &self,
        id: &OpportunityId,
    ) -> Result<Option<NegotiationState>, StoreError> {
        self.with_record(id, None, |record| Some(record.round_view()))
    }

    async fn commit_turn(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        turn: &NegotiationTurn,
        actor: &Actor,
        decide: TurnDecider,
    ) -> Result<(NegotiationDecision, Option<Committed>), StoreError> {
        self.commit(
            id,
            |permitted| AuditWrite::turn(id, user_id, turn, TurnEnd::of(permitted), actor),
            |state| decide(state, user_id, turn),
            |record, permitted| {
                if permitted.turn_index != record.state.turns.len() {
                    return Some(Decision::Refused(NegotiationRejection::Raced));
                }
                record.state.apply_turn(user_id, turn, permitted);
                record.status = permitted.opportunity_status.into();
                if permitted.round_ended.is_some() {
                    record.window_start = record.round_start;
                    record.round_start = permitted.turn_index + 1;
                }
                None
            },
        )
    }

    async fn commit_resume(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        actor: &Actor,
        decide: ResumeDecider,
    ) -> Result<(NegotiationResumeDecision, Option<Committed>), StoreError> {
        self.commit(
            id,
            |_| AuditWrite::by_seat(AuditStep::Resumed, id, user_id, actor),
            |state| decide(state, user_id),
            |record, permitted| {
                record.state.apply_resume(permitted);
                None
            },
        )
    }

    async fn commit_park(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        turn: &AskUserTurn,
        actor: &Actor,
        decide: ParkDecider,
    ) -> Result<(ParkDecision, Option<Committed>), StoreError> {
        let question =
            serde_json::to_value(&turn.ask_user.question).map_err(StoreError::backend)?;
        self.commit(
            id,
            |_| AuditWrite::parked(id, user_id, &question, actor),
            |state| decide(state, user_id),
            |record, permitted| {
                record
                    .state
                    .apply_park(user_id, &turn.ask_user.question, permitted);
                record.messages.push(turn.to_message(user_id));
                None
            },
        )
    }

    async fn commit_answer(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        answer: &str,
        actor: &Actor,
        decide: AnswerDecider,
    ) -> Result<(AnswerDecision, Option<Committed>), StoreError> {
        self.commit(
            id,
            |_| AuditWrite::by_seat(AuditStep::Answered, id, user_id, actor),
            |state| decide(state, user_id, answer),
            |record, permitted| {
                let title = record
                    .state
                    .park
                    .as_ref()
                    .map(|park| park.question.title.clone())
                    .unwrap_or_default();
                record.state.apply_answer(permitted);
                let message = ask_user_answer_message(user_id, &title, &permitted.answer);
                record.messages.push(message);
                None
            },
        )
    }

    async fn insert_negotiation(
        &self,
        negotiation: &OpenNegotiation,
        actor: &Actor,
    ) -> Result<bool, StoreError> {
        let mut map = self.inner.negotiations.write().map_err(|_| poisoned())?;
        if map.by_id.contains_key(&negotiation.opportunity_id) {
            return Ok(false);
        }
        let seq = self.tick();
        let record = Record {
            id: negotiation.opportunity_id.clone(),
            initiator: negotiation.initiator.clone(),
            responder: negotiation.responder.clone(),
            initiator_eligible: true,
            responder_eligible: true,
            status: RecordStatus::Negotiating,
            state: NegotiationState::opened(
                negotiation.initiator.user_id.clone(),
                negotiation.responder.user_id.clone(),
            ),
            messages: Vec::new(),
            window_start: 0,
            round_start: 0,
            change: seq,
        };
        let record = Arc::new(Mutex::new(record));
        map.by_id
            .insert(negotiation.opportunity_id.clone(), Arc::clone(&record));
        let opened = Moved {
            seats: [negotiation.initiator.clone(), negotiation.responder.clone()],
            from: seq,
            to: seq,
        };
        map.reindex(&record, &opened);
        let seats = [
            &negotiation.initiator.user_id,
            &negotiation.responder.user_id,
        ];
        self.append_entry(AuditWrite::opened(negotiation, actor), Some(seats));
        Ok(true)
    }

    async fn set_seat_eligibility(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        eligible: bool,
    ) -> Result<bool, StoreError> {
        let Some(shared) = self.record(id)? else {
            return Ok(false);
        };
        let moved = {
            let mut record = Self::lock(&shared)?;
            if &record.initiator.user_id == user_id {
                record.initiator_eligible = eligible;
            } else if &record.responder.user_id == user_id {
                record.responder_eligible = eligible;
            } else {
                return Ok(false);
            }
            record.state.eligible = record.initiator_eligible && record.responder_eligible;
            self.touch(&mut record)
        };
        self.reindex(&shared, Some(moved))?;
        Ok(true)
    }

    async fn close_negotiation(
        &self,
        id: &OpportunityId,
        reason: CloseReason,
        actor: &Actor,
    ) -> Result<Option<NegotiationSummary>, StoreError> {
        let Some(shared) = self.record(id)? else {
            return Ok(None);
        };
        let (summary, moved) = {
            let mut record = Self::lock(&shared)?;
            if !record.state.settled {
                record.state.settled = true;
                record.state.outcome = Some(NegotiationOutcome::Closed);
            }
            record.state.awaiting_user_id = None;
            record.status = reason.status();
            let seats = [&record.initiator.user_id, &record.responder.user_id];
            self.append_entry(AuditWrite::closed(id, reason, actor), Some(seats));
            let moved = self.touch(&mut record);
            (record.summary(), moved)
        };
        self.reindex(&shared, Some(moved))?;
        Ok(Some(summary))
    }

    async fn get_negotiation(
        &self,
        id: &OpportunityId,
    ) -> Result<Option<NegotiationSummary>, StoreError> {
        self.with_record(id, None, |record| Some(record.summary()))
    }

    async fn list_negotiations(
        &self,
        user_id: &UserId,
        filter: &ListFilter,
    ) -> Result<NegotiationPage, StoreError> {
        let map = self.inner.negotiations.read().map_err(|_| poisoned())?;
        let changes = match &filter.intent_id {
            Some(intent) => map.by_intent.get(&(user_id.clone(), intent.clone())),
            None => map.by_user.get(user_id),
        };
        let below = filter.cursor.map_or(u64::MAX, ListCursor::change);
        let wanted = filter
            .limit
            .map_or(usize::MAX, |limit| limit.saturating_add(1));
        let mut found = Vec::new();
        // Newest first, one record locked at a time (a commit lets go of
        // its record before it takes the map), until the page is full.
        for (change, record) in changes.into_iter().flat_map(|c| c.range(..below).rev()) {
            if found.len() >= wanted {
                break;
            }
            let summary = Self::lock(record)?.summary();
            if filter.matches(&summary, user_id) {
                found.push((*change, summary));
            }
        }
        Ok(NegotiationPage::of(found, filter.limit))
    }

    async fn list_messages(
        &self,
        id: &OpportunityId,
    ) -> Result<Vec<NegotiationMessage>, StoreError> {
        self.with_record(id, Vec::new(), |record| record.messages.clone())
    }
}

#[async_trait]
impl AuditStore for MemoryStore {
    async fn list_audit(&self, filter: &AuditFilter) -> Result<Vec<AuditEntry>, StoreError> {
        let audit = self.inner.audit.lock().map_err(|_| poisoned())?;
        Ok(audit
            .iter()
            .filter(|entry| filter.passes(entry))
            .take(filter.page_size())
            .cloned()
            .collect())
    }

    async fn record_refusal(
        &self,
        user: &UserId,
        code: &str,
        actor: &Actor,
    ) -> Result<(), StoreError> {
        self.append_entry(AuditWrite::refused(user, code, actor), None);
        Ok(())
    }
}

#[async_trait]
impl ApiKeyStore for MemoryStore {
    async fn insert_api_key(
        &self,
        key: &ApiKeyRecord,
        step: AuditStep,
        actor: &Actor,
    ) -> Result<bool, StoreError> {
        let mut keys = self.inner.keys.lock().map_err(|_| poisoned())?;
        if keys.iter().any(|k| k.id == key.id || k.hash == key.hash) {
            return Ok(false);
        }
        self.append_entry(AuditWrite::key(step, &key.user_id, &key.id, actor), None);
        keys.push(key.clone());
        self.inner.keys_version.fetch_add(1, Ordering::SeqCst);
        Ok(true)
    }

    async fn find_api_key(&self, hash: &KeyHash) -> Result<Option<ApiKeyRecord>, StoreError> {
        let keys = self.inner.keys.lock().map_err(|_| poisoned())?;
        Ok(keys.iter().find(|k| k.hash == *hash).cloned())
    }

    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
        Ok(self.inner.keys.lock().map_err(|_| poisoned())?.clone())
    }

    async fn revoke_api_key(
        &self,
        id: &str,
        step: AuditStep,
        actor: &Actor,
    ) -> Result<Revocation, StoreError> {
        let mut keys = self.inner.keys.lock().map_err(|_| poisoned())?;
        Ok(match keys.iter_mut().find(|k| k.id == id) {
            None => Revocation::NoSuchKey,
            Some(key) if key.revoked => Revocation::AlreadyRevoked,
            Some(key) => {
                self.append_entry(AuditWrite::key(step, &key.user_id, &key.id, actor), None);
                key.revoked = true;
                self.inner.keys_version.fetch_add(1, Ordering::SeqCst);
                Revocation::Revoked
            }
        })
    }

    async fn revoke_grant(&self, grant: &str, actor: &Actor) -> Result<u64, StoreError> {
        let mut keys = self.inner.keys.lock().map_err(|_| poisoned())?;
        let mut revoked = 0;
        for key in keys.iter_mut() {
            if key.grant.as_deref() == Some(grant) && !key.revoked {
                let write = AuditWrite::key(AuditStep::KeyRevoked, &key.user_id, &key.id, actor);
                self.append_entry(write, None);
                key.revoked = true;
                revoked += 1;
            }
        }
        if revoked > 0 {
            self.inner.keys_version.fetch_add(1, Ordering::SeqCst);
        }
        Ok(revoked)
    }

    async fn record_api_key_use(&self, id: &str, at: UnixTime) -> Result<(), StoreError> {
        let mut keys = self.inner.keys.lock().map_err(|_| poisoned())?;
        if let Some(key) = keys
            .iter_mut()
            .find(|k| k.id == id && k.use_is_unrecorded(at))
        {
            key.last_used_at = Some(at);
        }
        Ok(())
    }

    async fn key_changes(&self) -> Result<KeyChanges, StoreError> {
        Ok(KeyChanges::Version)
    }

    async fn keys_version(&self) -> Result<u64, StoreError> {
        Ok(self.inner.keys_version.load(Ordering::SeqCst))
    }
}

#[async_trait]
impl HostStateStore for MemoryStore {
    async fn signing_keys(
        &self,
        candidate: &SigningKey,
        now: UnixTime,
    ) -> Result<Vec<SigningKey>, StoreError> {
        let mut shared = self.inner.shared.lock().map_err(|_| poisoned())?;
        if !shared.signing_keys.iter().any(|key| key.usable(now)) {
            shared.signing_keys.push(candidate.clone());
        }
        Ok(shared
            .signing_keys
            .iter()
            .rev()
            .filter(|key| key.usable(now))
            .cloned()
            .collect())
    }

    async fn rotate_signing_key(
        &self,
        key: &SigningKey,
        retire_others_at: UnixTime,
    ) -> Result<(), StoreError> {
        let mut shared = self.inner.shared.lock().map_err(|_| poisoned())?;
        shared.signing_keys.retain(|old| old.usable(key.created_at));
        for old in &mut shared.signing_keys {
            old.retires_at = Some(
                old.retires_at
                    .map_or(retire_others_at, |at| at.min(retire_others_at)),
            );
        }
        shared.signing_keys.push(key.clone());
        Ok(())
    }

    async fn spend_token(
        &self,
        digest: &[u8; 32],
        until: UnixTime,
        now: UnixTime,
    ) -> Result<bool, StoreError> {
        let mut shared = self.inner.shared.lock().map_err(|_| poisoned())?;
        shared.spent.retain(|_, kept| *kept > now);
        Ok(shared.spent.insert(*digest, until).is_none())
    }

    async fn insert_task(
        &self,
        task: &TaskRecord,
        most_per_owner: usize,
        now: UnixTime,
    ) -> Result<bool, StoreError> {
        let mut shared = self.inner.shared.lock().map_err(|_| poisoned())?;
        shared.tasks.retain(|_, held| !held.forgotten_at(now));
        if shared.tasks.contains_key(&task.id) {
            return Err(StoreError::InvalidRequest(format!(
                "task {} exists",
                task.id
            )));
        }
        let theirs: Vec<_> = shared
            .tasks
            .values()
            .filter(|held| held.owner == task.owner)
            .map(|held| (held.started_at, held.ended(), held.id.as_str()))
            .collect();
        match Room::among(&theirs, most_per_owner) {
            Room::Full => return Ok(false),
            Room::Forgetting(id) => {
                let id = id.to_owned();
                shared.tasks.remove(&id);
            }
            Room::Free => {}
        }
        shared.tasks.insert(task.id.clone(), task.clone());
        Ok(true)
    }

    async fn find_task(&self, id: &str, now: UnixTime) -> Result<Option<TaskRecord>, StoreError> {
        let shared = self.inner.shared.lock().map_err(|_| poisoned())?;
        Ok(shared
            .tasks
            .get(id)
            .filter(|task| !task.forgotten_at(now))
            .cloned())
    }

    async fn replace_task(&self, task: &TaskRecord) -> Result<bool, StoreError> {
        let mut shared = self.inner.shared.lock().map_err(|_| poisoned())?;
        let Some(held) = shared
            .tasks
            .get_mut(&task.id)
            .filter(|held| held.version == task.version)
        else {
            return Ok(false);
        };
        held.version += 1;
        held.lease_until = task.lease_until;
        held.forget_at = task.forget_at;
        held.body.clone_from(&task.body);
        Ok(true)
    }
}
