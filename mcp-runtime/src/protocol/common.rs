//! Small types shared across the protocol: metadata, implementations, icons,
//! annotations, result types, caching hints, logging levels.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A JSON object.
pub type JsonObject = serde_json::Map<String, Value>;

/// A `_meta` object: free-form, with reserved `io.modelcontextprotocol/` keys.
pub type Meta = JsonObject;

/// Name and version of a client or server (`Implementation` in the schema).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Home page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// An implementation with a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation { name: name.into(), version: version.into(), ..Default::default() }
    }
}

/// Light or dark theme for an icon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// For light backgrounds.
    Light,
    /// For dark backgrounds.
    Dark,
}

/// An icon (an `https:` or `data:` URI).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// The image URI.
    pub src: String,
    /// MIME type of the image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// Theme the icon is designed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

impl Icon {
    /// An icon at `src` (an `https:` or `data:` URI), and nothing else set.
    pub fn new(src: impl Into<String>) -> Self {
        Icon { src: src.into(), ..Default::default() }
    }

    optional_setter!(
        /// Set the image's MIME type.
        with_mime_type => mime_type: into String
    );

    optional_setter!(
        /// Set the sizes, such as `"48x48"` or `"any"`.
        with_sizes => sizes: Vec<String>
    );

    optional_setter!(
        /// Set the theme the icon is designed for.
        with_theme => theme: IconTheme
    );
}

/// The sender or recipient of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant (model).
    Assistant,
}

/// Hints for clients about how to use an object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the object is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::protocol::number::opt")]
    pub priority: Option<f64>,
    /// ISO 8601 timestamp of the last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// The `resultType` discriminator every 2026-07-28 result carries.
///
/// Unknown values are kept, not lost, so a proxy can pass them on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum ResultType {
    /// A final result.
    #[default]
    Complete,
    /// An [`InputRequiredResult`](crate::protocol::InputRequiredResult).
    InputRequired,
    /// A value this crate does not know (for example an extension's `"task"`).
    Other(String),
}

impl ResultType {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Other(s) => s,
        }
    }
}

impl Serialize for ResultType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        Ok(match s.as_str() {
            "complete" => ResultType::Complete,
            "input_required" => ResultType::InputRequired,
            _ => ResultType::Other(s),
        })
    }
}

/// Who may cache a result (`cacheScope`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Any client or intermediary may cache and share it.
    #[default]
    Public,
    /// Only within the same authorization context.
    Private,
}

/// Severity of a log message (RFC 5424 levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// Informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// System is unusable.
    Emergency,
}

/// A progress token: a string or a number chosen by the client.
pub type ProgressToken = super::RequestId;
