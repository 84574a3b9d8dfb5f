#!/usr/bin/env python3
"""Edit one tool of a generated 100-tool crate for scripts/build-time.sh (stdlib only).

    build_time_edit.py LIB_RS ROUND

Changes the body of `tool_050` in LIB_RS (a `let _edit = ROUND;` line before its `let out =`,
replacing the previous round's), so every round's incremental rebuild has a real change.
"""
import re, sys
path, round_ = sys.argv[1], sys.argv[2]
text = open(path).read()
start = text.index("fn tool_050")
end = text.index("}\n", text.index("out.to_uppercase()", start))
body = text[start:end]
body = re.sub(r"let _edit = \d+;\n\s*", "", body)
body = body.replace("let out =", f"let _edit = {round_};\n    let out =", 1)
open(path, "w").write(text[:start] + body + text[end:])
