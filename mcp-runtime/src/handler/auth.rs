//! Who is calling: what a transport or a layer verified about the caller.

/// The authenticated caller behind a request.
///
/// A transport's [`TokenVerifier`](crate::auth::TokenVerifier) produces it, or, over
/// Streamable HTTP without a verifier, a layer in front of the endpoint inserts it into
/// the request's extensions (it is `Clone + Send + Sync + 'static`, as those require).
/// Handlers read it with [`RequestContext::auth`](crate::RequestContext::auth).
///
/// ```
/// use mcp::auth::AuthInfo;
///
/// let alice = AuthInfo { client_id: "app".into(), subject: Some("alice".into()), ..AuthInfo::default() };
/// assert_ne!(alice.principal(), AuthInfo { subject: Some("bob".into()), ..alice.clone() }.principal());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthInfo {
    /// The OAuth client the token was issued to.
    pub client_id: String,
    /// The token's issuer (`iss`).
    pub issuer: Option<String>,
    /// The user the token stands for (`sub`).
    pub subject: Option<String>,
    /// Granted scopes.
    pub scopes: Vec<String>,
    /// Expiry, seconds since the Unix epoch (a JWT's `exp`). The HTTP transport refuses
    /// the caller with 401 `invalid_token` from this second on ([`AuthInfo::is_expired`]).
    pub expires_at: Option<u64>,
}

impl AuthInfo {
    /// The principal request state is bound to: client id, issuer and subject.
    ///
    /// Two callers differing in any of the three get different principals, so state sealed
    /// for one is rejected for the other.
    ///
    /// ```
    /// use mcp::handler::AuthInfo;
    ///
    /// let alice = AuthInfo { client_id: "web-app".into(), subject: Some("alice".into()), ..AuthInfo::default() };
    /// let bob = AuthInfo { subject: Some("bob".into()), ..alice.clone() };
    /// assert_ne!(alice.principal(), bob.principal());
    /// assert_eq!(alice.principal(), alice.clone().principal());
    /// ```
    pub fn principal(&self) -> String {
        serde_json::json!([self.client_id, self.issuer, self.subject]).to_string()
    }
}

// Request extensions hold only `Clone + Send + Sync + 'static` values: keep `AuthInfo` one.
const _: fn() = || {
    fn extension<T: Clone + Send + Sync + 'static>() {}
    extension::<AuthInfo>();
};
