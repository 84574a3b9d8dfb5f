//! DPoP proofs checked the way a server checks them (RFC 9449 §4.3): the signature
//! against the `jwk` in the header, then each claim.

use std::collections::HashSet;

use http::{HeaderMap, HeaderValue};
use jsonwebtoken::jwk::ThumbprintHash;
use jsonwebtoken::{DecodingKey, Validation};

use super::*;

/// Verifies a proof with the key in its own header and returns its header and claims.
fn verify(proof: &str) -> (Header, Map<String, Value>) {
    let header = jsonwebtoken::decode_header(proof).expect("a proof has a JWS header");
    let jwk = header.jwk.as_ref().expect("a proof carries its public key");
    let key = DecodingKey::from_jwk(jwk).expect("the header jwk is a usable key");
    let mut validation = Validation::new(Algorithm::ES256);
    validation.required_spec_claims = HashSet::new();
    validation.validate_exp = false;
    validation.validate_aud = false;
    let data = jsonwebtoken::decode::<Map<String, Value>>(proof, &key, &validation)
        .expect("the proof verifies with its header's key");
    (header, data.claims)
}

fn key() -> DpopKey {
    DpopKey::generate().expect("a P-256 key can be generated")
}

#[test]
fn proof_verifies_with_its_header_jwk_and_has_every_claim() {
    let key = key();
    let proof = key.proof("POST", "https://as.example.com/token", None, None).expect("signs");
    let (header, claims) = verify(&proof);

    assert_eq!(header.typ.as_deref(), Some("dpop+jwt"));
    assert_eq!(header.alg, Algorithm::ES256);
    let jwk = serde_json::to_value(header.jwk.expect("jwk")).expect("serializes");
    assert_eq!(jwk, key.public_jwk(), "the header carries exactly the public JWK");
    assert!(jwk.get("d").is_none(), "no private part in the header");

    assert_eq!(claims["htm"], "POST");
    assert_eq!(claims["htu"], "https://as.example.com/token");
    assert!(claims["jti"].as_str().is_some_and(|jti| jti.len() >= 16));
    let iat = claims["iat"].as_u64().expect("iat is a number");
    let now = unix_now().expect("clock");
    assert!(iat.abs_diff(now) <= 5, "iat is now");
    assert!(!claims.contains_key("ath"), "no ath without a token");
    assert!(!claims.contains_key("nonce"), "no nonce unless given");
}

#[test]
fn public_jwk_is_the_bare_p256_key() {
    let jwk = key().public_jwk();
    let object = jwk.as_object().expect("an object");
    let mut members: Vec<&str> = object.keys().map(String::as_str).collect();
    members.sort_unstable();
    assert_eq!(members, ["crv", "kty", "x", "y"]);
    assert_eq!(jwk["kty"], "EC");
    assert_eq!(jwk["crv"], "P-256");
    for coordinate in ["x", "y"] {
        let bytes = URL_SAFE_NO_PAD.decode(jwk[coordinate].as_str().expect("a string")).expect("base64url");
        assert_eq!(bytes.len(), 32, "{coordinate} is a 32-byte coordinate");
    }
}

#[test]
fn every_proof_has_a_new_jti() {
    let key = key();
    let jtis: HashSet<String> = (0..50)
        .map(|_| {
            let proof = key.proof("POST", "https://mcp.example.com/mcp", Some("tok"), None).expect("signs");
            verify(&proof).1["jti"].as_str().expect("jti").to_owned()
        })
        .collect();
    assert_eq!(jtis.len(), 50);
}

#[test]
fn ath_is_the_base64url_sha256_of_the_token() {
    let key = key();
    let token = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU";
    let proof = key.proof("GET", "https://resource.example.org/protectedresource", Some(token), None).expect("signs");
    let (_, claims) = verify(&proof);
    // RFC 9449 §7.1's example token and its `ath`.
    assert_eq!(claims["ath"], "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo");
    assert_eq!(claims["htm"], "GET");
}

#[test]
fn nonce_is_carried_when_given() {
    let proof =
        key().proof("POST", "https://as.example.com/token", None, Some("eyJ7S_zG.eyJH0-Z.HX4w-7v")).expect("signs");
    assert_eq!(verify(&proof).1["nonce"], "eyJ7S_zG.eyJH0-Z.HX4w-7v");
}

#[test]
fn htu_drops_query_and_fragment() {
    let key = key();
    for (given, expected) in [
        ("https://mcp.example.com/mcp?session=1#top", "https://mcp.example.com/mcp"),
        ("https://mcp.example.com/mcp#frag?not-a-query", "https://mcp.example.com/mcp"),
        ("http://localhost:3000/token?", "http://localhost:3000/token"),
        ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp"),
    ] {
        let proof = key.proof("POST", given, None, None).expect("signs");
        assert_eq!(verify(&proof).1["htu"], expected, "for {given}");
    }
}

#[test]
fn thumbprint_matches_the_rfc_9449_example_key() {
    // RFC 9449 §4.1's example proof key; §6.1 gives its thumbprint as `cnf.jkt`.
    let thumbprint =
        ec_thumbprint("l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs", "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA");
    assert_eq!(thumbprint, "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I");
}

#[test]
fn thumbprint_agrees_with_jsonwebtoken_and_is_stable() {
    let key = key();
    let independent = key.jwk.thumbprint(ThumbprintHash::SHA256).expect("EC thumbprint");
    assert_eq!(key.thumbprint(), independent);
    assert_eq!(key.thumbprint(), key.thumbprint());
    assert_ne!(key.thumbprint(), DpopKey::generate().expect("second key").thumbprint());
}

#[test]
fn debug_shows_no_key_material() {
    let key = key();
    let shown = format!("{key:?}");
    assert!(shown.contains(key.thumbprint()));
    for coordinate in ["x", "y"] {
        assert!(!shown.contains(key.public_jwk()[coordinate].as_str().expect("string")));
    }
    assert!(!shown.contains("signing"));
}

fn nonce_headers(values: &[&str]) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for value in values {
        headers.append("DPoP-Nonce", HeaderValue::from_str(value).expect("header value"));
    }
    headers
}

#[test]
fn nonces_are_kept_per_origin() {
    let mut nonces = DpopNonces::default();
    assert!(nonces.record("http://localhost:3001/token", &nonce_headers(&["conformance-as-dpop-nonce"])));
    assert!(nonces.record("http://localhost:3002/mcp", &nonce_headers(&["conformance-rs-dpop-nonce"])));

    assert_eq!(nonces.get("http://localhost:3001/register"), Some("conformance-as-dpop-nonce"));
    assert_eq!(nonces.get("HTTP://LOCALHOST:3001/token?x=1"), Some("conformance-as-dpop-nonce"));
    assert_eq!(nonces.get("http://localhost:3002/mcp"), Some("conformance-rs-dpop-nonce"));
    assert_eq!(nonces.get("http://localhost:3003/mcp"), None, "another port is another origin");
    assert_eq!(nonces.get("https://localhost:3001/token"), None, "another scheme is another origin");
}

#[test]
fn record_reports_only_a_changed_nonce() {
    let mut nonces = DpopNonces::default();
    let url = "https://as.example.com/token";
    assert!(nonces.record(url, &nonce_headers(&["n1"])));
    assert!(!nonces.record(url, &nonce_headers(&["n1"])), "the same nonce again is no reason to retry");
    assert!(nonces.record(url, &nonce_headers(&["n2"])));
    assert_eq!(nonces.get(url), Some("n2"));
    assert!(!nonces.record(url, &HeaderMap::new()), "no header, nothing recorded");
    assert_eq!(nonces.get(url), Some("n2"), "a response without a nonce keeps the last one");
}

#[test]
fn default_ports_share_the_origin() {
    let mut nonces = DpopNonces::default();
    assert!(nonces.record("https://as.example.com:443/token", &nonce_headers(&["n"])));
    assert_eq!(nonces.get("https://as.example.com/token"), Some("n"));
}

#[test]
fn malformed_nonces_are_ignored() {
    let url = "https://as.example.com/token";
    let long = "n".repeat(MAX_NONCE_LEN + 1);
    for values in [&[""][..], &["has space"], &["quote\"d"], &["back\\slash"], &["a", "b"], &[long.as_str()]] {
        let mut nonces = DpopNonces::default();
        assert!(!nonces.record(url, &nonce_headers(values)), "{values:?}");
        assert_eq!(nonces.get(url), None);
    }
    let mut nonces = DpopNonces::default();
    assert!(!nonces.record("not a url", &nonce_headers(&["n"])));
}

#[test]
fn nonce_memory_is_bounded() {
    let mut nonces = DpopNonces::default();
    for port in 0..(MAX_NONCE_ORIGINS as u16 * 3) {
        nonces.record(&format!("http://localhost:{}/token", 10_000 + port), &nonce_headers(&["n"]));
        assert!(nonces.by_origin.len() <= MAX_NONCE_ORIGINS);
    }
}
