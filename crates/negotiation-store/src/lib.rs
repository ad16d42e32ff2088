//! Where negotiations live: the storage contract that makes the rules safe
//! to apply, a service that composes the two, an in-memory backend, and a
//! conformance suite every backend runs.
//!
//! The rules in `index-negotiation` only decide. A [`NegotiationStore`]
//! commits: it locks a negotiation, reads its current state, asks the rules
//! exactly once, and applies the answer whole, or nothing. [`Negotiations`]
//! wires each request to the right rule.
//!
//! ```
//! use index_negotiation::{NegotiationAction, NegotiationTurn};
//! use index_negotiation_store::{Actor, MemoryStore, Negotiations, OpenNegotiation, OpportunityId, Seat};
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let negotiations = Negotiations::new(MemoryStore::new());
//! let opp: OpportunityId = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36".parse()?;
//! negotiations.open(&OpenNegotiation {
//!     opportunity_id: opp.clone(),
//!     initiator: Seat { user_id: "alice".parse()?, intent_id: "hire".parse()? },
//!     responder: Seat { user_id: "bob".parse()?, intent_id: "join".parse()? },
//!     eligible: true,
//! }, &Actor::operator()).await?;
//! let turn = NegotiationTurn::new(NegotiationAction::Counter, "Counter before anything is offered?");
//! let (decision, after) = negotiations.execute(&opp, &"alice".parse()?, turn, &Actor::operator()).await?;
//! assert_eq!(decision.rejection().map(|r| r.as_str()), Some("counter_is_first"));
//! assert!(after.is_none(), "a refusal changes nothing");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! Backends: [`MemoryStore`] here; SQLite in `index-negotiation-store-sqlite`,
//! PostgreSQL in `index-negotiation-store-postgres`.
//! Enable the `conformance` feature to run the shared suite against yours
//! (see `negotiation_store_conformance!` in the `conformance` module), and
//! `sql-rows` for the row kit the SQL backends share (`sql_rows`).
//!
//! | module | holds |
//! |---|---|
//! | `store` | the `NegotiationStore` trait and its commit contract |
//! | `refusal` | what the rules refused, typed, for every surface to map |
//! | `service` | `Negotiations`, the service hosts and the CLI call |
//! | `view` | `SeatView`, what one seat sees of a negotiation (`Negotiations::view`): every surface shows a seat this one |
//! | `question_loop` | the service's park commit and answer delivery |
//! | `model` | the records |
//! | `keys` | the API key records and their port |
//! | `time` | `UnixTime`, a moment as the store keeps it |
//! | `audit` | the audit record's entries, who acts in a step, and the record's port |
//! | `webhooks` | the endpoints, the events a commit writes for them, the outbox's deliveries, and their port |
//! | `host_state` | what hosts share between requests (signing keys, spent tokens, tasks) and its port |
//! | `interactions` | the interactions a host provides and the acknowledgements of their response commands, and their port |
//! | `memory` | the in-memory backend, indexed by user |
//! | `error` | `StoreError` and `ErrorChain` |
//! | `feed` | `ChangeFeed`, how a backend says that negotiations or keys may have changed |
//! | `sql_rows` | the SQL backends' shared row kit (feature `sql-rows`): a negotiation's, a turn's, a message's and a key's row read back as checked values, and a listing's page as both bind it |
//! | `conformance` | the suite (one async function per promise, one module per family of promises, a macro) and the benchmarks' drivers |

mod audit;
#[cfg(feature = "conformance")]
pub mod conformance;
mod error;
mod feed;
mod host_state;
mod interactions;
mod keys;
mod memory;
mod model;
mod question_loop;
mod refusal;
mod service;
#[cfg(feature = "sql-rows")]
pub mod sql_rows;
mod store;
mod time;
mod view;
mod webhooks;

pub use audit::{
    ACTOR_FIELD_LIMIT, AUDIT_PAGE_LIMIT, Actor, ActorKind, AuditEntry, AuditFilter, AuditStep,
    AuditStore, AuditWrite, TurnEnd,
};
pub use error::{ErrorChain, StoreError};
pub use feed::ChangeFeed;
pub use host_state::{HostStateStore, Room, SigningKey, TaskRecord};
/// The ids, checked where they are made; they live with the rules, which
/// take them too.
pub use index_negotiation::{
    IdKind, IntentId, InvalidId, OpportunityId, UserId, is_hyphenated_uuid,
};
pub use interactions::{
    ACKNOWLEDGEMENTS_KEPT, InteractionCursor, InteractionFilter, InteractionInsert,
    InteractionRecord, InteractionStatus, InteractionStore, ResponseDecider, ResponseKey,
    ResponseScene, ResponseWrite,
};
pub use keys::{
    ApiKeyRecord, ApiKeyStore, KeyChanges, KeyHash, KeyKind, KeyScope, KeyState, Revocation,
};
pub use memory::MemoryStore;
pub use model::{
    CloseReason, Committed, InvalidCursor, ListCursor, ListFilter, NegotiationPage,
    NegotiationSummary, OpenDecision, OpenNegotiation, OpenRejection, RecordStatus, Seat,
    StateFilter,
};
pub use question_loop::{DeliveryReport, RefOutcome, RefReport};
pub use refusal::{Refusal, RefusalKind};
pub use service::{Negotiations, QuestionLoopSettings};
pub use store::{
    AnswerDecider, HostStore, NegotiationStore, ParkDecider, ResumeDecider, TurnDecider,
};
pub use time::{InvalidTime, KEY_USE_RESOLUTION, UnixTime};
pub use view::SeatView;
pub use webhooks::{
    Audience, Delivery, DeliveryOutcome, Disabled, EventFilter, EventType, EventWrite, ReplayRange,
    WebhookEndpoint, WebhookSecret, WebhookStore, message_id,
};
