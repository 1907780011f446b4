#!/usr/bin/python3
"""Independent references for the SVM+ tests (paper 000).

Run once from the repository root:
    /usr/bin/python3 models/svmplus/testdata/make_fixtures.py
It writes fixtures.json next to this file; the Go tests only read it.

References:
  * svm2plus_primal: SVM2+ eq (3) solved in the PRIMAL (w, b, v) by cvxopt
    with linear kernels and z augmented with 1 (footnote 1) — independent of
    Proposition 1 and of eq (5).
  * svm2plus_dual_rbf: dual (4) with RBF kernels, Qλ from numpy's solve,
    solved by cvxopt; b from the equality multiplier.
  * hardmargin: LIBSVM svm-train (C = 1e7, separable data) = hard-margin SVM.
  * l2svm_primal: L2-SVM  min ½‖w‖² + (C'/2)Σξᵢ²  s.t. yᵢ(w'xᵢ+b) ≥ 1−ξᵢ by cvxopt.
  * csvm: LIBSVM C-SVM on overlapping data (SVM1+ with K̃ = I, λ → 0).
"""
import json, os, subprocess, tempfile
import numpy as np
from cvxopt import matrix, solvers

solvers.options.update(dict(show_progress=False, abstol=1e-11, reltol=1e-11, feastol=1e-11, maxiters=300, refinement=3))
rng = np.random.default_rng(5)
HERE = os.path.dirname(os.path.abspath(__file__))


def check(sol):
    # 'unknown' with a negligible gap and residuals means the 1e-12 tolerances
    # were reached to rounding; anything else is a failure.
    ok = sol["status"] == "optimal" or (abs(sol["gap"]) < 1e-10 and sol["primal infeasibility"] < 1e-10
                                        and sol["dual infeasibility"] < 1e-10)
    assert ok, (sol["status"], sol["gap"], sol["primal infeasibility"], sol["dual infeasibility"])


def lupi_data(n, d, s, sep=0.0, noise=0.6):
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    t = X @ w
    y = np.where(t + noise * rng.normal(size=n) > 0, 1.0, -1.0)
    if sep > 0:
        X = X + sep * y[:, None] * w / np.linalg.norm(w)
    Z = np.column_stack([t + 0.2 * rng.normal(size=n), rng.normal(size=(n, s - 1))])
    assert (y > 0).any() and (y < 0).any()
    # LIBSVM's positive side is the first label it reads: put a +1 first.
    k = int(np.argmax(y > 0))
    for A in (X, Z, y):
        A[[0, k]] = A[[k, 0]]
    return X, Z, y


def rbf(A, B, g):
    d = (A ** 2).sum(1)[:, None] + (B ** 2).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-g * np.maximum(d, 0))


def svm2plus_primal(X, Z, y, C, lam):
    n, d = X.shape
    Zt = np.column_stack([Z, np.ones(n)])
    r = Zt.shape[1]
    m = d + 1 + r  # [w, b, v]
    P = np.zeros((m, m))
    P[:d, :d] = np.eye(d)
    P[d + 1:, d + 1:] = C * Zt.T @ Zt + lam * np.eye(r)
    P[d, d] = 0.0
    q = np.zeros(m)
    # yᵢ(w'xᵢ + b) + z̃ᵢ'v ≥ 1  →  −yᵢxᵢ'w − yᵢb − z̃ᵢ'v ≤ −1
    G = np.column_stack([-y[:, None] * X, -y, -Zt])
    h = -np.ones(n)
    sol = solvers.qp(matrix(P), matrix(q), matrix(G), matrix(h))
    check(sol)
    x = np.array(sol["x"]).ravel()
    w, b, v = x[:d], x[d], x[d + 1:]
    obj = 0.5 * x @ P @ x
    return w, b, Zt @ v, obj


def dual4(K, Qlam, y):
    n = len(y)
    Qm = np.outer(y, y) * K + Qlam
    sol = solvers.qp(matrix((Qm + Qm.T) / 2), matrix(-np.ones(n)), matrix(-np.eye(n)), matrix(np.zeros(n)),
                     matrix(y.reshape(1, -1)), matrix(0.0))
    check(sol)
    a = np.array(sol["x"]).ravel()
    return a, float(np.array(sol["y"]).ravel()[0]), 0.5 * a @ Qm @ a - a.sum()


def libsvm(X, y, C, Xtest):
    with tempfile.TemporaryDirectory() as tmp:
        tr = os.path.join(tmp, "train")
        with open(tr, "w") as f:
            for xi, yi in zip(X, y):
                f.write("%+d " % yi + " ".join("%d:%.17g" % (j + 1, v) for j, v in enumerate(xi)) + "\n")
        mf = os.path.join(tmp, "model")
        out = subprocess.run(["/usr/bin/svm-train", "-s", "0", "-t", "0", "-c", repr(C), "-e", "1e-12", "-h", "0", tr, mf],
                             capture_output=True, text=True, check=True).stdout
        obj = [float(l.split("obj = ")[1].split(",")[0]) for l in out.splitlines() if "obj = " in l][-1]
        lines = open(mf).read().splitlines()
        rho = float([l for l in lines if l.startswith("rho")][0].split()[1])
        labels = [int(v) for v in [l for l in lines if l.startswith("label")][0].split()[1:]]
        sv = lines[lines.index("SV") + 1:]
        coef, S = [], []
        for l in sv:
            p = l.split()
            coef.append(float(p[0]))
            row = np.zeros(X.shape[1])
            for kv in p[1:]:
                k, v = kv.split(":")
                row[int(k) - 1] = float(v)
            S.append(row)
        coef, S = np.array(coef), np.array(S)
        dec = Xtest @ (S.T @ coef) - rho
        if labels[0] != 1:  # LIBSVM's first label is its positive side
            dec, obj = -dec, obj
        return dec.tolist(), obj


fx = {}
# 1. SVM2+ primal, linear kernels, several (C, λ).
cases = []
for (n, C, lam) in [(30, 1.0, 1.0), (40, 10.0, 0.1), (25, 0.1, 10.0), (50, 3.0, 0.01)]:
    X, Z, y = lupi_data(n, 3, 4)
    Xt = rng.normal(size=(10, 3))
    w, b, xi, obj = svm2plus_primal(X, Z, y, C, lam)
    cases.append(dict(X=X.tolist(), Z=Z.tolist(), y=y.tolist(), C=C, lam=lam, Xtest=Xt.tolist(),
                      dec=(Xt @ w + b).tolist(), slack=xi.tolist(), primal_obj=obj))
fx["svm2plus_primal"] = cases

# 2. Dual (4) with RBF kernels on both spaces (gammas differ), K̃ + 1.
cases = []
for (n, C, lam, gx, gz) in [(30, 1.0, 1.0, 0.5, 0.2), (40, 10.0, 0.3, 1.0, 2.0)]:
    X, Z, y = lupi_data(n, 2, 3)
    K = rbf(X, X, gx)
    KT = rbf(Z, Z, gz) + 1.0
    Qlam = (KT - KT @ np.linalg.solve(lam / C * np.eye(n) + KT, KT)) / lam
    a, b, obj = dual4(K, Qlam, y)
    Xt = rng.normal(size=(10, 2))
    dec = rbf(Xt, X, gx) @ (a * y) + b
    cases.append(dict(X=X.tolist(), Z=Z.tolist(), y=y.tolist(), C=C, lam=lam, gx=gx, gz=gz, Xtest=Xt.tolist(),
                      dec=dec.tolist(), obj=obj, slack=(Qlam @ a).tolist()))
fx["svm2plus_dual_rbf"] = cases

# 3. Hard-margin SVM (LIBSVM with a huge C on separable data).
X, Z, y = lupi_data(40, 2, 3, sep=1.5, noise=0.0)
Xt = rng.normal(size=(10, 2))
dec, obj = libsvm(X, y, 1e7, Xt)
fx["hardmargin"] = dict(X=X.tolist(), Z=Z.tolist(), y=y.tolist(), Xtest=Xt.tolist(), dec=dec, obj=obj)

# 4. L2-SVM primal (C'/2)Σξ².
X, Z, y = lupi_data(35, 3, 2)
Xt = rng.normal(size=(10, 3))
C, lam = 0.7, 1.3
Cp = C + lam
n, d = X.shape
m = d + 1 + n
P = np.zeros((m, m)); P[:d, :d] = np.eye(d); P[d + 1:, d + 1:] = Cp * np.eye(n)
G = np.column_stack([-y[:, None] * X, -y, -np.eye(n)])
sol = solvers.qp(matrix(P), matrix(np.zeros(m)), matrix(G), matrix(-np.ones(n)))
check(sol)
x = np.array(sol["x"]).ravel()
fx["l2svm_primal"] = dict(X=X.tolist(), y=y.tolist(), C=C, lam=lam, Cprime=Cp, Xtest=Xt.tolist(),
                          dec=(Xt @ x[:d] + x[d]).tolist(), primal_obj=0.5 * x @ P @ x)

# 5. C-SVM on overlapping data (LIBSVM).
X, Z, y = lupi_data(40, 3, 2, noise=1.0)
Xt = rng.normal(size=(10, 3))
dec, obj = libsvm(X, y, 0.5, Xt)
fx["csvm"] = dict(X=X.tolist(), y=y.tolist(), C=0.5, Xtest=Xt.tolist(), dec=dec, obj=obj)

with open(os.path.join(HERE, "fixtures.json"), "w") as f:
    json.dump(fx, f)
print("ok")
