//! W3C trace context in `params._meta` (`traceparent`, `tracestate`), by the globally
//! configured propagator ([`Telemetry::from_env`](super::Telemetry::from_env) installs W3C
//! trace context; not baggage, which would carry a caller's entries into the server's own
//! outgoing requests).

#[cfg(feature = "server")]
use opentelemetry::Context;
use opentelemetry::global;
#[cfg(feature = "server")]
use opentelemetry::propagation::Extractor;
#[cfg(feature = "client")]
use opentelemetry::propagation::Injector;
use opentelemetry::trace::TraceContextExt;
use serde_json::Value;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::protocol::JsonObject;

/// Reads a request's `_meta` (string values only).
#[cfg(feature = "server")]
struct MetaExtractor<'a>(&'a JsonObject);

#[cfg(feature = "server")]
impl Extractor for MetaExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// Writes into a request's `_meta`.
#[cfg(feature = "client")]
struct MetaInjector<'a>(&'a mut JsonObject);

#[cfg(feature = "client")]
impl Injector for MetaInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        // The trace-context propagator writes an empty `tracestate`; leave it out.
        if !value.is_empty() {
            self.0.insert(key.to_owned(), Value::String(value));
        }
    }
}

/// Make the trace context in `params._meta`, when there is a valid one, the parent of
/// `span` (before it starts). Whatever is malformed there is ignored: the span stays
/// where it was.
#[cfg(feature = "server")]
pub(crate) fn adopt_parent(span: &tracing::Span, params: Option<&crate::protocol::Params>) {
    // Most requests carry no trace context: asked of `_meta`'s text, without building it.
    let Some(params) = params.filter(|p| p.meta_fields(&["traceparent"])[0].is_some()) else { return };
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else { return };
    // From an empty context: extracting into the current one would make an ambient span
    // look like a remote parent when the `_meta` one is invalid.
    let remote = global::get_text_map_propagator(|p| p.extract_with_context(&Context::new(), &MetaExtractor(meta)));
    if remote.span().span_context().is_valid() {
        let _ = span.set_parent(remote);
    }
}

/// Put `span`'s trace context into `params._meta`, so that the peer's span becomes its
/// child.
#[cfg(feature = "client")]
pub(crate) fn inject(span: &tracing::Span, params: &mut JsonObject) {
    if span.is_disabled() {
        return;
    }
    let cx = span.context();
    if !cx.span().span_context().is_valid() {
        return;
    }
    let meta = params.entry("_meta").or_insert_with(|| Value::Object(JsonObject::new()));
    if let Value::Object(meta) = meta {
        global::get_text_map_propagator(|p| p.inject_context(&cx, &mut MetaInjector(meta)));
    }
}
