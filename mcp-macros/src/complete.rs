//! `#[mcp(complete = path)]` on a prompt argument or a URI template variable: where it
//! may go, and the `completer` method it generates.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{FnModel, Kind, ParamRole};
use crate::validate::template_variables;

const WHERE_IT_GOES: &str = "put `#[mcp(complete = ...)]` on a prompt argument or a resource template variable";

/// Report every `complete` on a parameter the client does not type in.
pub fn validate(model: &FnModel, errors: &mut Vec<syn::Error>) {
    let vars = model.options.uri.as_ref().and_then(|uri| template_variables(&uri.value()).ok()).unwrap_or_default();
    for param in &model.params {
        let Some(path) = &param.complete else { continue };
        let message = match (model.kind, &param.role) {
            (Kind::Tool, _) => "`complete` does not apply to tool arguments: `completion/complete` completes \
                 prompt arguments and resource template variables only; remove it (to list a tool argument's \
                 values, make its type an enum so they appear in the input schema)"
                .to_owned(),
            (Kind::Resolver, _) => format!(
                "`complete` does not apply to a resolver's parameters: they are tool arguments, which \
                 `completion/complete` does not complete; remove it, or {WHERE_IT_GOES}"
            ),
            // A static resource takes no parameters at all (reported by the resource check).
            (Kind::Resource, _) if vars.is_empty() => continue,
            (_, ParamRole::Context | ParamRole::ContextRef) => format!(
                "a `Context` parameter is filled in by the framework, not typed by the client, so there is \
                 nothing to complete; {WHERE_IT_GOES}"
            ),
            (Kind::Resource, ParamRole::ContextOrArgument) if !vars.contains(&param.wire_name()) => format!(
                "`{}` is not a variable of the URI template, so there is nothing to complete; {WHERE_IT_GOES}",
                param.wire_name()
            ),
            (_, ParamRole::Argument | ParamRole::ContextOrArgument) => continue,
            (_, _) => format!(
                "this parameter is filled in by the server, not typed by the client, so there is nothing to \
                 complete; {WHERE_IT_GOES}"
            ),
        };
        errors.push(syn::Error::new(path.span(), message));
    }
}

/// `fn completer(argument)` of `PromptDef`/`ResourceDef`, when some parameter has a
/// completer (the traits' default answers `None` otherwise).
pub fn completer_method(model: &FnModel) -> TokenStream {
    let arms: Vec<TokenStream> = model
        .params
        .iter()
        .filter_map(|p| {
            let path = p.complete.as_ref()?;
            let wire = p.wire_name();
            // Spanned at the completer's path: a function of the wrong shape is reported there.
            let call = quote_spanned! {path.span()=>
                __mcp_crate::__private::run_completer(#path, __mcp_ctx, __mcp_value, __mcp_filled)
            };
            Some(quote! {
                #wire => {
                    let __mcp_completer: __mcp_crate::items::completion::CompleteFn =
                        |__mcp_ctx, __mcp_value, __mcp_filled| #call;
                    ::core::option::Option::Some(__mcp_completer)
                }
            })
        })
        .collect();
    if arms.is_empty() {
        return TokenStream::new();
    }
    quote! {
        fn completer(__mcp_argument: &str) -> ::core::option::Option<__mcp_crate::items::completion::CompleteFn> {
            match __mcp_argument {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use crate::expand::item;
    use crate::model::Kind;

    /// The generated `completer` names the runtime through `crate = "..."` and the
    /// completer through the user's own path.
    #[test]
    fn the_completer_method_is_hygienic() {
        let prompt = item(
            Kind::Prompt,
            quote!(crate = "reexport::m"),
            quote!(
                fn greet(#[mcp(complete = names::all, rename = "who")] name: String, plain: String) -> String {
                    name
                }
            ),
        );
        assert_eq!(crate::krate::unaliased_placeholders(prompt.clone(), "reexport :: m"), 0, "{prompt}");
        let prompt = prompt.to_string();
        assert!(!prompt.contains(":: mcp"), "{prompt}");
        assert!(prompt.contains("fn completer"), "{prompt}");
        assert!(prompt.contains("\"who\" =>"), "keyed by the wire name: {prompt}");
        assert!(prompt.contains("use reexport :: m as __mcp_crate"), "{prompt}");
        assert!(prompt.contains("__mcp_crate :: __private :: run_completer (names :: all ,"), "{prompt}");
        assert!(!prompt.contains("\"plain\" =>"), "{prompt}");

        let without = item(
            Kind::Prompt,
            quote!(),
            quote!(
                fn greet(name: String) -> String {
                    name
                }
            ),
        )
        .to_string();
        assert!(!without.contains("fn completer"), "the trait's default serves items without completers");

        let resource = item(
            Kind::Resource,
            quote!("notes://{id}"),
            quote!(
                fn note(#[mcp(complete = ids)] id: String) -> String {
                    id
                }
            ),
        )
        .to_string();
        assert!(resource.contains("use :: mcp as __mcp_crate"), "{resource}");
        assert!(resource.contains("__mcp_crate :: __private :: run_completer (ids ,"), "{resource}");
    }
}
