//! `#[mcp::prompt]`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use super::{call_user_fn, injected_bindings, local, opt_string};
use crate::model::{FnModel, ParamRole};
use crate::types;

pub fn expand(model: &FnModel, function: &ItemFn) -> TokenStream {
    let ident = &model.ident;
    let super::Common { name, companion, title, description, icons, meta } = super::common(model, function);

    let arguments = model.arguments().map(|p| {
        let wire = p.wire_name();
        let description = opt_string(p.description());
        let required = types::option_inner(&p.ty).is_none();
        quote! {
            ::mcp::protocol::PromptArgument {
                name: ::std::string::String::from(#wire),
                title: ::core::option::Option::None,
                description: #description,
                required: ::core::option::Option::Some(#required),
            }
        }
    });
    let bindings = model.arguments().map(|p| {
        let wire = p.wire_name();
        let local = local(p);
        let ty = &p.ty;
        match types::option_inner(ty) {
            Some(inner) => quote_spanned! {inner.span()=>
                let #local: #ty = ::mcp::__private::prompt_arg::<#inner>(&__mcp_args, #wire)?;
            },
            None => quote_spanned! {ty.span()=>
                let #local: #ty = match ::mcp::__private::prompt_arg::<#ty>(&__mcp_args, #wire)? {
                    ::core::option::Option::Some(value) => value,
                    ::core::option::Option::None => return ::core::result::Result::Err(::mcp::__private::missing_arg(#wire)),
                };
            },
        }
    });
    let injected = injected_bindings(model);
    let call = call_user_fn(model);
    let convert =
        super::convert_outcome(model, |value, span| quote_spanned!(span=> ::mcp::__private::prompt_outcome(#value)));
    let uses_args = model.arguments().next().is_some();
    let args_decl = if uses_args {
        quote!(let __mcp_args = __mcp_params.arguments.unwrap_or_default();)
    } else {
        quote!(let _ = &__mcp_params;)
    };
    let ctx_name =
        if model.params.iter().any(|p| p.role != ParamRole::Argument) { quote!(__mcp_ctx) } else { quote!(_) };

    quote! {
        #companion

        const _: () = {
            #[automatically_derived]
            impl ::mcp::items::PromptDef for #ident {
                const NAME: &'static str = #name;

                fn definition() -> ::mcp::protocol::Prompt {
                    let arguments: ::std::vec::Vec<::mcp::protocol::PromptArgument> = ::std::vec![#(#arguments),*];
                    ::mcp::protocol::Prompt {
                        name: ::std::string::String::from(#name),
                        title: #title,
                        description: #description,
                        arguments: if arguments.is_empty() { ::core::option::Option::None } else { ::core::option::Option::Some(arguments) },
                        icons: #icons,
                        meta: #meta,
                    }
                }

                fn get(
                    #ctx_name: ::mcp::Context,
                    __mcp_params: ::mcp::protocol::GetPromptParams,
                ) -> ::mcp::__private::BoxFuture<::core::result::Result<::mcp::protocol::GetPromptOutcome, ::mcp::Error>> {
                    ::std::boxed::Box::pin(async move {
                        #args_decl
                        #(#bindings)*
                        #(#injected)*
                        let __mcp_ret = #call;
                        #convert
                    })
                }
            }
        };
    }
}
