//! Relaying a store's feed to what listens for it on this host, for as long
//! as the host lives.

use index_negotiation_store::ChangeFeed;
use tokio_util::sync::CancellationToken;

/// Spawns a task that calls `each` on every message of `feed` until `each`
/// says to stop (what it tells has gone) or `gone` is cancelled (the host
/// dropped: a store nobody writes to again sends no message to end on),
/// and calls `closed` if the feed closes first.
pub(crate) fn relay(
    mut feed: ChangeFeed,
    gone: CancellationToken,
    mut each: impl FnMut() -> bool + Send + 'static,
    closed: impl FnOnce() + Send + 'static,
) {
    tokio::spawn(async move {
        loop {
            tokio::select! {
                message = feed.recv() => if message.is_none() { break },
                () = gone.cancelled() => return,
            }
            if !each() {
                return;
            }
        }
        closed();
    });
}
