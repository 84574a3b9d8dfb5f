//! jsonwebtoken's crypto backend, which both sides of OAuth use: the server's verifiers
//! check access tokens with it, the client signs assertions and DPoP proofs.

/// Makes RustCrypto jsonwebtoken's process default unless a provider is installed
/// already: with both of its backend features enabled somewhere in the build,
/// jsonwebtoken would otherwise refuse to pick one.
pub(crate) fn install_crypto_provider() {
    if jsonwebtoken::crypto::CryptoProvider::try_get_default().is_none() {
        // Err: another thread installed one in between, which is as good.
        let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
    }
}
