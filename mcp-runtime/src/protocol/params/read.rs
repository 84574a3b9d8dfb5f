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
use serde_json::Value;
use serde_json::value::RawValue;

use super::super::strict::{Check, KeyText, Strict, StrictJsonError};
use super::{INDEXED, Member, Params, Place, Repr, Text};

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

/// A member's name and value text, as they lie in the message.
type Found<'de> = (&'de str, &'de str);

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

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ParamsIn, A::Error> {
        let inner = self.strict.open()?;
        let mut members: [Found<'de>; INDEXED] = [("", ""); INDEXED];
        // The members built as they were read (see below).
        let mut built: [Option<Value>; INDEXED] = Default::default();
        let mut len = 0;
        // `_meta`: its place among the members, and its own members.
        let mut meta: Option<(usize, [Found<'de>; INDEXED], usize)> = None;
        while let Some(key) = map.next_key_seed(KeyText)? {
            let key = kept_name(key, &members[..len], inner)?;
            if key == "_meta" {
                let (found, found_len) = map.next_value_seed(MetaSeed(inner))?;
                meta = Some((len, found, found_len));
                members[len] = (key, "");
            } else {
                let text = map.next_value::<&'de RawValue>()?.get();
                // A container (`arguments`, `inputResponses`) is read by whoever serves the
                // request: built now, it is checked as it is built, where checking it and
                // building it later read it twice.
                if text.starts_with(['{', '[']) && text.len() > 2 {
                    let value = inner.read_text(text).map_err(|_| de::Error::custom("invalid params"))?;
                    built[len] = Some(value);
                    members[len] = (key, text);
                } else {
                    members[len] = (key, checked(text, inner)?);
                }
            }
            len += 1;
        }
        if len == 0 {
            return Ok(ParamsIn::Object(Params::new()));
        }
        let meta = meta.as_ref().map(|(at, found, n)| (*at, &found[..*n]));
        let params = placed(self.message, &members[..len], &mut built, meta).ok_or_else(unusual)?;
        Ok(ParamsIn::Object(params))
    }
}

/// A member's name, to keep with those `found` before it: written without escapes (so it
/// lies in the message as it reads), not one past [`INDEXED`], and not repeated (a
/// violation of the rules at the place of `strict`).
fn kept_name<'de, E: de::Error>(key: Cow<'de, str>, found: &[Found<'de>], strict: Strict<'_>) -> Result<&'de str, E> {
    let Cow::Borrowed(key) = key else { return Err(unusual()) };
    if found.len() == INDEXED {
        return Err(unusual());
    }
    if found.iter().any(|(seen, _)| *seen == key) {
        return Err(strict.fail(StrictJsonError::DuplicateKey));
    }
    Ok(key)
}

/// `text`, a value read at the place of `strict`, checked under its rules. Capturing a
/// value's text checks its syntax only: a string's escapes (an unpaired surrogate) and a
/// number's range (`1e400`) are checked by reading it, and a container's depth and keys.
/// What needs nothing more: a string without escapes, `true`, `false`, `null`, an integer
/// short enough to fit, and an empty container (only the level it opens counts).
fn checked<'de, E: de::Error>(text: &'de str, strict: Strict<'_>) -> Result<&'de str, E> {
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
        strict.check_text(text).map_err(|_| E::custom("invalid params"))?;
    }
    Ok(text)
}

/// Reads `_meta`'s members, at the place of the [`Strict`] it holds; only an object.
struct MetaSeed<'a>(Strict<'a>);

impl<'de> DeserializeSeed<'de> for MetaSeed<'_> {
    type Value = ([Found<'de>; INDEXED], usize);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MetaSeed<'_> {
    type Value = ([Found<'de>; INDEXED], usize);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let inner = self.0.open()?;
        let mut found: [Found<'de>; INDEXED] = [("", ""); INDEXED];
        let mut len = 0;
        while let Some(key) = map.next_key_seed(KeyText)? {
            let key = kept_name(key, &found[..len], inner)?;
            found[len] = (key, checked(map.next_value::<&'de RawValue>()?.get(), inner)?);
            len += 1;
        }
        Ok((found, len))
    }
}

/// The params whose members are `members` (at least one; those already built in `built`),
/// with `_meta`'s members and `_meta`'s place among them, all lying in `message`: the
/// object's text copied out, and the places of the members in it. `None` if something is not where it should be (it
/// always is: the parts were read from `message`), or past what the places can count.
fn placed(
    message: &str,
    members: &[Found<'_>],
    built: &mut [Option<Value>; INDEXED],
    meta: Option<(usize, &[Found<'_>])>,
) -> Option<Params> {
    let bytes = message.as_bytes();
    let span = |part: &str| -> Option<Range<usize>> {
        let start = (part.as_ptr() as usize).checked_sub(message.as_ptr() as usize)?;
        Some(start..start + part.len())
    };
    let spans = |(key, value): &Found<'_>| Some((span(key)?, span(value)?));
    // `_meta`'s value: from the `{` after its name's closing quote and the colon, to the
    // `}` after its last value (or after that `{`, when it is empty).
    let meta_value = match meta {
        Some((meta_at, found)) => {
            let key = span(members.get(meta_at)?.0)?;
            let open = past(bytes, past(bytes, key.end + 1, b':')?, b'{')? - 1;
            let close = match found.last() {
                Some(last) => past(bytes, spans(last)?.1.end, b'}')?,
                None => past(bytes, open + 1, b'}')?,
            };
            Some((meta_at, open..close))
        }
        None => None,
    };
    let mut found: [(Range<usize>, Range<usize>); INDEXED] = Default::default();
    for (at, (slot, member)) in found.iter_mut().zip(members).enumerate() {
        *slot = match &meta_value {
            Some((meta_at, value)) if *meta_at == at => (span(member.0)?, value.clone()),
            _ => spans(member)?,
        };
    }
    let found = &found[..members.len()];
    // From the `{` before the first name's opening quote to the `}` after the last value.
    let start = back_to(bytes, found.first()?.0.start.checked_sub(2)?, b'{')?;
    let end = past(bytes, found.last()?.1.end, b'}')?;
    let text = message.get(start..end)?;
    u32::try_from(text.len()).ok()?;
    let local = |range: &Range<usize>| -> Range<u32> {
        let shift = |n: usize| u32::try_from(n - start).unwrap_or(u32::MAX);
        shift(range.start)..shift(range.end)
    };
    let mut places: [Member; INDEXED] = Default::default();
    for ((slot, (key, value)), built) in places.iter_mut().zip(found).zip(built) {
        slot.place = Place { key: local(key), value: local(value) };
        if let Some(value) = built.take() {
            slot.built = OnceLock::from(value);
        }
    }
    let mut meta_places: [Place; INDEXED] = Default::default();
    let meta_found = meta.map_or(&[][..], |(_, found)| found);
    for (slot, member) in meta_places.iter_mut().zip(meta_found) {
        let (key, value) = spans(member)?;
        *slot = Place { key: local(&key), value: local(&value) };
    }
    Some(Params(Repr::Text(Box::new(Text {
        text: text.into(),
        members: places,
        len: members.len(),
        meta: meta_places,
        meta_len: meta_found.len(),
        tree: OnceLock::new(),
    }))))
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
