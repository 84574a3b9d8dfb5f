//! `#[derive(ElicitForm)]`: a flat struct becomes a form schema, a unit-only enum becomes
//! a choice. Field types are checked at compile time (each must be an `ElicitField`), and
//! serde's `rename`, `rename_all`, `default` and `skip` are honoured so the schema names
//! what `Deserialize` reads.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, LitStr};

use crate::docs::{doc_lines, join};

/// What `#[serde(...)]` says about a container, field or variant.
#[derive(Default)]
struct Serde {
    rename: Option<String>,
    rename_all: Option<String>,
    default: bool,
    skip: bool,
}

fn serde_attrs(attrs: &[syn::Attribute]) -> Serde {
    let mut out = Serde::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            match key.as_str() {
                "rename" | "rename_all" if meta.input.peek(syn::Token![=]) => {
                    let value: LitStr = meta.value()?.parse()?;
                    if key == "rename" {
                        out.rename = Some(value.value());
                    } else {
                        out.rename_all = Some(value.value());
                    }
                }
                "default" => {
                    out.default = true;
                    if meta.input.peek(syn::Token![=]) {
                        let _: LitStr = meta.value()?.parse()?;
                    }
                }
                "skip" | "skip_deserializing" => out.skip = true,
                _ => {
                    // Other serde keys do not change the schema; consume their values.
                    if meta.input.peek(syn::Token![=]) {
                        let _: syn::Expr = meta.value()?.parse()?;
                    } else if meta.input.peek(syn::token::Paren) {
                        let _content;
                        syn::parenthesized!(_content in meta.input);
                        let _: TokenStream = _content.parse()?;
                    }
                }
            }
            Ok(())
        });
    }
    out
}

/// Words of an identifier: `snake_case` fields split on `_`, `PascalCase` variants on capitals.
fn words(ident: &str) -> Vec<String> {
    let mut words = Vec::new();
    for part in ident.split('_').filter(|p| !p.is_empty()) {
        let mut word = String::new();
        for c in part.chars() {
            if c.is_uppercase() && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            word.push(c);
        }
        if !word.is_empty() {
            words.push(word);
        }
    }
    words
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars.flat_map(char::to_lowercase)).collect())
}

/// Apply a serde `rename_all` rule; `None` for a rule serde does not have.
fn rename_all(ident: &str, rule: &str) -> Option<String> {
    let w = words(ident);
    let lower: Vec<String> = w.iter().map(|s| s.to_lowercase()).collect();
    Some(match rule {
        "lowercase" => ident.to_lowercase(),
        "UPPERCASE" => ident.to_uppercase(),
        "PascalCase" => w.iter().map(|s| capitalize(s)).collect(),
        "camelCase" => {
            lower.first().cloned().unwrap_or_default() + &w.iter().skip(1).map(|s| capitalize(s)).collect::<String>()
        }
        "snake_case" => lower.join("_"),
        "SCREAMING_SNAKE_CASE" => lower.join("_").to_uppercase(),
        "kebab-case" => lower.join("-"),
        "SCREAMING-KEBAB-CASE" => lower.join("-").to_uppercase(),
        _ => return None,
    })
}

fn wire_name(ident: &syn::Ident, own: &Serde, container: &Serde) -> String {
    let raw = ident.to_string();
    let raw = raw.trim_start_matches("r#");
    own.rename
        .clone()
        .or_else(|| container.rename_all.as_deref().and_then(|rule| rename_all(raw, rule)))
        .unwrap_or_else(|| raw.to_owned())
}

/// The keys of the container attribute `#[mcp(...)]`.
pub const CONTAINER_KEYS: &[&str] = &["crate"];

/// `#[mcp(crate = "path")]` on the type: where the runtime is.
fn container_crate(attrs: &[syn::Attribute]) -> syn::Result<Option<syn::Path>> {
    let mut krate = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("mcp")) {
        attr.parse_nested_meta(|meta| {
            let Some(key) = meta.path.get_ident() else {
                return Err(meta.error("expected `crate = \"path\"`"));
            };
            if key == "crate" {
                if krate.is_some() {
                    return Err(meta.error("`crate` is set more than once; keep one"));
                }
                krate = Some(crate::krate::parse(&meta.value()?.parse::<LitStr>()?)?);
                Ok(())
            } else {
                Err(crate::attrs::unknown_key(key, "`#[mcp(...)]` on an `ElicitForm` type", CONTAINER_KEYS))
            }
        })?;
    }
    Ok(krate)
}

pub fn derive(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let krate = match container_crate(&input.attrs) {
        Ok(krate) => krate,
        Err(e) => return e.to_compile_error(),
    };
    crate::krate::substitute(derive_with(&input), krate.as_ref())
}

fn derive_with(input: &DeriveInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        return syn::Error::new(
            input.generics.span(),
            "`ElicitForm` cannot be derived for a generic type; forms are concrete",
        )
        .to_compile_error();
    }
    let container = serde_attrs(&input.attrs);
    if let Some(rule) = &container.rename_all
        && rename_all("x", rule).is_none()
    {
        return syn::Error::new(input.ident.span(), format!("unknown serde `rename_all` rule `{rule}`"))
            .to_compile_error();
    }
    match &input.data {
        Data::Struct(data) => form(input, &container, &data.fields),
        Data::Enum(data) => choice(input, &container, data),
        Data::Union(_) => {
            syn::Error::new(input.ident.span(), "`ElicitForm` is for structs (forms) and unit-only enums (choices)")
                .to_compile_error()
        }
    }
}

fn form(input: &DeriveInput, container: &Serde, fields: &Fields) -> TokenStream {
    let ident = &input.ident;
    let Fields::Named(named) = fields else {
        return syn::Error::new(
            fields.span(),
            "a form needs named fields (each is a form field with a name); use `struct Name { field: Type }`",
        )
        .to_compile_error();
    };
    let mut entries = Vec::new();
    for field in &named.named {
        let own = serde_attrs(&field.attrs);
        if own.skip {
            continue;
        }
        let Some(field_ident) = &field.ident else { continue };
        let ty = &field.ty;
        let name = wire_name(field_ident, &own, container);
        let description = match join(&doc_lines(&field.attrs)) {
            Some(d) => quote!(::core::option::Option::Some(::std::string::String::from(#d))),
            None => quote!(::core::option::Option::None),
        };
        let defaulted = own.default || container.default;
        entries.push(quote_spanned! {ty.span()=>
            __mcp_crate::__private::form_field::<#ty>(#name, #defaulted, #description)
        });
    }
    quote! {
        const _: () = {
            #[automatically_derived]
            impl __mcp_crate::__private::ElicitForm for #ident {
                fn schema() -> &'static __mcp_crate::protocol::ElicitationSchema {
                    static SCHEMA: ::std::sync::OnceLock<__mcp_crate::protocol::ElicitationSchema> = ::std::sync::OnceLock::new();
                    SCHEMA.get_or_init(|| __mcp_crate::__private::form_schema(::std::vec![#(#entries),*]))
                }
            }
        };
    }
}

fn choice(input: &DeriveInput, container: &Serde, data: &syn::DataEnum) -> TokenStream {
    let ident = &input.ident;
    let mut errors = Vec::new();
    let mut values = Vec::new();
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            errors.push(syn::Error::new(
                variant.fields.span(),
                "a choice's variants carry no data: a form field holds one string from a list; \
                 remove the fields, or ask for them in a separate form field",
            ));
            continue;
        }
        let own = serde_attrs(&variant.attrs);
        if !own.skip {
            values.push(wire_name(&variant.ident, &own, container));
        }
    }
    if values.is_empty() && errors.is_empty() {
        errors.push(syn::Error::new(ident.span(), "a choice needs at least one variant"));
    }
    if !errors.is_empty() {
        return errors.into_iter().map(|e| e.to_compile_error()).collect();
    }
    quote! {
        const _: () = {
            #[automatically_derived]
            impl __mcp_crate::__private::ElicitChoice for #ident {
                const VALUES: &'static [&'static str] = &[#(#values),*];
            }
            #[automatically_derived]
            impl __mcp_crate::__private::ElicitField for #ident {
                fn field_schema(
                    description: ::core::option::Option<::std::string::String>,
                ) -> __mcp_crate::protocol::PrimitiveSchema {
                    __mcp_crate::__private::choice_schema(<Self as __mcp_crate::__private::ElicitChoice>::VALUES, description)
                }
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::rename_all;

    #[test]
    fn rename_rules_match_serde() {
        assert_eq!(rename_all("size_gb", "camelCase").as_deref(), Some("sizeGb"));
        assert_eq!(rename_all("size_gb", "kebab-case").as_deref(), Some("size-gb"));
        assert_eq!(rename_all("size_gb", "SCREAMING_SNAKE_CASE").as_deref(), Some("SIZE_GB"));
        assert_eq!(rename_all("size_gb", "PascalCase").as_deref(), Some("SizeGb"));
        assert_eq!(rename_all("EuWest", "snake_case").as_deref(), Some("eu_west"));
        assert_eq!(rename_all("EuWest", "lowercase").as_deref(), Some("euwest"));
        assert_eq!(rename_all("EuWest", "kebab-case").as_deref(), Some("eu-west"));
        assert_eq!(rename_all("x", "Title Case"), None);
    }
}
