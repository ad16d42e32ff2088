//! The Index protocol's contracts in one crate.
//!
//! Each part is re-exported under a module of its name, behind a cargo
//! feature of the same name. The browser-safe parts (`question-block`,
//! `interaction`, `negotiation`) are on by default, so the default build
//! runs in a browser; enable `negotiation-store`, `negotiation-store-sqlite`,
//! `negotiation-store-postgres` or `stall-gap` on a server. Depending on a
//! part's own crate instead is equally supported.
//!
//! ```
//! use index_protocol::negotiation::{decide_negotiation_turn, NegotiationAction, NegotiationState, NegotiationTurn, UserId};
//! use index_protocol::question_block::QUESTION_BLOCK_MARKER;
//!
//! let alice: UserId = "alice".parse()?;
//! let state = NegotiationState::opened(alice.clone(), "bob".parse()?);
//! let turn = NegotiationTurn::new(NegotiationAction::Propose, "Intro call?");
//! assert!(decide_negotiation_turn(Some(&state), &alice, &turn).is_ok());
//! assert_eq!(QUESTION_BLOCK_MARKER, "index-questions");
//! # Ok::<(), index_protocol::negotiation::InvalidId>(())
//! ```

/// JavaScript's string, number and path semantics that every contract
/// shares (`index-js`).
#[cfg(feature = "js")]
pub use index_js as js;

/// The question block wire contract (`index-question-block`).
#[cfg(feature = "question-block")]
pub use index_question_block as question_block;

/// The human-in-the-loop interaction contract (`index-interaction`).
#[cfg(feature = "interaction")]
pub use index_interaction as interaction;

/// The negotiation rules (`index-negotiation`).
#[cfg(feature = "negotiation")]
pub use index_negotiation as negotiation;

/// The negotiation store (`index-negotiation-store`).
#[cfg(feature = "negotiation-store")]
pub use index_negotiation_store as negotiation_store;

/// The SQLite backend (`index-negotiation-store-sqlite`).
#[cfg(feature = "negotiation-store-sqlite")]
pub use index_negotiation_store_sqlite as negotiation_store_sqlite;

/// The PostgreSQL backend (`index-negotiation-store-postgres`).
#[cfg(feature = "negotiation-store-postgres")]
pub use index_negotiation_store_postgres as negotiation_store_postgres;

/// Stall-gap authoring and the park decision (`index-stall-gap`).
#[cfg(feature = "stall-gap")]
pub use index_stall_gap as stall_gap;

/// The negotiation host (`index-host`, behind `index serve`): REST and MCP over a store.
#[cfg(feature = "host")]
pub use index_host as host;
