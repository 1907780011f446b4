#!/usr/bin/python3
"""Reference solutions for models/solver/qp from cvxopt.solvers.qp.

Run with Debian's interpreter (python3-cvxopt, python3-numpy):

    /usr/bin/python3 models/solver/qp/testdata/make_fixtures.py

It draws ~20 random convex QPs with a fixed seed (sizes up to 80 variables,
with and without equalities / inequalities / bounds, rank-deficient P, LPs,
redundant inequality rows, fixed variables, a binary SVM dual), solves them
with cvxopt at tight tolerances and writes testdata/cvxopt_fixtures.json:
the problem (P row-major, q, A, b, E, d, lower, upper with null for ±Inf)
plus cvxopt's x, objective and status, and whether x is unique (P positive
definite on the whole space, so the minimiser is unique). Data other than P
are rounded to 8 significant digits before solving; P is either exactly PSD
(dyadic factors, exact products) or stored at full precision, so the JSON
holds exactly the problem cvxopt solved.
"""
import json
import os

import numpy as np
import cvxopt
from cvxopt import matrix, solvers

SEED = 20261122
rng = np.random.default_rng(SEED)


def rnd(a):
    return np.array(np.vectorize(lambda v: float('%.8g' % v))(np.asarray(a, dtype=float)), dtype=float)


def dyadic(v, bits=4):
    """Round to a multiple of 2**-bits: products and sums of such numbers are
    exact in float64, so P = FᵀF below is exactly positive semidefinite."""
    return np.round(np.asarray(v) * 2 ** bits) / 2 ** bits


def psd(n, rank=None, shift=0.0):
    r = n if rank is None else rank
    scale = 2.0 ** -round(np.log2(np.sqrt(n)))
    F = dyadic(rng.standard_normal((r, n))) * scale
    P = F.T @ F + dyadic(shift, 8) * np.eye(n)
    assert np.array_equal(P, P.T)
    return P


def feasible_ineq(n, m, x0, slack=0.5):
    A = rnd(rng.standard_normal((m, n)))
    b = rnd(A @ x0 + slack * rng.random(m))
    return A, b


def solve(name, P, q, A=None, b=None, E=None, d=None, lower=None, upper=None, unique=None):
    n = len(q)
    P = np.zeros((n, n)) if P is None else P
    lo = np.full(n, -np.inf) if lower is None else np.asarray(lower, float)
    up = np.full(n, np.inf) if upper is None else np.asarray(upper, float)
    Gs, hs, Es, ds = [], [], [], []
    if A is not None:
        Gs.append(A); hs.append(b)
    if E is not None:
        Es.append(E); ds.append(d)
    fixed = np.isfinite(lo) & (lo == up)
    for i in range(n):
        if fixed[i]:
            row = np.zeros(n); row[i] = 1
            Es.append(row[None, :]); ds.append([lo[i]])
            continue
        if np.isfinite(lo[i]):
            row = np.zeros(n); row[i] = -1
            Gs.append(row[None, :]); hs.append([-lo[i]])
        if np.isfinite(up[i]):
            row = np.zeros(n); row[i] = 1
            Gs.append(row[None, :]); hs.append([up[i]])
    args = [matrix(P), matrix(q)]
    if Gs:
        args += [matrix(np.vstack(Gs)), matrix(np.concatenate([np.ravel(h) for h in hs]))]
    else:
        args += [None, None]
    if Es:
        args += [matrix(np.vstack(Es)), matrix(np.concatenate([np.ravel(v) for v in ds]))]
    sol = None
    for tol in (1e-12, 1e-10, 1e-9):
        solvers.options.update(dict(show_progress=False, abstol=tol, reltol=tol, feastol=tol, maxiters=400))
        sol = solvers.qp(*args)
        if sol['status'] == 'optimal':
            break
    x = np.array(sol['x']).ravel()
    obj = 0.5 * x @ P @ x + q @ x
    if unique is None:
        unique = bool(np.linalg.eigvalsh(P).min() > 1e-6 * max(1.0, np.abs(P).max()))
    print('%-28s n=%3d status=%-8s obj=% .12g tol=%g unique=%s' % (name, n, sol['status'], obj, tol, unique))
    enc = lambda v: [None if not np.isfinite(t) else float(t) for t in v]
    return dict(
        name=name, n=n,
        P=None if not P.any() else P.ravel().tolist(),
        q=np.asarray(q).tolist(),
        A=None if A is None else A.ravel().tolist(), b=None if A is None else np.asarray(b).tolist(),
        E=None if E is None else E.ravel().tolist(), d=None if E is None else np.asarray(d).tolist(),
        lower=None if lower is None else enc(lo), upper=None if upper is None else enc(up),
        x=x.tolist(), obj=float(obj), status=sol['status'], unique=unique,
        cvxopt_tol=tol,
    )


cases = []

# 1. unconstrained, P positive definite
n = 5
cases.append(solve('unconstrained_pd', psd(n, shift=0.1), rnd(rng.standard_normal(n))))

# 2. box only
n = 12
cases.append(solve('box_pd', psd(n, shift=0.05), rnd(3 * rng.standard_normal(n)), lower=-np.ones(n), upper=np.ones(n)))

# 3. box + one equality (SVM-like structure), PD
n = 25
y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
cases.append(solve('box_one_equality', psd(n, shift=0.01), rnd(rng.standard_normal(n)),
                   E=y[None, :], d=[0.0], lower=np.zeros(n), upper=np.full(n, 2.0)))

# 4. general inequalities only, PD
n, m = 30, 15
x0 = rng.standard_normal(n)
A, b = feasible_ineq(n, m, x0)
cases.append(solve('ineq_pd', psd(n, shift=0.1), rnd(5 * rng.standard_normal(n)), A=A, b=b))

# 5. rank-deficient P (rank 8) + box
n = 40
cases.append(solve('rankdef_box', psd(n, rank=8), rnd(rng.standard_normal(n)), lower=-np.ones(n), upper=np.ones(n)))

# 6. equalities + inequalities + bounds, PD
n, m, p = 50, 20, 5
x0 = rng.uniform(-0.5, 0.5, n)
A, b = feasible_ineq(n, m, x0)
E = rnd(rng.standard_normal((p, n))); d = rnd(E @ x0)
cases.append(solve('eq_ineq_box_pd', psd(n, shift=0.05), rnd(rng.standard_normal(n)), A=A, b=b, E=E, d=d,
                   lower=-np.ones(n), upper=np.ones(n)))

# 7. LP: P = 0, box + inequalities
n, m = 20, 10
x0 = rng.uniform(-0.5, 0.5, n)
A, b = feasible_ineq(n, m, x0)
cases.append(solve('lp_box_ineq', None, rnd(rng.standard_normal(n)), A=A, b=b, lower=-np.ones(n), upper=np.ones(n), unique=False))

# 8. LP with equality
n, p = 30, 4
x0 = rng.uniform(0.2, 0.8, n)
E = rnd(rng.standard_normal((p, n))); d = rnd(E @ x0)
cases.append(solve('lp_eq_box', None, rnd(rng.standard_normal(n)), E=E, d=d, lower=np.zeros(n), upper=np.ones(n), unique=False))

# 9. redundant (duplicated) inequality rows, rank-deficient P
n, m = 30, 12
x0 = rng.standard_normal(n)
A, b = feasible_ineq(n, m, x0)
A = np.vstack([A, A[:4], 2 * A[4:6]]); b = np.concatenate([b, b[:4], 2 * b[4:6]])
cases.append(solve('redundant_rows_rankdef', psd(n, rank=15), rnd(rng.standard_normal(n)), A=A, b=b,
                   lower=np.full(n, -3.0), upper=np.full(n, 3.0)))

# 10. one-sided bounds (lower only), PD
n = 35
cases.append(solve('lower_only_pd', psd(n, shift=0.05), rnd(rng.standard_normal(n)), lower=np.zeros(n)))

# 11. mixed ±Inf bounds + equalities, PD
n, p = 45, 3
lo = np.where(rng.random(n) < 0.5, -np.inf, -1.0)
up = np.where(rng.random(n) < 0.5, np.inf, 1.0)
x0 = rng.uniform(-0.5, 0.5, n)
E = rnd(rng.standard_normal((p, n))); d = rnd(E @ x0)
cases.append(solve('mixed_inf_bounds_eq', psd(n, shift=0.02), rnd(2 * rng.standard_normal(n)), E=E, d=d, lower=lo, upper=up))

# 12. fixed variables (l == u)
n = 15
lo = -np.ones(n); up = np.ones(n)
lo[[2, 7, 11]] = up[[2, 7, 11]] = [0.25, -0.5, 1.0]
cases.append(solve('fixed_vars', psd(n, shift=0.1), rnd(rng.standard_normal(n)), lower=lo, upper=up))

# 13. rank-deficient P with equality + inequalities + box (degenerate)
n, m, p = 60, 25, 2
x0 = rng.uniform(-0.5, 0.5, n)
A, b = feasible_ineq(n, m, x0, slack=0.0 + 0.1)
E = rnd(rng.standard_normal((p, n))); d = rnd(E @ x0)
cases.append(solve('rankdef_eq_ineq_box', psd(n, rank=20), rnd(rng.standard_normal(n)), A=A, b=b, E=E, d=d,
                   lower=-np.ones(n), upper=np.ones(n)))

# 14. larger box + equality, PD, 80 variables
n = 80
y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
cases.append(solve('box_eq_80', psd(n, shift=0.01), rnd(rng.standard_normal(n)), E=y[None, :], d=[0.0],
                   lower=np.zeros(n), upper=np.full(n, 1.0)))

# 15. larger general: 70 variables, 40 inequalities, 6 equalities, PD
n, m, p = 70, 40, 6
x0 = rng.uniform(-0.5, 0.5, n)
A, b = feasible_ineq(n, m, x0)
E = rnd(rng.standard_normal((p, n))); d = rnd(E @ x0)
cases.append(solve('general_70', psd(n, shift=0.05), rnd(3 * rng.standard_normal(n)), A=A, b=b, E=E, d=d))

# 16. many active constraints: minimise distance to a far point in a polytope
n, m = 20, 30
A = rnd(rng.standard_normal((m, n))); b = rnd(np.ones(m))
target = 10 * rng.standard_normal(n)
cases.append(solve('projection_polytope', rnd(np.eye(n)), rnd(-target), A=A, b=b))

# 17. equality-only PD
n, p = 25, 5
E = rnd(rng.standard_normal((p, n))); d = rnd(rng.standard_normal(p))
cases.append(solve('equality_only_pd', psd(n, shift=0.1), rnd(rng.standard_normal(n)), E=E, d=d))

# 18. badly scaled P (eigenvalues from 1e-4 to 1e3) with box
n = 30
Qm, _ = np.linalg.qr(rng.standard_normal((n, n)))
ev = np.logspace(-4, 3, n)
P = Qm @ np.diag(ev) @ Qm.T; P = (P + P.T) / 2  # full precision: rounding would perturb λ_min = 1e-4
cases.append(solve('ill_conditioned_box', P, rnd(10 * rng.standard_normal(n)), lower=-np.ones(n), upper=np.ones(n)))

# 19/20. binary SVM duals (linear and RBF kernels) on two Gaussian blobs:
# min ½αᵀ(yyᵀ∘K)α − 1ᵀα  s.t.  yᵀα = 0, 0 ≤ α ≤ C.
def svm_case(name, kern, C, n=60):
    X = np.vstack([rng.standard_normal((n // 2, 2)) + [1.0, 1.0], rng.standard_normal((n - n // 2, 2)) - [1.0, 1.0]])
    X = dyadic(X)  # exact XXᵀ for the linear kernel
    y = np.concatenate([np.ones(n // 2), -np.ones(n - n // 2)])
    if kern == 'linear':
        K = X @ X.T
    else:
        sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
        K = np.exp(-0.5 * sq)
    P = np.outer(y, y) * K; P = (P + P.T) / 2  # not rounded: keeps K positive semidefinite
    c = solve(name, P, -np.ones(n), E=y[None, :], d=[0.0], lower=np.zeros(n), upper=np.full(n, C), unique=False)
    c['svm'] = dict(X=X.ravel().tolist(), y=y.tolist(), kernel=kern, C=C)
    return c

cases.append(svm_case('svm_dual_linear', 'linear', 1.0))
cases.append(svm_case('svm_dual_rbf', 'rbf', 10.0))

# 22. SVM+ dual (paper 000, eq. 2) in the 2n variables (α, β), linear
# kernels on x and on the privileged z: min ½(α∘y)ᵀK(α∘y)
# + (1/2λ)(α+β−C1)ᵀK̃(α+β−C1) − 1ᵀα  s.t.  Σ(αᵢ+βᵢ−C) = 0, yᵀα = 0, α, β ≥ 0
# (constant term ½C²1ᵀK̃1/λ dropped).
def svmplus_case(name, n=30, C=1.0, lam=2.0):
    y = np.concatenate([np.ones(n // 2), -np.ones(n - n // 2)])
    X = dyadic(rng.standard_normal((n, 3)) + 0.5 * y[:, None])
    Z = dyadic(rng.standard_normal((n, 2)) + 0.8 * y[:, None], bits=3)
    K = X @ X.T
    Kt = Z @ Z.T / lam  # λ = 2: exact
    Yk = np.outer(y, y) * K
    P = np.block([[Yk + Kt, Kt], [Kt, Kt]])
    assert np.array_equal(P, P.T)
    q = np.concatenate([-1 - C * Kt.sum(1), -C * Kt.sum(1)])
    E = np.vstack([np.concatenate([y, np.zeros(n)]), np.ones(2 * n)])
    c = solve(name, P, q, E=E, d=[0.0, n * C], lower=np.zeros(2 * n), unique=False)
    c['svmplus'] = dict(X=X.ravel().tolist(), Z=Z.ravel().tolist(), y=y.tolist(), C=C, lam=lam)
    return c

cases.append(svmplus_case('svmplus_dual_linear'))

# 21. tiny LP with a unique vertex solution
cases.append(solve('lp_vertex', None, rnd([-1.0, -2.0]), A=rnd([[1.0, 1.0], [1.0, -1.0]]), b=rnd([4.0, 1.0]),
                   lower=[0.0, 0.0], upper=[3.0, 3.0], unique=True))

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cvxopt_fixtures.json')
with open(out, 'w') as f:
    json.dump(dict(generator='make_fixtures.py', seed=SEED, cvxopt=cvxopt.__version__, numpy=np.__version__, cases=cases), f,
              separators=(',', ':'))
print('wrote', out, os.path.getsize(out), 'bytes')
