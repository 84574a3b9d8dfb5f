//! Encoding responses: a request's result (possibly encoded once and shared) and the
//! JSON-RPC response lines the transports write.

use std::sync::Arc;

use serde_json::Value;

use crate::protocol::{Error, ErrorCode, JsonRpcErrorResponse, JsonRpcResultResponse, JsonRpcVersion, RequestId};

/// A request's result: a value, or a finished response body encoded once and shared.
#[derive(Debug, Clone)]
pub(crate) enum Payload {
    Value(Value),
    Encoded(Arc<str>),
    /// A result encoded once, for this request only, and what telemetry records about it.
    Result {
        json: String,
        shape: ResultShape,
    },
}

/// What kind of result a [`Payload::Result`] holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ResultShape {
    /// A final result; `tool_error` when it is a tool result with `isError: true`.
    Complete { tool_error: bool },
    /// An `InputRequiredResult`, with its request keys (sorted, comma-separated) when a
    /// span records them.
    InputRequired { keys: Option<String> },
    /// A `CreateTaskResult`.
    Task,
}

/// The error for a request refused because too many are in flight.
pub(crate) fn busy() -> Error {
    Error {
        code: ErrorCode::SERVER_BUSY,
        message: "Server busy: too many requests in flight; retry later".into(),
        data: None,
    }
}

/// Encode a result response from a [`Payload`](Payload): an encoded
/// result is spliced in as is.
fn payload_frame(id: RequestId, payload: Payload) -> String {
    match payload {
        Payload::Value(value) => result_frame(id, value),
        Payload::Encoded(text) => encoded_frame(&id, &text),
        Payload::Result { json, .. } => encoded_frame(&id, &json),
    }
}

/// The response line around a result already encoded.
fn encoded_frame(id: &RequestId, result: &str) -> String {
    let id = serde_json::to_string(id).unwrap_or_else(|_| "null".to_owned());
    let mut frame = String::with_capacity(result.len() + id.len() + 32);
    frame.push_str(r#"{"jsonrpc":"2.0","id":"#);
    frame.push_str(&id);
    frame.push_str(r#","result":"#);
    frame.push_str(result);
    frame.push('}');
    frame
}

pub(crate) fn result_frame(id: RequestId, result: serde_json::Value) -> String {
    let response = JsonRpcResultResponse { jsonrpc: JsonRpcVersion, id, result };
    serde_json::to_string(&response)
        .unwrap_or_else(|_| r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}"#.to_owned())
}

/// The response line for a handler's outcome (`Err(())`: it panicked, answered -32603),
/// with the error code it answers, if any.
pub(crate) fn outcome_frame(id: &RequestId, outcome: Result<Result<Payload, Error>, ()>) -> (String, Option<i32>) {
    match outcome {
        Ok(Ok(result)) => (payload_frame(id.clone(), result), None),
        Ok(Err(error)) => {
            let code = error.code;
            (error_frame(Some(id.clone()), error), Some(code))
        }
        Err(()) => {
            tracing::error!(%id, "a handler panicked; answering -32603");
            let error = Error { code: ErrorCode::INTERNAL_ERROR, message: "Internal error".into(), data: None };
            (error_frame(Some(id.clone()), error), Some(ErrorCode::INTERNAL_ERROR))
        }
    }
}

/// Encode an error response.
pub(crate) fn error_frame(id: Option<RequestId>, error: Error) -> String {
    serde_json::to_string(&JsonRpcErrorResponse::new(id, error))
        .unwrap_or_else(|_| r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}"#.to_owned())
}
