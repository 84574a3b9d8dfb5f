//! PKCE (RFC 7636, `S256`) and the `state` value: fresh randomness from ring's system
//! generator, SHA-256 from ring, unpadded base64url.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom as _, SystemRandom};

use super::error::{OAuthError, OAuthErrorKind};

/// `n` random bytes, base64url without padding.
pub(crate) fn random_b64(n: usize) -> Result<String, OAuthError> {
    let mut bytes = vec![0u8; n];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| OAuthError::new(OAuthErrorKind::Internal, "the system random generator failed"))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// Unpadded base64url of SHA-256 of `input` (the `S256` challenge, the DPoP `ath`).
pub(crate) fn s256(input: &str) -> String {
    URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, input.as_bytes()))
}

/// A code verifier and its `S256` challenge. The verifier never appears in Debug output.
pub(crate) struct Pkce {
    pub(crate) verifier: String,
    pub(crate) challenge: String,
}

impl std::fmt::Debug for Pkce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pkce").field("challenge", &self.challenge).finish_non_exhaustive()
    }
}

impl Pkce {
    /// A fresh verifier: 32 random bytes, 43 characters of `[A-Za-z0-9-_]`.
    pub(crate) fn new() -> Result<Self, OAuthError> {
        let verifier = random_b64(32)?;
        let challenge = s256(&verifier);
        Ok(Pkce { verifier, challenge })
    }
}

/// A fresh `state`: 16 random bytes (128 bits).
pub(crate) fn new_state() -> Result<String, OAuthError> {
    random_b64(16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_matches_rfc_7636_appendix_b() {
        assert_eq!(s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    }

    #[test]
    fn verifiers_are_fresh_and_well_formed() {
        let a = Pkce::new().expect("test fixture");
        let b = Pkce::new().expect("test fixture");
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(a.verifier.len(), 43);
        assert!(a.verifier.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_eq!(a.challenge, s256(&a.verifier));
        assert!(!format!("{a:?}").contains(&a.verifier));
        assert_ne!(new_state().expect("test fixture"), new_state().expect("test fixture"));
    }
}
