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
# shellcheck source=scripts/lib/pyvenv.sh
. "$root/scripts/lib/pyvenv.sh"
ensure_pyvenv "$root" "python interop"
venv="$root/.tools/pyvenv"

cd "$root"
cargo build -q -p mcp-examples --bin provisioner --bin client_interop
target_dir=${CARGO_TARGET_DIR:-$root/target}
"$venv/bin/python" "$root/scripts/python_interop.py" "$target_dir/debug/provisioner"

echo "== our client drives the Python SDK's server (interop/python_server.py)"
"$target_dir/debug/client_interop" --python "$venv/bin/python" --server "$root/interop/python_server.py"
