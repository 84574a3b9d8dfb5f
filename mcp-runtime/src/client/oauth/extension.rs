//! The extension flows: grants that replace the user's authorization (the redirect) with
//! something the client holds. Discovery, issuer binding, the store and the retries are
//! the core flow's; only the token request differs.
//!
//! - client credentials (SEP-1046), authenticated by a secret or by `private_key_jwt`;
//! - the RFC 7523 jwt-bearer grant with a workload's identity token (SEP-1933);
//! - enterprise-managed authorization (SEP-990): the user's ID token is exchanged at the
//!   enterprise identity provider (RFC 8693) for an ID-JAG, which the jwt-bearer grant
//!   presents to the MCP server's authorization server.
//!
//! A refused grant ends the request with [`OAuthErrorKind::Token`] and the server's
//! [`error_code`](OAuthError::error_code): it is not retried, and no other grant is tried.

use std::sync::Arc;

use bytes::Bytes;
use http::{Request, StatusCode, header};
use http_body_util::Full;
use serde::Deserialize;

use super::discovery::{ResourceMetadata, ServerMetadata};
use super::error::{OAuthError, OAuthErrorKind};
use super::flow::OAuthSession;
use super::grants::{ExtensionGrant, TOKEN_TYPE_ID_JAG};
use super::token::{Grant, error_code, error_name};
use crate::client::CallbackFuture;

/// Gives the assertion a grant presents: a workload identity token, or the user's ID
/// token for enterprise-managed authorization. Asked each time a token is requested, so a
/// provider can hand out a fresh one. A `String` is a fixed assertion; [`assertion_fn`]
/// makes one from an async function.
pub trait AssertionProvider: Send + Sync + 'static {
    /// The assertion (a JWT), or why there is none.
    fn assertion(&self) -> CallbackFuture<Result<String, OAuthError>>;
}

impl AssertionProvider for String {
    fn assertion(&self) -> CallbackFuture<Result<String, OAuthError>> {
        Box::pin(std::future::ready(Ok(self.clone())))
    }
}

/// An [`AssertionProvider`] from an async function (reading a projected token file,
/// asking a metadata service, ...).
///
/// ```
/// use mcp::client::oauth::{AssertionProvider, assertion_fn};
///
/// let provider = assertion_fn(|| async {
///     std::fs::read_to_string("/var/run/secrets/tokens/mcp").map(|t| t.trim().to_owned())
/// });
/// # let _ = provider.assertion();
/// ```
pub fn assertion_fn<F, Fut, E>(f: F) -> impl AssertionProvider
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<String, E>> + Send + 'static,
    E: Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
{
    FnProvider(f)
}

struct FnProvider<F>(F);

impl<F, Fut, E> AssertionProvider for FnProvider<F>
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<String, E>> + Send + 'static,
    E: Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
{
    fn assertion(&self) -> CallbackFuture<Result<String, OAuthError>> {
        let fut = (self.0)();
        Box::pin(async move {
            fut.await.map_err(|e| OAuthError::with_source(OAuthErrorKind::Config, "the assertion provider failed", e))
        })
    }
}

/// The enterprise identity provider of enterprise-managed authorization: its token
/// endpoint, where the user's ID token is exchanged for an ID-JAG, and this client's id
/// there.
#[derive(Clone)]
pub struct EnterpriseIdp {
    token_endpoint: String,
    client_id: Option<String>,
    id_token: Arc<dyn AssertionProvider>,
}

impl std::fmt::Debug for EnterpriseIdp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnterpriseIdp")
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl EnterpriseIdp {
    /// The identity provider's token endpoint and where the user's ID token comes from.
    pub fn new(token_endpoint: impl Into<String>, id_token: impl AssertionProvider) -> Self {
        EnterpriseIdp { token_endpoint: token_endpoint.into(), client_id: None, id_token: Arc::new(id_token) }
    }

    /// This client's `client_id` at the identity provider.
    #[must_use]
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }
}

/// The grant configured in place of the authorization code.
#[derive(Clone)]
pub(crate) enum ExtensionFlow {
    ClientCredentials,
    JwtBearer(Arc<dyn AssertionProvider>),
    Enterprise(EnterpriseIdp),
}

/// The claim of a JWT this module reads: `aud`, one string or several.
#[derive(Deserialize)]
struct Audience {
    #[serde(default)]
    aud: Option<serde_json::Value>,
}

/// `assertion` if its (unverified) `aud` names `issuer`, exactly or with one trailing `/`
/// more or less; else [`OAuthErrorKind::AssertionAudience`], and it is not sent: the
/// authorization server comes from the MCP server's metadata, and a workload token
/// addressed elsewhere must not be handed to it. The signature is the server's to check.
///
/// The ID-JAG of enterprise-managed authorization is not checked: the identity provider
/// issued it for the `audience` the client asked (this server's issuer), and the client
/// trusts the identity provider it was configured with.
fn addressed_to(assertion: String, issuer: &str) -> Result<String, OAuthError> {
    let claims: Audience = jsonwebtoken::dangerous::insecure_decode_claims(&assertion).map_err(|e| {
        OAuthError::with_source(OAuthErrorKind::AssertionAudience, "the workload identity token is not a JWT", e)
    })?;
    let same =
        |aud: &str| aud == issuer || aud.strip_suffix('/') == Some(issuer) || issuer.strip_suffix('/') == Some(aud);
    let addressed = match &claims.aud {
        Some(serde_json::Value::String(aud)) => same(aud),
        Some(serde_json::Value::Array(auds)) => auds.iter().filter_map(serde_json::Value::as_str).any(same),
        _ => false,
    };
    if !addressed {
        return Err(OAuthError::new(
            OAuthErrorKind::AssertionAudience,
            format!("the workload identity token's aud does not name {issuer}; it was not sent"),
        ));
    }
    Ok(assertion)
}

/// The identity provider's token exchange answer (RFC 8693 §2.2.1).
#[derive(Deserialize)]
struct ExchangeResponse {
    access_token: String,
    #[serde(default)]
    issued_token_type: Option<String>,
}

impl OAuthSession {
    /// Gets a token from `server` for `resource` with the configured extension grant.
    pub(super) async fn extension_grant(
        &self,
        flow: &ExtensionFlow,
        resource: &ResourceMetadata,
        server: &ServerMetadata,
        scope: Option<String>,
    ) -> Result<(), OAuthError> {
        let credentials = self.config.preregistered(&server.issuer)?.ok_or_else(|| {
            OAuthError::new(
                OAuthErrorKind::Config,
                format!("no client credentials for {} (OAuthBuilder::client_credentials)", server.issuer),
            )
        })?;
        let id = Some(resource.resource.clone());
        let grant = match flow {
            ExtensionFlow::ClientCredentials => {
                ExtensionGrant::ClientCredentials { scope: scope.clone(), resource: id, client_assertion: None }
            }
            ExtensionFlow::JwtBearer(provider) => ExtensionGrant::JwtBearer {
                assertion: addressed_to(provider.assertion().await?, &server.issuer)?,
                scope: scope.clone(),
                resource: id,
                client_id: None,
            },
            ExtensionFlow::Enterprise(idp) => ExtensionGrant::JwtBearer {
                assertion: self.id_jag(idp, resource, server, scope.clone()).await?,
                scope: scope.clone(),
                resource: id,
                client_id: None,
            },
        };
        tracing::info!(issuer = %server.issuer, grant = grant.grant_type(), "requesting a token");
        let tokens =
            self.exchange(server, &credentials, Grant::Extension(grant), resource, None, scope.as_deref()).await?;
        self.set_current(&server.issuer, &resource.resource, tokens)
    }

    /// The RFC 8693 exchange of the user's ID token for an ID-JAG addressed to `server`
    /// (its `audience`) for `resource`.
    async fn id_jag(
        &self,
        idp: &EnterpriseIdp,
        resource: &ResourceMetadata,
        server: &ServerMetadata,
        scope: Option<String>,
    ) -> Result<String, OAuthError> {
        let uri = self.http.parse_url(&idp.token_endpoint, "the identity provider's token endpoint")?;
        let grant = ExtensionGrant::IdJagExchange {
            id_token: idp.id_token.assertion().await?,
            audience: server.issuer.clone(),
            resource: resource.resource.clone(),
            scope,
            client_id: idp.client_id.clone(),
        };
        let request = Request::post(uri.clone())
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::ACCEPT, "application/json")
            .body(Full::new(Bytes::from(grant.form())))
            .map_err(|e| OAuthError::with_source(OAuthErrorKind::Internal, "building the token exchange", e))?;
        tracing::info!(idp = %uri, "exchanging the ID token for an ID-JAG");
        let fetched = self.http.send(request).await?;
        if fetched.status != StatusCode::OK {
            return Err(OAuthError::new(
                OAuthErrorKind::Token,
                format!(
                    "the identity provider {uri} refused the token exchange: status {}{}",
                    fetched.status,
                    error_code(&fetched.body)
                ),
            )
            .with_code(error_name(&fetched.body)));
        }
        let answer: ExchangeResponse = fetched
            .json("the token exchange response")
            .map_err(|e| OAuthError::with_source(OAuthErrorKind::Token, format!("POST {uri}"), e))?;
        if answer.issued_token_type.as_deref() != Some(TOKEN_TYPE_ID_JAG) {
            return Err(OAuthError::new(
                OAuthErrorKind::Token,
                format!("the identity provider {uri} did not issue an ID-JAG (issued_token_type)"),
            ));
        }
        Ok(answer.access_token)
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    use super::*;

    fn jwt(claims: serde_json::Value) -> String {
        let part = |v: serde_json::Value| URL_SAFE_NO_PAD.encode(v.to_string());
        format!("{}.{}.c2ln", part(serde_json::json!({"alg": "RS256", "typ": "JWT"})), part(claims))
    }

    #[test]
    fn the_workload_token_goes_only_to_the_server_it_is_addressed_to() {
        let issuer = "https://as.example.com";
        for aud in [
            serde_json::json!("https://as.example.com"),
            serde_json::json!("https://as.example.com/"),
            serde_json::json!(["https://other.example.com", "https://as.example.com"]),
        ] {
            assert!(addressed_to(jwt(serde_json::json!({ "aud": aud })), issuer).is_ok(), "{aud}");
        }
        assert!(
            addressed_to(jwt(serde_json::json!({"aud": "https://as.example.com"})), "https://as.example.com/").is_ok()
        );
        for claims in [
            serde_json::json!({"aud": "https://evil.example.com"}),
            serde_json::json!({"aud": ["https://evil.example.com"]}),
            serde_json::json!({"aud": "https://as.example.com//"}),
            serde_json::json!({"aud": 7}),
            serde_json::json!({}),
        ] {
            let e = addressed_to(jwt(claims.clone()), issuer).expect_err("must be refused");
            assert_eq!(e.kind(), OAuthErrorKind::AssertionAudience, "{claims}");
        }
        let e = addressed_to("not-a-jwt".into(), issuer).expect_err("must be refused");
        assert_eq!(e.kind(), OAuthErrorKind::AssertionAudience);
        assert!(!e.to_string().contains("not-a-jwt"));
    }
}
