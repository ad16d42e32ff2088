//! One client connection from accept to close: the per-address budget that
//! keeps one client from taking every slot, the count of requests in flight
//! that tells a shutdown which connections it may close at once, and the
//! HTTP/1.1 serving itself.
//!
//! The host speaks HTTP/1.1 only. HTTP/2 buys nothing for these routes (a
//! TLS-terminating proxy in front speaks HTTP/2 to browsers and HTTP/1.1
//! to the host) and costs a second set of limits to get right: its
//! connection preface is sniffed before any timer runs, and an idle HTTP/2
//! connection holds a slot until keep-alive pings say otherwise. With
//! HTTP/1.1 alone, hyper's header-read timer runs from the moment a
//! connection waits for a request head, the first one included, so a
//! client that connects and sends nothing, or half a head, is closed when
//! the timer ends.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::Body;
use tokio_util::sync::CancellationToken;

/// Which budget an address draws from: an IPv4 address on its own, an IPv6
/// address by its /64 (one host is commonly given a whole /64, so counting
/// single IPv6 addresses would budget nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Origin {
    V4(u32),
    V6Prefix(u64),
}

impl Origin {
    fn of(address: IpAddr) -> Self {
        match address {
            IpAddr::V4(v4) => Origin::V4(u32::from(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Origin::V4(u32::from(v4)),
                None => {
                    let bits = u128::from(v6) >> 64;
                    Origin::V6Prefix(u64::try_from(bits).unwrap_or(u64::MAX))
                }
            },
        }
    }
}

/// How many connections each client address holds, against a limit.
#[derive(Debug)]
pub(crate) struct AddressBudget {
    limit: usize,
    held: Mutex<BTreeMap<Origin, usize>>,
}

impl AddressBudget {
    pub(crate) fn new(limit: usize) -> Arc<Self> {
        Arc::new(AddressBudget {
            limit: limit.max(1),
            held: Mutex::new(BTreeMap::new()),
        })
    }

    /// One more connection for `peer`'s address, or `None` when that
    /// address already holds its limit.
    pub(crate) fn take(self: &Arc<Self>, peer: SocketAddr) -> Option<AddressSlot> {
        let origin = Origin::of(peer.ip());
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let count = held.entry(origin).or_insert(0);
        if *count >= self.limit {
            return None;
        }
        *count += 1;
        Some(AddressSlot {
            budget: Arc::clone(self),
            origin,
        })
    }
}

/// A connection counted against its address until dropped.
#[derive(Debug)]
pub(crate) struct AddressSlot {
    budget: Arc<AddressBudget>,
    origin: Origin,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut held = self
            .budget
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = held.get_mut(&self.origin) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                held.remove(&self.origin);
            }
        }
    }
}

/// The requests of one connection whose answers are not yet written: a
/// request counts from the moment the service is called until its
/// response body has been sent or dropped, so a wait or an event stream
/// counts for as long as it runs.
#[derive(Debug, Clone, Default)]
pub(crate) struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    /// Whether no request of this connection is being answered: it is idle
    /// between requests, or still sending a head.
    pub(crate) fn is_idle(&self) -> bool {
        self.0.load(Ordering::Acquire) == 0
    }

    fn enter(&self) -> InFlightGuard {
        self.0.fetch_add(1, Ordering::AcqRel);
        InFlightGuard(self.clone())
    }
}

/// One request in flight, until dropped.
struct InFlightGuard(InFlight);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.0.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that holds its request in flight until it is done.
struct Counted {
    body: Body,
    _guard: InFlightGuard,
}

impl http_body::Body for Counted {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// Serves one accepted connection with `app` until the client closes it,
/// the header-read timer ends it, or the host stops: then a connection
/// with no request in flight closes at once, and one answering a request
/// finishes that answer and closes.
pub(crate) async fn serve_connection<I>(
    builder: hyper::server::conn::http1::Builder,
    io: I,
    app: axum::Router,
    in_flight: InFlight,
    stopping: CancellationToken,
) where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let counting = in_flight.clone();
    let service =
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let guard = counting.enter();
            let app = app.clone();
            async move {
                let response = tower::ServiceExt::oneshot(app, request.map(Body::new)).await;
                Ok::<_, std::convert::Infallible>(match response {
                    Ok(response) => response.map(|body| {
                        Body::new(Counted {
                            body,
                            _guard: guard,
                        })
                    }),
                    Err(never) => match never {},
                })
            }
        });
    let connection = builder.serve_connection(io, service);
    let mut connection = std::pin::pin!(connection);
    let ended = tokio::select! {
        ended = connection.as_mut() => ended,
        () = stopping.cancelled() => {
            if in_flight.is_idle() {
                return;
            }
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(err) = ended {
        tracing::debug!(error = %err, "connection ended");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(text: &str) -> SocketAddr {
        text.parse().expect("a socket address")
    }

    #[test]
    fn an_address_holds_at_most_its_limit() {
        let budget = AddressBudget::new(2);
        let first = budget.take(peer("127.0.0.1:1"));
        let second = budget.take(peer("127.0.0.1:2"));
        assert!(first.is_some() && second.is_some());
        assert!(budget.take(peer("127.0.0.1:3")).is_none());
        // Another address has its own budget.
        assert!(budget.take(peer("127.0.0.2:1")).is_some());
        drop(first);
        assert!(budget.take(peer("127.0.0.1:4")).is_some());
    }

    #[test]
    fn ipv6_addresses_share_their_slash_64() {
        let budget = AddressBudget::new(1);
        let held = budget.take(peer("[2001:db8:1:2::1]:1"));
        assert!(held.is_some());
        assert!(budget.take(peer("[2001:db8:1:2::ffff]:1")).is_none());
        assert!(budget.take(peer("[2001:db8:1:3::1]:1")).is_some());
        // A mapped IPv4 address counts as that IPv4 address.
        let v4 = budget.take(peer("10.0.0.1:1"));
        assert!(v4.is_some());
        assert!(budget.take(peer("[::ffff:10.0.0.1]:1")).is_none());
    }

    #[test]
    fn a_request_counts_until_its_body_is_dropped() {
        let in_flight = InFlight::default();
        assert!(in_flight.is_idle());
        let body = Counted {
            body: Body::empty(),
            _guard: in_flight.enter(),
        };
        assert!(!in_flight.is_idle());
        drop(body);
        assert!(in_flight.is_idle());
    }
}
