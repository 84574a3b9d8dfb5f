//! Generating code from a checked model.

mod prompt;
mod resolver;
mod resource;
mod tool;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, LitStr};

use crate::model::{FnModel, Kind, ParamRole};
use crate::{attrs, docs, krate, parse, validate};

/// Expand one attribute: parse, validate, generate. On errors, emit them together with
/// the user's function and a stub companion so that nothing else fails because of them.
pub fn item(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Vec::new();
    let options = attrs::parse_options(kind, attr, &mut errors);
    let (model, function) = match parse::parse(kind, options, item, &mut errors) {
        Ok(parsed) => parsed,
        Err(original) => return with_errors(errors, original),
    };
    validate::validate(&model, &mut errors);
    let krate = model.options.krate.as_ref();
    if !errors.is_empty() {
        return krate::substitute(with_errors(errors, stub(&model, &function)), krate);
    }
    let generated = match kind {
        Kind::Tool => tool::expand(&model, &function),
        Kind::Prompt => prompt::expand(&model, &function),
        Kind::Resource => resource::expand(&model, &function),
        Kind::Resolver => resolver::expand(&model, &function),
    };
    let generated = krate::substitute(generated, krate);
    quote! {
        #function
        #generated
    }
}

/// `const SCOPES` for `scopes = [...]` (the trait's default, none, otherwise).
fn scopes(model: &FnModel) -> TokenStream {
    let scopes = &model.options.scopes;
    if scopes.is_empty() {
        return TokenStream::new();
    }
    quote!(const SCOPES: &'static [&'static str] = &[#(#scopes),*];)
}

fn with_errors(errors: Vec<syn::Error>, tokens: TokenStream) -> TokenStream {
    let errors = errors.into_iter().map(|e| e.to_compile_error());
    quote! { #(#errors)* #tokens }
}

/// The companion type: a braced struct (type namespace only, so it coexists with the
/// function) carrying the item's documentation.
fn companion(model: &FnModel, function: &ItemFn) -> TokenStream {
    let vis = &function.vis;
    let ident = &model.ident;
    let doc = docs::companion(model);
    let exprs = &model.doc_exprs;
    quote! {
        #(#[doc = #exprs])*
        #[doc = ""]
        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #vis struct #ident {}
    }
}

/// The user's function and a companion whose trait impl never runs (compilation fails).
fn stub(model: &FnModel, function: &ItemFn) -> TokenStream {
    let ident = &model.ident;
    let companion = companion(model, function);
    let name = model.name();
    let uri = model.options.uri.as_ref().map_or_else(String::new, LitStr::value);
    let trait_impl = match model.kind {
        Kind::Resolver => {
            let resolver_impl = resolver::resolver_impl(model);
            quote! {
                #resolver_impl
                impl<__McpArgs: ?::core::marker::Sized + ::core::marker::Sync> __mcp_crate::__private::ResolveWith<__McpArgs> for #ident {
                    fn run<'__mcp>(_: &'__mcp mut __mcp_crate::__private::Round, _: &'__mcp __McpArgs)
                        -> __mcp_crate::__private::RoundFuture<'__mcp, ::core::result::Result<__mcp_crate::__private::Visit<<Self as __mcp_crate::__private::Resolver>::Value>, __mcp_crate::__private::Stop>>
                    { ::core::unreachable!() }
                }
            }
        }
        Kind::Tool => quote! {
            impl __mcp_crate::items::ToolDef for #ident {
                const NAME: &'static str = #name;
                fn definition() -> __mcp_crate::protocol::Tool { ::core::unreachable!() }
                fn call(_: __mcp_crate::Context, _: __mcp_crate::protocol::CallToolParams)
                    -> __mcp_crate::__private::BoxFuture<::core::result::Result<__mcp_crate::protocol::CallToolOutcome, __mcp_crate::Error>>
                { ::core::unreachable!() }
            }
        },
        Kind::Prompt => quote! {
            impl __mcp_crate::items::PromptDef for #ident {
                const NAME: &'static str = #name;
                fn definition() -> __mcp_crate::protocol::Prompt { ::core::unreachable!() }
                fn get(_: __mcp_crate::Context, _: __mcp_crate::protocol::GetPromptParams)
                    -> __mcp_crate::__private::BoxFuture<::core::result::Result<__mcp_crate::protocol::GetPromptOutcome, __mcp_crate::Error>>
                { ::core::unreachable!() }
            }
        },
        Kind::Resource => quote! {
            impl __mcp_crate::items::ResourceDef for #ident {
                const URI: &'static str = #uri;
                fn definition() -> __mcp_crate::items::ResourceKind { ::core::unreachable!() }
                fn read(_: __mcp_crate::Context, _: __mcp_crate::protocol::ReadResourceParams, _: __mcp_crate::items::template::Variables)
                    -> __mcp_crate::__private::BoxFuture<::core::result::Result<__mcp_crate::protocol::ReadResourceOutcome, __mcp_crate::Error>>
                { ::core::unreachable!() }
            }
        },
    };
    quote! {
        #function
        #companion
        #[allow(unreachable_code, clippy::diverging_sub_expression)]
        const _: () = { #trait_impl };
    }
}

/// `.with_title(..)`, `.with_description(..)`, `.with_icons(..)` and `.with_meta(..)` calls
/// for the attribute's values that are set (generated code calls builder methods, never
/// struct literals, so the protocol types can gain fields).
fn definition_setters(model: &FnModel) -> TokenStream {
    let mut setters = TokenStream::new();
    if let Some(title) = &model.options.title {
        setters.extend(quote!(.with_title(#title)));
    }
    setters.extend(description(model));
    if !model.options.icons.is_empty() {
        let icons = &model.options.icons;
        setters.extend(quote!(.with_icons(::std::vec![#(__mcp_crate::protocol::Icon::new(#icons)),*])));
    }
    if let Some(meta) = &model.options.meta {
        // The JSON was checked at compile time.
        setters.extend(quote!(.with_meta(__mcp_crate::__private::meta_object(#meta))));
    }
    setters
}

/// The item's description: from the attribute, the doc comment, or doc attributes that
/// macros compute (`#[doc = concat!(..)]`), which the compiler evaluates.
fn description(model: &FnModel) -> TokenStream {
    if model.options.description.is_none() && !model.doc_exprs.is_empty() {
        let literal = model.description().unwrap_or_default();
        let exprs = &model.doc_exprs;
        return quote!(.with_description(::core::concat!(#literal, #(#exprs),*).trim()));
    }
    match model.description() {
        Some(description) => quote!(.with_description(#description)),
        None => TokenStream::new(),
    }
}

/// The call of the user's function with already-bound arguments.
fn call_user_fn(model: &FnModel) -> TokenStream {
    let ident = &model.ident;
    let args = model.params.iter().map(|p| {
        let local = local(p);
        quote!(#local)
    });
    let await_ = model.is_async.then(|| quote!(.await));
    quote!(#ident(#(#args),*) #await_)
}

/// The local variable holding a parameter's value.
fn local(param: &crate::model::Param) -> syn::Ident {
    // `_name` must not become `__mcp_p__name` (a double underscore trips `non_snake_case`);
    // the count of leading underscores keeps `_name` and `name` apart.
    let ident = param.ident.to_string();
    let ident = ident.trim_start_matches("r#");
    let rest = ident.trim_start_matches('_');
    let underscores = ident.len() - rest.len();
    let name = if underscores == 0 { format!("__mcp_p_{rest}") } else { format!("__mcp_p{underscores}_{rest}") };
    syn::Ident::new(&name, param.ident.span())
}

/// Bindings for `Context` and `Resolve` parameters (shared by tools; Context by all).
fn injected_bindings(model: &FnModel) -> Vec<TokenStream> {
    model
        .params
        .iter()
        .filter_map(|p| {
            let local = local(p);
            let ty = &p.ty;
            match p.role {
                ParamRole::Context => Some(quote!(let #local = ::core::clone::Clone::clone(&__mcp_ctx);)),
                ParamRole::ContextRef => Some(quote!(let #local: #ty = &__mcp_ctx;)),
                ParamRole::ContextOrArgument | ParamRole::Resolve | ParamRole::Argument => None,
            }
        })
        .collect()
}

/// The `state_needs` method of an item's trait impl: each parameter that may be a
/// `State<T>` records its `T` (decided by the type; a `Context` or an argument records
/// nothing), then `resolvers` adds the states of the tool's resolvers. Empty when there is
/// nothing to record (the trait's default reports none).
fn state_needs<'a>(params: impl Iterator<Item = &'a crate::model::Param>, resolvers: TokenStream) -> TokenStream {
    let needs: Vec<_> = params
        .filter(|p| p.role == ParamRole::ContextOrArgument)
        .map(|p| state_need(&p.ty, quote!(__mcp_needs)))
        .collect();
    if needs.is_empty() && resolvers.is_empty() {
        return TokenStream::new();
    }
    quote! {
        fn state_needs(__mcp_needs: &mut __mcp_crate::__private::StateNeeds) {
            #(#needs)*
            #resolvers
        }
    }
}

/// Record `ty`'s state type in `needs` if it is `mcp::State<T>` (or `&mcp::State<T>`).
fn state_need(ty: &syn::Type, needs: TokenStream) -> TokenStream {
    let ty = match ty {
        syn::Type::Reference(r) => &*r.elem,
        other => other,
    };
    quote_spanned! {ty.span()=> {
        #[allow(unused_imports)]
        use __mcp_crate::__private::{ContextViaArgument as _, ContextViaContext as _};
        (&__mcp_crate::__private::Slot::<#ty>::NEW).__mcp_state_need(#needs);
    }}
}

/// The pieces every item's definition needs, computed once.
struct Common {
    name: String,
    companion: TokenStream,
    /// Builder calls for the title, description, icons and `_meta`.
    setters: TokenStream,
}

fn common(model: &FnModel, function: &ItemFn) -> Common {
    Common { name: model.name(), companion: companion(model, function), setters: definition_setters(model) }
}

/// How a prompt or resource function's value becomes an outcome: `outcome(value)` for
/// the value (or `Ok` of a `Result`), and `Err(e)` as an `mcp::Error`.
/// `outcome` gets the value and the return type's span (so a bad return type is reported there).
fn convert_outcome(model: &FnModel, outcome: impl Fn(TokenStream, proc_macro2::Span) -> TokenStream) -> TokenStream {
    let span = model.ret.as_ref().map_or_else(proc_macro2::Span::call_site, Spanned::span);
    if model.ret.as_ref().and_then(crate::types::result_ok).is_some() {
        let error = convert_error(quote!(__mcp_error));
        let ok = outcome(quote!(__mcp_value), proc_macro2::Span::call_site());
        return quote! {
            match __mcp_ret {
                ::core::result::Result::Ok(__mcp_value) => #ok,
                ::core::result::Result::Err(__mcp_error) => ::core::result::Result::Err(#error),
            }
        };
    }
    outcome(quote_spanned!(span=> __mcp_ret), span)
}

/// `Err(e)` of a prompt or resource function as an `mcp::Error` (keeping an
/// `mcp::Error`'s code; anything else printable becomes `-32603`).
fn convert_error(error: TokenStream) -> TokenStream {
    quote! {{
        #[allow(unused_imports)]
        use __mcp_crate::__private::{ErrViaDisplay as _, ErrViaMcp as _};
        (&__mcp_crate::__private::ErrWrap(#error)).__mcp_error()
    }}
}

/// `Err(e)` of a resolver as the `Stop` that ends the call: an `mcp::Error` stays a
/// JSON-RPC error; anything else printable becomes an `isError` result.
fn convert_error_to_stop(error: TokenStream) -> TokenStream {
    quote! {{
        #[allow(unused_imports)]
        use __mcp_crate::__private::{ToolErrViaDisplay as _, ToolErrViaMcp as _};
        __mcp_crate::__private::resolver_error(
            <Self as __mcp_crate::__private::Resolver>::KEY,
            (&__mcp_crate::__private::ErrWrap(#error)).__mcp_tool_error(),
        )
    }}
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::item;
    use crate::krate;
    use crate::model::Kind;

    /// A `State<..>` parameter is no documented argument, and the item reports its type.
    #[test]
    fn state_is_injected_not_documented_as_an_argument() {
        let out = item(
            Kind::Tool,
            quote!(),
            quote!(
                fn triage(id: u32, db: mcp::State<Db>, cache: State<Cache>) -> String {
                    String::new()
                }
            ),
        )
        .to_string();
        assert!(out.contains("| `id` | `u32`"), "{out}");
        assert!(!out.contains("| `db`") && !out.contains("| `cache`"), "{out}");
        assert!(out.contains("Injected, not part of the schema: `db: mcp::State<Db>`"), "{out}");
        assert!(out.contains("`cache: State<Cache>` is application state if its type is `mcp::State<T>`"), "{out}");
        assert!(out.contains("fn state_needs"), "{out}");
        assert!(out.contains("__mcp_state_need"), "{out}");
        let plain = item(
            Kind::Tool,
            quote!(),
            quote!(
                fn one() -> i64 {
                    1
                }
            ),
        )
        .to_string();
        assert!(!plain.contains("state_needs"), "no state, the trait's default: {plain}");
    }

    /// A tool that never awaits gets no `async` block; its arguments are decoded in one
    /// call, in a closure; its definition is a `const` spec. An `async` tool keeps its `async` block.
    #[test]
    fn sync_tools_share_the_runtime_code() {
        let sync = item(
            Kind::Tool,
            quote!(),
            quote!(
                fn repeat(text: String, times: Option<u32>, #[mcp(default = false)] shout: bool) -> String {
                    text
                }
            ),
        )
        .to_string();
        assert!(!sync.contains("async move"), "{sync}");
        assert!(sync.contains("sync_call"), "{sync}");
        assert_eq!(sync.matches("decode_args").count(), 1, "{sync}");
        assert!(sync.contains("required :: < String >") && sync.contains("optional :: < u32 >"), "{sync}");
        assert!(sync.contains("defaulted :: < bool >"), "{sync}");
        assert!(sync.contains("const __MCP_SPEC") && !sync.contains("static __MCP"), "{sync}");
        assert!(!sync.contains("fn __mcp_run"), "the body is a closure: {sync}");
        let asynchronous = item(
            Kind::Tool,
            quote!(),
            quote!(
                async fn fetch(url: String) -> String {
                    url
                }
            ),
        )
        .to_string();
        assert!(asynchronous.contains("async move"), "{asynchronous}");
        assert!(!asynchronous.contains("sync_call"), "{asynchronous}");
    }

    /// Every runtime path in an expansion starts from `crate = "..."` when it is given.
    #[test]
    fn crate_path_replaces_every_runtime_path() {
        let cases = [
            (
                Kind::Tool,
                quote!(crate = "reexport::m"),
                quote!(
                    fn add(a: i64, ctx: Context) -> i64 {
                        a
                    }
                ),
            ),
            (
                Kind::Prompt,
                quote!(crate = "reexport::m"),
                quote!(
                    fn greet(name: String) -> String {
                        name
                    }
                ),
            ),
            (
                Kind::Resource,
                quote!("notes://{id}", crate = "reexport::m"),
                quote!(
                    fn note(id: u32) -> String {
                        id.to_string()
                    }
                ),
            ),
            (
                Kind::Resolver,
                quote!(crate = "reexport::m"),
                quote!(
                    fn ask(a: &str) -> String {
                        a.to_owned()
                    }
                ),
            ),
        ];
        for (kind, attr, function) in cases {
            let tokens = item(kind, attr, function);
            let out = tokens.to_string();
            assert!(!out.contains(":: mcp"), "{kind:?} still names `::mcp`: {out}");
            assert!(out.contains("use reexport :: m as __mcp_crate"), "{kind:?}: {out}");
            assert_eq!(krate::unaliased_placeholders(tokens, "reexport :: m"), 0, "{kind:?}: {out}");
        }
        let default = item(
            Kind::Tool,
            quote!(),
            quote!(
                fn one() -> i64 {
                    1
                }
            ),
        );
        assert_eq!(krate::unaliased_placeholders(default.clone(), ":: mcp"), 0, "{default}");
        let default = default.to_string();
        assert!(default.contains("use :: mcp as __mcp_crate"), "{default}");
    }
}
