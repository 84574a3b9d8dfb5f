//! The `otel` feature end to end, caught by the SDK's in-memory exporters: a two-round
//! tool call as one trace (the client's call span, one client span per round, each the
//! remote parent of the server span that served it, the resolver spans under those), the
//! attributes of each, what a caller's mistake and a tool error look like, a malformed
//! `traceparent` ignored, and the duration histograms.
//!
//! Each test installs its own tracer provider and subscriber (`set_default`) on a
//! current-thread runtime, so the in-process server's task reports to it and tests do not
//! see each other's spans. The meter is process-wide (the first one installed stays):
//! only the metrics test reads it, by tool names no other test uses.

use std::future::Future;
use std::sync::OnceLock;

use mcp::client::{Asker, CallOptions, Client, ClientError};
use mcp::protocol::{ElicitRequestParams, ElicitResult, JsonObject};
use mcp::resolve::Elicit;
use mcp::{Resolve, Server};
use opentelemetry::trace::{SpanId, SpanKind, Status, TraceId, TracerProvider as _};
use opentelemetry::{Value as OtelValue, global};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, HistogramDataPoint, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt as _;

/// What the elicitation handler answers for the passphrase: it must not appear in any span.
const PASSPHRASE: &str = "correct-horse-battery-staple";
/// The tool's argument: not recorded either.
const SERVICE: &str = "billing-svc-arg";

#[derive(serde::Deserialize, mcp::ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Deserialize, mcp::ElicitForm)]
struct Passphrase {
    phrase: String,
}

#[mcp::resolver(key = "confirm")]
fn ask_confirm() -> Elicit<Confirm> {
    Elicit::new("Deploy?")
}

#[mcp::resolver(key = "passphrase")]
fn ask_passphrase() -> Elicit<Passphrase> {
    Elicit::new("Passphrase?")
}

/// Deploy a service once confirmed, with a passphrase: two questions, one round.
#[mcp::tool]
fn deploy(service: String, go: Resolve<ask_confirm>, secret: Resolve<ask_passphrase>) -> String {
    format!("deployed {service}: {}, {} chars", go.ok, secret.phrase.len())
}

/// The same tool under another name, for the metrics test alone.
#[mcp::tool]
fn deploy_metered(service: String, go: Resolve<ask_confirm>, secret: Resolve<ask_passphrase>) -> String {
    format!("deployed {service}: {}, {} chars", go.ok, secret.phrase.len())
}

/// Always fails, as a tool (`isError`).
#[mcp::tool]
fn broken() -> Result<String, String> {
    Err("the disk is full".into())
}

fn server() -> Server {
    Server::builder("telemetry", "1.0.0").tool::<deploy>().tool::<deploy_metered>().tool::<broken>().build()
}

/// Answers every form: `ok` true, any other field the passphrase.
fn answer(_asker: Asker, params: ElicitRequestParams) -> impl Future<Output = Result<ElicitResult, mcp::Error>> {
    let content: JsonObject = match &params {
        ElicitRequestParams::Form(form) => form
            .requested_schema
            .properties
            .keys()
            .map(|k| (k.clone(), if k == "ok" { Value::Bool(true) } else { Value::String(PASSPHRASE.into()) }))
            .collect(),
        ElicitRequestParams::Url(_) => JsonObject::new(),
    };
    async move { Ok(ElicitResult::accept(content)) }
}

async fn client(server: &Server) -> Client {
    Client::builder().elicitation(answer).connect_in_process(server).await.expect("connect in process")
}

/// A tracer provider exporting into memory, and a subscriber feeding it the MCP spans,
/// for this thread.
struct Traces {
    exporter: InMemorySpanExporter,
    provider: SdkTracerProvider,
    _guard: tracing::subscriber::DefaultGuard,
}

impl Traces {
    fn install() -> Self {
        global::set_text_map_propagator(TraceContextPropagator::new());
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
        let layer = tracing_opentelemetry::layer()
            .with_tracer(provider.tracer("telemetry-test"))
            .with_filter(Targets::new().with_target(mcp::telemetry::TARGET, tracing::Level::INFO));
        let guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
        Traces { exporter, provider, _guard: guard }
    }

    fn spans(&self) -> Vec<SpanData> {
        self.provider.force_flush().expect("flush spans");
        self.exporter.get_finished_spans().expect("finished spans")
    }
}

/// Run `work` on a current-thread runtime (the in-process server's task included).
fn run<F: Future>(work: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async { tokio::time::timeout(std::time::Duration::from_secs(20), work).await.expect("hung") })
}

fn attr<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| &kv.value)
}

#[track_caller]
fn text(span: &SpanData, key: &str) -> String {
    match attr(span, key) {
        Some(value) => value.as_str().into_owned(),
        None => panic!("`{}` has no {key}: {:?}", span.name, span.attributes),
    }
}

#[track_caller]
fn int(span: &SpanData, key: &str) -> i64 {
    match attr(span, key) {
        Some(OtelValue::I64(n)) => *n,
        other => panic!("`{}`: {key} is not an int: {other:?}", span.name),
    }
}

#[track_caller]
fn absent(span: &SpanData, key: &str) {
    assert!(attr(span, key).is_none(), "`{}` should have no {key}: {:?}", span.name, attr(span, key));
}

/// The spans of `kind` named `name`.
fn named<'a>(spans: &'a [SpanData], kind: &SpanKind, name: &str) -> Vec<&'a SpanData> {
    spans.iter().filter(|s| s.span_kind == *kind && s.name == name).collect()
}

/// The only span of `kind` named `name`.
#[track_caller]
fn one<'a>(spans: &'a [SpanData], kind: SpanKind, name: &str) -> &'a SpanData {
    match named(spans, &kind, name).as_slice() {
        [span] => span,
        other => panic!("expected one {kind:?} span `{name}`, got {}: {:#?}", other.len(), names(spans)),
    }
}

fn names(spans: &[SpanData]) -> Vec<String> {
    spans.iter().map(|s| format!("{:?} {}", s.span_kind, s.name)).collect()
}

/// Whether `child`'s parent is `parent`, in the same trace.
fn is_child(child: &SpanData, parent: &SpanData) -> bool {
    child.parent_span_id == parent.span_context.span_id()
        && child.span_context.trace_id() == parent.span_context.trace_id()
}

#[test]
fn a_two_round_call_is_one_trace_from_the_client_to_the_resolvers() {
    let traces = Traces::install();
    let text_result = run(async {
        let server = server();
        let client = client(&server).await;
        let result = client.call_tool("deploy", json!({"service": SERVICE})).await.expect("deploy");
        result.content[0].as_text().map(str::to_owned)
    });
    assert_eq!(text_result.as_deref(), Some(format!("deployed {SERVICE}: true, 28 chars").as_str()));
    let spans = traces.spans();

    // The client's span around the call: internal, both rounds.
    let call = one(&spans, SpanKind::Internal, "tools/call deploy");
    assert_eq!(int(call, "mcp.rounds"), 2);
    assert_eq!(text(call, "gen_ai.tool.name"), "deploy");
    assert_eq!(call.parent_span_id, SpanId::INVALID, "the call is the root");
    let trace = call.span_context.trace_id();

    // One client span per round, children of the call.
    let mut sent = named(&spans, &SpanKind::Client, "tools/call deploy");
    sent.sort_by_key(|s| int(s, "mcp.round"));
    let [first, second] = sent.as_slice() else { panic!("two rounds sent: {:#?}", names(&spans)) };
    for (round, span) in [(1, first), (2, second)] {
        assert_eq!(int(span, "mcp.round"), round);
        assert!(is_child(span, call), "round {round} sent under the call");
        assert_eq!(text(span, "gen_ai.tool.name"), "deploy");
        assert_eq!(text(span, "gen_ai.operation.name"), "execute_tool");
        assert_eq!(text(span, "mcp.method.name"), "tools/call");
        assert_eq!(text(span, "network.transport"), "pipe");
        assert_eq!(span.status, Status::Unset);
    }
    assert_eq!(text(first, "mcp.result"), "input_required");
    assert_eq!(text(first, "mcp.input_required.keys"), "confirm,passphrase");
    assert_eq!(text(second, "mcp.result"), "complete");
    absent(second, "mcp.input_required.keys");
    let (first_id, second_id) = (text(first, "jsonrpc.request.id"), text(second, "jsonrpc.request.id"));
    assert_ne!(first_id, second_id, "each round is its own request");

    // One server span per round, each the child of the client span that sent it: the
    // `traceparent` travelled in `_meta`.
    let mut served = named(&spans, &SpanKind::Server, "tools/call deploy");
    served.sort_by_key(|s| int(s, "mcp.round"));
    let [one_served, two_served] = served.as_slice() else { panic!("two rounds served: {:#?}", names(&spans)) };
    for (span, client_span, id) in [(one_served, first, &first_id), (two_served, second, &second_id)] {
        assert!(
            is_child(span, client_span),
            "the server span of round {} is the client's child",
            int(span, "mcp.round")
        );
        assert!(span.parent_span_is_remote, "its parent came over the wire");
        assert_eq!(span.span_context.trace_id(), trace);
        assert_eq!(&text(span, "jsonrpc.request.id"), id);
        assert_eq!(text(span, "gen_ai.tool.name"), "deploy");
        assert_eq!(text(span, "gen_ai.operation.name"), "execute_tool");
        assert_eq!(text(span, "mcp.protocol.version"), "2026-07-28");
        assert_eq!(text(span, "network.transport"), "pipe");
        absent(span, "error.type");
        absent(span, "rpc.response.status_code");
        assert_eq!(span.status, Status::Unset);
    }
    assert_eq!(int(one_served, "mcp.round"), 1);
    assert_eq!(text(one_served, "mcp.request_state"), "absent");
    assert_eq!(text(one_served, "mcp.result"), "input_required");
    assert_eq!(text(one_served, "mcp.input_required.keys"), "confirm,passphrase");
    assert_eq!(int(two_served, "mcp.round"), 2);
    assert_eq!(text(two_served, "mcp.request_state"), "ok");
    assert_eq!(text(two_served, "mcp.result"), "complete");

    // The resolvers, under the server span of each round: pending, then answered.
    for (key, name) in [("confirm", "resolve confirm"), ("passphrase", "resolve passphrase")] {
        let mut runs = named(&spans, &SpanKind::Internal, name);
        assert_eq!(runs.len(), 2, "{name} runs once a round: {:#?}", names(&spans));
        runs.sort_by_key(|s| s.start_time);
        assert!(is_child(runs[0], one_served), "{name} in round 1");
        assert!(is_child(runs[1], two_served), "{name} in round 2");
        for span in &runs {
            assert_eq!(text(span, "mcp.resolver.name"), key);
        }
        assert_eq!(text(runs[0], "mcp.resolver.outcome"), "pending");
        assert_eq!(text(runs[1], "mcp.resolver.outcome"), "answered");
    }

    // Every span of the call is in its trace; none records the answer, the argument or
    // the sealed state.
    for span in spans.iter().filter(|s| s.name.contains("deploy") || s.name.starts_with("resolve")) {
        assert_eq!(span.span_context.trace_id(), trace, "`{}` in the call's trace", span.name);
    }
    for span in &spans {
        for kv in &span.attributes {
            let value = kv.value.as_str();
            assert!(
                !value.contains(PASSPHRASE) && !value.contains(SERVICE) && !value.starts_with("v1."),
                "`{}` records {} = {value}",
                span.name,
                kv.key
            );
        }
    }
}

#[test]
fn caller_mistakes_are_not_server_errors_and_tool_errors_are() {
    let traces = Traces::install();
    run(async {
        let server = server();
        let client = client(&server).await;
        let unknown = client.call_tool("no_such_tool", json!({})).await.expect_err("unknown tool");
        assert!(matches!(&unknown, ClientError::Rpc(e) if e.code == -32602), "{unknown:?}");
        let failed = client.call_tool("broken", json!({})).await.expect("a tool error is a result");
        assert_eq!(failed.is_error, Some(true));
        let options = CallOptions { request_state: Some("v1.forged-state".into()), ..CallOptions::default() };
        let forged = client.call_tool_with("deploy", json!({"service": "x"}), options).await.expect_err("forged");
        assert!(matches!(&forged, ClientError::Rpc(e) if e.code == -32602), "{forged:?}");
        let bogus = client.request("bogus/method", json!({})).await.expect_err("unknown method");
        assert!(matches!(&bogus, ClientError::Rpc(e) if e.code == -32601), "{bogus:?}");
    });
    let spans = traces.spans();

    // An unknown tool: the caller's mistake, so no `error.type` and no error status on
    // the server; the code says what happened.
    let unknown = one(&spans, SpanKind::Server, "tools/call no_such_tool");
    assert_eq!(text(unknown, "rpc.response.status_code"), "-32602");
    absent(unknown, "error.type");
    assert_eq!(unknown.status, Status::Unset);
    // The client still failed.
    let sent = one(&spans, SpanKind::Client, "tools/call no_such_tool");
    assert!(is_child(unknown, sent));
    assert_eq!(text(sent, "error.type"), "-32602");
    assert!(matches!(sent.status, Status::Error { .. }), "{:?}", sent.status);

    // A tool error: the exchange succeeded, the operation did not.
    let broken = one(&spans, SpanKind::Server, "tools/call broken");
    assert_eq!(text(broken, "error.type"), "tool_error");
    assert_eq!(text(broken, "mcp.result"), "complete");
    absent(broken, "rpc.response.status_code");
    assert_eq!(broken.status, Status::error("tool_error"));
    assert_eq!(text(one(&spans, SpanKind::Client, "tools/call broken"), "error.type"), "tool_error");

    // A forged `requestState`: refused, with the reason on the span (not the state).
    let forged = one(&spans, SpanKind::Server, "tools/call deploy");
    let outcome = text(forged, "mcp.request_state");
    assert!(!["ok", "absent", ""].contains(&outcome.as_str()), "the refusal's reason: {outcome}");
    assert!(!outcome.contains("forged-state"), "{outcome}");
    assert_eq!(text(forged, "rpc.response.status_code"), "-32602");
    absent(forged, "error.type");
    absent(forged, "mcp.result");

    // An unknown method: `_OTHER`, whatever the client sent.
    let other = one(&spans, SpanKind::Server, "_OTHER");
    assert_eq!(text(other, "mcp.method.name"), "_OTHER");
    assert_eq!(text(other, "rpc.response.status_code"), "-32601");
    absent(other, "error.type");
    assert!(spans.iter().all(|s| !s.name.contains("bogus") || s.span_kind == SpanKind::Client), "{:#?}", names(&spans));
}

/// The `_meta` of a modern `tools/call` with `extra` in it.
fn call_params(tool: &str, extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if let (Some(meta), Some(extra)) = (meta.as_object_mut(), extra.as_object()) {
        meta.extend(extra.clone());
    }
    json!({"name": tool, "arguments": {}, "_meta": meta})
}

#[test]
fn a_valid_traceparent_is_adopted_and_a_malformed_one_ignored() {
    let traces = Traces::install();
    let remote_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let remote_parent = "00f067aa0ba902b7";
    run(async {
        let server = server();
        // A bare peer: no client span of ours, only what `_meta` says.
        let raw = mcp::client::in_process(&server);
        let good = format!("00-{remote_trace}-{remote_parent}-01");
        for traceparent in
            [good.as_str(), "00-not-a-trace-01", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"]
        {
            let params = call_params("broken", json!({"traceparent": traceparent}));
            raw.request("tools/call", params).await.expect("a tool error is a result");
        }
    });
    let spans = traces.spans();
    let served = named(&spans, &SpanKind::Server, "tools/call broken");
    let [adopted, malformed, zero] = served.as_slice() else { panic!("three calls served: {:#?}", names(&spans)) };
    assert_eq!(adopted.span_context.trace_id(), TraceId::from_hex(remote_trace).expect("hex"));
    assert_eq!(adopted.parent_span_id, SpanId::from_hex(remote_parent).expect("hex"));
    assert!(adopted.parent_span_is_remote);
    for span in [malformed, zero] {
        assert_eq!(span.parent_span_id, SpanId::INVALID, "a root span");
        assert!(span.span_context.trace_id() != TraceId::INVALID);
        assert!(span.span_context.trace_id() != adopted.span_context.trace_id(), "its own trace");
    }
    assert_ne!(malformed.span_context.trace_id(), zero.span_context.trace_id());
}

/// The process's meter provider, exporting into memory; installed once.
fn metrics() -> &'static (SdkMeterProvider, InMemoryMetricExporter) {
    static METRICS: OnceLock<(SdkMeterProvider, InMemoryMetricExporter)> = OnceLock::new();
    METRICS.get_or_init(|| {
        use opentelemetry::metrics::MeterProvider as _;
        let exporter = InMemoryMetricExporter::default();
        let provider =
            SdkMeterProvider::builder().with_reader(PeriodicReader::builder(exporter.clone()).build()).build();
        mcp::telemetry::record_metrics_with(&provider.meter("telemetry-test"));
        (provider, exporter)
    })
}

/// The data points of histogram `name` whose attributes include `filter`.
fn points(name: &str, filter: (&str, &str)) -> Vec<(HistogramDataPoint<f64>, String)> {
    let (provider, exporter) = metrics();
    provider.force_flush().expect("flush metrics");
    let exported = exporter.get_finished_metrics().expect("metrics");
    // Cumulative: the last export holds everything so far.
    let Some(last) = exported.last() else { return Vec::new() };
    let mut found = Vec::new();
    for metric in last.scope_metrics().flat_map(|s| s.metrics()).filter(|m| m.name() == name) {
        let AggregatedMetrics::F64(MetricData::Histogram(histogram)) = metric.data() else {
            panic!("{name} is not an f64 histogram")
        };
        for point in histogram.data_points() {
            if point.attributes().any(|kv| kv.key.as_str() == filter.0 && kv.value.as_str() == filter.1) {
                found.push((point.clone(), metric.unit().to_owned()));
            }
        }
    }
    found
}

fn point_attr(point: &HistogramDataPoint<f64>, key: &str) -> Option<String> {
    point.attributes().find(|kv| kv.key.as_str() == key).map(|kv| kv.value.as_str().into_owned())
}

#[test]
fn the_duration_histograms_count_every_round() {
    let _ = metrics();
    run(async {
        let server = server();
        let client = client(&server).await;
        client.call_tool("deploy_metered", json!({"service": SERVICE})).await.expect("deploy");
        client.call_tool("no_such_tool_metered", json!({})).await.expect_err("unknown tool");
    });
    // The client and the in-process connection it had ended with the runtime: each side's
    // session duration is recorded (other tests' sessions may be in the same series).
    for histogram in ["mcp.server.session.duration", "mcp.client.session.duration"] {
        let sessions = points(histogram, ("network.transport", "pipe"));
        let [(point, unit)] = sessions.as_slice() else { panic!("{histogram}: one pipe series: {sessions:#?}") };
        assert_eq!(unit, "s", "{histogram}");
        assert!(point.count() >= 1, "{histogram}");
        assert_eq!(point_attr(point, "mcp.method.name"), None, "{histogram}: a session has no method");
    }
    for histogram in ["mcp.server.operation.duration", "mcp.client.operation.duration"] {
        let rounds = points(histogram, ("gen_ai.tool.name", "deploy_metered"));
        let [(point, unit)] = rounds.as_slice() else { panic!("{histogram}: one point for the tool: {rounds:#?}") };
        assert_eq!(unit, "s", "{histogram}");
        assert_eq!(point.count(), 2, "{histogram}: both rounds");
        assert_eq!(point_attr(point, "mcp.method.name").as_deref(), Some("tools/call"));
        assert_eq!(point_attr(point, "gen_ai.operation.name").as_deref(), Some("execute_tool"));
        assert_eq!(point_attr(point, "network.transport").as_deref(), Some("pipe"));
        assert_eq!(point_attr(point, "mcp.protocol.version").as_deref(), Some("2026-07-28"));
        assert_eq!(point_attr(point, "error.type"), None);
        assert!(point.sum() > 0.0 && point.sum() < 20.0, "{histogram}: seconds, {}", point.sum());

        // A name the server refused (-32602) is left out, so made-up names add no series.
        assert!(points(histogram, ("gen_ai.tool.name", "no_such_tool_metered")).is_empty(), "{histogram}");
        let unknown = points(histogram, ("rpc.response.status_code", "-32602"));
        let [(point, _)] = unknown.as_slice() else {
            panic!("{histogram}: one point for the unknown tool: {unknown:#?}")
        };
        // Other tests' -32602s (their meter is this one) land on the same nameless series.
        assert!(point.count() >= 1);
        assert_eq!(point_attr(point, "gen_ai.tool.name"), None);
        assert_eq!(point_attr(point, "mcp.method.name").as_deref(), Some("tools/call"));
        let error_type = point_attr(point, "error.type");
        if histogram.starts_with("mcp.server") {
            assert_eq!(error_type, None, "a caller's mistake is no server error");
        } else {
            assert_eq!(error_type.as_deref(), Some("-32602"), "the client's call failed");
        }
    }
}

/// A user's layer that runs the rest of the stack inside a span of its own.
struct Spanned;

struct SpannedHandler<H>(std::sync::Arc<H>);

impl<H: mcp::handler::Handler> mcp::handler::Handler for SpannedHandler<H> {
    fn call(&self, request: mcp::handler::Request) -> mcp::handler::BoxFuture<Result<mcp::handler::Reply, mcp::Error>> {
        use tracing::Instrument as _;
        let inner = std::sync::Arc::clone(&self.0);
        let span = tracing::info_span!(target: "mcp::telemetry", "user.layer");
        Box::pin(async move { inner.call(request).await }.instrument(span))
    }
}

impl<H: mcp::handler::Handler> mcp::handler::Layer<H> for Spanned {
    type Handler = SpannedHandler<H>;
    fn layer(&self, inner: H) -> SpannedHandler<H> {
        SpannedHandler(std::sync::Arc::new(inner))
    }
}

#[test]
fn what_the_layers_learn_reaches_the_request_span_under_a_users_own_span() {
    let traces = Traces::install();
    run(async {
        let server = Server::builder("layered", "1.0.0").tool::<deploy>().layer(Spanned).build();
        let client = client(&server).await;
        client.call_tool("deploy", json!({"service": SERVICE})).await.expect("deploy");
    });
    let spans = traces.spans();
    let mut served = named(&spans, &SpanKind::Server, "tools/call deploy");
    assert_eq!(served.len(), 2, "{:#?}", names(&spans));
    served.sort_by_key(|s| s.start_time);
    // Recorded through the request's context, not on whatever span is current (the
    // layer's, which declares none of these fields).
    assert_eq!(text(served[0], "mcp.request_state"), "absent");
    assert_eq!(int(served[0], "mcp.round"), 1);
    assert_eq!(text(served[1], "mcp.request_state"), "ok");
    assert_eq!(int(served[1], "mcp.round"), 2);
}
