//! Each body parsed back as an authorization server parses it.

use super::*;

/// The body's pairs, decoded, in order.
fn pairs(form: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(form.as_bytes()).map(|(name, value)| (name.into_owned(), value.into_owned())).collect()
}

fn owned(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected.iter().map(|(name, value)| ((*name).to_owned(), (*value).to_owned())).collect()
}

const RESOURCE: &str = "http://localhost:3000/mcp";

#[test]
fn client_credentials_with_an_assertion() {
    let grant = ExtensionGrant::ClientCredentials {
        scope: Some("mcp:read mcp:write".into()),
        resource: Some(RESOURCE.into()),
        client_assertion: Some("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJjIn0.sig".into()),
    };
    assert_eq!(grant.grant_type(), "client_credentials");
    assert_eq!(
        pairs(&grant.form()),
        owned(&[
            ("grant_type", "client_credentials"),
            ("scope", "mcp:read mcp:write"),
            ("resource", RESOURCE),
            ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
            ("client_assertion", "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJjIn0.sig"),
        ])
    );
}

#[test]
fn client_credentials_for_basic_has_no_client_parameters() {
    let grant = ExtensionGrant::ClientCredentials { scope: None, resource: None, client_assertion: None };
    assert_eq!(grant.form(), "grant_type=client_credentials");
}

#[test]
fn body_is_percent_encoded() {
    let grant = ExtensionGrant::ClientCredentials {
        scope: Some("a b&c=d".into()),
        resource: Some("https://mcp.example.com/mcp?x=1".into()),
        client_assertion: None,
    };
    let form = grant.form();
    assert!(!form.contains(' ') && !form.contains("?x"), "{form}");
    assert!(form.contains("scope=a+b%26c%3Dd"), "{form}");
    assert_eq!(pairs(&form)[1], ("scope".to_owned(), "a b&c=d".to_owned()));
    assert_eq!(pairs(&form)[2], ("resource".to_owned(), "https://mcp.example.com/mcp?x=1".to_owned()));
}

#[test]
fn jwt_bearer_with_and_without_options() {
    let full = ExtensionGrant::JwtBearer {
        assertion: "header.payload.signature".into(),
        scope: Some("mcp:basic".into()),
        resource: Some(RESOURCE.into()),
        client_id: Some("conformance-wif-workload".into()),
    };
    assert_eq!(full.grant_type(), "urn:ietf:params:oauth:grant-type:jwt-bearer");
    assert_eq!(
        pairs(&full.form()),
        owned(&[
            ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
            ("assertion", "header.payload.signature"),
            ("scope", "mcp:basic"),
            ("resource", RESOURCE),
            ("client_id", "conformance-wif-workload"),
        ])
    );
    let bare = ExtensionGrant::JwtBearer { assertion: "a.b.c".into(), scope: None, resource: None, client_id: None };
    assert_eq!(
        pairs(&bare.form()),
        owned(&[("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", "a.b.c")])
    );
}

#[test]
fn id_jag_token_exchange_has_the_five_required_parameters() {
    let grant = ExtensionGrant::IdJagExchange {
        id_token: "id.token.jwt".into(),
        audience: "http://localhost:3001".into(),
        resource: RESOURCE.into(),
        scope: Some("mcp:basic".into()),
        client_id: Some("conformance-test-idp-client".into()),
    };
    assert_eq!(grant.grant_type(), "urn:ietf:params:oauth:grant-type:token-exchange");
    assert_eq!(
        pairs(&grant.form()),
        owned(&[
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
            ("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag"),
            ("audience", "http://localhost:3001"),
            ("resource", RESOURCE),
            ("scope", "mcp:basic"),
            ("subject_token", "id.token.jwt"),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
            ("client_id", "conformance-test-idp-client"),
        ])
    );
    let minimal = ExtensionGrant::IdJagExchange {
        id_token: "t".into(),
        audience: "a".into(),
        resource: "r".into(),
        scope: None,
        client_id: None,
    };
    let names: Vec<String> = pairs(&minimal.form()).into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        names,
        ["grant_type", "requested_token_type", "audience", "resource", "subject_token", "subject_token_type"]
    );
}

#[test]
fn debug_redacts_assertions_and_tokens() {
    let grants = [
        ExtensionGrant::ClientCredentials {
            scope: None,
            resource: None,
            client_assertion: Some("SECRET-ASSERTION".into()),
        },
        ExtensionGrant::JwtBearer {
            assertion: "SECRET-ASSERTION".into(),
            scope: Some("mcp:basic".into()),
            resource: None,
            client_id: None,
        },
        ExtensionGrant::IdJagExchange {
            id_token: "SECRET-ID-TOKEN".into(),
            audience: "http://localhost:3001".into(),
            resource: RESOURCE.into(),
            scope: None,
            client_id: None,
        },
    ];
    for grant in &grants {
        let shown = format!("{grant:?}");
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(shown.contains("<redacted>"), "{shown}");
    }
    assert!(format!("{:?}", grants[2]).contains(RESOURCE), "public parameters stay visible");
}

#[test]
fn basic_authorization_of_plain_values() {
    assert_eq!(
        basic_authorization("conformance-test-client", "conformance-test-secret"),
        format!("Basic {}", STANDARD.encode("conformance-test-client:conformance-test-secret"))
    );
}

#[test]
fn basic_authorization_encodes_each_part_before_base64() {
    let header = basic_authorization("urn:client:a b", "p@ss:w/rd+%");
    let encoded = header.strip_prefix("Basic ").expect("Basic scheme");
    let decoded = String::from_utf8(STANDARD.decode(encoded).expect("base64")).expect("ascii");
    assert_eq!(decoded, "urn%3Aclient%3Aa+b:p%40ss%3Aw%2Frd%2B%25");
    // Exactly one unencoded colon: the separator.
    let (id, secret) = decoded.split_once(':').expect("separator");
    assert!(!secret.contains(':'));
    let decode = |part: &str| -> String {
        form_urlencoded::parse(format!("v={part}").as_bytes()).next().expect("one pair").1.into_owned()
    };
    assert_eq!(decode(id), "urn:client:a b");
    assert_eq!(decode(secret), "p@ss:w/rd+%");
}
