//! The JSON-RPC 2.0 envelope: ids, requests, notifications, responses and errors.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::envelope::{Members, ParamsIn, TopLevel, read_message};
use super::{Error, JsonObject, Params};

/// The only JSON-RPC version MCP speaks.
pub const JSONRPC_VERSION: &str = "2.0";

/// A JSON-RPC request id: a string or a number (never null in a request).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A numeric id, kept as written (integers and floats alike).
    Number(serde_json::Number),
    /// A string id.
    String(String),
}

impl From<i64> for RequestId {
    fn from(value: i64) -> Self {
        RequestId::Number(value.into())
    }
}

impl From<&str> for RequestId {
    fn from(value: &str) -> Self {
        RequestId::String(value.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(value: String) -> Self {
        RequestId::String(value)
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// Marker that serializes as `"2.0"` and accepts nothing else.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(JSONRPC_VERSION)
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        if s == JSONRPC_VERSION { Ok(JsonRpcVersion) } else { Err(serde::de::Error::custom("jsonrpc must be \"2.0\"")) }
    }
}

/// A request: it has an id and expects exactly one response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcRequest<P = JsonObject> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id the response must echo.
    pub id: RequestId,
    /// The method name, e.g. `tools/call`.
    pub method: String,
    /// The parameters.
    // No `default`: a missing `Option` is `None` anyway, and `default` would make serde
    // require `P: Default`, ruling out typed params such as `CallToolParams`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// A notification: no id, no response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcNotification<P = JsonObject> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The method name, e.g. `notifications/progress`.
    pub method: String,
    /// The parameters.
    // No `default`: a missing `Option` is `None` anyway, and `default` would make serde
    // require `P: Default`, ruling out typed params such as `CallToolParams`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

impl<P> JsonRpcNotification<P> {
    /// A notification of `method` with `params`.
    pub fn new(method: impl Into<String>, params: Option<P>) -> Self {
        JsonRpcNotification { jsonrpc: JsonRpcVersion, method: method.into(), params }
    }
}

/// A successful response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcResultResponse<R = Value> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result.
    pub result: R,
}

/// An error response. The id is absent only when the request's id could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcErrorResponse {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers, when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The error.
    pub error: Error,
}

impl JsonRpcErrorResponse {
    /// An error response for `id`.
    pub fn new(id: Option<RequestId>, error: Error) -> Self {
        JsonRpcErrorResponse { jsonrpc: JsonRpcVersion, id, error }
    }
}

/// Error codes defined by JSON-RPC 2.0 and MCP 2026-07-28.
pub struct ErrorCode;

impl ErrorCode {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i32 = -32700;
    /// The JSON is not a valid request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Invalid method parameters, missing `_meta`, unknown tool or prompt, resource not found.
    pub const INVALID_PARAMS: i32 = -32602;
    /// Internal error.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// An HTTP header is missing, malformed, or does not match the body.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// The server needs a client capability this request did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
    /// The request's protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
    /// The server is at its limit of requests in flight; retry later.
    pub const SERVER_BUSY: i32 = -32000;
    /// The handler ran longer than the server's handler timeout and was cancelled.
    pub const REQUEST_TIMEOUT: i32 = -32001;
    /// The caller's token lacks scopes this request needs (this runtime's code; over HTTP,
    /// a 403 with an `insufficient_scope` challenge). See [`Error::insufficient_scope`].
    pub const INSUFFICIENT_SCOPE: i32 = -32003;
}

/// A decoded message of any kind, with its params or result left as JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonRpcMessage {
    /// A request. Its params keep the text they arrived as (see [`Params`]).
    Request(JsonRpcRequest<Params>),
    /// A notification.
    Notification(JsonRpcNotification),
    /// A successful response.
    Result(JsonRpcResultResponse),
    /// An error response.
    Error(JsonRpcErrorResponse),
}

impl Serialize for JsonRpcMessage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            JsonRpcMessage::Request(m) => m.serialize(serializer),
            JsonRpcMessage::Notification(m) => m.serialize(serializer),
            JsonRpcMessage::Result(m) => m.serialize(serializer),
            JsonRpcMessage::Error(m) => m.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for JsonRpcMessage {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        JsonRpcMessage::from_value(value).map_err(|e| serde::de::Error::custom(e.message))
    }
}

impl JsonRpcMessage {
    /// Classify a JSON value as a message, or say why it is not one.
    ///
    /// The error carries the code a server answers with (`-32600` for anything that is
    /// not a well-formed message) and the request id when one could be read.
    pub fn from_value(value: Value) -> Result<Self, Box<DecodeError>> {
        match value {
            Value::Object(object) => Self::from_members(Members::of_object(object)),
            Value::Array(_) => Err(not_an_object(true)),
            _ => Err(not_an_object(false)),
        }
    }

    /// The message that an object with these members is.
    fn from_members(members: Members) -> Result<Self, Box<DecodeError>> {
        let Members { id, jsonrpc, params, method, error, result } = members;
        let id = match id {
            None => None,
            Some(Value::String(s)) => Some(RequestId::String(s)),
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(RequestId::Number(n)),
            Some(Value::Null) if error.is_some() => None,
            Some(_) => {
                return Err(Box::new(DecodeError::invalid(None, "Invalid Request: id must be a string or an integer")));
            }
        };
        if jsonrpc != Some(true) {
            return Err(Box::new(DecodeError::invalid(id, "Invalid Request: jsonrpc must be \"2.0\"")));
        }
        let params = match params {
            None | Some(ParamsIn::Null) => None,
            Some(ParamsIn::Object(p)) => Some(p),
            Some(ParamsIn::Other) => {
                return Err(Box::new(DecodeError {
                    id,
                    code: ErrorCode::INVALID_PARAMS,
                    message: "Invalid params: params must be a JSON object".into(),
                    method: method.as_ref().and_then(Value::as_str).map(str::to_owned),
                }));
            }
        };
        if let Some(method) = method {
            let Value::String(method) = method else {
                return Err(Box::new(DecodeError::invalid(id, "Invalid Request: method must be a string")));
            };
            return Ok(match id {
                Some(id) => JsonRpcMessage::Request(JsonRpcRequest { jsonrpc: JsonRpcVersion, id, method, params }),
                None => JsonRpcMessage::Notification(JsonRpcNotification::new(method, params.map(Params::into_object))),
            });
        }
        if let Some(error) = error {
            let error: Error = serde_json::from_value(error)
                .map_err(|_| DecodeError::invalid(id.clone(), "Invalid Request: malformed error object"))?;
            return Ok(JsonRpcMessage::Error(JsonRpcErrorResponse::new(id, error)));
        }
        match (id, result) {
            (Some(id), Some(result)) => {
                Ok(JsonRpcMessage::Result(JsonRpcResultResponse { jsonrpc: JsonRpcVersion, id, result }))
            }
            (id, _) => Err(Box::new(DecodeError::invalid(
                id,
                "Invalid Request: expected a request, a notification or a response",
            ))),
        }
    }
}

/// The error for a message that is not a JSON object: a batch (an array) or anything else.
fn not_an_object(array: bool) -> Box<DecodeError> {
    let message = if array {
        "Invalid Request: batches are not supported; send one JSON-RPC message at a time"
    } else {
        "Invalid Request: a JSON-RPC message must be a JSON object"
    };
    Box::new(DecodeError::invalid(None, message))
}

/// Why bytes could not be decoded as a JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    /// The request id, when it could be read.
    pub id: Option<RequestId>,
    /// The JSON-RPC error code to answer with.
    pub code: i32,
    /// A message safe to send back to the peer.
    pub message: String,
    /// The method, when it could be read.
    pub method: Option<String>,
}

impl DecodeError {
    fn invalid(id: Option<RequestId>, message: &str) -> Self {
        DecodeError { id, code: ErrorCode::INVALID_REQUEST, message: message.to_owned(), method: None }
    }

    /// The error object to send back.
    pub fn to_error_object(&self) -> Error {
        Error { code: self.code, message: self.message.clone(), data: None }
    }
}

/// Decode one message from text, nested at most
/// [`DEFAULT_MAX_JSON_DEPTH`](super::DEFAULT_MAX_JSON_DEPTH) levels.
///
/// Malformed JSON is a `-32700` parse error; JSON nested too deeply, with a duplicate key,
/// or that is not a message is `-32600`.
pub fn decode_message(text: &str) -> Result<JsonRpcMessage, Box<DecodeError>> {
    decode_message_with(text, super::DEFAULT_MAX_JSON_DEPTH)
}

/// [`decode_message`] with an explicit nesting limit (every `{` and `[` counts, the
/// message object included; `serde_json` itself stops at 128).
pub fn decode_message_with(text: &str, max_depth: usize) -> Result<JsonRpcMessage, Box<DecodeError>> {
    // The top level is read member by member (no map of it is built); every value in it
    // is read as `parse_strict` reads.
    let top = read_message(text, max_depth).map_err(|e| {
        let (code, message) = match e {
            super::StrictJsonError::Syntax => (ErrorCode::PARSE_ERROR, "Parse error: Invalid JSON".to_owned()),
            super::StrictJsonError::TooDeep => {
                tracing::warn!(limit = max_depth, "rejecting a message nested too deeply");
                (ErrorCode::INVALID_REQUEST, format!("Invalid Request: JSON nested deeper than {max_depth} levels"))
            }
            super::StrictJsonError::DuplicateKey => {
                tracing::warn!("rejecting a message with a duplicate JSON key");
                (ErrorCode::INVALID_REQUEST, "Invalid Request: duplicate key in a JSON object".to_owned())
            }
        };
        Box::new(DecodeError { id: None, code, message, method: None })
    })?;
    match top {
        TopLevel::Object(members) => JsonRpcMessage::from_members(members),
        TopLevel::Array => Err(not_an_object(true)),
        TopLevel::Scalar => Err(not_an_object(false)),
    }
}
