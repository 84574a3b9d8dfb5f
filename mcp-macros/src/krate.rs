//! The path generated code names the runtime by: `::mcp` unless the attribute says
//! `crate = "path"` (for crates that reach `mcp` through a re-export, as with
//! `#[serde(crate = "...")]`).
//!
//! The expansion writes every runtime path as `__mcp_crate::...`, with whatever span the
//! surrounding tokens need (often a user type's, so that trait errors point there), and
//! keeps every such path inside a `const _: () = { ... };` block. [`substitute`] opens each
//! of those blocks with `use <path> as __mcp_crate;`: one alias per block, written at the
//! top level of the output, so the runtime's path costs nothing per token. (Rewriting each
//! placeholder in place walked every generated token: about a quarter of the compiler's
//! macro-expansion time for a crate of 100 tools.) Users cannot write `__mcp_crate`
//! themselves in a parameter (names starting with `__mcp` are rejected), so the alias
//! names only generated paths.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::LitStr;

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

/// Open every top-level `const _: () = { ... }` block of `tokens` with an alias of `path`
/// (or `::mcp`) named `__mcp_crate`; the rest of `tokens` is left as it is.
pub fn substitute(tokens: TokenStream, path: Option<&syn::Path>) -> TokenStream {
    let path = match path {
        Some(path) => path.to_token_stream(),
        None => quote!(::mcp),
    };
    let alias = quote! {
        #[allow(unused_imports)]
        use #path as __mcp_crate;
    };
    let mut out = TokenStream::new();
    let mut after_eq = false;
    for tree in tokens {
        let tree = match tree {
            // At the top level, a braced group right after `=` is a `const` block's body.
            TokenTree::Group(group) if after_eq && group.delimiter() == Delimiter::Brace => {
                let mut stream = alias.clone();
                stream.extend([group.stream()]);
                let mut new = Group::new(Delimiter::Brace, stream);
                new.set_span(group.span());
                TokenTree::Group(new)
            }
            other => other,
        };
        after_eq = matches!(&tree, TokenTree::Punct(p) if p.as_char() == '=');
        out.extend([tree]);
    }
    out
}

/// Test support: the `__mcp_crate` paths of `tokens` that no alias covers (outside the
/// top-level `const` blocks, or in a block that does not open with the alias `path`).
#[cfg(test)]
pub(crate) fn unaliased_placeholders(tokens: TokenStream, path: &str) -> usize {
    fn count(tokens: TokenStream) -> usize {
        tokens
            .into_iter()
            .map(|tree| match tree {
                TokenTree::Ident(ident) if ident == "__mcp_crate" => 1,
                TokenTree::Group(group) => count(group.stream()),
                _ => 0,
            })
            .sum()
    }
    let alias = format!("# [allow (unused_imports)] use {path} as __mcp_crate ;");
    let mut after_eq = false;
    let mut unaliased = 0;
    for tree in tokens {
        match &tree {
            TokenTree::Group(group) if after_eq && group.delimiter() == Delimiter::Brace => {
                if !group.stream().to_string().starts_with(&alias) {
                    unaliased += count(group.stream());
                }
            }
            other => unaliased += count(other.to_token_stream()),
        }
        after_eq = matches!(&tree, TokenTree::Punct(p) if p.as_char() == '=');
    }
    unaliased
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    #[test]
    fn default_is_the_mcp_crate() {
        let out = substitute(
            quote!(
                struct x {}
                const _: () = {
                    impl __mcp_crate::items::ToolDef for x {}
                };
            ),
            None,
        );
        assert_eq!(
            out.to_string(),
            quote!(
                struct x {}
                const _: () = {
                    #[allow(unused_imports)]
                    use ::mcp as __mcp_crate;
                    impl __mcp_crate::items::ToolDef for x {}
                };
            )
            .to_string()
        );
    }

    #[test]
    fn a_configured_path_is_aliased_in_every_const_block() {
        let path = parse(&syn::parse_quote!("reexport::m")).expect("a path");
        let out = substitute(
            quote!(
                const _: () = { a };
                fn f() {
                    b
                }
                const _: () = { c };
            ),
            Some(&path),
        );
        let alias = quote!(
            #[allow(unused_imports)]
            use reexport::m as __mcp_crate;
        );
        assert_eq!(
            out.to_string(),
            quote!(const _: () = { #alias a }; fn f() { b } const _: () = { #alias c };).to_string()
        );
    }

    #[test]
    fn a_value_that_is_not_a_path_is_an_error() {
        let err = parse(&syn::parse_quote!("not a path")).expect_err("not a path");
        assert!(err.to_string().contains("`crate` must be a path"), "{err}");
    }
}
