#!/usr/bin/env bash
# Runs the whole test suite (`.ci/run`, the README's test command) N times in a row in this
# clone and says how each went, optionally while the machine is busy (`--load`: a CPU burner
# per core beside the runs, stopped with them).
#   bash scripts/repeat-whole.sh 5           # 5 runs
#   bash scripts/repeat-whole.sh 5 --load    # 5 runs beside a full load on every core
# Logs: target/repeat-whole/run-N.log. One line per run (exit code, seconds, load average before
# and after, its closing line), then "N passed, N failed" (runs, not tests).
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
load=${2:-}
out=target/repeat-whole
mkdir -p "$out"
burners=()
if [ "$load" = "--load" ]; then
  for _ in $(seq "$(nproc)"); do (while :; do :; done) & burners+=($!); done
fi
stop() { [ ${#burners[@]} -gt 0 ] && kill "${burners[@]}" 2>/dev/null; }
trap stop EXIT
ok=0; bad=0
for i in $(seq "$runs"); do
  log="$out/run-$i.log"
  start=$(date +%s); before=$(cut -d' ' -f1 /proc/loadavg)
  if bash .ci/run >"$log" 2>&1; then ok=$((ok + 1)); rc=0; else bad=$((bad + 1)); rc=1; fi
  echo "run $i${load:+ (under load)}: exit $rc, $(( $(date +%s) - start )) s, load $before → $(cut -d' ' -f1 /proc/loadavg): $(tail -n 1 "$log")"
done
echo "$ok passed, $bad failed"
