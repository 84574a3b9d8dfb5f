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
    const HEAD: &str = r#"{"jsonrpc":"2.0","id":"#;
    const RESULT: &str = r#","result":"#;
    let mut frame = String::with_capacity(HEAD.len() + 24 + RESULT.len() + result.len() + 1);
    frame.push_str(HEAD);
    match id {
        // A number is written in place (most clients number their requests): no string
        // of its own to encode it into and copy.
        RequestId::Number(n) => {
            use std::fmt::Write as _;
            let _ = write!(frame, "{n}");
        }
        RequestId::String(_) => frame.push_str(&serde_json::to_string(id).unwrap_or_else(|_| "null".to_owned())),
    }
    frame.push_str(RESULT);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A result spliced in as text frames exactly as the same result encoded as a tree,
    /// whatever the id: numbers written in place, strings escaped.
    #[test]
    fn encoded_frames_match_frames_of_the_tree() {
        let result = serde_json::json!({"content": [{"type": "text", "text": "a \"quoted\" é"}], "isError": false});
        let text = result.to_string();
        let ids = [
            RequestId::from(0),
            RequestId::from(-7),
            RequestId::Number(u64::MAX.into()),
            RequestId::from("call-1"),
            RequestId::from("quote \" and \\ and \u{1}"),
            RequestId::from(""),
        ];
        for id in ids {
            let tree = result_frame(id.clone(), result.clone());
            assert_eq!(encoded_frame(&id, &text), tree, "{id}");
            let shared: Arc<str> = text.clone().into();
            assert_eq!(payload_frame(id.clone(), Payload::Encoded(shared)), tree, "{id}");
        }
    }
}
