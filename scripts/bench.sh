#!/usr/bin/env bash
# Native benchmark of the whole answer for one configuration (benches/
# evaluate.rs, criterion), then the medians: per configuration and per
# offer. Budget: a median of at most 0.5 ms per configuration. Extra
# arguments go to criterion, e.g. `scripts/bench.sh evaluate/default`.
# Timings on a shared or busy machine run high; compare on an idle one.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
target="${CARGO_TARGET_DIR:-target}"

cargo bench --locked --bench evaluate -- "$@"

median_ns() { # criterion's median point estimate, in ns
  sed -E 's/.*"median":\{"confidence_interval":\{[^}]*\},"point_estimate":([-0-9.eE+]+).*/\1/' "$1"
}
fmt() { awk -v ns="$1" 'BEGIN { if (ns >= 1e6) printf "%.3f ms", ns / 1e6; else if (ns >= 1e3) printf "%.1f µs", ns / 1e3; else printf "%.0f ns", ns }'; }

printf '\n[bench] median per configuration (whole catalog) and per offer\n'
over=0
for f in "$target"/criterion/evaluate/*/new/estimates.json; do
  [ -f "$f" ] || continue
  name=$(basename "$(dirname "$(dirname "$f")")")
  per_config=$(median_ns "$f")
  # The throughput criterion records is the number of offers evaluated.
  offers=$(sed -nE 's/.*"Elements":([0-9]+).*/\1/p' "$(dirname "$f")/benchmark.json")
  per_offer=$(awk -v ns="$per_config" -v n="${offers:-0}" 'BEGIN { if (n > 0) print ns / n; else print 0 }')
  printf '[bench] %-20s %12s per configuration   %10s per offer (%s offers)\n' "$name" "$(fmt "$per_config")" "$(fmt "$per_offer")" "${offers:-?}"
  awk -v ns="$per_config" 'BEGIN { exit !(ns > 500000) }' && over=$((over + 1))
done
if [ "$over" -eq 0 ]; then
  echo "[bench] every configuration within the 0.5 ms budget"
else
  echo "[bench] $over configuration(s) over the 0.5 ms budget"
fi
