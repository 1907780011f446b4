#!/usr/bin/python3
"""Independent references for two of paper 001's baselines, MvTSVM and MCPK.

Paper 001 (Xu & Wang, MPWTSVM) only names these baselines (section 4.2-4.3,
5.1: "for MVTSVM, C1 = C2 = C3 = C4 and D = H"; "for MCPK, C_A = C_B = D" and
the trade-off gamma); the formulations below are the original papers' as
restated here.  Nothing is taken from the Go code.

MvTSVM (Xie & Sun, Multi-view twin support vector machines, IDA 19(4) 2015),
kernel version.  Per view t in {A, B}: C_t = all training rows of that view,
E_t = [K_t(X_t+, C_t), e] (the positive rows), P_t = [K_t(X_t-, C_t), e].
The positive-plane problem, in z_t = (u_t; b_t):

    min  1/2 z_A'(E_A'E_A + r I) z_A + 1/2 z_B'(E_B'E_B + r I) z_B
         + c1 e'q_A + c2 e'q_B + D e'eta
    s.t. |E_A z_A - E_B z_B| <= eps e + eta        (the views agree on the positives)
         -P_A z_A + q_A >= e,  -P_B z_B + q_B >= e,  q >= 0, eta >= 0

(r: the ridge that makes E'E invertible in the kernel version; with it the
problem is strictly convex in z, so the planes are unique).  The negative-plane
problem swaps the classes (+P z + q >= e) with c3, c4 and H.  Solved twice, as
the primal above and as its Lagrange dual

    min  1/2 a_A'(E_A'E_A + rI)^-1 a_A + 1/2 a_B'(E_B'E_B + rI)^-1 a_B - e'alpha_A - e'alpha_B
         + eps e'(beta1 + beta2)
    s.t. 0 <= alpha_t <= c_t,  beta1, beta2 >= 0,  beta1 + beta2 <= D
    a_A = E_A'(beta1 - beta2) + s P_A'alpha_A,  a_B = -E_B'(beta1 - beta2) + s P_B'alpha_B

(s = +1 for the positive plane, -1 for the negative one), both by cvxopt; the
fixture keeps the primal optimum, the dual optimum (min form = -primal), the
planes and their values on test rows.

MCPK (Tang, Tian, Liu & Kou, Coupling privileged kernel method for multi-view
learning, Information Sciences 481, 2019), in the notation of paper 001's
PSVM-2V (its eq. 6, of which MCPK keeps the privileged constraints and replaces
the agreement term by the coupling term):

    min  1/2 |w_A|^2 + gamma/2 |w_B|^2 + C_A sum xi^A + C_B sum xi^B + D sum xi^A_i xi^B_i
    s.t. y_i w_A.phi_A(x_i^A) >= 1 - xi_i^A,   y_i w_B.phi_B(x_i^B) >= 1 - xi_i^B
         xi_i^A >= y_i w_B.phi_B(x_i^B),        xi_i^B >= y_i w_A.phi_A(x_i^A)   (privileged)
         xi >= 0

Its "dual" (the authors' 6l-variable QP; paper 001's (29)-(31) copy its form):
pi = (alpha^A, alpha^B, lambda^A, lambda^B, xi^A, xi^B),

    min  1/2 (alpha^A - lambda^B)'Q_A(alpha^A - lambda^B) + 1/(2 gamma) (alpha^B - lambda^A)'Q_B(alpha^B - lambda^A)
         - e'alpha^A - e'alpha^B + D xi^A'xi^B
    s.t. alpha^A + lambda^A - D xi^B <= C_A,  alpha^B + lambda^B - D xi^A <= C_B,  pi >= 0

Q_t = (y y') o K_t, w_A = sum (alpha^A - lambda^B) y phi_A, w_B = (1/gamma) sum (alpha^B - lambda^A) y phi_B.
The coupling term makes both the primal and this QP non-convex for D > 0
(the xi block [[0, D I], [D I, 0]] is indefinite).  So:
  * D = 0 (convex): the primal (slacks eliminated, in a = L'c with K = LL')
    solved by cvxopt and then exactly on its active set (ref_pwlqp, a certified
    optimum); the dual by cvxopt as a cross-check.  Our MCPK takes D >= 1e-5
    only, so the near-convex cases use D = 1e-5 and the reference is the exact
    KKT point that continues the D = 0 optimum (mcpk_kkt: a fixed point of
    certified convex solves, exact KKT conditions of the non-convex primal).
  * D > 0 (the K + 1 reading): no convex reference exists; the fixture keeps
    the lowest primal objective that scipy's SLSQP finds on the primal (in
    kernel coefficients, slacks tightened afterwards) from STARTS random starts
    and the D = 0 solution: a bound a correct solver of the primal should
    reach.  For the record also the lowest value SLSQP finds on the 6l QP from
    QP_STARTS feasible starts, and the primal objective of the w it gives: the
    6l QP is a Wolfe dual without weak duality, and its low points are far
    from the primal's optimum.
Bias: the authors' code augments the inputs with a 1 before the kernel; for an
RBF kernel that is no bias at all.  The other reading of paper 001's
"augmented samples" puts the 1 in feature space (kernel K + 1).  Both are
solved; key "bias": "none" and "K+1".

Run:  /usr/bin/python3 models/multiview/testdata/ref_mvtsvm_mcpk.py   (writes ref_mvtsvm.json, ref_mcpk.json)
"""
import json
import os

import numpy as np
from cvxopt import matrix, solvers
from scipy.optimize import minimize

import ref_pwlqp as pwl
from ref_twoview import problem, rbf

HERE = os.path.dirname(os.path.abspath(__file__))
STARTS = 30      # multi-start runs on the MCPK primal (D > 0)
QP_STARTS = 10   # on its 6l "dual", whose minimum is not the primal's (shown, not used by the tests)


def qp(P, q, G, h):
    """min 1/2 x'Px + q'x s.t. Gx <= h by cvxopt (used for the duals, whose
    optimal value is a cross-check of the certified primal's)."""
    P = 0.5 * (P + P.T)
    s = solvers.qp(matrix(P), matrix(q), matrix(G), matrix(h))
    # cvxopt may stop short of its 1e-10 tolerances with a singular KKT
    # matrix ("unknown"); these duals are only a cross-check of the certified
    # primal optimum, so accept that when it had nearly converged
    ok = s["status"] == "optimal" or (
        s["relative gap"] is not None and abs(s["relative gap"]) < 1e-6
        and s["primal infeasibility"] < 1e-9 and s["dual infeasibility"] < 1e-8)
    assert ok, (s["status"], s["relative gap"], s["primal infeasibility"], s["dual infeasibility"])
    return np.array(s["x"]).ravel(), s["primal objective"]


# ---------------------------------------------------------------- MvTSVM

def mvtsvm_side(EA, EB, PA, PB, s, c1, c2, D, eps, r):
    """One MvTSVM problem: own-class rows E, other-class rows P (both with the
    trailing 1), sign s (+1: the other class must satisfy -(P z) >= 1 - q,
    i.e. positive-plane problem; -1: +(P z) >= 1 - q)."""
    l1, p = EA.shape
    pB = EB.shape[1]
    l2 = PA.shape[0]
    MA = EA.T @ EA + r * np.eye(p)
    MB = EB.T @ EB + r * np.eye(pB)
    # primal, slacks eliminated: x = (zA, zB),
    #   c1 max(0, 1 + s P_A z_A) per other-class row, the same for B with c2,
    #   D max(0, Delta - eps, -Delta - eps) per own-class row, Delta = E_A z_A - E_B z_B
    #   (the weights of its two pieces are beta1, beta2 of the dual)
    N = p + pB
    M = np.zeros((N, N))
    M[:p, :p], M[p:, p:] = MA, MB
    terms = []
    for Pm, off, cc in ((PA, 0, c1), (PB, p, c2)):
        for j in range(l2):
            a = np.zeros((2, N))
            a[1, off:off + Pm.shape[1]] = s * Pm[j]
            terms.append(pwl.Term(cc, a, [0.0, 1.0]))
    for i in range(l1):
        d = np.concatenate([EA[i], -EB[i]])
        if eps > 0:
            terms.append(pwl.Term(D, np.vstack([np.zeros(N), d, -d]), [0.0, -eps, -eps]))
        else:   # D |Delta|: the 0 piece would tie with both others at Delta = 0
            terms.append(pwl.Term(D, np.vstack([d, -d]), [0.0, 0.0]))
    x, pobj, _, cert = pwl.solve(M, terms)
    zA, zB = x[:p], x[p:]
    # dual: v = (alphaA, alphaB, beta1, beta2)
    Nd = 2 * l2 + 2 * l1
    SA = np.hstack([s * PA.T, np.zeros((p, l2)), EA.T, -EA.T])        # a_A = SA v
    SB = np.hstack([np.zeros((pB, l2)), s * PB.T, -EB.T, EB.T])       # a_B = SB v
    Pd = SA.T @ np.linalg.solve(MA, SA) + SB.T @ np.linalg.solve(MB, SB)
    qd = np.concatenate([-np.ones(2 * l2), eps * np.ones(2 * l1)])
    Gd = np.vstack([-np.eye(Nd), np.hstack([np.eye(l2), np.zeros((l2, l2 + 2 * l1))]),
                    np.hstack([np.zeros((l2, l2)), np.eye(l2), np.zeros((l2, 2 * l1))]),
                    np.hstack([np.zeros((l1, 2 * l2)), np.eye(l1), np.eye(l1)])])
    hd = np.concatenate([np.zeros(Nd), c1 * np.ones(l2), c2 * np.ones(l2), D * np.ones(l1)])
    v, dobj = qp(Pd, qd, Gd, hd)
    zA_d = -np.linalg.solve(MA, SA @ v)
    zB_d = -np.linalg.solve(MB, SB @ v)
    return dict(zA=zA, zB=zB, primal=pobj, dual=dobj, certificate=cert,
                dual_plane_diff=float(max(np.abs(zA - zA_d).max(), np.abs(zB - zB_d).max())))


def mvtsvm(XA, XB, y, TA, TB, c):
    pos, neg = y > 0, y < 0
    KA = rbf(XA, XA, c["gamma"])
    KB = rbf(XB, XB, c["zgamma"])
    one = lambda M: np.hstack([M, np.ones((len(M), 1))])  # noqa: E731
    EAp, EAn = one(KA[pos]), one(KA[neg])
    EBp, EBn = one(KB[pos]), one(KB[neg])
    plus = mvtsvm_side(EAp, EBp, EAn, EBn, +1.0, c["C"], c["C"], c["D"], c["epsilon"], c["ridge"])
    minus = mvtsvm_side(EAn, EBn, EAp, EBp, -1.0, c["C2"], c["C2"], c["H"], c["epsilon"], c["ridge"])
    TKA, TKB = one(rbf(TA, XA, c["gamma"])), one(rbf(TB, XB, c["zgamma"]))
    out = dict(objective_primal=[plus["primal"], minus["primal"]], objective_dual=[plus["dual"], minus["dual"]],
               dual_plane_diff=max(plus["dual_plane_diff"], minus["dual_plane_diff"]),
               certificate=max(plus["certificate"], minus["certificate"]))
    for name, side in (("pos", plus), ("neg", minus)):
        for v, z, K, TK in (("A", side["zA"], KA, TKA), ("B", side["zB"], KB, TKB)):
            u = z[:-1]
            out["plane_%s_%s" % (name, v)] = z.tolist()                      # (u over all training rows, b)
            out["test_%s_%s" % (name, v)] = (TK @ z).tolist()                # K(x, C) u + b
            out["norm_u_%s_%s" % (name, v)] = float(np.linalg.norm(u))      # |u|
            out["norm_k_%s_%s" % (name, v)] = float(np.sqrt(u @ K @ u))     # sqrt(u'Ku)
    return out


# ---------------------------------------------------------------- MCPK

def mcpk_blocks(KA, KB, y, gamma):
    Y = np.outer(y, y)
    return Y * KA, Y * KB / gamma


def mcpk_qp_parts(QA, QB, D, n):
    """The 6n QP (H, p, A, b) of the authors' dual."""
    I, Z = np.eye(n), np.zeros((n, n))
    H = np.block([[QA, Z, Z, -QA, Z, Z],
                  [Z, QB, -QB, Z, Z, Z],
                  [Z, -QB, QB, Z, Z, Z],
                  [-QA, Z, Z, QA, Z, Z],
                  [Z, Z, Z, Z, Z, D * I],
                  [Z, Z, Z, Z, D * I, Z]])
    p = np.concatenate([-np.ones(2 * n), np.zeros(4 * n)])
    A = np.block([[I, Z, I, Z, Z, -D * I],
                  [Z, I, Z, I, -D * I, Z]])
    return H, p, A


def mcpk_primal_value(KA, KB, y, gamma, CA, CB, D, cA, cB):
    """Primal objective of w_A = sum cA_j phi_A(x_j), w_B = sum cB_j phi_B(x_j)
    with each slack at its smallest feasible value (optimal for fixed w since
    its cost C + D xi_other > 0)."""
    fA, fB = KA @ cA, KB @ cB
    hA = np.maximum.reduce([np.zeros_like(fA), 1 - y * fA, y * fB])
    hB = np.maximum.reduce([np.zeros_like(fB), 1 - y * fB, y * fA])
    return 0.5 * cA @ KA @ cA + 0.5 * gamma * cB @ KB @ cB + CA * hA.sum() + CB * hB.sum() + D * (hA * hB).sum()


def mcpk_convex(KA, KB, y, gamma, CA, CB):
    """MCPK with D = 0 (a convex problem) solved exactly by ref_pwlqp; CA, CB
    may be per-sample arrays (used by mcpk_kkt)."""
    n = len(y)
    CA, CB = np.broadcast_to(CA, n), np.broadcast_to(CB, n)
    Ls = []
    for K in (KA, KB):
        lam, V = np.linalg.eigh(K)
        Ls.append(V * np.sqrt(np.maximum(lam, 0)))
    LA, LB = Ls
    M = np.diag(np.concatenate([np.ones(n), gamma * np.ones(n)]))
    terms = []
    Z = np.zeros(n)
    for i in range(n):
        # C_A max(0, 1 - y fA, y fB);  C_B max(0, 1 - y fB, y fA)
        terms.append(pwl.Term(CA[i], np.vstack([np.zeros(2 * n), np.concatenate([-y[i] * LA[i], Z]),
                                             np.concatenate([Z, y[i] * LB[i]])]), [0.0, 1.0, 0.0]))
    for i in range(n):
        terms.append(pwl.Term(CB[i], np.vstack([np.zeros(2 * n), np.concatenate([Z, -y[i] * LB[i]]),
                                             np.concatenate([y[i] * LA[i], Z])]), [0.0, 1.0, 0.0]))
    x, obj, w, cert = pwl.solve(M, terms)
    aA = np.array([w[i][1] for i in range(n)])
    lA = np.array([w[i][2] for i in range(n)])
    aB = np.array([w[n + i][1] for i in range(n)])
    lB = np.array([w[n + i][2] for i in range(n)])
    cA, cB = y * (aA - lB), y * (aB - lA) / gamma
    # the coefficients reproduce the a-space solution (stationarity)
    assert np.abs(KA @ cA - LA @ x[:n]).max() < 1e-9 and np.abs(KB @ cB - LB @ x[n:]).max() < 1e-9
    return cA, cB, obj


def mcpk_kkt(KA, KB, y, gamma, CA, CB, D, tol=1e-14, maxit=200):
    """A KKT point of the non-convex MCPK primal continuing the D = 0 optimum.

    With h_A, h_B the slacks at their smallest feasible values, the primal is
    1/2|w|^2 + sum C_A h_A + C_B h_B + D h_A h_B and its subdifferential is that
    of the convex problem with per-sample costs C_A + D h_B(i), C_B + D h_A(i)
    (D d(h_A h_B) = D (h_B dh_A + h_A dh_B)).  So a fixed point of
    "solve the convex problem with the costs at the current slacks" (each solve
    certified by ref_pwlqp) is an exact KKT point; for small D the map is a
    contraction and converges from the D = 0 solution."""
    cA, cB, _ = mcpk_convex(KA, KB, y, gamma, CA, CB)
    hA = hB = None
    for it in range(1, maxit + 1):
        fA, fB = KA @ cA, KB @ cB
        nA = np.maximum.reduce([np.zeros_like(fA), 1 - y * fA, y * fB])
        nB = np.maximum.reduce([np.zeros_like(fB), 1 - y * fB, y * fA])
        if hA is not None and max(np.abs(nA - hA).max(), np.abs(nB - hB).max()) < tol:
            return cA, cB, mcpk_primal_value(KA, KB, y, gamma, CA, CB, D, cA, cB), it
        hA, hB = nA, nB
        cA, cB, _ = mcpk_convex(KA, KB, y, gamma, CA + D * hB, CB + D * hA)
    raise RuntimeError("mcpk_kkt: no fixed point in %d steps" % maxit)


def mcpk_coefs(pi, y, n, gamma):
    aA, aB, lA, lB = pi[:n], pi[n:2 * n], pi[2 * n:3 * n], pi[3 * n:4 * n]
    return (aA - lB) * y, (aB - lA) * y / gamma


def slsqp_qp(H, p, A, b, x0):
    """Local minimiser of 1/2 x'Hx + p'x s.t. A x <= b, x >= 0 (SLSQP)."""
    cons = [{"type": "ineq", "fun": lambda x: b - A @ x, "jac": lambda x: -A}]
    r = minimize(lambda x: 0.5 * x @ H @ x + p @ x, x0, jac=lambda x: H @ x + p, method="SLSQP",
                 bounds=[(0, None)] * len(x0), constraints=cons, options={"maxiter": 2000, "ftol": 1e-14})
    x = np.maximum(r.x, 0)
    viol = max(0.0, (A @ x - b).max())
    return x, 0.5 * x @ H @ x + p @ x, viol


def mcpk_primal_local(KA, KB, y, gamma, CA, CB, D, x0):
    """Local minimiser of the primal in kernel coefficients (cA, cB, xiA, xiB)."""
    n = len(y)
    Y = np.diag(y)

    def f(x):
        cA, cB, xA, xB = x[:n], x[n:2 * n], x[2 * n:3 * n], x[3 * n:]
        return 0.5 * cA @ KA @ cA + 0.5 * gamma * cB @ KB @ cB + CA * xA.sum() + CB * xB.sum() + D * xA @ xB

    def g(x):
        cA, cB, xA, xB = x[:n], x[n:2 * n], x[2 * n:3 * n], x[3 * n:]
        return np.concatenate([KA @ cA, gamma * KB @ cB, CA + D * xB, CB + D * xA])

    I, Z = np.eye(n), np.zeros((n, n))
    # G x >= h
    G = np.vstack([np.hstack([Y @ KA, Z, I, Z]),      # y fA + xiA >= 1
                   np.hstack([Z, Y @ KB, Z, I]),      # y fB + xiB >= 1
                   np.hstack([Z, -Y @ KB, I, Z]),     # xiA - y fB >= 0
                   np.hstack([-Y @ KA, Z, Z, I])])    # xiB - y fA >= 0
    h = np.concatenate([np.ones(2 * n), np.zeros(2 * n)])
    cons = [{"type": "ineq", "fun": lambda x: G @ x - h, "jac": lambda x: G}]
    bounds = [(None, None)] * (2 * n) + [(0, None)] * (2 * n)
    r = minimize(f, x0, jac=g, method="SLSQP", bounds=bounds, constraints=cons,
                 options={"maxiter": 3000, "ftol": 1e-14})
    x = r.x
    cA, cB = x[:n], x[n:2 * n]
    # report the objective with the slacks tightened (the smallest feasible)
    return cA, cB, mcpk_primal_value(KA, KB, y, gamma, CA, CB, D, cA, cB)


def mcpk(XA, XB, y, TA, TB, c, rng):
    n = len(y)
    out = {}
    for bias in ("none", "K+1"):
        add = 1.0 if bias == "K+1" else 0.0
        KA = rbf(XA, XA, c["gamma"]) + add
        KB = rbf(XB, XB, c["zgamma"]) + add
        TKA = rbf(TA, XA, c["gamma"]) + add
        TKB = rbf(TB, XB, c["zgamma"]) + add
        QA, QB = mcpk_blocks(KA, KB, y, c["tradeoff"])
        CA, CB, D, gam = c["C"], c["CB"], c["D"], c["tradeoff"]
        # convex part (D = 0): the primal in a-space (f_t = L_t a_t, K_t = L_t L_t',
        # |w_t|^2 = |a_t|^2), certified exactly; the dual by cvxopt as a cross-check
        cA0, cB0, p0v = mcpk_convex(KA, KB, y, gam, CA, CB)
        H0, p0, A0 = mcpk_qp_parts(QA, QB, 0.0, n)
        H4, p4, A4 = H0[:4 * n, :4 * n], p0[:4 * n], A0[:, :4 * n]
        G = np.vstack([-np.eye(4 * n), A4])
        hh = np.concatenate([np.zeros(4 * n), CA * np.ones(n), CB * np.ones(n)])
        x4, d0 = qp(H4, p4, G, hh)
        pi0 = np.concatenate([x4, np.zeros(2 * n)])
        assert abs(p0v - mcpk_primal_value(KA, KB, y, gam, CA, CB, 0.0, cA0, cB0)) < 1e-9
        rec = dict(D0_dual=d0, D0_primal=p0v,
                   D0_coef_A=cA0.tolist(), D0_coef_B=cB0.tolist(),
                   D0_train_A=(KA @ cA0).tolist(), D0_train_B=(KB @ cB0).tolist(),
                   D0_test_A=(TKA @ cA0).tolist(), D0_test_B=(TKB @ cB0).tolist())
        if 0 < D <= 1e-3:
            # near-convex: the certified KKT point continuing the D = 0 optimum
            cA, cB, v, its = mcpk_kkt(KA, KB, y, gam, CA, CB, D)
            rec.update(kkt_primal=v, kkt_steps=its, kkt_test_A=(TKA @ cA).tolist(), kkt_test_B=(TKB @ cB).tolist())
        if D > 1e-3 and bias == "K+1":   # the non-convex cases for the K + 1 reading only (ours)
            H, p, A = mcpk_qp_parts(QA, QB, D, n)
            b = np.concatenate([CA * np.ones(n), CB * np.ones(n)])
            best = (np.inf, None)
            starts = [pi0, np.zeros(6 * n)]
            for _ in range(QP_STARTS):
                x0 = np.concatenate([rng.uniform(0, 1, 4 * n) * np.repeat([CA, CB, CA, CB], n) / 2,
                                     rng.exponential(1.0, 2 * n) * rng.uniform(0, 2)])
                starts.append(x0)
            objs = []
            for x0 in starts:
                x, f, viol = slsqp_qp(H, p, A, b, x0)
                if viol < 1e-9:
                    objs.append(f)
                    if f < best[0]:
                        best = (f, x)
            cA, cB = mcpk_coefs(best[1], y, n, gam)
            rec.update(qp_best=best[0], qp_starts=len(starts), qp_feasible=len(objs),
                       qp_distinct=int(len(np.unique(np.round(objs, 6)))),
                       qp_best_primal=mcpk_primal_value(KA, KB, y, gam, CA, CB, D, cA, cB),
                       qp_best_pi=best[1].tolist())
            # the primal itself, multi-start
            pbest = (np.inf, None)
            pstarts = [np.concatenate([cA0, cB0, np.zeros(2 * n)])]
            for _ in range(STARTS):
                pstarts.append(np.concatenate([rng.normal(size=2 * n) * rng.uniform(0, 2), rng.exponential(1.0, 2 * n)]))
            pobjs = []
            for x0 in pstarts:
                a, bb, f = mcpk_primal_local(KA, KB, y, gam, CA, CB, D, x0)
                pobjs.append(f)
                if f < pbest[0]:
                    pbest = (f, a, bb)
            rec.update(primal_best=pbest[0], primal_starts=len(pstarts),
                       primal_distinct=int(len(np.unique(np.round(pobjs, 6)))),
                       primal_best_test_A=(TKA @ pbest[1]).tolist(), primal_best_test_B=(TKB @ pbest[2]).tolist())
        out[bias] = rec
    return out


def main():
    XA, XB, y, TA, TB = problem(7, 30, 20)
    mv_cases = [
        dict(C=1.0, C2=1.0, D=1.0, H=1.0, epsilon=0.0, ridge=1e-4, gamma=0.5, zgamma=0.3),
        dict(C=2.0, C2=0.5, D=0.3, H=3.0, epsilon=0.1, ridge=1e-3, gamma=1.0, zgamma=0.2),
        dict(C=0.5, C2=4.0, D=10.0, H=0.1, epsilon=0.0, ridge=1e-2, gamma=0.2, zgamma=0.5),
    ]
    mv = {"x_a": XA.tolist(), "x_b": XB.tolist(), "y": y.tolist(), "t_a": TA.tolist(), "t_b": TB.tolist(), "cases": []}
    for c in mv_cases:
        r = mvtsvm(XA, XB, y, TA, TB, c)
        r.update(params=c)
        mv["cases"].append(r)
        print("MvTSVM", c, "primal", r["objective_primal"], "dual", r["objective_dual"],
              "dual-vs-primal plane diff %.1e" % r["dual_plane_diff"])
    with open(os.path.join(HERE, "ref_mvtsvm.json"), "w") as fh:
        json.dump(mv, fh, indent=1)

    rng = np.random.default_rng(2019)
    mc_cases = [
        dict(C=1.0, CB=1.0, D=1e-5, tradeoff=1.0, gamma=0.5, zgamma=0.3),
        dict(C=2.0, CB=0.5, D=1e-5, tradeoff=3.0, gamma=1.0, zgamma=0.2),
        dict(C=1.0, CB=1.0, D=1.0, tradeoff=1.0, gamma=0.5, zgamma=0.3),
        dict(C=0.5, CB=2.0, D=5.0, tradeoff=0.5, gamma=1.0, zgamma=0.2),
    ]
    mc = {"x_a": XA.tolist(), "x_b": XB.tolist(), "y": y.tolist(), "t_a": TA.tolist(), "t_b": TB.tolist(), "cases": []}
    for c in mc_cases:
        r = mcpk(XA, XB, y, TA, TB, c, rng)
        r["params"] = c
        mc["cases"].append(r)
        for bias in ("none", "K+1"):
            q = r[bias]
            msg = "D=0 dual %.10f primal %.10f" % (q["D0_dual"], q["D0_primal"])
            if "kkt_primal" in q:
                msg += "; D=%g KKT point %.10f (%d fixed-point steps)" % (c["D"], q["kkt_primal"], q["kkt_steps"])
            if "primal_best" in q:
                msg += "; D>0: 6n QP best %.8f (%d/%d feasible, %d distinct), primal best %.8f (%d distinct), QP-best's primal %.8f" % (
                    q["qp_best"], q["qp_feasible"], q["qp_starts"], q["qp_distinct"], q["primal_best"], q["primal_distinct"], q["qp_best_primal"])
            print("MCPK", c, bias, msg)
    with open(os.path.join(HERE, "ref_mcpk.json"), "w") as fh:
        json.dump(mc, fh, indent=1)


if __name__ == "__main__":
    main()
