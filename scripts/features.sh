#!/usr/bin/env bash
# Checks mcp-runtime (clippy, warnings denied) with every documented combination of its Cargo features, and checks
# that the narrow builds leave out what they promise to: no hyper in a stdio-only server,
# no ring (the server's sealing) in an HTTP client, no JWT crate without `oauth`, no rustls
# without `tls` (or `oauth`, which turns it on), no Redis client without `redis`, no
# OpenTelemetry SDK (or its HTTP client, reqwest) without `otel`, and no aws-lc (a C build)
# with any of them: rustls uses ring.
set -euo pipefail
cd "$(dirname "$0")/.."

combos=(
  "--no-default-features --features server,stdio,macros"
  "--no-default-features --features client,http"
  "--no-default-features --features server"
  "--no-default-features --features server,stdio"
  "--no-default-features --features server,http"
  "--no-default-features --features server,http,macros"
  "--no-default-features --features client"
  "--no-default-features --features client,stdio"
  "--no-default-features --features server,client,stdio"
  "--no-default-features --features cli"
  "--no-default-features --features oauth"
  "--no-default-features --features oauth,server"
  "--no-default-features --features oauth,client"
  "--no-default-features --features client,http,tls"
  "--no-default-features --features server,http,tls"
  "--features tls"
  "--features oauth"
  "--no-default-features --features redis"
  "--features redis"
  "--no-default-features --features server,otel"
  "--no-default-features --features client,http,otel"
  "--features otel"
  "--no-default-features"
  "--all-features"
)
# Checked with clippy, warnings denied for mcp-runtime alone: the dependencies keep the
# flags of the workspace's other builds, so they are checked once per feature set instead
# of rebuilt under a new RUSTFLAGS for every combination (about ten minutes of CI).
for combo in "${combos[@]}"; do
  echo "-- cargo clippy -p mcp-runtime --lib $combo"
  # shellcheck disable=SC2086
  cargo clippy -q -p mcp-runtime --lib $combo -- -D warnings
done

# shellcheck disable=SC2086
count() { cargo tree -q -p mcp-runtime -e normal $1 | grep -c -E "^.*[ -]$2 v" || true; }

hyper_in_stdio_server=$(count "--no-default-features --features server,stdio,macros" hyper)
ring_in_http_client=$(count "--no-default-features --features client,http" ring)
hyper_in_default=$(count "" hyper)
jwt_in_default=$(count "" jsonwebtoken)
rustls_in_default=$(count "" rustls)
aws_lc_in_oauth=$(count "--features oauth" "aws-lc-(rs|sys)")
aws_lc_in_tls=$(count "--no-default-features --features client,http,tls" "aws-lc-(rs|sys)")
redis_in_default=$(count "" redis)
otel_in_default=$(count "" "(opentelemetry|tracing-opentelemetry|reqwest)")
aws_lc_in_otel=$(count "--features otel" "aws-lc-(rs|sys)")
echo "hyper lines in 'cargo tree -e normal' of server,stdio,macros: $hyper_in_stdio_server"
echo "ring lines in 'cargo tree -e normal' of client,http: $ring_in_http_client"
echo "hyper lines with the default features (for contrast): $hyper_in_default"
echo "jsonwebtoken lines in 'cargo tree -e normal' of the default features: $jwt_in_default"
echo "rustls lines in 'cargo tree -e normal' of the default features: $rustls_in_default"
echo "aws-lc lines in 'cargo tree -e normal' with oauth: $aws_lc_in_oauth"
echo "aws-lc lines in 'cargo tree -e normal' of client,http,tls: $aws_lc_in_tls"
echo "redis lines in 'cargo tree -e normal' of the default features: $redis_in_default"
echo "OpenTelemetry (and reqwest) lines in 'cargo tree -e normal' of the default features: $otel_in_default"
echo "aws-lc lines in 'cargo tree -e normal' with otel: $aws_lc_in_otel"
if [ "$hyper_in_stdio_server" -ne 0 ] || [ "$ring_in_http_client" -ne 0 ] || [ "$jwt_in_default" -ne 0 ] \
  || [ "$rustls_in_default" -ne 0 ] || [ "$aws_lc_in_oauth" -ne 0 ] \
  || [ "$aws_lc_in_tls" -ne 0 ] || [ "$redis_in_default" -ne 0 ] || [ "$otel_in_default" -ne 0 ] \
  || [ "$aws_lc_in_otel" -ne 0 ]; then
  echo "a narrow build pulls in what its features leave out" >&2
  exit 1
fi
if [ "$hyper_in_default" -eq 0 ]; then
  echo "the default build has no hyper: the check above would prove nothing" >&2
  exit 1
fi
echo "features: ${#combos[@]} combinations checked"
