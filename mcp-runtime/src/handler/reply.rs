//! What a handler produces, before the server finishes it for the request's era.

use serde::Serialize;
use serde_json::Value;

use super::ResultObject;
use crate::Error;
use crate::protocol::{CallToolResult, InputRequiredResult, JsonObject, ResultType};

/// A handler's answer to one request.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Reply {
    /// A final result, as a JSON object. `cacheable` results get `ttlMs`/`cacheScope`
    /// hints under 2026-07-28.
    Complete {
        /// The result object (a tool's typed result stays encoded until a layer reads it).
        result: ResultObject,
        /// Whether cache hints apply.
        cacheable: bool,
    },
    /// An interim result asking the client for input (carrier methods only).
    InputRequired(InputRequiredResult),
    /// The request runs as a task (`tools/call` only, to a client that declared the
    /// tasks extension).
    Task(crate::protocol::CreateTaskResult),
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
    /// A final, non-cacheable result.
    pub fn complete(result: JsonObject) -> Reply {
        Reply::Complete { result: result.into(), cacheable: false }
    }

    /// A final result encoded from `value`, which must serialize to an object.
    pub fn plain<T: Serialize>(value: &T) -> Result<Reply, Error> {
        Ok(Reply::Complete { result: to_object(value)?.into(), cacheable: false })
    }

    /// A final, cacheable result encoded from `value`.
    pub fn cacheable<T: Serialize>(value: &T) -> Result<Reply, Error> {
        Ok(Reply::Complete { result: to_object(value)?.into(), cacheable: true })
    }

    /// A tool's final result, encoded straight to text for a 2026-07-28 response (one that
    /// sets `_meta` or another result type becomes a tree, which the server finishes the
    /// slow way).
    pub(crate) fn tool(result: CallToolResult) -> Result<Reply, Error> {
        if result.meta.is_some() || result.result_type != ResultType::Complete {
            return Reply::plain(&result);
        }
        // Room for a short result and the fields the server appends to it (`_meta` with the
        // server's name and version), so that appending them does not grow it again.
        let mut json = Vec::with_capacity(256);
        serde_json::to_writer(&mut json, &result).map_err(|e| {
            tracing::warn!(error = %e, "could not encode a result");
            Error::internal("Handler returned an invalid result")
        })?;
        let json = String::from_utf8(json).map_err(|_| Error::internal("Handler returned an invalid result"))?;
        Ok(Reply::Complete { result: ResultObject::encoded(result, json), cacheable: false })
    }

    /// The wire form of an interim result (`InputRequiredResult`, `CreateTaskResult`), as an object.
    pub(crate) fn object_of<T: Serialize>(value: &T) -> Result<JsonObject, Error> {
        to_object(value)
    }
}
