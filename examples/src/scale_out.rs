//! What instances sharing a Redis read from the environment: where their tasks live
//! ([`task_config_from_env`]) and how their change notifications travel
//! ([`with_env_redis`]).
//!
//! - `MCP_REDIS_URL` ([`REDIS_URL_VAR`]), e.g. `redis://127.0.0.1:6379/0`: tasks are kept
//!   in Redis, so a task created through one instance can be polled, answered and
//!   cancelled through any other, and list changes travel on a Redis change bus to the
//!   listen streams of every instance.
//! - `MCP_TASK_OWNER_KEY` ([`TASK_OWNER_KEY_VAR`]): hex, at least 32 bytes. A task belongs to
//!   a digest of the principal that created it, keyed by this secret. Instances sharing a
//!   store must share the key when callers are authenticated, or each refuses the tasks the
//!   others created (unauthenticated tasks have no owner, so they need no key). Without it
//!   every process draws its own.
//! - `MCP_TASK_LEASE_MS` ([`TASK_LEASE_VAR`]): the lease of the instance running a task
//!   (whole milliseconds, at least 100; 10 s by default): if the instance dies, its tasks
//!   fail within a lease.
//!
//! Each server keeps to its own keys and channel, named after it (`mcp:{server}:task:` and
//! `mcp:{server}:changes`), so that different servers can share one Redis without
//! reading each other's tasks or list changes.
//!
//! A malformed value stops the program with a message, as [`with_env_keys`](crate::with_env_keys) does.

use std::time::Duration;

use mcp::bus::RedisChangeBus;
use mcp::sealing::RequestStateSecurity;
use mcp::server::ServerBuilder;
use mcp::tasks::{DEFAULT_REDIS_TIMEOUT, RedisTaskStore, TaskConfig, TaskConfigBuilder};

use crate::REDIS_URL_VAR;

/// The environment variable holding the task owner key: hex, at least 32 bytes. Every
/// instance sharing a task store needs the same one when callers are authenticated.
pub const TASK_OWNER_KEY_VAR: &str = "MCP_TASK_OWNER_KEY";

/// The environment variable holding the task lease, in milliseconds: how often the
/// instance running a task renews its claim, so that a dead instance's tasks fail in
/// bounded time.
pub const TASK_LEASE_VAR: &str = "MCP_TASK_LEASE_MS";

fn fail(var: &str, e: &dyn std::fmt::Display) -> ! {
    eprintln!("{var}: {e}");
    std::process::exit(2);
}

/// `defaults` with what the environment says: a [`RedisTaskStore`] when [`REDIS_URL_VAR`]
/// is set, the owner key from [`TASK_OWNER_KEY_VAR`] and the lease from
/// [`TASK_LEASE_VAR`] when set. The tasks of `server` live under `mcp:{server}:task:`. A
/// malformed value stops the program with a message.
pub fn task_config_from_env(server: &str, defaults: TaskConfigBuilder) -> TaskConfig {
    let mut builder = defaults;
    if let Some(url) = non_empty(REDIS_URL_VAR) {
        // The store connects on first use: an instance starts while Redis is down, and its
        // task requests fail with a clear error until Redis is back.
        let prefix = format!("mcp:{server}:task:");
        let store = RedisTaskStore::with_options(&url, prefix, DEFAULT_REDIS_TIMEOUT)
            .unwrap_or_else(|e| fail(REDIS_URL_VAR, &e));
        builder = builder.store(store);
    }
    // The same rules as the sealing keys (hex, at least 32 bytes), for one key.
    match RequestStateSecurity::keys_from_env(TASK_OWNER_KEY_VAR) {
        Ok(None) => {}
        Ok(Some(keys)) => match <[Vec<u8>; 1]>::try_from(keys) {
            Ok([key]) => builder = builder.owner_key(key),
            Err(_) => fail(TASK_OWNER_KEY_VAR, &"must be one key (hex, at least 32 bytes)"),
        },
        Err(e) => fail(TASK_OWNER_KEY_VAR, &e),
    }
    if let Some(ms) = non_empty(TASK_LEASE_VAR) {
        let lease = match ms.trim().parse::<u64>() {
            Ok(ms) if ms >= 100 => Duration::from_millis(ms),
            _ => fail(TASK_LEASE_VAR, &"must be a whole number of milliseconds, at least 100"),
        };
        builder = builder.lease(lease);
    }
    builder.build()
}

/// `builder` with what instances sharing a Redis need beyond tasks (with [`REDIS_URL_VAR`]
/// set): a [`RedisChangeBus`] on the channel `mcp:{server}:changes`, so that list changes
/// and task changes reach every instance of `server`. Call it inside the tokio runtime.
pub fn with_env_redis(server: &str, builder: ServerBuilder) -> ServerBuilder {
    match non_empty(REDIS_URL_VAR) {
        Some(url) => {
            let bus = RedisChangeBus::with_channel(&url, format!("mcp:{server}:changes"))
                .unwrap_or_else(|e| fail(REDIS_URL_VAR, &e));
            builder.change_bus(bus)
        }
        None => builder,
    }
}

/// The variable's value, if set and not blank.
fn non_empty(var: &str) -> Option<String> {
    std::env::var(var).ok().filter(|v| !v.trim().is_empty())
}
