//! `private_key_jwt` client authentication (RFC 7523 §2.2, §3): a JWT signed with the
//! client's own key, sent as `client_assertion` instead of a secret.
//!
//! Also the few helpers the signed JWTs of this module and of `dpop` share.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::rand::{SecureRandom as _, SystemRandom};
use rustls_pki_types::PrivateKeyDer;
use rustls_pki_types::pem::PemObject as _;
use serde_json::json;

/// How long an assertion is valid: it is used once, straight away (RFC 7523 §3 asks for
/// an `exp`; a short one limits what a captured assertion is worth).
const ASSERTION_LIFETIME_SECS: u64 = 60;

/// Why a client key could not be loaded or an assertion signed. Never holds or prints
/// any part of the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AssertionError {
    /// The text is not a PEM private key.
    NotPem,
    /// A PEM private key of a kind that cannot sign here: only PKCS#8 P-256 keys
    /// (`BEGIN PRIVATE KEY`, ES256) and PKCS#1 RSA keys (`BEGIN RSA PRIVATE KEY`, RS256).
    UnsupportedKey,
    /// The system's random source failed.
    Random,
    /// The system clock is before 1970.
    Clock,
    /// jsonwebtoken could not sign the assertion.
    Sign,
}

impl fmt::Display for AssertionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NotPem => "client assertion key: not a PEM private key",
            Self::UnsupportedKey => {
                "client assertion key: unsupported key (expected a PKCS#8 P-256 key or a \
                 PKCS#1 RSA key)"
            }
            Self::Random => "client assertion: the system random source failed",
            Self::Clock => "client assertion: the system clock is before the Unix epoch",
            Self::Sign => "client assertion: signing failed",
        })
    }
}

impl std::error::Error for AssertionError {}

/// The client's private key for `private_key_jwt`. `Debug` shows only the algorithm.
pub(crate) struct ClientAssertionKey {
    signing: EncodingKey,
    algorithm: Algorithm,
    rng: SystemRandom,
}

impl fmt::Debug for ClientAssertionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientAssertionKey").field("algorithm", &self.algorithm).finish_non_exhaustive()
    }
}

impl ClientAssertionKey {
    /// Loads a PEM private key: PKCS#8 P-256 signs ES256, PKCS#1 RSA signs RS256. The key
    /// is checked here (its public half is derived), so `sign` fails only on a broken
    /// random source or clock.
    pub(crate) fn from_pem(pem: &str) -> Result<Self, AssertionError> {
        crate::jose::install_crypto_provider();
        let der = PrivateKeyDer::from_pem_slice(pem.as_bytes()).map_err(|_| AssertionError::NotPem)?;
        let (signing, algorithm) = match &der {
            PrivateKeyDer::Pkcs8(key) => (EncodingKey::from_ec_der(key.secret_pkcs8_der()), Algorithm::ES256),
            PrivateKeyDer::Pkcs1(key) => (EncodingKey::from_rsa_der(key.secret_pkcs1_der()), Algorithm::RS256),
            // SEC1 (`BEGIN EC PRIVATE KEY`) and anything newer.
            _ => return Err(AssertionError::UnsupportedKey),
        };
        // Deriving the public key parses the private one: a PKCS#8 key of another curve or
        // type (RSA in PKCS#8 among them) stops here rather than at the first token request.
        Jwk::from_encoding_key(&signing, algorithm).map_err(|_| AssertionError::UnsupportedKey)?;
        Ok(Self { signing, algorithm, rng: SystemRandom::new() })
    }

    /// The JWS algorithm this key signs with, to check against the authorization server's
    /// `token_endpoint_auth_signing_alg_values_supported`.
    pub(crate) fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// A fresh assertion: `iss` = `sub` = `client_id`, `aud` = `audience`, `iat` now,
    /// `exp` a minute later, a random `jti`. The audience is the authorization server's
    /// `issuer` (RFC 7523 §3; the conformance suite's mock accepts nothing else, not
    /// even the token endpoint URL).
    pub(crate) fn sign(&self, client_id: &str, audience: &str) -> Result<String, AssertionError> {
        let now = unix_now().map_err(|_| AssertionError::Clock)?;
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME_SECS,
            "jti": random_id(&self.rng).map_err(|_| AssertionError::Random)?,
        });
        jsonwebtoken::encode(&Header::new(self.algorithm), &claims, &self.signing).map_err(|_| AssertionError::Sign)
    }
}

/// 128 random bits, base64url: a `jti` that is unique without any bookkeeping.
pub(super) fn random_id(rng: &SystemRandom) -> Result<String, ring::error::Unspecified> {
    let mut bytes = [0_u8; 16];
    rng.fill(&mut bytes)?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// Seconds since the Unix epoch, for `iat` and `exp`.
pub(super) fn unix_now() -> Result<u64, std::time::SystemTimeError> {
    Ok(SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs())
}

#[cfg(test)]
pub(super) mod tests;
