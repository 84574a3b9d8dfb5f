//! Serde helpers for JSON numbers held as `f64`.
//!
//! JSON does not tell `50` from `50.0`, but JSON values compared structurally do,
//! so an integral `f64` is written back as an integer. That keeps
//! `serialize(deserialize(x)) == x` for the spec's examples.

use serde::{Deserialize, Deserializer, Serializer};

const MAX_EXACT: f64 = 9_007_199_254_740_991.0;

/// Serialize an `f64`, as an integer when it is integral and exactly representable.
pub fn serialize<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.fract() == 0.0 && value.abs() <= MAX_EXACT {
        #[allow(clippy::cast_possible_truncation)]
        serializer.serialize_i64(*value as i64)
    } else {
        serializer.serialize_f64(*value)
    }
}

/// Deserialize an `f64` from any JSON number.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    f64::deserialize(deserializer)
}

/// The same for `Option<f64>`.
pub mod opt {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize an optional `f64` (callers skip `None`).
    pub fn serialize<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => super::serialize(v, serializer),
            None => serializer.serialize_none(),
        }
    }

    /// Deserialize an optional `f64`.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
        Option::<f64>::deserialize(deserializer)
    }
}
