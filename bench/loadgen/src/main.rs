//! `loadgen`: a load generator for any MCP server, over stdio or Streamable HTTP, in either
//! protocol era, with plain tool calls or multi-round (MRTR) calls that answer an
//! elicitation. It prints one JSON line of results on stdout.
//!
//! It speaks the wire protocol itself (its own newline framing over the pipe, a bare hyper
//! HTTP/1.1 connection per in-flight slot, requests written from precomputed text, responses
//! read into small `serde` structs that skip what they do not check) and uses none of this
//! framework's server or client machinery (only its protocol constants and the shared
//! `mcp::wire::sse` parser), so an rmcp, Python SDK or `mcp` server is driven the same way.
//! It runs on a single-threaded runtime by default to keep its own footprint small on the
//! machine it shares with the server; its own CPU per call (utime+stime of the window) is
//! logged on stderr. `loadgen --help` lists the options.
//!
//! # Usage
//!
//! ```text
//! loadgen --transport stdio --command "<cmd and args>"            [options]
//! loadgen --transport http  --url http://127.0.0.1:PORT/mcp [--pid PID] [options]
//! ```
//!
//! - `--transport stdio --command CMD`: spawn `CMD` (run as `sh -c "exec CMD"`, so the
//!   measured process is the server itself, not a shell; avoid wrappers that fork) and talk
//!   to it over its stdin/stdout. All in-flight requests are pipelined on that one pipe and
//!   matched to their responses by id. The child's stderr is inherited. At the end its stdin
//!   is closed, and it is killed if it has not exited within 2 s.
//! - `--transport http --url URL [--pid PID]`: POST to `URL` (plain `http://`), one
//!   keep-alive connection (TCP_NODELAY) per in-flight slot. Server CPU and RSS are read
//!   from `/proc/PID` when `--pid` is given (else they are `null`).
//! - `--era modern|legacy` (default `modern`):
//!   - `modern` (2026-07-28): no handshake; every request carries `_meta` with
//!     `io.modelcontextprotocol/protocolVersion`, `clientCapabilities` and `clientInfo`;
//!     over HTTP every POST also has `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`.
//!   - `legacy` (2025-11-25): `initialize` and `notifications/initialized` first. Over
//!     HTTP one session (`Mcp-Session-Id`) is shared by every connection, and each POST
//!     carries `Mcp-Session-Id` and the negotiated `MCP-Protocol-Version`; the session is
//!     deleted at the end.
//! - `--mode plain|mrtr|task` (default `plain`):
//!   - `plain`: `tools/call` of `--tool` (default `echo`) with `--args` (default
//!     `{"text":"hello"}`); a call is one request.
//!   - `mrtr`: `tools/call` of `--tool` (default `provision`) with `--args` (default
//!     `{"name":"orders"}`). Modern era: the first answer must be an `input_required` result
//!     with exactly one `elicitation/create` input request; the call is re-sent with a new
//!     id, `inputResponses` `{KEY: {"action":"accept","content":ANSWER}}` under the same key
//!     and the `requestState` echoed unchanged, and that answer must be complete. Legacy
//!     era: the server sends `elicitation/create` requests (over HTTP on the call's SSE
//!     stream; answered with a POST on a second connection of that slot) and loadgen
//!     accepts them with `ANSWER`; a run where fewer were asked than calls succeeded is
//!     not an MRTR run and ends with exit code 1. Either way one call = the whole exchange,
//!     and server requests other than `elicitation/create` (`ping`, `roots/list` answered;
//!     anything else gets -32601) make no difference. `--answer`
//!     sets `ANSWER` (default `{"region":"eu-west-1"}`). The capabilities sent declare
//!     form elicitation only in this mode.
//!   - `task` (modern era only): `tools/call` of `--tool` (default `echo`) with `--args`
//!     (default `{"text":"hello"}`), declaring the tasks extension
//!     (`io.modelcontextprotocol/tasks`) in its capabilities; the answer must be a task
//!     (`resultType: "task"`), which is then fetched with `tasks/get` (over HTTP with
//!     `Mcp-Method: tasks/get` and `Mcp-Name: TASK_ID`), again at once while it is
//!     `working`, until it is `completed` with a successful tool result (`--expect`
//!     applies to it). One call = the whole exchange; the `tasks/get` requests per task
//!     are logged on stderr.
//! - `--bearer-file PATH` (http): send `Authorization: Bearer TOKEN` on every request,
//!   the token read from `PATH` (one line). It is never printed.
//! - `--concurrency C` (default 1): calls in flight.
//! - `--warmup SECS` (default 1) then `--duration SECS` (default 10): only calls that
//!   complete inside the measured window count; CPU is sampled at its start and end.
//! - `--label NAME` (default: the command's program name, or the URL).
//! - `--expect TEXT`: a successful call's final result must have a text content block
//!   containing `TEXT` (for example the answered region), else it is an error.
//! - `--threads N` (default 1): loadgen's own runtime threads.
//!
//! Any non-success is an error: a JSON-RPC error, a non-2xx HTTP status, a result with
//! `isError: true`, an unexpected `resultType` or input request, a failed `--expect`. The
//! first error's text goes to stderr. A server that goes away (pipe closed, connection
//! refused) ends the run with exit code 1 and no JSON line.
//!
//! # Output
//!
//! One JSON line: `{"label","transport","era","mode","concurrency","calls","errors",
//! "seconds","calls_per_sec","p50_us","p99_us","server_cpu_us_per_call",
//! "server_peak_rss_kb","all_calls","all_errors"}`. `calls` are the successful calls
//! completed in the window, `calls_per_sec` is `calls / seconds`, the percentiles are over
//! their latencies (first request sent to final response received; on an SSE stream, when
//! the response event arrives: the stream is then read to its end before the connection
//! carries the next request, and a stream still open 1 s later costs the connection),
//! `server_cpu_us_per_call` is the server's utime+stime (`/proc/PID/stat`, all threads;
//! clock ticks converted with the kernel's `AT_CLKTCK`, so the resolution is one tick,
//! usually 10 ms, per sample) over the window divided by the calls and errors completed in
//! it, and `server_peak_rss_kb` is `VmHWM` from `/proc/PID/status` at the end of the window.
//! `all_calls` and `all_errors` count every call that finished, warm-up and drain included
//! (a soak wants every error, not only the window's).

mod args;
mod call;
mod http;
mod procfs;
mod reply;
mod run;
mod state;
mod stdio;

use clap::{CommandFactory, Parser};

fn main() -> std::process::ExitCode {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        .try_init();

    let config = match args::Config::try_from(args::Args::parse()) {
        Ok(config) => config,
        Err(message) => args::Args::command().error(clap::error::ErrorKind::ArgumentConflict, message).exit(),
    };
    let threads = config.threads;
    let runtime = if threads == 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(threads).enable_all().build()
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!("cannot start the runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run::run(config)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            tracing::error!("{message}");
            std::process::ExitCode::FAILURE
        }
    }
}
