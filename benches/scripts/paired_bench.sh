#!/usr/bin/env bash
# Two builds' `supernova bench` run at the same moment, one pinned to each
# of the first two processors (swapped at every pair), so that a shared
# host's speed, which drifts by a tenth within a minute, weighs on both
# alike; prints each pair's nodes a second and the median ratio NEW/OLD.
# Run it with OLD against itself first: the spread of that ratio is the
# method's noise (0.98 to 1.00 over 40 pairs on the 2-core machine, single
# pairs 0.82 to 1.17). Needs `taskset` (util-linux) and two processors.
# usage: benches/scripts/paired_bench.sh OLD NEW PAIRS [BENCH ARGUMENTS...]
# e.g.:  benches/scripts/paired_bench.sh base/supernova target/release/supernova 40 --nodes 5000
set -euo pipefail
old=${1:?usage: paired_bench.sh OLD NEW PAIRS [BENCH ARGUMENTS...]}
new=${2:?usage: paired_bench.sh OLD NEW PAIRS [BENCH ARGUMENTS...]}
pairs=${3:?usage: paired_bench.sh OLD NEW PAIRS [BENCH ARGUMENTS...]}
shift 3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
nodes_per_second() { sed -n 's/^Nodes\/second: //p' "$1"; }
for pair in $(seq "$pairs"); do
    if [ $((pair % 2)) = 0 ]; then old_cpu=0 new_cpu=1; else old_cpu=1 new_cpu=0; fi
    taskset -c "$old_cpu" "$old" bench "$@" >"$scratch/old" 2>&1 &
    taskset -c "$new_cpu" "$new" bench "$@" >"$scratch/new" 2>&1
    wait
    echo "$(nodes_per_second "$scratch/old") $(nodes_per_second "$scratch/new")"
done | tee "$scratch/pairs"
python3 - "$scratch/pairs" <<'PYTHON'
import statistics, sys
rows = [tuple(map(float, line.split())) for line in open(sys.argv[1])]
ratios = [new / old for old, new in rows]
print(f"old median {statistics.median(o for o, _ in rows):.0f}, "
      f"new median {statistics.median(n for _, n in rows):.0f}")
print(f"median ratio new/old {statistics.median(ratios):.4f} over {len(ratios)} pairs "
      f"(min {min(ratios):.3f}, max {max(ratios):.3f})")
PYTHON
