//! Where the tool's logs go.

use tracing_subscriber::filter::{EnvFilter, FilterExt, filter_fn};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::{Layer, Registry};

/// Libraries that log what they carry (rmcp logs every tool call's
/// arguments and result, message bodies and whole negotiation logs, at
/// debug), capped at `info` whatever `RUST_LOG` asks, for their modules
/// too: the host never logs a key or a message body.
const CAPPED: &[&str] = &["rmcp"];

/// Logs go to standard error (standard output is a command's product, and
/// the MCP transport under `serve --mcp-stdio`), at `RUST_LOG`'s level,
/// `default` when it is unset.
pub(crate) fn init_logging(default: &str) {
    init_logging_and_traces(default, None);
}

/// [`init_logging`], and the project's own spans at `info` and above
/// exported through `traces` when there is one, whatever `RUST_LOG` says:
/// what is traced does not depend on what is logged, and no library's
/// spans (rmcp's carry message bodies) are exported.
pub(crate) fn init_logging_and_traces(default: &str, traces: Option<&crate::traces::Traces>) {
    let levels = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let exported = traces.map(|traces| {
        tracing_opentelemetry::layer()
            .with_tracer(traces.tracer())
            .with_filter(filter_fn(|metadata| {
                metadata.target().starts_with("index_") && *metadata.level() <= tracing::Level::INFO
            }))
    });
    let subscriber = subscriber(levels, std::io::stderr).with(exported);
    let _ = tracing::subscriber::set_global_default(subscriber);
}

/// Plain-text events to `writer`, at `levels`, with [`CAPPED`] held at
/// `info`.
fn subscriber<W>(
    levels: EnvFilter,
    writer: W,
) -> impl tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let capped = filter_fn(|event| {
        let target = event.target();
        let carries = CAPPED.iter().any(|name| {
            target
                .strip_prefix(name)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
        });
        !carries || *event.level() <= tracing::Level::INFO
    });
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(writer)
        .with_ansi(false)
        .with_filter(levels.and(capped));
    Registry::default().with(layer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// What is written under `requested`, when a debug event of rmcp's and
    /// one of the host's are logged.
    fn written(requested: &str) -> String {
        let out = Arc::new(Mutex::new(Vec::new()));
        let sink = out.clone();
        let subscriber = subscriber(EnvFilter::new(requested), move || Writer(sink.clone()));
        tracing::subscriber::with_default(subscriber, || {
            tracing::debug!(target: "rmcp::service", "a message body");
            tracing::trace!(target: "rmcp", "a tool result");
            tracing::debug!(target: "index_host", "a host event");
        });
        let bytes = out.lock().map(|bytes| bytes.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    struct Writer(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Writer {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if let Ok(mut out) = self.0.lock() {
                out.extend_from_slice(buf);
            }
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn rmcp_never_logs_below_info_whatever_rust_log_says() {
        for requested in [
            "trace",
            "debug",
            "rmcp=trace",
            "trace,rmcp=trace",
            "rmcp::service=trace",
        ] {
            let out = written(requested);
            assert!(!out.contains("a message body"), "{requested}: {out}");
            assert!(!out.contains("a tool result"), "{requested}: {out}");
        }
        assert!(written("trace").contains("a host event"));
    }
}
