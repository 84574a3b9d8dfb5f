//! Methods beyond MCP's own (`vendor/xyz`) and the extensions a server declares in
//! `capabilities.extensions`: their handlers, the names they may not take, and the
//! checks run when the server is built.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Error;
use crate::handler::{BoxFuture, Reply, RequestContext};
use crate::items::{BuildProblem, ItemKind};
use crate::protocol::JsonObject;

/// A custom method's handler, with its params decoding and its result encoding.
pub(crate) type ExtraMethod =
    Arc<dyn Fn(RequestContext, Option<JsonObject>) -> BoxFuture<Result<Reply, Error>> + Send + Sync>;

/// Every method of both protocol eras (requests and notifications, either direction):
/// a custom method may take none of these names.
const BUILT_IN: &[&str] = &[
    "completion/complete",
    "elicitation/create",
    "initialize",
    "logging/setLevel",
    "ping",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/templates/list",
    "resources/unsubscribe",
    "roots/list",
    "sampling/createMessage",
    "server/discover",
    "subscriptions/listen",
    "tasks/cancel",
    "tasks/get",
    "tasks/list",
    "tasks/result",
    "tools/call",
    "tools/list",
];

/// Why `name` cannot be a custom method, if it cannot.
fn reserved(name: &str) -> Option<&'static str> {
    if name.trim().is_empty() {
        Some("a method needs a name")
    } else if BUILT_IN.contains(&name) {
        Some("it is a built-in MCP method; give yours a vendor prefix, such as `vendor/...`")
    } else if name.starts_with("notifications/") {
        Some("`notifications/` names are MCP notifications, not requests")
    } else if name.starts_with("rpc.") {
        Some("JSON-RPC reserves names that begin with `rpc.`")
    } else {
        None
    }
}

/// Decode a custom method's params. An absent or empty params object (bar `_meta`) also
/// decodes as `null`, so `()` and `Option<T>` work for methods that take none.
fn decode<P: DeserializeOwned>(method: &str, params: Option<JsonObject>) -> Result<P, Error> {
    let params = params.unwrap_or_default();
    let empty = params.keys().all(|k| k == "_meta");
    serde_json::from_value(Value::Object(params)).or_else(|e| match serde_json::from_value(Value::Null) {
        Ok(p) if empty => Ok(p),
        _ => Err(Error::invalid_params(format!("Invalid params for `{method}`: {e}"))),
    })
}

/// The custom methods registered on a builder, with the problems found so far.
#[derive(Default)]
pub(crate) struct ExtraMethods {
    pub(crate) table: HashMap<String, ExtraMethod>,
}

impl ExtraMethods {
    /// Register `handler` under `name`, or say why it can't be.
    pub(crate) fn add<P, R, F, Fut>(&mut self, name: String, handler: F) -> Result<(), BuildProblem>
    where
        P: DeserializeOwned + Send + 'static,
        R: Serialize + Send + 'static,
        F: Fn(RequestContext, P) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, Error>> + Send + 'static,
    {
        if let Some(reason) = reserved(&name) {
            return Err(BuildProblem::InvalidMethod { method: name, reason: reason.to_owned() });
        }
        if self.table.contains_key(&name) {
            return Err(BuildProblem::Duplicate { kind: ItemKind::Method, name });
        }
        let handler = Arc::new(handler);
        let method = name.clone();
        let erased: ExtraMethod = Arc::new(move |ctx, params| {
            let params = match decode::<P>(&method, params) {
                Ok(params) => params,
                Err(e) => return Box::pin(std::future::ready(Err(e))),
            };
            let future = handler(ctx, params);
            Box::pin(async move { Reply::plain(&future.await?) })
        });
        self.table.insert(name, erased);
        Ok(())
    }

    pub(crate) fn get(&self, name: &str) -> Option<&ExtraMethod> {
        self.table.get(name)
    }
}

/// Check an extension identifier: a reverse-DNS prefix and a slash, then a name, as
/// `_meta` keys are spelled (`io.modelcontextprotocol/ui`, `com.example/thing`).
fn check_extension_id(id: &str) -> Result<(), String> {
    let Some((prefix, name)) = id.split_once('/') else {
        return Err("an extension identifier needs a prefix, as in `com.example/name`".to_owned());
    };
    let label_ok = |label: &str| {
        let bytes = label.as_bytes();
        matches!(bytes.first(), Some(b) if b.is_ascii_alphabetic())
            && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
            && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
    };
    if !prefix.split('.').all(label_ok) {
        return Err(format!(
            "prefix `{prefix}` must be dot-separated labels of letters, digits and hyphens, each starting with a letter"
        ));
    }
    let bytes = name.as_bytes();
    let name_ok = bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if !name_ok {
        return Err(format!(
            "name `{name}` must start and end with a letter or digit, with only letters, digits, `-`, `_` and `.` between"
        ));
    }
    Ok(())
}

/// The extensions declared on a builder, for `capabilities.extensions`.
#[derive(Default)]
pub(crate) struct Extensions {
    pub(crate) declared: BTreeMap<String, JsonObject>,
}

impl Extensions {
    /// Declare `id` with `settings` (a JSON object), or say why it can't be.
    pub(crate) fn add(&mut self, id: String, settings: Value) -> Result<(), BuildProblem> {
        if let Err(reason) = check_extension_id(&id) {
            return Err(BuildProblem::InvalidExtension { id, reason });
        }
        let Value::Object(settings) = settings else {
            return Err(BuildProblem::InvalidExtension {
                id,
                reason: "its settings must be a JSON object (`{}` for none)".to_owned(),
            });
        };
        if self.declared.contains_key(&id) {
            return Err(BuildProblem::Duplicate { kind: ItemKind::Extension, name: id });
        }
        self.declared.insert(id, settings);
        Ok(())
    }

    /// The `capabilities.extensions` field: absent when none is declared.
    pub(crate) fn capability(&self) -> Option<BTreeMap<String, JsonObject>> {
        (!self.declared.is_empty()).then(|| self.declared.clone())
    }
}

impl super::ServerBuilder {
    /// Serve a request method of your own, such as `vendor/xyz`, in both eras: per request
    /// under 2026-07-28 (with `_meta`, no `initialize`) and in 2025-11-25 sessions.
    ///
    /// The handler receives the [`RequestContext`] and the params decoded as `P` (the
    /// whole params object, `_meta` included; a method that takes none can use `()`);
    /// params that do not decode are answered `-32602` with serde's reason. The result
    /// must serialize to a JSON object. A name MCP uses itself (`tools/list`,
    /// `initialize`, any `notifications/...`), a name JSON-RPC reserves (`rpc.*`) or one
    /// registered twice is a [`BuildProblem`] that [`try_build`](Self::try_build) reports.
    /// Methods nobody registered still answer `-32601`.
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Deserialize)]
    /// struct Lookup { sku: String }
    ///
    /// #[derive(Serialize)]
    /// struct Stock { sku: String, count: u32 }
    ///
    /// let server = mcp::Server::builder("warehouse", "1.0.0")
    ///     .method("acme/stock", |_ctx, p: Lookup| async move { Ok(Stock { sku: p.sku, count: 3 }) })
    ///     .method("acme/ping", |_ctx, (): ()| async { Ok(serde_json::json!({})) })
    ///     .try_build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn method<P, R, F, Fut>(mut self, name: impl Into<String>, handler: F) -> Self
    where
        P: DeserializeOwned + Send + 'static,
        R: Serialize + Send + 'static,
        F: Fn(RequestContext, P) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, Error>> + Send + 'static,
    {
        if let Err(problem) = self.handlers.extra.add(name.into(), handler) {
            self.problems.push(problem);
        }
        self
    }

    /// Declare an extension in `capabilities.extensions`, which `server/discover` and
    /// `initialize` show: a prefixed identifier (`io.modelcontextprotocol/ui`,
    /// `com.example/thing`) and its settings, a JSON object (`{}` for none). An invalid
    /// identifier, settings that are not an object, or the same identifier twice is a
    /// [`BuildProblem`].
    ///
    /// ```
    /// use serde_json::json;
    ///
    /// let server = mcp::Server::builder("apps", "1.0.0")
    ///     .extension("io.modelcontextprotocol/ui", json!({"mimeTypes": ["text/html;profile=mcp-app"]}))
    ///     .build();
    /// let extensions = server.capabilities().extensions.as_ref().expect("declared");
    /// assert!(extensions.contains_key("io.modelcontextprotocol/ui"));
    /// ```
    pub fn extension(mut self, id: impl Into<String>, settings: Value) -> Self {
        if let Err(problem) = self.extensions.add(id.into(), settings) {
            self.problems.push(problem);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_identifiers_follow_the_meta_key_rules() {
        for ok in ["io.modelcontextprotocol/ui", "com.example/thing", "x/y", "io.example/a.b_c-d"] {
            assert_eq!(check_extension_id(ok), Ok(()), "{ok}");
        }
        for bad in ["thing", "/thing", "io.example/", "io..example/x", "1io/x", "io.example/-x", "io-/x"] {
            assert!(check_extension_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn built_in_and_reserved_names_are_refused() {
        for name in ["tools/list", "initialize", "server/discover", "notifications/x", "rpc.discover", " "] {
            assert!(reserved(name).is_some(), "{name}");
        }
        assert!(reserved("vendor/xyz").is_none());
    }
}
