#!/usr/bin/python3
"""Independent reference for MPWTSVM (paper 001, Xu & Wang), kernel version.

Written from the paper (and /work/shared/papers/MPWTSVM.md's restatement);
nothing is taken from the Go code.

Per view t in {A, B} (the kernel version (36)-(39)): C_t = all training rows of
view t, Omega_t(x) = (K_t(x, C_t), 1) (RBF exp(-gamma |x - x'|^2), one gamma for
both views as in the paper's experiments), w_t = (omega_t; b_t).  Graphs (7)-(9)
in each view's input space: d_j = the degree of x_j in the symmetric k-NN graph
of its own class (self excluded); f_j = 1 if the other-class row x_j is among
the k nearest other-class rows of at least one own-class row.

Problem (10) (positive-class planes; (11) swaps the classes), sign s = -1
((11): s = +1), for every other-class row j:

    min  1/2 w_A'(O_A'D_A O_A + e_A I) w_A + 1/2 w_B'(gamma O_B'D_B O_B + e_B I) w_B
         + C_A sum xi^A + C_B sum xi^B + C sum xi^A_j xi^B_j
    s.t. s f^A_j (w_A.Omega_A(x_j)) + xi^A_j >= f^A_j,   s f^B_j (w_B.Omega_B(x_j)) + xi^B_j >= f^B_j
         xi^A_j >= s f^B_j (w_B.Omega_B(x_j)),          xi^B_j >= s f^A_j (w_A.Omega_A(x_j))   (correcting)
         xi >= 0

(O_t: own-class rows of Omega_t; e_t = eps * mean diag of the matrix it is added
to, the ridge of (27)-(28) relative to that matrix's scale).  Its dual (31),
pi = (alpha^A, alpha^B, lambda^A, lambda^B, xi^A, xi^B):

    min 1/2 pi'H pi + p'pi  s.t.  alpha^A + lambda^A - C xi^B <= C_A,
                                   alpha^B + lambda^B - C xi^A <= C_B,  pi >= 0
    H1 = F_A R_A M_A^-1 R_A' F_A,  H2 = F_B R_B M_B^-1 R_B' F_B   (R_t: other-class rows of Omega_t,
                                                                  M_t the matrices above)
    1/2 pi'H pi = 1/2 (a^A - l^B)'H1(a^A - l^B) + 1/2 (a^B - l^A)'H2(a^B - l^A) + C xi^A'xi^B
    p = (-F_A e, -F_B e, 0, 0, 0, 0)
    w_A = s M_A^-1 R_A' F_A (alpha^A - lambda^B),  w_B = s M_B^-1 R_B' F_B (alpha^B - lambda^A)   (25)-(28)

(H2 written with gamma inside M_B, i.e. (1/gamma) F R (O'DO + e_B/gamma I)^-1 R' F as in (31)).

  * C = 0 (convex): (10) is a strongly convex quadratic plus hinge terms; solved
    exactly (cvxopt + a certified active-set solve, ../../multiview/testdata/ref_pwlqp.py);
    its optimum is minus the optimum of (31), which is also solved by cvxopt as
    a cross-check.  With the correcting constraints (views still tied) and
    without (two independent WLTSVMs).
  * C > 0: (10) and (31) are not convex (the xi block [[0, C I], [C I, 0]] of
    (31) is indefinite; in (10) the bilinear C xi^A xi^B).  (31) is a Wolfe dual,
    and a Wolfe dual of a non-convex primal has no weak duality: its minimum is
    not minus (10)'s.  The fixture keeps, per problem,
      - primal_best: the lowest (10) objective that scipy's SLSQP finds on (10)
        itself from STARTS random plane pairs (slacks at their smallest feasible
        values) plus the C = 0 planes, the zero planes and the planes of (31)'s
        best point -- a bound a correct solver of (10) should reach (not
        exceed by more than the tolerance), and its planes;
      - dual31_best: the lowest (31) objective SLSQP finds on (31) from STARTS
        random feasible points plus 0 and the C = 0 solution, and the (10)
        value of the planes (25)-(28) it gives: on these problems it lies far
        below -(10)'s optimum with planes of huge norm, i.e. minimising (31)
        as the paper prescribes does not solve (10) for C > 0.

Run:  /usr/bin/python3 models/twin/testdata/ref_mpwtsvm.py   (writes ref_mpwtsvm.json)
"""
import json
import os
import sys

import numpy as np
from cvxopt import matrix, solvers
from scipy.optimize import minimize

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "multiview", "testdata"))
import ref_pwlqp as pwl  # noqa: E402
from ref_twoview import problem, rbf  # noqa: E402

STARTS = 40


def knn_idx(Q, R, k, exclude_self):
    d2 = ((Q[:, None, :] - R[None, :, :]) ** 2).sum(-1)
    if exclude_self:
        np.fill_diagonal(d2, np.inf)
    kk = min(k, R.shape[0] - (1 if exclude_self else 0))
    return np.argsort(d2, axis=1, kind="stable")[:, :kk]


def degrees(Xc, k):
    """(7): W_ij = 1 if x_i is a k-NN of x_j or x_j of x_i; d_j = sum_i W_ij."""
    l = len(Xc)
    W = np.zeros((l, l))
    for i, nb in enumerate(knn_idx(Xc, Xc, k, True)):
        W[i, nb] = 1
    W = np.maximum(W, W.T)
    return W.sum(0)


def between(own, other, k):
    """(8)-(9): f_j = 1 if other-row j is a k-NN (among the other class) of some own row."""
    f = np.zeros(len(other))
    f[np.unique(knn_idx(own, other, k, False))] = 1
    return f


class Side:
    """One of the two problems: (10) with own = +1 class, s = -1; (11) own = -1, s = +1."""

    def __init__(self, XA, XB, y, own, c):
        s = -1.0 if own > 0 else 1.0
        io, ix = y == own, y != own
        self.s = s
        one = lambda M: np.hstack([M, np.ones((len(M), 1))])  # noqa: E731
        KA, KB = rbf(XA, XA, c["gamma"]), rbf(XB, XB, c["gamma"])
        OA, OB = one(KA[io]), one(KB[io])          # own-class rows
        self.RA, self.RB = one(KA[ix]), one(KB[ix])  # other-class rows
        dA, dB = degrees(XA[io], c["k"]), degrees(XB[io], c["k"])
        self.fA, self.fB = between(XA[io], XA[ix], c["k"]), between(XB[io], XB[ix], c["k"])
        MA = OA.T @ (dA[:, None] * OA)
        MB = c["gamma_b"] * OB.T @ (dB[:, None] * OB)
        p = MA.shape[0]
        self.MA = MA + c["eps"] * np.trace(MA) / p * np.eye(p)
        self.MB = MB + c["eps"] * np.trace(MB) / p * np.eye(p)
        self.p = p
        self.l2 = int(ix.sum())
        self.c = c
        FRA, FRB = self.fA[:, None] * self.RA, self.fB[:, None] * self.RB
        self.H1 = FRA @ np.linalg.solve(self.MA, FRA.T)
        self.H2 = FRB @ np.linalg.solve(self.MB, FRB.T)
        self.H1, self.H2 = 0.5 * (self.H1 + self.H1.T), 0.5 * (self.H2 + self.H2.T)

    # ---- (31)
    def qp31(self, C):
        l = self.l2
        I, Z = np.eye(l), np.zeros((l, l))
        H1, H2 = self.H1, self.H2
        H = np.block([[H1, Z, Z, -H1, Z, Z],
                      [Z, H2, -H2, Z, Z, Z],
                      [Z, -H2, H2, Z, Z, Z],
                      [-H1, Z, Z, H1, Z, Z],
                      [Z, Z, Z, Z, Z, C * I],
                      [Z, Z, Z, Z, C * I, Z]])
        p = np.concatenate([-self.fA, -self.fB, np.zeros(4 * l)])
        A = np.block([[I, Z, I, Z, Z, -C * I],
                      [Z, I, Z, I, -C * I, Z]])
        b = np.concatenate([self.c["ca"] * np.ones(l), self.c["cb"] * np.ones(l)])
        return H, p, A, b

    def planes(self, pi):
        l = self.l2
        aA, aB, lA, lB = pi[:l], pi[l:2 * l], pi[2 * l:3 * l], pi[3 * l:4 * l]
        wA = self.s * np.linalg.solve(self.MA, self.RA.T @ (self.fA * (aA - lB)))
        wB = self.s * np.linalg.solve(self.MB, self.RB.T @ (self.fB * (aB - lA)))
        return wA, wB

    def primal_value(self, wA, wB, C, correcting=True):
        """(10)'s objective at (wA, wB) with the slacks at their optimal values for
        these planes (for C > 0 the pair (xi^A, xi^B) is then a 2-D piecewise
        problem: the smallest feasible slacks are optimal since each slack's cost
        C_t + C xi_other is positive)."""
        s, fA, fB = self.s, self.fA, self.fB
        gA, gB = self.RA @ wA, self.RB @ wB
        lbA = np.maximum(0, fA * (1 - s * gA))
        lbB = np.maximum(0, fB * (1 - s * gB))
        if correcting:
            lbA = np.maximum(lbA, s * fB * gB)
            lbB = np.maximum(lbB, s * fA * gA)
        c = self.c
        return (0.5 * wA @ self.MA @ wA + 0.5 * wB @ self.MB @ wB + c["ca"] * lbA.sum() + c["cb"] * lbB.sum()
                + C * (lbA * lbB).sum())

    # ---- C = 0: exact primal
    def convex(self, correcting):
        s, fA, fB, p = self.s, self.fA, self.fB, self.p
        N = 2 * p
        M = np.zeros((N, N))
        M[:p, :p], M[p:, p:] = self.MA, self.MB
        terms, where = [], []
        for j in range(self.l2):
            for view, cc in (("A", self.c["ca"]), ("B", self.c["cb"])):
                own_f, own_R, off = (fA[j], self.RA[j], 0) if view == "A" else (fB[j], self.RB[j], p)
                oth_f, oth_R, ooff = (fB[j], self.RB[j], p) if view == "A" else (fA[j], self.RA[j], 0)
                rows, bs, kinds = [np.zeros(N)], [0.0], ["zero"]
                if own_f:
                    a = np.zeros(N)
                    a[off:off + p] = -s * own_R        # f (1 - s w.x)
                    rows.append(a)
                    bs.append(1.0)
                    kinds.append("alpha")
                if correcting and oth_f:
                    a = np.zeros(N)
                    a[ooff:ooff + p] = s * oth_R       # s f_other (w_other.x_other)
                    rows.append(a)
                    bs.append(0.0)
                    kinds.append("lambda")
                if len(rows) > 1:
                    terms.append(pwl.Term(cc, np.array(rows), bs))
                    where.append((j, view, kinds))
        x, obj, weights, cert = pwl.solve(M, terms)
        l = self.l2
        pi = np.zeros(6 * l)
        for (j, view, kinds), w in zip(where, weights):
            for kind, wk in zip(kinds, w):
                if kind == "alpha":
                    pi[(0 if view == "A" else l) + j] = wk
                elif kind == "lambda":
                    pi[(2 * l if view == "A" else 3 * l) + j] = wk
        wA, wB = x[:p], x[p:]
        # the weights are (31)'s variables: the planes they give are the primal's
        vA, vB = self.planes(pi)
        assert max(np.abs(vA - wA).max(), np.abs(vB - wB).max()) < 1e-8 * max(1, np.abs(x).max()), \
            (np.abs(vA - wA).max(), np.abs(vB - wB).max())
        H, pp, A, b = self.qp31(0.0)
        dual_at = 0.5 * pi @ H @ pi + pp @ pi
        # (31) with C = 0 by cvxopt (variables alpha, lambda; xi absent)
        k = 4 * l if correcting else 2 * l
        sel = np.r_[0:k]
        G = np.vstack([-np.eye(k), A[:, sel]])
        h = np.concatenate([np.zeros(k), b])
        sol = solvers.qp(matrix(H[np.ix_(sel, sel)]), matrix(pp[sel]), matrix(G), matrix(h))
        return dict(wA=wA, wB=wB, primal=obj, dual_at_primal=dual_at, dual_cvxopt=sol["primal objective"],
                    certificate=cert, pi=pi)

    # ---- C > 0: multi-start local search on (31)
    def multistart(self, C, rng, extra_starts):
        H, p, A, b = self.qp31(C)
        l = self.l2
        cons = [{"type": "ineq", "fun": lambda x: b - A @ x, "jac": lambda x: -A}]
        starts = [np.zeros(6 * l)] + list(extra_starts)
        ca, cb = self.c["ca"], self.c["cb"]
        for _ in range(STARTS):
            xiA = rng.exponential(1.0, l) * rng.uniform(0, 2)
            xiB = rng.exponential(1.0, l) * rng.uniform(0, 2)
            capA, capB = ca + C * xiB, cb + C * xiA
            aA = rng.uniform(0, 1, l) * capA
            lA = rng.uniform(0, 1, l) * (capA - aA)
            aB = rng.uniform(0, 1, l) * capB
            lB = rng.uniform(0, 1, l) * (capB - aB)
            starts.append(np.concatenate([aA, aB, lA, lB, xiA, xiB]))
        results = []
        for x0 in starts:
            r = minimize(lambda x: 0.5 * x @ H @ x + p @ x, x0, jac=lambda x: H @ x + p, method="SLSQP",
                         bounds=[(0, None)] * (6 * l), constraints=cons,
                         options={"maxiter": 3000, "ftol": 1e-15})
            x = np.maximum(r.x, 0)
            if (A @ x - b).max() > 1e-9:
                continue
            results.append((0.5 * x @ H @ x + p @ x, x))
        results.sort(key=lambda t: t[0])
        best, x = results[0]
        distinct = len(np.unique(np.round([f for f, _ in results], 6)))
        return dict(best=best, pi=x, feasible=len(results), starts=len(starts), distinct=distinct,
                    worst=results[-1][0])


def _primal_local_impl(sd, C, x0):
    """One SLSQP run on (10) itself in (w_A, w_B, xi^A, xi^B), returning the
    objective at the result with the slacks tightened (feasible by construction)."""
    p, l, s, c = sd.p, sd.l2, sd.s, sd.c

    def f(x):
        wA, wB, xA, xB = x[:p], x[p:2 * p], x[2 * p:2 * p + l], x[2 * p + l:]
        return 0.5 * wA @ sd.MA @ wA + 0.5 * wB @ sd.MB @ wB + c["ca"] * xA.sum() + c["cb"] * xB.sum() + C * xA @ xB

    def g(x):
        wA, wB, xA, xB = x[:p], x[p:2 * p], x[2 * p:2 * p + l], x[2 * p + l:]
        return np.concatenate([sd.MA @ wA, sd.MB @ wB, c["ca"] + C * xB, c["cb"] + C * xA])

    I, Zp, Zl = np.eye(l), np.zeros((l, p)), np.zeros((l, l))
    FA, FB = sd.fA[:, None], sd.fB[:, None]
    G = np.vstack([np.hstack([s * FA * sd.RA, Zp, I, Zl]),    # s fA (wA.x) + xiA >= fA
                   np.hstack([Zp, s * FB * sd.RB, Zl, I]),
                   np.hstack([Zp, -s * FB * sd.RB, I, Zl]),   # xiA >= s fB (wB.x)
                   np.hstack([-s * FA * sd.RA, Zp, Zl, I])])
    h = np.concatenate([sd.fA, sd.fB, np.zeros(2 * l)])
    r = minimize(f, x0, jac=g, method="SLSQP", bounds=[(None, None)] * (2 * p) + [(0, None)] * (2 * l),
                 constraints=[{"type": "ineq", "fun": lambda x: G @ x - h, "jac": lambda x: G}],
                 options={"maxiter": 3000, "ftol": 1e-15})
    wA, wB = r.x[:p], r.x[p:2 * p]
    return sd.primal_value(wA, wB, C), wA, wB


def primal_multistart(sd, C, rng, plane_starts):
    """Multi-start SLSQP on (10) (non-convex for C > 0): the lowest objective found."""
    p, l = sd.p, sd.l2

    def tight(wA, wB):
        s, fA, fB = sd.s, sd.fA, sd.fB
        gA, gB = sd.RA @ wA, sd.RB @ wB
        xa = np.maximum.reduce([np.zeros(l), fA * (1 - s * gA), s * fB * gB])
        xb = np.maximum.reduce([np.zeros(l), fB * (1 - s * gB), s * fA * gA])
        return np.concatenate([wA, wB, xa, xb])

    starts = [tight(wA, wB) for wA, wB in plane_starts] + [tight(np.zeros(p), np.zeros(p))]
    base = plane_starts[0]
    for _ in range(STARTS):
        starts.append(tight(base[0] * rng.normal() + 0.5 * rng.normal(size=p),
                            base[1] * rng.normal() + 0.5 * rng.normal(size=p)))
    res = [_primal_local_impl(sd, C, x0) for x0 in starts]
    res.sort(key=lambda t: t[0])
    distinct = len(np.unique(np.round([r[0] for r in res], 5)))
    return dict(best=res[0][0], wA=res[0][1], wB=res[0][2], starts=len(starts), distinct=distinct, worst=res[-1][0])


def decisions(sideP, sideN, planes, TKA, TKB):
    """Raw plane values K(x, C)w + b on test rows and |omega| per plane."""
    out = {}
    for name, (wA, wB) in planes.items():
        out["test_%s_A" % name] = (TKA @ wA).tolist()
        out["test_%s_B" % name] = (TKB @ wB).tolist()
        out["norm_%s_A" % name] = float(np.linalg.norm(wA[:-1]))
        out["norm_%s_B" % name] = float(np.linalg.norm(wB[:-1]))
        out["plane_%s_A" % name] = wA.tolist()
        out["plane_%s_B" % name] = wB.tolist()
    return out


def main():
    XA, XB, y, TA, TB = problem(11, 24, 20)
    rng = np.random.default_rng(2022)
    one = lambda M: np.hstack([M, np.ones((len(M), 1))])  # noqa: E731
    cases = [
        dict(ca=1.0, cb=1.0, c=0.0, gamma_b=1.0, k=3, eps=1e-3, gamma=0.5, correcting=True),
        dict(ca=2.0, cb=0.5, c=0.0, gamma_b=0.5, k=5, eps=1e-6, gamma=0.3, correcting=True),
        dict(ca=1.0, cb=1.0, c=0.0, gamma_b=1.0, k=3, eps=1e-3, gamma=0.5, correcting=False),
        dict(ca=1.0, cb=1.0, c=0.5, gamma_b=1.0, k=3, eps=1e-3, gamma=0.5, correcting=True),
        dict(ca=1.0, cb=1.0, c=1.0, gamma_b=1.0, k=5, eps=1e-3, gamma=0.3, correcting=True),
        dict(ca=2.0, cb=0.5, c=5.0, gamma_b=0.5, k=3, eps=1e-6, gamma=0.5, correcting=True),
    ]
    out = {"x_a": XA.tolist(), "x_b": XB.tolist(), "y": y.tolist(), "t_a": TA.tolist(), "t_b": TB.tolist(),
           "cases": []}
    for c in cases:
        TKA, TKB = one(rbf(TA, XA, c["gamma"])), one(rbf(TB, XB, c["gamma"]))
        rec = {"params": c}
        planes = {}
        for name, own in (("pos", 1.0), ("neg", -1.0)):
            sd = Side(XA, XB, y, own, c)
            rec["f_%s_A" % name] = sd.fA.tolist()
            rec["f_%s_B" % name] = sd.fB.tolist()
            cv = sd.convex(c["correcting"])
            if c["c"] == 0:
                planes[name] = (cv["wA"], cv["wB"])
                rec["objective_%s" % name] = -cv["primal"]          # (31)'s optimum = -(10)'s
                rec["primal_%s" % name] = cv["primal"]
                rec["dual_cvxopt_%s" % name] = cv["dual_cvxopt"]
                rec["certificate_%s" % name] = cv["certificate"]
                print("C=0 %s %-4s (10) %.10f  (31) at its weights %.10f  (31) by cvxopt %.10f  cert %.1e" % (
                    "corr" if c["correcting"] else "free", name, cv["primal"], cv["dual_at_primal"],
                    cv["dual_cvxopt"], cv["certificate"]))
            else:
                ms = sd.multistart(c["c"], rng, [cv["pi"]])
                wA, wB = sd.planes(ms["pi"])
                pm = primal_multistart(sd, c["c"], rng, [(cv["wA"], cv["wB"]), (wA, wB)])
                planes[name] = (pm["wA"], pm["wB"])
                rec["primal_best_%s" % name] = pm["best"]
                rec["primal_starts_%s" % name] = pm["starts"]
                rec["primal_distinct_%s" % name] = pm["distinct"]
                rec["primal_worst_local_%s" % name] = pm["worst"]
                rec["primal_at_uncoupled_%s" % name] = sd.primal_value(cv["wA"], cv["wB"], c["c"])
                rec["dual31_best_planes_norm_%s" % name] = [float(np.linalg.norm(wA[:-1])), float(np.linalg.norm(wB[:-1]))]
                rec["dual31_best_%s" % name] = ms["best"]
                rec["dual31_starts_%s" % name] = ms["starts"]
                rec["dual31_feasible_%s" % name] = ms["feasible"]
                rec["dual31_distinct_%s" % name] = ms["distinct"]
                rec["primal_at_dual31_best_%s" % name] = sd.primal_value(wA, wB, c["c"])
                rec["dual31_uncoupled_%s" % name] = -cv["primal"]
                print("C=%g %-4s (10) best %.10f over %d starts (%d distinct local optima, worst %.6f), at the C=0 planes %.6f, "
                      "|omega| A %.3g B %.3g" % (c["c"], name, pm["best"], pm["starts"], pm["distinct"], pm["worst"],
                                                 rec["primal_at_uncoupled_%s" % name], np.linalg.norm(pm["wA"][:-1]),
                                                 np.linalg.norm(pm["wB"][:-1])))
                print("        (31) best %.6f over %d/%d feasible starts (%d distinct; C=0 optimum %.6f); its planes have "
                      "|omega| A %.3g B %.3g and (10) value %.6f" % (
                          ms["best"], ms["feasible"], ms["starts"], ms["distinct"], -cv["primal"],
                          np.linalg.norm(wA[:-1]), np.linalg.norm(wB[:-1]), rec["primal_at_dual31_best_%s" % name]))
            sys.stdout.flush()
        rec.update(decisions(None, None, planes, TKA, TKB))
        out["cases"].append(rec)
    with open(os.path.join(HERE, "ref_mpwtsvm.json"), "w") as fh:
        json.dump(out, fh, indent=1)
    print("wrote ref_mpwtsvm.json")


if __name__ == "__main__":
    main()
