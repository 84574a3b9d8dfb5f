//! The provisioner's authorization setup, read from the environment:
//!
//! - `MCP_AUTH_ISSUER`: the authorization server's issuer URL. Set, every HTTP request
//!   needs a JWT access token (RFC 9068) from it; unset, the server runs without
//!   authentication. Its metadata and keys are fetched over `https://`, or plain
//!   `http://` to a loopback host only.
//! - `MCP_AUTH_JWKS_URL`: optional; where the issuer's keys are, instead of the
//!   `jwks_uri` of its metadata (`{issuer}/.well-known/oauth-authorization-server` or
//!   `/.well-known/openid-configuration`).
//! - `MCP_AUTH_RESOURCE`: this server's canonical resource URI (e.g.
//!   `http://127.0.0.1:8000/mcp`), the audience tokens must carry; required with
//!   `MCP_AUTH_ISSUER`.
//! - `MCP_AUTH_INTROSPECTION_CLIENT_ID` and `MCP_AUTH_INTROSPECTION_CLIENT_SECRET`:
//!   optional, both or neither. Set, access tokens are opaque: each is checked by asking
//!   the issuer's token introspection endpoint (RFC 7662, the `introspection_endpoint` of
//!   its metadata), authenticated with this client id and secret, instead of as a JWT.

use mcp::Server;
use mcp::auth::{IntrospectionVerifier, JwtVerifier};
use mcp::serve::http::{HttpConfig, ProtectedResourceMetadata};

/// The issuer variable.
pub const ISSUER_VAR: &str = "MCP_AUTH_ISSUER";
/// The JWKS URL variable.
pub const JWKS_URL_VAR: &str = "MCP_AUTH_JWKS_URL";
/// The resource variable.
pub const RESOURCE_VAR: &str = "MCP_AUTH_RESOURCE";
/// The introspection client id variable.
pub const INTROSPECTION_CLIENT_ID_VAR: &str = "MCP_AUTH_INTROSPECTION_CLIENT_ID";
/// The introspection client secret variable.
pub const INTROSPECTION_CLIENT_SECRET_VAR: &str = "MCP_AUTH_INTROSPECTION_CLIENT_SECRET";

/// An authorization setup: who issues tokens, where its keys are (or how to ask it about
/// opaque tokens), and which resource they must be meant for.
#[derive(Clone, PartialEq, Eq)]
pub struct AuthEnv {
    /// `MCP_AUTH_ISSUER`.
    pub issuer: String,
    /// `MCP_AUTH_JWKS_URL`.
    pub jwks_url: Option<String>,
    /// `MCP_AUTH_RESOURCE`.
    pub resource: String,
    /// `MCP_AUTH_INTROSPECTION_CLIENT_ID` and `MCP_AUTH_INTROSPECTION_CLIENT_SECRET`: set,
    /// tokens are introspected instead of checked as JWTs.
    pub introspection: Option<ClientCredentials>,
}

/// This server's credentials at the authorization server, for token introspection.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientCredentials {
    /// The client id.
    pub id: String,
    /// The client secret.
    pub secret: String,
}

impl std::fmt::Debug for AuthEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the secret.
        f.debug_struct("AuthEnv")
            .field("issuer", &self.issuer)
            .field("jwks_url", &self.jwks_url)
            .field("resource", &self.resource)
            .field("introspection_client_id", &self.introspection.as_ref().map(|c| &c.id))
            .finish()
    }
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCredentials").field("id", &self.id).finish_non_exhaustive()
    }
}

impl AuthEnv {
    /// Read the process environment: `Ok(None)` without `MCP_AUTH_ISSUER`; an error (for
    /// the user) when the setup is incomplete or a URL is malformed.
    pub fn from_env() -> Result<Option<AuthEnv>, String> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// Like [`from_env`](Self::from_env), reading variables through `var`.
    ///
    /// ```
    /// use mcp_examples::oauth_env::AuthEnv;
    ///
    /// assert_eq!(AuthEnv::from_vars(|_| None), Ok(None));
    /// let only_issuer = |name: &str| (name == "MCP_AUTH_ISSUER").then(|| "http://127.0.0.1:9000".to_owned());
    /// assert!(AuthEnv::from_vars(only_issuer).unwrap_err().contains("MCP_AUTH_RESOURCE"));
    /// ```
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<AuthEnv>, String> {
        let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let Some(issuer) = var(ISSUER_VAR) else {
            return Ok(None);
        };
        check_url(ISSUER_VAR, &issuer)?;
        let jwks_url = var(JWKS_URL_VAR);
        if let Some(url) = &jwks_url {
            check_url(JWKS_URL_VAR, url)?;
        }
        let resource = var(RESOURCE_VAR).ok_or_else(|| {
            format!(
                "{ISSUER_VAR} is set, so {RESOURCE_VAR} must be too: this server's canonical URI, \
                 the audience its tokens carry (e.g. http://127.0.0.1:8000/mcp)"
            )
        })?;
        check_url(RESOURCE_VAR, &resource)?;
        let introspection = match (var(INTROSPECTION_CLIENT_ID_VAR), var(INTROSPECTION_CLIENT_SECRET_VAR)) {
            (Some(id), Some(secret)) => Some(ClientCredentials { id, secret }),
            (None, None) => None,
            (Some(_), None) | (None, Some(_)) => {
                return Err(format!(
                    "{INTROSPECTION_CLIENT_ID_VAR} and {INTROSPECTION_CLIENT_SECRET_VAR} go together: set both \
                     (opaque tokens, checked by token introspection) or neither (JWT access tokens)"
                ));
            }
        };
        if introspection.is_some() && jwks_url.is_some() {
            return Err(format!(
                "{JWKS_URL_VAR} is for JWT access tokens; with {INTROSPECTION_CLIENT_ID_VAR} tokens are \
                 introspected instead: unset one of them"
            ));
        }
        Ok(Some(AuthEnv { issuer, jwks_url, resource, introspection }))
    }

    /// The transport configuration: a [`JwtVerifier`] for the issuer with the resource as
    /// audience (or, with introspection credentials, an [`IntrospectionVerifier`] that
    /// finds the issuer's introspection endpoint in its metadata), and the protected
    /// resource metadata (RFC 9728) naming the issuer and the scopes `server` declares.
    pub fn http_config(&self, server: &Server) -> Result<HttpConfig, String> {
        let cannot = |e: mcp::auth::OAuthError| format!("cannot check tokens of {ISSUER_VAR}: {e}");
        let metadata = ProtectedResourceMetadata::new(&self.resource)
            .authorization_server(&self.issuer)
            .scopes_supported(server.declared_scopes());
        let config = HttpConfig::default().protected_resource(metadata);
        if let Some(client) = &self.introspection {
            let verifier = IntrospectionVerifier::builder()
                .issuer(&self.issuer)
                .client_credentials(&client.id, &client.secret)
                .audience(&self.resource)
                .build()
                .map_err(cannot)?;
            return Ok(config.token_verifier(verifier));
        }
        let mut verifier = JwtVerifier::builder().issuer(&self.issuer).audience(&self.resource);
        if let Some(url) = &self.jwks_url {
            verifier = verifier.jwks_url(url);
        }
        Ok(config.token_verifier(verifier.build().map_err(cannot)?))
    }
}

/// `value` must be an absolute `http` or `https` URL with a host and no fragment (what
/// [`ProtectedResourceMetadata::new`] and the verifier accept).
fn check_url(name: &str, value: &str) -> Result<(), String> {
    let bad = |why: &str| Err(format!("{name} must be an absolute http(s) URL: {why}"));
    if value.contains('#') {
        return bad("it has a fragment");
    }
    let Ok(uri) = value.parse::<axum::http::Uri>() else {
        return bad("it does not parse");
    };
    match uri.scheme_str() {
        Some(scheme) if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") => {}
        _ => return bad("its scheme is not http or https"),
    }
    match uri.host() {
        Some(host) if !host.is_empty() => Ok(()),
        _ => bad("it has no host"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn without_an_issuer_there_is_no_setup() {
        assert_eq!(AuthEnv::from_vars(vars(&[(RESOURCE_VAR, "http://127.0.0.1:8000/mcp")])), Ok(None));
        assert_eq!(AuthEnv::from_vars(vars(&[(ISSUER_VAR, " ")])), Ok(None));
    }

    #[test]
    fn a_complete_setup_is_read() {
        let setup = AuthEnv::from_vars(vars(&[
            (ISSUER_VAR, "http://127.0.0.1:9000"),
            (JWKS_URL_VAR, "http://127.0.0.1:9000/jwks"),
            (RESOURCE_VAR, "http://127.0.0.1:8000/mcp"),
        ]));
        assert_eq!(
            setup,
            Ok(Some(AuthEnv {
                issuer: "http://127.0.0.1:9000".into(),
                jwks_url: Some("http://127.0.0.1:9000/jwks".into()),
                resource: "http://127.0.0.1:8000/mcp".into(),
                introspection: None,
            }))
        );
    }

    #[test]
    fn introspection_credentials_select_opaque_tokens() {
        let setup = AuthEnv::from_vars(vars(&[
            (ISSUER_VAR, "http://127.0.0.1:9000"),
            (RESOURCE_VAR, "http://127.0.0.1:8001/mcp"),
            (INTROSPECTION_CLIENT_ID_VAR, "mcp-server"),
            (INTROSPECTION_CLIENT_SECRET_VAR, "mcp-server-secret"),
        ]));
        assert_eq!(
            setup,
            Ok(Some(AuthEnv {
                issuer: "http://127.0.0.1:9000".into(),
                jwks_url: None,
                resource: "http://127.0.0.1:8001/mcp".into(),
                introspection: Some(ClientCredentials { id: "mcp-server".into(), secret: "mcp-server-secret".into() }),
            }))
        );
        // The secret stays out of logs and panics.
        let shown = format!("{:?}", setup.expect("a setup").expect("introspection"));
        assert!(shown.contains("mcp-server") && !shown.contains("mcp-server-secret"), "{shown}");
    }

    #[test]
    fn introspection_credentials_go_together() {
        let base = [(ISSUER_VAR, "http://127.0.0.1:9000"), (RESOURCE_VAR, "http://127.0.0.1:8001/mcp")];
        for (name, value) in [(INTROSPECTION_CLIENT_ID_VAR, "mcp-server"), (INTROSPECTION_CLIENT_SECRET_VAR, "s3cret")]
        {
            let pairs = [base[0], base[1], (name, value)];
            let message = AuthEnv::from_vars(vars(&pairs)).expect_err("one of the two");
            assert!(
                message.starts_with(
                    "MCP_AUTH_INTROSPECTION_CLIENT_ID and MCP_AUTH_INTROSPECTION_CLIENT_SECRET go together"
                ),
                "{name}: {message}"
            );
            assert!(!message.contains("s3cret"), "{message}");
        }
        // A blank one counts as unset.
        let pairs =
            [base[0], base[1], (INTROSPECTION_CLIENT_ID_VAR, "mcp-server"), (INTROSPECTION_CLIENT_SECRET_VAR, " ")];
        assert!(AuthEnv::from_vars(vars(&pairs)).is_err());
        // Keys are for JWTs: with introspection they would be silently unused.
        let pairs = [
            base[0],
            base[1],
            (JWKS_URL_VAR, "http://127.0.0.1:9000/jwks"),
            (INTROSPECTION_CLIENT_ID_VAR, "mcp-server"),
            (INTROSPECTION_CLIENT_SECRET_VAR, "s3cret"),
        ];
        let message = AuthEnv::from_vars(vars(&pairs)).expect_err("jwks with introspection");
        assert!(message.starts_with("MCP_AUTH_JWKS_URL is for JWT access tokens"), "{message}");
    }

    #[test]
    fn mistakes_are_reported_not_panicked() {
        let error = |pairs: &[(&str, &str)]| AuthEnv::from_vars(vars(pairs)).expect_err("a setup error");
        assert!(
            error(&[(ISSUER_VAR, "http://127.0.0.1:9000")]).starts_with("MCP_AUTH_ISSUER is set, so MCP_AUTH_RESOURCE")
        );
        for bad in ["127.0.0.1:9000", "ftp://as.example", "http://", "http://as.example/#x", "not a url"] {
            let message = error(&[(ISSUER_VAR, bad), (RESOURCE_VAR, "http://127.0.0.1:8000/mcp")]);
            assert!(message.starts_with("MCP_AUTH_ISSUER must be an absolute http(s) URL"), "{bad}: {message}");
            let message = error(&[(ISSUER_VAR, "http://127.0.0.1:9000"), (RESOURCE_VAR, bad)]);
            assert!(message.starts_with("MCP_AUTH_RESOURCE must be an absolute http(s) URL"), "{bad}: {message}");
        }
        let message =
            error(&[(ISSUER_VAR, "http://a"), (JWKS_URL_VAR, "jwks"), (RESOURCE_VAR, "http://127.0.0.1:8000/mcp")]);
        assert!(message.starts_with("MCP_AUTH_JWKS_URL must be"), "{message}");
    }

    #[test]
    fn the_config_builds_for_the_provisioner() {
        let setup = AuthEnv {
            issuer: "http://127.0.0.1:9000".into(),
            jwks_url: None,
            resource: "http://127.0.0.1:8000/mcp".into(),
            introspection: None,
        };
        assert!(setup.http_config(&crate::provisioner::authenticated_server()).is_ok());
        let credentials = ClientCredentials { id: "mcp-server".into(), secret: "s3cret".into() };
        let opaque = AuthEnv { introspection: Some(credentials), ..setup.clone() };
        assert!(opaque.http_config(&crate::provisioner::authenticated_server()).is_ok());
        let insecure = AuthEnv { issuer: "http://as.example".into(), ..opaque };
        let message = insecure.http_config(&crate::provisioner::authenticated_server()).expect_err("plain http");
        assert!(message.starts_with("cannot check tokens of MCP_AUTH_ISSUER"), "{message}");
        assert!(message.contains("InsecureUrl"), "{message}");
        // A hosted provider's https issuer is fetched over TLS.
        let https = AuthEnv { issuer: "https://as.example".into(), ..setup.clone() };
        assert!(https.http_config(&crate::provisioner::authenticated_server()).is_ok());
        // Keys over plain http from another host could be swapped: a clear error.
        let insecure = AuthEnv { issuer: "http://as.example".into(), ..setup };
        let message = insecure.http_config(&crate::provisioner::authenticated_server()).expect_err("plain http");
        assert!(message.starts_with("cannot check tokens of MCP_AUTH_ISSUER"), "{message}");
        assert!(message.contains("InsecureUrl"), "{message}");
    }
}
