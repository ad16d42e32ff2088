//! The refusals hyper writes on its own, in the host's error shape.
//!
//! A request whose head hyper cannot read (a space or raw non-ASCII bytes
//! in the path, two different `Content-Length`s, a transfer coding other
//! than `chunked`, a URI or headers over the limit) never reaches the
//! router: hyper answers it itself, with an empty body and none of the
//! host's headers, and closes the connection. hyper has no hook for that
//! answer, so the connection's writer recognises it on its way out and
//! writes the host's instead: the same status, the `{"error": {"code",
//! "message"}}` body, a request id and the security headers.
//!
//! hyper writes such an answer only while no response is being written on
//! the connection, and every answer the router writes carries an
//! `x-request-id`; so a write that starts with a complete response head,
//! at a moment no request of the connection is in flight, and that has no
//! request id, can only be hyper's own.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::serve::connection::InFlight;
use crate::service::error::HostError;

/// A connection's stream whose writer replaces hyper's own refusals.
pub(crate) struct Shaped<I> {
    inner: I,
    in_flight: InFlight,
    /// The replacement still to be written, and how much of it is.
    pending: Option<(Vec<u8>, usize)>,
}

impl<I> Shaped<I> {
    pub(crate) fn new(inner: I, in_flight: InFlight) -> Self {
        Shaped {
            inner,
            in_flight,
            pending: None,
        }
    }
}

impl<I: AsyncWrite + Unpin> Shaped<I> {
    /// Writes what is left of a replacement; ready once it is all written.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.pending {
            let rest = bytes.get(*written..).unwrap_or_default();
            if rest.is_empty() {
                self.pending = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, rest))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }

    /// Takes `head` in place of hyper's own refusal when it is one; the
    /// replacement is written as far as the socket takes it now, the rest
    /// by the next write or flush.
    fn replaced(&mut self, head: &[u8], cx: &mut Context<'_>) -> io::Result<bool> {
        if !self.in_flight.is_idle() {
            return Ok(false);
        }
        let Some(status) = own_refusal(head) else {
            return Ok(false);
        };
        self.pending = Some((refusal(status), 0));
        match self.poll_pending(cx) {
            Poll::Ready(result) => result.map(|()| true),
            Poll::Pending => Ok(true),
        }
    }
}

impl<I: AsyncRead + Unpin> AsyncRead for Shaped<I> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Shaped<I> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        if self.replaced(buf, cx)? {
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        let first = bufs.iter().find(|buf| !buf.is_empty());
        if let Some(first) = first
            && self.replaced(first, cx)?
        {
            return Poll::Ready(Ok(bufs.iter().map(|buf| buf.len()).sum()));
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The status of hyper's own refusal, when `head` is one: a complete
/// HTTP/1.1 error response head without the request id every answer of
/// the router carries.
fn own_refusal(head: &[u8]) -> Option<u16> {
    if !(head.starts_with(b"HTTP/1.1 4") || head.starts_with(b"HTTP/1.1 5")) {
        return None;
    }
    let mut headers = [httparse::EMPTY_HEADER; 16];
    let mut response = httparse::Response::new(&mut headers);
    if !response.parse(head).ok()?.is_complete() {
        return None;
    }
    let has_request_id = response
        .headers
        .iter()
        .any(|header| header.name.eq_ignore_ascii_case("x-request-id"));
    if has_request_id {
        return None;
    }
    response.code
}

/// The host's answer for a head hyper could not read, whole: it closes
/// the connection, as hyper's would have.
fn refusal(status: u16) -> Vec<u8> {
    let (reason, message) = match status {
        414 => (
            "URI Too Long",
            "The request's URI is longer than the host reads.",
        ),
        431 => (
            "Request Header Fields Too Large",
            "The request's headers are larger than the host reads.",
        ),
        400 => (
            "Bad Request",
            "The request is not HTTP/1.1 the host can read: its request line or headers are malformed.",
        ),
        _ => ("Error", "The request could not be read."),
    };
    let body = serde_json::to_string(&HostError::BadRequest(message.to_owned()).body())
        .unwrap_or_default();
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\nx-request-id: {}\r\n",
        body.len(),
        uuid::Uuid::new_v4(),
    );
    for (name, value) in crate::http::security::SECURITY_HEADERS {
        head.push_str(name.as_str());
        head.push_str(": ");
        head.push_str(value);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hypers_bare_refusals_are_recognised() {
        let bare = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\ndate: Sat, 05 Dec 2026 12:00:00 GMT\r\n\r\n";
        assert_eq!(own_refusal(bare), Some(400));
        let long = b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(own_refusal(long), Some(414));
    }

    #[test]
    fn the_routers_answers_are_left_alone() {
        let routed = b"HTTP/1.1 404 Not Found\r\nx-request-id: 1\r\ncontent-length: 2\r\n\r\n{}";
        assert_eq!(own_refusal(routed), None);
        assert_eq!(own_refusal(b"HTTP/1.1 200 OK\r\n\r\n"), None);
        // Half a head, or a body that merely starts like one, is not a head.
        assert_eq!(own_refusal(b"HTTP/1.1 400 Bad Request\r\ncontent-"), None);
        assert_eq!(own_refusal(b"{\"error\":1}"), None);
    }

    #[test]
    fn the_replacement_is_one_whole_response_in_the_error_shape() {
        let bytes = refusal(414);
        let mut headers = [httparse::EMPTY_HEADER; 16];
        let mut response = httparse::Response::new(&mut headers);
        let httparse::Status::Complete(at) = response.parse(&bytes).expect("a head") else {
            panic!("incomplete head");
        };
        assert_eq!(response.code, Some(414));
        let header = |name: &str| {
            response
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case(name))
                .map(|h| String::from_utf8_lossy(h.value).into_owned())
        };
        assert_eq!(header("connection").as_deref(), Some("close"));
        assert!(header("x-request-id").is_some());
        assert_eq!(header("x-frame-options").as_deref(), Some("DENY"));
        let body: serde_json::Value = serde_json::from_slice(&bytes[at..]).expect("JSON");
        assert_eq!(body["error"]["code"], "invalid_request");
        assert_eq!(
            header("content-length"),
            Some(bytes[at..].len().to_string())
        );
    }
}
