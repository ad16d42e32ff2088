//! What `GET /metrics` tells an operator, in Prometheus's text format:
//! requests by route and status with their latency, commits and refusals
//! by code, waits in flight, parks and answers by outcome, MCP sessions,
//! the MCP tasks whose work runs here, and the question judge's verdicts,
//! time and tokens when the host has one. Counted in memory, per process; prometheus-client keeps the
//! families and writes the exposition.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use index_stall_gap::StallGapAuthor;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// One answered request.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    route: &'static str,
    status: u16,
}

/// A route, for latency.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: &'static str,
}

/// A commit: which operation, and `ok` or the rules' refusal code.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CommitLabels {
    operation: &'static str,
    outcome: &'static str,
}

/// A park's or an answer's outcome, by its wire name.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: String,
}

/// The host's metrics.
pub(crate) struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram, fn() -> Histogram>,
    commits: Family<CommitLabels, Counter>,
    waits: Gauge,
    /// Told each time a wait ends, for a shutdown waiting on the last one.
    wait_ended: tokio::sync::Notify,
    parks: Family<OutcomeLabels, Counter>,
    answers: Family<OutcomeLabels, Counter>,
    sessions: Gauge,
    tasks: Gauge,
    /// Counts the MCP service's open sessions when the metrics are read.
    session_count: OnceLock<SessionCount>,
}

/// How many MCP sessions are open, asked when the metrics are read.
pub(crate) type SessionCount = Arc<dyn Fn() -> usize + Send + Sync>;

/// Latency buckets from half a millisecond to about 16 seconds.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

impl Metrics {
    /// The host's metrics; with the judge's figures too when `author` has
    /// one (read from it at each scrape: the judge keeps its own counts).
    pub(crate) fn new(author: Option<Arc<dyn StallGapAuthor>>) -> Self {
        let mut registry = Registry::with_prefix("index");
        if let Some(author) = author.filter(|author| author.judge().is_some()) {
            registry.register_collector(Box::new(JudgeCollector(author)));
        }
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by method, route and status",
            requests.clone(),
        );
        let latency = Family::<RouteLabels, Histogram, fn() -> Histogram>::new_with_constructor(
            latency_histogram,
        );
        registry.register(
            "http_request_duration_seconds",
            "How long requests took to answer, by route",
            latency.clone(),
        );
        let commits = Family::<CommitLabels, Counter>::default();
        registry.register(
            "commits",
            "Turns, resumes, opens and closes, by outcome: ok or the refusal's code",
            commits.clone(),
        );
        let waits = Gauge::default();
        registry.register(
            "waits_in_flight",
            "Waits for a change under way",
            waits.clone(),
        );
        let parks = Family::<OutcomeLabels, Counter>::default();
        registry.register("parks", "Parks asked for, by outcome", parks.clone());
        let answers = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "answers",
            "Answers delivered to negotiations, by outcome",
            answers.clone(),
        );
        let sessions = Gauge::default();
        registry.register("mcp_sessions", "MCP sessions open", sessions.clone());
        let tasks = Gauge::default();
        registry.register(
            "mcp_tasks_running",
            "MCP tasks whose work runs on this host",
            tasks.clone(),
        );
        Metrics {
            registry,
            requests,
            latency,
            commits,
            waits,
            wait_ended: tokio::sync::Notify::new(),
            parks,
            answers,
            sessions,
            tasks,
            session_count: OnceLock::new(),
        }
    }
}

/// The question judge's figures, as counters: questions by verdict, the
/// seconds its model took and the tokens it was billed.
struct JudgeCollector(Arc<dyn StallGapAuthor>);

impl std::fmt::Debug for JudgeCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("JudgeCollector").finish_non_exhaustive()
    }
}

/// The judge's questions, by verdict.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct VerdictLabels {
    verdict: &'static str,
}

/// The judge's tokens, by kind.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TokenLabels {
    kind: &'static str,
}

impl Collector for JudgeCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> std::fmt::Result {
        let Some(stats) = self.0.judge().map(|judge| judge.stats()) else {
            return Ok(());
        };
        let counter = MetricType::Counter;
        let mut questions = encoder.encode_descriptor(
            "gate_judge_questions",
            "Questions the judge was asked about, by verdict: safe, unsafe, or failed (its model failed, timed out or answered out of shape)",
            None,
            counter,
        )?;
        for (verdict, count) in [
            ("safe", stats.safe),
            ("unsafe", stats.refused),
            ("failed", stats.failed),
        ] {
            ConstCounter::new(count)
                .encode(questions.encode_family(&VerdictLabels { verdict })?)?;
        }
        ConstCounter::new(stats.passed_on_failure).encode(encoder.encode_descriptor(
            "gate_judge_passed_on_failure",
            "Questions let through on the rules alone because the judge failed and fails open",
            None,
            counter,
        )?)?;
        let mut tokens = encoder.encode_descriptor(
            "gate_judge_tokens",
            "Tokens the judge's model server billed, by kind",
            None,
            counter,
        )?;
        for (kind, count) in [
            ("prompt", stats.prompt_tokens),
            ("completion", stats.completion_tokens),
        ] {
            ConstCounter::new(count).encode(tokens.encode_family(&TokenLabels { kind })?)?;
        }
        ConstCounter::new(stats.seconds).encode(encoder.encode_descriptor(
            "gate_judge_seconds",
            "Seconds spent waiting for the judge's model",
            None,
            counter,
        )?)
    }
}

impl Metrics {
    /// Counts an answered request and its latency, labelled as
    /// [`request_labels`] read it before the request was handed on.
    pub(crate) fn request(
        &self,
        (method, route): (&'static str, &'static str),
        status: u16,
        took: Duration,
    ) {
        self.requests
            .get_or_create(&RequestLabels {
                method,
                route,
                status,
            })
            .inc();
        self.latency
            .get_or_create(&RouteLabels { route })
            .observe(took.as_secs_f64());
    }

    /// Counts a commit of `operation` that ended in `outcome` (`ok`, or
    /// the refusal's code).
    pub(crate) fn commit(&self, operation: &'static str, outcome: &'static str) {
        self.commits
            .get_or_create(&CommitLabels { operation, outcome })
            .inc();
    }

    /// A wait under way until the guard is dropped.
    pub(crate) fn wait(&self) -> WaitGuard<'_> {
        self.waits.inc();
        WaitGuard(self)
    }

    /// An MCP task whose work runs here until the guard is dropped.
    pub(crate) fn task(&self) -> TaskGuard<'_> {
        self.tasks.inc();
        TaskGuard(self)
    }

    /// Resolves once no wait is under way.
    pub(crate) async fn waits_ended(&self) {
        loop {
            let ended = self.wait_ended.notified();
            let mut ended = std::pin::pin!(ended);
            // Registered before the count is read, so an end between the
            // two is not missed.
            ended.as_mut().enable();
            if self.waits.get() <= 0 {
                return;
            }
            ended.await;
        }
    }

    /// Counts a park that ended in `outcome`.
    pub(crate) fn park(&self, outcome: &str) {
        let outcome = outcome.to_owned();
        self.parks.get_or_create(&OutcomeLabels { outcome }).inc();
    }

    /// Counts each negotiation's answer in `report` by its outcome, named
    /// as the report itself names it on the wire.
    pub(crate) fn answers(&self, report: &index_negotiation_store::DeliveryReport) {
        for line in &report.negotiations {
            let named = serde_json::to_value(&line.outcome).ok();
            if let Some(outcome) = named.as_ref().and_then(|o| o["outcome"].as_str()) {
                let outcome = outcome.to_owned();
                self.answers.get_or_create(&OutcomeLabels { outcome }).inc();
            }
        }
    }

    /// Has `count` give the number of open MCP sessions each time the
    /// metrics are read.
    pub(crate) fn watch_sessions(&self, count: SessionCount) {
        // A host served twice keeps the first; both count the same way.
        let _ = self.session_count.set(count);
    }

    /// The metrics in Prometheus's text exposition format.
    pub(crate) async fn render(&self) -> String {
        if let Some(count) = self.session_count.get() {
            let open = count();
            self.sessions.set(i64::try_from(open).unwrap_or(i64::MAX));
        }
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

/// Holds a wait in the in-flight gauge.
pub(crate) struct WaitGuard<'a>(&'a Metrics);

impl Drop for WaitGuard<'_> {
    fn drop(&mut self) {
        self.0.waits.dec();
        self.0.wait_ended.notify_waiters();
    }
}

/// Holds a task in the running gauge.
pub(crate) struct TaskGuard<'a>(&'a Metrics);

impl Drop for TaskGuard<'_> {
    fn drop(&mut self) {
        self.0.tasks.dec();
    }
}

/// A request's method and route as labels, both from a fixed set, so what
/// a client sends can never add a label: a method HTTP does not define
/// (or this host never serves) is `other`, like an unknown path.
pub(crate) fn request_labels(request: &axum::extract::Request) -> (&'static str, &'static str) {
    use axum::http::Method;
    let method = match *request.method() {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        _ => "other",
    };
    (method, route_of(request.uri().path()))
}

/// The route a path belongs to, with ids left out so a label never holds
/// one; any other path is `other`.
fn route_of(path: &str) -> &'static str {
    const FIXED: [&str; 10] = [
        "/negotiations",
        "/answers",
        "/mcp",
        "/healthz",
        "/readyz",
        "/metrics",
        "/session",
        "/questions",
        "/events",
        "/openapi.json",
    ];
    if let Some(route) = FIXED.iter().find(|route| **route == path) {
        return route;
    }
    // The inbox's files, one label for them all.
    if path == "/inbox" || path.starts_with("/inbox/") {
        return "/inbox";
    }
    let mut parts = path.trim_start_matches('/').split('/');
    match (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) {
        (Some("opportunities"), Some(_), Some("negotiation"), rest, None) => match rest {
            None => "/opportunities/{id}/negotiation",
            Some("turns") => "/opportunities/{id}/negotiation/turns",
            Some("resume") => "/opportunities/{id}/negotiation/resume",
            Some("close") => "/opportunities/{id}/negotiation/close",
            Some("messages") => "/opportunities/{id}/negotiation/messages",
            Some("park") => "/opportunities/{id}/negotiation/park",
            Some(_) => "other",
        },
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_method_a_client_makes_up_is_other() {
        let request = |method: &str| {
            axum::extract::Request::builder()
                .method(method)
                .uri("/negotiations")
                .body(axum::body::Body::empty())
                .unwrap()
        };
        assert_eq!(request_labels(&request("POST")), ("POST", "/negotiations"));
        assert_eq!(request_labels(&request("BREW")), ("other", "/negotiations"));
    }

    #[test]
    fn routes_never_carry_an_id() {
        for (path, route) in [
            ("/negotiations", "/negotiations"),
            (
                "/opportunities/0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36/negotiation",
                "/opportunities/{id}/negotiation",
            ),
            (
                "/opportunities/anything/negotiation/turns",
                "/opportunities/{id}/negotiation/turns",
            ),
            ("/opportunities/x/negotiation/turns/extra", "other"),
            ("/opportunities/x/negotiation/nope", "other"),
            ("/nope/0c6e9a52", "other"),
            ("/mcp", "/mcp"),
            ("/inbox/pkg/index.js", "/inbox"),
            ("/inboxes", "other"),
        ] {
            assert_eq!(route_of(path), route, "{path}");
        }
    }
}
