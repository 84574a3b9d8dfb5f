#!/usr/bin/env bash
# Several instances behind a real load balancer (issue 9): nginx (the Debian package,
# installed when missing) round-robins between two `provisioner http` instances that share
# MCP_REQUEST_STATE_KEYS, and `lb_driver` (our Rust client) makes multi-round
# `provision_cluster` calls through it, one at a time, each with its own cluster name.
#
#   1. Alternation: LB_CALLS (1000) calls, 3 rounds each. Every call must end with the
#      exact text, and every call's consecutive rounds must have been served by different
#      instances. Who served what is counted from the instances' own logs (each logs the
#      cluster name and the number of answers of every round it serves: 0, 2, 1 for rounds
#      1, 2, 3), cross-checked with nginx's access log ($upstream_addr).
#   2. Key rotation: LB_CALLS more calls while both instances are restarted one at a time
#      (SIGTERM: graceful) with [K, K2], then again with [K2, K] (the first key seals, every
#      key opens). No call may fail and no round may be refused as an invalid requestState
#      (a lost round), and no round may run twice. Alternation is reported, not required:
#      it breaks whenever nginx retries a request on the other instance (a refused
#      connection while one restarts, or a kept-alive connection it closed as it stopped).
#
# nginx runs with its own config and prefix in a temporary directory. The logs (instances,
# nginx access and error log, the driver's output) and summary.txt are kept in target/lb/.
#
#   bash scripts/lb.sh                  # release build
#   PROFILE=debug bash scripts/lb.sh    # reuse the test build (CI)
#
# Environment: PROFILE (release), LB_CALLS (1000 per phase), LB_ROTATION_PAUSE_MS (5: the
# pause between calls in phase 2, so the four restarts land inside the run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

profile=${PROFILE:-release}
calls=${LB_CALLS:-1000}
rotation_pause_ms=${LB_ROTATION_PAUSE_MS:-5}
target_dir=${CARGO_TARGET_DIR:-$root/target}
bin_dir=$target_dir/$profile
out=$target_dir/lb

say() { printf '== %s\n' "$*"; }
die() {
  printf 'lb.sh: FAIL: %s\n' "$*" >&2
  exit 1
}
# shellcheck source=lib/procs.sh
source "$root/scripts/lib/procs.sh"

# --- nginx -------------------------------------------------------------------------------
nginx_bin=$(need nginx nginx)

# --- build -------------------------------------------------------------------------------
cargo_profile=$profile
if [ "$profile" = debug ]; then cargo_profile=dev; fi
say "building provisioner and lb_driver ($profile)"
cargo build -q -p mcp-examples -p mcp-traffic --profile "$cargo_profile" --bin provisioner --bin lb_driver

# --- processes ---------------------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out"
prefix=$(mktemp -d "${TMPDIR:-/tmp}/lb-nginx.XXXXXX")
chmod 755 "$prefix"
declare -A pids=()

stop_all_on_exit "$prefix"

key() { od -An -tx1 -N32 /dev/urandom | tr -d ' \n'; }
K=$(key)
K2=$(key)
declare -A ring=([K]=$K [K,K2]=$K,$K2 [K2,K]=$K2,$K)

free_port port1
free_port port2
free_port lb_port
url=http://127.0.0.1:$lb_port/mcp

# start_instance N LABEL: provisioner N with the key ring LABEL (K, K,K2 or K2,K). Its log
# gets a marker line first (the ring's label, never a key) and is appended to across restarts.
start_instance() {
  local n=$1 label=$2 port_var=port$1
  echo "== start keys=$label" >>"$out/instance$n.log"
  MCP_REQUEST_STATE_KEYS=${ring[$label]} RUST_LOG=info NO_COLOR=1 \
    "$bin_dir/provisioner" http "127.0.0.1:${!port_var}" </dev/null >/dev/null 2>>"$out/instance$n.log" &
  pids[instance$n]=$!
  wait_ready "instance$n" "${!port_var}"
}

# stop_instance N: SIGTERM, and the graceful exit must be 0.
stop_instance() {
  local n=$1 status=0
  kill -TERM "${pids[instance$n]}"
  wait "${pids[instance$n]}" || status=$?
  unset "pids[instance$n]"
  [ "$status" -eq 0 ] || die "instance $n exited with $status after SIGTERM (want 0)"
}

nginx_user=""
if [ "$(id -u)" -eq 0 ]; then nginx_user="user nobody $(id -gn nobody);"; fi
cat >"$prefix/nginx.conf" <<EOF
# scripts/lb.sh: round robin over two provisioner instances.
$nginx_user
worker_processes 1;  # one round-robin state: consecutive requests alternate
pid $prefix/nginx.pid;
events { worker_connections 256; }
http {
  client_body_temp_path $prefix/client_body;
  proxy_temp_path $prefix/proxy;
  fastcgi_temp_path $prefix/fastcgi;
  uwsgi_temp_path $prefix/uwsgi;
  scgi_temp_path $prefix/scgi;
  log_format lb '\$msec \$status upstream=\$upstream_addr upstream_status=\$upstream_status time=\$request_time';
  access_log $out/nginx-access.log lb;

  upstream provisioners {
    # max_fails=0: a refused connection (an instance restarting) does not take the server
    # out for fail_timeout, so it is back in the rotation as soon as it listens again.
    server 127.0.0.1:$port1 max_fails=0;
    server 127.0.0.1:$port2 max_fails=0;
    keepalive 16;
  }

  server {
    listen 127.0.0.1:$lb_port;
    location /mcp {
      proxy_pass http://provisioners;
      proxy_http_version 1.1;
      proxy_set_header Connection "";  # upstream keep-alive
      # The instances listen on loopback, where DNS-rebinding protection accepts only
      # loopback host names: forward one of those, whatever the client called us.
      proxy_set_header Host 127.0.0.1;
      proxy_buffering off;             # SSE responses stream through
      proxy_cache off;
      # A failed connection is retried on the other instance (request buffering, on by
      # default, lets nginx replay the POST body): refused while an instance restarts, or a
      # kept-alive connection the instance closed as it began shutting down (it closes idle
      # ones at once) just as nginx sent a request on it. nginx does not retry a POST after
      # sending it unless told to (non_idempotent); here that is the retry MCP already asks
      # of clients whose request broke off, and the script checks that no round ran twice.
      proxy_next_upstream error timeout non_idempotent;
      proxy_next_upstream_tries 2;
      proxy_connect_timeout 2s;
    }
  }
}
EOF

nginx_args=(-p "$prefix/" -c "$prefix/nginx.conf" -e "$out/nginx-error.log")
"$nginx_bin" "${nginx_args[@]}" -t -q || die "nginx rejects its config ($prefix/nginx.conf)"
"$nginx_bin" "${nginx_args[@]}" -g 'daemon off;' &
pids[nginx]=$!
wait_ready nginx "$lb_port"

start_instance 1 K
start_instance 2 K
say "nginx $("$nginx_bin" -v 2>&1 | sed 's/.*nginx\///') on 127.0.0.1:$lb_port -> provisioner instances on :$port1 and :$port2 ($profile)"

# --- analysis ----------------------------------------------------------------------------
# rounds_seen PREFIX: how many rounds of PREFIX-* calls the instances have logged.
rounds_seen() { cat "$out/instance1.log" "$out/instance2.log" | grep -c "cluster=$1-" || true; }

# from_logs PREFIX: per-call rounds and alternation from the instance logs, one line of
# key=value pairs, then one `ring` line per instance and key ring (rounds served under it).
from_logs() {
  awk -v prefix="$1-" '
    { gsub(/\033\[[0-9;]*m/, "") }
    FNR == 1 { inst = (FILENAME ~ /instance1\.log$/) ? 1 : 2 }
    /^== start keys=/ { ring[inst] = substr($3, 6); next }
    /provision_cluster round/ {
      c = ""; a = ""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^cluster=/) c = substr($i, 9)
        if ($i ~ /^answers=/) a = substr($i, 9)
      }
      if (index(c, prefix) != 1) next
      r = (a == "0") ? 1 : (a == "2") ? 2 : (a == "1") ? 3 : 0
      if (r == 0) { odd++; next }
      rounds++; per[inst]++; by_ring[inst " " ring[inst]]++
      if ((c, r) in seen) dup++
      seen[c, r] = inst; names[c] = 1
    }
    END {
      for (c in names) {
        n++
        if (!((c, 1) in seen && (c, 2) in seen && (c, 3) in seen)) continue
        complete++
        if (seen[c, 1] != seen[c, 2] && seen[c, 2] != seen[c, 3]) alt++
      }
      printf "calls=%d complete=%d rounds=%d instance1=%d instance2=%d alternated=%d duplicated=%d odd=%d\n",
        n, complete, rounds, per[1], per[2], alt, dup, odd
      for (k in by_ring) print "ring", k, by_ring[k]
    }' "$out/instance1.log" "$out/instance2.log"
}

# field NAME LINE: the value of NAME=... in a key=value line.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p; s/^$1=\([^ ]*\).*/\1/p" <<<"$2" | head -n 1; }
# json NAME LINE: a number from the driver's JSON line.
json() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" <<<"$2"; }

# from_access FIRST_LINE: requests, statuses and upstreams in nginx's access log from that line.
from_access() {
  tail -n "+$1" "$out/nginx-access.log" | awk -v p1="127.0.0.1:$port1" -v p2="127.0.0.1:$port2" '
    {
      n++; status[$2]++
      from = index($0, "upstream=") + 9; to = index($0, " upstream_status=")
      k = split(substr($0, from, to - from), hops, ",")
      if (k > 1) retried++
      last = hops[k]; gsub(/ /, "", last)
      if (last == p1) one++; else if (last == p2) two++
    }
    END {
      s = ""; for (x in status) s = s (s == "" ? "" : ",") x ":" status[x]
      printf "requests=%d statuses=%s to_instance1=%d to_instance2=%d retried_on_other=%d\n", n, s, one, two, retried
    }'
}

access_mark() { echo $(($(wc -l <"$out/nginx-access.log") + 1)); }
# Requests are logged when they end; give nginx a moment to write the last line.
settle() { sleep 0.3; }

# retries: why nginx retried requests on the other instance (its error log).
retries() {
  local refused closed
  refused=$(grep -c "Connection refused" "$out/nginx-error.log" || true)
  closed=$(grep -c "upstream prematurely closed connection" "$out/nginx-error.log" || true)
  echo "$refused after a refused connection, $closed after a kept-alive connection closed under the request"
}

rejected_states() { cat "$out/instance1.log" "$out/instance2.log" | grep -c "requestState rejected" || true; }

# --- phase 1: alternation ----------------------------------------------------------------
say "phase 1: $calls calls x 3 rounds through nginx, keys [K] on both instances"
mark=$(access_mark)
driver_status=0
line=$("$bin_dir/lb_driver" --url "$url" --calls "$calls" --prefix lb 2>"$out/phase1-driver.err") || driver_status=$?
echo "$line" >"$out/phase1-driver.json"
settle
logs1=$(from_logs lb)
access1=$(from_access "$mark")
echo "driver: $line"
echo "logs:   $(head -n 1 <<<"$logs1")"
echo "nginx:  $access1"
[ "$driver_status" -eq 0 ] || die "phase 1: lb_driver exited with $driver_status: $(head -n 5 "$out/phase1-driver.err")"
[ "$(json failures "$line")" = 0 ] && [ "$(json ok "$line")" = "$calls" ] || die "phase 1: calls failed"
[ "$(field complete "$logs1")" = "$calls" ] || die "phase 1: not every call has its 3 rounds in the logs"
[ "$(field rounds "$logs1")" = $((3 * calls)) ] || die "phase 1: the logs show the wrong number of rounds"
[ "$(field duplicated "$logs1")" = 0 ] || die "phase 1: a round was served twice"
[ "$(field alternated "$logs1")" = "$calls" ] || die "phase 1: not every call's rounds alternated between the instances"
# Every round, plus the driver's one server/discover when it connects.
[ "$(field requests "$access1")" = $((3 * calls + 1)) ] || die "phase 1: nginx saw the wrong number of requests"
[ "$(field statuses "$access1")" = "200:$((3 * calls + 1))" ] || die "phase 1: nginx answered something other than 200"
[ "$(rejected_states)" = 0 ] || die "phase 1: an instance rejected a requestState"

# --- phase 2: rolling restarts with key rotation -----------------------------------------
say "phase 2: $calls calls while both instances restart with [K, K2], then with [K2, K]"
mark=$(access_mark)
"$bin_dir/lb_driver" --url "$url" --calls "$calls" --prefix rot --pause-ms "$rotation_pause_ms" \
  >"$out/phase2-driver.json" 2>"$out/phase2-driver.err" &
pids[driver]=$!

# restart_at ROUNDS N LABEL: once ROUNDS rounds of phase 2 are logged, restart instance N with
# the key ring LABEL. The driver must still be running afterwards, so the restart was mid-run.
restart_at() {
  local rounds=$1 n=$2 label=$3
  while [ "$(rounds_seen rot)" -lt "$rounds" ]; do
    kill -0 "${pids[driver]}" 2>/dev/null || die "phase 2: the driver ended before round $rounds; raise LB_ROTATION_PAUSE_MS"
    sleep 0.02
  done
  stop_instance "$n"
  start_instance "$n" "$label"
  kill -0 "${pids[driver]}" 2>/dev/null || die "phase 2: the driver ended during a restart; raise LB_ROTATION_PAUSE_MS"
  echo "restarted instance $n with [${label/,/, }] after $(rounds_seen rot) rounds"
}
total=$((3 * calls))
restart_at $((total * 10 / 100)) 1 K,K2
restart_at $((total * 25 / 100)) 2 K,K2
restart_at $((total * 45 / 100)) 1 K2,K
restart_at $((total * 65 / 100)) 2 K2,K
driver_status=0
wait "${pids[driver]}" || driver_status=$?
unset "pids[driver]"
line=$(cat "$out/phase2-driver.json")
settle
logs2=$(from_logs rot)
access2=$(from_access "$mark")
echo "driver: $line"
echo "logs:   $(head -n 1 <<<"$logs2")"
tail -n +2 <<<"$logs2" | sort | sed 's/^ring \([12]\) \(.*\) \([0-9]*\)$/        instance \1 with [\2]: \3 rounds/; s/,/, /'
echo "nginx:  $access2"
echo "        retries: $(retries)"
[ "$driver_status" -eq 0 ] || die "phase 2: lb_driver exited with $driver_status: $(head -n 5 "$out/phase2-driver.err")"
[ "$(json failures "$line")" = 0 ] && [ "$(json ok "$line")" = "$calls" ] || die "phase 2: calls failed"
[ "$(json lost_rounds "$line")" = 0 ] || die "phase 2: rounds were lost"
[ "$(field rounds "$logs2")" = "$total" ] || die "phase 2: the logs show the wrong number of rounds"
[ "$(field duplicated "$logs2")" = 0 ] || die "phase 2: a round was served twice"
[ "$(field statuses "$access2")" = "200:$((total + 1))" ] || die "phase 2: nginx answered something other than 200"
[ "$(rejected_states)" = 0 ] || die "phase 2: an instance rejected a requestState"

stop_instance 1
stop_instance 2

{
  echo "lb.sh ($profile, nginx $("$nginx_bin" -v 2>&1 | sed 's/.*nginx\///'))"
  echo "phase 1 (alternation): driver $(cat "$out/phase1-driver.json")"
  echo "  logs: $(head -n 1 <<<"$logs1")"
  echo "  nginx: $access1"
  echo "phase 2 (rolling restarts, [K] -> [K, K2] -> [K2, K]): driver $line"
  echo "  logs: $(head -n 1 <<<"$logs2")"
  tail -n +2 <<<"$logs2" | sort | sed 's/^ring \([12]\) \(.*\) \([0-9]*\)$/  instance \1 with [\2]: \3 rounds/; s/,/, /'
  echo "  nginx: $access2"
  echo "  nginx retries: $(retries)"
} >"$out/summary.txt"
say "passed: 0 failures; every phase-1 call alternated; 0 lost rounds across the key rotation (target/lb/summary.txt)"
