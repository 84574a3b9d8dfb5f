//! Procedural macros for the `mcp` crate: `#[mcp::tool]`, `#[mcp::prompt]` and
//! `#[mcp::resource]`.
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
/// `Context` parameter is injected; `Resolve<...>` parameters are filled by resolvers.
/// The function's doc comment is the tool's description.
///
/// Returning `Err(e)` from a `Result` ends the call with an `isError` result carrying
/// `e`'s text (the model sees it), except for `Err(mcp::Error)`, which is a JSON-RPC error.
///
/// Keys: `name`, `title`, `description`, `annotations(read_only, destructive, idempotent,
/// open_world, title)`, `icons = ["https://..."]`, `meta = "{json}"`, `output_schema = false`.
/// Parameter attribute: `#[mcp(default = expr, rename = "name", description = "...")]`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::item(model::Kind::Tool, attr.into(), item.into()).into()
}

/// Turn a function into an MCP prompt. Parameters are the prompt's (string) arguments,
/// parsed with `FromStr`; `Option<T>` ones are optional. Keys: `name`, `title`,
/// `description`, `icons`.
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::item(model::Kind::Prompt, attr.into(), item.into()).into()
}

/// Turn a function into an MCP resource: `#[mcp::resource("file:///readme")]` for a
/// static resource (no parameters), or `#[mcp::resource("db://{table}/rows")]` for an RFC
/// 6570 template whose variables are the function's parameters. Keys: `name`, `title`,
/// `description`, `mime_type`, `icons`.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::item(model::Kind::Resource, attr.into(), item.into()).into()
}

/// Turn a function into a resolver: a dependency a tool declares as a parameter
/// `x: Resolve<this_function>`.
///
/// A resolver's parameters are tool arguments taken by name (by value, cloned, or by
/// reference; `#[mcp(rename = "arg")]` takes another name), a `Context` (or `&Context`),
/// and other resolvers' values (`Resolve<other>` or `Resolve<other, Refusable>`). It returns
/// a plain value, or exactly one question: `Elicit<T>`, `Sample` or `ListRoots` (possibly
/// as the `Ok` of a `Result`). The wire key is the module path and name, or `key = "..."`.
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
#[proc_macro_derive(ElicitForm, attributes(serde, mcp))]
pub fn elicit_form(input: TokenStream) -> TokenStream {
    form::derive(input.into()).into()
}
