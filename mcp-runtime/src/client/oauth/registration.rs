//! The client's identity at an authorization server: pre-registered credentials, a
//! Client ID Metadata Document URL, or dynamic client registration (RFC 7591), and the
//! token endpoint authentication method each implies.

use bytes::Bytes;
use http::{Request, StatusCode, header};
use http_body_util::Full;
use serde::{Deserialize, Serialize};

use super::discovery::ServerMetadata;
use super::error::{OAuthError, OAuthErrorKind};
use super::fetch::OAuthHttp;

/// How the client authenticates at the token endpoint (RFC 7591 §2,
/// `token_endpoint_auth_method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TokenEndpointAuthMethod {
    /// `Authorization: Basic` with the id and secret (RFC 6749 §2.3.1).
    ClientSecretBasic,
    /// `client_id` and `client_secret` in the form body.
    ClientSecretPost,
    /// A public client: `client_id` in the body, no secret.
    None,
    /// A signed JWT client assertion (RFC 7523 §2.2), signed with the key given to
    /// [`OAuthBuilder::private_key_jwt`](super::OAuthBuilder::private_key_jwt); without
    /// one, choosing it is a configuration error.
    PrivateKeyJwt,
}

impl TokenEndpointAuthMethod {
    /// The registered name (`client_secret_basic`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TokenEndpointAuthMethod::ClientSecretBasic => "client_secret_basic",
            TokenEndpointAuthMethod::ClientSecretPost => "client_secret_post",
            TokenEndpointAuthMethod::None => "none",
            TokenEndpointAuthMethod::PrivateKeyJwt => "private_key_jwt",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "client_secret_basic" => TokenEndpointAuthMethod::ClientSecretBasic,
            "client_secret_post" => TokenEndpointAuthMethod::ClientSecretPost,
            "none" => TokenEndpointAuthMethod::None,
            "private_key_jwt" => TokenEndpointAuthMethod::PrivateKeyJwt,
            _ => return None,
        })
    }
}

/// A client's credentials at one authorization server: pre-registered, or returned by
/// dynamic registration. The secret never appears in Debug output.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientCredentials {
    client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_secret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    auth_method: Option<TokenEndpointAuthMethod>,
    /// The issuer credentials configured for "the first server met" were bound to; only
    /// in the store's record of that binding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bound_issuer: Option<String>,
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "<redacted>"))
            .field("auth_method", &self.auth_method)
            .finish()
    }
}

impl ClientCredentials {
    /// A public client known by `client_id` (no secret).
    pub fn public(client_id: impl Into<String>) -> Self {
        ClientCredentials { client_id: client_id.into(), client_secret: None, auth_method: None, bound_issuer: None }
    }

    /// A confidential client with a secret.
    pub fn confidential(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        ClientCredentials {
            client_id: client_id.into(),
            client_secret: Some(client_secret.into()),
            auth_method: None,
            bound_issuer: None,
        }
    }

    /// Use this token endpoint authentication method rather than choosing one from the
    /// authorization server's metadata.
    #[must_use]
    pub fn with_auth_method(mut self, method: TokenEndpointAuthMethod) -> Self {
        self.auth_method = Some(method);
        self
    }

    /// The client id.
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// The record that these credentials are bound to `issuer`.
    pub(crate) fn bound_to(mut self, issuer: &str) -> Self {
        self.bound_issuer = Some(issuer.to_owned());
        self
    }

    pub(crate) fn bound_issuer(&self) -> Option<&str> {
        self.bound_issuer.as_deref()
    }

    pub(crate) fn secret(&self) -> Option<&str> {
        self.client_secret.as_deref()
    }

    /// The method to authenticate with at `metadata`'s token endpoint: the registered
    /// one, else with a secret `client_secret_basic` when listed (or nothing is listed,
    /// RFC 8414's default) and `client_secret_post` when only that is, else `none`.
    /// As [`auth_method`](Self::auth_method), but a client without a secret that has a
    /// key authenticates with `private_key_jwt` (when the server lists it, or lists
    /// nothing).
    pub(crate) fn auth_method_with_key(&self, metadata: &ServerMetadata, has_key: bool) -> TokenEndpointAuthMethod {
        let listed =
            |m: &str| metadata.token_endpoint_auth_methods_supported.as_ref().is_none_or(|l| l.iter().any(|x| x == m));
        if has_key && self.auth_method.is_none() && self.client_secret.is_none() && listed("private_key_jwt") {
            return TokenEndpointAuthMethod::PrivateKeyJwt;
        }
        self.auth_method(metadata)
    }

    pub(crate) fn auth_method(&self, metadata: &ServerMetadata) -> TokenEndpointAuthMethod {
        if let Some(method) = self.auth_method {
            return method;
        }
        if self.client_secret.is_none() {
            return TokenEndpointAuthMethod::None;
        }
        match &metadata.token_endpoint_auth_methods_supported {
            None => TokenEndpointAuthMethod::ClientSecretBasic,
            Some(list) if list.iter().any(|m| m == "client_secret_basic") => TokenEndpointAuthMethod::ClientSecretBasic,
            Some(list) if list.iter().any(|m| m == "client_secret_post") => TokenEndpointAuthMethod::ClientSecretPost,
            Some(_) => TokenEndpointAuthMethod::ClientSecretBasic,
        }
    }
}

/// What dynamic registration sends about the client.
#[derive(Debug, Clone)]
pub(crate) struct RegistrationRequest<'a> {
    pub(crate) client_name: &'a str,
    pub(crate) redirect_uri: &'a str,
    pub(crate) application_type: &'a str,
    pub(crate) scope: Option<&'a str>,
}

/// The method to ask for at registration: `none` (a public client) when the server
/// takes it or lists nothing, else the first secret method it lists.
fn requested_method(metadata: &ServerMetadata) -> TokenEndpointAuthMethod {
    let Some(list) = &metadata.token_endpoint_auth_methods_supported else {
        return TokenEndpointAuthMethod::None;
    };
    let listed = |m: TokenEndpointAuthMethod| list.iter().any(|x| x == m.as_str());
    [
        TokenEndpointAuthMethod::None,
        TokenEndpointAuthMethod::ClientSecretBasic,
        TokenEndpointAuthMethod::ClientSecretPost,
    ]
    .into_iter()
    .find(|m| listed(*m))
    .unwrap_or(TokenEndpointAuthMethod::None)
}

#[derive(Deserialize)]
struct RegistrationResponse {
    client_id: String,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
}

/// Registers at `metadata`'s registration endpoint (RFC 7591), asking for the
/// authorization code and refresh token grants.
pub(crate) async fn register(
    http: &OAuthHttp,
    metadata: &ServerMetadata,
    request: &RegistrationRequest<'_>,
) -> Result<ClientCredentials, OAuthError> {
    let Some(endpoint) = &metadata.registration_endpoint else {
        return Err(OAuthError::new(
            OAuthErrorKind::Registration,
            format!(
                "no client identity for the authorization server {}: no pre-registered credentials, no Client ID \
                 Metadata Document support, no registration endpoint",
                metadata.issuer
            ),
        ));
    };
    let uri = http.parse_url(endpoint, "the registration endpoint")?;
    let method = requested_method(metadata);
    let mut body = serde_json::json!({
        "client_name": request.client_name,
        "redirect_uris": [request.redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method.as_str(),
        "application_type": request.application_type,
    });
    if let Some(scope) = request.scope {
        body["scope"] = serde_json::Value::from(scope);
    }
    let body =
        serde_json::to_vec(&body).map_err(|e| OAuthError::with_source(OAuthErrorKind::Internal, "encoding", e))?;
    let request = Request::post(uri.clone())
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json")
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| OAuthError::with_source(OAuthErrorKind::Internal, "building the registration request", e))?;
    let fetched = http.send(request).await?;
    if fetched.status != StatusCode::CREATED && fetched.status != StatusCode::OK {
        let error = super::token::error_code(&fetched.body);
        return Err(OAuthError::new(
            OAuthErrorKind::Registration,
            format!("registration at {uri} failed: status {}{error}", fetched.status),
        ));
    }
    let answer: RegistrationResponse = fetched
        .json("the registration response")
        .map_err(|e| OAuthError::with_source(OAuthErrorKind::Registration, format!("POST {uri}"), e))?;
    let auth_method = answer.token_endpoint_auth_method.as_deref().and_then(TokenEndpointAuthMethod::from_name);
    tracing::debug!(issuer = %metadata.issuer, client_id = %answer.client_id, "registered");
    Ok(ClientCredentials {
        client_id: answer.client_id,
        client_secret: answer.client_secret,
        auth_method,
        bound_issuer: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(methods: Option<&[&str]>) -> ServerMetadata {
        serde_json::from_value(serde_json::json!({
            "issuer": "http://localhost:1",
            "token_endpoint_auth_methods_supported": methods,
        }))
        .expect("test fixture")
    }

    #[test]
    fn auth_method_follows_registration_then_metadata() {
        let secret = ClientCredentials::confidential("id", "s");
        assert_eq!(secret.auth_method(&metadata(None)), TokenEndpointAuthMethod::ClientSecretBasic);
        assert_eq!(
            secret.auth_method(&metadata(Some(&["client_secret_post"]))),
            TokenEndpointAuthMethod::ClientSecretPost
        );
        assert_eq!(
            secret.auth_method(&metadata(Some(&["client_secret_post", "client_secret_basic"]))),
            TokenEndpointAuthMethod::ClientSecretBasic
        );
        let registered = secret.clone().with_auth_method(TokenEndpointAuthMethod::ClientSecretPost);
        assert_eq!(registered.auth_method(&metadata(None)), TokenEndpointAuthMethod::ClientSecretPost);
        assert_eq!(ClientCredentials::public("id").auth_method(&metadata(None)), TokenEndpointAuthMethod::None);
        assert!(!format!("{secret:?}").contains("\"s\""));
    }

    #[test]
    fn registration_asks_for_a_public_client_when_allowed() {
        assert_eq!(requested_method(&metadata(None)), TokenEndpointAuthMethod::None);
        assert_eq!(requested_method(&metadata(Some(&["client_secret_basic", "none"]))), TokenEndpointAuthMethod::None);
        assert_eq!(
            requested_method(&metadata(Some(&["client_secret_basic"]))),
            TokenEndpointAuthMethod::ClientSecretBasic
        );
        assert_eq!(
            requested_method(&metadata(Some(&["client_secret_post"]))),
            TokenEndpointAuthMethod::ClientSecretPost
        );
    }
}
