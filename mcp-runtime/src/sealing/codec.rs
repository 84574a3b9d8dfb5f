//! The codec turns the sealed envelope into an opaque token and back. The built-in
//! one is AES-256-GCM (ring) with HKDF-derived keys and a key ring for rotation.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};

use super::ConfigError;

/// A token this codec did not mint unmodified. The reason is for logs only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidRequestState(pub &'static str);

impl std::fmt::Display for InvalidRequestState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for InvalidRequestState {}

/// Seals bytes into a token and opens tokens it minted.
///
/// Implement it for your own cryptography (a KMS data key, an existing token service).
/// The contract: `unseal` returns exactly what `seal` was given, and fails with
/// [`InvalidRequestState`] for any token this codec did not mint unmodified. Expiry and
/// the request, audience and principal bindings are checked by the server, not the codec.
/// Version tokens with a prefix bound under the authentication tag, never name the
/// algorithm in them, and compare secrets in constant time.
pub trait RequestStateCodec: Send + Sync + 'static {
    /// Seal `payload`.
    fn seal(&self, payload: &[u8]) -> Result<String, SealError>;
    /// Open `token`.
    fn unseal(&self, token: &str) -> Result<Vec<u8>, InvalidRequestState>;
}

/// Sealing failed (no randomness, a KMS outage, ...). The client sees a sanitized `-32603`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealError(pub String);

impl std::fmt::Display for SealError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SealError {}

const PREFIX: &str = "v1.";
const KID_LEN: usize = 4;
const TAG_LEN: usize = 16;
const HKDF_INFO: &[u8] = b"mcp/request-state/v1/aes-256-gcm";
const KID_LABEL: &[u8] = b"mcp/request-state/v1/kid:";

/// The smallest secret accepted, in bytes.
pub const MIN_KEY_BYTES: usize = 32;

struct RingKey {
    kid: [u8; KID_LEN],
    key: LessSafeKey,
}

/// AES-256-GCM over a ring of secrets: the first seals, every one opens.
///
/// Tokens are `v1.` + base64url (no padding) of `kid(4) ‖ nonce(12) ‖ ciphertext ‖ tag(16)`;
/// the prefix and the key id are authenticated as associated data, the nonce is fresh
/// for every seal, and base64 is decoded strictly (only the exact text `seal` produced
/// opens).
pub struct AesGcmCodec {
    keys: Vec<RingKey>,
    rng: SystemRandom,
}

impl std::fmt::Debug for AesGcmCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AesGcmCodec").field("keys", &self.keys.len()).finish_non_exhaustive()
    }
}

struct Len32;

impl ring::hkdf::KeyType for Len32 {
    fn len(&self) -> usize {
        32
    }
}

fn derive(secret: &[u8]) -> Result<([u8; 32], [u8; KID_LEN]), ConfigError> {
    let salt = ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, &[]);
    let prk = salt.extract(secret);
    let okm = prk.expand(&[HKDF_INFO], Len32).map_err(|_| ConfigError::new("key derivation failed"))?;
    let mut key = [0u8; 32];
    okm.fill(&mut key).map_err(|_| ConfigError::new("key derivation failed"))?;
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    ctx.update(KID_LABEL);
    ctx.update(&key);
    let digest = ctx.finish();
    let mut kid = [0u8; KID_LEN];
    kid.copy_from_slice(&digest.as_ref()[..KID_LEN]);
    Ok((key, kid))
}

fn aad(kid: &[u8; KID_LEN]) -> [u8; 7] {
    let mut aad = [0u8; 7];
    aad[..3].copy_from_slice(PREFIX.as_bytes());
    aad[3..].copy_from_slice(kid);
    aad
}

impl AesGcmCodec {
    /// A codec over `secrets` (each at least 32 bytes; the first mints new tokens).
    pub fn new<K: AsRef<[u8]>>(secrets: &[K]) -> Result<Self, ConfigError> {
        if secrets.is_empty() {
            return Err(ConfigError::new("the key ring is empty: give at least one secret of 32 bytes or more"));
        }
        let mut keys: Vec<RingKey> = Vec::with_capacity(secrets.len());
        for (i, secret) in secrets.iter().enumerate() {
            let secret = secret.as_ref();
            if secret.len() < MIN_KEY_BYTES {
                return Err(ConfigError::new(format!(
                    "key {i} is {} bytes; request-state keys need at least {MIN_KEY_BYTES} random bytes (generate one with `openssl rand -hex 32`)",
                    secret.len()
                )));
            }
            let (key, kid) = derive(secret)?;
            if keys.iter().any(|k| k.kid == kid) {
                return Err(ConfigError::new(format!(
                    "key {i} repeats an earlier key; every key in the ring must differ"
                )));
            }
            let unbound = UnboundKey::new(&AES_256_GCM, &key)
                .map_err(|_| ConfigError::new("could not load an AES-256-GCM key"))?;
            keys.push(RingKey { kid, key: LessSafeKey::new(unbound) });
        }
        Ok(AesGcmCodec { keys, rng: SystemRandom::new() })
    }

    /// A codec with one fresh random key that never leaves this process.
    pub fn ephemeral() -> Result<Self, ConfigError> {
        let mut secret = [0u8; 32];
        SystemRandom::new().fill(&mut secret).map_err(|_| ConfigError::new("no system randomness for a key"))?;
        AesGcmCodec::new(&[secret])
    }
}

impl RequestStateCodec for AesGcmCodec {
    fn seal(&self, payload: &[u8]) -> Result<String, SealError> {
        let minter = self.keys.first().ok_or_else(|| SealError("empty key ring".into()))?;
        let mut nonce = [0u8; NONCE_LEN];
        self.rng.fill(&mut nonce).map_err(|_| SealError("no system randomness for a nonce".into()))?;
        let mut raw = Vec::with_capacity(KID_LEN + NONCE_LEN + payload.len() + TAG_LEN);
        raw.extend_from_slice(&minter.kid);
        raw.extend_from_slice(&nonce);
        raw.extend_from_slice(payload);
        let (_, body) = raw.split_at_mut(KID_LEN + NONCE_LEN);
        let tag = minter
            .key
            .seal_in_place_separate_tag(Nonce::assume_unique_for_key(nonce), Aad::from(aad(&minter.kid)), body)
            .map_err(|_| SealError("encryption failed".into()))?;
        raw.extend_from_slice(tag.as_ref());
        let mut token = String::with_capacity(PREFIX.len() + base64::encoded_len(raw.len(), false).unwrap_or(0));
        token.push_str(PREFIX);
        URL_SAFE_NO_PAD.encode_string(&raw, &mut token);
        Ok(token)
    }

    fn unseal(&self, token: &str) -> Result<Vec<u8>, InvalidRequestState> {
        let body = token.strip_prefix(PREFIX).ok_or(InvalidRequestState("malformed"))?;
        // Strict decoding: `URL_SAFE_NO_PAD` refuses padding, non-zero trailing bits and
        // impossible lengths, so exactly one text decodes to given bytes (the text `seal`
        // produced). The length check restates that without re-encoding the token.
        let mut raw = Vec::with_capacity(body.len() / 4 * 3 + 2);
        URL_SAFE_NO_PAD.decode_vec(body, &mut raw).map_err(|_| InvalidRequestState("malformed"))?;
        if base64::encoded_len(raw.len(), false) != Some(body.len()) {
            return Err(InvalidRequestState("malformed"));
        }
        if raw.len() < KID_LEN + NONCE_LEN + TAG_LEN {
            return Err(InvalidRequestState("malformed"));
        }
        let mut kid = [0u8; KID_LEN];
        kid.copy_from_slice(&raw[..KID_LEN]);
        let key = self.keys.iter().find(|k| k.kid == kid).ok_or(InvalidRequestState("unknown key"))?;
        let mut nonce = [0u8; NONCE_LEN];
        nonce.copy_from_slice(&raw[KID_LEN..KID_LEN + NONCE_LEN]);
        let plain_len = key
            .key
            .open_in_place(Nonce::assume_unique_for_key(nonce), Aad::from(aad(&kid)), &mut raw[KID_LEN + NONCE_LEN..])
            .map_err(|_| InvalidRequestState("seal"))?
            .len();
        raw.copy_within(KID_LEN + NONCE_LEN..KID_LEN + NONCE_LEN + plain_len, 0);
        raw.truncate(plain_len);
        Ok(raw)
    }
}
