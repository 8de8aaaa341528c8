#!/usr/bin/env bash
# Runs the native test suites N times in a row and tallies what failed, optionally while the
# machine is busy (`--load`: a CPU burner per core beside the tests, stopped with them).
#   bash scripts/repeat.sh 30           # 30 runs
#   bash scripts/repeat.sh 15 --load    # 15 runs beside a full load on every core
# Logs: target/repeat/run-N.log. Ends with "N passed, N failed" (runs, not tests).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
runs=${1:-10}
load=${2:-}
out=target/repeat
mkdir -p "$out"
cargo test --workspace --no-fail-fast --no-run -q 2>/dev/null   # build once, outside the timing
burners=()
if [ "$load" = "--load" ]; then
  for _ in $(seq "$(nproc)"); do (while :; do :; done) & burners+=($!); done
fi
stop() { [ ${#burners[@]} -gt 0 ] && kill "${burners[@]}" 2>/dev/null; }
trap stop EXIT
ok=0; bad=0
for i in $(seq "$runs"); do
  log="$out/run-$i.log"
  if cargo test --workspace --no-fail-fast --color never -- --skip agrees_with_the_official_schemas >"$log" 2>&1; then
    ok=$((ok + 1))
  else
    bad=$((bad + 1))
    echo "run $i failed: $(grep -E '^test .* FAILED$' "$log" | sed -E 's/^test (.*) \.\.\. FAILED$/\1/' | tr '\n' ' ')"
  fi
done
echo "failed tests over $runs runs${load:+ (under load)}:"
cat "$out"/run-*.log | grep -E '^test .* FAILED$' | sed -E 's/^test (.*) \.\.\. FAILED$/\1/' | sort | uniq -c | sort -rn
echo "$ok passed, $bad failed"
