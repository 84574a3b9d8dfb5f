//! Scopes per item: what `scopes = [...]` on `#[mcp::tool]`, `#[mcp::prompt]` and
//! `#[mcp::resource]` requires of the caller.
//!
//! - **When.** On `tools/call`, `prompts/get`, `resources/read`, and `completion/complete`
//!   for a scoped prompt or resource template: before the item's function runs and before
//!   any of its resolvers asks the user anything.
//! - **Who passes.** A caller whose [`AuthInfo::scopes`] holds every scope the item
//!   declares. Scopes are compared exactly (case-sensitive); no scope implies another.
//! - **Fail closed.** A request with no [`AuthInfo`] at all (stdio, an in-process link, or
//!   an HTTP transport without a token verifier) is refused for every scoped item: a
//!   missing or misconfigured authorization setup never opens a scoped item to everyone.
//!   Items without scopes are unaffected.
//! - **The refusal** is [`Error::insufficient_scope`]: code
//!   [`ErrorCode::INSUFFICIENT_SCOPE`](crate::protocol::ErrorCode::INSUFFICIENT_SCOPE),
//!   with every scope the item needs in `data.requiredScopes`. Over HTTP it is meant to
//!   become `403` with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`
//!   (RFC 6750 §3.1), the client's cue to step up.
//! - **Listing.** Scoped items are listed to everyone by default;
//!   [`ServerBuilder::hide_unauthorized_items`](crate::server::ServerBuilder::hide_unauthorized_items)
//!   lists each caller only the items it may use.
//!
//! [`Server::declared_scopes`](crate::server::Server::declared_scopes) collects every scope the
//! items declare (for `scopes_supported` in the protected resource metadata).

use crate::Error;
use crate::handler::AuthInfo;

/// The scopes one item requires.
pub(crate) type Scopes = &'static [&'static str];

/// Whether `auth` holds every scope in `required`. No scopes required: always; no
/// authenticated caller: never (unless nothing is required).
///
/// ```
/// use mcp::handler::AuthInfo;
/// use mcp::items::scopes::permits;
///
/// let auth = AuthInfo { scopes: vec!["db:read".into()], ..AuthInfo::default() };
/// assert!(permits(Some(&auth), &["db:read"]));
/// assert!(!permits(Some(&auth), &["db:read", "db:write"]));
/// assert!(!permits(None, &["db:read"]));
/// assert!(permits(None, &[]));
/// ```
pub fn permits(auth: Option<&AuthInfo>, required: &[&str]) -> bool {
    holds(auth, required)
}

/// [`permits`] for scopes of any string type (a dynamic tool's are owned).
pub(crate) fn holds<S: AsRef<str>>(auth: Option<&AuthInfo>, required: &[S]) -> bool {
    if required.is_empty() {
        return true;
    }
    auth.is_some_and(|auth| required.iter().all(|scope| auth.scopes.iter().any(|granted| granted == scope.as_ref())))
}

/// [`permits`], or the insufficient-scope error naming what `required` needs. `kind` and
/// `name` (a registered item's, never a caller's value) go to the debug log only.
pub(crate) fn check<S: AsRef<str>>(
    auth: Option<&AuthInfo>,
    required: &[S],
    kind: &str,
    name: Option<&str>,
) -> Result<(), Error> {
    if holds(auth, required) {
        return Ok(());
    }
    tracing::debug!(kind, name, authenticated = auth.is_some(), "refused: insufficient scope");
    Err(Error::insufficient_scope(required.iter().map(AsRef::as_ref)))
}

/// Whether `scope` is an RFC 6749 §3.3 scope-token: one or more of `%x21 / %x23-5B /
/// %x5D-7E` (visible ASCII but `"` and `\`), as the macros check at compile time.
pub(crate) fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty() && scope.chars().all(|c| matches!(c, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E'))
}

/// The scopes `scopes`, sorted, each once.
pub(crate) fn collect<S: AsRef<str>>(scopes: impl IntoIterator<Item = S>) -> Vec<String> {
    let mut all: Vec<String> = scopes.into_iter().map(|s| s.as_ref().to_owned()).collect();
    all.sort();
    all.dedup();
    all
}
