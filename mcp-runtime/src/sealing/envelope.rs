//! The sealed envelope: what travels inside the token around the handler's plaintext
//! state, and the checks made when it comes back.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom, SystemRandom};
use serde::Serialize;
use serde_json::Value;

const VERSION: u8 = 1;
/// How far in the future a token's issue time may be (clock skew between instances).
pub const FUTURE_SKEW_MS: u64 = 60_000;
const PRINCIPAL_LABEL: &[u8] = b"mcp/request-state/principal:";

/// The claims sealed into every token.
///
/// The payload the codec seals is a compact binary encoding of these claims (see
/// [`Envelope::to_payload`]), not JSON: the state is usually JSON itself, and escaping it
/// into a JSON string and parsing it back cost several times the encryption. The
/// payload is authenticated by the codec before it is decoded, and decoding is strict
/// all the same (bounds-checked, UTF-8 checked, no trailing bytes).
///
/// The runtime itself reads and writes the claims borrowed (`Claims`); this owned form is
/// for tests, benchmarks and fuzzing (`test-util`).
#[cfg(feature = "test-util")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    /// Envelope version.
    pub v: u8,
    /// Issued at, milliseconds since the Unix epoch.
    pub iat: u64,
    /// Expires at, milliseconds since the Unix epoch.
    pub exp: u64,
    /// The JSON-RPC method.
    pub m: String,
    /// The target: tool or prompt name, or resource URI.
    pub t: String,
    /// Digest of the arguments.
    pub a: String,
    /// The handler's plaintext state.
    pub s: String,
    /// Audience (the server's name by default).
    pub aud: Option<String>,
    /// Salted hash of the principal.
    pub p: Option<String>,
}

/// What a token is bound to: the request it was minted for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The JSON-RPC method.
    pub method: String,
    /// Tool or prompt name, or resource URI.
    pub target: String,
    /// Digest of the arguments.
    pub args_digest: String,
}

/// The digest of a request's arguments: SHA-256 of their canonical JSON (object keys
/// sorted at every level, no whitespace), first 16 bytes, base64url. Absent arguments
/// digest as `{}`.
pub fn args_digest(arguments: Option<&Value>) -> String {
    let mut canonical = Vec::with_capacity(128);
    match arguments {
        Some(value) => write_canonical(value, &mut canonical),
        None => canonical.extend_from_slice(b"{}"),
    }
    let digest = ring::digest::digest(&ring::digest::SHA256, &canonical);
    URL_SAFE_NO_PAD.encode(&digest.as_ref()[..16])
}

/// Compact JSON with object keys sorted by their UTF-8 bytes (= code points).
///
/// The keys are sorted here rather than trusting `serde_json::Map`'s iteration order:
/// that order is insertion order as soon as any crate in the build enables
/// `serde_json/preserve_order`, which would make the digest depend on how the client
/// happened to order the keys.
fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if !entries.is_sorted_by(|a, b| a.0 <= b.0) {
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            }
            out.push(b'{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json(key.as_str(), out);
                out.push(b':');
                write_canonical(item, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        scalar => write_json(scalar, out),
    }
}

fn write_json<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) {
    // Serializing a string or a scalar `Value` into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut *out, value);
}

fn principal_hash(salt: &[u8; 8], principal: &str) -> [u8; 16] {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    ctx.update(PRINCIPAL_LABEL);
    ctx.update(salt);
    ctx.update(principal.as_bytes());
    let digest = ctx.finish();
    let mut out = [0u8; 16];
    out.copy_from_slice(&digest.as_ref()[..16]);
    out
}

/// A fresh, salted claim for `principal` (two tokens for one user cannot be linked).
pub fn principal_claim(rng: &SystemRandom, principal: &str) -> Option<String> {
    let mut salt = [0u8; 8];
    rng.fill(&mut salt).ok()?;
    let mut raw = [0u8; 24];
    raw[..8].copy_from_slice(&salt);
    raw[8..].copy_from_slice(&principal_hash(&salt, principal));
    Some(URL_SAFE_NO_PAD.encode(raw))
}

/// Whether `claim` was made for `principal` (constant-time comparison).
pub fn principal_matches(claim: &str, principal: &str) -> bool {
    let Ok(raw) = URL_SAFE_NO_PAD.decode(claim) else { return false };
    if raw.len() != 24 {
        return false;
    }
    let mut salt = [0u8; 8];
    salt.copy_from_slice(&raw[..8]);
    super::constant_time_eq(&raw[8..], &principal_hash(&salt, principal))
}

/// Why an envelope was refused (for the log; the client always sees one fixed error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    /// Not a valid envelope.
    Malformed,
    /// Issued too far in the future.
    FromTheFuture,
    /// Past its expiry.
    Expired,
    /// Minted for another method, target or arguments.
    RequestBinding,
    /// Minted for another audience, or audience presence differs.
    Audience,
    /// Principal presence differs between token and request.
    PrincipalDrift,
    /// Minted for another principal.
    Principal,
    /// Already used, or the single-use store has no room to record it (single-use mode).
    Replayed,
}

impl Rejection {
    /// A short reason for logs.
    pub fn reason(self) -> &'static str {
        match self {
            Rejection::Malformed => "malformed",
            Rejection::FromTheFuture => "minted in the future",
            Rejection::Expired => "expired",
            Rejection::RequestBinding => "request binding",
            Rejection::Audience => "audience",
            Rejection::PrincipalDrift => "principal drift",
            Rejection::Principal => "principal",
            Rejection::Replayed => "replayed or single-use store full",
        }
    }
}

#[cfg(feature = "test-util")]
impl Envelope {
    /// A new envelope.
    pub fn new(
        now_ms: u64,
        ttl_ms: u64,
        binding: &Binding,
        state: String,
        aud: Option<String>,
        p: Option<String>,
    ) -> Self {
        Envelope {
            v: VERSION,
            iat: now_ms,
            exp: now_ms.saturating_add(ttl_ms),
            m: binding.method.clone(),
            t: binding.target.clone(),
            a: binding.args_digest.clone(),
            s: state,
            aud,
            p,
        }
    }

    /// The bytes the codec seals (the layout is `Claims::to_payload`'s).
    pub fn to_payload(&self) -> Vec<u8> {
        Claims {
            v: self.v,
            iat: self.iat,
            exp: self.exp,
            m: &self.m,
            t: &self.t,
            a: &self.a,
            s: &self.s,
            aud: self.aud.as_deref(),
            p: self.p.as_deref(),
        }
        .to_payload()
    }

    /// Decode a payload of this version without checking it against a request (to inspect
    /// a token).
    pub fn from_payload(bytes: &[u8]) -> Result<Envelope, Rejection> {
        Claims::decode(bytes).map(Claims::into_owned).ok_or(Rejection::Malformed)
    }

    /// Decode and check against the request it came back with.
    pub fn open(
        bytes: &[u8],
        now_ms: u64,
        binding: &Binding,
        audience: Option<&str>,
        principal: Option<&str>,
    ) -> Result<Envelope, Rejection> {
        Claims::open(bytes, now_ms, binding, audience, principal).map(Claims::into_owned)
    }
}

impl<'a> Claims<'a> {
    /// The claims of a token minted now for `binding`, around `state`.
    pub(crate) fn minted(
        now_ms: u64,
        ttl_ms: u64,
        binding: &'a Binding,
        state: &'a str,
        aud: Option<&'a str>,
        p: Option<&'a str>,
    ) -> Self {
        Claims {
            v: VERSION,
            iat: now_ms,
            exp: now_ms.saturating_add(ttl_ms),
            m: &binding.method,
            t: &binding.target,
            a: &binding.args_digest,
            s: state,
            aud,
            p,
        }
    }

    /// Decode a payload and check it against the request it came back with.
    pub(crate) fn open(
        bytes: &'a [u8],
        now_ms: u64,
        binding: &Binding,
        audience: Option<&str>,
        principal: Option<&str>,
    ) -> Result<Claims<'a>, Rejection> {
        let claims = Claims::decode(bytes).ok_or(Rejection::Malformed)?;
        if claims.iat > now_ms.saturating_add(FUTURE_SKEW_MS) {
            return Err(Rejection::FromTheFuture);
        }
        if now_ms >= claims.exp {
            return Err(Rejection::Expired);
        }
        if claims.m != binding.method || claims.t != binding.target || claims.a != binding.args_digest {
            return Err(Rejection::RequestBinding);
        }
        if claims.aud != audience {
            return Err(Rejection::Audience);
        }
        match (claims.p, principal) {
            (None, None) => {}
            (Some(claim), Some(principal)) => {
                if !principal_matches(claim, principal) {
                    return Err(Rejection::Principal);
                }
            }
            _ => return Err(Rejection::PrincipalDrift),
        }
        Ok(claims)
    }
}

fn put_len(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push((n & 0x7f) as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn put_optional(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        None => out.push(0),
        Some(s) => {
            out.push(1);
            put_str(out, s);
        }
    }
}

/// The claims of a token, borrowed: as read back from a payload (checked before anything
/// is copied out of it), or as written into one (without copying the binding first).
pub(crate) struct Claims<'a> {
    v: u8,
    pub(crate) iat: u64,
    pub(crate) exp: u64,
    m: &'a str,
    t: &'a str,
    a: &'a str,
    pub(crate) s: &'a str,
    aud: Option<&'a str>,
    p: Option<&'a str>,
}

impl<'a> Claims<'a> {
    /// The bytes the codec seals:
    ///
    /// `v (1) ‖ iat (u64 BE) ‖ exp (u64 BE) ‖ m ‖ t ‖ a ‖ aud? ‖ p? ‖ s`, where each string
    /// is its length (LEB128) and its UTF-8 bytes, and each optional string is `0` when
    /// absent or `1` and the string.
    pub(crate) fn to_payload(&self) -> Vec<u8> {
        let optional = |o: Option<&str>| o.map_or(0, str::len);
        let strings = self.m.len() + self.t.len() + self.a.len() + self.s.len() + optional(self.aud) + optional(self.p);
        let mut out = Vec::with_capacity(1 + 8 + 8 + 2 + 6 * 10 + strings);
        out.push(self.v);
        out.extend_from_slice(&self.iat.to_be_bytes());
        out.extend_from_slice(&self.exp.to_be_bytes());
        put_str(&mut out, self.m);
        put_str(&mut out, self.t);
        put_str(&mut out, self.a);
        put_optional(&mut out, self.aud);
        put_optional(&mut out, self.p);
        put_str(&mut out, self.s);
        out
    }

    fn decode(bytes: &'a [u8]) -> Option<Claims<'a>> {
        let mut r = Reader(bytes);
        // Another version has another layout.
        let v = r.byte().filter(|v| *v == VERSION)?;
        let iat = r.u64()?;
        let exp = r.u64()?;
        let (m, t, a) = (r.str()?, r.str()?, r.str()?);
        let (aud, p) = (r.optional()?, r.optional()?);
        let s = r.str()?;
        r.0.is_empty().then_some(Claims { v, iat, exp, m, t, a, s, aud, p })
    }

    #[cfg(feature = "test-util")]
    fn into_owned(self) -> Envelope {
        Envelope {
            v: self.v,
            iat: self.iat,
            exp: self.exp,
            m: self.m.to_owned(),
            t: self.t.to_owned(),
            a: self.a.to_owned(),
            s: self.s.to_owned(),
            aud: self.aud.map(str::to_owned),
            p: self.p.map(str::to_owned),
        }
    }
}

/// A bounds-checked cursor over a payload.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    fn u64(&mut self) -> Option<u64> {
        let bytes: [u8; 8] = self.take(8)?.try_into().ok()?;
        Some(u64::from_be_bytes(bytes))
    }

    /// A LEB128 length in its shortest form, no larger than what is left.
    fn len(&mut self) -> Option<usize> {
        let mut n: u64 = 0;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            if shift == 63 && byte > 1 {
                return None;
            }
            n |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                if byte == 0 && shift > 0 {
                    return None;
                }
                return usize::try_from(n).ok().filter(|n| *n <= self.0.len());
            }
        }
        None
    }

    fn str(&mut self) -> Option<&'a str> {
        let n = self.len()?;
        std::str::from_utf8(self.take(n)?).ok()
    }

    fn optional(&mut self) -> Option<Option<&'a str>> {
        match self.byte()? {
            0 => Some(None),
            1 => self.str().map(Some),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_does_not_depend_on_the_order_the_client_sent_keys_in() {
        let one: Value = serde_json::from_str(r#"{"b":{"y":[{"q":1,"p":2},3],"x":"é"},"a":true}"#).expect("json");
        let two: Value = serde_json::from_str(r#"{"a":true,"b":{"x":"é","y":[{"p":2,"q":1},3]}}"#).expect("json");
        // serde_json keeps keys in the order they were read (`preserve_order`), so the two
        // values really iterate differently: the digest must sort them itself.
        let keys = |v: &Value| v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
        assert_eq!(keys(&one), ["b", "a"]);
        assert_eq!(keys(&two), ["a", "b"]);
        assert_eq!(args_digest(Some(&one)), args_digest(Some(&two)));
        // Array order is part of the arguments.
        let swapped: Value = serde_json::from_str(r#"{"a":true,"b":{"x":"é","y":[3,{"p":2,"q":1}]}}"#).expect("json");
        assert_ne!(args_digest(Some(&swapped)), args_digest(Some(&two)));
    }
}
