//! `rmcp-echo`: the rmcp (official Rust SDK, 3.11) peer that `scripts/bench.sh` measures our
//! servers against.
//!
//! Two tools, written with rmcp's macros the way its own examples are:
//!
//! - `echo {text}` returns `text` (the plain-call benchmark);
//! - `provision {name}` asks "Which region should NAME live in?" (`{region}`) and answers
//!   "Provisioned 'NAME' in REGION." (the multi-round benchmark). Under 2026-07-28 the question
//!   goes out as an `InputRequiredResult` with a sealed `requestState` (rmcp's
//!   `RequestStateCodec`, HMAC-SHA256, 600 s ttl, per-process random key); under 2025-11-25 as
//!   an `elicitation/create` request to the client during the call (`Peer::elicit`).
//!
//! rmcp 3.11 serves both eras: a connection that starts with `initialize` is a 2025-11-25 (or
//! older) session, a request carrying `_meta` `io.modelcontextprotocol/protocolVersion`
//! 2026-07-28 is served per request.
//!
//! ```text
//! rmcp-echo stdio
//! rmcp-echo http HOST:PORT      # Streamable HTTP at http://HOST:PORT/mcp
//! ```
//!
//! Over HTTP the transport runs with rmcp's defaults (`StreamableHttpServerConfig::default()`:
//! stateful sessions for the handshake era, SSE responses) behind a bare hyper HTTP/1.1
//! server, as the framework under test does, with TCP_NODELAY on every accepted socket.

use std::{convert::Infallible, net::SocketAddr, sync::Arc, time::Duration};

use hyper::{Request, Response, StatusCode, body::Incoming, server::conn::http1};
use hyper_util::{
    rt::{TokioIo, TokioTimer},
    service::TowerToHyperService,
};
use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt,
    handler::server::{
        router::tool::ToolRouter,
        tool::{InputResponses, RequestState},
        wrapper::Parameters,
    },
    model::{
        CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams, ElicitResult,
        ElicitationAction, ElicitationSchema, InputRequest, InputRequiredResult, ProtocolVersion, RequestStateCodec,
        SealOptions,
    },
    schemars::{self, JsonSchema},
    service::{ElicitationError, RequestContext},
    tool, tool_handler, tool_router,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use serde::{Deserialize, Serialize};

/// How long a sealed `requestState` stays valid (as the Python SDK's and ours do).
const REQUEST_STATE_TTL: Duration = Duration::from_secs(600);

/// The `inputRequests` key of the region question.
const REGION_KEY: &str = "region";

#[derive(Debug, Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to return.
    text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct ProvisionArgs {
    /// The database's name.
    name: String,
}

/// The elicited answer.
#[derive(Debug, Deserialize, JsonSchema)]
struct Region {
    /// Cloud region, e.g. eu-west-1.
    region: String,
}

rmcp::elicit_safe!(Region);

/// What the first round of a 2026-07-28 `provision` call seals into `requestState`.
#[derive(Debug, Serialize, Deserialize)]
struct ProvisionState {
    name: String,
}

/// The server. Cloned once per HTTP session (or stateless request); everything in it is shared.
#[derive(Clone)]
struct BenchServer {
    /// Built once, not per call (`#[tool_handler]`'s default `Self::tool_router()` would
    /// rebuild the router on every request).
    tool_router: Arc<ToolRouter<BenchServer>>,
    codec: Arc<RequestStateCodec>,
    region_schema: Arc<ElicitationSchema>,
}

#[tool_router]
impl BenchServer {
    fn new() -> Result<Self, Box<dyn std::error::Error>> {
        Ok(Self {
            tool_router: Arc::new(Self::tool_router()),
            codec: Arc::new(RequestStateCodec::try_new(random_key()?)?),
            region_schema: Arc::new(ElicitationSchema::from_type::<Region>()?),
        })
    }

    /// Echo the text back unchanged.
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    /// Provision a database. Asks which region to put it in.
    #[tool(annotations(destructive_hint = false, idempotent_hint = true))]
    async fn provision(
        &self,
        Parameters(ProvisionArgs { name }): Parameters<ProvisionArgs>,
        RequestState(request_state): RequestState,
        InputResponses(input_responses): InputResponses,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let question = format!("Which region should {name} live in?");
        let modern = context.protocol_version().is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
        if !modern {
            // 2025-11-25: ask over the back channel while the call waits.
            return match context.peer.elicit::<Region>(question).await {
                Ok(Some(Region { region })) => Ok(provisioned(&name, &region).into()),
                Ok(None) => Err(ErrorData::invalid_params("the elicitation had no content", None)),
                Err(ElicitationError::UserDeclined | ElicitationError::UserCancelled) => {
                    Ok(CallToolResult::error(vec![ContentBlock::text("Provisioning cancelled.")]).into())
                }
                Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
            };
        }
        let Some(sealed) = request_state else {
            // First round: ask, and seal what the retry needs to trust.
            let state = self
                .codec
                .seal_json_with(&ProvisionState { name }, &SealOptions::new().ttl(REQUEST_STATE_TTL))
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            let ask = InputRequest::Elicitation(ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: question,
                requested_schema: (*self.region_schema).clone(),
            }));
            let requests = [(REGION_KEY.to_owned(), ask)].into();
            return Ok(InputRequiredResult::new(Some(requests), Some(state)).into());
        };
        // Retry: the state must be ours and fresh, and name the same database.
        let state: ProvisionState = self
            .codec
            .open_json(&sealed)
            .map_err(|_| ErrorData::invalid_params("invalid or expired requestState", None))?;
        if state.name != name {
            return Err(ErrorData::invalid_params("requestState belongs to another call", None));
        }
        let answer = input_responses
            .as_ref()
            .and_then(|responses| responses.get(REGION_KEY))
            .ok_or_else(|| ErrorData::invalid_params("missing the region answer", None))?;
        let answer = ElicitResult::deserialize(answer)
            .map_err(|_| ErrorData::invalid_params("malformed region answer", None))?;
        match answer.action {
            ElicitationAction::Accept => {
                let Region { region } = answer
                    .content
                    .map(Region::deserialize)
                    .transpose()
                    .ok()
                    .flatten()
                    .ok_or_else(|| ErrorData::invalid_params("the region answer has no region", None))?;
                Ok(provisioned(&state.name, &region).into())
            }
            _ => Ok(CallToolResult::error(vec![ContentBlock::text("Provisioning cancelled.")]).into()),
        }
    }
}

#[tool_handler(router = self.tool_router, name = "rmcp-echo")]
impl ServerHandler for BenchServer {}

fn provisioned(name: &str, region: &str) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(format!("Provisioned '{name}' in {region}."))])
}

/// 32 random bytes for the request-state key, from the kernel.
fn random_key() -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut key = vec![0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
    Ok(key)
}

async fn serve_stdio(server: BenchServer) -> Result<(), Box<dyn std::error::Error>> {
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}

async fn serve_http(server: BenchServer, addr: SocketAddr) -> Result<(), Box<dyn std::error::Error>> {
    let mcp = StreamableHttpService::new(
        move || Ok(server.clone()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let mcp = TowerToHyperService::new(mcp);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("rmcp-echo: serving Streamable HTTP at http://{addr}/mcp");
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let mcp = mcp.clone();
        // Only /mcp is the endpoint; anything else is a 404, as with the other servers.
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let mcp = mcp.clone();
            async move {
                if request.uri().path() == "/mcp" {
                    hyper::service::Service::call(&mcp, request).await
                } else {
                    let mut response = Response::new(Default::default());
                    *response.status_mut() = StatusCode::NOT_FOUND;
                    Ok::<_, Infallible>(response)
                }
            }
        });
        tokio::spawn(async move {
            let _ =
                http1::Builder::new().timer(TokioTimer::new()).serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let server = match BenchServer::new() {
        Ok(server) => server,
        Err(e) => {
            eprintln!("rmcp-echo: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["stdio"] => serve_stdio(server).await,
        ["http", addr] => match addr.parse() {
            Ok(addr) => serve_http(server, addr).await,
            Err(_) => Err(format!("expected HOST:PORT, got {addr:?}").into()),
        },
        _ => {
            eprintln!("usage: rmcp-echo stdio | rmcp-echo http HOST:PORT");
            return std::process::ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rmcp-echo: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
