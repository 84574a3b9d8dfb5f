//! The state machine: what the HTTP link asks when the server refuses a request (401,
//! 403), and the authorization code flow it runs.
//!
//! - 401: re-read the resource metadata (named by the challenge, else the well-known
//!   locations) and the authorization server's metadata; use a stored token for that
//!   issuer and resource if it is not the one refused; else refresh once; else authorize
//!   with the challenge's scopes, else the resource's `scopes_supported`, else none.
//! - 403 `insufficient_scope`: authorize again with the union of the scopes held and the
//!   challenged ones, a bounded number of times per request, and never for a challenge
//!   that asks for nothing new.
//! - Any other 403 is not about authorization: the refusal goes to the caller.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};

use super::challenge::{Challenge, hook_error, parse_challenges, pick};
use super::discovery::{self, ResourceMetadata, ServerMetadata};
use super::error::{OAuthError, OAuthErrorKind};
use super::fetch::OAuthHttp;
use super::hook::{BearerHook, RequestHook};
use super::pkce::{Pkce, new_state};
use super::redirect::CallbackParams;
use super::registration::{self, ClientCredentials, RegistrationRequest};
use super::token::{Grant, TokenRequest, TokenSet, request_token};
use super::{Config, iss_check};

/// How many times one request may be answered 401/403 and retried.
const MAX_RETRIES: u8 = 3;

/// The token the link presents, and where it came from.
#[derive(Debug)]
pub(crate) struct Current {
    issuer: String,
    resource: String,
    tokens: TokenSet,
}

/// What one request has gone through so far.
#[derive(Debug, Default)]
pub(crate) struct Attempt {
    retries: u8,
    step_ups: u8,
    refreshed: bool,
    hook_retried: bool,
}

#[derive(Debug, Default)]
pub(super) struct State {
    /// The scopes last requested, for step-up unions.
    requested: BTreeSet<String>,
}

/// The authorization of one HTTP link.
pub(crate) struct OAuthSession {
    pub(super) config: Arc<Config>,
    pub(super) http: OAuthHttp,
    pub(super) hook: Arc<dyn RequestHook>,
    mcp: Uri,
    state: tokio::sync::Mutex<State>,
    current: Mutex<Option<Arc<Current>>>,
}

impl std::fmt::Debug for OAuthSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthSession").field("mcp", &self.mcp).finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn join(scopes: &[String]) -> Option<String> {
    (!scopes.is_empty()).then(|| scopes.join(" "))
}

impl OAuthSession {
    pub(crate) fn new(
        config: Arc<Config>,
        mcp: Uri,
        roots: &crate::client::connector::Roots,
    ) -> Result<Self, OAuthError> {
        let plain = mcp.scheme_str().is_some_and(|s| s.eq_ignore_ascii_case("http"));
        let local = crate::oauth_urls::is_loopback(&mcp);
        if plain && !local && !config.allow_insecure_http {
            return Err(OAuthError::new(
                OAuthErrorKind::UnsafeUrl,
                format!(
                    "{mcp} is plain http:// to a host that is not loopback: tokens would travel in the clear \
                     (opt in with allow_insecure_http(true))"
                ),
            ));
        }
        // A remote server's metadata must not point the flow at local services.
        let http = OAuthHttp::new(config.timeout, config.allow_insecure_http, roots)?.with_loopback_http(local);
        let hook: Arc<dyn RequestHook> = match &config.dpop {
            Some(dpop) => Arc::clone(dpop) as Arc<dyn RequestHook>,
            None => Arc::new(BearerHook),
        };
        Ok(OAuthSession { config, http, hook, mcp, state: tokio::sync::Mutex::default(), current: Mutex::default() })
    }

    /// Sees the headers of an answer that was not refused (a DPoP nonce may come with it).
    pub(crate) fn observe(&self, headers: &HeaderMap) {
        self.hook.observe(&self.mcp, headers);
    }

    /// The token to present now, if any.
    pub(crate) fn current(&self) -> Option<Arc<Current>> {
        lock(&self.current).clone()
    }

    /// The headers presenting `current` on a request of `method` to `uri`.
    pub(crate) fn headers(
        &self,
        method: &Method,
        uri: &Uri,
        current: Option<&Current>,
    ) -> Result<Vec<(HeaderName, HeaderValue)>, OAuthError> {
        self.hook.headers(method, uri, current.map(|c| &c.tokens))
    }

    pub(super) fn set_current(&self, issuer: &str, resource: &str, tokens: TokenSet) -> Result<(), OAuthError> {
        if tokens.token_type().eq_ignore_ascii_case("DPoP") {
            // Bound to this process's DPoP key: useless (and refused) after it, so kept in
            // memory for the session only, never in a store that may outlive it.
            tracing::debug!(%issuer, "DPoP-bound token kept in memory, not stored");
        } else {
            self.config.store.set_tokens(issuer, resource, Some(tokens.clone()))?;
        }
        *lock(&self.current) =
            Some(Arc::new(Current { issuer: issuer.to_owned(), resource: resource.to_owned(), tokens }));
        Ok(())
    }

    /// The server refused a request sent with `sent`: whether to send it again (after
    /// authorizing), or the error that ends it. `Ok(false)` hands the refusal itself to
    /// the caller.
    pub(crate) async fn refused(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
        sent: Option<&Arc<Current>>,
        attempt: &mut Attempt,
    ) -> Result<bool, OAuthError> {
        let values = headers.get_all(http::header::WWW_AUTHENTICATE).iter().filter_map(|v| v.to_str().ok());
        let challenges = parse_challenges(values);
        let challenge = pick(&challenges);
        if self.hook.retry(&self.mcp, status, headers, hook_error(&challenges)) && !attempt.hook_retried {
            attempt.hook_retried = true;
            return Ok(true);
        }
        if attempt.retries >= MAX_RETRIES {
            return Ok(false);
        }
        attempt.retries += 1;
        let mut state = self.state.lock().await;
        let now = self.current();
        let replaced = match (&now, sent) {
            (Some(now), Some(sent)) => !Arc::ptr_eq(now, sent),
            (Some(_), None) => true,
            _ => false,
        };
        let reauthorizes = status == StatusCode::UNAUTHORIZED
            || (status == StatusCode::FORBIDDEN && challenge.is_some_and(|c| c.error() == Some("insufficient_scope")));
        if reauthorizes && replaced {
            // Another request authorized while this one was in flight.
            return Ok(true);
        }
        match status {
            StatusCode::UNAUTHORIZED => self.unauthorized(&mut state, challenge, sent, attempt).await.map(|()| true),
            StatusCode::FORBIDDEN => match challenge.filter(|c| c.error() == Some("insufficient_scope")) {
                Some(challenge) => self.step_up(&mut state, challenge, sent, attempt).await.map(|()| true),
                None => Ok(false),
            },
            _ => Ok(false),
        }
    }

    async fn discover(&self, challenge: Option<&Challenge>) -> Result<(ResourceMetadata, ServerMetadata), OAuthError> {
        let resource =
            discovery::resource_metadata(&self.http, &self.mcp, challenge.and_then(Challenge::resource_metadata))
                .await?;
        let issuer = resource.authorization_servers[0].clone();
        let server = discovery::server_metadata(&self.http, &issuer).await?;
        tracing::debug!(resource = %resource.resource, %issuer, "discovered the authorization server");
        Ok((resource, server))
    }

    async fn unauthorized(
        &self,
        state: &mut State,
        challenge: Option<&Challenge>,
        sent: Option<&Arc<Current>>,
        attempt: &mut Attempt,
    ) -> Result<(), OAuthError> {
        let (resource, server) = self.discover(challenge).await?;
        let (issuer, id) = (server.issuer.as_str(), resource.resource.as_str());
        let stored = match self.config.store.tokens(issuer, id)? {
            Some(stored) => Some(stored),
            // A DPoP-bound token lives only in the session.
            None => self.current().filter(|c| c.issuer == issuer && c.resource == id).map(|c| c.tokens.clone()),
        };
        if let Some(stored) = stored {
            let refused = sent.is_some_and(|s| {
                s.issuer == issuer && s.resource == id && s.tokens.access_token() == stored.access_token()
            });
            if !refused && !stored.expires_within(Duration::from_secs(10)) {
                tracing::debug!(%issuer, "using the stored token");
                return self.set_current(issuer, id, stored);
            }
            if let Some(refresh_token) = stored.refresh_token().filter(|_| !attempt.refreshed) {
                attempt.refreshed = true;
                match self.refresh(&server, &resource, &stored, refresh_token).await {
                    Ok(tokens) => return self.set_current(issuer, id, tokens),
                    Err(e) => tracing::debug!(error = %e, "refreshing failed; authorizing again"),
                }
            }
            self.config.store.set_tokens(issuer, id, None)?;
        }
        let scopes = challenge
            .and_then(Challenge::scopes)
            .filter(|s| !s.is_empty())
            .or_else(|| resource.scopes_supported.clone())
            .unwrap_or_default();
        match &self.config.extension {
            Some(extension) => self.extension_grant(extension, &resource, &server, join(&scopes)).await,
            None => self.authorize(state, &resource, &server, scopes).await,
        }
    }

    async fn refresh(
        &self,
        server: &ServerMetadata,
        resource: &ResourceMetadata,
        stored: &TokenSet,
        refresh_token: &str,
    ) -> Result<TokenSet, OAuthError> {
        let credentials = self
            .known_identity(server)?
            .ok_or_else(|| OAuthError::new(OAuthErrorKind::Registration, "no client registration to refresh with"))?;
        let scope = join(&stored.scopes());
        let grant = Grant::RefreshToken { refresh_token: refresh_token.to_owned() };
        let mut tokens =
            self.exchange(server, &credentials, grant, resource, scope.as_deref(), scope.as_deref()).await?;
        if tokens.refresh_token().is_none() {
            // The server did not rotate it: the old one stays valid (OAuth 2.1 §4.3.3).
            tokens = tokens.with_refresh_token(refresh_token.to_owned());
        }
        tracing::debug!(issuer = %server.issuer, "refreshed the access token");
        Ok(tokens)
    }

    async fn step_up(
        &self,
        state: &mut State,
        challenge: &Challenge,
        sent: Option<&Arc<Current>>,
        attempt: &mut Attempt,
    ) -> Result<(), OAuthError> {
        let mut wanted: BTreeSet<String> = state.requested.clone();
        if let Some(sent) = sent {
            wanted.extend(sent.tokens.scopes());
        }
        let before = wanted.len();
        wanted.extend(challenge.scopes().unwrap_or_default());
        if wanted.len() == before {
            return Err(OAuthError::new(
                OAuthErrorKind::InsufficientScope,
                "the server still refuses for insufficient scope, asking for nothing not already granted",
            ));
        }
        if attempt.step_ups >= self.config.max_step_ups {
            return Err(OAuthError::new(
                OAuthErrorKind::InsufficientScope,
                format!("the server still refuses for insufficient scope after {} step-up(s)", attempt.step_ups),
            ));
        }
        attempt.step_ups += 1;
        let (resource, server) = self.discover(Some(challenge)).await?;
        let wanted: Vec<String> = wanted.into_iter().collect();
        match &self.config.extension {
            Some(extension) => self.extension_grant(extension, &resource, &server, join(&wanted)).await,
            None => self.authorize(state, &resource, &server, wanted).await,
        }
    }

    /// The client's identity at `server`: its registration there (stored, or
    /// pre-registered for that issuer, or pre-registered for the first server met), a
    /// Client ID Metadata Document URL, or a new dynamic registration.
    async fn client_identity(
        &self,
        server: &ServerMetadata,
        redirect_uri: &str,
        scope: Option<&str>,
    ) -> Result<ClientCredentials, OAuthError> {
        if let Some(credentials) = self.known_identity(server)? {
            return Ok(credentials);
        }
        let request = RegistrationRequest {
            client_name: &self.config.client_name,
            redirect_uri,
            application_type: &self.config.application_type,
            scope,
        };
        let credentials = registration::register(&self.http, server, &request).await?;
        self.config.store.set_client(&server.issuer, credentials.clone())?;
        Ok(credentials)
    }

    /// The client's identity at `server` without registering: stored or pre-registered
    /// credentials, else the Client ID Metadata Document URL where `server` supports
    /// them. Authorizing and refreshing both ask here, so a CIMD client can refresh.
    fn known_identity(&self, server: &ServerMetadata) -> Result<Option<ClientCredentials>, OAuthError> {
        if let Some(credentials) = self.config.preregistered(&server.issuer)? {
            return Ok(Some(credentials));
        }
        Ok(server
            .client_id_metadata_document_supported
            .then(|| self.config.client_metadata_url.clone().map(ClientCredentials::public))
            .flatten())
    }

    /// The authorization code flow with PKCE at `server` for `resource`.
    async fn authorize(
        &self,
        state: &mut State,
        resource: &ResourceMetadata,
        server: &ServerMetadata,
        mut scopes: Vec<String>,
    ) -> Result<(), OAuthError> {
        if server.lists_scope("offline_access") && !scopes.iter().any(|s| s == "offline_access") {
            scopes.push("offline_access".into());
        }
        let scope = join(&scopes);
        discovery::require_pkce(server)?;
        let handler = self.config.handler.as_ref().ok_or_else(|| {
            OAuthError::new(OAuthErrorKind::Config, "no authorization handler to take the user to the server")
        })?;
        let redirect_uri = handler.redirect_uri();
        let credentials = self.client_identity(server, &redirect_uri, scope.as_deref()).await?;
        let endpoint = server.authorization_endpoint.as_deref().ok_or_else(|| {
            OAuthError::new(OAuthErrorKind::ServerMetadata, "the authorization server has no authorization_endpoint")
        })?;
        let pkce = Pkce::new()?;
        let sent_state = new_state()?;
        let query = {
            // Built in a block: the serializer is not `Send` and must not live across an await.
            let mut query = form_urlencoded::Serializer::new(String::new());
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", credentials.client_id())
                .append_pair("redirect_uri", &redirect_uri)
                .append_pair("state", &sent_state)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256");
            if let Some(scope) = &scope {
                query.append_pair("scope", scope);
            }
            query.append_pair("resource", &resource.resource);
            query.finish()
        };
        let separator = if endpoint.contains('?') { '&' } else { '?' };
        let url = format!("{endpoint}{separator}{query}");
        self.http.parse_url(&url, "the authorization URL")?;
        tracing::info!(issuer = %server.issuer, scope = scope.as_deref().unwrap_or(""), "authorizing");
        let params = handler.authorize(url).await?;
        let code = check_callback(&params, &sent_state, server)?;
        state.requested = scopes.iter().cloned().collect();
        let grant = Grant::AuthorizationCode { code, verifier: pkce.verifier, redirect_uri };
        let tokens = self.exchange(server, &credentials, grant, resource, None, scope.as_deref()).await?;
        self.set_current(&server.issuer, &resource.resource, tokens)
    }

    /// Asks `server`'s token endpoint for tokens with `grant`, authenticating as
    /// `credentials`, for `resource` (RFC 8707); `scope` goes in the request,
    /// `requested_scope` is what the tokens are taken to hold when the answer names none.
    pub(super) async fn exchange(
        &self,
        server: &ServerMetadata,
        credentials: &ClientCredentials,
        grant: Grant,
        resource: &ResourceMetadata,
        scope: Option<&str>,
        requested_scope: Option<&str>,
    ) -> Result<TokenSet, OAuthError> {
        request_token(
            &self.http,
            self.hook.as_ref(),
            TokenRequest {
                metadata: server,
                credentials,
                grant,
                resource: &resource.resource,
                scope,
                requested_scope,
                assertion_key: self.config.assertion_key.as_deref(),
            },
        )
        .await
    }
}

/// The code of a redirect, after checking `iss` (RFC 9207, before anything else in it is
/// believed) and `state`.
fn check_callback(params: &CallbackParams, sent_state: &str, server: &ServerMetadata) -> Result<String, OAuthError> {
    iss_check(server.authorization_response_iss_parameter_supported, params.iss.as_deref(), &server.issuer)?;
    if params.state.as_deref() != Some(sent_state) {
        return Err(OAuthError::new(OAuthErrorKind::State, "the redirect's state is missing or not the one sent"));
    }
    if let Some(error) = &params.error {
        let error: String = error.chars().filter(char::is_ascii_graphic).take(64).collect();
        return Err(OAuthError::new(OAuthErrorKind::Authorization, format!("authorization was refused: {error}")));
    }
    params.code.clone().ok_or_else(|| OAuthError::new(OAuthErrorKind::Authorization, "the redirect carried no code"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::oauth::{HeadlessRedirect, OAuth};

    fn session(allow_insecure_http: bool, mcp: &str) -> Result<OAuthSession, OAuthError> {
        let oauth = OAuth::builder()
            .authorization_handler(HeadlessRedirect::new("http://localhost:3000/callback"))
            .allow_insecure_http(allow_insecure_http)
            .build()
            .expect("test fixture");
        oauth.session(mcp.parse().expect("test fixture"), &crate::client::connector::Roots::default())
    }

    #[tokio::test]
    async fn tokens_go_over_plain_http_only_to_loopback_unless_allowed() {
        let e = session(false, "http://mcp.example.com/mcp").expect_err("must be refused");
        assert_eq!(e.kind(), OAuthErrorKind::UnsafeUrl);
        assert!(session(true, "http://mcp.example.com/mcp").is_ok());
        assert!(session(false, "http://localhost:3000/mcp").is_ok());
        assert!(session(false, "https://mcp.example.com/mcp").is_ok());
    }

    #[tokio::test]
    async fn dpop_bound_tokens_stay_out_of_the_store() {
        let oauth = OAuth::builder()
            .authorization_handler(HeadlessRedirect::new("http://localhost:3000/callback"))
            .dpop(true)
            .build()
            .expect("test fixture");
        let session = oauth
            .session("https://mcp.example.com/mcp".parse().expect("test fixture"), &Default::default())
            .expect("a session");
        let (issuer, resource) = ("https://as.example.com", "https://mcp.example.com/mcp");
        let dpop: TokenSet =
            serde_json::from_value(serde_json::json!({"access_token": "d", "token_type": "DPoP"})).expect("fixture");
        session.set_current(issuer, resource, dpop).expect("kept");
        assert!(session.config.store.tokens(issuer, resource).expect("no store error").is_none());
        assert_eq!(session.current().expect("in memory").tokens.access_token(), "d");
        session.set_current(issuer, resource, TokenSet::bearer("b")).expect("kept");
        assert!(session.config.store.tokens(issuer, resource).expect("no store error").is_some());
    }

    #[tokio::test]
    async fn a_cimd_client_is_known_when_refreshing() {
        let url = "https://app.example.com/client-metadata.json";
        let oauth = OAuth::builder()
            .authorization_handler(HeadlessRedirect::new("http://localhost:3000/callback"))
            .client_metadata_url(url)
            .build()
            .expect("test fixture");
        let session = oauth
            .session("https://mcp.example.com/mcp".parse().expect("test fixture"), &Default::default())
            .expect("a session");
        let server: ServerMetadata = serde_json::from_value(serde_json::json!({
            "issuer": "https://as.example.com",
            "token_endpoint": "https://as.example.com/token",
            "client_id_metadata_document_supported": true,
        }))
        .expect("test fixture");
        let known = session.known_identity(&server).expect("no store error").expect("the CIMD identity");
        assert_eq!(known.client_id(), url);
    }

    #[tokio::test]
    async fn only_a_loopback_server_may_point_the_flow_at_loopback_http() {
        let remote = session(false, "https://mcp.example.com/mcp").expect("a session");
        let e = remote.http.parse_url("http://127.0.0.1:8080/admin", "u").expect_err("must be refused");
        assert_eq!(e.kind(), OAuthErrorKind::UnsafeUrl);
        let local = session(false, "http://localhost:3000/mcp").expect("a session");
        assert!(local.http.parse_url("http://127.0.0.1:8080/metadata", "u").is_ok());
    }
}
