// Task tools: optional and required, with a context, with resolvers before the task, and
// asking the client halfway through with `mcp::resolve::ask`.
use mcp::resolve::{Answer, Elicit, ask};
use mcp::{Context, Resolve};

#[derive(serde::Deserialize, mcp::ElicitForm)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

/// Reindex, as a task when the client supports them.
#[mcp::tool(task = "optional")]
async fn reindex(ctx: Context) -> String {
    match ctx.task() {
        Some(task) => format!("task {}", task.id()),
        None => "inline".to_owned(),
    }
}

/// Delete, once confirmed halfway through.
#[mcp::tool(task = "required")]
async fn delete(path: String, ctx: Context) -> Result<String, mcp::Error> {
    match ask(&ctx, Elicit::<Confirm>::new(format!("Delete {path}?"))).await? {
        Answer::Accept(Confirm { confirm: true }) => Ok(format!("deleted {path}")),
        _ => Ok(format!("kept {path}")),
    }
}

#[mcp::resolver]
fn ask_confirm() -> Elicit<Confirm> {
    Elicit::new("Really?")
}

/// Ask first, then run as a task.
#[mcp::tool(task = "required")]
async fn purge(confirm: Resolve<ask_confirm>) -> Result<String, String> {
    if confirm.confirm { Ok("purged".to_owned()) } else { Err("not confirmed".to_owned()) }
}

fn main() {
    let server = mcp::Server::builder("tasks", "1.0.0").tool::<reindex>().tool::<delete>().tool::<purge>().build();
    assert!(server.capabilities().extensions.as_ref().is_some_and(|e| e.contains_key("io.modelcontextprotocol/tasks")));
}
