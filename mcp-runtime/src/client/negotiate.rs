//! Era detection: probe `server/discover` (2026-07-28) and fall back to the `initialize`
//! handshake when the server does not speak it.

use serde_json::Value;

use super::ClientError;
use super::link::{LinkEra, Outgoing};
use super::session::{Inner, LEGACY_VERSION, LEGACY_VERSIONS, MODERN_VERSIONS, Mode, adopt_discover, adopt_initialize};
use crate::protocol::{DiscoverResult, ErrorCode, InitializeParams, InitializeResult, JsonObject, methods};

pub(crate) async fn negotiate(inner: &mut Inner, mode: &Mode) -> Result<(), ClientError> {
    match mode {
        Mode::Legacy => initialize(inner).await,
        Mode::Modern(version) => {
            if !MODERN_VERSIONS.contains(&version.as_str()) {
                return Err(ClientError::Unsupported(format!(
                    "{version} is not a modern version this client speaks ({})",
                    MODERN_VERSIONS.join(", ")
                )));
            }
            inner.era = LinkEra::Modern(version.clone());
            inner.link.set_era(inner.era.clone());
            // No probe: the server's details come from a discover that may fail harmlessly.
            if let Ok(result) = discover(inner).await {
                adopt_discover(inner, result, version);
            }
            Ok(())
        }
        Mode::Auto => match discover(inner).await {
            Ok(result) => match MODERN_VERSIONS.iter().find(|v| result.supported_versions.iter().any(|s| s == *v)) {
                Some(version) => {
                    adopt_discover(inner, result, version);
                    Ok(())
                }
                None => initialize(inner).await,
            },
            Err(ClientError::Rpc(e)) if e.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => {
                let supported: Vec<String> = e
                    .data
                    .as_ref()
                    .and_then(|d| d.get("supported"))
                    .and_then(|s| serde_json::from_value(s.clone()).ok())
                    .unwrap_or_default();
                let modern_only = !supported.is_empty() && supported.iter().all(|v| v.as_str() >= "2026");
                if modern_only {
                    return Err(ClientError::Unsupported(format!(
                        "the server supports {} only; this client speaks {}",
                        supported.join(", "),
                        MODERN_VERSIONS.join(", ")
                    )));
                }
                initialize(inner).await
            }
            // A legacy server: a JSON-RPC error, or an HTTP 4xx without one.
            Err(ClientError::Rpc(_)) => initialize(inner).await,
            Err(ClientError::Http { status, .. }) if (400..500).contains(&status) => initialize(inner).await,
            Err(e) => Err(e),
        },
    }
}

async fn discover(inner: &Inner) -> Result<DiscoverResult, ClientError> {
    let value = inner.send(Outgoing::new(methods::SERVER_DISCOVER, JsonObject::new())).await?;
    serde_json::from_value(value).map_err(|e| ClientError::Protocol(format!("malformed server/discover result: {e}")))
}

async fn initialize(inner: &mut Inner) -> Result<(), ClientError> {
    inner.era = LinkEra::Legacy(LEGACY_VERSION.to_owned());
    inner.link.set_era(inner.era.clone());
    let params = InitializeParams {
        protocol_version: LEGACY_VERSION.to_owned(),
        capabilities: inner.capabilities.clone(),
        client_info: inner.info.clone(),
        meta: None,
    };
    let params = match serde_json::to_value(params) {
        Ok(Value::Object(map)) => map,
        _ => JsonObject::new(),
    };
    let value = inner.link.request(Outgoing::new(methods::INITIALIZE, params)).await?;
    let result: InitializeResult = serde_json::from_value(value)
        .map_err(|e| ClientError::Protocol(format!("malformed initialize result: {e}")))?;
    if !LEGACY_VERSIONS.contains(&result.protocol_version.as_str()) {
        return Err(ClientError::Unsupported(format!(
            "the server answered initialize with {}",
            result.protocol_version
        )));
    }
    inner.era = LinkEra::Legacy(result.protocol_version.clone());
    inner.link.set_era(inner.era.clone());
    adopt_initialize(inner, result);
    inner.link.notify(methods::NOTIFICATION_INITIALIZED, JsonObject::new()).await?;
    inner.link.open_listen_stream().await;
    if let Some(level) = inner.log_level {
        let mut params = JsonObject::new();
        params.insert("level".into(), serde_json::to_value(level).unwrap_or_default());
        inner.send(Outgoing::new(methods::LOGGING_SET_LEVEL, params)).await?;
    }
    Ok(())
}
