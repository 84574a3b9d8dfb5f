#!/usr/bin/env bash
# Benchmarks our servers against three peers with one neutral load generator (`loadgen`) and
# writes BENCHMARKS.md at the repository root.
#
#   ours        bench/ours: our `echo` (plain calls) and `provision` (MRTR calls) servers, built
#               with mcp's default features only, as a user's server is (the examples link
#               oauth, redis and otel too, which a peak-RSS comparison would measure instead)
#   rmcp        bench/peers/rmcp-echo: rmcp (the official Rust SDK) 3.11 from crates.io
#   python      bench/peers/python: the official Python SDK, mcp==2.3.0 (in .tools/pyvenv)
#   typescript  bench/peers/typescript: the official TypeScript SDK's v2 line,
#               @modelcontextprotocol/server 2.4.0 (+ @modelcontextprotocol/node), on Node 22;
#               `npm ci` installs both from its package-lock.json into its node_modules. v2,
#               not the v1 `@modelcontextprotocol/sdk` package (1.32): v1 speaks 2025-11-25
#               only, v2 is the line the SDK calls stable and serves both eras.
#
# Configurations: every combination of transport (stdio, http) × era (legacy = 2025-11-25
# with `initialize`, modern = 2026-07-28 per-request) × concurrency (1, 16) for plain
# `tools/call echo {"text":"hello"}`, then MRTR (`provision {"name":"orders"}` answering one
# `{region}` elicitation) at concurrency 16. All four servers speak both eras, so every row
# compares like with like (a peer's failed runs leave it out of a row: "–" in the report).
# Each configuration runs in rounds; a round is one run of each server back to back (ours,
# rmcp, python, typescript), so slow drift of the machine hits every server alike, and the
# our/peer ratios are taken within each round before their median is taken.
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
#   BENCH_PEERS="rmcp python typescript"
#                               peers measured beside ours
#   BENCH_MRTR_ERAS="modern"    eras of the MRTR runs ("" for none; "legacy modern" adds the
#                               2025-11-25 back-channel elicitation flow)
#   BENCH_MRTR_CONCURRENCY=16
#   BENCH_WORKERS=$(nproc)      the "http-workers" rows: plain and MRTR over HTTP, modern era,
#                               concurrency 16, with our server started as `http ADDR
#                               --workers N` (N single-threaded runtimes, every connection
#                               pinned to one; `Serve::workers`) and the peers as in the
#                               "http" rows; "" or 0 leaves those rows out
#   BENCH_OUT=BENCHMARKS.md     report path (relative to the repository root)
#
# Results: target/bench/results.jsonl (one line per run: round, server, loadgen's JSON line),
# target/bench/meta.json (machine, versions, settings), per-run logs in target/bench/logs/.
# In an MRTR round our plain server also runs, right after our MRTR server, so that the
# "MRTR ≥ 0.45× our plain rate" goal compares two runs a few seconds apart rather than two
# configurations ten minutes apart (the host's speed drifts more than that goal's margin).
# With the defaults: 8 plain + 2 MRTR configurations × 3 rounds × 4 servers, plus 2 × 3
# paired plain runs, plus the two "http-workers" configurations (27 runs) = 153 runs of about
# 7.7 s: about 20 minutes after the builds.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

duration=${BENCH_DURATION:-5}
warmup=${BENCH_WARMUP:-2}
rounds=${BENCH_ROUNDS:-3}
transports=${BENCH_TRANSPORTS:-stdio http}
eras=${BENCH_ERAS:-legacy modern}
concurrencies=${BENCH_CONCURRENCY:-1 16}
peers=${BENCH_PEERS:-rmcp python typescript}
mrtr_eras=${BENCH_MRTR_ERAS-modern}
mrtr_concurrency=${BENCH_MRTR_CONCURRENCY:-16}
workers=${BENCH_WORKERS-$(nproc)}
[[ -z "$workers" || "$workers" =~ ^[0-9]{1,4}$ ]] || { echo "bench: BENCH_WORKERS must be a number" >&2; exit 2; }
workers=$((10#${workers:-0}))
((workers <= 1024)) || { echo "bench: BENCH_WORKERS is at most 1024 (the server's --workers limit)" >&2; exit 2; }
out=${BENCH_OUT:-BENCHMARKS.md}

target_dir=${CARGO_TARGET_DIR:-$root/target}
bench_dir="$target_dir/bench"
results="$bench_dir/results.jsonl"
meta="$bench_dir/meta.json"
logs="$bench_dir/logs"
venv="$root/.tools/pyvenv"
rmcp_manifest="$root/bench/peers/rmcp-echo/Cargo.toml"
rmcp_bin="${CARGO_TARGET_DIR:-$root/bench/peers/rmcp-echo/target}/release/rmcp-echo"
ts_dir="$root/bench/peers/typescript"
# The Node 22 binary the `node` npm package installs (a real executable, not a wrapper, so
# the pid loadgen measures is the server's own).
ts_node="$ts_dir/node_modules/.bin/node"

# The report step (stdlib Python): `bench_report.py meta` records the machine and versions
# before the runs, `bench_report.py report` turns results.jsonl + meta.json into Markdown.
report_py="$root/scripts/bench_report.py"

if [[ "${1:-}" == "report" ]]; then
  [[ -s "$results" && -s "$meta" ]] || { echo "bench: no results in $bench_dir; run scripts/bench.sh first" >&2; exit 1; }
  python3 "$report_py" report "$bench_dir" "$root/$out"
  echo "bench: wrote $out"
  exit 0
elif [[ $# -gt 0 ]]; then
  echo "usage: scripts/bench.sh [report]" >&2
  exit 2
fi

for peer in $peers; do
  [[ "$peer" == rmcp || "$peer" == python || "$peer" == typescript ]] ||
    { echo "bench: BENCH_PEERS: unknown peer $peer (rmcp, python, typescript)" >&2; exit 2; }
done

# ---- builds -------------------------------------------------------------------------------

echo "== building (release): echo, provision, loadgen; the rmcp peer"
# Only these two packages: cargo unifies `mcp`'s features over the packages of one build,
# and any that needs more of `mcp` would link it into our servers.
cargo build --release -q -p mcp-bench-ours -p mcp-loadgen --bin echo --bin provision --bin loadgen
cargo build --release -q --manifest-path "$rmcp_manifest"
ours_echo="$target_dir/release/echo"
ours_provision="$target_dir/release/provision"
loadgen="$target_dir/release/loadgen"

# shellcheck source=scripts/lib/pyvenv.sh
. "$root/scripts/lib/pyvenv.sh"
ensure_pyvenv "$root" bench

# The TypeScript peer: Node 22 (the `node` npm package, whatever node is on PATH: the
# machines this runs on have had Node 20) and the SDK, both pinned in its package-lock.json.
# Reinstalled with `npm ci` when the Node or SDK version on disk is not the pinned one.
if [[ " $peers " == *" typescript "* ]]; then
  read -r ts_want_node ts_want_sdk < <(python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
print(p["devDependencies"]["node"], p["dependencies"]["@modelcontextprotocol/server"])' "$ts_dir/package.json")
  if [[ "$("$ts_node" --version 2>/dev/null)" != "v$ts_want_node" ]] ||
    ! grep -q "\"version\": \"$ts_want_sdk\"" "$ts_dir/node_modules/@modelcontextprotocol/server/package.json" 2>/dev/null; then
    echo "== installing Node $ts_want_node and @modelcontextprotocol/server $ts_want_sdk into $ts_dir/node_modules"
    (cd "$ts_dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

# ---- runs ---------------------------------------------------------------------------------

# Uniform server environment: default logging (warnings only) and default sealing keys.
unset RUST_LOG MCP_REQUEST_STATE_KEYS MCP_REQUEST_STATE_TTL

mkdir -p "$bench_dir"
rm -rf "$logs"
mkdir -p "$logs"
: >"$results"
settings=$(printf '{"duration":%s,"warmup":%s,"rounds":%s,"transports":"%s","eras":"%s","concurrency":"%s","peers":"%s","mrtr_eras":"%s","mrtr_concurrency":%s,"workers":%s}' \
  "$duration" "$warmup" "$rounds" "$transports" "$eras" "$concurrencies" "$peers" "$mrtr_eras" "$mrtr_concurrency" "$workers")
python3 "$report_py" meta "$bench_dir" "$settings"
read -r load1 _ </proc/loadavg
if awk -v l="$load1" 'BEGIN { exit !(l > 0.5) }'; then
  echo "bench: warning: load average $load1 before the runs; other work on the machine skews the results" >&2
fi

# free_port, wait_for_port, stop_processes
# shellcheck source=lib/procs.sh
source "$root/scripts/lib/procs.sh"

server_pid=""
cleanup() {
  stop_processes "$server_pid"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The server's command (without its `stdio` / `http ADDR` argument) for SERVER and MODE.
server_command() {
  case "$1/$2" in
    ours/plain) cmd=("$ours_echo") ;;
    ours/mrtr) cmd=("$ours_provision") ;;
    rmcp/*) cmd=("$rmcp_bin") ;;
    python/plain) cmd=("$py" "$root/bench/peers/python/echo_server.py") ;;
    python/mrtr) cmd=("$py" "$root/bench/peers/python/provision_server.py") ;;
    typescript/plain) cmd=("$ts_node" "$ts_dir/echo_server.mjs") ;;
    typescript/mrtr) cmd=("$ts_node" "$ts_dir/provision_server.mjs") ;;
    *) echo "bench: unknown server $1" >&2; exit 2 ;;
  esac
}

die() {
  echo "bench: $*" >&2
  exit 1
}

run_count=0
# run_one SERVER MODE TRANSPORT ERA CONCURRENCY ROUND [AS_MODE AS_SERVER]: one loadgen run;
# appends a line, filed under AS_MODE and AS_SERVER when given (the paired plain runs).
run_one() {
  local server=$1 mode=$2 transport=$3 era=$4 conc=$5 round=$6 as_mode=${7:-$2} as_server=${8:-$1}
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
    free_port port
    # "http-workers": the same wire, with our server on its per-core runtimes.
    local options=()
    if [[ "$transport" == http-workers && "$server" == ours ]]; then
      options=(--workers "$workers")
    fi
    "${cmd[@]}" http "127.0.0.1:$port" "${options[@]}" >>"$log" 2>&1 &
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
    "$as_mode" "$transport" "$era" "$conc" "$round" "$as_server")
  if [[ -n "$error" ]]; then
    local last
    last=$(tail -n 1 "$log" 2>/dev/null | tr -d '"\\' | cut -c1-200)
    printf '{%s,"result":null,"error":"%s: %s"}\n' "$head" "$error" "$last" >>"$results"
    printf '   %-10s FAILED (%s; see %s)\n' "$as_server" "$error" "$log"
  else
    printf '{%s,"result":%s}\n' "$head" "$line" >>"$results"
    python3 "$report_py" run-line "$line" "$as_server" || true
  fi
}

# run_config MODE TRANSPORT ERA CONCURRENCY: the rounds of one configuration.
run_config() {
  local round server
  echo "== $1 · $2 · $3 · concurrency $4"
  for ((round = 1; round <= rounds; round++)); do
    for server in ours $peers; do
      run_one "$server" "$1" "$2" "$3" "$4" "$round"
      if [[ "$1" == mrtr && "$server" == ours ]]; then
        run_one ours plain "$2" "$3" "$4" "$round" mrtr ours-plain
      fi
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
if ((workers > 0)) && [[ " $transports " == *" http "* ]]; then
  run_config plain http-workers modern 16
  if [[ " $mrtr_eras " == *" modern "* ]]; then
    run_config mrtr http-workers modern "$mrtr_concurrency"
  fi
fi
echo "== $run_count runs in $((SECONDS - started)) s"
python3 "$report_py" finish "$bench_dir"

python3 "$report_py" report "$bench_dir" "$root/$out"
echo "bench: wrote $out (raw results in $results)"
