//! Reading untrusted JSON into a [`Value`] with two rules `serde_json` does not enforce:
//! a nesting limit far below its stack-protecting 128, and no duplicate keys in an object.
//!
//! Duplicate keys are refused rather than resolved (last wins in `serde_json`, first wins in
//! some proxies): a message that two parsers read differently must not reach a handler.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The default nesting limit: every `{` or `[` counts, the message object included.
pub const DEFAULT_MAX_JSON_DEPTH: usize = 64;

/// Why strict reading failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrictJsonError {
    /// Not JSON at all (syntax, unpaired surrogate escape, trailing bytes, truncation).
    Syntax,
    /// Nested deeper than the limit.
    TooDeep,
    /// An object repeats a key.
    DuplicateKey,
}

/// Parse `text` as one JSON value nested at most `max_depth` levels, with unique keys.
pub fn parse_strict(text: &str, max_depth: usize) -> Result<Value, StrictJsonError> {
    let violation = Cell::new(None);
    read_strict(text, Strict::top(max_depth, &violation), &violation)
}

/// Read all of `text` with `seed`, which reads with the rules of a [`Strict`] made with
/// `violation`: a failure is the violation recorded, or else a syntax error.
pub(super) fn read_strict<'de, S: DeserializeSeed<'de>>(
    text: &'de str,
    seed: S,
    violation: &Cell<Option<StrictJsonError>>,
) -> Result<S::Value, StrictJsonError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let parsed = seed.deserialize(&mut deserializer).and_then(|value| deserializer.end().map(|()| value));
    parsed.map_err(|_| violation.get().unwrap_or(StrictJsonError::Syntax))
}

/// How many entries of an object are held on the stack before its map is built.
const SMALL: usize = 8;

/// One level of the value being read: how many more levels may open below it.
#[derive(Clone, Copy)]
pub(super) struct Strict<'a> {
    depth_left: usize,
    violation: &'a Cell<Option<StrictJsonError>>,
}

impl<'a> Strict<'a> {
    /// The rules for a whole text: `max_depth` levels, and the reason for failing kept in
    /// `violation`.
    pub(super) fn top(max_depth: usize, violation: &'a Cell<Option<StrictJsonError>>) -> Self {
        Strict { depth_left: max_depth, violation }
    }

    /// Record `why` as the reason reading stops, and the error that stops it.
    pub(super) fn fail<E: de::Error>(&self, why: StrictJsonError) -> E {
        self.violation.set(Some(why));
        E::custom(match why {
            StrictJsonError::TooDeep => "nested too deeply",
            StrictJsonError::DuplicateKey => "duplicate key",
            StrictJsonError::Syntax => "invalid JSON",
        })
    }

    /// Check `text`, a whole value read at this level's place, under the rules; why it
    /// fails is recorded as [`fail`](Self::fail) records it.
    pub(super) fn check_text(&self, text: &str) -> Result<(), StrictJsonError> {
        read_strict(text, Check(*self), self.violation)
    }

    /// [`check_text`](Self::check_text) for a text a client sends again and again: one
    /// that passed with as much room or less on this thread lately passes again without
    /// being read (see [`passed`](super::passed)).
    pub(super) fn check_repeated_text(&self, text: &str) -> Result<(), StrictJsonError> {
        if super::passed::passed(text, self.depth_left) {
            return Ok(());
        }
        self.check_text(text)?;
        super::passed::remember(text, self.depth_left);
        Ok(())
    }

    /// Read `text`, a whole value read at this level's place, under the rules; why it
    /// fails is recorded as [`fail`](Self::fail) records it.
    pub(super) fn read_text(&self, text: &str) -> Result<Value, StrictJsonError> {
        read_strict(text, *self, self.violation)
    }

    /// The seed for the values inside a container opened at this level.
    pub(super) fn open<E: de::Error>(&self) -> Result<Self, E> {
        match self.depth_left.checked_sub(1) {
            Some(depth_left) => Ok(Strict { depth_left, ..*self }),
            None => Err(self.fail(StrictJsonError::TooDeep)),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.open()?;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.open()?;
        // Up to `SMALL` entries wait on the stack, so that an object of at most `SMALL` keys
        // (most of a JSON-RPC message) allocates its map once, at its final size: a map grown
        // key by key allocates at the first key, then again (and rehashes) at the fourth and
        // the eighth. A duplicate among them is found by comparing the keys themselves.
        let mut small: [Option<(String, Value)>; SMALL] = Default::default();
        let mut held = 0;
        let next = loop {
            let Some(key) = map.next_key::<String>()? else { break None };
            if held == SMALL {
                break Some(key);
            }
            let value = map.next_value_seed(inner)?;
            if small[..held].iter().flatten().any(|(seen, _)| *seen == key) {
                return Err(self.fail(StrictJsonError::DuplicateKey));
            }
            small[held] = Some((key, value));
            held += 1;
        };
        let Some(mut key) = next else {
            let mut object = Map::with_capacity(held);
            object.extend(small.iter_mut().filter_map(Option::take));
            return Ok(Value::Object(object));
        };
        // More than `SMALL` keys: the held entries go into a map that grows from here.
        let mut object = Map::with_capacity(2 * SMALL);
        object.extend(small.iter_mut().filter_map(Option::take));
        loop {
            let value = map.next_value_seed(inner)?;
            if object.insert(key, value).is_some() {
                return Err(self.fail(StrictJsonError::DuplicateKey));
            }
            match map.next_key::<String>()? {
                Some(more) => key = more,
                None => return Ok(Value::Object(object)),
            }
        }
    }
}

/// Reads a value under the same rules as [`Strict`] and keeps nothing of it: a check that
/// a text a later reader reads (a request's params) is one a strict reading accepts. Keys
/// are compared where they lie in the text; only a key written with escapes is copied.
#[derive(Clone, Copy)]
pub(super) struct Check<'a>(pub(super) Strict<'a>);

impl<'de> DeserializeSeed<'de> for Check<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Check<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let inner = Check(self.0.open()?);
        while seq.next_element_seed(inner)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let inner = Check(self.0.open()?);
        // As in `Strict`: the first keys are compared with each other, later ones hashed.
        let mut small: [Option<Cow<'de, str>>; SMALL] = Default::default();
        let mut held = 0;
        // Made at the first key past `SMALL` (making a hasher's keys costs on every map).
        let mut spilled: Option<HashSet<Cow<'de, str>>> = None;
        while let Some(key) = map.next_key_seed(KeyText)? {
            map.next_value_seed(inner)?;
            let repeated = if held < SMALL {
                let seen = small[..held].iter().flatten().any(|seen| *seen == key);
                small[held] = Some(key);
                held += 1;
                seen
            } else {
                small.iter().flatten().any(|seen| *seen == key) || !spilled.get_or_insert_default().insert(key)
            };
            if repeated {
                return Err(self.0.fail(StrictJsonError::DuplicateKey));
            }
        }
        Ok(())
    }
}

/// Reads a key as it lies in the text, or decoded into a copy when it has escapes.
pub(super) struct KeyText;

impl<'de> DeserializeSeed<'de> for KeyText {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Cow<'de, str>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyText {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Check`] accepts and refuses what `parse_strict` does, for the same reason.
    fn check(text: &str, max_depth: usize) -> Result<(), StrictJsonError> {
        let violation = Cell::new(None);
        read_strict(text, Check(Strict::top(max_depth, &violation)), &violation)
    }

    #[test]
    fn checking_agrees_with_reading() {
        let keys: Vec<String> = (0..3 * SMALL).map(|k| format!("\"k{k}\":{k}")).collect();
        let many = format!("{{{}}}", keys.join(","));
        let late = format!("{{{},\"k{}\":0}}", keys.join(","), 2 * SMALL);
        let early_again = format!("{{{},\"k1\":0}}", keys.join(","));
        let texts = [
            r#"{"a":[1,-2,3.5,true,null,"x\u00e9"],"b":{"c":{}},"d":18446744073709551615}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"a":1,"\u0061":2}"#,
            r#"{"x":[{"k":1,"k":1}]}"#,
            r#"{"a":{"a":1}}"#,
            r#"{"a":1,"a":}"#,
            r#"{"a":1,"a":[[1]]}"#,
            r#"{"a":{"b":[1]}}"#,
            "[[[1]]]",
            "",
            "{",
            r#""\ud800""#,
            "[1] [2]",
            many.as_str(),
            late.as_str(),
            early_again.as_str(),
        ];
        for text in texts {
            for depth in [2, 3, 8] {
                assert_eq!(check(text, depth), parse_strict(text, depth).map(|_| ()), "{text} at {depth}");
            }
        }
        let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(check(&deep, DEFAULT_MAX_JSON_DEPTH), Err(StrictJsonError::TooDeep));
    }

    fn nested(levels: usize) -> String {
        format!("{}1{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn reads_what_serde_json_reads() {
        let text = r#"{"a":[1,-2,3.5,true,null,"x\u00e9"],"b":{"c":{}},"d":18446744073709551615}"#;
        let strict = parse_strict(text, DEFAULT_MAX_JSON_DEPTH);
        let plain: Value = serde_json::from_str(text).unwrap_or_default();
        assert_eq!(strict, Ok(plain));
    }

    #[test]
    fn depth_counts_every_container() {
        assert!(parse_strict(&nested(3), 3).is_ok());
        assert_eq!(parse_strict(&nested(4), 3), Err(StrictJsonError::TooDeep));
        assert_eq!(parse_strict(r#"{"a":{"b":[1]}}"#, 2), Err(StrictJsonError::TooDeep));
        assert!(parse_strict(r#"{"a":{"b":1}}"#, 2).is_ok());
        assert!(parse_strict("7", 0).is_ok());
    }

    #[test]
    fn far_too_deep_is_too_deep_not_a_stack_overflow() {
        assert_eq!(parse_strict(&nested(100_000), DEFAULT_MAX_JSON_DEPTH), Err(StrictJsonError::TooDeep));
        // An unterminated deep prefix still reports the depth it reached first.
        assert_eq!(parse_strict(&"[".repeat(1000), DEFAULT_MAX_JSON_DEPTH), Err(StrictJsonError::TooDeep));
    }

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        assert_eq!(parse_strict(r#"{"a":1,"a":2}"#, 8), Err(StrictJsonError::DuplicateKey));
        assert_eq!(parse_strict(r#"{"x":[{"k":1,"k":1}]}"#, 8), Err(StrictJsonError::DuplicateKey));
        // Escapes are decoded before comparing.
        assert_eq!(parse_strict(r#"{"a":1,"\u0061":2}"#, 8), Err(StrictJsonError::DuplicateKey));
        assert!(parse_strict(r#"{"a":{"a":1}}"#, 8).is_ok());
    }

    fn object(keys: impl IntoIterator<Item = usize>) -> String {
        let entries: Vec<String> = keys.into_iter().map(|k| format!("\"k{k}\":{k}")).collect();
        format!("{{{}}}", entries.join(","))
    }

    /// The first entries of an object wait on the stack and later ones go straight into its
    /// map: both sides of that boundary keep the keys in order and find every duplicate.
    #[test]
    fn objects_of_every_size_keep_their_order_and_refuse_duplicates() {
        for len in [0, 1, SMALL - 1, SMALL, SMALL + 1, 3 * SMALL] {
            let text = object(0..len);
            let strict = parse_strict(&text, 8).expect("unique keys");
            let keys: Vec<&String> = strict.as_object().expect("an object").keys().collect();
            let expected: Vec<String> = (0..len).map(|k| format!("k{k}")).collect();
            assert_eq!(keys, expected.iter().collect::<Vec<_>>(), "{len} keys");
            // `k{first}` again after keys 0..n (n at least `len`, `at_least` and first + 1): a
            // duplicate of the first or last key, and of a held or a spilled key after the spill.
            for (first, at_least) in [(0, len), (len.saturating_sub(1), len), (0, SMALL + 2), (SMALL + 1, SMALL + 3)] {
                if first >= len.max(1) {
                    continue;
                }
                let repeated = object((0..len.max(at_least).max(first + 1)).chain([first]));
                assert_eq!(parse_strict(&repeated, 8), Err(StrictJsonError::DuplicateKey), "{repeated}");
            }
        }
        // A duplicate still reads its value first: a broken value is a syntax error, and a
        // value nested too deeply is too deep.
        assert_eq!(parse_strict(r#"{"a":1,"a":}"#, 8), Err(StrictJsonError::Syntax));
        assert_eq!(parse_strict(r#"{"a":1,"a":[[1]]}"#, 2), Err(StrictJsonError::TooDeep));
    }

    #[test]
    fn syntax_errors_stay_syntax_errors() {
        for text in ["", "{", r#"{"a":}"#, r#""\ud800""#, "[1] [2]", "{'a':1}", "nul"] {
            assert_eq!(parse_strict(text, 8), Err(StrictJsonError::Syntax), "{text:?}");
        }
    }
}
