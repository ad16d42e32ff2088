//! A negotiation's message record as the park decision's sink.

use async_trait::async_trait;

use index_negotiation::NegotiationMessage;
use index_negotiation_store::{NegotiationStore, OpportunityId};
use index_stall_gap::{ParkSink, ParkSinkError};

/// Persists park turns into one negotiation's message record.
pub(crate) struct RecordSink<'a, S> {
    pub(crate) store: &'a S,
    pub(crate) id: OpportunityId,
}

#[async_trait]
impl<S: NegotiationStore> ParkSink for RecordSink<'_, S> {
    async fn persist(&self, message: &NegotiationMessage) -> Result<(), ParkSinkError> {
        match self.store.append_message(&self.id, message).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(ParkSinkError(format!("no negotiation {}", self.id).into())),
            Err(err) => Err(ParkSinkError(Box::new(err))),
        }
    }
}
