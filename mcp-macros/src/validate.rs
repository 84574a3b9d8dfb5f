//! Checking the model before anything is generated. Every problem is reported, each at
//! the token it is about, with a message that says how to fix it.

use crate::model::{FnModel, Kind, Param, ParamRole};
use crate::types;

/// An error covering the whole parameter, from its name to the end of its type.
fn at_param(param: &Param, message: impl std::fmt::Display) -> syn::Error {
    let (ident, ty) = (&param.ident, &param.ty);
    syn::Error::new_spanned(quote::quote!(#ident #ty), message)
}

/// The variables of an RFC 6570 template (`{name}` and `{+name}`), or why it is invalid.
pub fn template_variables(template: &str) -> Result<Vec<String>, String> {
    let mut vars = Vec::new();
    let mut rest = template;
    let mut previous_was_variable = false;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            previous_was_variable = false;
        }
        let close = rest[open..].find('}').ok_or_else(|| format!("unclosed `{{` in `{template}`"))?;
        let expr = &rest[open + 1..open + close];
        let name = expr.strip_prefix('+').unwrap_or(expr);
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("unsupported expression `{{{expr}}}`: use `{{name}}` or `{{+name}}`"));
        }
        if previous_was_variable {
            return Err(format!("two variables in a row in `{template}` cannot be told apart; put text between them"));
        }
        if vars.iter().any(|v| v == name) {
            return Err(format!("the variable `{name}` appears twice in `{template}`"));
        }
        vars.push(name.to_owned());
        previous_was_variable = true;
        rest = &rest[open + close + 1..];
    }
    if rest.contains('}') {
        return Err(format!("stray `}}` in `{template}`"));
    }
    Ok(vars)
}

const RESOLVE_WITH_INPUT: &str = "a tool with `Resolve<...>` parameters cannot also return an `InputRequiredResult`: \
one call has a single inputResponses/requestState channel and its resolvers already use it; \
ask through another resolver instead, or drop the `Resolve` parameters and return the `InputRequiredResult` yourself";

/// The message of the compile-time check that catches what syntax cannot see.
pub fn resolve_with_input_message() -> &'static str {
    RESOLVE_WITH_INPUT
}

pub const STATIC_WITH_INPUT: &str = "a static resource cannot return an `InputRequiredResult`: it receives no `Context`, \
so it could never read the answers; make it a template (add a `{variable}` to the URI) or return the contents";

const TASK_WITH_INPUT: &str = "a task tool cannot return an `InputRequiredResult`: once it runs as a task, \
the client polls `tasks/get` and no longer retries the call; ask before the task starts with `Resolve<...>` \
parameters, or while it runs with `mcp::resolve::ask(&ctx, question)`";

/// The message of the compile-time check that a task tool's return type needs no input.
pub fn task_with_input_message() -> &'static str {
    TASK_WITH_INPUT
}

pub fn validate(model: &FnModel, errors: &mut Vec<syn::Error>) {
    let name = model.name();
    let name_span = model.options.name.as_ref().map_or_else(|| model.ident.span(), |n| n.span());
    if model.kind == Kind::Tool
        && (name.is_empty()
            || name.len() > 128
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        errors.push(syn::Error::new(
            name_span,
            format!("the tool name `{name}` is not valid: use 1 to 128 of `A-Z a-z 0-9 _ - .`"),
        ));
    }
    for scope in &model.options.scopes {
        if let Err(message) = scope_token(&scope.value()) {
            errors.push(syn::Error::new(scope.span(), message));
        }
    }
    if let Some(meta) = &model.options.meta {
        match serde_json::from_str::<serde_json::Value>(&meta.value()) {
            Ok(serde_json::Value::Object(_)) => {}
            _ => errors.push(syn::Error::new(
                meta.span(),
                "`meta` must be a JSON object, e.g. `meta = r#\"{\"team\": \"infra\"}\"#`",
            )),
        }
    }
    // `mcp::Context` (and `&Context`) once; a `Context` that may be a user type once per spelling.
    let mut context_seen = false;
    let mut maybe_contexts: Vec<String> = Vec::new();
    for param in &model.params {
        let ident = param.ident.to_string();
        if ident.starts_with("__mcp") {
            errors.push(syn::Error::new(
                param.ident.span(),
                format!("the parameter name `{ident}` is reserved for generated code; rename it"),
            ));
        }
        match param.role {
            ParamRole::ContextOrArgument if types::state_borrow(&param.ty).is_some() => {
                if let Some(borrow) = types::state_borrow(&param.ty) {
                    errors.push(syn::Error::new_spanned(borrow, STATE_BORROW));
                }
            }
            // Two `State<T>` of one type are two clones of one value: harmless.
            ParamRole::ContextOrArgument if is_state(&param.ty) => {}
            ParamRole::ContextOrArgument => {
                let ty = &param.ty;
                let spelled = quote::quote!(#ty).to_string();
                if maybe_contexts.contains(&spelled) {
                    errors.push(at_param(
                        param,
                        "this function already takes a `Context`; remove this second one (clone the first if you need two)",
                    ));
                }
                maybe_contexts.push(spelled);
            }
            ParamRole::Context | ParamRole::ContextRef => {
                if context_seen {
                    errors.push(at_param(
                        param,
                        "this function already takes a `Context`; remove this second one (clone the first if you need two)",
                    ));
                }
                context_seen = true;
            }
            ParamRole::Resolve if !matches!(model.kind, Kind::Tool | Kind::Resolver) => {
                errors.push(syn::Error::new_spanned(
                    &param.ty,
                    format!(
                        "`Resolve<...>` parameters are for tools; {} cannot resolve dependencies: \
                         take `ctx: mcp::Context` instead and read what you need from the request",
                        model.kind.attribute()
                    ),
                ));
            }
            _ => {}
        }
        if let Some(nested) = types::nested_resolve(&param.ty) {
            errors.push(syn::Error::new(
                nested.span(),
                "`Resolve<...>` must be the parameter's whole type, not inside `Option<...>` or another type: \
                 a resolver always produces its value or ends the call; to handle a declined or cancelled \
                 question yourself, take `Resolve<resolver, Refusable>`",
            ));
        }
        if model.kind == Kind::Resolver && (param.default.is_some() || param.description.is_some()) {
            errors.push(at_param(
                param,
                "a resolver parameter takes its value from the tool's argument of the same name; \
                 only `#[mcp(rename = \"argument\")]` applies here",
            ));
            continue;
        }
        if model.kind == Kind::Resolver && param.rename.is_some() && param.role != ParamRole::Argument {
            errors.push(at_param(
                param,
                "`rename` names the tool argument to take; `Context` and `Resolve` parameters have none",
            ));
        }
        if param.default.is_some() && (param.role != ParamRole::Argument || model.kind != Kind::Tool) {
            let fix = if param.role == ParamRole::Argument {
                "; make this parameter an `Option<_>` (an optional argument) and use `.unwrap_or(...)` in the body"
            } else {
                "; `Context` and `Resolve` parameters are not arguments, remove the attribute"
            };
            errors.push(at_param(param, format!("`#[mcp(default = ...)]` is for tool arguments only{fix}")));
        }
    }
    if let Some(span) = model.generics {
        errors.push(syn::Error::new(
            span,
            format!(
                "{} cannot be generic: the macro generates one definition per function; \
                 write a concrete function (it may call a generic one)",
                model.kind.attribute()
            ),
        ));
    }
    crate::complete::validate(model, errors);
    if model.kind == Kind::Resolver {
        validate_resolver(model, errors);
        return;
    }
    let has_resolve = model.params.iter().any(|p| p.role == ParamRole::Resolve);
    if has_resolve && let Some(found) = model.ret.as_ref().and_then(types::find_input_required) {
        errors.push(syn::Error::new(found.span(), RESOLVE_WITH_INPUT));
    } else if model.options.task.is_some()
        && let Some(found) = model.ret.as_ref().and_then(types::find_input_required)
    {
        errors.push(syn::Error::new(found.span(), TASK_WITH_INPUT));
    }
    if model.options.task.is_some() && !model.is_async {
        errors.push(syn::Error::new(
            model.ident.span(),
            "a task tool must be an `async fn`: its work runs on the async runtime, where a long \
             synchronous body would hold a worker thread that cancellation cannot stop; make it `async` \
             and move blocking work to `tokio::task::spawn_blocking`",
        ));
    }
    if let Some(task) = &model.options.task
        && !matches!(task.value().as_str(), "optional" | "required")
    {
        errors.push(syn::Error::new(
            task.span(),
            format!(
                "`task = {:?}` is not a task policy: use `task = \"optional\"` (a task when the client supports them) \
                 or `task = \"required\"` (only as a task); leave it out for a tool that never runs as one",
                task.value()
            ),
        ));
    }
    if model.kind == Kind::Resource {
        validate_resource(model, errors);
    }
}

fn validate_resource(model: &FnModel, errors: &mut Vec<syn::Error>) {
    let Some(uri) = &model.options.uri else {
        errors.push(syn::Error::new(
            model.ident.span(),
            "a resource needs its URI: `#[mcp::resource(\"file:///notes.txt\")]` or a template like `#[mcp::resource(\"notes://{id}\")]`",
        ));
        return;
    };
    let vars = match template_variables(&uri.value()) {
        Ok(vars) => vars,
        Err(why) => {
            errors.push(syn::Error::new(uri.span(), why));
            return;
        }
    };
    if vars.is_empty() {
        let base = uri.value().trim_end_matches('/').to_owned();
        // Application state is the one thing a static resource may take.
        for param in model.params.iter().filter(|p| !(p.role == ParamRole::ContextOrArgument && is_state(&p.ty))) {
            let message = match param.role {
                ParamRole::Context | ParamRole::ContextOrArgument => format!(
                    "a static resource takes no parameters, not even `Context`; remove it, \
                     or make the resource a template such as `{base}/{{id}}` (templates may take a `Context`)"
                ),
                _ => format!(
                    "a static resource takes no parameters; to read parts of the URI, \
                     make it a template such as `{base}/{{{}}}`",
                    param.wire_name()
                ),
            };
            errors.push(at_param(param, message));
        }
        if let Some(found) = model.ret.as_ref().and_then(types::find_input_required) {
            errors.push(syn::Error::new(found.span(), STATIC_WITH_INPUT));
        }
        return;
    }
    for param in model.arguments() {
        let wire = param.wire_name();
        if !vars.contains(&wire) {
            errors.push(syn::Error::new(
                param.ident.span(),
                format!(
                    "`{wire}` is not a variable of the URI template `{}`; its variables are: {}",
                    uri.value(),
                    vars.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    }
    // A parameter spelled `Context` may be a user type standing for a variable; one that
    // names no variable must be `mcp::Context`, which the generated code checks.
    for var in &vars {
        if !model.maybe_arguments().any(|p| &p.wire_name() == var) {
            errors.push(syn::Error::new(
                uri.span(),
                format!("the URI template variable `{{{var}}}` has no matching parameter; add `{var}: String` to the function"),
            ));
        }
    }
}

/// A `State<T>` whose `T` borrows: state is registered once and shared by every request.
pub const STATE_BORROW: &str = "`mcp::State<T>` is registered once and shared by every request, so `T` cannot borrow: \
own the data instead (`String` for `&str`, `Arc<T>` for `&T`, a struct without lifetime parameters), \
or borrow for `'static` (`&'static str`)";

/// `State<..>`, taken by value or (in a resolver) by reference.
fn is_state(ty: &syn::Type) -> bool {
    types::is_state(ty) || types::is_state_ref(ty)
}

/// The message of the compile-time check on a resolver's return type, for what syntax
/// cannot see (`Outcome` imported by name, aliases).
pub const RESOLVER_INPUT_REQUIRED: &str = "a resolver returns a value or a question (`Elicit<T>`, `Sample`, \
`ListRoots`), not a `protocol::Outcome` or an `InputRequiredResult`: the framework builds that from the questions \
of all the tool's resolvers";

const ONE_QUESTION: &str = "a resolver asks at most one question: it returns a plain value or exactly one of \
`Elicit<T>`, `Sample`, `ListRoots`; split this into one resolver per question (one may depend on the other)";

fn validate_resolver(model: &FnModel, errors: &mut Vec<syn::Error>) {
    let Some(ret) = &model.ret else { return };
    if let Some(found) = types::find_input_required(ret) {
        errors.push(syn::Error::new(
            found.span(),
            "a resolver returns a value or a question (`Elicit<T>`, `Sample`, `ListRoots`), not an \
             `InputRequiredResult`: the framework builds that from the questions of all the tool's resolvers",
        ));
        return;
    }
    let questions = types::question_segments(ret);
    if let Some(second) = questions.get(1) {
        errors.push(syn::Error::new(second.span(), ONE_QUESTION));
        return;
    }
    let top = types::result_ok(ret).unwrap_or(ret);
    if let Some(first) = questions.first()
        && !types::is_question(top)
    {
        errors.push(syn::Error::new(
            first.span(),
            "a question must be the resolver's whole return type (or the `Ok` of a `Result`); \
             to answer without asking, return `Elicit::answered(value)` (or `Sample::answered`, `ListRoots::answered`)",
        ));
    }
}

/// Whether `scope` is an RFC 6749 §3.3 scope-token: one or more of `%x21 / %x23-5B / %x5D-7E`
/// (printable ASCII except space, `"` and `\`).
fn scope_token(scope: &str) -> Result<(), String> {
    const ALLOWED: &str = "a scope is one or more printable ASCII characters other than space, `\"` and `\\` \
                           (RFC 6749 §3.3 scope-token), e.g. `db:write`; list several scopes as separate strings";
    if scope.is_empty() {
        return Err(format!("empty scope: {ALLOWED}"));
    }
    match scope.chars().find(|c| !matches!(*c, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E')) {
        Some(bad) => {
            Err(format!("the scope `{}` contains {bad:?}, which is not allowed: {ALLOWED}", scope.escape_debug()))
        }
        None => Ok(()),
    }
}
