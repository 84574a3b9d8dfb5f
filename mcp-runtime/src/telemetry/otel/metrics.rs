//! The conventions' operation duration histograms (seconds, with their advisory
//! buckets), recorded once a meter is installed.

use std::sync::OnceLock;
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, Meter};

#[cfg(feature = "server")]
use crate::telemetry::server::Transport;

/// The conventions' advisory bucket boundaries, in seconds.
const BUCKETS: [f64; 14] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

struct Instruments {
    server: Histogram<f64>,
    client: Histogram<f64>,
    server_session: Histogram<f64>,
    client_session: Histogram<f64>,
}

static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();

/// Record the durations with `meter` from now on (the first meter installed stays).
pub(crate) fn install(meter: &Meter) {
    let histogram = |name: &'static str, description: &'static str| {
        meter.f64_histogram(name).with_unit("s").with_description(description).with_boundaries(BUCKETS.to_vec()).build()
    };
    let _ = INSTRUMENTS.get_or_init(|| Instruments {
        server: histogram("mcp.server.operation.duration", "The duration of an MCP request or notification as served"),
        client: histogram("mcp.client.operation.duration", "The duration of an MCP request or notification as sent"),
        server_session: histogram("mcp.server.session.duration", "The duration of an MCP session as served"),
        client_session: histogram("mcp.client.session.duration", "The duration of an MCP session as the client saw it"),
    });
}

/// Whether durations are recorded.
pub(crate) fn enabled() -> bool {
    INSTRUMENTS.get().is_some()
}

/// One operation's attributes, recorded with its duration when it ends.
pub(crate) struct Operation {
    client: bool,
    attributes: Vec<KeyValue>,
}

impl Operation {
    fn new(client: bool, method: &str, target: Option<&str>) -> Self {
        let mut attributes = vec![KeyValue::new("mcp.method.name", method.to_owned())];
        if let Some(target) = target {
            if method == crate::protocol::methods::TOOLS_CALL {
                attributes.push(KeyValue::new("gen_ai.tool.name", target.to_owned()));
                attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            } else {
                attributes.push(KeyValue::new("gen_ai.prompt.name", target.to_owned()));
            }
        }
        Operation { client, attributes }
    }

    /// An operation the server serves.
    #[cfg(feature = "server")]
    pub(crate) fn server(method: &str, target: Option<&str>, version: Option<String>, transport: Transport) -> Self {
        let mut operation = Operation::new(false, method, target);
        if let Some(version) = version {
            operation.attributes.push(KeyValue::new("mcp.protocol.version", version));
        }
        operation.transport(match transport {
            Transport::Http => "tcp",
            Transport::Pipe => "pipe",
        });
        operation
    }

    /// An operation the client sends.
    #[cfg(feature = "client")]
    pub(crate) fn client(method: &str, target: Option<&str>, version: Option<&str>, transport: &'static str) -> Self {
        let mut operation = Operation::new(true, method, target);
        if let Some(version) = version {
            operation.attributes.push(KeyValue::new("mcp.protocol.version", version.to_owned()));
        }
        operation.transport(transport);
        operation
    }

    fn transport(&mut self, transport: &'static str) {
        self.attributes.push(KeyValue::new("network.transport", transport));
        if transport == "tcp" {
            self.attributes.push(KeyValue::new("network.protocol.name", "http"));
        }
    }

    /// Record the operation: it took `elapsed`, failed with `error_type` (if it did), and
    /// its answer carried `status_code` (if it was an error response).
    pub(crate) fn record(mut self, elapsed: Duration, error_type: Option<&str>, status_code: Option<i32>) {
        let Some(instruments) = INSTRUMENTS.get() else { return };
        if status_code == Some(-32602) {
            // Perhaps an unknown tool or prompt: its name would be a series of its own for
            // every name a client makes up.
            self.attributes.retain(|kv| !kv.key.as_str().starts_with("gen_ai."));
        }
        if let Some(error_type) = error_type {
            self.attributes.push(KeyValue::new("error.type", error_type.to_owned()));
        }
        if let Some(code) = status_code {
            self.attributes.push(KeyValue::new("rpc.response.status_code", code.to_string()));
        }
        let histogram = if self.client { &instruments.client } else { &instruments.server };
        histogram.record(elapsed.as_secs_f64(), &self.attributes);
    }
}

/// Record a session's lifetime: the client's view or the server's, over `transport`
/// (`pipe` or `tcp`), under `version` when known.
pub(crate) fn record_session(client: bool, elapsed: Duration, transport: &'static str, version: Option<&str>) {
    let Some(instruments) = INSTRUMENTS.get() else { return };
    let mut attributes = vec![KeyValue::new("network.transport", transport)];
    if transport == "tcp" {
        attributes.push(KeyValue::new("network.protocol.name", "http"));
    }
    if let Some(version) = version {
        attributes.push(KeyValue::new("mcp.protocol.version", version.to_owned()));
    }
    let histogram = if client { &instruments.client_session } else { &instruments.server_session };
    histogram.record(elapsed.as_secs_f64(), &attributes);
}
