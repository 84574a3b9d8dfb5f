//! Finishing a handler's result for the wire: `resultType`, cache hints and
//! `serverInfo` in 2026-07-28; none of those in legacy sessions; the rules on
//! `InputRequiredResult` in both.

use serde_json::Value;

use super::ServerInner;
use crate::Error;
use crate::handler::{Payload, Reply, ResultShape};
use crate::protocol::{
    ClientCapabilities, ElicitationCapability, Implementation, InputRequiredResult, JsonObject, ResultType, Revision,
    SamplingCapability, declares_tasks, downgrade_result, keys, missing_capability,
};

fn add_server_info(server: &ServerInner, result: &mut JsonObject) {
    let meta = result.entry("_meta").or_insert_with(|| Value::Object(JsonObject::new()));
    if let Value::Object(meta) = meta
        && !meta.contains_key(keys::SERVER_INFO)
        && let Ok(info) = serde_json::to_value(&server.info)
    {
        meta.insert(keys::SERVER_INFO.to_owned(), info);
    }
}

/// `"_meta":{"io.modelcontextprotocol/serverInfo":…}` for `info`, encoded once when the
/// server is built.
pub(super) fn server_info_meta(info: &Implementation) -> String {
    let info = serde_json::to_string(info).unwrap_or_else(|_| "{}".to_owned());
    format!(r#""_meta":{{"{}":{info}}}"#, keys::SERVER_INFO)
}

/// `object`, the compact JSON of an object, with `fields` (`"key":value` pairs, already
/// encoded) added before its closing brace.
fn append_fields(mut object: String, fields: &[&str]) -> Result<String, Error> {
    if !(object.starts_with('{') && object.ends_with('}')) {
        return Err(Error::internal("Handler returned an invalid result"));
    }
    object.pop();
    for field in fields {
        if object.len() > 1 {
            object.push(',');
        }
        object.push_str(field);
    }
    object.push('}');
    Ok(object)
}

fn encode<T: serde::Serialize>(value: &T) -> Result<String, Error> {
    serde_json::to_string(value).map_err(|e| {
        tracing::warn!(error = %e, "could not encode a result");
        Error::internal("Handler returned an invalid result")
    })
}

/// [`encode`] into a buffer of `capacity` bytes: for a result known to be long, which
/// would otherwise grow (reallocate and copy) from serde_json's 128 bytes, once per doubling.
fn encode_sized<T: serde::Serialize>(value: &T, capacity: usize) -> Result<String, Error> {
    let mut json = Vec::with_capacity(capacity);
    serde_json::to_writer(&mut json, value).map_err(|e| {
        tracing::warn!(error = %e, "could not encode a result");
        Error::internal("Handler returned an invalid result")
    })?;
    String::from_utf8(json).map_err(|_| Error::internal("Handler returned an invalid result"))
}

/// What the span records about a finished result, so that telemetry need not parse it.
fn shape_of(reply: &Reply) -> ResultShape {
    match reply {
        Reply::Complete { result, .. } => ResultShape::Complete { tool_error: result.is_tool_error() },
        Reply::InputRequired(ir) => ResultShape::InputRequired {
            // Only a span that records them needs the keys.
            keys: (!tracing::Span::current().is_disabled())
                .then(|| crate::telemetry::joined_keys(ir.input_requests.iter().flat_map(|r| r.keys()))),
        },
        Reply::Task(_) => ResultShape::Task,
    }
}

/// Finish a result for a 2026-07-28 request, encoded: `resultType`, cache hints and
/// `serverInfo` are written after the handler's fields rather than inserted into a tree.
/// A result that already carries one of them (a hand-built object) goes the slow way,
/// through [`finish_modern_value`], which keeps the handler's values.
pub(crate) fn finish_modern(
    server: &ServerInner,
    reply: Reply,
    capabilities: &ClientCapabilities,
) -> Result<Payload, Error> {
    let shape = shape_of(&reply);
    let json = match reply {
        Reply::Complete { result, cacheable: false } => match result.into_encoded() {
            // A typed tool result, encoded once: it writes its own `resultType`.
            Ok(json) => append_fields(json, &[&server.server_info_meta])?,
            Err(result) => {
                let fast = !result.contains_key("_meta");
                match result.get("resultType") {
                    None if fast => {
                        append_fields(encode(&*result)?, &[r#""resultType":"complete""#, &server.server_info_meta])?
                    }
                    Some(Value::String(kind)) if fast && kind == ResultType::Complete.as_str() => {
                        append_fields(encode(&*result)?, &[&server.server_info_meta])?
                    }
                    _ => {
                        let reply = Reply::Complete { result, cacheable: false };
                        encode(&finish_modern_value(server, reply, capabilities)?)?
                    }
                }
            }
        },
        Reply::InputRequired(mut ir) if ir.meta.is_none() && ir.result_type == ResultType::InputRequired => {
            check_well_formed(&ir)?;
            check_capabilities(&ir, capabilities)?;
            // The struct writes its own `resultType` (always `input_required`). Its sealed
            // state alone is hundreds of bytes; each question about as many again.
            let questions = ir.input_requests.as_ref().map_or(0, |asked| 384 * asked.len());
            let state_len = ir.request_state.as_ref().map_or(0, String::len);
            let capacity = 64 + questions + state_len + server.server_info_meta.len();
            // `requestState` is the last field the struct writes (without `_meta`): a state
            // with nothing to escape (the sealing layer's base64url) is written after the
            // others as it is, rather than by the serializer a byte at a time.
            let state = ir.request_state.take_if(|state| !needs_escape(state));
            let json = encode_sized(&ir, capacity)?;
            match state {
                Some(state) => {
                    let mut field = String::with_capacity(state.len() + 17);
                    field.push_str(r#""requestState":""#);
                    field.push_str(&state);
                    field.push('"');
                    append_fields(json, &[&field, &server.server_info_meta])?
                }
                None => append_fields(json, &[&server.server_info_meta])?,
            }
        }
        reply => encode(&finish_modern_value(server, reply, capabilities)?)?,
    };
    Ok(Payload::Result { json, shape })
}

/// Whether a JSON string of `text` escapes any of it: a quote, a backslash or a control
/// character (what serde_json escapes). Folded without an early exit, so that it runs a
/// vector at a time.
fn needs_escape(text: &str) -> bool {
    text.bytes().fold(false, |escape, b| escape | (b < 0x20) | (b == b'"') | (b == b'\\'))
}

fn check_well_formed(ir: &InputRequiredResult) -> Result<(), Error> {
    if ir.is_well_formed() {
        return Ok(());
    }
    tracing::warn!("handler returned an InputRequiredResult with neither inputRequests nor requestState");
    Err(Error::internal("Handler returned an invalid result"))
}

/// Finish a result for a 2026-07-28 request, as a tree.
pub(crate) fn finish_modern_value(
    server: &ServerInner,
    reply: Reply,
    capabilities: &ClientCapabilities,
) -> Result<Value, Error> {
    let mut result = match reply {
        Reply::Complete { result, cacheable } => {
            let mut result = result.into_object();
            result.insert("resultType".into(), Value::String(ResultType::Complete.as_str().into()));
            if cacheable {
                result.entry("ttlMs").or_insert_with(|| Value::from(server.ttl_ms));
                if !result.contains_key("cacheScope") {
                    result.insert("cacheScope".into(), serde_json::to_value(server.cache_scope).unwrap_or(Value::Null));
                }
            }
            result
        }
        Reply::InputRequired(ir) => {
            check_well_formed(&ir)?;
            check_capabilities(&ir, capabilities)?;
            let mut result = Reply::object_of(&ir)?;
            result.insert("resultType".into(), Value::String(ResultType::InputRequired.as_str().into()));
            result
        }
        Reply::Task(task) => {
            if !declares_tasks(capabilities) {
                tracing::warn!("handler answered with a task a client that did not declare the tasks extension");
                return Err(Error::internal("Handler returned an invalid result"));
            }
            let mut result = Reply::object_of(&task)?;
            result.insert("resultType".into(), Value::String("task".into()));
            result
        }
    };
    add_server_info(server, &mut result);
    Ok(Value::Object(result))
}

/// Finish the result of `method` for a legacy session of `revision` (2024-11-05 to
/// 2025-11-25): no modern fields, and nothing the revision does not define.
pub(crate) fn finish_legacy(reply: Reply, method: &str, revision: Revision) -> Result<Value, Error> {
    match reply {
        Reply::Complete { result, .. } => {
            let mut result = result.into_object();
            result.remove("resultType");
            result.remove("ttlMs");
            result.remove("cacheScope");
            downgrade_result(method, &mut result, revision);
            Ok(Value::Object(result))
        }
        Reply::InputRequired(_) => {
            tracing::warn!("handler returned an InputRequiredResult in a legacy session");
            Err(Error::internal("Handler returned an invalid result"))
        }
        Reply::Task(_) => {
            tracing::warn!("handler returned a task in a legacy session, which has no tasks");
            Err(Error::internal("Handler returned an invalid result"))
        }
    }
}

/// A server MUST NOT send input requests the client did not declare on this request.
fn check_capabilities(ir: &InputRequiredResult, caps: &ClientCapabilities) -> Result<(), Error> {
    let mut required = ClientCapabilities::default();
    let mut missing = Vec::new();
    for request in ir.input_requests.iter().flat_map(|r| r.values()) {
        let Some((label, need)) = missing_capability(request, caps) else { continue };
        missing.push(label);
        if let Some(e) = need.elicitation {
            let have = required.elicitation.get_or_insert_with(ElicitationCapability::default);
            have.form = have.form.take().or(e.form);
            have.url = have.url.take().or(e.url);
        }
        if let Some(s) = need.sampling {
            let have = required.sampling.get_or_insert_with(SamplingCapability::default);
            have.tools = have.tools.take().or(s.tools);
        }
        required.roots = required.roots.take().or(need.roots);
    }
    if missing.is_empty() {
        return Ok(());
    }
    missing.sort();
    missing.dedup();
    Err(Error::missing_client_capability(
        format!("Server requires the {} capability for this request", missing.join(", ")),
        &required,
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::{CallToolResult, ElicitRequestParams, ElicitationSchema, InputRequest};

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    /// The encoded fast path writes what the tree path builds, for every shape of reply.
    #[test]
    fn encoded_results_equal_the_tree_path() {
        let server = crate::Server::builder("results-test", "1.2.3").build();
        let inner = server.inner();
        let form = ElicitRequestParams::form("Region?", ElicitationSchema::default());
        let caps = ClientCapabilities { elicitation: Some(ElicitationCapability::default()), ..Default::default() };
        let typed = object(serde_json::to_value(CallToolResult::text("hi")).expect("test value"));
        assert!(typed.contains_key("resultType"), "the typed result writes its own resultType");
        let replies = [
            Reply::complete(typed),
            Reply::complete(object(json!({"content": []}))),
            Reply::complete(JsonObject::new()),
            Reply::complete(object(json!({"resultType": "other", "x": 1}))),
            Reply::complete(object(json!({"_meta": {"k": "v"}, "x": 1}))),
            Reply::complete(object(json!({"_meta": "odd"}))),
            Reply::Complete { result: object(json!({"tools": []})).into(), cacheable: true },
            // Typed tool results, encoded straight to text (the last one, with `_meta`, as a tree).
            Reply::tool(CallToolResult::text("hi \"there\" ü")).expect("test value"),
            Reply::tool(CallToolResult::error("no such region")).expect("test value"),
            Reply::tool(CallToolResult {
                structured_content: Some(json!({"n": 1.5, "ok": true})),
                ..CallToolResult::text("{\"n\":1.5}")
            })
            .expect("test value"),
            Reply::tool(CallToolResult { meta: Some(Default::default()), ..CallToolResult::text("m") })
                .expect("test value"),
            Reply::InputRequired(InputRequiredResult {
                input_requests: Some([("region".to_owned(), InputRequest::Elicit(form))].into_iter().collect()),
                request_state: Some("sealed".into()),
                ..Default::default()
            }),
        ];
        for reply in replies {
            let tree = finish_modern_value(inner, reply.clone(), &caps).expect("test value");
            let Payload::Result { json, .. } = finish_modern(inner, reply.clone(), &caps).expect("test value") else {
                panic!("finish_modern encodes its result");
            };
            let encoded: Value = serde_json::from_str(&json).expect("test value");
            assert_eq!(encoded, tree, "{reply:?}");
            if encoded["_meta"] != json!("odd") {
                assert_eq!(encoded["_meta"][keys::SERVER_INFO]["name"], json!("results-test"), "{json}");
            }
        }
    }

    /// An `InputRequiredResult`'s state is written as the serializer writes it: as it is
    /// when nothing in it needs escaping, escaped otherwise (byte for byte the same text).
    #[test]
    fn input_required_states_are_written_as_the_serializer_writes_them() {
        let server = crate::Server::builder("results-test", "1").build();
        let inner = server.inner();
        let caps = ClientCapabilities { elicitation: Some(ElicitationCapability::default()), ..Default::default() };
        let form = ElicitRequestParams::form("Region?", ElicitationSchema::default());
        let states = ["v1.AbC-_09xyz", "", "quote \" back\\slash", "tab\t new\nline \u{1} del \u{7f}", "ü / <>"];
        for state in states {
            for asked in [true, false] {
                let ir = InputRequiredResult {
                    input_requests: asked
                        .then(|| [("region".to_owned(), InputRequest::Elicit(form.clone()))].into_iter().collect()),
                    request_state: Some(state.to_owned()),
                    ..Default::default()
                };
                let expected =
                    append_fields(encode(&ir).expect("encodes"), &[&inner.server_info_meta]).expect("object");
                let Payload::Result { json, .. } =
                    finish_modern(inner, Reply::InputRequired(ir), &caps).expect("finishes")
                else {
                    panic!("finish_modern encodes its result");
                };
                assert_eq!(json, expected, "state {state:?}");
            }
        }
        assert!(!needs_escape("v1.AbC-_09xyz/ü\u{7f}"));
        for escaped in ["\"", "\\", "\n", "\u{0}", "\u{1f}", "a\"b"] {
            assert!(needs_escape(escaped), "{escaped:?}");
        }
    }

    /// A typed tool result is encoded once, unless it sets `_meta` (the slow path keeps it).
    #[test]
    fn tool_results_stay_encoded_unless_they_carry_meta() {
        let encoded = |reply: Reply| match reply {
            Reply::Complete { result, .. } => result.into_encoded().is_ok(),
            _ => false,
        };
        assert!(encoded(Reply::tool(CallToolResult::text("hi")).expect("test value")));
        assert!(encoded(Reply::tool(CallToolResult::error("bad")).expect("test value")));
        let with_meta = CallToolResult { meta: Some(Default::default()), ..CallToolResult::text("m") };
        assert!(!encoded(Reply::tool(with_meta).expect("test value")));
        let Ok(Reply::Complete { result, .. }) = Reply::tool(CallToolResult::error("bad")) else {
            panic!("a tool result is complete");
        };
        assert!(result.is_tool_error());
    }

    #[test]
    fn encoded_results_keep_the_checks() {
        let server = crate::Server::builder("results-test", "1").build();
        let form = ElicitRequestParams::form("Region?", ElicitationSchema::default());
        let ir = InputRequiredResult {
            input_requests: Some([("region".to_owned(), InputRequest::Elicit(form))].into_iter().collect()),
            ..Default::default()
        };
        // The client declared no elicitation: refused, as on the tree path.
        let refused = finish_modern(server.inner(), Reply::InputRequired(ir), &ClientCapabilities::default());
        assert!(refused.is_err());
        let empty =
            finish_modern(server.inner(), Reply::InputRequired(InputRequiredResult::default()), &Default::default());
        assert!(empty.is_err(), "neither inputRequests nor requestState");
    }
}
