//! Elicitation: asking the user through the client (`elicitation/create`).

use serde::{Deserialize, Serialize};

use super::tag::string_tag;
use super::{JsonObject, Meta};

string_tag!(
    /// `"form"`.
    FormMode = "form"
);
string_tag!(
    /// `"url"`.
    UrlMode = "url"
);
string_tag!(
    /// `"object"`.
    ObjectType = "object"
);
string_tag!(
    /// `"string"`.
    StringType = "string"
);
string_tag!(
    /// `"boolean"`.
    BooleanType = "boolean"
);
string_tag!(
    /// `"array"`.
    ArrayType = "array"
);

/// Parameters of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElicitRequestParams {
    /// Send the user to a URL.
    Url(ElicitUrlParams),
    /// Ask for a small form.
    Form(ElicitFormParams),
}

impl ElicitRequestParams {
    /// A form-mode elicitation.
    pub fn form(message: impl Into<String>, requested_schema: ElicitationSchema) -> Self {
        ElicitRequestParams::Form(ElicitFormParams {
            mode: Some(FormMode),
            message: message.into(),
            requested_schema,
            meta: None,
        })
    }

    /// The message shown to the user.
    pub fn message(&self) -> &str {
        match self {
            ElicitRequestParams::Url(u) => &u.message,
            ElicitRequestParams::Form(f) => &f.message,
        }
    }
}

/// Form-mode elicitation parameters. A missing `mode` means form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitFormParams {
    /// `"form"`, or absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormMode>,
    /// What to ask.
    pub message: String,
    /// The flat schema of the answer.
    pub requested_schema: ElicitationSchema,
    /// Metadata (2025-11-25 only).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// URL-mode elicitation parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitUrlParams {
    /// `"url"`.
    pub mode: UrlMode,
    /// What to tell the user.
    pub message: String,
    /// The URL to open.
    pub url: String,
    /// 2025-11-25 only: correlates `notifications/elicitation/complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Metadata (2025-11-25 only).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The fields of a form, by name, in the order they are declared (and shown). Build one
/// with `collect()`, `From<[(String, PrimitiveSchema); N]>` or `insert`.
pub type FormFields = indexmap::IndexMap<String, PrimitiveSchema>;

/// The restricted, flat object schema of a form elicitation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationSchema {
    /// An explicit dialect.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// `"object"`.
    #[serde(rename = "type")]
    pub kind: ObjectType,
    /// The fields, in the order the client should show them.
    pub properties: FormFields,
    /// Required field names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
}

/// The schema of one form field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PrimitiveSchema {
    /// Single choice with titles (`oneOf` of `{const, title}`).
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    /// Single choice with `enumNames` (legacy, to be removed).
    LegacyTitledEnum(LegacyTitledEnumSchema),
    /// Single choice from `enum`.
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    /// Several choices with titles.
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    /// Several choices from `enum`.
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
    /// A boolean.
    Boolean(BooleanSchema),
    /// A number or integer.
    Number(NumberSchema),
    /// A string.
    String(StringSchema),
}

/// A string field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// `email`, `uri`, `date` or `date-time`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// `"number"` or `"integer"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// Any number.
    #[default]
    Number,
    /// A whole number.
    Integer,
}

/// A number field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    #[serde(rename = "type")]
    pub kind: NumberType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::protocol::number::opt")]
    pub minimum: Option<f64>,
    /// Maximum.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::protocol::number::opt")]
    pub maximum: Option<f64>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::protocol::number::opt")]
    pub default: Option<f64>,
}

/// A boolean field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BooleanSchema {
    /// `"boolean"`.
    #[serde(rename = "type")]
    pub kind: BooleanType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// A choice with a label.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EnumOption {
    /// The value.
    #[serde(rename = "const")]
    pub value: String,
    /// The label.
    pub title: String,
}

/// Single choice from plain values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledSingleSelectEnumSchema {
    /// `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Default choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Single choice from labelled values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledSingleSelectEnumSchema {
    /// `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    pub one_of: Vec<EnumOption>,
    /// Default choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Single choice with `enumNames` (legacy form, still accepted).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Their labels.
    pub enum_names: Vec<String>,
    /// Default choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The `items` of an untitled multi-select.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledItems {
    /// `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// The `items` of a titled multi-select.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledItems {
    /// The choices.
    pub any_of: Vec<EnumOption>,
}

/// Several choices from plain values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: UntitledItems,
    /// Default choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Several choices from labelled values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: TitledItems,
    /// Default choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted (form) or consented (URL).
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The client's answer to `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted form (form mode with `accept` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitResult {
    /// An accepted form with this content.
    pub fn accept(content: JsonObject) -> Self {
        ElicitResult { action: ElicitAction::Accept, content: Some(content), meta: None }
    }

    /// A declined elicitation.
    pub fn decline() -> Self {
        ElicitResult { action: ElicitAction::Decline, content: None, meta: None }
    }

    /// A cancelled elicitation.
    pub fn cancel() -> Self {
        ElicitResult { action: ElicitAction::Cancel, content: None, meta: None }
    }
}
