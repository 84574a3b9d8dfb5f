//! Per-connection state: the legacy handshake, in-flight requests (for cancellation)
//! and the server's own outstanding requests to the client (2025-11-25 only).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ring::rand::{SecureRandom, SystemRandom};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::AbortHandle;
use tokio::time::Instant;

use crate::Error;
use crate::protocol::{
    CancelledParams, ClientCapabilities, Implementation, JsonRpcNotification, JsonRpcRequest, JsonRpcVersion,
    LoggingLevel, RequestId, methods,
};
use crate::wire::untrusted::Untrusted;

/// What a legacy (`initialize`) session negotiated.
#[derive(Debug, Clone)]
pub(crate) struct LegacyState {
    /// One of `SUPPORTED_LEGACY_VERSIONS`.
    pub(crate) version: &'static str,
    pub(crate) client_capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Arc<Implementation>,
    pub(crate) log_level: Option<LoggingLevel>,
}

type Pending = oneshot::Sender<Result<Value, Error>>;

/// One connection's state: a stdio process, an in-memory pair, or (later) an HTTP session.
pub struct Session {
    legacy: Mutex<Option<LegacyState>>,
    pending: Mutex<HashMap<RequestId, Pending>>,
    in_flight: Mutex<HashMap<RequestId, AbortHandle>>,
    subscriptions: Mutex<std::collections::HashSet<String>>,
    /// Uses that keep the session from being idle besides running requests (an open GET
    /// stream, a request between its lookup and its start).
    #[cfg_attr(not(feature = "http"), allow(dead_code, reason = "only HTTP sessions expire and are evicted"))]
    holds: AtomicUsize,
    /// When the session was last looked up or stopped being used.
    last_active: Mutex<Instant>,
    /// When a measured session opened, and what to tell when it ends ([`Session::measure`]).
    on_end: Mutex<Option<(Instant, SessionEnd)>>,
}

/// Told a measured session's lifetime and its legacy protocol version when it ends.
pub(crate) type SessionEnd = Box<dyn FnOnce(std::time::Duration, Option<&str>) + Send + Sync>;

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    /// A fresh session: not yet initialized, nothing in flight.
    pub fn new() -> Self {
        Session {
            legacy: Mutex::new(None),
            pending: Mutex::new(HashMap::new()),
            in_flight: Mutex::new(HashMap::new()),
            subscriptions: Mutex::new(std::collections::HashSet::new()),
            holds: AtomicUsize::new(0),
            last_active: Mutex::new(Instant::now()),
            on_end: Mutex::new(None),
        }
    }

    /// Measure this session from now: `on_end` is told its lifetime when it ends (the
    /// telemetry's session duration histogram).
    pub(crate) fn measure(&self, on_end: SessionEnd) {
        *lock(&self.on_end) = Some((Instant::now(), on_end));
    }

    pub(crate) fn legacy(&self) -> Option<LegacyState> {
        lock(&self.legacy).clone()
    }

    pub(crate) fn set_legacy(&self, state: LegacyState) {
        *lock(&self.legacy) = Some(state);
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        if let Some(state) = lock(&self.legacy).as_mut() {
            state.log_level = Some(level);
        }
    }

    /// Subscribe to (or unsubscribe from) a resource's updates (legacy sessions). A new
    /// subscription past `limit` is refused with `-32602`.
    pub(crate) fn set_subscribed(&self, uri: &str, subscribed: bool, limit: usize) -> Result<(), Error> {
        let mut subscriptions = lock(&self.subscriptions);
        if !subscribed {
            subscriptions.remove(uri);
        } else if !subscriptions.contains(uri) {
            if subscriptions.len() >= limit {
                tracing::warn!(limit, "refusing resources/subscribe: the session's subscription limit is reached");
                return Err(Error::invalid_params(format!(
                    "Invalid params: a session may subscribe to at most {limit} resources"
                )));
            }
            subscriptions.insert(uri.to_owned());
        }
        Ok(())
    }

    /// Whether this session subscribed to `uri` (legacy `resources/subscribe`).
    pub fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    /// Whether `initialize` opened a legacy session here.
    pub fn is_legacy(&self) -> bool {
        lock(&self.legacy).is_some()
    }

    /// Record a running request so `notifications/cancelled` can stop it.
    /// Returns false when a request with the same id is already running.
    pub(crate) fn start_request(&self, id: &RequestId, spawn: impl FnOnce() -> AbortHandle) -> bool {
        let mut in_flight = lock(&self.in_flight);
        if in_flight.contains_key(id) {
            return false;
        }
        let handle = spawn();
        in_flight.insert(id.clone(), handle);
        true
    }

    /// Whether a request with this id is running.
    pub(crate) fn is_in_flight(&self, id: &RequestId) -> bool {
        lock(&self.in_flight).contains_key(id)
    }

    pub(crate) fn finish_request(&self, id: &RequestId) {
        lock(&self.in_flight).remove(id);
        self.touch();
    }

    /// Record a use of the session now (it is not idle since).
    pub(crate) fn touch(&self) {
        *lock(&self.last_active) = Instant::now();
    }

    /// Keep the session busy (not idle, so neither expired nor evicted) until the returned
    /// guard drops.
    #[cfg_attr(not(feature = "http"), allow(dead_code, reason = "only HTTP sessions expire and are evicted"))]
    pub(crate) fn hold(self: &Arc<Self>) -> Hold {
        self.holds.fetch_add(1, Ordering::AcqRel);
        Hold(Arc::clone(self))
    }

    /// Since when the session has been idle: no request running, nothing holding it.
    /// `None` while it is busy.
    #[cfg_attr(not(feature = "http"), allow(dead_code, reason = "only HTTP sessions expire and are evicted"))]
    pub(crate) fn idle_since(&self) -> Option<Instant> {
        if self.holds.load(Ordering::Acquire) > 0 || !lock(&self.in_flight).is_empty() {
            return None;
        }
        Some(*lock(&self.last_active))
    }

    /// Abort a running request; it sends no response.
    pub(crate) fn cancel_request(&self, id: &RequestId) -> bool {
        match lock(&self.in_flight).remove(id) {
            Some(handle) => {
                handle.abort();
                true
            }
            None => false,
        }
    }

    pub(crate) fn abort_all(&self) {
        for (_, handle) in lock(&self.in_flight).drain() {
            handle.abort();
        }
    }

    /// Send a request to the client on `outbound` and wait for its response (legacy sessions only).
    pub(crate) async fn request_client(
        &self,
        outbound: &super::Outbound,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, Error> {
        // Unguessable, so that only the client that saw the request can answer it.
        let id = random_request_id()?;
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let guard = PendingGuard { session: self, id: id.clone() };
        let params = match params {
            Some(Value::Object(map)) => Some(map),
            _ => None,
        };
        let request = JsonRpcRequest { jsonrpc: JsonRpcVersion, id, method: method.to_owned(), params };
        let frame = serde_json::to_string(&request).map_err(|e| Error::internal(e.to_string()))?;
        if outbound.send(frame).await.is_err() {
            return Err(Error::internal("Connection closed"));
        }
        let outcome = rx.await.map_err(|_| Error::internal("Connection closed before the client answered"));
        drop(guard);
        outcome?
    }

    /// Deliver a client's response to the request that awaits it.
    pub(crate) fn route_response(&self, id: Option<&RequestId>, outcome: Result<Value, Error>) {
        let Some(id) = id else {
            tracing::warn!("dropping a response without an id");
            return;
        };
        match lock(&self.pending).remove(id) {
            Some(tx) => {
                let _ = tx.send(outcome);
            }
            None => tracing::warn!(%id, "dropping a response to no pending request"),
        }
    }

    /// Fail every outstanding server-to-client request (the connection closed).
    pub(crate) fn fail_pending(&self) {
        lock(&self.pending).clear();
    }

    /// Act on a client notification: `notifications/cancelled` stops a running request.
    pub(crate) fn handle_notification(&self, notification: JsonRpcNotification) {
        match notification.method.as_str() {
            methods::NOTIFICATION_CANCELLED => {
                let params = serde_json::from_value::<CancelledParams>(serde_json::Value::Object(
                    notification.params.unwrap_or_default(),
                ));
                match params {
                    Ok(CancelledParams { request_id: Some(id), .. }) => {
                        if self.cancel_request(&id) {
                            tracing::debug!(%id, "request cancelled by the client");
                        }
                    }
                    _ => tracing::debug!("ignoring a malformed notifications/cancelled"),
                }
            }
            methods::NOTIFICATION_INITIALIZED => {
                tracing::debug!("client sent notifications/initialized")
            }
            other => tracing::debug!(method = ?Untrusted(other), "ignoring a notification"),
        }
    }
}

/// A use of a session, from [`Session::hold`]; dropping it ends the use.
#[must_use = "the session is busy only while the hold lives"]
#[cfg_attr(not(feature = "http"), allow(dead_code, reason = "only HTTP sessions expire and are evicted"))]
pub(crate) struct Hold(Arc<Session>);

impl Drop for Hold {
    fn drop(&mut self) {
        self.0.touch();
        self.0.holds.fetch_sub(1, Ordering::AcqRel);
    }
}

/// 128 random bits as a hex string id.
fn random_request_id() -> Result<RequestId, Error> {
    let mut bytes = [0u8; 16];
    SystemRandom::new().fill(&mut bytes).map_err(|_| Error::internal("Internal error"))?;
    let mut id = String::with_capacity(32);
    for byte in bytes {
        id.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        id.push(char::from(b"0123456789abcdef"[usize::from(byte & 0x0f)]));
    }
    Ok(RequestId::String(id))
}

struct PendingGuard<'a> {
    session: &'a Session,
    id: RequestId,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        lock(&self.session.pending).remove(&self.id);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let measured = self.on_end.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some((opened, on_end)) = measured {
            let legacy = self.legacy.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
            on_end(opened.elapsed(), legacy.as_ref().map(|l| l.version));
        }
    }
}
