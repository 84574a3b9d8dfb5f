// `State<T>` parameters in every kind of item, next to a user type named `State` that
// stays an argument.
use std::sync::Arc;

use mcp::{Resolve, State};

#[derive(Clone)]
struct Db {
    names: Arc<Vec<String>>,
}

mod user {
    /// Not application state: a tool argument.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct State<T> {
        pub value: T,
    }
}

/// A tool.
#[mcp::tool]
fn count(db: State<Db>, extra: user::State<u32>) -> usize {
    db.names.len() + extra.value as usize
}

/// A resolver.
#[mcp::resolver]
fn first(db: &mcp::State<Db>) -> String {
    db.names.first().cloned().unwrap_or_default()
}

/// A tool with a resolver.
#[mcp::tool]
fn head(first: Resolve<first>) -> String {
    (*first).clone()
}

/// A prompt.
#[mcp::prompt]
fn topic(db: State<Db>) -> String {
    db.names.join(", ")
}

/// A template.
#[mcp::resource("db://{index}")]
fn row(index: usize, db: State<Db>) -> String {
    db.names.get(index).cloned().unwrap_or_default()
}

fn main() {
    let server = mcp::Server::builder("state", "1.0.0")
        .state(Db { names: Arc::new(vec!["a".into()]) })
        .tool::<count>()
        .tool::<head>()
        .prompt::<topic>()
        .resource::<row>()
        .build();
    let _ = server;
}
