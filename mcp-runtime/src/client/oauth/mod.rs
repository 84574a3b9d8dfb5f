//! OAuth 2.1 for the client (issue 18): the building blocks of the extension flows
//! (DPoP proofs, `private_key_jwt` client assertions, and the client credentials,
//! jwt-bearer and token exchange request bodies).

mod assertion;
mod dpop;
mod grants;
