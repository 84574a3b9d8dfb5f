//! Resolvers: tool parameters that ask the client for something.
//!
//! A resolver is a function marked `#[mcp::resolver]`. It takes tool arguments by name,
//! the [`Context`](crate::Context), and other resolvers' values (`Resolve<other>`), and
//! returns either a plain value or one question: [`Elicit<T>`], [`Sample`] or
//! [`ListRoots`]. A tool parameter `x: Resolve<my_resolver>` receives the answer.
//!
//! ```
//! use mcp::resolve::{Answer, Elicit, Refusable};
//! use mcp::Resolve;
//!
//! #[derive(serde::Deserialize, mcp::ElicitForm)]
//! struct Region {
//!     /// Cloud region, e.g. eu-west-1.
//!     region: String,
//! }
//!
//! #[derive(serde::Deserialize, mcp::ElicitForm)]
//! struct Confirm {
//!     ok: bool,
//! }
//!
//! /// Which region the database goes to.
//! #[mcp::resolver]
//! fn ask_region(name: &str) -> Elicit<Region> {
//!     Elicit::new(format!("Which region should {name} live in?"))
//! }
//!
//! /// Only big databases need a confirmation.
//! #[mcp::resolver]
//! fn confirm(size_gb: u32, region: Resolve<ask_region>) -> Elicit<Confirm> {
//!     if size_gb < 100 {
//!         return Elicit::answered(Confirm { ok: true });
//!     }
//!     Elicit::new(format!("Provision {size_gb} GB in {}: sure?", region.region))
//! }
//!
//! /// Provision a database.
//! #[mcp::tool]
//! async fn provision(
//!     name: String,
//!     size_gb: u32,
//!     region: Resolve<ask_region>,
//!     confirm: Resolve<confirm, Refusable>,
//! ) -> Result<String, String> {
//!     match &*confirm {
//!         Answer::Accept(c) if c.ok => Ok(format!("Provisioned '{name}' ({size_gb} GB) in {}.", region.region)),
//!         _ => Err("Not confirmed.".to_owned()),
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! Under 2026-07-28 the tool's first call answers with an `InputRequiredResult` holding
//! every question that can be asked now (here the region); the client retries with the
//! answers and the sealed `requestState`, and questions that need earlier answers (here the
//! confirmation) go out in the next round. Each question is asked once per call; resolver
//! bodies run again on every round, so they must build their questions deterministically.
//! In a 2025-11-25 session the same resolvers send `elicitation/create`,
//! `sampling/createMessage` and `roots/list` requests and wait for the answers.

mod answer;
mod ask;
#[cfg(feature = "macros")]
pub(crate) mod cycle;
mod entries;
pub(crate) mod form;
mod question;
mod round;
mod state;

use std::marker::PhantomData;
use std::sync::Arc;

pub use answer::Answer;
pub use ask::ask;
pub use form::{ElicitChoice, ElicitField, ElicitForm};
pub use question::{Elicit, ListRoots, Question, QuestionKind, Rendered, Sample};

#[doc(hidden)]
pub use round::{FromRound, Graph, Plan, ResolveWith, Round, RoundFuture, Stop, Visit};
#[doc(hidden)]
pub use state::question_digest;

/// A resolver declared with `#[mcp::resolver]` (implemented by the macro on the
/// resolver's companion type).
///
/// # Examples
///
/// ```
/// use mcp::resolve::{Elicit, Resolver};
/// use mcp::Resolve;
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// struct Region {
///     region: String,
/// }
///
/// #[mcp::resolver(key = "region")]
/// fn ask_region() -> Elicit<Region> {
///     Elicit::new("Which region?")
/// }
///
/// /// A plain value, computed from another resolver's.
/// #[mcp::resolver(key = "zone")]
/// fn zone(region: Resolve<ask_region>) -> String {
///     format!("{}-a", region.region)
/// }
///
/// fn value_is<R: Resolver<Value = V>, V>() {}
/// value_is::<ask_region, Region>();
/// value_is::<zone, String>();
/// assert_eq!(<ask_region as Resolver>::KEY, "region");
/// assert_eq!((<ask_region as Resolver>::DEPTH, <zone as Resolver>::DEPTH), (1, 2));
/// ```
pub trait Resolver: Send + Sync + 'static {
    /// The value a `Resolve<Self>` parameter receives.
    type Value: Send + Sync + 'static;
    /// The resolver's base wire key: its module path and name, or `key = "..."`.
    const KEY: &'static str;
    /// One more than the longest chain of resolvers below it, counted up to 12 levels (a
    /// cycle fails to compile, naming the resolvers in it).
    const DEPTH: usize;
    /// Add this resolver and its dependencies to a tool's plan, in discovery order.
    fn collect(graph: &mut Graph);
}

/// Marker for `Resolve<R, Value>` (the default): the resolved value itself. A declined or
/// cancelled question ends the call with an `isError` result naming the parameter.
///
/// # Examples
///
/// ```
/// use mcp::client::Client;
/// use mcp::protocol::ElicitResult;
/// use mcp::resolve::Elicit;
/// use mcp::{Resolve, Server};
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// struct Region {
///     region: String,
/// }
///
/// #[mcp::resolver]
/// fn ask_region() -> Elicit<Region> {
///     Elicit::new("Which region?")
/// }
///
/// /// Provision a database. (`Resolve<ask_region>` is `Resolve<ask_region, Value>`.)
/// #[mcp::tool]
/// fn provision(region: Resolve<ask_region>) -> String {
///     format!("Provisioned in {}.", region.region)
/// }
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() -> Result<(), mcp::client::ClientError> {
///     let server = Server::builder("db", "1.0.0").tool::<provision>().build();
///     let client = Client::builder()
///         .elicitation(|_asker, _params| async { Ok(ElicitResult::cancel()) })
///         .connect_in_process(&server)
///         .await?;
///     let result = client.call_tool("provision", serde_json::json!({})).await?;
///     assert_eq!(result.is_error, Some(true));
///     assert!(result.content[0].as_text().unwrap().contains("parameter 'region'"));
///     Ok(())
/// }
/// ```
#[derive(Debug, Clone, Copy)]
pub enum Value {}

/// Marker for `Resolve<R, Refusable>`: the [`Answer`] (accept, decline or cancel), for a
/// consumer that handles a refusal itself. (With the default [`Value`], a declined or
/// cancelled question ends the call instead.)
///
/// # Examples
///
/// ```
/// use mcp::client::Client;
/// use mcp::protocol::ElicitResult;
/// use mcp::resolve::{Elicit, Refusable};
/// use mcp::{Resolve, Server};
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// struct Region {
///     region: String,
/// }
///
/// #[mcp::resolver]
/// fn ask_region() -> Elicit<Region> {
///     Elicit::new("Which region?")
/// }
///
/// /// Provision a database, in a default region if the user will not say.
/// #[mcp::tool]
/// fn provision(region: Resolve<ask_region, Refusable>) -> String {
///     let region = region.accepted().map_or("us-east-1", |r| r.region.as_str());
///     format!("Provisioned in {region}.")
/// }
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() -> Result<(), mcp::client::ClientError> {
///     let server = Server::builder("db", "1.0.0").tool::<provision>().build();
///     let client = Client::builder()
///         .elicitation(|_asker, _params| async { Ok(ElicitResult::decline()) })
///         .connect_in_process(&server)
///         .await?;
///     let result = client.call_tool("provision", serde_json::json!({})).await?;
///     assert_eq!(result.is_error, None);
///     assert_eq!(result.content[0].as_text(), Some("Provisioned in us-east-1."));
///     Ok(())
/// }
/// ```
#[derive(Debug, Clone, Copy)]
pub enum Refusable {}

/// What a consumer wants from a resolver: [`Value`] or [`Refusable`].
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
///
/// use mcp::resolve::{Answer, Refusable, Value, Want};
///
/// assert_eq!(Value::take(Answer::Accept(Arc::new(7))).as_deref(), Some(&7));
/// assert!(Value::take::<i32>(Answer::Decline).is_none(), "a refusal ends the call");
/// assert_eq!(Refusable::take::<i32>(Answer::Cancel), Some(Answer::Cancel));
/// ```
pub trait Want: Send + Sync + 'static {
    /// What the parameter holds for a resolver value `T`.
    type Hold<T: Send + Sync + 'static>: Send + Sync;
    /// Take the answer, or `None` when it was refused and the consumer wants the value.
    fn take<T: Send + Sync + 'static>(answer: Answer<Arc<T>>) -> Option<Self::Hold<T>>;
}

impl Want for Value {
    type Hold<T: Send + Sync + 'static> = Arc<T>;

    fn take<T: Send + Sync + 'static>(answer: Answer<Arc<T>>) -> Option<Arc<T>> {
        match answer {
            Answer::Accept(value) => Some(value),
            Answer::Decline | Answer::Cancel => None,
        }
    }
}

impl Want for Refusable {
    type Hold<T: Send + Sync + 'static> = Answer<Arc<T>>;

    fn take<T: Send + Sync + 'static>(answer: Answer<Arc<T>>) -> Option<Answer<Arc<T>>> {
        Some(answer)
    }
}

/// A parameter filled by the resolver `R` rather than by the client's arguments. It is not
/// part of the tool's input schema; a client-supplied value under its name is ignored.
///
/// `Resolve<R>` dereferences to `R`'s value; `Resolve<R, Refusable>` dereferences to the
/// [`Answer`]. A value shared by several consumers is computed once per round and shared
/// (hence the `Arc`).
///
/// # Examples
///
/// A resolver takes the tool's arguments by name; the tool reads its value through `Deref`:
///
/// ```
/// use mcp::client::Client;
/// use mcp::{Resolve, Server};
///
/// #[mcp::resolver]
/// fn slug(name: &str) -> String {
///     name.to_lowercase().replace(' ', "-")
/// }
///
/// /// Create a page.
/// #[mcp::tool]
/// fn create_page(name: String, slug: Resolve<slug>) -> String {
///     format!("{name} is at /{}", slug.as_str())
/// }
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() -> Result<(), mcp::client::ClientError> {
///     let server = Server::builder("wiki", "1.0.0").tool::<create_page>().build();
///     let client = Client::builder().connect_in_process(&server).await?;
///     let tools = client.list_tools().await?;
///     let arguments = &tools[0].input_schema["properties"];
///     assert!(arguments.get("name").is_some() && arguments.get("slug").is_none());
///     let result = client.call_tool("create_page", serde_json::json!({"name": "Release Notes"})).await?;
///     assert_eq!(result.content[0].as_text(), Some("Release Notes is at /release-notes"));
///     Ok(())
/// }
/// ```
pub struct Resolve<R: Resolver, W: Want = Value> {
    held: W::Hold<R::Value>,
    _resolver: PhantomData<fn() -> R>,
}

impl<R: Resolver, W: Want> Resolve<R, W> {
    pub(crate) fn new(held: W::Hold<R::Value>) -> Self {
        Resolve { held, _resolver: PhantomData }
    }
}

impl<R: Resolver> Resolve<R, Value> {
    /// The value, cloned out if another consumer still shares it.
    ///
    /// # Examples
    ///
    /// ```
    /// # use mcp::{Resolve, Server};
    /// #[mcp::resolver]
    /// fn tag_list(tags: &str) -> Vec<String> {
    ///     tags.split(',').map(str::to_owned).collect()
    /// }
    ///
    /// /// Tag a page.
    /// #[mcp::tool]
    /// fn tag(page: String, tags: String, list: Resolve<tag_list>) -> String {
    ///     let mut list: Vec<String> = list.into_inner();
    ///     list.sort();
    ///     format!("{page}: {} (given as {tags})", list.join(" "))
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), mcp::client::ClientError> {
    /// # let server = Server::builder("wiki", "1.0.0").tool::<tag>().build();
    /// # let client = mcp::client::Client::builder().connect_in_process(&server).await?;
    /// let result = client.call_tool("tag", serde_json::json!({"page": "home", "tags": "b,c,a"})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("home: a b c (given as b,c,a)"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn into_inner(self) -> R::Value
    where
        R::Value: Clone,
    {
        Arc::unwrap_or_clone(self.held)
    }

    /// The shared value.
    ///
    /// # Examples
    ///
    /// Keep the value without cloning it, even while other consumers share it:
    ///
    /// ```
    /// # use mcp::{Resolve, Server};
    /// use std::sync::Arc;
    ///
    /// #[mcp::resolver]
    /// fn upper(name: &str) -> String {
    ///     name.to_uppercase()
    /// }
    ///
    /// #[mcp::resolver]
    /// fn shout(upper: Resolve<upper>) -> String {
    ///     format!("{}!", upper.as_str())
    /// }
    ///
    /// /// Greet loudly.
    /// #[mcp::tool]
    /// fn greet(name: String, upper: Resolve<upper>, shout: Resolve<shout>) -> String {
    ///     let upper: Arc<String> = upper.into_arc();
    ///     format!("{name} -> {upper} {}", shout.as_str())
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), mcp::client::ClientError> {
    /// # let server = Server::builder("hello", "1.0.0").tool::<greet>().build();
    /// # let client = mcp::client::Client::builder().connect_in_process(&server).await?;
    /// let result = client.call_tool("greet", serde_json::json!({"name": "ada"})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("ada -> ADA ADA!"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn into_arc(self) -> Arc<R::Value> {
        self.held
    }
}

impl<R: Resolver> Resolve<R, Refusable> {
    /// The answer.
    ///
    /// # Examples
    ///
    /// ```
    /// # use mcp::client::Client;
    /// # use mcp::protocol::ElicitResult;
    /// use mcp::resolve::{Answer, Elicit, Refusable};
    /// # use mcp::{Resolve, Server};
    /// # #[derive(serde::Deserialize, mcp::ElicitForm)]
    /// # struct Confirm {
    /// #     ok: bool,
    /// # }
    /// #[mcp::resolver]
    /// fn ask_go() -> Elicit<Confirm> {
    ///     Elicit::new("Go ahead?")
    /// }
    ///
    /// /// Go, if the user agrees.
    /// #[mcp::tool]
    /// fn go(go: Resolve<ask_go, Refusable>) -> String {
    ///     match go.into_answer() {
    ///         Answer::Accept(confirm) => format!("ok={}", confirm.ok),
    ///         refused => format!("{}d", refused.action()),
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), mcp::client::ClientError> {
    /// # let server = Server::builder("go", "1.0.0").tool::<go>().build();
    /// # let client = Client::builder()
    /// #     .elicitation(|_asker, _params| async { Ok(ElicitResult::decline()) })
    /// #     .connect_in_process(&server)
    /// #     .await?;
    /// let result = client.call_tool("go", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("declined"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn into_answer(self) -> Answer<Arc<R::Value>> {
        self.held
    }
}

impl<R: Resolver> std::ops::Deref for Resolve<R, Value> {
    type Target = R::Value;

    fn deref(&self) -> &R::Value {
        &self.held
    }
}

impl<R: Resolver> std::ops::Deref for Resolve<R, Refusable> {
    type Target = Answer<Arc<R::Value>>;

    fn deref(&self) -> &Answer<Arc<R::Value>> {
        &self.held
    }
}

impl<R: Resolver, W: Want> std::fmt::Debug for Resolve<R, W>
where
    W::Hold<R::Value>: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Resolve").field(&self.held).finish()
    }
}
