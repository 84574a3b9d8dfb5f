# Sourced by scripts that need the MCP Python SDK: `ensure_pyvenv ROOT LABEL` makes sure
# ROOT/.tools/pyvenv holds mcp==$MCP_PY_SDK_VERSION (2.3.0) and sets `py` to its python.
MCP_PY_SDK_VERSION=${MCP_PY_SDK_VERSION:-2.3.0}

ensure_pyvenv() {
  local root=$1 label=$2
  local venv="$root/.tools/pyvenv"
  local check='import importlib.metadata, sys; sys.exit(importlib.metadata.version("mcp") != sys.argv[1])'
  if ! "$venv/bin/python" -c "$check" "$MCP_PY_SDK_VERSION" 2>/dev/null; then
    echo "== installing mcp==$MCP_PY_SDK_VERSION into $venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$MCP_PY_SDK_VERSION"
    "$venv/bin/python" -c "$check" "$MCP_PY_SDK_VERSION" \
      || { echo "$label: mcp==$MCP_PY_SDK_VERSION did not install into $venv" >&2; return 1; }
  fi
  py="$venv/bin/python"
}
