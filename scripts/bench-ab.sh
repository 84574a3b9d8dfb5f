#!/usr/bin/env bash
# A/B of server builds: each given server binary over HTTP (2026-07-28, `loadgen` at
# concurrency 16), in rounds, every binary once per round in turn so that drift of the
# machine hits them alike; prints each run and the medians. It is how the before/after
# figures of an optimization are taken: save the release binaries of each step (for
# example `cp target/release/echo /tmp/echo-before`; `cargo build --release -p mcp-bench-ours`), then
#
#   scripts/bench-ab.sh plain 3 /tmp/echo-before target/release/echo "target/release/echo|--workers 1"
#   scripts/bench-ab.sh mrtr 3 /tmp/provision-before target/release/provision
#
# A server is `BIN` or `BIN|EXTRA ARGS` (added after `http 127.0.0.1:PORT`). `plain` calls
# `echo {"text":"hello"}`, `mrtr` calls `provision {"name":"orders"}` with one elicitation
# (the `echo` and `provision` binaries). Run it on a quiet machine: other work on the
# cores lowers calls/s far more than any change measured here.
#
# Settings (environment): AB_DURATION=3 measured seconds, AB_WARMUP=1 warm-up seconds.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [[ $# -lt 3 || ( "$1" != plain && "$1" != mrtr ) || ! "$2" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/bench-ab.sh plain|mrtr ROUNDS BIN[|ARGS]..." >&2
  exit 2
fi
mode=$1
rounds=$2
shift 2
duration=${AB_DURATION:-3}
warmup=${AB_WARMUP:-1}
expect=hello
[[ "$mode" == mrtr ]] && expect=eu-west-1

target_dir=${CARGO_TARGET_DIR:-$root/target}
cargo build --release -q -p mcp-loadgen --bin loadgen
loadgen="$target_dir/release/loadgen"
# free_port, wait_for_port
# shellcheck source=lib/procs.sh
source "$root/scripts/lib/procs.sh"

server_pid=""
cleanup() {
  stop_processes "$server_pid"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

results=$(mktemp "${TMPDIR:-/tmp}/bench-ab.XXXXXX")
for ((round = 1; round <= rounds; round++)); do
  for server in "$@"; do
    bin=${server%%|*}
    extra=()
    [[ "$server" == *"|"* ]] && read -r -a extra <<<"${server#*|}"
    free_port port
    "$bin" http "127.0.0.1:$port" "${extra[@]}" >/dev/null 2>&1 &
    server_pid=$!
    wait_for_port "$port" "$server_pid" || { echo "bench-ab: $server did not listen" >&2; exit 1; }
    line=$("$loadgen" --transport http --url "http://127.0.0.1:$port/mcp" --pid "$server_pid" --era modern \
      --mode "$mode" --concurrency 16 --duration "$duration" --warmup "$warmup" --label "$server" \
      --expect "$expect" 2>/dev/null)
    cleanup
    server_pid=""
    printf '%s\t%s\n' "$round" "$line" >>"$results"
    python3 - "$line" "$round" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
print(f"round {sys.argv[2]}  {d['label']:<50} {d['calls_per_sec']:>9,.0f} calls/s  "
      f"{d['server_cpu_us_per_call']:7.2f} µs/call  rss {d['server_peak_rss_kb']:,} KiB  errors {d['errors']}")
PY
  done
done

echo "== medians over $rounds rounds ($mode, http, 2026-07-28, concurrency 16)"
python3 - "$results" "$@" <<'PY'
import json, statistics, sys
runs = {}
for row in open(sys.argv[1]):
    _, line = row.rstrip("\n").split("\t", 1)
    d = json.loads(line)
    runs.setdefault(d["label"], []).append(d)
for label in sys.argv[2:]:
    rs = runs.get(label, [])
    if not rs:
        continue
    med = lambda key: statistics.median(r[key] for r in rs)
    print(f"{label:<50} {med('calls_per_sec'):>9,.0f} calls/s  {med('server_cpu_us_per_call'):7.2f} µs/call  rss {med('server_peak_rss_kb'):,.0f} KiB")
PY
rm -f "$results"
