#!/usr/bin/env python3
"""The report side of scripts/bench.sh (stdlib only).

    bench_report.py meta BENCH_DIR SETTINGS_JSON   record the machine, versions and settings
                                                   in BENCH_DIR/meta.json before the runs
    bench_report.py finish BENCH_DIR               add the load average and elapsed time after
    bench_report.py run-line RESULT_JSON SERVER    print one run's figures (loadgen's line)
    bench_report.py report BENCH_DIR OUT           turn BENCH_DIR/results.jsonl and meta.json
                                                   into the Markdown report OUT, keeping OUT's
                                                   build-time, Redis and OpenTelemetry sections

BENCH_DIR is target/bench; results.jsonl has one line per run (round, server, loadgen's JSON
line).
"""
import argparse
import sys, json, os, platform, re, statistics, subprocess, sys, time

# The repository root: this file is scripts/bench_report.py.
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=root).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def lock_version(lock_path, name):
    try:
        text = open(lock_path).read()
    except OSError:
        return None
    m = re.search(r'\[\[package\]\]\nname = "%s"\nversion = "([^"]+)"' % re.escape(name), text)
    return m.group(1) if m else None


def package_version(path):
    """The `version` of an installed npm package's package.json, or None."""
    try:
        return json.load(open(path)).get("version")
    except (OSError, ValueError):
        return None


def write_meta(bench_dir, settings):
    meta_path = os.path.join(bench_dir, "meta.json")
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_kb = None
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    except OSError:
        pass
    venv_python = os.path.join(root, ".tools/pyvenv/bin/python")
    # What scripts/bench.sh installed for the TypeScript peer (`npm ci`), not what the lock
    # asks for: the report names the versions that ran.
    ts_modules = os.path.join(root, "bench/peers/typescript/node_modules")
    node = run(os.path.join(ts_modules, ".bin/node"), "--version")
    git = run("git", "rev-parse", "--short", "HEAD")
    dirty = run("git", "status", "--porcelain")
    ours = None
    m = re.search(r'\[workspace\.package\]\nversion = "([^"]+)"', open(os.path.join(root, "Cargo.toml")).read())
    if m:
        ours = m.group(1)
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "nproc": run("nproc"),
        "cpu": cpu,
        "mem_gib": round(mem_kb / 1048576, 1) if mem_kb else None,
        "kernel": platform.release(),
        "rustc": run("rustc", "--version"),
        "ours": ours,
        "git": (git + ("-dirty" if dirty else "")) if git else None,
        "rmcp": lock_version(os.path.join(root, "bench/peers/rmcp-echo/Cargo.lock"), "rmcp"),
        "python": run(venv_python, "-c", "import platform; print(platform.python_version())"),
        "python_sdk": run(venv_python, "-c", "import importlib.metadata as m; print(m.version('mcp'))"),
        "uvicorn": run(venv_python, "-c", "import importlib.metadata as m; print(m.version('uvicorn'))"),
        "node": node.lstrip("v") if node else None,
        "typescript_sdk": package_version(os.path.join(ts_modules, "@modelcontextprotocol/server/package.json")),
        "typescript_node_adapter": package_version(os.path.join(ts_modules, "@modelcontextprotocol/node/package.json")),
        "settings": json.loads(settings),
        "load_start": loadavg(),
        "started": time.time(),
    }
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)


def loadavg():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return None


def finish_meta(bench_dir):
    meta_path = os.path.join(bench_dir, "meta.json")
    meta = json.load(open(meta_path))
    meta["load_end"] = loadavg()
    meta["elapsed_s"] = round(time.time() - meta["started"])
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)


SERVER_NAMES = {
    "ours": "ours",
    "ours-plain": "ours, plain (paired)",
    "rmcp": "rmcp",
    "python": "Python SDK",
    "typescript": "TypeScript SDK",
}
# The peers in the order of the report's columns.
PEERS = ("rmcp", "python", "typescript")
ERA_NAMES = {"legacy": "2025-11-25", "modern": "2026-07-28"}


def fmt_num(x, digits=0):
    if x is None:
        return "–"
    if digits == 0:
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


def fmt_ratio(x):
    if x is None:
        return "–"
    if x >= 100:
        return f"{x:.0f}×"
    if x >= 10:
        return f"{x:.1f}×"
    return f"{x:.2f}×"


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def spread(values, fmt):
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    m = statistics.median(values)
    if len(values) == 1:
        return fmt(m)
    return f"{fmt(m)} ({fmt(min(values))}–{fmt(max(values))})"


def report(bench_dir, out_path):
    meta_path = os.path.join(bench_dir, "meta.json")
    results_path = os.path.join(bench_dir, "results.jsonl")
    meta = json.load(open(meta_path))
    runs = [json.loads(line) for line in open(results_path) if line.strip()]
    configs = {}  # key -> {"runs": {server: {round: result}}, "failed": [...]}
    order = []
    for r in runs:
        key = (r["mode"], r["transport"], r["era"], r["concurrency"])
        if key not in configs:
            configs[key] = {"runs": {}, "failed": []}
            order.append(key)
        if r.get("result") is None:
            configs[key]["failed"].append(r)
            continue
        configs[key]["runs"].setdefault(r["server"], {})[r["round"]] = r["result"]

    def values(cfg, server, field):
        per_round = cfg["runs"].get(server, {})
        return [per_round[k].get(field) for k in sorted(per_round)]

    def ratios(cfg, server, field, invert=False):
        # our/peer within each round that has both runs
        ours, peer = cfg["runs"].get("ours", {}), cfg["runs"].get(server, {})
        out = []
        for rnd in sorted(set(ours) & set(peer)):
            a, b = ours[rnd].get(field), peer[rnd].get(field)
            if a is None or b is None or a == 0 or b == 0:
                continue
            out.append(b / a if invert else a / b)
        return out

    def title(key):
        mode, transport, era, conc = key
        what = "plain tools/call (echo)" if mode == "plain" else "MRTR (provision + 1 elicitation)"
        wire = f"http, ours on {workers} workers" if transport == "http-workers" else transport
        return f"{what} · {wire} · {ERA_NAMES.get(era, era)} ({era}) · concurrency {conc}"

    servers_seen = []
    for key in order:
        for s in configs[key]["runs"]:
            if s not in servers_seen:
                servers_seen.append(s)
    peers = [s for s in PEERS if s in servers_seen]
    s = meta["settings"]
    workers = s.get("workers", 0)
    L = []
    L.append("# Benchmarks")
    L.append("")
    L.append(
        "Our servers against [rmcp](https://crates.io/crates/rmcp) (the official Rust SDK), the "
        "official Python SDK and the official TypeScript SDK, driven by one neutral load generator (`loadgen`, "
        "`bench/loadgen`: its own wire code, one runtime thread). Produced by "
        "`scripts/bench.sh`; do not edit by hand."
    )
    L.append("")
    L.append("## Setup")
    L.append("")
    L.append(f"- Date: {meta['date']}; commit `{meta.get('git')}`.")
    L.append(
        f"- Machine: {meta.get('nproc')} cores ({meta.get('cpu')}), {meta.get('mem_gib')} GiB, "
        f"Linux {meta.get('kernel')}; server and load generator share the cores. Load average "
        f"(1/5/15 min) {meta.get('load_start')} before the runs and {meta.get('load_end')} after "
        f"{meta.get('elapsed_s')} s of them (a run itself keeps about 2 busy): anything else running "
        "on the machine shows up as noise."
    )
    L.append(
        f"- Versions: ours {meta.get('ours')} (`echo` and `provision` from `bench/ours`, "
        "release build with `mcp`'s default features), "
        f"rmcp {meta.get('rmcp')} (`bench/peers/rmcp-echo`, release build), "
        f"{meta.get('rustc')}; Python SDK `mcp` {meta.get('python_sdk')} "
        f"(`bench/peers/python`, Python {meta.get('python')}, uvicorn {meta.get('uvicorn')})"
        + (
            f"; TypeScript SDK `@modelcontextprotocol/server` {meta.get('typescript_sdk')} with "
            f"`@modelcontextprotocol/node` {meta.get('typescript_node_adapter')} (`bench/peers/typescript`, "
            f"Node {meta.get('node')}; the SDK's v2 line: v1, `@modelcontextprotocol/sdk`, speaks 2025-11-25 only)."
            if "typescript" in peers
            else "."
        )
    )
    L.append(
        f"- Each run: {s['warmup']} s warm-up, then {s['duration']} s measured; "
        f"{s['rounds']} round{'s' if s['rounds'] != 1 else ''} per configuration. A round runs ours, then each peer, back to back; "
        "HTTP servers are started fresh per run (loopback, free port, TCP_NODELAY on both ends), "
        "stdio servers are spawned by loadgen."
    )
    L.append(
        "- Plain: `tools/call echo {\"text\":\"hello\"}`. MRTR: `tools/call provision "
        "{\"name\":\"orders\"}`, one `{region}` elicitation answered: under 2026-07-28 an "
        "`InputRequiredResult` then a retry with `inputResponses` and the sealed `requestState`, "
        "under 2025-11-25 an `elicitation/create` request during the call. One call = the whole "
        "exchange."
    )
    L.append(
        "- Eras: `legacy` = 2025-11-25 (`initialize`; over HTTP one `Mcp-Session-Id` shared by all "
        "connections), `modern` = 2026-07-28 (no handshake, `_meta` on every request). All four "
        "servers speak both, so each row compares the servers in the same era; a server missing "
        "from a configuration shows as \"–\"."
    )
    L.append(
        "- Cells: median over the rounds (min–max). Ratios are ours/peer computed within each "
        "round, then their median (min–max): calls/s above 1 means we are faster; CPU/call and RSS "
        "below 1 mean we use less. CPU/call is the server's user+system time over the window "
        "divided by the calls in it; peak RSS is the server's VmHWM."
    )
    if any(key[1] == "http-workers" for key in order):
        L.append(
            f"- `http-workers` rows: the same HTTP runs, with our server started as `http ADDR --workers {workers}` "
            f"(`Serve::workers({workers})`: {workers} threads, each running a single-threaded runtime, every connection "
            "pinned to one of them; the multi-threaded runtime of `#[tokio::main]` then only accepts). The `http` rows "
            "run it with its default, every connection on that multi-threaded runtime, as rmcp runs its own; the "
            "Python and TypeScript peers each serve on one event loop."
        )
    L.append("")

    # Summary
    L.append("## Summary")
    L.append("")
    head = ["configuration", "ours calls/s"] + [f"{SERVER_NAMES[p]} calls/s" for p in peers]
    head += [f"ours/{SERVER_NAMES[p]} calls/s" for p in peers]
    head += [f"ours/{SERVER_NAMES[p]} CPU/call" for p in peers]
    head += ["peak RSS KiB (" + ", ".join(["ours"] + [SERVER_NAMES[p] for p in peers]) + ")"]
    L.append("| " + " | ".join(head) + " |")
    L.append("|" + "---|" * len(head))
    for key in order:
        cfg = configs[key]
        mode, transport, era, conc = key
        row = [f"{mode} · {transport} · {era} · c{conc}", fmt_num(med(values(cfg, "ours", "calls_per_sec")))]
        row += [fmt_num(med(values(cfg, p, "calls_per_sec"))) for p in peers]
        row += [fmt_ratio(med(ratios(cfg, p, "calls_per_sec"))) for p in peers]
        row += [f"{med(ratios(cfg, p, 'server_cpu_us_per_call')):.2f}" if ratios(cfg, p, "server_cpu_us_per_call") else "–" for p in peers]
        row += [" / ".join(fmt_num(med(values(cfg, x, "server_peak_rss_kb"))) for x in ["ours"] + peers)]
        L.append("| " + " | ".join(row) + " |")
    L.append("")

    # Goals (issue 22's targets). Each is checked in every configuration it applies to that
    # has the figures; a peer missing from a configuration adds no row there.
    goals = []

    def get(key, server, field):
        cfg = configs.get(key)
        return med(values(cfg, server, field)) if cfg else None

    def get_ratio(key, peer, field):
        cfg = configs.get(key)
        return med(ratios(cfg, peer, field)) if cfg else None

    def at_least(where, key, peer, times, label):
        r = get_ratio(key, peer, "calls_per_sec")
        if r is not None:
            goals.append((f"{where}: calls/s ≥ {times}× {label}", fmt_ratio(r), r >= times))

    for key in order:
        mode, transport, era, conc = key
        where = f"{mode if mode == 'plain' else 'MRTR'} · {transport} · {era} · c{conc}"
        if mode == "plain" and conc == 16 and transport in ("http", "http-workers"):
            at_least(where, key, "rmcp", 3, "rmcp")
            r = get_ratio(key, "rmcp", "server_cpu_us_per_call")
            if r is not None:
                goals.append((f"{where}: CPU/call ≤ 0.2× rmcp's", f"{r:.2f}×", r <= 0.2))
        if mode == "plain" and conc == 16 and transport == "stdio":
            at_least(where, key, "rmcp", 4, "rmcp")
        if mode == "mrtr":
            at_least(where, key, "python", 50, "Python SDK")
            # Against our own plain calls in the same transport, era and concurrency: per round
            # against the plain run paired with it, else (results from before the pairing)
            # the two configurations' medians.
            paired = get_ratio(key, "ours-plain", "calls_per_sec")
            plain = get(("plain", transport, era, conc), "ours", "calls_per_sec")
            mrtr = get(key, "ours", "calls_per_sec")
            r = paired if paired is not None else (mrtr / plain if plain and mrtr else None)
            if r is not None:
                goals.append((f"{where}: ≥ 0.45× our plain calls/s", f"{r:.2f}×", r >= 0.45))
        at_least(where, key, "typescript", 10, "TypeScript SDK")
        a, b = get(key, "ours", "server_peak_rss_kb"), get(key, "rmcp", "server_peak_rss_kb")
        # Under load only (concurrency 16, as every MRTR run is): one call in flight
        # says little about memory.
        if a is not None and b is not None and (mode == "mrtr" or conc == 16):
            goals.append((f"{where}: peak RSS ≤ rmcp's", f"{a:,.0f} vs {b:,.0f} KiB", a <= b))
    if goals:
        L.append("## Goals")
        L.append("")
        L.append(
            "Ratios to a peer are the medians of the per-round ratios. MRTR against our plain "
            "calls/s is the median of the per-round ratios to the plain run paired with each MRTR "
            "run (our `echo` server, same transport, era and concurrency, run right after it)."
        )
        L.append("")
        L.append("| goal | measured (median) | met |")
        L.append("|---|---|---|")
        for name, measured, ok in goals:
            L.append(f"| {name} | {measured} | {'yes' if ok else '**no**'} |")
        L.append("")

    # Details
    L.append("## Details")
    L.append("")
    for key in order:
        cfg = configs[key]
        L.append(f"### {title(key)}")
        L.append("")
        L.append("| server | calls/s | p50 µs | p99 µs | CPU µs/call | peak RSS KiB | errors |")
        L.append("|---|---|---|---|---|---|---|")
        for server in ["ours", "ours-plain"] + peers:
            if server not in cfg["runs"]:
                continue
            L.append(
                "| "
                + " | ".join(
                    [
                        SERVER_NAMES[server],
                        spread(values(cfg, server, "calls_per_sec"), fmt_num),
                        spread(values(cfg, server, "p50_us"), fmt_num),
                        spread(values(cfg, server, "p99_us"), fmt_num),
                        spread(values(cfg, server, "server_cpu_us_per_call"), lambda x: fmt_num(x, 1)),
                        spread(values(cfg, server, "server_peak_rss_kb"), fmt_num),
                        str(sum(v or 0 for v in values(cfg, server, "errors"))),
                    ]
                )
                + " |"
            )
        L.append("")
        for p in peers + ["ours-plain"]:
            if p not in cfg["runs"]:
                continue
            parts = []
            for field, label in (("calls_per_sec", "calls/s"), ("server_cpu_us_per_call", "CPU/call"), ("server_peak_rss_kb", "peak RSS")):
                rs = ratios(cfg, p, field)
                if rs:
                    parts.append(f"{label} {spread(rs, lambda x: f'{x:.2f}')}")
            if parts:
                who = "ours MRTR/ours plain (paired)" if p == "ours-plain" else f"ours/{SERVER_NAMES[p]}"
                L.append(f"- {who} (per round): " + "; ".join(parts) + ".")
        for f in cfg["failed"]:
            L.append(f"- round {f['round']}, {SERVER_NAMES.get(f['server'], f['server'])}: run failed ({f.get('error', '?')}).")
        L.append("")
    failed = sum(len(cfg["failed"]) for cfg in configs.values())
    L.append(
        f"{len(runs) - failed} runs ({failed} failed). Raw results: `target/bench/results.jsonl` "
        "(one line per run); re-render with `scripts/bench.sh report`."
    )
    L.append("")
    # Keep the sections scripts/build-time.sh, scripts/bench-redis.sh and
    # scripts/bench-otel.sh maintain.
    marker = "## Build time: a crate with 100 tools"
    kept_sections = [
        ("## Single-use state on Redis", "<!-- redis-bench:end -->"),
        ("## The cost of OpenTelemetry", "<!-- otel-bench:end -->"),
    ]
    if os.path.exists(out_path):
        previous = open(out_path).read()
        kept = ""
        if marker in previous:
            kept = marker + previous.split(marker, 1)[1].rstrip("\n")
            L.append(kept)
            L.append("")
        for heading, end in kept_sections:
            if heading in previous and heading not in kept:
                section = previous.split(heading, 1)[1]
                if end in section:
                    L.append(heading + section.split(end, 1)[0] + end)
                    L.append("")
    with open(out_path, "w") as f:
        f.write("\n".join(L))


def print_run(line, server):
    """One run's figures, for the progress output."""
    r = json.loads(line)

    def f(key, width, digits=0):
        return ("%*.*f" % (width, digits, r[key])) if r.get(key) is not None else "%*s" % (width, "-")

    print("   %-10s %s calls/s  p50 %s us  p99 %s us  cpu %s us/call  rss %s KiB  errors %s" % (
        server, f("calls_per_sec", 10), f("p50_us", 6), f("p99_us", 7), f("server_cpu_us_per_call", 8, 1),
        f("server_peak_rss_kb", 7), r.get("errors")))


def write_section(out_path, name, heading, block):
    """Put `block` into OUT_PATH between `<!-- NAME:start -->` and `<!-- NAME:end -->`,
    replacing what was there, or under `## HEADING` at the end the first time."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    marked = f"{start}\n{block.rstrip()}\n{end}"
    try:
        text = open(out_path).read()
    except FileNotFoundError:
        text = ""
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + marked + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + f"\n\n## {heading}\n\n" + marked + "\n"
    with open(out_path, "w") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser(description="The report side of scripts/bench.sh.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("meta", help="record the machine, versions and settings before the runs")
    p.add_argument("bench_dir")
    p.add_argument("settings", help="the run settings, a JSON object")
    p = sub.add_parser("finish", help="record the load average and elapsed time after the runs")
    p.add_argument("bench_dir")
    p = sub.add_parser("run-line", help="print one run's figures")
    p.add_argument("result", help="loadgen's JSON line")
    p.add_argument("server")
    p = sub.add_parser("report", help="write the Markdown report")
    p.add_argument("bench_dir")
    p.add_argument("out")
    p = sub.add_parser("section", help="write standard input into OUT between NAME's markers")
    p.add_argument("out")
    p.add_argument("name", help="the markers' name, e.g. otel-bench")
    p.add_argument("heading", help="the section's heading, when it is new")
    args = parser.parse_args()
    if args.command == "meta":
        write_meta(args.bench_dir, args.settings)
    elif args.command == "finish":
        finish_meta(args.bench_dir)
    elif args.command == "run-line":
        print_run(args.result, args.server)
    elif args.command == "section":
        write_section(args.out, args.name, args.heading, sys.stdin.read())
    else:
        report(args.bench_dir, args.out)


if __name__ == "__main__":
    main()
