//! The schema transform that keeps only standard JSON Schema 2020-12 `format` values.
//!
//! schemars describes Rust's numeric types with formats of its own (`uint8`, `int64`,
//! `double`, ...). JSON Schema validators warn about every unknown format (the MCP
//! Inspector prints `unknown format "uint32" ignored in schema` on each call), so they are
//! replaced: an integer's width becomes `minimum`/`maximum`, a float's format is dropped.

use schemars::Schema;
use schemars::transform::{Transform, transform_subschemas};
use serde_json::{Number, Value};

/// The `format` values defined by JSON Schema 2020-12 (Validation, section 7.3).
const STANDARD: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// A schema transform that removes every non-standard `format` from a schema and its
/// subschemas. An integer format (`int8` ... `uint64`, `int`, `uint`) becomes the bounds
/// of its width as `minimum`/`maximum` (exact JSON integers, also for 64 bits; a bound the
/// schema already has is kept when it is tighter); a float format (`float`, `double`) is
/// just dropped.
///
/// Every schema the framework produces (tool input and output schemas) goes through it.
/// Apply it to a schema of your own, for a hand-written tool list, with
/// [`Transform::transform`]:
///
/// ```
/// use schemars::transform::Transform;
///
/// let mut schema = schemars::schema_for!(u8);
/// mcp::items::StandardFormats.transform(&mut schema);
/// assert_eq!(schema.get("format"), None);
/// assert_eq!(schema.get("minimum"), Some(&0.into()));
/// assert_eq!(schema.get("maximum"), Some(&255.into()));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct StandardFormats;

impl Transform for StandardFormats {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(map) = schema.as_object_mut()
            && let Some(Value::String(format)) = map.get("format")
            && !STANDARD.contains(&format.as_str())
        {
            let bounds = integer_bounds(format);
            map.shift_remove("format");
            if let Some((minimum, maximum)) = bounds {
                tighten(map, "minimum", minimum, |new, old| new > old);
                if let Some(maximum) = maximum {
                    tighten(map, "maximum", maximum, |new, old| new < old);
                }
            }
        }
        transform_subschemas(self, schema);
    }
}

/// A JSON Schema 2020-12 generator that applies [`StandardFormats`] to what it generates.
pub(crate) fn schema_generator() -> schemars::SchemaGenerator {
    schemars::generate::SchemaSettings::draft2020_12().with_transform(StandardFormats).into_generator()
}

/// The smallest and largest value of an integer format (`None`: not an integer format, or
/// no upper bound a JSON integer can hold, as for `uint128`).
fn integer_bounds(format: &str) -> Option<(Number, Option<Number>)> {
    fn signed(min: i64, max: i64) -> Option<(Number, Option<Number>)> {
        Some((min.into(), Some(max.into())))
    }
    fn unsigned(max: u64) -> Option<(Number, Option<Number>)> {
        Some((0.into(), Some(max.into())))
    }
    match format {
        "int8" => signed(i8::MIN.into(), i8::MAX.into()),
        "int16" => signed(i16::MIN.into(), i16::MAX.into()),
        "int32" => signed(i32::MIN.into(), i32::MAX.into()),
        "int64" => signed(i64::MIN, i64::MAX),
        // `isize`/`usize`: the width of the machine the server runs on.
        "int" => signed(isize::MIN as i64, isize::MAX as i64),
        "uint8" => unsigned(u8::MAX.into()),
        "uint16" => unsigned(u16::MAX.into()),
        "uint32" => unsigned(u32::MAX.into()),
        "uint64" => unsigned(u64::MAX),
        "uint" => unsigned(usize::MAX as u64),
        "uint128" => Some((0.into(), None)),
        _ => None,
    }
}

/// Set `key` to `bound` unless the schema already has a bound that `is_tighter` rejects.
fn tighten(map: &mut serde_json::Map<String, Value>, key: &str, bound: Number, is_tighter: fn(f64, f64) -> bool) {
    let existing = map.get(key).and_then(Value::as_f64);
    let new = bound.as_f64().unwrap_or_default();
    if existing.is_none_or(|old| is_tighter(new, old)) {
        map.insert(key.to_owned(), Value::Number(bound));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn standardized(value: Value) -> Value {
        let mut schema = Schema::try_from(value).expect("a schema");
        StandardFormats.transform(&mut schema);
        schema.to_value()
    }

    #[test]
    fn integer_formats_become_bounds() {
        let cases = [
            ("uint8", json!({"type": "integer", "minimum": 0, "maximum": 255})),
            ("uint32", json!({"type": "integer", "minimum": 0, "maximum": 4_294_967_295u64})),
            ("uint64", json!({"type": "integer", "minimum": 0, "maximum": u64::MAX})),
            ("int32", json!({"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX})),
            ("int64", json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX})),
            ("uint128", json!({"type": "integer", "minimum": 0})),
            ("int128", json!({"type": "integer"})),
        ];
        for (format, expected) in cases {
            assert_eq!(standardized(json!({"type": "integer", "format": format})), expected, "{format}");
        }
    }

    #[test]
    fn the_64_bit_bounds_are_exact_integers() {
        let text = serde_json::to_string(&standardized(json!({"type": "integer", "format": "uint64"}))).expect("text");
        assert!(text.contains("18446744073709551615"), "{text}");
        let text = serde_json::to_string(&standardized(json!({"type": "integer", "format": "int64"}))).expect("text");
        assert!(text.contains("-9223372036854775808") && text.contains("9223372036854775807"), "{text}");
    }

    #[test]
    fn tighter_bounds_are_kept() {
        let schema = json!({"type": "integer", "format": "uint32", "minimum": 1, "maximum": 10});
        assert_eq!(standardized(schema), json!({"type": "integer", "minimum": 1, "maximum": 10}));
        let schema = json!({"type": "integer", "format": "uint8", "minimum": -5.5, "maximum": 1e9});
        assert_eq!(standardized(schema), json!({"type": "integer", "minimum": 0, "maximum": 255}));
    }

    #[test]
    fn float_and_unknown_formats_are_dropped_standard_ones_kept() {
        assert_eq!(standardized(json!({"type": "number", "format": "double"})), json!({"type": "number"}));
        assert_eq!(standardized(json!({"type": "number", "format": "float"})), json!({"type": "number"}));
        assert_eq!(standardized(json!({"type": "string", "format": "password"})), json!({"type": "string"}));
        for format in STANDARD {
            let schema = json!({"type": "string", "format": format});
            assert_eq!(standardized(schema.clone()), schema);
        }
    }

    #[test]
    fn subschemas_are_transformed_and_data_is_not() {
        let schema = json!({
            "type": "object",
            "properties": {
                "format": {"type": "string", "format": "uri"},
                "n": {"anyOf": [{"type": "integer", "format": "uint8"}, {"type": "null"}]},
                "xs": {"type": "array", "items": {"type": "number", "format": "double"}},
            },
            "$defs": {"D": {"type": "integer", "format": "int8"}},
            "default": {"format": "uint8"},
        });
        assert_eq!(
            standardized(schema),
            json!({
                "type": "object",
                "properties": {
                    "format": {"type": "string", "format": "uri"},
                    "n": {"anyOf": [{"type": "integer", "minimum": 0, "maximum": 255}, {"type": "null"}]},
                    "xs": {"type": "array", "items": {"type": "number"}},
                },
                "$defs": {"D": {"type": "integer", "minimum": -128, "maximum": 127}},
                "default": {"format": "uint8"},
            })
        );
    }
}
