//! Traces over OTLP: `index serve`'s spans (each request, the tool call,
//! the commit, the model call) exported to a collector when one is named,
//! and nothing at all otherwise.
//!
//! The host continues a client's trace (W3C `traceparent`, from HTTP
//! headers or MCP's `_meta`) and passes it on to the model; what this
//! module adds is the exporter: OpenTelemetry's batch span processor and
//! its OTLP/HTTP (protobuf) exporter, fed from `tracing` spans.

use std::time::Duration;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;

use crate::failure::Failure;

/// The standard variables that name a collector when `--otlp-endpoint`
/// does not: the base URL (the traces path is added to it) and the traces
/// URL itself.
const ENDPOINT_VARIABLES: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
];

/// How long one export may take before the batch is dropped.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest collector answer read (an OTLP answer is a few bytes; the
/// rest of a bigger one is dropped).
const ANSWER_LIMIT: usize = 64 * 1024;

/// The exporter while the host runs; [`Traces::stop`] sends what is left.
pub(crate) struct Traces {
    provider: SdkTracerProvider,
}

impl Traces {
    /// The exporter for `endpoint` (a base URL, as
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` is), else for the collector the
    /// standard variables name; `None` when neither names one. The
    /// standard variables for headers, timeout and batching apply either
    /// way. Must be called inside the runtime the exports are to run on.
    pub(crate) fn start(endpoint: Option<&str>) -> Result<Option<Traces>, Failure> {
        let named_by_environment = ENDPOINT_VARIABLES
            .iter()
            .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()));
        if endpoint.is_none() && !named_by_environment {
            return Ok(None);
        }
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(EXPORT_TIMEOUT)
            .build()
            .map_err(|err| Failure::Usage(format!("cannot export traces: {err}")))?;
        let client = OnRuntime {
            http,
            runtime: tokio::runtime::Handle::current(),
        };
        let mut exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(client)
            .with_timeout(EXPORT_TIMEOUT);
        if let Some(endpoint) = endpoint {
            exporter =
                exporter.with_endpoint(format!("{}/v1/traces", endpoint.trim_end_matches('/')));
        }
        let exporter = exporter
            .build()
            .map_err(|err| Failure::Usage(format!("cannot export traces: {err}")))?;
        let resource = opentelemetry_sdk::Resource::builder()
            .with_service_name("index")
            .build();
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource)
            .build();
        Ok(Some(Traces { provider }))
    }

    /// The tracer spans are exported through.
    pub(crate) fn tracer(&self) -> opentelemetry_sdk::trace::Tracer {
        self.provider.tracer("index")
    }

    /// Sends the spans still batched and stops the exporter, waiting as
    /// long as OpenTelemetry's shutdown does (5 seconds).
    pub(crate) async fn stop(self) {
        let provider = self.provider;
        let stopped = tokio::task::spawn_blocking(move || provider.shutdown());
        match stopped.await {
            Ok(Ok(())) => {}
            Ok(Err(err)) => tracing::warn!(%err, "the last traces were not exported"),
            Err(err) => tracing::warn!(%err, "the last traces were not exported"),
        }
    }
}

/// OTLP's HTTP client, run on the host's runtime: the batch span
/// processor exports from a thread of its own, which drives this client's
/// future by blocking on it, so the request itself is spawned where a
/// reactor runs. No redirects; the answer is read up to [`ANSWER_LIMIT`].
#[derive(Debug)]
struct OnRuntime {
    http: reqwest::Client,
    runtime: tokio::runtime::Handle,
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for OnRuntime {
    async fn send_bytes(
        &self,
        request: http::Request<bytes::Bytes>,
    ) -> Result<http::Response<bytes::Bytes>, opentelemetry_http::HttpError> {
        let request = reqwest::Request::try_from(request)?;
        let http = self.http.clone();
        let sent = self.runtime.spawn(async move {
            let mut response = http.execute(request).await?;
            let mut answer = http::Response::builder().status(response.status());
            if let Some(headers) = answer.headers_mut() {
                *headers = std::mem::take(response.headers_mut());
            }
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await? {
                let room = ANSWER_LIMIT.saturating_sub(body.len());
                body.extend_from_slice(chunk.get(..room.min(chunk.len())).unwrap_or_default());
                if body.len() >= ANSWER_LIMIT {
                    break;
                }
            }
            Ok::<_, opentelemetry_http::HttpError>(answer.body(bytes::Bytes::from(body))?)
        });
        sent.await?
    }
}
