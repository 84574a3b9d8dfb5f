//! Getting the user through the authorization server: an [`AuthorizationHandler`] shows
//! the authorization URL (or opens a browser) and returns what the redirect carried.
//! [`LoopbackRedirect`] receives the redirect on `http://127.0.0.1:<port>/callback`;
//! [`HeadlessRedirect`] follows an authorization server that redirects at once (tests,
//! pre-approved clients).

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Response, StatusCode, Uri};
use http_body_util::Full;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use super::error::{OAuthError, OAuthErrorKind};
use super::fetch::OAuthHttp;
use crate::client::CallbackFuture;

/// What the authorization server's redirect carried (RFC 6749 §4.1.2, RFC 9207). The
/// code never appears in Debug output.
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallbackParams {
    /// The authorization code.
    pub code: Option<String>,
    /// The `state` sent with the request, echoed.
    pub state: Option<String>,
    /// The issuer of the authorization server that answered (RFC 9207).
    pub iss: Option<String>,
    /// An OAuth error code, when authorization failed.
    pub error: Option<String>,
    /// Its description.
    pub error_description: Option<String>,
}

impl std::fmt::Debug for CallbackParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallbackParams")
            .field("code", &self.code.as_ref().map(|_| "<redacted>"))
            .field("state", &self.state)
            .field("iss", &self.iss)
            .field("error", &self.error)
            .field("error_description", &self.error_description)
            .finish()
    }
}

impl CallbackParams {
    /// The parameters of a redirect's query string (`code=…&state=…&iss=…`), each
    /// decoded once.
    ///
    /// ```
    /// use mcp::client::oauth::CallbackParams;
    ///
    /// let p = CallbackParams::from_query("code=abc&state=xyz&iss=https%3A%2F%2Fas.example");
    /// assert_eq!(p.code.as_deref(), Some("abc"));
    /// assert_eq!(p.iss.as_deref(), Some("https://as.example"));
    /// ```
    pub fn from_query(query: &str) -> Self {
        let mut params = CallbackParams::default();
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            let slot = match &*name {
                "code" => &mut params.code,
                "state" => &mut params.state,
                "iss" => &mut params.iss,
                "error" => &mut params.error,
                "error_description" => &mut params.error_description,
                _ => continue,
            };
            slot.get_or_insert_with(|| value.into_owned());
        }
        params
    }

    /// The parameters of the redirect URL the browser was sent to.
    pub fn from_redirect_url(url: &str) -> Result<Self, OAuthError> {
        let uri: Uri = url.parse().map_err(|e| {
            OAuthError::with_source(OAuthErrorKind::Authorization, "the redirect location is not a URL", e)
        })?;
        Ok(Self::from_query(uri.query().unwrap_or_default()))
    }
}

/// Shows the authorization URL and returns the redirect's parameters.
pub trait AuthorizationHandler: Send + Sync + 'static {
    /// The redirect URI to register and send (for example
    /// `http://127.0.0.1:<port>/callback`).
    fn redirect_uri(&self) -> String;

    /// Takes the user to `url` (an http(s) URL, already checked) and returns what the
    /// redirect to [`redirect_uri`](Self::redirect_uri) carried.
    fn authorize(&self, url: String) -> CallbackFuture<Result<CallbackParams, OAuthError>>;
}

/// An [`AuthorizationHandler`] from a redirect URI and an async function.
///
/// ```
/// use mcp::client::oauth::{AuthorizationHandler, CallbackParams, authorization_fn};
///
/// let handler = authorization_fn("http://127.0.0.1:8123/callback", |url: String| async move {
///     println!("open {url}");
///     Ok(CallbackParams::from_query("code=abc&state=from-the-browser"))
/// });
/// assert_eq!(handler.redirect_uri(), "http://127.0.0.1:8123/callback");
/// ```
pub fn authorization_fn<F, Fut>(redirect_uri: impl Into<String>, f: F) -> impl AuthorizationHandler
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallbackParams, OAuthError>> + Send + 'static,
{
    FnHandler { redirect_uri: redirect_uri.into(), f }
}

struct FnHandler<F> {
    redirect_uri: String,
    f: F,
}

impl<F, Fut> AuthorizationHandler for FnHandler<F>
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallbackParams, OAuthError>> + Send + 'static,
{
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize(&self, url: String) -> CallbackFuture<Result<CallbackParams, OAuthError>> {
        Box::pin((self.f)(url))
    }
}

type Show = Arc<dyn Fn(&str) + Send + Sync>;

/// Receives the redirect on a loopback port: binds `127.0.0.1:0`, shows the URL (by
/// default printed to stderr for the user to open), then serves connections (up to 8 at
/// once, each a bounded request within 10 s) until a `GET /callback` carries the `state`
/// of the authorization URL, and answers it with a short page. A callback with another
/// state gets 400 and the wait goes on, until the [`timeout`](Self::timeout).
///
/// ```
/// # async fn run() -> std::io::Result<()> {
/// use mcp::client::oauth::{AuthorizationHandler, LoopbackRedirect};
///
/// let redirect = LoopbackRedirect::bind().await?;
/// assert!(redirect.redirect_uri().starts_with("http://127.0.0.1:"));
/// # Ok(())
/// # }
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
/// ```
pub struct LoopbackRedirect {
    listener: Arc<TcpListener>,
    port: u16,
    show: Show,
    timeout: Duration,
    busy: Arc<tokio::sync::Mutex<()>>,
}

impl std::fmt::Debug for LoopbackRedirect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackRedirect").field("port", &self.port).field("timeout", &self.timeout).finish()
    }
}

/// How long a browser has to send its request once connected.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(10);

impl LoopbackRedirect {
    /// Binds `127.0.0.1:0`; the URL is printed to stderr.
    pub async fn bind() -> std::io::Result<Self> {
        Self::bind_with(|url: &str| {
            eprintln!("To authorize this client, open this URL in your browser:\n\n  {url}\n");
        })
        .await
    }

    /// Binds `127.0.0.1:0`; `show` is given the URL (print it, open a browser).
    pub async fn bind_with(show: impl Fn(&str) + Send + Sync + 'static) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        Ok(LoopbackRedirect {
            listener: Arc::new(listener),
            port,
            show: Arc::new(show),
            timeout: Duration::from_secs(300),
            busy: Arc::default(),
        })
    }

    /// How long to wait for the redirect (default five minutes).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

const PAGE: &str = "<!doctype html><meta charset=utf-8><title>Authorized</title>\
<p>Authorization received. You can close this window and return to the application.</p>";

impl AuthorizationHandler for LoopbackRedirect {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn authorize(&self, url: String) -> CallbackFuture<Result<CallbackParams, OAuthError>> {
        let listener = Arc::clone(&self.listener);
        let show = Arc::clone(&self.show);
        let busy = Arc::clone(&self.busy);
        let timeout = self.timeout;
        // The `state` this authorization request carries: only a redirect echoing it ends
        // the wait (without one in the URL, any redirect does).
        let expected: Option<Arc<str>> = url
            .parse::<Uri>()
            .ok()
            .and_then(|uri| CallbackParams::from_query(uri.query().unwrap_or_default()).state)
            .map(Arc::from);
        Box::pin(async move {
            let _one_at_a_time = busy.lock().await;
            show(&url);
            let (found_tx, mut found_rx) = tokio::sync::mpsc::channel::<CallbackParams>(1);
            let permits = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
            // Dropped with the wait, which aborts the connections still open.
            let mut connections = tokio::task::JoinSet::new();
            let wait = async {
                loop {
                    tokio::select! {
                        found = found_rx.recv() => {
                            // `found_tx` lives here, so `recv` only ends with a value.
                            if let Some(params) = found {
                                return params;
                            }
                        }
                        (stream, permit) = accept(&listener, &permits) => {
                            let (found, expected) = (found_tx.clone(), expected.clone());
                            connections.spawn(async move {
                                let _permit = permit;
                                serve_one(stream, expected, found).await;
                            });
                        }
                    }
                    while connections.try_join_next().is_some() {}
                }
            };
            tokio::time::timeout(timeout, wait).await.map_err(|_| {
                OAuthError::new(OAuthErrorKind::Authorization, format!("no redirect arrived within {timeout:?}"))
            })
        })
    }
}

/// Connections the listener serves at once; more wait in the listen backlog.
const MAX_CONNECTIONS: usize = 8;

/// The next connection, once fewer than [`MAX_CONNECTIONS`] are being served.
async fn accept(
    listener: &TcpListener,
    permits: &Arc<tokio::sync::Semaphore>,
) -> (tokio::net::TcpStream, tokio::sync::OwnedSemaphorePermit) {
    // The semaphore is never closed.
    let Ok(permit) = Arc::clone(permits).acquire_owned().await else { return std::future::pending().await };
    loop {
        match listener.accept().await {
            Ok((stream, _)) => return (stream, permit),
            Err(e) => {
                // Out of file descriptors and the like: wait rather than spin.
                tracing::debug!(error = %e, "the redirect listener could not accept");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

const WRONG_STATE_PAGE: &str = "<!doctype html><meta charset=utf-8><title>Not this request</title>\
<p>This redirect does not belong to the pending authorization request (its state differs). \
Still waiting for the right one.</p>";

/// Serves one connection (a bounded request, within [`CONNECTION_TIMEOUT`]). A
/// `GET /callback` whose `state` is `expected` (any, when `None`) is sent to `found`;
/// one with another state gets 400 and is ignored.
async fn serve_one(
    stream: tokio::net::TcpStream,
    expected: Option<Arc<str>>,
    found: tokio::sync::mpsc::Sender<CallbackParams>,
) {
    let service = service_fn(move |request: http::Request<hyper::body::Incoming>| {
        let (found, expected) = (found.clone(), expected.clone());
        async move {
            let response = if request.method() == http::Method::GET && request.uri().path() == "/callback" {
                let params = CallbackParams::from_query(request.uri().query().unwrap_or_default());
                if expected.as_deref().is_none_or(|state| params.state.as_deref() == Some(state)) {
                    let _ = found.try_send(params);
                    html(StatusCode::OK, PAGE)
                } else {
                    tracing::debug!("a redirect with another state reached the redirect listener; ignored");
                    html(StatusCode::BAD_REQUEST, WRONG_STATE_PAGE)
                }
            } else {
                Response::builder().status(StatusCode::NOT_FOUND).body(Full::new(Bytes::new()))
            };
            Ok::<_, Infallible>(response.unwrap_or_default())
        }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .max_buf_size(8192)
        .keep_alive(false)
        .serve_connection(TokioIo::new(stream), service);
    if tokio::time::timeout(CONNECTION_TIMEOUT, connection).await.is_err() {
        tracing::debug!("a connection to the redirect listener timed out");
    }
}

fn html(status: StatusCode, page: &'static str) -> http::Result<Response<Full<Bytes>>> {
    Response::builder()
        .status(status)
        .header(http::header::CONTENT_TYPE, "text/html; charset=utf-8")
        .body(Full::new(Bytes::from_static(page.as_bytes())))
}

/// For authorization servers that redirect at once, without a user (test servers,
/// pre-approved clients): GETs the authorization URL without following redirects and
/// reads the parameters from `Location`.
///
/// It fetches with its own client: the Mozilla/platform roots only, https only (http just
/// for loopback hosts). Root certificates added on the client builder and
/// `allow_insecure_http` do not apply to it, so an authorization endpoint behind a private
/// CA needs an [`authorization_fn`] of your own.
#[derive(Debug, Clone)]
pub struct HeadlessRedirect {
    redirect_uri: String,
    /// The fetcher, or why there is none (reported by `authorize`).
    http: Result<OAuthHttp, OAuthError>,
}

impl HeadlessRedirect {
    /// Registers `redirect_uri` (nothing listens there; it is read from `Location`).
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        let roots = crate::client::connector::Roots::default();
        HeadlessRedirect {
            redirect_uri: redirect_uri.into(),
            http: OAuthHttp::new(Duration::from_secs(30), false, &roots),
        }
    }
}

impl AuthorizationHandler for HeadlessRedirect {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize(&self, url: String) -> CallbackFuture<Result<CallbackParams, OAuthError>> {
        let http = self.http.clone();
        Box::pin(async move {
            let http = http?;
            let uri = http.parse_url(&url, "the authorization URL")?;
            let answer = http.get(&uri, "text/html").await?;
            let location = answer
                .headers
                .get(http::header::LOCATION)
                .and_then(|l| l.to_str().ok())
                .filter(|_| answer.status.is_redirection())
                .ok_or_else(|| {
                    OAuthError::new(
                        OAuthErrorKind::Authorization,
                        format!("the authorization endpoint answered {} without a redirect", answer.status),
                    )
                })?;
            CallbackParams::from_redirect_url(location)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[tokio::test]
    async fn the_loopback_listener_returns_the_redirect_parameters() {
        let shown = Arc::new(Mutex::new(String::new()));
        let seen = Arc::clone(&shown);
        let redirect = LoopbackRedirect::bind_with(move |url: &str| *seen.lock().expect("test lock") = url.to_owned())
            .await
            .expect("binding 127.0.0.1:0");
        let callback = redirect.redirect_uri();
        assert!(callback.starts_with("http://127.0.0.1:") && callback.ends_with("/callback"), "{callback}");
        let waiting = tokio::spawn(redirect.authorize("https://as.example/authorize?x=1".into()));
        let roots = crate::client::connector::Roots::default();
        let http = OAuthHttp::new(Duration::from_secs(5), false, &roots).expect("a fetcher");
        let other = callback.replace("/callback", "/favicon.ico").parse().expect("test URL");
        let miss = http.get(&other, "*/*").await.expect("the listener answers");
        assert_eq!(miss.status, StatusCode::NOT_FOUND);
        let hit = format!("{callback}?code=c0de&state=st&iss=https%3A%2F%2Fas.example").parse().expect("test URL");
        let page = http.get(&hit, "text/html").await.expect("the listener answers");
        assert_eq!(page.status, StatusCode::OK);
        assert!(String::from_utf8_lossy(&page.body).contains("Authorization received"));
        let params = waiting.await.expect("the task").expect("the parameters");
        assert_eq!(params.code.as_deref(), Some("c0de"));
        assert_eq!(params.state.as_deref(), Some("st"));
        assert_eq!(params.iss.as_deref(), Some("https://as.example"));
        assert!(!format!("{params:?}").contains("c0de"));
        assert_eq!(*shown.lock().expect("test lock"), "https://as.example/authorize?x=1");
    }

    #[tokio::test]
    async fn an_idle_connection_or_a_foreign_state_does_not_end_or_stall_the_wait() {
        let redirect = LoopbackRedirect::bind_with(|_: &str| {}).await.expect("binding 127.0.0.1:0");
        let callback = redirect.redirect_uri();
        let waiting = tokio::spawn(redirect.authorize("https://as.example/authorize?state=mine&x=1".into()));
        // A connection that sends nothing holds no one up.
        let addr = callback.trim_start_matches("http://").trim_end_matches("/callback").to_owned();
        let _idle = tokio::net::TcpStream::connect(&addr).await.expect("connect");
        tokio::time::sleep(Duration::from_millis(50)).await;
        let roots = crate::client::connector::Roots::default();
        let http = OAuthHttp::new(Duration::from_secs(5), false, &roots).expect("a fetcher");
        let foreign = format!("{callback}?code=other&state=theirs").parse().expect("test URL");
        let refused = http.get(&foreign, "text/html").await.expect("the listener answers");
        assert_eq!(refused.status, StatusCode::BAD_REQUEST);
        assert!(!waiting.is_finished(), "a foreign state does not end the wait");
        let hit = format!("{callback}?code=c0de&state=mine").parse().expect("test URL");
        let page = http.get(&hit, "text/html").await.expect("the listener answers");
        assert_eq!(page.status, StatusCode::OK);
        let params = tokio::time::timeout(Duration::from_secs(3), waiting)
            .await
            .expect("in time, not after the idle connection's timeout")
            .expect("the task")
            .expect("the parameters");
        assert_eq!(params.code.as_deref(), Some("c0de"));
        assert_eq!(params.state.as_deref(), Some("mine"));
    }

    #[tokio::test]
    async fn the_loopback_listener_gives_up_after_its_timeout() {
        let redirect = LoopbackRedirect::bind_with(|_: &str| {})
            .await
            .expect("binding 127.0.0.1:0")
            .timeout(Duration::from_millis(50));
        let error = redirect.authorize("https://as.example/authorize".into()).await.expect_err("nobody came");
        assert_eq!(error.kind(), OAuthErrorKind::Authorization);
    }
}
