//! `#[mcp::resource]`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use super::{call_user_fn, injected_bindings, local};
use crate::model::{FnModel, ParamRole};
use crate::validate::{STATIC_WITH_INPUT, template_variables};

pub fn expand(model: &FnModel, function: &ItemFn) -> TokenStream {
    let scopes = super::scopes(model);
    let ident = &model.ident;
    let super::Common { name, companion, setters } = super::common(model, function);
    let uri = model.options.uri.as_ref().map_or_else(String::new, syn::LitStr::value);
    let vars = template_variables(&uri).unwrap_or_default();
    let is_template = !vars.is_empty();
    let mime = model.options.mime_type.as_ref().map(|m| quote!(.with_mime_type(#m)));
    let mime_ref = match &model.options.mime_type {
        Some(m) => quote!(::core::option::Option::Some(#m)),
        None => quote!(::core::option::Option::None),
    };
    let definition = if is_template {
        quote! {
            __mcp_crate::items::ResourceKind::Template(
                __mcp_crate::protocol::ResourceTemplate::new(#uri, #name) #setters #mime
            )
        }
    } else {
        quote! {
            __mcp_crate::items::ResourceKind::Static(__mcp_crate::protocol::Resource::new(#uri, #name) #setters #mime)
        }
    };
    // A parameter named after a URI variable is that variable; any other one spelled
    // `Context` or `State<..>` must be `mcp::Context` or `mcp::State<T>` (checked by its type).
    let is_var = |p: &&crate::model::Param| vars.contains(&p.wire_name());
    let bindings = model.maybe_arguments().map(|p| {
        let wire = p.wire_name();
        let local = local(p);
        let ty = &p.ty;
        if is_var(&p) {
            quote_spanned! {ty.span()=>
                let #local: #ty = __mcp_crate::__private::template_var::<#ty>(&__mcp_vars, #wire)?;
            }
        } else {
            quote_spanned! {ty.span()=>
                let #local: #ty = <#ty as __mcp_crate::__private::TemplateContext>::template_context(&__mcp_ctx)?;
            }
        }
    });
    let injected = injected_bindings(model);
    let state_needs = super::state_needs(model.maybe_arguments().filter(|p| !is_var(p)), TokenStream::new());
    let call = call_user_fn(model);
    let convert = super::convert_outcome(
        model,
        |value, span| quote_spanned!(span=> __mcp_crate::__private::resource_outcome(#value, &__mcp_params.uri, #mime_ref)),
    );
    let message = STATIC_WITH_INPUT.replace('{', "{{").replace('}', "}}");
    let static_check = match (&model.ret, is_template) {
        (Some(ret), false) => quote_spanned! {ret.span()=>
            #[allow(unused_imports)]
            use __mcp_crate::__private::ProbeFallback as _;
            const _: () = ::core::assert!(!__mcp_crate::__private::ResourceProbe::<#ret>::RESOURCE_MAY_REQUIRE_INPUT, #message);
        },
        _ => TokenStream::new(),
    };
    let completer = crate::complete::completer_method(model);
    let ctx_name =
        if model.params.iter().any(|p| p.role != ParamRole::Argument) { quote!(__mcp_ctx) } else { quote!(_) };
    let vars_name = if model.maybe_arguments().any(|p| is_var(&p)) { quote!(__mcp_vars) } else { quote!(_) };

    quote! {
        #companion

        const _: () = {
            #static_check

            #[automatically_derived]
            impl __mcp_crate::items::ResourceDef for #ident {
                const URI: &'static str = #uri;
                #scopes

                fn definition() -> __mcp_crate::items::ResourceKind {
                    #definition
                }

                fn read(
                    #ctx_name: __mcp_crate::Context,
                    __mcp_params: __mcp_crate::protocol::ReadResourceParams,
                    #vars_name: __mcp_crate::items::template::Variables,
                ) -> __mcp_crate::__private::BoxFuture<::core::result::Result<__mcp_crate::protocol::ReadResourceOutcome, __mcp_crate::Error>> {
                    ::std::boxed::Box::pin(async move {
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
