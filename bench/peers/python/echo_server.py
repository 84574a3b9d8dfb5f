"""Benchmark peer: the echo server written with the official MCP Python SDK (mcp==2.3.0).

One tool, `echo {text}`, returns its text: the plain-call target `scripts/bench.sh` drives
with `loadgen`, like our `echo` example and `bench/peers/rmcp-echo`.

Usage (the interpreter is .tools/pyvenv/bin/python, where scripts/bench.sh installs the SDK):

    python bench/peers/python/echo_server.py stdio
    python bench/peers/python/echo_server.py http HOST:PORT    # http://HOST:PORT/mcp

The SDK's defaults are kept: over HTTP, SSE responses and stateful sessions for the
handshake era (2025-11-25); a request naming 2026-07-28 takes the per-request path.
"""

from __future__ import annotations

import sys

from serve import run
from mcp.server.mcpserver import MCPServer

# WARNING, not the SDK's INFO default: uvicorn would otherwise log every request (an access
# line per POST), and the Rust servers measured beside it log warnings only.
server = MCPServer("PyEcho", log_level="WARNING")


@server.tool()
def echo(text: str) -> str:
    """Echo the text back unchanged."""
    return text


if __name__ == "__main__":
    run(server, sys.argv[1:], "echo_server.py")
