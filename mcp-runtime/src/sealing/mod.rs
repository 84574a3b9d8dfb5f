//! Layer 4, request-state sealing ([`SealingLayer`]): `requestState` travels through the client, so it is
//! attacker-controlled input. The server encrypts and authenticates it (AES-256-GCM),
//! binds it to the request (method, target, arguments), the audience, the principal and
//! a time window, and rejects anything else with one fixed error. Handlers only ever
//! see plaintext.
//!
//! Every server seals by default with a per-process key, macro and low-level alike.
//! Give it a policy for shared keys (several instances), a ttl or single use:
//!
//! ```
//! use mcp::sealing::RequestStateSecurity;
//! let security = RequestStateSecurity::builder().keys([[7u8; 32]]).build().unwrap();
//! let server = mcp::Server::builder("svc", "1.0.0").request_state_security(security).build();
//! # let _ = server;
//! ```
//!
//! Several instances (workers, a load balancer) must share keys. Rotate without losing
//! rounds in three steps, each fully deployed before the next: `[OLD, NEW]` (everyone
//! learns NEW), then `[NEW, OLD]` (NEW mints, OLD still verifies), then `[NEW]` one ttl later.

mod boundary;
mod codec;
mod consumed;
mod envelope;
mod policy;
#[cfg(feature = "redis")]
mod redis;

#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use self::redis::{DEFAULT_CONSUMED_PREFIX, RedisConsumedTokens};
pub use boundary::{Sealed, SealingLayer, invalid_request_state, single_use_store_unavailable};
pub use codec::{AesGcmCodec, InvalidRequestState, MIN_KEY_BYTES, RequestStateCodec, SealError};
pub use consumed::{ConsumedTokens, ConsumedTokensError, ConsumedTokensErrorKind, InMemoryConsumedTokens};
#[cfg(feature = "test-util")]
#[doc(hidden)]
pub use envelope::{Binding, Envelope, FUTURE_SKEW_MS, Rejection, args_digest};
pub use policy::{
    Clock, ConfigError, DEFAULT_TTL, PrincipalBinding, PrincipalFn, RequestStateSecurity, RequestStateSecurityBuilder,
    SystemClock,
};

/// Equality of two byte strings in time independent of where they differ.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}
