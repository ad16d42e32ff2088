//! The feeds that LISTEN, each on a connection of its own outside the
//! pool, for the notifications the triggers send: every negotiation change
//! (the change feed) and every key change (`KeyChanges::Feed`).

use tokio_postgres::{AsyncMessage, Client, Connection};

use index_negotiation_store::{ChangeFeed, StoreError};

use crate::error::pg_error;
use crate::{Connector, PostgresStore};

/// The channel the `negotiations_changed` trigger notifies.
pub(crate) const NEGOTIATIONS_CHANNEL: &str = "index_negotiation_changed";

/// The channel the `api_keys_changed` trigger notifies.
pub(crate) const KEYS_CHANNEL: &str = "index_keys_changed";

impl PostgresStore {
    /// A connection of its own, outside the pool, that LISTENs on
    /// `channel` and wakes the feed on every notification. The task ends,
    /// closing the feed, when the feed is dropped or the server goes.
    pub(crate) async fn listen(&self, channel: &'static str) -> Result<ChangeFeed, StoreError> {
        match &self.connector {
            Connector::Plain => {
                let (client, connection) = self
                    .config
                    .connect(tokio_postgres::NoTls)
                    .await
                    .map_err(pg_error)?;
                forward(client, connection, channel).await
            }
            #[cfg(feature = "tls")]
            Connector::Tls(tls) => {
                let (client, connection) =
                    self.config.connect(tls.clone()).await.map_err(pg_error)?;
                forward(client, connection, channel).await
            }
        }
    }
}

/// Drives `connection`, sends the LISTEN through `client`, and wakes the
/// feed on every notification; returns once the LISTEN has succeeded.
async fn forward<S, T>(
    client: Client,
    mut connection: Connection<S, T>,
    channel: &'static str,
) -> Result<ChangeFeed, StoreError>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (wake, feed) = tokio::sync::mpsc::channel(1);
    let (ready, listening) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        // The client lives in this task: dropping it would end the connection.
        let statement = format!("LISTEN {channel}");
        let listen = client.batch_execute(&statement);
        tokio::pin!(listen);
        let mut ready = Some(ready);
        loop {
            tokio::select! {
                result = &mut listen, if ready.is_some() => {
                    let failed = result.is_err();
                    if let Some(ready) = ready.take() {
                        let _ = ready.send(result.map_err(pg_error));
                    }
                    if failed {
                        return;
                    }
                }
                message = std::future::poll_fn(|cx| connection.poll_message(cx)) => match message {
                    Some(Ok(AsyncMessage::Notification(_))) => {
                        // Full means a wake is already pending: coalesced.
                        if let Err(tokio::sync::mpsc::error::TrySendError::Closed(())) = wake.try_send(()) {
                            return;
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => return,
                },
                () = wake.closed() => return,
            }
        }
    });
    match listening.await {
        Ok(Ok(())) => Ok(feed),
        Ok(Err(err)) => Err(err),
        Err(_) => Err(StoreError::Backend(
            "the change listener's connection closed".into(),
        )),
    }
}
