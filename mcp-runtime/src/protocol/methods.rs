//! Method names of both protocol eras.

/// `server/discover` (2026-07-28).
pub const SERVER_DISCOVER: &str = "server/discover";
/// `initialize` (2025-11-25 and earlier).
pub const INITIALIZE: &str = "initialize";
/// `notifications/initialized` (2025-11-25 and earlier).
pub const NOTIFICATION_INITIALIZED: &str = "notifications/initialized";
/// `ping` (2025-11-25 and earlier).
pub const PING: &str = "ping";
/// `logging/setLevel` (2025-11-25 and earlier).
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
/// `resources/subscribe` (2025-11-25 and earlier).
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// `resources/unsubscribe` (2025-11-25 and earlier).
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// `tools/list`.
pub const TOOLS_LIST: &str = "tools/list";
/// `tools/call`.
pub const TOOLS_CALL: &str = "tools/call";
/// `prompts/list`.
pub const PROMPTS_LIST: &str = "prompts/list";
/// `prompts/get`.
pub const PROMPTS_GET: &str = "prompts/get";
/// `resources/list`.
pub const RESOURCES_LIST: &str = "resources/list";
/// `resources/templates/list`.
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
/// `resources/read`.
pub const RESOURCES_READ: &str = "resources/read";
/// `completion/complete`.
pub const COMPLETION_COMPLETE: &str = "completion/complete";
/// `subscriptions/listen` (2026-07-28).
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// `notifications/cancelled`.
pub const NOTIFICATION_CANCELLED: &str = "notifications/cancelled";
/// `notifications/progress`.
pub const NOTIFICATION_PROGRESS: &str = "notifications/progress";
/// `notifications/message`.
pub const NOTIFICATION_MESSAGE: &str = "notifications/message";
/// `notifications/tools/list_changed`.
pub const NOTIFICATION_TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// `notifications/prompts/list_changed`.
pub const NOTIFICATION_PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
/// `notifications/resources/list_changed`.
pub const NOTIFICATION_RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// `notifications/resources/updated`.
pub const NOTIFICATION_RESOURCES_UPDATED: &str = "notifications/resources/updated";
/// `notifications/subscriptions/acknowledged` (2026-07-28).
pub const NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// `notifications/roots/list_changed` (2025-11-25 and earlier).
pub const NOTIFICATION_ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
pub use super::mrtr::methods::{ELICITATION_CREATE, ROOTS_LIST, SAMPLING_CREATE_MESSAGE};
