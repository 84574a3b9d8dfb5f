//! The token endpoint: grants, client authentication, and the tokens it returns.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, StatusCode, header};
use http_body_util::Full;
use serde::{Deserialize, Serialize};

use super::assertion::ClientAssertionKey;
use super::discovery::ServerMetadata;
use super::error::{OAuthError, OAuthErrorKind};
use super::fetch::OAuthHttp;
use super::grants::{CLIENT_ASSERTION_JWT, ExtensionGrant, basic_authorization};
use super::hook::RequestHook;
use super::registration::{ClientCredentials, TokenEndpointAuthMethod};

/// What is exchanged at the token endpoint: the authorization code and refresh grants of
/// the core flow, or an extension grant (client credentials, RFC 7523 JWT bearer, RFC
/// 8693 token exchange), whose form parameters come from [`ExtensionGrant::form`].
#[derive(Clone)]
#[non_exhaustive]
pub(crate) enum Grant {
    /// The code from the redirect, the PKCE verifier, and the redirect URI it went to.
    AuthorizationCode { code: String, verifier: String, redirect_uri: String },
    /// A refresh token (OAuth 2.1 §4.3).
    RefreshToken { refresh_token: String },
    /// An extension grant; it carries its own `resource` and `scope`.
    Extension(ExtensionGrant),
}

impl Grant {
    fn params(&self) -> Vec<(&'static str, &str)> {
        match self {
            Grant::AuthorizationCode { code, verifier, redirect_uri } => vec![
                ("grant_type", "authorization_code"),
                ("code", code),
                ("code_verifier", verifier),
                ("redirect_uri", redirect_uri),
            ],
            Grant::RefreshToken { refresh_token } => {
                vec![("grant_type", "refresh_token"), ("refresh_token", refresh_token)]
            }
            Grant::Extension(_) => Vec::new(),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Grant::AuthorizationCode { .. } => "authorization_code",
            Grant::RefreshToken { .. } => "refresh_token",
            Grant::Extension(grant) => grant.grant_type(),
        }
    }
}

/// Tokens from an authorization server. Neither token appears in Debug output.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenSet {
    access_token: String,
    token_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_token: Option<String>,
    /// The granted scopes (else the requested ones), space-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scope: Option<String>,
    /// Seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expires_at: Option<u64>,
}

impl std::fmt::Debug for TokenSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSet")
            .field("token_type", &self.token_type)
            .field("has_refresh_token", &self.refresh_token.is_some())
            .field("scope", &self.scope)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

impl TokenSet {
    /// A bearer token (for stores and tests).
    pub fn bearer(access_token: impl Into<String>) -> Self {
        TokenSet {
            access_token: access_token.into(),
            token_type: "Bearer".into(),
            refresh_token: None,
            scope: None,
            expires_at: None,
        }
    }

    /// The access token.
    pub fn access_token(&self) -> &str {
        &self.access_token
    }

    /// `Bearer` or `DPoP`, as the server said.
    pub fn token_type(&self) -> &str {
        &self.token_type
    }

    /// The refresh token, if one was issued.
    pub fn refresh_token(&self) -> Option<&str> {
        self.refresh_token.as_deref()
    }

    /// The granted scopes (else the requested ones).
    pub fn scopes(&self) -> Vec<String> {
        self.scope.as_deref().map(|s| s.split_ascii_whitespace().map(str::to_owned).collect()).unwrap_or_default()
    }

    /// When the access token expires (seconds since the Unix epoch), if the server said.
    pub fn expires_at(&self) -> Option<u64> {
        self.expires_at
    }

    pub(crate) fn with_refresh_token(mut self, refresh_token: String) -> Self {
        self.refresh_token = Some(refresh_token);
        self
    }

    /// Whether the access token expires within `margin` of now.
    pub(crate) fn expires_within(&self, margin: Duration) -> bool {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        self.expires_at.is_some_and(|at| at <= now.saturating_add(margin.as_secs()))
    }
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default, deserialize_with = "lenient_expires_in")]
    expires_in: Option<u64>,
}

/// The longest lifetime believed: a year. A larger `expires_in` is clamped to it.
const MAX_EXPIRES_IN: u64 = 365 * 24 * 60 * 60;

/// `expires_in` as a number or a numeric string (some servers send `"3600"`), clamped to
/// [`MAX_EXPIRES_IN`]; anything else (negative, fractional junk, an object) is an unknown
/// lifetime rather than a failed token response.
fn lenient_expires_in<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    let value = serde_json::Value::deserialize(deserializer)?;
    let seconds = match &value {
        serde_json::Value::Number(n) => n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        serde_json::Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    Ok(seconds.map(|s| s.min(MAX_EXPIRES_IN)))
}

/// The `error` code of an OAuth error body, if it is a short visible-ASCII token. Only
/// the code: the description may echo what was sent.
pub(crate) fn error_name(body: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct ErrorBody {
        error: String,
    }
    serde_json::from_slice::<ErrorBody>(body)
        .ok()
        .map(|e| e.error)
        .filter(|e| e.len() <= 64 && e.bytes().all(|b| b.is_ascii_graphic()))
}

/// ` (error: <code>)` from an OAuth error body, or nothing.
pub(crate) fn error_code(body: &[u8]) -> String {
    error_name(body).map(|e| format!(" (error: {e})")).unwrap_or_default()
}

/// One token request.
pub(crate) struct TokenRequest<'a> {
    pub(crate) metadata: &'a ServerMetadata,
    pub(crate) credentials: &'a ClientCredentials,
    pub(crate) grant: Grant,
    /// The RFC 8707 resource: the validated `resource` of the resource metadata.
    pub(crate) resource: &'a str,
    /// Sent with a refresh (never wider than the original grant).
    pub(crate) scope: Option<&'a str>,
    /// The scopes requested, remembered when the answer names none.
    pub(crate) requested_scope: Option<&'a str>,
    /// The client's key for `private_key_jwt`, if configured.
    pub(crate) assertion_key: Option<&'a ClientAssertionKey>,
}

impl TokenRequest<'_> {
    /// The form and the `Authorization` header of the client authentication.
    fn form(&self, method: TokenEndpointAuthMethod) -> Result<(String, Option<String>), OAuthError> {
        let mut form = match &self.grant {
            Grant::Extension(grant) => form_urlencoded::Serializer::for_suffix(grant.form(), 0),
            grant => {
                let mut form = form_urlencoded::Serializer::new(String::new());
                for (name, value) in grant.params() {
                    form.append_pair(name, value);
                }
                form.append_pair("resource", self.resource);
                if let Some(scope) = self.scope {
                    form.append_pair("scope", scope);
                }
                form
            }
        };
        let id = self.credentials.client_id();
        let mut authorization = None;
        match method {
            TokenEndpointAuthMethod::ClientSecretBasic => {
                let secret = self.credentials.secret().ok_or_else(|| {
                    OAuthError::new(OAuthErrorKind::Config, "client_secret_basic needs a client secret")
                })?;
                authorization = Some(basic_authorization(id, secret));
            }
            TokenEndpointAuthMethod::ClientSecretPost => {
                let secret = self.credentials.secret().ok_or_else(|| {
                    OAuthError::new(OAuthErrorKind::Config, "client_secret_post needs a client secret")
                })?;
                form.append_pair("client_id", id);
                form.append_pair("client_secret", secret);
            }
            TokenEndpointAuthMethod::None => {
                form.append_pair("client_id", id);
            }
            TokenEndpointAuthMethod::PrivateKeyJwt => {
                // RFC 7523 §2.2: an assertion signed for the issuer (its audience).
                let key = self.assertion_key.ok_or_else(|| {
                    OAuthError::new(
                        OAuthErrorKind::Config,
                        "private_key_jwt needs a client key (OAuthBuilder::private_key_jwt)",
                    )
                })?;
                let algorithm = format!("{:?}", key.algorithm());
                if let Some(listed) = &self.metadata.token_endpoint_auth_signing_alg_values_supported
                    && !listed.contains(&algorithm)
                {
                    return Err(OAuthError::new(
                        OAuthErrorKind::Config,
                        format!("the authorization server does not accept {algorithm} client assertions"),
                    ));
                }
                let assertion = key.sign(id, &self.metadata.issuer).map_err(|e| {
                    OAuthError::with_source(OAuthErrorKind::Internal, "signing the client assertion", e)
                })?;
                form.append_pair("client_assertion_type", CLIENT_ASSERTION_JWT);
                form.append_pair("client_assertion", &assertion);
            }
        }
        Ok((form.finish(), authorization))
    }
}

/// Sends `request` to the token endpoint, letting `hook` add headers (a DPoP proof) and
/// retry once when it can fix a refusal by itself (a DPoP nonce).
pub(crate) async fn request_token(
    http: &OAuthHttp,
    hook: &dyn RequestHook,
    request: TokenRequest<'_>,
) -> Result<TokenSet, OAuthError> {
    let endpoint = request.metadata.token_endpoint.as_deref().ok_or_else(|| {
        OAuthError::new(OAuthErrorKind::ServerMetadata, "the authorization server has no token_endpoint")
    })?;
    let uri = http.parse_url(endpoint, "the token endpoint")?;
    let method = request.credentials.auth_method_with_key(request.metadata, request.assertion_key.is_some());
    let (form, authorization) = request.form(method)?;
    let mut attempts = 0;
    let fetched = loop {
        attempts += 1;
        let mut builder = Request::post(uri.clone())
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::ACCEPT, "application/json");
        if let Some(authorization) = &authorization {
            let value = HeaderValue::from_str(authorization)
                .map_err(|_| OAuthError::new(OAuthErrorKind::Config, "the client credentials cannot be sent"))?;
            builder = builder.header(header::AUTHORIZATION, value);
        }
        for (name, value) in hook.headers(&Method::POST, &uri, None)? {
            builder = builder.header(name, value);
        }
        let built = builder
            .body(Full::new(Bytes::from(form.clone())))
            .map_err(|e| OAuthError::with_source(OAuthErrorKind::Internal, "building the token request", e))?;
        let fetched = http.send(built).await?;
        if fetched.status == StatusCode::OK {
            hook.observe(&uri, &fetched.headers);
        } else if attempts < 2
            && hook.retry(&uri, fetched.status, &fetched.headers, error_name(&fetched.body).as_deref())
        {
            continue;
        }
        break fetched;
    };
    if fetched.status != StatusCode::OK {
        let code = error_name(&fetched.body);
        return Err(OAuthError::new(
            OAuthErrorKind::Token,
            format!(
                "the token endpoint {uri} refused the {} grant: status {}{}",
                request.grant.name(),
                fetched.status,
                error_code(&fetched.body)
            ),
        )
        .with_code(code));
    }
    let answer: TokenResponse = fetched
        .json("the token response")
        .map_err(|e| OAuthError::with_source(OAuthErrorKind::Token, format!("POST {uri}"), e))?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    Ok(TokenSet {
        access_token: answer.access_token,
        token_type: answer.token_type.unwrap_or_else(|| "Bearer".into()),
        refresh_token: answer.refresh_token,
        scope: answer.scope.or_else(|| request.requested_scope.map(str::to_owned)),
        expires_at: answer.expires_in.map(|s| now.saturating_add(s)),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn expires_in_is_read_leniently() {
        let parse = |v: serde_json::Value| {
            serde_json::from_value::<super::TokenResponse>(serde_json::json!({"access_token": "t", "expires_in": v}))
                .expect("a token response")
                .expires_in
        };
        assert_eq!(parse(serde_json::json!(3600)), Some(3600));
        assert_eq!(parse(serde_json::json!("3600")), Some(3600));
        assert_eq!(parse(serde_json::json!(u64::MAX)), Some(super::MAX_EXPIRES_IN));
        assert_eq!(parse(serde_json::json!(-5)), None);
        assert_eq!(parse(serde_json::json!("soon")), None);
        assert_eq!(parse(serde_json::json!({"s": 1})), None);
        assert_eq!(parse(serde_json::Value::Null), None);
    }

    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;

    use super::*;

    fn metadata() -> ServerMetadata {
        serde_json::from_value(serde_json::json!({"issuer": "http://localhost:1"})).expect("test fixture")
    }

    fn request<'a>(metadata: &'a ServerMetadata, credentials: &'a ClientCredentials) -> TokenRequest<'a> {
        TokenRequest {
            metadata,
            credentials,
            grant: Grant::AuthorizationCode {
                code: "c0de".into(),
                verifier: "v".into(),
                redirect_uri: "http://127.0.0.1:9/callback".into(),
            },
            resource: "http://localhost:2/mcp",
            scope: None,
            requested_scope: None,
            assertion_key: None,
        }
    }

    fn pairs(form: &str) -> Vec<(String, String)> {
        form_urlencoded::parse(form.as_bytes()).into_owned().collect()
    }

    #[test]
    fn client_authentication_shapes() {
        let metadata = metadata();
        let secret = ClientCredentials::confidential("my id", "p:ss");
        let (form, basic) =
            request(&metadata, &secret).form(TokenEndpointAuthMethod::ClientSecretBasic).expect("test fixture");
        assert_eq!(basic.as_deref(), Some(format!("Basic {}", STANDARD.encode("my+id:p%3Ass")).as_str()));
        let form = pairs(&form);
        assert!(form.iter().all(|(k, _)| k != "client_secret" && k != "client_id"));
        assert!(form.contains(&("resource".into(), "http://localhost:2/mcp".into())));
        assert!(form.contains(&("code_verifier".into(), "v".into())));
        assert!(form.contains(&("redirect_uri".into(), "http://127.0.0.1:9/callback".into())));

        let (form, basic) =
            request(&metadata, &secret).form(TokenEndpointAuthMethod::ClientSecretPost).expect("test fixture");
        assert_eq!(basic, None);
        let form = pairs(&form);
        assert!(form.contains(&("client_id".into(), "my id".into())));
        assert!(form.contains(&("client_secret".into(), "p:ss".into())));

        let public = ClientCredentials::public("pub");
        let (form, basic) = request(&metadata, &public).form(TokenEndpointAuthMethod::None).expect("test fixture");
        assert_eq!(basic, None);
        let form = pairs(&form);
        assert!(form.contains(&("client_id".into(), "pub".into())));
        assert!(form.iter().all(|(k, _)| k != "client_secret"));

        let e = request(&metadata, &public).form(TokenEndpointAuthMethod::PrivateKeyJwt).expect_err("must be refused");
        assert_eq!(e.kind(), OAuthErrorKind::Config);
    }

    #[test]
    fn private_key_jwt_signs_for_the_issuer_with_a_listed_algorithm() {
        let key = ClientAssertionKey::from_pem(crate::client::oauth::assertion::tests::EC_PKCS8).expect("test fixture");
        let metadata: ServerMetadata = serde_json::from_value(serde_json::json!({
            "issuer": "http://localhost:1",
            "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": ["ES256"],
        }))
        .expect("test fixture");
        let public = ClientCredentials::public("svc");
        let mut with_key = request(&metadata, &public);
        with_key.assertion_key = Some(&key);
        with_key.grant = Grant::Extension(ExtensionGrant::ClientCredentials {
            scope: None,
            resource: Some("http://localhost:2/mcp".into()),
            client_assertion: None,
        });
        let method = public.auth_method_with_key(&metadata, true);
        assert_eq!(method, TokenEndpointAuthMethod::PrivateKeyJwt);
        let (form, basic) = with_key.form(method).expect("test fixture");
        assert_eq!(basic, None);
        let form = pairs(&form);
        assert_eq!(form[0], ("grant_type".into(), "client_credentials".into()));
        assert!(form.contains(&("client_assertion_type".into(), CLIENT_ASSERTION_JWT.into())));
        let assertion = &form.iter().find(|(k, _)| k == "client_assertion").expect("an assertion").1;
        let claims = assertion.split('.').nth(1).expect("a JWT");
        let claims: serde_json::Value = serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(claims).expect("base64url"),
        )
        .expect("JSON claims");
        assert_eq!(claims["aud"], "http://localhost:1");
        assert_eq!(claims["iss"], "svc");
        assert_eq!(claims["sub"], "svc");
        assert!(form.iter().all(|(k, _)| k != "client_id" && k != "client_secret"));

        let rsa =
            ClientAssertionKey::from_pem(crate::client::oauth::assertion::tests::RSA_PKCS1).expect("test fixture");
        with_key.assertion_key = Some(&rsa);
        let e = with_key.form(method).expect_err("RS256 is not listed");
        assert_eq!(e.kind(), OAuthErrorKind::Config);
        assert!(!ClientCredentials::confidential("svc", "s").auth_method_with_key(&metadata, true).eq(&method));
    }

    #[test]
    fn tokens_stay_out_of_debug_and_error_codes_are_bounded() {
        let tokens = TokenSet { refresh_token: Some("r3fresh".into()), ..TokenSet::bearer("acc3ss") };
        let shown = format!("{tokens:?}");
        assert!(!shown.contains("acc3ss") && !shown.contains("r3fresh"), "{shown}");
        assert_eq!(error_code(br#"{"error":"invalid_grant","error_description":"x"}"#), " (error: invalid_grant)");
        assert_eq!(error_code(b"nope"), "");
        assert_eq!(error_code(br#"{"error":"has space"}"#), "");
    }
}
