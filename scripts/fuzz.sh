#!/usr/bin/env bash
# Fuzz the hostile-input decoders (issue 9): builds the cargo-fuzz targets in fuzz/ once,
# then runs each for FUZZ_SECONDS and fails on any crash, timeout or out-of-memory.
#
#   jsonrpc_decode  mcp::protocol::decode_message, plus the encode/decode round trip
#   request_state   AesGcmCodec::unseal (tampered and forged tokens) and Envelope::open
#   uri_template    UriTemplate::parse/matches, plus build-a-URI-and-match-it-back
#   mcp_param       the Mcp-Param header decode_value, plus encode_value round trips
#
# Toolchain: this runs on STABLE Rust. cargo-fuzz only needs nightly for a sanitizer
# (`-Zsanitizer=address` is its default) or `--build-std`; with `--sanitizer none` it
# passes only stable flags (`-Cpasses=sancov-module`, `-Cllvm-args=-sanitizer-coverage-*`,
# `--cfg fuzzing`, `-Cdebug-assertions`), and libfuzzer-sys builds libFuzzer itself with
# the C++ compiler. Safe Rust needs no AddressSanitizer (the workspace forbids
# `unsafe_code`); what we look for are panics (including overflow checks, on via
# `--debug-assertions`), aborts, hangs and runaway memory. No RUSTC_BOOTSTRAP, no nightly.
#
# Environment:
#   FUZZ_SECONDS        seconds per target (default 60)
#   FUZZ_TARGETS        space-separated subset (default: all four)
#   FUZZ_JOBS           targets fuzzed at once (default 2: the four 60 s runs take two
#                       minutes on a 2-core CI machine; use 1 for long local runs)
#   FUZZ_TIMEOUT        seconds one input may take before it counts as a hang (default 10)
#   FUZZ_RSS_LIMIT_MB   memory limit per fuzzer (default 2048)
#   FUZZ_CORPUS_DIR     working corpus, one folder per target (default fuzz/corpus, not
#                       committed); it starts from fuzz/seeds/<target> and keeps what the
#                       fuzzer finds, so repeated local runs build on each other
#   FUZZ_CODEGEN_UNITS  codegen units for the build (default 16: a faster build for
#                       slightly slower fuzzing)
#   FUZZ_LOG_DIR        keep each target's full libFuzzer log there (default: a temporary
#                       folder, removed at the end; failures print the end of theirs)
#
# Crashes are written to fuzz/artifacts/<target>/; reproduce one with
#   fuzz/target/x86_64-unknown-linux-gnu/release/<target> fuzz/artifacts/<target>/crash-...
# (or `cargo fuzz run --sanitizer none <target> <file>`).
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets="jsonrpc_decode request_state uri_template mcp_param"
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-$all_targets}
jobs=${FUZZ_JOBS:-2}
per_input_timeout=${FUZZ_TIMEOUT:-10}
rss_limit=${FUZZ_RSS_LIMIT_MB:-2048}
corpus_root=${FUZZ_CORPUS_DIR:-fuzz/corpus}
codegen_units=${FUZZ_CODEGEN_UNITS:-16}
triple=$(rustc -vV | sed -n 's/^host: //p')
bin_dir=fuzz/target/$triple/release

for t in $targets; do
  case " $all_targets " in
    *" $t "*) ;;
    *) echo "fuzz: unknown target '$t' (known: $all_targets)" >&2; exit 2 ;;
  esac
done

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

echo "== fuzz: $(cargo fuzz --version), $(rustc --version)"
started=$SECONDS
# One build for every target: they share all their dependencies.
cargo fuzz build --sanitizer none --debug-assertions --codegen-units "$codegen_units"
echo "== fuzz: built in $((SECONDS - started)) s"

if [ -n "${FUZZ_LOG_DIR:-}" ]; then
  logs=$FUZZ_LOG_DIR
  mkdir -p "$logs"
else
  logs=$(mktemp -d)
  trap 'rm -rf "$logs"' EXIT
fi

run_target() {
  local t=$1
  local corpus=$corpus_root/$t artifacts=fuzz/artifacts/$t
  local dict=()
  mkdir -p "$corpus" "$artifacts"
  if [ -f "fuzz/dicts/$t.dict" ]; then
    dict=("-dict=fuzz/dicts/$t.dict")
  fi
  # New inputs go to the first folder (the working corpus); the seeds are only read.
  # The outer timeout is a backstop should libFuzzer itself wedge.
  RUST_BACKTRACE=1 timeout -k 10 $((seconds + 300)) "$bin_dir/$t" \
    -max_total_time="$seconds" -timeout="$per_input_timeout" -rss_limit_mb="$rss_limit" \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "${dict[@]}" \
    "$corpus" "fuzz/seeds/$t" >"$logs/$t.log" 2>&1
}

# Run up to $jobs targets at a time; remember each one's exit status.
declare -A status
set -- $targets
while [ $# -gt 0 ]; do
  batch=()
  declare -A pids=()
  for _ in $(seq "$jobs"); do
    [ $# -gt 0 ] || break
    batch+=("$1")
    echo "== fuzz: $1 for ${seconds} s"
    run_target "$1" &
    pids[$1]=$!
    shift
  done
  for t in "${batch[@]}"; do
    if wait "${pids[$t]}"; then status[$t]=0; else status[$t]=$?; fi
  done
  unset pids
done

failed=0
printf '\n%-15s %-8s %12s %8s %8s %6s %7s %s\n' target result runs seconds exec/s cov ft "corpus (entries/bytes, files on disk)"
for t in $targets; do
  log=$logs/$t.log
  runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  secs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -1)
  final=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$final")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$final")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<<"$final")
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  files=$(find "$corpus_root/$t" -type f | wc -l)
  if [ "${status[$t]}" -eq 0 ] && [ -n "$runs" ]; then
    result=ok
  else
    result="FAIL(${status[$t]})"
    failed=1
  fi
  printf '%-15s %-8s %12s %8s %8s %6s %7s %s\n' "$t" "$result" "${runs:--}" "${secs:--}" "${eps:--}" \
    "${cov:--}" "${ft:--}" "${corp:--}, ${files}"
done

for t in $targets; do
  if [ "${status[$t]}" -ne 0 ]; then
    log=$logs/$t.log
    echo
    echo "== fuzz: $t FAILED (exit ${status[$t]}); its log from the failure on:"
    # The panic message and stack, libFuzzer's verdict, the input in hex and base64.
    if grep -qE 'panicked at|ERROR: libFuzzer' "$log"; then
      sed -n '/panicked at\|ERROR: libFuzzer/,$p' "$log" | grep -v '^#[0-9]' | head -n 120
    else
      tail -n 60 "$log"
    fi
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    if [ -n "$artifact" ] && [ -f "$artifact" ]; then
      echo "== fuzz: the input ($artifact, $(wc -c <"$artifact") bytes):"
      od -A d -c "$artifact" | head -n 40
      echo "   reproduce: $bin_dir/$t $artifact"
    fi
  fi
done

echo
echo "== fuzz: $(echo $targets | wc -w) target(s), ${seconds} s each, $((SECONDS - started)) s in all"
exit "$failed"
