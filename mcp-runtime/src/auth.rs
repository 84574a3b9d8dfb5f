//! Who is calling: the transport verifies a bearer token into an [`AuthInfo`], which
//! handlers read through the context and request-state sealing binds state to.

use std::sync::Arc;

use crate::server::BoxFuture;

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

/// Turns a bearer token into an [`AuthInfo`], or refuses it (`None`).
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verify `token`.
    fn verify(&self, token: &str) -> BoxFuture<Option<AuthInfo>>;
}

/// A verifier with a fixed table of tokens, for tests and examples.
#[derive(Debug, Clone, Default)]
pub struct StaticTokenVerifier {
    tokens: Arc<Vec<(String, AuthInfo)>>,
}

impl StaticTokenVerifier {
    /// A verifier accepting exactly these tokens.
    pub fn new(tokens: impl IntoIterator<Item = (String, AuthInfo)>) -> Self {
        StaticTokenVerifier { tokens: Arc::new(tokens.into_iter().collect()) }
    }
}

impl TokenVerifier for StaticTokenVerifier {
    fn verify(&self, token: &str) -> BoxFuture<Option<AuthInfo>> {
        let found = self
            .tokens
            .iter()
            .find(|(t, _)| crate::sealing::constant_time_eq(t.as_bytes(), token.as_bytes()))
            .map(|(_, info)| info.clone());
        Box::pin(async move { found })
    }
}
