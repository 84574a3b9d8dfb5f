use mcp::Resolve;

/// Who is asking.
#[mcp::resolver]
fn current_user() -> String {
    "ada".to_owned()
}

#[mcp::prompt]
fn greeting(user: Resolve<current_user>) -> String {
    format!("Greet {}", user.into_inner())
}

fn main() {}
