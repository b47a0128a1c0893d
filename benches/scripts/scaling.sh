#!/bin/bash
# Thread scaling, for benches/README.md ("Thread scaling"): `supernova bench` at 1, 2, 4, 8
# and 16 threads (or those given), three runs each at the default 20,000
# nodes a position and two at 200,000 with --hash 256; prints nodes per
# second, one line a run. Take the median of each thread count's runs.
# usage: benches/scripts/scaling.sh [ENGINE] [THREADS...]
ENGINE=${1:-target/release/supernova}
shift
THREADS=${*:-1 2 4 8 16}
for nodes in 20000 200000; do
  runs=$([ "$nodes" = 20000 ] && echo 3 || echo 2)
  for threads in $THREADS; do
    for _ in $(seq "$runs"); do
      echo "nodes $nodes threads $threads: $("$ENGINE" bench --nodes "$nodes" --hash 256 --threads "$threads" | grep Nodes/second)"
    done
  done
done
