//! The conformance suite against the in-memory store.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_negotiation_store::MemoryStore;

async fn fresh_store() -> MemoryStore {
    MemoryStore::new()
}

index_negotiation_store::negotiation_store_conformance!(fresh_store());
