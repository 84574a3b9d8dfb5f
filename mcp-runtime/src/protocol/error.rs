//! The one JSON-RPC error type: what a handler returns, what the client receives, and
//! the `error` member of an error response on the wire.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{ClientCapabilities, ErrorCode, SUPPORTED_MODERN_VERSIONS};

/// A protocol-level error: a JSON-RPC error with a code, a message and optional data.
/// Handlers return it, the client receives it, and it is the wire form of the `error`
/// member of an error response.
///
/// Tool failures the model should see are not errors: return a
/// [`CallToolResult::error`](crate::protocol::CallToolResult::error) instead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Error {
    /// The JSON-RPC error code (see [`ErrorCode`]).
    pub code: i32,
    /// A message safe to show the client.
    pub message: String,
    /// Structured detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl Error {
    /// An error with a code and a message.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Error { code, message: message.into(), data: None }
    }

    /// Attach structured data.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32602` Invalid params.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::INVALID_PARAMS, message)
    }

    /// `-32601` for a method this server does not serve.
    pub fn method_not_found(method: &str) -> Self {
        Error::new(ErrorCode::METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    /// `-32603` Internal error.
    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::INTERNAL_ERROR, message)
    }

    /// `-32602` for a tool name the server does not know.
    pub fn unknown_tool(name: &str) -> Self {
        Error::invalid_params(format!("Unknown tool: {name}"))
    }

    /// `-32602` for a prompt name the server does not know.
    pub fn unknown_prompt(name: &str) -> Self {
        Error::invalid_params(format!("Unknown prompt: {name}"))
    }

    /// `-32602` "Resource not found" with `data.uri` (2026-07-28 replaces `-32002`).
    pub fn resource_not_found(uri: &str) -> Self {
        Error::invalid_params("Resource not found").with_data(json!({ "uri": uri }))
    }

    /// `-32022` with `data.supported` and `data.requested`.
    pub fn unsupported_protocol_version(requested: &str) -> Self {
        Error::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
            .with_data(json!({ "supported": SUPPORTED_MODERN_VERSIONS, "requested": requested }))
    }

    /// `-32021` with `data.requiredCapabilities`.
    pub fn missing_client_capability(message: impl Into<String>, required: &ClientCapabilities) -> Self {
        let required = serde_json::to_value(required).unwrap_or_else(|_| json!({}));
        Error::new(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
            .with_data(json!({ "requiredCapabilities": required }))
    }

    /// `-32003` "Insufficient scope: requires a b", with `data.requiredScopes`: the caller's token lacks
    /// scopes this request needs (OAuth step-up). Name every scope the request needs, in
    /// one error. Over HTTP, when the endpoint is a
    /// protected resource (`HttpConfig::protected_resource`), the answer
    /// is a 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…",
    /// resource_metadata="…"`, so the client can ask its authorization server for more.
    ///
    /// ```
    /// let error = mcp::Error::insufficient_scope(["db:write"]);
    /// assert_eq!(error.code, mcp::protocol::ErrorCode::INSUFFICIENT_SCOPE);
    /// assert_eq!(error.data, Some(mcp::serde_json::json!({"requiredScopes": ["db:write"]})));
    /// ```
    pub fn insufficient_scope<I>(scopes: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let scopes: Vec<String> = scopes.into_iter().map(Into::into).collect();
        let message = format!("Insufficient scope: requires {}", scopes.join(" "));
        Error::new(ErrorCode::INSUFFICIENT_SCOPE, message).with_data(json!({ "requiredScopes": scopes }))
    }

    /// The scopes an [`insufficient_scope`](Self::insufficient_scope) error names, if it is one.
    pub fn required_scopes(&self) -> Option<Vec<String>> {
        if self.code != ErrorCode::INSUFFICIENT_SCOPE {
            return None;
        }
        let scopes = self.data.as_ref()?.get("requiredScopes")?.as_array()?;
        Some(scopes.iter().filter_map(Value::as_str).map(str::to_owned).collect())
    }

    /// `-32020` Header mismatch.
    pub fn header_mismatch(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::HEADER_MISMATCH, message)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for Error {}
