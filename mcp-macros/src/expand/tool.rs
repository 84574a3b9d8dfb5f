//! `#[mcp::tool]`.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use super::{call_user_fn, injected_bindings, local};
use crate::model::{FnModel, ParamRole};
use crate::types;
use crate::validate::{resolve_with_input_message, task_with_input_message};

pub fn expand(model: &FnModel, function: &ItemFn) -> TokenStream {
    let scopes = super::scopes(model);
    let ident = &model.ident;
    let super::Common { name, companion, .. } = super::common(model, function);
    let spec = tool_spec(model);

    let param_specs = model.params.iter().filter(|p| reads_argument(p)).map(param_spec);

    let arg_bindings = decode_arguments(model, &name).unwrap_or_else(|| one_by_one(model, &name));
    let injected = injected_bindings(model);
    let resolved = resolved_bindings(model);
    let call = call_user_fn(model);

    let (convert, output_ty) = conversion(model);
    let convert = if model.params.iter().any(|p| p.role == ParamRole::Resolve) {
        quote!(__mcp_round.check_final(#convert))
    } else {
        convert
    };
    let output_schema = match (&output_ty, model.options.output_schema) {
        (_, Some(false)) | (None, _) => quote!(::core::option::Option::None),
        (Some(ty), _) => quote_spanned! {ty.span()=> ::core::option::Option::Some(|| {
            #[allow(unused_imports)]
            use __mcp_crate::__private::{SchemaViaIntoTool as _, SchemaViaNeither as _, SchemaViaStructured as _};
            (&__mcp_crate::__private::RetType::<#ty>::NEW).__mcp_output_schema()
        })},
    };
    let inline_refs = model.options.inline_refs == Some(true);
    let resolve_check = resolve_check(model);
    let resolver_needs = resolver_collects(model);
    let resolver_needs = (!resolver_needs.is_empty()).then(
        || quote!(__mcp_crate::__private::Graph::state_needs_of(__mcp_needs, |__mcp_graph| { #(#resolver_needs)* });),
    );
    let state_needs = super::state_needs(model.params.iter(), resolver_needs.unwrap_or_default());
    let uses_args = model.reads_arguments();
    let mut_params = uses_args.then(|| quote!(mut));
    let task = task_support(model);
    let ctx_name = if task.is_some() || model.params.iter().any(|p| p.role != ParamRole::Argument) {
        quote!(__mcp_ctx)
    } else {
        quote!(_)
    };
    let task_const = task.as_ref().map(|support| quote!(const TASK: __mcp_crate::tasks::TaskSupport = #support;));
    let may_require_input = may_require_input(model);
    // A task tool resolves its parameters in the request (multi round-trip rounds), then
    // runs the body as the task's work when the request may become one.
    let body = match &task {
        Some(_) => quote! {
            #resolved
            let __mcp_request: __mcp_crate::RequestContext =
                ::core::clone::Clone::clone(::core::ops::Deref::deref(&__mcp_ctx));
            __mcp_crate::__private::run_task(
                &__mcp_request,
                <Self as __mcp_crate::items::ToolDef>::TASK,
                async move {
                    #(#injected)*
                    let __mcp_ret = #call;
                    #convert
                },
            ).await
        },
        None => quote! {
            #(#injected)*
            #resolved
            let __mcp_ret = #call;
            #convert
        },
    };

    // A tool that never awaits runs in a plain function behind the runtime's one future
    // type, rather than in an `async` block (a state machine for each tool). That function
    // is a closure: rustc places closures (like generic code) in the module's "volatile"
    // codegen unit, and a nested `fn` in the module's own unit, the one that any edit to a
    // tool's body invalidates. The argument specs are a `const` (promoted, so its data goes
    // with the closure), not a `static` (an item of that unit). Measured on 100 tools: 601
    // items in that unit before, 301 after; the rebuild after changing a value in one tool's
    // body (no line moving) 0.76 -> 0.68 s in one A/B. An edit that moves lines redoes the
    // volatile unit as well, as it did before.
    let sync = !model.is_async && task.is_none() && !model.params.iter().any(|p| p.role == ParamRole::Resolve);
    let call_fn = if sync {
        quote! {
            fn call(
                __mcp_ctx: __mcp_crate::Context,
                __mcp_params: __mcp_crate::protocol::CallToolParams,
            ) -> __mcp_crate::__private::BoxFuture<::core::result::Result<__mcp_crate::protocol::CallToolOutcome, __mcp_crate::Error>> {
                __mcp_crate::__private::sync_call(__mcp_ctx, __mcp_params, |
                    #ctx_name: __mcp_crate::Context,
                    #mut_params __mcp_params: __mcp_crate::protocol::CallToolParams,
                | -> ::core::result::Result<__mcp_crate::protocol::CallToolOutcome, __mcp_crate::Error> {
                    #arg_bindings
                    #body
                })
            }
        }
    } else {
        quote! {
            fn call(
                #ctx_name: __mcp_crate::Context,
                #mut_params __mcp_params: __mcp_crate::protocol::CallToolParams,
            ) -> __mcp_crate::__private::BoxFuture<::core::result::Result<__mcp_crate::protocol::CallToolOutcome, __mcp_crate::Error>> {
                ::std::boxed::Box::pin(async move {
                    #arg_bindings
                    #body
                })
            }
        }
    };

    quote! {
        #companion

        const _: () = {
            #resolve_check

            #[automatically_derived]
            impl __mcp_crate::items::ToolDef for #ident {
                const NAME: &'static str = #name;
                #scopes
                #task_const
                #may_require_input

                fn definition() -> __mcp_crate::protocol::Tool {
                    // Data, and one shared function that builds the definition from it.
                    const __MCP_SPEC: __mcp_crate::__private::ToolSpec = __mcp_crate::__private::ToolSpec {
                        name: #name,
                        params: &[#(#param_specs),*],
                        #spec
                        output_schema: #output_schema,
                        inline_refs: #inline_refs,
                    };
                    __mcp_crate::__private::tool_definition(&__MCP_SPEC)
                }

                #call_fn

                #state_needs
            }
        };
    }
}

/// Decoding the arguments one call at a time, with the code for each in the tool (for
/// parameters whose type decides whether they are arguments, and for long lists).
fn one_by_one(model: &FnModel, name: &str) -> TokenStream {
    if !model.reads_arguments() {
        return quote!(let _ = &__mcp_params;);
    }
    let bindings = model.params.iter().filter(|p| reads_argument(p)).map(|p| {
        let ty = &p.ty;
        let wire = p.wire_name();
        let local = local(p);
        if let (Some(expr), false) = (&p.default, p.role == ParamRole::ContextOrArgument) {
            // The default in a match arm rather than a closure: a closure would be one more
            // instance of a generic function for each such parameter.
            let decode = quote_spanned! {ty.span()=>
                __mcp_crate::__private::arg_unless_absent::<#ty>(&mut __mcp_args, #wire, #name)
            };
            return quote! {
                let #local: #ty = match #decode {
                    ::core::result::Result::Ok(::core::option::Option::Some(value)) => value,
                    ::core::result::Result::Ok(::core::option::Option::None) => #expr,
                    ::core::result::Result::Err(result) => return ::core::result::Result::Ok(result.into()),
                };
            };
        }
        let decode = match (&p.default, types::option_inner(ty)) {
            _ if p.role == ParamRole::ContextOrArgument => quote_spanned! {ty.span()=> {
                #[allow(unused_imports)]
                use __mcp_crate::__private::{ContextViaArgument as _, ContextViaContext as _};
                (&__mcp_crate::__private::Slot::<#ty>::NEW).__mcp_bind(&__mcp_ctx, &mut __mcp_args, #wire, #name)
            }},
            (Some(_), _) => unreachable!("a defaulted argument is decoded above"),
            (None, Some(inner)) => quote_spanned! {inner.span()=>
                __mcp_crate::__private::arg_optional::<#inner>(&mut __mcp_args, #wire, #name)
            },
            (None, None) => {
                quote_spanned! {ty.span()=> __mcp_crate::__private::arg::<#ty>(&mut __mcp_args, #wire, #name) }
            }
        };
        quote! {
            let #local: #ty = match #decode {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(result) => return ::core::result::Result::Ok(result.into()),
            };
        }
    });
    quote! {
        let mut __mcp_args = __mcp_params.arguments.take().unwrap_or_default();
        #(#bindings)*
    }
}

/// Decoding the arguments in one call of the runtime's `decode_args`, with a tuple of
/// `ArgSpec`s (each built by a function whose bound checks the parameter's type, where it
/// is written): the decoding is then one instance of a generic function for each shape of
/// parameter list, shared by the tools that have it. `None` when it does not apply: a
/// parameter whose role its type decides, or more than 12 arguments.
fn decode_arguments(model: &FnModel, name: &str) -> Option<TokenStream> {
    let params: Vec<_> = model.params.iter().filter(|p| reads_argument(p)).collect();
    if params.is_empty() || params.len() > 12 || params.iter().any(|p| p.role != ParamRole::Argument) {
        return None;
    }
    let spec = quote!(__mcp_crate::__private::ArgSpec);
    let option = quote!(::core::option::Option);
    let (types, specs): (Vec<_>, Vec<_>) = params
        .iter()
        .map(|p| {
            let ty = &p.ty;
            let wire = p.wire_name();
            match (&p.default, types::option_inner(ty)) {
                (Some(_), _) => (
                    quote!(#spec<#option<#ty>, #ty>),
                    quote_spanned!(ty.span()=> __mcp_crate::__private::defaulted::<#ty>(#wire)),
                ),
                // Bound the inner type, so a missing derive on it gets the parameter message.
                (None, Some(inner)) => (
                    quote!(#spec<#option<#inner>, #option<#inner>>),
                    quote_spanned!(inner.span()=> __mcp_crate::__private::optional::<#inner>(#wire)),
                ),
                (None, None) => (
                    quote!(#spec<#ty, #ty>),
                    quote_spanned!(ty.span()=> __mcp_crate::__private::required::<#ty>(#wire)),
                ),
            }
        })
        .unzip();
    let locals: Vec<_> = params.iter().map(|p| local(p)).collect();
    // A default is computed only for an absent argument, after all decoded.
    let defaults = params.iter().filter_map(|p| {
        let expr = p.default.as_ref()?;
        let (ty, local) = (&p.ty, local(p));
        Some(quote! {
            let #local: #ty = match #local {
                ::core::option::Option::Some(value) => value,
                ::core::option::Option::None => #expr,
            };
        })
    });
    Some(quote! {
        const __MCP_ARGS: (#(#types,)*) = (#(#specs,)*);
        let (#(#locals,)*) = match __mcp_crate::__private::decode_args(&mut __mcp_params, #name, &__MCP_ARGS) {
            ::core::result::Result::Ok(values) => values,
            ::core::result::Result::Err(outcome) => return ::core::result::Result::Ok(outcome),
        };
        #(#defaults)*
    })
}

/// Whether the parameter is (or, for `ContextOrArgument`, may be) a client argument.
fn reads_argument(param: &crate::model::Param) -> bool {
    matches!(param.role, ParamRole::Argument | ParamRole::ContextOrArgument)
}

/// How the return value becomes an outcome, and the type whose schema is the output schema.
fn conversion(model: &FnModel) -> (TokenStream, Option<syn::Type>) {
    let Some(ret) = &model.ret else {
        return (quote!(__mcp_crate::items::IntoToolOutcome::into_tool_outcome(__mcp_ret)), None);
    };
    let via = |value: TokenStream, ty: &syn::Type| {
        quote_spanned! {ty.span()=> {
            #[allow(unused_imports)]
            use __mcp_crate::__private::{ViaIntoTool as _, ViaNeither as _, ViaStructured as _};
            __mcp_crate::__private::Ret(#value).__mcp_tool()
        }}
    };
    match types::result_ok(ret) {
        Some(ok) => {
            let ok_conv = via(quote!(__mcp_value), ok);
            (
                quote! {
                    match __mcp_ret {
                        ::core::result::Result::Ok(__mcp_value) => #ok_conv,
                        ::core::result::Result::Err(__mcp_error) => {
                            #[allow(unused_imports)]
                            use __mcp_crate::__private::{ToolErrViaDisplay as _, ToolErrViaMcp as _};
                            (&__mcp_crate::__private::ErrWrap(__mcp_error)).__mcp_tool_error()
                        }
                    }
                },
                Some(ok.clone()),
            )
        }
        None => (via(quote!(__mcp_ret), ret), Some(ret.clone())),
    }
}

/// `TaskSupport::Optional` or `::Required` for `task = "..."` (an invalid value was
/// reported by validation).
fn task_support(model: &FnModel) -> Option<TokenStream> {
    let task = model.options.task.as_ref()?;
    let span = task.span();
    Some(match task.value().as_str() {
        "required" => quote_spanned!(span=> __mcp_crate::tasks::TaskSupport::Required),
        _ => quote_spanned!(span=> __mcp_crate::tasks::TaskSupport::Optional),
    })
}

/// A compile-time check, for what syntax cannot see (type aliases, user enums), that a
/// tool with `Resolve` parameters, or one that runs as a task, does not return an
/// `InputRequiredResult`.
fn resolve_check(model: &FnModel) -> TokenStream {
    let has_resolve = model.params.iter().any(|p| p.role == ParamRole::Resolve);
    let Some(ret) = model.ret.as_ref().filter(|_| has_resolve || model.options.task.is_some()) else {
        return TokenStream::new();
    };
    let message = if has_resolve { resolve_with_input_message() } else { task_with_input_message() };
    let message = message.replace('{', "{{").replace('}', "}}");
    quote_spanned! {ret.span()=>
        #[allow(unused_imports)]
        use __mcp_crate::__private::ProbeFallback as _;
        const _: () = ::core::assert!(!__mcp_crate::__private::Probe::<#ret>::TOOL_MAY_REQUIRE_INPUT, #message);
    }
}

/// `const MAY_REQUIRE_INPUT` for a tool that provably never answers `input_required`: no
/// `Resolve` parameter, no task, and a return type that cannot carry an
/// `InputRequiredResult` (asked of the concrete type, so aliases count). Nothing (the
/// trait's `true`) otherwise, and for a return type that names an `impl Trait`, which a
/// constant cannot.
fn may_require_input(model: &FnModel) -> TokenStream {
    if model.options.task.is_some() || model.params.iter().any(|p| p.role == ParamRole::Resolve) {
        return TokenStream::new();
    }
    let Some(ret) = &model.ret else {
        return quote!(
            const MAY_REQUIRE_INPUT: bool = false;
        );
    };
    if names_impl_trait(ret.to_token_stream()) {
        return TokenStream::new();
    }
    quote_spanned! {ret.span()=>
        const MAY_REQUIRE_INPUT: bool = {
            #[allow(unused_imports)]
            use __mcp_crate::__private::ProbeFallback as _;
            __mcp_crate::__private::Probe::<#ret>::TOOL_MAY_REQUIRE_INPUT
        };
    }
}

fn names_impl_trait(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => ident == "impl",
        proc_macro2::TokenTree::Group(group) => names_impl_trait(group.stream()),
        _ => false,
    })
}

/// One parameter's entry in the tool's `ParamSpec`s.
fn param_spec(p: &crate::model::Param) -> TokenStream {
    let ty = &p.ty;
    let wire = p.wire_name();
    let description = optional(p.description());
    if p.role == ParamRole::ContextOrArgument {
        // The type decides whether it is an argument: a closure that asks it.
        return quote_spanned! {ty.span()=> __mcp_crate::__private::ParamSpec {
            name: #wire,
            description: #description,
            schema: |__mcp_generator| {
                #[allow(unused_imports)]
                use __mcp_crate::__private::{ContextViaArgument as _, ContextViaContext as _};
                (&__mcp_crate::__private::Slot::<#ty>::NEW).__mcp_param_schema(__mcp_generator)
            },
            required: true,
            default: ::core::option::Option::None,
        }};
    }
    let required = types::option_inner(ty).is_none() && p.default.is_none();
    let default = match &p.default {
        Some(expr) => quote_spanned! {ty.span()=>
            ::core::option::Option::Some(|| __mcp_crate::__private::default_json::<#ty>(&(#expr)))
        },
        None => quote!(::core::option::Option::None),
    };
    // Bound the inner type of an `Option`, so a missing derive on it gets the parameter message.
    let schema = match types::option_inner(ty).filter(|_| p.default.is_none()) {
        Some(inner) => quote_spanned!(inner.span()=> __mcp_crate::__private::optional_schema_of::<#inner>),
        None => quote_spanned!(ty.span()=> __mcp_crate::__private::schema_of::<#ty>),
    };
    quote! {
        __mcp_crate::__private::ParamSpec { name: #wire, description: #description, schema: #schema, required: #required, default: #default }
    }
}

/// `Some("..")` or `None`.
fn optional(text: Option<String>) -> TokenStream {
    match text {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    }
}

/// The `ToolSpec` fields for the title, description, icons, `_meta` and annotations.
fn tool_spec(model: &FnModel) -> TokenStream {
    let none = quote!(::core::option::Option::None);
    let some = |value: &dyn quote::ToTokens| quote!(::core::option::Option::Some(#value));
    let title = model.options.title.as_ref().map_or_else(|| none.clone(), |t| some(t));
    // Doc attributes that macros compute (`#[doc = concat!(..)]`) are evaluated by the
    // compiler, then trimmed.
    let computed = model.options.description.is_none() && !model.doc_exprs.is_empty();
    let description = if computed {
        let literal = model.description().unwrap_or_default();
        let exprs = &model.doc_exprs;
        quote!(::core::option::Option::Some(::core::concat!(#literal, #(#exprs),*)))
    } else {
        optional(model.description())
    };
    let icons = &model.options.icons;
    let meta = model.options.meta.as_ref().map_or_else(|| none.clone(), |m| some(m));
    let annotations = match &model.options.annotations {
        None => none.clone(),
        Some(a) => {
            let title = a.title.as_ref().map_or_else(|| none.clone(), |t| some(t));
            let flag = |value: Option<bool>| value.map_or_else(|| none.clone(), |v| some(&v));
            let (read_only, destructive) = (flag(a.read_only), flag(a.destructive));
            let (idempotent, open_world) = (flag(a.idempotent), flag(a.open_world));
            quote!(::core::option::Option::Some(__mcp_crate::__private::AnnotationsSpec {
                title: #title,
                read_only: #read_only,
                destructive: #destructive,
                idempotent: #idempotent,
                open_world: #open_world,
            }))
        }
    };
    quote! {
        title: #title,
        description: #description,
        trim_description: #computed,
        icons: &[#(#icons),*],
        meta: #meta,
        annotations: #annotations,
    }
}

/// For each `Resolve` parameter, entering its resolver (and theirs) into `__mcp_graph`.
fn resolver_collects(model: &FnModel) -> Vec<TokenStream> {
    let resolved = model.params.iter().filter(|p| p.role == ParamRole::Resolve);
    resolved
        .map(|p| {
            let ty = &p.ty;
            quote_spanned! {ty.span()=>
                <<#ty as __mcp_crate::__private::ResolveParam>::Resolver as __mcp_crate::__private::Resolver>::collect(__mcp_graph);
            }
        })
        .collect()
}

/// The `Resolve` parameters: build the tool's plan once, then run one round of its
/// resolvers against the decoded arguments, returning the round's questions if any are open.
/// (Resolvers read the tool's arguments by name, including those spelled `Context` that
/// are a user's type; a resolver asking for an `mcp::Context` takes the request context.)
fn resolved_bindings(model: &FnModel) -> TokenStream {
    let resolved: Vec<_> = model.params.iter().filter(|p| p.role == ParamRole::Resolve).collect();
    if resolved.is_empty() {
        return TokenStream::new();
    }
    let name = model.name();
    let ident = &model.ident;
    let fields = model.maybe_arguments().map(|p| {
        let local = local(p);
        let ty = &p.ty;
        quote!(#local: &'__mcp #ty)
    });
    let arg_impls = model.maybe_arguments().map(|p| {
        let local = local(p);
        let ty = &p.ty;
        let spelled = super::resolver::spelled(&p.wire_name(), proc_macro2::Span::call_site());
        quote! {
            impl<'__mcp> __mcp_crate::__private::ToolArg<#spelled> for __mcp_tool_arguments<'__mcp> {
                type Ty = #ty;
                fn tool_arg(&self) -> &#ty {
                    self.#local
                }
            }
        }
    });
    let inits = model.maybe_arguments().map(|p| {
        let local = local(p);
        quote!(#local: &#local)
    });
    let collect = resolver_collects(model);
    let locals: Vec<_> = resolved.iter().map(|p| local(p)).collect();
    let rounds = resolved.iter().map(|p| {
        let ty = &p.ty;
        let local = local(p);
        let param = p.ident.to_string();
        quote_spanned! {ty.span()=>
            let #local = match <#ty as __mcp_crate::__private::FromRound<_>>::from_round(&mut __mcp_round, &__mcp_targs, #param).await {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(stop) => return stop.0,
            };
        }
    });
    let unwraps = resolved.iter().map(|p| {
        let ty = &p.ty;
        let local = local(p);
        let param = p.ident.to_string();
        quote! {
            let #local: #ty = match #local {
                ::core::option::Option::Some(value) => value,
                ::core::option::Option::None => return __mcp_round.unresolved(#param),
            };
        }
    });
    quote! {
        #[allow(non_camel_case_types)]
        struct __mcp_tool_arguments<'__mcp> {
            #(#fields,)*
            __mcp_lifetime: ::core::marker::PhantomData<&'__mcp ()>,
        }
        #(#arg_impls)*
        impl<'__mcp> __mcp_crate::__private::ToolArgs for __mcp_tool_arguments<'__mcp> {
            type Tool = #ident;
        }
        static __MCP_PLAN: ::std::sync::OnceLock<__mcp_crate::__private::Plan> = ::std::sync::OnceLock::new();
        let __mcp_plan = __MCP_PLAN.get_or_init(|| {
            __mcp_crate::__private::Plan::build(|__mcp_graph| { #(#collect)* })
        });
        let mut __mcp_round = __mcp_crate::__private::Round::new(&__mcp_ctx, __mcp_plan, #name);
        let (#(#locals,)*) = {
            let __mcp_targs = __mcp_tool_arguments { #(#inits,)* __mcp_lifetime: ::core::marker::PhantomData };
            #(#rounds)*
            (#(#locals,)*)
        };
        if let ::core::option::Option::Some(outcome) = __mcp_round.finish() {
            return outcome;
        }
        #(#unwraps)*
    }
}
