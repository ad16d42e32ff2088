//! How a backend tells a host that something in the store may have
//! changed, including by another process: negotiations (the change feed),
//! and API keys (`KeyChanges::Feed`).

/// Wakes whenever what it watches may have changed, including by another
/// process: each message means "look again". Messages are coalesced, so a
/// burst of commits may wake once; a feed that closes means the backend
/// stopped watching, and a waiter should fall back to its deadline.
pub type ChangeFeed = tokio::sync::mpsc::Receiver<()>;
