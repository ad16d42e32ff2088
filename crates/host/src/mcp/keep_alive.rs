//! An MCP answer that keeps its connection talking while the call runs.
//!
//! For a request of the current protocol (2026-07-28, no session), rmcp
//! writes nothing, not even the status line, until the tool sends its
//! first message, since the status depends on it. A wait sends none for up
//! to 50 seconds, and a client whose HTTP library gives up on a read after
//! a few seconds (httpx's default is 5) fails the call. So when rmcp has
//! not answered within [`ANSWER_WITHIN`], the host answers itself: 200 and
//! an event stream, a comment line every [`KEEP_ALIVE`] (which the SSE
//! format tells every reader to ignore), and then rmcp's answer as the
//! stream's one message. A session's answers are event streams from the
//! start, kept alive by rmcp at the same interval.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use futures_util::StreamExt;

/// How long rmcp has to answer before the host opens the stream itself:
/// long enough that a quick call answers as rmcp writes it.
pub(crate) const ANSWER_WITHIN: Duration = Duration::from_secs(1);

/// How often a held stream says something: under the 5-second read
/// timeout common HTTP clients use.
pub(crate) const KEEP_ALIVE: Duration = Duration::from_secs(4);

/// What a held stream sends while it waits: an SSE comment.
const COMMENT: &[u8] = b": waiting\n\n";

/// `answer` as rmcp writes it when it comes within [`ANSWER_WITHIN`];
/// otherwise an event stream that stays alive until it comes.
pub(crate) async fn kept_alive<F>(answer: F) -> Response
where
    F: Future<Output = Response> + Send + 'static,
{
    let mut answer = Box::pin(answer);
    match tokio::time::timeout(ANSWER_WITHIN, &mut answer).await {
        Ok(response) => response,
        Err(_) => held(answer),
    }
}

/// The event stream that holds `answer`'s place.
fn held<F>(mut answer: std::pin::Pin<Box<F>>) -> Response
where
    F: Future<Output = Response> + Send + 'static,
{
    let (sender, receiver) = tokio::sync::mpsc::channel::<Bytes>(8);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(KEEP_ALIVE);
        loop {
            tokio::select! {
                response = &mut answer => {
                    forward(response, &sender).await;
                    return;
                }
                _ = ticks.tick() => {
                    // The client has gone: dropping the answer cancels it.
                    if sender.send(Bytes::from_static(COMMENT)).await.is_err() {
                        return;
                    }
                }
            }
        }
    });
    let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver
            .recv()
            .await
            .map(|bytes| (Ok::<_, Infallible>(bytes), receiver))
    });
    let mut response = Response::new(Body::from_stream(stream));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// rmcp's late answer onto the held stream: an event stream's bytes as
/// they come, a JSON answer as one `message` event.
async fn forward(response: Response, sender: &tokio::sync::mpsc::Sender<Bytes>) {
    let streamed = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
    let mut body = response.into_body().into_data_stream();
    if streamed {
        while let Some(Ok(bytes)) = body.next().await {
            if sender.send(bytes).await.is_err() {
                return;
            }
        }
        return;
    }
    let mut json = Vec::new();
    while let Some(Ok(bytes)) = body.next().await {
        json.extend_from_slice(&bytes);
    }
    let mut event = b"event: message\ndata: ".to_vec();
    // A JSON answer is one line; any line break in it would end the field.
    event.extend(
        json.iter()
            .copied()
            .filter(|byte| !matches!(byte, b'\n' | b'\r')),
    );
    event.extend_from_slice(b"\n\n");
    let _ = sender.send(Bytes::from(event)).await;
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt;

    use super::*;

    async fn text(response: Response) -> String {
        let bytes = response
            .into_body()
            .collect()
            .await
            .map(http_body_util::Collected::to_bytes)
            .unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// rmcp's answer to a call: `body` as JSON.
    fn json(body: &'static str) -> Response {
        let mut response = Response::new(Body::from(body));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        response
    }

    #[tokio::test]
    async fn a_quick_answer_is_rmcps_own() {
        let response = kept_alive(async { json("{\"ok\":1}") }).await;
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/json");
        assert_eq!(text(response).await, "{\"ok\":1}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_answer_is_held_on_a_stream_that_keeps_talking() {
        let response = kept_alive(async {
            tokio::time::sleep(Duration::from_secs(10)).await;
            json("{\"jsonrpc\":\"2.0\",\n\"id\":1}")
        })
        .await;
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "text/event-stream"
        );
        let body = text(response).await;
        assert!(body.matches(": waiting").count() >= 2, "{body}");
        assert!(
            body.ends_with("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1}\n\n"),
            "{body}"
        );
    }
}
