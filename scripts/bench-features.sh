#!/usr/bin/env bash
# The cost of features: the `echo_features` server of bench/servers over HTTP (release build), one
# `echo {"text":"hello"}` tool call (2026-07-28) at a time per slot, measured by `loadgen`
# at concurrency 16, in these configurations of the same server:
#
#   off           nothing on: the baseline;
#   auth-nocache  authorization on, without the verifier's cache of verified tokens
#                 (ECHO_AUTH_TOKEN_CACHE=0): every request's JWT is checked in full;
#   auth          authorization on, the verifier's defaults (verified tokens cached);
#   spans         OTEL_* set with OTEL_TRACES_EXPORTER=none and OTEL_METRICS_EXPORTER=none:
#                 spans and metrics made, not exported (bench-otel.sh's `none`);
#   tasks         `echo` task-capable (ECHO_TASKS=1) and `loadgen --mode task`: the call
#                 declares the tasks extension, is answered with a task, and `tasks/get`
#                 follows until the task is completed; one call = the whole exchange.
#
# Authorization: a real authorization server, node-oidc-provider
# (scripts/oauth/authorization-server.mjs, as in scripts/oauth-e2e.sh), issues RS256 JWT
# access tokens (RFC 9068). Each auth run's server is a protected resource at its own
# URL (MCP_AUTH_ISSUER, MCP_AUTH_RESOURCE): the script obtains one token for it by
# client_credentials (client ops-a), writes it to a private file and passes it to
# `loadgen --bearer-file`, which sends it as `Authorization: Bearer` on every request. The
# server fetches the AS's metadata and JWKS on the first request and keeps the keys. A
# request without the token must get 401, or the run fails. The token is never printed.
#
# Every run gets a fresh server. Each round runs the configurations back to back, so drift
# of the machine hits them alike; the ratios to `off` are taken within each round before
# their median is taken. It prints a Markdown table and writes it into BENCHMARKS.md
# between `<!-- features-bench:start -->` and `<!-- features-bench:end -->` (under "## The
# cost of features", added at the end the first time), leaving the rest of the file alone.
#
# Usage: scripts/bench-features.sh           build, run, write the section
#        scripts/bench-features.sh report    write the section again from the last results
#
# Settings (environment):
#   BENCH_DURATION=5            measured seconds per run
#   BENCH_WARMUP=2              warm-up seconds per run
#   BENCH_ROUNDS=3              rounds
#   BENCH_CONCURRENCY=16        concurrent calls
#   BENCH_CONFIGS="off auth-nocache auth spans tasks"   the configurations run (off first)
#   BENCH_OUT=BENCHMARKS.md     report path (relative to the repository root)
#
# Needs node 20.19 or later (the Node 22 of scripts/conformance.sh when present) and npm
# (`npm ci` of the pinned packages into scripts/oauth/node_modules, as oauth-e2e.sh does).
# Results: target/bench-features/results.jsonl (one line per run), meta.json; logs (servers,
# loadgen, the AS) in target/bench-features/logs/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

duration=${BENCH_DURATION:-5}
warmup=${BENCH_WARMUP:-2}
rounds=${BENCH_ROUNDS:-3}
concurrency=${BENCH_CONCURRENCY:-16}
configs=${BENCH_CONFIGS:-off auth-nocache auth spans tasks}
out=${BENCH_OUT:-BENCHMARKS.md}

target_dir=${CARGO_TARGET_DIR:-$root/target}
bench_dir="$target_dir/bench-features"
results="$bench_dir/results.jsonl"
meta="$bench_dir/meta.json"
logs="$bench_dir/logs"

die() {
  echo "bench-features: $*" >&2
  exit 1
}

# report: the table from $results and $meta (median over rounds; ratios per round, then
# their median), printed and written into $out.
report() {
  [ -s "$results" ] && [ -s "$meta" ] || die "no results in $bench_dir: run scripts/bench-features.sh first"
  local table
  table=$(python3 - "$results" "$meta" <<'EOF'
import json, statistics, sys

results, meta_path = sys.argv[1:]
meta = json.load(open(meta_path))
runs = [json.loads(line) for line in open(results) if line.strip()]
by = {}  # config -> {round: result}
polls = []
for run in runs:
    by.setdefault(run["config"], {})[run["round"]] = run["result"]
    if run.get("task_polls") is not None:
        polls.append(run["task_polls"])
errors = sum(r["result"].get("errors") or 0 for r in runs)


def median(config, field):
    values = [r[field] for r in by.get(config, {}).values() if r.get(field) is not None]
    return statistics.median(values) if values else None


def ratio(config, field):
    base, this = by.get("off", {}), by.get(config, {})
    rs = [this[n][field] / base[n][field] for n in sorted(set(base) & set(this))
          if this[n].get(field) is not None and base[n].get(field)]
    return statistics.median(rs) if rs else None


def num(x, digits=0):
    return "–" if x is None else f"{x:,.{digits}f}"


def times(x):
    return "–" if x is None else f"{x:.2f}×"


names = {
    "off": "off (no auth, no `OTEL_*`, no tasks)",
    "auth-nocache": "auth, every token checked in full (`verified_token_cache(0)`)",
    "auth": "auth (JWT, JWKS cached; verified tokens cached, the default)",
    "spans": "spans on, not exported (`OTEL_TRACES_EXPORTER=none`, `OTEL_METRICS_EXPORTER=none`)",
    "tasks": "tasks: a task-augmented call, then `tasks/get` until completed",
}
rounds = meta["rounds"]
poll_text = (f" (polled at once while working: a `tools/call` and a median {statistics.median(polls):.2f} "
             f"`tasks/get` per call, against one request per call elsewhere)" if polls else "")
lines = [
    f"`scripts/bench-features.sh`: the `echo_features` server of `bench/servers` over HTTP (release build), "
    f"one `echo {{\"text\":\"hello\"}}` tool call (2026-07-28) per call, `loadgen` at concurrency "
    f"{meta['concurrency']}; {meta['duration']} s per run after {meta['warmup']} s of warm-up, a fresh "
    f"server per run, median of {rounds} round{'s' if rounds != 1 else ''} (ratios to off taken per round). "
    f"Auth: an RS256 JWT access token (RFC 9068) from node-oidc-provider {meta['oidc_provider']} (Node "
    f"{meta['node']}), obtained once per run by client credentials and sent as `Authorization: Bearer` on "
    f"every request; the server checks it against the issuer's JWKS, fetched on the first request and "
    f"kept. Spans: `OTEL_*` set, spans and metrics made but not exported. Tasks: `echo` task-capable, each "
    f"call declares the tasks extension, gets a task, and fetches its result{poll_text}. Same machine for "
    f"all ({meta['cores']} cores; 1-minute load average {meta['load_before']} before the runs, "
    f"{meta['load_after']} after: anything else running skews the figures); {errors} errors.",
    "",
    "| configuration | calls/s | vs off | p50 µs | p99 µs | server CPU µs/call |",
    "|---|---|---|---|---|---|",
]
for config in ("off", "auth-nocache", "auth", "spans", "tasks"):
    if config not in by:
        continue
    lines.append("| " + " | ".join([
        names[config],
        num(median(config, "calls_per_sec")),
        "–" if config == "off" else times(ratio(config, "calls_per_sec")),
        num(median(config, "p50_us")),
        num(median(config, "p99_us")),
        num(median(config, "server_cpu_us_per_call"), 1),
    ]) + " |")
print("\n".join(lines))
EOF
  )
  echo "$table"
  python3 "$root/scripts/bench_report.py" section "$root/$out" features-bench "The cost of features" <<<"$table"
  echo "bench-features: wrote $out (raw results in $results)"
}

case "${1:-run}" in
  report)
    report
    exit 0
    ;;
  run) ;;
  *) die "usage: scripts/bench-features.sh [report]" ;;
esac

[[ " $configs " == *" off "* ]] || die "BENCH_CONFIGS must include off (the baseline)"
for config in $configs; do
  case "$config" in
    off | auth-nocache | auth | spans | tasks) ;;
    *) die "unknown configuration $config in BENCH_CONFIGS" ;;
  esac
done

# need, free_port, wait_for_port
# shellcheck source=lib/procs.sh
source "$root/scripts/lib/procs.sh"

# --- node and the authorization server's packages (as scripts/oauth-e2e.sh) -------------
oauth_dir="$root/scripts/oauth"
if [ -x "$root/.tools/conformance/node_modules/.bin/node" ]; then
  export PATH="$root/.tools/conformance/node_modules/.bin:$PATH"
fi
command -v node >/dev/null || die "node is needed (20.19 or later) for the authorization server"
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
  die "node $(node --version) is too old: oidc-provider needs 20.19 or later (scripts/conformance.sh installs 22)"
fi
stamp="$oauth_dir/node_modules/.installed-from-lock"
if ! cmp -s "$oauth_dir/package-lock.json" "$stamp" 2>/dev/null; then
  (cd "$oauth_dir" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$oauth_dir/package-lock.json" "$stamp"
fi

echo "== building (release): echo_features, loadgen"
cargo build --release -q -p mcp-bench-servers -p mcp-loadgen --bin echo_features --bin loadgen
echo_bin="$target_dir/release/echo_features"
loadgen="$target_dir/release/loadgen"

# Uniform server environment: warnings only; none of the caller's settings of what is measured.
unset RUST_LOG ECHO_TASKS ECHO_AUTH_TOKEN_CACHE MCP_REQUEST_STATE_KEYS MCP_REQUEST_STATE_TTL
unset MCP_REQUEST_STATE_SINGLE_USE MCP_REDIS_URL
while read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(OTEL_|MCP_AUTH_)' || true)

mkdir -p "$bench_dir"
rm -rf "$logs" "$meta"
mkdir -p "$logs"
: >"$results"

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-features.XXXXXX")
chmod 700 "$work"
server_pid=""
as_pid=""
cleanup() {
  stop_processes "$server_pid" "$as_pid"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the authorization server -----------------------------------------------------------
free_port as_port
issuer="http://127.0.0.1:$as_port"
AS_PORT=$as_port AS_KEY_FILE="$work/signing-key.json" node "$oauth_dir/authorization-server.mjs" \
  >"$logs/authorization-server.log" 2>&1 &
as_pid=$!
wait_for_port "$as_port" "$as_pid" || die "the authorization server did not start (see $logs/authorization-server.log)"
node_version=$(node --version)
oidc_version=$(node -p 'require(process.argv[1]).version' "$oauth_dir/node_modules/oidc-provider/package.json")
echo "== authorization server $issuer (node-oidc-provider $oidc_version, node $node_version)"

# token_for RESOURCE FILE: a JWT access token for RESOURCE by client credentials (ops-a),
# written to FILE (mode 600); nothing of it is printed.
token_for() {
  python3 - "$issuer" "$1" "$2" <<'EOF'
import base64, json, os, sys, urllib.error, urllib.parse, urllib.request

issuer, resource, path = sys.argv[1:]
form = urllib.parse.urlencode({"grant_type": "client_credentials", "scope": "db:read db:write",
                               "resource": resource}).encode()
request = urllib.request.Request(f"{issuer}/token", data=form, headers={
    "authorization": "Basic " + base64.b64encode(b"ops-a:ops-a-secret").decode(),
    "content-type": "application/x-www-form-urlencoded"})
try:
    body = json.load(urllib.request.urlopen(request, timeout=10))
except (urllib.error.URLError, ValueError) as e:
    sys.exit(f"bench-features: the token request failed: {e}")
token = body.get("access_token") or ""
if token.count(".") != 2:
    sys.exit(f"bench-features: no JWT access token in the answer (token_type {body.get('token_type')!r})")
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
with os.fdopen(fd, "w") as f:
    f.write(token + "\n")
EOF
}

# unauthorized URL: whether a tools/call without a token is refused with 401.
unauthorized() {
  python3 - "$1" <<'EOF'
import json, sys, urllib.error, urllib.request

body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
    "name": "echo", "arguments": {"text": "hello"}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench-features", "version": "0"}}}}).encode()
request = urllib.request.Request(sys.argv[1], data=body, headers={
    "content-type": "application/json", "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo"})
try:
    urllib.request.urlopen(request, timeout=10)
except urllib.error.HTTPError as e:
    sys.exit(0 if e.code == 401 else 1)
except urllib.error.URLError:
    sys.exit(1)
sys.exit(1)
EOF
}

free_port unused_port
run_count=0
# run_one CONFIG ROUND: one loadgen run against a fresh server; appends a line.
run_one() {
  local config=$1 round=$2
  run_count=$((run_count + 1))
  local log port url line="" error="" status=0 polls=null
  log="$logs/$(printf '%02d' "$run_count")-r$round-$config.log"
  free_port port
  url="http://127.0.0.1:$port/mcp"
  local env=() call=(--mode plain --expect hello)
  case "$config" in
    auth | auth-nocache)
      env=(MCP_AUTH_ISSUER="$issuer" MCP_AUTH_RESOURCE="$url")
      [[ "$config" == auth-nocache ]] && env+=(ECHO_AUTH_TOKEN_CACHE=0)
      token_for "$url" "$work/token" || die "round $round, $config: no access token"
      call+=(--bearer-file "$work/token")
      ;;
    spans)
      # Nothing listens at the endpoint: with the exporters `none` nothing is sent to it.
      env=(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$unused_port" OTEL_EXPORTER_OTLP_PROTOCOL=http/json
        OTEL_SERVICE_NAME=echo OTEL_TRACES_EXPORTER=none OTEL_METRICS_EXPORTER=none)
      ;;
    tasks)
      env=(ECHO_TASKS=1)
      call=(--mode task --expect hello)
      ;;
  esac
  env "${env[@]}" "$echo_bin" http "127.0.0.1:$port" </dev/null >>"$log" 2>&1 &
  server_pid=$!
  if ! wait_for_port "$port" "$server_pid"; then
    error="server did not listen on port $port"
  elif [[ "$config" == auth* ]] && ! unauthorized "$url"; then
    error="a call without a token was not refused with 401: authorization is not on"
  else
    line=$("$loadgen" --transport http --url "$url" --pid "$server_pid" --era modern --tool echo \
      --args '{"text":"hello"}' "${call[@]}" --concurrency "$concurrency" --duration "$duration" \
      --warmup "$warmup" --label "$config" 2>>"$log") || error="loadgen failed"
  fi
  kill -TERM "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || status=$?
  server_pid=""
  rm -f "$work/token"
  [[ -n "$error" || "$status" -eq 0 ]] || error="server exited with $status after SIGTERM"
  [[ -n "$error" || -n "$line" ]] || error="no result line"
  if [[ -n "$error" ]]; then
    echo "bench-features: round $round, $config: $error (see $log)" >&2
    exit 1
  fi
  if [[ "$config" == tasks ]]; then
    polls=$(sed -n 's/.* \([0-9.]*\) tasks\/get per task.*/\1/p' "$log" | tail -n 1)
    [[ -n "$polls" ]] || polls=null
  fi
  printf '{"round":%s,"config":"%s","task_polls":%s,"result":%s}\n' "$round" "$config" "$polls" "$line" >>"$results"
  python3 "$root/scripts/bench_report.py" run-line "$line" "$config" || true
}

read -r load_before _ </proc/loadavg
started=$SECONDS
for ((round = 1; round <= rounds; round++)); do
  echo "== round $round"
  for config in $configs; do
    run_one "$config" "$round"
  done
done
echo "== $run_count runs in $((SECONDS - started)) s"
read -r load_after _ </proc/loadavg

python3 - "$meta" <<EOF
import json, sys
json.dump({"duration": $duration, "warmup": $warmup, "rounds": $rounds, "concurrency": $concurrency,
           "node": "$node_version", "oidc_provider": "$oidc_version", "cores": $(nproc),
           "load_before": "$load_before", "load_after": "$load_after"}, open(sys.argv[1], "w"), indent=1)
EOF
report
