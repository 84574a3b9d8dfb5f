//! An in-memory pairing: a server and a client in one process, speaking the same
//! newline-delimited JSON as stdio over an in-memory pipe. Needs the `server` feature.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use mcp::Server;
//! use serde_json::json;
//!
//! let server = Server::builder("demo", "1.0.0").build();
//! let client = mcp::client::in_process(&server);
//! let discover = client
//!     .request("server/discover", json!({"_meta": {
//!         "io.modelcontextprotocol/protocolVersion": "2026-07-28",
//!         "io.modelcontextprotocol/clientCapabilities": {}
//!     }}))
//!     .await
//!     .unwrap();
//! assert_eq!(discover["supportedVersions"], json!(["2026-07-28"]));
//! # }
//! ```

use crate::Server;
use crate::client::RawClient;

/// Size of the in-memory pipe's buffer in each direction.
const PIPE_BUFFER: usize = 256 * 1024;

/// Serve `server` on one end of an in-memory pipe and return a client on the other.
///
/// The server task ends when the client is dropped.
pub fn in_process(server: &Server) -> RawClient {
    let (client_end, server_end) = tokio::io::duplex(PIPE_BUFFER);
    let (server_read, server_write) = tokio::io::split(server_end);
    let server = server.clone();
    tokio::spawn(async move {
        if let Err(e) = crate::serve::connection(server, server_read, server_write).await {
            tracing::debug!(error = %e, "in-memory connection ended");
        }
    });
    let (client_read, client_write) = tokio::io::split(client_end);
    RawClient::new(client_read, client_write)
}
