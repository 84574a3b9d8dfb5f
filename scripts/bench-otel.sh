#!/usr/bin/env bash
# The cost of OpenTelemetry: the `everything` example over HTTP (release build), measured by
# `loadgen` at concurrency 16 with plain calls (`test_simple_text`) and multi-round calls
# (`test_input_required_result_elicitation`, 2026-07-28: one question, two requests a call),
# in three configurations:
#
#   off       no OTEL_* variable: no spans, no metrics;
#   none      spans and metrics made but not exported: OTEL_EXPORTER_OTLP_ENDPOINT set,
#             OTEL_TRACES_EXPORTER=none, OTEL_METRICS_EXPORTER=none;
#   export    spans and metrics exported over OTLP/HTTP with JSON bodies (batches every
#             OTEL_BSP_SCHEDULE_DELAY=1000 ms, metrics every OTEL_METRIC_EXPORT_INTERVAL=1000 ms,
#             the SDK's other defaults) to a sink.
#
# The sink is nginx (the Debian package, installed when missing) with its own prefix in a
# temporary directory, answering 200 `{}` to POST /v1/traces and /v1/metrics and logging
# each request's body size; the Python receiver of scripts/otel-e2e.sh would be the bottleneck.
# Every run gets a fresh server. A run of `export` with no trace or no metrics export, or
# a run of `off` or `none` with any, fails the benchmark: it would not measure what it says.
#
# Each round runs the three configurations back to back for each mode, so drift of the
# machine hits them alike; the ratios to `off` are taken within each round before their
# median is taken. It prints a Markdown table and writes it into BENCHMARKS.md between
# `<!-- otel-bench:start -->` and `<!-- otel-bench:end -->` (under "## The cost of
# OpenTelemetry", added at the end the first time), leaving the rest of the file alone.
#
# Usage: scripts/bench-otel.sh           build, run, write the section
#        scripts/bench-otel.sh report    write the section again from the last results
#
# Settings (environment):
#   BENCH_DURATION=5            measured seconds per run
#   BENCH_WARMUP=2              warm-up seconds per run
#   BENCH_ROUNDS=3              rounds
#   BENCH_CONCURRENCY=16        concurrent calls
#   BENCH_OUT=BENCHMARKS.md     report path (relative to the repository root)
#
# Results: target/bench-otel/results.jsonl (one line per run, with the exports the sink
# saw), meta.json; logs (servers, loadgen, nginx) in target/bench-otel/logs/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

duration=${BENCH_DURATION:-5}
warmup=${BENCH_WARMUP:-2}
rounds=${BENCH_ROUNDS:-3}
concurrency=${BENCH_CONCURRENCY:-16}
out=${BENCH_OUT:-BENCHMARKS.md}

target_dir=${CARGO_TARGET_DIR:-$root/target}
bench_dir="$target_dir/bench-otel"
results="$bench_dir/results.jsonl"
meta="$bench_dir/meta.json"
logs="$bench_dir/logs"

die() {
  echo "bench-otel: $*" >&2
  exit 1
}

# report: the table from $results and $meta (median over rounds; ratios per round, then
# their median), printed and written into $out.
report() {
  [ -s "$results" ] && [ -s "$meta" ] || die "no results in $bench_dir: run scripts/bench-otel.sh first"
  BENCH_SCRIPTS="$root/scripts" python3 - "$results" "$meta" "$root/$out" <<'EOF'
import json, os, statistics, sys

results, meta_path, out = sys.argv[1:]
meta = json.load(open(meta_path))
runs = [json.loads(line) for line in open(results) if line.strip()]
by = {}  # (mode, config) -> {round: result}
exports = {}  # config -> [exports of each run]
for run in runs:
    by.setdefault((run["mode"], run["config"]), {})[run["round"]] = run["result"]
    exports.setdefault(run["config"], []).append(run["exports"])
errors = sum(r["result"].get("errors") or 0 for r in runs)


def median(mode, config, field):
    values = [r[field] for r in by.get((mode, config), {}).values() if r.get(field) is not None]
    return statistics.median(values) if values else None


def ratio(mode, config, field):
    base, this = by.get((mode, "off"), {}), by.get((mode, config), {})
    rs = [this[n][field] / base[n][field] for n in sorted(set(base) & set(this))
          if this[n].get(field) is not None and base[n].get(field)]
    return statistics.median(rs) if rs else None


def num(x):
    return "–" if x is None else f"{x:,.0f}"


def times(x):
    return "–" if x is None else f"{x:.2f}×"


names = {
    "off": "spans off (no `OTEL_*`)",
    "none": "spans on, not exported (`OTEL_TRACES_EXPORTER=none`, `OTEL_METRICS_EXPORTER=none`)",
    "export": "spans and metrics exported (OTLP/HTTP JSON)",
}
sent = exports.get("export") or [{}]
per_run = lambda key: statistics.median(e.get(key, 0) for e in sent)
lines = [
    f"`scripts/bench-otel.sh`: the `everything` example over HTTP (release build), `loadgen` at "
    f"concurrency {meta['concurrency']} with plain calls (`test_simple_text`) and multi-round calls "
    f"(`test_input_required_result_elicitation`, 2026-07-28: two requests a call); {meta['duration']} s "
    f"per run after {meta['warmup']} s of warm-up, a fresh server per run, median of {meta['rounds']} "
    f"round{'s' if meta['rounds'] != 1 else ''} (ratios to spans off taken per round). Exported: batches every 1 s (`OTEL_BSP_SCHEDULE_DELAY`), "
    f"metrics every 1 s, the SDK's other defaults, to nginx {meta['nginx']} answering `{{}}` on loopback: "
    f"per run (median) {per_run('traces'):,.0f} trace and {per_run('metrics'):,.0f} metric exports, "
    f"{per_run('bytes') / 1048576:,.1f} MiB. Same machine for all ({meta['cores']} cores; 1-minute load "
    f"average {meta['load_before']} before the runs, {meta['load_after']} after: anything else running "
    f"skews the figures); {errors} errors.",
    "",
    "| configuration | plain calls/s | vs off | p99 µs | multi-round calls/s | vs off | p99 µs |",
    "|---|---|---|---|---|---|---|",
]
for config in ("off", "none", "export"):
    row = [names[config]]
    for mode in ("plain", "mrtr"):
        row += [num(median(mode, config, "calls_per_sec")),
                "–" if config == "off" else times(ratio(mode, config, "calls_per_sec")),
                num(median(mode, config, "p99_us"))]
    lines.append("| " + " | ".join(row) + " |")
table = "\n".join(lines)
print(table)

sys.path.insert(0, os.environ["BENCH_SCRIPTS"])
from bench_report import write_section  # noqa: E402
write_section(out, "otel-bench", "The cost of OpenTelemetry", table)
EOF
  echo "bench-otel: wrote $out (raw results in $results)"
}

case "${1:-run}" in
  report)
    report
    exit 0
    ;;
  run) ;;
  *) die "usage: scripts/bench-otel.sh [report]" ;;
esac

# need, free_port, wait_for_port
# shellcheck source=lib/procs.sh
source "$root/scripts/lib/procs.sh"
nginx_bin=$(need nginx nginx)

echo "== building (release): everything, loadgen"
cargo build --release -q -p mcp-examples -p mcp-loadgen --bin everything --bin loadgen
everything="$target_dir/release/everything"
loadgen="$target_dir/release/loadgen"

# Uniform server environment: warnings only; no OTEL_* setting of the caller's.
unset RUST_LOG
while read -r var; do unset "$var"; done < <(compgen -e | grep '^OTEL_' || true)

mkdir -p "$bench_dir"
rm -rf "$logs" "$meta"
mkdir -p "$logs"
: >"$results"

prefix=$(mktemp -d "${TMPDIR:-/tmp}/bench-otel.XXXXXX")
chmod 755 "$prefix"
server_pid=""
nginx_pid=""
cleanup() {
  stop_processes "$server_pid" "$nginx_pid"
  rm -rf "$prefix"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the sink ----------------------------------------------------------------------------
free_port sink_port
sink_log="$logs/sink-access.log"
nginx_user=""
if [ "$(id -u)" -eq 0 ]; then nginx_user="user nobody $(id -gn nobody);"; fi
cat >"$prefix/nginx.conf" <<EOF
# scripts/bench-otel.sh: an OTLP/HTTP sink that answers {} and keeps nothing but a log line.
$nginx_user
worker_processes 1;
pid $prefix/nginx.pid;
events { worker_connections 1024; }
http {
  client_body_temp_path $prefix/client_body;
  proxy_temp_path $prefix/proxy;
  fastcgi_temp_path $prefix/fastcgi;
  uwsgi_temp_path $prefix/uwsgi;
  scgi_temp_path $prefix/scgi;
  client_max_body_size 64m;    # a large batch is discarded, not refused
  keepalive_requests 100000;
  log_format otlp '\$uri \$status \$content_length';  # a discarded body is not in \$request_length
  access_log $sink_log otlp;
  server {
    listen 127.0.0.1:$sink_port;
    default_type application/json;
    location = /v1/traces {
      limit_except POST { deny all; }
      return 200 '{}';         # the body is read and discarded
    }
    location = /v1/metrics {
      limit_except POST { deny all; }
      return 200 '{}';
    }
    location / {
      return 404;
    }
  }
}
EOF
nginx_args=(-p "$prefix/" -c "$prefix/nginx.conf" -e "$logs/sink-error.log")
"$nginx_bin" "${nginx_args[@]}" -t -q || die "nginx rejects its config ($prefix/nginx.conf)"
"$nginx_bin" "${nginx_args[@]}" -g 'daemon off;' &
nginx_pid=$!
wait_for_port "$sink_port" "$nginx_pid" || die "nginx did not start (see $logs/sink-error.log)"
nginx_version=$("$nginx_bin" -v 2>&1 | sed 's/.*nginx\///')
echo "== sink: nginx $nginx_version on port $sink_port"

# The configurations' environments.
endpoint="http://127.0.0.1:$sink_port"
declare -A config_env=(
  [off]=""
  [none]="OTEL_EXPORTER_OTLP_ENDPOINT=$endpoint OTEL_EXPORTER_OTLP_PROTOCOL=http/json OTEL_SERVICE_NAME=everything OTEL_TRACES_EXPORTER=none OTEL_METRICS_EXPORTER=none"
  [export]="OTEL_EXPORTER_OTLP_ENDPOINT=$endpoint OTEL_EXPORTER_OTLP_PROTOCOL=http/json OTEL_SERVICE_NAME=everything OTEL_BSP_SCHEDULE_DELAY=1000 OTEL_METRIC_EXPORT_INTERVAL=1000"
)

# sink_exports FROM_LINE: the sink's requests after line FROM_LINE of its log, as JSON
# {"traces":N,"metrics":N,"bytes":N,"refused":N} (bytes: the bodies' Content-Length).
sink_exports() {
  tail -n "+$(($1 + 1))" "$sink_log" | awk '
    $2 != 200 { refused++ }
    $1 == "/v1/traces" && $2 == 200 { traces++; bytes += $3 }
    $1 == "/v1/metrics" && $2 == 200 { metrics++; bytes += $3 }
    END { printf "{\"traces\":%d,\"metrics\":%d,\"bytes\":%d,\"refused\":%d}\n", traces, metrics, bytes, refused }'
}

run_count=0
# run_one MODE CONFIG ROUND: one loadgen run against a fresh server; appends a line.
run_one() {
  local mode=$1 config=$2 round=$3
  run_count=$((run_count + 1))
  local log port line="" error="" before exports status=0
  log="$logs/$(printf '%02d' "$run_count")-r$round-$mode-$config.log"
  free_port port
  before=$(wc -l <"$sink_log")
  # shellcheck disable=SC2086 # the configuration's NAME=value words, none with a space
  env ${config_env[$config]} "$everything" http "127.0.0.1:$port" </dev/null >>"$log" 2>&1 &
  server_pid=$!
  local call=(--mode plain --tool test_simple_text --args '{}' --expect "This is a simple text response for testing.")
  if [[ "$mode" == mrtr ]]; then
    call=(--mode mrtr --tool test_input_required_result_elicitation --args '{}' --answer '{"name":"bench"}'
      --expect "Hello, bench!")
  fi
  if wait_for_port "$port" "$server_pid"; then
    line=$("$loadgen" --transport http --url "http://127.0.0.1:$port/mcp" --pid "$server_pid" --era modern \
      "${call[@]}" --concurrency "$concurrency" --duration "$duration" --warmup "$warmup" \
      --label "$config" 2>>"$log") || error="loadgen failed"
  else
    error="server did not listen on port $port"
  fi
  # SIGTERM: the server flushes what it has not exported yet, then exits 0.
  kill -TERM "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || status=$?
  server_pid=""
  [[ -n "$error" || "$status" -eq 0 ]] || error="server exited with $status after SIGTERM"
  [[ -n "$error" || -n "$line" ]] || error="no result line"
  exports=$(sink_exports "$before")
  if [[ -z "$error" ]]; then
    local traces metrics refused
    read -r traces metrics refused < <(python3 -c 'import json,sys; e=json.loads(sys.argv[1]); print(e["traces"], e["metrics"], e["refused"])' "$exports")
    if ((refused > 0)); then
      error="the sink refused $refused requests (see $sink_log)"
    elif [[ "$config" == export ]] && ((traces == 0 || metrics == 0)); then
      error="exported $traces trace and $metrics metric requests: expected both"
    elif [[ "$config" != export ]] && ((traces + metrics > 0)); then
      error="exported $traces trace and $metrics metric requests: expected none"
    fi
  fi
  if [[ -n "$error" ]]; then
    echo "bench-otel: round $round, $mode, $config: $error (see $log)" >&2
    exit 1
  fi
  printf '{"round":%s,"mode":"%s","config":"%s","exports":%s,"result":%s}\n' \
    "$round" "$mode" "$config" "$exports" "$line" >>"$results"
  python3 "$root/scripts/bench_report.py" run-line "$line" "$config" || true
}

read -r load_before _ </proc/loadavg
started=$SECONDS
for ((round = 1; round <= rounds; round++)); do
  echo "== round $round"
  for mode in plain mrtr; do
    for config in off none export; do
      run_one "$mode" "$config" "$round"
    done
  done
done
echo "== $run_count runs in $((SECONDS - started)) s"
read -r load_after _ </proc/loadavg

python3 - "$meta" <<EOF
import json, sys
json.dump({"duration": $duration, "warmup": $warmup, "rounds": $rounds, "concurrency": $concurrency,
           "nginx": "$nginx_version", "cores": $(nproc), "load_before": "$load_before",
           "load_after": "$load_after"}, open(sys.argv[1], "w"), indent=1)
EOF
report
