#!/usr/bin/python3
"""Side-by-side reference for scripts/bench-multiview.sh (run with /usr/bin/python3).

For each task CSV that BenchmarkFit writes (go test -bench Fit -args -mv.export=DIR), solve
SVM-2K's dual (Farquhar et al. 2005, ε = 0, C_A = C_B = D = 1, RBF with the
exported gamma on both views) with cvxopt's interior-point QP, independently
of our Go code, and time it; also time scikit-learn's SVC (libsvm) on view A
alone. Prints one line per task: cvxopt objective and seconds, our objective,
SVC seconds.

Dual, variables (αA, αB, β), gA = y∘αA − β, gB = y∘αB + β:
  min ½gAᵀKA gA + ½gBᵀKB gB − 1ᵀ(αA + αB)
  s.t. 1ᵀgA = 0, 1ᵀgB = 0, 0 ≤ αA, αB ≤ C, −D ≤ β ≤ D.
"""
import glob
import os
import sys
import time

import numpy as np
from cvxopt import matrix, solvers
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

solvers.options["show_progress"] = False
solvers.options["abstol"] = 1e-10
solvers.options["reltol"] = 1e-10
solvers.options["feastol"] = 1e-10


def load(path):
    with open(path) as f:
        head = f.readline()
        gamma = float(head.split("gamma=")[1].split()[0])
        ours = float(head.split("obj=")[1])
        cols = f.readline().strip().split(",")
        rows = [line.strip().split(",") for line in f if line.strip()]
    xa = [i for i, c in enumerate(cols) if c.startswith("x_")]
    xb = [i for i, c in enumerate(cols) if c.startswith("z_")]
    labels = [r[-1] for r in rows]
    first = labels[0]
    classes = sorted(set(labels), key=labels.index)
    A = np.array([[float(r[i]) for i in xa] for r in rows])
    B = np.array([[float(r[i]) for i in xb] for r in rows])
    return A, B, labels, gamma, ours


def svm2k(KA, KB, y, C=1.0, D=1.0):
    n = len(y)
    SA = np.hstack([np.diag(y), np.zeros((n, n)), -np.eye(n)])
    SB = np.hstack([np.zeros((n, n)), np.diag(y), np.eye(n)])
    P = SA.T @ KA @ SA + SB.T @ KB @ SB
    q = np.concatenate([-np.ones(2 * n), np.zeros(n)])
    G = np.vstack([np.eye(3 * n), -np.eye(3 * n)])
    h = np.concatenate([C * np.ones(2 * n), D * np.ones(n), np.zeros(2 * n), D * np.ones(n)])
    Aeq = np.vstack([SA.sum(axis=0), SB.sum(axis=0)])
    sol = solvers.qp(matrix(P), matrix(q), matrix(G), matrix(h), matrix(Aeq), matrix(np.zeros(2)))
    return sol["primal objective"], sol["status"]


def main(d):
    for path in sorted(glob.glob(os.path.join(d, "*.csv"))):
        A, B, labels, gamma, ours = load(path)
        cls = sorted(set(labels), key=labels.index)
        # Classes[0] of the Go task is the "neg" class: the file keeps the task's class order.
        y = np.array([1.0 if l == cls[1] else -1.0 for l in labels]) if len(cls) == 2 else None
        t0 = time.perf_counter()
        KA, KB = rbf_kernel(A, gamma=gamma), rbf_kernel(B, gamma=gamma)
        obj, status = svm2k(KA, KB, y)
        t_cvx = time.perf_counter() - t0
        t0 = time.perf_counter()
        SVC(C=1.0, kernel="rbf", gamma=gamma).fit(A, y)
        t_svc = time.perf_counter() - t0
        name = os.path.basename(path)[:-4]
        print(f"{name}\tcvxopt_svm2k_obj={obj:.9g}\tours_obj={ours:.9g}\tcvxopt_status={status}\tcvxopt_s={t_cvx:.4f}\tsklearn_svc_viewA_s={t_svc:.4f}")


if __name__ == "__main__":
    main(sys.argv[1])
