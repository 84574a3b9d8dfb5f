//! Client and server capabilities.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// What a client supports. In 2026-07-28 it is sent on every request in `_meta`.
///
/// Read by hand rather than with `#[serde(flatten)]` (which buffers the whole object
/// before reading a field): it arrives with every 2026-07-28 request.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
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

impl<'de> Deserialize<'de> for ClientCapabilities {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ClientCapabilitiesVisitor)
    }
}

struct ClientCapabilitiesVisitor;

impl<'de> serde::de::Visitor<'de> for ClientCapabilitiesVisitor {
    type Value = ClientCapabilities;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a client capabilities object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ClientCapabilities, A::Error> {
        use serde::de::Error as _;
        const FIELDS: [&str; 5] = ["experimental", "roots", "sampling", "elicitation", "extensions"];
        let mut caps = ClientCapabilities::default();
        let mut seen = [false; 5];
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let Some(index) = FIELDS.iter().position(|field| *field == key) else {
                let value: serde_json::Value = map.next_value()?;
                if caps.other.insert(key.into_owned(), value).is_some() {
                    return Err(A::Error::custom("duplicate key in client capabilities"));
                }
                continue;
            };
            if std::mem::replace(&mut seen[index], true) {
                return Err(A::Error::duplicate_field(FIELDS[index]));
            }
            match index {
                0 => caps.experimental = map.next_value()?,
                1 => caps.roots = map.next_value()?,
                2 => caps.sampling = map.next_value()?,
                3 => caps.elicitation = map.next_value()?,
                _ => caps.extensions = map.next_value()?,
            }
        }
        Ok(caps)
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn client_capabilities_read_every_field_and_keep_the_rest() {
        let sent = json!({
            "experimental": {"x": {"a": 1}},
            "roots": {"listChanged": true},
            "sampling": {"tools": {}},
            "elicitation": {"form": {}, "url": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
            "tasks": {"requests": {"tools": {"call": {}}}}
        });
        let caps: ClientCapabilities = serde_json::from_value(sent.clone()).expect("test value");
        assert_eq!(caps.roots.as_ref().and_then(|r| r.list_changed), Some(true));
        assert!(caps.sampling.as_ref().is_some_and(|s| s.tools.is_some()));
        assert!(caps.elicitation.as_ref().is_some_and(|e| e.supports_url() && e.supports_form()));
        assert!(caps.extensions.as_ref().is_some_and(|e| e.contains_key("io.modelcontextprotocol/tasks")));
        assert_eq!(caps.experimental.as_ref().map(BTreeMap::len), Some(1));
        assert_eq!(caps.other.keys().collect::<Vec<_>>(), ["tasks"]);
        assert_eq!(serde_json::to_value(&caps).expect("test value"), sent);
        assert_eq!(serde_json::from_str::<ClientCapabilities>(&sent.to_string()).expect("test value"), caps);
        assert_eq!(
            serde_json::from_value::<ClientCapabilities>(json!({})).expect("test value"),
            ClientCapabilities::default()
        );
    }

    #[test]
    fn client_capabilities_refuse_what_the_derive_refused() {
        let read = |v: serde_json::Value| serde_json::from_value::<ClientCapabilities>(v);
        assert!(read(json!({"elicitation": "form"})).is_err());
        assert!(read(json!({"roots": {"listChanged": "yes"}})).is_err());
        assert!(read(json!([])).is_err());
        assert!(read(json!(null)).is_err());
        assert!(serde_json::from_str::<ClientCapabilities>(r#"{"roots":{},"roots":{}}"#).is_err());
        assert_eq!(read(json!({"sampling": null})).expect("test value"), ClientCapabilities::default());
    }
}
