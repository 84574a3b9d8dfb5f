#!/usr/bin/env bash
# Build time of a crate with 100 tools: ours (`#[mcp::tool]`) against the same crate written
# with rmcp 3.11's macros (bench/build-time/generate.py writes both under
# target/build-time). Dependencies are built first; then, alternating ours and rmcp for
# BUILD_ROUNDS rounds (default 2), a clean build of the crate itself (`cargo clean -p`), then
# two incremental rebuilds after editing one tool's body (a value, then an added line; see
# build_time_edit.py), in the dev profile. The medians go to the
# "Build time" section of BENCHMARKS.md (replaced on each run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/target/build-time"
rounds=${BUILD_ROUNDS:-2}
python3 "$root/bench/build-time/generate.py" "$out" "$root"

now() { python3 -c 'import time; print(time.monotonic())'; }
build() { cargo build -q --manifest-path "$out/$1/Cargo.toml"; }

for crate in ours rmcp; do
  echo "== dependencies of $crate"
  build "$crate"
done

results="$out/results.txt"
: >"$results"
for round in $(seq 1 "$rounds"); do
  for crate in ours rmcp; do
    lib="$out/$crate/src/lib.rs"
    python3 "$root/scripts/build_time_edit.py" "$lib" reset "$round"
    cargo clean -q -p "hundred-$crate" --manifest-path "$out/$crate/Cargo.toml"
    start=$(now)
    build "$crate"
    clean=$(python3 -c "print(round($(now) - $start, 2))")
    # Edit tool_050's body twice: a value (no line moves), then a new line (the rest moves).
    times=""
    for mode in value line; do
      python3 "$root/scripts/build_time_edit.py" "$lib" "$mode" "$round"
      start=$(now)
      build "$crate"
      times="$times $(python3 -c "print(round($(now) - $start, 2))")"
    done
    echo "round $round $crate clean ${clean} s, after the edits (value, line):${times} s"
    echo "$crate $clean$times" >>"$results"
  done
done

python3 "$root/scripts/build_time_report.py" "$results" "$root/BENCHMARKS.md"
