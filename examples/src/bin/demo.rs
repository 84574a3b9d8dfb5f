//! The quick start: our client walks you through `provision_cluster` on the provisioner.
//!
//! By default the provisioner runs in this process. Under MCP 2026-07-28 the server never
//! calls the client: each round it answers with its questions and a sealed
//! `requestState`, and the client retries with the answers. The demo shows every round,
//! asks the questions on the terminal (or takes defaults when stdin is not a terminal),
//! and shows how big the sealed state is (never what is inside). Then it runs the same
//! call in a 2025-11-25 session, where the questions arrive as server-to-client requests.
//!
//! `demo --url http://127.0.0.1:8080/mcp [--tool NAME] [--args JSON]` talks to any server.

use std::io::{IsTerminal, Write};

use mcp::client::{Asker, CallOptions, Client, ClientError, Mode};
use mcp::protocol::{
    ContentBlock, CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationSchema, InputRequest,
    InputResponse, InputResponses, JsonObject, ListRootsResult, Outcome, PrimitiveSchema, Role, Root, SamplingContent,
    TextContent,
};
use serde_json::{Value, json};

/// Where the demo connects.
enum Target {
    InProcess,
    Url(String),
}

struct Args {
    target: Target,
    tool: String,
    arguments: Value,
}

fn parse_args() -> Result<Args, String> {
    let mut args =
        Args { target: Target::InProcess, tool: "provision_cluster".into(), arguments: json!({"name": "analytics"}) };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--url" => args.target = Target::Url(value()?),
            "--tool" => args.tool = value()?,
            "--args" => args.arguments = serde_json::from_str(&value()?).map_err(|e| format!("--args: {e}"))?,
            "-h" | "--help" => return Err("usage: demo [--url URL] [--tool NAME] [--args JSON]".into()),
            other => return Err(format!("unknown argument {other}; try --help")),
        }
    }
    Ok(args)
}

/// The default answer for a form field, used when stdin is not a terminal.
fn default_for(name: &str, schema: &PrimitiveSchema) -> Value {
    match (name, schema) {
        ("region", _) => json!("eu-west-1"),
        ("size_gb", _) => json!(500),
        (_, PrimitiveSchema::Boolean(_)) => json!(true),
        (_, PrimitiveSchema::Number(n)) if n.kind == mcp::protocol::NumberType::Integer => json!(1),
        (_, PrimitiveSchema::Number(_)) => json!(1.0),
        (_, PrimitiveSchema::UntitledSingleSelect(e)) => json!(e.values.first()),
        _ => json!("demo"),
    }
}

fn kind(schema: &PrimitiveSchema) -> &'static str {
    match schema {
        PrimitiveSchema::Boolean(_) => "yes/no",
        PrimitiveSchema::Number(n) if n.kind == mcp::protocol::NumberType::Integer => "integer",
        PrimitiveSchema::Number(_) => "number",
        _ => "text",
    }
}

/// Read a line from the terminal (blocking, off the runtime's threads).
async fn read_line() -> Option<String> {
    tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).ok().map(|_| line.trim().to_owned())
    })
    .await
    .ok()
    .flatten()
}

fn parse_answer(text: &str, schema: &PrimitiveSchema) -> Option<Value> {
    match schema {
        PrimitiveSchema::Boolean(_) => match text.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Some(json!(true)),
            "n" | "no" | "false" => Some(json!(false)),
            _ => None,
        },
        PrimitiveSchema::Number(n) if n.kind == mcp::protocol::NumberType::Integer => {
            text.parse::<i64>().ok().map(Value::from)
        }
        PrimitiveSchema::Number(_) => text.parse::<f64>().ok().map(Value::from),
        _ => Some(Value::String(text.to_owned())),
    }
}

/// Fill in a form on the terminal, one field at a time.
async fn fill_form(message: &str, schema: &ElicitationSchema) -> ElicitResult {
    println!("  ? {message}");
    let interactive = std::io::stdin().is_terminal();
    let mut content = JsonObject::new();
    for (name, field) in &schema.properties {
        let default = default_for(name, field);
        let answer = if interactive {
            print!("    {name} ({}, Enter for {default}): ", kind(field));
            let _ = std::io::stdout().flush();
            match read_line().await {
                Some(text) if !text.is_empty() => parse_answer(&text, field).unwrap_or(default),
                _ => default,
            }
        } else {
            default
        };
        println!("    {name} = {answer}");
        content.insert(name.clone(), answer);
    }
    ElicitResult::accept(content)
}

/// Answer one question (the demo plays the user, the model and the file system).
async fn answer(request: InputRequest) -> InputResponse {
    match request {
        InputRequest::Elicit(ElicitRequestParams::Form(form)) => {
            InputResponse::Elicit(fill_form(&form.message, &form.requested_schema).await)
        }
        InputRequest::Elicit(ElicitRequestParams::Url(url)) => {
            println!("  ? {} (open {}) -> declined by the demo", url.message, url.url);
            InputResponse::Elicit(ElicitResult::decline())
        }
        InputRequest::Sample(_) => {
            println!("  ? the server asks the model for a completion -> \"analytics_db\"");
            InputResponse::Sample(CreateMessageResult {
                role: Role::Assistant,
                content: mcp::protocol::OneOrMany::One(SamplingContent::Text(TextContent {
                    text: "analytics_db".into(),
                    ..Default::default()
                })),
                model: "demo-model".into(),
                stop_reason: Some("endTurn".into()),
                meta: None,
            })
        }
        InputRequest::ListRoots(_) => {
            println!("  ? the server asks for the roots -> file:///work");
            InputResponse::ListRoots(ListRootsResult {
                roots: vec![Root { uri: "file:///work".into(), name: None, meta: None }],
                meta: None,
            })
        }
    }
}

fn text_of(content: &[ContentBlock]) -> String {
    content.iter().filter_map(|c| if let ContentBlock::Text(t) = c { Some(t.text.as_str()) } else { None }).collect()
}

/// The 2026-07-28 walk-through, one round at a time with the manual API.
async fn walk_through(client: &Client, tool: &str, arguments: &Value) -> Result<String, ClientError> {
    println!("-> tools/call {tool} {arguments}");
    let mut options = CallOptions::default();
    for round in 1.. {
        match client.call_tool_once(tool, arguments.clone(), options.clone()).await? {
            Outcome::Complete(result) => {
                let text = text_of(&result.content);
                let flag = if result.is_error == Some(true) { " (isError)" } else { "" };
                println!("<- result{flag}: {text}");
                return Ok(text);
            }
            Outcome::InputRequired(asked) => {
                let questions = asked.input_requests.unwrap_or_default();
                println!("<- round {round}: the server needs input ({} question(s))", questions.len());
                let mut responses = InputResponses::new();
                for (key, request) in questions {
                    responses.insert(key, answer(request).await);
                }
                if let Some(state) = &asked.request_state {
                    println!("   requestState: {} bytes, sealed by the server; echoed untouched", state.len());
                }
                println!("-> retry with {} answer(s) and the same requestState", responses.len());
                options =
                    CallOptions { input_responses: Some(responses), request_state: asked.request_state, timeout: None };
            }
        }
    }
    Err(ClientError::Protocol("unreachable".into()))
}

async fn run(args: Args) -> Result<(), ClientError> {
    let server = mcp_examples::provisioner::server();
    let builder = || {
        Client::builder().client_info("demo", env!("CARGO_PKG_VERSION")).elicitation(
            |asker: Asker, params| async move {
                let _ = asker;
                match answer(InputRequest::Elicit(params)).await {
                    InputResponse::Elicit(result) => Ok(result),
                    _ => Ok(ElicitResult::decline()),
                }
            },
        )
    };
    let client = match &args.target {
        Target::InProcess => builder().connect_in_process(&server).await?,
        Target::Url(url) => builder().connect_http(url).await?,
    };
    let place = match &args.target {
        Target::InProcess => "in process".to_owned(),
        Target::Url(url) => url.clone(),
    };
    println!("== {place}, MCP {}: the server returns its questions, the client retries ==", client.protocol_version());
    walk_through(&client, &args.tool, &args.arguments).await?;

    println!();
    let legacy = match &args.target {
        Target::InProcess => builder().mode(Mode::Legacy).connect_in_process(&server).await?,
        Target::Url(url) => builder().mode(Mode::Legacy).connect_http(url).await?,
    };
    println!(
        "== {place}, MCP {}: the same call; the questions arrive as server requests ==",
        legacy.protocol_version()
    );
    println!("-> tools/call {} {}", args.tool, args.arguments);
    let result = legacy.call_tool(&args.tool, args.arguments.clone()).await?;
    println!("<- result: {}", text_of(&result.content));
    Ok(())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    mcp_examples::init_logging();
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return std::process::ExitCode::from(2);
        }
    };
    match run(args).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo failed: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
