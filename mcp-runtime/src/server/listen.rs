//! `subscriptions/listen` (2026-07-28): acknowledge what will be sent, then forward
//! the requested change notifications, each tagged with the subscription id, until
//! the client goes away (stream closed, or `notifications/cancelled` on stdio), or until
//! the transport's maximum stream lifetime is over: then the subscription ends gracefully
//! with its result, and the client listens again.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use crate::Error;
use crate::handler::{Change, RequestContext};
use crate::protocol::{
    JsonObject, ServerCapabilities, SubscriptionFilter, SubscriptionsAcknowledgedParams, SubscriptionsListenParams,
    SubscriptionsListenResult, declares_tasks, keys, methods, tasks::methods as task_methods, tasks_capability,
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
    let mut filter = supported_filter(caps, &params.notifications);
    let id = serde_json::to_value(ctx.request_id()).unwrap_or(Value::Null);
    let mut tag = JsonObject::new();
    tag.insert(keys::SUBSCRIPTION_ID.to_owned(), id);
    // Subscribe before acknowledging so no change falls between the two.
    let mut changes = ctx.server().subscribe_changes();
    let (mut tasks, mut watched) = watch_tasks(&ctx, params.notifications.task_ids.as_deref()).await?;
    filter.task_ids = tasks.as_ref().map(|_| watched.iter().cloned().collect());
    let ack = SubscriptionsAcknowledgedParams { meta: Some(tag.clone()), notifications: filter.clone() };
    ctx.send_notification(methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED, &ack).await;
    // Each watched task's state now, so one that finished before the stream opened is told.
    for id in watched.clone() {
        send_task(&ctx, &tag, &id, &mut watched).await;
    }
    let deadline = lifetime(&ctx).and_then(|lifetime| tokio::time::Instant::now().checked_add(lifetime));
    // A task whose instance died changes only when someone reads it: check the watched
    // tasks' leases now and then, so that their listeners hear that they failed.
    let lease = ctx.server().tasks().filter(|_| tasks.is_some()).map(|manager| manager.lease());
    let mut leases = tokio::time::interval(lease.unwrap_or(Duration::from_secs(3600)));
    leases.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    leases.tick().await;
    loop {
        let received = tokio::select! {
            received = changes.recv() => received,
            _ = leases.tick(), if lease.is_some() && !watched.is_empty() => {
                if let Some(manager) = ctx.server().tasks() {
                    for id in &watched {
                        // A store that does not answer ends this round of checks, so an
                        // outage costs one timeout per lease, not one per task.
                        if !manager.check_lease(id).await {
                            break;
                        }
                    }
                }
                continue;
            }
            Some(changed) = next_task(&mut tasks) => {
                // After a lag, every watched task may have changed unseen: send them all.
                let ids = match changed {
                    Some(id) if watched.contains(&*id) => vec![id.to_string()],
                    Some(_) => continue,
                    None => watched.iter().cloned().collect(),
                };
                let mut gone = false;
                for id in ids {
                    gone = gone || !send_task(&ctx, &tag, &id, &mut watched).await;
                }
                if gone {
                    break;
                }
                continue;
            }
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

/// How many tasks one subscription may watch.
const MAX_WATCHED_TASKS: usize = 100;

/// The task ids a subscription watches: those asked for that exist and belong to the
/// caller (the others are left out of the acknowledgement), and the feed of task changes.
/// Asking for any without the tasks extension in the request is `-32021`.
async fn watch_tasks(
    ctx: &RequestContext,
    requested: Option<&[String]>,
) -> Result<(Option<broadcast::Receiver<Arc<str>>>, BTreeSet<String>), Error> {
    let Some(requested) = requested else { return Ok((None, BTreeSet::new())) };
    if !declares_tasks(ctx.client_capabilities()) {
        return Err(Error::missing_client_capability(
            "Listening to tasks needs the tasks extension in this request's client capabilities",
            &tasks_capability(),
        ));
    }
    let Some(manager) = ctx.server().tasks() else { return Ok((None, BTreeSet::new())) };
    if requested.len() > MAX_WATCHED_TASKS {
        return Err(Error::invalid_params(format!(
            "Invalid params: a subscription watches at most {MAX_WATCHED_TASKS} tasks"
        )));
    }
    // Subscribe before reading the tasks so no change falls between the two.
    let feed = manager.subscribe();
    let owner = ctx.task_owner();
    let mut watched = BTreeSet::new();
    for id in requested {
        if matches!(manager.snapshot(id, owner.as_deref()).await, Ok(Some(_))) {
            watched.insert(id.clone());
        }
    }
    Ok((Some(feed), watched))
}

/// The next task that changed (`Some(None)` after a lag: any may have), or never without a
/// feed.
async fn next_task(feed: &mut Option<broadcast::Receiver<Arc<str>>>) -> Option<Option<Arc<str>>> {
    let Some(receiver) = feed else { return std::future::pending().await };
    match receiver.recv().await {
        // Any task may have changed (the change bus was cut off): like a lag.
        Ok(id) if &*id == crate::tasks::EVERY_TASK => Some(None),
        Ok(id) => Some(Some(id)),
        Err(RecvError::Lagged(missed)) => {
            tracing::debug!(missed, "a task subscription fell behind; resending the watched tasks");
            Some(None)
        }
        Err(RecvError::Closed) => std::future::pending().await,
    }
}

/// Send `notifications/tasks` with the task's state; a terminal task is watched no more.
/// False when the client went away.
async fn send_task(ctx: &RequestContext, tag: &JsonObject, id: &str, watched: &mut BTreeSet<String>) -> bool {
    let Some(manager) = ctx.server().tasks() else { return true };
    let owner = ctx.task_owner();
    let mut task = match manager.snapshot(id, owner.as_deref()).await {
        Ok(Some(task)) => task,
        Ok(None) => {
            watched.remove(id);
            return true;
        }
        // The store does not answer now: keep watching; the next change or lease check
        // reads it again.
        Err(_) => return true,
    };
    if task.task.status.is_terminal() {
        watched.remove(id);
    }
    task.meta = Some(tag.clone());
    ctx.send_notification(task_methods::NOTIFICATION_TASKS, &task).await
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
