#!/usr/bin/env python3
"""Interop check: the MCP Python SDK client (`mcp.Client`, mcp==2.3.0) drives our `provisioner`.

Usage: python_interop.py PATH/TO/provisioner

Four combinations: stdio and Streamable HTTP, each in `mode="auto"` (must negotiate
2026-07-28, so every question travels inside an InputRequiredResult) and `mode="legacy"`
(2025-11-25, the questions arrive as server-to-client requests). In each one the client's
elicitation, sampling and roots callbacks answer the server's questions and the exact texts
are compared. One line is printed per check; the first failure stops the run with exit 1.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
COMBO_TIMEOUT_SECONDS = 120
TOGETHER_WAIT_SECONDS = 5


class CheckFailed(Exception):
    """A check did not hold; the message says what was expected and what came back."""


# --- checks and output -------------------------------------------------------------------

passed = 0


def ok(label: str, what: str) -> None:
    global passed
    passed += 1
    print(f"ok {passed:3d}  [{label}] {what}", flush=True)


def fail(label: str, what: str, detail: str) -> None:
    raise CheckFailed(f"[{label}] {what}: {detail}")


current_step = "connecting"


async def attempt(label: str, what: str, call: Awaitable[Any]) -> Any:
    """Await one client call; a JSON-RPC error or a driver failure becomes a failed check."""
    global current_step
    current_step = f"[{label}] {what}"
    try:
        return await call
    except MCPError as e:
        fail(label, what, f"JSON-RPC error {e.code} {e.message!r} data={e.data!r}")
    except RuntimeError as e:  # InputRequiredRoundsExceededError and friends
        fail(label, what, f"{type(e).__name__}: {e}")


async def expect_error(label: str, what: str, call: Awaitable[Any], expected: tuple[int, str] | None = None) -> None:
    """The call must fail with a JSON-RPC error (exactly `expected` = (code, message) when given)."""
    try:
        result = await call
    except MCPError as e:
        if expected is not None and (e.code, e.message) != expected:
            fail(label, what, f"expected JSON-RPC error {expected!r}, got {(e.code, e.message)!r} data={e.data!r}")
        ok(label, f"{what}: JSON-RPC error {e.code} {e.message!r}")
    else:
        fail(label, what, f"expected a JSON-RPC error, got {result!r}")


def check_eq(label: str, what: str, actual: Any, expected: Any) -> None:
    if actual != expected:
        fail(label, what, f"expected {expected!r}, got {actual!r}")
    ok(label, what)


def check_error_result(label: str, what: str, result: types.CallToolResult) -> None:
    if not result.is_error:
        fail(label, what, f"expected an isError result, got {result!r}")
    texts = [getattr(block, "text", block) for block in result.content]
    ok(label, f"{what}: isError result {texts!r}")


def check_together(label: str, what: str, peer: Peer) -> None:
    if peer.together_timed_out:
        fail(
            label,
            what,
            f"the questions {sorted(peer.together)} were not asked in one round: each callback waited "
            f"{TOGETHER_WAIT_SECONDS} s for the others (seen: {[s.message for s in peer.seen]})",
        )
    ok(label, f"{what}: region and size asked together in one round")


def only_text(label: str, what: str, blocks: list[Any]) -> str:
    """The text of a content list that must hold exactly one text block."""
    if len(blocks) != 1 or not isinstance(blocks[0], types.TextContent):
        fail(label, what, f"expected exactly one text block, got {blocks!r}")
    return blocks[0].text


def check_schema(label: str, what: str, schema: dict[str, Any], key: str, json_type: str, required: bool) -> None:
    """`schema` is a flat object schema with the single property `key` of type `json_type`."""
    props = schema.get("properties")
    problems = []
    if schema.get("type") != "object":
        problems.append(f"type is {schema.get('type')!r}, not 'object'")
    if not isinstance(props, dict) or set(props) != {key}:
        problems.append(f"properties are {sorted(props) if isinstance(props, dict) else props!r}, not [{key!r}]")
    elif props[key].get("type") != json_type:
        problems.append(f"{key}.type is {props[key].get('type')!r}, not {json_type!r}")
    if required and key not in (schema.get("required") or []):
        problems.append(f"{key!r} is not required (required={schema.get('required')!r})")
    if problems:
        fail(label, what, "; ".join(problems) + f" in {schema!r}")
    ok(label, what)


# --- the client's side: callbacks that record what they saw -------------------------------


@dataclass
class Seen:
    kind: str  # "elicit" | "sample" | "roots"
    request_id: Any  # the input-request key (2026) or the JSON-RPC id (2025)
    message: str = ""
    schema: dict[str, Any] = field(default_factory=dict)
    params: Any = None


class Peer:
    """The user and the model behind the client: canned answers, and a log of every question."""

    def __init__(self) -> None:
        self.expect()

    def expect(
        self,
        answers: dict[str, types.ElicitResult] | None = None,
        sample: str | None = None,
        roots: list[str] | None = None,
        together: tuple[str, ...] = (),
    ) -> None:
        """Set the answers for the next request. Elicitations are answered by message; the
        messages in `together` must all be asked concurrently (each callback waits for the
        others, so questions asked one round after another show up as a timeout)."""
        self.answers = answers or {}
        self.sample_text = sample
        self.root_uris = roots
        self.seen: list[Seen] = []
        self.together = set(together)
        self.together_seen: set[str] = set()
        self.together_done = anyio.Event()
        self.together_timed_out = False

    async def elicit(self, ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult | types.ErrorData:
        if not isinstance(params, types.ElicitRequestFormParams):
            self.seen.append(Seen("elicit", ctx.request_id, f"<non-form elicitation {params!r}>"))
            return types.ErrorData(code=-32602, message="interop check: expected a form elicitation")
        self.seen.append(Seen("elicit", ctx.request_id, params.message, params.requested_schema, params))
        if params.message in self.together:
            self.together_seen.add(params.message)
            if self.together_seen == self.together:
                self.together_done.set()
            with anyio.move_on_after(TOGETHER_WAIT_SECONDS) as scope:
                await self.together_done.wait()
            if scope.cancelled_caught:
                self.together_timed_out = True
        answer = self.answers.get(params.message)
        if answer is None:
            return types.ErrorData(code=-32602, message=f"interop check: unexpected question {params.message!r}")
        return answer

    async def sample(self, ctx: Any, params: types.CreateMessageRequestParams) -> Any:
        self.seen.append(Seen("sample", ctx.request_id, params=params))
        if self.sample_text is None:
            return types.ErrorData(code=-32602, message="interop check: unexpected sampling request")
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=self.sample_text),
            model="interop-canned-model",
            stop_reason="endTurn",
        )

    async def list_roots(self, ctx: Any) -> types.ListRootsResult | types.ErrorData:
        self.seen.append(Seen("roots", ctx.request_id))
        if self.root_uris is None:
            return types.ErrorData(code=-32602, message="interop check: unexpected roots/list")
        return types.ListRootsResult(roots=[types.Root(uri=uri) for uri in self.root_uris])  # type: ignore[arg-type]


def accept(**content: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=content)


DECLINE = types.ElicitResult(action="decline")


def count_requests(client: Client) -> list[int]:
    """Wrap the session's carrier methods; each entry is one request on the wire, holding the
    number of `inputResponses` it carried (the auto driver retries through these methods)."""
    sent: list[int] = []
    session = client.session
    for name in ("call_tool", "get_prompt", "read_resource"):
        original: Callable[..., Awaitable[Any]] = getattr(session, name)

        def make(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
            async def counted(*args: Any, **kwargs: Any) -> Any:
                sent.append(len(kwargs.get("input_responses") or {}))
                return await original(*args, **kwargs)

            return counted

        setattr(session, name, make(original))
    return sent


# --- the checks, run once per transport and mode --------------------------------------------

REGION_Q = "Which region should the database live in?"
CLUSTER_REGION_Q = "Which region should analytics live in?"
CLUSTER_SIZE_Q = "How many GB should analytics have?"
CLUSTER_CONFIRM_Q = "Provision 500 GB in eu-west-1: sure?"
AUDIENCE_Q = "Who is the briefing for?"
REVEAL_Q = "Reveal the config of orders?"


async def run_combo(label: str, target: str | StdioServerParameters, mode: str) -> None:
    global current_step
    peer = Peer()
    modern = mode == "auto"
    client = Client(
        target,
        mode=mode,
        elicitation_callback=peer.elicit,
        sampling_callback=peer.sample,
        list_roots_callback=peer.list_roots,
        read_timeout_seconds=30,
    )
    async with client:
        check_eq(label, "negotiated protocol version", client.protocol_version, MODERN if modern else LEGACY)
        sent = count_requests(client)

        def requests_were(what: str, expected_modern: list[int]) -> None:
            # Under 2025-11-25 the questions ride the back-channel: one request, no retries.
            expected = expected_modern if modern else [0]
            check_eq(label, f"{what}: requests sent (inputResponses per request)", sent, expected)

        def questions_were(what: str, expected: list[str]) -> None:
            check_eq(label, f"{what}: questions asked", [s.message for s in peer.seen], expected)

        # provision: accept
        peer.expect({REGION_Q: accept(region="eu-west-1")})
        sent.clear()
        result = await attempt(label, "provision", client.call_tool("provision", {"name": "orders"}))
        questions_were("provision", [REGION_Q])
        schema = peer.seen[0].schema
        check_schema(label, "provision: schema {region: string, required}", schema, "region", "string", True)
        check_eq(label, "provision: isError", result.is_error, False)
        text = only_text(label, "provision", result.content)
        check_eq(label, "provision: text", text, "Provisioned 'orders' in eu-west-1.")
        requests_were("provision", [0, 1])

        # provision: decline
        peer.expect({REGION_Q: DECLINE})
        sent.clear()
        result = await attempt(label, "provision declined", client.call_tool("provision", {"name": "orders"}))
        questions_were("provision declined", [REGION_Q])
        check_error_result(label, "provision declined", result)
        requests_were("provision declined", [0, 1])

        # provision_cluster: a big cluster needs a confirmation
        for confirm in (True, False):
            what = f"provision_cluster 500 GB, ok={str(confirm).lower()}"
            peer.expect(
                {
                    CLUSTER_REGION_Q: accept(region="eu-west-1"),
                    CLUSTER_SIZE_Q: accept(size_gb=500),
                    CLUSTER_CONFIRM_Q: accept(ok=confirm),
                },
                together=(CLUSTER_REGION_Q, CLUSTER_SIZE_Q) if modern else (),
            )
            sent.clear()
            result = await attempt(label, what, client.call_tool("provision_cluster", {"name": "analytics"}))
            first_two = sorted(s.message for s in peer.seen[:2])
            check_eq(label, f"{what}: first two questions", first_two, sorted([CLUSTER_REGION_Q, CLUSTER_SIZE_Q]))
            then = [s.message for s in peer.seen[2:]]
            check_eq(label, f"{what}: then only the confirmation", then, [CLUSTER_CONFIRM_Q])
            if modern:
                check_together(label, what, peer)
            by_message = {s.message: s.schema for s in peer.seen}
            check_schema(label, f"{what}: region schema", by_message[CLUSTER_REGION_Q], "region", "string", False)
            check_schema(label, f"{what}: size schema", by_message[CLUSTER_SIZE_Q], "size_gb", "integer", False)
            check_schema(label, f"{what}: confirmation schema", by_message[CLUSTER_CONFIRM_Q], "ok", "boolean", False)
            requests_were(what, [0, 2, 1])
            if confirm:
                check_eq(label, f"{what}: isError", result.is_error, False)
                check_eq(
                    label,
                    f"{what}: text",
                    only_text(label, what, result.content),
                    "Provisioned cluster 'analytics' (500 GB) in eu-west-1.",
                )
            else:
                check_error_result(label, what, result)

        # provision_cluster: a small cluster needs no confirmation
        what = "provision_cluster 20 GB"
        peer.expect(
            {CLUSTER_REGION_Q: accept(region="eu-west-1"), CLUSTER_SIZE_Q: accept(size_gb=20)},
            together=(CLUSTER_REGION_Q, CLUSTER_SIZE_Q) if modern else (),
        )
        sent.clear()
        result = await attempt(label, what, client.call_tool("provision_cluster", {"name": "analytics"}))
        asked = sorted(s.message for s in peer.seen)
        check_eq(label, f"{what}: questions asked (no confirmation)", asked, sorted([CLUSTER_REGION_Q, CLUSTER_SIZE_Q]))
        if modern:
            check_together(label, what, peer)
        requests_were(what, [0, 2])
        check_eq(label, f"{what}: isError", result.is_error, False)
        text = only_text(label, what, result.content)
        check_eq(label, f"{what}: text", text, "Provisioned cluster 'analytics' (20 GB) in eu-west-1.")

        # suggest_name: sampling
        peer.expect(sample="billing_db")
        sent.clear()
        result = await attempt(label, "suggest_name", client.call_tool("suggest_name", {"topic": "billing"}))
        check_eq(label, "suggest_name: one sampling request", [s.kind for s in peer.seen], ["sample"])
        params: types.CreateMessageRequestParams = peer.seen[0].params
        check_eq(
            label,
            "suggest_name: sampling messages",
            [(m.role, m.content.type, getattr(m.content, "text", None)) for m in params.messages],
            [("user", "text", "Suggest a database name for billing.")],
        )
        check_eq(label, "suggest_name: maxTokens", params.max_tokens, 50)
        requests_were("suggest_name", [0, 1])
        check_eq(label, "suggest_name: isError", result.is_error, False)
        check_eq(label, "suggest_name: text", only_text(label, "suggest_name", result.content), "Suggested: billing_db")

        # list_workspaces: roots
        peer.expect(roots=["file:///work/a", "file:///work/b"])
        sent.clear()
        result = await attempt(label, "list_workspaces", client.call_tool("list_workspaces", {}))
        check_eq(label, "list_workspaces: one roots request", [s.kind for s in peer.seen], ["roots"])
        requests_were("list_workspaces", [0, 1])
        check_eq(label, "list_workspaces: isError", result.is_error, False)
        check_eq(
            label,
            "list_workspaces: text",
            only_text(label, "list_workspaces", result.content),
            "Roots: file:///work/a, file:///work/b",
        )

        # The prompt and the template ask with hand-built InputRequiredResults under
        # 2026-07-28; in a 2025-11-25 session (which has no such result) they ask over the
        # back-channel instead, so the same texts come back in both eras.
        # prompt briefing
        peer.expect({AUDIENCE_Q: accept(audience="the board")})
        sent.clear()
        prompt = await attempt(label, "prompt briefing", client.get_prompt("briefing", {}))
        questions_were("prompt briefing", [AUDIENCE_Q])
        check_schema(label, "prompt briefing: schema", peer.seen[0].schema, "audience", "string", False)
        requests_were("prompt briefing", [0, 1])
        check_eq(
            label,
            "prompt briefing: messages",
            [(m.role, m.content.type, getattr(m.content, "text", None)) for m in prompt.messages],
            [("user", "text", "Write a briefing for the board.")],
        )

        # resource template db://{name}/config: accept
        peer.expect({REVEAL_Q: accept(ok=True)})
        sent.clear()
        read = await attempt(
            label, "read db://orders/config", client.read_resource("db://orders/config", cache_mode="bypass")
        )
        questions_were("read db://orders/config", [REVEAL_Q])
        check_schema(label, "read db://orders/config: schema", peer.seen[0].schema, "ok", "boolean", False)
        requests_were("read db://orders/config", [0, 1])
        check_eq(
            label,
            "read db://orders/config: contents",
            [(str(c.uri), c.mime_type, getattr(c, "text", None)) for c in read.contents],
            [("db://orders/config", "application/json", '{"name":"orders","engine":"postgres"}')],
        )

        # resource template: decline
        peer.expect({REVEAL_Q: DECLINE})
        sent.clear()
        current_step = f"[{label}] read db://orders/config declined"
        await expect_error(
            label, "read db://orders/config declined", client.read_resource("db://orders/config", cache_mode="bypass")
        )
        questions_were("read db://orders/config declined", [REVEAL_Q])
        requests_were("read db://orders/config declined", [0, 1])


# --- servers --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_http_server(binary: str, log_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "warn")}
    with open(log_path, "wb") as log:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen([binary, "http", f"127.0.0.1:{port}"], stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise CheckFailed(f"http server exited with {proc.returncode} before accepting connections ({log_path})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise CheckFailed(f"http server did not accept connections on 127.0.0.1:{port} within 15 s; log: {log_path}")


def unwrap(exc: BaseException) -> BaseException:
    """The first leaf of (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def main() -> int:
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} PATH/TO/provisioner", file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    if not os.access(binary, os.X_OK):
        print(f"python interop: {binary} is not an executable", file=sys.stderr)
        return 2
    log_path = Path(binary).parent.parent / "python-interop-server.log"
    # The stdio server's stderr is ours: keep it to errors unless RUST_LOG says otherwise (the
    # legacy prompt and template checks make it warn, as intended, about its own results).
    stdio = StdioServerParameters(command=binary, args=["stdio"], env={"RUST_LOG": os.environ.get("RUST_LOG", "error")})
    server: subprocess.Popen[bytes] | None = None
    try:
        for mode in ("auto", "legacy"):
            anyio.run(with_timeout, f"stdio/{mode}", stdio, mode)
        server, url = start_http_server(binary, log_path)
        for mode in ("auto", "legacy"):
            anyio.run(with_timeout, f"http/{mode}", url, mode)
        if server.poll() is not None:
            raise CheckFailed(f"the http server died during the run (exit {server.returncode}); log: {log_path}")
    except BaseException as e:  # report anything, exception groups included, as one line
        leaf = unwrap(e)
        if isinstance(leaf, KeyboardInterrupt):
            raise
        if isinstance(leaf, CheckFailed):
            print(f"FAIL {leaf}", file=sys.stderr)
        elif isinstance(leaf, MCPError):
            print(f"FAIL JSON-RPC error {leaf.code} {leaf.message!r} data={leaf.data!r}", file=sys.stderr)
        else:
            print(f"FAIL {type(leaf).__name__}: {leaf}", file=sys.stderr)
        if server is not None:
            print(f"(http server log: {log_path})", file=sys.stderr)
        print(f"python interop: FAILED after {passed} checks passed", file=sys.stderr)
        return 1
    finally:
        if server is not None and server.poll() is None:
            server.kill()
            server.wait()
    print(f"python interop: {passed} checks passed (mcp Python SDK client, stdio + http, 2026-07-28 + 2025-11-25)")
    return 0


async def with_timeout(label: str, target: str | StdioServerParameters, mode: str) -> None:
    global current_step
    current_step = f"[{label}] connecting"
    try:
        with anyio.fail_after(COMBO_TIMEOUT_SECONDS):
            await run_combo(label, target, mode)
    except TimeoutError as e:
        raise CheckFailed(f"{current_step}: no answer within {COMBO_TIMEOUT_SECONDS} s") from e
    except MCPError as e:
        raise CheckFailed(f"{current_step}: JSON-RPC error {e.code} {e.message!r} data={e.data!r}") from e


if __name__ == "__main__":
    sys.exit(main())
