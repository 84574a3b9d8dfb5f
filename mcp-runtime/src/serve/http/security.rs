//! DNS-rebinding protection: the `Host` and `Origin` a browser sends must name a host
//! this server expects.

use http::HeaderMap;

/// Hosts a loopback server answers to.
pub const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

/// The host part of a `Host` header value (`example.com:8080` -> `example.com`,
/// `[::1]:80` -> `[::1]`), as written: it is compared ignoring ASCII case, so it is not
/// copied to be lowercased.
///
/// Searched as bytes (this runs on every request, and a `char` pattern sets up a searcher
/// per call): `]` and `:` are ASCII, so the cuts fall between characters.
fn host_of(authority: &str) -> &str {
    let authority = authority.trim_ascii();
    let bytes = authority.as_bytes();
    if bytes.first() == Some(&b'[') {
        match memchr::memchr(b']', bytes) {
            Some(end) => &authority[..=end],
            None => authority,
        }
    } else {
        memchr::memrchr(b':', bytes).map_or(authority, |colon| &authority[..colon])
    }
}

/// The host of an `Origin` value (`http://localhost:3000` -> `localhost`).
fn origin_host(origin: &str) -> Option<&str> {
    let rest = origin.split_once("://")?.1;
    let authority = rest.split('/').next()?;
    Some(host_of(authority))
}

/// Why a request was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The `Host` header names another host (or is missing).
    Host,
    /// The `Origin` header names another host.
    Origin,
}

/// Check `Host` and `Origin` against the allowed host names.
pub fn check(headers: &HeaderMap, allowed_hosts: &[String]) -> Result<(), Refusal> {
    let allowed = |host: &str| allowed_hosts.iter().any(|a| a.eq_ignore_ascii_case(host));
    let host = headers.get(http::header::HOST).and_then(|h| h.to_str().ok()).map(host_of);
    if !host.is_some_and(allowed) {
        return Err(Refusal::Host);
    }
    if let Some(origin) = headers.get(http::header::ORIGIN) {
        let ok = origin.to_str().ok().and_then(origin_host).is_some_and(allowed);
        if !ok {
            return Err(Refusal::Origin);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(host: Option<&str>, origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(host) = host {
            h.insert(http::header::HOST, host.parse().unwrap_or_else(|_| panic!("{host}")));
        }
        if let Some(origin) = origin {
            h.insert(http::header::ORIGIN, origin.parse().unwrap_or_else(|_| panic!("{origin}")));
        }
        h
    }

    #[test]
    fn loopback_hosts_pass_and_others_are_refused() {
        let allowed: Vec<String> = LOOPBACK_HOSTS.iter().map(|s| (*s).to_owned()).collect();
        for host in ["localhost:3931", "127.0.0.1:80", "[::1]:8080", "LOCALHOST", "127.0.0.1"] {
            assert_eq!(check(&headers(Some(host), None), &allowed), Ok(()), "{host}");
        }
        assert_eq!(check(&headers(Some("evil.example.com"), None), &allowed), Err(Refusal::Host));
        assert_eq!(check(&headers(None, None), &allowed), Err(Refusal::Host));
        assert_eq!(
            check(&headers(Some("localhost:1"), Some("http://evil.example.com")), &allowed),
            Err(Refusal::Origin)
        );
        assert_eq!(check(&headers(Some("localhost:1"), Some("http://localhost:5173")), &allowed), Ok(()));
        assert_eq!(check(&headers(Some("localhost:1"), Some("null")), &allowed), Err(Refusal::Origin));
        // Host names compare ignoring ASCII case, on either side.
        assert_eq!(check(&headers(Some("LocalHost:1"), Some("http://LOCALHOST:5173")), &allowed), Ok(()));
        let mixed = vec!["Api.Example.COM".to_owned()];
        assert_eq!(check(&headers(Some("api.example.com:443"), Some("https://API.example.com")), &mixed), Ok(()));
        assert_eq!(check(&headers(Some("api.example.co"), None), &mixed), Err(Refusal::Host));
    }

    #[test]
    fn host_of_cuts_the_port_and_keeps_brackets() {
        let cases = [
            ("example.com:8080", "example.com"),
            ("example.com", "example.com"),
            (" example.com:1 ", "example.com"),
            ("[::1]:80", "[::1]"),
            ("[::1]", "[::1]"),
            ("[::1", "[::1"),
            ("a:b:c", "a:b"),
            (":80", ""),
            ("", ""),
        ];
        for (authority, host) in cases {
            assert_eq!(host_of(authority), host, "{authority}");
        }
        assert_eq!(origin_host("http://[::1]:3000/path"), Some("[::1]"));
        assert_eq!(origin_host("localhost:3000"), None);
    }
}
