//! `ClientAssertionKey` against keys made by Python's `cryptography` package, each
//! assertion verified with the public half derived there.
//!
//! Every key below is TEST-ONLY: generated for these tests and used nowhere else.

use std::collections::HashSet;

use jsonwebtoken::{DecodingKey, Validation};
use serde_json::{Map, Value};

use super::*;

/// TEST-ONLY P-256 key, PKCS#8 (`BEGIN PRIVATE KEY`).
pub(in crate::client::oauth) const EC_PKCS8: &str = "\
-----BEGIN PRIVATE KEY-----\n\
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgOqV/yZCbx7fmu8eR\n\
CXrJ/pxEFYAOpZx5AXW2ItnbWl6hRANCAAT0c2+c4mswuOobnLfbrJr1JkvnWtdD\n\
7hGKAsMXpRsbZELFfpfQGes18i33tLLslBn9HzRi9Hb+yAPX+vUV09ta\n\
-----END PRIVATE KEY-----\n";
/// The same key as SEC1 (`BEGIN EC PRIVATE KEY`).
const EC_SEC1: &str = "\
-----BEGIN EC PRIVATE KEY-----\n\
MHcCAQEEIDqlf8mQm8e35rvHkQl6yf6cRBWADqWceQF1tiLZ21peoAoGCCqGSM49\n\
AwEHoUQDQgAE9HNvnOJrMLjqG5y326ya9SZL51rXQ+4RigLDF6UbG2RCxX6X0Bnr\n\
NfIt97Sy7JQZ/R80YvR2/sgD1/r1FdPbWg==\n\
-----END EC PRIVATE KEY-----\n";
/// Its public point, as computed by `cryptography`.
const EC_X: &str = "9HNvnOJrMLjqG5y326ya9SZL51rXQ-4RigLDF6UbG2Q";
const EC_Y: &str = "QsV-l9AZ6zXyLfe0suyUGf0fNGL0dv7IA9f69RXT21o";
/// TEST-ONLY RSA-2048 key, PKCS#1 (`BEGIN RSA PRIVATE KEY`).
pub(in crate::client::oauth) const RSA_PKCS1: &str = "\
-----BEGIN RSA PRIVATE KEY-----\n\
MIIEogIBAAKCAQEAm6uL+Q6jiG8/1eF5+u1mfEIa9U2vxFZvEUQTOQgyiSGuWAX8\n\
8lQdC7Qn4O+oSK5J5LhISJqoNP9sXERn7roHB0/3Yi1l4A0GtzsPsb1bVqhWv5SN\n\
I8ADj+WpQBeK/5FiLruExktMFKbwTfU19dNhOymoO5NSvwluPTL4sr6k7IQG81rg\n\
Np3RHDvc6OS/6XYRISWQkPLmzAncyzQiJBdCiPGaElWjuKAo3pqX6cBGWoRl2+yy\n\
70MKlNR+PSuFpndhupYl/+guhmERDG+2Y5x9jYJ39pRDyb60KzZr5uPeKD3sPcIu\n\
IMlGU+Pw0GauZtIuGqsb2bEwl2w8x2z48z+jLQIDAQABAoIBABUcSPGgBhZQ++et\n\
2aRpQF42esBsZhsqm4pMYIz56xyEqEeAnGJifMPjDQtohLpChHvTb94Ety3ku5Wx\n\
oySRLrXTptk2Ddw5+ACuLj0s0C+qyYTWiONhvTns66xo5O0ukpGC1YksmectEmaI\n\
C+bH4SYsSoe1vWFxznTXLjnTN7tpIAEF8ASZ9j08Ak2OsnEkV9Xw07KllGsDukbv\n\
LxF0uRKfs41A66KBVv8fg9ccVZ466dBXA8D6qJtGHaYhggtCHMWLvnuKI/wIYPpI\n\
xYbZeJ9iwFjVK0PkeZMBe7ioR3UGYh+gSI75AqICpzkoUS5K+qOG0sRQamLyhQJT\n\
DURWy8ECgYEAyMdq1ogYA0MKL05RxwJujMCzLw02TZlz9dG/1PfCxr+kTmlObRiF\n\
awQkOU8lNRwABxWDOJaXJyzKudeMTzSN1Lhu03nBz5Btz2/qpLByX/l6Wan7cFmV\n\
m63+8WIJ666vylecprgky+TxrdET2PRujbzARC7faBJ3rZwgR1rp300CgYEAxnwS\n\
zb0KbLMXy9UMGGBCYTZx9ZILZ9pPWgPTNlPBRv36O5MCCCMX+fDMyLsBeaTuObmk\n\
ZRMNsQd+U6nXQt3POP7a44g4YzCksRSDHaomFW5CHAkfOZO919LWIJKmESSSdpV/\n\
JhmLGTQEu6o0gd4OR9m4Xla4L0iKYxpNnONEo2ECgYAz33G244pwrU1gU3fFVteA\n\
/fhNW7h/6/mNtRc+ypREDRdCOurMPN2bfIJvXAdc5VMMgX5ZjG6Y7HWj9hCGFine\n\
n5figz6ThdkZEu0oh33FVgtKRyRzLnH8usN3UcEGZyd7u475c/Hty8S1B6N9FgnK\n\
DM4Pz5xgowTQkdm1FcP+sQKBgDAN/BN5sFtu5NUByMLiE1Ar+V1GNaK4NTwK7wkZ\n\
MBM7DGl+ByDnNjfaOAplVE8aQl8Rdh7OhSMWOFyTIz3aLACVm3M5GMXTEhyZZcE5\n\
36ySnEjjYH71KSJmtlb+ilxeKWOygC0+Q/IfKQIyjDHhDD4TFVMp1cAE5RRnWuEg\n\
GQ8hAoGAO8qKft4yaLRHjNHTNtzxxvkD7D6+NjWkws6NMgdUBqnoqeaD3dF6eZcN\n\
hYPKHMHyCtubEYVng64PsTE1dvIRDkzsQOZuitsU3vIHcj3R9Yak778k7d/6tvsO\n\
OQgQcQbiRx3nxQ/MLIlphbKoNTjSmLMbOt/Qt9DH7wrSwMxjqxw=\n\
-----END RSA PRIVATE KEY-----\n";
/// The same key as PKCS#8.
const RSA_PKCS8: &str = "\
-----BEGIN PRIVATE KEY-----\n\
MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCbq4v5DqOIbz/V\n\
4Xn67WZ8Qhr1Ta/EVm8RRBM5CDKJIa5YBfzyVB0LtCfg76hIrknkuEhImqg0/2xc\n\
RGfuugcHT/diLWXgDQa3Ow+xvVtWqFa/lI0jwAOP5alAF4r/kWIuu4TGS0wUpvBN\n\
9TX102E7Kag7k1K/CW49MviyvqTshAbzWuA2ndEcO9zo5L/pdhEhJZCQ8ubMCdzL\n\
NCIkF0KI8ZoSVaO4oCjempfpwEZahGXb7LLvQwqU1H49K4Wmd2G6liX/6C6GYREM\n\
b7ZjnH2Ngnf2lEPJvrQrNmvm494oPew9wi4gyUZT4/DQZq5m0i4aqxvZsTCXbDzH\n\
bPjzP6MtAgMBAAECggEAFRxI8aAGFlD7563ZpGlAXjZ6wGxmGyqbikxgjPnrHISo\n\
R4CcYmJ8w+MNC2iEukKEe9Nv3gS3LeS7lbGjJJEutdOm2TYN3Dn4AK4uPSzQL6rJ\n\
hNaI42G9OezrrGjk7S6SkYLViSyZ5y0SZogL5sfhJixKh7W9YXHOdNcuOdM3u2kg\n\
AQXwBJn2PTwCTY6ycSRX1fDTsqWUawO6Ru8vEXS5Ep+zjUDrooFW/x+D1xxVnjrp\n\
0FcDwPqom0YdpiGCC0IcxYu+e4oj/Ahg+kjFhtl4n2LAWNUrQ+R5kwF7uKhHdQZi\n\
H6BIjvkCogKnOShRLkr6o4bSxFBqYvKFAlMNRFbLwQKBgQDIx2rWiBgDQwovTlHH\n\
Am6MwLMvDTZNmXP10b/U98LGv6ROaU5tGIVrBCQ5TyU1HAAHFYM4lpcnLMq514xP\n\
NI3UuG7TecHPkG3Pb+qksHJf+XpZqftwWZWbrf7xYgnrrq/KV5ymuCTL5PGt0RPY\n\
9G6NvMBELt9oEnetnCBHWunfTQKBgQDGfBLNvQpssxfL1QwYYEJhNnH1kgtn2k9a\n\
A9M2U8FG/fo7kwIIIxf58MzIuwF5pO45uaRlEw2xB35TqddC3c84/trjiDhjMKSx\n\
FIMdqiYVbkIcCR85k73X0tYgkqYRJJJ2lX8mGYsZNAS7qjSB3g5H2bheVrgvSIpj\n\
Gk2c40SjYQKBgDPfcbbjinCtTWBTd8VW14D9+E1buH/r+Y21Fz7KlEQNF0I66sw8\n\
3Zt8gm9cB1zlUwyBflmMbpjsdaP2EIYWKd6fl+KDPpOF2RkS7SiHfcVWC0pHJHMu\n\
cfy6w3dRwQZnJ3u7jvlz8e3LxLUHo30WCcoMzg/PnGCjBNCR2bUVw/6xAoGAMA38\n\
E3mwW27k1QHIwuITUCv5XUY1org1PArvCRkwEzsMaX4HIOc2N9o4CmVUTxpCXxF2\n\
Hs6FIxY4XJMjPdosAJWbczkYxdMSHJllwTnfrJKcSONgfvUpIma2Vv6KXF4pY7KA\n\
LT5D8h8pAjKMMeEMPhMVUynVwATlFGda4SAZDyECgYA7yop+3jJotEeM0dM23PHG\n\
+QPsPr42NaTCzo0yB1QGqeip5oPd0Xp5lw2Fg8ocwfIK25sRhWeDrg+xMTV28hEO\n\
TOxA5m6K2xTe8gdyPdH1hqTvvyTt3/q2+w45CBBxBuJHHefFD8wsiWmFsqg1ONKY\n\
sxs639C30MfvCtLAzGOrHA==\n\
-----END PRIVATE KEY-----\n";
/// Its modulus and exponent, as computed by `cryptography`.
const RSA_N: &str = "m6uL-Q6jiG8_1eF5-u1mfEIa9U2vxFZvEUQTOQgyiSGuWAX88lQdC7Qn4O-oSK5J5LhISJqoNP9sXERn7roHB0_3Yi1l4A0GtzsPsb1bVqhWv5SNI8ADj-WpQBeK_5FiLruExktMFKbwTfU19dNhOymoO5NSvwluPTL4sr6k7IQG81rgNp3RHDvc6OS_6XYRISWQkPLmzAncyzQiJBdCiPGaElWjuKAo3pqX6cBGWoRl2-yy70MKlNR-PSuFpndhupYl_-guhmERDG-2Y5x9jYJ39pRDyb60KzZr5uPeKD3sPcIuIMlGU-Pw0GauZtIuGqsb2bEwl2w8x2z48z-jLQ";
const RSA_E: &str = "AQAB";

const CLIENT_ID: &str = "conformance-test-client";
const ISSUER: &str = "http://localhost:3000";

/// Verifies `assertion` as an authorization server does (signature, `aud`, `exp`) and
/// returns its claims.
fn verify(assertion: &str, key: &DecodingKey, algorithm: Algorithm) -> Map<String, Value> {
    let mut validation = Validation::new(algorithm);
    validation.set_audience(&[ISSUER]);
    validation.set_required_spec_claims(&["iss", "sub", "aud", "exp"]);
    validation.leeway = 0;
    jsonwebtoken::decode::<Map<String, Value>>(assertion, key, &validation).expect("the assertion verifies").claims
}

fn ec_public() -> DecodingKey {
    DecodingKey::from_ec_components(EC_X, EC_Y).expect("public point")
}

#[test]
fn es256_assertion_verifies_and_has_every_claim() {
    let key = ClientAssertionKey::from_pem(EC_PKCS8).expect("a PKCS#8 P-256 key loads");
    assert_eq!(key.algorithm(), Algorithm::ES256);
    let assertion = key.sign(CLIENT_ID, ISSUER).expect("signs");

    let header = jsonwebtoken::decode_header(&assertion).expect("header");
    assert_eq!(header.alg, Algorithm::ES256);
    assert!(header.jwk.is_none(), "the key is registered, not sent");

    let claims = verify(&assertion, &ec_public(), Algorithm::ES256);
    assert_eq!(claims["iss"], CLIENT_ID);
    assert_eq!(claims["sub"], CLIENT_ID);
    assert_eq!(claims["aud"], ISSUER);
    let iat = claims["iat"].as_u64().expect("iat");
    let exp = claims["exp"].as_u64().expect("exp");
    assert!(iat.abs_diff(unix_now().expect("clock")) <= 5, "iat is now");
    assert_eq!(exp, iat + ASSERTION_LIFETIME_SECS);
    assert!(claims["jti"].as_str().is_some_and(|jti| jti.len() >= 16));
}

#[test]
fn each_assertion_has_a_new_jti() {
    let key = ClientAssertionKey::from_pem(EC_PKCS8).expect("loads");
    let jtis: HashSet<String> = (0..20)
        .map(|_| {
            let assertion = key.sign(CLIENT_ID, ISSUER).expect("signs");
            verify(&assertion, &ec_public(), Algorithm::ES256)["jti"].as_str().expect("jti").to_owned()
        })
        .collect();
    assert_eq!(jtis.len(), 20);
}

#[test]
fn assertion_for_another_audience_does_not_verify_for_the_issuer() {
    let key = ClientAssertionKey::from_pem(EC_PKCS8).expect("loads");
    let assertion = key.sign(CLIENT_ID, "http://localhost:3000/token").expect("signs");
    let mut validation = Validation::new(Algorithm::ES256);
    validation.set_audience(&[ISSUER]);
    assert!(jsonwebtoken::decode::<Map<String, Value>>(&assertion, &ec_public(), &validation).is_err());
}

#[test]
fn rs256_from_a_pkcs1_key() {
    let key = ClientAssertionKey::from_pem(RSA_PKCS1).expect("a PKCS#1 RSA key loads");
    assert_eq!(key.algorithm(), Algorithm::RS256);
    let assertion = key.sign(CLIENT_ID, ISSUER).expect("signs");
    let public = DecodingKey::from_rsa_components(RSA_N, RSA_E).expect("public key");
    let claims = verify(&assertion, &public, Algorithm::RS256);
    assert_eq!(claims["iss"], CLIENT_ID);
    assert_eq!(claims["sub"], CLIENT_ID);
}

#[test]
fn unsupported_keys_are_typed_errors() {
    assert_eq!(ClientAssertionKey::from_pem(EC_SEC1).err(), Some(AssertionError::UnsupportedKey));
    assert_eq!(ClientAssertionKey::from_pem(RSA_PKCS8).err(), Some(AssertionError::UnsupportedKey));
}

#[test]
fn bad_pem_is_a_typed_error_that_shows_nothing_of_the_input() {
    let secretish = "-----BEGIN PRIVATE KEY-----\nTOPSECRETMATERIAL\n-----END PRIVATE KEY-----\n";
    for input in ["", "not a pem at all", secretish] {
        let error = ClientAssertionKey::from_pem(input).expect_err("rejected");
        assert!(matches!(error, AssertionError::NotPem | AssertionError::UnsupportedKey), "{input:?}: {error:?}");
        for shown in [format!("{error}"), format!("{error:?}")] {
            assert!(!shown.contains("TOPSECRET"), "{shown}");
        }
    }
    // A well-formed PEM whose DER is garbage is still no key.
    let garbage = "-----BEGIN PRIVATE KEY-----\nAAECAwQFBgcICQ==\n-----END PRIVATE KEY-----\n";
    assert_eq!(ClientAssertionKey::from_pem(garbage).err(), Some(AssertionError::UnsupportedKey));
}

#[test]
fn debug_shows_only_the_algorithm() {
    let key = ClientAssertionKey::from_pem(EC_PKCS8).expect("loads");
    let shown = format!("{key:?}");
    assert!(shown.contains("ES256"), "{shown}");
    for line in EC_PKCS8.lines().filter(|line| !line.starts_with("-----")) {
        assert!(!shown.contains(line));
    }
}
