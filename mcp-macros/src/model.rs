//! The typed model of an annotated function and its attribute.

use syn::{Expr, Ident, LitStr, Type};

/// Which macro is expanding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Tool,
    Prompt,
    Resource,
    Resolver,
}

impl Kind {
    pub fn attribute(self) -> &'static str {
        match self {
            Kind::Tool => "#[mcp::tool]",
            Kind::Prompt => "#[mcp::prompt]",
            Kind::Resource => "#[mcp::resource]",
            Kind::Resolver => "#[mcp::resolver]",
        }
    }
}

/// Tool annotations (`annotations(...)`).
#[derive(Debug, Default)]
pub struct Annotations {
    pub title: Option<LitStr>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// The attribute's arguments.
#[derive(Debug, Default)]
pub struct Options {
    /// `#[mcp::resource("uri")]`.
    pub uri: Option<LitStr>,
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub mime_type: Option<LitStr>,
    pub icons: Vec<LitStr>,
    pub meta: Option<LitStr>,
    pub annotations: Option<Annotations>,
    pub output_schema: Option<bool>,
    /// `inline_refs`: inline the tool's schema `$defs`.
    pub inline_refs: Option<bool>,
    /// `task = "optional" | "required"`: the tool may or must run as a task.
    pub task: Option<LitStr>,
    /// `scopes = ["db:write"]`: the OAuth scopes a caller needs to use the item.
    pub scopes: Vec<LitStr>,
    /// `#[mcp::resolver(key = "...")]`: the wire key.
    pub key: Option<LitStr>,
    /// `crate = "path"`: where generated code finds the runtime (default `::mcp`).
    pub krate: Option<syn::Path>,
}

/// How a parameter is filled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamRole {
    /// `Context`: injected.
    Context,
    /// `&Context` (resolvers only): lent.
    ContextRef,
    /// A parameter whose type is spelled `Context` (or, in a resolver, `&Context`) but not
    /// as a path into `mcp`: the request context if the type is `mcp::Context`, else an
    /// argument (tool or prompt argument, URI variable, or the tool argument a resolver
    /// reads). The generated code decides by the type (see `mcp::items::roles`), not by
    /// its name.
    ContextOrArgument,
    /// `Resolve<...>`: filled by a resolver.
    Resolve,
    /// A client-supplied argument (tool argument, prompt argument, template variable).
    Argument,
}

/// One parameter.
#[derive(Debug)]
pub struct Param {
    pub ident: Ident,
    pub ty: Type,
    pub role: ParamRole,
    pub docs: Vec<String>,
    pub default: Option<Expr>,
    pub rename: Option<LitStr>,
    pub description: Option<LitStr>,
    /// `#[mcp(complete = path)]`: the function completing this argument.
    pub complete: Option<syn::Path>,
}

impl Param {
    /// The argument's wire name.
    pub fn wire_name(&self) -> String {
        self.rename.as_ref().map_or_else(|| self.ident.to_string().trim_start_matches("r#").to_owned(), LitStr::value)
    }

    /// The description: the attribute's, else the doc comment.
    pub fn description(&self) -> Option<String> {
        match &self.description {
            Some(d) => Some(d.value()),
            None => crate::docs::join(&self.docs),
        }
    }
}

/// The annotated function.
#[derive(Debug)]
pub struct FnModel {
    pub kind: Kind,
    pub ident: Ident,
    pub is_async: bool,
    pub docs: Vec<String>,
    /// Doc attributes computed by macros (`#[doc = concat!(..)]`).
    pub doc_exprs: Vec<syn::Expr>,
    pub params: Vec<Param>,
    /// Where the function declares generics, if it does.
    pub generics: Option<proc_macro2::Span>,
    /// The return type, `None` for `()`.
    pub ret: Option<Type>,
    pub options: Options,
}

impl FnModel {
    /// The item's wire name.
    pub fn name(&self) -> String {
        self.options
            .name
            .as_ref()
            .map_or_else(|| self.ident.to_string().trim_start_matches("r#").to_owned(), LitStr::value)
    }

    /// The description: the attribute's, else the doc comment.
    pub fn description(&self) -> Option<String> {
        match &self.options.description {
            Some(d) => Some(d.value()),
            None => crate::docs::join(&self.docs),
        }
    }

    /// The parameters that are certainly client-supplied arguments.
    pub fn arguments(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| p.role == ParamRole::Argument)
    }

    /// The parameters that are, or (spelled `Context`) may be, client-supplied arguments.
    pub fn maybe_arguments(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| matches!(p.role, ParamRole::Argument | ParamRole::ContextOrArgument))
    }

    /// Whether the call reads the client's arguments (arguments, or parameters that may be one).
    pub fn reads_arguments(&self) -> bool {
        self.maybe_arguments().next().is_some()
    }
}
