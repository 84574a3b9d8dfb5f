#!/usr/bin/env bash
# OAuth end to end: the provisioner as a protected resource behind a real authorization
# server (node-oidc-provider, scripts/oauth/authorization-server.mjs), driven by
# scripts/oauth/e2e.mjs: valid tokens (client credentials, authorization code + PKCE),
# no token, expired / wrong audience / wrong issuer / bad signature / alg none, missing
# scope (403), JWKS rotation, requestState bound to its user, the demo client authorizing
# itself (dynamic registration, loopback redirect, a token store); and a second
# provisioner that takes opaque tokens and checks them by token introspection (RFC 7662).
# Installs the pinned npm packages with `npm ci` into scripts/oauth/node_modules; uses the
# Node 22 of scripts/conformance.sh when present, else the node on PATH (20.19 or later).
# Prints PASS/FAIL per case; exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/scripts/oauth"
target=${CARGO_TARGET_DIR:-$root/target}

if [ -x "$root/.tools/conformance/node_modules/.bin/node" ]; then
  export PATH="$root/.tools/conformance/node_modules/.bin:$PATH"
fi
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
  echo "oauth-e2e: node $(node --version) is too old: oidc-provider needs 20.19 or later (scripts/conformance.sh installs 22)" >&2
  exit 1
fi
echo "== node $(node --version)"
stamp="$dir/node_modules/.installed-from-lock"
if ! cmp -s "$dir/package-lock.json" "$stamp" 2>/dev/null; then
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$dir/package-lock.json" "$stamp"
fi

cargo build -q -p mcp-examples --bin provisioner --bin demo
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
wait_port() {
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "oauth-e2e: nothing listens on port $1" >&2
  return 1
}

work=$(mktemp -d)
as_pid_file="$work/as.pid"
server_pid=
opaque_pid=
cleanup() {
  if [ -f "$as_pid_file" ]; then kill "$(cat "$as_pid_file")" 2>/dev/null || true; fi
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  if [ -n "$opaque_pid" ]; then kill "$opaque_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

as_port=$(free_port)
mcp_port=$(free_port)
opaque_port=$(free_port)
export AS_PORT=$as_port AS_KEY_FILE="$work/signing-key.json" AS_PID_FILE="$as_pid_file"
export AS_LOG="$target/oauth-as.log" AS_ISSUER="http://127.0.0.1:$as_port"
export MCP_URL="http://127.0.0.1:$mcp_port/mcp" DEMO_BIN="$target/debug/demo"
# The demo's authorization URL is opened by following redirects: no login_hint, so the
# AS logs this user in.
export AS_DEFAULT_USER=alice
# Resources on this origin get opaque tokens, which the second provisioner introspects.
export AS_OPAQUE_ORIGIN="http://127.0.0.1:$opaque_port" MCP_OPAQUE_URL="http://127.0.0.1:$opaque_port/mcp"
: >"$AS_LOG"
node "$dir/authorization-server.mjs" >>"$AS_LOG" 2>&1 &
echo $! >"$as_pid_file"
wait_port "$as_port"

log="$target/oauth-provisioner.log"
MCP_AUTH_ISSUER="$AS_ISSUER" MCP_AUTH_RESOURCE="$MCP_URL" RUST_LOG=${RUST_LOG:-info} \
  "$target/debug/provisioner" http "127.0.0.1:$mcp_port" >"$log" 2>&1 &
server_pid=$!
opaque_log="$target/oauth-provisioner-opaque.log"
MCP_AUTH_ISSUER="$AS_ISSUER" MCP_AUTH_RESOURCE="$MCP_OPAQUE_URL" RUST_LOG=${RUST_LOG:-info} \
  MCP_AUTH_INTROSPECTION_CLIENT_ID=mcp-server MCP_AUTH_INTROSPECTION_CLIENT_SECRET=mcp-server-secret \
  "$target/debug/provisioner" http "127.0.0.1:$opaque_port" >"$opaque_log" 2>&1 &
opaque_pid=$!
wait_port "$mcp_port"
wait_port "$opaque_port"
echo "== authorization server $AS_ISSUER (log $AS_LOG), provisioner $MCP_URL (log $log)"
echo "== provisioner with opaque tokens (introspection) $MCP_OPAQUE_URL (log $opaque_log)"

status=0
(cd "$dir" && node e2e.mjs) || status=$?
if [ "$status" -ne 0 ]; then
  echo "== oauth-e2e FAILED; last lines of the logs:" >&2
  tail -n 20 "$AS_LOG" "$log" "$opaque_log" >&2 || true
fi
exit "$status"
