//! Layer 4, authentication: a transport verifies a bearer token into an [`AuthInfo`],
//! which handlers read through the context and request-state sealing binds state to.

use std::sync::Arc;

pub use crate::handler::AuthInfo;
use crate::handler::BoxFuture;

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
