#!/usr/bin/python3
"""Reference solutions of small SVM1+ duals (paper 000 eq 2) by cvxopt.

Run once: /usr/bin/python3 models/solver/gsmo/testdata/make_fixtures.py
Writes svm1plus_cvxopt.json next to this file. The Go tests read it.
"""
import json, os
import numpy as np
from cvxopt import matrix, solvers

solvers.options.update(dict(show_progress=False, abstol=1e-13, reltol=1e-13, feastol=1e-13, maxiters=200))
rng = np.random.default_rng(20261122)


def rbf(A, g):
    sq = (A ** 2).sum(1)
    return np.exp(-g * (sq[:, None] + sq[None, :] - 2 * A @ A.T))


def solve(K, KT, y, C, lam):
    n = len(y)
    Y = np.outer(y, y)
    P = np.block([[Y * K + KT / lam, KT / lam], [KT / lam, KT / lam]])
    P = (P + P.T) / 2
    k1 = KT @ np.ones(n)
    q = np.concatenate([-np.ones(n) - C / lam * k1, -C / lam * k1])
    const = C * C / (2 * lam) * k1.sum()
    A = np.vstack([np.concatenate([np.ones(n), np.ones(n)]), np.concatenate([y, np.zeros(n)])])
    b = np.array([n * C, 0.0])
    G = -np.eye(2 * n)
    h = np.zeros(2 * n)
    sol = solvers.qp(matrix(P), matrix(q), matrix(G), matrix(h), matrix(A), matrix(b))
    assert sol["status"] == "optimal", sol["status"]
    x = np.array(sol["x"]).ravel()
    obj = 0.5 * x @ P @ x + q @ x + const
    return x[:n], x[n:], obj


cases = []
for case in range(8):
    n = [12, 20, 30, 40, 25, 35, 16, 50][case]
    d, s = 3, 4
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    y = np.sign(X @ w + 0.8 * rng.normal(size=n))
    y[y == 0] = 1
    y[0], y[1] = 1, -1
    Z = np.column_stack([X @ w + 0.3 * rng.normal(size=n), rng.normal(size=(n, s - 1))])
    if case % 2 == 0:
        K, KT, kind = X @ X.T, Z @ Z.T, "linear"
    else:
        K, KT, kind = rbf(X, 0.5), rbf(Z, 0.3), "rbf"
    C = [0.1, 1.0, 10.0, 1.0, 0.5, 3.0, 100.0, 1.0][case]
    lam = [1.0, 0.1, 1.0, 10.0, 0.01, 1.0, 1.0, 1000.0][case]
    a, bt, obj = solve(K, KT, y, C, lam)
    cases.append(dict(name=f"case{case}-{kind}-n{n}", n=n, K=K.ravel().tolist(), KT=KT.ravel().tolist(),
                      y=y.tolist(), C=C, lambda_=lam, alpha=a.tolist(), beta=bt.tolist(), obj=obj))

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "svm1plus_cvxopt.json"), "w") as f:
    json.dump(dict(generator="make_fixtures.py (cvxopt %s)" % __import__("cvxopt").__version__, cases=cases), f)
print("wrote", len(cases), "cases")
