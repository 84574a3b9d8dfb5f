//! [`ResultObject`]: a final result's JSON object, kept as the typed tool result it came
//! from, and the text that result was encoded to, until a layer looks inside it.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::OnceLock;

use serde::{Serialize, Serializer};

use crate::protocol::{CallToolResult, JsonObject};

/// The object of a final result ([`Reply::Complete`](super::Reply::Complete)).
///
/// A tool's typed result is encoded once, straight to the text the response frame is built
/// from. A layer can still read the object as a [`JsonObject`] through `Deref`: the first
/// read builds the tree from the typed result (as encoding a result used to). Any mutable
/// access (`DerefMut`, even without a change) makes that tree the result, and the encoded
/// text is dropped, so what the client receives is always what the layers last saw.
/// Results that are not typed tool results are trees from the start. Equality compares
/// the objects, and `Debug` and `Serialize` show the object, whichever form it is held in.
#[derive(Clone)]
pub struct ResultObject(Repr);

#[derive(Clone)]
enum Repr {
    Tree(JsonObject),
    Encoded {
        /// The result, whose own `resultType` is `complete` and which has no `_meta`.
        typed: Box<CallToolResult>,
        /// Its compact JSON.
        json: String,
        /// Its tree, once a layer asked for it.
        tree: OnceLock<JsonObject>,
    },
}

impl ResultObject {
    /// A typed tool result and its compact JSON (`json` must be `typed` encoded).
    pub(crate) fn encoded(typed: CallToolResult, json: String) -> Self {
        ResultObject(Repr::Encoded { typed: Box::new(typed), json, tree: OnceLock::new() })
    }

    /// The encoded text, when no layer has had mutable access since it was encoded; else
    /// the result itself.
    pub(crate) fn into_encoded(self) -> Result<String, ResultObject> {
        match self.0 {
            Repr::Encoded { json, .. } => Ok(json),
            tree @ Repr::Tree(_) => Err(ResultObject(tree)),
        }
    }

    /// Whether this is a tool's `isError: true` result (read from the typed result when
    /// there is one, without building the tree).
    pub fn is_tool_error(&self) -> bool {
        match &self.0 {
            Repr::Encoded { typed, .. } => typed.is_error == Some(true),
            Repr::Tree(map) => map.get("isError").and_then(serde_json::Value::as_bool) == Some(true),
        }
    }

    /// The object as a tree.
    pub fn into_object(self) -> JsonObject {
        match self.0 {
            Repr::Tree(map) => map,
            Repr::Encoded { typed, mut tree, .. } => tree.take().unwrap_or_else(|| tree_of(&typed)),
        }
    }
}

/// The tree of a typed tool result, built as `Reply::plain` builds one.
fn tree_of(typed: &CallToolResult) -> JsonObject {
    match serde_json::to_value(typed) {
        Ok(serde_json::Value::Object(map)) => map,
        // Not reached: the same value was just encoded to text without error.
        _ => {
            tracing::error!("a tool result that was encoded could not be built as a tree");
            JsonObject::new()
        }
    }
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
            Repr::Encoded { typed, tree, .. } => tree.get_or_init(|| tree_of(typed)),
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

impl fmt::Debug for ResultObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ResultObject").field(&**self).finish()
    }
}

impl Serialize for ResultObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Tree(map) => map.serialize(serializer),
            Repr::Encoded { typed, .. } => typed.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn encoded(result: CallToolResult) -> ResultObject {
        let json = serde_json::to_string(&result).expect("test value");
        ResultObject::encoded(result, json)
    }

    #[test]
    fn reading_keeps_the_text_and_writing_drops_it() {
        let mut result = encoded(CallToolResult::error("no"));
        assert!(result.is_tool_error());
        assert_eq!(result.get("isError"), Some(&json!(true)));
        assert!(result.clone().into_encoded().is_ok(), "a read leaves the encoded text authoritative");
        result.insert("extra".into(), json!(1));
        assert!(result.clone().into_encoded().is_err());
        assert_eq!(result.keys().collect::<Vec<_>>(), ["resultType", "content", "isError", "extra"]);
        assert!(result.is_tool_error());
    }

    #[test]
    fn every_view_of_an_encoded_result_is_its_tree() {
        let typed = CallToolResult { structured_content: Some(json!({"n": 1.5})), ..CallToolResult::text("hi") };
        let tree: ResultObject =
            serde_json::to_value(&typed).expect("test value").as_object().cloned().unwrap_or_default().into();
        let result = encoded(typed);
        assert_eq!(result, tree);
        assert_eq!(
            serde_json::to_value(&result).expect("test value"),
            serde_json::to_value(&tree).expect("test value")
        );
        assert_eq!(format!("{result:?}"), format!("{tree:?}"));
        assert_eq!(result.into_object(), tree.into_object());
        assert!(!ResultObject::default().is_tool_error());
    }

    /// The tree is built from the typed result, not read back from the text: a result
    /// nested deeper than a JSON reader's recursion limit keeps its content.
    #[test]
    fn a_deeply_nested_result_keeps_its_tree() {
        let mut deep = json!(1);
        for _ in 0..200 {
            deep = json!([deep]);
        }
        let result = encoded(CallToolResult { structured_content: Some(deep.clone()), ..CallToolResult::text("deep") });
        assert_eq!(result.get("structuredContent"), Some(&deep));
        assert!(result.contains_key("content"));
    }
}
