#!/usr/bin/env python3
"""Check the spans and metrics of one multi-round tool call, as exported over OTLP/HTTP JSON
and kept by scripts/otlp_receiver.py (stdlib only).

    otel_check.py DIR --trace-id ID [--wait SECONDS] [options]
    otel_check.py --self-test

DIR holds traces.jsonl and metrics.jsonl (one OTLP export request a line) and, when the
receiver turned a request away, rejected.jsonl. The trace ID is printed as a tree (name,
kind, service, duration, the attributes that tell the rounds apart), then checked:

  - one root: the client's call span `tools/call TOOL`, kind internal, `mcp.rounds` = ROUNDS;
    no span whose parent is missing from the trace (a broken link), no duplicate span IDs,
    no span ending before it starts, no error status, only the two services;
  - under the call, ROUNDS client spans (kind client, `mcp.round` 1..ROUNDS, `mcp.method.name`,
    `gen_ai.tool.name`, a string `jsonrpc.request.id`); every round but the last lists the
    keys it was asked for in `mcp.input_required.keys` (an array or a comma-separated string);
  - under each client round, exactly one server span (kind server, the server's service,
    `gen_ai.operation.name` = execute_tool, the same `jsonrpc.request.id`, `mcp.round`,
    `mcp.protocol.version`, `network.transport` = tcp, `mcp.request_state` `absent` on round 1
    and `ok` after, the same input keys as the client's round, flags with 0x200: a remote
    parent);
  - under each server span, resolver spans `resolve NAME` (kind internal, `mcp.resolver.name`
    = NAME); together they cover --resolvers;
  - metrics: the server's histogram `mcp.server.operation.duration` (unit s) counts at least
    ROUNDS operations with `mcp.method.name` = tools/call and `gen_ai.tool.name` = TOOL, the
    client's `mcp.client.operation.duration` at least one; bucket counts add up;
  - nothing exported (any attribute, name, status message or event, of any trace) contains a
    --forbid string (an elicitation answer), or a value that looks like a sealed requestState
    or a token (a run of 40 or more base64url characters, `Bearer `, a JWT);
  - the receiver turned no request away.

Each failed expectation is listed; the exit code is 1 when any failed. With --wait, the
files are read again until every check passes or SECONDS have gone by (exporters flush on
their own schedule). --self-test runs the checks on a synthetic export, as it should be and
broken in a dozen ways, and exits 1 unless each broken one is caught.
"""
import argparse, copy, json, os, re, sys, tempfile, time

KIND_NAMES = {0: "unspecified", 1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer"}
KIND_ENUM = {"SPAN_KIND_" + v.upper(): k for k, v in KIND_NAMES.items()}
STATUS_NAMES = {0: "unset", 1: "ok", 2: "error"}
REMOTE_PARENT = 0x200
# Shown in the tree, in this order (the others are checked, not printed).
SHOWN = [
    "mcp.rounds",
    "mcp.round",
    "jsonrpc.request.id",
    "mcp.request_state",
    "mcp.input_required.keys",
    "gen_ai.operation.name",
    "mcp.protocol.version",
    "network.transport",
]
# A sealed requestState or a token: a run of 40 or more base64url characters mixing upper
# case, lower case and digits (a path or a long snake_case name does not mix all three), a
# hex run longer than a trace id, a bearer credential, a JWT.
LONG_RUN = re.compile(r"[A-Za-z0-9_-]{40,}")
TOKENISH = [
    re.compile(r"(?i)\bbearer\s+\S"),
    re.compile(r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\."),
]


def tokenish(value):
    for run in LONG_RUN.findall(value):
        if re.search(r"[A-Z]", run) and re.search(r"[a-z]", run) and re.search(r"[0-9]", run):
            return True
        if len(run) >= 48 and re.fullmatch(r"[0-9a-fA-F]+", run):  # longer than any trace id
            return True
    return any(p.search(value) for p in TOKENISH)


# --- decoding ---------------------------------------------------------------------------
def any_value(v):
    """An OTLP JSON AnyValue as a Python value."""
    if not isinstance(v, dict):
        return v
    if "stringValue" in v:
        return v["stringValue"]
    if "intValue" in v:
        try:
            return int(v["intValue"])
        except (TypeError, ValueError):
            return v["intValue"]
    if "boolValue" in v:
        return bool(v["boolValue"])
    if "doubleValue" in v:
        try:
            return float(v["doubleValue"])
        except (TypeError, ValueError):
            return v["doubleValue"]
    if "arrayValue" in v:
        return [any_value(x) for x in (v["arrayValue"] or {}).get("values") or []]
    if "kvlistValue" in v:
        return attributes((v["kvlistValue"] or {}).get("values"))
    if "bytesValue" in v:
        return v["bytesValue"]
    return None


def attributes(kvs):
    return {kv.get("key"): any_value(kv.get("value")) for kv in kvs or [] if isinstance(kv, dict)}


def hex_id(value):
    return value.lower() if isinstance(value, str) and value else None


def number(value, default=0):
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def kind_of(value):
    if isinstance(value, str):
        return KIND_ENUM.get(value, number(value))
    return number(value)


class Span:
    def __init__(self, raw, service, scope):
        self.raw = raw
        self.service = service
        self.scope = scope
        self.trace_id = hex_id(raw.get("traceId"))
        self.span_id = hex_id(raw.get("spanId"))
        self.parent_id = hex_id(raw.get("parentSpanId"))
        self.name = raw.get("name", "")
        self.kind = kind_of(raw.get("kind"))
        self.start = number(raw.get("startTimeUnixNano"))
        self.end = number(raw.get("endTimeUnixNano"))
        self.attrs = attributes(raw.get("attributes"))
        status = raw.get("status") or {}
        self.status = status.get("code", 0)
        if isinstance(self.status, str):
            self.status = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}.get(self.status, 0)
        self.status_message = status.get("message", "")
        self.flags = raw.get("flags")
        self.children = []

    def label(self):
        return f"{self.name!r} ({KIND_NAMES.get(self.kind, self.kind)}, {self.service}, span {self.span_id})"


def read_jsonl(path):
    """The lines of a JSONL file, and the numbers of the lines that are not JSON objects."""
    rows, bad = [], []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError:
                    bad.append(n)
                    continue
                if isinstance(row, dict):
                    rows.append(row)
                else:
                    bad.append(n)
    except FileNotFoundError:
        pass
    return rows, bad


def service_of(resource):
    return attributes((resource or {}).get("attributes")).get("service.name", "?")


def load_spans(requests):
    spans = []
    for req in requests:
        for rs in req.get("resourceSpans") or []:
            service = service_of(rs.get("resource"))
            for ss in rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []:
                scope = (ss.get("scope") or ss.get("instrumentationLibrary") or {}).get("name", "")
                for raw in ss.get("spans") or []:
                    spans.append(Span(raw, service, scope))
    return spans


def load_metric_points(requests):
    """(service, metric name, unit, kind, temporality, data point) for every data point."""
    out = []
    for req in requests:
        for rm in req.get("resourceMetrics") or []:
            service = service_of(rm.get("resource"))
            for sm in rm.get("scopeMetrics") or rm.get("instrumentationLibraryMetrics") or []:
                for metric in sm.get("metrics") or []:
                    for kind in ("histogram", "sum", "gauge", "exponentialHistogram", "summary"):
                        data = metric.get(kind)
                        if data is None:
                            continue
                        temporality = number(data.get("aggregationTemporality"), 0)
                        for point in data.get("dataPoints") or []:
                            out.append((service, metric.get("name"), metric.get("unit", ""), kind, temporality, point))
    return out


# --- the tree ---------------------------------------------------------------------------
def fmt_value(v):
    if isinstance(v, list):
        return "[" + ", ".join(fmt_value(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def describe(span):
    parts = [span.name, KIND_NAMES.get(span.kind, str(span.kind)), span.service]
    if span.end >= span.start > 0:
        parts.append(f"{(span.end - span.start) / 1e6:.2f} ms")
    words = [f"{k}={fmt_value(span.attrs[k])}" for k in SHOWN if k in span.attrs]
    if span.flags is not None and number(span.flags) & REMOTE_PARENT:
        words.append("remote parent")
    if span.status:
        words.append(f"status={STATUS_NAMES.get(span.status, span.status)}")
    return "  ".join(parts + words)


def render_tree(roots):
    lines = []

    def walk(span, prefix, last, top):
        lines.append((prefix + ("" if top else ("└─ " if last else "├─ "))) + describe(span))
        child_prefix = prefix + ("" if top else ("   " if last else "│  "))
        kids = sorted(span.children, key=lambda s: (s.start, s.name))
        for i, kid in enumerate(kids):
            walk(kid, child_prefix, i == len(kids) - 1, False)

    for root in sorted(roots, key=lambda s: s.start):
        walk(root, "", True, True)
    return "\n".join(lines)


# --- the checks -------------------------------------------------------------------------
def keys_of(value):
    """The input keys, from an array attribute or a comma-separated string."""
    if value is None:
        return None
    if isinstance(value, list):
        return sorted(str(x).strip() for x in value if str(x).strip())
    return sorted(x.strip() for x in str(value).split(",") if x.strip())


def short(name):
    """A resolver's name without its module path (`a::b::ask` -> `ask`) or suffix (`ask#1`)."""
    return str(name).split("::")[-1].split("#")[0]


def walk_values(node, where, out):
    """Every string in an export request (keys excluded), with where it was."""
    if isinstance(node, dict):
        for k, v in node.items():
            walk_values(v, f"{where}.{k}", out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            # Name attributes by their key rather than their index.
            tag = v.get("key") if isinstance(v, dict) and isinstance(v.get("key"), str) else str(i)
            walk_values(v, f"{where}[{tag}]", out)
    elif isinstance(node, str):
        out.append((where, node))


def check(data, opts):
    """The list of failed expectations, and the rendered tree (or None)."""
    fails = []
    fail = fails.append
    tool, rounds = opts.tool, opts.rounds
    call_name = f"tools/call {tool}"
    trace_id = opts.trace_id.lower()

    for name, bad in (("traces.jsonl", data["bad_traces"]), ("metrics.jsonl", data["bad_metrics"])):
        if bad:
            fail(f"{name}: lines {bad[:5]} are not JSON objects")
    for r in data["rejected"]:
        fail(f"the receiver turned away a request: {r.get('status')} {r.get('path')} ({r.get('reason')})")

    spans = load_spans(data["traces"])
    mine = [s for s in spans if s.trace_id == trace_id]
    if not mine:
        seen = sorted({s.trace_id for s in spans if s.trace_id})
        fail(f"no span has trace id {trace_id} ({len(spans)} spans exported, trace ids: {seen[:5]})")
        return fails + check_secrets_and_metrics(data, opts), None

    # Structure: ids, links, times.
    by_id = {}
    for s in mine:
        if not s.span_id or not re.fullmatch(r"[0-9a-f]{16}", s.span_id):
            fail(f"{s.label()}: span id {s.span_id!r} is not 16 hex digits")
        if s.span_id in by_id:
            fail(f"{s.label()}: span id exported twice")
        by_id[s.span_id] = s
    if not re.fullmatch(r"[0-9a-f]{32}", trace_id) or trace_id == "0" * 32:
        fail(f"trace id {trace_id!r} is not 32 hex digits, not all zero")
    roots = []
    for s in by_id.values():
        if s.parent_id is None:
            roots.append(s)
        elif s.parent_id in by_id:
            by_id[s.parent_id].children.append(s)
        else:
            fail(f"{s.label()}: broken parent link: its parent {s.parent_id} is not in the trace")
            roots.append(s)
        if s.end < s.start or s.start <= 0:
            fail(f"{s.label()}: times start={s.start} end={s.end}")
        if s.status == 2:
            fail(f"{s.label()}: error status ({s.status_message!r})")
        if s.service not in (opts.client_service, opts.server_service):
            fail(f"{s.label()}: service {s.service!r}, expected {opts.client_service} or {opts.server_service}")
    tree = render_tree(roots)

    # The call.
    top = [s for s in roots if s.parent_id is None]
    if len(top) != 1:
        fail(f"{len(top)} root spans ({', '.join(s.label() for s in top)}), expected one: the client's call")
    # The call span is the root, or a child of the client application's own root span
    # (otel_call opens one, to know the trace id before the call).
    candidates = top + [c for s in top if s.service == opts.client_service for c in s.children]
    calls = [s for s in candidates if s.service == opts.client_service and s.name == call_name and s.kind == 1]
    if not calls:
        fail(f"no span {call_name!r} of kind internal from {opts.client_service} at or under the root")
        return fails + check_secrets_and_metrics(data, opts), tree
    call = calls[0]
    if call.attrs.get("mcp.rounds") != rounds:
        fail(f"{call.label()}: mcp.rounds={call.attrs.get('mcp.rounds')!r}, expected {rounds}")

    # The client's rounds.
    client_rounds = [c for c in call.children if c.kind == 3]
    others = [c for c in call.children if c.kind != 3]
    for c in others:
        fail(f"{c.label()}: under the call, expected only client round spans")
    if len(client_rounds) != rounds:
        fail(f"{len(client_rounds)} client round spans under the call, expected {rounds}")
    seen_rounds = {}
    for c in client_rounds:
        a = c.attrs
        if c.name != call_name:
            fail(f"{c.label()}: a client round named {c.name!r}, expected {call_name!r}")
        if c.service != opts.client_service:
            fail(f"{c.label()}: a client round from {c.service!r}")
        for key, want in (("mcp.method.name", "tools/call"), ("gen_ai.tool.name", tool)):
            if a.get(key) != want:
                fail(f"{c.label()}: {key}={a.get(key)!r}, expected {want!r}")
        rid = a.get("jsonrpc.request.id")
        if not isinstance(rid, str) or not rid:
            fail(f"{c.label()}: jsonrpc.request.id={rid!r}, expected a non-empty string")
        n = a.get("mcp.round")
        if not isinstance(n, int) or not 1 <= n <= rounds:
            fail(f"{c.label()}: mcp.round={n!r}, expected 1..{rounds}")
        elif n in seen_rounds:
            fail(f"{c.label()}: round {n} twice")
        else:
            seen_rounds[n] = c
    ids = [c.attrs.get("jsonrpc.request.id") for c in client_rounds]
    if len(set(map(str, ids))) != len(ids):
        fail(f"client rounds share a jsonrpc.request.id: {ids}")
    for n in range(1, rounds + 1):
        c = seen_rounds.get(n)
        if c is None:
            fail(f"no client span for round {n}")
            continue
        keys = keys_of(c.attrs.get("mcp.input_required.keys"))
        if n < rounds and not keys:
            fail(f"{c.label()}: round {n} was answered with questions, but mcp.input_required.keys is {c.attrs.get('mcp.input_required.keys')!r}")
        if n == rounds and keys:
            fail(f"{c.label()}: the last round lists input keys {keys}")
        if n == 1 and opts.keys and keys is not None:
            missing = [k for k in opts.keys if k not in {short(x) for x in keys}]
            if missing:
                fail(f"{c.label()}: mcp.input_required.keys {keys} lacks {missing}")
        if n > 1 and seen_rounds.get(n - 1) and c.start < seen_rounds[n - 1].end:
            fail(f"{c.label()}: round {n} starts before round {n - 1} ends")
        check_server_round(c, n, opts, fail)

    return fails + check_secrets_and_metrics(data, opts), tree


def check_server_round(client, n, opts, fail):
    servers = [s for s in client.children if s.kind == 2 and s.service == opts.server_service]
    for s in client.children:
        if s not in servers:
            fail(f"{s.label()}: under client round {n}, expected only the server's span")
    if len(servers) != 1:
        fail(f"client round {n}: {len(servers)} server spans under it, expected 1")
        if not servers:
            return
    s = servers[0]
    a = s.attrs
    call_name = f"tools/call {opts.tool}"
    if s.name != call_name:
        fail(f"{s.label()}: named {s.name!r}, expected {call_name!r}")
    want = {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": opts.tool,
        "gen_ai.operation.name": "execute_tool",
        "jsonrpc.request.id": client.attrs.get("jsonrpc.request.id"),
        "mcp.protocol.version": opts.protocol_version,
        "network.transport": "tcp",
        "mcp.round": n,
        "mcp.request_state": "absent" if n == 1 else "ok",
    }
    for key, value in want.items():
        if a.get(key) != value:
            fail(f"{s.label()}: round {n}: {key}={a.get(key)!r}, expected {value!r}")
    ckeys = keys_of(client.attrs.get("mcp.input_required.keys"))
    skeys = keys_of(a.get("mcp.input_required.keys"))
    if n < opts.rounds and not skeys:
        fail(f"{s.label()}: round {n}: mcp.input_required.keys is {a.get('mcp.input_required.keys')!r}, expected the keys asked")
    elif skeys != ckeys and (skeys or ckeys):
        fail(f"{s.label()}: round {n}: mcp.input_required.keys {skeys} on the server, {ckeys} on the client")
    flags = s.flags
    if flags is None or not number(flags) & REMOTE_PARENT:
        fail(f"{s.label()}: flags={flags!r}, expected 0x200 (its parent is the client's, a remote span)")
    if s.start < client.start:
        fail(f"{s.label()}: starts before its client round span (clock or parent mix-up)")

    # Resolvers, anywhere under the server span.
    found = []
    stack = list(s.children)
    while stack:
        r = stack.pop()
        stack.extend(r.children)
        if r.service != opts.server_service:
            fail(f"{r.label()}: under the server span but from {r.service!r}")
        if not r.name.startswith("resolve "):
            continue
        name = r.attrs.get("mcp.resolver.name")
        if r.kind != 1:
            fail(f"{r.label()}: a resolver span of kind {KIND_NAMES.get(r.kind, r.kind)}, expected internal")
        if not name or r.name != f"resolve {name}":
            fail(f"{r.label()}: mcp.resolver.name={name!r} does not match its name")
        found.append(short(name or r.name[len("resolve "):]))
    if not found:
        fail(f"{s.label()}: round {n}: no resolver span under it")
    opts.resolvers_seen.update(found)


def check_secrets_and_metrics(data, opts):
    fails = []
    fail = fails.append
    # Secrets: every string anywhere in every export, this trace or not.
    strings = []
    for i, req in enumerate(data["traces"]):
        walk_values(req, f"traces[{i}]", strings)
    for i, req in enumerate(data["metrics"]):
        walk_values(req, f"metrics[{i}]", strings)
    leaks = []
    for where, value in strings:
        if where.endswith((".traceId", ".spanId", ".parentSpanId")):
            continue
        for word in opts.forbid:
            if word and word in value:
                leaks.append(f"{where} contains {word!r}")
        if tokenish(value):
            leaks.append(f"{where} looks like a token or sealed state: {value[:12]!r}…")
    for leak in leaks[:20]:
        fail(f"exported: {leak}")
    if len(leaks) > 20:
        fail(f"… and {len(leaks) - 20} more exported values like these")

    # Metrics.
    points = load_metric_points(data["metrics"])
    for service, metric, want_min, attrs_want in (
        (opts.server_service, "mcp.server.operation.duration", opts.rounds,
         {"mcp.method.name": "tools/call", "gen_ai.tool.name": opts.tool}),
        (opts.client_service, "mcp.client.operation.duration", 1,
         {"mcp.method.name": "tools/call", "gen_ai.tool.name": opts.tool}),
    ):
        rows = [p for p in points if p[0] == service and p[1] == metric]
        if not rows:
            names = sorted({f"{p[1]} ({p[0]})" for p in points})
            fail(f"no metric {metric} from {service} (exported: {names[:8]})")
            continue
        if any(kind != "histogram" for _, _, _, kind, _, _ in rows):
            fail(f"{metric} from {service}: not a histogram")
        if any(unit != "s" for _, _, unit, _, _, _ in rows):
            fail(f"{metric} from {service}: unit {sorted({r[2] for r in rows})}, expected 's'")
        # Per attribute set: the latest cumulative count, or the sum of delta counts.
        counts = {}
        for _, _, _, kind, temporality, point in rows:
            attrs = attributes(point.get("attributes"))
            count = number(point.get("count"))
            buckets = point.get("bucketCounts")
            bounds = point.get("explicitBounds") or []
            if buckets:
                if sum(number(b) for b in buckets) != count:
                    fail(f"{metric} from {service}: bucket counts add up to {sum(number(b) for b in buckets)}, count is {count}")
                if len(buckets) != len(bounds) + 1:
                    fail(f"{metric} from {service}: {len(buckets)} buckets for {len(bounds)} bounds")
            if count and not isinstance(point.get("sum"), (int, float, str)):
                fail(f"{metric} from {service}: a data point without a sum")
            if not all(attrs.get(k) == v for k, v in attrs_want.items()):
                continue
            key = json.dumps(attrs, sort_keys=True, default=str)
            if temporality == 1:  # delta
                counts[key] = counts.get(key, 0) + count
            else:
                counts[key] = max(counts.get(key, 0), count)
        total = sum(counts.values())
        if total < want_min:
            fail(f"{metric} from {service}: {total} operations with {attrs_want}, expected at least {want_min}")
    return fails


def check_resolvers(opts):
    missing = [r for r in opts.resolvers if r not in opts.resolvers_seen]
    if missing:
        return [f"no resolver span for {missing} (seen: {sorted(opts.resolvers_seen)})"]
    return []


def load_dir(directory):
    traces, bad_traces = read_jsonl(os.path.join(directory, "traces.jsonl"))
    metrics, bad_metrics = read_jsonl(os.path.join(directory, "metrics.jsonl"))
    rejected, _ = read_jsonl(os.path.join(directory, "rejected.jsonl"))
    return {"traces": traces, "metrics": metrics, "rejected": rejected, "bad_traces": bad_traces, "bad_metrics": bad_metrics}


def run_checks(data, opts):
    opts.resolvers_seen = set()
    fails, tree = check(data, opts)
    if tree is not None:
        fails += check_resolvers(opts)
    return fails, tree


# --- self-test --------------------------------------------------------------------------
def synthetic():
    """One good two-round provision_cluster call, as the exporters would send it."""
    trace = "5B8EFFF798038103D269B633813FC60C"  # upper case: hex may be any case
    t0 = 1_700_000_000_000_000_000
    ms = 1_000_000

    def kv(key, value):
        if isinstance(value, bool):
            return {"key": key, "value": {"boolValue": value}}
        if isinstance(value, int):
            return {"key": key, "value": {"intValue": str(value)}}
        if isinstance(value, list):
            return {"key": key, "value": {"arrayValue": {"values": [{"stringValue": v} for v in value]}}}
        return {"key": key, "value": {"stringValue": value}}

    def span(sid, parent, name, kind, start, end, attrs, flags=256):
        return {"traceId": trace, "spanId": sid, "parentSpanId": parent, "name": name, "kind": kind,
                "startTimeUnixNano": str(t0 + start * ms), "endTimeUnixNano": str(t0 + end * ms),
                "attributes": [kv(k, v) for k, v in attrs.items()], "status": {"code": 0}, "flags": flags}

    keys = ["mcp_examples::provisioner::ask_cluster_region", "mcp_examples::provisioner::ask_cluster_size"]
    name = "tools/call provision_cluster"
    base = {"mcp.method.name": "tools/call", "gen_ai.tool.name": "provision_cluster"}
    client = [
        span("00000000000000a1", "", name, 1, 0, 40, {"mcp.rounds": 2}),
        span("00000000000000b1", "00000000000000a1", name, 3, 1, 15,
             {**base, "jsonrpc.request.id": "1", "mcp.round": 1, "mcp.input_required.keys": keys}),
        span("00000000000000b2", "00000000000000a1", name, 3, 20, 39, {**base, "jsonrpc.request.id": "2", "mcp.round": 2}),
    ]
    server_base = {**base, "gen_ai.operation.name": "execute_tool", "mcp.protocol.version": "2026-07-28",
                   "network.transport": "tcp"}
    server = [
        span("00000000000000c1", "00000000000000b1", name, 2, 2, 14,
             {**server_base, "jsonrpc.request.id": "1", "mcp.round": 1, "mcp.request_state": "absent",
              "mcp.input_required.keys": ",".join(keys)}, flags=769),
        span("00000000000000d1", "00000000000000c1", "resolve ask_cluster_region", 1, 3, 4,
             {"mcp.resolver.name": "ask_cluster_region"}),
        span("00000000000000d2", "00000000000000c1", "resolve ask_cluster_size", 1, 4, 5,
             {"mcp.resolver.name": "ask_cluster_size"}),
        span("00000000000000c2", "00000000000000b2", name, 2, 21, 38,
             {**server_base, "jsonrpc.request.id": "2", "mcp.round": 2, "mcp.request_state": "ok"}, flags=769),
        span("00000000000000e1", "00000000000000c2", "resolve ask_cluster_region", 1, 22, 23,
             {"mcp.resolver.name": "ask_cluster_region"}),
        span("00000000000000e2", "00000000000000c2", "resolve ask_cluster_size", 1, 23, 24,
             {"mcp.resolver.name": "ask_cluster_size"}),
        span("00000000000000e3", "00000000000000e1", "resolve confirm_cluster", 1, 24, 25,
             {"mcp.resolver.name": "confirm_cluster"}),
    ]

    def resource(service):
        return {"attributes": [kv("service.name", service)]}

    def histogram(service, metric, count):
        return {"resourceMetrics": [{"resource": resource(service), "scopeMetrics": [{"scope": {"name": "mcp"}, "metrics": [
            {"name": metric, "unit": "s", "histogram": {"aggregationTemporality": 2, "dataPoints": [
                {"attributes": [kv(k, v) for k, v in base.items()], "count": str(count), "sum": 0.01 * count,
                 "bucketCounts": [str(count), "0"], "explicitBounds": [1.0]}]}}]}]}]}

    traces = [
        {"resourceSpans": [{"resource": resource("otel_call"), "scopeSpans": [{"scope": {"name": "mcp"}, "spans": client}]}]},
        {"resourceSpans": [{"resource": resource("provisioner"), "scopeSpans": [{"scope": {"name": "mcp"}, "spans": server}]}]},
    ]
    metrics = [
        histogram("provisioner", "mcp.server.operation.duration", 1),
        histogram("provisioner", "mcp.server.operation.duration", 2),  # cumulative: the latest counts
        histogram("otel_call", "mcp.client.operation.duration", 2),
    ]
    return trace, {"traces": traces, "metrics": metrics, "rejected": [], "bad_traces": [], "bad_metrics": []}


def find(data, span_id):
    for req in data["traces"]:
        for rs in req["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    if s["spanId"] == span_id:
                        return s
    raise KeyError(span_id)


def set_attr(data, span_id, key, value):
    s = find(data, span_id)
    s["attributes"] = [kv for kv in s["attributes"] if kv["key"] != key]
    if value is not None:
        s["attributes"].append({"key": key, "value": value})


def remove_span(data, span_id):
    for req in data["traces"]:
        for rs in req["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                ss["spans"] = [s for s in ss["spans"] if s["spanId"] != span_id]


def self_test(opts_for):
    trace, good = synthetic()
    problems = []

    # Good variants: must pass.
    variants = {
        "as exported": lambda d: None,
        "keys as one comma-separated string on the client": lambda d: set_attr(
            d, "00000000000000b1", "mcp.input_required.keys",
            {"stringValue": "mcp_examples::provisioner::ask_cluster_size,mcp_examples::provisioner::ask_cluster_region"}),
        "intValue as a JSON number, kind as an enum name": lambda d: (
            set_attr(d, "00000000000000a1", "mcp.rounds", {"intValue": 2}),
            find(d, "00000000000000c2").update(kind="SPAN_KIND_SERVER")),
        "a second, unrelated trace": lambda d: d["traces"].append({"resourceSpans": [{"resource": {"attributes": []},
            "scopeSpans": [{"spans": [dict(find(d, "00000000000000a1"), traceId="ab" * 16, spanId="ff" * 8)]}]}]}),
    }
    for name, mutate in variants.items():
        data = copy.deepcopy(good)
        mutate(data)
        fails, tree = run_checks(data, opts_for(trace))
        if fails:
            problems.append(f"good export ({name}) failed: {fails}")
        if name == "as exported":
            print(tree)

    # Broken variants: each must fail, with a message containing the given text.
    broken = {
        "a broken parent link": ("broken parent link",
            lambda d: find(d, "00000000000000c2").update(parentSpanId="1234567890abcdef")),
        "the server span not marked remote": ("0x200", lambda d: find(d, "00000000000000c1").update(flags=256)),
        "request_state absent on round 2": ("mcp.request_state",
            lambda d: set_attr(d, "00000000000000c2", "mcp.request_state", {"stringValue": "absent"})),
        "a request id the client did not send": ("jsonrpc.request.id",
            lambda d: set_attr(d, "00000000000000c2", "jsonrpc.request.id", {"stringValue": "7"})),
        "a numeric request id": ("non-empty string",
            lambda d: set_attr(d, "00000000000000b1", "jsonrpc.request.id", {"intValue": "1"})),
        "no input keys on the server's round 1": ("mcp.input_required.keys",
            lambda d: set_attr(d, "00000000000000c1", "mcp.input_required.keys", None)),
        "an answer in an attribute": ("'eu-west-1'",
            lambda d: set_attr(d, "00000000000000e1", "region", {"stringValue": "eu-west-1"})),
        "a sealed state in an attribute": ("sealed state",
            lambda d: set_attr(d, "00000000000000c2", "mcp.request_state",
                               {"stringValue": "v1.Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG9mcmVk"})),
        "a hex sealed state in a metric": ("sealed state",
            lambda d: d["metrics"][0]["resourceMetrics"][0]["scopeMetrics"][0]["metrics"][0]["histogram"]["dataPoints"][0][
                "attributes"].append({"key": "state", "value": {"stringValue": "9f" * 30}})),
        "a missing round": ("client round spans", lambda d: remove_span(d, "00000000000000b2")),
        "no resolver span for confirm_cluster": ("confirm_cluster", lambda d: remove_span(d, "00000000000000e3")),
        "a resolver name that does not match": ("does not match",
            lambda d: set_attr(d, "00000000000000d1", "mcp.resolver.name", {"stringValue": "ask_region"})),
        "mcp.rounds wrong": ("mcp.rounds", lambda d: set_attr(d, "00000000000000a1", "mcp.rounds", {"intValue": "3"})),
        "a server error status": ("error status",
            lambda d: find(d, "00000000000000c1").update(status={"code": 2, "message": "boom"})),
        "two roots": ("root spans", lambda d: find(d, "00000000000000b2").update(parentSpanId="")),
        "the server histogram counts one call": ("expected at least 2",
            lambda d: d["metrics"].pop(1)),
        "no client histogram": ("mcp.client.operation.duration", lambda d: d["metrics"].pop(2)),
        "a request the receiver turned away": ("turned away",
            lambda d: d["rejected"].append({"status": 415, "path": "/v1/traces", "reason": "protobuf"})),
        "another trace id": ("no span has trace id", lambda d: [
            s.update(traceId="cd" * 16) for req in d["traces"] for rs in req["resourceSpans"]
            for ss in rs["scopeSpans"] for s in ss["spans"]]),
    }
    for name, (expect, mutate) in broken.items():
        data = copy.deepcopy(good)
        mutate(data)
        fails, _ = run_checks(data, opts_for(trace))
        if not any(expect in f for f in fails):
            problems.append(f"broken export ({name}) not caught as {expect!r}: {fails}")

    # The files themselves, through load_dir and the command line's own path.
    with tempfile.TemporaryDirectory() as d:
        for name in ("traces", "metrics"):
            with open(os.path.join(d, f"{name}.jsonl"), "w") as f:
                for req in good[name]:
                    f.write(json.dumps(req) + "\n")
        fails, _ = run_checks(load_dir(d), opts_for(trace))
        if fails:
            problems.append(f"good export read from files failed: {fails}")
        with open(os.path.join(d, "traces.jsonl"), "a") as f:
            f.write("{not json\n")
        fails, _ = run_checks(load_dir(d), opts_for(trace))
        if not any("not JSON" in f for f in fails):
            problems.append(f"a line that is not JSON was not caught: {fails}")

    total = len(variants) + len(broken) + 2
    for p in problems:
        print(f"self-test: FAIL: {p}", file=sys.stderr)
    print(f"self-test: {total - len(problems)}/{total} cases as expected")
    return 1 if problems else 0


# --- command line -----------------------------------------------------------------------
def parser():
    p = argparse.ArgumentParser(description="Check the OTLP export of one multi-round tool call.")
    p.add_argument("dir", nargs="?", help="the receiver's directory (traces.jsonl, metrics.jsonl)")
    p.add_argument("--trace-id", help="the call's trace id (32 hex digits)")
    p.add_argument("--tool", default="provision_cluster")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--client-service", default="otel_call")
    p.add_argument("--server-service", default="provisioner")
    p.add_argument("--protocol-version", default="2026-07-28")
    p.add_argument("--keys", default="ask_cluster_region,ask_cluster_size",
                   help="comma-separated: round 1's input keys must include these (module path ignored)")
    p.add_argument("--resolvers", default="ask_cluster_region,ask_cluster_size,confirm_cluster",
                   help="comma-separated: resolver spans for each of these, across the rounds")
    p.add_argument("--forbid", action="append", default=None,
                   help="a string no exported value may contain (repeatable; default: eu-west-1)")
    p.add_argument("--wait", type=float, default=0, help="read the files again until the checks pass, SECONDS at most")
    p.add_argument("--tree-out", help="also write the tree to this file")
    p.add_argument("--self-test", action="store_true", help="check the checker on synthetic exports")
    return p


def finish_opts(opts):
    opts.keys = [k for k in (opts.keys or "").split(",") if k]
    opts.resolvers = [r for r in (opts.resolvers or "").split(",") if r]
    if opts.forbid is None:
        opts.forbid = ["eu-west-1"]
    return opts


def main():
    args = parser().parse_args()
    if args.self_test:
        return self_test(lambda trace: finish_opts(parser().parse_args(["--trace-id", trace])))
    if not args.dir or not args.trace_id:
        parser().error("DIR and --trace-id are required (or --self-test)")
    opts = finish_opts(args)
    deadline = time.monotonic() + opts.wait
    while True:
        fails, tree = run_checks(load_dir(opts.dir), opts)
        if not fails or time.monotonic() >= deadline:
            break
        time.sleep(0.25)
    if tree is not None:
        print(tree)
        if opts.tree_out:
            with open(opts.tree_out, "w") as f:
                f.write(tree + "\n")
    if fails:
        print(f"otel_check: {len(fails)} expectations failed:", file=sys.stderr)
        for f in fails:
            print(f"  - {f}", file=sys.stderr)
        return 1
    print(f"otel_check: trace {opts.trace_id.lower()}: all expectations met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
