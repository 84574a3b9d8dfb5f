#!/usr/bin/env bash
# Benchmarks our servers against two peers with one neutral load generator (`loadgen`) and
# writes BENCHMARKS.md at the repository root.
#
#   ours    our `echo` example (plain calls) and `provisioner` example (MRTR calls)
#   rmcp    bench/peers/rmcp-echo: rmcp (the official Rust SDK) 3.11 from crates.io
#   python  bench/peers/python: the official Python SDK, mcp==2.3.0 (in .tools/pyvenv)
#
# Configurations: every combination of transport (stdio, http) × era (legacy = 2025-11-25
# with `initialize`, modern = 2026-07-28 per-request) × concurrency (1, 16) for plain
# `tools/call echo {"text":"hello"}`, then MRTR (`provision {"name":"orders"}` answering one
# `{region}` elicitation) at concurrency 16. All three servers speak both eras, so every row
# compares like with like. Each configuration runs in rounds; a round is one run of each
# server back to back (ours, rmcp, python), so slow drift of the machine hits every server
# alike, and the our/peer ratios are taken within each round before their median is taken.
# An HTTP server is started fresh for every run on a free loopback port (and its pid handed
# to loadgen for CPU and peak RSS); a stdio server is spawned by loadgen itself.
#
# Usage:
#   scripts/bench.sh            # build, run everything, write BENCHMARKS.md
#   scripts/bench.sh report     # rewrite BENCHMARKS.md from the last results
#
# Settings (environment):
#   BENCH_DURATION=5            measured seconds per run
#   BENCH_WARMUP=2              warm-up seconds per run (a stdio server's start-up, about 1.2 s
#                               for the Python SDK, falls in it: modern-era runs have no
#                               handshake to wait for)
#   BENCH_ROUNDS=3              rounds per configuration
#   BENCH_TRANSPORTS="stdio http"
#   BENCH_ERAS="legacy modern"  eras of the plain runs
#   BENCH_CONCURRENCY="1 16"    concurrencies of the plain runs
#   BENCH_PEERS="rmcp python"   peers measured beside ours
#   BENCH_MRTR_ERAS="modern"    eras of the MRTR runs ("" for none; "legacy modern" adds the
#                               2025-11-25 back-channel elicitation flow)
#   BENCH_MRTR_CONCURRENCY=16
#   BENCH_OUT=BENCHMARKS.md     report path (relative to the repository root)
#
# Results: target/bench/results.jsonl (one line per run: round, server, loadgen's JSON line),
# target/bench/meta.json (machine, versions, settings), per-run logs in target/bench/logs/.
# With the defaults: 8 plain + 2 MRTR configurations × 3 rounds × 3 servers = 90 runs of
# about 7.7 s: about 12 minutes after the builds (694 s measured on 2 cores).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

duration=${BENCH_DURATION:-5}
warmup=${BENCH_WARMUP:-2}
rounds=${BENCH_ROUNDS:-3}
transports=${BENCH_TRANSPORTS:-stdio http}
eras=${BENCH_ERAS:-legacy modern}
concurrencies=${BENCH_CONCURRENCY:-1 16}
peers=${BENCH_PEERS:-rmcp python}
mrtr_eras=${BENCH_MRTR_ERAS-modern}
mrtr_concurrency=${BENCH_MRTR_CONCURRENCY:-16}
out=${BENCH_OUT:-BENCHMARKS.md}

target_dir=${CARGO_TARGET_DIR:-$root/target}
bench_dir="$target_dir/bench"
results="$bench_dir/results.jsonl"
meta="$bench_dir/meta.json"
logs="$bench_dir/logs"
venv="$root/.tools/pyvenv"
rmcp_manifest="$root/bench/peers/rmcp-echo/Cargo.toml"
rmcp_bin="${CARGO_TARGET_DIR:-$root/bench/peers/rmcp-echo/target}/release/rmcp-echo"

# The report step: `python3 - meta` records the machine and versions before the runs,
# `python3 - report` turns results.jsonl + meta.json into the Markdown report. Stdlib only.
read -r -d '' report_py <<'PYEOF' || true
import json, os, platform, re, statistics, subprocess, sys, time

root, bench_dir = os.environ["BENCH_ROOT"], os.environ["BENCH_DIR"]
meta_path = os.path.join(bench_dir, "meta.json")
results_path = os.path.join(bench_dir, "results.jsonl")


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


def write_meta():
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
        "settings": json.loads(os.environ["BENCH_SETTINGS"]),
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


def finish_meta():
    meta = json.load(open(meta_path))
    meta["load_end"] = loadavg()
    meta["elapsed_s"] = round(time.time() - meta["started"])
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)


SERVER_NAMES = {"ours": "ours", "rmcp": "rmcp", "python": "Python SDK"}
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


def report(out_path):
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
        return f"{what} · {transport} · {ERA_NAMES.get(era, era)} ({era}) · concurrency {conc}"

    servers_seen = []
    for key in order:
        for s in configs[key]["runs"]:
            if s not in servers_seen:
                servers_seen.append(s)
    peers = [s for s in ("rmcp", "python") if s in servers_seen]
    s = meta["settings"]
    L = []
    L.append("# Benchmarks")
    L.append("")
    L.append(
        "Our servers against [rmcp](https://crates.io/crates/rmcp) (the official Rust SDK) and the "
        "official Python SDK, driven by one neutral load generator (`loadgen`, "
        "`examples/src/bin/loadgen.rs`: its own wire code, one runtime thread). Produced by "
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
        f"- Versions: ours {meta.get('ours')} (`echo` and `provisioner` examples, release build), "
        f"rmcp {meta.get('rmcp')} (`bench/peers/rmcp-echo`, release build), "
        f"{meta.get('rustc')}; Python SDK `mcp` {meta.get('python_sdk')} "
        f"(`bench/peers/python`, Python {meta.get('python')}, uvicorn {meta.get('uvicorn')})."
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
        "connections), `modern` = 2026-07-28 (no handshake, `_meta` on every request). All three "
        "servers speak both, so each row compares the servers in the same era."
    )
    L.append(
        "- Cells: median over the rounds (min–max). Ratios are ours/peer computed within each "
        "round, then their median (min–max): calls/s above 1 means we are faster; CPU/call and RSS "
        "below 1 mean we use less. CPU/call is the server's user+system time over the window "
        "divided by the calls in it; peak RSS is the server's VmHWM."
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

    # Goals
    goals = []

    def get(key, server, field):
        cfg = configs.get(key)
        return med(values(cfg, server, field)) if cfg else None

    def get_ratio(key, peer, field):
        cfg = configs.get(key)
        return med(ratios(cfg, peer, field)) if cfg else None

    def rss_goal(where, key):
        a, b = get(key, "ours", "server_peak_rss_kb"), get(key, "rmcp", "server_peak_rss_kb")
        if a is not None and b is not None:
            goals.append((f"{where}: peak RSS ≤ rmcp's", f"{a:,.0f} vs {b:,.0f} KiB", a <= b))

    for transport in ("stdio", "http"):
        for era in ("legacy", "modern"):
            key = ("plain", transport, era, 16)
            if key not in configs:
                continue
            where = f"plain · {transport} · {era} · c16"
            r = get_ratio(key, "rmcp", "calls_per_sec")
            if r is not None:
                goals.append((f"{where}: calls/s ≥ 3× rmcp", fmt_ratio(r), r >= 3))
            r = get_ratio(key, "rmcp", "server_cpu_us_per_call")
            if r is not None:
                goals.append((f"{where}: CPU/call ≤ 1/5 of rmcp's", f"{r:.2f} of rmcp's", r <= 0.2))
            r = get_ratio(key, "python", "calls_per_sec")
            if r is not None:
                goals.append((f"{where}: calls/s ≥ 30× Python SDK", fmt_ratio(r), r >= 30))
            rss_goal(where, key)
    for transport in ("stdio", "http"):
        for era in ("modern", "legacy"):
            for conc in sorted({k[3] for k in configs if k[0] == "mrtr"}):
                key = ("mrtr", transport, era, conc)
                if key not in configs:
                    continue
                where = f"MRTR · {transport} · {era} · c{conc}"
                plain = get(("plain", transport, era, conc), "ours", "calls_per_sec")
                mrtr = get(key, "ours", "calls_per_sec")
                if plain and mrtr:
                    goals.append((f"{where}: ≥ 0.4× our plain calls/s", f"{mrtr / plain:.2f}×", mrtr / plain >= 0.4))
                r = get_ratio(key, "python", "calls_per_sec")
                if r is not None:
                    goals.append((f"{where}: calls/s ≥ 50× Python SDK's MRTR", fmt_ratio(r), r >= 50))
                rss_goal(where, key)
    if goals:
        L.append("## Goals")
        L.append("")
        L.append(
            "Ratios to a peer are the medians of the per-round ratios; MRTR against our plain "
            "calls/s divides the two configurations' medians (same transport, era and concurrency)."
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
        for server in ["ours"] + peers:
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
        for p in peers:
            if p not in cfg["runs"]:
                continue
            parts = []
            for field, label in (("calls_per_sec", "calls/s"), ("server_cpu_us_per_call", "CPU/call"), ("server_peak_rss_kb", "peak RSS")):
                rs = ratios(cfg, p, field)
                if rs:
                    parts.append(f"{label} {spread(rs, lambda x: f'{x:.2f}')}")
            if parts:
                L.append(f"- ours/{SERVER_NAMES[p]} (per round): " + "; ".join(parts) + ".")
        for f in cfg["failed"]:
            L.append(f"- round {f['round']}, {SERVER_NAMES.get(f['server'], f['server'])}: run failed ({f.get('error', '?')}).")
        L.append("")
    failed = sum(len(cfg["failed"]) for cfg in configs.values())
    L.append(
        f"{len(runs) - failed} runs ({failed} failed). Raw results: `target/bench/results.jsonl` "
        "(one line per run); re-render with `scripts/bench.sh report`."
    )
    L.append("")
    # Keep the section scripts/build-time.sh maintains.
    marker = "## Build time: a crate with 100 tools"
    if os.path.exists(out_path):
        previous = open(out_path).read()
        if marker in previous:
            L.append(marker + previous.split(marker, 1)[1].rstrip("\n"))
            L.append("")
    with open(out_path, "w") as f:
        f.write("\n".join(L))


if sys.argv[1] == "meta":
    write_meta()
elif sys.argv[1] == "finish":
    finish_meta()
else:
    report(sys.argv[2])
PYEOF

export BENCH_ROOT="$root" BENCH_DIR="$bench_dir"

if [[ "${1:-}" == "report" ]]; then
  [[ -s "$results" && -s "$meta" ]] || { echo "bench: no results in $bench_dir; run scripts/bench.sh first" >&2; exit 1; }
  python3 - report "$root/$out" <<<"$report_py"
  echo "bench: wrote $out"
  exit 0
elif [[ $# -gt 0 ]]; then
  echo "usage: scripts/bench.sh [report]" >&2
  exit 2
fi

for peer in $peers; do
  [[ "$peer" == rmcp || "$peer" == python ]] || { echo "bench: BENCH_PEERS: unknown peer $peer (rmcp, python)" >&2; exit 2; }
done

# ---- builds -------------------------------------------------------------------------------

echo "== building (release): echo, provisioner, loadgen; the rmcp peer"
cargo build --release -q -p mcp-examples --bin echo --bin provisioner --bin loadgen
cargo build --release -q --manifest-path "$rmcp_manifest"
ours_echo="$target_dir/release/echo"
ours_provisioner="$target_dir/release/provisioner"
loadgen="$target_dir/release/loadgen"

# shellcheck source=scripts/lib/pyvenv.sh
. "$root/scripts/lib/pyvenv.sh"
ensure_pyvenv "$root" bench

# ---- runs ---------------------------------------------------------------------------------

# Uniform server environment: default logging (warnings only) and default sealing keys.
unset RUST_LOG MCP_REQUEST_STATE_KEYS MCP_REQUEST_STATE_TTL

mkdir -p "$bench_dir"
rm -rf "$logs"
mkdir -p "$logs"
: >"$results"
export BENCH_SETTINGS
BENCH_SETTINGS=$(printf '{"duration":%s,"warmup":%s,"rounds":%s,"transports":"%s","eras":"%s","concurrency":"%s","peers":"%s","mrtr_eras":"%s","mrtr_concurrency":%s}' \
  "$duration" "$warmup" "$rounds" "$transports" "$eras" "$concurrencies" "$peers" "$mrtr_eras" "$mrtr_concurrency")
python3 - meta <<<"$report_py"
read -r load1 _ </proc/loadavg
if awk -v l="$load1" 'BEGIN { exit !(l > 0.5) }'; then
  echo "bench: warning: load average $load1 before the runs; other work on the machine skews the results" >&2
fi

server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The server's command (without its `stdio` / `http ADDR` argument) for SERVER and MODE.
server_command() {
  case "$1/$2" in
    ours/plain) cmd=("$ours_echo") ;;
    ours/mrtr) cmd=("$ours_provisioner") ;;
    rmcp/*) cmd=("$rmcp_bin") ;;
    python/plain) cmd=("$py" "$root/bench/peers/python/echo_server.py") ;;
    python/mrtr) cmd=("$py" "$root/bench/peers/python/provision_server.py") ;;
    *) echo "bench: unknown server $1" >&2; exit 2 ;;
  esac
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Wait until PORT accepts connections (the server PID still alive); up to 30 s.
wait_for_port() {
  local port=$1 pid=$2 tries=0
  while ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || return 1
    tries=$((tries + 1))
    ((tries < 600)) || return 1
    sleep 0.05
  done
}

run_count=0
# run_one SERVER MODE TRANSPORT ERA CONCURRENCY ROUND: one loadgen run; appends a line.
run_one() {
  local server=$1 mode=$2 transport=$3 era=$4 conc=$5 round=$6
  run_count=$((run_count + 1))
  local log
  log="$logs/$(printf '%03d' "$run_count")-$mode-$transport-$era-c$conc-r$round-$server.log"
  server_command "$server" "$mode"
  local expect=hello
  [[ "$mode" == mrtr ]] && expect=eu-west-1
  local args=(--era "$era" --mode "$mode" --concurrency "$conc" --duration "$duration" --warmup "$warmup"
    --label "$server" --expect "$expect")
  local line="" error=""
  if [[ "$transport" == stdio ]]; then
    local command
    command="$(printf '%q ' "${cmd[@]}")stdio"
    line=$("$loadgen" --transport stdio --command "$command" "${args[@]}" 2>>"$log") || error="loadgen failed"
  else
    local port
    port=$(free_port)
    "${cmd[@]}" http "127.0.0.1:$port" >>"$log" 2>&1 &
    server_pid=$!
    if wait_for_port "$port" "$server_pid"; then
      line=$("$loadgen" --transport http --url "http://127.0.0.1:$port/mcp" --pid "$server_pid" "${args[@]}" 2>>"$log") ||
        error="loadgen failed"
    else
      error="server did not listen on port $port"
    fi
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
  if [[ -z "$error" && -z "$line" ]]; then
    error="no result line"
  elif [[ -z "$error" && "$line" == *'"calls":0,'* ]]; then
    error="no call completed in the window (a slow start? raise BENCH_WARMUP)"
    echo "$line" >>"$log"
  fi
  local head
  head=$(printf '"mode":"%s","transport":"%s","era":"%s","concurrency":%s,"round":%s,"server":"%s"' \
    "$mode" "$transport" "$era" "$conc" "$round" "$server")
  if [[ -n "$error" ]]; then
    local last
    last=$(tail -n 1 "$log" 2>/dev/null | tr -d '"\\' | cut -c1-200)
    printf '{%s,"result":null,"error":"%s: %s"}\n' "$head" "$error" "$last" >>"$results"
    printf '   %-6s FAILED (%s; see %s)\n' "$server" "$error" "$log"
  else
    printf '{%s,"result":%s}\n' "$head" "$line" >>"$results"
    python3 - "$line" "$server" <<'EOF' || true
import json, sys
r = json.loads(sys.argv[1])
f = lambda key, width, digits=0: ("%*.*f" % (width, digits, r[key])) if r.get(key) is not None else "%*s" % (width, "-")
print("   %-6s %s calls/s  p50 %s us  p99 %s us  cpu %s us/call  rss %s KiB  errors %s" % (
    sys.argv[2], f("calls_per_sec", 10), f("p50_us", 6), f("p99_us", 7), f("server_cpu_us_per_call", 8, 1),
    f("server_peak_rss_kb", 7), r.get("errors")))
EOF
  fi
}

# run_config MODE TRANSPORT ERA CONCURRENCY: the rounds of one configuration.
run_config() {
  local round server
  echo "== $1 · $2 · $3 · concurrency $4"
  for ((round = 1; round <= rounds; round++)); do
    for server in ours $peers; do
      run_one "$server" "$1" "$2" "$3" "$4" "$round"
    done
  done
}

started=$SECONDS
for transport in $transports; do
  for era in $eras; do
    for conc in $concurrencies; do
      run_config plain "$transport" "$era" "$conc"
    done
  done
done
for transport in $transports; do
  for era in $mrtr_eras; do
    run_config mrtr "$transport" "$era" "$mrtr_concurrency"
  done
done
echo "== $run_count runs in $((SECONDS - started)) s"
python3 - finish <<<"$report_py"

python3 - report "$root/$out" <<<"$report_py"
echo "bench: wrote $out (raw results in $results)"
