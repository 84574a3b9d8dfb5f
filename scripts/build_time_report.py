#!/usr/bin/env python3
"""Write the "Build time" section of BENCHMARKS.md for scripts/build-time.sh (stdlib only).

    build_time_report.py RESULTS BENCHMARKS_MD

RESULTS has one line per round and crate: `CRATE CLEAN VALUE_EDIT LINE_EDIT` (seconds; CRATE is
`ours` or `rmcp`). The section is replaced in BENCHMARKS_MD (or appended), and printed.
"""
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
def med(crate, col):
    return statistics.median(float(r[col]) for r in rows if r[0] == crate)
lines = [
    "## Build time: a crate with 100 tools",
    "",
    "`bash scripts/build-time.sh`: the same 100 tools (text, optional count, flag with a default)",
    "written with `#[mcp::tool]` and with rmcp 3.11's `#[tool_router]`/`#[tool]`; dev profile,",
    f"dependencies already built; median of {len(rows) // 2} alternating rounds. Each round edits",
    "`tool_050` twice (`scripts/build_time_edit.py`): rustc reuses more of its incremental cache",
    "when no line moves, so both kinds of edit are timed.",
    "",
    "| | ours | rmcp | ours / rmcp |",
    "|---|---|---|---|",
]
for label, col in (
    ("clean build of the crate", 1),
    ("rebuild after changing a value in one tool's body", 2),
    ("rebuild after adding a line to one tool's body (the lines after it move)", 3),
):
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
    # The sections after it (the Redis and OpenTelemetry benchmarks) stay, a blank line apart.
    text = head + section + ("\n" + rest[nxt + 1:] if nxt >= 0 else "")
else:
    text = text.rstrip("\n") + "\n\n" + section
open(path, "w").write(text)
print(section)
