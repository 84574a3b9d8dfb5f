//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) under 2026-07-28: a
//! request the server answers with a task, which the client polls with `tasks/get`,
//! feeds with `tasks/update` and stops with `tasks/cancel`.
//!
//! A client opts in per request, with the extension in
//! `_meta["io.modelcontextprotocol/clientCapabilities"].extensions`; the server alone
//! decides whether a request becomes a task. Every payload is flat: a
//! [`CreateTaskResult`] is `resultType: "task"` next to the [`Task`] fields, and a
//! `tasks/get` result is `resultType: "complete"` next to the [`DetailedTask`] fields.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ClientCapabilities, Error, InputRequests, JsonObject, Meta};

/// The extension's identifier, in `capabilities.extensions` on both sides.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Method names of the tasks extension.
pub mod methods {
    /// `tasks/get`: a task's status, and its result once it has one.
    pub const TASKS_GET: &str = "tasks/get";
    /// `tasks/update`: answers to a task's `inputRequests`.
    pub const TASKS_UPDATE: &str = "tasks/update";
    /// `tasks/cancel`: ask the server to stop a task.
    pub const TASKS_CANCEL: &str = "tasks/cancel";
    /// `notifications/tasks`: a task's state, on a `subscriptions/listen` stream.
    pub const NOTIFICATION_TASKS: &str = "notifications/tasks";
    /// Removed by the extension (2025-11-25's experimental tasks); answered `-32601`.
    pub const TASKS_RESULT: &str = "tasks/result";
    /// Removed by the extension (2025-11-25's experimental tasks); answered `-32601`.
    pub const TASKS_LIST: &str = "tasks/list";
}

/// Whether `capabilities` (one request's) declare the tasks extension. Any object counts;
/// the 2025-11-25 `tasks` capability does not.
pub fn declares_tasks(capabilities: &ClientCapabilities) -> bool {
    capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

/// The client capabilities a task-only request needs: the extension, for the `-32021`
/// error's `data.requiredCapabilities`.
pub fn tasks_capability() -> ClientCapabilities {
    let mut extensions = std::collections::BTreeMap::new();
    extensions.insert(TASKS_EXTENSION.to_owned(), JsonObject::new());
    ClientCapabilities { extensions: Some(extensions), ..Default::default() }
}

/// Where a task is in its life. `working` and `input_required` move between each other;
/// `completed`, `failed` and `cancelled` are terminal and never change again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The request is being served.
    Working,
    /// The server waits for answers to the task's `inputRequests` (`tasks/update`).
    InputRequired,
    /// Done: `result` is what the request would have returned (a tool error included).
    Completed,
    /// A JSON-RPC error ended it: `error` holds it.
    Failed,
    /// Cancelled before it completed.
    Cancelled,
}

impl TaskStatus {
    /// Whether the status is final.
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }

    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The fields every task message carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// The server-chosen, unguessable id.
    pub task_id: String,
    /// Where the task is.
    pub status: TaskStatus,
    /// A message for the user or the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When the task was created (ISO 8601).
    pub created_at: String,
    /// When its status or message last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long the server keeps it, from creation, in milliseconds; `null` for no limit
    /// (the key is always sent).
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// How often the client should poll, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

/// The result of a request the server turned into a task: `resultType: "task"` (added by
/// the server when it finishes the result) next to the [`Task`] fields. It never carries
/// `result`, `error`, `inputRequests` or `requestState`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateTaskResult {
    /// The result announcing `task`.
    pub fn new(task: Task) -> Self {
        CreateTaskResult { task, meta: None }
    }
}

/// A task with what its status calls for: `inputRequests` while `input_required`,
/// `result` once `completed`, `error` once `failed`. The result of `tasks/get` (with
/// `resultType: "complete"`) and the params of `notifications/tasks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DetailedTask {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// Every question still open (`input_required`), by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// What the original request returned (`completed`): for `tools/call`, a
    /// `CallToolResult`, `isError` included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<JsonObject>,
    /// The JSON-RPC error that ended it (`failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Error>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl DetailedTask {
    /// A task with no payload yet.
    pub fn new(task: Task) -> Self {
        DetailedTask { task, input_requests: None, result: None, error: None, meta: None }
    }
}

/// The params of `tasks/get` and `tasks/cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
    /// Metadata (the client's capabilities under 2026-07-28).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TaskIdParams {
    /// Params naming `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        TaskIdParams { task_id: task_id.into(), meta: None }
    }
}

/// The params of `tasks/update`: answers by the keys of the task's `inputRequests`.
///
/// The answers stay raw JSON here: keys the task is not waiting for are ignored without
/// being read, and the server reads each awaited one as the answer its question expects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// The answers, by question key.
    #[serde(default)]
    pub input_responses: serde_json::Map<String, Value>,
    /// Metadata (the client's capabilities under 2026-07-28).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl UpdateTaskParams {
    /// Answers for `task_id`.
    pub fn new(task_id: impl Into<String>, input_responses: serde_json::Map<String, Value>) -> Self {
        UpdateTaskParams { task_id: task_id.into(), input_responses, meta: None }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn task() -> Task {
        Task {
            task_id: "t1".into(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: "2026-12-01T10:00:00Z".into(),
            last_updated_at: "2026-12-01T10:00:00Z".into(),
            ttl_ms: None,
            poll_interval_ms: Some(500),
        }
    }

    #[test]
    fn a_created_task_is_flat_and_always_carries_ttl_ms() {
        let value = serde_json::to_value(CreateTaskResult::new(task())).expect("as set up");
        assert_eq!(
            value,
            json!({"taskId": "t1", "status": "working", "createdAt": "2026-12-01T10:00:00Z",
                   "lastUpdatedAt": "2026-12-01T10:00:00Z", "ttlMs": null, "pollIntervalMs": 500})
        );
    }

    #[test]
    fn a_detailed_task_reads_its_payload_by_status() {
        let failed = json!({"taskId": "t1", "status": "failed", "createdAt": "a", "lastUpdatedAt": "b",
                            "ttlMs": 1000, "error": {"code": -32603, "message": "boom"}});
        let task: DetailedTask = serde_json::from_value(failed).expect("as set up");
        assert_eq!(task.task.status, TaskStatus::Failed);
        assert_eq!(task.task.ttl_ms, Some(1000));
        assert_eq!(task.error.map(|e| e.code), Some(-32603));
        assert!(TaskStatus::Cancelled.is_terminal() && !TaskStatus::InputRequired.is_terminal());
    }

    #[test]
    fn only_the_extension_counts_as_declaring_tasks() {
        let legacy: ClientCapabilities = serde_json::from_value(json!({"tasks": {"requests": {}}})).expect("as set up");
        assert!(!declares_tasks(&legacy));
        assert!(declares_tasks(&tasks_capability()));
    }
}
