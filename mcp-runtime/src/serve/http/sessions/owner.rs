//! Who opened a session, to refuse its id to anyone else.

use ring::digest::{SHA256, digest};

use crate::handler::AuthInfo;

/// The principal that opened a session, as a SHA-256 digest of
/// [`AuthInfo::principal`] (`None` without auth). Only the digest is kept, and it is
/// never logged.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Owner(Option<[u8; 32]>);

impl Owner {
    pub(crate) fn of(auth: Option<&AuthInfo>) -> Self {
        Owner(auth.map(|auth| {
            let mut out = [0u8; 32];
            out.copy_from_slice(digest(&SHA256, auth.principal().as_bytes()).as_ref());
            out
        }))
    }
}

impl std::fmt::Debug for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Owner(..)")
    }
}
