"""PyProvisioner: an MCP server built on the official Python SDK (mcp==2.3.0).

Our Rust client drives this fixture in interop tests, so it stays small and its
answers are exact. Every tool that needs the user goes through an SDK dependency
(`Resolve` + `Elicit` / `Sample` / `ListRoots`), so one set of tools serves both
protocol eras:

* 2026-07-28: the question comes back as an `InputRequiredResult`, and the client
  retries with `inputResponses` and the echoed, sealed `requestState`.
* 2025-11-25: the same question is sent as a server-to-client request
  (`elicitation/create`, `sampling/createMessage`, `roots/list`) during the call.

Usage:

    python interop/python_server.py stdio
    python interop/python_server.py http HOST:PORT    # serves http://HOST:PORT/mcp

Over HTTP the app runs in stateful SSE mode (the SDK defaults). A request whose
`MCP-Protocol-Version` header names 2026-07-28 takes the SDK's per-request path;
a request with no header or a handshake-era version takes the session path
(`initialize`, `Mcp-Session-Id`, back-channel requests on the POST's SSE stream).
"""

from __future__ import annotations

import sys
from typing import Annotated

from mcp.server.mcpserver import (
    Elicit,
    ListRoots,
    MCPServer,
    RequestStateSecurity,
    Resolve,
    Sample,
)
from mcp.types import (
    CreateMessageResult,
    ListRootsResult,
    SamplingMessage,
    TextContent,
)
from pydantic import BaseModel

SERVER_NAME = "PyProvisioner"

# Sealing as MCPServer sets it up when given nothing: a per-process random
# AES-GCM key, a 600 s ttl, the server's name as the audience. Spelled out so
# the fixture says what the Rust client is up against: `requestState` tokens
# are opaque `v1.` strings that only this process can open.
server = MCPServer(SERVER_NAME, request_state_security=RequestStateSecurity.ephemeral())


class Region(BaseModel):
    region: str


# Resolvers. Their wire keys are "<module>:<qualname>", so when this file runs as
# a script the keys are "__main__:ask_region", "__main__:sample_name" and
# "__main__:client_roots".


def ask_region(name: str) -> Elicit[Region]:
    return Elicit(f"Which region should {name} live in?", Region)


def sample_name(topic: str) -> Sample:
    prompt = TextContent(type="text", text=f"Suggest a database name for {topic}.")
    return Sample([SamplingMessage(role="user", content=prompt)], max_tokens=50)


def client_roots() -> ListRoots:
    return ListRoots()


def _sampled_text(result: CreateMessageResult) -> str:
    content = result.content
    blocks = content if isinstance(content, list) else [content]
    return "".join(block.text for block in blocks if isinstance(block, TextContent))


# Tools. Resolved parameters are not part of the input schema, so the schemas
# show only `name`, `topic` and `text`.


@server.tool()
def provision(name: str, region: Annotated[Region, Resolve(ask_region)]) -> str:
    """Provision a database; asks the user which region it goes in."""
    return f"Provisioned '{name}' in {region.region}."


@server.tool()
def suggest_name(topic: str, sampled: Annotated[CreateMessageResult, Resolve(sample_name)]) -> str:
    """Ask the client's model for a database name."""
    return f"Suggested: {_sampled_text(sampled)}"


@server.tool()
def list_workspaces(roots: Annotated[ListRootsResult, Resolve(client_roots)]) -> str:
    """List the client's roots."""
    return "Roots: " + ", ".join(str(root.uri) for root in roots.roots)


@server.tool()
def plain_echo(text: str) -> str:
    """Echo the text back; needs nothing from the client."""
    return f"Echo: {text}"


def _split_host_port(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise SystemExit(f"expected HOST:PORT, got {address!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def main(argv: list[str]) -> None:
    usage = "usage: python_server.py stdio | python_server.py http HOST:PORT"
    if argv == ["stdio"]:
        server.run("stdio")
    elif len(argv) == 2 and argv[0] == "http":
        host, port = _split_host_port(argv[1])
        # Defaults spelled out: SSE responses and stateful sessions, which the
        # 2025-11-25 era needs for its back-channel requests. 2026-07-28 requests
        # bypass the sessions either way.
        server.run(
            "streamable-http",
            host=host,
            port=port,
            streamable_http_path="/mcp",
            json_response=False,
            stateless_http=False,
        )
    else:
        raise SystemExit(usage)


if __name__ == "__main__":
    main(sys.argv[1:])
