//! The client under test for the official conformance suite's client scenarios
//! (`conformance client --command 'conformance-client'`).
//!
//! The harness appends the mock server's URL as the last argument and names the scenario
//! in `MCP_CONFORMANCE_SCENARIO`; `MCP_CONFORMANCE_PROTOCOL_VERSION` says which era to
//! speak (2026-07-28: stateless requests; older: the `initialize` handshake), and
//! `MCP_CONFORMANCE_CONTEXT` carries scenario data (the tool calls of
//! `http-custom-headers`; the pre-registered client of `auth/pre-registration`). Logs go
//! to stderr.
//!
//! `auth/*` scenarios use the client's OAuth flow: the mock authorization server
//! redirects at once, so a [`HeadlessRedirect`] reads the code from its `Location`; the
//! Client ID Metadata Document URL is the suite's fixed one. The extension scenarios
//! (`--suite extensions`) pick their grant from the scenario's name and context:
//! client credentials with a key or a secret, enterprise-managed authorization, the
//! workload's jwt-bearer grant, and DPoP (`auth/dpop*`, which have no context).

use std::collections::BTreeMap;

use mcp::client::oauth::{ClientCredentials, EnterpriseIdp, HeadlessRedirect, OAuth};
use mcp::client::{Asker, Client, ClientError, Mode};
use mcp::protocol::{
    CreateMessageResult, ElicitRequestParams, ElicitResult, JsonObject, ListRootsResult, OneOrMany, PrimitiveSchema,
    Role, SamplingContent, TextContent, Tool,
};
use serde_json::{Value, json};

/// Accept every form with each field's `default` (or a value of the field's type).
fn defaults(params: &ElicitRequestParams) -> ElicitResult {
    let ElicitRequestParams::Form(form) = params else {
        return ElicitResult::decline();
    };
    let mut content = JsonObject::new();
    for (name, field) in &form.requested_schema.properties {
        let value = match field {
            PrimitiveSchema::String(s) => json!(s.default.clone().unwrap_or_else(|| "conformance".into())),
            PrimitiveSchema::Number(n) => match n.default {
                Some(d) if n.kind == mcp::protocol::NumberType::Integer && d.fract() == 0.0 => json!(d as i64),
                Some(d) => json!(d),
                None => json!(0),
            },
            PrimitiveSchema::Boolean(b) => json!(b.default.unwrap_or(true)),
            PrimitiveSchema::UntitledSingleSelect(e) => json!(e.default.clone().or_else(|| e.values.first().cloned())),
            PrimitiveSchema::TitledSingleSelect(e) => {
                json!(e.default.clone().or_else(|| e.one_of.first().map(|o| o.value.clone())))
            }
            PrimitiveSchema::LegacyTitledEnum(e) => json!(e.default.clone().or_else(|| e.values.first().cloned())),
            PrimitiveSchema::UntitledMultiSelect(m) => json!(m.default.clone().unwrap_or_default()),
            PrimitiveSchema::TitledMultiSelect(m) => json!(m.default.clone().unwrap_or_default()),
        };
        content.insert(name.clone(), value);
    }
    ElicitResult::accept(content)
}

/// The suite's Client ID Metadata Document URL (`auth/basic-cimd`).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The scenario's data from `MCP_CONFORMANCE_CONTEXT` (`Null` when absent).
fn context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT").ok().and_then(|c| serde_json::from_str(&c).ok()).unwrap_or(Value::Null)
}

/// A string of the scenario's context, or a configuration error naming it.
fn field<'a>(context: &'a Value, name: &str) -> Result<&'a str, ClientError> {
    context[name].as_str().ok_or_else(|| ClientError::Protocol(format!("MCP_CONFORMANCE_CONTEXT has no {name}")))
}

/// The OAuth configuration for `auth/*` scenarios: the extension scenarios pick their
/// grant (their credentials come in the context), the DPoP ones (no context) turn DPoP
/// on, the rest run the authorization code flow.
fn oauth(scenario: &str) -> Result<OAuth, ClientError> {
    let mut builder = OAuth::builder()
        .authorization_handler(HeadlessRedirect::new("http://localhost:3000/callback"))
        .client_name("mcp-rust-conformance-client")
        .client_metadata_url(CLIENT_METADATA_URL);
    let context = context();
    let c = &context;
    builder = match scenario {
        "auth/client-credentials-jwt" => builder
            .client_credentials(ClientCredentials::public(field(c, "client_id")?))
            .private_key_jwt(field(c, "private_key_pem")?)
            .client_credentials_grant(),
        "auth/client-credentials-basic" => builder
            .client_credentials(ClientCredentials::confidential(field(c, "client_id")?, field(c, "client_secret")?))
            .client_credentials_grant(),
        "auth/enterprise-managed-authorization" => builder
            .client_credentials(ClientCredentials::confidential(field(c, "client_id")?, field(c, "client_secret")?))
            .enterprise_managed(
                EnterpriseIdp::new(field(c, "idp_token_endpoint")?, field(c, "idp_id_token")?.to_owned())
                    .client_id(field(c, "idp_client_id")?),
            ),
        "auth/wif-jwt-bearer" => builder
            .client_credentials(ClientCredentials::public(field(c, "client_id")?))
            .jwt_bearer_grant(field(c, "valid_jwt")?.to_owned()),
        "auth/dpop" | "auth/dpop-nonce" => builder.dpop(true),
        _ => match (c["client_id"].as_str(), c["client_secret"].as_str()) {
            (Some(id), Some(secret)) => builder.client_credentials(ClientCredentials::confidential(id, secret)),
            _ => builder,
        },
    };
    Ok(builder.build()?)
}

async fn connect(url: &str, modern: bool, scenario: &str) -> Result<Client, ClientError> {
    let mode = if modern { Mode::Modern(mcp::protocol::LATEST_PROTOCOL_VERSION.into()) } else { Mode::Legacy };
    let mut builder = Client::builder();
    if scenario.starts_with("auth/") {
        builder = builder.oauth(oauth(scenario)?);
    }
    builder
        .client_info("mcp-rust-conformance-client", env!("CARGO_PKG_VERSION"))
        .mode(mode)
        .elicitation(|_asker: Asker, params: ElicitRequestParams| async move { Ok(defaults(&params)) })
        .sampling(|_asker: Asker, _params| async {
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content: OneOrMany::One(SamplingContent::Text(TextContent {
                    text: "conformance".into(),
                    ..Default::default()
                })),
                model: "conformance-model".into(),
                stop_reason: Some("endTurn".into()),
                meta: None,
            })
        })
        .roots(|_asker: Asker| async { Ok(ListRootsResult { roots: Vec::new(), meta: None }) })
        .connect_http(url)
        .await
}

/// Arguments for a tool's required properties, of the right types.
fn stub_arguments(tool: &Tool) -> Value {
    let mut args = JsonObject::new();
    let required = tool.input_schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        let kind = tool.input_schema.get("properties").and_then(|p| p.get(name)).and_then(|p| p.get("type"));
        let value = match kind.and_then(Value::as_str) {
            Some("integer" | "number") => json!(0),
            Some("boolean") => json!(false),
            Some("object") => json!({}),
            Some("array") => json!([]),
            _ => json!("x"),
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}

fn log_result(what: &str, result: Result<impl std::fmt::Debug, ClientError>) {
    match result {
        Ok(value) => eprintln!("{what}: {value:?}"),
        Err(e) => eprintln!("{what} failed: {e}"),
    }
}

async fn run(scenario: &str, url: &str, modern: bool) -> Result<(), ClientError> {
    let client = connect(url, modern, scenario).await?;
    eprintln!("connected: {} ({})", client.protocol_version(), scenario);
    match scenario {
        "initialize" => log_result("tools/list", client.list_tools().await),
        "tools_call" | "request-metadata" => {
            log_result("tools/list", client.list_tools().await);
            let result = client.call_tool("add_numbers", json!({"a": 5, "b": 3})).await?;
            eprintln!("add_numbers: {result:?}");
        }
        "sep-2322-client-request-state" => {
            log_result("tools/list", client.list_tools().await);
            for tool in
                ["test_mrtr_echo_state", "test_mrtr_unrelated", "test_mrtr_no_state", "test_mrtr_no_result_type"]
            {
                let result = client.call_tool(tool, json!({})).await?;
                eprintln!("{tool}: {result:?}");
            }
        }
        "http-standard-headers" => {
            let tools = client.list_tools().await?;
            if let Some(tool) = tools.first() {
                log_result("tools/call", client.call_tool(&tool.name, stub_arguments(tool)).await);
            }
            let resources = client.list_resources().await?;
            if let Some(resource) = resources.first() {
                log_result("resources/read", client.read_resource(&resource.uri).await);
            }
            let prompts = client.list_prompts().await?;
            if let Some(prompt) = prompts.first() {
                log_result("prompts/get", client.get_prompt(&prompt.name, BTreeMap::new()).await);
            }
        }
        "http-custom-headers" => {
            let tools = client.list_tools().await?;
            let context = context();
            for call in context["toolCalls"].as_array().into_iter().flatten() {
                let Some(name) = call["name"].as_str() else { continue };
                if !tools.iter().any(|t| t.name == name) {
                    eprintln!("skipping {name}: not among the listed tools");
                    continue;
                }
                log_result(name, client.call_tool(name, call["arguments"].clone()).await);
            }
        }
        "http-invalid-tool-headers" => {
            for tool in client.list_tools().await? {
                log_result(&tool.name, client.call_tool(&tool.name, stub_arguments(&tool)).await);
            }
        }
        "json-schema-ref-no-deref" => {
            let tools = client.list_tools().await?;
            eprintln!("listed {} tool(s); no $ref is fetched", tools.len());
        }
        "json-schema-2020-12-preservation" => {
            let tools = client.list_tools().await?;
            let focal = tools
                .iter()
                .find(|t| t.name != "json_schema_echo")
                .ok_or_else(|| ClientError::Protocol("no schema tool listed".into()))?;
            let schema = Value::Object(focal.input_schema.clone());
            let result = client.call_tool("json_schema_echo", json!({ "schema": schema })).await?;
            eprintln!("json_schema_echo: {result:?}");
        }
        "elicitation-sep1034-client-defaults" => {
            log_result("tools/list", client.list_tools().await);
            let result = client.call_tool("test_client_elicitation_defaults", json!({})).await?;
            eprintln!("test_client_elicitation_defaults: {result:?}");
        }
        "sse-retry" => {
            log_result("tools/list", client.list_tools().await);
            let result = client.call_tool("test_reconnection", json!({})).await?;
            eprintln!("test_reconnection: {result:?}");
        }
        other if other.starts_with("auth/") => {
            // The reference client's flow: list the tools, call `test-tool`.
            let tools = client.list_tools().await?;
            eprintln!("listed {} tool(s)", tools.len());
            let result = client.call_tool("test-tool", json!({})).await?;
            eprintln!("test-tool: {result:?}");
        }
        other => {
            return Err(ClientError::Protocol(format!("unknown scenario {other:?}")));
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    // Logs, and OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set.
    mcp_examples::with_telemetry("conformance-client", run_main()).await
}

async fn run_main() -> std::process::ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance-client URL (with MCP_CONFORMANCE_SCENARIO set)");
        return std::process::ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_default();
    let modern = !["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"].contains(&version.as_str());
    match run(&scenario, &url, modern).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{scenario}: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
