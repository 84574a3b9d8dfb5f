//! stdio: the client spawns the server and talks newline-delimited JSON on its
//! stdin and stdout. The server exits when stdin closes.

use crate::Server;

impl Server {
    /// Serve this process's stdin and stdout until stdin closes.
    ///
    /// Logs must go to stderr: stdout carries only MCP messages.
    pub async fn serve_stdio(&self) -> std::io::Result<()> {
        self.serve_connection(tokio::io::stdin(), tokio::io::stdout()).await
    }
}
