//! The change bus: how one server instance tells the others that something changed, so
//! that every instance's listeners hear of it. A list change made on one instance reaches
//! `subscriptions/listen` streams held by another, and a task changed through one instance
//! (answered, cancelled) wakes its work running on another.
//!
//! Without a bus (the default) changes stay in the process. With several instances behind a
//! load balancer, give each the same bus: `RedisChangeBus` (feature `redis`), or your own
//! [`ChangeBus`].

#[cfg(feature = "redis")]
mod redis;

use std::sync::Arc;

#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use self::redis::{BusError, DEFAULT_CHANNEL, RedisChangeBus};

/// Something a listener may want to hear about.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// The tool list changed.
    Tools,
    /// The prompt list changed.
    Prompts,
    /// The resource list changed.
    Resources,
    /// One resource's contents changed.
    ResourceUpdated(String),
}

/// What travels on a [`ChangeBus`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BusMessage {
    /// A list or a resource changed.
    Change(Change),
    /// The task with this id changed (its status, message, questions or answers): its
    /// listeners and the instance running its work read it again from the task store.
    Task(String),
    /// Messages may have been lost (the bus was cut off and is back): every listener
    /// re-reads what it watches, as if everything had changed.
    Resync,
}

/// Where a [`ChangeBus`] delivers what it receives: called once per message, from any
/// thread, and must not block.
pub type BusSink = Arc<dyn Fn(BusMessage) + Send + Sync>;

/// Carries [`BusMessage`]s between the instances of a server: every message published by
/// any instance reaches the sink of every instance, the publisher's own included.
///
/// Delivery is best effort, as with Redis pub/sub: a message sent while an instance is cut
/// off from the bus is lost to it. Each use copes: task work re-reads the store on a timer,
/// and a bus that reconnects delivers [`BusMessage::Resync`] to its sink.
pub trait ChangeBus: Send + Sync + 'static {
    /// Send `message` to every instance. Must not block: queue it, and if it cannot reach
    /// the others, deliver it to this instance's own sink at least.
    fn publish(&self, message: BusMessage);

    /// Deliver every message from now on to `sink`. A server calls this once, when it is
    /// built.
    fn connect(&self, sink: BusSink);
}
