#!/usr/bin/env bash
# The two-turn suite at a fixed time: `analyse --movetime MS` on every
# position of positions/tactics/two_turn.txt, then the ignored test
# judge_answers counts the defences (each answer checked exhaustively).
# Usage: benches/scripts/two_turn.sh ENGINE [MS] [ANSWERS_FILE]
# THREADS=N in the environment searches with N threads (default 1).
# CLOCK=1 searches on a game clock instead: the engine protocol's
# `go p0time MS p1time MS`, so that the engine plans its own time (about a
# twenty-second of MS, up to three times that when it finds itself in danger).
set -euo pipefail
engine=${1:?usage: two_turn.sh ENGINE [MS] [ANSWERS_FILE]}
movetime=${2:-100}
answers=${3:-$(mktemp)}
threads=${THREADS:-1}
clock=${CLOCK:-0}
cd "$(dirname "$0")/../.."
# The turn the engine plays on a clock of `movetime` ms a side.
on_clock() {
    local best=""
    coproc ENGINE { "$engine" engine; }
    printf 'setoption name Threads value %s\nposition pos %s\ngo p0time %s p1time %s\n' \
        "$threads" "$1" "$movetime" "$movetime" >&"${ENGINE[1]}"
    while IFS= read -r reply <&"${ENGINE[0]}"; do
        if [[ $reply == bestmove* ]]; then
            best=${reply#bestmove }
            best=${best%% *}
            break
        fi
    done
    printf 'quit\n' >&"${ENGINE[1]}"
    wait "$ENGINE_PID" || true
    printf '%s' "$best"
}
: >"$answers"
grep -v '^#' positions/tactics/two_turn.txt | grep -v '^[[:space:]]*$' | while IFS= read -r line; do
    position=${line%%#*}
    position=${position%"${position##*[![:space:]]}"}
    if [ "$clock" = 1 ]; then
        best=$(on_clock "$position")
    else
        best=$("$engine" analyse --movetime "$movetime" --threads "$threads" --notation token "$position" | sed -n 's/^best: //p')
    fi
    printf '%s\t%s\n' "$position" "$best" >>"$answers"
done
SUPERNOVA_TWO_TURN_ANSWERS="$answers" cargo test --release --test two_turn judge_answers -- --ignored --nocapture 2>&1 |
    grep -E '^(defended|not defended)'
