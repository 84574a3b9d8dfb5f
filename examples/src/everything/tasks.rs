//! The tasks extension's fixtures (the conformance suite's `tasks-*` scenarios): tools
//! that run as tasks, fail as tasks, ask for input halfway, or ask before they start.

use std::time::Duration;

use mcp::resolve::{Answer, Elicit, ask};
use mcp::{Context, Error, Resolve};

/// A name.
#[derive(serde::Deserialize, mcp::ElicitForm)]
pub struct Name {
    /// Your name.
    pub name: String,
}

/// A yes or no.
#[derive(serde::Deserialize, mcp::ElicitForm)]
pub struct Confirm {
    /// Go ahead?
    pub confirm: bool,
}

/// Greet someone. Never a task.
#[mcp::tool]
pub fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Compute for `seconds`, then report `label`: a task when the client supports them.
#[mcp::tool(task = "optional")]
pub async fn slow_compute(seconds: u64, label: String, ctx: Context) -> String {
    if let Some(task) = ctx.task() {
        task.set_status_message(format!("computing {label}")).await;
    }
    tokio::time::sleep(Duration::from_secs(seconds.min(3600))).await;
    format!("Computed {label} in {seconds}s.")
}

/// A job that runs only as a task and ends with a tool error (`isError`).
#[mcp::tool(task = "required")]
pub async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("The job failed: the input data is corrupt.".to_owned())
}

/// A job that runs only as a task and ends with a JSON-RPC error.
#[mcp::tool(task = "required")]
pub async fn protocol_error_job() -> Result<String, Error> {
    tokio::time::sleep(Duration::from_millis(200)).await;
    Err(Error::internal("The job hit an internal error"))
}

/// Delete a file once the user confirms, asked halfway through the task.
#[mcp::tool(task = "required")]
pub async fn confirm_delete(filename: String, ctx: Context) -> Result<String, Error> {
    match ask(&ctx, Elicit::<Confirm>::new(format!("Delete {filename}?"))).await? {
        Answer::Accept(Confirm { confirm: true }) => Ok(format!("Deleted {filename}.")),
        _ => Ok(format!("Kept {filename}.")),
    }
}

/// Ask two questions at once, halfway through the task.
#[mcp::tool(task = "required")]
pub async fn multi_input(ctx: Context) -> Result<String, Error> {
    let (name, confirm) =
        tokio::join!(ask(&ctx, Elicit::<Name>::new("Your name?")), ask(&ctx, Elicit::<Confirm>::new("Proceed?")));
    let name = name?.accepted().map_or_else(|| "nobody".to_owned(), |n| n.name.clone());
    let confirmed = confirm?.accepted().is_some_and(|c| c.confirm);
    Ok(format!("Hello, {name}: {}.", if confirmed { "confirmed" } else { "not confirmed" }))
}

/// The user's name, asked before the task starts.
#[mcp::resolver(key = "user_name")]
pub fn user_name() -> Elicit<Name> {
    Elicit::new("What is your name?")
}

/// Ask the user's name in multi round-trip rounds, then greet them from a task.
#[mcp::tool(task = "required")]
pub async fn test_tool_with_task(name: Resolve<user_name>) -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    format!("Hello from the task, {}!", name.name)
}
