//! Telemetry: a span for every request and every round, by OpenTelemetry's semantic
//! conventions for MCP.
//!
//! Spans are [`tracing`] spans on the target `mcp::telemetry` at level INFO, so they cost
//! next to nothing unless a subscriber asks for them. Their fields are the conventions'
//! attributes, and the special fields of `tracing-opentelemetry` (`otel.name`,
//! `otel.kind`, `otel.status_description`) give the OpenTelemetry span its name, kind and
//! status:
//!
//! | span | kind | name | attributes |
//! |---|---|---|---|
//! | a request the server serves | server | `{mcp.method.name} {target}` | `mcp.method.name`, `gen_ai.tool.name` or `gen_ai.prompt.name`, `gen_ai.operation.name` (`execute_tool`), `mcp.resource.uri` (without query or fragment), `jsonrpc.request.id`, `mcp.protocol.version`, `network.transport`, `network.protocol.name`, `rpc.response.status_code`, `error.type`; ours: `mcp.request_state` (`absent`, `ok`, or why it was refused), `mcp.round` (tools with resolvers), `mcp.result` (`complete` or `input_required`), `mcp.input_required.keys` |
//! | a resolver run in a round | internal | `resolve {resolver}` | `mcp.resolver.name`, `mcp.resolver.outcome` (`answered`; `pending`: it asked, or waits on one that did; `stopped`) |
//! | a call the client makes, all rounds | internal | `{mcp.method.name} {target}` | `mcp.method.name`, the target, `mcp.rounds` |
//! | one request the client sends | client | `{mcp.method.name} {target}` | as the server's, plus `mcp.round` |
//!
//! The target (the tool or prompt name) is the name the request carries, as the
//! conventions say, or `_OTHER` when it does not look like a name (letters, digits,
//! `_-./:`, at most 128 bytes); an unknown method, an unsupported protocol version and a
//! long or odd request id are `_OTHER` too. The histograms leave out a name the server
//! refused as unknown (`-32602`), so a client cannot inflate their series. Arguments,
//! answers, `requestState`, tokens and principals are never recorded.
//!
//! With the `otel` feature, a W3C `traceparent` (and `tracestate`) in the request's
//! `params._meta` becomes the parent of the server's span (so a caller's sampling
//! decision holds, as with any W3C parent; `OTEL_TRACES_SAMPLER=always_on` ignores it), the client puts its own span's
//! context there, and durations are recorded as the conventions' histograms:
//! `mcp.server.operation.duration` and `mcp.client.operation.duration` for each request,
//! `mcp.server.session.duration` for a stream connection (stdio, in process) or a
//! 2025-11-25 HTTP session (2026-07-28 requests over HTTP have no session), and
//! `mcp.client.session.duration` for a client, from connecting to dropping it.
//! `Telemetry::from_env` (feature `otel`) sets up the SDK and the OTLP exporter from the
//! standard `OTEL_*` variables; when you set up the SDK yourself, `record_metrics_with`
//! gives the histograms your meter.

#[cfg(feature = "otel")]
pub(crate) mod otel;
#[cfg(feature = "server")]
pub(crate) mod server;

#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub use otel::{Telemetry, TelemetryError, TelemetryErrorKind, record_metrics_with, trace_id};

/// The target of every span this module makes.
pub const TARGET: &str = "mcp::telemetry";

/// The name used for what a peer sent that does not look like a method or item name.
pub(crate) const OTHER: &str = "_OTHER";

/// The longest tool or prompt name kept in a span name.
const MAX_NAME: usize = 128;

/// The span's target: the tool or prompt name a request carries (its params' member
/// `name`, asked of `name` only for the methods that have one), if any.
pub(crate) fn target_of<'a>(method: &str, name: impl FnOnce(&str) -> Option<&'a serde_json::Value>) -> Option<&'a str> {
    if method != crate::protocol::methods::TOOLS_CALL && method != crate::protocol::methods::PROMPTS_GET {
        return None;
    }
    let name = name("name")?.as_str()?;
    Some(if looks_like_a_name(name) { name } else { OTHER })
}

/// The longest request id or resource URI kept as an attribute.
const MAX_ATTRIBUTE: usize = 256;

/// A request id as the conventions record it: the number, or the string as sent (no
/// quotes); `_OTHER` when it is long or has control characters.
pub(crate) fn id_text(id: &crate::protocol::RequestId) -> String {
    match id {
        crate::protocol::RequestId::Number(n) => n.to_string(),
        crate::protocol::RequestId::String(s) if s.len() <= MAX_ATTRIBUTE && !s.chars().any(char::is_control) => {
            s.clone()
        }
        crate::protocol::RequestId::String(_) => OTHER.to_owned(),
    }
}

/// A resource URI as recorded: without its query and fragment (which may carry secrets,
/// such as a pre-signed URL's signature), `_OTHER` when longer than 256 bytes.
pub(crate) fn uri_text(uri: &str) -> &str {
    let end = uri.find(['?', '#']).unwrap_or(uri.len());
    let uri = &uri[..end];
    if uri.len() <= MAX_ATTRIBUTE && !uri.chars().any(char::is_control) { uri } else { OTHER }
}

/// A protocol version as recorded: one this crate speaks, else `_OTHER`.
#[cfg(feature = "server")]
pub(crate) fn version_text(version: &str) -> &str {
    let known = crate::protocol::SUPPORTED_MODERN_VERSIONS
        .iter()
        .chain(crate::protocol::SUPPORTED_LEGACY_VERSIONS)
        .any(|v| *v == version);
    if known { version } else { OTHER }
}

/// `{method} {target}`, or the method alone.
pub(crate) fn span_name(method: &str, target: Option<&str>) -> String {
    match target {
        Some(target) => format!("{method} {target}"),
        None => method.to_owned(),
    }
}

/// Whether `name` looks like a tool or prompt name (letters, digits, `_-./:`, at most
/// 128 characters).
fn looks_like_a_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b':'))
}

#[cfg(feature = "server")]
/// Whether a server answering `code` failed, by the conventions: the codes that say the
/// caller sent something the server could not serve are not errors of the server.
pub(crate) fn server_code_is_error(code: i32) -> bool {
    !matches!(code, -32700 | -32600 | -32601 | -32602 | -32002)
}

/// The input request keys of an `input_required` result, comma-separated.
pub(crate) fn input_request_keys(result: &serde_json::Value) -> Option<String> {
    Some(joined_keys(result.get("inputRequests")?.as_object()?.keys()))
}

/// Keys as `mcp.input_required.keys` records them: sorted, comma-separated.
pub(crate) fn joined_keys<'a>(keys: impl Iterator<Item = &'a String>) -> String {
    let mut keys: Vec<&str> = keys.map(String::as_str).collect();
    keys.sort_unstable();
    keys.join(",")
}

/// Whether a result is an `input_required` one.
pub(crate) fn is_input_required(result: &serde_json::Value) -> bool {
    result.get("resultType").and_then(serde_json::Value::as_str) == Some("input_required")
}

/// Whether a result is a tool result with `isError: true`.
pub(crate) fn is_tool_error(result: &serde_json::Value) -> bool {
    result.get("isError").and_then(serde_json::Value::as_bool) == Some(true)
}

/// Record on a request's span how its `requestState` fared: `absent`, `ok`, or the reason
/// it was refused. Never the state itself.
#[cfg(feature = "server")]
pub(crate) fn record_request_state(span: &tracing::Span, outcome: &str) {
    span.record("mcp.request_state", outcome);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn targets_are_names_or_other() {
        let target = |method: &str, name: &str| {
            let params = json!({ "name": name });
            target_of(method, |key| params.get(key)).map(str::to_owned)
        };
        assert_eq!(target("tools/call", "provision").as_deref(), Some("provision"));
        assert_eq!(target("prompts/get", "brief-1.0").as_deref(), Some("brief-1.0"));
        assert_eq!(target("tools/call", "a b").as_deref(), Some(OTHER));
        assert_eq!(target("tools/call", &"x".repeat(129)).as_deref(), Some(OTHER));
        assert_eq!(target("tools/list", "provision"), None);
        assert_eq!(target_of("tools/call", |_| None), None);
        assert_eq!(span_name("tools/call", Some("provision")), "tools/call provision");
        assert_eq!(span_name("tools/list", None), "tools/list");
    }

    #[test]
    fn ids_uris_and_versions_are_bounded() {
        use crate::protocol::RequestId;
        assert_eq!(id_text(&RequestId::from(7)), "7");
        assert_eq!(id_text(&RequestId::String("req-7".into())), "req-7");
        assert_eq!(id_text(&RequestId::String("x".repeat(257))), OTHER);
        assert_eq!(id_text(&RequestId::String("a\nb".into())), OTHER);
        assert_eq!(uri_text("s3://bucket/key?X-Amz-Signature=secret#frag"), "s3://bucket/key");
        assert_eq!(uri_text(&format!("file:///{}", "d".repeat(300))), OTHER);
    }

    #[cfg(feature = "server")]
    #[test]
    fn only_versions_we_speak_are_recorded() {
        assert_eq!(version_text("2026-07-28"), "2026-07-28");
        assert_eq!(version_text("2099-01-01"), OTHER);
    }

    #[cfg(feature = "server")]
    #[test]
    fn caller_mistakes_are_not_server_errors() {
        for code in [-32700, -32600, -32601, -32602, -32002] {
            assert!(!server_code_is_error(code), "{code}");
        }
        for code in [-32603, -32000, -32042, 1] {
            assert!(server_code_is_error(code), "{code}");
        }
    }

    #[test]
    fn results_are_classified() {
        let asked = json!({ "resultType": "input_required", "inputRequests": { "b": {}, "a": {} } });
        assert!(is_input_required(&asked));
        assert_eq!(input_request_keys(&asked).as_deref(), Some("a,b"));
        assert!(is_tool_error(&json!({ "isError": true, "content": [] })));
        assert!(!is_tool_error(&json!({ "content": [] })));
    }
}
