//! A member of params as a reader gets it: its text (nothing built) or its value.

#[cfg(feature = "server")]
use std::borrow::Cow;

#[cfg(feature = "server")]
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::build;
#[cfg(feature = "server")]
use super::plain_str;

#[cfg(feature = "server")]
/// A member read from params: its text, when the params arrived as text and the member
/// was not built, or its value.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Field<'a> {
    Text(&'a str),
    Value(&'a Value),
}

#[cfg(feature = "server")]
impl<'a> Field<'a> {
    /// Whether it is `null`.
    pub(crate) fn is_null(&self) -> bool {
        match self {
            Field::Text(text) => *text == "null",
            Field::Value(value) => value.is_null(),
        }
    }

    /// The string it is, if it is one.
    pub(crate) fn as_str(&self) -> Option<Cow<'a, str>> {
        match self {
            Field::Text(text) if text.starts_with('"') => match plain_str(text) {
                Some(plain) => Some(Cow::Borrowed(plain)),
                None => serde_json::from_str::<String>(text).ok().map(Cow::Owned),
            },
            Field::Text(_) => None,
            Field::Value(value) => value.as_str().map(Cow::Borrowed),
        }
    }

    /// Read it as a `T`; the error says why as reading it from its value would (without
    /// the place in the text that reading text adds).
    pub(crate) fn decode<T: DeserializeOwned>(&self) -> Result<T, String> {
        match self {
            Field::Text(text) => serde_json::from_str(text).map_err(|e| without_place(&e)),
            Field::Value(value) => T::deserialize(*value).map_err(|e| e.to_string()),
        }
    }
}

/// A member taken out of params: its value, or its text (checked when read).
pub(crate) enum Taken<'a> {
    Value(Value),
    Text(&'a str),
}

impl Taken<'_> {
    /// Its value, built from its text if need be.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Taken::Value(value) => value,
            Taken::Text(text) => build(text),
        }
    }
}

#[cfg(feature = "server")]
/// `error`'s message without the " at line L column C" that reading text appends.
fn without_place(error: &serde_json::Error) -> String {
    let message = error.to_string();
    let place = format!(" at line {} column {}", error.line(), error.column());
    match message.strip_suffix(&place) {
        Some(bare) => bare.to_owned(),
        None => message,
    }
}
