//! What can go wrong in a client call.

use std::sync::Arc;

use crate::protocol::Error;

/// A failed client call. The variant is the kind of failure; [`std::error::Error::source`]
/// gives the underlying error where there is one (the I/O or hyper error of a transport
/// failure, the JSON-RPC error of a server or callback failure).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    Rpc(Error),
    /// The connection failed or closed (I/O, hyper, an invalid URL or header value).
    Transport(TransportError),
    /// The server answered with an HTTP error status and no JSON-RPC error in the body.
    Http {
        /// The status code.
        status: u16,
        /// The start of the body, for diagnosis.
        body: String,
    },
    /// The server's answer breaks the protocol (unknown `resultType`, malformed result, ...).
    Protocol(String),
    /// The call still needed input after this many rounds (`input_required_max_rounds`).
    RoundsExceeded {
        /// The configured limit.
        max_rounds: usize,
    },
    /// A callback answering the server's question failed; the call was abandoned.
    Callback {
        /// The question's key (2026-07-28) or the server's request method (2025-11-25).
        key: String,
        /// What the callback returned.
        error: Error,
    },
    /// The call did not finish within its timeout (it was cancelled).
    Timeout,
    /// The task the server ran the call as was cancelled before it finished (tasks
    /// extension).
    TaskCancelled,
    /// No protocol version both sides support.
    Unsupported(String),
    /// Authorizing with the server's authorization server failed (the `oauth` feature).
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    OAuth(super::oauth::OAuthError),
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Rpc(e) => write!(f, "server error {}: {}", e.code, e.message),
            ClientError::Transport(why) => write!(f, "transport error: {why}"),
            ClientError::Http { status, body } => write!(f, "HTTP {status}: {body}"),
            ClientError::Protocol(why) => write!(f, "protocol error: {why}"),
            ClientError::RoundsExceeded { max_rounds } => {
                write!(f, "the server still required input after {max_rounds} rounds")
            }
            ClientError::Callback { key, error } => {
                write!(f, "the callback for '{key}' failed: {} ({})", error.message, error.code)
            }
            ClientError::Timeout => write!(f, "the call timed out"),
            ClientError::TaskCancelled => write!(f, "the task running the call was cancelled"),
            ClientError::Unsupported(why) => write!(f, "no common protocol version: {why}"),
            #[cfg(feature = "oauth")]
            ClientError::OAuth(e) => write!(f, "authorization failed: {e}"),
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClientError::Rpc(e) | ClientError::Callback { error: e, .. } => Some(e),
            ClientError::Transport(e) => Some(e),
            #[cfg(feature = "oauth")]
            ClientError::OAuth(e) => Some(e),
            _ => None,
        }
    }
}

/// Why a connection failed: a [kind](TransportErrorKind) to match on, a message, and
/// the I/O or hyper error behind it, if any.
///
/// A server certificate the client refused is
/// [`TransportErrorKind::Certificate`], with the reason:
///
/// ```
/// use mcp::client::{CertificateProblem, ClientError, TransportErrorKind};
///
/// fn explain(error: &ClientError) -> &'static str {
///     match error {
///         ClientError::Transport(t) => match t.kind() {
///             TransportErrorKind::Certificate(CertificateProblem::UnknownIssuer) => {
///                 "the server's CA is not trusted: set SSL_CERT_FILE to its certificate"
///             }
///             TransportErrorKind::Certificate(_) => "the server's certificate was refused",
///             _ => "the connection failed",
///         },
///         _ => "the server answered",
///     }
/// }
/// # let _ = explain;
/// ```
#[derive(Debug, Clone)]
pub struct TransportError {
    kind: TransportErrorKind,
    message: String,
    source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
    /// Whether `message` already says what `source` does (it is then not repeated).
    source_in_message: bool,
}

/// What kind of transport failure a [`TransportError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportErrorKind {
    /// The URL's scheme is not one this build speaks: `https://` without the `tls`
    /// feature, or neither `http://` nor `https://`.
    UnsupportedScheme,
    /// The server's TLS certificate was refused, for this reason.
    Certificate(CertificateProblem),
    /// The TLS handshake failed for another reason (no protocol version or cipher suite
    /// in common, an alert from the server, no trusted roots to check against, ...).
    Tls,
    /// Anything else: I/O, HTTP, an invalid URL or header value.
    Other,
}

/// Why the server's certificate was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CertificateProblem {
    /// It does not chain to a trusted root (a private CA that is not trusted, or a
    /// self-signed certificate).
    UnknownIssuer,
    /// It is no longer valid (`notAfter` has passed).
    Expired,
    /// It is not valid yet (`notBefore` is in the future).
    NotValidYet,
    /// It is for other host names than the URL's.
    NameMismatch,
    /// Its issuer revoked it.
    Revoked,
    /// Another reason (a bad signature, an unsupported algorithm or extension, ...).
    Other,
}

impl std::fmt::Display for CertificateProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CertificateProblem::UnknownIssuer => "it is signed by an unknown issuer (its CA is not trusted)",
            CertificateProblem::Expired => "it has expired",
            CertificateProblem::NotValidYet => "it is not valid yet",
            CertificateProblem::NameMismatch => "it is not valid for this host name",
            CertificateProblem::Revoked => "it has been revoked",
            CertificateProblem::Other => "it is invalid",
        })
    }
}

impl TransportError {
    /// A transport failure described by `message` alone.
    pub fn new(message: impl Into<String>) -> Self {
        TransportError {
            kind: TransportErrorKind::Other,
            message: message.into(),
            source: None,
            source_in_message: false,
        }
    }

    /// A transport failure caused by `source`.
    pub fn with_source(
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    ) -> Self {
        let source: Arc<dyn std::error::Error + Send + Sync + 'static> = Arc::from(source.into());
        let mut error = TransportError {
            kind: TransportErrorKind::Other,
            message: message.into(),
            source: None,
            source_in_message: false,
        };
        // A TLS failure deep in hyper's error says what went wrong better than hyper's
        // own message ("client error (Connect)"): lift its kind and text.
        #[cfg(feature = "tls")]
        if let Some(tls) = super::connector::find_tls_failure(source.as_ref()) {
            error.kind = tls.kind();
            error.message = format!("{}: {tls}", error.message);
            error.source_in_message = true;
        }
        error.source = Some(source);
        error
    }

    /// A transport failure of `kind`, described by `message`.
    #[cfg(feature = "http")]
    pub(crate) fn of_kind(kind: TransportErrorKind, message: impl Into<String>) -> Self {
        TransportError { kind, ..TransportError::new(message) }
    }

    /// What failed.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The kind of failure.
    pub fn kind(&self) -> TransportErrorKind {
        self.kind
    }

    /// Whether the server's certificate was refused ([`TransportErrorKind::Certificate`]).
    pub fn is_certificate(&self) -> bool {
        matches!(self.kind, TransportErrorKind::Certificate(_))
    }
}

impl PartialEq for TransportError {
    /// Equal when the kinds and messages are (sources are compared by their text).
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.message == other.message
            && self.source.as_ref().map(ToString::to_string) == other.source.as_ref().map(ToString::to_string)
    }
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.source {
            Some(source) if !self.source_in_message => write!(f, "{}: {source}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl ClientError {
    /// A transport failure described by `message`.
    pub(crate) fn transport(message: impl Into<String>) -> Self {
        ClientError::Transport(TransportError::new(message))
    }

    /// A transport failure of `kind`, described by `message`.
    #[cfg(feature = "http")]
    pub(crate) fn transport_kind(kind: TransportErrorKind, message: impl Into<String>) -> Self {
        ClientError::Transport(TransportError::of_kind(kind, message))
    }

    /// A transport failure caused by `source`.
    pub(crate) fn transport_source(
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    ) -> Self {
        ClientError::Transport(TransportError::with_source(message, source))
    }
}

impl From<Error> for ClientError {
    fn from(e: Error) -> Self {
        ClientError::Rpc(e)
    }
}

impl ClientError {
    /// The JSON-RPC error code, when the server sent one.
    pub fn code(&self) -> Option<i32> {
        match self {
            ClientError::Rpc(e) => Some(e.code),
            _ => None,
        }
    }
}
