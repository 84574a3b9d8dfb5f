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
///
/// Read by hand rather than with `#[serde(flatten)]`, which buffers the whole object
/// before reading any field of it: `_meta` arrives with every 2026-07-28 request.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
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

impl<'de> Deserialize<'de> for RequestMeta {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(RequestMetaVisitor)
    }
}

struct RequestMetaVisitor;

impl<'de> serde::de::Visitor<'de> for RequestMetaVisitor {
    type Value = RequestMeta;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a _meta object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<RequestMeta, A::Error> {
        use serde::de::Error as _;
        let mut meta = RequestMeta::default();
        let mut seen = [false; 5];
        let mut once = |index: usize, key: &'static str| {
            if std::mem::replace(&mut seen[index], true) {
                return Err(A::Error::duplicate_field(key));
            }
            Ok(())
        };
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                keys::PROTOCOL_VERSION => {
                    once(0, keys::PROTOCOL_VERSION)?;
                    meta.protocol_version = map.next_value()?;
                }
                keys::CLIENT_CAPABILITIES => {
                    once(1, keys::CLIENT_CAPABILITIES)?;
                    meta.client_capabilities = map.next_value()?;
                }
                keys::CLIENT_INFO => {
                    once(2, keys::CLIENT_INFO)?;
                    meta.client_info = map.next_value()?;
                }
                keys::LOG_LEVEL => {
                    once(3, keys::LOG_LEVEL)?;
                    meta.log_level = map.next_value()?;
                }
                keys::PROGRESS_TOKEN => {
                    once(4, keys::PROGRESS_TOKEN)?;
                    meta.progress_token = map.next_value()?;
                }
                _ => {
                    let value: serde_json::Value = map.next_value()?;
                    if meta.other.insert(key.into_owned(), value).is_some() {
                        return Err(A::Error::custom("duplicate key in _meta"));
                    }
                }
            }
        }
        Ok(meta)
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_meta_reads_reserved_keys_typed_and_keeps_the_rest() {
        let sent = json!({
            keys::PROTOCOL_VERSION: "2026-07-28",
            keys::CLIENT_CAPABILITIES: {"elicitation": {"form": {}}},
            keys::CLIENT_INFO: {"name": "c", "version": "1"},
            keys::LOG_LEVEL: "debug",
            "progressToken": 7,
            "traceparent": "00-abc-def-01",
            "vendor/x": {"nested": [1, 2]}
        });
        let meta: RequestMeta = serde_json::from_value(sent.clone()).expect("test value");
        assert_eq!(meta.protocol_version.as_deref(), Some("2026-07-28"));
        assert!(meta.client_capabilities.as_ref().and_then(|c| c.elicitation.as_ref()).is_some());
        assert_eq!(meta.client_info.as_ref().map(|i| i.name.as_str()), Some("c"));
        assert_eq!(meta.log_level, Some(LoggingLevel::Debug));
        assert_eq!(meta.progress_token, Some(ProgressToken::Number(7.into())));
        assert_eq!(meta.other.len(), 2);
        assert_eq!(meta.other["vendor/x"], json!({"nested": [1, 2]}));
        // Written back, it is what was sent; read from text, it is the same.
        assert_eq!(serde_json::to_value(&meta).expect("test value"), sent);
        assert_eq!(serde_json::from_str::<RequestMeta>(&sent.to_string()).expect("test value"), meta);
    }

    #[test]
    fn request_meta_refuses_what_the_derive_refused() {
        let read = |v: serde_json::Value| serde_json::from_value::<RequestMeta>(v);
        assert_eq!(read(json!({keys::PROTOCOL_VERSION: null})).expect("test value"), RequestMeta::default());
        assert!(read(json!({keys::PROTOCOL_VERSION: 5})).is_err());
        assert!(read(json!({keys::LOG_LEVEL: "loud"})).is_err());
        assert!(read(json!({keys::CLIENT_CAPABILITIES: []})).is_err());
        assert!(read(json!("not an object")).is_err());
        let twice = format!(r#"{{"{0}":"a","{0}":"b"}}"#, keys::PROTOCOL_VERSION);
        assert!(serde_json::from_str::<RequestMeta>(&twice).is_err());
    }
}
