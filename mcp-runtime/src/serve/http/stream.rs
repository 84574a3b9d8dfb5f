//! The 2025-11-25 GET stream: a session's change notifications.

use std::sync::Arc;

use http::{Response, StatusCode};
use tokio::sync::mpsc;

use super::body::Event;
use super::reply::{accepts, empty_response, method_not_allowed, session_id, session_not_found, sse_response};
use super::sessions::Owner;
use super::stream_limits::{self, Client};
use super::{HttpBody, State};
use crate::handler::{AuthInfo, Change, Session};
use crate::protocol::methods;

impl State {
    /// Open the session's GET stream, counted as `client`'s; it holds a stream slot (never a
    /// request slot) until it closes, and closes at the maximum stream lifetime (the
    /// client opens it again, as it would after any dropped connection).
    pub(super) fn get(
        self: Arc<Self>,
        headers: &http::HeaderMap,
        auth: Option<Arc<AuthInfo>>,
        client: Client,
    ) -> Response<HttpBody> {
        let Some(id) = session_id(headers) else {
            return method_not_allowed("POST");
        };
        // The session stays busy (never idle) while its stream is open.
        let Some((session, mut ended, hold)) = self.sessions.get_stream(id, Owner::of(auth.as_deref())) else {
            return session_not_found(None);
        };
        if !accepts(headers, &["text/event-stream"]) {
            return empty_response(StatusCode::NOT_ACCEPTABLE);
        }
        let slot = match self.streams.acquire(client, Some(id)) {
            Ok(slot) => slot,
            Err(refused) => return refused.response(None),
        };
        let (tx, rx) = mpsc::channel(64);
        let mut changes = self.server.subscribe_changes();
        tokio::spawn(async move {
            let _hold = hold;
            let deadline = slot.deadline();
            let _slot = slot;
            loop {
                let change = tokio::select! {
                    _ = tx.closed() => return,
                    () = stream_limits::until(deadline) => {
                        tracing::debug!("a GET stream reached its maximum lifetime; closing it");
                        return;
                    }
                    // The session ended (DELETE): end its stream too.
                    _ = ended.changed() => return,
                    change = changes.recv() => change,
                };
                let frame = match change {
                    Ok(change) => legacy_change_frame(&change, &session),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                };
                if let Some(frame) = frame
                    && tx.send(Event::Message(frame)).await.is_err()
                {
                    return;
                }
            }
        });
        sse_response(HttpBody::sse(None, rx, self.config.sse_keep_alive), None)
    }
}

/// A change as a 2025-11-25 notification for this session's GET stream.
fn legacy_change_frame(change: &Change, session: &Session) -> Option<String> {
    let (method, params) = match change {
        Change::Tools => (methods::NOTIFICATION_TOOLS_LIST_CHANGED, None),
        Change::Prompts => (methods::NOTIFICATION_PROMPTS_LIST_CHANGED, None),
        Change::Resources => (methods::NOTIFICATION_RESOURCES_LIST_CHANGED, None),
        Change::ResourceUpdated(uri) if session.is_subscribed(uri) => {
            (methods::NOTIFICATION_RESOURCES_UPDATED, Some(serde_json::json!({ "uri": uri })))
        }
        Change::ResourceUpdated(_) => return None,
    };
    let mut message = serde_json::json!({"jsonrpc": "2.0", "method": method});
    if let Some(params) = params {
        message["params"] = params;
    }
    Some(message.to_string())
}
