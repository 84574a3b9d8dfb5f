//! Doc comments: reading them, and writing the companion type's documentation.

use syn::{Attribute, Expr, Lit, Meta};

use crate::model::{FnModel, Kind, ParamRole};
use crate::types;

/// The text of `#[doc = "..."]` attributes, one entry per line.
pub fn doc_lines(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(lit) => match &lit.lit {
                    Lit::Str(s) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// `#[doc = <expr>]` attributes whose value is not a plain string (e.g. `concat!(...)`),
/// kept as expressions to be evaluated by the compiler.
pub fn doc_exprs(attrs: &[Attribute]) -> Vec<Expr> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) if !matches!(&nv.value, Expr::Lit(_)) => Some(nv.value.clone()),
            _ => None,
        })
        .collect()
}

/// Doc lines joined into one description (`None` when empty).
pub fn join(lines: &[String]) -> Option<String> {
    let text = lines.iter().map(|l| l.strip_prefix(' ').unwrap_or(l)).collect::<Vec<_>>().join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

pub(crate) fn type_text(ty: &syn::Type) -> String {
    quote::quote!(#ty)
        .to_string()
        .replace(" :: ", "::")
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace("< ", "<")
        .replace(" ,", ",")
}

/// A parameter spelled `mcp::State<..>`: certainly application state.
fn is_mcp_state(p: &crate::model::Param) -> bool {
    let ty = match &p.ty {
        syn::Type::Reference(r) => &*r.elem,
        other => other,
    };
    types::is_state(ty) && types::is_mcp_path(ty)
}

/// What a parameter whose role the type decides is when it is injected.
fn injected_if(p: &crate::model::Param) -> &'static str {
    if types::is_state(&p.ty) || types::is_state_ref(&p.ty) {
        "application state if its type is `mcp::State<T>`"
    } else {
        "the request context if its type is `mcp::Context`"
    }
}

/// The companion type's rustdoc: what the item is, its parameters and its schema.
pub fn companion(model: &FnModel) -> String {
    let ident = &model.ident;
    if model.kind == Kind::Resolver {
        return resolver_companion(model);
    }
    let name = model.name();
    let (what, register) = match model.kind {
        Kind::Resolver => unreachable!("handled above"),
        Kind::Tool => ("tool", format!("Server::builder(..).tool::<{ident}>()")),
        Kind::Prompt => ("prompt", format!("Server::builder(..).prompt::<{ident}>()")),
        Kind::Resource => ("resource", format!("Server::builder(..).resource::<{ident}>()")),
    };
    let mut out = format!("MCP {what} `{name}`");
    if let Some(uri) = &model.options.uri {
        out.push_str(&format!(" at `{}`", uri.value()));
    }
    out.push_str(&format!(", served by [`fn@{ident}`].\n\n"));
    if let Some(d) = model.description() {
        out.push_str(&d);
        out.push_str("\n\n");
    }
    let args: Vec<_> = model.arguments().collect();
    if args.is_empty() {
        out.push_str("It takes no arguments.\n\n");
    } else {
        out.push_str("| Parameter | Type | JSON | Required | Description |\n|---|---|---|---|---|\n");
        for p in &args {
            let required = types::option_inner(&p.ty).is_none() && p.default.is_none();
            let description = p.description().unwrap_or_default().replace('\n', " ").replace('|', "\\|");
            out.push_str(&format!(
                "| `{}` | `{}` | {} | {} | {} |\n",
                p.wire_name(),
                type_text(&p.ty),
                if model.kind == Kind::Tool { types::json_type(&p.ty) } else { "string".to_owned() },
                if required { "yes" } else { "no" },
                description
            ));
        }
        out.push('\n');
    }
    let injected: Vec<String> = model
        .params
        .iter()
        .filter(|p| !matches!(p.role, ParamRole::Argument | ParamRole::ContextOrArgument) || is_mcp_state(p))
        .map(|p| format!("`{}: {}`", p.ident, type_text(&p.ty)))
        .collect();
    if !injected.is_empty() {
        out.push_str(&format!("Injected, not part of the schema: {}.\n\n", injected.join(", ")));
    }
    role_by_type_notes(model, "the argument", &mut out);
    if model.kind == Kind::Tool {
        let props: Vec<String> = args
            .iter()
            .map(|p| format!("\"{}\": {{\"type\": \"{}\"}}", p.wire_name(), types::json_type(&p.ty)))
            .collect();
        let required: Vec<String> = args
            .iter()
            .filter(|p| types::option_inner(&p.ty).is_none() && p.default.is_none())
            .map(|p| format!("\"{}\"", p.wire_name()))
            .collect();
        out.push_str(&format!(
            "Input schema (outline; the exact JSON Schema 2020-12 is generated by `schemars` from the parameter types):\n\n```json\n{{\"type\": \"object\", \"properties\": {{{}}}, \"required\": [{}]}}\n```\n\n",
            props.join(", "),
            required.join(", ")
        ));
        if let Some(ret) = &model.ret {
            out.push_str(&format!("Returns `{}`.\n\n", type_text(ret)));
        }
    }
    out.push_str(&format!("Register it with `{register}`."));
    out
}

/// One line per parameter whose role its type decides (spelled `Context` or `State`, not
/// through `mcp::`): what it is when injected, else `otherwise` named like the parameter.
fn role_by_type_notes(model: &FnModel, otherwise: &str, out: &mut String) {
    for p in model.params.iter().filter(|p| p.role == ParamRole::ContextOrArgument && !is_mcp_state(p)) {
        out.push_str(&format!(
            "`{}: {}` is {}, else {otherwise} `{}`.\n\n",
            p.ident,
            type_text(&p.ty),
            injected_if(p),
            p.wire_name()
        ));
    }
}

/// A resolver's companion documentation: what it takes and how a tool uses it.
fn resolver_companion(model: &FnModel) -> String {
    let ident = &model.ident;
    let mut out = format!("MCP resolver, computed by [`fn@{ident}`].\n\n");
    if let Some(d) = model.description() {
        out.push_str(&d);
        out.push_str("\n\n");
    }
    let args: Vec<String> =
        model.arguments().map(|p| format!("`{}` (`{}`)", p.wire_name(), type_text(&p.ty))).collect();
    if !args.is_empty() {
        out.push_str(&format!("Takes the tool arguments {}.\n\n", args.join(", ")));
    }
    role_by_type_notes(model, "the tool argument", &mut out);
    let deps: Vec<String> = model
        .params
        .iter()
        .filter(|p| p.role == ParamRole::Resolve)
        .map(|p| format!("`{}`", type_text(&p.ty)))
        .collect();
    if !deps.is_empty() {
        out.push_str(&format!("Depends on {}.\n\n", deps.join(", ")));
    }
    if let Some(ret) = &model.ret {
        out.push_str(&format!("Returns `{}`.\n\n", type_text(ret)));
    }
    out.push_str(&format!("Use it in a `#[mcp::tool]` as a parameter `x: Resolve<{ident}>`."));
    out
}
