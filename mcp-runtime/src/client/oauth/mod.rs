//! OAuth 2.1 for the HTTP client, as the MCP authorization spec describes it: the
//! client finds the authorization server from the MCP server's 401, gets the user's
//! authorization with PKCE, and presents the access token on every request.
//!
//! ```
//! use mcp::client::Client;
//! use mcp::client::oauth::{ClientCredentials, FileTokenStore, LoopbackRedirect, OAuth};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let oauth = OAuth::builder()
//!     .authorization_handler(LoopbackRedirect::bind().await?)
//!     .client_metadata_url("https://app.example.com/oauth/client-metadata.json")
//!     .token_store(FileTokenStore::new("/home/me/.config/app/tokens.json"))
//!     .build()?;
//! let client = Client::builder().oauth(oauth).connect_http("https://mcp.example.com/mcp").await?;
//! # let _ = (client, ClientCredentials::public("x"));
//! # Ok(())
//! # }
//! ```
//!
//! # What happens
//!
//! 1. A request refused with 401 carries `WWW-Authenticate` ([`Challenge`]). The client
//!    fetches the Protected Resource Metadata (RFC 9728) from its `resource_metadata`, or
//!    else from `/.well-known/oauth-protected-resource/<path>` and then the root, and
//!    checks that its `resource` is this server (the same origin, a path prefix): a
//!    document for another origin stops the flow before anything is sent to an
//!    authorization server.
//! 2. It fetches the first authorization server's metadata (RFC 8414 and OpenID Connect
//!    discovery, in the spec's order; the root is never probed for an issuer with a
//!    path), requires its `issuer` to equal the issuer byte for byte and PKCE `S256`.
//! 3. Client identity, in order: credentials pre-registered for that issuer
//!    ([`OAuthBuilder::client_credentials_for`]), or for whichever server comes first
//!    ([`OAuthBuilder::client_credentials`]); a Client ID Metadata Document URL
//!    ([`OAuthBuilder::client_metadata_url`]) when the server supports them; dynamic
//!    registration (RFC 7591) otherwise. Registrations are kept per issuer in the
//!    [`TokenStore`]: a new authorization server gets a new registration, never another
//!    server's `client_id`.
//! 4. Scopes: the challenge's `scope`, else the resource's `scopes_supported`, else none;
//!    `offline_access` is added when the authorization server lists it. The
//!    [`AuthorizationHandler`] takes the user to the authorization URL (only http(s), and
//!    plain http only to loopback hosts unless [`OAuthBuilder::allow_insecure_http`]) with
//!    PKCE, `state` and the RFC 8707 `resource`; the redirect's `iss` is checked
//!    (RFC 9207, exact comparison) and then `state`, before the code is exchanged with
//!    the same `resource`.
//! 5. The token goes on every request. A connection's first request goes without one
//!    (which authorization server applies is only known from the 401); a token kept in
//!    the store for that issuer and resource is then used without asking the user. A 401
//!    with a token first tries a stored token
//!    that was not the one refused, then one refresh, then a new authorization; a 403
//!    `insufficient_scope` re-authorizes with the union of the scopes held and challenged
//!    ([`OAuthBuilder::max_step_ups`] times per request at most).
//!
//! Tokens, codes, verifiers and secrets never appear in logs, errors or Debug output.
//!
//! # Design: where the extension flows plug in
//!
//! The flow is split so that the OAuth extensions add parts rather than change them:
//!
//! - **Grants.** The token endpoint takes a `Grant`: `AuthorizationCode`, `RefreshToken`,
//!   or an extension grant ([`OAuthBuilder::client_credentials_grant`],
//!   [`OAuthBuilder::jwt_bearer_grant`], [`OAuthBuilder::enterprise_managed`]: an RFC 8693
//!   token exchange at the identity provider, then the JWT bearer grant), each giving its
//!   form parameters; a configured extension grant replaces step 4 (no redirect, the
//!   pre-registered client), and the rest (discovery, issuer binding, the store, the
//!   retry) is shared. A refused extension grant ends the request (no retry, no other
//!   grant) with the server's [`OAuthError::error_code`].
//! - **Client authentication.** [`TokenEndpointAuthMethod::PrivateKeyJwt`] signs a client
//!   assertion with the key of [`OAuthBuilder::private_key_jwt`] (ES256 or RS256, `aud`
//!   the issuer), for every grant.
//! - **Per-request headers (DPoP).** Every request the flow sends, to the token endpoint
//!   and to the MCP server, gets its credentials from one hook given the method, the URL
//!   and the access token (none at the token endpoint). The default writes
//!   `Authorization: Bearer <token>`. A DPoP hook writes `Authorization: DPoP <token>`
//!   and a fresh `DPoP` proof (with `ath`, and the last nonce); the hook is also asked
//!   about each refusal first, so an authorization server's 400 `use_dpop_nonce` or a
//!   resource server's 401 `DPoP error="use_dpop_nonce"` (both with `DPoP-Nonce`) is
//!   retried once with the nonce, without re-authorizing ([`OAuthBuilder::dpop`]).
//! - **Transport.** The flow's requests go through one fetcher using the HTTP link's
//!   connector (rustls for https with the client builder's added roots, TCP for loopback
//!   http).

mod assertion;
mod binding;
mod challenge;
mod discovery;
mod dpop;
mod error;
mod extension;
mod fetch;
mod flow;
mod grants;
mod hook;
mod pkce;
mod redirect;
mod registration;
mod store;
mod token;

use std::sync::Arc;
use std::time::Duration;

pub use challenge::{Challenge, parse_challenges};
pub use discovery::{ResourceMetadata, ServerMetadata};
pub use error::{OAuthError, OAuthErrorKind};
pub use extension::{AssertionProvider, EnterpriseIdp, assertion_fn};
pub(crate) use flow::{Attempt, OAuthSession};
pub use redirect::{AuthorizationHandler, CallbackParams, HeadlessRedirect, LoopbackRedirect, authorization_fn};
pub use registration::{ClientCredentials, TokenEndpointAuthMethod};
pub use store::{FileTokenStore, MemoryTokenStore, TokenStore};
pub use token::TokenSet;

/// The authorization configuration of a client: pass it to
/// [`ClientBuilder::oauth`](crate::client::ClientBuilder::oauth). Cheap to clone; each
/// connection gets its own flow state, sharing the store.
#[derive(Clone)]
pub struct OAuth {
    config: Arc<Config>,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("client_name", &self.config.client_name)
            .field("client_metadata_url", &self.config.client_metadata_url)
            .field("allow_insecure_http", &self.config.allow_insecure_http)
            .finish_non_exhaustive()
    }
}

pub(crate) struct Config {
    /// `None` only when an extension grant replaces the user's authorization.
    handler: Option<Arc<dyn AuthorizationHandler>>,
    store: Arc<dyn TokenStore>,
    client_name: String,
    client_metadata_url: Option<String>,
    /// Pre-registered credentials, for one issuer or (`None`) the first one met.
    credentials: Vec<(Option<String>, ClientCredentials)>,
    /// The issuer the credentials for "the first server met" were bound to.
    bound_issuer: std::sync::Mutex<Option<String>>,
    application_type: String,
    allow_insecure_http: bool,
    timeout: Duration,
    max_step_ups: u8,
    /// The grant used instead of the authorization code, if any.
    extension: Option<extension::ExtensionFlow>,
    /// The client's key for `private_key_jwt`.
    assertion_key: Option<Arc<assertion::ClientAssertionKey>>,
    /// The DPoP key and nonces, one for the whole configuration.
    dpop: Option<Arc<hook::DpopHook>>,
}

impl OAuth {
    /// Starts the configuration; an [`AuthorizationHandler`] is required.
    pub fn builder() -> OAuthBuilder {
        OAuthBuilder::default()
    }

    pub(crate) fn session(
        &self,
        mcp: http::Uri,
        roots: &crate::client::connector::Roots,
    ) -> Result<OAuthSession, OAuthError> {
        OAuthSession::new(Arc::clone(&self.config), mcp, roots)
    }
}

/// Builds an [`OAuth`].
#[must_use]
pub struct OAuthBuilder {
    handler: Option<Arc<dyn AuthorizationHandler>>,
    store: Arc<dyn TokenStore>,
    client_name: String,
    client_metadata_url: Option<String>,
    credentials: Vec<(Option<String>, ClientCredentials)>,
    application_type: String,
    allow_insecure_http: bool,
    timeout: Duration,
    max_step_ups: u8,
    extension: Option<extension::ExtensionFlow>,
    private_key_pem: Option<String>,
    dpop: bool,
}

impl std::fmt::Debug for OAuthBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthBuilder").field("client_name", &self.client_name).finish_non_exhaustive()
    }
}

impl Default for OAuthBuilder {
    fn default() -> Self {
        OAuthBuilder {
            handler: None,
            store: Arc::new(MemoryTokenStore::new()),
            client_name: "mcp-rust-client".into(),
            client_metadata_url: None,
            credentials: Vec::new(),
            application_type: "native".into(),
            allow_insecure_http: false,
            timeout: Duration::from_secs(30),
            max_step_ups: 2,
            extension: None,
            private_key_pem: None,
            dpop: false,
        }
    }
}

impl OAuthBuilder {
    /// How the user is taken to the authorization server (required).
    pub fn authorization_handler(mut self, handler: impl AuthorizationHandler) -> Self {
        self.handler = Some(Arc::new(handler));
        self
    }

    /// Where tokens and registrations are kept (default: memory).
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// The `client_name` sent with dynamic registration.
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// The https URL of this client's Client ID Metadata Document, used as its
    /// `client_id` at authorization servers that support them.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Credentials registered beforehand at the authorization server `issuer` (compared
    /// exactly with its metadata's `issuer`).
    pub fn client_credentials_for(mut self, issuer: impl Into<String>, credentials: ClientCredentials) -> Self {
        self.credentials.push((Some(issuer.into()), credentials));
        self
    }

    /// Credentials registered beforehand at the authorization server this client meets
    /// first; they are bound to its issuer then, for every connection of this client and,
    /// through the [`TokenStore`], later runs with the same store. With a secret or a
    /// `private_key_jwt` key they are never presented to another server: that ends the
    /// flow with [`OAuthErrorKind::CredentialsBound`]; a bare client id is then not
    /// presented either, and the flow goes on as if none were configured.
    pub fn client_credentials(mut self, credentials: ClientCredentials) -> Self {
        self.credentials.push((None, credentials));
        self
    }

    /// The `application_type` of dynamic registration: `native` (the default: command
    /// lines, desktop apps, loopback redirects) or `web`.
    pub fn application_type(mut self, application_type: impl Into<String>) -> Self {
        self.application_type = application_type.into();
        self
    }

    /// Allow plain http to hosts other than loopback (for development only). Without it,
    /// a plain http MCP server must be loopback, and only then may its metadata name
    /// plain http loopback URLs (a remote server cannot point the flow at local services).
    pub fn allow_insecure_http(mut self, allow: bool) -> Self {
        self.allow_insecure_http = allow;
        self
    }

    /// The timeout of each request the flow makes (default 30 s); the user's time at the
    /// authorization server is the handler's business.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How many step-up authorizations one request may cause (default 2).
    pub fn max_step_ups(mut self, max: u8) -> Self {
        self.max_step_ups = max;
        self
    }

    /// Authenticate at token endpoints with `private_key_jwt` (RFC 7523 §2.2): a JWT
    /// signed with this PEM private key (PKCS#8 P-256 for ES256, PKCS#1 RSA for RS256),
    /// `iss` and `sub` the client id, `aud` the authorization server's issuer. Used by
    /// pre-registered credentials without a secret
    /// ([`ClientCredentials::public`]) when the server lists `private_key_jwt`, in the
    /// authorization code flow and in [`client_credentials_grant`](Self::client_credentials_grant).
    /// The key is checked by [`build`](Self::build).
    ///
    /// ```no_run
    /// use mcp::client::oauth::{ClientCredentials, OAuth};
    ///
    /// # fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let oauth = OAuth::builder()
    ///     .client_credentials(ClientCredentials::public("my-service"))
    ///     .private_key_jwt(std::fs::read_to_string("/etc/my-service/client-key.pem")?)
    ///     .client_credentials_grant()
    ///     .build()?;
    /// # let _ = oauth;
    /// # Ok(())
    /// # }
    /// ```
    pub fn private_key_jwt(mut self, pem: impl Into<String>) -> Self {
        self.private_key_pem = Some(pem.into());
        self
    }

    /// Get tokens with the client credentials grant (OAuth 2.1 §4.2, SEP-1046) instead
    /// of the user's authorization: for a service acting on its own behalf. The client
    /// is the pre-registered one ([`client_credentials`](Self::client_credentials)), with
    /// a secret (`client_secret_basic` or `client_secret_post`, as the server lists) or a
    /// [`private_key_jwt`](Self::private_key_jwt) key. No authorization handler is needed.
    ///
    /// ```
    /// use mcp::client::oauth::{ClientCredentials, OAuth};
    ///
    /// let oauth = OAuth::builder()
    ///     .client_credentials(ClientCredentials::confidential("my-service", "s3cret"))
    ///     .client_credentials_grant()
    ///     .build()
    ///     .expect("a valid configuration");
    /// # let _ = oauth;
    /// ```
    pub fn client_credentials_grant(mut self) -> Self {
        self.extension = Some(extension::ExtensionFlow::ClientCredentials);
        self
    }

    /// Get tokens with the RFC 7523 jwt-bearer grant, presenting the workload's identity
    /// token from `assertion` unchanged (workload identity federation, SEP-1933). The
    /// client id is the pre-registered one ([`client_credentials`](Self::client_credentials)).
    /// No authorization handler is needed.
    ///
    /// ```
    /// use mcp::client::oauth::{ClientCredentials, OAuth, assertion_fn};
    ///
    /// let oauth = OAuth::builder()
    ///     .client_credentials(ClientCredentials::public("my-workload"))
    ///     .jwt_bearer_grant(assertion_fn(|| async {
    ///         std::fs::read_to_string("/var/run/secrets/tokens/mcp").map(|t| t.trim().to_owned())
    ///     }))
    ///     .build()
    ///     .expect("a valid configuration");
    /// # let _ = oauth;
    /// ```
    pub fn jwt_bearer_grant(mut self, assertion: impl AssertionProvider) -> Self {
        self.extension = Some(extension::ExtensionFlow::JwtBearer(Arc::new(assertion)));
        self
    }

    /// Enterprise-managed authorization (SEP-990): the user's ID token is exchanged at
    /// the enterprise identity provider for an ID-JAG (RFC 8693), which the jwt-bearer
    /// grant presents to the MCP server's authorization server, authenticated with the
    /// pre-registered credentials ([`client_credentials`](Self::client_credentials)).
    /// No authorization handler is needed.
    ///
    /// ```
    /// use mcp::client::oauth::{ClientCredentials, EnterpriseIdp, OAuth};
    ///
    /// # fn id_token() -> String { String::new() }
    /// let oauth = OAuth::builder()
    ///     .client_credentials(ClientCredentials::confidential("mcp-client", "s3cret"))
    ///     .enterprise_managed(
    ///         EnterpriseIdp::new("https://idp.example.com/oauth2/token", id_token()).client_id("idp-client"),
    ///     )
    ///     .build()
    ///     .expect("a valid configuration");
    /// # let _ = oauth;
    /// ```
    pub fn enterprise_managed(mut self, idp: EnterpriseIdp) -> Self {
        self.extension = Some(extension::ExtensionFlow::Enterprise(idp));
        self
    }

    /// Sender-constrained tokens with DPoP (RFC 9449): one P-256 key for this
    /// configuration (kept across re-authorizations), a fresh proof on every token
    /// request and every MCP request, tokens presented as `Authorization: DPoP`, and a
    /// server's `use_dpop_nonce` answered by one retry with its nonce.
    ///
    /// ```
    /// use mcp::client::oauth::{HeadlessRedirect, OAuth};
    ///
    /// let oauth = OAuth::builder()
    ///     .authorization_handler(HeadlessRedirect::new("http://localhost:3000/callback"))
    ///     .dpop(true)
    ///     .build()
    ///     .expect("a valid configuration");
    /// # let _ = oauth;
    /// ```
    pub fn dpop(mut self, enabled: bool) -> Self {
        self.dpop = enabled;
        self
    }

    /// Checks the configuration: a handler is set (unless an extension grant replaces
    /// the user's authorization, which then needs pre-registered credentials), the
    /// metadata document URL is https with a path, the `private_key_jwt` key loads.
    pub fn build(self) -> Result<OAuth, OAuthError> {
        if self.handler.is_none() && self.extension.is_none() {
            return Err(OAuthError::new(
                OAuthErrorKind::Config,
                "an authorization handler is required (authorization_handler)",
            ));
        }
        if self.extension.is_some() && self.credentials.is_empty() {
            return Err(OAuthError::new(
                OAuthErrorKind::Config,
                "the extension grants need the client's credentials (client_credentials)",
            ));
        }
        let assertion_key = match &self.private_key_pem {
            Some(pem) => Some(Arc::new(
                assertion::ClientAssertionKey::from_pem(pem)
                    .map_err(|e| OAuthError::with_source(OAuthErrorKind::Config, "the private_key_jwt key", e))?,
            )),
            None => None,
        };
        let dpop = if self.dpop { Some(Arc::new(hook::DpopHook::new()?)) } else { None };
        if let Some(url) = &self.client_metadata_url {
            let uri = fetch::parse_url(url, "the client metadata URL", false)?;
            if uri.scheme_str() != Some("https") || uri.path().len() <= 1 {
                return Err(OAuthError::new(
                    OAuthErrorKind::Config,
                    "the client metadata URL must be an https:// URL with a path",
                ));
            }
        }
        Ok(OAuth {
            config: Arc::new(Config {
                handler: self.handler,
                store: self.store,
                client_name: self.client_name,
                client_metadata_url: self.client_metadata_url,
                credentials: self.credentials,
                bound_issuer: std::sync::Mutex::default(),
                application_type: self.application_type,
                allow_insecure_http: self.allow_insecure_http,
                timeout: self.timeout,
                max_step_ups: self.max_step_ups,
                extension: self.extension,
                assertion_key,
                dpop,
            }),
        })
    }
}

/// RFC 9207 with the MCP rules: a present `iss` must equal the issuer exactly, whether
/// or not the server advertised it; an absent one is refused only when advertised.
pub(crate) fn iss_check(advertised: bool, iss: Option<&str>, issuer: &str) -> Result<(), OAuthError> {
    match iss {
        Some(iss) if iss == issuer => Ok(()),
        Some(_) => Err(OAuthError::new(
            OAuthErrorKind::Issuer,
            format!("the redirect's iss is not {issuer:?}: a possible mix-up; the response is ignored"),
        )),
        None if advertised => Err(OAuthError::new(
            OAuthErrorKind::Issuer,
            format!("{issuer} advertises iss in redirects but this one has none; the response is ignored"),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iss_follows_the_table() {
        let issuer = "http://localhost:3000";
        assert!(iss_check(true, Some(issuer), issuer).is_ok());
        assert_eq!(iss_check(true, None, issuer).expect_err("must be refused").kind(), OAuthErrorKind::Issuer);
        assert_eq!(
            iss_check(true, Some("https://evil.example.com"), issuer).expect_err("must be refused").kind(),
            OAuthErrorKind::Issuer
        );
        assert!(iss_check(false, Some(issuer), issuer).is_ok());
        assert_eq!(
            iss_check(false, Some("https://evil.example.com"), issuer).expect_err("must be refused").kind(),
            OAuthErrorKind::Issuer
        );
        assert!(iss_check(false, None, issuer).is_ok());
        for near in
            ["http://localhost:3000/", "HTTP://localhost:3000", "http://LOCALHOST:3000", "http://localhost:3000:80"]
        {
            assert!(iss_check(true, Some(near), issuer).is_err(), "{near}");
        }
    }

    #[test]
    fn the_builder_checks_its_configuration() {
        let handler = || HeadlessRedirect::new("http://localhost:3000/callback");
        assert_eq!(OAuth::builder().build().expect_err("must be refused").kind(), OAuthErrorKind::Config);
        for bad in ["http://app.example/cimd.json", "https://app.example", "javascript:alert(1)"] {
            assert!(
                OAuth::builder().authorization_handler(handler()).client_metadata_url(bad).build().is_err(),
                "{bad}"
            );
        }
        let ok = OAuth::builder()
            .authorization_handler(handler())
            .client_metadata_url("https://conformance-test.local/client-metadata.json")
            .build()
            .expect("test fixture");
        assert!(format!("{ok:?}").contains("client-metadata.json"));
    }
}
