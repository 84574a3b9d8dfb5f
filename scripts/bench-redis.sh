#!/usr/bin/env bash
# The cost of single-use request state on Redis: multi-round (MRTR) calls to the
# `provisioner` example over HTTP with MCP_REQUEST_STATE_SINGLE_USE=1, used rounds recorded
# in memory against in a Redis (MCP_REDIS_URL), measured by `loadgen` at concurrency 16.
#
# It starts its own redis-server on a free loopback port (no persistence) and stops it at
# the end. Each round runs both configurations back to back (memory, then Redis), so drift
# of the machine hits both alike; the Redis/memory ratios are taken within each round
# before their median is taken. It prints a Markdown table and writes it into BENCHMARKS.md
# between `<!-- redis-bench:start -->` and `<!-- redis-bench:end -->` (under "## Single-use
# state on Redis", added at the end the first time), leaving the rest of the file alone.
#
# Usage: scripts/bench-redis.sh
#
# Settings (environment):
#   BENCH_DURATION=5            measured seconds per run
#   BENCH_WARMUP=2              warm-up seconds per run
#   BENCH_ROUNDS=3              rounds
#   BENCH_CONCURRENCY=16        concurrent calls
#   BENCH_OUT=BENCHMARKS.md     report path (relative to the repository root)
#
# Results: target/bench-redis/results.jsonl (one line per run), logs in target/bench-redis/logs/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

duration=${BENCH_DURATION:-5}
warmup=${BENCH_WARMUP:-2}
rounds=${BENCH_ROUNDS:-3}
concurrency=${BENCH_CONCURRENCY:-16}
out=${BENCH_OUT:-BENCHMARKS.md}


target_dir=${CARGO_TARGET_DIR:-$root/target}
bench_dir="$target_dir/bench-redis"
results="$bench_dir/results.jsonl"
logs="$bench_dir/logs"

echo "== building (release): provisioner, loadgen"
cargo build --release -q -p mcp-examples -p mcp-loadgen --bin provisioner --bin loadgen
provisioner="$target_dir/release/provisioner"
loadgen="$target_dir/release/loadgen"

# Uniform server environment: warnings only, per-process keys, default ttl.
unset RUST_LOG MCP_REQUEST_STATE_KEYS MCP_REQUEST_STATE_TTL MCP_REDIS_URL
export MCP_REQUEST_STATE_SINGLE_USE=1

mkdir -p "$bench_dir"
rm -rf "$logs"
mkdir -p "$logs"
: >"$results"

die() {
  echo "bench-redis: $*" >&2
  exit 1
}
# need, free_port, wait_for_port
# shellcheck source=lib/procs.sh
source "$root/scripts/lib/procs.sh"

server_pid=""
redis_pid=""
cleanup() {
  stop_processes "$server_pid" "$redis_pid"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

redis_bin=$(need redis-server redis-server)
free_port redis_port
"$redis_bin" --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >"$logs/redis-server.log" 2>&1 &
redis_pid=$!
wait_for_port "$redis_port" "$redis_pid" || { echo "bench-redis: redis-server did not start" >&2; exit 1; }
redis_url="redis://127.0.0.1:$redis_port/0"
redis_version=$("$redis_bin" --version | sed -n 's/.*v=\([^ ]*\).*/\1/p')
echo "== redis-server $redis_version on port $redis_port"

run_count=0
# run_one STORE ROUND: one loadgen run against a fresh provisioner; appends a line.
run_one() {
  local store=$1 round=$2
  run_count=$((run_count + 1))
  local log port line="" error=""
  log="$logs/$(printf '%02d' "$run_count")-r$round-$store.log"
  free_port port
  if [[ "$store" == redis ]]; then
    MCP_REDIS_URL="$redis_url" "$provisioner" http "127.0.0.1:$port" >>"$log" 2>&1 &
  else
    "$provisioner" http "127.0.0.1:$port" >>"$log" 2>&1 &
  fi
  server_pid=$!
  if wait_for_port "$port" "$server_pid"; then
    line=$("$loadgen" --transport http --url "http://127.0.0.1:$port/mcp" --pid "$server_pid" --era modern \
      --mode mrtr --concurrency "$concurrency" --duration "$duration" --warmup "$warmup" --label "$store" \
      --expect eu-west-1 2>>"$log") || error="loadgen failed"
  else
    error="server did not listen on port $port"
  fi
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
  [[ -n "$error" || -n "$line" ]] || error="no result line"
  if [[ -n "$error" ]]; then
    echo "bench-redis: round $round, $store: $error (see $log)" >&2
    exit 1
  fi
  if [[ "$store" == redis ]] && command -v redis-cli >/dev/null; then
    # The rounds really went through Redis: one key per used round (until it expires).
    local keys
    keys=$(redis-cli -p "$redis_port" dbsize)
    ((keys > 0)) || { echo "bench-redis: round $round: no used round was recorded in Redis" >&2; exit 1; }
    echo "   ($keys used rounds recorded in Redis so far)"
  fi
  printf '{"round":%s,"store":"%s","result":%s}\n' "$round" "$store" "$line" >>"$results"
  python3 "$root/scripts/bench_report.py" run-line "$line" "$store" || true
}

read -r load_before _ </proc/loadavg
started=$SECONDS
for ((round = 1; round <= rounds; round++)); do
  echo "== round $round"
  run_one memory "$round"
  run_one redis "$round"
done
echo "== $run_count runs in $((SECONDS - started)) s"
read -r load_after _ </proc/loadavg

# The table (median over rounds; ratios per round, then their median), into $out.
BENCH_SCRIPTS="$root/scripts" python3 - "$results" "$root/$out" "$redis_version" "$duration" "$rounds" "$concurrency" "$load_before" "$load_after" \
  "$(nproc)" <<'EOF'
import json, os, statistics, sys

results, out, version, duration, rounds, concurrency, load_before, load_after, cores = sys.argv[1:]
runs = [json.loads(line) for line in open(results) if line.strip()]
by = {}
for run in runs:
    by.setdefault(run["store"], {})[run["round"]] = run["result"]
errors = sum(r["result"].get("errors") or 0 for r in runs)


def median(store, field):
    return statistics.median(r[field] for r in by[store].values())


def ratio(field):
    rs = [by["redis"][n][field] / by["memory"][n][field] for n in by["redis"] if n in by["memory"]]
    return statistics.median(rs)


lines = [
    f"`scripts/bench-redis.sh`: the `provisioner` example over HTTP with "
    f"`MCP_REQUEST_STATE_SINGLE_USE=1`, `loadgen --mode mrtr` (2026-07-28, one elicitation per call, "
    f"so each call uses one sealed round) at concurrency {concurrency}; {duration} s per run, "
    f"median of {rounds} rounds (ratios taken per round); redis-server {version} on loopback, "
    f"no persistence, on the same machine ({cores} cores; 1-minute load average {load_before} before the "
    f"runs, {load_after} after: anything else running skews the figures); {errors} errors.",
    "",
    "| single-use store | calls/s | p99 (µs) |",
    "|---|---|---|",
    f"| in memory (`InMemoryConsumedTokens`) | {median('memory', 'calls_per_sec'):,.0f} | {median('memory', 'p99_us'):,.0f} |",
    f"| Redis {version} (`RedisConsumedTokens`, `MCP_REDIS_URL`) | {median('redis', 'calls_per_sec'):,.0f} | {median('redis', 'p99_us'):,.0f} |",
    f"| Redis / memory | {ratio('calls_per_sec'):.2f}× | {ratio('p99_us'):.2f}× |",
]
table = "\n".join(lines)
print(table)

sys.path.insert(0, os.environ["BENCH_SCRIPTS"])
from bench_report import write_section  # noqa: E402
write_section(out, "redis-bench", "Single-use state on Redis", table)
EOF
echo "bench-redis: wrote $out (raw results in $results)"
