#!/usr/bin/env bash
# Interop with the official MCP Python SDK: its client (`mcp.Client`, mcp==2.3.0) drives the
# `provisioner` example over stdio and Streamable HTTP, negotiating 2026-07-28 (auto) and
# 2025-11-25 (legacy), and answers elicitation, sampling and roots questions through its
# callbacks (scripts/python_interop.py holds the checks).
# Then the other direction: our client (`client_interop`) drives the SDK's server
# (`interop/python_server.py`, "PyProvisioner") in the same four combinations.
# Installs the SDK into .tools/pyvenv when it is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.tools/pyvenv"
sdk_version="2.3.0"

installed() {
  "$venv/bin/python" - "$sdk_version" 2>/dev/null <<'EOF'
import importlib.metadata, sys
sys.exit(importlib.metadata.version("mcp") != sys.argv[1])
EOF
}

if ! installed; then
  echo "== installing mcp==$sdk_version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$sdk_version"
  installed || { echo "python interop: mcp==$sdk_version did not install into $venv" >&2; exit 1; }
fi

cd "$root"
cargo build -q -p mcp-examples --bin provisioner --bin client_interop
target_dir=${CARGO_TARGET_DIR:-$root/target}
"$venv/bin/python" "$root/scripts/python_interop.py" "$target_dir/debug/provisioner"

echo "== our client drives the Python SDK's server (interop/python_server.py)"
"$target_dir/debug/client_interop" --python "$venv/bin/python" --server "$root/interop/python_server.py"
