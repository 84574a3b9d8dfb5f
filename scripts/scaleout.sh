#!/usr/bin/env bash
# Two instances sharing one Redis (issue 20). The script starts its own redis-server (the
# Debian package, installed when missing) on a free port without persistence, two
# `provisioner http` instances (P1, P2) and two `everything http` instances (E1, E2), all
# with MCP_REDIS_URL, the same MCP_REQUEST_STATE_KEYS and MCP_TASK_OWNER_KEY,
# MCP_REQUEST_STATE_SINGLE_USE=1 and MCP_TASK_LEASE_MS, and nginx (round robin over P1 and
# P2). `scaleout_driver` (our Rust client) runs the checks:
#
#   task across          a backup_database task created on P1 is polled to completion on P2
#   cancel across        a long one created on P1 is cancelled through P2, ends `cancelled`,
#                        and its work stops on P1 (P1's log shows no step after the cancel)
#   replay               a provision round answered on P1 and replayed on P2 gets the fixed
#                        -32602 `Invalid or expired requestState` (single-use state)
#   listen across        test_trigger_tool_change on E1 reaches a subscriptions/listen
#                        stream held by E2 (notifications/tools/list_changed, within 5 s)
#   redis restart        plain calls and task creations through nginx while Redis is stopped
#                        for a while and started again: plain calls never fail, task calls
#                        fail only while Redis is down, with JSON-RPC errors, never hang;
#                        no instance dies or panics; tasks work again afterwards
#   kill worker          P1 runs a long task and is killed (-9): through P2 the task becomes
#                        `failed`, with an error naming the lost worker, within 3 x lease + 1 s
#   restarted            P1, started again, reads that task's outcome from Redis
#
# A check that fails does not stop the others; the exit code is 1 when any failed. The
# summary (check, result, what was measured) goes to stdout and target/scaleout/summary.txt,
# next to every process's log and the driver's output.
#
#   bash scripts/scaleout.sh                    # debug build (reuses the test build)
#   PROFILE=release bash scripts/scaleout.sh
#
# Environment: PROFILE (debug), SCALEOUT_LEASE_MS (1000), SCALEOUT_DOWN_S (3: how long Redis
# stays down).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

profile=${PROFILE:-debug}
lease_ms=${SCALEOUT_LEASE_MS:-1000}
down_s=${SCALEOUT_DOWN_S:-3}
target_dir=${CARGO_TARGET_DIR:-$root/target}
bin_dir=$target_dir/$profile
out=$target_dir/scaleout

say() { printf '== %s\n' "$*"; }
die() {
  printf 'scaleout.sh: FAIL: %s\n' "$*" >&2
  exit 1
}
# shellcheck source=lib/procs.sh
source "$root/scripts/lib/procs.sh"

# --- tools: nginx, redis-server, jq (Debian packages, installed when missing) ------------
nginx_bin=$(need nginx nginx)
redis_bin=$(need redis-server redis-server)
need jq jq >/dev/null

# --- build -------------------------------------------------------------------------------
cargo_profile=$profile
if [ "$profile" = debug ]; then cargo_profile=dev; fi
say "building provisioner, everything and scaleout_driver ($profile)"
cargo build -q -p mcp-examples -p mcp-traffic --profile "$cargo_profile" \
  --bin provisioner --bin everything --bin scaleout_driver
driver=$bin_dir/scaleout_driver

# --- processes ---------------------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out"
prefix=$(mktemp -d "${TMPDIR:-/tmp}/scaleout.XXXXXX")
chmod 755 "$prefix"
declare -A pids=()

stop_all_on_exit "$prefix"

now_ms() { date +%s%3N; }
key() { od -An -tx1 -N32 /dev/urandom | tr -d ' \n'; }

free_port redis_port
declare -A port=()
for name in p1 p2 e1 e2; do free_port "port[$name]"; done
free_port lb_port
url() { echo "http://127.0.0.1:${port[$1]}/mcp"; }
lb_url=http://127.0.0.1:$lb_port/mcp

start_redis() {
  "$redis_bin" --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
    </dev/null >>"$out/redis.log" 2>&1 &
  pids[redis]=$!
  wait_ready redis "$redis_port"
}

stop_redis() {
  kill -TERM "${pids[redis]}" 2>/dev/null || true
  wait "${pids[redis]}" 2>/dev/null || true
  unset "pids[redis]"
}

state_keys=$(key)
owner_key=$(key)
# start_instance NAME BINARY: an instance sharing the Redis and the keys.
start_instance() {
  local name=$1 binary=$2
  MCP_REDIS_URL=redis://127.0.0.1:$redis_port/0 \
    MCP_REQUEST_STATE_KEYS=$state_keys MCP_REQUEST_STATE_SINGLE_USE=1 \
    MCP_TASK_OWNER_KEY=$owner_key MCP_TASK_LEASE_MS=$lease_ms \
    RUST_LOG=info NO_COLOR=1 \
    "$bin_dir/$binary" http "127.0.0.1:${port[$name]}" </dev/null >/dev/null 2>>"$out/$name.log" &
  pids[$name]=$!
  wait_ready "$name" "${port[$name]}"
}

nginx_user=""
if [ "$(id -u)" -eq 0 ]; then nginx_user="user nobody $(id -gn nobody);"; fi
cat >"$prefix/nginx.conf" <<EOF
# scripts/scaleout.sh: round robin over two provisioner instances sharing a Redis.
$nginx_user
worker_processes 1;
pid $prefix/nginx.pid;
events { worker_connections 256; }
http {
  client_body_temp_path $prefix/client_body;
  proxy_temp_path $prefix/proxy;
  fastcgi_temp_path $prefix/fastcgi;
  uwsgi_temp_path $prefix/uwsgi;
  scgi_temp_path $prefix/scgi;
  log_format lb '\$msec \$status upstream=\$upstream_addr time=\$request_time';
  access_log $out/nginx-access.log lb;
  upstream provisioners {
    server 127.0.0.1:${port[p1]} max_fails=0;
    server 127.0.0.1:${port[p2]} max_fails=0;
    keepalive 16;
  }
  server {
    listen 127.0.0.1:$lb_port;
    location /mcp {
      proxy_pass http://provisioners;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host 127.0.0.1;   # loopback instances accept loopback host names
      proxy_buffering off;
      proxy_cache off;
      proxy_next_upstream error;         # a refused connection only; calls are not replayed
      proxy_connect_timeout 2s;
      proxy_read_timeout 30s;
    }
  }
}
EOF
nginx_args=(-p "$prefix/" -c "$prefix/nginx.conf" -e "$out/nginx-error.log")
"$nginx_bin" "${nginx_args[@]}" -t -q || die "nginx rejects its config ($prefix/nginx.conf)"

start_redis
"$nginx_bin" "${nginx_args[@]}" -g 'daemon off;' &
pids[nginx]=$!
wait_ready nginx "$lb_port"
start_instance p1 provisioner
start_instance p2 provisioner
start_instance e1 everything
start_instance e2 everything
say "redis-server $("$redis_bin" --version | sed 's/.* v=\([^ ]*\).*/\1/') on :$redis_port;" \
  "provisioner P1 :${port[p1]}, P2 :${port[p2]} (nginx :$lb_port); everything E1 :${port[e1]}, E2 :${port[e2]};" \
  "lease ${lease_ms} ms ($profile)"

# --- checks ------------------------------------------------------------------------------
results=()
failed=0
# record CHECK RESULT MEASURED...
record() {
  local check=$1 result=$2
  shift 2
  results+=("$check|$result|$*")
  if [ "$result" != pass ]; then failed=$((failed + 1)); fi
  printf '   %-16s %-5s %s\n' "$check" "$result" "$*"
}
# drive NAME ARGS...: run the driver, its JSON line kept in $out/NAME.json; the line on stdout.
drive() {
  local name=$1 status=0
  shift
  "$driver" "$@" >"$out/$name.json" 2>"$out/$name.err" || status=$?
  cat "$out/$name.json"
  return "$status"
}
# field JSON FILTER: a jq filter's value (raw).
field() { jq -r "$2 // empty" <<<"$1" 2>/dev/null || true; }
why() { field "$1" .why; }

say "task across: created on P1, polled to completion on P2"
if line=$(drive task-across task-across --create "$(url p1)" --poll "$(url p2)" --seconds 2); then
  record "task across" pass "$(field "$line" .elapsed_ms) ms for a 2 s task ($(field "$line" .progress_seen) progress messages seen on P2)"
else
  record "task across" FAIL "$(why "$line")"
fi

say "own keys: E1 (everything, same Redis) asked for a task created on P1"
# Each server keeps its tasks under its own prefix, so another server's task is unknown.
if line=$(drive own-keys-start start-task --url "$(url p1)" --seconds 1 --name own-keys); then
  id=$(field "$line" .task_id)
  if line=$(drive own-keys task-status --url "$(url e1)" --id "$id"); then
    record "own keys" FAIL "E1 reads P1's task: $(field "$line" .status)"
  elif [[ "$(why "$line")" == *"Task not found"* ]]; then
    record "own keys" pass "$(why "$line")"
  else
    record "own keys" FAIL "$(why "$line")"
  fi
else
  record "own keys" FAIL "$(why "$line")"
fi

say "cancel across: created on P1, cancelled through P2, work stopped on P1"
if line=$(drive cancel-across cancel-across --create "$(url p1)" --cancel "$(url p2)" --log "$out/p1.log" --seconds 10); then
  record "cancel across" pass "cancelled in $(field "$line" .cancelled_after_ms) ms; steps on P1 after it: $(field "$line" .steps_within_grace) within grace, $(field "$line" .steps_after_grace) after"
else
  record "cancel across" FAIL "$(why "$line")"
fi

say "replay: a single-use round answered on P1, replayed on P2"
if line=$(drive replay replay --a "$(url p1)" --b "$(url p2)"); then
  record "replay" pass "$(field "$line" '.replay_error.message') ($(field "$line" '.replay_error.code'))"
else
  record "replay" FAIL "$(why "$line")"
fi

say "listen across: a tool-list change on E1, a listen stream on E2"
if line=$(drive listen-across listen-across --listen "$(url e2)" --change "$(url e1)" --timeout-ms 5000); then
  record "listen across" pass "notifications/tools/list_changed after $(field "$line" .arrived_after_ms) ms"
else
  record "listen across" FAIL "$(why "$line")"
fi

say "redis restart: calls through nginx while Redis is stopped for ${down_s} s and started again"
load_s=$((down_s + 6))
"$driver" load --url "$lb_url" --seconds "$load_s" --trace "$out/load-trace.jsonl" \
  >"$out/load.json" 2>"$out/load.err" &
pids[load]=$!
sleep 2
down_ms=$(now_ms)
stop_redis
sleep "$down_s"
start_redis
up_ms=$(now_ms)
load_status=0
wait "${pids[load]}" || load_status=$?
unset "pids[load]"
line=$(cat "$out/load.json")
restart_problems=()
[ "$load_status" -eq 0 ] || restart_problems+=("driver: $(why "$line")")
plain_failed=$(field "$line" .plain.failed)
task_failed=$(field "$line" .task.failed)
first_fail=$(field "$line" .task.first_failure_ms)
last_fail=$(field "$line" .task.last_failure_ms)
last_ok=$(field "$line" .task.last_ok_ms)
[ "${plain_failed:-x}" = 0 ] || restart_problems+=("$plain_failed plain calls failed: $(field "$line" '.plain.errors | keys | join("; ")')")
if [ "${task_failed:-0}" -eq 0 ]; then
  restart_problems+=("no task call failed while Redis was down (are tasks in Redis?)")
else
  # A call already on its way when Redis stopped may fail too: 2.5 s (the store's 2 s timeout) of slack.
  [ "$first_fail" -ge $((down_ms - 2500)) ] || restart_problems+=("a task call failed $((down_ms - first_fail)) ms before Redis stopped")
  # Reconnecting backs off up to 2 s, and a call may wait 2 s: 4.5 s of slack after the restart.
  [ "$last_fail" -le $((up_ms + 4500)) ] || restart_problems+=("task calls still failed $((last_fail - up_ms)) ms after Redis restarted")
  unclear=$(field "$line" '[.task.errors | keys[] | select(test("\\(-32[0-9]{3}\\)$") | not)] | join("; ")')
  [ -z "$unclear" ] || restart_problems+=("errors that are not JSON-RPC errors: $unclear")
fi
[ "${last_ok:-0}" -gt "$up_ms" ] || restart_problems+=("no task call succeeded after Redis restarted")
for name in p1 p2 e1 e2; do
  kill -0 "${pids[$name]}" 2>/dev/null || restart_problems+=("$name died")
done
if grep -l panicked "$out"/p1.log "$out"/p2.log "$out"/e1.log "$out"/e2.log >/dev/null 2>&1; then
  restart_problems+=("a panic in the logs")
fi
recovered=$(drive recovered task-across --create "$(url p2)" --poll "$(url p1)" --seconds 1 --name recovered) ||
  restart_problems+=("a task across the instances after the restart: $(why "$recovered")")
# The change bus subscribes again by itself (its watchdog checks every second).
relistened=$(drive relisten listen-across --listen "$(url e2)" --change "$(url e1)" --timeout-ms 5000) ||
  restart_problems+=("a list change across the instances after the restart: $(why "$relistened")")
if [ "${#restart_problems[@]}" -eq 0 ]; then
  down_for=$(awk -v ms=$((up_ms - down_ms)) 'BEGIN { printf "%.1f", ms / 1000 }')
  window=$(printf 'stop%+d ms to restart%+d ms' $((first_fail - down_ms)) $((last_fail - up_ms)))
  slowest=$(field "$line" '[.plain.max_latency_ms, .task.max_latency_ms] | max')
  record "redis restart" pass "down ${down_for} s; $task_failed task calls failed, started from $window" \
    "($(field "$line" '.task.errors | keys | join("; ")')); $(field "$line" .task.ok) task calls ok;" \
    "$(field "$line" .plain.ok) plain calls, all ok; slowest call $slowest ms; all instances alive, no panic;" \
    "afterwards a task and a list change cross instances"
else
  record "redis restart" FAIL "$(IFS=';'; echo "${restart_problems[*]}")"
fi

say "kill worker: P1 runs a long task and is killed; P2 must see it failed"
bound_ms=$((3 * lease_ms + 1000))
if line=$(drive start-task start-task --url "$(url p1)" --seconds 60 --name killed); then
  id=$(field "$line" .task_id)
  for _ in $(seq 1 100); do
    if grep -q "backup step.*task=$id" "$out/p1.log"; then break; fi
    sleep 0.05
  done
  kill -KILL "${pids[p1]}"
  wait "${pids[p1]}" 2>/dev/null || true
  unset "pids[p1]"
  if line=$(drive kill-worker task-status --url "$(url p2)" --id "$id" --until failed \
    --timeout-ms "$bound_ms" --error-contains worker); then
    record "kill worker" pass "failed $(field "$line" .elapsed_ms) ms after the kill (bound $bound_ms ms): $(field "$line" .error.message)"
    # Results live in Redis: the killed instance, started again, reads the same outcome.
    start_instance p1 provisioner
    if line=$(drive reread task-status --url "$(url p1)" --id "$id" --until failed --timeout-ms 2000 \
      --error-contains worker); then
      record "restarted" pass "P1, started again, reads the task it lost: failed, its error naming the lost worker"
    else
      record "restarted" FAIL "P1 after its restart: $(why "$line")"
    fi
  else
    record "kill worker" FAIL "$(why "$line")"
  fi
else
  record "kill worker" FAIL "start: $(why "$line")"
fi
kill -0 "${pids[p2]}" 2>/dev/null || record "p2 alive" FAIL "P2 died"

# --- summary -----------------------------------------------------------------------------
{
  echo "scaleout.sh ($profile; redis-server $("$redis_bin" --version | sed 's/.* v=\([^ ]*\).*/\1/'), nginx $("$nginx_bin" -v 2>&1 | sed 's/.*nginx\///'); lease ${lease_ms} ms)"
  printf '%-16s %-6s %s\n' check result measured
  for row in "${results[@]}"; do
    IFS='|' read -r check result measured <<<"$row"
    printf '%-16s %-6s %s\n' "$check" "$result" "$measured"
  done
} | tee "$out/summary.txt"
[ "$failed" -eq 0 ] || die "$failed checks failed (target/scaleout/summary.txt)"
say "passed (target/scaleout/summary.txt)"
