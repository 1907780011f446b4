#!/usr/bin/python3
"""Reference outputs for the multiview tests (run with /usr/bin/python3).

svm_identical_views.json: a two-class RBF problem; scikit-learn's SVC (libsvm)
decision values at test points. With identical views and C_A = C_B = C,
SVM-2K's per-view decisions must equal this SVM's.
"""
import json
import numpy as np
from sklearn.svm import SVC

rng = np.random.default_rng(20051205)
n = 60
X = np.vstack([rng.normal([-0.7, 0.2], 0.8, size=(n // 2, 2)),
               rng.normal([0.8, -0.3], 0.8, size=(n // 2, 2))])
y = np.array([-1] * (n // 2) + [1] * (n // 2))
Xt = rng.uniform(-2.5, 2.5, size=(25, 2))
out = {}
for C, gamma in [(1.0, 0.5), (10.0, 2.0)]:
    clf = SVC(C=C, kernel="rbf", gamma=gamma, tol=1e-10, shrinking=False)
    clf.fit(X, y)
    out[f"C={C:g},gamma={gamma:g}"] = {
        "C": C, "gamma": gamma,
        "decision_test": clf.decision_function(Xt).tolist(),
        "decision_train": clf.decision_function(X).tolist(),
    }
json.dump({"x": X.tolist(), "y": y.tolist(), "x_test": Xt.tolist(), "fits": out},
          open("svm_identical_views.json", "w"), indent=1)

# duals_cvxopt.json: a random two-view problem and the optimal dual objectives
# of SVM-2K (ε = 0 and ε > 0) and PSVM-2V, each built here from the papers'
# duals and solved by cvxopt's interior-point QP.
from cvxopt import matrix, solvers
from sklearn.metrics.pairwise import rbf_kernel

solvers.options["show_progress"] = False
for k in ("abstol", "reltol", "feastol"):
    solvers.options[k] = 1e-9

n = 36
A = rng.normal(size=(n, 2))
yy = np.where(A[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
B = np.column_stack([A[:, 0] + A[:, 1], A[:, 0] - A[:, 1], rng.normal(size=n)]) + 0.5 * rng.normal(size=(n, 3))
ga, gb = 0.7, 0.4
KA, KB = rbf_kernel(A, gamma=ga), rbf_kernel(B, gamma=gb)
I, Z = np.eye(n), np.zeros((n, n))
Y = np.diag(yy)


def qp(P, q, G, h, Aeq=None, beq=None):
    args = [matrix(P), matrix(q), matrix(G), matrix(h)]
    if Aeq is not None:
        args += [matrix(Aeq), matrix(beq)]
    s = solvers.qp(*args)
    assert s["status"] == "optimal", s["status"]
    return s["primal objective"]


def svm2k(CA, CB, D, eps):
    # variables αA, αB, β⁺, β⁻; gA = yαA − β⁺ + β⁻, gB = yαB + β⁺ − β⁻
    SA = np.hstack([Y, Z, -I, I])
    SB = np.hstack([Z, Y, I, -I])
    P = SA.T @ KA @ SA + SB.T @ KB @ SB
    q = np.concatenate([-np.ones(2 * n), eps * np.ones(2 * n)])
    G = np.vstack([np.eye(4 * n), -np.eye(4 * n), np.hstack([Z, Z, I, I])])
    h = np.concatenate([CA * np.ones(n), CB * np.ones(n), D * np.ones(2 * n), np.zeros(4 * n), D * np.ones(n)])
    Aeq = np.vstack([SA.sum(axis=0), SB.sum(axis=0)])
    return qp(P, q, G, h, Aeq, np.zeros(2))


def psvm2v(CA, CB, D, tau, eps):
    # variables αA, αB, λA, λB, β⁺, β⁻ on the augmented kernels K + 1
    KAa, KBa = KA + 1, KB + 1
    SA = np.hstack([Y, Z, Z, -Y, -I, I])
    SB = np.hstack([Z, Y, -Y, Z, I, -I])
    P = SA.T @ KAa @ SA + SB.T @ KBa @ SB / tau
    q = np.concatenate([-np.ones(2 * n), np.zeros(2 * n), eps * np.ones(2 * n)])
    G = np.vstack([-np.eye(6 * n), np.hstack([I, Z, I, Z, Z, Z]), np.hstack([Z, I, Z, I, Z, Z]), np.hstack([Z, Z, Z, Z, I, I])])
    h = np.concatenate([np.zeros(6 * n), CA * np.ones(n), CB * np.ones(n), D * np.ones(n)])
    return qp(P, q, G, h)


duals = {"x_a": A.tolist(), "x_b": B.tolist(), "y": yy.tolist(), "gamma_a": ga, "gamma_b": gb, "cases": []}
for CA, CB, D, eps in [(1.0, 1.0, 1.0, 0.0), (2.0, 0.5, 0.3, 0.1)]:
    duals["cases"].append({"model": "svm2k", "C": CA, "CB": CB, "D": D, "epsilon": eps, "objective": svm2k(CA, CB, D, eps)})
for CA, CB, D, tau, eps in [(1.0, 1.0, 1.0, 1.0, 0.0), (2.0, 0.5, 0.3, 3.0, 0.05)]:
    duals["cases"].append({"model": "psvm2v", "C": CA, "CB": CB, "D": D, "tradeoff": tau, "epsilon": eps, "objective": psvm2v(CA, CB, D, tau, eps)})
json.dump(duals, open("duals_cvxopt.json", "w"), indent=1)
