//! `#[mcp::prompt]`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use super::{call_user_fn, injected_bindings, local};
use crate::model::{FnModel, ParamRole};
use crate::types;

pub fn expand(model: &FnModel, function: &ItemFn) -> TokenStream {
    let scopes = super::scopes(model);
    let ident = &model.ident;
    let super::Common { name, companion, setters } = super::common(model, function);

    let arguments = model.maybe_arguments().map(|p| {
        let wire = p.wire_name();
        let ty = &p.ty;
        if p.role == ParamRole::ContextOrArgument {
            let description = match p.description() {
                Some(d) => quote!(::core::option::Option::Some(#d)),
                None => quote!(::core::option::Option::None),
            };
            return quote_spanned! {ty.span()=> {
                #[allow(unused_imports)]
                use __mcp_crate::__private::{ContextViaArgument as _, ContextViaContext as _};
                __mcp_arguments.extend((&__mcp_crate::__private::Slot::<#ty>::NEW).__mcp_prompt_argument(#wire, #description));
            }};
        }
        let description = p.description().map(|d| quote!(.with_description(#d)));
        let required = types::option_inner(ty).is_none();
        quote! {
            __mcp_arguments.push(
                __mcp_crate::protocol::PromptArgument::new(#wire) #description .with_required(#required)
            );
        }
    });
    let bindings = model.maybe_arguments().map(|p| {
        let wire = p.wire_name();
        let local = local(p);
        let ty = &p.ty;
        match types::option_inner(ty) {
            _ if p.role == ParamRole::ContextOrArgument => quote_spanned! {ty.span()=>
                let #local: #ty = {
                    #[allow(unused_imports)]
                    use __mcp_crate::__private::{ContextViaArgument as _, ContextViaContext as _};
                    (&__mcp_crate::__private::Slot::<#ty>::NEW).__mcp_prompt_bind(&__mcp_ctx, &__mcp_args, #wire)?
                };
            },
            Some(inner) => quote_spanned! {inner.span()=>
                let #local: #ty = __mcp_crate::__private::prompt_arg::<#inner>(&__mcp_args, #wire)?;
            },
            None => quote_spanned! {ty.span()=>
                let #local: #ty = match __mcp_crate::__private::prompt_arg::<#ty>(&__mcp_args, #wire)? {
                    ::core::option::Option::Some(value) => value,
                    ::core::option::Option::None => return ::core::result::Result::Err(__mcp_crate::__private::missing_arg(#wire)),
                };
            },
        }
    });
    let injected = injected_bindings(model);
    let state_needs = super::state_needs(model.params.iter(), TokenStream::new());
    let call = call_user_fn(model);
    let convert = super::convert_outcome(
        model,
        |value, span| quote_spanned!(span=> __mcp_crate::__private::prompt_outcome(#value)),
    );
    let uses_args = model.reads_arguments();
    let args_decl = if uses_args {
        quote!(let __mcp_args = __mcp_params.arguments.unwrap_or_default();)
    } else {
        quote!(let _ = &__mcp_params;)
    };
    let completer = crate::complete::completer_method(model);
    let ctx_name =
        if model.params.iter().any(|p| p.role != ParamRole::Argument) { quote!(__mcp_ctx) } else { quote!(_) };

    quote! {
        #companion

        const _: () = {
            #[automatically_derived]
            impl __mcp_crate::items::PromptDef for #ident {
                const NAME: &'static str = #name;
                #scopes

                fn definition() -> __mcp_crate::protocol::Prompt {
                    #[allow(unused_mut)]
                    let mut __mcp_arguments: ::std::vec::Vec<__mcp_crate::protocol::PromptArgument> = ::std::vec::Vec::new();
                    #(#arguments)*
                    let __mcp_prompt = __mcp_crate::protocol::Prompt::new(#name) #setters;
                    if __mcp_arguments.is_empty() { __mcp_prompt } else { __mcp_prompt.with_arguments(__mcp_arguments) }
                }

                fn get(
                    #ctx_name: __mcp_crate::Context,
                    __mcp_params: __mcp_crate::protocol::GetPromptParams,
                ) -> __mcp_crate::__private::BoxFuture<::core::result::Result<__mcp_crate::protocol::GetPromptOutcome, __mcp_crate::Error>> {
                    ::std::boxed::Box::pin(async move {
                        #args_decl
                        #(#bindings)*
                        #(#injected)*
                        let __mcp_ret = #call;
                        #convert
                    })
                }

                #completer
                #state_needs
            }
        };
    }
}
