#!/usr/bin/env bash
# Two builds on the two-turn suite, alternating: RUNS runs of
# benches/scripts/two_turn.sh for each (OLD, NEW, OLD, NEW, ...), then each
# build's defended counts, their means and medians, the paired difference
# NEW - OLD with its standard error, and how often each suite position
# (0-based, in the order of positions/tactics/two_turn.txt) failed under
# each build. Why: single runs of one build at 100 ms differ by up to six
# positions on the shared 2-core machine, so a change to the checks needs
# ten or more alternating pairs before its difference means anything.
# usage: benches/scripts/two_turn_ab.sh OLD NEW RUNS [MS]
# THREADS and CLOCK pass through to two_turn.sh.
set -euo pipefail
old=${1:?usage: two_turn_ab.sh OLD NEW RUNS [MS]}
new=${2:?usage: two_turn_ab.sh OLD NEW RUNS [MS]}
runs=${3:?usage: two_turn_ab.sh OLD NEW RUNS [MS]}
movetime=${4:-100}
cd "$(dirname "$0")/../.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for run in $(seq "$runs"); do
    for build in old new; do
        engine=$old
        [ "$build" = new ] && engine=$new
        benches/scripts/two_turn.sh "$engine" "$movetime" "$scratch/answers" \
            >"$scratch/$build.$run" 2>&1
        echo "run $run $build: $(grep '^defended' "$scratch/$build.$run")"
    done
done
python3 - "$scratch" "$runs" <<'PYTHON'
import os, re, statistics, sys
scratch, runs = sys.argv[1], int(sys.argv[2])
suite = []
for line in open("positions/tactics/two_turn.txt"):
    line = line.split("#")[0].strip()
    if line:
        suite.append(line)
counts = {"old": [], "new": []}
fails = {"old": [0] * len(suite), "new": [0] * len(suite)}
for build in counts:
    for run in range(1, runs + 1):
        text = open(os.path.join(scratch, f"{build}.{run}")).read()
        found = re.search(r"^defended (\d+) of", text, re.M)
        if not found:
            sys.exit(f"{build} run {run} gave no count:\n{text}")
        counts[build].append(int(found.group(1)))
        for line in text.splitlines():
            if line.startswith("not defended"):
                position = line.rsplit(" in ", 1)[1].strip()
                if position in suite:
                    fails[build][suite.index(position)] += 1
for build in counts:
    values = counts[build]
    print(f"{build}: mean {statistics.mean(values):.2f}, median {statistics.median(values)}, "
          f"runs {values}")
differences = [new - old for old, new in zip(counts["old"], counts["new"])]
mean = statistics.mean(differences)
error = statistics.stdev(differences) / len(differences) ** 0.5 if len(differences) > 1 else float("nan")
print(f"paired difference new - old: {mean:+.2f} ± {error:.2f} (standard error, {runs} pairs)")
print("failures per position (old/new of", runs, "runs):")
print(", ".join(f"{index}: {old}/{new}"
                for index, (old, new) in enumerate(zip(fails["old"], fails["new"]))
                if old or new))
PYTHON
