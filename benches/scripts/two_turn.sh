#!/usr/bin/env bash
# The two-turn suite at a fixed time: `analyse --movetime MS` on every
# position of positions/tactics/two_turn.txt, then the ignored test
# judge_answers counts the defences (each answer checked exhaustively).
# Usage: benches/scripts/two_turn.sh ENGINE [MS] [ANSWERS_FILE]
# THREADS=N in the environment searches with N threads (default 1).
set -euo pipefail
engine=${1:?usage: two_turn.sh ENGINE [MS] [ANSWERS_FILE]}
movetime=${2:-100}
answers=${3:-$(mktemp)}
threads=${THREADS:-1}
cd "$(dirname "$0")/../.."
: >"$answers"
grep -v '^#' positions/tactics/two_turn.txt | grep -v '^[[:space:]]*$' | while IFS= read -r line; do
    position=${line%%#*}
    position=${position%"${position##*[![:space:]]}"}
    best=$("$engine" analyse --movetime "$movetime" --threads "$threads" --notation token "$position" | sed -n 's/^best: //p')
    printf '%s\t%s\n' "$position" "$best" >>"$answers"
done
SUPERNOVA_TWO_TURN_ANSWERS="$answers" cargo test --release --test two_turn judge_answers -- --ignored --nocapture 2>&1 |
    grep -E '^(defended|not defended)'
