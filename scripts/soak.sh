#!/usr/bin/env bash
# Soak (issue 9): one `everything http` instance under SOAK_SECONDS (600) of mixed traffic at
# once, with its resident memory sampled every second (`everything` rather than `provisioner`:
# it also has a single-round tool for the plain calls):
#
#   - plain calls: `loadgen --mode plain`, SOAK_CONCURRENCY (32) in flight, `test_simple_text`;
#   - multi-round calls: `loadgen --mode mrtr`, SOAK_CONCURRENCY in flight,
#     `test_input_required_result_elicitation` (two requests a call: the question, then the
#     retry with the answer and the sealed requestState), the final text checked;
#   - hostile requests: `hostile_traffic` (its module doc lists the cases), SOAK_HOSTILE_WORKERS
#     (4) workers pausing SOAK_HOSTILE_PAUSE_MS (2) after each request; every one must be
#     answered with a 4xx or a JSON-RPC error.
#
# Pass: no error on any valid call, no unexpected answer to a hostile request, the server
# alive to the end and exiting 0 on SIGTERM, and its RSS within the bound:
#
#   end <= start + SOAK_RSS_GROWTH_KB (16 MiB), where start is the RSS once the load has run
#   for SOAK_WARMUP seconds (10; the allocator's pools and the connections are in place by then)
#   and end the last sample of the load; and max <= SOAK_RSS_MAX_KB (48 MiB), both for the
#   samples and for the kernel's high-water mark (VmHWM, which also sees peaks between them).
#
# Why 48 MiB: under this load the sampled RSS moves between 12 and 24 MiB as the allocator
# takes and returns memory, with no upward trend minute by minute, and the high-water mark
# (VmHWM) of a 10-minute release run was 28 MiB (a 1-minute debug run: 26 and 28 MiB). On
# top of the steady state, each hostile worker can hold one body of up to the 4 MiB body
# limit in flight (4 workers: 16 MiB): 24 + 16 = 40 MiB, and 48 MiB leaves slack above that
# and above the measured high-water mark. The growth bound catches leaks: a 10-minute
# release run makes about 12 million valid requests, so leaking 2 bytes a request would
# exceed it.
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
warmup=${SOAK_WARMUP:-10}
growth_kb=${SOAK_RSS_GROWTH_KB:-16384}
max_kb=${SOAK_RSS_MAX_KB:-49152}
target_dir=${CARGO_TARGET_DIR:-$root/target}
bin_dir=$target_dir/$profile
out=$target_dir/soak

say() { printf '== %s\n' "$*"; }
die() {
  printf 'soak.sh: FAIL: %s\n' "$*" >&2
  exit 1
}
[ "$seconds" -gt "$warmup" ] || die "SOAK_SECONDS ($seconds) must be more than SOAK_WARMUP ($warmup)"

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

say "soak: $seconds s against everything ($profile) on :$port: $concurrency plain + $concurrency multi-round calls in flight, $hostile_workers hostile workers"
common=(--transport http --url "$url" --pid "$server" --concurrency "$concurrency" --warmup 0 --duration "$seconds")
"$bin_dir/loadgen" "${common[@]}" --mode plain --tool test_simple_text --args '{}' \
  --expect "This is a simple text response for testing." --label plain >"$out/plain.json" 2>"$out/plain.err" &
pids[plain]=$!
"$bin_dir/loadgen" "${common[@]}" --mode mrtr --tool test_input_required_result_elicitation --args '{}' \
  --answer '{"name":"soak"}' --expect "Hello, soak!" --label mrtr >"$out/mrtr.json" 2>"$out/mrtr.err" &
pids[mrtr]=$!
"$bin_dir/hostile_traffic" --url "$url" --duration "$seconds" --concurrency "$hostile_workers" \
  --pause-ms "$hostile_pause_ms" >"$out/hostile.json" 2>"$out/hostile.err" &
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
json() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" "$2"; }
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

# RSS: start = first sample at or after the warm-up, end = last sample under load, max = under load.
read -r start_kb end_kb peak_kb samples peak_fds < <(awk -F, -v warm="$warmup" -v ended="$((load_ended_ms / 1000))" '
  NR > 1 && $1 + 0 <= ended {
    n++
    if (start == "" && $1 + 0 >= warm) start = $2
    end = $2
    if ($2 + 0 > peak) peak = $2 + 0
    if ($3 + 0 > fds) fds = $3 + 0
  }
  END { print start, end, peak, n, fds }' "$out/rss.csv")
[ -n "$start_kb" ] && [ -n "$end_kb" ] || die "too few RSS samples in $out/rss.csv"

warnings=$(sed 's/^[^ ]* *WARN //; s/ [a-z_]*=.*//' "$out/server.log" | grep -v '^ *$' | sort | uniq -c | sort -rn || true)

summary=$(
  echo "soak.sh: $seconds s against everything ($profile); $concurrency plain + $concurrency multi-round calls in flight; $hostile_workers hostile workers (pause ${hostile_pause_ms} ms)"
  echo "valid: $plain_calls plain calls ($plain_calls requests, $plain_errors errors), $mrtr_calls multi-round calls ($((2 * mrtr_calls)) requests, $mrtr_errors errors): $((plain_calls + 2 * mrtr_calls)) requests"
  echo "  plain: $(cat "$out/plain.json")"
  echo "  mrtr:  $(cat "$out/mrtr.json")"
  echo "hostile: $hostile_sent sent, $hostile_unexpected unexpected; answered: $answered"
  echo "RSS (kB): idle $idle_kb, start $start_kb (after ${warmup} s of load), end $end_kb, max $peak_kb (VmHWM $hwm_kb), 2 s after the load $after_kb; $samples samples in target/soak/rss.csv"
  echo "  bound: end <= start + $growth_kb ($((start_kb + growth_kb))), max <= $max_kb"
  echo "open fds: $idle_fds before the load, at most $peak_fds under it, $after_fds 2 s after it"
  echo "server: exit $server_status on SIGTERM; WARN lines by message:"
  sed 's/^/  /' <<<"$warnings" | head -n 20
)
echo "$summary" | tee "$out/summary.txt"

[ "${status[plain]}" -eq 0 ] && [ "$plain_errors" = 0 ] || die "plain calls failed: $(head -n 3 "$out/plain.err")"
[ "${status[mrtr]}" -eq 0 ] && [ "$mrtr_errors" = 0 ] || die "multi-round calls failed: $(head -n 3 "$out/mrtr.err")"
[ "${status[hostile]}" -eq 0 ] && [ "$hostile_unexpected" = 0 ] ||
  die "hostile requests got unexpected answers: $(head -n 5 "$out/hostile.err")"
[ "$server_status" -eq 0 ] || die "the server exited with $server_status on SIGTERM"
[ "$end_kb" -le $((start_kb + growth_kb)) ] || die "RSS grew from $start_kb kB to $end_kb kB (bound: +$growth_kb kB)"
[ "$peak_kb" -le "$max_kb" ] && [ "$hwm_kb" -le "$max_kb" ] ||
  die "RSS peaked at $peak_kb kB, VmHWM $hwm_kb kB (bound: $max_kb kB)"
say "passed"
