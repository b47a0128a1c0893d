#!/bin/bash
# The UCI_Elo calibration of benches/README.md ("Playing strength"): 11 matches of G games
# (default 128: the 64 openings, both seats), --max-turns 150, C at once (default 2; use 1
# on a shared machine). The level matches come first; with PGN=DIR each match keeps its
# games in DIR/NAME, for the hang rates of tests/levels.rs.
# usage: [G=64] [C=1] [PGN=DIR] benches/scripts/calibrate.sh [ENGINE] > calibration.log
# then:  python3 benches/scripts/fit_elo.py calibration.log
B=${1:-target/release/supernova}
G=${G:-128}
C=${C:-2}
lvl() { echo "--engine name=L$1 option.UCI_LimitStrength=true option.UCI_Elo=$1 nodes=100000"; }
# The full engine with the exploration constants and the contempt the levels
# were calibrated with (src/engine/strength.rs, CALIBRATED_EXPLORATION and
# CALIBRATED_CONTEMPT, CALIBRATED_SHOT_GUARD, CALIBRATED_STRETCH, CALIBRATED_EVALUATION), not
# today's defaults: the default learned evaluation beat the hand one at 1000 nodes 75-36-17.
full() { echo "--engine name=full$1 nodes=$1 option.Eval=hand option.cpuct=1.5 option.cpuct_intra_turn=1.0 option.contempt=0 option.shot_guard=0 option.stretch_above=1"; }
run() {
    name=$1; shift; echo "== $name: $*"
    out=(); if [ -n "$PGN" ]; then mkdir -p "$PGN/$name"; out=(--pgnout "$PGN/$name"); fi
    $B match "$@" --games $G --max-turns 150 --concurrency $C "${out[@]}" 2>&1 | grep -E "^Score of|^Elo" | tail -2
}

run M10 $(lvl 870) $(full 30)
run M8 $(lvl 1070) $(full 100)
run M7 $(lvl 1430) $(full 100)
run M6 $(lvl 1680) $(full 300)
run M5 $(lvl 1840) $(full 300)
run C2 $(lvl 1430) $(lvl 1680)
run A3 $(full 100) $(full 30)
run A2 $(full 300) $(full 100)
run C1 $(lvl 1840) $(lvl 2000)
run A1 $(full 1000) $(full 300)
run M4 $(lvl 2000) $(full 1000)
echo "== done"
