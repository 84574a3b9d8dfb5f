//! Change events (the tool, prompt or resource set changed, or one resource did) and the
//! [`ServerHandle`] that announces them. `subscriptions/listen` streams (2026-07-28) and
//! legacy GET streams fan them out.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use tokio::sync::broadcast;

pub use crate::bus::Change;
use crate::bus::{BusMessage, ChangeBus};

/// How many changes a slow listener may lag behind before it misses some.
const CHANGE_BUFFER: usize = 256;

/// Switches registered items on and off (the item router implements it).
pub(crate) trait ItemSwitch: Send + Sync + 'static {
    /// Take a tool out of service or put it back; false when nothing changed.
    fn set_tool_enabled(&self, name: &str, enabled: bool) -> bool;
    /// Take a prompt out of service or put it back; false when nothing changed.
    fn set_prompt_enabled(&self, name: &str, enabled: bool) -> bool;
    /// The item router itself, for the methods it adds to [`ServerHandle`] (run-time tools).
    fn as_any(&self) -> &(dyn std::any::Any + Send + Sync);
}

/// What a handler can do to the server it runs in: announce list and resource changes,
/// and switch `#[mcp::tool]`/`#[mcp::prompt]` items on and off. Cheap to clone;
/// [`RequestContext::server`](super::RequestContext::server) hands it to handlers and
/// [`Server`](crate::Server) exposes the same methods.
#[derive(Clone)]
pub struct ServerHandle {
    inner: Arc<HandleInner>,
}

struct HandleInner {
    changes: broadcast::Sender<Change>,
    tools_generation: AtomicU64,
    items: OnceLock<Arc<dyn ItemSwitch>>,
    /// Application state (`State<T>`), set once when the server is built.
    state: OnceLock<super::StateMap>,
    /// The server's tasks, when it runs any.
    tasks: OnceLock<Arc<crate::tasks::TaskManager>>,
    /// The bus shared with other instances, when there is one.
    bus: OnceLock<Arc<dyn ChangeBus>>,
}

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerHandle").finish_non_exhaustive()
    }
}

impl Default for ServerHandle {
    fn default() -> Self {
        ServerHandle::new()
    }
}

impl ServerHandle {
    /// A handle with its own change channel and no items.
    pub(crate) fn new() -> Self {
        ServerHandle {
            inner: Arc::new(HandleInner {
                changes: broadcast::channel(CHANGE_BUFFER).0,
                tools_generation: AtomicU64::new(0),
                items: OnceLock::new(),
                state: OnceLock::new(),
                tasks: OnceLock::new(),
                bus: OnceLock::new(),
            }),
        }
    }

    /// Attach the items this handle switches (once, when the server is built).
    pub(crate) fn attach_items(&self, items: Arc<dyn ItemSwitch>) {
        let _ = self.inner.items.set(items);
    }

    /// Attach the application state (once, when the server is built).
    pub(crate) fn attach_state(&self, state: super::StateMap) {
        let _ = self.inner.state.set(state);
    }

    /// Attach the server's tasks (once, when the server is built).
    pub(crate) fn attach_tasks(&self, tasks: Arc<crate::tasks::TaskManager>) {
        let _ = self.inner.tasks.set(tasks);
    }

    /// Share changes with other instances through `bus` (once, when the server is built):
    /// changes are published on it, and what it delivers reaches this server's listeners
    /// and tasks.
    pub(crate) fn attach_bus(&self, bus: Arc<dyn ChangeBus>) {
        let inner = Arc::downgrade(&self.inner);
        bus.connect(Arc::new(move |message| {
            let Some(inner) = inner.upgrade() else { return };
            match message {
                BusMessage::Change(change) => {
                    let _ = inner.changes.send(change);
                }
                BusMessage::Task(id) => {
                    if let Some(tasks) = inner.tasks.get() {
                        tasks.changed_elsewhere(&id);
                    }
                }
                BusMessage::Resync => {
                    for change in [Change::Tools, Change::Prompts, Change::Resources] {
                        let _ = inner.changes.send(change);
                    }
                    if let Some(tasks) = inner.tasks.get() {
                        tasks.resync();
                    }
                }
            }
        }));
        if let Some(tasks) = self.inner.tasks.get() {
            tasks.attach_bus(Arc::clone(&bus));
        }
        let _ = self.inner.bus.set(bus);
    }

    /// Announce `change`: on the bus when there is one (which brings it back to this
    /// server's listeners too), else to this server's listeners.
    fn announce(&self, change: Change) {
        match self.inner.bus.get() {
            Some(bus) => bus.publish(BusMessage::Change(change)),
            None => {
                let _ = self.inner.changes.send(change);
            }
        }
    }

    /// The server's tasks, when it runs any.
    pub(crate) fn tasks(&self) -> Option<&Arc<crate::tasks::TaskManager>> {
        self.inner.tasks.get()
    }

    /// The registered value of type `T`, as its `State<T>`.
    pub(crate) fn state<T: 'static>(&self) -> Option<&super::State<T>> {
        self.inner.state.get()?.get::<T>()
    }

    /// Tell listeners (`subscriptions/listen`, legacy GET streams) that the tool list changed.
    pub fn notify_tools_list_changed(&self) {
        self.inner.tools_generation.fetch_add(1, Ordering::SeqCst);
        self.announce(Change::Tools);
    }

    /// Tell listeners that the prompt list changed.
    pub fn notify_prompts_list_changed(&self) {
        self.announce(Change::Prompts);
    }

    /// Tell listeners that the resource list changed.
    pub fn notify_resources_list_changed(&self) {
        self.announce(Change::Resources);
    }

    /// Tell listeners subscribed to `uri` that its contents changed.
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.announce(Change::ResourceUpdated(uri.into()));
    }

    /// Take a `#[mcp::tool]` or a run-time tool out of `tools/list` and `tools/call` (or put
    /// it back), and tell listeners the list changed. Returns false when no such tool is
    /// registered or nothing changed.
    pub fn set_tool_enabled(&self, name: &str, enabled: bool) -> bool {
        let changed = self.inner.items.get().is_some_and(|items| items.set_tool_enabled(name, enabled));
        if changed {
            self.notify_tools_list_changed();
        }
        changed
    }

    /// Take a `#[mcp::prompt]` out of service (or put it back), and tell listeners.
    /// Returns false when nothing changed.
    pub fn set_prompt_enabled(&self, name: &str, enabled: bool) -> bool {
        let changed = self.inner.items.get().is_some_and(|items| items.set_prompt_enabled(name, enabled));
        if changed {
            self.notify_prompts_list_changed();
        }
        changed
    }

    /// The item router, when the server has one.
    pub(crate) fn items(&self) -> Option<&Arc<dyn ItemSwitch>> {
        self.inner.items.get()
    }

    /// Receive every change announced from now on.
    pub fn subscribe_changes(&self) -> broadcast::Receiver<Change> {
        self.inner.changes.subscribe()
    }

    /// A counter bumped whenever the tool list changes (caches of tool schemas key on it).
    pub fn tools_generation(&self) -> u64 {
        self.inner.tools_generation.load(Ordering::SeqCst)
    }
}
