#!/usr/bin/env bash
# Every test of agentwire: rustfmt and clippy, native Rust (core, relay, demo agent, properties), a bounded fuzz
# run, the package build with its size budget, wasm-bindgen tests in Node and in headless
# Chromium, Firefox and WebKit, the JS API and docs examples, the packed tarball, the MCP
# conformance suite, the playground end to end, and the other engines' smoke tests.
# Ends with one line "N passed, N failed, N skipped" (skipped: a test whose oracle is missing).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

log=$(mktemp)
# Removed however the run ends (an interrupted run too).
trap 'rm -f "$log"' EXIT
failed_steps=0
step() {
  local name=$1; shift
  printf '\n=== %s: %s\n' "$name" "$*"
  local before
  before=$(wc -l <"$log")
  "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  # A test binary that started but never reported (it crashed or was killed) counts as a
  # failure; so does a step that failed without reporting a failed test (a build error).
  local mine started reported
  mine=$(tail -n +"$((before + 1))" "$log")
  started=$(grep -cE '^ +Running (unittests )?[^ ]+ \(' <<<"$mine")
  reported=$(grep -cE '^test result:' <<<"$mine")
  if [ "$started" -gt "$reported" ]; then
    failed_steps=$((failed_steps + started - reported))
    printf '=== %s: %s test binaries ended without a result\n' "$name" "$((started - reported))"
  elif [ "$rc" -ne 0 ] && ! grep -qE '([1-9][0-9]*) failed|^ℹ fail [1-9]' <<<"$mine"; then
    failed_steps=$((failed_steps + 1))
  fi
  [ "$rc" -ne 0 ] && printf '=== %s FAILED (exit %s)\n' "$name" "$rc"
}

# Formatting and lints first: a failure here is one failed step, and the tests still run.
step "rustfmt (cargo fmt --check)" cargo fmt --all --check
step "clippy, native (workspace, every target)" cargo clippy -q --workspace --all-targets -- -D warnings
# The last build is the module with `Validator` alone (bench/size/compare.mjs --floor), in a
# target directory of its own: other rustflags there would rebuild the others' dependencies.
step "clippy, the module (wasm32, each protocol alone too, Validator alone)" bash -c 'cargo clippy -q --lib --target wasm32-unknown-unknown -- -D warnings && cargo clippy -q --lib --target wasm32-unknown-unknown --no-default-features --features acp -- -D warnings && cargo clippy -q --lib --target wasm32-unknown-unknown --no-default-features --features mcp -- -D warnings && RUSTFLAGS="--cfg agentwire_validator_only" CARGO_TARGET_DIR=target/floor cargo clippy -q --lib --target wasm32-unknown-unknown -- -D warnings'
# --no-fail-fast: one failing test binary must not hide the ones after it.
step "native tests" cargo test --workspace --no-fail-fast --color never -- --skip agrees_with_the_official_schemas
# Shown in full: per protocol and version, messages checked against the official schemas and disagreements.
step "validator vs the official schemas" cargo test --color never --test schema_agreement -- --nocapture
step "fuzzing, bounded (cargo-fuzz, every target)" bash scripts/fuzz.sh 5
step "relay and demo agent (release)" cargo build --release -q -p agentwire-relay -p agentwire-demo-agent
# Each protocol alone, as the per-protocol entries build it (natively here; the build below makes their .wasm).
step "ACP alone and MCP alone build" bash -c 'cargo build -q --lib --no-default-features --features acp && cargo build -q --lib --no-default-features --features mcp'
step "package build (3 entries) + size budgets" node scripts/build.mjs
step "debug package build (readable panics)" node scripts/build.mjs --debug
step "wasm tests in Node" wasm-pack test --node -- --test wasm
WASM_BINDGEN_USE_BROWSER=1 step "wasm tests in Chromium" wasm-pack test --headless --chrome -- --test wasm
WASM_BINDGEN_USE_BROWSER=1 step "wasm tests in Firefox" wasm-pack test --headless --firefox -- --test wasm
# wasm-pack's --safari looks for macOS's safaridriver; the runner itself takes WebKitGTK's driver.
WASM_BINDGEN_USE_BROWSER=1 SAFARIDRIVER=/usr/bin/WebKitWebDriver CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  step "wasm tests in WebKit (WebKitGTK, under xvfb-run)" xvfb-run -a cargo test --color never --target wasm32-unknown-unknown --test wasm
step "JS API and docs examples" node --test --test-reporter=spec tests/js/
# Alone: it runs the README's Install commands, whose build rewrites pkg/.
step "packed tarball, installed as the README says" node --test --test-reporter=spec tests/package/
step "MCP conformance suite (official: 32 server, 26 client scenarios)" node --test --test-reporter=spec --test-concurrency=1 tests/conformance/
step "playground end to end (Chromium, relay, real agents)" node --test --test-reporter=spec --test-concurrency=1 tests/e2e/
step "Firefox and WebKit: a plain page and the playground (WebDriver)" node --test --test-reporter=spec --test-concurrency=1 tests/engines/

# Totals from cargo/wasm-bindgen ("test result: ... N passed; M failed"), node ("ℹ pass N")
# and the fuzzer (each target that ran without a crash counts as one).
passed=$(grep -E '^test result:' "$log" | sed -E 's/.* ([0-9]+) passed.*/\1/' | awk '{s+=$1} END {print s+0}')
failed=$(grep -E '^test result:' "$log" | sed -E 's/.* ([0-9]+) failed.*/\1/' | awk '{s+=$1} END {print s+0}')
npass=$(grep -E '^ℹ pass [0-9]+' "$log" | awk '{s+=$3} END {print s+0}')
nfail=$(grep -E '^ℹ fail [0-9]+' "$log" | awk '{s+=$3} END {print s+0}')
nfuzz=$(grep -E '^fuzz: [0-9]+ targets, no crash' "$log" | awk '{s+=$2} END {print s+0}')
# A test whose oracle is missing is ignored (Rust) or skipped (node): counted as skipped.
skipped=$(grep -E '^test result:' "$log" | sed -E 's/.* ([0-9]+) ignored.*/\1/' | awk '{s+=$1} END {print s+0}')
nskip=$(grep -E '^ℹ skipped [0-9]+' "$log" | awk '{s+=$3} END {print s+0}')
passed=$(( ${passed:-0} + npass + nfuzz ))
failed=$(( ${failed:-0} + nfail + failed_steps ))
skipped=$(( ${skipped:-0} + nskip ))
echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
