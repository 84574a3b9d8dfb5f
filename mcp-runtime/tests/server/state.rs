//! Application state: `State<T>` parameters of tools, prompts, resources and resolvers,
//! `ctx.state::<T>()`, and the build error for a type that was never registered.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use mcp::server::BuildProblem;
use mcp::{Context, Resolve, Server, State};
use serde_json::{Value, json};

use crate::support::meta;

/// The store: ticket id to title.
#[derive(Clone, Default)]
struct Db(Arc<Mutex<BTreeMap<u32, String>>>);

impl Db {
    fn with(tickets: &[(u32, &str)]) -> Self {
        let db = Db::default();
        db.0.lock().unwrap_or_else(|e| e.into_inner()).extend(tickets.iter().map(|(id, t)| (*id, (*t).to_owned())));
        db
    }

    fn title(&self, id: u32) -> Option<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).get(&id).cloned()
    }
}

/// A second state type: who is on call.
#[derive(Clone)]
struct OnCall(&'static str);

/// A user type that happens to be called `State`: an ordinary argument.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct UserState<T> {
    value: T,
}
use UserState as StateArg;

/// Open a ticket.
#[mcp::tool]
fn open(title: String, db: State<Db>, on_call: mcp::State<OnCall>) -> String {
    let mut tickets = db.0.0.lock().unwrap_or_else(|e| e.into_inner());
    let id = tickets.keys().last().map_or(1, |last| last + 1);
    tickets.insert(id, title);
    format!("#{id} for {}", on_call.0.0)
}

/// Read the on-call person through the context.
#[mcp::tool]
fn who(ctx: Context) -> String {
    let on_call = ctx.state::<OnCall>().map_or("nobody", |o| o.0);
    let missing = ctx.state::<u64>().is_none();
    format!("{on_call} (no u64: {missing})")
}

/// Echo a user type spelled like the state wrapper.
#[mcp::tool]
fn echo(state: StateArg<u32>) -> u32 {
    state.value
}

/// Summarize a ticket.
#[mcp::prompt]
fn summarize(id: u32, db: State<Db>) -> String {
    format!("Summarize ticket {id}: {}", db.title(id).unwrap_or_default())
}

/// One ticket.
#[mcp::resource("tickets://{id}")]
fn ticket(id: u32, db: State<Db>) -> Result<String, String> {
    db.title(id).ok_or_else(|| format!("no ticket {id}"))
}

/// The on-call person, a static resource reading state.
#[mcp::resource("tickets://on-call")]
fn on_call_now(on_call: State<OnCall>) -> String {
    on_call.0.0.to_owned()
}

/// Who owns a ticket: the on-call person, for a ticket that exists.
#[mcp::resolver]
fn owner(id: &u32, db: State<Db>, on_call: &State<OnCall>) -> Result<String, String> {
    match db.title(*id) {
        Some(_) => Ok(on_call.0.0.to_owned()),
        None => Err(format!("no ticket {id}")),
    }
}

/// Assign a ticket to its owner.
#[mcp::tool]
fn assign(id: u32, owner: Resolve<owner>) -> String {
    format!("#{id} -> {}", *owner)
}

fn server() -> Server {
    Server::builder("state", "1.0.0")
        .state(Db::with(&[(1, "printer on fire")]))
        .state(OnCall("ada"))
        .tool::<open>()
        .tool::<who>()
        .tool::<echo>()
        .tool::<assign>()
        .prompt::<summarize>()
        .resource::<ticket>()
        .resource::<on_call_now>()
        .build()
}

async fn request(client: &mcp::client::RawClient, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = meta(&json!({}));
    client.request(method, params).await.unwrap_or_else(|e| panic!("{method}: {e:?}"))
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn tools_read_two_state_types_and_share_the_value() {
    let client = mcp::client::in_process(&server());
    let opened = request(&client, "tools/call", json!({"name": "open", "arguments": {"title": "no coffee"}})).await;
    assert_eq!(text(&opened), "#2 for ada");
    let read = request(&client, "resources/read", json!({"uri": "tickets://2"})).await;
    assert_eq!(read["contents"][0]["text"], "no coffee", "every call clones the same shared store");
}

#[tokio::test]
async fn state_is_not_in_the_input_schema_but_a_user_state_type_is() {
    let client = mcp::client::in_process(&server());
    let list = request(&client, "tools/list", json!({})).await;
    let tools = list["tools"].as_array().cloned().unwrap_or_default();
    let by_name = |n: &str| tools.iter().find(|t| t["name"] == n).cloned().unwrap_or_else(|| panic!("no tool {n}"));
    let open = by_name("open");
    assert_eq!(open["inputSchema"]["required"], json!(["title"]), "{open}");
    assert_eq!(open["inputSchema"]["properties"].as_object().map(|p| p.len()), Some(1), "{open}");
    let echo = by_name("echo");
    assert_eq!(echo["inputSchema"]["required"], json!(["state"]), "{echo}");
    let echoed = request(&client, "tools/call", json!({"name": "echo", "arguments": {"state": {"value": 7}}})).await;
    assert_eq!(echoed["structuredContent"], json!({"result": 7}));
    let assign = by_name("assign");
    assert_eq!(assign["inputSchema"]["required"], json!(["id"]), "a resolver's state is no argument: {assign}");
}

#[tokio::test]
async fn the_context_hands_out_the_state() {
    let client = mcp::client::in_process(&server());
    let who = request(&client, "tools/call", json!({"name": "who"})).await;
    assert_eq!(text(&who), "ada (no u64: true)");
}

#[tokio::test]
async fn a_prompt_reads_state_and_lists_no_state_argument() {
    let client = mcp::client::in_process(&server());
    let list = request(&client, "prompts/list", json!({})).await;
    assert_eq!(list["prompts"][0]["arguments"], json!([{"name": "id", "required": true}]));
    let got = request(&client, "prompts/get", json!({"name": "summarize", "arguments": {"id": "1"}})).await;
    assert_eq!(got["messages"][0]["content"]["text"], "Summarize ticket 1: printer on fire");
}

#[tokio::test]
async fn templates_and_static_resources_read_state() {
    let client = mcp::client::in_process(&server());
    let one = request(&client, "resources/read", json!({"uri": "tickets://1"})).await;
    assert_eq!(one["contents"][0]["text"], "printer on fire");
    let on_call = request(&client, "resources/read", json!({"uri": "tickets://on-call"})).await;
    assert_eq!(on_call["contents"][0]["text"], "ada");
}

#[tokio::test]
async fn a_resolver_reads_state_by_value_and_by_reference() {
    let client = mcp::client::in_process(&server());
    let assigned = request(&client, "tools/call", json!({"name": "assign", "arguments": {"id": 1}})).await;
    assert_eq!(text(&assigned), "#1 -> ada");
    let missing = request(&client, "tools/call", json!({"name": "assign", "arguments": {"id": 9}})).await;
    assert_eq!(
        (missing["isError"].clone(), text(&missing)),
        (json!(true), "Resolver 'server::state::owner' failed: no ticket 9")
    );
}

#[test]
fn a_missing_state_type_is_a_build_error_naming_the_item_and_the_type() {
    let error = Server::builder("state", "1.0.0")
        .state(OnCall("ada"))
        .tool::<open>()
        .prompt::<summarize>()
        .resource::<ticket>()
        .tool::<assign>()
        .try_build()
        .expect_err("no Db was registered");
    let db = std::any::type_name::<Db>();
    assert_eq!(
        error.problems(),
        [
            BuildProblem::MissingState { kind: mcp::server::ItemKind::Tool, name: "open".into(), type_name: db },
            BuildProblem::MissingState { kind: mcp::server::ItemKind::Prompt, name: "summarize".into(), type_name: db },
            BuildProblem::MissingState {
                kind: mcp::server::ItemKind::ResourceTemplate,
                name: "tickets://{id}".into(),
                type_name: db
            },
            BuildProblem::MissingState { kind: mcp::server::ItemKind::Tool, name: "assign".into(), type_name: db },
        ]
    );
    assert_eq!(
        error.problems()[0].to_string(),
        format!(
            "tool `open` takes `State<{db}>`, but no `{db}` was registered: \
             add `.state(value)` with a `{db}` value to the server builder"
        )
    );
    let resolver_only = Server::builder("state", "1.0.0").state(Db::default()).tool::<assign>().try_build();
    let on_call = std::any::type_name::<OnCall>();
    assert_eq!(
        resolver_only.expect_err("the resolver takes OnCall").to_string(),
        format!(
            "invalid MCP server: tool `assign` takes `State<{on_call}>`, but no `{on_call}` was registered: \
             add `.state(value)` with a `{on_call}` value to the server builder"
        )
    );
}

#[test]
fn build_panics_with_the_same_text() {
    let panic = std::panic::catch_unwind(|| Server::builder("state", "1.0.0").tool::<open>().build())
        .expect_err("build panics on a missing state");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    let db = std::any::type_name::<Db>();
    assert!(
        message
            .starts_with(&format!("invalid MCP server: tool `open` takes `State<{db}>`, but no `{db}` was registered")),
        "{message}"
    );
}

#[test]
fn the_last_registered_value_of_a_type_wins() {
    let server = Server::builder("state", "1.0.0").state(OnCall("ada")).state(OnCall("grace")).tool::<who>().build();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let who = runtime.block_on(async {
        let client = mcp::client::in_process(&server);
        request(&client, "tools/call", json!({"name": "who"})).await
    });
    assert_eq!(text(&who), "grace (no u64: true)");
}
