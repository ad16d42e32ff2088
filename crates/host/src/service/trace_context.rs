//! W3C trace context: a client's trace continued in the host's spans, so
//! a collector shows one trace from the client through the commit to the
//! model call. Transports hand over the two values as they carry them (an
//! HTTP header, a field of MCP's `_meta`); with no exporter installed the
//! spans carry no trace and this does nothing.

use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// A `traceparent` and its `tracestate`, as a transport carries them.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TraceContext<'a> {
    /// The W3C `traceparent` (`00-<trace id>-<parent id>-<flags>`).
    pub(crate) traceparent: Option<&'a str>,
    /// The W3C `tracestate`, vendors' entries passed along unread.
    pub(crate) tracestate: Option<&'a str>,
}

impl Extractor for TraceContext<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => self.traceparent,
            "tracestate" => self.tracestate,
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent", "tracestate"]
    }
}

/// The longest `tracestate` passed on (the W3C's advice to vendors: 512
/// characters); a longer one is dropped, the `traceparent` kept, so a
/// client cannot make the host send kilobytes to the model server.
const TRACESTATE_LIMIT: usize = 512;

impl TraceContext<'_> {
    /// The context this names, when it names a valid span (a malformed
    /// or all-zero `traceparent` names none, as the W3C rules say).
    fn extracted(&self) -> Option<opentelemetry::Context> {
        // Most requests name no trace: nothing to parse.
        self.traceparent?;
        let bounded = TraceContext {
            traceparent: self.traceparent,
            tracestate: self
                .tracestate
                .filter(|state| state.len() <= TRACESTATE_LIMIT),
        };
        let context = TraceContextPropagator::new().extract(&bounded);
        context.span().span_context().is_remote().then_some(context)
    }

    /// Whether this names a valid span to continue.
    pub(crate) fn names_a_span(&self) -> bool {
        self.extracted().is_some()
    }

    /// Makes `span` a child of the span this names, when it names a valid
    /// one; otherwise `span` keeps the parent it has.
    pub(crate) fn continue_in(&self, span: &tracing::Span) {
        if let Some(context) = self.extracted() {
            // Fails only once the span has closed, before which every
            // caller here sets it.
            let _ = span.set_parent(context);
        }
    }
}

/// The `traceparent` of the current span, when it is in a trace: kept
/// with a step so its webhook deliveries continue the request's trace.
pub(crate) fn current_traceparent() -> Option<String> {
    index_stall_gap::trace_headers()
        .into_iter()
        .find_map(|(name, value)| (name == "traceparent").then_some(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(traceparent: &str) -> bool {
        let given = TraceContext {
            traceparent: Some(traceparent),
            tracestate: None,
        };
        TraceContextPropagator::new()
            .extract(&given)
            .span()
            .span_context()
            .is_remote()
    }

    #[test]
    fn an_overlong_tracestate_is_dropped_and_the_parent_kept() {
        let long = "vendor=".to_owned() + &"x".repeat(TRACESTATE_LIMIT);
        let given = TraceContext {
            traceparent: Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
            tracestate: Some(&long),
        };
        let context = given.extracted().expect("the parent is kept");
        let span = context.span();
        assert_eq!(span.span_context().trace_state().header(), "");
        let short = TraceContext {
            tracestate: Some("vendor=1"),
            ..given
        };
        let context = short.extracted().expect("a parent");
        assert_eq!(
            context.span().span_context().trace_state().header(),
            "vendor=1"
        );
    }

    #[test]
    fn only_a_well_formed_traceparent_names_a_parent() {
        assert!(remote(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        ));
        for bad in [
            "",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01\n",
            "not a traceparent",
        ] {
            assert!(!remote(bad), "{bad:?}");
        }
    }
}
