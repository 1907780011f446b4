#!/usr/bin/python3
"""Independent numpy/scipy implementation of binary GP classification with EP
(Rasmussen & Williams 2006, algorithms 3.5 and 3.6, log Z_EP by eq. 3.65 in
its site-mean/site-variance form) for a small problem; writes
gpc_ep_reference.json, which models/gp's tests compare with.

Run once:  /usr/bin/python3 models/gp/testdata/gpc_ep_reference.py
           /usr/bin/python3 models/gp/testdata/gpc_ep_reference.py 150 gpc_ep_reference_n150.json
(the second, larger problem takes several tiles of the Go engine's blocked
level-3 steps and flushes of its deferred rank-one updates).
Written from the book's equations; shares no code with the Go package.
"""
import json, os, sys
import numpy as np
from scipy.stats import norm

rng = np.random.default_rng(20260202)
n, d, m = (int(sys.argv[1]) if len(sys.argv) > 1 else 24), 2, 9
X = rng.normal(size=(n, d))
y = np.where(X[:, 0] + 0.6 * X[:, 1] ** 2 - 0.3 + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
Xs = rng.normal(size=(m, d))
amp, ell = 2.5, 0.9


def se(A, B):
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return amp * np.exp(-0.5 * d2 / ell ** 2)


K = se(X, X)
# Algorithm 3.5
nu_t = np.zeros(n); tau_t = np.zeros(n)
Sigma = K.copy(); mu = np.zeros(n)


def log_z_ep(tau_t, nu_t):
    sW = np.sqrt(tau_t)
    B = np.eye(n) + sW[:, None] * K * sW[None, :]
    L = np.linalg.cholesky(B)
    V = np.linalg.solve(L, sW[:, None] * K)
    Sig = K - V.T @ V
    mu = Sig @ nu_t
    s2 = np.diag(Sig)
    tau_c = 1 / s2 - tau_t
    nu_c = mu / s2 - nu_t
    mu_c, s2_c = nu_c / tau_c, 1 / tau_c
    mu_t, s2_t = nu_t / tau_t, 1 / tau_t            # site means / variances
    # eq. 3.65: -1/2 log|K + S~^-1| - 1/2 mu~^T (K + S~^-1)^-1 mu~ + sum log Phi(...)
    #           + 1/2 sum log(s2_c + s2_t) + sum (mu_c - mu_t)^2 / (2 (s2_c + s2_t))
    A = K + np.diag(s2_t)
    sign, logdet = np.linalg.slogdet(A)
    z = y * mu_c / np.sqrt(1 + s2_c)
    val = (-0.5 * logdet - 0.5 * mu_t @ np.linalg.solve(A, mu_t) + norm.logcdf(z).sum()
           + 0.5 * np.log(s2_c + s2_t).sum() + ((mu_c - mu_t) ** 2 / (2 * (s2_c + s2_t))).sum())
    return val, Sig, mu


prev = None
for sweep in range(500):
    old = np.concatenate([tau_t, nu_t])
    for i in range(n):
        tau_c = 1 / Sigma[i, i] - tau_t[i]
        nu_c = mu[i] / Sigma[i, i] - nu_t[i]
        mu_c, s2_c = nu_c / tau_c, 1 / tau_c
        z = y[i] * mu_c / np.sqrt(1 + s2_c)
        ratio = np.exp(norm.logpdf(z) - norm.logcdf(z))
        mu_hat = mu_c + y[i] * s2_c * ratio / np.sqrt(1 + s2_c)          # eq. 3.58
        s2_hat = s2_c - s2_c ** 2 * ratio / (1 + s2_c) * (z + ratio)
        dtau = 1 / s2_hat - tau_c - tau_t[i]
        tau_t[i] += dtau
        nu_t[i] = mu_hat / s2_hat - nu_c
        if dtau == 0:
            continue
        si = Sigma[:, i].copy()
        Sigma = Sigma - (1 / (1 / dtau + Sigma[i, i])) * np.outer(si, si)   # eq. 3.70
        mu = Sigma @ nu_t
    lz, Sigma, mu = log_z_ep(tau_t, nu_t)  # recompute (alg. 3.5, lines 11-13)
    moved = np.abs(np.concatenate([tau_t, nu_t]) - old).max()
    if prev is not None and abs(lz - prev) < 1e-13 and moved < 1e-13:
        break
    prev = lz

# Algorithm 3.6: predictions
sW = np.sqrt(tau_t)
B = np.eye(n) + sW[:, None] * K * sW[None, :]
L = np.linalg.cholesky(B)
zz = sW * np.linalg.solve(L.T, np.linalg.solve(L, sW * (K @ nu_t)))
Ks = se(X, Xs)
fs = Ks.T @ (nu_t - zz)
v = np.linalg.solve(L, sW[:, None] * Ks)
vs = amp - (v ** 2).sum(0)
ps = norm.cdf(fs / np.sqrt(1 + vs))

out = {"amplitude": amp, "lengthscale": ell, "X": X.tolist(), "y": y.tolist(), "Xtest": Xs.tolist(),
       "log_z": float(lz), "post_mean": mu.tolist(), "post_var": np.diag(Sigma).tolist(),
       "tau": tau_t.tolist(), "nu": nu_t.tolist(),
       "test_mean": fs.tolist(), "test_var": vs.tolist(), "test_prob": ps.tolist(), "sweeps": sweep + 1}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), sys.argv[2] if len(sys.argv) > 2 else "gpc_ep_reference.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
print("wrote", path, "log Z =", lz, "sweeps", sweep + 1)
