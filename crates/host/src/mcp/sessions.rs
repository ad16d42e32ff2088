//! MCP sessions, bounded: at most so many per key and so many in all, the
//! least recently used one closed to make room for a new one.
//!
//! rmcp's own session manager keeps every session a client initializes
//! until the client deletes it or it idles out, so one key that keeps
//! initializing could hold memory without limit. This wrapper counts the
//! sessions each key opened and closes the one used longest ago when a key,
//! or the host, is at its bound. A session is opened inside the request
//! that initializes it, so the key comes from that request, through a
//! task-local the `/mcp` route sets.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};

tokio::task_local! {
    /// The key whose request is being served on `/mcp`, for the session an
    /// `initialize` opens.
    pub(crate) static SESSION_KEY: String;
}

/// How many sessions may be open, per key and in all.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SessionBounds {
    pub(crate) per_key: usize,
    pub(crate) total: usize,
}

/// One open session: whose, and when it was last used (a tick of
/// [`Held::clock`], so the order is exact whatever the wall clock does).
#[derive(Debug)]
struct Open {
    key: String,
    used: u64,
}

#[derive(Debug, Default)]
struct Held {
    clock: u64,
    open: BTreeMap<SessionId, Open>,
}

impl Held {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// The session to close so that `key` may open one more, if any must
    /// be closed: the key's own least recently used one when the key is at
    /// its bound, else the least recently used one of all when the host is.
    fn to_evict(&self, key: &str, bounds: SessionBounds) -> Option<SessionId> {
        let oldest = |mine: bool| {
            self.open
                .iter()
                .filter(|(_, open)| !mine || open.key == key)
                .min_by_key(|(_, open)| open.used)
                .map(|(id, _)| id.clone())
        };
        let keys_own = self.open.values().filter(|open| open.key == key).count();
        if keys_own >= bounds.per_key.max(1) {
            return oldest(true);
        }
        if self.open.len() >= bounds.total.max(1) {
            return oldest(false);
        }
        None
    }
}

/// rmcp's local session manager, bounded.
#[derive(Debug)]
pub(crate) struct BoundedSessions {
    local: LocalSessionManager,
    bounds: SessionBounds,
    held: Mutex<Held>,
    /// Told each time a session is closed, for [`BoundedSessions::all_closed`].
    closed: tokio::sync::Notify,
}

impl BoundedSessions {
    pub(crate) fn new(local: LocalSessionManager, bounds: SessionBounds) -> Self {
        BoundedSessions {
            local,
            bounds,
            held: Mutex::new(Held::default()),
            closed: tokio::sync::Notify::new(),
        }
    }

    /// Returns once no session is open. rmcp closes a session only after
    /// its serving task has closed its transport, so a shutdown that waits
    /// for this before the runtime goes leaves no session's transport to be
    /// torn from under it (which rmcp logs as an error).
    pub(crate) async fn all_closed(&self) {
        loop {
            let closed = self.closed.notified();
            tokio::pin!(closed);
            closed.as_mut().enable();
            if self.open() == 0 {
                return;
            }
            closed.await;
        }
    }

    /// How many sessions are open.
    pub(crate) fn open(&self) -> usize {
        self.held().open.len()
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn touch(&self, id: &SessionId) {
        let mut held = self.held();
        let now = held.tick();
        if let Some(open) = held.open.get_mut(id) {
            open.used = now;
        }
    }
}

impl SessionManager for BoundedSessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let key = SESSION_KEY.try_with(Clone::clone).unwrap_or_default();
        // Room is made before the new session exists, so the bound holds at
        // every moment; a racing initialize may close one more than needed,
        // never one too few.
        loop {
            let evict = self.held().to_evict(&key, self.bounds);
            let Some(id) = evict else { break };
            self.held().open.remove(&id);
            tracing::info!(session = ?id, "closing the least recently used MCP session to make room");
            self.local.close_session(&id).await?;
        }
        let (id, transport) = self.local.create_session().await?;
        let mut held = self.held();
        let used = held.tick();
        held.open.insert(id.clone(), Open { key, used });
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        self.local.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.local.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.held().open.remove(id);
        let closed = self.local.close_session(id).await;
        self.closed.notify_waiters();
        closed
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.local.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        self.local.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.local.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.local.resume(id, last_event_id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(sessions: &[(&str, &str)]) -> Held {
        let mut held = Held::default();
        for (id, key) in sessions {
            let used = held.tick();
            held.open.insert(
                SessionId::from(*id),
                Open {
                    key: (*key).to_owned(),
                    used,
                },
            );
        }
        held
    }

    const BOUNDS: SessionBounds = SessionBounds {
        per_key: 2,
        total: 3,
    };

    #[test]
    fn under_both_bounds_nothing_is_closed() {
        let held = held(&[("a", "k1"), ("b", "k2")]);
        assert_eq!(held.to_evict("k1", BOUNDS), None);
    }

    #[test]
    fn a_key_at_its_bound_loses_its_own_oldest_session() {
        let mut held = held(&[("a", "k1"), ("b", "k2"), ("c", "k1")]);
        assert_eq!(held.to_evict("k1", BOUNDS).as_deref(), Some("a"));
        // Using it makes the other one the oldest.
        let now = held.tick();
        held.open.get_mut("a").expect("open").used = now;
        assert_eq!(held.to_evict("k1", BOUNDS).as_deref(), Some("c"));
    }

    #[test]
    fn a_full_host_loses_the_oldest_session_of_all() {
        let held = held(&[("a", "k1"), ("b", "k2"), ("c", "k3")]);
        assert_eq!(held.to_evict("k4", BOUNDS).as_deref(), Some("a"));
    }
}
