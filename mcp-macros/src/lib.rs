//! Procedural macros for the `mcp` crate: the attribute macros `#[mcp::tool]`,
//! `#[mcp::prompt]`, `#[mcp::resource]` and `#[mcp::resolver]`, and
//! `#[derive(mcp::ElicitForm)]`.
//!
//! Users depend on `mcp` (package `mcp-runtime`), which re-exports these. Each macro
//! keeps the annotated function as it is (still callable, still unit-testable) and adds a
//! companion type of the same name, documented with the item's description, parameters
//! and schema, which registers the item: `Server::builder(..).tool::<my_tool>()`.
//!
//! The work happens in three stages, each in its own module: `parse` reads the
//! function and the attribute into a model, `validate` checks the model and reports
//! every problem at once with a precise span, and `expand` generates code from a
//! checked model only.

mod attrs;
mod complete;
#[cfg(test)]
mod doc_keys;
mod docs;
mod expand;
mod form;
mod krate;
mod model;
mod parse;
mod types;
mod validate;

use proc_macro::TokenStream;

/// Turn an async (or sync) function into an MCP tool.
///
/// Plain parameters become the input schema (their `///` docs become descriptions); a
/// `mcp::Context` parameter is injected, and so is a `mcp::State<T>` (the value registered
/// with `.state(value)` on the server builder); `Resolve<...>` parameters are filled by
/// resolvers. The function's doc comment is the tool's description. Roles follow the
/// parameter's type: a user type that happens to be named `Context` or `State` is an
/// ordinary argument.
///
/// Returning `Err(e)` from a `Result` ends the call with an `isError` result carrying
/// `e`'s text (the model sees it), except for `Err(mcp::Error)`, which is a JSON-RPC error.
///
/// ```
/// /// Add two numbers.
/// #[mcp::tool(
///     name = "add",
///     title = "Adder",
///     annotations(read_only, idempotent, title = "Add"),
///     icons = ["https://example.com/add.png"],
///     meta = r#"{"team": "math"}"#,
/// )]
/// async fn add(
///     /// The first number.
///     a: i64,
///     #[mcp(default = 0, rename = "second", description = "The second number.")] b: i64,
///     _ctx: mcp::Context,
/// ) -> i64 {
///     a + b
/// }
///
/// let server = mcp::Server::builder("calc", "1.0.0").tool::<add>().build();
/// # let _ = server;
/// ```
///
/// # Keys
///
/// - `name = "..."`: the tool's wire name (default: the function's name).
/// - `title = "..."`: the display name.
/// - `description = "..."`: the description (default: the doc comment).
/// - `annotations(...)`: behaviour hints, each optional:
///   `read_only`, `destructive`, `idempotent`, `open_world` (each a flag, or `= bool`)
///   and `title = "..."`.
/// - `icons = ["https://...", ...]`: icon URIs.
/// - `meta = "{json}"`: the definition's `_meta` object (checked at compile time).
/// - `output_schema = false`: publish no output schema for a structured return type.
/// - `inline_refs`: inline the `$defs` of this tool's input and output schemas (each `$ref`
///   replaced by its definition; recursive types keep theirs), for clients that cannot
///   follow references. Off by default; `ServerBuilder::inline_schema_refs(true)` does it
///   for every tool.
/// - `scopes = ["db:write", ...]`: the OAuth scopes a caller needs (all of them) to use
///   the item. Checked at compile time against RFC 6749's scope-token characters. Calls
///   without them fail with `Error::insufficient_scope` before the function (or any
///   resolver) runs, and fail closed when the request carries no authenticated caller.
/// - `task = "optional" | "required"`: run the tool as a task (the tasks extension) when
///   the request declares the extension; `"required"` refuses requests that do not
///   (`-32021`). `Resolve<...>` parameters are asked first, in multi round-trip rounds; the
///   body then runs as the task's work, which reaches it through `ctx.task()` and asks the
///   client with `mcp::resolve::ask`. Such a tool is an `async fn` and cannot return an
///   `InputRequiredResult` (compile errors otherwise). See `mcp::tasks`.
/// - `crate = "path"`: where the `mcp` crate is, for crates that re-export it
///   (default `::mcp`), as with `#[serde(crate = "...")]`.
///
/// # Parameter keys
///
/// `#[mcp(...)]` on a parameter:
///
/// - `default = expr`: the value when the argument is absent (the argument becomes optional).
/// - `rename = "..."`: the argument's wire name (default: the parameter's name).
/// - `description = "..."`: the argument's description (default: its doc comment).
/// - `complete = path::to_fn`: not on tools: `completion/complete` completes prompt
///   arguments and resource template variables only (see [`macro@prompt`]); a tool
///   argument's allowed values belong in its schema (an enum).
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::item(model::Kind::Tool, attr.into(), item.into()).into()
}

/// Turn a function into an MCP prompt. Parameters are the prompt's (string) arguments,
/// parsed with `FromStr`; `Option<T>` ones are optional. `mcp::Context` and
/// `mcp::State<T>` parameters are injected.
///
/// ```
/// /// Review a piece of code.
/// #[mcp::prompt(name = "review", title = "Code review", icons = ["https://example.com/r.png"])]
/// fn review(
///     /// The code.
///     code: String,
///     #[mcp(rename = "lang", description = "Its language.")] language: Option<String>,
/// ) -> String {
///     format!("Review this {}: {code}", language.as_deref().unwrap_or("code"))
/// }
///
/// let server = mcp::Server::builder("s", "1.0.0").prompt::<review>().build();
/// # let _ = server;
/// ```
///
/// # Keys
///
/// - `name = "..."`: the prompt's wire name (default: the function's name).
/// - `title = "..."`: the display name.
/// - `description = "..."`: the description (default: the doc comment).
/// - `icons = ["https://...", ...]`: icon URIs.
/// - `meta = "{json}"`: the definition's `_meta` object (checked at compile time).
/// - `scopes = ["db:write", ...]`: the OAuth scopes a caller needs (all of them) to use
///   the item. Checked at compile time against RFC 6749's scope-token characters. Calls
///   without them fail with `Error::insufficient_scope` before the function (or any
///   resolver) runs, and fail closed when the request carries no authenticated caller.
/// - `crate = "path"`: where the `mcp` crate is (default `::mcp`).
///
/// # Parameter keys
///
/// - `rename = "..."`: the argument's wire name.
/// - `description = "..."`: the argument's description (default: its doc comment).
/// - `complete = path::to_fn`: the function that completes this argument
///   (`completion/complete`); see [Completion](#completion).
///
/// # Completion
///
/// `#[mcp(complete = f)]` names a function that suggests values for the argument while
/// the user types. `f` takes the text typed so far (`&str`, or `String` for an `async fn`)
/// and, optionally after it, a `mcp::Context` and/or the arguments filled in already
/// (`mcp::items::completion::CompletionArguments`, from the request's
/// `context.arguments`). It returns `Vec<String>` (or `Vec<&str>`), a
/// `mcp::protocol::Completion` to set `total` and `hasMore`, or a `Result` of one. The
/// framework sends at most 100 values (marking longer lists `hasMore`), answers an
/// argument without a completer with no values, and declares the `completions`
/// capability when any registered item has a completer.
///
/// ```
/// use mcp::items::completion::CompletionArguments;
///
/// fn languages(typed: &str) -> Vec<&'static str> {
///     ["python", "rust"].into_iter().filter(|l| l.starts_with(typed)).collect()
/// }
///
/// async fn styles(typed: String, filled: CompletionArguments) -> Result<Vec<String>, mcp::Error> {
///     let styles: &[&str] = if filled.get("lang") == Some("rust") { &["clippy", "idiomatic"] } else { &["pep8"] };
///     Ok(styles.iter().filter(|s| s.starts_with(&typed)).map(|s| (*s).to_owned()).collect())
/// }
///
/// /// Review a piece of code.
/// #[mcp::prompt]
/// fn review(
///     code: String,
///     #[mcp(rename = "lang", complete = languages)] language: String,
///     #[mcp(complete = styles)] style: Option<String>,
/// ) -> String {
///     format!("Review this {language} ({}): {code}", style.as_deref().unwrap_or("any style"))
/// }
///
/// let server = mcp::Server::builder("s", "1.0.0").prompt::<review>().build();
/// assert!(server.capabilities().completions.is_some());
/// ```
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::item(model::Kind::Prompt, attr.into(), item.into()).into()
}

/// Turn a function into an MCP resource: `#[mcp::resource("file:///readme")]` for a
/// static resource (no parameters but `mcp::State<T>`), or `#[mcp::resource("db://{table}/rows")]`
/// for an RFC 6570 template whose variables are the function's parameters (parsed with
/// `FromStr`; a template may also take a `mcp::Context` and `mcp::State<T>`). The URI comes first.
///
/// ```
/// /// The readme.
/// #[mcp::resource("file:///readme", name = "readme", mime_type = "text/markdown")]
/// fn readme() -> String {
///     "# Hello".to_owned()
/// }
///
/// /// One row count per table.
/// #[mcp::resource("db://{table}/count", title = "Row count", icons = ["https://example.com/db.png"])]
/// fn count(table: String) -> String {
///     format!("{table}: 0 rows")
/// }
///
/// let server = mcp::Server::builder("s", "1.0.0").resource::<readme>().resource::<count>().build();
/// # let _ = server;
/// ```
///
/// # Keys
///
/// - `"uri"` (first, required): the URI, or a URI template with `{name}` / `{+name}` variables.
/// - `name = "..."`: the resource's name (default: the function's name).
/// - `title = "..."`: the display name.
/// - `description = "..."`: the description (default: the doc comment).
/// - `mime_type = "..."`: the MIME type of the contents.
/// - `icons = ["https://...", ...]`: icon URIs.
/// - `meta = "{json}"`: the definition's `_meta` object (checked at compile time).
/// - `scopes = ["db:write", ...]`: the OAuth scopes a caller needs (all of them) to use
///   the item. Checked at compile time against RFC 6749's scope-token characters. Calls
///   without them fail with `Error::insufficient_scope` before the function (or any
///   resolver) runs, and fail closed when the request carries no authenticated caller.
/// - `crate = "path"`: where the `mcp` crate is (default `::mcp`).
///
/// # Parameter keys
///
/// - `rename = "..."`: the template variable the parameter reads.
/// - `complete = path::to_fn`: the function that completes this template variable
///   (`completion/complete` with a `ref/resource` reference to the template), with the
///   same shapes as for a prompt argument (see [`macro@prompt`]'s Completion section).
///
/// ```
/// fn tables(typed: &str) -> Vec<&'static str> {
///     ["orders", "users"].into_iter().filter(|t| t.starts_with(typed)).collect()
/// }
///
/// /// Rows of one table.
/// #[mcp::resource("db://{table}/rows")]
/// fn rows(#[mcp(complete = tables)] table: String) -> String {
///     format!("rows of {table}")
/// }
/// # let _ = mcp::Server::builder("s", "1.0.0").resource::<rows>().build();
/// ```
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::item(model::Kind::Resource, attr.into(), item.into()).into()
}

/// Turn a function into a resolver: a dependency a tool declares as a parameter
/// `x: Resolve<this_function>`.
///
/// A resolver's parameters are tool arguments taken by name (by value, cloned, or by
/// reference; `#[mcp(rename = "arg")]` takes another name), a `Context` (or `&Context`),
/// application state (`State<T>` or `&State<T>`), and other resolvers' values (`Resolve<other>` or `Resolve<other, Refusable>`). It returns
/// a plain value, or exactly one question: `Elicit<T>`, `Sample` or `ListRoots` (possibly
/// as the `Ok` of a `Result`).
///
/// ```
/// use mcp::Resolve;
/// use mcp::resolve::Elicit;
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// struct Confirm {
///     ok: bool,
/// }
///
/// /// Ask before deleting.
/// #[mcp::resolver(key = "confirm_delete")]
/// fn confirm(#[mcp(rename = "path")] target: &str) -> Elicit<Confirm> {
///     Elicit::new(format!("Delete {target}?"))
/// }
///
/// /// Delete a file.
/// #[mcp::tool]
/// fn delete(path: String, confirm: Resolve<confirm>) -> String {
///     if confirm.ok { format!("deleted {path}") } else { "kept".to_owned() }
/// }
/// # let _ = mcp::Server::builder("s", "1.0.0").tool::<delete>().build();
/// ```
///
/// # Keys
///
/// - `key = "..."`: the wire key (default: the module path and the function's name).
/// - `crate = "path"`: where the `mcp` crate is (default `::mcp`).
///
/// # Parameter keys
///
/// - `rename = "..."`: the tool argument to take (default: the parameter's name).
#[proc_macro_attribute]
pub fn resolver(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::item(model::Kind::Resolver, attr.into(), item.into()).into()
}

/// Derive `ElicitForm` (use it next to `serde::Deserialize`): a struct with named fields
/// becomes a form (`Elicit<T>`), a unit-only enum a choice usable as a form field.
///
/// Each field must be a `String`, `bool`, integer, `f32`/`f64`, a derived choice, a `Vec`
/// of a choice, or an `Option` of these; anything else is a compile error at the field's
/// type. Field doc comments become descriptions; serde's `rename`, `rename_all`,
/// `default` and `skip` are followed.
///
/// ```
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// #[serde(rename_all = "lowercase")]
/// enum Size {
///     Small,
///     Large,
/// }
///
/// #[derive(serde::Deserialize, mcp::ElicitForm)]
/// #[mcp(crate = "::mcp")]
/// struct Order {
///     /// How many.
///     count: u32,
///     size: Size,
///     #[serde(default)]
///     gift: bool,
/// }
/// # let _ = <Order as mcp::resolve::ElicitForm>::schema();
/// ```
///
/// # Keys
///
/// `#[mcp(...)]` on the type:
///
/// - `crate = "path"`: where the `mcp` crate is (default `::mcp`).
#[proc_macro_derive(ElicitForm, attributes(serde, mcp))]
pub fn elicit_form(input: TokenStream) -> TokenStream {
    form::derive(input.into()).into()
}
