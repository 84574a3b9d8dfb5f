//! `#[mcp::resolver]`: the companion type implements `Resolver` (value type, wire key,
//! depth, dependency graph) and `ResolveWith<A>` for every tool-arguments type `A` that
//! has the arguments it takes by name.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use super::{convert_error_to_stop, local};
use crate::model::{FnModel, ParamRole};
use crate::types;
use crate::validate::RESOLVER_INPUT_REQUIRED;

/// `name` spelled as a type: `(Ch<'n'>, Ch<'a'>, Ch<'m'>, Ch<'e'>)`.
pub fn spelled(name: &str, span: Span) -> TokenStream {
    let letters = name.chars().map(|c| quote_spanned!(span=> __mcp_crate::__private::Ch<#c>));
    quote_spanned!(span=> (#(#letters,)*))
}

/// The resolver's value type, and the question type when it asks one.
fn value_type(model: &FnModel) -> (TokenStream, Option<syn::Type>) {
    let Some(ret) = &model.ret else { return (quote!(()), None) };
    let top = types::result_ok(ret).unwrap_or(ret);
    if types::is_question(top) {
        (quote_spanned!(top.span()=> <#top as __mcp_crate::__private::Question>::Value), Some(top.clone()))
    } else {
        (quote!(#top), None)
    }
}

/// The `impl Resolver` alone (also used by the error stub, so uses do not cascade).
pub fn resolver_impl(model: &FnModel) -> TokenStream {
    let ident = &model.ident;
    let (value, _) = value_type(model);
    let key = match &model.options.key {
        Some(key) => quote!(#key),
        None => {
            let name = ident.to_string();
            let name = name.trim_start_matches("r#");
            quote!(::core::concat!(::core::module_path!(), "::", #name))
        }
    };
    let deps: Vec<&syn::Type> = model.params.iter().filter(|p| p.role == ParamRole::Resolve).map(|p| &p.ty).collect();
    let dep_resolver =
        |ty: &syn::Type| quote_spanned!(ty.span()=> <#ty as __mcp_crate::__private::ResolveParam>::Resolver);
    let collect = deps.iter().map(|ty| {
        let r = dep_resolver(ty);
        quote!(<#r as __mcp_crate::__private::Resolver>::collect(__mcp_graph);)
    });
    let links = deps.iter().rev().fold(quote!(()), |rest, ty| {
        let r = dep_resolver(ty);
        quote!((#r, #rest))
    });
    let name = display_name(model);
    // The state types it takes (a parameter spelled `State<..>` that is `mcp::State<T>`).
    let states = model
        .params
        .iter()
        .filter(|p| p.role == ParamRole::ContextOrArgument)
        .map(|p| super::state_need(&p.ty, quote!(__mcp_graph.states())));
    quote! {
        #[automatically_derived]
        impl __mcp_crate::__private::Resolver for #ident {
            type Value = #value;
            const KEY: &'static str = #key;
            const DEPTH: usize = 1 + <#links as __mcp_crate::__private::ResolverLongest<__mcp_crate::__private::ResolverDepth>>::LONGEST;
            fn collect(__mcp_graph: &mut __mcp_crate::__private::Graph) {
                if __mcp_graph.enter::<Self>() {
                    #(#states)*
                    #(#collect)*
                }
            }
        }

        #[automatically_derived]
        impl __mcp_crate::__private::ResolverLinks for #ident {
            const NAME: &'static str = #name;
            const ID: &'static str =
                ::core::concat!(::core::module_path!(), "::", #name, ":", ::core::line!(), ":", ::core::column!());
            type Deps = #links;
        }
    }
}

/// The resolver's name as the user wrote it (for messages).
fn display_name(model: &FnModel) -> String {
    model.ident.to_string().trim_start_matches("r#").to_owned()
}

/// A type as the user wrote it, for a message (braces escaped for `on_unimplemented`).
fn shown(ty: &syn::Type) -> String {
    crate::docs::type_text(ty).replace("& ", "&").replace('{', "{{").replace('}', "}}")
}

/// A resolver parameter that reads the tool's argument `wire`: two traits local to the
/// expansion whose messages spell the names, so an error reads "resolver `r` reads the
/// tool argument `x`, but tool `t` has no argument `x`" or "resolver `r` takes `x: u32`,
/// but the tool's argument `x` is a `String`". Returns the items, the `where` bounds and
/// the expression lending the argument (typed `&T` for a parameter `T` or `&T`).
fn argument_check(
    model: &FnModel,
    index: usize,
    wire: &str,
    ty: &syn::Type,
) -> (TokenStream, TokenStream, TokenStream) {
    let span = ty.span();
    let resolver = display_name(model);
    let reads = format_ident!("__McpReads{}", index, span = span);
    let typed = format_ident!("__McpArgType{}", index, span = span);
    let name = spelled(wire, span);
    let (inner, by_ref) = match ty {
        syn::Type::Reference(r) => (&*r.elem, true),
        other => (other, false),
    };
    let written = shown(ty);
    let wanted = if by_ref {
        format!("a parameter `{wire}` of a type that borrows as `{}` (such as `String` for `&str`)", shown(inner))
    } else {
        format!("a parameter `{wire}: {written}`")
    };
    let missing =
        format!("resolver `{resolver}` reads the tool argument `{wire}`, but tool `{{Self}}` has no argument `{wire}`");
    let missing_label = format!("tool `{{Self}}` has no argument `{wire}`, which resolver `{resolver}` reads");
    let missing_note = format!(
        "a resolver reads the tool's arguments by name: add {wanted} to tool `{{Self}}`, or rename the resolver's parameter `{wire}` to one of the tool's arguments"
    );
    let mismatch =
        format!("resolver `{resolver}` takes `{wire}: {written}`, but the tool's argument `{wire}` is a `{{Self}}`");
    let mismatch_label = format!("resolver `{resolver}` expects the tool's argument `{wire}` as `{written}`");
    let mismatch_note = if by_ref {
        format!(
            "a resolver's `&T` parameter borrows the tool's argument of the same name: make it `{wire}: &{{Self}}`, or give the tool's `{wire}` a type that borrows as `{}`",
            shown(inner)
        )
    } else {
        format!(
            "a resolver's parameter takes the tool's argument of the same name and type: make it `{wire}: {{Self}}` (or `&{{Self}}`), or change the tool's argument to `{wire}: {written}`"
        )
    };
    let type_impl = if by_ref {
        quote_spanned! {span=>
            #[diagnostic::do_not_recommend]
            impl<__McpT: ?::core::marker::Sized + ::core::borrow::Borrow<#inner>> #typed for __McpT {
                fn __mcp_get(&self) -> &#inner {
                    ::core::borrow::Borrow::<#inner>::borrow(self)
                }
            }
        }
    } else {
        quote_spanned! {span=>
            impl #typed for #ty {
                fn __mcp_get(&self) -> &#ty {
                    self
                }
            }
        }
    };
    let items = quote_spanned! {span=>
        #[diagnostic::on_unimplemented(message = #missing, label = #missing_label, note = #missing_note)]
        trait #reads<__McpA: ?::core::marker::Sized> {
            type Ty: ?::core::marker::Sized;
            fn __mcp_get(args: &__McpA) -> &Self::Ty;
        }
        #[diagnostic::do_not_recommend]
        impl<__McpT: ?::core::marker::Sized, __McpA: ?::core::marker::Sized + __mcp_crate::__private::ToolArg<#name>> #reads<__McpA> for __McpT {
            type Ty = <__McpA as __mcp_crate::__private::ToolArg<#name>>::Ty;
            fn __mcp_get(args: &__McpA) -> &Self::Ty {
                __mcp_crate::__private::ToolArg::<#name>::tool_arg(args)
            }
        }
        #[diagnostic::on_unimplemented(message = #mismatch, label = #mismatch_label, note = #mismatch_note)]
        trait #typed {
            fn __mcp_get(&self) -> &#inner;
        }
        #type_impl
    };
    let tool = quote!(<__McpArgs as __mcp_crate::__private::ToolArgs>::Tool);
    let bounds = quote_spanned! {span=>
        #tool: #reads<__McpArgs>,
        <#tool as #reads<__McpArgs>>::Ty: #typed
    };
    let get = quote_spanned! {span=>
        #typed::__mcp_get(<#tool as #reads<__McpArgs>>::__mcp_get(__mcp_args))
    };
    (items, bounds, get)
}

pub fn expand(model: &FnModel, function: &ItemFn) -> TokenStream {
    let ident = &model.ident;
    let companion = super::companion(model, function);
    let resolver_impl = resolver_impl(model);
    let (value, question) = value_type(model);

    let mut bounds = Vec::new();
    let mut bindings = Vec::new();
    let mut deps = Vec::new();
    let mut checks = Vec::new();
    for p in &model.params {
        let local = local(p);
        let ty = &p.ty;
        match p.role {
            ParamRole::Context => {
                bindings.push(quote!(let #local = ::core::clone::Clone::clone(__mcp_round.context());));
            }
            ParamRole::ContextOrArgument => {
                // The request context, the application state or the tool's argument, chosen
                // by a constant that asks whether the type is `mcp::Context` or `mcp::State<T>`.
                let name = spelled(&p.wire_name(), ty.span());
                let (inner, by_ref) = match ty {
                    syn::Type::Reference(r) => (&*r.elem, true),
                    other => (other, false),
                };
                let arg = quote_spanned! {ty.span()=>
                    __mcp_crate::__private::ResolverArg<#inner, #name, { __mcp_crate::__private::Probe::<#inner>::IS_CONTEXT }>
                };
                bounds.push(quote_spanned!(ty.span()=> __McpArgs: #arg));
                let get = quote_spanned! {ty.span()=>
                    <__McpArgs as #arg>::resolver_arg(__mcp_args, __mcp_round.context())
                };
                bindings.push(if by_ref {
                    quote!(let #local: &#inner = #get;)
                } else {
                    quote!(let #local: #ty = ::core::clone::Clone::clone(#get);)
                });
            }
            ParamRole::ContextRef => bindings.push(quote!(let #local = __mcp_round.context();)),
            ParamRole::Resolve => {
                let param = p.ident.to_string();
                bounds.push(quote_spanned!(ty.span()=> #ty: __mcp_crate::__private::FromRound<__McpArgs>));
                deps.push((local, quote_spanned! {ty.span()=>
                    <#ty as __mcp_crate::__private::FromRound<__McpArgs>>::from_round(&mut *__mcp_round, __mcp_args, #param)
                        .await?
                }));
            }
            ParamRole::Argument => {
                let (items, bound, get) = argument_check(model, checks.len(), &p.wire_name(), ty);
                checks.push(items);
                bounds.push(bound);
                bindings.push(match ty {
                    syn::Type::Reference(r) => {
                        let inner = &r.elem;
                        quote!(let #local: &#inner = #get;)
                    }
                    _ => quote!(let #local: #ty = ::core::clone::Clone::clone(#get);),
                });
            }
        }
    }
    let dep_locals: Vec<_> = deps.iter().map(|(l, _)| l.clone()).collect();
    let dep_calls = deps.iter().map(|(l, call)| quote!(let #l = #call;));
    let wait = (!dep_locals.is_empty()).then(|| {
        quote! {
            let (#(::core::option::Option::Some(#dep_locals),)*) = (#(#dep_locals,)*) else {
                return ::core::result::Result::Ok(__mcp_crate::__private::Visit::Pending);
            };
        }
    });
    let call = super::call_user_fn(model);

    let unwrap_result = model.ret.as_ref().and_then(types::result_ok).map(|_| {
        let stop = convert_error_to_stop(quote!(__mcp_error));
        quote! {
            let __mcp_ret = match __mcp_ret {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(__mcp_error) => return ::core::result::Result::Err(#stop),
            };
        }
    });
    let finish = match &question {
        Some(q) => quote_spanned!(q.span()=> __mcp_round.fulfil::<Self, #q>(__mcp_ret).await),
        None => quote!(__mcp_crate::__private::Round::value(__mcp_ret)),
    };
    // A plain return type that is a question behind an alias would be taken as a value;
    // one that is a `protocol::Outcome` (under any name) is the framework's to build.
    let alias_check = match (&question, &model.ret) {
        (None, Some(ret)) => {
            let top = types::result_ok(ret).unwrap_or(ret);
            let input_required = RESOLVER_INPUT_REQUIRED.replace('{', "{{").replace('}', "}}");
            quote_spanned! {top.span()=>
                const _: () = ::core::assert!(
                    !__mcp_crate::__private::Probe::<#top>::IS_QUESTION,
                    "this return type is a question behind an alias or wrapper: write `Elicit<T>`, `Sample` or `ListRoots` itself as the resolver's return type (or the `Ok` of a `Result`)"
                );
                const _: () = ::core::assert!(!__mcp_crate::__private::Probe::<#top>::IS_INPUT_REQUIRED, #input_required);
            }
        }
        _ => TokenStream::new(),
    };

    quote! {
        #companion

        const _: () = {
            #[allow(unused_imports)]
            use __mcp_crate::__private::ProbeFallback as _;

            #resolver_impl
            #alias_check

            // A cycle between resolvers fails here, naming the resolvers.
            const _: () = __mcp_crate::__private::assert_no_cycle::<#ident>(
                <<#ident as __mcp_crate::__private::ResolverLinks>::Deps as __mcp_crate::__private::ResolverReach<#ident, __mcp_crate::__private::ResolverDepth>>::PATH,
            );

            #(#checks)*

            #[automatically_derived]
            impl<__McpArgs> __mcp_crate::__private::ResolveWith<__McpArgs> for #ident
            where
                __McpArgs: ?::core::marker::Sized + ::core::marker::Sync + __mcp_crate::__private::ToolArgs,
                #(#bounds,)*
            {
                fn run<'__mcp>(
                    __mcp_round: &'__mcp mut __mcp_crate::__private::Round,
                    __mcp_args: &'__mcp __McpArgs,
                ) -> __mcp_crate::__private::RoundFuture<'__mcp, ::core::result::Result<__mcp_crate::__private::Visit<#value>, __mcp_crate::__private::Stop>> {
                    ::std::boxed::Box::pin(async move {
                        let _ = (&__mcp_round, &__mcp_args);
                        #(#dep_calls)*
                        #wait
                        #(#bindings)*
                        let __mcp_ret = #call;
                        #unwrap_result
                        #finish
                    })
                }
            }
        };
    }
}
