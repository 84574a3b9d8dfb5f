"""Benchmark peer: the provision server written with the official MCP Python SDK (mcp==2.3.0).

One tool, `provision {name}`, that needs the user: an `Elicit` dependency asks "Which region
should NAME live in?" (`{region}`) and the tool answers "Provisioned 'NAME' in REGION.". The
multi-round (MRTR) target `scripts/bench.sh` drives with `loadgen --mode mrtr`, like our
`provision` (`bench/ours`, the `provisioner` example's tool) and `bench/peers/rmcp-echo`.

Through the SDK's `Resolve` the same tool serves both eras:

* 2026-07-28: the question comes back as an `InputRequiredResult` with a sealed
  `requestState` (the SDK's default sealing: a per-process AES-GCM key, 600 s ttl), and the
  client retries with `inputResponses`;
* 2025-11-25: the question is an `elicitation/create` request to the client during the call.

Usage (the interpreter is .tools/pyvenv/bin/python, where scripts/bench.sh installs the SDK):

    python bench/peers/python/provision_server.py stdio
    python bench/peers/python/provision_server.py http HOST:PORT    # http://HOST:PORT/mcp
"""

from __future__ import annotations

import sys
from typing import Annotated

from serve import run
from mcp.server.mcpserver import Elicit, MCPServer, Resolve
from pydantic import BaseModel

# WARNING, not the SDK's INFO default: uvicorn would otherwise log every request (an access
# line per POST), and the Rust servers measured beside it log warnings only.
server = MCPServer("PyProvision", log_level="WARNING")


class Region(BaseModel):
    region: str


def ask_region(name: str) -> Elicit[Region]:
    return Elicit(f"Which region should {name} live in?", Region)


@server.tool()
def provision(name: str, region: Annotated[Region, Resolve(ask_region)]) -> str:
    """Provision a database. Asks which region to put it in."""
    return f"Provisioned '{name}' in {region.region}."


if __name__ == "__main__":
    run(server, sys.argv[1:], "provision_server.py")
