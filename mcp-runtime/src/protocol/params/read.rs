//! Reading a message's `params` in the message's one strict reading: each member's text is
//! found (and `_meta`'s members' texts) where it lies in the message, and containers are
//! checked under the rules; the object's text is then copied out with those places.
//!
//! Anything unusual (a name written with escapes, more than [`INDEXED`] members, a `_meta`
//! that is not an object) fails this reading without a violation: the message is then read
//! again with its params as a tree (see `envelope::read_message`), which also decides the
//! error of a message that breaks a rule.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::super::keys;
use super::super::strict::{Check, KeyText, Strict, StrictJsonError};
use super::{INDEXED, Params, Place, Repr, Text};

/// A message's `params`, as far as telling a request from a malformed one needs.
#[derive(Debug)]
pub(crate) enum ParamsIn {
    /// An object.
    Object(Params),
    /// `null`, as good as absent.
    Null,
    /// Anything else.
    Other,
}

/// Reads a message's `params` value at the place of `strict`, in `message` (the text being
/// read, where the members found lie).
pub(crate) struct ParamsSeed<'a> {
    pub(crate) strict: Strict<'a>,
    pub(crate) message: &'a str,
}

/// The error that sends the message to be read again with its params as a tree.
fn unusual<E: de::Error>() -> E {
    E::custom("params read as a tree")
}

impl<'de> DeserializeSeed<'de> for ParamsSeed<'_> {
    type Value = ParamsIn;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<ParamsIn, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ParamsSeed<'_> {
    type Value = ParamsIn;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("params")
    }

    fn visit_bool<E>(self, _: bool) -> Result<ParamsIn, E> {
        Ok(ParamsIn::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<ParamsIn, E> {
        Ok(ParamsIn::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<ParamsIn, E> {
        Ok(ParamsIn::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<ParamsIn, E> {
        Ok(ParamsIn::Other)
    }

    fn visit_str<E>(self, _: &str) -> Result<ParamsIn, E> {
        Ok(ParamsIn::Other)
    }

    fn visit_unit<E>(self) -> Result<ParamsIn, E> {
        Ok(ParamsIn::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ParamsIn, A::Error> {
        Check(self.strict).visit_seq(seq).map(|()| ParamsIn::Other)
    }

    /// Fills the params' table as their members are read: places are first counted from
    /// the start of the message, then (once the object's text is known) from its own.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ParamsIn, A::Error> {
        let inner = self.strict.open()?;
        let message = self.message;
        // Made at the first member: empty params need none.
        let mut table: Option<Box<Text>> = None;
        while let Some(key) = map.next_key_seed(KeyText)? {
            let text: &mut Text = table.get_or_insert_with(Box::default);
            let key = kept_name(key, text.members[..text.len].iter().map(|m| &m.place), message, inner)?;
            let at = text.len;
            let key_place = span(message, key).ok_or_else(unusual)?;
            let value_place = if key == "_meta" {
                let Text { meta, meta_len, .. } = &mut *text;
                map.next_value_seed(MetaSeed { strict: inner, message, places: meta, len: meta_len })?;
                meta_span(message.as_bytes(), &key_place, &meta[..*meta_len]).ok_or_else(unusual)?
            } else {
                let value = map.next_value::<&'de RawValue>()?.get();
                // A container (`arguments`, `inputResponses`) is read by whoever serves the
                // request: built now, it is checked as it is built, where checking it and
                // building it later read it twice.
                if value.starts_with(['{', '[']) && value.len() > 2 {
                    let built = inner.read_text(value).map_err(|_| de::Error::custom("invalid params"))?;
                    text.members[at].built = OnceLock::from(built);
                } else {
                    checked(value, inner, false)?;
                }
                span(message, value).ok_or_else(unusual)?
            };
            text.members[at].place = Place { key: key_place, value: value_place };
            text.len += 1;
        }
        let Some(text) = table else {
            return Ok(ParamsIn::Object(Params::new()));
        };
        let params = own_text(message, text).ok_or_else(unusual)?;
        Ok(ParamsIn::Object(params))
    }
}

/// Where `part`, a slice of `message`, lies in it; `None` past what a place can count.
fn span(message: &str, part: &str) -> Option<Range<u32>> {
    let start = (part.as_ptr() as usize).checked_sub(message.as_ptr() as usize)?;
    let end = start.checked_add(part.len()).filter(|end| *end <= message.len())?;
    Some(u32::try_from(start).ok()?..u32::try_from(end).ok()?)
}

/// Where `_meta`'s value lies, its name at `key` and its members at `members`: from the
/// `{` after its name's closing quote and the colon, to the `}` after its last value (or
/// after that `{`, when it is empty).
fn meta_span(bytes: &[u8], key: &Range<u32>, members: &[Place]) -> Option<Range<u32>> {
    let open = past(bytes, past(bytes, key.end as usize + 1, b':')?, b'{')? - 1;
    let close = match members.last() {
        Some(last) => past(bytes, last.value.end as usize, b'}')?,
        None => past(bytes, open + 1, b'}')?,
    };
    Some(u32::try_from(open).ok()?..u32::try_from(close).ok()?)
}

/// `text` (at least one member, its places counted in `message`) with the object's text
/// copied out of `message` and its places counted in that. `None` if something is not
/// where it should be (it always is: the parts were read from `message`).
fn own_text(message: &str, mut text: Box<Text>) -> Option<Params> {
    let bytes = message.as_bytes();
    let Text { text: own, members, len, meta, meta_len, .. } = &mut *text;
    let members = &mut members[..*len];
    // From the `{` before the first name's opening quote to the `}` after the last value.
    let start = back_to(bytes, (members.first()?.place.key.start as usize).checked_sub(2)?, b'{')?;
    let end = past(bytes, members.last()?.place.value.end as usize, b'}')?;
    *own = message.get(start..end)?.into();
    let shift = u32::try_from(start).ok()?;
    for place in members.iter_mut().map(|m| &mut m.place).chain(&mut meta[..*meta_len]) {
        for range in [&mut place.key, &mut place.value] {
            *range = range.start.checked_sub(shift)?..range.end.checked_sub(shift)?;
        }
    }
    Some(Params(Repr::Text(text)))
}

/// A member's name, to keep with those at `seen` in `message` before it: written without
/// escapes (so it lies in the message as it reads), not one past [`INDEXED`], and not
/// repeated (a violation of the rules at the place of `strict`).
fn kept_name<'de, 'p, E: de::Error>(
    key: Cow<'de, str>,
    mut seen: impl ExactSizeIterator<Item = &'p Place>,
    message: &str,
    strict: Strict<'_>,
) -> Result<&'de str, E> {
    let Cow::Borrowed(key) = key else { return Err(unusual()) };
    if seen.len() == INDEXED {
        return Err(unusual());
    }
    let name = |place: &Place| message.as_bytes().get(place.key.start as usize..place.key.end as usize);
    if seen.any(|place| name(place) == Some(key.as_bytes())) {
        return Err(strict.fail(StrictJsonError::DuplicateKey));
    }
    Ok(key)
}

/// `text`, a value read at the place of `strict`, checked under its rules. Capturing a
/// value's text checks its syntax only: a string's escapes (an unpaired surrogate) and a
/// number's range (`1e400`) are checked by reading it, and a container's depth and keys.
/// What needs nothing more: a string without escapes, `true`, `false`, `null`, an integer
/// short enough to fit, and an empty container (only the level it opens counts).
///
/// `repeated`: the text is one a client sends again and again, and a text that passed
/// lately on this thread passes again without being read (see `protocol::passed`).
fn checked<E: de::Error>(text: &str, strict: Strict<'_>, repeated: bool) -> Result<(), E> {
    let plain = match text.as_bytes().first() {
        Some(b'"') => !text.contains('\\'),
        Some(b't' | b'f' | b'n') => true,
        Some(b'{' | b'[') if text.len() == 2 => {
            strict.open::<E>()?;
            true
        }
        Some(b'{' | b'[') => false,
        _ => text.len() <= 18 && text.bytes().all(|b| b.is_ascii_digit() || b == b'-'),
    };
    if !plain {
        let check = if repeated { Strict::check_repeated_text } else { Strict::check_text };
        check(&strict, text).map_err(|_| E::custom("invalid params"))?;
    }
    Ok(())
}

/// Reads `_meta`'s members at the place of `strict` (only an object), each checked, into
/// `places` (counted in `message`) and `len`.
struct MetaSeed<'a, 'p> {
    strict: Strict<'a>,
    message: &'a str,
    places: &'p mut [Place; INDEXED],
    len: &'p mut usize,
}

impl<'de> DeserializeSeed<'de> for MetaSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MetaSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let inner = self.strict.open()?;
        while let Some(key) = map.next_key_seed(KeyText)? {
            let key = kept_name(key, self.places[..*self.len].iter(), self.message, inner)?;
            let value = map.next_value::<&'de RawValue>()?.get();
            // A client repeats its capabilities and info in every request: their texts
            // are checked once per thread while they stay the same.
            let repeated = matches!(key, keys::CLIENT_CAPABILITIES | keys::CLIENT_INFO);
            checked(value, inner, repeated)?;
            let place = Place {
                key: span(self.message, key).ok_or_else(unusual)?,
                value: span(self.message, value).ok_or_else(unusual)?,
            };
            self.places[*self.len] = place;
            *self.len += 1;
        }
        Ok(())
    }
}

/// JSON's whitespace.
fn blank(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// The place of `mark` at or before `from`, past only whitespace.
fn back_to(bytes: &[u8], from: usize, mark: u8) -> Option<usize> {
    let mut i = from;
    loop {
        match *bytes.get(i)? {
            byte if byte == mark => return Some(i),
            byte if blank(byte) => i = i.checked_sub(1)?,
            _ => return None,
        }
    }
}

/// The place just past `mark`, at or after `from`, past only whitespace.
fn past(bytes: &[u8], from: usize, mark: u8) -> Option<usize> {
    let skipped = bytes.get(from..)?.iter().position(|byte| !blank(*byte))?;
    (bytes.get(from + skipped) == Some(&mark)).then_some(from + skipped + 1)
}

/// `text` read as the params of a message are (for tests): kept as text when it can be.
#[cfg(test)]
pub(crate) fn read_text(text: &str) -> Result<Params, StrictJsonError> {
    let violation = std::cell::Cell::new(None);
    let strict = Strict::top(super::super::DEFAULT_MAX_JSON_DEPTH, &violation);
    let mut scan = serde_json::Deserializer::from_str(text);
    match (ParamsSeed { strict, message: text }).deserialize(&mut scan) {
        Ok(ParamsIn::Object(params)) => Ok(params),
        Ok(_) => Err(StrictJsonError::Syntax),
        Err(_) => match violation.get() {
            Some(why) => Err(why),
            None => super::super::parse_strict(text, super::super::DEFAULT_MAX_JSON_DEPTH).map(|value| match value {
                serde_json::Value::Object(object) => Params::from(object),
                _ => Params::new(),
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::super::{DEFAULT_MAX_JSON_DEPTH, JsonRpcMessage, decode_message, parse_strict};
    use super::*;

    /// The params of a request whose params are `text`, as the message reading keeps them.
    fn params(text: &str) -> Result<Params, String> {
        match decode_message(&format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{text}}}"#)) {
            Ok(JsonRpcMessage::Request(request)) => Ok(request.params.unwrap_or_default()),
            Ok(other) => Err(format!("not a request: {other:?}")),
            Err(e) => Err(e.message),
        }
    }

    fn kept_as_text(params: &Params) -> bool {
        matches!(params.0, Repr::Text(_))
    }

    /// Whatever the layout, the params read as the tree of their text: whole, member by
    /// member, and (for `_meta`) member by member of `_meta`.
    #[test]
    fn reads_as_the_tree_reads() {
        let texts = [
            r#"{"name":"echo","arguments":{"text":"hello"}}"#,
            " { \"name\" : \"echo\" ,\n\t\"arguments\" :{ \"a\":[1, 2.5e3, -0, true, null] } \r} ",
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","x":{"y":[{}]}},"name":"e"}"#,
            r#"{"name":"e","_meta": { } }"#,
            r#"{"name":"e","_meta":{},"requestState":"s"}"#,
            r#"{"a":"\u00e9\"\\","b":"\ud83d\ude00","c":18446744073709551615,"d":1.0}"#,
            r#"{"_meta" : { "k" : "v" , "n":null } , "last":{}}"#,
            // Not kept as text, read as a tree: escaped names, too many members, an odd `_meta`.
            r#"{"n\u0061me":"echo"}"#,
            r#"{"_meta":{"\u006b":1}}"#,
            r#"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}"#,
            r#"{"_meta":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}}"#,
            r#"{"_meta":"x","name":"e"}"#,
            r#"{"_meta":null}"#,
            "{}",
            " { } ",
        ];
        for text in texts {
            let tree = match parse_strict(text, DEFAULT_MAX_JSON_DEPTH) {
                Ok(Value::Object(object)) => object,
                other => panic!("{text}: {other:?}"),
            };
            let read = params(text).expect(text);
            for (key, value) in &tree {
                assert_eq!(read.get(key), Some(value), "{text}: {key}");
            }
            assert_eq!(read.get("absent"), None);
            let meta = tree.get("_meta").and_then(Value::as_object);
            let keys = ["io.modelcontextprotocol/protocolVersion", "x", "k", "n", "absent"];
            let fields = read.meta_fields(&keys);
            for (key, field) in keys.iter().zip(fields) {
                let expected = meta.and_then(|meta| meta.get(*key));
                let field = field.map(|field| field.decode::<Value>().expect("decodes"));
                assert_eq!(field.as_ref(), expected, "{text}: _meta {key}");
            }
            assert_eq!(read.has_meta_object(), meta.is_some(), "{text}");
            assert_eq!(*read, tree, "{text}");
            assert_eq!(read.clone().into_object(), tree, "{text}");
        }
        assert!(kept_as_text(&params(texts[1]).expect("valid")));
        assert!(kept_as_text(&params(texts[3]).expect("valid")));
        assert!(!kept_as_text(&params(texts[7]).expect("valid")));
    }

    /// The rules hold for params kept as text as for any other part of a message, with
    /// the same errors.
    #[test]
    fn refuses_what_the_rules_refuse() {
        let deep = format!("{}1{}", "[".repeat(70), "]".repeat(70));
        let cases = [
            (r#"{"a":1,"a":2}"#.to_owned(), "duplicate key"),
            (r#"{"_meta":{"k":1,"k":2}}"#.to_owned(), "duplicate key"),
            (r#"{"arguments":{"x":{"y":1,"y":1}}}"#.to_owned(), "duplicate key"),
            (r#"{"a":1,"\u0061":2}"#.to_owned(), "duplicate key"),
            (format!(r#"{{"arguments":{{"x":{deep}}}}}"#), "nested deeper"),
            (format!(r#"{{"_meta":{{"x":{deep}}}}}"#), "nested deeper"),
            (r#"{"a":1,"a":}"#.to_owned(), "Parse error"),
            (r#"{"a":"\ud800"}"#.to_owned(), "Parse error"),
            (r#"{"a":1e400}"#.to_owned(), "Parse error"),
            (r#"{"a":-1e400,"b":1}"#.to_owned(), "Parse error"),
            (format!(r#"{{"a":{}}}"#, "9".repeat(400)), "Parse error"),
            (r#"{"_meta":{"a":1e400}}"#.to_owned(), "Parse error"),
            (r#"{"_meta":{"a":"\udc00"}}"#.to_owned(), "Parse error"),
        ];
        for (text, error) in cases {
            let refused = params(&text).err().unwrap_or_default();
            assert!(refused.contains(error), "{text}: {refused}");
        }
        // An empty container still opens a level: `{}` inside params inside the message is
        // three levels deep, in a member of params or of `_meta`.
        for inner in [r#"{"a":{}}"#, r#"{"a":[]}"#, r#"{"_meta":{"a":{}}}"#, r#"{"_meta":{}}"#] {
            let levels = if inner.starts_with(r#"{"_meta":{""#) { 4 } else { 3 };
            let message = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{inner}}}"#);
            let read =
                |depth| super::super::super::decode_message_with(&message, depth).map(|_| ()).map_err(|e| e.code);
            assert_eq!(read(levels), Ok(()), "{inner}");
            assert_eq!(read(levels - 1), Err(-32600), "{inner}");
        }
        // Found by the fuzzer: a number out of range in a notification's params.
        let notification = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"p":50777771e3087777777777777777,"total":100}}"#;
        assert_eq!(decode_message(notification).map(|_| ()).map_err(|e| e.code), Err(-32700));
        assert_eq!(params("[1]").err().as_deref(), Some("Invalid params: params must be a JSON object"));
        assert_eq!(params("null").map(|p| p.len()), Ok(0));
    }

    /// A member read is built once, and one taken out as text is built only if asked; a
    /// container (but `_meta`) is built as the message is read.
    #[test]
    fn builds_only_what_is_read() {
        let read = params(r#"{"name":"echo","_meta":{"k":[1]},"arguments":{"t":"x"}}"#).expect("valid");
        let Repr::Text(text) = &read.0 else { panic!("kept as text") };
        assert!(text.tree.get().is_none());
        assert_eq!(read.get("name"), Some(&json!("echo")));
        assert!(text.find("name").is_some_and(|(_, member)| member.built.get().is_some()));
        assert!(text.find("_meta").is_some_and(|(_, member)| member.built.get().is_none()));
        let mut seen = Vec::new();
        read.take_each(|key, value| {
            let built = matches!(value, super::super::Taken::Value(_));
            seen.push((key.to_owned(), built, value.into_value()));
            Ok::<(), ()>(())
        })
        .expect("no error");
        assert_eq!(
            seen,
            [
                ("name".to_owned(), true, json!("echo")),
                ("_meta".to_owned(), false, json!({"k": [1]})),
                ("arguments".to_owned(), true, json!({"t": "x"})),
            ]
        );
    }

    #[test]
    fn changing_params_read_as_text_changes_them() {
        let mut read = params(r#"{"name":"echo","requestState":"s"}"#).expect("valid");
        assert_eq!(read.get("requestState"), Some(&json!("s")));
        read.remove("requestState");
        read.insert("extra".into(), json!(1));
        assert_eq!(read.get("requestState"), None);
        assert_eq!(read.get("extra"), Some(&json!(1)));
        assert_eq!(serde_json::to_value(&read).ok(), Some(json!({"name": "echo", "extra": 1})));
        // Set in place: the text stays for the other members.
        let mut read =
            params(r#"{"name":"echo","requestState":"s","arguments":{"a":1},"_meta":{"k":1}}"#).expect("valid");
        read.set("requestState", Some(json!("plain")));
        assert!(kept_as_text(&read));
        assert_eq!(read.get("requestState"), Some(&json!("plain")));
        read.set("arguments", None);
        assert!(kept_as_text(&read));
        assert_eq!(read.get("arguments"), None);
        assert!(read.field("arguments").is_none());
        let object = json!({"name": "echo", "requestState": "plain", "_meta": {"k": 1}});
        assert_eq!(Value::Object((*read).clone()), object);
        assert_eq!(serde_json::to_value(&read).ok(), Some(object.clone()));
        assert_eq!(Value::Object(read.clone().into_object()), object);
        let mut members = Vec::new();
        read.clone()
            .take_each(|key, value| {
                members.push((key.to_owned(), value.into_value()));
                Ok::<(), ()>(())
            })
            .expect("no error");
        assert_eq!(
            members,
            [
                ("name".to_owned(), json!("echo")),
                ("requestState".to_owned(), json!("plain")),
                ("_meta".to_owned(), json!({"k": 1})),
            ]
        );
        // A member new to the params, or `_meta`, makes them a tree.
        let mut grown = read.clone();
        grown.set("extra", Some(json!(2)));
        assert!(!kept_as_text(&grown));
        assert_eq!(grown.get("extra"), Some(&json!(2)));
        assert_eq!(grown.get("requestState"), Some(&json!("plain")));
        read.set("_meta", None);
        assert!(!kept_as_text(&read));
        assert_eq!(Value::Object(read.into_object()), json!({"name": "echo", "requestState": "plain"}));
        let kept = params(r#"{ "name" : "echo" }"#).expect("valid");
        assert_eq!(serde_json::to_string(&kept).ok().as_deref(), Some(r#"{ "name" : "echo" }"#));
    }
}
