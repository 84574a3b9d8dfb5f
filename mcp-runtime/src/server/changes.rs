//! Change events: the tool, prompt or resource set changed, or one resource did.
//! `subscriptions/listen` streams (2026-07-28) and legacy GET streams fan them out.

use tokio::sync::broadcast;

/// Something a listener may want to hear about.
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// How many changes a slow listener may lag behind before it misses some.
const CHANGE_BUFFER: usize = 256;

pub(crate) fn channel() -> broadcast::Sender<Change> {
    broadcast::channel(CHANGE_BUFFER).0
}
