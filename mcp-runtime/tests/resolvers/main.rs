//! Resolvers (`#[mcp::resolver]`, `Resolve<R>`, `Resolve<R, Refusable>`) end to end over the
//! in-memory pairing: the rules of the multi round-trip engine, as a client sees them.
//!
//! Under 2026-07-28 a call answers with an `InputRequiredResult` holding every question
//! that can be asked now; the client retries with `inputResponses` and the echoed
//! `requestState` until the call completes. In a 2025-11-25 session the same resolvers
//! ask with real `elicitation/create`, `sampling/createMessage` and `roots/list` requests.
//!
//! Checklist: the reference SDK's resolver tests (`tests/server/mcpserver/test_resolve.py`)
//! and its behaviour notes, sections 1.2–1.8.
//!
//! Layout: the forms shared by the fixtures here, the client side in [`harness`] (and the
//! helpers shared with the other test crates in `tests/support/`); then one module per
//! topic, each with its own fixture resolvers and tools, so tests that count resolver body
//! runs never share a counter with a test running in parallel. [`over_http`] repeats the
//! key rules on a real socket.
//!
//! Servers built with the defaults seal `requestState`; the modules that need to read or
//! forge the resolvers' plaintext state (`{"v":1,"outcomes":{..},"asked":{..}}`) build
//! their server with the test-only `plaintext_request_state_for_tests()`
//! (`without_request_state_security()` is a build error next to resolvers).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp::client::RawClient;
use mcp::client::in_process;
use mcp::protocol::{CreateMessageResult, Error, JsonRpcMessage, SamplingContent};
use mcp::resolve::{Answer, Elicit, ListRoots, Refusable, Resolver, Sample};
use mcp::{Resolve, Server};
use mcp_testkit::spec::{MODERN, assert_valid};
use serde_json::{Value, json};

#[path = "../support/mod.rs"]
mod support;

use support::rounds::*;
use support::{meta, within};

mod harness;

use harness::*;

mod adversarial_state;
mod bad_answers;
mod batching;
mod capabilities;
mod chains;
mod failures;
mod legacy;
mod over_http;
mod pinning;
mod refusals;
mod sealing;
mod wire_keys;

// ---------------------------------------------------------------------------------------
// Forms shared by the fixtures
// ---------------------------------------------------------------------------------------

/// Where something lives.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Region {
    /// Cloud region, e.g. eu-west-1.
    region: String,
}

/// How big something is.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Size {
    /// Storage in GB.
    size_gb: u32,
}

/// A yes or no.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// A free-text answer.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Step {
    /// The answer.
    value: String,
}

/// A service tier (a single choice).
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
#[serde(rename_all = "lowercase")]
enum Tier {
    Small,
    Large,
}

/// An order: a bounded integer and a choice.
#[derive(Debug, serde::Deserialize, mcp::ElicitForm)]
struct Order {
    /// How many (0 to 255).
    count: u8,
    /// Which tier.
    tier: Tier,
}
