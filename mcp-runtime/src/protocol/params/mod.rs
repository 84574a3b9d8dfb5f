//! A request's params as they arrived: the text of the object, checked under the strict
//! rules when the message was read, with its tree built only for a reader that asks.
//!
//! Most requests are read for a few members (the tool's `name`, `_meta`'s protocol
//! version and capabilities, `requestState` if present) and their `arguments`. Building the
//! whole object as a [`Value`] tree first (a map, its keys, every string of `_meta`) made
//! most of a request's allocations (23 of 51 for a `tools/call` over HTTP); here each
//! member is found by its place in the text, and built alone, once, when it is read.

mod field;
mod read;

use std::fmt;
use std::ops::{Deref, DerefMut, Range};
use std::sync::OnceLock;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

#[cfg(feature = "server")]
pub(crate) use field::Field;
pub(crate) use field::Taken;
#[cfg(test)]
pub(crate) use read::read_text;
pub(crate) use read::{ParamsIn, ParamsSeed};

use super::JsonObject;
use super::strict::parse_strict;

/// The most members a params object (or its `_meta`) may have to be kept as text; one
/// with more is read into its tree at once, as an unusual or hostile one may be.
const INDEXED: usize = 8;

/// A request's `params` object, `_meta` included.
///
/// It reads as a [`JsonObject`] (it dereferences to one) and is built from one with
/// [`From`]. A request read from the wire keeps the text it arrived as, checked under the
/// strict rules (nesting limit, no duplicate keys), and builds the object only when it is
/// first dereferenced; [`get`](Self::get) builds only the member asked for.
///
/// ```
/// use mcp::protocol::{JsonObject, Params};
///
/// let mut object = JsonObject::new();
/// object.insert("name".into(), "echo".into());
/// let mut params = Params::from(object);
/// assert_eq!(params.get("name").and_then(|v| v.as_str()), Some("echo"));
/// params.insert("arguments".into(), serde_json::json!({"text": "hi"}));
/// assert_eq!(params.len(), 2);
/// ```
pub struct Params(Repr);

enum Repr {
    /// As read: the text and where each member lies in it.
    Text(Box<Text>),
    /// Built (by a caller, or once changed).
    Tree(Box<JsonObject>),
}

/// The text of a params object read from the wire (copied as it lay in the message), with
/// its members' places.
#[derive(Default)]
struct Text {
    text: Box<str>,
    /// Each member's name (written without escapes) and value, in order.
    members: [Member; INDEXED],
    len: usize,
    /// The places of `_meta`'s members, when there is a `_meta` (always an object here).
    meta: [Place; INDEXED],
    meta_len: usize,
    /// The whole object, once asked for (boxed: rarely built, and it would double the
    /// size of every request's `Text`).
    tree: OnceLock<Box<JsonObject>>,
}

/// Where a member's name and value lie in the text.
#[derive(Debug, Clone, Default)]
struct Place {
    key: Range<u32>,
    value: Range<u32>,
}

#[derive(Default)]
struct Member {
    place: Place,
    /// The value, once asked for (or set).
    built: OnceLock<Value>,
    /// Whether the member was set: its value is `built` (its text is stale), or, when
    /// `built` is empty, it was removed.
    set: bool,
}

impl Member {
    fn removed(&self) -> bool {
        self.set && self.built.get().is_none()
    }
}

impl Clone for Member {
    fn clone(&self) -> Self {
        // A value read from the text is read again if asked; one set is the member.
        let built = if self.set { self.built.clone() } else { OnceLock::new() };
        Member { place: self.place.clone(), built, set: self.set }
    }
}

impl Text {
    fn slice(&self, range: &Range<u32>) -> &str {
        self.text.get(range.start as usize..range.end as usize).unwrap_or_default()
    }

    /// Member `key`: its value's text and its slot.
    fn find(&self, key: &str) -> Option<(&str, &Member)> {
        let member = &self.members[self.position(key)?];
        Some((self.slice(&member.place.value), member))
    }

    /// The slot of member `key`, if it is there. Layers ask for a few members each, most
    /// of them absent: names are told apart by their lengths first, and compared as bytes
    /// (the places are where names were read, so no character boundary needs checking).
    fn position(&self, key: &str) -> Option<usize> {
        let bytes = self.text.as_bytes();
        self.members[..self.len].iter().position(|m| {
            let Range { start, end } = m.place.key;
            end.saturating_sub(start) as usize == key.len()
                && bytes.get(start as usize..end as usize) == Some(key.as_bytes())
                && !m.removed()
        })
    }

    fn tree(&self) -> &JsonObject {
        self.tree.get_or_init(|| Box::new(self.build()))
    }

    /// The object: its text's, with the members set since.
    fn build(&self) -> JsonObject {
        let mut object = build_object(&self.text);
        for member in self.members[..self.len].iter().filter(|m| m.set) {
            let key = self.slice(&member.place.key);
            match member.built.get() {
                Some(value) => {
                    object.insert(key.to_owned(), value.clone());
                }
                None => {
                    object.shift_remove(key);
                }
            }
        }
        object
    }

    /// Whether a member was set since the text was read.
    fn changed(&self) -> bool {
        self.members[..self.len].iter().any(|m| m.set)
    }
}

/// The object a params text already checked is (empty if it somehow is not one).
fn build_object(text: &str) -> JsonObject {
    match build(text) {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}

/// The contents of `text`, a string already checked, when it has no escapes: they are
/// the string itself (a checked string holds no raw `"` or control character).
fn plain_str(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains('\\')).then_some(inner)
}

/// The tree of a text already checked under the strict rules (so reading it again cannot
/// fail; if it somehow did, the result is `null`, not a panic).
fn build(text: &str) -> Value {
    // Most members are names and plain strings: built without a parser.
    match text {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        "null" => return Value::Null,
        _ => {}
    }
    if let Some(plain) = plain_str(text) {
        return Value::String(plain.to_owned());
    }
    let built = parse_strict(text, usize::MAX);
    debug_assert!(built.is_ok(), "params were checked when read");
    built.unwrap_or(Value::Null)
}

impl Params {
    /// An empty params object.
    pub fn new() -> Self {
        Params(Repr::Tree(Box::default()))
    }

    /// The member `key`, as [`JsonObject::get`] finds it. Params read from the wire build
    /// this member alone (once), not the whole object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match &self.0 {
            Repr::Text(text) => text.find(key).map(|(value, member)| member.built.get_or_init(|| build(value))),
            Repr::Tree(object) => super::member::member(object, key),
        }
    }

    /// The object, built if it was not yet.
    pub fn into_object(self) -> JsonObject {
        match self.0 {
            Repr::Text(mut text) => text.tree.take().map_or_else(|| text.build(), |tree| *tree),
            Repr::Tree(object) => *object,
        }
    }

    /// Set member `key` to `value`, or remove it (`None`). Params kept as text keep it for
    /// their other members (a member new to them, or `_meta`, makes them a tree).
    #[cfg(feature = "server")]
    pub(crate) fn set(&mut self, key: &str, value: Option<Value>) {
        if let Repr::Text(text) = &mut self.0
            && key != "_meta"
            && let Some(at) = text.position(key)
        {
            let member = &mut text.members[at];
            member.built = value.map_or_else(OnceLock::new, OnceLock::from);
            member.set = true;
            text.tree = OnceLock::new();
            return;
        }
        match value {
            Some(value) => {
                self.insert(key.to_owned(), value);
            }
            None => {
                self.shift_remove(key);
            }
        }
    }

    /// The member `key`, as its text when the params were read from the wire (nothing is
    /// built), or as its value.
    #[cfg(feature = "server")]
    pub(crate) fn field(&self, key: &str) -> Option<Field<'_>> {
        match &self.0 {
            Repr::Text(text) => text.find(key).map(|(value, member)| match member.built.get() {
                Some(built) => Field::Value(built),
                None => Field::Text(value),
            }),
            Repr::Tree(object) => super::member::member(object, key).map(Field::Value),
        }
    }

    /// The text member `key` arrived as, when the params were read from the wire and the
    /// member was not set since (`None` for params built as a tree).
    #[cfg(feature = "server")]
    pub(crate) fn arrived_text(&self, key: &str) -> Option<&str> {
        match &self.0 {
            Repr::Text(text) => text.find(key).filter(|(_, member)| !member.set).map(|(value, _)| value),
            Repr::Tree(_) => None,
        }
    }

    /// Take each member in order, with its name: moved out of the tree, or, for params
    /// kept as text, handed over as its text to build only if `each` asks.
    pub(crate) fn take_each<E>(self, mut each: impl FnMut(&str, Taken<'_>) -> Result<(), E>) -> Result<(), E> {
        match self.0 {
            Repr::Text(mut text) => {
                let text = &mut *text;
                for member in text.members[..text.len].iter_mut().filter(|m| !m.removed()) {
                    let slice = |range: &Range<u32>| text.text.get(range.start as usize..range.end as usize);
                    let taken = match member.built.take() {
                        Some(built) => Taken::Value(built),
                        None => Taken::Text(slice(&member.place.value).unwrap_or("null")),
                    };
                    each(slice(&member.place.key).unwrap_or_default(), taken)?;
                }
            }
            Repr::Tree(object) => {
                for (key, value) in *object {
                    each(&key, Taken::Value(value))?;
                }
            }
        }
        Ok(())
    }

    /// The members `keys` of `_meta`, without building `_meta`; none if `_meta` is absent
    /// or not an object.
    #[cfg(feature = "server")]
    pub(crate) fn meta_fields<const N: usize>(&self, keys: &[&str; N]) -> [Option<Field<'_>>; N] {
        let mut found = [None; N];
        match &self.0 {
            Repr::Text(text) => {
                for place in &text.meta[..text.meta_len] {
                    let name = text.slice(&place.key);
                    if let Some(at) = keys.iter().position(|key| *key == name) {
                        found[at] = Some(Field::Text(text.slice(&place.value)));
                    }
                }
            }
            Repr::Tree(object) => {
                if let Some(Value::Object(meta)) = super::member::member(object, "_meta") {
                    for (slot, key) in found.iter_mut().zip(keys) {
                        *slot = super::member::member(meta, key).map(Field::Value);
                    }
                }
            }
        }
        found
    }

    /// Whether `_meta` is there and an object.
    #[cfg(feature = "server")]
    pub(crate) fn has_meta_object(&self) -> bool {
        match &self.0 {
            // Params whose `_meta` is not an object are not kept as text.
            Repr::Text(text) => text.find("_meta").is_some(),
            Repr::Tree(object) => super::member::member(object, "_meta").is_some_and(Value::is_object),
        }
    }
}

impl Default for Params {
    fn default() -> Self {
        Params::new()
    }
}

impl From<JsonObject> for Params {
    fn from(object: JsonObject) -> Self {
        Params(Repr::Tree(Box::new(object)))
    }
}

impl From<Params> for JsonObject {
    fn from(params: Params) -> Self {
        params.into_object()
    }
}

impl Deref for Params {
    type Target = JsonObject;

    fn deref(&self) -> &JsonObject {
        match &self.0 {
            Repr::Text(text) => text.tree(),
            Repr::Tree(object) => object,
        }
    }
}

impl DerefMut for Params {
    /// The object, to change: params kept as text are built, and the text dropped.
    fn deref_mut(&mut self) -> &mut JsonObject {
        if let Repr::Text(text) = &mut self.0 {
            let built = text.tree.take().unwrap_or_else(|| Box::new(text.build()));
            self.0 = Repr::Tree(built);
        }
        match &mut self.0 {
            Repr::Tree(object) => object,
            Repr::Text(_) => unreachable!("made a tree just above"),
        }
    }
}

impl Clone for Params {
    fn clone(&self) -> Self {
        Params(match &self.0 {
            Repr::Text(text) => Repr::Text(Box::new(Text {
                text: text.text.clone(),
                members: text.members.clone(),
                len: text.len,
                meta: text.meta.clone(),
                meta_len: text.meta_len,
                tree: OnceLock::new(),
            })),
            Repr::Tree(object) => Repr::Tree(object.clone()),
        })
    }
}

impl PartialEq for Params {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl fmt::Debug for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl Serialize for Params {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Text(text) if text.changed() => (**self).serialize(serializer),
            Repr::Text(text) => match serde_json::from_str::<&RawValue>(&text.text) {
                Ok(raw) => raw.serialize(serializer),
                Err(_) => (**self).serialize(serializer),
            },
            Repr::Tree(object) => object.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        JsonObject::deserialize(deserializer).map(Params::from)
    }
}

#[cfg(test)]
mod tests {
    /// Strings without escapes, `true`, `false` and `null` are built without a parser: as
    /// the parser builds them.
    #[test]
    fn plain_values_build_as_parsed() {
        for text in [
            r#""""#,
            r#""echo""#,
            r#""a b\u00e9c""#,
            r#""quote \" inside""#,
            r#""back\\slash""#,
            "\"caf\u{e9} \u{1f600}\"",
            "true",
            "false",
            "null",
            "0",
            "-0",
            "12",
            "1.5e3",
            "[]",
            r#"{"a":[1,"x"]}"#,
        ] {
            let parsed: serde_json::Value = serde_json::from_str(text).expect("valid JSON");
            assert_eq!(super::build(text), parsed, "{text}");
            #[cfg(feature = "server")]
            assert_eq!(super::Field::Text(text).as_str().as_deref(), parsed.as_str(), "{text}");
        }
    }

    /// One `Text` is allocated per request: past 1,032 bytes glibc no longer serves it from
    /// its per-thread cache (a `Text` of 1,072 bytes cost about 500 instructions more per
    /// request, measured with callgrind).
    #[test]
    fn text_fits_the_per_thread_cache() {
        assert!(size_of::<super::Text>() <= 1024, "{} bytes", size_of::<super::Text>());
    }
}
