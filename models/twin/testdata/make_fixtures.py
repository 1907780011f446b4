#!/usr/bin/python3
"""Reference WLTSVM / TWSVM planes for models/twin tests.

Independent of the Go code: k-NN graphs by scikit-learn's NearestNeighbors,
and the two *primal* QPs of WLTSVM (paper 001 eqs (4)-(5), with the relative
ridge eps*tr(M)/p of models/twin) solved by cvxopt:

  min_u,xi  1/2 u'(S'DS + eps I)u + C sum xi
  s.t.      f_j * sign * (R_j u) + xi_j >= f_j,  xi >= 0

(S: own class rows (x,1), D: within-class degrees, R: other class rows (x,1),
sign = -1 for the +1 class plane, +1 for the -1 class plane).

Run: /usr/bin/python3 models/twin/testdata/make_fixtures.py  (writes wltsvm_ref.json)
"""
import json
import os

import numpy as np
from cvxopt import matrix, solvers
from sklearn.neighbors import NearestNeighbors

solvers.options["show_progress"] = False
solvers.options["abstol"] = 1e-11
solvers.options["reltol"] = 1e-11
solvers.options["feastol"] = 1e-11


def within(Xc, k):
    l = len(Xc)
    kk = min(k, l - 1)
    nn = NearestNeighbors(n_neighbors=kk + 1).fit(Xc)
    _, idx = nn.kneighbors(Xc)
    W = np.zeros((l, l))
    for i in range(l):
        for j in idx[i][1:]:  # drop self
            W[i, j] = W[j, i] = 1
    return W.sum(axis=0)


def between(anchors, others, k):
    kk = min(k, len(others))
    nn = NearestNeighbors(n_neighbors=kk).fit(others)
    _, idx = nn.kneighbors(anchors)
    f = np.zeros(len(others))
    f[np.unique(idx.ravel())] = 1
    return f


def plane(S, d, R, f, sign, C, eps):
    p = S.shape[1]
    M = S.T @ (d[:, None] * S)
    M = M + eps * np.trace(M) / p * np.eye(p)
    keep = f > 0
    Rk = R[keep]
    m = len(Rk)
    P = np.zeros((p + m, p + m))
    P[:p, :p] = M
    q = np.concatenate([np.zeros(p), C * np.ones(m)])
    # -(sign * Rk u) - xi <= -1 ; -xi <= 0
    G = np.zeros((2 * m, p + m))
    G[:m, :p] = -sign * Rk
    G[:m, p:] = -np.eye(m)
    G[m:, p:] = -np.eye(m)
    h = np.concatenate([-np.ones(m), np.zeros(m)])
    sol = solvers.qp(matrix(P), matrix(q), matrix(G), matrix(h))
    assert sol["status"] == "optimal", sol["status"]
    return list(np.array(sol["x"]).ravel()[:p])


def main():
    rng = np.random.default_rng(12)
    n, d = 60, 3
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(n, d)) + 0.8 * y[:, None] * np.array([1.0, -0.5, 0.3])
    cases = []
    for k, C, eps in [(3, 1.0, 1e-6), (7, 0.5, 1e-3), (30, 2.0, 1e-6)]:
        pos, neg = np.where(y > 0)[0], np.where(y < 0)[0]
        A = np.hstack([X, np.ones((n, 1))])
        dpos, dneg = within(X[pos], k), within(X[neg], k)
        fneg, fpos = between(X[pos], X[neg], k), between(X[neg], X[pos], k)
        upos = plane(A[pos], dpos, A[neg], fneg, -1.0, C, eps)
        uneg = plane(A[neg], dneg, A[pos], fpos, 1.0, C, eps)
        dropped = np.zeros(n)
        dropped[neg] = 1 - fneg
        dropped[pos] = 1 - fpos
        cases.append({"k": k, "C": C, "eps": eps, "pos": upos, "neg": uneg, "dropped": list(dropped)})
    out = {"X": X.tolist(), "y": y.tolist(), "cases": cases}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wltsvm_ref.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
