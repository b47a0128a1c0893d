#!/usr/bin/env python3
"""Maximum-likelihood Elo of every engine in a calibration log (benches/scripts/calibrate.sh):
the logistic model, a draw half a point, full1000 fixed at 2000; the interval is 1.96
standard errors from the observed information."""
import re, sys, math
games = []
for line in open(sys.argv[1]):
    m = re.match(r'Score of (\S+) vs (\S+): (\d+) - (\d+) - (\d+)', line)
    if m:
        games.append((m.group(1), m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5))))
names = sorted({g[0] for g in games} | {g[1] for g in games})
anchor = 'full1000'
free = [n for n in names if n != anchor]
index = {n: i for i, n in enumerate(free)}
k = math.log(10) / 400
def rating(r, n):
    return 2000.0 if n == anchor else r[index[n]]
def solve(matrix, vector):
    size = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda row: abs(a[row][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for row in range(size):
            if row != col:
                f = a[row][col] / a[col][col]
                a[row] = [x - f * y for x, y in zip(a[row], a[col])]
    return [a[i][size] / a[i][i] for i in range(size)]
size = len(free)
r = [1500.0] * size
for _ in range(200):
    grad = [0.0] * size; hess = [[0.0] * size for _ in range(size)]
    for a, b, w, l, d in games:
        n = w + l + d; s = w + d / 2
        p = 1 / (1 + math.exp(-k * (rating(r, a) - rating(r, b))))
        g = k * (s - n * p); h = k * k * n * p * (1 - p)
        for x, sign in ((a, 1), (b, -1)):
            if x in index:
                grad[index[x]] += sign * g
        for x, sx in ((a, 1), (b, -1)):
            for y, sy in ((a, 1), (b, -1)):
                if x in index and y in index:
                    hess[index[x]][index[y]] += sx * sy * h
    for i in range(size):
        hess[i][i] += 1e-9
    step = [max(-200, min(200, x)) for x in solve(hess, grad)]
    r = [x + y for x, y in zip(r, step)]
    if max(abs(x) for x in step) < 1e-6:
        break
variance = [solve(hess, [1.0 if j == i else 0.0 for j in range(size)])[i] for i in range(size)]
for a, b, w, l, d in games:
    print(f'{a} vs {b}: {w}-{l}-{d}')
print()
for n in sorted(names, key=lambda n: -rating(r, n)):
    se = 0 if n == anchor else math.sqrt(variance[index[n]])
    print(f'{n:10} {rating(r, n):7.0f} +- {1.96 * se:4.0f}')
