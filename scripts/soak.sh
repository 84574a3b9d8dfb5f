#!/usr/bin/env bash
# Soak (issue 9): one `everything http` instance under SOAK_SECONDS (600) of mixed traffic at
# once, with its resident memory sampled every second (`everything` rather than `provisioner`:
# it also has a single-round tool for the plain calls):
#
#   - plain calls: `loadgen --mode plain`, SOAK_CONCURRENCY (32) in flight, `test_simple_text`;
#   - multi-round calls: `loadgen --mode mrtr`, SOAK_CONCURRENCY in flight,
#     `test_input_required_result_elicitation` (two requests a call: the question, then the
#     retry with the answer and the sealed requestState), the final text checked;
#   - hostile traffic: `hostile_traffic` (its module doc tells each kind), the kinds in
#     SOAK_KINDS (all five by default):
#     - cases: SOAK_HOSTILE_WORKERS (4) workers sending hostile requests, pausing
#       SOAK_HOSTILE_PAUSE_MS (2) after each; every one must be answered with a 4xx or a
#       JSON-RPC error;
#     - listen-flood: SOAK_LISTEN_PEERS (18) loopback addresses each opening
#       SOAK_LISTEN_PER_PEER (36) `subscriptions/listen` streams, 648 in all: beyond the
#       per-peer cap (32) on every peer and beyond the overall cap (512) together; held
#       SOAK_LISTEN_HOLD (5) s, closed, again. Accepted streams and 429/503 refusals with
#       Retry-After are expected; a `tools/list` sent while they are held must get a result
#       (and the plain and multi-round calls, running all along, no error);
#     - session-flood: SOAK_SESSION_WORKERS (8) workers sending 2025-11-25 `initialize`
#       without DELETE, each pausing SOAK_SESSION_PAUSE_MS (5) after one (so the session cap,
#       1024, is reached within seconds on an idle machine, and within the CI run on a busy one);
#       each must succeed, and an old id reused now and then gets 200 or 404;
#     - slow-headers, slow-bodies: SOAK_SLOW_CONNECTIONS (16) connections each stalled in the
#       request head, or after 10 bytes of a declared 1,000-byte body; the server must close
#       each (or answer 408) within SOAK_SLOW_TIMEOUT (30: the server's default header and
#       body timeouts) plus SOAK_SLOW_SLACK (5) s. A round starts only if it ends within the
#       run, so a run of at least 35 s has one, and a shorter run none.
#
# Pass: no error on any valid call, no unexpected answer to hostile traffic (per kind in the
# summary: requests, accepted, expected refusals, unexpected), at least one round of each slow
# kind when the run is long enough for one, the server alive to the end and exiting 0 on
# SIGTERM, its open file descriptors within the bound below, and its RSS within the bound:
#
#   end <= start + SOAK_RSS_GROWTH_KB (16 MiB), where start is the highest sample in the
#   SOAK_RSS_WINDOW seconds (SOAK_LISTEN_HOLD + 3: one listen-flood round, so both windows
#   see the streams held) after the load has run SOAK_WARMUP seconds (10; the allocator's
#   pools, the connections and most of the session cap are in place by then), and end the
#   highest sample in the last window of the load; and max <= SOAK_RSS_MAX_KB (64 MiB for a
#   release build, 88 MiB for a debug one: see below), both
#   for the samples and for the kernel's high-water mark (VmHWM, which also sees peaks
#   between them).
#
# Why 64 MiB: under the valid load alone the sampled RSS moves between 12 and 24 MiB as the
# allocator takes and returns memory, with no upward trend minute by minute, and the
# high-water mark (VmHWM) of a 10-minute release run was 28 MiB (a 1-minute debug run: 26
# and 28 MiB). On top of that: each case worker can hold one body of up to the 4 MiB body
# limit in flight (4 workers: 16 MiB); the listen streams held at the cap (512) cost about
# 24 KiB each, 12 MiB (measured on a debug build: 500 streams took the RSS from 10.4 to
# 22.3 MiB); a full session table (1024 2025-11-25 sessions) about 1 MiB; the stalled
# connections little (32 connections, at most 10 body bytes each). 28 + 16 + 12 + 1 = 57
# MiB, and 64 MiB leaves slack above that. (It was 48 MiB before the listen and session
# floods.) A debug build needs more for the same code: its binary alone is 17 to 20 MiB
# resident at idle against 8 MiB, and its futures are larger. Measured on 2 cores, 1-minute
# runs: release peaked at VmHWM 58.5 MiB (before the otel feature's code); debug at 67.4 MiB
# (before issue 20), 69.7 and 65.7 to 71.6 MiB (issue 20, here and on CI), and 75.0 MiB with
# the otel code linked in (idle 20 MiB). So 64 MiB made the debug run flaky rather than a
# leak detector; debug gets 88 MiB, the highest debug peak seen plus twice the 6 MiB spread
# between runs of the same code. The growth bound catches leaks: a 10-minute release run makes about 12 million
# valid requests, so leaking 2 bytes a request would exceed it. Windows rather than single
# samples for start and end, because the listen flood moves the RSS by 12 MiB every round.
#
# File descriptors: max <= idle + the connections the load can hold at once + SOAK_FD_SLACK
# (32), where the connections are one per valid call in flight (2 x SOAK_CONCURRENCY), two per
# case worker (a kept-alive one and a raw one), one per listen stream attempted in a round
# (SOAK_LISTEN_PEERS x SOAK_LISTEN_PER_PEER: a server should hold at most its cap, 512, but a
# refused attempt is counted until the server has closed it), one per stalled connection
# (2 x SOAK_SLOW_CONNECTIONS), one per session-flood worker, and one for the listen probe; the slack
# covers the listener and the runtime's own descriptors. And 2 s after the load, at most
# idle + SOAK_FD_SLACK: every connection closed, none leaked. The listen flood is what
# raises the bound, from about 100 above idle to about 800: that many connections are what
# it is there to hold.
#
# Output in target/soak/: rss.csv (elapsed_s,rss_kb,fds every second), server.log, the JSON
# lines of the three clients, and summary.txt.
#
#   bash scripts/soak.sh                                # 10 minutes, release
#   SOAK_SECONDS=60 PROFILE=debug bash scripts/soak.sh  # a short CI run on the test build
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

profile=${PROFILE:-release}
seconds=${SOAK_SECONDS:-600}
concurrency=${SOAK_CONCURRENCY:-32}
hostile_workers=${SOAK_HOSTILE_WORKERS:-4}
hostile_pause_ms=${SOAK_HOSTILE_PAUSE_MS:-2}
kinds=${SOAK_KINDS:-cases,listen-flood,session-flood,slow-headers,slow-bodies}
listen_peers=${SOAK_LISTEN_PEERS:-18}
listen_per_peer=${SOAK_LISTEN_PER_PEER:-36}
listen_hold=${SOAK_LISTEN_HOLD:-5}
session_workers=${SOAK_SESSION_WORKERS:-8}
session_pause_ms=${SOAK_SESSION_PAUSE_MS:-5}
slow_connections=${SOAK_SLOW_CONNECTIONS:-16}
slow_timeout=${SOAK_SLOW_TIMEOUT:-30}
slow_slack=${SOAK_SLOW_SLACK:-5}
fd_slack=${SOAK_FD_SLACK:-32}
rss_window=${SOAK_RSS_WINDOW:-$((listen_hold + 3))}
warmup=${SOAK_WARMUP:-10}
growth_kb=${SOAK_RSS_GROWTH_KB:-16384}
default_max_kb=65536
if [ "${PROFILE:-release}" = debug ]; then default_max_kb=90112; fi
max_kb=${SOAK_RSS_MAX_KB:-$default_max_kb}
target_dir=${CARGO_TARGET_DIR:-$root/target}
bin_dir=$target_dir/$profile
out=$target_dir/soak

say() { printf '== %s\n' "$*"; }
die() {
  printf 'soak.sh: FAIL: %s\n' "$*" >&2
  exit 1
}
[ "$seconds" -gt "$warmup" ] || die "SOAK_SECONDS ($seconds) must be more than SOAK_WARMUP ($warmup)"
has_kind() { [[ ",$kinds," == *",$1,"* ]]; }
# The connections the load can hold at once (see the file-descriptor bound above).
held=$((2 * concurrency))
if has_kind cases; then held=$((held + 2 * hostile_workers)); fi
if has_kind listen-flood; then held=$((held + listen_peers * listen_per_peer + 1)); fi
if has_kind session-flood; then held=$((held + session_workers)); fi
if has_kind slow-headers; then held=$((held + slow_connections)); fi
if has_kind slow-bodies; then held=$((held + slow_connections)); fi
# The server and hostile_traffic each need a descriptor per connection: raise the soft limit
# when it is too low for that (a common default is 1024).
need_fds=$((held + 256))
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$need_fds" ]; then
  ulimit -n "$need_fds" 2>/dev/null || die "this load needs $need_fds file descriptors; ulimit -n is $(ulimit -n)"
fi

cargo_profile=$profile
if [ "$profile" = debug ]; then cargo_profile=dev; fi
say "building everything, loadgen and hostile_traffic ($profile)"
cargo build -q -p mcp-examples -p mcp-loadgen -p mcp-traffic --profile "$cargo_profile" --bin everything --bin loadgen --bin hostile_traffic

rm -rf "$out"
mkdir -p "$out"
declare -A pids=()
cleanup() {
  local status=$?
  local name
  for name in "${!pids[@]}"; do kill -TERM "${pids[$name]}" 2>/dev/null || true; done
  for name in "${!pids[@]}"; do wait "${pids[$name]}" 2>/dev/null || true; done
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=""
for _ in $(seq 1 200); do
  candidate=$((20000 + RANDOM % 40000))
  if ! listening "$candidate"; then
    port=$candidate
    break
  fi
done
[ -n "$port" ] || die "no free loopback port"
url=http://127.0.0.1:$port/mcp

RUST_LOG=warn NO_COLOR=1 "$bin_dir/everything" http "127.0.0.1:$port" </dev/null >/dev/null 2>"$out/server.log" &
server=$!
pids[server]=$server
for _ in $(seq 1 200); do
  kill -0 "$server" 2>/dev/null || die "the server exited while starting (see $out/server.log)"
  if listening "$port"; then break; fi
  sleep 0.05
done
listening "$port" || die "the server does not listen on $port"

# rss.csv: seconds since the load started, VmRSS in kB, open file descriptors.
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
started_ms=$(now_ms)
sample() {
  local rss fds elapsed
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$server/status" 2>/dev/null) || return 1
  [ -n "$rss" ] || return 1
  fds=$(find "/proc/$server/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
  elapsed=$(($(now_ms) - started_ms))
  printf '%d.%03d,%s,%s\n' $((elapsed / 1000)) $((elapsed % 1000)) "$rss" "$fds"
}
echo "elapsed_s,rss_kb,fds" >"$out/rss.csv"
idle=$(sample)
idle_kb=$(cut -d, -f2 <<<"$idle")
idle_fds=$(cut -d, -f3 <<<"$idle")
(
  while sample >>"$out/rss.csv"; do sleep 1; done
) &
pids[sampler]=$!

say "soak: $seconds s against everything ($profile) on :$port: $concurrency plain + $concurrency multi-round calls in flight; hostile: $kinds"
common=(--transport http --url "$url" --pid "$server" --concurrency "$concurrency" --warmup 0 --duration "$seconds")
"$bin_dir/loadgen" "${common[@]}" --mode plain --tool test_simple_text --args '{}' \
  --expect "This is a simple text response for testing." --label plain >"$out/plain.json" 2>"$out/plain.err" &
pids[plain]=$!
"$bin_dir/loadgen" "${common[@]}" --mode mrtr --tool test_input_required_result_elicitation --args '{}' \
  --answer '{"name":"soak"}' --expect "Hello, soak!" --label mrtr >"$out/mrtr.json" 2>"$out/mrtr.err" &
pids[mrtr]=$!
"$bin_dir/hostile_traffic" --url "$url" --duration "$seconds" --kinds "$kinds" \
  --concurrency "$hostile_workers" --pause-ms "$hostile_pause_ms" \
  --listen-peers "$listen_peers" --listen-per-peer "$listen_per_peer" --listen-hold "$listen_hold" \
  --session-workers "$session_workers" --session-pause-ms "$session_pause_ms" \
  --slow-connections "$slow_connections" --slow-timeout "$slow_timeout" --slow-slack "$slow_slack" \
  >"$out/hostile.json" 2>"$out/hostile.err" &
pids[hostile]=$!

declare -A status=()
for name in plain mrtr hostile; do
  status[$name]=0
  wait "${pids[$name]}" || status[$name]=$?
  unset "pids[$name]"
done
load_ended_ms=$(($(now_ms) - started_ms))
kill -0 "$server" 2>/dev/null || die "the server died under load (see $out/server.log)"
sleep 2
after=$(sample)
after_kb=$(cut -d, -f2 <<<"$after")
after_fds=$(cut -d, -f3 <<<"$after")
hwm_kb=$(awk '/^VmHWM:/ {print $2}' "/proc/$server/status")
kill "${pids[sampler]}" 2>/dev/null || true
wait "${pids[sampler]}" 2>/dev/null || true
unset "pids[sampler]"
kill -TERM "$server"
server_status=0
wait "$server" || server_status=$?
unset "pids[server]"

# --- figures -----------------------------------------------------------------------------
# The first "KEY":NUMBER of a JSON line (the totals come before the per-kind counts).
json() { grep -o "\"$1\":[0-9.]*" "$2" | head -n 1 | cut -d: -f2; }
for name in plain mrtr hostile; do
  [ -s "$out/$name.json" ] || die "$name printed no result (exit ${status[$name]}): $(head -n 3 "$out/$name.err")"
done
plain_calls=$(json all_calls "$out/plain.json")
plain_errors=$(json all_errors "$out/plain.json")
mrtr_calls=$(json all_calls "$out/mrtr.json")
mrtr_errors=$(json all_errors "$out/mrtr.json")
hostile_sent=$(json sent "$out/hostile.json")
hostile_unexpected=$(json unexpected "$out/hostile.json")
answered=$(sed -n 's/.*"answered":{\([^}]*\)}.*/\1/p' "$out/hostile.json" | tr -d '"' | sed 's/,/, /g')
# Per kind: "KIND":{"requests":N,"accepted":N,"refused":N,"unexpected":N}.
kind_counts() {
  grep -o "\"$1\":{\"requests\":[0-9]*,\"accepted\":[0-9]*,\"refused\":[0-9]*,\"unexpected\":[0-9]*}" "$out/hostile.json" |
    head -n 1 | tr -c '0-9\n' ' ' | awk '{print $1, $2, $3, $4}'
}
kinds_summary=""
slow_missing=""
for kind in ${kinds//,/ }; do
  key=${kind//-/_}
  read -r k_requests k_accepted k_refused k_unexpected < <(kind_counts "$key") || true
  kinds_summary+="  $kind: ${k_requests:-?} requests, ${k_accepted:-?} accepted, ${k_refused:-?} expected refusals, ${k_unexpected:-?} unexpected"$'\n'
  case $kind in
    slow-*) if [ "$seconds" -ge $((slow_timeout + slow_slack)) ] && [ "${k_requests:-0}" -eq 0 ]; then slow_missing+=" $kind"; fi ;;
  esac
done
listen_labels=$(grep -o '"listen":{[^}]*}' "$out/hostile.json" | head -n 1 | sed 's/^"listen"://' | tr -d '{}"' | sed 's/,/, /g')
probe_labels=$(grep -o '"listen_probe":{[^}]*}' "$out/hostile.json" | head -n 1 | sed 's/^"listen_probe"://' | tr -d '{}"' | sed 's/,/, /g')
fd_bound=$((idle_fds + held + fd_slack))

# RSS: start = the highest sample in the window after the warm-up, end = the highest in the
# last window of the load, max = under load.
read -r start_kb end_kb peak_kb samples peak_fds < <(awk -F, -v warm="$warmup" -v ended="$((load_ended_ms / 1000))" -v window="$rss_window" '
  NR > 1 && $1 + 0 <= ended {
    n++
    if ($1 + 0 >= warm && $1 + 0 < warm + window && $2 + 0 > start + 0) start = $2
    if ($1 + 0 > ended - window && $2 + 0 > end + 0) end = $2
    if ($2 + 0 > peak) peak = $2 + 0
    if ($3 + 0 > fds) fds = $3 + 0
  }
  END { print start, end, peak, n, fds }' "$out/rss.csv")
[ -n "$start_kb" ] && [ -n "$end_kb" ] || die "too few RSS samples in $out/rss.csv"

warnings=$(sed 's/^[^ ]* *WARN //; s/ [a-z_]*=.*//' "$out/server.log" | grep -v '^ *$' | sort | uniq -c | sort -rn || true)

summary=$(
  echo "soak.sh: $seconds s against everything ($profile); $concurrency plain + $concurrency multi-round calls in flight; hostile kinds: $kinds"
  echo "  cases: $hostile_workers workers (pause ${hostile_pause_ms} ms); listen-flood: $listen_peers peers x $listen_per_peer streams, held ${listen_hold} s; session-flood: $session_workers workers (pause ${session_pause_ms} ms); slow-*: $slow_connections connections, closed within ${slow_timeout}+${slow_slack} s"
  echo "valid: $plain_calls plain calls ($plain_calls requests, $plain_errors errors), $mrtr_calls multi-round calls ($((2 * mrtr_calls)) requests, $mrtr_errors errors): $((plain_calls + 2 * mrtr_calls)) requests"
  echo "  plain: $(cat "$out/plain.json")"
  echo "  mrtr:  $(cat "$out/mrtr.json")"
  echo "hostile: $hostile_sent sent, $hostile_unexpected unexpected; by kind:"
  printf '%s' "$kinds_summary"
  if has_kind listen-flood; then
    echo "  listen streams: ${listen_labels:-none}; tools/list while held: ${probe_labels:-none}"
  fi
  echo "  answered: $answered"
  echo "RSS (kB): idle $idle_kb, start $start_kb (highest in ${warmup}..$((warmup + rss_window)) s of load), end $end_kb (highest in the last $rss_window s), max $peak_kb (VmHWM $hwm_kb), 2 s after the load $after_kb; $samples samples in target/soak/rss.csv"
  echo "  bound: end <= start + $growth_kb ($((start_kb + growth_kb))), max <= $max_kb"
  echo "open fds: $idle_fds before the load, at most $peak_fds under it, $after_fds 2 s after it"
  echo "  bound: max <= $fd_bound (idle + $held connections + $fd_slack), after <= $((idle_fds + fd_slack))"
  echo "server: exit $server_status on SIGTERM; WARN lines by message:"
  sed 's/^/  /' <<<"$warnings" | head -n 20
)
echo "$summary" | tee "$out/summary.txt"

[ "${status[plain]}" -eq 0 ] && [ "$plain_errors" = 0 ] || die "plain calls failed: $(head -n 3 "$out/plain.err")"
[ "${status[mrtr]}" -eq 0 ] && [ "$mrtr_errors" = 0 ] || die "multi-round calls failed: $(head -n 3 "$out/mrtr.err")"
[ "${status[hostile]}" -eq 0 ] && [ "$hostile_unexpected" = 0 ] ||
  die "hostile requests got unexpected answers: $(head -n 5 "$out/hostile.err")"
[ -z "$slow_missing" ] || die "no round of$slow_missing completed in $seconds s"
[ "$server_status" -eq 0 ] || die "the server exited with $server_status on SIGTERM"
[ "$peak_fds" -le "$fd_bound" ] || die "the server held $peak_fds file descriptors (bound: $fd_bound)"
[ "$after_fds" -le $((idle_fds + fd_slack)) ] ||
  die "the server still held $after_fds file descriptors 2 s after the load (idle: $idle_fds, slack: $fd_slack)"
[ "$end_kb" -le $((start_kb + growth_kb)) ] || die "RSS grew from $start_kb kB to $end_kb kB (bound: +$growth_kb kB)"
[ "$peak_kb" -le "$max_kb" ] && [ "$hwm_kb" -le "$max_kb" ] ||
  die "RSS peaked at $peak_kb kB, VmHWM $hwm_kb kB (bound: $max_kb kB)"
say "passed"
