//! Finishing a handler's result for the wire: `resultType`, cache hints and
//! `serverInfo` in 2026-07-28; none of those in legacy sessions; the rules on
//! `InputRequiredResult` in both.

use serde_json::Value;

use super::ServerInner;
use crate::Error;
use crate::handler::Reply;
use crate::protocol::{
    ClientCapabilities, ElicitationCapability, InputRequiredResult, JsonObject, ResultType, Revision,
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

/// Finish a result for a 2026-07-28 request.
pub(crate) fn finish_modern(
    server: &ServerInner,
    reply: Reply,
    capabilities: &ClientCapabilities,
) -> Result<Value, Error> {
    let mut result = match reply {
        Reply::Complete { mut result, cacheable } => {
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
            if !ir.is_well_formed() {
                tracing::warn!("handler returned an InputRequiredResult with neither inputRequests nor requestState");
                return Err(Error::internal("Handler returned an invalid result"));
            }
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
        Reply::Complete { mut result, .. } => {
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
