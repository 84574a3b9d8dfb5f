"""The command line the Python benchmark peers share: `stdio`, or `http HOST:PORT`
(Streamable HTTP at http://HOST:PORT/mcp)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer


def _split_host_port(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise SystemExit(f"expected HOST:PORT, got {address!r}")
    return host.strip("[]"), int(port)


def run(server: MCPServer, argv: list[str], program: str) -> None:
    """Serve `server` as the arguments say."""
    if argv == ["stdio"]:
        server.run("stdio")
    elif len(argv) == 2 and argv[0] == "http":
        host, port = _split_host_port(argv[1])
        server.run("streamable-http", host=host, port=port, streamable_http_path="/mcp")
    else:
        raise SystemExit(f"usage: {program} stdio | {program} http HOST:PORT")
