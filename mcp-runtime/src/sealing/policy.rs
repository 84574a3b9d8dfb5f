//! `RequestStateSecurity`: how `requestState` is sealed, bound and checked.

use std::sync::Arc;
use std::time::Duration;

use super::codec::{AesGcmCodec, RequestStateCodec};
use super::consumed::ConsumedTokens;
use crate::handler::RequestContext;

/// An invalid sealing configuration, reported when it is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl ConfigError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        ConfigError(message.into())
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid request-state security: {}", self.0)
    }
}

impl std::error::Error for ConfigError {}

/// The time, injectable for tests.
pub trait Clock: Send + Sync + 'static {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
    }
}

/// A function naming the principal of a request.
pub type PrincipalFn = Arc<dyn Fn(&RequestContext) -> Option<String> + Send + Sync>;

/// Which principal state is bound to.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum PrincipalBinding {
    /// The transport's authenticated caller (client id, issuer, subject); none when unauthenticated.
    #[default]
    Authenticated,
    /// No principal binding.
    Disabled,
    /// Your own identity signal.
    Custom(PrincipalFn),
}

impl std::fmt::Debug for PrincipalBinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PrincipalBinding::Authenticated => "Authenticated",
            PrincipalBinding::Disabled => "Disabled",
            PrincipalBinding::Custom(_) => "Custom",
        })
    }
}

/// How `requestState` is sealed and verified.
///
/// ```
/// use mcp::sealing::RequestStateSecurity;
/// let security = RequestStateSecurity::builder()
///     .keys(["0123456789abcdef0123456789abcdef-new", "0123456789abcdef0123456789abcdef-old"])
///     .ttl(std::time::Duration::from_secs(300))
///     .build()
///     .unwrap();
/// # let _ = security;
/// ```
#[derive(Clone)]
pub struct RequestStateSecurity {
    pub(crate) codec: Arc<dyn RequestStateCodec>,
    pub(crate) ttl_ms: u64,
    pub(crate) principal: PrincipalBinding,
    pub(crate) audience: Option<String>,
    pub(crate) explicit: bool,
    pub(crate) single_use: Option<Arc<dyn ConsumedTokens>>,
    pub(crate) clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for RequestStateSecurity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestStateSecurity")
            .field("ttl_ms", &self.ttl_ms)
            .field("principal", &self.principal)
            .field("audience", &self.audience)
            .field("single_use", &self.single_use.is_some())
            .finish_non_exhaustive()
    }
}

/// The default time a sealed round stays valid.
pub const DEFAULT_TTL: Duration = Duration::from_secs(600);

impl RequestStateSecurity {
    /// Start a configuration.
    pub fn builder() -> RequestStateSecurityBuilder {
        RequestStateSecurityBuilder::default()
    }

    /// A fresh random key that lives and dies with this process (the default of servers
    /// with macro items). Fine for stdio or one HTTP process; several instances need shared keys.
    pub fn ephemeral() -> Result<Self, ConfigError> {
        let mut security = RequestStateSecurity::builder().codec(AesGcmCodec::ephemeral()?).build()?;
        security.explicit = false;
        Ok(security)
    }

    /// Keys from an environment variable: hex secrets separated by commas, the first minting.
    /// `Ok(None)` when the variable is unset.
    pub fn from_env(var: &str) -> Result<Option<Self>, ConfigError> {
        match RequestStateSecurity::keys_from_env(var)? {
            Some(keys) => RequestStateSecurity::builder().keys(keys).build().map(Some),
            None => Ok(None),
        }
    }

    /// The keys of [`from_env`](Self::from_env) alone, to combine with other settings.
    pub fn keys_from_env(var: &str) -> Result<Option<Vec<Vec<u8>>>, ConfigError> {
        let Ok(value) = std::env::var(var) else { return Ok(None) };
        value
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(|k| {
                decode_hex(k).ok_or_else(|| ConfigError::new(format!("{var} must hold hex keys separated by commas")))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }
}

fn decode_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

/// Builds a [`RequestStateSecurity`]; exactly one of `keys` or `codec` is required.
#[derive(Default)]
#[must_use]
pub struct RequestStateSecurityBuilder {
    keys: Option<Vec<Vec<u8>>>,
    codec: Option<Arc<dyn RequestStateCodec>>,
    ttl: Option<Duration>,
    principal: PrincipalBinding,
    audience: Option<String>,
    single_use: Option<Arc<dyn ConsumedTokens>>,
    clock: Option<Arc<dyn Clock>>,
}

impl RequestStateSecurityBuilder {
    /// The key ring: each secret at least 32 bytes; the first mints, all verify.
    pub fn keys<K: AsRef<[u8]>>(mut self, keys: impl IntoIterator<Item = K>) -> Self {
        self.keys = Some(keys.into_iter().map(|k| k.as_ref().to_vec()).collect());
        self
    }

    /// Your own codec instead of keys.
    pub fn codec(mut self, codec: impl RequestStateCodec) -> Self {
        self.codec = Some(Arc::new(codec));
        self
    }

    /// How long each round's state stays valid (default 600 s; every round reseals).
    ///
    /// It is checked when a token comes back, not only when it is minted: a token is
    /// accepted while both its minted expiry and its issue time plus the ttl in force now
    /// are ahead. Lowering the ttl (redeploying with the same keys) therefore shortens
    /// tokens already issued at once; raising it does not lengthen them. A token past
    /// either limit gets the fixed `Invalid or expired requestState` error (JSON-RPC
    /// `-32602`), and the server logs a WARN with the reason `expired`.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// The audience claim (default: the server's name).
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// Which principal to bind to (default: the authenticated caller).
    pub fn bind_principal(mut self, binding: PrincipalBinding) -> Self {
        self.principal = binding;
        self
    }

    /// Accept each token once only, remembering used ones in `store` until they expire
    /// (for [`InMemoryConsumedTokens`](super::InMemoryConsumedTokens): bounded, refusing
    /// new tokens when full).
    pub fn single_use(mut self, store: impl ConsumedTokens) -> Self {
        self.single_use = Some(Arc::new(store));
        self
    }

    /// The clock (tests inject one).
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Some(Arc::new(clock));
        self
    }

    /// Check and finish.
    pub fn build(self) -> Result<RequestStateSecurity, ConfigError> {
        let codec: Arc<dyn RequestStateCodec> = match (self.keys, self.codec) {
            (Some(_), Some(_)) => return Err(ConfigError::new("give either keys or a codec, not both")),
            (None, None) => {
                return Err(ConfigError::new("give keys (at least one secret of 32 bytes or more) or a codec"));
            }
            (Some(keys), None) => Arc::new(AesGcmCodec::new(&keys)?),
            (None, Some(codec)) => codec,
        };
        let ttl = self.ttl.unwrap_or(DEFAULT_TTL);
        // Tokens carry millisecond times: a ttl under 1 ms would be 0 ms, and every token
        // would be expired the instant it was minted.
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        if ttl_ms == 0 {
            return Err(ConfigError::new("the ttl must be positive, at least 1 ms (the default is 600 s)"));
        }
        Ok(RequestStateSecurity {
            codec,
            ttl_ms,
            principal: self.principal,
            audience: self.audience,
            explicit: true,
            single_use: self.single_use,
            clock: self.clock.unwrap_or_else(|| Arc::new(SystemClock)),
        })
    }
}
