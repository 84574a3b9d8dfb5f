//! What a handler knows about its request, and what it can send back besides the result.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::mpsc;

use super::AuthInfo;
use super::changes::ServerHandle;
use super::session::Session;
use crate::Error;
use crate::protocol::{
    CallToolOutcome, ClientCapabilities, CreateTaskResult, ElicitRequestParams, ElicitResult, Implementation,
    InputRequest, InputResponse, JsonRpcNotification, ListRootsResult, LoggingLevel, LoggingMessageParams,
    ProgressParams, ProgressToken, RequestId, Revision, declares_tasks, methods,
};
use crate::tasks::TaskHandle;

/// The request a handler is serving.
///
/// A low-level handler receives one with each request; a `#[mcp::tool]`, `#[mcp::prompt]`
/// or `#[mcp::resource]` function takes a [`Context`], which derefs to it.
///
/// # Examples
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp::protocol::{CallToolOutcome, CallToolResult};
///
/// let server = mcp::Server::builder("whoami", "1.0.0")
///     .on_call_tool(|ctx, _params| async move {
///         let client = ctx.client_info().map_or("unknown", |info| info.name.as_str()).to_owned();
///         Ok(CallToolOutcome::from(CallToolResult::text(format!("{client} on {}", ctx.protocol_version()))))
///     })
///     .build();
/// let client = mcp::client::Client::builder().client_info("docs", "1.0").connect_in_process(&server).await?;
/// let result = client.call_tool("whoami", serde_json::json!({})).await?;
/// assert_eq!(result.content[0].as_text(), Some("docs on 2026-07-28"));
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RequestContext {
    inner: Arc<ContextInner>,
}

pub(crate) struct ContextInner {
    pub(crate) id: RequestId,
    /// The version a modern request named (one of the static supported versions), or the
    /// version a legacy session negotiated.
    pub(crate) protocol_version: std::borrow::Cow<'static, str>,
    pub(crate) legacy: bool,
    /// Shared with the reading they came from (a client sends the same ones each request).
    pub(crate) client_capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Option<Arc<Implementation>>,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) session: Arc<Session>,
    pub(crate) notifications: super::Outbound,
    pub(crate) server: ServerHandle,
    pub(crate) auth: Option<Arc<AuthInfo>>,
    /// The HTTP request (without its body) that carried this message; `None` on stdio
    /// and in-process links. Shared, never copied, by everything serving the request.
    #[cfg(feature = "http")]
    pub(crate) http: Option<Arc<HttpRequest>>,
    /// The task this request's work runs as, once it became one.
    pub(crate) task: std::sync::OnceLock<TaskHandle>,
    /// Whether the request is a `tools/call`, the one method that may become a task.
    pub(crate) tools_call: bool,
    /// The request's span (`mcp::telemetry`), where the layers record what they learn of
    /// it (how its `requestState` fared, which round it is), whatever spans a user's layer
    /// opens around them.
    pub(crate) span: tracing::Span,
}

/// What a transport knows about where a request came from: the verified caller and,
/// over HTTP, the request itself. Handed to dispatch and moved into the context.
#[derive(Clone, Default)]
pub(crate) struct Caller {
    pub(crate) auth: Option<Arc<AuthInfo>>,
    #[cfg(feature = "http")]
    pub(crate) http: Option<Arc<HttpRequest>>,
}

/// The HTTP request that carried a message, without its body, and where it came from.
/// One shared handle, so that the futures that pass it down the stack hold a pointer.
#[cfg(feature = "http")]
pub(crate) struct HttpRequest {
    pub(crate) parts: http::request::Parts,
    /// The TCP peer of the connection, when the built-in listener accepted it.
    pub(crate) peer: Option<std::net::SocketAddr>,
}

impl Caller {
    /// A caller known only by its verified identity (or not at all).
    #[cfg_attr(not(feature = "http"), allow(clippy::needless_update, reason = "the `http` feature adds a field"))]
    pub(crate) fn authenticated(auth: Option<Arc<AuthInfo>>) -> Self {
        Caller { auth, ..Caller::default() }
    }
}

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestContext")
            .field("id", &self.inner.id)
            .field("protocol_version", &self.inner.protocol_version)
            .finish_non_exhaustive()
    }
}

impl RequestContext {
    pub(crate) fn new(inner: ContextInner) -> Self {
        RequestContext { inner: Arc::new(inner) }
    }

    /// A context for the server's own calls to its handlers (no client behind it).
    pub(crate) fn internal(server: ServerHandle) -> Self {
        let (notifications, _) = mpsc::channel::<String>(1);
        RequestContext::new(ContextInner {
            id: RequestId::from("internal"),
            protocol_version: crate::protocol::LATEST_PROTOCOL_VERSION.into(),
            legacy: false,
            client_capabilities: Arc::default(),
            client_info: None,
            progress_token: None,
            log_level: None,
            session: Arc::new(Session::new()),
            notifications: notifications.into(),
            server,
            auth: None,
            #[cfg(feature = "http")]
            http: None,
            task: std::sync::OnceLock::new(),
            tools_call: false,
            span: tracing::Span::none(),
        })
    }

    /// The request's span (see [`crate::telemetry`]).
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.inner.span
    }

    /// The task this request's work runs as: set for the work of a tool that became a task
    /// (`#[mcp::tool(task = "...")]`, or [`create_task`](Self::create_task)), `None`
    /// otherwise. Its status message, cancellation and questions for the client are there.
    pub fn task(&self) -> Option<&TaskHandle> {
        self.inner.task.get()
    }

    /// Whether this request may be answered with a task: it is a 2026-07-28 `tools/call`
    /// that declares the tasks extension, to a server that runs tasks (one with a task tool, or
    /// [`ServerBuilder::tasks`](crate::server::ServerBuilder::tasks)), and it is not
    /// already a task's work.
    pub fn can_create_task(&self) -> bool {
        !self.inner.legacy
            && self.inner.tools_call
            && self.inner.task.get().is_none()
            && declares_tasks(&self.inner.client_capabilities)
            && self.inner.server.tasks().is_some()
    }

    /// Run `work` as a task and return the `CreateTaskResult` to answer with: the task is
    /// stored first (so `tasks/get` finds it at once), owned by this request's principal,
    /// and `work` runs in the background with [`task`](Self::task) set. Its result becomes
    /// the task's: a `CallToolResult` (`isError` included) makes it `completed`, an error
    /// `failed`. For low-level `on_call_tool` handlers; `#[mcp::tool(task = "...")]` does
    /// this itself.
    ///
    /// Fails with `-32021` unless [`can_create_task`](Self::can_create_task).
    ///
    /// # Examples
    ///
    /// ```
    /// use mcp::protocol::{CallToolOutcome, CallToolResult, Outcome};
    ///
    /// let server = mcp::Server::builder("lowlevel", "1.0.0")
    ///     .tasks(mcp::tasks::TaskConfig::default())
    ///     .on_call_tool(|ctx, _params| async move {
    ///         let work = async { Ok(CallToolOutcome::from(CallToolResult::text("done"))) };
    ///         if ctx.can_create_task() {
    ///             return Ok(Outcome::Task(ctx.create_task(work).await?));
    ///         }
    ///         work.await
    ///     })
    ///     .build();
    /// # let _ = server;
    /// ```
    pub async fn create_task<F>(&self, work: F) -> Result<CreateTaskResult, Error>
    where
        F: std::future::Future<Output = Result<CallToolOutcome, Error>> + Send + 'static,
    {
        let manager = match self.inner.server.tasks() {
            Some(manager) if self.can_create_task() => manager,
            _ => {
                return Err(Error::missing_client_capability(
                    "This request cannot become a task: it must be a 2026-07-28 request declaring the tasks extension",
                    &crate::protocol::tasks_capability(),
                ));
            }
        };
        let owner = self.task_owner();
        let ctx = self.clone();
        manager
            .start(owner, move |handle| {
                let _ = ctx.inner.task.set(handle);
                work
            })
            .await
    }

    /// The owner of the tasks this request creates or reads: a digest of its principal.
    pub(crate) fn task_owner(&self) -> Option<String> {
        let principal = self.inner.auth.as_deref().map(AuthInfo::principal)?;
        Some(self.inner.server.tasks()?.owner_of(&principal))
    }

    /// The JSON-RPC id of the request.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// /// Which request is this?
    /// #[mcp::tool]
    /// fn which(ctx: mcp::Context) -> String {
    ///     format!("request {}", ctx.request_id())
    /// }
    ///
    /// let server = mcp::Server::builder("ids", "1.0.0").tool::<which>().build();
    /// let client = mcp::client::Client::builder().connect_in_process(&server).await?;
    /// let result = client.call_tool("which", serde_json::json!({})).await?;
    /// assert!(result.content[0].as_text().is_some_and(|t| t.starts_with("request ")));
    /// # Ok(())
    /// # }
    /// ```
    pub fn request_id(&self) -> &RequestId {
        &self.inner.id
    }

    /// The protocol version this request is served under.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp::client::{Client, Mode};
    ///
    /// /// Which protocol is this call served under?
    /// #[mcp::tool]
    /// fn era(ctx: mcp::Context) -> String {
    ///     ctx.protocol_version().to_owned()
    /// }
    ///
    /// let server = mcp::Server::builder("eras", "1.0.0").tool::<era>().build();
    /// let modern = Client::builder().connect_in_process(&server).await?;
    /// let legacy = Client::builder().mode(Mode::Legacy).connect_in_process(&server).await?;
    /// let text = |r: mcp::protocol::CallToolResult| r.content[0].as_text().map(str::to_owned);
    /// assert_eq!(text(modern.call_tool("era", serde_json::json!({})).await?).as_deref(), Some("2026-07-28"));
    /// assert_eq!(text(legacy.call_tool("era", serde_json::json!({})).await?).as_deref(), Some("2025-11-25"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn protocol_version(&self) -> &str {
        &self.inner.protocol_version
    }

    /// Whether the request belongs to a legacy (`initialize`, 2025-11-25 and older) session.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp::client::{Client, Mode};
    ///
    /// /// Can this call ask through server-to-client requests?
    /// #[mcp::tool]
    /// fn back_channel(ctx: mcp::Context) -> String {
    ///     if ctx.is_legacy() { "back-channel".into() } else { "input required results".into() }
    /// }
    ///
    /// let server = mcp::Server::builder("eras", "1.0.0").tool::<back_channel>().build();
    /// let legacy = Client::builder().mode(Mode::Legacy).connect_in_process(&server).await?;
    /// let result = legacy.call_tool("back_channel", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("back-channel"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn is_legacy(&self) -> bool {
        self.inner.legacy
    }

    /// The revision of [`protocol_version`](Self::protocol_version), when this crate knows it.
    ///
    /// A handler that builds results by hand can ask what the client understands; results
    /// for older revisions are trimmed by the server anyway.
    ///
    /// ```
    /// use mcp::protocol::{CallToolOutcome, CallToolResult, Revision};
    ///
    /// let server = mcp::Server::builder("versions", "1.0.0")
    ///     .on_call_tool(|ctx, _params| async move {
    ///         let structured = ctx.revision().is_some_and(|r| r >= Revision::V2025_06_18);
    ///         Ok(CallToolOutcome::from(CallToolResult::text(format!("structured output: {structured}"))))
    ///     })
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn revision(&self) -> Option<Revision> {
        Revision::parse(&self.inner.protocol_version)
    }

    /// The client's capabilities: per request in 2026-07-28, per session in legacy sessions.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp::protocol::ListRootsResult;
    ///
    /// /// Does the caller share its roots?
    /// #[mcp::tool]
    /// fn has_roots(ctx: mcp::Context) -> String {
    ///     ctx.client_capabilities().roots.is_some().to_string()
    /// }
    ///
    /// let server = mcp::Server::builder("caps", "1.0.0").tool::<has_roots>().build();
    /// let plain = mcp::client::Client::builder().connect_in_process(&server).await?;
    /// let with_roots = mcp::client::Client::builder()
    ///     .roots(|_asker| async { Ok(ListRootsResult::default()) })
    ///     .connect_in_process(&server)
    ///     .await?;
    /// let text = |r: mcp::protocol::CallToolResult| r.content[0].as_text().map(str::to_owned);
    /// assert_eq!(text(plain.call_tool("has_roots", serde_json::json!({})).await?).as_deref(), Some("false"));
    /// assert_eq!(text(with_roots.call_tool("has_roots", serde_json::json!({})).await?).as_deref(), Some("true"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.client_capabilities
    }

    /// The client's self-reported name and version, if sent.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// /// Who is calling?
    /// #[mcp::tool]
    /// fn caller(ctx: mcp::Context) -> String {
    ///     ctx.client_info().map_or_else(|| "unknown".to_owned(), |info| format!("{} {}", info.name, info.version))
    /// }
    ///
    /// let server = mcp::Server::builder("info", "1.0.0").tool::<caller>().build();
    /// let client = mcp::client::Client::builder().client_info("docs", "2.1").connect_in_process(&server).await?;
    /// let result = client.call_tool("caller", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("docs 2.1"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client_info.as_deref()
    }

    /// Send a notification about this request on its response stream.
    ///
    /// Returns false when the client is gone. Most handlers use [`progress`](Self::progress)
    /// or [`log`](Self::log) instead.
    ///
    /// # Examples
    ///
    /// ```
    /// use mcp::protocol::{CallToolOutcome, CallToolResult};
    ///
    /// let server = mcp::Server::builder("notify", "1.0.0")
    ///     .on_call_tool(|ctx, _params| async move {
    ///         // A notification of your own; the client sees it on this call's stream.
    ///         let delivered = ctx.send_notification("notifications/acme/step", &serde_json::json!({"step": 1})).await;
    ///         Ok(CallToolOutcome::from(CallToolResult::text(format!("delivered: {delivered}"))))
    ///     })
    ///     .build();
    /// # let _ = server;
    /// ```
    pub async fn send_notification<P: serde::Serialize>(&self, method: &str, params: &P) -> bool {
        if self.inner.task.get().is_some() {
            // A task's client polls; nothing listens on the request that created it.
            tracing::debug!(method, "notification dropped: the request runs as a task");
            return false;
        }
        match serde_json::to_string(&JsonRpcNotification::new(method, Some(params))) {
            Ok(frame) => {
                let sent = self.inner.notifications.send(frame).await.is_ok();
                if !sent {
                    tracing::debug!("notification dropped: connection closed");
                }
                sent
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not encode a notification");
                false
            }
        }
    }

    /// The authenticated caller.
    ///
    /// Over Streamable HTTP it comes from one of two places:
    /// - the transport's own [`TokenVerifier`](crate::auth::TokenVerifier), when
    ///   [`HttpConfig::token_verifier`](crate::serve::http::HttpConfig::token_verifier) is set;
    ///   it then always wins, and an `AuthInfo` in the request's extensions is ignored;
    /// - otherwise an [`AuthInfo`] that a layer in front of the service (an axum middleware,
    ///   a gateway adapter) inserted into the HTTP request's extensions.
    ///
    /// Either way this principal is the one sealed request state is bound to. `None` when
    /// nobody authenticated the request, and on stdio and in-process links.
    ///
    /// ```
    /// use mcp::RequestContext;
    ///
    /// fn greeting(ctx: &RequestContext) -> String {
    ///     match ctx.auth().and_then(|auth| auth.subject.as_deref()) {
    ///         Some(user) => format!("hello, {user}"),
    ///         None => "hello, stranger".to_owned(),
    ///     }
    /// }
    /// # let _ = greeting;
    /// ```
    pub fn auth(&self) -> Option<&AuthInfo> {
        self.inner.auth.as_deref()
    }

    /// The HTTP request that carried this message, without its body: method, URI,
    /// headers and extensions. `None` on stdio and in-process links.
    ///
    /// Every message of a 2025-11-25 session is its own POST: this is the request of the
    /// message being served, not of the `initialize` that opened the session.
    ///
    /// ```
    /// use mcp::RequestContext;
    ///
    /// fn path(ctx: &RequestContext) -> Option<&str> {
    ///     ctx.http_parts().map(|parts| parts.uri.path())
    /// }
    /// # let _ = path;
    /// ```
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn http_parts(&self) -> Option<&http::request::Parts> {
        self.inner.http.as_deref().map(|request| &request.parts)
    }

    /// The headers of the HTTP request that carried this message; `None` on stdio and
    /// in-process links.
    ///
    /// ```
    /// use mcp::RequestContext;
    ///
    /// fn tenant(ctx: &RequestContext) -> Option<&str> {
    ///     ctx.http_headers()?.get("x-tenant")?.to_str().ok()
    /// }
    /// # let _ = tenant;
    /// ```
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn http_headers(&self) -> Option<&http::HeaderMap> {
        self.http_parts().map(|parts| &parts.headers)
    }

    /// The extensions of the HTTP request that carried this message: what middleware in
    /// front of the service inserted (a tenant, a trace id, claims). `None` on stdio and
    /// in-process links.
    ///
    /// ```
    /// use mcp::RequestContext;
    ///
    /// #[derive(Clone)]
    /// struct Tenant(String);
    ///
    /// fn tenant(ctx: &RequestContext) -> Option<&str> {
    ///     ctx.http_extensions()?.get::<Tenant>().map(|t| t.0.as_str())
    /// }
    /// # let _ = tenant;
    /// ```
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn http_extensions(&self) -> Option<&http::Extensions> {
        self.http_parts().map(|parts| &parts.extensions)
    }

    /// The address of the client that sent this message over HTTP: a `SocketAddr` that
    /// middleware in front of the service put in the request's extensions (axum's
    /// `ConnectInfo`, or the address a proxy reported), else the TCP peer of the
    /// connection when the built-in listener ([`serve::http`](crate::serve::http()))
    /// accepted it. `None` on stdio and in-process links, and when mounted in a router
    /// that records no address.
    ///
    /// ```
    /// use mcp::RequestContext;
    ///
    /// fn caller_ip(ctx: &RequestContext) -> Option<std::net::IpAddr> {
    ///     ctx.peer_addr().map(|addr| addr.ip())
    /// }
    /// # let _ = caller_ip;
    /// ```
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn peer_addr(&self) -> Option<std::net::SocketAddr> {
        let request = self.inner.http.as_deref()?;
        request.parts.extensions.get().copied().or(request.peer)
    }

    /// The server serving this request: announce list changes, switch items on and off.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// /// Retire the `beta` tool for everyone.
    /// #[mcp::tool]
    /// fn retire_beta(ctx: mcp::Context) -> String {
    ///     format!("retired: {}", ctx.server().set_tool_enabled("beta", false))
    /// }
    ///
    /// /// A tool on its way out.
    /// #[mcp::tool]
    /// fn beta() -> String {
    ///     "still here".into()
    /// }
    ///
    /// let server = mcp::Server::builder("switch", "1.0.0").tool::<retire_beta>().tool::<beta>().build();
    /// let client = mcp::client::Client::builder().connect_in_process(&server).await?;
    /// let result = client.call_tool("retire_beta", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("retired: true"));
    /// assert!(client.list_tools().await?.iter().all(|tool| tool.name != "beta"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn server(&self) -> &ServerHandle {
        &self.inner.server
    }

    /// The application state of type `T` registered with
    /// [`ServerBuilder::state`](crate::server::ServerBuilder::state), or `None` when no
    /// value of that type was. The same value a [`State<T>`](crate::State) parameter
    /// receives; this form suits low-level handlers and code that holds a context.
    ///
    /// ```
    /// use mcp::protocol::{CallToolOutcome, CallToolResult};
    ///
    /// #[derive(Clone)]
    /// struct Greeting(&'static str);
    ///
    /// let server = mcp::Server::builder("hello", "1.0.0")
    ///     .state(Greeting("Hello"))
    ///     .on_call_tool(|ctx, _params| async move {
    ///         let greeting = ctx.state::<Greeting>().map_or("Hi", |g| g.0);
    ///         Ok(CallToolOutcome::from(CallToolResult::text(format!("{greeting}, world"))))
    ///     })
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.inner.server.state::<T>().map(|state| &state.0)
    }

    /// The registered value of type `T` as its `State<T>` (for the generated code).
    #[cfg(feature = "macros")]
    pub(crate) fn state_slot<T: 'static>(&self) -> Option<&super::State<T>> {
        self.inner.server.state::<T>()
    }

    /// Report progress, if the client asked for it with a `progressToken`.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::sync::{Arc, Mutex};
    ///
    /// /// Count to three, reporting each step.
    /// #[mcp::tool]
    /// async fn count(ctx: mcp::Context) -> String {
    ///     for step in 1..=3 {
    ///         ctx.progress(f64::from(step), Some(3.0), Some(format!("step {step}"))).await;
    ///     }
    ///     "done".into()
    /// }
    ///
    /// let server = mcp::Server::builder("progress", "1.0.0").tool::<count>().build();
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let sink = Arc::clone(&seen);
    /// let client = mcp::client::Client::builder()
    ///     .on_progress(move |p| sink.lock().unwrap().push(p.progress))
    ///     .connect_in_process(&server)
    ///     .await?;
    /// client.call_tool("count", serde_json::json!({})).await?;
    /// assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        if let Some(task) = self.task() {
            return task.report_progress(progress, total, message.as_deref()).await;
        }
        let Some(token) = self.inner.progress_token.clone() else {
            return;
        };
        // A 2024-11-05 session's progress notification has no `message`.
        let message = message.filter(|_| self.revision().is_none_or(Revision::has_progress_message));
        let params = ProgressParams { progress_token: token, progress, total, message, meta: None };
        self.send_notification(methods::NOTIFICATION_PROGRESS, &params).await;
    }

    /// Send a log message, if the client opted in at this level or below.
    ///
    /// In 2026-07-28 the opt-in is the request's `io.modelcontextprotocol/logLevel`;
    /// in legacy sessions it is `logging/setLevel` (everything is sent until it is set).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::sync::{Arc, Mutex};
    /// use mcp::protocol::LoggingLevel;
    ///
    /// /// Work, and say so.
    /// #[mcp::tool]
    /// async fn work(ctx: mcp::Context) -> String {
    ///     ctx.log(LoggingLevel::Debug, Some("work"), serde_json::json!("details")).await;
    ///     ctx.log(LoggingLevel::Warning, Some("work"), serde_json::json!("disk almost full")).await;
    ///     "done".into()
    /// }
    ///
    /// let server = mcp::Server::builder("logs", "1.0.0").tool::<work>().build();
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let sink = Arc::clone(&seen);
    /// let client = mcp::client::Client::builder()
    ///     .on_log(LoggingLevel::Info, move |m| sink.lock().unwrap().push(m.data))
    ///     .connect_in_process(&server)
    ///     .await?;
    /// client.call_tool("work", serde_json::json!({})).await?;
    /// assert_eq!(*seen.lock().unwrap(), [serde_json::json!("disk almost full")]);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) {
        let threshold = if self.inner.legacy {
            self.inner.session.legacy().and_then(|s| s.log_level).or(Some(LoggingLevel::Debug))
        } else {
            self.inner.log_level
        };
        if threshold.is_none_or(|t| level < t) {
            return;
        }
        let params = LoggingMessageParams { level, logger: logger.map(str::to_owned), data, meta: None };
        self.send_notification(methods::NOTIFICATION_MESSAGE, &params).await;
    }

    /// Ask the client and wait for the answer: a server-to-client request in a 2025-11-25
    /// session, or, in a task's work, an open question of the task (its `inputRequests`)
    /// that the client answers with `tasks/update`. The typed way is
    /// [`resolve::ask`](crate::resolve::ask).
    ///
    /// Under 2026-07-28 outside a task a server never calls the client: return an
    /// [`InputRequiredResult`](crate::protocol::InputRequiredResult) instead. Calling this in
    /// such a request, or for a capability the client did not declare, is an error.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp::client::{Client, Mode};
    /// use mcp::protocol::{InputRequest, InputResponse, ListRootsResult};
    ///
    /// /// How many roots does the client share?
    /// #[mcp::tool]
    /// async fn count_roots(ctx: mcp::Context) -> Result<String, mcp::Error> {
    ///     match ctx.request_input(InputRequest::ListRoots(None)).await? {
    ///         InputResponse::ListRoots(result) => Ok(format!("{} roots", result.roots.len())),
    ///         _ => Err(mcp::Error::internal("not a roots answer")),
    ///     }
    /// }
    ///
    /// let server = mcp::Server::builder("roots", "1.0.0").tool::<count_roots>().build();
    /// let client = Client::builder()
    ///     .mode(Mode::Legacy)
    ///     .roots(|_asker| async {
    ///         let roots = serde_json::json!({"roots": [{"uri": "file:///src"}, {"uri": "file:///docs"}]});
    ///         serde_json::from_value::<ListRootsResult>(roots).map_err(|e| mcp::Error::internal(e.to_string()))
    ///     })
    ///     .connect_in_process(&server)
    ///     .await?;
    /// let result = client.call_tool("count_roots", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("2 roots"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn request_input(&self, request: InputRequest) -> Result<InputResponse, Error> {
        if let Some(task) = self.task() {
            if let Some((what, required)) =
                crate::protocol::missing_capability(&request, &self.inner.client_capabilities)
            {
                return Err(Error::missing_client_capability(
                    format!("the client did not declare the {what} capability this task needs"),
                    &required,
                ));
            }
            return task.input(request).await;
        }
        if !self.inner.legacy {
            return Err(Error::internal(
                "server-to-client requests exist only in 2025-11-25 sessions; return an InputRequiredResult instead",
            ));
        }
        if let Some(revision) = self.revision() {
            let missing = match &request {
                InputRequest::Elicit(ElicitRequestParams::Form(_)) => !revision.has_elicitation(),
                InputRequest::Elicit(ElicitRequestParams::Url(_)) => !revision.has_url_elicitation(),
                InputRequest::Sample(p) => p.uses_tools() && !revision.has_sampling_tools(),
                InputRequest::ListRoots(_) => false,
            };
            if missing {
                return Err(Error::internal(format!(
                    "protocol {revision} has no {}; the client would not understand it",
                    match &request {
                        InputRequest::Elicit(ElicitRequestParams::Url(_)) => "URL-mode elicitation",
                        InputRequest::Elicit(_) => "elicitation",
                        _ => "sampling with tools",
                    }
                )));
            }
        }
        let caps = &self.inner.client_capabilities;
        let declared = match &request {
            InputRequest::Elicit(ElicitRequestParams::Form(_)) => {
                caps.elicitation.as_ref().is_some_and(|e| e.supports_form())
            }
            InputRequest::Elicit(ElicitRequestParams::Url(_)) => {
                caps.elicitation.as_ref().is_some_and(|e| e.supports_url())
            }
            InputRequest::Sample(p) => caps.sampling.as_ref().is_some_and(|s| !p.uses_tools() || s.tools.is_some()),
            InputRequest::ListRoots(_) => caps.roots.is_some(),
        };
        if !declared {
            return Err(Error::internal(format!("the client did not declare support for {}", request.method())));
        }
        let params = request.params_value().map_err(|e| Error::internal(e.to_string()))?;
        let value = self.inner.session.request_client(&self.inner.notifications, request.method(), params).await?;
        let parsed = match request {
            InputRequest::Elicit(_) => serde_json::from_value(value).map(InputResponse::Elicit),
            InputRequest::Sample(_) => serde_json::from_value(value).map(InputResponse::Sample),
            InputRequest::ListRoots(_) => serde_json::from_value(value).map(InputResponse::ListRoots),
        };
        parsed.map_err(|e| Error::internal(format!("the client's answer is malformed: {e}")))
    }

    /// Ask the user through `elicitation/create` (2025-11-25 sessions only).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp::client::{Client, Mode};
    /// use mcp::protocol::{ElicitRequestParams, ElicitResult};
    /// use mcp::resolve::ElicitForm as _;
    ///
    /// /// A name.
    /// #[derive(serde::Deserialize, mcp::ElicitForm)]
    /// struct Name {
    ///     /// Your name.
    ///     name: String,
    /// }
    ///
    /// /// Greet whoever answers.
    /// #[mcp::tool]
    /// async fn greet(ctx: mcp::Context) -> Result<String, mcp::Error> {
    ///     let answer = ctx.elicit(ElicitRequestParams::form("Who are you?", Name::schema().clone())).await?;
    ///     let name = answer.content.as_ref().and_then(|c| c.get("name")).and_then(|n| n.as_str());
    ///     Ok(format!("Hello, {}", name.unwrap_or("stranger")))
    /// }
    ///
    /// let server = mcp::Server::builder("greeter", "1.0.0").tool::<greet>().build();
    /// let client = Client::builder()
    ///     .mode(Mode::Legacy)
    ///     .elicitation(|_asker, _params| async {
    ///         let mut content = serde_json::Map::new();
    ///         content.insert("name".into(), "Ada".into());
    ///         Ok(ElicitResult::accept(content))
    ///     })
    ///     .connect_in_process(&server)
    ///     .await?;
    /// let result = client.call_tool("greet", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("Hello, Ada"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, Error> {
        match self.request_input(InputRequest::Elicit(params)).await? {
            InputResponse::Elicit(result) => Ok(result),
            _ => Err(Error::internal("the client's answer is not an elicitation result")),
        }
    }

    /// Ask for the client's roots through `roots/list` (2025-11-25 sessions only).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp::client::{Client, Mode};
    /// use mcp::protocol::ListRootsResult;
    ///
    /// /// The first root the client shares.
    /// #[mcp::tool]
    /// async fn first_root(ctx: mcp::Context) -> Result<String, mcp::Error> {
    ///     let roots = ctx.list_roots().await?;
    ///     Ok(roots.roots.first().map_or_else(|| "none".to_owned(), |root| root.uri.clone()))
    /// }
    ///
    /// let server = mcp::Server::builder("roots", "1.0.0").tool::<first_root>().build();
    /// let client = Client::builder()
    ///     .mode(Mode::Legacy)
    ///     .roots(|_asker| async {
    ///         serde_json::from_value::<ListRootsResult>(serde_json::json!({"roots": [{"uri": "file:///src"}]}))
    ///             .map_err(|e| mcp::Error::internal(e.to_string()))
    ///     })
    ///     .connect_in_process(&server)
    ///     .await?;
    /// let result = client.call_tool("first_root", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("file:///src"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_roots(&self) -> Result<ListRootsResult, Error> {
        match self.request_input(InputRequest::ListRoots(None)).await? {
            InputResponse::ListRoots(result) => Ok(result),
            _ => Err(Error::internal("the client's answer is not a roots list")),
        }
    }
}

/// What a `#[mcp::tool]`, `#[mcp::prompt]` or template `#[mcp::resource]` function
/// receives when it takes a `Context` parameter: the request (through `Deref` to
/// [`RequestContext`]) plus, on a multi round-trip retry, the client's answers and the
/// echoed state.
///
/// # Examples
///
/// ```
/// /// Look a ticket up, and log who asked.
/// #[mcp::tool]
/// async fn lookup(id: u32, ctx: mcp::Context) -> String {
///     let who = ctx.auth().map_or("anonymous", |auth| auth.subject.as_deref().unwrap_or("someone"));
///     ctx.log(mcp::protocol::LoggingLevel::Info, None, serde_json::json!({"lookup": id})).await;
///     format!("ticket {id} for {who}")
/// }
/// # let _ = mcp::Server::builder("tickets", "1.0.0").tool::<lookup>().build();
/// ```
#[derive(Debug, Clone)]
pub struct Context {
    request: RequestContext,
    /// Shared, so that cloning a context (each resolver round holds one) does not copy
    /// the answers and the state.
    echoed: Arc<Echoed>,
}

/// What a retry carries back: read once per request, never changed after.
#[derive(Debug)]
struct Echoed {
    input_responses: Option<crate::protocol::InputResponses>,
    request_state: Option<String>,
    /// The questions the echoed state records as asked ([`Context::record_questions`]).
    asked: super::answers::Asked,
}

impl Context {
    /// A context for `request` carrying the retry fields of its params.
    ///
    /// # Examples
    ///
    /// A low-level handler builds one to call code written for the macros' `Context`:
    ///
    /// ```
    /// use mcp::Context;
    /// use mcp::protocol::{CallToolOutcome, CallToolResult};
    ///
    /// fn first_round(ctx: &Context) -> bool {
    ///     ctx.input_responses().is_none() && ctx.request_state().is_none()
    /// }
    ///
    /// let server = mcp::Server::builder("lowlevel", "1.0.0")
    ///     .on_call_tool(|request, params| async move {
    ///         let ctx = Context::new(request, params.input_responses, params.request_state);
    ///         Ok(CallToolOutcome::from(CallToolResult::text(format!("first round: {}", first_round(&ctx)))))
    ///     })
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn new(
        request: RequestContext,
        input_responses: Option<crate::protocol::InputResponses>,
        request_state: Option<String>,
    ) -> Self {
        let (request_state, asked) = super::answers::split(request_state);
        Context { request, echoed: Arc::new(Echoed { input_responses, request_state, asked }) }
    }

    /// The answers that count on this retry: those to the questions its `requestState`
    /// records as asked ([`record_questions`](Self::record_questions)). Nothing on a first
    /// call, and nothing under a key the state did not ask: a client cannot answer a
    /// question the server never sent. Read hand-built answers here rather than in
    /// [`input_responses`](Self::input_responses), which holds whatever the client sent.
    ///
    /// The check is as strong as the state: sealed (the default), it cannot be forged;
    /// with `without_request_state_security()` a client can claim any question was asked.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use mcp::protocol::{
    ///     CallToolOutcome, CallToolResult, ElicitRequestParams, ElicitationSchema, InputRequest, InputRequiredResult,
    /// };
    /// use serde_json::json;
    ///
    /// /// Reveal a secret, once the user agrees (asking by hand, without a resolver).
    /// #[mcp::tool]
    /// fn reveal(ctx: mcp::Context) -> CallToolOutcome {
    ///     let agreed = ctx.answers().get("reveal").and_then(|a| a.as_elicit()).is_some_and(|a| a.content.is_some());
    ///     if agreed {
    ///         return CallToolResult::text("the secret").into();
    ///     }
    ///     let question = ElicitRequestParams::form("Reveal the secret?", ElicitationSchema::default());
    ///     ctx.record_questions(InputRequiredResult::ask("reveal", InputRequest::Elicit(question))).into()
    /// }
    ///
    /// let server = mcp::Server::builder("secrets", "1.0.0").tool::<reveal>().build();
    /// let client = mcp::client::in_process(&server);
    /// let meta = json!({
    ///     "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    ///     "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    /// });
    /// let yes = json!({"reveal": {"action": "accept", "content": {}}});
    /// // An answer sent on the first call was never asked for: the question comes back.
    /// let first = json!({"name": "reveal", "inputResponses": yes, "_meta": meta});
    /// let first = client.request("tools/call", first).await.unwrap();
    /// assert_eq!(first["resultType"], "input_required");
    /// // The same answer with the (sealed) state that asked it counts.
    /// let retry = json!({"name": "reveal", "inputResponses": yes, "requestState": first["requestState"], "_meta": meta});
    /// let done = client.request("tools/call", retry).await.unwrap();
    /// assert_eq!(done["content"][0]["text"], "the secret");
    /// # }
    /// ```
    pub fn answers(&self) -> super::Answers<'_> {
        super::Answers::new(&self.echoed.asked, self.echoed.input_responses.as_ref())
    }

    /// Record in `result`'s `requestState` which questions it asks (the keys of its
    /// `inputRequests`), around the state it already carries, so that on the retry
    /// [`answers`](Self::answers) holds the answers to those questions and no others, and
    /// [`request_state`](Self::request_state) is the state set here. Call it last, on the
    /// finished result (a later `with_state` would drop the record). Under the default
    /// sealing the whole state is sealed, so the record cannot be forged; see
    /// [`answers`](Self::answers) for an example.
    pub fn record_questions(
        &self,
        result: crate::protocol::InputRequiredResult,
    ) -> crate::protocol::InputRequiredResult {
        super::answers::record(result)
    }

    /// Every answer the client sent, by key (`None` when it sent none), asked for or not.
    /// Hand-built flows read [`answers`](Self::answers) instead, which keeps only the
    /// answers to questions this call asked.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp::protocol::{
    ///     CallToolOutcome, CallToolResult, ElicitRequestParams, ElicitResult, InputRequest, InputRequiredResult,
    /// };
    /// use mcp::resolve::ElicitForm as _;
    ///
    /// /// A yes or no.
    /// #[derive(serde::Deserialize, mcp::ElicitForm)]
    /// struct Confirm {
    ///     /// Go ahead?
    ///     ok: bool,
    /// }
    ///
    /// /// Delete everything, once confirmed (asking by hand, without a resolver).
    /// #[mcp::tool]
    /// fn wipe(ctx: mcp::Context) -> CallToolOutcome {
    ///     match ctx.input_responses() {
    ///         None => {
    ///             let form = ElicitRequestParams::form("Really wipe?", Confirm::schema().clone());
    ///             InputRequiredResult::ask("confirm", InputRequest::Elicit(form)).into()
    ///         }
    ///         Some(answers) => CallToolResult::text(format!("{} answer(s)", answers.len())).into(),
    ///     }
    /// }
    ///
    /// let server = mcp::Server::builder("wipe", "1.0.0").tool::<wipe>().build();
    /// let client = mcp::client::Client::builder()
    ///     .elicitation(|_asker, _params| async {
    ///         let mut content = serde_json::Map::new();
    ///         content.insert("ok".into(), true.into());
    ///         Ok(ElicitResult::accept(content))
    ///     })
    ///     .connect_in_process(&server)
    ///     .await?;
    /// let result = client.call_tool("wipe", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("1 answer(s)"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn input_responses(&self) -> Option<&crate::protocol::InputResponses> {
        self.echoed.input_responses.as_ref()
    }

    /// The answer under `key`, if the client sent one, asked for or not (see
    /// [`answers`](Self::answers) for the answers to questions this call asked).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp::protocol::{CallToolOutcome, CallToolResult, InputRequest, InputRequiredResult, ListRootsResult};
    ///
    /// /// Count the client's roots, asking for them in a second round (by hand).
    /// #[mcp::tool]
    /// fn count_roots(ctx: mcp::Context) -> CallToolOutcome {
    ///     match ctx.input_response("roots").and_then(|answer| answer.as_roots()) {
    ///         Some(answer) => CallToolResult::text(format!("{} roots", answer.roots.len())).into(),
    ///         None => InputRequiredResult::ask("roots", InputRequest::ListRoots(None)).into(),
    ///     }
    /// }
    ///
    /// let server = mcp::Server::builder("roots", "1.0.0").tool::<count_roots>().build();
    /// let client = mcp::client::Client::builder()
    ///     .roots(|_asker| async {
    ///         serde_json::from_value::<ListRootsResult>(serde_json::json!({"roots": [{"uri": "file:///a"}]}))
    ///             .map_err(|e| mcp::Error::internal(e.to_string()))
    ///     })
    ///     .connect_in_process(&server)
    ///     .await?;
    /// let result = client.call_tool("count_roots", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("1 roots"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn input_response(&self, key: &str) -> Option<&InputResponse> {
        self.echoed.input_responses.as_ref()?.get(key)
    }

    /// The `requestState` the client echoed (`None` on the first round): the handler's
    /// own state, without the record [`record_questions`](Self::record_questions) adds.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp::protocol::{CallToolOutcome, CallToolResult, InputRequiredResult};
    ///
    /// /// Work in two rounds, carrying progress in `requestState` (sealed on the wire).
    /// #[mcp::tool]
    /// fn two_rounds(ctx: mcp::Context) -> CallToolOutcome {
    ///     match ctx.request_state() {
    ///         None => InputRequiredResult::state_only("half-done").into(),
    ///         Some(state) => CallToolResult::text(format!("resumed from {state}")).into(),
    ///     }
    /// }
    ///
    /// let server = mcp::Server::builder("rounds", "1.0.0").tool::<two_rounds>().build();
    /// let client = mcp::client::Client::builder().connect_in_process(&server).await?;
    /// let result = client.call_tool("two_rounds", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("resumed from half-done"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn request_state(&self) -> Option<&str> {
        self.echoed.request_state.as_deref()
    }

    /// The underlying request context.
    ///
    /// # Examples
    ///
    /// ```
    /// /// Hand the request on to code that takes a `RequestContext`.
    /// #[mcp::tool]
    /// fn audit(ctx: mcp::Context) -> String {
    ///     describe(ctx.request())
    /// }
    ///
    /// fn describe(request: &mcp::RequestContext) -> String {
    ///     format!("{} under {}", request.request_id(), request.protocol_version())
    /// }
    /// # let _ = mcp::Server::builder("audit", "1.0.0").tool::<audit>().build();
    /// ```
    pub fn request(&self) -> &RequestContext {
        &self.request
    }
}

impl std::ops::Deref for Context {
    type Target = RequestContext;

    fn deref(&self) -> &RequestContext {
        &self.request
    }
}
