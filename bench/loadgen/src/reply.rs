//! The messages loadgen reads: only the fields it checks are parsed.

use std::collections::HashMap;

use bytes::Bytes;
use serde_json::Value;

use crate::state::{Ctx, Fail, clip, rejected};

/// A received JSON-RPC message: the parts loadgen checks are parsed, the rest is skipped
/// without building values.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct Message {
    pub(crate) id: Option<Value>,
    pub(crate) method: Option<String>,
    pub(crate) result: Option<ResultHead>,
    pub(crate) error: Option<serde::de::IgnoredAny>,
}

/// What loadgen reads from a result.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct ResultHead {
    #[serde(rename = "resultType")]
    pub(crate) result_type: Option<String>,
    #[serde(rename = "isError")]
    pub(crate) is_error: Option<bool>,
    pub(crate) content: Option<Vec<Block>>,
    #[serde(rename = "inputRequests")]
    pub(crate) input_requests: Option<HashMap<String, InputRequestHead>>,
    #[serde(rename = "requestState")]
    pub(crate) request_state: Option<String>,
    #[serde(rename = "protocolVersion")]
    pub(crate) protocol_version: Option<String>,
    /// A task's id (`CreateTaskResult`, `tasks/get`).
    #[serde(rename = "taskId")]
    pub(crate) task_id: Option<String>,
    /// A task's status.
    pub(crate) status: Option<String>,
    /// A finished task's result (`tasks/get`).
    pub(crate) result: Option<Box<ResultHead>>,
}

#[derive(Debug, serde::Deserialize)]
pub(crate) struct Block {
    pub(crate) text: Option<String>,
}

#[derive(Debug, serde::Deserialize)]
pub(crate) struct InputRequestHead {
    pub(crate) method: Option<String>,
}

/// Just the routing fields, for a message whose result has an unexpected shape.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct Head {
    pub(crate) id: Option<Value>,
    pub(crate) method: Option<String>,
}

/// A message as received (its text kept for error reports) and parsed.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) raw: Bytes,
    pub(crate) message: Message,
    /// Why the message did not parse in full (its id and method did).
    pub(crate) invalid: Option<String>,
}

impl Reply {
    /// `None` when `raw` is not a JSON object at all.
    pub(crate) fn parse(raw: Bytes) -> Option<Reply> {
        match serde_json::from_slice::<Message>(&raw) {
            Ok(message) => Some(Reply { raw, message, invalid: None }),
            Err(e) => {
                let head: Head = serde_json::from_slice(&raw).ok()?;
                let message = Message { id: head.id, method: head.method, ..Message::default() };
                Some(Reply { raw, message, invalid: Some(e.to_string()) })
            }
        }
    }

    pub(crate) fn text(&self) -> String {
        clip(String::from_utf8_lossy(&self.raw).trim_end(), 400)
    }

    /// The id as a number (our ids are numbers; a server may echo them as strings).
    pub(crate) fn id(&self) -> Option<u64> {
        match self.message.id.as_ref()? {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.parse().ok(),
            _ => None,
        }
    }

    /// The result of a response, or why there is none.
    pub(crate) fn result(&self) -> Result<&ResultHead, Fail> {
        if let Some(why) = &self.invalid {
            return Err(rejected(format!("an unexpected response ({why}): {}", self.text())));
        }
        if self.message.error.is_some() {
            return Err(rejected(format!("JSON-RPC error: {}", self.text())));
        }
        self.message.result.as_ref().ok_or_else(|| rejected(format!("a response without a result: {}", self.text())))
    }

    /// A final, successful tool result (with the `--expect` text in it, when given).
    pub(crate) fn check_complete(&self, ctx: &Ctx) -> Result<(), Fail> {
        self.check_tool_result(self.result()?, ctx)
    }

    /// `result` is a final, successful tool result (with the `--expect` text in it).
    fn check_tool_result(&self, result: &ResultHead, ctx: &Ctx) -> Result<(), Fail> {
        match result.result_type.as_deref() {
            None | Some("complete") => {}
            Some(other) => {
                return Err(rejected(format!("expected a complete result, got resultType {other:?}: {}", self.text())));
            }
        }
        if result.is_error == Some(true) {
            return Err(rejected(format!("the tool returned isError: {}", self.text())));
        }
        if let Some(expect) = &ctx.expect {
            let blocks = result.content.as_deref().unwrap_or_default();
            if !blocks.iter().any(|b| b.text.as_deref().is_some_and(|t| t.contains(expect.as_str()))) {
                return Err(rejected(format!("the result does not contain {expect:?}: {}", self.text())));
            }
        }
        Ok(())
    }

    /// The key and `requestState` of an `input_required` result asking one elicitation.
    pub(crate) fn input_required(&self) -> Result<(String, Option<String>), Fail> {
        let result = self.result()?;
        if result.result_type.as_deref() != Some("input_required") {
            return Err(rejected(format!("expected an input_required result: {}", self.text())));
        }
        let requests = result.input_requests.as_ref();
        let Some((key, request)) = requests.filter(|r| r.len() == 1).and_then(|r| r.iter().next()) else {
            return Err(rejected(format!("expected exactly one input request: {}", self.text())));
        };
        if request.method.as_deref() != Some("elicitation/create") {
            return Err(rejected(format!("expected an elicitation/create input request: {}", self.text())));
        }
        Ok((key.clone(), result.request_state.clone()))
    }
}

/// Where a task stands after a `tasks/get`.
pub(crate) enum TaskState {
    /// Not finished yet (`working`).
    Pending,
    /// `completed` with a successful tool result.
    Done,
}

impl Reply {
    /// The id of the task a `tools/call` was answered with (`resultType: "task"`).
    pub(crate) fn created_task(&self) -> Result<String, Fail> {
        let result = self.result()?;
        if result.result_type.as_deref() != Some("task") {
            return Err(rejected(format!("expected a task (resultType \"task\"): {}", self.text())));
        }
        result.task_id.clone().ok_or_else(|| rejected(format!("a task without a taskId: {}", self.text())))
    }

    /// The state of the task in a `tasks/get` result; a `completed` one must carry a
    /// successful tool result (with the `--expect` text in it, when given).
    pub(crate) fn task_state(&self, ctx: &Ctx) -> Result<TaskState, Fail> {
        let result = self.result()?;
        match result.status.as_deref() {
            Some("working") => Ok(TaskState::Pending),
            Some("input_required") => Err(rejected(format!("the task asks for input: {}", self.text()))),
            Some("completed") => {
                let inner = result
                    .result
                    .as_deref()
                    .ok_or_else(|| rejected(format!("a completed task without a result: {}", self.text())))?;
                self.check_tool_result(inner, ctx).map(|()| TaskState::Done)
            }
            _ => Err(rejected(format!("the task did not complete: {}", self.text()))),
        }
    }
}
