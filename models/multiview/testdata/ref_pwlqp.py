"""A strongly convex quadratic plus hinge-like terms, solved exactly.

    min_x  1/2 x'Mx + sum_k c_k max_p (a_kp'x + b_kp)        (M positive definite, c_k >= 0)

is the primal of every convex twin / multi-view SVM here once the slacks are
eliminated (a slack xi >= 0, xi >= l_1(x), xi >= l_2(x) with cost c is
c max(0, l_1(x), l_2(x))).  solve() runs cvxopt's interior-point QP on the
epigraph form, then identifies which pieces attain each max and solves the
KKT system of that active set,

    M x + sum_k sum_{p in S_k} t_kp a_kp = 0,   sum_{p in S_k} t_kp = c_k,
    a_kp'x + b_kp equal for all p in S_k,

exactly (a square linear system).  The result is accepted only when it is a
certified optimum: every weight t_kp in [0, c_k] and no piece outside S_k above
the max (both to 1e-10).  Interior-point accuracy alone leaves errors ~1e-4 in
directions where M is as small as a ridge; the certified point is exact to
rounding.  The weights t are the dual variables (multipliers of the slack
constraints).

Used by ref_mvtsvm_mcpk.py and models/twin/testdata/ref_mpwtsvm.py.
"""
import numpy as np
from cvxopt import matrix, solvers

solvers.options["show_progress"] = False
for _k in ("abstol", "reltol", "feastol"):
    solvers.options[_k] = 1e-10
solvers.options["maxiters"] = 400


class Term:
    """c * max over pieces of (A x + b); piece 0 may be the constant 0 (a row of zeros)."""

    def __init__(self, c, A, b):
        self.c, self.A, self.b = float(c), np.atleast_2d(A), np.asarray(b, float)


def value(M, terms, x):
    return 0.5 * x @ M @ x + sum(t.c * (t.A @ x + t.b).max() for t in terms)


def _cvxopt(M, terms):
    N, K = len(M), len(terms)
    P = np.zeros((N + K, N + K))
    P[:N, :N] = 0.5 * (M + M.T)
    q = np.concatenate([np.zeros(N), [t.c for t in terms]])
    rows, h = [], []
    for k, t in enumerate(terms):
        for a, b in zip(t.A, t.b):
            g = np.zeros(N + K)
            g[:N] = a
            g[N + k] = -1
            rows.append(g)
            h.append(-b)
    s = solvers.qp(matrix(P), matrix(q), matrix(np.array(rows)), matrix(np.array(h)))
    ok = s["status"] == "optimal" or (
        s["relative gap"] is not None and abs(s["relative gap"]) < 1e-8
        and s["primal infeasibility"] < 1e-9 and s["dual infeasibility"] < 1e-8)
    if not ok:
        raise RuntimeError("cvxopt: %s" % s["status"])
    return np.array(s["x"]).ravel()[:N]


def _kkt(M, terms, act):
    """Solve the KKT system of active set act; return x, weights, residual."""
    N = len(M)
    free = [(k, p) for k, S in enumerate(act) if len(S) > 1 for p in S]
    col = {kp: N + i for i, kp in enumerate(free)}
    nu = N + len(free)
    St = np.zeros((N, nu))
    St[:, :N] = M
    r0 = np.zeros(N)
    rows, rhs = [], []
    for k, S in enumerate(act):
        t = terms[k]
        if len(S) == 1:
            r0 -= t.c * t.A[S[0]]
            continue
        row = np.zeros(nu)
        for p in S:
            St[:, col[(k, p)]] = t.A[p]
            row[col[(k, p)]] = 1
        rows.append(row)
        rhs.append(t.c)
        for p in S[1:]:
            row = np.zeros(nu)
            row[:N] = t.A[p] - t.A[S[0]]
            rows.append(row)
            rhs.append(t.b[S[0]] - t.b[p])
    A = np.vstack([St] + [np.array(rows)] if rows else [St])
    r = np.concatenate([r0, np.array(rhs)])
    sol = np.linalg.lstsq(A, r, rcond=None)[0]
    x = sol[:N]
    weights, worst = [], np.abs(A @ sol - r).max()
    for k, S in enumerate(act):
        t = terms[k]
        w = np.zeros(len(t.b))
        if len(S) == 1:
            w[S[0]] = t.c
        else:
            for p in S:
                w[p] = sol[col[(k, p)]]
        v = t.A @ x + t.b
        m = v[S].max()
        worst = max(worst, (-w).max(), (w - t.c).max(), (v - m).max(), m - v[S].min())
        weights.append(w)
    return x, weights, worst


def solve(M, terms):
    """Returns (x, objective, weights per term (array over its pieces), certificate residual)."""
    x0 = _cvxopt(M, terms)
    best = None
    for tie in (1e-7, 1e-8, 1e-6, 1e-9, 1e-5, 1e-4):
        act = []
        for t in terms:
            v = t.A @ x0 + t.b
            act.append(np.flatnonzero(v >= v.max() - tie * max(1.0, abs(v.max()))))
        for _ in range(20):          # primal-dual active-set corrections
            x, w, worst = _kkt(M, terms, act)
            if best is None or worst < best[2]:
                best = (x, w, worst)
            if worst <= 1e-10 * max(1.0, max(t.c for t in terms)):
                return x, value(M, terms, x), w, worst
            changed = False
            for k, t in enumerate(terms):
                v = t.A @ x + t.b
                S = list(act[k])
                m = v[S].max()
                up = [p for p in range(len(v)) if p not in S and v[p] > m + 1e-12]
                down = [p for p in S if len(S) > 1 and w[k][p] < -1e-12]
                if up or down:
                    S = sorted(set(S) - set(down) | set(up)) or [int(np.argmax(v))]
                    act[k] = np.array(S)
                    changed = True
            if not changed:
                break
    raise RuntimeError("active-set polish not certified (residual %.1e)" % best[2])
