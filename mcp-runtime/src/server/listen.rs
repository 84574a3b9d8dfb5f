//! `subscriptions/listen` (2026-07-28): acknowledge what will be sent, then forward
//! the requested change notifications, each tagged with the subscription id, until
//! the client goes away (stream closed, or `notifications/cancelled` on stdio), or until
//! the transport's maximum stream lifetime is over: then the subscription ends gracefully
//! with its result, and the client listens again.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use crate::Error;
use crate::handler::{Change, RequestContext};
use crate::protocol::{
    JsonObject, ServerCapabilities, SubscriptionFilter, SubscriptionsAcknowledgedParams, SubscriptionsListenParams,
    SubscriptionsListenResult, keys, methods,
};

/// The part of `requested` a server with `caps` can honour.
fn supported_filter(caps: &ServerCapabilities, requested: &SubscriptionFilter) -> SubscriptionFilter {
    let tools = caps.tools.as_ref().and_then(|t| t.list_changed).unwrap_or(false);
    let prompts = caps.prompts.as_ref().and_then(|p| p.list_changed).unwrap_or(false);
    let resources = caps.resources.as_ref().and_then(|r| r.list_changed).unwrap_or(false);
    let subscribe = caps.resources.as_ref().and_then(|r| r.subscribe).unwrap_or(false);
    SubscriptionFilter {
        tools_list_changed: requested.tools_list_changed.filter(|want| *want && tools),
        prompts_list_changed: requested.prompts_list_changed.filter(|want| *want && prompts),
        resources_list_changed: requested.resources_list_changed.filter(|want| *want && resources),
        resource_subscriptions: requested.resource_subscriptions.clone().filter(|_| subscribe),
        task_ids: None,
    }
}

/// The maximum lifetime of a `subscriptions/listen` stream: the HTTP transport puts it in
/// the request's extensions, and [`listen`] ends the subscription gracefully (its result)
/// when it is over.
#[cfg(feature = "http")]
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListenLifetime(pub(crate) Duration);

/// Serve one `subscriptions/listen` stream until the client goes away.
pub(crate) async fn listen(
    caps: &ServerCapabilities,
    ctx: RequestContext,
    params: SubscriptionsListenParams,
) -> Result<JsonObject, Error> {
    let filter = supported_filter(caps, &params.notifications);
    let id = serde_json::to_value(ctx.request_id()).unwrap_or(Value::Null);
    let mut tag = JsonObject::new();
    tag.insert(keys::SUBSCRIPTION_ID.to_owned(), id);
    // Subscribe before acknowledging so no change falls between the two.
    let mut changes = ctx.server().subscribe_changes();
    let ack = SubscriptionsAcknowledgedParams { meta: Some(tag.clone()), notifications: filter.clone() };
    ctx.send_notification(methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED, &ack).await;
    let deadline = lifetime(&ctx).and_then(|lifetime| tokio::time::Instant::now().checked_add(lifetime));
    loop {
        let received = tokio::select! {
            received = changes.recv() => received,
            () = until(deadline) => {
                tracing::debug!("a subscription reached its maximum lifetime; ending it with its result");
                break;
            }
        };
        let change = match received {
            Ok(change) => change,
            Err(RecvError::Lagged(missed)) => {
                tracing::warn!(missed, "a subscription fell behind; some change notifications were dropped");
                continue;
            }
            Err(RecvError::Closed) => break,
        };
        let (method, extra) = match &change {
            Change::Tools if filter.tools_list_changed == Some(true) => {
                (methods::NOTIFICATION_TOOLS_LIST_CHANGED, None)
            }
            Change::Prompts if filter.prompts_list_changed == Some(true) => {
                (methods::NOTIFICATION_PROMPTS_LIST_CHANGED, None)
            }
            Change::Resources if filter.resources_list_changed == Some(true) => {
                (methods::NOTIFICATION_RESOURCES_LIST_CHANGED, None)
            }
            Change::ResourceUpdated(uri)
                if filter.resource_subscriptions.as_ref().is_some_and(|uris| uris.contains(uri)) =>
            {
                (methods::NOTIFICATION_RESOURCES_UPDATED, Some(uri.clone()))
            }
            _ => continue,
        };
        let mut params = json!({ "_meta": tag });
        if let Some(uri) = extra {
            params["uri"] = Value::String(uri);
        }
        if !ctx.send_notification(method, &params).await {
            break;
        }
    }
    let result = SubscriptionsListenResult { meta: Some(tag), ..Default::default() };
    match serde_json::to_value(result) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(Error::internal("Internal error")),
    }
}

/// The maximum lifetime the transport gives this stream (HTTP only; none on stdio, whose
/// one client owns the server process).
fn lifetime(ctx: &RequestContext) -> Option<Duration> {
    #[cfg(feature = "http")]
    if let Some(lifetime) = ctx.http_extensions().and_then(|e| e.get::<ListenLifetime>()) {
        return Some(lifetime.0);
    }
    let _ = ctx;
    None
}

/// Sleep until `deadline`, or forever without one.
async fn until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
