//! Which pre-registered credentials go to which authorization server. Credentials given
//! for one issuer go only there; credentials given for "the first server met" are bound
//! to the first issuer they are used with, once for the whole configuration (every
//! connection) and, through the store, for later runs with the same store.

use super::Config;
use super::error::{OAuthError, OAuthErrorKind};
use super::registration::ClientCredentials;

/// The store key of the binding record; not a URL, so never an issuer.
const BINDING_KEY: &str = "urn:mcp:oauth:preregistered-binding";

impl Config {
    /// The client's registration at `issuer` if it is stored or was configured.
    pub(super) fn preregistered(&self, issuer: &str) -> Result<Option<ClientCredentials>, OAuthError> {
        let store = &self.store;
        if let Some(credentials) = store.client(issuer)? {
            return Ok(Some(credentials));
        }
        if let Some((_, credentials)) = self.credentials.iter().find(|(i, _)| i.as_deref() == Some(issuer)) {
            store.set_client(issuer, credentials.clone())?;
            return Ok(Some(credentials.clone()));
        }
        let Some((_, credentials)) = self.credentials.iter().find(|(i, _)| i.is_none()) else {
            return Ok(None);
        };
        let mut bound = self.bound_issuer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if bound.is_none() {
            // An earlier run with this store may have bound them already.
            *bound = store
                .client(BINDING_KEY)?
                .filter(|record| record.client_id() == credentials.client_id())
                .and_then(|record| record.bound_issuer().map(str::to_owned));
        }
        match bound.as_deref() {
            None => {
                store.set_client(BINDING_KEY, credentials.clone().bound_to(issuer))?;
                store.set_client(issuer, credentials.clone())?;
                *bound = Some(issuer.to_owned());
                tracing::debug!(%issuer, "pre-registered credentials bound to the first authorization server met");
                Ok(Some(credentials.clone()))
            }
            Some(b) if b == issuer => {
                store.set_client(issuer, credentials.clone())?;
                Ok(Some(credentials.clone()))
            }
            Some(b) if credentials.secret().is_some() || self.assertion_key.is_some() => Err(OAuthError::new(
                OAuthErrorKind::CredentialsBound,
                format!(
                    "the pre-registered credentials are bound to {b}; not presenting them to {issuer} \
                     (client_credentials_for names the server they belong to)"
                ),
            )),
            Some(b) => {
                tracing::warn!(bound = %b, %issuer, "the pre-registered client id belongs to another authorization server; not presenting it");
                Ok(None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::client::oauth::{MemoryTokenStore, OAuth, TokenSet, TokenStore};

    /// One store shared by several configurations, as a file is by several runs.
    struct Shared(Arc<MemoryTokenStore>);

    impl TokenStore for Shared {
        fn tokens(&self, issuer: &str, resource: &str) -> Result<Option<TokenSet>, OAuthError> {
            self.0.tokens(issuer, resource)
        }
        fn set_tokens(&self, issuer: &str, resource: &str, tokens: Option<TokenSet>) -> Result<(), OAuthError> {
            self.0.set_tokens(issuer, resource, tokens)
        }
        fn client(&self, issuer: &str) -> Result<Option<ClientCredentials>, OAuthError> {
            self.0.client(issuer)
        }
        fn set_client(&self, issuer: &str, credentials: ClientCredentials) -> Result<(), OAuthError> {
            self.0.set_client(issuer, credentials)
        }
    }

    fn config(store: &Arc<MemoryTokenStore>, credentials: ClientCredentials) -> Arc<Config> {
        OAuth::builder()
            .token_store(Shared(Arc::clone(store)))
            .client_credentials(credentials)
            .client_credentials_grant()
            .build()
            .expect("test fixture")
            .config
    }

    #[test]
    fn unbound_credentials_stay_with_the_first_issuer_across_connections_and_runs() {
        let store = Arc::new(MemoryTokenStore::new());
        let first = config(&store, ClientCredentials::confidential("svc", "s3cret"));
        assert!(first.preregistered("https://as.example.com").expect("bound").is_some());
        // The same configuration (another connection) meets another server.
        let e = first.preregistered("https://evil.example.com").expect_err("must be refused");
        assert_eq!(e.kind(), OAuthErrorKind::CredentialsBound);
        assert!(!format!("{e:?}").contains("s3cret"));
        // The next run with the same store.
        let next = config(&store, ClientCredentials::confidential("svc", "s3cret"));
        let e = next.preregistered("https://evil.example.com").expect_err("must be refused");
        assert_eq!(e.kind(), OAuthErrorKind::CredentialsBound);
        assert!(next.preregistered("https://as.example.com").expect("bound").is_some());
        // A public client id is not presented elsewhere either, but that is no error.
        let public = config(&Arc::new(MemoryTokenStore::new()), ClientCredentials::public("app"));
        assert!(public.preregistered("https://as.example.com").expect("bound").is_some());
        assert!(public.preregistered("https://other.example.com").expect("not bound").is_none());
    }
}
