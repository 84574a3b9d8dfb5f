//! Client and server capabilities.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// What a client supports. In 2026-07-28 it is sent on every request in `_meta`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// Experimental, non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<BTreeMap<String, JsonObject>>,
    /// Roots (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// Sampling (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Elicitation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Extensions, keyed by prefixed identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<BTreeMap<String, JsonObject>>,
    /// Fields from other protocol revisions (for example 2025-11-25 `tasks`), kept as sent.
    #[serde(flatten)]
    pub other: JsonObject,
}

/// The `roots` client capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    /// 2025-11-25 only: the client sends `notifications/roots/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The `sampling` client capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplingCapability {
    /// `includeContext` other than `"none"` is supported (deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// `tools` and `toolChoice` are supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
}

/// The `elicitation` client capability. `{}` means form mode only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCapability {
    /// Form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
}

impl ElicitationCapability {
    /// Whether form mode is supported (`{}` counts as form).
    pub fn supports_form(&self) -> bool {
        self.form.is_some() || self.url.is_none()
    }

    /// Whether URL mode is supported.
    pub fn supports_url(&self) -> bool {
        self.url.is_some()
    }
}

/// What a server supports.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// Experimental, non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<BTreeMap<String, JsonObject>>,
    /// Log messages (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// Argument completion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListCapability>,
    /// Resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListCapability>,
    /// Extensions, keyed by prefixed identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<BTreeMap<String, JsonObject>>,
}

/// A capability whose only option is `listChanged`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListCapability {
    /// The server notifies when the list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The `resources` server capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// The server honours resource subscriptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server notifies when the list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The capability `request` needs that `caps` lacks: a label for messages, and the
/// capability as `requiredCapabilities` shows it.
#[cfg(feature = "server")]
pub(crate) fn missing_capability(
    request: &super::InputRequest,
    caps: &ClientCapabilities,
) -> Option<(&'static str, ClientCapabilities)> {
    use super::ElicitRequestParams;
    let mut required = ClientCapabilities::default();
    let label = match request {
        super::InputRequest::Elicit(ElicitRequestParams::Form(_)) => {
            if caps.elicitation.as_ref().is_some_and(|e| e.supports_form()) {
                return None;
            }
            required.elicitation = Some(ElicitationCapability { form: Some(JsonObject::new()), ..Default::default() });
            "form elicitation"
        }
        super::InputRequest::Elicit(ElicitRequestParams::Url(_)) => {
            if caps.elicitation.as_ref().is_some_and(|e| e.supports_url()) {
                return None;
            }
            required.elicitation = Some(ElicitationCapability { url: Some(JsonObject::new()), ..Default::default() });
            "URL elicitation"
        }
        super::InputRequest::Sample(params) => {
            let tools = params.uses_tools();
            match &caps.sampling {
                Some(s) if !tools || s.tools.is_some() => return None,
                _ => {}
            }
            let mut sampling = SamplingCapability::default();
            if tools {
                sampling.tools = Some(JsonObject::new());
            }
            required.sampling = Some(sampling);
            if tools { "sampling with tools" } else { "sampling" }
        }
        super::InputRequest::ListRoots(_) => {
            if caps.roots.is_some() {
                return None;
            }
            required.roots = Some(RootsCapability::default());
            "roots"
        }
    };
    Some((label, required))
}
