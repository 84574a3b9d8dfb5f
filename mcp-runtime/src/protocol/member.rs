//! Looking up a member of a small JSON object by comparing names instead of hashing.
//!
//! A [`JsonObject`] is an `IndexMap` keyed with SipHash. A request's params and its
//! `_meta` hold a handful of members, and the hot path asks each for the same few of them
//! (`_meta`, the protocol version, `name`, `requestState`, ...) in several layers: hashing
//! the probe costs more than comparing it with every name, most of which differ in length.

use serde_json::Value;

use super::JsonObject;
#[cfg(feature = "server")]
use super::{Params, params::Field};

/// The most members an object may have to be scanned rather than hashed into.
const SCAN: usize = 8;

/// `object`'s member `key`, as [`JsonObject::get`] finds it.
pub(crate) fn member<'a>(object: &'a JsonObject, key: &str) -> Option<&'a Value> {
    if object.len() <= SCAN {
        object.iter().find_map(|(name, value)| (name == key).then_some(value))
    } else {
        object.get(key)
    }
}

/// Member `key` of a request's params, if it has params.
#[cfg(feature = "server")]
pub(crate) fn param<'a>(params: Option<&'a Params>, key: &str) -> Option<&'a Value> {
    params.and_then(|params| params.get(key))
}

/// Member `key` of a request's params if it is a string: borrowed from the text the
/// params arrived as when it has no escapes (nothing is built or copied).
#[cfg(feature = "server")]
pub(crate) fn param_str<'a>(params: Option<&'a Params>, key: &str) -> Option<std::borrow::Cow<'a, str>> {
    params?.field(key)?.as_str()
}

/// The protocol version a 2026-07-28 request names in its `_meta`, whatever its type.
#[cfg(feature = "server")]
pub(crate) fn meta_version(params: Option<&Params>) -> Option<Field<'_>> {
    let [version] = params?.meta_fields(&[super::keys::PROTOCOL_VERSION]);
    version
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(len: usize) -> JsonObject {
        (0..len).map(|i| (format!("k{i}"), Value::from(i))).collect()
    }

    /// On both sides of the scanning limit, present and absent names are found as a hashed
    /// lookup finds them.
    #[test]
    fn finds_what_get_finds() {
        for len in [0, 1, SCAN - 1, SCAN, SCAN + 1, 3 * SCAN] {
            let object = object(len);
            for key in (0..len + 2).map(|i| format!("k{i}")).chain(["".into(), "k".into(), "k00".into()]) {
                assert_eq!(member(&object, &key), object.get(&key), "{len} members, {key:?}");
            }
        }
    }

    #[test]
    fn reads_meta_and_its_version() {
        let params = serde_json::json!({
            "name": "echo",
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
        });
        let params = params.as_object().cloned().map(Params::from);
        let version = meta_version(params.as_ref()).and_then(|v| v.as_str().map(|v| v.into_owned()));
        assert_eq!(version.as_deref(), Some("2026-07-28"));
        let odd = serde_json::json!({"_meta": "x"}).as_object().cloned().map(Params::from);
        assert!(meta_version(odd.as_ref()).is_none());
        assert!(meta_version(None).is_none());
    }
}
