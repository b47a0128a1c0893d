#!/usr/bin/env python3
"""stop and ponderhit latency over the protocol.
usage: latency.py ENGINE [runs]
stop: position B, Threads 2, go infinite, wait 0.3-1.2 s, stop -> bestmove.
ponderhit: Ponder true, go ponder nodes 1 (the search after ponderhit is one
iteration), wait 0.3-1.2 s, ponderhit -> bestmove."""
import subprocess, sys, time, random, statistics
POS = 'Sam=y1b3:r1g3:/Dave=r2y1::g1b3/Fritz=b2:y3g1:/Delos=b3:r1:/Lebling=g2:r1y1b2:/Minsky=g2:r2:/Licklider=g2:r2:/Kotok=g3:r3:/Shrdlu=r3::b1/Frotz=r3::g1b1 0'
engine = sys.argv[1]; runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
threads = sys.argv[3] if len(sys.argv) > 3 else '2'
p = subprocess.Popen([engine, 'engine'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def send(line): p.stdin.write(line + '\n'); p.stdin.flush()
def until(prefix):
    while True:
        line = p.stdout.readline()
        if not line: raise SystemExit('engine closed')
        if line.startswith(prefix): return line
send('hwi'); until('hwiok')
send(f'setoption name Threads value {threads}'); send('setoption name Ponder value true')
random.seed(1)
def measure(go, release):
    send('newgame'); send('position pos ' + POS); send('isready'); until('readyok')
    send(go); time.sleep(random.uniform(0.3, 1.2))
    t0 = time.monotonic(); send(release); until('bestmove'); return (time.monotonic() - t0) * 1000
for name, go, release in [('stop', 'go infinite', 'stop'), ('ponderhit', 'go ponder nodes 1', 'ponderhit')]:
    ms = [measure(go, release) for _ in range(runs)]
    ms.sort()
    print(f'{name}: median {statistics.median(ms):.1f} ms, min {ms[0]:.1f}, max {ms[-1]:.1f}, p90 {ms[int(0.9*len(ms))-1]:.1f} ({runs} runs, Threads {threads})')
send('quit'); p.wait()
