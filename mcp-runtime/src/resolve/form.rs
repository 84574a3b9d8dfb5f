//! Form elicitation: the flat schemas a form may have, built from Rust types, and the
//! check of an accepted form's content against its schema.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::protocol::{
    BooleanSchema, ElicitationSchema, NumberSchema, NumberType, PrimitiveSchema, StringSchema, UntitledItems,
    UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};

/// A struct that can be asked as a form: every field is a string, number, integer,
/// boolean, string enum (single choice) or `Vec` of one (several choices), optionally in an
/// `Option`. Derive it with `#[derive(mcp::ElicitForm)]` next to `serde::Deserialize`;
/// field doc comments become the fields' descriptions.
///
/// # Examples
///
/// ```
/// use mcp::ElicitForm;
/// use mcp::protocol::PrimitiveSchema;
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// #[serde(rename_all = "lowercase")]
/// enum Tier {
///     Small,
///     Large,
/// }
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// struct Order {
///     /// How many (0 to 255).
///     count: u8,
///     /// Anything else?
///     note: Option<String>,
///     tier: Tier,
/// }
///
/// let schema = Order::schema();
/// assert_eq!(schema.required, Some(vec!["count".to_owned(), "tier".to_owned()]));
/// let PrimitiveSchema::UntitledSingleSelect(tier) = &schema.properties["tier"] else { panic!("a single choice") };
/// assert_eq!(tier.values, ["small", "large"]);
/// let PrimitiveSchema::String(note) = &schema.properties["note"] else { panic!("a string field") };
/// assert_eq!(note.description.as_deref(), Some("Anything else?"));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be asked as a form",
    label = "`Elicit<T>` needs `T: ElicitForm`",
    note = "add `#[derive(serde::Deserialize, mcp::ElicitForm)]` to `{Self}`; forms are flat structs of strings, numbers, booleans and string enums"
)]
pub trait ElicitForm: DeserializeOwned + Send + Sync + 'static {
    /// The form's requested schema (built once).
    fn schema() -> &'static ElicitationSchema;
}

/// A type a form field may have.
///
/// # Examples
///
/// `#[derive(mcp::ElicitForm)]` asks each field's type for its schema, and whether it is
/// required:
///
/// ```
/// use mcp::protocol::{NumberType, PrimitiveSchema};
/// use mcp::resolve::ElicitField;
///
/// assert!(String::REQUIRED);
/// assert!(!<Option<String>>::REQUIRED);
///
/// let PrimitiveSchema::Number(count) = u8::field_schema(Some("How many".to_owned())) else {
///     panic!("an integer field")
/// };
/// assert_eq!(count.kind, NumberType::Integer);
/// assert_eq!((count.minimum, count.maximum), (Some(0.0), Some(255.0)));
/// assert_eq!(count.description.as_deref(), Some("How many"));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a form field",
    label = "form elicitation allows only flat fields",
    note = "a form field is a `String`, `bool`, an integer, `f32`/`f64`, a unit-only enum deriving `mcp::ElicitForm`, a `Vec` of such an enum, or an `Option` of any of these",
    note = "for several choices, list them in an enum: `#[derive(serde::Deserialize, mcp::ElicitForm)] enum Team {{ Core, Docs }}`, and make the field `Vec<Team>`"
)]
pub trait ElicitField {
    /// Whether the field must be filled in (`Option` fields need not be).
    const REQUIRED: bool = true;
    /// The field's schema.
    fn field_schema(description: Option<String>) -> PrimitiveSchema;
}

/// A unit-only enum offered as a choice of strings (derived by `#[derive(mcp::ElicitForm)]`).
///
/// # Examples
///
/// The values are serde's names for the variants; a `Vec` of the enum is a multi-select
/// field:
///
/// ```
/// use mcp::protocol::PrimitiveSchema;
/// use mcp::resolve::{ElicitChoice, ElicitField};
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// #[serde(rename_all = "kebab-case")]
/// enum Zone {
///     EuWest,
///     UsEast,
/// }
///
/// assert_eq!(Zone::VALUES, ["eu-west", "us-east"]);
/// let PrimitiveSchema::UntitledMultiSelect(zones) = <Vec<Zone>>::field_schema(None) else {
///     panic!("a multi-select field")
/// };
/// assert_eq!(zones.items.values, ["eu-west", "us-east"]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an enum of choices: a multi-select form field is a `Vec` of one",
    label = "a multi-select field needs an enum of choices, not `{Self}`",
    note = "list the choices in an enum: `#[derive(serde::Deserialize, mcp::ElicitForm)] enum Team {{ Core, Docs }}`, and make the field `Vec<Team>`; for free text, make the field one `String`"
)]
pub trait ElicitChoice {
    /// The wire values, in declaration order.
    const VALUES: &'static [&'static str];
}

impl ElicitField for String {
    fn field_schema(description: Option<String>) -> PrimitiveSchema {
        PrimitiveSchema::String(StringSchema { description, ..Default::default() })
    }
}

impl ElicitField for bool {
    fn field_schema(description: Option<String>) -> PrimitiveSchema {
        PrimitiveSchema::Boolean(BooleanSchema { description, ..Default::default() })
    }
}

macro_rules! integer_fields {
    ($($t:ty),*) => {$(
        impl ElicitField for $t {
            fn field_schema(description: Option<String>) -> PrimitiveSchema {
                PrimitiveSchema::Number(NumberSchema {
                    kind: NumberType::Integer,
                    description,
                    minimum: Some(<$t>::MIN as f64),
                    maximum: Some(<$t>::MAX as f64),
                    ..Default::default()
                })
            }
        }
    )*};
}
integer_fields!(i8, i16, i32, i64, u8, u16, u32, u64, isize, usize);

impl ElicitField for f64 {
    fn field_schema(description: Option<String>) -> PrimitiveSchema {
        PrimitiveSchema::Number(NumberSchema { kind: NumberType::Number, description, ..Default::default() })
    }
}

impl ElicitField for f32 {
    fn field_schema(description: Option<String>) -> PrimitiveSchema {
        f64::field_schema(description)
    }
}

impl<T: ElicitField> ElicitField for Option<T> {
    const REQUIRED: bool = false;

    fn field_schema(description: Option<String>) -> PrimitiveSchema {
        T::field_schema(description)
    }
}

impl<T: ElicitChoice> ElicitField for Vec<T> {
    fn field_schema(description: Option<String>) -> PrimitiveSchema {
        PrimitiveSchema::UntitledMultiSelect(UntitledMultiSelectEnumSchema {
            description,
            items: UntitledItems { values: owned(T::VALUES), ..Default::default() },
            ..Default::default()
        })
    }
}

fn owned(values: &[&str]) -> Vec<String> {
    values.iter().map(|v| (*v).to_owned()).collect()
}

/// The schema of a single choice among `values` (used by the derive on enums).
///
/// # Examples
///
/// Users meet it as the derived [`ElicitField`] schema of a unit-only enum:
///
/// ```
/// use mcp::protocol::PrimitiveSchema;
/// use mcp::resolve::ElicitField;
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// #[serde(rename_all = "lowercase")]
/// enum Tier {
///     Small,
///     Large,
/// }
///
/// let PrimitiveSchema::UntitledSingleSelect(tier) = Tier::field_schema(Some("Which tier".to_owned())) else {
///     panic!("a single choice")
/// };
/// assert_eq!(tier.values, ["small", "large"]);
/// assert_eq!(tier.description.as_deref(), Some("Which tier"));
/// ```
#[cfg_attr(not(feature = "macros"), allow(dead_code))]
pub fn choice_schema(values: &[&str], description: Option<String>) -> PrimitiveSchema {
    PrimitiveSchema::UntitledSingleSelect(UntitledSingleSelectEnumSchema {
        description,
        values: owned(values),
        ..Default::default()
    })
}

/// A form schema from `(wire name, required, schema)` fields (used by the derive).
///
/// # Examples
///
/// Users meet it as the derived [`ElicitForm::schema`]: `Option` fields are not required,
/// and a form without required fields has no `required` list.
///
/// ```
/// use mcp::ElicitForm;
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// struct Volume {
///     /// Storage in GB.
///     size_gb: u32,
///     label: Option<String>,
/// }
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// struct Note {
///     text: Option<String>,
/// }
///
/// let schema = serde_json::to_value(Volume::schema()).unwrap();
/// let expected = serde_json::json!({
///     "type": "object",
///     "properties": {
///         "size_gb": {"type": "integer", "description": "Storage in GB.", "minimum": 0, "maximum": 4294967295u64},
///         "label": {"type": "string"},
///     },
///     "required": ["size_gb"],
/// });
/// assert_eq!(schema, expected);
/// assert_eq!(Note::schema().required, None);
/// ```
#[cfg_attr(not(feature = "macros"), allow(dead_code))]
pub fn form_schema(fields: Vec<(&str, bool, PrimitiveSchema)>) -> ElicitationSchema {
    let required: Vec<String> = fields.iter().filter(|f| f.1).map(|f| f.0.to_owned()).collect();
    ElicitationSchema {
        properties: fields.into_iter().map(|(name, _, schema)| (name.to_owned(), schema)).collect(),
        required: (!required.is_empty()).then_some(required),
        ..Default::default()
    }
}

/// Whether an accepted form's `content` fits `schema`: an object with every required
/// field, and each known field of the right type, in range and among its choices.
/// Unknown fields are ignored.
///
/// # Examples
///
/// Users meet it when an accepted form comes back: [`Question::decode`] of an
/// [`Elicit<T>`](crate::resolve::Elicit) refuses content that does not fit the form it
/// asked, and the resolver's consumers never see it.
///
/// ```
/// use mcp::resolve::{Elicit, Question, Rendered};
/// use serde_json::json;
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// struct Size {
///     size_gb: u8,
///     note: Option<String>,
/// }
///
/// let Rendered::Ask(request) = Elicit::<Size>::new("How big?").into_request() else { panic!("asks") };
/// let fits = json!({"size_gb": 20, "extra": "ignored"});
/// assert_eq!(Elicit::<Size>::decode(&request, &fits).map(|s| s.size_gb), Some(20));
/// for bad in [json!({"note": "no size"}), json!({"size_gb": 300}), json!({"size_gb": "20"}), json!([20])] {
///     assert!(Elicit::<Size>::decode(&request, &bad).is_none(), "{bad}");
/// }
/// ```
///
/// [`Question::decode`]: crate::resolve::Question::decode
pub fn content_matches(schema: &ElicitationSchema, content: &Value) -> bool {
    let Value::Object(content) = content else {
        return false;
    };
    let required = schema.required.iter().flatten();
    if required.into_iter().any(|name| content.get(name).is_none_or(Value::is_null)) {
        return false;
    }
    schema.properties.iter().all(|(name, field)| match content.get(name) {
        None | Some(Value::Null) => true,
        Some(value) => field_matches(field, value),
    })
}

fn in_range(value: f64, minimum: Option<f64>, maximum: Option<f64>) -> bool {
    minimum.is_none_or(|m| value >= m) && maximum.is_none_or(|m| value <= m)
}

fn count_in(count: usize, minimum: Option<u64>, maximum: Option<u64>) -> bool {
    let count = count as u64;
    minimum.is_none_or(|m| count >= m) && maximum.is_none_or(|m| count <= m)
}

fn field_matches(schema: &PrimitiveSchema, value: &Value) -> bool {
    let one_of = |values: &[String]| value.as_str().is_some_and(|s| values.iter().any(|v| v == s));
    match schema {
        PrimitiveSchema::String(s) => {
            value.as_str().is_some_and(|v| count_in(v.chars().count(), s.min_length, s.max_length))
        }
        PrimitiveSchema::Boolean(_) => value.is_boolean(),
        PrimitiveSchema::Number(n) => {
            let Some(number) = value.as_f64() else { return false };
            let integral = value.is_i64() || value.is_u64() || number.fract() == 0.0;
            (n.kind == NumberType::Number || integral) && in_range(number, n.minimum, n.maximum)
        }
        PrimitiveSchema::UntitledSingleSelect(e) => one_of(&e.values),
        PrimitiveSchema::LegacyTitledEnum(e) => one_of(&e.values),
        PrimitiveSchema::TitledSingleSelect(e) => value.as_str().is_some_and(|s| e.one_of.iter().any(|o| o.value == s)),
        PrimitiveSchema::UntitledMultiSelect(m) => value.as_array().is_some_and(|items| {
            count_in(items.len(), m.min_items, m.max_items)
                && items.iter().all(|i| i.as_str().is_some_and(|s| m.items.values.iter().any(|v| v == s)))
        }),
        PrimitiveSchema::TitledMultiSelect(m) => value.as_array().is_some_and(|items| {
            count_in(items.len(), m.min_items, m.max_items)
                && items.iter().all(|i| i.as_str().is_some_and(|s| m.items.any_of.iter().any(|o| o.value == s)))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> ElicitationSchema {
        form_schema(vec![
            ("region", true, String::field_schema(None)),
            ("size_gb", true, u32::field_schema(None)),
            ("note", false, <Option<String>>::field_schema(None)),
            ("tier", false, choice_schema(&["small", "large"], None)),
        ])
    }

    #[test]
    fn accepts_content_that_fits() {
        assert!(content_matches(&schema(), &json!({"region": "eu", "size_gb": 10})));
        assert!(content_matches(&schema(), &json!({"region": "eu", "size_gb": 10.0, "note": null, "extra": [1]})));
        assert!(content_matches(&schema(), &json!({"region": "eu", "size_gb": 0, "tier": "large"})));
    }

    #[test]
    fn rejects_content_that_does_not() {
        for bad in [
            json!({"size_gb": 10}),
            json!({"region": "eu", "size_gb": null}),
            json!({"region": 3, "size_gb": 10}),
            json!({"region": "eu", "size_gb": -1}),
            json!({"region": "eu", "size_gb": 1.5}),
            json!({"region": "eu", "size_gb": 5_000_000_000u64}),
            json!({"region": "eu", "size_gb": "10"}),
            json!({"region": "eu", "size_gb": 1, "tier": "medium"}),
            json!("region"),
        ] {
            assert!(!content_matches(&schema(), &bad), "{bad}");
        }
    }

    #[test]
    fn fields_keep_their_declaration_order() {
        let schema = schema();
        let names: Vec<&String> = schema.properties.keys().collect();
        assert_eq!(names, ["region", "size_gb", "note", "tier"]);
        let text = serde_json::to_string(&schema).expect("json");
        assert!(text.find("\"size_gb\"") < text.find("\"note\""), "{text}");
    }

    #[test]
    fn option_fields_are_not_required() {
        let schema = schema();
        assert_eq!(schema.required, Some(vec!["region".to_owned(), "size_gb".to_owned()]));
    }
}
