//! The OpenTelemetry side (feature `otel`): trace context through `_meta`, the duration
//! histograms, and [`Telemetry`], the SDK and OTLP exporter set up from `OTEL_*`.

pub(crate) mod metrics;
pub(crate) mod propagation;

use std::fmt;

use opentelemetry::global;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::registry::LookupSpan;

/// The instrumentation scope of our spans and metrics.
const SCOPE: &str = "mcp";

/// OpenTelemetry set up from the standard environment variables: W3C trace context as the
/// global propagator, a tracer provider whose spans a [`layer`](Self::layer)
/// feeds, and a meter provider recording the MCP duration histograms. Spans and metrics
/// go to an OTLP/HTTP exporter (JSON or protobuf bodies) on their own threads.
///
/// Variables read (by this crate or by the OpenTelemetry SDK):
///
/// | variable | effect |
/// |---|---|
/// | `OTEL_SDK_DISABLED=true` | nothing is set up |
/// | `OTEL_TRACES_EXPORTER` | `otlp` (the default) or `none` (spans are made, not exported) |
/// | `OTEL_METRICS_EXPORTER` | `otlp` (the default) or `none` (no histograms) |
/// | `OTEL_EXPORTER_OTLP_ENDPOINT` | the collector's base URL (`http://localhost:4318` by default): `/v1/traces` and `/v1/metrics` are appended |
/// | `OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT` | a signal's URL, used as given |
/// | `OTEL_EXPORTER_OTLP_PROTOCOL` | `http/json` (the default here) or `http/protobuf` |
/// | `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT` | headers (`k=v,…`) and timeout (ms) of each export |
/// | `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` | the resource (the service name defaults to the one given) |
/// | `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_METRIC_EXPORT_INTERVAL` | how often spans (5 s) and metrics (60 s) are sent |
/// | `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG` | sampling (`parentbased_always_on` by default) |
///
/// The exporter speaks plain `http://` (a collector is normally local). Keep the value
/// until the program ends: dropping it, or [`shutdown`](Self::shutdown), flushes what is
/// pending, which blocks for up to 5 s per signal; in async code, shut it down with
/// `tokio::task::spawn_blocking` rather than dropping it on a runtime thread.
///
/// ```
/// use tracing_subscriber::layer::SubscriberExt;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # // SAFETY: the doctest is single-threaded here.
/// # unsafe { std::env::set_var("OTEL_SDK_DISABLED", "true") };
/// let telemetry = mcp::telemetry::Telemetry::from_env("my-server")?;
/// let subscriber = tracing_subscriber::registry().with(telemetry.layer());
/// tracing::subscriber::set_global_default(subscriber)?;
/// // ... serve ...
/// telemetry.shutdown()?;
/// # Ok(())
/// # }
/// ```
#[must_use = "dropping the telemetry shuts its exporters down"]
pub struct Telemetry {
    tracer: Option<SdkTracerProvider>,
    meter: Option<SdkMeterProvider>,
}

impl fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Telemetry")
            .field("traces", &self.tracer.is_some())
            .field("metrics", &self.meter.is_some())
            .finish()
    }
}

/// What went wrong setting up or shutting down [`Telemetry`].
#[derive(Debug)]
#[non_exhaustive]
pub struct TelemetryError {
    kind: TelemetryErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// The kind of a [`TelemetryError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TelemetryErrorKind {
    /// An `OTEL_*` variable has a value this crate or the SDK does not accept.
    Config,
    /// The SDK could not export or shut down.
    Export,
}

impl TelemetryError {
    /// What kind of error this is.
    pub fn kind(&self) -> TelemetryErrorKind {
        self.kind
    }

    fn config(message: impl Into<String>) -> Self {
        TelemetryError { kind: TelemetryErrorKind::Config, message: message.into(), source: None }
    }

    fn with_source(
        kind: TelemetryErrorKind,
        message: &str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        TelemetryError { kind, message: message.to_owned(), source: Some(Box::new(source)) }
    }
}

impl fmt::Display for TelemetryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TelemetryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// Which exporter a signal's `OTEL_*_EXPORTER` variable asks for.
fn exporter_of(var: &str) -> Result<bool, TelemetryError> {
    match std::env::var(var).ok().as_deref().map(str::trim) {
        None | Some("") | Some("otlp") => Ok(true),
        Some("none") => Ok(false),
        Some(_) => Err(TelemetryError::config(format!("{var}: must be otlp or none"))),
    }
}

fn env_is_set(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| !v.trim().is_empty())
}

impl Telemetry {
    /// Set up OpenTelemetry from the environment (see the table above), naming the
    /// service `service_name` unless `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES`
    /// names it. Call it once, inside or outside an async runtime.
    ///
    /// # Errors
    ///
    /// [`TelemetryErrorKind::Config`] when a variable is malformed (an unknown exporter or
    /// protocol, `grpc` included; an invalid endpoint URL).
    pub fn from_env(service_name: &str) -> Result<Telemetry, TelemetryError> {
        if std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.trim().eq_ignore_ascii_case("true")) {
            return Ok(Telemetry { tracer: None, meter: None });
        }
        for var in
            ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"]
        {
            // The SDK would warn about another value and send JSON anyway.
            if let Ok(value) = std::env::var(var)
                && !matches!(value.trim().to_ascii_lowercase().as_str(), "" | "http/json" | "http/protobuf")
            {
                return Err(TelemetryError::config(format!("{var}: must be http/json or http/protobuf")));
            }
        }
        let export_traces = exporter_of("OTEL_TRACES_EXPORTER")?;
        let export_metrics = exporter_of("OTEL_METRICS_EXPORTER")?;
        global::set_text_map_propagator(TraceContextPropagator::new());
        let mut resource = Resource::builder();
        let named_by_env = env_is_set("OTEL_SERVICE_NAME")
            || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|v| v.contains("service.name="));
        if !named_by_env {
            resource = resource.with_service_name(service_name.to_owned());
        }
        let resource = resource.build();
        let invalid =
            |e| TelemetryError::with_source(TelemetryErrorKind::Config, "the OTLP exporter's configuration", e);
        let mut traces = SdkTracerProvider::builder().with_resource(resource.clone());
        if export_traces {
            let exporter = opentelemetry_otlp::SpanExporter::builder().with_http().build().map_err(invalid)?;
            traces = traces.with_batch_exporter(exporter);
        }
        let meter = if export_metrics {
            let exporter = opentelemetry_otlp::MetricExporter::builder().with_http().build().map_err(invalid)?;
            let provider = SdkMeterProvider::builder().with_resource(resource).with_periodic_exporter(exporter).build();
            global::set_meter_provider(provider.clone());
            metrics::install(&global::meter(SCOPE));
            Some(provider)
        } else {
            None
        };
        Ok(Telemetry { tracer: Some(traces.build()), meter })
    }

    /// The `tracing` layer that turns spans into OpenTelemetry spans (none when the SDK
    /// is disabled). Filter it as you like: the MCP spans are on the target
    /// `mcp::telemetry` at INFO.
    pub fn layer<S>(&self) -> Option<Box<dyn tracing_subscriber::Layer<S> + Send + Sync + 'static>>
    where
        S: tracing::Subscriber + for<'span> LookupSpan<'span> + Send + Sync,
    {
        let tracer = self.tracer.as_ref()?.tracer(SCOPE);
        let layer = tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_location(false)
            .with_threads(false)
            .with_target(false)
            .with_tracked_inactivity(false);
        Some(Box::new(layer))
    }

    /// Export what is pending and stop the exporters. It blocks for the export (5 s at
    /// most per signal).
    ///
    /// # Errors
    ///
    /// [`TelemetryErrorKind::Export`] when an exporter could not finish.
    pub fn shutdown(mut self) -> Result<(), TelemetryError> {
        self.stop()
    }

    fn stop(&mut self) -> Result<(), TelemetryError> {
        let mut result = Ok(());
        if let Some(tracer) = self.tracer.take()
            && let Err(e) = tracer.shutdown()
        {
            result = Err(TelemetryError::with_source(TelemetryErrorKind::Export, "shutting the span exporter down", e));
        }
        if let Some(meter) = self.meter.take()
            && let Err(e) = meter.shutdown()
        {
            result =
                Err(TelemetryError::with_source(TelemetryErrorKind::Export, "shutting the metric exporter down", e));
        }
        result
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            tracing::warn!(error = %e, "telemetry did not shut down cleanly");
        }
    }
}

/// Record the MCP duration histograms (`mcp.server.operation.duration`,
/// `mcp.client.operation.duration`) with `meter`: for when you set up OpenTelemetry
/// yourself rather than with [`Telemetry::from_env`]. Until a meter is given (here or by
/// `from_env`) no duration is measured; the first one given stays.
///
/// ```
/// use opentelemetry::metrics::MeterProvider as _;
///
/// let provider = opentelemetry_sdk::metrics::SdkMeterProvider::builder().build();
/// mcp::telemetry::record_metrics_with(&provider.meter("my-server"));
/// ```
pub fn record_metrics_with(meter: &opentelemetry::metrics::Meter) {
    metrics::install(meter);
}

/// The OpenTelemetry trace id of `span` (32 hex digits), when it has a valid one: to
/// correlate a call with its trace, e.g. in a log line.
pub fn trace_id(span: &tracing::Span) -> Option<String> {
    use opentelemetry::trace::TraceContextExt as _;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;
    let context = span.context();
    let span_context = context.span().span_context().clone();
    span_context.is_valid().then(|| span_context.trace_id().to_string())
}
