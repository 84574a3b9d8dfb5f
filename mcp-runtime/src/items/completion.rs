//! Completing a prompt's arguments and a resource template's variables
//! (`completion/complete`): the functions `#[mcp(complete = ...)]` names, what they may
//! return, and the table the item router serves them from.
//!
//! A completer is an ordinary function that takes what the client has typed so far and
//! returns the candidates:
//!
//! ```
//! use mcp::items::completion::CompletionArguments;
//!
//! /// Languages starting with what was typed.
//! fn languages(typed: &str) -> Vec<&'static str> {
//!     ["python", "rust", "typescript"].into_iter().filter(|l| l.starts_with(typed)).collect()
//! }
//!
//! /// Frameworks of the language chosen already (`context.arguments`).
//! async fn frameworks(typed: String, filled: CompletionArguments) -> Vec<String> {
//!     let known: &[&str] = match filled.get("language") {
//!         Some("rust") => &["axum", "actix-web"],
//!         Some("python") => &["django", "flask"],
//!         _ => &[],
//!     };
//!     known.iter().filter(|f| f.starts_with(&typed)).map(|f| (*f).to_owned()).collect()
//! }
//!
//! /// Start a project.
//! #[mcp::prompt]
//! fn start(
//!     #[mcp(complete = languages)] language: String,
//!     #[mcp(complete = frameworks)] framework: String,
//! ) -> String {
//!     format!("Start a {language} project with {framework}.")
//! }
//!
//! let server = mcp::Server::builder("s", "1.0.0").prompt::<start>().build();
//! assert!(server.capabilities().completions.is_some());
//! ```
//!
//! The accepted shapes (see [`Completer`]): `fn(&str)` or `fn(String)`, optionally followed
//! by a [`Context`] and/or [`CompletionArguments`] (in either order), sync or `async`
//! (an async completer takes the value as a `String`). It returns `Vec<String>`,
//! `Vec<&str>`, a [`Completion`] (to set `total` and `hasMore`), a [`CompleteResult`], or a
//! `Result` of one of these whose error converts into [`mcp::Error`](crate::Error).
//!
//! The framework does not filter: the completer decides which values match. At most
//! [`MAX_COMPLETION_VALUES`] are sent; longer lists are cut and marked `hasMore` (with
//! `total` set to the full count unless the completer set it).

use std::collections::{BTreeMap, HashMap};
use std::future::Future;

use crate::Error;
use crate::handler::{BoxFuture, Context};
use crate::protocol::{CompleteResult, Completion};

/// The most values one `completion/complete` result carries (the spec's limit).
pub const MAX_COMPLETION_VALUES: usize = 100;

/// One argument's completer, as the item router calls it: the request's context, the
/// value typed so far, and the other arguments the client has filled in.
///
/// `#[mcp(complete = ...)]` generates these; a hand-written
/// [`PromptDef::completer`](super::PromptDef::completer) or
/// [`ResourceDef::completer`](super::ResourceDef::completer) returns one per argument.
///
/// ```
/// use mcp::handler::BoxFuture;
/// use mcp::items::PromptDef;
/// use mcp::items::completion::CompleteFn;
/// use mcp::protocol::{Completion, GetPromptOutcome, GetPromptParams, GetPromptResult, Prompt, PromptArgument, PromptMessage};
/// use mcp::{Context, Error};
///
/// /// A prompt written by hand whose `colour` argument completes.
/// struct Paint;
///
/// impl PromptDef for Paint {
///     const NAME: &'static str = "paint";
///     fn definition() -> Prompt {
///         Prompt::new("paint").with_arguments(vec![PromptArgument::new("colour")])
///     }
///     fn get(_ctx: Context, params: GetPromptParams) -> BoxFuture<Result<GetPromptOutcome, Error>> {
///         let colour = params.arguments.unwrap_or_default().remove("colour").unwrap_or_default();
///         Box::pin(async move { Ok(GetPromptResult::new(vec![PromptMessage::user(format!("Paint it {colour}."))]).into()) })
///     }
///     fn completer(argument: &str) -> Option<CompleteFn> {
///         let colours: CompleteFn = |_ctx, typed, _filled| {
///             let values = ["red", "blue"].into_iter().filter(|c| c.starts_with(&typed)).map(str::to_owned).collect();
///             Box::pin(async move { Ok(Completion { values, ..Default::default() }) })
///         };
///         (argument == "colour").then_some(colours)
///     }
/// }
///
/// let server = mcp::Server::builder("s", "1.0.0").prompt::<Paint>().build();
/// assert!(server.capabilities().completions.is_some());
/// ```
pub type CompleteFn = fn(Context, String, CompletionArguments) -> BoxFuture<Result<Completion, Error>>;

/// The arguments the client has already filled in (`context.arguments` of
/// `completion/complete`), by name. A completer takes them to narrow its values.
///
/// ```
/// use mcp::items::completion::CompletionArguments;
///
/// let filled = CompletionArguments::from_iter([("language".to_owned(), "rust".to_owned())]);
/// assert_eq!(filled.get("language"), Some("rust"));
/// assert_eq!(filled.get("framework"), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompletionArguments(BTreeMap<String, String>);

impl CompletionArguments {
    /// The value of the argument `name`, if the client sent it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Every filled-in argument, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Whether the client sent none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The arguments as a map.
    pub fn into_inner(self) -> BTreeMap<String, String> {
        self.0
    }
}

impl From<BTreeMap<String, String>> for CompletionArguments {
    fn from(map: BTreeMap<String, String>) -> Self {
        CompletionArguments(map)
    }
}

impl FromIterator<(String, String)> for CompletionArguments {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        CompletionArguments(iter.into_iter().collect())
    }
}

/// What a completer may return.
///
/// ```
/// use mcp::items::completion::IntoCompletion;
/// use mcp::protocol::Completion;
///
/// let some = vec!["rust".to_owned()].into_completion()?;
/// assert_eq!(some.values, ["rust"]);
/// let counted = Completion { values: vec!["a".into()], total: Some(40), has_more: Some(true) };
/// assert_eq!(counted.clone().into_completion()?, counted);
/// # Ok::<(), mcp::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a completer",
    label = "this return type",
    note = "return `Vec<String>`, `Vec<&str>`, `mcp::protocol::Completion` (to set `total`/`hasMore`), `CompleteResult`, or a `Result` of one whose error converts into `mcp::Error`"
)]
pub trait IntoCompletion {
    /// The conversion.
    fn into_completion(self) -> Result<Completion, Error>;
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Result<Completion, Error> {
        Ok(Completion { values: self, ..Default::default() })
    }
}

impl IntoCompletion for Vec<&str> {
    fn into_completion(self) -> Result<Completion, Error> {
        Ok(Completion { values: self.into_iter().map(str::to_owned).collect(), ..Default::default() })
    }
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Result<Completion, Error> {
        Ok(self)
    }
}

impl IntoCompletion for CompleteResult {
    fn into_completion(self) -> Result<Completion, Error> {
        Ok(self.completion)
    }
}

impl<T: IntoCompletion, E: Into<Error>> IntoCompletion for Result<T, E> {
    fn into_completion(self) -> Result<Completion, Error> {
        self.map_err(Into::into)?.into_completion()
    }
}

/// A parameter a completer may take after the value: [`Context`] or [`CompletionArguments`].
pub trait CompletionInput: Sized {
    /// Take it from the request.
    fn take(ctx: &Context, arguments: &CompletionArguments) -> Self;
}

impl CompletionInput for Context {
    fn take(ctx: &Context, _: &CompletionArguments) -> Self {
        ctx.clone()
    }
}

impl CompletionInput for CompletionArguments {
    fn take(_: &Context, arguments: &CompletionArguments) -> Self {
        arguments.clone()
    }
}

/// How a completer is called; which shape it has is inferred from its signature.
#[doc(hidden)]
pub mod shape {
    use std::marker::PhantomData;

    /// `fn(&str, ..) -> R`.
    pub struct Borrowed<T>(PhantomData<T>);
    /// `fn(String, ..) -> R`.
    pub struct Owned<T>(PhantomData<T>);
    /// `async fn(String, ..) -> R`.
    pub struct Async<T>(PhantomData<T>);
}

/// A function that completes an argument: what `#[mcp(complete = ...)]` names.
///
/// Implemented for functions (and closures) that take the value typed so far (`&str` or
/// `String`), optionally followed by a [`Context`] and/or [`CompletionArguments`], and
/// return an [`IntoCompletion`] value, or, for an `async fn` taking a `String`, a future
/// of one. `M` says which of these shapes it is; it is always inferred.
///
/// ```
/// use mcp::Context;
/// use mcp::items::completion::{Completer, CompletionArguments};
///
/// fn accepts<M>(_: impl Completer<M>) {}
///
/// fn plain(typed: &str) -> Vec<String> { vec![typed.to_owned()] }
/// fn owned(typed: String) -> Vec<String> { vec![typed] }
/// async fn lookup(typed: String, _ctx: Context) -> Result<Vec<String>, mcp::Error> { Ok(vec![typed]) }
/// fn narrowed(typed: &str, filled: CompletionArguments) -> Vec<String> {
///     filled.get("team").map(|t| vec![format!("{t}/{typed}")]).unwrap_or_default()
/// }
///
/// accepts(plain);
/// accepts(owned);
/// accepts(lookup);
/// accepts(narrowed);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot complete an argument",
    label = "not a completer",
    note = "a completer is `fn(&str) -> Vec<String>` or `async fn(String) -> Vec<String>`, optionally also taking `mcp::Context` and/or `mcp::items::completion::CompletionArguments` after the value; it returns `Vec<String>`, `Vec<&str>`, `mcp::protocol::Completion`, or a `Result` of one"
)]
pub trait Completer<M>: Send + Sync + 'static {
    /// Complete `value`.
    fn complete(
        &self,
        ctx: Context,
        value: String,
        arguments: CompletionArguments,
    ) -> BoxFuture<Result<Completion, Error>>;
}

macro_rules! completer_impls {
    ($($input:ident),*) => {
        impl<F, R, $($input),*> Completer<shape::Borrowed<($($input,)*)>> for F
        where
            F: Fn(&str $(, $input)*) -> R + Send + Sync + 'static,
            R: IntoCompletion,
            $($input: CompletionInput,)*
        {
            #[allow(unused_variables)]
            fn complete(&self, ctx: Context, value: String, arguments: CompletionArguments)
                -> BoxFuture<Result<Completion, Error>>
            {
                let result = self(&value $(, $input::take(&ctx, &arguments))*).into_completion();
                Box::pin(std::future::ready(result))
            }
        }

        impl<F, R, $($input),*> Completer<shape::Owned<($($input,)*)>> for F
        where
            F: Fn(String $(, $input)*) -> R + Send + Sync + 'static,
            R: IntoCompletion,
            $($input: CompletionInput,)*
        {
            #[allow(unused_variables)]
            fn complete(&self, ctx: Context, value: String, arguments: CompletionArguments)
                -> BoxFuture<Result<Completion, Error>>
            {
                let result = self(value $(, $input::take(&ctx, &arguments))*).into_completion();
                Box::pin(std::future::ready(result))
            }
        }

        impl<F, Fut, $($input),*> Completer<shape::Async<($($input,)*)>> for F
        where
            F: Fn(String $(, $input)*) -> Fut + Send + Sync + 'static,
            Fut: Future + Send + 'static,
            Fut::Output: IntoCompletion,
            $($input: CompletionInput,)*
        {
            #[allow(unused_variables)]
            fn complete(&self, ctx: Context, value: String, arguments: CompletionArguments)
                -> BoxFuture<Result<Completion, Error>>
            {
                let future = self(value $(, $input::take(&ctx, &arguments))*);
                Box::pin(async move { future.await.into_completion() })
            }
        }
    };
}

completer_impls!();
completer_impls!(A);
completer_impls!(A, B);

/// Run `completer` (what the code `#[mcp(complete = ...)]` generates calls).
#[doc(hidden)]
pub fn run<M, C: Completer<M>>(
    completer: C,
    ctx: Context,
    value: String,
    arguments: CompletionArguments,
) -> BoxFuture<Result<Completion, Error>> {
    completer.complete(ctx, value, arguments)
}

/// Keep at most [`MAX_COMPLETION_VALUES`], marking a cut list `hasMore` and counting it.
pub(crate) fn capped(mut completion: Completion) -> Completion {
    let count = completion.values.len();
    if count > MAX_COMPLETION_VALUES {
        completion.values.truncate(MAX_COMPLETION_VALUES);
        completion.has_more = Some(true);
        completion.total.get_or_insert(count as u64);
    }
    completion
}

/// The completers of registered items: per prompt name or template URI, per argument.
#[derive(Default)]
pub(crate) struct Completers {
    prompts: HashMap<String, HashMap<String, CompleteFn>>,
    templates: HashMap<String, HashMap<String, CompleteFn>>,
}

impl Completers {
    /// Record the completers `completer` has for `arguments` of the prompt `name`.
    pub(crate) fn add_prompt<'a>(
        &mut self,
        name: &str,
        arguments: impl Iterator<Item = &'a str>,
        completer: fn(&str) -> Option<CompleteFn>,
    ) {
        let found = collect(arguments, completer);
        if !found.is_empty() {
            self.prompts.insert(name.to_owned(), found);
        }
    }

    /// Record the completers `completer` has for `variables` of the template `uri`.
    pub(crate) fn add_template<'a>(
        &mut self,
        uri: &str,
        variables: impl Iterator<Item = &'a str>,
        completer: fn(&str) -> Option<CompleteFn>,
    ) {
        let found = collect(variables, completer);
        if !found.is_empty() {
            self.templates.insert(uri.to_owned(), found);
        }
    }

    /// Whether any item has a completer.
    pub(crate) fn any(&self) -> bool {
        !self.prompts.is_empty() || !self.templates.is_empty()
    }

    pub(crate) fn for_prompt(&self, name: &str, argument: &str) -> Option<CompleteFn> {
        self.prompts.get(name)?.get(argument).copied()
    }

    pub(crate) fn for_template(&self, uri: &str, variable: &str) -> Option<CompleteFn> {
        self.templates.get(uri)?.get(variable).copied()
    }
}

fn collect<'a>(
    names: impl Iterator<Item = &'a str>,
    completer: fn(&str) -> Option<CompleteFn>,
) -> HashMap<String, CompleteFn> {
    names.filter_map(|name| completer(name).map(|f| (name.to_owned(), f))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lists_are_cut_to_the_limit_and_counted() {
        let values: Vec<String> = (0..250).map(|i| i.to_string()).collect();
        let cut = capped(Completion { values, ..Default::default() });
        assert_eq!(cut.values.len(), MAX_COMPLETION_VALUES);
        assert_eq!((cut.total, cut.has_more), (Some(250), Some(true)));
        let own_total = capped(Completion { values: vec!["x".into(); 101], total: Some(5000), has_more: None });
        assert_eq!((own_total.total, own_total.has_more), (Some(5000), Some(true)));
        let short = capped(Completion { values: vec!["x".into(); 100], ..Default::default() });
        assert_eq!((short.values.len(), short.total, short.has_more), (100, None, None));
    }
}
