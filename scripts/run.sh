#!/usr/bin/env bash
# The playground, one command away: installs what is missing, builds what changed (the package:
# scripts/build.mjs skips what its stamp says is current; the relay and the demo agent: cargo's
# incremental build), and starts the relay with the demo agent (ACP v1+v2, v1 only, MCP). On a
# checkout that is already built it serves in seconds. Extra arguments go to the relay, e.g.
# another agent:
#   npm start -- --agent sdk="node node_modules/@agentclientprotocol/sdk/dist/examples/agent.js"
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
node scripts/build.mjs
cargo build --release -q -p agentwire-relay -p agentwire-demo-agent
demo="$PWD/target/release/agentwire-demo-agent"
data="${AGENTWIRE_DEMO_DATA:-${XDG_STATE_HOME:-$HOME/.local/state}/agentwire-demo-agent}"
echo "Open the URL below in a browser (the token in it is the key; Ctrl-C stops the relay)." >&2
exec target/release/agentwire-relay \
  --agent demo="$demo --data-dir $data" \
  --agent demo-v1="$demo --versions 1 --data-dir $data" \
  --agent demo-mcp="$demo --mcp" \
  "$@"
