//! `#[mcp::resource]`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use super::{call_user_fn, injected_bindings, local, opt_string};
use crate::model::{FnModel, ParamRole};
use crate::validate::{STATIC_WITH_INPUT, template_variables};

pub fn expand(model: &FnModel, function: &ItemFn) -> TokenStream {
    let ident = &model.ident;
    let super::Common { name, companion, title, description, icons, meta } = super::common(model, function);
    let uri = model.options.uri.as_ref().map_or_else(String::new, syn::LitStr::value);
    let is_template = template_variables(&uri).is_ok_and(|v| !v.is_empty());
    let mime = opt_string(model.options.mime_type.as_ref().map(syn::LitStr::value));
    let mime_ref = match &model.options.mime_type {
        Some(m) => quote!(::core::option::Option::Some(#m)),
        None => quote!(::core::option::Option::None),
    };
    let definition = if is_template {
        quote! {
            ::mcp::items::ResourceKind::Template(::mcp::protocol::ResourceTemplate {
                uri_template: ::std::string::String::from(#uri),
                name: ::std::string::String::from(#name),
                title: #title,
                description: #description,
                mime_type: #mime,
                annotations: ::core::option::Option::None,
                icons: #icons,
                meta: #meta,
            })
        }
    } else {
        quote! {
            ::mcp::items::ResourceKind::Static(::mcp::protocol::Resource {
                uri: ::std::string::String::from(#uri),
                name: ::std::string::String::from(#name),
                title: #title,
                description: #description,
                mime_type: #mime,
                annotations: ::core::option::Option::None,
                size: ::core::option::Option::None,
                icons: #icons,
                meta: #meta,
            })
        }
    };
    let bindings = model.arguments().map(|p| {
        let wire = p.wire_name();
        let local = local(p);
        let ty = &p.ty;
        quote_spanned! {ty.span()=>
            let #local: #ty = ::mcp::__private::template_var::<#ty>(&__mcp_vars, #wire)?;
        }
    });
    let injected = injected_bindings(model);
    let call = call_user_fn(model);
    let convert = super::convert_outcome(
        model,
        |value, span| quote_spanned!(span=> ::mcp::__private::resource_outcome(#value, &__mcp_params.uri, #mime_ref)),
    );
    let message = STATIC_WITH_INPUT.replace('{', "{{").replace('}', "}}");
    let static_check = match (&model.ret, is_template) {
        (Some(ret), false) => quote_spanned! {ret.span()=>
            #[allow(unused_imports)]
            use ::mcp::__private::ProbeFallback as _;
            const _: () = ::core::assert!(!::mcp::__private::ResourceProbe::<#ret>::RESOURCE_MAY_REQUIRE_INPUT, #message);
        },
        _ => TokenStream::new(),
    };
    let ctx_name =
        if model.params.iter().any(|p| p.role != ParamRole::Argument) { quote!(__mcp_ctx) } else { quote!(_) };
    let vars_name = if model.arguments().next().is_some() { quote!(__mcp_vars) } else { quote!(_) };

    quote! {
        #companion

        const _: () = {
            #static_check

            #[automatically_derived]
            impl ::mcp::items::ResourceDef for #ident {
                const URI: &'static str = #uri;

                fn definition() -> ::mcp::items::ResourceKind {
                    #definition
                }

                fn read(
                    #ctx_name: ::mcp::Context,
                    __mcp_params: ::mcp::protocol::ReadResourceParams,
                    #vars_name: ::mcp::items::template::Variables,
                ) -> ::mcp::__private::BoxFuture<::core::result::Result<::mcp::protocol::ReadResourceOutcome, ::mcp::Error>> {
                    ::std::boxed::Box::pin(async move {
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
