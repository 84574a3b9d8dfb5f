//! The server's span for each request it serves, and its duration histogram.

#[cfg(feature = "otel")]
use std::time::Instant;

use tracing::field::{Empty, display};

use super::{TARGET, input_request_keys, is_input_required, is_tool_error, server_code_is_error, span_name, target_of};
use crate::Error;
use crate::handler::{Payload, ResultShape, Session};
use crate::protocol::{JsonRpcRequest, Params, meta_version, methods, param};

/// What a transport tells about where a request came from, for its span.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Transport {
    /// Streamable HTTP.
    #[cfg_attr(not(feature = "http"), expect(dead_code, reason = "only the HTTP transport serves over HTTP"))]
    Http,
    /// stdio, or a link in the same process.
    Pipe,
}

/// The span of one request the server serves, from receipt to its answer.
pub(crate) struct ServerSpan {
    span: tracing::Span,
    /// The duration metric to record, and when the request arrived (the clock is read
    /// only for it).
    #[cfg(feature = "otel")]
    metric: Option<(super::otel::metrics::Operation, Instant)>,
}

impl ServerSpan {
    /// Open the span of `request`. `known` says whether the server serves a method (an
    /// unknown one is named `_OTHER`); it is asked only when the span or the metrics are on.
    pub(crate) fn start(
        request: &JsonRpcRequest<Params>,
        session: &Session,
        transport: Transport,
        known: impl FnOnce(&str) -> bool,
    ) -> Self {
        #[cfg(feature = "otel")]
        let metrics_on = super::otel::metrics::enabled();
        #[cfg(not(feature = "otel"))]
        let metrics_on = false;
        #[cfg(feature = "otel")]
        let started = metrics_on.then(Instant::now);
        let span = tracing::info_span!(
            target: TARGET,
            "mcp.server",
            otel.name = Empty,
            otel.kind = "server",
            otel.status_description = Empty,
            mcp.method.name = Empty,
            gen_ai.tool.name = Empty,
            gen_ai.prompt.name = Empty,
            gen_ai.operation.name = Empty,
            mcp.resource.uri = Empty,
            jsonrpc.request.id = Empty,
            mcp.protocol.version = Empty,
            network.transport = Empty,
            network.protocol.name = Empty,
            rpc.response.status_code = Empty,
            error.type = Empty,
            mcp.request_state = Empty,
            mcp.round = Empty,
            mcp.result = Empty,
            mcp.input_required.keys = Empty,
        );
        if span.is_disabled() && !metrics_on {
            return ServerSpan {
                span,
                #[cfg(feature = "otel")]
                metric: None,
            };
        }
        let known = known(&request.method);
        let method = if known { request.method.as_str() } else { super::OTHER };
        let params = request.params.as_ref();
        let target = if known { target_of(method, |key| param(params, key)) } else { None };
        let version = protocol_version(params, session);
        if !span.is_disabled() {
            span.record("otel.name", span_name(method, target).as_str());
            span.record("mcp.method.name", method);
            span.record("jsonrpc.request.id", super::id_text(&request.id).as_str());
            if method == methods::TOOLS_CALL {
                span.record("gen_ai.tool.name", target);
                span.record("gen_ai.operation.name", "execute_tool");
            } else if method == methods::PROMPTS_GET {
                span.record("gen_ai.prompt.name", target);
            } else if method == methods::RESOURCES_READ
                && let Some(uri) = params.and_then(|p| p.get("uri")).and_then(serde_json::Value::as_str)
            {
                span.record("mcp.resource.uri", super::uri_text(uri));
            }
            if let Some(version) = &version {
                span.record("mcp.protocol.version", version.as_str());
            }
            match transport {
                Transport::Http => {
                    span.record("network.transport", "tcp");
                    span.record("network.protocol.name", "http");
                }
                Transport::Pipe => {
                    span.record("network.transport", "pipe");
                }
            }
            #[cfg(feature = "otel")]
            super::otel::propagation::adopt_parent(&span, params);
        }
        ServerSpan {
            #[cfg(feature = "otel")]
            metric: started
                .map(|started| (super::otel::metrics::Operation::server(method, target, version, transport), started)),
            span,
        }
    }

    /// The span, to instrument the work with.
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Record how the request ended, and its duration.
    pub(crate) fn finish(self, result: &Result<Payload, Error>) {
        let mut error_type: Option<String> = None;
        let mut status_code: Option<i32> = None;
        match result {
            Ok(Payload::Value(value)) => {
                if is_input_required(value) {
                    self.span.record("mcp.result", "input_required");
                    if let Some(keys) = input_request_keys(value) {
                        self.span.record("mcp.input_required.keys", keys.as_str());
                    }
                } else {
                    self.span.record("mcp.result", "complete");
                    if is_tool_error(value) {
                        error_type = Some("tool_error".into());
                    }
                }
            }
            Ok(Payload::Result { shape: ResultShape::InputRequired { keys }, .. }) => {
                self.span.record("mcp.result", "input_required");
                if let Some(keys) = keys {
                    self.span.record("mcp.input_required.keys", keys.as_str());
                }
            }
            Ok(Payload::Result { shape: ResultShape::Complete { tool_error }, .. }) => {
                self.span.record("mcp.result", "complete");
                if *tool_error {
                    error_type = Some("tool_error".into());
                }
            }
            // Lists encoded ahead (cached), and tasks: complete results.
            Ok(Payload::Encoded(_) | Payload::Result { shape: ResultShape::Task, .. }) => {
                self.span.record("mcp.result", "complete");
            }
            Err(error) => {
                status_code = Some(error.code);
                self.span.record("rpc.response.status_code", display(error.code));
                if server_code_is_error(error.code) {
                    error_type = Some(error.code.to_string());
                    self.span.record("otel.status_description", error.message.as_str());
                }
            }
        }
        if let Some(error_type) = &error_type {
            self.span.record("error.type", error_type.as_str());
            if status_code.is_none() {
                // A tool error: the span fails, the JSON-RPC exchange did not.
                self.span.record("otel.status_description", "tool_error");
            }
        }
        #[cfg(feature = "otel")]
        if let Some((metric, started)) = self.metric {
            metric.record(started.elapsed(), error_type.as_deref(), status_code);
        }
        #[cfg(not(feature = "otel"))]
        let _ = status_code;
    }
}

/// The protocol version a request is served under: its `_meta`'s, else its legacy
/// session's.
fn protocol_version(params: Option<&Params>, session: &Session) -> Option<String> {
    match meta_version(params).and_then(|version| version.as_str()) {
        Some(version) => Some(super::version_text(&version).to_owned()),
        None => session.legacy().map(|legacy| super::version_text(legacy.version).to_owned()),
    }
}

/// What a measured session tells when it ends, recording `mcp.server.session.duration`
/// (over `transport`: `pipe` or `tcp`); `None` when no meter records it.
#[cfg_attr(not(feature = "otel"), expect(unused_variables, reason = "nothing records without otel"))]
pub(crate) fn session_end(transport: &'static str) -> Option<crate::handler::SessionEnd> {
    #[cfg(feature = "otel")]
    if super::otel::metrics::enabled() {
        return Some(Box::new(move |elapsed, version| {
            let version = version.map(super::version_text);
            super::otel::metrics::record_session(false, elapsed, transport, version);
        }));
    }
    None
}
