//! DPoP (RFC 9449): an ephemeral P-256 key per client, the proofs it signs for the
//! token endpoint and for every resource request, and the latest `DPoP-Nonce` of each
//! server.
//!
//! The key is made by ring and the proofs are signed by jsonwebtoken (whose `Header`
//! carries the public `jwk`), so nothing here does cryptography by hand.

use std::collections::HashMap;
use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::HeaderMap;
use jsonwebtoken::jwk::{
    AlgorithmParameters, CommonParameters, EllipticCurve, EllipticCurveKeyParameters, EllipticCurveKeyType, Jwk,
};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::digest::{SHA256, digest};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use serde_json::{Map, Value, json};

use super::assertion::{random_id, unix_now};

/// The `typ` of a DPoP proof (RFC 9449 §4.2).
const PROOF_TYP: &str = "dpop+jwt";

/// The response header that carries a server-chosen nonce (RFC 9449 §8, §9).
pub(crate) const DPOP_NONCE_HEADER: &str = "dpop-nonce";

/// The longest `DPoP-Nonce` value kept; longer ones are ignored.
const MAX_NONCE_LEN: usize = 1024;

/// How many servers' nonces are remembered at once (an authorization server, a resource
/// server, perhaps an identity provider: a handful).
const MAX_NONCE_ORIGINS: usize = 32;

/// Why a DPoP key or proof could not be made. Carries no key material and no token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DpopError {
    /// The system's random source failed.
    Random,
    /// The generated key could not be loaded back (ring or jsonwebtoken refused it).
    Key,
    /// The system clock is before 1970.
    Clock,
    /// jsonwebtoken could not sign the proof.
    Sign,
}

impl fmt::Display for DpopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Random => "DPoP: the system random source failed",
            Self::Key => "DPoP: the generated P-256 key could not be loaded",
            Self::Clock => "DPoP: the system clock is before the Unix epoch",
            Self::Sign => "DPoP: signing the proof failed",
        })
    }
}

impl std::error::Error for DpopError {}

/// An ephemeral ES256 key that signs DPoP proofs. Its private half never leaves this
/// struct: `Debug` shows only the public thumbprint.
pub(crate) struct DpopKey {
    signing: EncodingKey,
    /// The public key, as it goes in each proof's header.
    jwk: Jwk,
    /// The same, as plain JSON.
    #[cfg_attr(not(test), allow(dead_code, reason = "the tests check each proof's jwk against it"))]
    public: Value,
    thumbprint: String,
    rng: SystemRandom,
}

impl fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpopKey").field("thumbprint", &self.thumbprint).finish_non_exhaustive()
    }
}

impl DpopKey {
    /// A fresh P-256 key from the system's random source.
    pub(crate) fn generate() -> Result<Self, DpopError> {
        crate::jose::install_crypto_provider();
        let rng = SystemRandom::new();
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).map_err(|_| DpopError::Random)?;
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .map_err(|_| DpopError::Key)?;
        // The uncompressed SEC1 point: 0x04, then x and y of 32 bytes each.
        let (x, y) = match pair.public_key().as_ref() {
            [0x04, coordinates @ ..] if coordinates.len() == 64 => coordinates.split_at(32),
            _ => return Err(DpopError::Key),
        };
        let (x, y) = (URL_SAFE_NO_PAD.encode(x), URL_SAFE_NO_PAD.encode(y));
        let thumbprint = ec_thumbprint(&x, &y);
        let public = json!({ "kty": "EC", "crv": "P-256", "x": x, "y": y });
        let jwk = Jwk {
            common: CommonParameters::default(),
            algorithm: AlgorithmParameters::EllipticCurve(EllipticCurveKeyParameters {
                key_type: EllipticCurveKeyType::EC,
                curve: EllipticCurve::P256,
                x,
                y,
            }),
        };
        Ok(Self { signing: EncodingKey::from_ec_der(pkcs8.as_ref()), jwk, public, thumbprint, rng })
    }

    /// The public key as a JWK: `kty`, `crv`, `x`, `y` and nothing else.
    #[cfg_attr(not(test), allow(dead_code, reason = "the tests check each proof's jwk against it"))]
    pub(crate) fn public_jwk(&self) -> Value {
        self.public.clone()
    }

    /// The RFC 7638 SHA-256 thumbprint of the public key, base64url without padding:
    /// what an authorization server puts in the token's `cnf.jkt` and what `dpop_jkt`
    /// in an authorization request names.
    pub(crate) fn thumbprint(&self) -> &str {
        &self.thumbprint
    }

    /// A proof for one HTTP request (RFC 9449 §4.2): `htm` is the method (`POST`), `htu`
    /// the target URI (its query and fragment are dropped here), `access_token` the token
    /// being presented (adds `ath`), `nonce` the server's latest `DPoP-Nonce`. Each call
    /// has a new `jti`, so a retry is never a replay.
    pub(crate) fn proof(
        &self,
        htm: &str,
        htu: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, DpopError> {
        let mut claims = Map::new();
        claims.insert("jti".into(), random_id(&self.rng).map_err(|_| DpopError::Random)?.into());
        claims.insert("htm".into(), htm.into());
        claims.insert("htu".into(), target_uri(htu).into());
        claims.insert("iat".into(), unix_now().map_err(|_| DpopError::Clock)?.into());
        if let Some(token) = access_token {
            claims.insert("ath".into(), access_token_hash(token).into());
        }
        if let Some(nonce) = nonce {
            claims.insert("nonce".into(), nonce.into());
        }
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some(PROOF_TYP.to_owned());
        header.jwk = Some(self.jwk.clone());
        jsonwebtoken::encode(&header, &Value::Object(claims), &self.signing).map_err(|_| DpopError::Sign)
    }
}

/// The RFC 7638 thumbprint of a P-256 public key: SHA-256 over the required members in
/// lexicographic order with no whitespace. `x` and `y` are base64url, which needs no JSON
/// escaping.
fn ec_thumbprint(x: &str, y: &str) -> String {
    let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
    URL_SAFE_NO_PAD.encode(digest(&SHA256, canonical.as_bytes()))
}

/// `ath` (RFC 9449 §4.2): base64url of the SHA-256 of the token's ASCII bytes.
fn access_token_hash(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(digest(&SHA256, token.as_bytes()))
}

/// `htu` is the request URI without its query and fragment (RFC 9449 §4.2).
fn target_uri(uri: &str) -> &str {
    let end = uri.find(['?', '#']).unwrap_or(uri.len());
    &uri[..end]
}

/// The latest `DPoP-Nonce` from each server, keyed by origin (scheme, host and port):
/// the authorization server and the MCP server choose theirs independently, and a nonce
/// is only ever sent back to the origin that chose it. Callers that share one between
/// tasks put it behind a mutex.
#[derive(Debug, Default)]
pub(crate) struct DpopNonces {
    by_origin: HashMap<String, String>,
}

impl DpopNonces {
    /// The nonce to put in the next proof for `url`, if its server has given one.
    pub(crate) fn get(&self, url: &str) -> Option<&str> {
        self.by_origin.get(&origin(url)?).map(String::as_str)
    }

    /// Remembers the `DPoP-Nonce` of a response from `url`, if it has a well-formed one
    /// (RFC 9449 §8.1: non-empty, visible ASCII except `"` and `\`). Returns whether it
    /// differs from the one held before, i.e. whether a `use_dpop_nonce` error is worth
    /// one retry with a new proof.
    pub(crate) fn record(&mut self, url: &str, headers: &HeaderMap) -> bool {
        let (Some(origin), Some(nonce)) = (origin(url), nonce_header(headers)) else {
            return false;
        };
        if self.by_origin.get(&origin).is_some_and(|held| held == nonce) {
            return false;
        }
        if self.by_origin.len() >= MAX_NONCE_ORIGINS && !self.by_origin.contains_key(&origin) {
            self.by_origin.clear();
        }
        self.by_origin.insert(origin, nonce.to_owned());
        true
    }
}

/// A response's `DPoP-Nonce` value if there is exactly one and it is well formed.
pub(crate) fn nonce_header(headers: &HeaderMap) -> Option<&str> {
    let mut values = headers.get_all(DPOP_NONCE_HEADER).iter();
    let value = values.next()?.to_str().ok()?;
    let well_formed = values.next().is_none()
        && !value.is_empty()
        && value.len() <= MAX_NONCE_LEN
        && value.bytes().all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E));
    well_formed.then_some(value)
}

/// `scheme://host[:port]` of an absolute URL, lowercased, with the scheme's default port
/// dropped; `None` if it is not one.
fn origin(url: &str) -> Option<String> {
    let uri: http::Uri = url.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    let host = authority.host().to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "https" => Some(443),
        "http" => Some(80),
        _ => None,
    };
    Some(match authority.port_u16() {
        Some(port) if Some(port) != default_port => format!("{scheme}://{host}:{port}"),
        _ => format!("{scheme}://{host}"),
    })
}

#[cfg(test)]
mod tests;
