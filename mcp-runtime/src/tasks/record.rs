//! A task as a store keeps it, and the one state machine every store applies: terminal
//! states never change, answers only count for questions still open, and the status
//! follows from what is open.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::protocol::{DetailedTask, Error, InputRequest, InputRequests, InputResponse, JsonObject, Task, TaskStatus};

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    now.map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// RFC 3339 (ISO 8601) in UTC, to the millisecond.
fn timestamp(ms: u64) -> String {
    let nanos = i128::from(ms) * 1_000_000;
    let at = OffsetDateTime::from_unix_timestamp_nanos(nanos).unwrap_or(OffsetDateTime::UNIX_EPOCH);
    at.format(&Rfc3339).unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_owned())
}

/// One task, as stored: what `tasks/get` shows plus what only the server sees (the owner,
/// the answers its worker has not taken yet, the expiry). Serializable, so a shared store
/// can keep it anywhere. Its `Debug` shows the id and the status only: the answers and
/// the result may be secrets.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The unguessable id.
    pub id: String,
    /// A digest of the principal that created it (none without authentication).
    pub owner: Option<String>,
    /// Where it is.
    pub status: TaskStatus,
    /// The latest status message.
    pub status_message: Option<String>,
    /// Creation time, ms since the epoch.
    pub created_ms: u64,
    /// Last status or message change, ms since the epoch.
    pub updated_ms: u64,
    /// Lifetime from creation (`None`: unlimited).
    pub ttl_ms: Option<u64>,
    /// The suggested polling interval.
    pub poll_interval_ms: Option<u64>,
    /// Questions still open, by key.
    pub pending: InputRequests,
    /// Answers the client sent that the worker has not taken yet, by key.
    pub answers: BTreeMap<String, InputResponse>,
    /// Every key ever asked (keys are never reused within a task).
    pub asked: u64,
    /// The result (`completed`).
    pub result: Option<JsonObject>,
    /// The error (`failed`).
    pub error: Option<Error>,
    /// The instance running the task's work (see
    /// [`TaskConfigBuilder::worker_id`](super::TaskConfigBuilder::worker_id)).
    #[serde(default)]
    pub worker: Option<String>,
    /// Until when the worker's lease holds, ms since the epoch: a task still unfinished
    /// after that lost its worker, and fails ([`TaskChange::LeaseLost`]).
    #[serde(default)]
    pub lease_until_ms: Option<u64>,
}

impl std::fmt::Debug for TaskRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskRecord").field("id", &self.id).field("status", &self.status).finish_non_exhaustive()
    }
}

impl TaskRecord {
    /// A task that starts `working` now.
    pub fn new(id: String, owner: Option<String>, ttl_ms: Option<u64>, poll_interval_ms: Option<u64>) -> Self {
        let now = now_ms();
        TaskRecord {
            id,
            owner,
            status: TaskStatus::Working,
            status_message: None,
            created_ms: now,
            updated_ms: now,
            ttl_ms,
            poll_interval_ms,
            pending: InputRequests::new(),
            answers: BTreeMap::new(),
            asked: 0,
            result: None,
            error: None,
            worker: None,
            lease_until_ms: None,
        }
    }

    /// The same task, its work run by `worker` under a lease until `until_ms`.
    #[must_use]
    pub fn with_lease(mut self, worker: impl Into<String>, until_ms: u64) -> Self {
        self.worker = Some(worker.into());
        self.lease_until_ms = Some(until_ms);
        self
    }

    /// Whether the task is unfinished while its worker's lease ran out at `now_ms`.
    pub fn lease_lost_at(&self, now_ms: u64) -> bool {
        !self.status.is_terminal() && self.lease_until_ms.is_some_and(|until| now_ms >= until)
    }

    /// When the task expires (ms since the epoch), if it does.
    pub fn expires_ms(&self) -> Option<u64> {
        self.ttl_ms.map(|ttl| self.created_ms.saturating_add(ttl))
    }

    /// Whether the task has outlived its ttl at `now_ms`.
    pub fn is_expired_at(&self, now_ms: u64) -> bool {
        self.expires_ms().is_some_and(|at| now_ms >= at)
    }

    /// The wire form, with the payload its status calls for.
    pub fn detailed(&self) -> DetailedTask {
        let task = Task {
            task_id: self.id.clone(),
            status: self.status,
            status_message: self.status_message.clone(),
            created_at: timestamp(self.created_ms),
            last_updated_at: timestamp(self.updated_ms),
            ttl_ms: self.ttl_ms,
            poll_interval_ms: self.poll_interval_ms,
        };
        let mut detailed = DetailedTask::new(task);
        match self.status {
            TaskStatus::InputRequired => detailed.input_requests = Some(self.pending.clone()),
            TaskStatus::Completed => detailed.result = self.result.clone(),
            TaskStatus::Failed => detailed.error = self.error.clone(),
            TaskStatus::Working | TaskStatus::Cancelled => {}
        }
        detailed
    }

    /// Apply `change` at `now_ms`. Changes to a terminal task are ignored, bar reading.
    pub fn apply(&mut self, change: TaskChange, now_ms: u64) -> Applied {
        if self.status.is_terminal() {
            return Applied::Ignored;
        }
        let before = (self.status, self.status_message.clone(), self.pending.len(), self.asked);
        let applied = match change {
            TaskChange::Message(message) => {
                self.status_message = Some(message);
                Applied::Done
            }
            TaskChange::Ask { request } => {
                self.asked += 1;
                let key = format!("input-{}", self.asked);
                self.pending.insert(key.clone(), *request);
                Applied::Asked(key)
            }
            TaskChange::Answer(answers) => {
                let mut taken = 0;
                for (key, answer) in answers {
                    if self.pending.remove(&key).is_some() {
                        self.answers.insert(key, answer);
                        taken += 1;
                    }
                }
                Applied::Answered(taken)
            }
            TaskChange::Take { key } => match self.answers.remove(&key) {
                Some(answer) => Applied::Taken(Box::new(answer)),
                None => Applied::Ignored,
            },
            TaskChange::Withdraw { key } => {
                self.pending.remove(&key);
                self.answers.remove(&key);
                Applied::Done
            }
            TaskChange::Complete(result) => {
                self.finish(TaskStatus::Completed);
                self.result = Some(result);
                Applied::Done
            }
            TaskChange::Fail(error) => {
                self.finish(TaskStatus::Failed);
                if self.status_message.is_none() {
                    self.status_message = Some(error.message.clone());
                }
                self.error = Some(error);
                Applied::Done
            }
            TaskChange::Cancel => {
                self.finish(TaskStatus::Cancelled);
                Applied::Done
            }
            TaskChange::Renew { worker, until_ms } => {
                if self.worker.as_deref().is_some_and(|w| w != worker) {
                    return Applied::Ignored;
                }
                self.worker = Some(worker);
                self.lease_until_ms = Some(until_ms.max(self.lease_until_ms.unwrap_or(0)));
                return Applied::Renewed;
            }
            TaskChange::LeaseLost => {
                if !self.lease_lost_at(now_ms) {
                    return Applied::Ignored;
                }
                let worker = self.worker.clone().unwrap_or_default();
                let error = Error::new(
                    crate::protocol::ErrorCode::INTERNAL_ERROR,
                    format!("The task's worker ({worker}) stopped renewing its lease; its work was lost"),
                )
                .with_data(serde_json::json!({"reason": "worker_lost", "worker": worker}));
                self.finish(TaskStatus::Failed);
                self.status_message = Some(error.message.clone());
                self.error = Some(error);
                Applied::Done
            }
        };
        if !self.status.is_terminal() {
            self.status = if self.pending.is_empty() { TaskStatus::Working } else { TaskStatus::InputRequired };
        }
        let after = (self.status, &self.status_message, self.pending.len(), self.asked);
        if after != (before.0, &before.1, before.2, before.3) {
            self.updated_ms = now_ms.max(self.updated_ms);
        }
        applied
    }

    fn finish(&mut self, status: TaskStatus) {
        self.status = status;
        self.pending.clear();
        self.answers.clear();
    }
}

/// A change to a task, applied atomically by the store ([`TaskRecord::apply`]). Its
/// `Debug` names the change only, never its content.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum TaskChange {
    /// Set the status message.
    Message(String),
    /// Open a question (the task becomes `input_required`); it gets the next free key.
    Ask {
        /// The question.
        request: Box<InputRequest>,
    },
    /// Answers from `tasks/update`: each one for an open question closes it; others are
    /// ignored.
    Answer(BTreeMap<String, InputResponse>),
    /// The worker takes the answer to `key`.
    Take {
        /// The question's key.
        key: String,
    },
    /// The worker no longer waits for `key`.
    Withdraw {
        /// The question's key.
        key: String,
    },
    /// The request's result: the task is `completed`.
    Complete(JsonObject),
    /// A JSON-RPC error ended the request: the task is `failed`.
    Fail(Error),
    /// The task is `cancelled`.
    Cancel,
    /// The worker renews its lease until `until_ms` (ignored when another worker holds
    /// the task). Nothing a client sees changes.
    Renew {
        /// The worker renewing.
        worker: String,
        /// The new end of the lease, ms since the epoch.
        until_ms: u64,
    },
    /// The task is `failed`, with an error naming its worker, if its lease has run out
    /// (ignored otherwise: the worker renewed in time).
    LeaseLost,
}

impl std::fmt::Debug for TaskChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TaskChange::Message(_) => "Message",
            TaskChange::Ask { .. } => "Ask",
            TaskChange::Answer(_) => "Answer",
            TaskChange::Take { .. } => "Take",
            TaskChange::Withdraw { .. } => "Withdraw",
            TaskChange::Complete(_) => "Complete",
            TaskChange::Fail(_) => "Fail",
            TaskChange::Cancel => "Cancel",
            TaskChange::Renew { .. } => "Renew",
            TaskChange::LeaseLost => "LeaseLost",
        })
    }
}

/// What applying a [`TaskChange`] did.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum Applied {
    /// Applied.
    Done,
    /// Nothing changed: the task is terminal, or there was nothing to take.
    Ignored,
    /// A question was opened under this key.
    Asked(String),
    /// This many answers closed open questions.
    Answered(usize),
    /// The answer the worker took.
    Taken(Box<InputResponse>),
    /// The worker's lease was renewed (nothing a client sees changed).
    Renewed,
}

impl std::fmt::Debug for Applied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Applied::Done => f.write_str("Done"),
            Applied::Ignored => f.write_str("Ignored"),
            Applied::Asked(key) => f.debug_tuple("Asked").field(key).finish(),
            Applied::Answered(n) => f.debug_tuple("Answered").field(n).finish(),
            Applied::Taken(_) => f.write_str("Taken(..)"),
            Applied::Renewed => f.write_str("Renewed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ElicitRequestParams, ElicitResult, ElicitationSchema};

    fn question() -> InputRequest {
        InputRequest::Elicit(ElicitRequestParams::form("Sure?", ElicitationSchema::default()))
    }

    #[test]
    fn the_status_follows_the_open_questions_and_keys_are_never_reused() {
        let mut task = TaskRecord::new("t".into(), None, Some(60_000), None);
        let Applied::Asked(first) = task.apply(TaskChange::Ask { request: Box::new(question()) }, 1) else {
            panic!("a question opens")
        };
        let Applied::Asked(second) = task.apply(TaskChange::Ask { request: Box::new(question()) }, 2) else {
            panic!("a question opens")
        };
        assert_ne!(first, second);
        assert_eq!(task.status, TaskStatus::InputRequired);
        let answers = BTreeMap::from([
            (first.clone(), InputResponse::Elicit(ElicitResult::decline())),
            ("never-asked".to_owned(), InputResponse::Elicit(ElicitResult::decline())),
        ]);
        assert_eq!(task.apply(TaskChange::Answer(answers), 3), Applied::Answered(1));
        assert_eq!(task.status, TaskStatus::InputRequired, "the second question is still open");
        assert_eq!(task.detailed().input_requests.map(|r| r.into_keys().collect::<Vec<_>>()), Some(vec![second]));
        assert!(matches!(task.apply(TaskChange::Take { key: first.clone() }, 4), Applied::Taken(_)));
        assert_eq!(task.apply(TaskChange::Take { key: first }, 5), Applied::Ignored, "an answer is taken once");
        let Applied::Asked(third) = task.apply(TaskChange::Ask { request: Box::new(question()) }, 6) else {
            panic!("a question opens")
        };
        assert_eq!(third, "input-3");
    }

    #[test]
    fn a_terminal_task_never_changes() {
        let mut task = TaskRecord::new("t".into(), None, None, None);
        task.apply(TaskChange::Cancel, 10);
        assert_eq!(task.apply(TaskChange::Complete(JsonObject::new()), 11), Applied::Ignored);
        assert_eq!(task.status, TaskStatus::Cancelled);
        assert!(task.detailed().result.is_none());
    }

    #[test]
    fn a_failed_task_shows_its_error_and_timestamps_are_rfc3339() {
        let mut task = TaskRecord::new("t".into(), None, Some(1000), Some(200));
        task.apply(TaskChange::Fail(Error::internal("boom")), task.created_ms + 5);
        let detailed = task.detailed();
        assert_eq!(detailed.error.as_ref().map(|e| e.code), Some(-32603));
        assert_eq!(detailed.task.status_message.as_deref(), Some("boom"));
        assert!(detailed.result.is_none() && detailed.input_requests.is_none());
        assert_eq!(timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(timestamp(1_764_583_200_123), "2025-12-01T10:00:00.123Z");
        assert!(task.is_expired_at(task.created_ms + 1000) && !task.is_expired_at(task.created_ms + 999));
    }

    #[test]
    fn a_lease_is_renewed_by_its_worker_only_and_a_lost_one_fails_the_task() {
        let mut task = TaskRecord::new("t".into(), None, None, None).with_lease("a:1", 1_000);
        let updated = task.updated_ms;
        assert_eq!(task.apply(TaskChange::Renew { worker: "a:1".into(), until_ms: 2_000 }, 900), Applied::Renewed);
        assert_eq!((task.lease_until_ms, task.updated_ms), (Some(2_000), updated), "a renewal shows nothing");
        assert_eq!(task.apply(TaskChange::Renew { worker: "b:2".into(), until_ms: 9_000 }, 950), Applied::Ignored);
        assert_eq!(task.lease_until_ms, Some(2_000), "another worker cannot take the task");
        // Before the lease runs out, a lost-lease claim is refused: the worker renewed in time.
        assert_eq!(task.apply(TaskChange::LeaseLost, 1_999), Applied::Ignored);
        assert_eq!(task.status, TaskStatus::Working);
        assert!(task.lease_lost_at(2_000) && !task.lease_lost_at(1_999));
        assert_eq!(task.apply(TaskChange::LeaseLost, 2_000), Applied::Done);
        assert_eq!(task.status, TaskStatus::Failed);
        let error = task.error.as_ref().expect("an error");
        assert!(error.message.contains("a:1"), "names the worker: {}", error.message);
        assert!(!task.lease_lost_at(3_000), "a finished task has no lease to lose");
        assert_eq!(task.apply(TaskChange::Renew { worker: "a:1".into(), until_ms: 5_000 }, 3_000), Applied::Ignored);
    }

    #[test]
    fn records_stored_before_leases_still_read() {
        let mut old = serde_json::to_value(TaskRecord::new("t".into(), None, None, None)).expect("serializes");
        let fields = old.as_object_mut().expect("an object");
        fields.remove("worker");
        fields.remove("lease_until_ms");
        let task: TaskRecord = serde_json::from_value(old).expect("an older record reads");
        assert_eq!((task.worker, task.lease_until_ms), (None, None));
    }
}
