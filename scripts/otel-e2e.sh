#!/usr/bin/env bash
# OpenTelemetry end to end: one multi-round call traced across client and server, exported
# over OTLP/HTTP with JSON bodies to a receiver of our own (scripts/otlp_receiver.py).
#
#   1. scripts/otel_check.py --self-test: the checker catches broken exports.
#   2. The receiver, then `provisioner http` with OTEL_EXPORTER_OTLP_ENDPOINT pointing at it
#      (http/json, service `provisioner`, spans batched every 100 ms, metrics every 500 ms).
#   3. `otel_call` (service `otel_call`) calls provision_cluster {"name":"otel-demo"} and
#      answers its questions (region eu-west-1, size 10): two rounds, one trace. Its JSON
#      line must say ok, 2 questions answered, the provisioned cluster, and give the trace id.
#   4. The provisioner gets SIGTERM (it flushes its spans and metrics) and must exit 0.
#   5. otel_check.py (waiting up to 10 s for late exports) prints the trace as a tree and
#      checks it: the client's call span with its two round spans (client kind), under each
#      one server span (server kind, remote parent, the same JSON-RPC id, mcp.round,
#      mcp.request_state absent then ok, the input keys asked on round 1), resolver spans
#      under the server spans; the operation-duration histograms of both sides; no answer,
#      sealed requestState or token in anything exported; no request the receiver refused.
#
# Output in target/otel-e2e/: tree.txt (the trace, as printed), otlp/ (traces.jsonl,
# metrics.jsonl as received), otel_call.json, and the logs of every process.
#
#   bash scripts/otel-e2e.sh                    # debug build (reuses the test build)
#   PROFILE=release bash scripts/otel-e2e.sh
#
# Environment: PROFILE (debug).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

profile=${PROFILE:-debug}
target_dir=${CARGO_TARGET_DIR:-$root/target}
bin_dir=$target_dir/$profile
out=$target_dir/otel-e2e

say() { printf '== %s\n' "$*"; }
die() {
  printf 'otel-e2e.sh: FAIL: %s\n' "$*" >&2
  exit 1
}
# shellcheck source=lib/procs.sh
source "$root/scripts/lib/procs.sh"

# --- the checker first: cheap, and nothing below means anything if it is broken -----------
say "otel_check.py --self-test"
python3 "$root/scripts/otel_check.py" --self-test >/dev/null || die "otel_check.py --self-test"

# --- build -------------------------------------------------------------------------------
cargo_profile=$profile
if [ "$profile" = debug ]; then cargo_profile=dev; fi
say "building provisioner and otel_call ($profile)"
cargo build -q -p mcp-examples -p mcp-traffic --profile "$cargo_profile" --bin provisioner --bin otel_call

# --- processes ---------------------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out"
declare -A pids=()
stop_all_on_exit

# No OTEL_* setting of the caller's leaks into the run: only those below.
while read -r var; do unset "$var"; done < <(compgen -e | grep '^OTEL_' || true)

free_port receiver_port
python3 "$root/scripts/otlp_receiver.py" --port "$receiver_port" --out "$out/otlp" \
  </dev/null >"$out/receiver.log" 2>&1 &
pids[receiver]=$!
wait_ready receiver "$receiver_port"
[ -f "$out/otlp/ready" ] || die "the receiver listens but wrote no ready file"

# The exporter settings both sides share (each adds its OTEL_SERVICE_NAME).
otel_env=(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$receiver_port" OTEL_EXPORTER_OTLP_PROTOCOL=http/json
  OTEL_BSP_SCHEDULE_DELAY=100 OTEL_METRIC_EXPORT_INTERVAL=500)

free_port port
env "${otel_env[@]}" OTEL_SERVICE_NAME=provisioner RUST_LOG=info NO_COLOR=1 \
  "$bin_dir/provisioner" http "127.0.0.1:$port" </dev/null >/dev/null 2>"$out/provisioner.log" &
pids[provisioner]=$!
wait_ready provisioner "$port"
say "receiver :$receiver_port, provisioner :$port ($profile)"

say "otel_call: provision_cluster, two rounds"
status=0
env "${otel_env[@]}" OTEL_SERVICE_NAME=otel_call RUST_LOG=info NO_COLOR=1 timeout 60 \
  "$bin_dir/otel_call" --url "http://127.0.0.1:$port/mcp" --tool provision_cluster --args '{"name":"otel-demo"}' \
  </dev/null >"$out/otel_call.json" 2>"$out/otel_call.log" || status=$?
[ "$status" -eq 0 ] || die "otel_call exited with $status (see $out/otel_call.log)"
trace_id=$(python3 - "$out/otel_call.json" <<'EOF'
import json, re, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
if len(lines) != 1:
    sys.exit(f"otel_call printed {len(lines)} lines, expected one JSON line")
r = json.loads(lines[0])
problems = []
if r.get("ok") is not True:
    problems.append(f"ok={r.get('ok')!r}")
if r.get("questions") != 2:
    problems.append(f"questions={r.get('questions')!r}, expected 2 (region and size, asked together)")
if "otel-demo" not in str(r.get("text")) or "eu-west-1" not in str(r.get("text")):
    problems.append(f"text={r.get('text')!r}, expected the cluster otel-demo provisioned in eu-west-1")
if not re.fullmatch(r"[0-9a-fA-F]{32}", str(r.get("trace_id"))) or set(str(r.get("trace_id"))) == {"0"}:
    problems.append(f"trace_id={r.get('trace_id')!r}, expected 32 hex digits")
if problems:
    sys.exit("otel_call: " + "; ".join(problems))
print(r["trace_id"].lower())
EOF
) || die "otel_call's answer (see $out/otel_call.json)"

say "SIGTERM to the provisioner (it flushes its exports)"
status=0
kill -TERM "${pids[provisioner]}"
wait "${pids[provisioner]}" || status=$?
unset "pids[provisioner]"
[ "$status" -eq 0 ] || die "the provisioner exited with $status after SIGTERM (want 0; see $out/provisioner.log)"
if grep -q panicked "$out/provisioner.log" "$out/otel_call.log"; then die "a panic in the logs"; fi

say "trace $trace_id"
status=0
python3 "$root/scripts/otel_check.py" "$out/otlp" --trace-id "$trace_id" --wait 10 --tree-out "$out/tree.txt" ||
  status=$?
[ "$status" -eq 0 ] || die "the exported trace and metrics do not meet the expectations above (raw: $out/otlp/)"
say "passed (target/otel-e2e/tree.txt)"
