#!/usr/bin/env bash
# Build time of a crate with 100 tools: ours (`#[mcp::tool]`) against the same crate written
# with rmcp 3.11's macros (bench/build-time/generate.py writes both under
# target/build-time). Dependencies are built first; then, alternating ours and rmcp for
# BUILD_ROUNDS rounds (default 2), a clean build of the crate itself (`cargo clean -p`) and an
# incremental rebuild after editing one tool's body, in the dev profile. The medians go to the
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
    cargo clean -q -p "hundred-$crate" --manifest-path "$out/$crate/Cargo.toml"
    start=$(now)
    build "$crate"
    clean=$(python3 -c "print(round($(now) - $start, 2))")
    # Touch one tool: change the body of tool_050 (alternating, so every round edits).
    lib="$out/$crate/src/lib.rs"
    python3 - "$lib" "$round" <<'PY'
import re, sys
path, round_ = sys.argv[1], sys.argv[2]
text = open(path).read()
start = text.index("fn tool_050")
end = text.index("}\n", text.index("out.to_uppercase()", start))
body = text[start:end]
body = re.sub(r"let _edit = \d+;\n\s*", "", body)
body = body.replace("let out =", f"let _edit = {round_};\n    let out =", 1)
open(path, "w").write(text[:start] + body + text[end:])
PY
    start=$(now)
    build "$crate"
    incremental=$(python3 -c "print(round($(now) - $start, 2))")
    echo "round $round $crate clean ${clean}s incremental ${incremental}s"
    echo "$crate $clean $incremental" >>"$results"
  done
done

python3 - "$results" "$root/BENCHMARKS.md" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
def med(crate, col):
    return statistics.median(float(r[col]) for r in rows if r[0] == crate)
lines = [
    "## Build time: a crate with 100 tools",
    "",
    "`bash scripts/build-time.sh`: the same 100 tools (text, optional count, flag with a default)",
    "written with `#[mcp::tool]` and with rmcp 3.11's `#[tool_router]`/`#[tool]`; dev profile,",
    f"dependencies already built; median of {len(rows) // 2} alternating rounds.",
    "",
    "| | ours | rmcp | ours / rmcp |",
    "|---|---|---|---|",
]
for label, col in (("clean build of the crate", 1), ("rebuild after editing one tool", 2)):
    a, b = med("ours", col), med("rmcp", col)
    lines.append(f"| {label} | {a:.2f} s | {b:.2f} s | {a / b:.2f}× |")
section = "\n".join(lines) + "\n"
path = sys.argv[2]
try:
    text = open(path).read()
except FileNotFoundError:
    text = ""
marker = "## Build time: a crate with 100 tools"
if marker in text:
    head, _, rest = text.partition(marker)
    nxt = rest.find("\n## ")
    text = head + section + (rest[nxt + 1:] if nxt >= 0 else "")
else:
    text = text.rstrip("\n") + "\n\n" + section
open(path, "w").write(text)
print(section)
PY
