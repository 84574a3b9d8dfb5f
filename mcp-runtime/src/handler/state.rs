//! Application state: values registered once on the server builder and handed to every
//! item that takes a [`State<T>`] parameter (a database pool, an HTTP client, a store).

use std::any::{Any, TypeId};
use std::collections::HashMap;

/// A value of type `T` registered with [`ServerBuilder::state`](crate::server::ServerBuilder::state),
/// received by a tool, prompt, resource or resolver parameter of type `State<T>`, as axum's
/// `State` extractor does for routes.
///
/// `T` must be `Clone + Send + Sync + 'static`: each call receives its own clone, so keep
/// it cheap to clone and shared (wrap a big or mutable value in an `Arc`, with a `Mutex`
/// inside for what changes). Several types can be registered; each `State<T>` parameter
/// takes the value of its `T`. A server whose items take a `State<T>` that was never
/// registered does not build ([`BuildProblem::MissingState`](crate::items::BuildProblem::MissingState)).
///
/// A `State<T>` parameter is injected: it is never in the tool's input schema, the
/// prompt's arguments or the item's documented arguments. The generated code decides by
/// the type, not the name: a user type that happens to be called `State` is an argument.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use mcp::State;
///
/// /// Counts the calls, shared by every request.
/// #[derive(Clone, Default)]
/// struct Counter {
///     calls: Arc<Mutex<u64>>,
/// }
///
/// /// Count one more call.
/// #[mcp::tool]
/// fn bump(counter: State<Counter>) -> u64 {
///     let mut n = counter.calls.lock().unwrap_or_else(|e| e.into_inner());
///     *n += 1;
///     *n
/// }
///
/// let server = mcp::Server::builder("counter", "1.0.0").state(Counter::default()).tool::<bump>().build();
/// # let _ = server;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct State<T>(pub T);

impl<T> State<T> {
    /// The value itself.
    ///
    /// ```
    /// let name = mcp::State(String::from("tickets"));
    /// assert_eq!(name.into_inner(), "tickets");
    /// ```
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for State<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// The application-state types an item takes, each once, in the order first seen: what
/// [`ToolDef::state_needs`](crate::items::ToolDef::state_needs) and its siblings report so
/// that building the server can name a type that was never registered.
///
/// ```
/// let mut needs = mcp::handler::StateNeeds::default();
/// needs.need::<u32>();
/// needs.need::<u32>();
/// assert_eq!(needs.type_names().collect::<Vec<_>>(), ["u32"]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct StateNeeds {
    types: Vec<(TypeId, &'static str)>,
    /// The item takes resolvers (set by `Graph::state_needs_of`).
    resolvers: bool,
}

impl StateNeeds {
    /// Record that a `State<T>` is taken (once per type).
    ///
    /// ```
    /// let mut needs = mcp::handler::StateNeeds::default();
    /// needs.need::<String>();
    /// needs.need::<u64>();
    /// needs.need::<String>();
    /// assert_eq!(needs.type_names().count(), 2);
    /// ```
    pub fn need<T: 'static>(&mut self) {
        let id = TypeId::of::<T>();
        if !self.types.iter().any(|(seen, _)| *seen == id) {
            self.types.push((id, std::any::type_name::<T>()));
        }
    }

    /// Add every type of `other` (a tool adds what its resolvers take).
    ///
    /// ```
    /// use mcp::handler::StateNeeds;
    ///
    /// let (mut tool, mut resolver) = (StateNeeds::default(), StateNeeds::default());
    /// tool.need::<u32>();
    /// resolver.need::<u32>();
    /// resolver.need::<bool>();
    /// tool.extend(&resolver);
    /// assert_eq!(tool.type_names().collect::<Vec<_>>(), ["u32", "bool"]);
    /// ```
    pub fn extend(&mut self, other: &StateNeeds) {
        for (id, name) in &other.types {
            if !self.types.iter().any(|(seen, _)| seen == id) {
                self.types.push((*id, name));
            }
        }
    }

    /// The types' names (`std::any::type_name`), in the order first seen.
    ///
    /// ```
    /// let mut needs = mcp::handler::StateNeeds::default();
    /// needs.need::<std::sync::Arc<str>>();
    /// assert_eq!(needs.type_names().next(), Some("alloc::sync::Arc<str>"));
    /// ```
    pub fn type_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.types.iter().map(|(_, name)| *name)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (TypeId, &'static str)> + '_ {
        self.types.iter().copied()
    }

    pub(crate) fn has_resolvers(&self) -> bool {
        self.resolvers
    }

    pub(crate) fn mark_resolvers(&mut self) {
        self.resolvers = true;
    }
}

/// The registered values, by type (each stored as its `State<T>`, so a resolver can be
/// lent one).
#[derive(Default)]
pub(crate) struct StateMap {
    values: HashMap<TypeId, Box<dyn Any + Send + Sync>>,
}

impl StateMap {
    /// Register `value`; a second value of the same type replaces the first.
    pub(crate) fn insert<T: Clone + Send + Sync + 'static>(&mut self, value: T) {
        if self.values.insert(TypeId::of::<T>(), Box::new(State(value))).is_some() {
            tracing::debug!(
                state = std::any::type_name::<T>(),
                "application state registered again; the last value wins"
            );
        }
    }

    pub(crate) fn get<T: 'static>(&self) -> Option<&State<T>> {
        self.values.get(&TypeId::of::<T>())?.downcast_ref()
    }

    pub(crate) fn contains(&self, id: TypeId) -> bool {
        self.values.contains_key(&id)
    }
}

impl std::fmt::Debug for StateMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateMap").field("types", &self.values.len()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_value_of_a_type_wins_and_types_are_apart() {
        let mut map = StateMap::default();
        map.insert(1u32);
        map.insert(2u32);
        map.insert(String::from("db"));
        assert_eq!(map.get::<u32>().map(|s| s.0), Some(2));
        assert_eq!(map.get::<String>().map(|s| s.as_str()), Some("db"));
        assert!(map.get::<u64>().is_none());
        assert!(map.contains(TypeId::of::<String>()));
    }
}
