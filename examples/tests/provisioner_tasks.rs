//! The provisioner's task tool, `backup_database`, in process under 2026-07-28: a task
//! for a client with the tasks extension (progress in its status message, the text result
//! at the end), an ordinary call for one without, a tool error for a bad duration, and a
//! cancelled backup that stays cancelled.

use std::time::{Duration, Instant};

use mcp::client::Client;
use mcp::protocol::{Outcome, TaskStatus};
use serde_json::json;

async fn client(tasks: bool) -> Client {
    Client::builder()
        .tasks(tasks)
        .connect_in_process(&mcp_examples::provisioner::server())
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"))
}

#[tokio::test]
async fn a_backup_runs_as_a_task_and_reports_each_step() {
    let client = client(true).await;
    let outcome = client
        .call_tool_once("backup_database", json!({"name": "orders", "seconds": 1}), Default::default())
        .await
        .unwrap_or_else(|e| panic!("call: {e}"));
    let Outcome::Task(created) = outcome else { panic!("not a task") };
    let id = created.task.task_id;
    let started = Instant::now();
    let mut messages = Vec::new();
    let task = loop {
        let task = client.get_task(&id).await.unwrap_or_else(|e| panic!("tasks/get: {e}"));
        if let Some(message) = &task.task.status_message
            && messages.last() != Some(message)
        {
            messages.push(message.clone());
        }
        if task.task.status.is_terminal() {
            break task;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "still {:?}", task.task.status);
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(task.task.status, TaskStatus::Completed);
    assert_eq!(messages.last().map(String::as_str), Some("backing up orders: step 2/2"), "{messages:?}");
    let result = task.result.unwrap_or_else(|| panic!("no result"));
    assert_eq!(result["content"], json!([{"type": "text", "text": "Backed up 'orders' in 1s."}]));
}

#[tokio::test]
async fn without_the_extension_a_backup_is_an_ordinary_call() {
    let result = client(false)
        .await
        .call_tool("backup_database", json!({"name": "orders", "seconds": 1}))
        .await
        .unwrap_or_else(|e| panic!("call: {e}"));
    assert_eq!(result.content[0].as_text(), Some("Backed up 'orders' in 1s."));
    assert_ne!(result.is_error, Some(true));
}

#[tokio::test]
async fn a_duration_out_of_range_is_a_tool_error() {
    let client = client(false).await;
    for seconds in [0, 601] {
        let result = client
            .call_tool("backup_database", json!({"name": "orders", "seconds": seconds}))
            .await
            .unwrap_or_else(|e| panic!("call: {e}"));
        assert_eq!(result.is_error, Some(true), "{seconds}");
        let want = format!("seconds must be 1 to 600, not {seconds}.");
        assert_eq!(result.content[0].as_text(), Some(want.as_str()));
    }
}

#[tokio::test]
async fn a_cancelled_backup_stays_cancelled() {
    let client = client(true).await;
    let outcome = client
        .call_tool_once("backup_database", json!({"name": "orders", "seconds": 30}), Default::default())
        .await
        .unwrap_or_else(|e| panic!("call: {e}"));
    let Outcome::Task(created) = outcome else { panic!("not a task") };
    let id = created.task.task_id;
    client.cancel_task(&id).await.unwrap_or_else(|e| panic!("tasks/cancel: {e}"));
    // Past the first step: the work's own ending (an error for a cancelled backup) must
    // not overwrite the cancellation.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let task = client.get_task(&id).await.unwrap_or_else(|e| panic!("tasks/get: {e}"));
    assert_eq!(task.task.status, TaskStatus::Cancelled);
    assert!(task.result.is_none() && task.error.is_none(), "{task:?}");
}
