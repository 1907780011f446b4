#!/usr/bin/python3
"""Times cvxopt.solvers.qp on the problems that BenchmarkSVMLike writes
(go test -bench SVMLike -args -qp.dump=DIR) and prints a side-by-side table with
the Go solver's times (ratio = Go / cvxopt), both as wall time and as process
CPU time (the latter is less disturbed by other load on a shared machine; both
sides may use several threads). The Go times are the lowest over the runs of
the benchmark output in DIR/go.txt, cvxopt's the lowest of three solves.
Usage: /usr/bin/python3 bench_cvxopt.py DIR   (see bench_vs_cvxopt.sh)."""
import glob
import json
import re
import sys
import time

import numpy as np
from cvxopt import matrix, solvers, spmatrix

# Lowest wall and CPU seconds per n over the benchmark's runs.
go = {}
for line in open(sys.argv[1] + '/go.txt'):
    m = re.match(r'BenchmarkSVMLike/n=(\d+)\S*\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) cpu-s/op)?', line)
    if m:
        n, wall, cpu = int(m.group(1)), float(m.group(2)) / 1e9, float(m.group(3) or 0)
        w, c = go.get(n, (wall, cpu))
        go[n] = (min(w, wall), min(c, cpu))
recs = sorted((json.load(open(f)) for f in glob.glob(sys.argv[1] + '/svmlike_n=*.json')), key=lambda r: r['n'])
for r in recs:
    r['go_seconds'], r['go_cpu_seconds'] = go[r['n']]
solvers.options.update(dict(show_progress=False, abstol=1e-8, reltol=1e-8, feastol=1e-8))
print('%6s %10s %10s %8s %10s %10s %8s %6s %6s %12s' % ('n', 'go [s]', 'cvxopt [s]', 'go/cvx', 'go cpu', 'cvx cpu', 'go/cvx', 'go it', 'cvx it', 'rel obj diff'))
for r in recs:
    n = r['n']
    P = matrix(np.array(r['P'], dtype=float).reshape(n, n))
    q = matrix(-np.ones(n))
    # Sparse G = [−I; I], as usual for SVM duals in cvxopt.
    G = spmatrix([-1.0] * n + [1.0] * n, list(range(2 * n)), list(range(n)) * 2)
    h = matrix(np.concatenate([np.zeros(n), np.full(n, r['C'])]))
    A = matrix(np.array(r['y'], dtype=float).reshape(1, n))
    b = matrix([0.0])
    best = bestc = None
    for _ in range(3):
        t0, c0 = time.perf_counter(), time.process_time()
        sol = solvers.qp(P, q, G, h, A, b)
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        best = dt if best is None else min(best, dt)
        bestc = dc if bestc is None else min(bestc, dc)
    x = np.array(sol['x']).ravel()
    obj = 0.5 * x @ np.array(P) @ x - x.sum()
    print('%6d %10.3f %10.3f %8.2f %10.3f %10.3f %8.2f %6d %6d %12.2e' % (
        n, r['go_seconds'], best, r['go_seconds'] / best, r['go_cpu_seconds'], bestc, r['go_cpu_seconds'] / bestc,
        r['go_iter'], sol['iterations'], abs(obj - r['go_obj']) / abs(obj)))
