//! Syntactic questions about types: is it `Context`, `State<..>`, `Resolve<..>`, `Option<T>`,
//! `Result<T, E>`, and does it mention `InputRequiredResult`?

use syn::visit::Visit;
use syn::{GenericArgument, Ident, PathArguments, Type, TypePath};

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(TypePath { qself: None, path }) => path.segments.last(),
        Type::Reference(r) => last_segment(&r.elem),
        Type::Paren(p) => last_segment(&p.elem),
        Type::Group(g) => last_segment(&g.elem),
        _ => None,
    }
}

/// The last path segment's name: `mcp::Context` -> `Context`.
pub fn last_ident(ty: &Type) -> Option<&Ident> {
    last_segment(ty).map(|s| &s.ident)
}

/// The type arguments of the last segment.
fn type_args(ty: &Type) -> Vec<&Type> {
    match last_segment(ty).map(|s| &s.arguments) {
        Some(PathArguments::AngleBracketed(args)) => args
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

pub fn is_context(ty: &Type) -> bool {
    last_ident(ty).is_some_and(|i| i == "Context") && matches!(ty, Type::Path(_))
}

/// Whether the path is spelled through the runtime: `mcp::..`, `::mcp::..` or `crate::..`
/// is not enough to tell, so only a first segment `mcp` counts.
pub fn is_mcp_path(ty: &Type) -> bool {
    matches!(ty, Type::Path(TypePath { qself: None, path }) if path.segments.len() > 1 && path.segments[0].ident == "mcp")
}

/// `&Context`.
pub fn is_context_ref(ty: &Type) -> bool {
    matches!(ty, Type::Reference(r) if r.mutability.is_none() && is_context(&r.elem))
}

/// `State<..>` with a type argument (`mcp::State<T>` or a user type of that name).
pub fn is_state(ty: &Type) -> bool {
    last_ident(ty).is_some_and(|i| i == "State") && matches!(ty, Type::Path(_)) && !type_args(ty).is_empty()
}

/// `&State<..>`.
pub fn is_state_ref(ty: &Type) -> bool {
    matches!(ty, Type::Reference(r) if r.mutability.is_none() && is_state(&r.elem))
}

/// In `State<..>`'s type arguments, the first borrow that is not `'static` (a `&` without
/// `'static`, or a lifetime argument other than `'static`), as tokens for an error there.
pub fn state_borrow(ty: &Type) -> Option<proc_macro2::TokenStream> {
    struct Finder(Option<proc_macro2::TokenStream>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_type_reference(&mut self, r: &'ast syn::TypeReference) {
            if self.0.is_none() && r.lifetime.as_ref().is_none_or(|l| l.ident != "static") {
                self.0 = Some(quote::ToTokens::to_token_stream(r));
            }
            syn::visit::visit_type_reference(self, r);
        }
        fn visit_lifetime(&mut self, l: &'ast syn::Lifetime) {
            if self.0.is_none() && l.ident != "static" {
                self.0 = Some(quote::ToTokens::to_token_stream(l));
            }
        }
    }
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        other => other,
    };
    if !is_state(ty) {
        return None;
    }
    let mut finder = Finder(None);
    for arg in type_args(ty) {
        finder.visit_type(arg);
    }
    finder.0
}

pub fn is_resolve(ty: &Type) -> bool {
    last_ident(ty).is_some_and(|i| i == "Resolve") && matches!(ty, Type::Path(_))
}

/// `T` of `Option<T>`.
pub fn option_inner(ty: &Type) -> Option<&Type> {
    if last_ident(ty).is_some_and(|i| i == "Option") {
        let args = type_args(ty);
        if args.len() == 1 {
            return Some(args[0]);
        }
    }
    None
}

/// `T` of `Result<T, E>` (or of a one-argument `Result<T>` alias).
pub fn result_ok(ty: &Type) -> Option<&Type> {
    if last_ident(ty).is_some_and(|i| i == "Result") && matches!(ty, Type::Path(_)) {
        return type_args(ty).first().copied();
    }
    None
}

/// Names in a return type that mean "this may be an `InputRequiredResult`".
/// (`Outcome` counts only as `protocol::Outcome`: a user type may have that name, and
/// the compile-time probes catch the imported one.)
const INPUT_REQUIRED_NAMES: &[&str] =
    &["InputRequiredResult", "CallToolOutcome", "GetPromptOutcome", "ReadResourceOutcome"];

/// The first identifier in `ty` naming an input-required type, for a precise span.
pub fn find_input_required(ty: &Type) -> Option<Ident> {
    struct Finder(Option<Ident>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_path(&mut self, path: &'ast syn::Path) {
            let segments: Vec<_> = path.segments.iter().collect();
            for (i, seg) in segments.iter().enumerate() {
                let qualified_outcome = seg.ident == "Outcome" && i > 0 && segments[i - 1].ident == "protocol";
                if self.0.is_none() && (qualified_outcome || INPUT_REQUIRED_NAMES.iter().any(|n| seg.ident == n)) {
                    self.0 = Some(seg.ident.clone());
                }
            }
            syn::visit::visit_path(self, path);
        }
    }
    let mut finder = Finder(None);
    finder.visit_type(ty);
    finder.0
}

/// A JSON Schema type name for simple Rust types, for documentation.
pub fn json_type(ty: &Type) -> String {
    if let Some(inner) = option_inner(ty) {
        return json_type(inner);
    }
    let Some(ident) = last_ident(ty) else { return "value".to_owned() };
    match ident.to_string().as_str() {
        "String" | "str" | "char" => "string".to_owned(),
        "bool" => "boolean".to_owned(),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => {
            "integer".to_owned()
        }
        "f32" | "f64" => "number".to_owned(),
        "Vec" | "HashSet" | "BTreeSet" => match type_args(ty).first() {
            Some(inner) => format!("array of {}", json_type(inner)),
            None => "array".to_owned(),
        },
        "HashMap" | "BTreeMap" | "Map" | "Value" => "object".to_owned(),
        other => format!("object (`{other}`)"),
    }
}

/// The first `Resolve` segment inside `ty` below its top level (`Option<Resolve<..>>`).
pub fn nested_resolve(ty: &Type) -> Option<Ident> {
    struct Finder(Option<Ident>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_path_segment(&mut self, seg: &'ast syn::PathSegment) {
            if self.0.is_none() && seg.ident == "Resolve" {
                self.0 = Some(seg.ident.clone());
            }
            syn::visit::visit_path_segment(self, seg);
        }
    }
    if is_resolve(ty) {
        // Only the arguments of a top-level `Resolve` may not hold another one.
        let mut finder = Finder(None);
        for arg in type_args(ty) {
            finder.visit_type(arg);
        }
        return finder.0;
    }
    let mut finder = Finder(None);
    finder.visit_type(ty);
    finder.0
}

/// Names of the question types a resolver may return.
pub const QUESTION_NAMES: &[&str] = &["Elicit", "Sample", "ListRoots"];

/// Every question-type segment in `ty`, in order.
pub fn question_segments(ty: &Type) -> Vec<Ident> {
    struct Finder(Vec<Ident>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_path_segment(&mut self, seg: &'ast syn::PathSegment) {
            if QUESTION_NAMES.iter().any(|n| seg.ident == n) {
                self.0.push(seg.ident.clone());
            }
            syn::visit::visit_path_segment(self, seg);
        }
    }
    let mut finder = Finder(Vec::new());
    finder.visit_type(ty);
    finder.0
}

/// Whether `ty` itself is a question type (`Elicit<T>`, `Sample`, `ListRoots`).
pub fn is_question(ty: &Type) -> bool {
    matches!(ty, Type::Path(_)) && last_ident(ty).is_some_and(|i| QUESTION_NAMES.iter().any(|n| i == n))
}
