//! Parsing attribute arguments from a closed list of keys, with errors that list the
//! valid keys, suggest the nearest one, and reject duplicates.

use proc_macro2::{TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::{Expr, Ident, LitBool, LitStr, Token};

use crate::model::{Annotations, Kind, Options};

/// The keys each macro accepts.
pub fn keys(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Tool => &[
            "name",
            "title",
            "description",
            "annotations",
            "icons",
            "meta",
            "output_schema",
            "inline_refs",
            "scopes",
            "task",
            "crate",
        ],
        Kind::Prompt => &["name", "title", "description", "icons", "meta", "scopes", "crate"],
        Kind::Resource => &["name", "title", "description", "mime_type", "icons", "meta", "scopes", "crate"],
        Kind::Resolver => &["key", "crate"],
    }
}

pub const ANNOTATION_KEYS: &[&str] = &["title", "read_only", "destructive", "idempotent", "open_world"];
pub const PARAM_KEYS: &[&str] = &["default", "rename", "description", "complete"];

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb { prev } else { 1 + prev.min(row[j]).min(row[j + 1]) };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The valid key `name` most likely stands for: one it abbreviates (`mime` for
/// `mime_type`), else the nearest within two edits.
fn suggest<'a>(name: &str, valid: &[&'a str]) -> Option<&'a str> {
    let prefix = valid.iter().find(|k| name.len() >= 3 && k.starts_with(name));
    prefix
        .copied()
        .or_else(|| valid.iter().map(|k| (distance(name, k), *k)).filter(|(d, _)| *d <= 2).min().map(|(_, k)| k))
}

/// "unknown key `x` in ...; expected one of: ..." with a suggestion when one is close.
pub fn unknown_key(key: &Ident, place: &str, valid: &[&str]) -> syn::Error {
    unknown_key_with(key, place, valid, None)
}

fn unknown_key_with(key: &Ident, place: &str, valid: &[&str], elsewhere: Option<&str>) -> syn::Error {
    let name = key.to_string();
    let list = valid.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let hint = match (suggest(&name, valid), elsewhere) {
        (Some(k), _) => format!("; did you mean `{k}`?"),
        (None, Some(other)) => format!(" (it is a key of {other})"),
        (None, None) => String::new(),
    };
    syn::Error::new(key.span(), format!("unknown key `{name}` in {place}{hint}\nexpected one of: {list}"))
}

/// An unknown key of the macro itself, saying so when it belongs to another macro.
fn unknown_item_key(kind: Kind, key: &Ident) -> syn::Error {
    let name = key.to_string();
    let others: Vec<String> = [Kind::Tool, Kind::Prompt, Kind::Resource, Kind::Resolver]
        .into_iter()
        .filter(|k| *k != kind && keys(*k).contains(&name.as_str()))
        .map(|k| format!("`{}`", k.attribute()))
        .collect();
    let elsewhere = (!others.is_empty()).then(|| others.join(" and "));
    unknown_key_with(key, &format!("`{}`", kind.attribute()), keys(kind), elsewhere.as_deref())
}

fn duplicate(key: &Ident) -> syn::Error {
    syn::Error::new(key.span(), format!("`{key}` is set more than once; keep one"))
}

/// Skip the rest of a malformed `key = value` up to the next top-level comma.
fn skip_value(input: ParseStream) {
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tt, next)) = rest.token_tree() {
            if let TokenTree::Punct(p) = &tt
                && p.as_char() == ','
            {
                return Ok(((), rest));
            }
            rest = next;
        }
        Ok(((), rest))
    });
}

fn parse_str(input: ParseStream) -> syn::Result<LitStr> {
    input.parse::<Token![=]>()?;
    input.parse()
}

fn parse_bool(input: ParseStream) -> syn::Result<bool> {
    if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        Ok(input.parse::<LitBool>()?.value)
    } else {
        Ok(true)
    }
}

/// `= ["a", "b"]`: `icons` and `scopes`.
fn parse_str_list(input: ParseStream) -> syn::Result<Vec<LitStr>> {
    input.parse::<Token![=]>()?;
    let content;
    syn::bracketed!(content in input);
    let list = content.parse_terminated(|i: ParseStream| i.parse::<LitStr>(), Token![,])?;
    Ok(list.into_iter().collect())
}

fn parse_annotations(input: ParseStream, errors: &mut Vec<syn::Error>) -> syn::Result<Annotations> {
    let content;
    syn::parenthesized!(content in input);
    let mut a = Annotations::default();
    let mut seen: Vec<String> = Vec::new();
    while !content.is_empty() {
        let key: Ident = content.parse()?;
        if seen.contains(&key.to_string()) {
            errors.push(duplicate(&key));
        }
        seen.push(key.to_string());
        match key.to_string().as_str() {
            "title" => a.title = Some(parse_str(&content)?),
            "read_only" => a.read_only = Some(parse_bool(&content)?),
            "destructive" => a.destructive = Some(parse_bool(&content)?),
            "idempotent" => a.idempotent = Some(parse_bool(&content)?),
            "open_world" => a.open_world = Some(parse_bool(&content)?),
            _ => {
                errors.push(unknown_key(&key, "`annotations(...)`", ANNOTATION_KEYS));
                skip_value(&content);
            }
        }
        if !content.is_empty() {
            content.parse::<Token![,]>()?;
        }
    }
    Ok(a)
}

/// Parse the attribute's arguments. Problems that do not stop parsing go to `errors`.
pub fn parse_options(kind: Kind, tokens: TokenStream, errors: &mut Vec<syn::Error>) -> Options {
    let mut options = Options::default();
    let parser = |input: ParseStream| -> syn::Result<()> {
        let mut seen: Vec<String> = Vec::new();
        let mut first = true;
        while !input.is_empty() {
            if input.peek(LitStr) {
                let lit: LitStr = input.parse()?;
                if kind == Kind::Resource && first {
                    options.uri = Some(lit);
                } else if kind == Kind::Resource {
                    errors.push(syn::Error::new(
                        lit.span(),
                        "the URI must come first: `#[mcp::resource(\"scheme://...\", ...)]`",
                    ));
                } else {
                    errors.push(syn::Error::new(
                        lit.span(),
                        format!(
                            "unexpected string in {}; write `name = \"...\"` or `description = \"...\"`",
                            kind.attribute()
                        ),
                    ));
                }
            } else {
                let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
                let name = key.to_string();
                if !keys(kind).contains(&name.as_str()) {
                    errors.push(unknown_item_key(kind, &key));
                    skip_value(input);
                } else {
                    if seen.contains(&name) {
                        errors.push(duplicate(&key));
                    }
                    seen.push(name.clone());
                    match name.as_str() {
                        "name" => options.name = Some(parse_str(input)?),
                        "title" => options.title = Some(parse_str(input)?),
                        "description" => options.description = Some(parse_str(input)?),
                        "mime_type" => options.mime_type = Some(parse_str(input)?),
                        "meta" => options.meta = Some(parse_str(input)?),
                        "key" => options.key = Some(parse_str(input)?),
                        "icons" => options.icons = parse_str_list(input)?,
                        "scopes" => options.scopes = parse_str_list(input)?,
                        "output_schema" => options.output_schema = Some(parse_bool(input)?),
                        "inline_refs" => options.inline_refs = Some(parse_bool(input)?),
                        "task" => options.task = Some(parse_str(input)?),
                        "annotations" => options.annotations = Some(parse_annotations(input, errors)?),
                        "crate" => match crate::krate::parse(&parse_str(input)?) {
                            Ok(path) => options.krate = Some(path),
                            Err(e) => errors.push(e),
                        },
                        _ => skip_value(input),
                    }
                }
            }
            first = false;
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(())
    };
    if let Err(e) = parser.parse2(tokens) {
        errors.push(e);
    }
    options
}

/// `#[mcp(default = expr, rename = "x", description = "...", complete = path)]` on a parameter.
pub struct ParamOptions {
    pub default: Option<Expr>,
    pub rename: Option<LitStr>,
    pub description: Option<LitStr>,
    pub complete: Option<syn::Path>,
}

pub fn parse_param_options(attr: &syn::Attribute, out: &mut ParamOptions, errors: &mut Vec<syn::Error>) {
    let result = attr.parse_args_with(|input: ParseStream| -> syn::Result<()> {
        while !input.is_empty() {
            let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
            match key.to_string().as_str() {
                "default" => {
                    if out.default.is_some() {
                        errors.push(duplicate(&key));
                    }
                    input.parse::<Token![=]>()?;
                    out.default = Some(input.parse()?);
                }
                "rename" => {
                    if out.rename.is_some() {
                        errors.push(duplicate(&key));
                    }
                    out.rename = Some(parse_str(input)?);
                }
                "description" => {
                    if out.description.is_some() {
                        errors.push(duplicate(&key));
                    }
                    out.description = Some(parse_str(input)?);
                }
                "complete" => {
                    if out.complete.is_some() {
                        errors.push(duplicate(&key));
                    }
                    input.parse::<Token![=]>()?;
                    out.complete = Some(input.parse()?);
                }
                _ => {
                    errors.push(unknown_key(&key, "`#[mcp(...)]` on a parameter", PARAM_KEYS));
                    skip_value(input);
                }
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        errors.push(e);
    }
}
