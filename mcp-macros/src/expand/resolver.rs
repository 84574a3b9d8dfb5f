//! `#[mcp::resolver]`: the companion type implements `Resolver` (value type, wire key,
//! depth, dependency graph) and `ResolveWith<A>` for every tool-arguments type `A` that
//! has the arguments it takes by name.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
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
    let depth = deps.iter().map(|ty| {
        let r = dep_resolver(ty);
        quote! {
            if <#r as __mcp_crate::__private::Resolver>::DEPTH > __mcp_depth {
                __mcp_depth = <#r as __mcp_crate::__private::Resolver>::DEPTH;
            }
        }
    });
    let collect = deps.iter().map(|ty| {
        let r = dep_resolver(ty);
        quote!(<#r as __mcp_crate::__private::Resolver>::collect(__mcp_graph);)
    });
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
            const DEPTH: usize = {
                #[allow(unused_mut)]
                let mut __mcp_depth = 0usize;
                #(#depth)*
                __mcp_depth + 1
            };
            fn collect(__mcp_graph: &mut __mcp_crate::__private::Graph) {
                if __mcp_graph.enter::<Self>() {
                    #(#states)*
                    #(#collect)*
                }
            }
        }
    }
}

pub fn expand(model: &FnModel, function: &ItemFn) -> TokenStream {
    let ident = &model.ident;
    let companion = super::companion(model, function);
    let resolver_impl = resolver_impl(model);
    let (value, question) = value_type(model);

    let mut bounds = Vec::new();
    let mut bindings = Vec::new();
    let mut deps = Vec::new();
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
                let name = spelled(&p.wire_name(), ty.span());
                let get = quote_spanned!(ty.span()=> <__McpArgs as __mcp_crate::__private::ToolArg<#name>>::tool_arg(__mcp_args));
                if let syn::Type::Reference(r) = ty {
                    let inner = &r.elem;
                    bounds.push(quote_spanned!(ty.span()=> __McpArgs: __mcp_crate::__private::ToolArg<#name>));
                    bounds.push(quote_spanned! {ty.span()=>
                        <__McpArgs as __mcp_crate::__private::ToolArg<#name>>::Ty: ::core::borrow::Borrow<#inner>
                    });
                    bindings.push(quote!(let #local: &#inner = ::core::borrow::Borrow::<#inner>::borrow(#get);));
                } else {
                    bounds
                        .push(quote_spanned!(ty.span()=> __McpArgs: __mcp_crate::__private::ToolArg<#name, Ty = #ty>));
                    bindings.push(quote!(let #local: #ty = ::core::clone::Clone::clone(#get);));
                }
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

            // A cycle between resolvers fails here ("cycle detected").
            const _: usize = <#ident as __mcp_crate::__private::Resolver>::DEPTH;

            #[automatically_derived]
            impl<__McpArgs> __mcp_crate::__private::ResolveWith<__McpArgs> for #ident
            where
                __McpArgs: ?::core::marker::Sized + ::core::marker::Sync,
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
