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
//!
//! With `--url`, a server that answers 401 gets OAuth 2.1 (the MCP authorization spec):
//! the demo finds its authorization server, registers itself dynamically (RFC 7591)
//! unless `--client-id ID` names a public client registered beforehand, prints
//! `open this URL to authorize: …` and waits on `http://127.0.0.1:<port>/callback` for
//! the redirect (it never starts a browser). `--token-store FILE` keeps the registration
//! and the tokens in FILE (0600), so the next run needs no new authorization; without it
//! they live in memory for this run (both of its sessions). Servers that answer without
//! a 401 see no difference.

use std::io::{IsTerminal, Write};

use mcp::client::oauth::{ClientCredentials, FileTokenStore, LoopbackRedirect, OAuth};
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
    /// A public client registered beforehand at the authorization server.
    client_id: Option<String>,
    /// Where the registration and the tokens are kept between runs.
    token_store: Option<std::path::PathBuf>,
}

const USAGE: &str = "usage: demo [--url URL] [--tool NAME] [--args JSON] [--client-id ID] [--token-store FILE]

  --url URL           an MCP server over HTTP(S) instead of the provisioner in process;
                      a 401 starts OAuth: the demo prints the URL to open and waits on
                      http://127.0.0.1:<port>/callback for the redirect
  --tool NAME         the tool to call (default provision_cluster)
  --args JSON         its arguments (default {\"name\":\"analytics\"})
  --client-id ID      a public client registered at the authorization server, with a
                      loopback redirect (default: dynamic registration)
  --token-store FILE  keep the registration and tokens in FILE (0600) for the next run
                      (default: memory, this run only)";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        target: Target::InProcess,
        tool: "provision_cluster".into(),
        arguments: json!({"name": "analytics"}),
        client_id: None,
        token_store: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--url" => args.target = Target::Url(value()?),
            "--tool" => args.tool = value()?,
            "--args" => args.arguments = serde_json::from_str(&value()?).map_err(|e| format!("--args: {e}"))?,
            "--client-id" => args.client_id = Some(value()?),
            "--token-store" => args.token_store = Some(value()?.into()),
            "-h" | "--help" => return Err(USAGE.into()),
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
            Outcome::Task(task) => {
                return Err(ClientError::Protocol(format!(
                    "unexpected task {} (the demo never asks for one)",
                    task.task.task_id
                )));
            }
        }
    }
    Err(ClientError::Protocol("unreachable".into()))
}

/// The OAuth configuration for `--url`: a loopback redirect that prints the URL, the
/// `--client-id` or dynamic registration, the `--token-store` or memory. Both sessions
/// share it, so the second one reuses the first one's token.
async fn oauth(args: &Args) -> Result<OAuth, Box<dyn std::error::Error>> {
    let redirect = LoopbackRedirect::bind_with(|url: &str| {
        println!("== the server requires authorization; open this URL to authorize:\n   {url}");
        println!("   (waiting for the redirect to http://127.0.0.1:<port>/callback)");
        let _ = std::io::stdout().flush();
    })
    .await?;
    let mut builder = OAuth::builder().authorization_handler(redirect).client_name("mcp demo");
    if let Some(id) = &args.client_id {
        builder = builder.client_credentials(ClientCredentials::public(id.clone()));
    }
    if let Some(path) = &args.token_store {
        builder = builder.token_store(FileTokenStore::new(path.clone()));
    }
    Ok(builder.build()?)
}

async fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let server = mcp_examples::provisioner::server();
    let oauth = match &args.target {
        Target::InProcess => None,
        Target::Url(_) => Some(oauth(&args).await?),
    };
    let builder = || {
        let builder = match &oauth {
            Some(oauth) => Client::builder().oauth(oauth.clone()),
            None => Client::builder(),
        };
        builder.client_info("demo", env!("CARGO_PKG_VERSION")).elicitation(|asker: Asker, params| async move {
            let _ = asker;
            match answer(InputRequest::Elicit(params)).await {
                InputResponse::Elicit(result) => Ok(result),
                _ => Ok(ElicitResult::decline()),
            }
        })
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
    // Logs, and OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set.
    mcp_examples::with_telemetry("demo", run_main()).await
}

async fn run_main() -> std::process::ExitCode {
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
