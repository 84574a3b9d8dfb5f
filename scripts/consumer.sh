#!/usr/bin/env bash
# Build the README's "Use it in your crate" instructions as a crate outside the workspace:
# its [dependencies] lines (the path pointed at this checkout) and its src/main.rs, taken
# verbatim from the README. Then run the binary: `describe` lists the tool, and `stdio`
# answers an initialize. If the README's lines rot, this fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The n-th fenced block of a language inside the README section "Use it in your crate".
block() {
  awk -v lang="$1" '
    /^## / { in_section = ($0 == "## Use it in your crate") }
    in_section && !open && $0 ~ "^```" lang { open = 1; next }
    open && /^```$/ { exit }
    open { print }
  ' "$root/README.md"
}

deps="$(block toml)"
main="$(block rust)"
if [[ -z "$deps" || -z "$main" ]]; then
  echo "consumer: README has no toml or rust block under '## Use it in your crate'" >&2
  exit 1
fi
grep -q 'path = "PATH/TO/CHECKOUT/mcp-runtime"' <<<"$deps" || {
  echo "consumer: the README's mcp line no longer says path = \"PATH/TO/CHECKOUT/mcp-runtime\"" >&2
  exit 1
}

mkdir -p "$work/consumer/src"
{
  printf '[package]\nname = "consumer"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n'
  sed "s|PATH/TO/CHECKOUT|$root|" <<<"$deps"
} >"$work/consumer/Cargo.toml"
printf '%s\n' "$main" >"$work/consumer/src/main.rs"
# The workspace's lock file pins the same versions the workspace was tested with (cargo
# drops what the consumer does not use), and its target directory already holds them.
cp "$root/Cargo.lock" "$work/consumer/Cargo.lock"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
echo "consumer: building the README's crate in $work/consumer"
cargo build --quiet --manifest-path "$work/consumer/Cargo.toml"
bin="$CARGO_TARGET_DIR/debug/consumer"

described="$("$bin" describe)"
grep -q '^### `price`' <<<"$described" || { echo "consumer: describe does not list price:"; echo "$described"; exit 1; } >&2

init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}'
answer="$(printf '%s\n' "$init" | timeout 20 "$bin" stdio)"
grep -q '"serverInfo":{"name":"pricing"' <<<"$answer" || { echo "consumer: stdio answered: $answer"; exit 1; } >&2
echo "consumer: README crate builds; describe lists price; stdio answers initialize"
