//! URL rules that both sides of OAuth share: the server's verifiers (finding the JWKS or
//! the introspection endpoint) and the client's authorization flow (finding the
//! authorization server) probe the same metadata locations, and both let plain http
//! through only to loopback hosts.

use std::net::IpAddr;

use http::Uri;

/// Whether `uri`'s host is this machine: `localhost`, or an address in 127.0.0.0/8 or
/// `::1`. Only then may plain http be used without opting in: nothing on the network
/// between can swap the keys.
pub(crate) fn is_loopback(uri: &Uri) -> bool {
    let Some(host) = uri.host() else { return false };
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    let host = host.strip_suffix('.').unwrap_or(host);
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Where to look for the metadata of `issuer`, in the order the MCP authorization spec
/// gives, built from the raw string (never round-tripped through a URL type, which would
/// add a `/`; the metadata's `issuer` is compared with this same string byte for byte).
///
/// Without a path: `/.well-known/oauth-authorization-server`, then
/// `/.well-known/openid-configuration`. With a path (`/tenant1`), RFC 8414 §3.1 inserts
/// the well-known segment between the host and the path
/// (`/.well-known/oauth-authorization-server/tenant1`), OpenID Connect Discovery is tried
/// the same way (`/.well-known/openid-configuration/tenant1`) and then appended
/// (`/tenant1/.well-known/openid-configuration`); the root is never probed. A trailing
/// `/` of the path is dropped.
pub(crate) fn authorization_server_metadata_urls(issuer: &str) -> Vec<String> {
    let after_scheme = issuer.find("://").map_or(0, |i| i + 3);
    let path_start = issuer[after_scheme..].find('/').map_or(issuer.len(), |i| after_scheme + i);
    let (origin, path) = issuer.split_at(path_start);
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::{authorization_server_metadata_urls as metadata_urls, is_loopback};

    fn uri(s: &str) -> http::Uri {
        s.parse().expect("a URI")
    }

    #[test]
    fn loopback_hosts_are_recognised() {
        for url in [
            "http://localhost",
            "http://LocalHost:8080/x",
            "http://localhost./",
            "http://127.0.0.1:9000",
            "http://127.1.2.3",
            "http://[::1]:9000/jwks",
        ] {
            assert!(is_loopback(&uri(url)), "{url}");
        }
        for url in [
            "http://as.example",
            "http://10.0.0.1",
            "http://128.0.0.1",
            "http://localhost.example",
            "http://127.0.0.1.nip.io",
            "http://[::2]",
            "http://[::ffff:7f00:1]",
        ] {
            assert!(!is_loopback(&uri(url)), "{url}");
        }
    }

    #[test]
    fn issuer_without_a_path_probes_the_root_documents() {
        let urls = metadata_urls("http://as.example");
        assert_eq!(
            urls,
            [
                "http://as.example/.well-known/oauth-authorization-server",
                "http://as.example/.well-known/openid-configuration"
            ]
        );
        assert_eq!(metadata_urls("http://as.example/"), urls);
        assert_eq!(
            metadata_urls("http://localhost:1234"),
            [
                "http://localhost:1234/.well-known/oauth-authorization-server",
                "http://localhost:1234/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn issuer_with_a_path_inserts_then_appends() {
        assert_eq!(
            metadata_urls("http://as.example:8080/tenant1/"),
            [
                "http://as.example:8080/.well-known/oauth-authorization-server/tenant1",
                "http://as.example:8080/.well-known/openid-configuration/tenant1",
                "http://as.example:8080/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            metadata_urls("https://auth.example.com/tenant1"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
    }
}
