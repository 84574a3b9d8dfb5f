//! No accidental public servers: a listener on a non-loopback address needs allowed host
//! names, a token verifier, or an explicit opt-in.

use std::net::SocketAddr;

use super::HttpConfig;

/// `Err` (`InvalidInput`, naming the ways out) when serving `config` on `addr` would open
/// an unauthenticated endpoint to the network without the `Host`/`Origin` check for names
/// the operator chose.
pub(super) fn check(addr: SocketAddr, config: &HttpConfig) -> std::io::Result<()> {
    let loopback = addr.ip().to_canonical().is_loopback();
    if loopback || config.allowed_hosts_set || config.token_verifier.is_some() || config.public_unauthenticated {
        return Ok(());
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "refusing to serve on {addr}: a non-loopback address with neither allowed hosts nor a token verifier \
             is open to anyone on the network, and to web pages through DNS rebinding. List the host names clients \
             use with HttpConfig::allowed_hosts([...]), require bearer tokens with HttpConfig::token_verifier(..), \
             or, for a server public and unauthenticated on purpose, say so with \
             HttpConfig::allow_public_unauthenticated()"
        ),
    ))
}
