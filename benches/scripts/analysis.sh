#!/bin/bash
# A long `go infinite` over the protocol, for the analysis figures of
# benches/README.md ("Long analysis"): benchmark position B, the default
# Hash unless given.
# usage: benches/scripts/analysis.sh [ENGINE] [SECONDS] [THREADS] [HASH_MB] > analysis.log
# then:  python3 benches/scripts/summarize.py analysis.log
ENGINE=${1:-target/release/supernova}
SECONDS_TO_RUN=${2:-600}
THREADS=${3:-2}
HASH=${4:+"setoption name Hash value $4"}
POS='Sam=y1b3:r1g3:/Dave=r2y1::g1b3/Fritz=b2:y3g1:/Delos=b3:r1:/Lebling=g2:r1y1b2:/Minsky=g2:r2:/Licklider=g2:r2:/Kotok=g3:r3:/Shrdlu=r3::b1/Frotz=r3::g1b1 0'
( echo hwi; echo "setoption name Threads value $THREADS"; [ -n "$HASH" ] && echo "$HASH"; echo isready
  echo "position pos $POS"; echo "go infinite"
  sleep "$SECONDS_TO_RUN"; echo stop; sleep 10; echo quit ) | "$ENGINE" engine
