//! The memory store's interactions: every person's, with the
//! acknowledgements of their response commands, under one lock, which a
//! response command holds from reading its scene to applying its decision.

use std::collections::{BTreeMap, VecDeque};

use async_trait::async_trait;

use super::{MemoryStore, poisoned};
use crate::audit::{Actor, AuditWrite};
use crate::error::StoreError;
use crate::host_state::Room;
use crate::interactions::{
    ACKNOWLEDGEMENTS_KEPT, InteractionFilter, InteractionInsert, InteractionRecord,
    InteractionStatus, InteractionStore, ResponseDecider, ResponseKey, ResponseScene,
};
use index_negotiation::UserId;

/// Every person's interactions and acknowledgements.
#[derive(Debug, Default)]
pub(super) struct Interactions {
    /// By owner, then id.
    records: BTreeMap<UserId, BTreeMap<String, InteractionRecord>>,
    /// By owner: each acknowledgement under its operation id, oldest first.
    acknowledgements: BTreeMap<UserId, VecDeque<(String, String)>>,
}

#[async_trait]
impl InteractionStore for MemoryStore {
    async fn insert_interaction(
        &self,
        record: &InteractionRecord,
        most_per_owner: usize,
        actor: &Actor,
    ) -> Result<InteractionInsert, StoreError> {
        let mut all = self.inner.interactions.lock().map_err(|_| poisoned())?;
        let theirs = all.records.entry(record.owner.clone()).or_default();
        if let Some(held) = theirs.get(&record.id) {
            return Ok(InteractionInsert::Exists(held.clone()));
        }
        let held: Vec<_> = theirs
            .values()
            .map(|held| {
                let settled = held.status != InteractionStatus::Pending;
                (held.created_at_ms, settled, held.id.as_str())
            })
            .collect();
        match Room::among(&held, most_per_owner) {
            Room::Full => return Ok(InteractionInsert::Full),
            Room::Forgetting(id) => {
                let id = id.to_owned();
                theirs.remove(&id);
            }
            Room::Free => {}
        }
        theirs.insert(record.id.clone(), record.clone());
        let asked = AuditWrite::interaction_requested(&record.owner, &record.id, actor);
        self.append_entry(asked, None);
        Ok(InteractionInsert::Inserted)
    }

    async fn find_interaction(
        &self,
        owner: &UserId,
        id: &str,
    ) -> Result<Option<InteractionRecord>, StoreError> {
        let all = self.inner.interactions.lock().map_err(|_| poisoned())?;
        Ok(all
            .records
            .get(owner)
            .and_then(|theirs| theirs.get(id))
            .cloned())
    }

    async fn list_interactions(
        &self,
        owner: &UserId,
        filter: &InteractionFilter,
    ) -> Result<Vec<InteractionRecord>, StoreError> {
        let all = self.inner.interactions.lock().map_err(|_| poisoned())?;
        let mut page: Vec<InteractionRecord> = all
            .records
            .get(owner)
            .into_iter()
            .flat_map(BTreeMap::values)
            .filter(|record| filter.status.is_none_or(|status| record.status == status))
            .filter(|record| {
                filter.after.as_ref().is_none_or(|after| {
                    (record.created_at_ms, record.id.as_str())
                        > (after.created_at_ms, after.id.as_str())
                })
            })
            .cloned()
            .collect();
        page.sort_by(|a, b| (a.created_at_ms, &a.id).cmp(&(b.created_at_ms, &b.id)));
        page.truncate(filter.limit);
        Ok(page)
    }

    async fn replace_interaction(&self, record: &InteractionRecord) -> Result<bool, StoreError> {
        let mut all = self.inner.interactions.lock().map_err(|_| poisoned())?;
        Ok(replace(&mut all, record))
    }

    async fn commit_interaction_response(
        &self,
        owner: &UserId,
        key: &ResponseKey,
        actor: &Actor,
        decide: ResponseDecider,
    ) -> Result<String, StoreError> {
        let mut all = self.inner.interactions.lock().map_err(|_| poisoned())?;
        let theirs = all.records.get(owner);
        let in_run = || {
            theirs
                .into_iter()
                .flat_map(BTreeMap::values)
                .filter(|record| record.run_id == key.run_id)
        };
        let in_session = || {
            in_run().filter(|record| {
                record.environment_id == key.environment_id && record.session_id == key.session_id
            })
        };
        let scene = ResponseScene {
            replay: all
                .acknowledgements
                .get(owner)
                .and_then(|acknowledgements| {
                    acknowledgements
                        .iter()
                        .find(|(operation, _)| *operation == key.operation_id)
                        .map(|(_, acknowledgement)| acknowledgement.clone())
                }),
            run_known: in_run().next().is_some(),
            session_known: in_session().next().is_some(),
            interaction: in_session()
                .find(|record| record.id == key.interaction_id)
                .cloned(),
        };
        let write = decide(scene);
        if let Some(record) = &write.interaction
            && !replace(&mut all, record)
        {
            return Err(StoreError::Backend(
                "an interaction changed under its response's lock".into(),
            ));
        }
        if let Some(record) = write.interaction.as_ref().filter(|_| write.resolves) {
            self.append_entry(
                AuditWrite::interaction_resolved(owner, &record.id, actor),
                None,
            );
        }
        if write.record {
            let acknowledgements = all.acknowledgements.entry(owner.clone()).or_default();
            acknowledgements.push_back((key.operation_id.clone(), write.acknowledgement.clone()));
            while acknowledgements.len() > ACKNOWLEDGEMENTS_KEPT {
                acknowledgements.pop_front();
            }
        }
        Ok(write.acknowledgement)
    }
}

/// Replaces the record with `record`'s owner, id and version.
fn replace(all: &mut Interactions, record: &InteractionRecord) -> bool {
    let Some(held) = all
        .records
        .get_mut(&record.owner)
        .and_then(|theirs| theirs.get_mut(&record.id))
        .filter(|held| held.version == record.version)
    else {
        return false;
    };
    held.version += 1;
    held.status = record.status;
    held.body.clone_from(&record.body);
    true
}
