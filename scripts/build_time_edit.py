#!/usr/bin/env python3
"""Edit one tool of a generated 100-tool crate for scripts/build-time.sh (stdlib only).

    build_time_edit.py LIB_RS MODE ROUND

Edits the body of `tool_050` in LIB_RS, just before its `let out =`:

- `reset`: leaves one line, `let _edit = 0;` (run before each round's clean build);
- `value`: changes that line's number to a single digit that depends on ROUND (never 0), so
  the body changes and no line or column of the file moves;
- `line`: adds a line, `let _more = N;` (N = ROUND % 10), so every line after it moves down
  by one.

The two edits are the common kinds: rustc's incremental cache treats a change that moves the
code after it differently from one that does not, so the script times both.
"""
import re, sys
path, mode, round_ = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(path).read()
start = text.index("fn tool_050")
end = text.index("}\n", text.index("out.to_uppercase()", start))
body = text[start:end]
# The indentation of the body's `let out` line (the two crates indent differently).
indent = re.search(r"\n([ \t]*)let out =", body).group(1)
if mode == "reset":
    body = re.sub(r"let _(edit|more) = \d+;\n\s*", "", body)
    body = body.replace("let out =", f"let _edit = 0;\n{indent}let out =", 1)
elif mode == "value":
    body, n = re.subn(r"let _edit = \d;", f"let _edit = {1 + round_ % 9};", body)
    assert n == 1, "run `reset` first"
elif mode == "line":
    body = body.replace("let out =", f"let _more = {round_ % 10};\n{indent}let out =", 1)
else:
    sys.exit(f"unknown mode {mode!r}: reset, value or line")
open(path, "w").write(text[:start] + body + text[end:])
