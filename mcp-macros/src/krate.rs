//! The path generated code names the runtime by: `::mcp` unless the attribute says
//! `crate = "path"` (for crates that reach `mcp` through a re-export, as with
//! `#[serde(crate = "...")]`).
//!
//! The expansion writes every runtime path as `__mcp_crate::...`, with whatever span the
//! surrounding tokens need (often a user type's, so that trait errors point there). One
//! pass at the end replaces each `__mcp_crate` with the configured path, given that
//! same span. Users cannot write `__mcp_crate` themselves in a parameter (names starting
//! with `__mcp` are rejected), so only generated tokens are rewritten in practice.

use proc_macro2::{Group, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::LitStr;

/// The placeholder the expansion writes for the runtime's path.
const PLACEHOLDER: &str = "__mcp_crate";

/// Parse the value of `crate = "..."`: a path such as `my_crate::mcp` or `::mcp`.
pub fn parse(value: &LitStr) -> syn::Result<syn::Path> {
    value.parse::<syn::Path>().map_err(|_| {
        syn::Error::new(
            value.span(),
            format!(
                "`crate` must be a path to the `mcp` crate, such as `\"::mcp\"` or `\"my_crate::mcp\"`; `{}` is not a path",
                value.value()
            ),
        )
    })
}

/// Replace every placeholder in `tokens` with `path` (or `::mcp`), spanned like the placeholder.
pub fn substitute(tokens: TokenStream, path: Option<&syn::Path>) -> TokenStream {
    let path = path.map(ToTokens::to_token_stream);
    substitute_in(tokens, path.as_ref())
}

fn substitute_in(tokens: TokenStream, path: Option<&TokenStream>) -> TokenStream {
    let mut out = TokenStream::new();
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) if ident == PLACEHOLDER => out.extend(runtime_path(path, ident.span())),
            TokenTree::Group(group) => {
                let mut new = Group::new(group.delimiter(), substitute_in(group.stream(), path));
                new.set_span(group.span());
                out.extend([TokenTree::Group(new)]);
            }
            other => out.extend([other]),
        }
    }
    out
}

/// The runtime's path with every token at `span`.
fn runtime_path(path: Option<&TokenStream>, span: Span) -> TokenStream {
    match path {
        Some(path) => respan(path.clone(), span),
        None => {
            let mut colon = Punct::new(':', Spacing::Joint);
            colon.set_span(span);
            let mut colon2 = Punct::new(':', Spacing::Alone);
            colon2.set_span(span);
            let mcp = proc_macro2::Ident::new("mcp", span);
            [TokenTree::Punct(colon), TokenTree::Punct(colon2), TokenTree::Ident(mcp)].into_iter().collect()
        }
    }
}

fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(group) = &tree {
                let mut new = Group::new(group.delimiter(), respan(group.stream(), span));
                new.set_span(span);
                tree = TokenTree::Group(new);
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    #[test]
    fn default_is_the_mcp_crate() {
        let out =
            substitute(quote!(impl __mcp_crate::items::ToolDef for x { fn f() -> [__mcp_crate::Error; 1] {} }), None);
        assert_eq!(
            out.to_string(),
            quote!(impl ::mcp::items::ToolDef for x { fn f() -> [::mcp::Error; 1] {} }).to_string()
        );
    }

    #[test]
    fn a_configured_path_replaces_it() {
        let path = parse(&syn::parse_quote!("reexport::m")).expect("a path");
        let out = substitute(quote!(__mcp_crate::Context), Some(&path));
        assert_eq!(out.to_string(), quote!(reexport::m::Context).to_string());
    }

    #[test]
    fn a_value_that_is_not_a_path_is_an_error() {
        let err = parse(&syn::parse_quote!("not a path")).expect_err("not a path");
        assert!(err.to_string().contains("`crate` must be a path"), "{err}");
    }
}
