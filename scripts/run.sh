#!/usr/bin/env bash
# The main job: install what is missing, build the package and say where it is.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
node scripts/build.mjs
