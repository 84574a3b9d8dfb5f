//! [`RedisChangeBus`]: the change bus on Redis pub/sub.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{IntoConnectionInfo, ProtocolVersion, PushInfo, PushKind};
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, watch};

use super::{BusMessage, BusSink, Change, ChangeBus};

/// The default pub/sub channel.
pub const DEFAULT_CHANNEL: &str = "mcp:changes";
/// How many messages may wait to be published before new ones are dropped.
const QUEUE: usize = 1024;
/// How often the subscription is checked (and re-made after an outage).
const CHECK_EVERY: Duration = Duration::from_secs(1);
/// While Redis is down, how often publishing is tried again.
const RETRY_WHILE_DOWN: Duration = Duration::from_secs(1);
/// The bound on one Redis call.
const TIMEOUT: Duration = Duration::from_secs(2);
/// Messages longer than this are ignored (ours are short).
const MAX_MESSAGE: usize = 16 * 1024;

/// The form a message takes on the channel.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Wire {
    Tools,
    Prompts,
    Resources,
    ResourceUpdated(String),
    Task(String),
    Resync,
}

impl Wire {
    fn from_message(message: BusMessage) -> Self {
        match message {
            BusMessage::Change(Change::Tools) => Wire::Tools,
            BusMessage::Change(Change::Prompts) => Wire::Prompts,
            BusMessage::Change(Change::Resources) => Wire::Resources,
            BusMessage::Change(Change::ResourceUpdated(uri)) => Wire::ResourceUpdated(uri),
            BusMessage::Task(id) => Wire::Task(id),
            BusMessage::Resync => Wire::Resync,
        }
    }

    fn into_message(self) -> BusMessage {
        match self {
            Wire::Tools => BusMessage::Change(Change::Tools),
            Wire::Prompts => BusMessage::Change(Change::Prompts),
            Wire::Resources => BusMessage::Change(Change::Resources),
            Wire::ResourceUpdated(uri) => BusMessage::Change(Change::ResourceUpdated(uri)),
            Wire::Task(id) => BusMessage::Task(id),
            Wire::Resync => BusMessage::Resync,
        }
    }
}

/// What kind of [`BusError`] this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BusErrorKind {
    /// The Redis URL is malformed.
    InvalidUrl,
    /// The bus was built outside a tokio runtime, which its background tasks need.
    NoRuntime,
}

/// Why a [`RedisChangeBus`] could not be built.
#[derive(Debug)]
pub struct BusError {
    kind: BusErrorKind,
    source: Option<redis::RedisError>,
}

impl BusError {
    /// What went wrong.
    pub fn kind(&self) -> BusErrorKind {
        self.kind
    }
}

impl std::fmt::Display for BusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.kind {
            BusErrorKind::InvalidUrl => "the Redis URL of the change bus is invalid",
            BusErrorKind::NoRuntime => "the Redis change bus must be built inside a tokio runtime",
        })
    }
}

impl std::error::Error for BusError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}

/// What the push handler, the publisher and the watchdog share.
struct Shared {
    channel: String,
    sinks: Mutex<Vec<BusSink>>,
    /// Set when the connection dropped: the subscription must be made again, and what was
    /// published meanwhile is lost.
    dropped: AtomicBool,
    /// Whether this instance is subscribed: if not, what it publishes would not come back
    /// to its own listeners, so it delivers to them directly.
    subscribed: AtomicBool,
}

impl Shared {
    fn deliver(&self, message: &BusMessage) {
        let sinks = self.sinks.lock().unwrap_or_else(PoisonError::into_inner).clone();
        for sink in sinks {
            sink(message.clone());
        }
    }

    /// A message Redis pushed to us: `[channel, payload]`.
    fn received(&self, push: PushInfo) {
        if push.kind == PushKind::Disconnection {
            // The connection the manager makes next is not subscribed yet.
            self.subscribed.store(false, Ordering::SeqCst);
            self.dropped.store(true, Ordering::SeqCst);
            return;
        }
        if push.kind != PushKind::Message {
            return;
        }
        let [channel, payload] = push.data.as_slice() else { return };
        let (Ok(channel), Ok(payload)) =
            (redis::from_redis_value_ref::<Vec<u8>>(channel), redis::from_redis_value_ref::<Vec<u8>>(payload))
        else {
            return;
        };
        if channel != self.channel.as_bytes() {
            return;
        }
        if payload.len() > MAX_MESSAGE {
            tracing::warn!(bytes = payload.len(), "ignoring an oversized change-bus message");
            return;
        }
        match serde_json::from_slice::<Wire>(&payload) {
            Ok(wire) => self.deliver(&wire.into_message()),
            Err(_) => tracing::warn!("ignoring a malformed change-bus message"),
        }
    }
}

/// The change bus on Redis pub/sub: every instance given a bus on the same Redis and
/// channel hears every other's list changes, resource updates and task changes.
///
/// **Connection.** One connection (RESP3, so that it can publish and subscribe at once),
/// made lazily and re-made with backoff when it drops. A watchdog checks it every second
/// and subscribes again after an outage; it then delivers [`BusMessage::Resync`], since
/// messages published meanwhile were lost (Redis pub/sub keeps nothing): the server tells
/// list listeners every list may have changed (clients list again), resends the state of
/// every watched task, and has running task work re-read its task.
///
/// **While Redis is down** nothing waits on it: a change is delivered to this instance's
/// own listeners only (and a WARN is logged once per outage), and everything else keeps
/// working. Task work re-reads its task on a timer, so a cancellation made through
/// another instance still reaches it, later.
///
/// Build it inside a tokio runtime: it runs two small background tasks, which stop when
/// the last clone of the bus is dropped.
///
/// ```no_run
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mcp::bus::BusError> {
/// let bus = mcp::bus::RedisChangeBus::new("redis://127.0.0.1:6379/0")?;
/// let server = mcp::Server::builder("svc", "1.0.0").change_bus(bus).build();
/// # let _ = server;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisChangeBus {
    shared: Arc<Shared>,
    queue: mpsc::Sender<BusMessage>,
    /// Dropped with the last clone: the background tasks stop.
    _alive: Arc<watch::Sender<()>>,
}

impl std::fmt::Debug for RedisChangeBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisChangeBus").field("channel", &self.shared.channel).finish_non_exhaustive()
    }
}

impl RedisChangeBus {
    /// A bus on the Redis at `url` (`redis://host:port/db`), on [`DEFAULT_CHANNEL`].
    pub fn new(url: &str) -> Result<Self, BusError> {
        RedisChangeBus::with_channel(url, DEFAULT_CHANNEL)
    }

    /// A bus on the Redis at `url`, on `channel` (instances of different servers sharing
    /// one Redis need different channels).
    pub fn with_channel(url: &str, channel: impl Into<String>) -> Result<Self, BusError> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| BusError { kind: BusErrorKind::NoRuntime, source: None })?;
        let invalid = |source| BusError { kind: BusErrorKind::InvalidUrl, source: Some(source) };
        let info = url.into_connection_info().map_err(invalid)?;
        let settings = info.redis_settings().clone().set_protocol(ProtocolVersion::RESP3);
        let client = redis::Client::open(info.set_redis_settings(settings)).map_err(invalid)?;
        let shared = Arc::new(Shared {
            channel: channel.into(),
            sinks: Mutex::new(Vec::new()),
            dropped: AtomicBool::new(false),
            subscribed: AtomicBool::new(false),
        });
        let pushed = Arc::downgrade(&shared);
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT))
            .set_response_timeout(Some(TIMEOUT))
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_secs(2))
            .set_push_sender(move |push: PushInfo| {
                if let Some(shared) = pushed.upgrade() {
                    shared.received(push);
                }
                Ok::<(), ()>(())
            });
        let connection = {
            let _entered = runtime.enter();
            ConnectionManager::new_lazy_with_config(client, config).map_err(invalid)?
        };
        let (queue, pending) = mpsc::channel(QUEUE);
        let (alive, stopped) = watch::channel(());
        runtime.spawn(publish(connection.clone(), Arc::clone(&shared), pending));
        runtime.spawn(watch_subscription(connection, Arc::downgrade(&shared), stopped));
        Ok(RedisChangeBus { shared, queue, _alive: Arc::new(alive) })
    }
}

impl ChangeBus for RedisChangeBus {
    fn publish(&self, message: BusMessage) {
        if let Err(error) = self.queue.try_send(message) {
            tracing::warn!("change bus queue full: delivering a change to this instance only");
            self.shared.deliver(&error.into_inner());
        }
    }

    fn connect(&self, sink: BusSink) {
        self.shared.sinks.lock().unwrap_or_else(PoisonError::into_inner).push(sink);
    }
}

/// Publish queued messages in order. This instance's own listeners get each message back
/// through the subscription; while there is none (starting, or Redis down) they get it at
/// once, directly. While Redis is down, it is tried again at most once a second, so that
/// queued messages do not each wait for a timeout.
async fn publish(mut connection: ConnectionManager, shared: Arc<Shared>, mut pending: mpsc::Receiver<BusMessage>) {
    let mut down_since: Option<tokio::time::Instant> = None;
    while let Some(message) = pending.recv().await {
        let delivered = !shared.subscribed.load(Ordering::SeqCst);
        if delivered {
            shared.deliver(&message);
        }
        if down_since.is_some_and(|at| at.elapsed() < RETRY_WHILE_DOWN) {
            if !delivered {
                shared.deliver(&message);
            }
            continue;
        }
        let payload = match serde_json::to_vec(&Wire::from_message(message.clone())) {
            Ok(payload) => payload,
            Err(_) => continue,
        };
        let sent = tokio::time::timeout(
            TIMEOUT,
            redis::cmd("PUBLISH").arg(&shared.channel).arg(payload).query_async::<i64>(&mut connection),
        )
        .await;
        match sent {
            Ok(Ok(_)) => down_since = None,
            failed => {
                if down_since.is_none() {
                    let cause = match failed {
                        Ok(Err(e)) => e.to_string(),
                        _ => format!("no answer within {TIMEOUT:?}"),
                    };
                    tracing::warn!(cause, "change bus unavailable: changes reach this instance only until it is back");
                }
                down_since = Some(tokio::time::Instant::now());
                if !delivered {
                    shared.deliver(&message);
                }
            }
        }
    }
}

/// Keep the subscription: check the connection every second, and subscribe again after it
/// was lost, telling the server every list may have changed meanwhile.
async fn watch_subscription(
    mut connection: ConnectionManager,
    shared: std::sync::Weak<Shared>,
    mut stopped: watch::Receiver<()>,
) {
    let mut subscribed = false;
    let mut lost = false;
    let mut ticks = tokio::time::interval(CHECK_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            changed = stopped.changed() => if changed.is_err() { return },
        }
        let Some((channel, dropped)) =
            shared.upgrade().map(|s| (s.channel.clone(), s.dropped.swap(false, Ordering::SeqCst)))
        else {
            return;
        };
        if dropped && subscribed {
            tracing::warn!("change bus connection dropped; subscribing again");
            subscribed = false;
            lost = true;
        }
        let healthy = if subscribed {
            let ping = redis::cmd("PING");
            matches!(tokio::time::timeout(TIMEOUT, ping.query_async::<redis::Value>(&mut connection)).await, Ok(Ok(_)))
        } else {
            matches!(tokio::time::timeout(TIMEOUT, connection.subscribe(&channel)).await, Ok(Ok(())))
        };
        if let Some(shared) = shared.upgrade() {
            shared.subscribed.store(healthy, Ordering::SeqCst);
        }
        match (healthy, subscribed) {
            (true, true) => {}
            (true, false) => {
                subscribed = true;
                if lost {
                    lost = false;
                    tracing::info!("change bus back: subscribed again; listeners re-read what they watch");
                    if let Some(shared) = shared.upgrade() {
                        shared.deliver(&BusMessage::Resync);
                    }
                }
            }
            (false, was_subscribed) => {
                if was_subscribed || !lost {
                    tracing::warn!("change bus subscription lost; retrying every second");
                }
                subscribed = false;
                lost = true;
            }
        }
    }
}
