#!/usr/bin/env python3
"""How long `go movetime MS` takes, from `go` to `bestmove`, over the protocol.
usage: movetime.py ENGINE POSITIONS [runs] [ms]
POSITIONS: one HWPN position a line (`#` starts a comment). Each position is
searched `runs` times (default 3) after `newgame`; prints the median time
and the decision of each position, and the largest median."""
import subprocess, sys, time, statistics
engine, path = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
movetime = sys.argv[4] if len(sys.argv) > 4 else '100'
positions = [line.split('#')[0].strip() for line in open(path)]
positions = [line for line in positions if line]
p = subprocess.Popen([engine, 'engine'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def send(line): p.stdin.write(line + '\n'); p.stdin.flush()
decision = ['?']
def until(prefix):
    while True:
        line = p.stdout.readline()
        if not line: raise SystemExit('engine closed')
        if line.startswith('info string decision'): decision[0] = line.split()[-1]
        if line.startswith(prefix): return line
send('hwi'); until('hwiok')
medians = []
for position in positions:
    times = []
    for _ in range(runs):
        send('newgame'); send('position pos ' + position); send('isready'); until('readyok')
        start = time.monotonic(); send('go movetime ' + movetime); until('bestmove')
        times.append((time.monotonic() - start) * 1000)
    medians.append(statistics.median(times))
    print(f'{medians[-1]:7.1f} ms  {decision[0]:<20} {position[:60]}')
print(f'largest median {max(medians):.1f} ms over {len(positions)} positions ({runs} runs each, movetime {movetime})')
send('quit'); p.wait()
