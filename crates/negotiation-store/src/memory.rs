//! An in-memory store, for tests and for embedding where nothing needs to
//! survive the process.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use async_trait::async_trait;

use index_negotiation::{
    AnswerDecision, AskUserTurn, Decision, NegotiationDecision, NegotiationMessage,
    NegotiationOutcome, NegotiationResumeDecision, NegotiationState, NegotiationTurn, ParkDecision,
    ask_user_answer_message,
};

use crate::error::StoreError;
use crate::keys::{ApiKeyRecord, ApiKeyStore, KeyHash};
use crate::model::{
    CloseReason, ListFilter, NegotiationSummary, OpenNegotiation, RecordStatus, Seat,
};
use crate::store::{AnswerDecider, NegotiationStore, ParkDecider, ResumeDecider, TurnDecider};
use index_negotiation::{OpportunityId, UserId};

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
    next_seq: AtomicU64,
    negotiations: RwLock<Negotiations>,
    keys: Mutex<Vec<ApiKeyRecord>>,
}

/// Every negotiation by id, and each user's by the order they were opened
/// in, so a list reads only the user's own (seats never change).
#[derive(Debug, Default)]
struct Negotiations {
    by_id: BTreeMap<OpportunityId, Arc<Mutex<Record>>>,
    by_user: BTreeMap<UserId, BTreeMap<u64, Arc<Mutex<Record>>>>,
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
    messages: Vec<NegotiationMessage>,
}

impl Record {
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

fn poisoned() -> StoreError {
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

    fn lock(record: &Mutex<Record>) -> Result<MutexGuard<'_, Record>, StoreError> {
        record.lock().map_err(|_| poisoned())
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

    async fn commit_negotiation_turn(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        turn: &NegotiationTurn,
        decide: TurnDecider,
    ) -> Result<NegotiationDecision, StoreError> {
        let Some(record) = self.record(id)? else {
            return Ok(decide(None, user_id, turn));
        };
        let mut record = Self::lock(&record)?;
        let decision = decide(Some(&record.state), user_id, turn);
        if let Decision::Permitted(permitted) = &decision {
            if permitted.turn_index != record.state.turns.len() {
                return Ok(Decision::Refused(
                    index_negotiation::NegotiationRejection::Raced,
                ));
            }
            record.state.apply_turn(user_id, turn, permitted);
            record.status = permitted.opportunity_status.into();
        }
        Ok(decision)
    }

    async fn commit_negotiation_resume(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        decide: ResumeDecider,
    ) -> Result<NegotiationResumeDecision, StoreError> {
        let Some(record) = self.record(id)? else {
            return Ok(decide(None, user_id));
        };
        let mut record = Self::lock(&record)?;
        let decision = decide(Some(&record.state), user_id);
        if let Decision::Permitted(permitted) = &decision {
            record.state.apply_resume(permitted);
        }
        Ok(decision)
    }

    async fn commit_park(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        turn: &AskUserTurn,
        decide: ParkDecider,
    ) -> Result<ParkDecision, StoreError> {
        let Some(record) = self.record(id)? else {
            return Ok(decide(None, user_id));
        };
        let mut record = Self::lock(&record)?;
        let decision = decide(Some(&record.state), user_id);
        if let Decision::Permitted(permitted) = &decision {
            record
                .state
                .apply_park(user_id, &turn.ask_user.question, permitted);
            record.messages.push(turn.to_message(user_id));
        }
        Ok(decision)
    }

    async fn commit_answer(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        answer: &str,
        decide: AnswerDecider,
    ) -> Result<AnswerDecision, StoreError> {
        let Some(record) = self.record(id)? else {
            return Ok(decide(None, user_id, answer));
        };
        let mut record = Self::lock(&record)?;
        let decision = decide(Some(&record.state), user_id, answer);
        if let Decision::Permitted(permitted) = &decision {
            let title = record
                .state
                .park
                .as_ref()
                .map(|park| park.question.title.clone())
                .unwrap_or_default();
            record.state.apply_answer(permitted);
            let message = ask_user_answer_message(user_id, &title, &permitted.answer);
            record.messages.push(message);
        }
        Ok(decision)
    }

    async fn insert_negotiation(&self, negotiation: &OpenNegotiation) -> Result<bool, StoreError> {
        let mut map = self.inner.negotiations.write().map_err(|_| poisoned())?;
        if map.by_id.contains_key(&negotiation.opportunity_id) {
            return Ok(false);
        }
        let seq = self.inner.next_seq.fetch_add(1, Ordering::Relaxed);
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
        };
        let record = Arc::new(Mutex::new(record));
        map.by_id
            .insert(negotiation.opportunity_id.clone(), Arc::clone(&record));
        for seat in [&negotiation.initiator, &negotiation.responder] {
            map.by_user
                .entry(seat.user_id.clone())
                .or_default()
                .insert(seq, Arc::clone(&record));
        }
        Ok(true)
    }

    async fn set_seat_eligibility(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        eligible: bool,
    ) -> Result<bool, StoreError> {
        self.with_record(id, false, |record| {
            if &record.initiator.user_id == user_id {
                record.initiator_eligible = eligible;
            } else if &record.responder.user_id == user_id {
                record.responder_eligible = eligible;
            } else {
                return false;
            }
            record.state.eligible = record.initiator_eligible && record.responder_eligible;
            true
        })
    }

    async fn close_negotiation(
        &self,
        id: &OpportunityId,
        reason: CloseReason,
    ) -> Result<Option<NegotiationSummary>, StoreError> {
        self.with_record(id, None, |record| {
            if !record.state.settled {
                record.state.settled = true;
                record.state.outcome = Some(NegotiationOutcome::Closed);
            }
            record.state.awaiting_user_id = None;
            record.status = reason.status();
            Some(record.summary())
        })
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
    ) -> Result<Vec<NegotiationSummary>, StoreError> {
        // The user's own, oldest first; the map is not held while each is
        // locked in turn.
        let records: Vec<Arc<Mutex<Record>>> = {
            let map = self.inner.negotiations.read().map_err(|_| poisoned())?;
            map.by_user
                .get(user_id)
                .map(|records| records.values().cloned().collect())
                .unwrap_or_default()
        };
        let mut found = Vec::new();
        for record in records {
            let summary = Self::lock(&record)?.summary();
            if filter.matches(&summary, user_id) {
                found.push(summary);
            }
        }
        Ok(found)
    }

    async fn append_message(
        &self,
        id: &OpportunityId,
        message: &NegotiationMessage,
    ) -> Result<bool, StoreError> {
        self.with_record(id, false, |record| {
            record.messages.push(message.clone());
            true
        })
    }

    async fn list_messages(
        &self,
        id: &OpportunityId,
    ) -> Result<Vec<NegotiationMessage>, StoreError> {
        self.with_record(id, Vec::new(), |record| record.messages.clone())
    }
}

#[async_trait]
impl ApiKeyStore for MemoryStore {
    async fn insert_api_key(&self, key: &ApiKeyRecord) -> Result<bool, StoreError> {
        let mut keys = self.inner.keys.lock().map_err(|_| poisoned())?;
        if keys.iter().any(|k| k.id == key.id || k.hash == key.hash) {
            return Ok(false);
        }
        keys.push(key.clone());
        Ok(true)
    }

    async fn find_api_key(&self, hash: &KeyHash) -> Result<Option<ApiKeyRecord>, StoreError> {
        let keys = self.inner.keys.lock().map_err(|_| poisoned())?;
        Ok(keys.iter().find(|k| k.hash == *hash).cloned())
    }

    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
        Ok(self.inner.keys.lock().map_err(|_| poisoned())?.clone())
    }

    async fn revoke_api_key(&self, id: &str) -> Result<bool, StoreError> {
        let mut keys = self.inner.keys.lock().map_err(|_| poisoned())?;
        Ok(keys
            .iter_mut()
            .find(|k| k.id == id)
            .map(|k| k.revoked = true)
            .is_some())
    }
}
