//! Reading the annotated function into a [`FnModel`], and stripping the attributes
//! that only the macro understands (parameter docs and `#[mcp(...)]`).

use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, ReturnType};

use crate::attrs::{ParamOptions, parse_param_options};
use crate::docs::doc_lines;
use crate::model::{FnModel, Kind, Param, ParamRole};
use crate::types;

/// Parse `item` as a function; on success, return the model and the function to emit
/// (parameter attributes removed).
pub fn parse(
    kind: Kind,
    options: crate::model::Options,
    item: TokenStream,
    errors: &mut Vec<syn::Error>,
) -> Result<(FnModel, ItemFn), TokenStream> {
    let mut function: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let what = match kind {
                Kind::Tool => "a tool",
                Kind::Prompt => "a prompt",
                Kind::Resource => "a resource",
                Kind::Resolver => "a resolver",
            };
            errors.push(syn::Error::new(
                item.clone().into_iter().next().map_or_else(proc_macro2::Span::call_site, |t| t.span()),
                format!(
                    "{} goes on a function: write `{} fn name(...) -> ...` to define {what}",
                    kind.attribute(),
                    kind.attribute()
                ),
            ));
            return Err(item);
        }
    };
    let mut params = Vec::new();
    let mut is_method = false;
    for input in function.sig.inputs.iter_mut() {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                is_method = true;
                errors.push(syn::Error::new(
                    receiver.span(),
                    format!(
                        "{} goes on a free function, not a method; move it out of the `impl` block and take what `self` held \
                         as a `db: mcp::State<T>` parameter, registered with `.state(value)` on the server builder",
                        kind.attribute()
                    ),
                ));
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        let mut docs = Vec::new();
        let mut opts = ParamOptions { default: None, rename: None, description: None, complete: None };
        let mut kept = Vec::new();
        for attr in typed.attrs.drain(..) {
            if attr.path().is_ident("doc") {
                docs.extend(doc_lines(std::slice::from_ref(&attr)));
            } else if attr.path().is_ident("mcp") {
                parse_param_options(&attr, &mut opts, errors);
            } else {
                kept.push(attr);
            }
        }
        typed.attrs = kept;
        let Pat::Ident(pat) = &*typed.pat else {
            errors.push(syn::Error::new(
                typed.pat.span(),
                "use a plain name for this parameter (its name is the argument's name on the wire)",
            ));
            continue;
        };
        let ty = (*typed.ty).clone();
        // A `Context` spelled as a path into `mcp` is certainly the request context; any
        // other spelling may be a user type of that name, and the generated code decides
        // (as it does for every `State<..>`).
        let role = if types::is_context(&ty) {
            if types::is_mcp_path(&ty) { ParamRole::Context } else { ParamRole::ContextOrArgument }
        } else if kind == Kind::Resolver && types::is_context_ref(&ty) {
            match &ty {
                syn::Type::Reference(r) if !types::is_mcp_path(&r.elem) => ParamRole::ContextOrArgument,
                _ => ParamRole::ContextRef,
            }
        } else if types::is_state(&ty) || (kind == Kind::Resolver && types::is_state_ref(&ty)) {
            // `State<T>` is decided by its type too, even spelled `mcp::State<T>`: one path
            // in the generated code (a user type named `State` stays an argument).
            ParamRole::ContextOrArgument
        } else if types::is_resolve(&ty) {
            ParamRole::Resolve
        } else {
            ParamRole::Argument
        };
        params.push(Param {
            ident: pat.ident.clone(),
            ty,
            role,
            docs,
            default: opts.default,
            rename: opts.rename,
            description: opts.description,
            complete: opts.complete,
        });
    }
    if is_method {
        // A companion type cannot live in an `impl` block: emit the method alone (its
        // parameter attributes stripped), so the error above is the only one.
        return Err(quote::ToTokens::into_token_stream(function));
    }
    let ret = match &function.sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => Some((**ty).clone()),
    };
    let model = FnModel {
        kind,
        ident: function.sig.ident.clone(),
        is_async: function.sig.asyncness.is_some(),
        docs: doc_lines(&function.attrs),
        doc_exprs: crate::docs::doc_exprs(&function.attrs),
        params,
        generics: (!function.sig.generics.params.is_empty() || function.sig.generics.where_clause.is_some())
            .then(|| function.sig.generics.span()),
        ret,
        options,
    };
    Ok((model, function))
}
