//! Finishing a handler's result for the wire: `resultType`, cache hints and
//! `serverInfo` in 2026-07-28; none of those in legacy sessions; the rules on
//! `InputRequiredResult` in both.

use serde::Serialize;
use serde_json::Value;

use super::ServerInner;
use crate::Error;
use crate::protocol::{
    ClientCapabilities, ElicitRequestParams, ElicitationCapability, InputRequest, InputRequiredResult, JsonObject,
    ResultType, RootsCapability, SamplingCapability, keys,
};

/// What a route produced, before era-specific finishing.
pub(crate) enum Reply {
    /// A final result, as a JSON object.
    Complete { result: JsonObject, cacheable: bool },
    /// An interim result (carrier methods only).
    InputRequired(InputRequiredResult),
}

fn to_object<T: Serialize>(value: &T) -> Result<JsonObject, Error> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(Error::internal("Handler returned an invalid result")),
        Err(e) => {
            tracing::warn!(error = %e, "could not encode a result");
            Err(Error::internal("Handler returned an invalid result"))
        }
    }
}

impl Reply {
    pub(crate) fn plain<T: Serialize>(value: &T) -> Result<Reply, Error> {
        Ok(Reply::Complete { result: to_object(value)?, cacheable: false })
    }

    pub(crate) fn cacheable<T: Serialize>(value: &T) -> Result<Reply, Error> {
        Ok(Reply::Complete { result: to_object(value)?, cacheable: true })
    }
}

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
            let mut result = to_object(&ir)?;
            result.insert("resultType".into(), Value::String(ResultType::InputRequired.as_str().into()));
            result
        }
    };
    add_server_info(server, &mut result);
    Ok(Value::Object(result))
}

/// Finish a result for a legacy (2025-11-25) session.
pub(crate) fn finish_legacy(reply: Reply) -> Result<Value, Error> {
    match reply {
        Reply::Complete { mut result, .. } => {
            result.remove("resultType");
            result.remove("ttlMs");
            result.remove("cacheScope");
            Ok(Value::Object(result))
        }
        Reply::InputRequired(_) => {
            tracing::warn!("handler returned an InputRequiredResult in a legacy session");
            Err(Error::internal("Handler returned an invalid result"))
        }
    }
}

/// A server MUST NOT send input requests the client did not declare on this request.
fn check_capabilities(ir: &InputRequiredResult, caps: &ClientCapabilities) -> Result<(), Error> {
    let mut required = ClientCapabilities::default();
    let mut missing = Vec::new();
    for request in ir.input_requests.iter().flat_map(|r| r.values()) {
        match request {
            InputRequest::Elicit(params) => {
                let (ok, mode) = match params {
                    ElicitRequestParams::Form(_) => {
                        (caps.elicitation.as_ref().is_some_and(|e| e.supports_form()), "form")
                    }
                    ElicitRequestParams::Url(_) => (caps.elicitation.as_ref().is_some_and(|e| e.supports_url()), "url"),
                };
                if !ok {
                    let e = required.elicitation.get_or_insert_with(ElicitationCapability::default);
                    if mode == "url" {
                        e.url = Some(JsonObject::new());
                    } else {
                        e.form = Some(JsonObject::new());
                    }
                    missing.push(format!("elicitation ({mode} mode)"));
                }
            }
            InputRequest::Sample(params) => {
                let sampling = caps.sampling.as_ref();
                if sampling.is_none() || (params.uses_tools() && sampling.is_some_and(|s| s.tools.is_none())) {
                    let s = required.sampling.get_or_insert_with(SamplingCapability::default);
                    if params.uses_tools() {
                        s.tools = Some(JsonObject::new());
                    }
                    missing.push("sampling".to_owned());
                }
            }
            InputRequest::ListRoots(_) => {
                if caps.roots.is_none() {
                    required.roots = Some(RootsCapability::default());
                    missing.push("roots".to_owned());
                }
            }
        }
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
