//! The token request bodies of the extension grants (`application/x-www-form-urlencoded`)
//! and the `client_secret_basic` header value.
//!
//! - client credentials (OAuth 2.1 §4.2; SEP-1046), authenticated by a client assertion
//!   in the body or by a Basic header the caller adds;
//! - the RFC 7523 §2.1 jwt-bearer grant: an ID-JAG (SEP-990) or a workload's platform
//!   JWT (SEP-1933) presented as `assertion`;
//! - the RFC 8693 token exchange of an ID token for an ID-JAG at the enterprise IdP.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// `grant_type` of the client credentials grant.
pub(crate) const CLIENT_CREDENTIALS: &str = "client_credentials";
/// `grant_type` of an RFC 7523 §2.1 assertion grant.
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// `grant_type` of an RFC 8693 token exchange.
pub(crate) const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// `client_assertion_type` of `private_key_jwt` (RFC 7523 §2.2).
pub(crate) const CLIENT_ASSERTION_JWT: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// The token type an ID-JAG is asked for and issued as.
pub(crate) const TOKEN_TYPE_ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// The token type of an OpenID Connect ID token as a `subject_token`.
pub(crate) const TOKEN_TYPE_ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";

/// One token request of an extension flow. `form()` is its body; `Debug` names the grant
/// and its public parameters but never an assertion or a subject token.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum ExtensionGrant {
    /// `grant_type=client_credentials`. With `client_assertion` the client authenticates
    /// by `private_key_jwt` in the body; without it the caller sends
    /// [`basic_authorization`] (`client_secret_basic`).
    ClientCredentials { scope: Option<String>, resource: Option<String>, client_assertion: Option<String> },
    /// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…`: an ID-JAG
    /// at the MCP authorization server, or a workload identity JWT passed through as is.
    JwtBearer { assertion: String, scope: Option<String>, resource: Option<String>, client_id: Option<String> },
    /// RFC 8693 token exchange at the enterprise IdP: the user's ID token
    /// (`subject_token`) for an ID-JAG whose `audience` is the MCP authorization server's
    /// issuer and whose `resource` is the MCP server's protected resource metadata
    /// `resource`.
    IdJagExchange {
        id_token: String,
        audience: String,
        resource: String,
        scope: Option<String>,
        client_id: Option<String>,
    },
}

impl ExtensionGrant {
    /// The `grant_type` parameter.
    pub(crate) fn grant_type(&self) -> &'static str {
        match self {
            Self::ClientCredentials { .. } => CLIENT_CREDENTIALS,
            Self::JwtBearer { .. } => JWT_BEARER,
            Self::IdJagExchange { .. } => TOKEN_EXCHANGE,
        }
    }

    /// The `application/x-www-form-urlencoded` body, `grant_type` first; absent optional
    /// parameters are left out rather than sent empty.
    pub(crate) fn form(&self) -> String {
        let mut form = form_urlencoded::Serializer::new(String::new());
        form.append_pair("grant_type", self.grant_type());
        match self {
            Self::ClientCredentials { scope, resource, client_assertion } => {
                append_optional(&mut form, "scope", scope);
                append_optional(&mut form, "resource", resource);
                if let Some(assertion) = client_assertion {
                    form.append_pair("client_assertion_type", CLIENT_ASSERTION_JWT);
                    form.append_pair("client_assertion", assertion);
                }
            }
            Self::JwtBearer { assertion, scope, resource, client_id } => {
                form.append_pair("assertion", assertion);
                append_optional(&mut form, "scope", scope);
                append_optional(&mut form, "resource", resource);
                append_optional(&mut form, "client_id", client_id);
            }
            Self::IdJagExchange { id_token, audience, resource, scope, client_id } => {
                form.append_pair("requested_token_type", TOKEN_TYPE_ID_JAG);
                form.append_pair("audience", audience);
                form.append_pair("resource", resource);
                append_optional(&mut form, "scope", scope);
                form.append_pair("subject_token", id_token);
                form.append_pair("subject_token_type", TOKEN_TYPE_ID_TOKEN);
                append_optional(&mut form, "client_id", client_id);
            }
        }
        form.finish()
    }
}

impl fmt::Debug for ExtensionGrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ClientCredentials { scope, resource, client_assertion } => f
                .debug_struct("ClientCredentials")
                .field("scope", scope)
                .field("resource", resource)
                .field("client_assertion", &client_assertion.as_ref().map(|_| "<redacted>"))
                .finish(),
            Self::JwtBearer { scope, resource, client_id, .. } => f
                .debug_struct("JwtBearer")
                .field("assertion", &"<redacted>")
                .field("scope", scope)
                .field("resource", resource)
                .field("client_id", client_id)
                .finish(),
            Self::IdJagExchange { audience, resource, scope, client_id, .. } => f
                .debug_struct("IdJagExchange")
                .field("id_token", &"<redacted>")
                .field("audience", audience)
                .field("resource", resource)
                .field("scope", scope)
                .field("client_id", client_id)
                .finish(),
        }
    }
}

/// Appends `name=value` when there is a value.
fn append_optional(form: &mut form_urlencoded::Serializer<'_, String>, name: &str, value: &Option<String>) {
    if let Some(value) = value {
        form.append_pair(name, value);
    }
}

/// The `Authorization` header value of `client_secret_basic` (RFC 6749 §2.3.1): the id
/// and the secret each form-urlencoded, joined by `:`, then base64.
pub(crate) fn basic_authorization(client_id: &str, client_secret: &str) -> String {
    let id: String = form_urlencoded::byte_serialize(client_id.as_bytes()).collect();
    let secret: String = form_urlencoded::byte_serialize(client_secret.as_bytes()).collect();
    format!("Basic {}", STANDARD.encode(format!("{id}:{secret}")))
}

#[cfg(test)]
mod tests;
