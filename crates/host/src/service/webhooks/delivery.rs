//! Sending the outbox: a loop that claims due deliveries, posts each
//! signed, and records how it went, until its host shuts down. Any number
//! of hosts run it on one store; the store's claim keeps them apart.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use index_negotiation_store::{Delivery, DeliveryOutcome, HostStore, UnixTime};

use super::signature::signature_header;
use crate::service::outbound;

/// How a host delivers webhooks.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct WebhookSettings {
    /// Deliver to loopback, private and link-local addresses too: for
    /// development and tests only (a person's endpoint could otherwise
    /// reach into the host's own network).
    pub allow_private: bool,
    /// How long to wait before each retry: the first failure waits the
    /// first, and so on; a failure after the last gives the delivery up
    /// and disables its endpoint. Each wait is jittered by up to a fifth
    /// either way.
    pub retries: Vec<Duration>,
    /// How long one attempt may take, connection and all.
    pub timeout: Duration,
    /// How often the outbox is looked at while it has nothing due.
    pub poll: Duration,
}

impl Default for WebhookSettings {
    /// Standard Webhooks' schedule: retries after 5 seconds, 5 minutes,
    /// 30 minutes, 2, 5, 10 and 10 hours (about 28 hours in all).
    fn default() -> Self {
        let minutes = |n: u64| Duration::from_secs(60 * n);
        WebhookSettings {
            allow_private: false,
            retries: vec![
                Duration::from_secs(5),
                minutes(5),
                minutes(30),
                minutes(120),
                minutes(300),
                minutes(600),
                minutes(600),
            ],
            timeout: Duration::from_secs(15),
            poll: Duration::from_secs(1),
        }
    }
}

/// How many deliveries a host sends at once.
const IN_FLIGHT: usize = 32;

/// How long a claim holds its deliveries: longer than an attempt can take,
/// so a claim lapses only when its host died.
fn lease(settings: &WebhookSettings) -> Duration {
    settings.timeout.saturating_mul(2) + Duration::from_secs(30)
}

/// Delivers the store's webhooks until `shutdown` is cancelled, up to
/// 32 at once: a slow endpoint holds up only its own queue. A
/// delivery under way at shutdown is dropped unfinished: its lease lapses
/// and it is sent again (its `webhook-id` unchanged), by this host after
/// a restart or by another.
///
/// # Errors
///
/// None once running: a store that fails is tried again at the next poll,
/// and logged. Building the HTTP client can fail (no TLS roots); that is
/// returned at once.
pub async fn deliver_webhooks(
    store: Arc<dyn HostStore>,
    settings: WebhookSettings,
    shutdown: CancellationToken,
) -> Result<(), crate::service::error::HostError> {
    let http = outbound::client(settings.timeout, settings.allow_private).map_err(|err| {
        crate::service::error::HostError::BadRequest(format!(
            "cannot build the webhook client: {err}"
        ))
    })?;
    let lease = lease(&settings);
    let settings = Arc::new(settings);
    let mut sending = tokio::task::JoinSet::new();
    loop {
        let room = IN_FLIGHT.saturating_sub(sending.len());
        let claimed = if room == 0 {
            Vec::new()
        } else {
            let claim = store.claim_deliveries(UnixTime::now(), lease, room);
            tokio::select! {
                () = shutdown.cancelled() => return Ok(()),
                claimed = claim => claimed.unwrap_or_else(|err| {
                    tracing::warn!(error = %index_negotiation_store::ErrorChain(&err), "claiming webhook deliveries failed");
                    Vec::new()
                }),
            }
        };
        let claimed_any = !claimed.is_empty();
        for delivery in claimed {
            let (store, http, settings) = (Arc::clone(&store), http.clone(), Arc::clone(&settings));
            sending.spawn(async move { attempt(&*store, &http, &settings, delivery).await });
        }
        if claimed_any {
            continue;
        }
        // Nothing due now: a send that ends may make the next of its queue
        // due; otherwise look again at the next poll.
        tokio::select! {
            () = shutdown.cancelled() => return Ok(()),
            Some(_) = sending.join_next(), if !sending.is_empty() => {}
            () = tokio::time::sleep(settings.poll) => {}
        }
    }
}

/// Why an attempt failed: worth another try, or not (an address the host
/// will not send to, a URL or secret that cannot be used).
#[derive(Debug, PartialEq, Eq)]
enum Failed {
    Retry(String),
    Permanent(String),
}

/// One attempt at `delivery`, recorded in the store.
async fn attempt(
    store: &dyn HostStore,
    http: &reqwest::Client,
    settings: &WebhookSettings,
    delivery: Delivery,
) {
    let span = tracing::info_span!(
        "webhook_delivery",
        endpoint = %delivery.endpoint.id,
        webhook_id = %delivery.message_id,
        event = delivery.kind.as_str(),
        attempt = delivery.attempts + 1,
        outcome = tracing::field::Empty,
    );
    // The request that took the step named the trace; the delivery goes
    // on in it.
    let parent = crate::service::trace_context::TraceContext {
        traceparent: delivery.trace.as_deref(),
        tracestate: None,
    };
    parent.continue_in(&span);
    async {
        let result = post(http, settings, &delivery).await;
        let now = UnixTime::now();
        let outcome = match result {
            Ok(()) => DeliveryOutcome::Delivered,
            Err(failed) => after_failure(settings, delivery.attempts, now, failed),
        };
        let shown = match &outcome {
            DeliveryOutcome::Delivered => "delivered".to_owned(),
            DeliveryOutcome::Retry { error, .. } => format!("retry: {error}"),
            DeliveryOutcome::GiveUp { error } => format!("given up: {error}"),
        };
        tracing::Span::current().record("outcome", shown.as_str());
        if let Err(err) = store.finish_delivery(delivery.seq, now, &outcome).await {
            // The lease lapses and the delivery is sent again: at least once.
            tracing::warn!(error = %index_negotiation_store::ErrorChain(&err), "recording a webhook delivery failed");
        }
    }
    .instrument(span)
    .await;
}

/// What the store records after a failed attempt, the `attempts` made
/// before it: a retry after the next wait of the schedule, or, once the
/// schedule is spent or for a failure no retry mends, the delivery given
/// up.
fn after_failure(
    settings: &WebhookSettings,
    attempts: u32,
    now: UnixTime,
    failed: Failed,
) -> DeliveryOutcome {
    let error = match failed {
        Failed::Permanent(error) => {
            return DeliveryOutcome::GiveUp {
                error: format!("{error} (not retried)"),
            };
        }
        Failed::Retry(error) => error,
    };
    let next = usize::try_from(attempts)
        .ok()
        .and_then(|made| settings.retries.get(made));
    match next {
        Some(wait) => DeliveryOutcome::Retry {
            at: now.after(jittered(*wait)),
            error,
        },
        None => DeliveryOutcome::GiveUp {
            error: format!(
                "gave up after {} attempts; the last: {error}",
                u64::from(attempts) + 1
            ),
        },
    }
}

/// `wait`, moved by a random amount of up to a fifth either way, so the
/// retries of many deliveries that failed together spread out.
fn jittered(wait: Duration) -> Duration {
    let spread = getrandom::u32().unwrap_or(u32::MAX / 2);
    // From 0.8 to 1.2 times the wait.
    let factor = 0.8 + 0.4 * f64::from(spread) / f64::from(u32::MAX);
    Duration::try_from_secs_f64(wait.as_secs_f64() * factor).unwrap_or(wait)
}

/// Posts `delivery` once: `Ok` for a 2xx answer, else what went wrong,
/// never the answer's body (it is not read).
async fn post(
    http: &reqwest::Client,
    settings: &WebhookSettings,
    delivery: &Delivery,
) -> Result<(), Failed> {
    let permanent = |why: &str| Failed::Permanent(why.to_owned());
    let url = reqwest::Url::parse(&delivery.endpoint.url).map_err(|_| permanent("not a URL"))?;
    if !outbound::literal_allowed(&url, settings.allow_private) {
        return Err(permanent(PRIVATE));
    }
    let now = UnixTime::now();
    let secrets = delivery.endpoint.signing_secrets(now);
    let signature = signature_header(&secrets, &delivery.message_id, now.0, &delivery.body)
        .ok_or_else(|| permanent("the endpoint's secret is not whsec_ and base64"))?;
    let mut request = http
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(reqwest::header::USER_AGENT, USER_AGENT)
        .header("webhook-id", &delivery.message_id)
        .header("webhook-timestamp", now.0.to_string())
        .header("webhook-signature", signature);
    for (name, value) in index_stall_gap::trace_headers() {
        request = request.header(name, value);
    }
    let response = request
        .body(delivery.body.clone())
        .send()
        .await
        .map_err(|err| failure(&err))?;
    let status = response.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(Failed::Retry(format!("HTTP {}", status.as_u16())))
    }
}

/// What a delivery to an address the host will not send to fails with.
const PRIVATE: &str = "a private address";

/// What a delivery's user agent says.
const USER_AGENT: &str = concat!("index-host/", env!("CARGO_PKG_VERSION"), " (webhooks)");

/// A failed send in a few words: what kind of failure, never a URL's
/// secrets or a body. A name that resolves to no address the host may
/// send to is not retried.
fn failure(err: &reqwest::Error) -> Failed {
    let mut cause = std::error::Error::source(err);
    while let Some(inner) = cause {
        if inner.to_string().contains(outbound::NO_PUBLIC_ADDRESS) {
            return Failed::Permanent(PRIVATE.to_owned());
        }
        cause = inner.source();
    }
    Failed::Retry(
        if err.is_timeout() {
            "timed out"
        } else if err.is_connect() {
            "could not connect"
        } else {
            "the request failed"
        }
        .to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_follow_the_schedule_jittered_then_give_up() {
        let settings = WebhookSettings::default();
        let now = UnixTime(1_000_000);
        for (made, wait) in settings.retries.iter().enumerate() {
            let failed = Failed::Retry("HTTP 500".to_owned());
            let outcome = after_failure(&settings, made as u32, now, failed);
            let DeliveryOutcome::Retry { at, error } = outcome else {
                panic!("retry {made}: {outcome:?}");
            };
            assert_eq!(error, "HTTP 500");
            let waited = at.0 - now.0;
            let (low, high) = (wait.mul_f64(0.8).as_secs(), wait.mul_f64(1.2).as_secs());
            assert!((low..=high).contains(&waited), "{waited} for {wait:?}");
        }
        let last = u32::try_from(settings.retries.len()).unwrap();
        let outcome = after_failure(&settings, last, now, Failed::Retry("timed out".to_owned()));
        assert_eq!(
            outcome,
            DeliveryOutcome::GiveUp {
                error: "gave up after 8 attempts; the last: timed out".to_owned()
            }
        );
        let private = Failed::Permanent(PRIVATE.to_owned());
        assert_eq!(
            after_failure(&settings, 0, now, private),
            DeliveryOutcome::GiveUp {
                error: "a private address (not retried)".to_owned()
            }
        );
        let total: Duration = settings.retries.iter().sum();
        assert!(total > Duration::from_secs(24 * 3600) && total < Duration::from_secs(30 * 3600));
    }
}
