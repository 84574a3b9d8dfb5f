//! The protocol revisions and what each one has.
//!
//! A legacy session negotiates one of four `initialize` revisions. The server's types are
//! the newest ones, so a result for an older revision is trimmed to the fields and content
//! types that revision defines ([`downgrade_result`]): a client pinned to 2024-11-05 never
//! sees `structuredContent`, `outputSchema`, `title` or `icons`, none of which it knows.

// Trimming results is the server's job; a client-only build keeps just `Revision`.
#![cfg_attr(not(feature = "server"), allow(dead_code))]

use serde_json::Value;

use super::{JsonObject, methods};

/// A protocol revision, oldest first (they compare by date).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Revision {
    /// 2024-11-05: the first revision.
    V2024_11_05,
    /// 2025-03-26: tool annotations, audio content, the `completions` capability.
    V2025_03_26,
    /// 2025-06-18: structured tool output, titles, elicitation, resource links.
    V2025_06_18,
    /// 2025-11-25: icons, URL elicitation, sampling with tools, tasks.
    V2025_11_25,
    /// 2026-07-28: stateless requests with per-request `_meta`.
    V2026_07_28,
}

impl Revision {
    /// Every revision, oldest first.
    pub const ALL: [Revision; 5] = [
        Revision::V2024_11_05,
        Revision::V2025_03_26,
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ];

    /// The revision named `version` (`"2025-06-18"`), if this crate speaks it.
    ///
    /// ```
    /// use mcp::protocol::Revision;
    ///
    /// assert_eq!(Revision::parse("2024-11-05"), Some(Revision::V2024_11_05));
    /// assert!(Revision::parse("2025-06-18") < Revision::parse("2025-11-25"));
    /// assert_eq!(Revision::parse("2023-01-01"), None);
    /// ```
    pub fn parse(version: &str) -> Option<Revision> {
        Revision::ALL.into_iter().find(|r| r.as_str() == version)
    }

    /// The revision's date, as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Revision::V2024_11_05 => "2024-11-05",
            Revision::V2025_03_26 => "2025-03-26",
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether the server may ask the user through `elicitation/create` (form mode).
    pub fn has_elicitation(self) -> bool {
        self >= Revision::V2025_06_18
    }

    /// Whether URL-mode elicitation exists.
    pub fn has_url_elicitation(self) -> bool {
        self >= Revision::V2025_11_25
    }

    /// Whether a sampling request may offer tools.
    pub fn has_sampling_tools(self) -> bool {
        self >= Revision::V2025_11_25
    }

    /// Whether progress notifications carry a `message`.
    pub fn has_progress_message(self) -> bool {
        self >= Revision::V2025_03_26
    }
}

impl std::fmt::Display for Revision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Trim the result of `method` to what `revision` defines. Results for 2025-11-25 and later
/// are left as they are.
pub(crate) fn downgrade_result(method: &str, result: &mut JsonObject, revision: Revision) {
    if revision >= Revision::V2025_11_25 {
        return;
    }
    match method {
        methods::INITIALIZE => initialize(result, revision),
        methods::TOOLS_LIST => each(result, "tools", |tool| self::tool(tool, revision)),
        methods::PROMPTS_LIST => each(result, "prompts", |prompt| self::prompt(prompt, revision)),
        methods::RESOURCES_LIST => each(result, "resources", |resource| listed(resource, revision)),
        methods::RESOURCES_TEMPLATES_LIST => each(result, "resourceTemplates", |template| listed(template, revision)),
        methods::TOOLS_CALL => {
            if revision < Revision::V2025_06_18 {
                result.remove("structuredContent");
            }
            if let Some(Value::Array(content)) = result.get_mut("content") {
                content.iter_mut().for_each(|block| content_block(block, revision));
            }
        }
        methods::PROMPTS_GET => {
            if let Some(Value::Array(messages)) = result.get_mut("messages") {
                for message in messages.iter_mut() {
                    if let Some(block) = message.get_mut("content") {
                        content_block(block, revision);
                    }
                }
            }
        }
        methods::RESOURCES_READ => each(result, "contents", |contents| {
            if revision < Revision::V2025_06_18 {
                contents.remove("_meta");
            }
        }),
        _ => {}
    }
}

/// Apply `f` to every object in the array `result[key]`.
fn each(result: &mut JsonObject, key: &str, mut f: impl FnMut(&mut JsonObject)) {
    if let Some(Value::Array(items)) = result.get_mut(key) {
        items.iter_mut().filter_map(Value::as_object_mut).for_each(&mut f);
    }
}

/// Fields every listed item (tool, prompt, resource, template) gained in 2025-06-18
/// (`title`, `_meta`) and 2025-11-25 (`icons`).
fn named(item: &mut JsonObject, revision: Revision) {
    item.remove("icons");
    if revision < Revision::V2025_06_18 {
        item.remove("title");
        item.remove("_meta");
    }
}

fn tool(tool: &mut JsonObject, revision: Revision) {
    named(tool, revision);
    tool.remove("execution");
    if revision < Revision::V2025_06_18 {
        tool.remove("outputSchema");
    }
    if revision < Revision::V2025_03_26 {
        tool.remove("annotations");
    }
}

fn prompt(prompt: &mut JsonObject, revision: Revision) {
    named(prompt, revision);
    if revision < Revision::V2025_06_18 {
        each(prompt, "arguments", |argument| {
            argument.remove("title");
        });
    }
}

/// A resource or a resource template.
fn listed(item: &mut JsonObject, revision: Revision) {
    named(item, revision);
    annotations(item, revision);
}

/// `annotations.lastModified` is 2025-06-18.
fn annotations(item: &mut JsonObject, revision: Revision) {
    if revision < Revision::V2025_06_18
        && let Some(Value::Object(annotations)) = item.get_mut("annotations")
    {
        annotations.remove("lastModified");
    }
}

/// A content block the revision does not know becomes a text block saying what it was:
/// resource links are 2025-06-18, audio is 2025-03-26.
fn content_block(block: &mut Value, revision: Revision) {
    let Some(object) = block.as_object_mut() else { return };
    let kind = object.get("type").and_then(Value::as_str).unwrap_or_default();
    let text = match kind {
        "resource_link" if revision < Revision::V2025_06_18 => {
            let uri = object.get("uri").and_then(Value::as_str).unwrap_or_default();
            Some(match object.get("name").and_then(Value::as_str) {
                Some(name) if name != uri => format!("{name}: {uri}"),
                _ => uri.to_owned(),
            })
        }
        "audio" if revision < Revision::V2025_03_26 => {
            let mime = object.get("mimeType").and_then(Value::as_str).unwrap_or("audio");
            Some(format!("[{mime} content: needs protocol 2025-03-26 or later]"))
        }
        _ => None,
    };
    if let Some(text) = text {
        *block = serde_json::json!({"type": "text", "text": text});
        return;
    }
    if revision < Revision::V2025_06_18 {
        object.remove("_meta");
        annotations(object, revision);
        if let Some(Value::Object(resource)) = object.get_mut("resource") {
            resource.remove("_meta");
        }
    }
}

/// The capabilities and server fields each revision defines.
fn initialize(result: &mut JsonObject, revision: Revision) {
    if let Some(Value::Object(capabilities)) = result.get_mut("capabilities") {
        let known: &[&str] = match revision {
            Revision::V2024_11_05 => &["experimental", "logging", "prompts", "resources", "tools"],
            _ => &["experimental", "logging", "prompts", "resources", "tools", "completions"],
        };
        capabilities.retain(|key, _| known.contains(&key.as_str()));
    }
    if let Some(Value::Object(info)) = result.get_mut("serverInfo") {
        for key in ["description", "icons", "websiteUrl"] {
            info.remove(key);
        }
        if revision < Revision::V2025_06_18 {
            info.remove("title");
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn revisions_order_by_date_and_round_trip() {
        for (i, revision) in Revision::ALL.iter().enumerate() {
            assert_eq!(Revision::parse(revision.as_str()), Some(*revision));
            assert!(Revision::ALL[..i].iter().all(|older| older < revision));
        }
        assert_eq!(Revision::parse("2025-11-26"), None);
    }

    #[test]
    fn a_tool_loses_what_each_revision_lacks() {
        let full = json!({"tools": [{
            "name": "t", "title": "T", "icons": [{"src": "https://x/i.png"}], "execution": {"taskSupport": "optional"},
            "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true}, "_meta": {"k": 1}
        }]});
        let keys = |revision| {
            let mut result = object(full.clone());
            downgrade_result(methods::TOOLS_LIST, &mut result, revision);
            let mut keys: Vec<String> =
                result["tools"][0].as_object().map(|t| t.keys().cloned().collect()).unwrap_or_default();
            keys.sort();
            keys
        };
        assert_eq!(keys(Revision::V2024_11_05), ["inputSchema", "name"]);
        assert_eq!(keys(Revision::V2025_03_26), ["annotations", "inputSchema", "name"]);
        assert_eq!(
            keys(Revision::V2025_06_18),
            ["_meta", "annotations", "inputSchema", "name", "outputSchema", "title"]
        );
        assert_eq!(keys(Revision::V2025_11_25).len(), 8);
    }

    #[test]
    fn unknown_content_becomes_text() {
        let mut result = object(json!({
            "content": [{"type": "resource_link", "uri": "file:///a", "name": "a"}, {"type": "audio", "data": "", "mimeType": "audio/wav"}],
            "structuredContent": {"x": 1}
        }));
        downgrade_result(methods::TOOLS_CALL, &mut result, Revision::V2024_11_05);
        assert_eq!(
            Value::Object(result),
            json!({"content": [
                {"type": "text", "text": "a: file:///a"},
                {"type": "text", "text": "[audio/wav content: needs protocol 2025-03-26 or later]"}
            ]})
        );
    }
}
