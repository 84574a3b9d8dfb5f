//! Reading a message's top-level object member by member. The members that say what the
//! message is are kept as they are read, under the strict rules (see [`super::strict`]);
//! no map of the object is built, with its keys allocated and hashed, only to be taken
//! apart again.

use std::cell::Cell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::Params;
use super::jsonrpc::JSONRPC_VERSION;
pub(super) use super::params::ParamsIn;
use super::params::ParamsSeed;
use super::strict::{Strict, StrictJsonError, read_strict};

/// The members of a message object that say what it is. Other members are read (under
/// the same rules) and dropped.
#[derive(Debug, Default)]
pub(super) struct Members {
    pub(super) id: Option<Value>,
    /// Whether `jsonrpc` is the string `"2.0"`, if it is there: all that is asked of it, so
    /// it is compared as read rather than kept.
    pub(super) jsonrpc: Option<bool>,
    pub(super) params: Option<ParamsIn>,
    pub(super) method: Option<Value>,
    pub(super) error: Option<Value>,
    pub(super) result: Option<Value>,
}

impl Members {
    /// The members of an object already read.
    pub(super) fn of_object(object: Map<String, Value>) -> Self {
        let mut members = Members::default();
        for (key, value) in object {
            if key == "jsonrpc" {
                members.jsonrpc = Some(value.as_str() == Some(JSONRPC_VERSION));
            } else if key == "params" {
                members.params = Some(ParamsIn::of_value(value));
            } else if let Some(slot) = members.slot(&key) {
                *slot = Some(value);
            }
        }
        members
    }

    /// Where the member named `key` goes, if it is one of the four kept as values.
    fn slot(&mut self, key: &str) -> Option<&mut Option<Value>> {
        Some(match key {
            "id" => &mut self.id,
            "method" => &mut self.method,
            "error" => &mut self.error,
            "result" => &mut self.result,
            _ => return None,
        })
    }
}

impl ParamsIn {
    fn of_value(value: Value) -> Self {
        match value {
            Value::Object(object) => ParamsIn::Object(Params::from(object)),
            Value::Null => ParamsIn::Null,
            _ => ParamsIn::Other,
        }
    }
}

/// What a message's JSON turned out to be.
#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "made once per message and taken apart at once; a box would be the allocation this module saves"
)]
pub(super) enum TopLevel {
    /// An object, with its members.
    Object(Members),
    /// An array (a JSON-RPC batch).
    Array,
    /// A string, number, boolean or null.
    Scalar,
}

/// Read `text` as one message's JSON, nested at most `max_depth` levels (the top level
/// included), with no key repeated in any object.
///
/// The params object is kept as text (see [`Params`]). A message that fails to read so is
/// read again with its params as a tree, and fails (or not) as that reading does: the
/// error is then the one met first in the text, where reading the params' text first would
/// have found a syntax error past a duplicate key, or `serde_json`'s own nesting limit.
pub(super) fn read_message(text: &str, max_depth: usize) -> Result<TopLevel, StrictJsonError> {
    let violation = Cell::new(None);
    let read = read_strict(text, Message { strict: Strict::top(max_depth, &violation), text: Some(text) }, &violation);
    if read.is_ok() {
        return read;
    }
    let violation = Cell::new(None);
    read_strict(text, Message { strict: Strict::top(max_depth, &violation), text: None }, &violation)
}

/// The top level of a message, read with the rules of the [`Strict`] it holds.
struct Message<'a> {
    strict: Strict<'a>,
    /// The message's text, when `params` is kept as text (else it is built as a tree).
    text: Option<&'a str>,
}

impl<'de> DeserializeSeed<'de> for Message<'_> {
    type Value = TopLevel;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<TopLevel, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Message<'_> {
    type Value = TopLevel;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_bool<E>(self, _: bool) -> Result<TopLevel, E> {
        Ok(TopLevel::Scalar)
    }

    fn visit_i64<E>(self, _: i64) -> Result<TopLevel, E> {
        Ok(TopLevel::Scalar)
    }

    fn visit_u64<E>(self, _: u64) -> Result<TopLevel, E> {
        Ok(TopLevel::Scalar)
    }

    fn visit_f64<E>(self, _: f64) -> Result<TopLevel, E> {
        Ok(TopLevel::Scalar)
    }

    fn visit_str<E>(self, _: &str) -> Result<TopLevel, E> {
        Ok(TopLevel::Scalar)
    }

    fn visit_unit<E>(self) -> Result<TopLevel, E> {
        Ok(TopLevel::Scalar)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<TopLevel, A::Error> {
        // Read to the end under the rules: a batch that is not even valid JSON is a parse
        // error, as it is for any other message.
        self.strict.visit_seq(seq).map(|_| TopLevel::Array)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
        let inner = self.strict.open()?;
        let mut members = Members::default();
        // The names of other members, to find a repeated one: a message rarely has any (the
        // set allocates at its first), and a hostile one with many costs a hash each, not a
        // comparison with every name before it.
        let mut others: HashSet<String> = HashSet::new();
        while let Some(key) = map.next_key_seed(KeyName)? {
            // The value is read before a repeated key is refused, as in any other object:
            // a broken value is a syntax error first.
            let repeated = match key {
                Key::Member("jsonrpc") => {
                    let version = map.next_value_seed(Version(inner))?;
                    members.jsonrpc.replace(version).is_some()
                }
                Key::Member("params") if let Some(message) = self.text => {
                    let params = map.next_value_seed(ParamsSeed { strict: inner, message })?;
                    members.params.replace(params).is_some()
                }
                Key::Member("params") => {
                    let value = map.next_value_seed(inner)?;
                    members.params.replace(ParamsIn::of_value(value)).is_some()
                }
                Key::Member(name) => {
                    let value = map.next_value_seed(inner)?;
                    members.slot(name).is_some_and(|slot| slot.replace(value).is_some())
                }
                Key::Other(name) => {
                    map.next_value_seed(inner)?;
                    !others.insert(name)
                }
            };
            if repeated {
                return Err(self.strict.fail(StrictJsonError::DuplicateKey));
            }
        }
        Ok(TopLevel::Object(members))
    }
}

/// Reads the `jsonrpc` member as whether it is `"2.0"`: a string is compared where it
/// lies, without a copy; any other value is read under the rules and is not.
struct Version<'a>(Strict<'a>);

impl<'de> DeserializeSeed<'de> for Version<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Version<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_str<E>(self, v: &str) -> Result<bool, E> {
        Ok(v == JSONRPC_VERSION)
    }

    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        self.0.visit_seq(seq).map(|_| false)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        self.0.visit_map(map).map(|_| false)
    }
}

/// A top-level key: one of the kept members (borrowed from this file's names, so reading it
/// allocates nothing), or another, owned.
enum Key {
    Member(&'static str),
    Other(String),
}

/// Reads a top-level key as a [`Key`].
struct KeyName;

impl<'de> DeserializeSeed<'de> for KeyName {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeyName {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Key, E> {
        const KEPT: [&str; 6] = ["id", "jsonrpc", "params", "method", "error", "result"];
        Ok(match KEPT.iter().find(|kept| **kept == name) {
            Some(kept) => Key::Member(kept),
            None => Key::Other(name.to_owned()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<TopLevel, StrictJsonError> {
        read_message(text, 4)
    }

    #[test]
    fn keeps_the_six_members_and_reads_past_the_others() {
        let text = r#"{"x":[1],"jsonrpc":"2.0","id":7,"method":"m","params":{"a":1},"error":null,"result":true}"#;
        let Ok(TopLevel::Object(members)) = read(text) else { panic!("an object") };
        assert_eq!(members.id, Some(Value::from(7)));
        assert_eq!(members.jsonrpc, Some(true));
        assert_eq!(members.method, Some(Value::from("m")));
        let Some(ParamsIn::Object(params)) = members.params else { panic!("params kept") };
        assert_eq!(Value::Object(params.into_object()), serde_json::json!({"a": 1}));
        assert_eq!(members.error, Some(Value::Null));
        assert_eq!(members.result, Some(Value::Bool(true)));
    }

    /// `jsonrpc` is kept as whether it is "2.0" (escaped or not), and a value that is not a
    /// string is still read under the rules.
    #[test]
    fn compares_jsonrpc_as_it_reads_it() {
        let version = |text: &str| match read(text) {
            Ok(TopLevel::Object(members)) => Ok(members.jsonrpc),
            Ok(_) => panic!("an object"),
            Err(e) => Err(e),
        };
        assert_eq!(version(r#"{"jsonrpc":"2.0"}"#), Ok(Some(true)));
        assert_eq!(version(r#"{"jsonrpc":"\u0032.0"}"#), Ok(Some(true)));
        for other in [r#""2.0 ""#, r#""1.0""#, "2.0", "2", "true", "null", "[]", r#"{"v":"2.0"}"#] {
            assert_eq!(version(&format!(r#"{{"jsonrpc":{other}}}"#)), Ok(Some(false)), "{other}");
        }
        assert_eq!(version("{}"), Ok(None));
        assert_eq!(version(r#"{"jsonrpc":[[[1]]]}"#), Ok(Some(false)));
        assert_eq!(version(r#"{"jsonrpc":[[[[1]]]]}"#), Err(StrictJsonError::TooDeep));
        assert_eq!(version(r#"{"jsonrpc":{"a":1,"a":2}}"#), Err(StrictJsonError::DuplicateKey));
        assert_eq!(version(r#"{"jsonrpc":"2.0","jsonrpc":"2.0"}"#), Err(StrictJsonError::DuplicateKey));
    }

    #[test]
    fn refuses_a_repeated_member_kept_or_not() {
        for text in [
            r#"{"id":1,"id":2}"#,
            r#"{"id":1,"\u0069d":2}"#,
            r#"{"x":1,"method":"m","x":2}"#,
            r#"{"params":{"a":1,"a":1}}"#,
        ] {
            assert_eq!(read(text).map(|_| ()), Err(StrictJsonError::DuplicateKey), "{text}");
        }
        assert!(read(r#"{"x":1,"y":{"x":1}}"#).is_ok());
    }

    #[test]
    fn many_other_members_are_read_and_a_late_repeat_found() {
        let members: Vec<String> = (0..20_000).map(|i| format!("\"m{i}\":{i}")).collect();
        let text = format!("{{\"id\":1,{}}}", members.join(","));
        assert!(matches!(read(&text), Ok(TopLevel::Object(_))));
        let repeated = format!("{{{},\"m19999\":0}}", members.join(","));
        assert_eq!(read(&repeated).map(|_| ()), Err(StrictJsonError::DuplicateKey));
    }

    #[test]
    fn counts_the_top_level_in_the_depth() {
        assert!(read(r#"{"params":{"a":[[1]]}}"#).is_ok());
        assert_eq!(read(r#"{"params":{"a":[[[1]]]}}"#).map(|_| ()), Err(StrictJsonError::TooDeep));
        assert_eq!(read(r#"{"other":[[[{}]]]}"#).map(|_| ()), Err(StrictJsonError::TooDeep));
        assert_eq!(read("[[[[[1]]]]]").map(|_| ()), Err(StrictJsonError::TooDeep));
    }

    #[test]
    fn tells_arrays_and_scalars_apart_and_keeps_syntax_errors() {
        assert!(matches!(read("[1,{}]"), Ok(TopLevel::Array)));
        for text in ["1", "\"x\"", "null", "true", "-2.5"] {
            assert!(matches!(read(text), Ok(TopLevel::Scalar)), "{text}");
        }
        for text in ["", "[1", r#"{"id":1,"id":}"#, r#"{"id":1} x"#, "{'id':1}", r#"{"\ud800":1}"#] {
            assert_eq!(read(text).map(|_| ()), Err(StrictJsonError::Syntax), "{text:?}");
        }
    }
}
