//! [`Client`]: connect, negotiate the era, and call the server with the retry loop.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;
use tracing::Instrument;

use super::ClientError;
use super::callbacks::{Asker, Callbacks, ElicitationHandler, RootsHandler, SamplingHandler};
use super::driver::{self, DEFAULT_MAX_ROUNDS, Round};
use super::link::{Link, LinkEra, Outgoing, StreamLink};
use super::spans::{RequestSpan, call_span};
use crate::protocol::{
    CallToolResult, ClientCapabilities, CreateTaskResult, DiscoverResult, ErrorCode, GetPromptResult, Implementation,
    InitializeResult, InputRequiredResult, InputResponses, JsonObject, LATEST_LEGACY_PROTOCOL_VERSION,
    LATEST_PROTOCOL_VERSION, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    LoggingLevel, LoggingMessageParams, Outcome, ProgressParams, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, SUPPORTED_LEGACY_VERSIONS, SUPPORTED_MODERN_VERSIONS, ServerCapabilities, TASKS_EXTENSION, Tool,
    keys, methods,
};
use crate::wire::headers::HeaderParam;
use crate::wire::untrusted::Untrusted;

/// Which protocol era to speak.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Mode {
    /// Probe `server/discover` and fall back to `initialize` (the default).
    #[default]
    Auto,
    /// Use the 2025-11-25 `initialize` handshake without probing.
    Legacy,
    /// Use this modern version without probing.
    Modern(String),
}

/// Per-call options.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// Answers to send with the first request (to resume a persisted flow).
    pub input_responses: Option<InputResponses>,
    /// The `requestState` to echo with the first request (to resume a persisted flow).
    pub request_state: Option<String>,
    /// A wall-clock limit for the whole call, rounds and a task's polling included
    /// (overrides the client's). Past it, a task the call was following is cancelled.
    pub timeout: Option<Duration>,
}

/// Builds a [`Client`]: callbacks and options, then a `connect_*` method.
#[must_use]
pub struct ClientBuilder {
    callbacks: Callbacks,
    mode: Mode,
    info: Implementation,
    max_rounds: usize,
    timeout: Option<Duration>,
    log_level: Option<LoggingLevel>,
    bearer: Option<String>,
    tasks: bool,
    #[cfg(feature = "oauth")]
    oauth: Option<super::oauth::OAuth>,
    /// Root certificates trusted on top of the platform's (`tls`).
    #[cfg(feature = "tls")]
    roots: crate::tls::ExtraRoots,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("mode", &self.mode)
            .field("callbacks", &self.callbacks)
            .finish_non_exhaustive()
    }
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            callbacks: Callbacks::default(),
            mode: Mode::Auto,
            info: Implementation::new("mcp-rust-client", env!("CARGO_PKG_VERSION")),
            max_rounds: DEFAULT_MAX_ROUNDS,
            timeout: None,
            log_level: None,
            bearer: None,
            tasks: false,
            #[cfg(feature = "oauth")]
            oauth: None,
            #[cfg(feature = "tls")]
            roots: crate::tls::ExtraRoots::default(),
        }
    }
}

impl ClientBuilder {
    /// Answer elicitations (declares the `elicitation` capability, form mode).
    pub fn elicitation(mut self, handler: impl ElicitationHandler) -> Self {
        self.callbacks.elicitation = Some(Arc::new(handler));
        self
    }

    /// Answer sampling requests (declares `sampling`).
    pub fn sampling(mut self, handler: impl SamplingHandler) -> Self {
        self.callbacks.sampling = Some(Arc::new(handler));
        self
    }

    /// Also declare `sampling.tools`: the sampling callback handles tools and tool choice.
    pub fn sampling_tools(mut self, supported: bool) -> Self {
        self.callbacks.sampling_tools = supported;
        self
    }

    /// Answer `roots/list` (declares `roots`).
    pub fn roots(mut self, handler: impl RootsHandler) -> Self {
        self.callbacks.roots = Some(Arc::new(handler));
        self
    }

    /// Receive progress notifications (each request then carries a progress token).
    pub fn on_progress(mut self, callback: impl Fn(ProgressParams) + Send + Sync + 'static) -> Self {
        self.callbacks.progress = Some(Arc::new(callback));
        self
    }

    /// Receive log messages at `level` and above.
    pub fn on_log(
        mut self,
        level: LoggingLevel,
        callback: impl Fn(LoggingMessageParams) + Send + Sync + 'static,
    ) -> Self {
        self.callbacks.logging = Some(Arc::new(callback));
        self.log_level = Some(level);
        self
    }

    /// The era to speak (default [`Mode::Auto`]).
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The name and version sent as `clientInfo`.
    pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info = Implementation::new(name, version);
        self
    }

    /// How many `input_required` rounds a call may take (default 10).
    pub fn input_required_max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// A default wall-clock limit for each call.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Declare the tasks extension (`io.modelcontextprotocol/tasks`) in every 2026-07-28
    /// request (default: off). The server may then answer a `tools/call` with a task
    /// instead of its result: [`call_tool`](Client::call_tool) polls it to the end
    /// (`tasks/get`, every `pollIntervalMs`), answers its questions with the callbacks
    /// (`tasks/update`), and cancels it (`tasks/cancel`) when the call is dropped or times
    /// out; [`call_tool_once`](Client::call_tool_once) returns it as
    /// [`Outcome::Task`] for callers that poll it themselves
    /// ([`get_task`](Client::get_task)). A 2025-11-25 session has no tasks: the option
    /// changes nothing there.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), mcp::client::ClientError> {
    /// use std::time::Duration;
    ///
    /// /// Export the warehouse: minutes of work.
    /// #[mcp::tool(task = "required")]
    /// async fn export() -> String {
    ///     "exported".to_owned()
    /// }
    ///
    /// let server = mcp::Server::builder("warehouse", "1.0.0")
    ///     .tool::<export>()
    ///     .tasks(mcp::tasks::TaskConfig::builder().poll_interval(Duration::from_millis(20)).build())
    ///     .build();
    /// let client = mcp::client::Client::builder().tasks(true).connect_in_process(&server).await?;
    /// // The server answers with a task; the client polls it until it completes.
    /// let result = client.call_tool("export", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("exported"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn tasks(mut self, enabled: bool) -> Self {
        self.tasks = enabled;
        self
    }

    /// Send `Authorization: Bearer <token>` (HTTP).
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(token.into());
        self
    }

    /// Authorize with OAuth 2.1 when an HTTP server asks for it (401, or 403
    /// `insufficient_scope`), and present the token on every request: see
    /// [`oauth`](super::oauth). A [`bearer_token`](Self::bearer_token) is not sent when
    /// this is set.
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub fn oauth(mut self, oauth: super::oauth::OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Also trust `certificate` (DER) as a root when connecting over `https://`: a
    /// private CA, without touching the environment. Added to the platform's roots (or
    /// `SSL_CERT_FILE`'s), not instead of them. Needs the `tls` feature.
    #[cfg(feature = "tls")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tls")))]
    pub fn add_root_certificate(mut self, certificate: crate::tls::CertificateDer<'static>) -> Self {
        self.roots.add_der(certificate);
        self
    }

    /// Also trust every `CERTIFICATE` in `pem` as a root, like
    /// [`add_root_certificate`](Self::add_root_certificate). A PEM with no certificate,
    /// or one that cannot be read, makes `connect_http` to an `https://` URL fail.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let ca = std::fs::read("ca.pem")?;
    /// let client = mcp::client::Client::builder()
    ///     .add_root_certificates_pem(&ca)
    ///     .connect_http("https://mcp.internal.example/mcp")
    ///     .await?;
    /// # drop(client);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "tls")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tls")))]
    pub fn add_root_certificates_pem(mut self, pem: &[u8]) -> Self {
        self.roots.add_pem(pem);
        self
    }

    /// Connect to a Streamable HTTP endpoint (`http://host:port/mcp`). Needs the `http`
    /// feature; `https://` URLs also need `tls`.
    ///
    /// Over `https://` the server's certificate must chain to one of the platform's
    /// root certificates, or, when `SSL_CERT_FILE` (or `SSL_CERT_DIR`) is set, to one
    /// of those instead (the convention of OpenSSL and curl), or to one added with
    /// `add_root_certificate` (feature `tls`); the roots are read when
    /// this is called. HTTP/2 is used when the server offers it (ALPN), else
    /// HTTP/1.1. A refused certificate is a [`ClientError::Transport`] whose
    /// [`kind`](super::TransportError::kind) is
    /// [`Certificate`](super::TransportErrorKind::Certificate) with the reason; the
    /// message names the host.
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub async fn connect_http(self, url: &str) -> Result<Client, ClientError> {
        #[cfg(feature = "tls")]
        let roots = &self.roots;
        #[cfg(not(feature = "tls"))]
        let roots = &();
        #[cfg_attr(not(feature = "oauth"), allow(unused_mut))]
        let mut link = super::http::HttpLink::new(url, self.bearer.as_deref(), self.callbacks.clone(), roots)?;
        #[cfg(feature = "oauth")]
        if let Some(oauth) = &self.oauth {
            link = link.with_oauth(oauth, roots)?;
        }
        self.finish(Arc::new(link)).await
    }

    /// Spawn `command` and talk to it over its stdin and stdout.
    pub async fn connect_stdio(self, command: &mut tokio::process::Command) -> Result<Client, ClientError> {
        let (raw, child) = super::RawClient::spawn(command)
            .map_err(|e| ClientError::transport_source("could not start the server process", e))?;
        let link = StreamLink::new(raw, Some(child), self.callbacks.clone());
        self.finish(Arc::new(link)).await
    }

    /// Serve `server` in this process and connect to it (in-memory pipe). Needs the
    /// `server` feature.
    #[cfg(feature = "server")]
    #[cfg_attr(docsrs, doc(cfg(feature = "server")))]
    pub async fn connect_in_process(self, server: &crate::Server) -> Result<Client, ClientError> {
        let raw = super::in_process(server);
        self.connect_raw(raw).await
    }

    /// Use an already connected newline-delimited JSON-RPC stream.
    pub async fn connect_raw(self, raw: super::RawClient) -> Result<Client, ClientError> {
        let link = StreamLink::new(raw, None, self.callbacks.clone());
        self.finish(Arc::new(link)).await
    }

    async fn finish(self, link: Arc<dyn Link>) -> Result<Client, ClientError> {
        let capabilities = self.callbacks.capabilities();
        let with_tasks = with_tasks_extension(capabilities.clone());
        let meta_values = MetaValues {
            capabilities: serde_json::to_value(&capabilities).unwrap_or_default(),
            with_tasks: serde_json::to_value(&with_tasks).unwrap_or_default(),
            info: serde_json::to_value(&self.info).unwrap_or_default(),
        };
        let mut inner = Inner {
            link,
            callbacks: self.callbacks,
            capabilities,
            info: self.info,
            max_rounds: self.max_rounds,
            timeout: self.timeout,
            log_level: self.log_level,
            tasks: self.tasks,
            era: LinkEra::Modern(LATEST_PROTOCOL_VERSION.to_owned()),
            server_info: None,
            server_capabilities: ServerCapabilities::default(),
            instructions: None,
            header_params: Mutex::new(None),
            progress_tokens: AtomicU64::new(1),
            meta_values,
            opened: std::time::Instant::now(),
        };
        super::negotiate::negotiate(&mut inner, &self.mode).await?;
        Ok(Client { inner: Arc::new(inner) })
    }
}

pub(crate) struct Inner {
    pub(crate) link: Arc<dyn Link>,
    pub(crate) callbacks: Callbacks,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) info: Implementation,
    pub(crate) max_rounds: usize,
    pub(crate) timeout: Option<Duration>,
    pub(crate) log_level: Option<LoggingLevel>,
    /// Whether requests declare the tasks extension (`ClientBuilder::tasks`).
    pub(crate) tasks: bool,
    pub(crate) era: LinkEra,
    pub(crate) server_info: Option<Implementation>,
    pub(crate) server_capabilities: ServerCapabilities,
    pub(crate) instructions: Option<String>,
    /// `x-mcp-header` annotations from the last `tools/list` (HTTP, 2026-07-28).
    header_params: Mutex<Option<HashMap<String, Vec<HeaderParam>>>>,
    progress_tokens: AtomicU64,
    /// The capabilities and client info as `_meta` values, encoded once.
    meta_values: MetaValues,
    /// When the client connected (its session duration, with `otel`).
    opened: std::time::Instant,
}

impl Drop for Inner {
    fn drop(&mut self) {
        let version = match &self.era {
            LinkEra::Modern(v) | LinkEra::Legacy(v) => v.as_str(),
        };
        let transport = if self.link.is_http() { "tcp" } else { "pipe" };
        super::spans::session_ended(self.opened.elapsed(), transport, version);
    }
}

/// The `_meta` values every 2026-07-28 request carries, encoded once.
struct MetaValues {
    /// The callbacks' capabilities.
    capabilities: Value,
    /// The same, with the tasks extension.
    with_tasks: Value,
    /// `clientInfo`.
    info: Value,
}

/// `capabilities` plus the tasks extension (`{}`: no settings).
fn with_tasks_extension(mut capabilities: ClientCapabilities) -> ClientCapabilities {
    capabilities.extensions.get_or_insert_with(BTreeMap::new).insert(TASKS_EXTENSION.to_owned(), JsonObject::new());
    capabilities
}

/// Whether `method` belongs to the tasks extension, which only answers requests declaring it.
fn is_tasks_method(method: &str) -> bool {
    method.starts_with("tasks/")
}

impl Inner {
    pub(crate) fn is_modern(&self) -> bool {
        matches!(self.era, LinkEra::Modern(_))
    }

    /// Whether this session's requests declare the tasks extension (2026-07-28 only).
    pub(crate) fn declares_tasks(&self) -> bool {
        self.tasks && self.is_modern()
    }

    /// Params with the era's `_meta`: the protocol version, capabilities and client info
    /// on every 2026-07-28 request (the capabilities with the tasks extension when it is
    /// on, and always on the `tasks/*` methods, which need it); a progress token when
    /// progress is wanted.
    pub(crate) fn with_meta(&self, method: &str, mut params: JsonObject) -> JsonObject {
        let meta = params.entry("_meta").or_insert_with(|| Value::Object(JsonObject::new()));
        let Value::Object(meta) = meta else { return params };
        if let LinkEra::Modern(version) = &self.era {
            meta.insert(keys::PROTOCOL_VERSION.into(), Value::String(version.clone()));
            let capabilities = if self.tasks || is_tasks_method(method) {
                &self.meta_values.with_tasks
            } else {
                &self.meta_values.capabilities
            };
            meta.insert(keys::CLIENT_CAPABILITIES.into(), capabilities.clone());
            meta.insert(keys::CLIENT_INFO.into(), self.meta_values.info.clone());
            if let Some(level) = self.log_level {
                meta.insert(keys::LOG_LEVEL.into(), serde_json::to_value(level).unwrap_or_default());
            }
        }
        if self.callbacks.progress.is_some() {
            let token = self.progress_tokens.fetch_add(1, Ordering::Relaxed);
            meta.insert(keys::PROGRESS_TOKEN.into(), Value::from(token));
        }
        if meta.is_empty() {
            params.remove("_meta");
        }
        params
    }

    pub(crate) async fn send(&self, mut out: Outgoing) -> Result<Value, ClientError> {
        out.params = self.with_meta(&out.method, std::mem::take(&mut out.params));
        let version = match &self.era {
            LinkEra::Modern(v) | LinkEra::Legacy(v) => v.as_str(),
        };
        let transport = if self.link.is_http() { "tcp" } else { "pipe" };
        let span = RequestSpan::start(&out.method, &mut out.params, out.round, Some(version), transport);
        let result = self.send_traced(out).instrument(span.span().clone()).await;
        span.finish(&result);
        result
    }

    async fn send_traced(&self, out: Outgoing) -> Result<Value, ClientError> {
        let retry = out.clone();
        match self.link.request(out).await {
            // The server says it does not support our version but lists it: retry once.
            Err(ClientError::Rpc(e))
                if e.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
                    && self.supported_includes_ours(e.data.as_ref()) =>
            {
                tracing::info!("the server refused our protocol version but lists it as supported; retrying once");
                self.link.request(retry).await
            }
            other => other,
        }
    }

    fn supported_includes_ours(&self, data: Option<&Value>) -> bool {
        let LinkEra::Modern(ours) = &self.era else { return false };
        data.and_then(|d| d.get("supported")).and_then(Value::as_array).is_some_and(|s| s.iter().any(|v| v == ours))
    }
}

/// A connected MCP client.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mcp::client::ClientError> {
/// use mcp::client::Client;
/// use mcp::protocol::ElicitResult;
///
/// # let server = mcp::Server::builder("demo", "1.0.0").build();
/// let client = Client::builder()
///     .elicitation(|_asker, _params| async { Ok(ElicitResult::decline()) })
///     .connect_in_process(&server)
///     .await?;
/// assert_eq!(client.protocol_version(), "2026-07-28");
/// assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("demo"));
/// client.ping().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Client {
    pub(super) inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("protocol_version", &self.protocol_version()).finish_non_exhaustive()
    }
}

/// What a call sends, kept to re-send it on each round.
struct Call {
    method: &'static str,
    params: JsonObject,
    name: Option<String>,
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// Where a call's rounds end: its result, or a task that will produce it.
pub(super) enum Landed<T> {
    /// The final result.
    Result(T),
    /// A task to poll (`tools/call` with the tasks extension declared).
    Task(Box<CreateTaskResult>),
}

/// Read a result: `input_required`, a task (only where `task_allowed`: a `tools/call`
/// that declared the extension; anywhere else it is an invalid answer), or complete
/// (also when `resultType` is absent).
fn parse_round<T: DeserializeOwned>(value: Value, task_allowed: bool) -> Result<Round<Landed<T>>, ClientError> {
    let kind = value.get("resultType").and_then(Value::as_str).map(str::to_owned);
    match kind.as_deref() {
        Some("input_required") => serde_json::from_value::<InputRequiredResult>(value)
            .map(Round::InputRequired)
            .map_err(|e| ClientError::Protocol(format!("malformed InputRequiredResult: {e}"))),
        Some("task") if task_allowed => serde_json::from_value::<CreateTaskResult>(value)
            .map(|task| Round::Complete(Landed::Task(Box::new(task))))
            .map_err(|e| ClientError::Protocol(format!("malformed CreateTaskResult: {e}"))),
        Some("task") => {
            Err(ClientError::Protocol("the server answered with a task where the client accepts none".into()))
        }
        None | Some("complete") => serde_json::from_value::<T>(value)
            .map(|result| Round::Complete(Landed::Result(result)))
            .map_err(|e| ClientError::Protocol(format!("malformed result: {e}"))),
        Some(other) => Err(ClientError::Protocol(format!("unknown resultType {other:?}"))),
    }
}

impl Client {
    /// Start building a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// The negotiated protocol version (`2026-07-28`, or the legacy version agreed).
    pub fn protocol_version(&self) -> &str {
        match &self.inner.era {
            LinkEra::Modern(v) | LinkEra::Legacy(v) => v,
        }
    }

    /// Whether the session uses the legacy `initialize` era.
    pub fn is_legacy(&self) -> bool {
        !self.inner.is_modern()
    }

    /// The server's name and version, when it sent them.
    pub fn server_info(&self) -> Option<&Implementation> {
        self.inner.server_info.as_ref()
    }

    /// The server's capabilities.
    pub fn server_capabilities(&self) -> &ServerCapabilities {
        &self.inner.server_capabilities
    }

    /// The server's instructions, if any.
    pub fn instructions(&self) -> Option<&str> {
        self.inner.instructions.as_deref()
    }

    /// Send any request (with the era's `_meta`) and return its raw result.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.inner.send(Outgoing::new(method, object(params))).await
    }

    /// Check that the server answers: `ping` in a 2025-11-25 session, `server/discover`
    /// under 2026-07-28 (which removed `ping`).
    pub async fn ping(&self) -> Result<(), ClientError> {
        let method = if self.inner.is_modern() { methods::SERVER_DISCOVER } else { methods::PING };
        self.request(method, Value::Object(JsonObject::new())).await.map(|_| ())
    }

    async fn list_all<R: DeserializeOwned, T>(
        &self,
        method: &str,
        items: impl Fn(R) -> (Vec<T>, Option<String>),
    ) -> Result<Vec<T>, ClientError> {
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut params = JsonObject::new();
            if let Some(c) = cursor.take() {
                params.insert("cursor".into(), Value::String(c));
            }
            let value = self.inner.send(Outgoing::new(method, params)).await?;
            let page: R = serde_json::from_value(value)
                .map_err(|e| ClientError::Protocol(format!("malformed {method} result: {e}")))?;
            let (mut page_items, next) = items(page);
            all.append(&mut page_items);
            match next {
                Some(next) if !next.is_empty() => cursor = Some(next),
                _ => return Ok(all),
            }
        }
    }

    /// Every tool (all pages). Over HTTP, tools whose `x-mcp-header` annotations are
    /// invalid are dropped, with a warning, as the spec requires.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let tools = self.list_all(methods::TOOLS_LIST, |r: ListToolsResult| (r.tools, r.next_cursor)).await?;
        if !self.inner.link.is_http() {
            return Ok(tools);
        }
        let mut index = HashMap::new();
        let kept = tools
            .into_iter()
            .filter(|tool| match crate::wire::headers::checked_header_params(tool) {
                Ok(params) => {
                    index.insert(tool.name.clone(), params);
                    true
                }
                Err(why) => {
                    tracing::warn!(tool = ?Untrusted(&tool.name), reason = ?Untrusted(&why), "dropping a tool with an invalid x-mcp-header");
                    false
                }
            })
            .collect();
        *self.inner.header_params.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(index);
        Ok(kept)
    }

    /// Every prompt (all pages).
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.list_all(methods::PROMPTS_LIST, |r: ListPromptsResult| (r.prompts, r.next_cursor)).await
    }

    /// Every resource (all pages).
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.list_all(methods::RESOURCES_LIST, |r: ListResourcesResult| (r.resources, r.next_cursor)).await
    }

    /// Every resource template (all pages).
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.list_all(methods::RESOURCES_TEMPLATES_LIST, |r: ListResourceTemplatesResult| {
            (r.resource_templates, r.next_cursor)
        })
        .await
    }

    /// Call a tool and return its final result, answering the server's questions with the
    /// callbacks along the way.
    ///
    /// With [`ClientBuilder::tasks`] on, a server may run the call as a task: it is then
    /// polled to its end (a tool error stays an `isError` result; a failed task is
    /// [`ClientError::Rpc`] with the task's error; a cancelled one
    /// [`ClientError::TaskCancelled`]), its questions are answered with the same
    /// callbacks, and dropping the call (or its timeout) cancels the task.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, ClientError> {
        self.call_tool_with(name, arguments, CallOptions::default()).await
    }

    /// [`call_tool`](Self::call_tool) with options (seed answers and state, timeout).
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<CallToolResult, ClientError> {
        let call = tool_call(name, arguments);
        let timeout = options.timeout.or(self.inner.timeout);
        within(timeout, async {
            match self.rounds::<CallToolResult>(call, options).await? {
                Landed::Result(result) => Ok(result),
                Landed::Task(task) => self.follow_task(*task).await,
            }
        })
        .await
    }

    /// One round of a tool call, for a caller that drives the retries itself (and may
    /// persist `requestState` between them): the result, or the server's questions, or
    /// (with [`ClientBuilder::tasks`] on) the task the server runs it as, whose id the
    /// caller may persist and poll with [`get_task`](Self::get_task).
    pub async fn call_tool_once(
        &self,
        name: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<Outcome<CallToolResult>, ClientError> {
        let call = tool_call(name, arguments);
        self.once(&call, options.input_responses, options.request_state, 0).await.map(round_to_outcome)
    }

    /// Get a prompt, answering the server's questions along the way.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, ClientError> {
        self.run(prompt_call(name, arguments), CallOptions::default()).await
    }

    /// One round of `prompts/get`.
    pub async fn get_prompt_once(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
        options: CallOptions,
    ) -> Result<Outcome<GetPromptResult>, ClientError> {
        let call = prompt_call(name, arguments);
        self.once(&call, options.input_responses, options.request_state, 0).await.map(round_to_outcome)
    }

    /// Read a resource, answering the server's questions along the way.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        self.run(resource_call(uri), CallOptions::default()).await
    }

    /// One round of `resources/read`.
    pub async fn read_resource_once(
        &self,
        uri: &str,
        options: CallOptions,
    ) -> Result<Outcome<ReadResourceResult>, ClientError> {
        self.once(&resource_call(uri), options.input_responses, options.request_state, 0).await.map(round_to_outcome)
    }

    /// Send one round: the call plus answers and state (each omitted when absent).
    async fn once<T: DeserializeOwned>(
        &self,
        call: &Call,
        responses: Option<InputResponses>,
        state: Option<String>,
        round: u32,
    ) -> Result<Round<Landed<T>>, ClientError> {
        let task_allowed = call.method == methods::TOOLS_CALL && self.inner.declares_tasks();
        let mut params = call.params.clone();
        if let Some(responses) = responses {
            params.insert("inputResponses".into(), serde_json::to_value(responses).unwrap_or_default());
        }
        if let Some(state) = state {
            params.insert("requestState".into(), Value::String(state));
        }
        let mut resent = false;
        loop {
            let mut out = Outgoing::new(call.method, params.clone());
            out.name = call.name.clone();
            out.round = round;
            if call.method == methods::TOOLS_CALL {
                out.header_params = self.header_values(call);
            }
            match self.inner.send(out).await {
                Ok(value) => return parse_round(value, task_allowed),
                // The tool's headers were stale: list the tools again and resend once.
                Err(ClientError::Rpc(e))
                    if e.code == ErrorCode::HEADER_MISMATCH
                        && !resent
                        && self.inner.link.is_http()
                        && self.inner.is_modern() =>
                {
                    resent = true;
                    tracing::info!(error = ?Untrusted(&e.message), "header mismatch; listing the tools again and resending");
                    self.list_tools().await?;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// `Mcp-Param-*` values for a tool call, from the listed tools' `x-mcp-header`s.
    fn header_values(&self, call: &Call) -> Vec<(String, String)> {
        if !self.inner.link.is_http() || !self.inner.is_modern() {
            return Vec::new();
        }
        let index = self.inner.header_params.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (Some(index), Some(name)) = (index.as_ref(), &call.name) else { return Vec::new() };
        let Some(params) = index.get(name) else { return Vec::new() };
        let arguments = call.params.get("arguments");
        params
            .iter()
            .filter_map(|p| {
                let value = arguments?.get(&p.property)?;
                let text = match value {
                    Value::String(s) => s.clone(),
                    Value::Bool(b) => b.to_string(),
                    Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
                    _ => return None,
                };
                Some((p.header.clone(), text))
            })
            .collect()
    }

    /// The whole call of a method that never becomes a task, within the timeout.
    async fn run<T: DeserializeOwned + Send + 'static>(
        &self,
        call: Call,
        options: CallOptions,
    ) -> Result<T, ClientError> {
        let timeout = options.timeout.or(self.inner.timeout);
        within(timeout, async {
            match self.rounds::<T>(call, options).await? {
                Landed::Result(result) => Ok(result),
                Landed::Task(_) => Err(ClientError::Protocol("the server answered with a task".into())),
            }
        })
        .await
    }

    /// The first round, then the retry loop until the result or a task.
    async fn rounds<T: DeserializeOwned + Send + 'static>(
        &self,
        call: Call,
        options: CallOptions,
    ) -> Result<Landed<T>, ClientError> {
        let span = call_span(call.method, &call.params);
        let rounds = AtomicU32::new(1);
        let all = async {
            let first = self.once::<T>(&call, options.input_responses, options.request_state, 1).await?;
            let callbacks = self.inner.callbacks.clone();
            driver::drive(
                first,
                self.inner.max_rounds,
                move |key, request| callbacks.answer(Asker::InputRequest(key), request),
                |responses, state| {
                    let round = rounds.fetch_add(1, Ordering::Relaxed) + 1;
                    self.once::<T>(&call, responses, state, round)
                },
                tokio::time::sleep,
            )
            .await
        };
        let result = all.instrument(span.clone()).await;
        span.record("mcp.rounds", i64::from(rounds.load(Ordering::Relaxed)));
        result
    }
}

/// Run `work` within `timeout` (when there is one): past it, `work` is dropped, which
/// cancels what it was doing, and the call fails with [`ClientError::Timeout`].
async fn within<T>(
    timeout: Option<Duration>,
    work: impl Future<Output = Result<T, ClientError>>,
) -> Result<T, ClientError> {
    match timeout {
        Some(limit) => tokio::time::timeout(limit, work).await.unwrap_or(Err(ClientError::Timeout)),
        None => work.await,
    }
}

fn round_to_outcome<T>(round: Round<Landed<T>>) -> Outcome<T> {
    match round {
        Round::Complete(Landed::Result(result)) => Outcome::Complete(result),
        Round::Complete(Landed::Task(task)) => Outcome::Task(*task),
        Round::InputRequired(asked) => Outcome::InputRequired(asked),
    }
}

fn tool_call(name: &str, arguments: Value) -> Call {
    let mut params = JsonObject::new();
    params.insert("name".into(), Value::String(name.to_owned()));
    if !arguments.is_null() {
        params.insert("arguments".into(), arguments);
    }
    Call { method: methods::TOOLS_CALL, params, name: Some(name.to_owned()) }
}

fn prompt_call(name: &str, arguments: BTreeMap<String, String>) -> Call {
    let mut params = JsonObject::new();
    params.insert("name".into(), Value::String(name.to_owned()));
    if !arguments.is_empty() {
        params.insert("arguments".into(), serde_json::to_value(arguments).unwrap_or_default());
    }
    Call { method: methods::PROMPTS_GET, params, name: Some(name.to_owned()) }
}

fn resource_call(uri: &str) -> Call {
    let mut params = JsonObject::new();
    params.insert("uri".into(), Value::String(uri.to_owned()));
    Call { method: methods::RESOURCES_READ, params, name: Some(uri.to_owned()) }
}

/// Negotiation results recorded on the client.
pub(crate) fn adopt_discover(inner: &mut Inner, result: DiscoverResult, version: &str) {
    inner.era = LinkEra::Modern(version.to_owned());
    inner.link.set_era(inner.era.clone());
    inner.server_info = result
        .meta
        .as_ref()
        .and_then(|m| m.get(keys::SERVER_INFO))
        .and_then(|v| serde_json::from_value(v.clone()).ok());
    inner.server_capabilities = result.capabilities;
    inner.instructions = result.instructions;
}

pub(crate) fn adopt_initialize(inner: &mut Inner, result: InitializeResult) {
    inner.server_info = Some(result.server_info);
    inner.server_capabilities = result.capabilities;
    inner.instructions = result.instructions;
}

pub(crate) const MODERN_VERSIONS: &[&str] = SUPPORTED_MODERN_VERSIONS;
pub(crate) const LEGACY_VERSIONS: &[&str] = SUPPORTED_LEGACY_VERSIONS;
pub(crate) const LEGACY_VERSION: &str = LATEST_LEGACY_PROTOCOL_VERSION;
