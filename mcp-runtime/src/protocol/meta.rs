//! Protocol versions and the reserved `_meta` keys that carry them.

use serde::{Deserialize, Serialize};

use super::{ClientCapabilities, Implementation, JsonObject, LoggingLevel, ProgressToken};

/// The modern protocol revision this crate implements.
pub const LATEST_PROTOCOL_VERSION: &str = "2026-07-28";

/// The legacy (initialize-based) revision this crate implements.
pub const LATEST_LEGACY_PROTOCOL_VERSION: &str = "2025-11-25";

/// Modern versions served statelessly with per-request `_meta`.
pub const SUPPORTED_MODERN_VERSIONS: &[&str] = &[LATEST_PROTOCOL_VERSION];

/// Legacy versions accepted by `initialize`, newest first. Each session gets only what its
/// revision defines (see [`Revision`](super::Revision)).
pub const SUPPORTED_LEGACY_VERSIONS: &[&str] =
    &[LATEST_LEGACY_PROTOCOL_VERSION, "2025-06-18", "2025-03-26", "2024-11-05"];

/// Reserved `_meta` keys.
pub mod keys {
    /// Request: the protocol version (required in 2026-07-28).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// Request: the client's capabilities for this request (required).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// Request: the client's name and version.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// Request: minimum severity of log messages for this request.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// Result: the server's name and version.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// Notification: the `subscriptions/listen` request this belongs to.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// Request: the progress token.
    pub const PROGRESS_TOKEN: &str = "progressToken";
}

/// The `_meta` object of a request, with the reserved keys typed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion`.
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// `io.modelcontextprotocol/clientCapabilities`.
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default, skip_serializing_if = "Option::is_none")]
    pub client_capabilities: Option<ClientCapabilities>,
    /// `io.modelcontextprotocol/clientInfo`.
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
    /// `io.modelcontextprotocol/logLevel`.
    #[serde(rename = "io.modelcontextprotocol/logLevel", default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LoggingLevel>,
    /// `progressToken`.
    #[serde(rename = "progressToken", default, skip_serializing_if = "Option::is_none")]
    pub progress_token: Option<ProgressToken>,
    /// Every other key, kept as sent.
    #[serde(flatten)]
    pub other: JsonObject,
}

impl RequestMeta {
    /// Meta for a modern request at the latest version with the given capabilities.
    pub fn modern(client_capabilities: ClientCapabilities) -> Self {
        RequestMeta {
            protocol_version: Some(LATEST_PROTOCOL_VERSION.to_owned()),
            client_capabilities: Some(client_capabilities),
            ..Default::default()
        }
    }
}
