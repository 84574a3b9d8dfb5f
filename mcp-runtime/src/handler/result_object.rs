//! [`ResultObject`]: a final result's JSON object, kept as the text a typed result was
//! encoded to until a layer looks inside it.

use std::ops::{Deref, DerefMut};
use std::sync::OnceLock;

use crate::protocol::JsonObject;

/// The object of a final result ([`Reply::Complete`](super::Reply::Complete)).
///
/// A tool's typed result is encoded once, straight to the text the response frame is built
/// from. A layer that reads the object (through `Deref`, as a [`JsonObject`]) has that text
/// read into a tree on first use; one that changes it (`DerefMut`) makes the tree the result.
/// Results that are not typed tool results are trees from the start.
#[derive(Debug, Clone)]
pub struct ResultObject(Repr);

#[derive(Debug, Clone)]
enum Repr {
    Tree(JsonObject),
    Encoded {
        /// The compact JSON of an object whose own `resultType` is `complete` and that has
        /// no `_meta`.
        json: String,
        /// Whether it is a tool's `isError: true` result.
        tool_error: bool,
        /// The tree, once a layer asked for it.
        tree: OnceLock<JsonObject>,
    },
}

impl ResultObject {
    /// A result already encoded by the runtime: `json` is the compact JSON of an object
    /// that writes its own `"resultType":"complete"` and has no `_meta`.
    pub(crate) fn encoded(json: String, tool_error: bool) -> Self {
        ResultObject(Repr::Encoded { json, tool_error, tree: OnceLock::new() })
    }

    /// The encoded text, when no layer has changed the result since it was encoded; else
    /// the result itself.
    pub(crate) fn into_encoded(self) -> Result<String, ResultObject> {
        match self.0 {
            Repr::Encoded { json, .. } => Ok(json),
            tree @ Repr::Tree(_) => Err(ResultObject(tree)),
        }
    }

    /// Whether this is a tool's `isError: true` result, without reading encoded text.
    pub fn is_tool_error(&self) -> bool {
        match &self.0 {
            Repr::Encoded { tool_error, .. } => *tool_error,
            Repr::Tree(map) => map.get("isError").and_then(serde_json::Value::as_bool) == Some(true),
        }
    }

    /// The object as a tree.
    pub fn into_object(self) -> JsonObject {
        match self.0 {
            Repr::Tree(map) => map,
            Repr::Encoded { json, mut tree, .. } => tree.take().unwrap_or_else(|| read(&json)),
        }
    }
}

/// The tree of text the runtime encoded from a typed result (so it is an object).
fn read(json: &str) -> JsonObject {
    serde_json::from_str(json).unwrap_or_else(|error| {
        tracing::error!(%error, "an encoded result does not read back as an object");
        JsonObject::new()
    })
}

impl From<JsonObject> for ResultObject {
    fn from(map: JsonObject) -> Self {
        ResultObject(Repr::Tree(map))
    }
}

impl Default for ResultObject {
    fn default() -> Self {
        ResultObject(Repr::Tree(JsonObject::new()))
    }
}

impl Deref for ResultObject {
    type Target = JsonObject;

    fn deref(&self) -> &JsonObject {
        match &self.0 {
            Repr::Tree(map) => map,
            Repr::Encoded { json, tree, .. } => tree.get_or_init(|| read(json)),
        }
    }
}

impl DerefMut for ResultObject {
    fn deref_mut(&mut self) -> &mut JsonObject {
        if let Repr::Encoded { .. } = self.0 {
            let taken = std::mem::take(self);
            *self = ResultObject(Repr::Tree(taken.into_object()));
        }
        match &mut self.0 {
            Repr::Tree(map) => map,
            Repr::Encoded { .. } => unreachable!("an encoded result was just made a tree"),
        }
    }
}

impl PartialEq for ResultObject {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn encoded() -> ResultObject {
        ResultObject::encoded(r#"{"resultType":"complete","content":[],"isError":true}"#.to_owned(), true)
    }

    #[test]
    fn reading_keeps_the_text_and_writing_drops_it() {
        let mut result = encoded();
        assert!(result.is_tool_error());
        assert_eq!(result.get("isError"), Some(&json!(true)));
        assert!(result.clone().into_encoded().is_ok(), "a read leaves the encoded text authoritative");
        result.insert("extra".into(), json!(1));
        assert!(result.clone().into_encoded().is_err());
        assert_eq!(result.keys().collect::<Vec<_>>(), ["resultType", "content", "isError", "extra"]);
        assert!(result.is_tool_error());
    }

    #[test]
    fn a_tree_and_its_encoding_are_equal() {
        let tree: ResultObject = json!({"resultType": "complete", "content": [], "isError": true})
            .as_object()
            .cloned()
            .unwrap_or_default()
            .into();
        assert_eq!(tree, encoded());
        assert_eq!(encoded().into_object(), tree.into_object());
        assert!(!ResultObject::default().is_tool_error());
    }
}
