//! What can go wrong in a client call.

use crate::protocol::ErrorObject;

/// A failed client call.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    Rpc(ErrorObject),
    /// The connection failed or closed (I/O, HTTP status without a JSON-RPC body, ...).
    Transport(String),
    /// The server answered with an HTTP error status and no JSON-RPC error in the body.
    Http {
        /// The status code.
        status: u16,
        /// The start of the body, for diagnosis.
        body: String,
    },
    /// The server's answer breaks the protocol (unknown `resultType`, malformed result, ...).
    Protocol(String),
    /// The call still needed input after this many rounds (`input_required_max_rounds`).
    RoundsExceeded {
        /// The configured limit.
        max_rounds: usize,
    },
    /// A callback answering the server's question failed; the call was abandoned.
    Callback {
        /// The question's key (2026-07-28) or the server's request method (2025-11-25).
        key: String,
        /// What the callback returned.
        error: ErrorObject,
    },
    /// The call did not finish within its timeout (it was cancelled).
    Timeout,
    /// No protocol version both sides support.
    Unsupported(String),
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Rpc(e) => write!(f, "server error {}: {}", e.code, e.message),
            ClientError::Transport(why) => write!(f, "transport error: {why}"),
            ClientError::Http { status, body } => write!(f, "HTTP {status}: {body}"),
            ClientError::Protocol(why) => write!(f, "protocol error: {why}"),
            ClientError::RoundsExceeded { max_rounds } => {
                write!(f, "the server still required input after {max_rounds} rounds")
            }
            ClientError::Callback { key, error } => {
                write!(f, "the callback for '{key}' failed: {} ({})", error.message, error.code)
            }
            ClientError::Timeout => write!(f, "the call timed out"),
            ClientError::Unsupported(why) => write!(f, "no common protocol version: {why}"),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<ErrorObject> for ClientError {
    fn from(e: ErrorObject) -> Self {
        ClientError::Rpc(e)
    }
}

impl ClientError {
    /// The JSON-RPC error code, when the server sent one.
    pub fn code(&self) -> Option<i32> {
        match self {
            ClientError::Rpc(e) => Some(e.code),
            _ => None,
        }
    }
}
