#!/usr/bin/env bash
# Fuzzes the core (fuzz/: cargo-fuzz / libFuzzer) for a bounded time: every target in
# turn, each starting from its committed seed corpus (fuzz/corpus/<target>, never
# written to). Fails when a target crashes; the input is kept in fuzz/artifacts/<target>/.
#
#   scripts/fuzz.sh [seconds per target, default 20] [target ...]
#
# Builds without a sanitizer (the core has no unsafe code) on the stable toolchain;
# FUZZ_SANITIZER=address builds with AddressSanitizer, whose flag is nightly-only, so
# RUSTC_BOOTSTRAP=1 is set for it. See docs/RELIABILITY.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

seconds=${1:-20}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(jsonrpc_parse schema_validate acp_client acp_agent mcp_client mcp_server apps_bridge)

if ! cargo fuzz --version 2>/dev/null | grep -qF 0.13.2; then
  echo "installing cargo-fuzz 0.13.2"
  cargo install cargo-fuzz --version 0.13.2 --locked
fi
sanitizer=${FUZZ_SANITIZER:-none}
target_dir=fuzz/target
if [ "$sanitizer" != none ]; then
  export RUSTC_BOOTSTRAP=1
  # A build of its own, so switching does not rebuild the other.
  target_dir=fuzz/target/$sanitizer
  export CARGO_TARGET_DIR=$PWD/$target_dir
fi

build_start=$SECONDS
cargo fuzz build -s "$sanitizer" >/dev/null 2>&1 || cargo fuzz build -s "$sanitizer"
echo "fuzz build: $((SECONDS - build_start)) s"

# The binaries run directly: `cargo fuzz run` would check the build again per target.
bin="$target_dir/$(rustc -vV | sed -n 's/^host: //p')/release"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
crashed=()
for t in "${targets[@]}"; do
  mkdir -p "$work/$t" "fuzz/artifacts/$t"
  set +e
  "$bin/$t" "$work/$t" "fuzz/corpus/$t" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
    -dict=fuzz/jsonrpc.dict -artifact_prefix="fuzz/artifacts/$t/" -print_final_stats=1 >"$work/$t.log" 2>&1
  rc=$?
  set -e
  runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$work/$t.log")
  cov=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$work/$t.log" | tail -1 | sed -nE 's/.*cov: ([0-9]+).*/\1/p')
  if [ "$rc" -eq 0 ]; then
    printf '%-16s ok     %8s runs in %s s, coverage %s, corpus %s\n' "$t" "${runs:-?}" "$seconds" "${cov:-?}" "$(ls "$work/$t" | wc -l)"
  else
    crashed+=("$t")
    printf '%-16s CRASH  after %s runs\n' "$t" "${runs:-?}"
    grep -E "panicked|ERROR|SUMMARY|Test unit written|assertion" "$work/$t.log" | head -20
    echo "  reproduce: cargo fuzz run -s $sanitizer $t fuzz/artifacts/$t/<crash file>"
  fi
done
if [ ${#crashed[@]} -gt 0 ]; then
  echo "fuzz: crashes in ${crashed[*]}"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, no crash"
