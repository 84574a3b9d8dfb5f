//! The client's spans (see [`crate::telemetry`]): one for each request it sends, and one
//! around all the rounds of a call.

use std::time::Instant;

use serde_json::Value;
use tracing::field::{Empty, display};

use super::ClientError;
use crate::protocol::{JsonObject, RequestId, methods};
use crate::telemetry::{TARGET, input_request_keys, is_input_required, is_tool_error, span_name, target_of};

/// The span of one request the client sends, from sending to its answer.
pub(crate) struct RequestSpan {
    span: tracing::Span,
    started: Instant,
    #[cfg(feature = "otel")]
    metric: Option<crate::telemetry::otel::metrics::Operation>,
}

impl RequestSpan {
    /// Open the span of `method` with `params`, the `round`th of its call (0: not part of
    /// one), sent under `version` over `transport` (`tcp` or `pipe`); put its trace
    /// context in `params._meta` (with `otel`).
    pub(crate) fn start(
        method: &str,
        params: &mut JsonObject,
        round: u32,
        version: Option<&str>,
        transport: &'static str,
    ) -> Self {
        let started = Instant::now();
        let span = tracing::info_span!(
            target: TARGET,
            "mcp.client",
            otel.name = Empty,
            otel.kind = "client",
            otel.status_description = Empty,
            mcp.method.name = method,
            gen_ai.tool.name = Empty,
            gen_ai.prompt.name = Empty,
            gen_ai.operation.name = Empty,
            mcp.resource.uri = Empty,
            jsonrpc.request.id = Empty,
            mcp.protocol.version = version,
            network.transport = transport,
            network.protocol.name = Empty,
            rpc.response.status_code = Empty,
            error.type = Empty,
            mcp.round = Empty,
            mcp.result = Empty,
            mcp.input_required.keys = Empty,
        );
        #[cfg(feature = "otel")]
        let metrics_on = crate::telemetry::otel::metrics::enabled();
        #[cfg(not(feature = "otel"))]
        let metrics_on = false;
        // The target is copied out (`params` is written below) only when something records it.
        let target = if metrics_on || !span.is_disabled() {
            target_of(method, |key| params.get(key)).map(str::to_owned)
        } else {
            None
        };
        if !span.is_disabled() {
            span.record("otel.name", span_name(method, target.as_deref()).as_str());
            if method == methods::TOOLS_CALL {
                span.record("gen_ai.tool.name", target.as_deref());
                span.record("gen_ai.operation.name", "execute_tool");
            } else if method == methods::PROMPTS_GET {
                span.record("gen_ai.prompt.name", target.as_deref());
            } else if method == methods::RESOURCES_READ
                && let Some(uri) = params.get("uri").and_then(Value::as_str)
            {
                span.record("mcp.resource.uri", crate::telemetry::uri_text(uri));
            }
            if transport == "tcp" {
                span.record("network.protocol.name", "http");
            }
            if round > 0 {
                span.record("mcp.round", i64::from(round));
            }
            #[cfg(feature = "otel")]
            crate::telemetry::otel::propagation::inject(&span, params);
        }
        RequestSpan {
            #[cfg(feature = "otel")]
            metric: metrics_on.then(|| {
                crate::telemetry::otel::metrics::Operation::client(method, target.as_deref(), version, transport)
            }),
            span,
            started,
        }
    }

    /// The span, to instrument the exchange with.
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Record how the request ended, and its duration.
    pub(crate) fn finish(self, result: &Result<Value, ClientError>) {
        let mut status_code = None;
        let error_type: Option<String> = match result {
            Ok(value) if is_input_required(value) => {
                self.span.record("mcp.result", "input_required");
                if let Some(keys) = input_request_keys(value) {
                    self.span.record("mcp.input_required.keys", keys.as_str());
                }
                None
            }
            Ok(value) => {
                self.span.record("mcp.result", "complete");
                is_tool_error(value).then(|| "tool_error".to_owned())
            }
            Err(ClientError::Rpc(error)) => {
                status_code = Some(error.code);
                self.span.record("rpc.response.status_code", display(error.code));
                Some(error.code.to_string())
            }
            Err(ClientError::Timeout) => Some("timeout".to_owned()),
            Err(_) => Some("_OTHER".to_owned()),
        };
        if let Some(error_type) = &error_type {
            self.span.record("error.type", error_type.as_str());
            let description = match result {
                Err(ClientError::Rpc(error)) => error.message.as_str(),
                _ => error_type.as_str(),
            };
            self.span.record("otel.status_description", description);
        }
        #[cfg(feature = "otel")]
        if let Some(metric) = self.metric {
            metric.record(self.started.elapsed(), error_type.as_deref(), status_code);
        }
        #[cfg(not(feature = "otel"))]
        let _ = (self.started, status_code);
    }
}

/// Record the id a link gave the request on the current span (the request's).
pub(crate) fn record_request_id(id: &RequestId) {
    tracing::Span::current().record("jsonrpc.request.id", crate::telemetry::id_text(id).as_str());
}

/// The span around every round of a call (`tools/call`, `prompts/get`, `resources/read`).
pub(crate) fn call_span(method: &str, params: &JsonObject) -> tracing::Span {
    let target = target_of(method, |key| params.get(key));
    tracing::info_span!(
        target: TARGET,
        "mcp.call",
        otel.name = span_name(method, target).as_str(),
        otel.kind = "internal",
        mcp.method.name = method,
        gen_ai.tool.name = if method == methods::TOOLS_CALL { target } else { None },
        gen_ai.prompt.name = if method == methods::PROMPTS_GET { target } else { None },
        mcp.rounds = Empty,
    )
}

/// Record the client's session duration (with `otel`, once a meter is installed).
#[cfg_attr(not(feature = "otel"), expect(unused_variables, reason = "nothing records without otel"))]
pub(crate) fn session_ended(elapsed: std::time::Duration, transport: &'static str, version: &str) {
    #[cfg(feature = "otel")]
    crate::telemetry::otel::metrics::record_session(true, elapsed, transport, Some(version));
}
