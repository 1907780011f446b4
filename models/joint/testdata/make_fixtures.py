#!/usr/bin/python3
"""Independent reference for models/joint: the joint SVM dual (paper 003,
eq 10 with the 1/2 and without the bias constraint)

    min 1/2 a'(Ky o Kx)a - 1'a   s.t. 0 <= a <= C

solved with cvxopt, the output kernels and Sigma built with numpy from their
definitions, and predictions of eq (12) (all 2^T vectors) and eq (13)
(distinct training label sets) by brute force. Run once with /usr/bin/python3;
the Go tests read fixtures.json."""
import itertools, json, os
import numpy as np
from cvxopt import matrix, solvers

solvers.options.update(show_progress=False, abstol=1e-12, reltol=1e-12, feastol=1e-12, maxiters=200)
rng = np.random.default_rng(3)


def rbf(A, B, g):
    d = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-g * d)


def solve(Q, C):
    n = len(Q)
    G = np.vstack([-np.eye(n), np.eye(n)])
    h = np.hstack([np.zeros(n), C * np.ones(n)])
    r = solvers.qp(matrix(Q), matrix(-np.ones(n)), matrix(G), matrix(h))
    a = np.array(r["x"]).ravel()
    return a, float(0.5 * a @ Q @ a - a.sum())


def outk(kind, A, B, T, prec=None, coef0=1.0, degree=3):
    if kind == "linear":
        return A @ B.T
    if kind == "poly":
        return (A @ B.T / T + coef0) ** degree
    D = A[:, None, :] - B[None, :, :]
    return np.exp(-0.5 * np.einsum("abi,ij,abj->ab", D, prec, D))


out = {}

# one tag, linear output kernel: a bias-free binary SVM
n, g, C = 40, 0.5, 1.0
X = rng.normal(size=(n, 2))
y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.normal(size=n) > 0, 1.0, -1.0)
Xt = rng.normal(size=(20, 2))
a, obj = solve(np.outer(y, y) * rbf(X, X, g), C)
dec = (a * y) @ rbf(X, Xt, g)
out["onetag"] = dict(X=X.tolist(), tags=((y + 1) / 2).tolist(), gamma=g, C=C, alpha=a.tolist(), obj=obj,
                     Xtest=Xt.tolist(), decision=dec.tolist())

# three correlated tags
n, T = 60, 3
X = rng.normal(size=(n, 2))
t0 = X[:, 0] > 0
t1 = (X[:, 1] > 0.3) | (t0 & (rng.random(n) < 0.5))
t2 = (X[:, 0] + X[:, 1] > 0.5) & (rng.random(n) < 0.9)
tags = np.stack([t0, t1, t2], 1).astype(float)
Y = 2 * tags - 1
Xt = rng.normal(size=(30, 2))
allY = np.array([[1.0 if c >> j & 1 else -1.0 for j in range(T)] for c in range(2 ** T)])
sets = np.unique(Y, axis=0)
cases = []
for kind, sigma2, lam, C, g in [("gaussian", 2.0, 0.1, 2.0, 1.0), ("gaussian", 0.7, 0.0, 10.0, 2.0),
                                ("poly", 0, 0, 1.0, 1.0), ("linear", 0, 0, 0.5, 1.0)]:
    prec = None
    if kind == "gaussian":
        Cv = np.cov(Y.T, bias=True)
        cbar = np.trace(Cv) / T
        S = sigma2 * ((1 - lam) * Cv / cbar + lam * np.eye(T))
        prec = np.linalg.inv(S)
    Q = outk(kind, Y, Y, T, prec) * rbf(X, X, g)
    a, obj = solve(Q, C)
    beta = rbf(X, Xt, g)                                   # n x ntest
    Sall = (outk(kind, allY, Y, T, prec) * a) @ beta       # 2^T x ntest: eq (12)
    Sset = (outk(kind, sets, Y, T, prec) * a) @ beta       # eq (13)
    cases.append(dict(kind=kind, sigma2=sigma2, reg=lam, C=C, gamma=g, alpha=a.tolist(), obj=obj,
                      cov=None if prec is None else S.tolist(),
                      exhaustive=[allY[k].tolist() for k in Sall.argmax(0)],
                      exhaustive_score=Sall.max(0).tolist(),
                      exhaustive_gap=(np.sort(Sall, 0)[-1] - np.sort(Sall, 0)[-2]).tolist(),
                      trainsets=[sets[k].tolist() for k in Sset.argmax(0)],
                      trainsets_score=Sset.max(0).tolist(),
                      trainsets_gap=(np.sort(Sset, 0)[-1] - np.sort(Sset, 0)[-2]).tolist()))
out["multi"] = dict(X=X.tolist(), tags=tags.tolist(), Xtest=Xt.tolist(), cases=cases)

# independent SVMs: one scikit-learn SVC (libsvm, with bias) per tag
from sklearn.svm import SVC
indep = []
for j in range(T):
    clf = SVC(C=1.0, kernel="rbf", gamma=1.0, tol=1e-10, shrinking=True).fit(X, Y[:, j])
    indep.append(clf.decision_function(Xt).tolist())
out["indep"] = dict(C=1.0, gamma=1.0, decision=indep)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures.json"), "w") as fh:
    json.dump(out, fh)
