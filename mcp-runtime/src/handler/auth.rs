//! Who is calling: what a transport or a layer verified about the caller.

/// The authenticated caller behind a request.
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
    /// Expiry, seconds since the Unix epoch.
    pub expires_at: Option<u64>,
}

impl AuthInfo {
    /// The principal request state is bound to: client id, issuer and subject.
    pub fn principal(&self) -> String {
        serde_json::json!([self.client_id, self.issuer, self.subject]).to_string()
    }
}
