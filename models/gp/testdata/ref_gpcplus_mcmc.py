#!/usr/bin/python3
"""Ground truth for GPC+ predictive probabilities by MCMC (paper 002, eq 9).

The exact posterior (8) of the GPC+ model (3)-(7),
    p(f, g | y) proportional to prod_n Phi(y_n f_n / sqrt(exp(g_n))) N(f | 0, K_f) N(g | m_g, K_g),
is sampled by elliptical slice sampling (Murray, Adams & MacKay 2010) over f
and g jointly: the prior is one Gaussian over the 2n-vector (f, g), so every
move is a slice-sampling step along an ellipse drawn from that prior; no tuning,
no Gaussian approximation.  CHAINS independent chains (vectorised), each started
from a prior draw, BURN iterations discarded, then ITERS iterations thinned by
THIN.  The sampler works in whitened coordinates (f = L_f u, g = m_g + L_g v,
L the Cholesky factors of K + 1e-10 theta I), which is the same Markov chain.

The predictive probability (9) at a test input x* is Rao-Blackwellised per
sample: f* | f is Gaussian (mean k*' K^-1 f, variance k** - k*' K^-1 k*) and the
test noise is exp(g*) with g* ~ N(m_g, theta_g) (homoscedastic: the test point's
privileged features are unknown), so
    p(y* = 1 | f) = int Phi(mean / sqrt(var + e^g*)) N(g* | m_g, theta_g) dg*,
averaged over the samples.  Monte-Carlo standard error: the standard deviation
of the CHAINS per-chain means over sqrt(CHAINS) (independent chains, each far
longer than its autocorrelation time; the split-chain R-hat is reported).

The problems and hyper-parameters are those of ref_gpcplus_ep.py (same
generator and seeds); the EP reference's probabilities are stored next to the
MCMC ones so that the gap EP - MCMC is on record.

Run:  /usr/bin/python3 models/gp/testdata/ref_gpcplus_mcmc.py   (writes ref_gpcplus_mcmc.json;
      about 20 minutes of CPU; 2.5 hours of wall time on a loaded 2-core machine)
"""
import json
import os
import sys
import time

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import log_ndtr, logsumexp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref_gpcplus_ep as ref  # noqa: E402  (the problems and the EP reference)

CHAINS, BURN, ITERS, THIN = 256, 3000, 25000, 10
MCMC_CASES = ["n40-gmean-1", "n60-sharp", "n30-wide-g"]
_T, _W = np.polynomial.hermite.hermgauss(200)
_LOGW = np.log(_W / np.sqrt(np.pi))


def loglik(F, G, y):
    return log_ndtr(y * F * np.exp(-0.5 * G)).sum(axis=1)


def run(c, X, Z, y, Xt, seed):
    n = len(y)
    Kf = ref.se_kernel(X, X, c["amplitude"], c["lengthscale"])
    Kg = ref.se_kernel(Z, Z, c["gamplitude"], c["glengthscale"])
    Lf = np.linalg.cholesky(Kf + 1e-10 * c["amplitude"] * np.eye(n))
    Lg = np.linalg.cholesky(Kg + 1e-10 * c["gamplitude"] * np.eye(n))
    Kfs = ref.se_kernel(X, Xt, c["amplitude"], c["lengthscale"])
    A = solve_triangular(Lf, Kfs, lower=True)           # f* mean = u' A
    svar = c["amplitude"] - (A ** 2).sum(0)               # f* | f variance
    gq = c["gmean"] + np.sqrt(2 * c["gamplitude"]) * _T   # g* nodes

    rng = np.random.default_rng(seed)
    U = rng.normal(size=(CHAINS, n))
    V = rng.normal(size=(CHAINS, n))
    F, G = U @ Lf.T, c["gmean"] + V @ Lg.T
    ll = loglik(F, G, y)
    m = len(Xt)
    nkeep = ITERS // THIN
    pred = np.zeros((CHAINS, nkeep, m))
    fsum = np.zeros((CHAINS, n))
    gsum = np.zeros((CHAINS, n))
    evals = 0
    keep = 0
    for it in range(BURN + ITERS):
        NU, NV = rng.normal(size=(CHAINS, n)), rng.normal(size=(CHAINS, n))
        NF, NG = NU @ Lf.T, NV @ Lg.T
        logy = ll + np.log(rng.uniform(size=CHAINS))
        th = rng.uniform(0, 2 * np.pi, size=CHAINS)
        lo, hi = th - 2 * np.pi, th.copy()
        done = np.zeros(CHAINS, bool)
        thf = np.zeros(CHAINS)
        while not done.all():
            a = ~done
            ct, st = np.cos(th[a])[:, None], np.sin(th[a])[:, None]
            Fp = F[a] * ct + NF[a] * st
            Gp = c["gmean"] + (G[a] - c["gmean"]) * ct + NG[a] * st
            lp = loglik(Fp, Gp, y)
            evals += a.sum()
            ok = lp > logy[a]
            idx = np.flatnonzero(a)
            acc = idx[ok]
            thf[acc] = th[acc]
            ll[acc] = lp[ok]
            done[acc] = True
            rej = idx[~ok]
            neg = th[rej] < 0
            lo[rej[neg]] = th[rej[neg]]
            hi[rej[~neg]] = th[rej[~neg]]
            th[rej] = rng.uniform(lo[rej], hi[rej])
        ct, st = np.cos(thf)[:, None], np.sin(thf)[:, None]
        U, V = U * ct + NU * st, V * ct + NV * st
        F, G = U @ Lf.T, c["gmean"] + V @ Lg.T
        if it >= BURN and (it - BURN) % THIN == 0:
            mu = U @ A                                     # CHAINS x m
            z = mu[:, :, None] / np.sqrt(svar[None, :, None] + np.exp(gq)[None, None, :])
            pred[:, keep, :] = np.exp(logsumexp(_LOGW + log_ndtr(z), axis=2))
            fsum += F
            gsum += G
            keep += 1
    chain_means = pred.mean(axis=1)                       # CHAINS x m
    p = chain_means.mean(axis=0)
    se = chain_means.std(axis=0, ddof=1) / np.sqrt(CHAINS)
    # split-chain R-hat per test point
    h = nkeep // 2
    halves = np.concatenate([pred[:, :h, :], pred[:, h:2 * h, :]], axis=0)
    W = halves.var(axis=1, ddof=1).mean(axis=0)
    Bv = h * halves.mean(axis=1).var(axis=0, ddof=1)
    rhat = np.sqrt(((h - 1) / h * W + Bv / h) / W)
    # effective sample size from the MC error: var(single sample) / se^2
    ess = pred.reshape(-1, m).var(axis=0) / np.maximum(se ** 2, 1e-300)
    return dict(p=p, se=se, rhat=rhat, ess=ess, fmean=fsum.sum(0) / (CHAINS * keep),
                gmean=gsum.sum(0) / (CHAINS * keep), evals_per_iter=evals / (CHAINS * (BURN + ITERS)))


def main():
    out = {"chains": CHAINS, "burn": BURN, "iters": ITERS, "thin": THIN, "cases": []}
    for k, c in enumerate(ref.CASES):
        if c["name"] not in MCMC_CASES:
            continue
        X, Z, y, Xt = ref.make_problem(c["seed"], c["n"], 15)
        t0 = time.time()
        e = ref.solve_case(c, X, Z, y, Xt)
        r = run(c, X, Z, y, Xt, seed=1000 + k)
        gap = e["p"] - r["p"]
        rec = dict(name=c["name"], n=c["n"], test_prob_mcmc=r["p"].tolist(), test_prob_se=r["se"].tolist(),
                   rhat=r["rhat"].tolist(), ess=r["ess"].tolist(), test_prob_ep_ref=e["p"].tolist(),
                   gap_ep_ref_minus_mcmc=gap.tolist(),
                   post_mean_f_mcmc=r["fmean"].tolist(), post_mean_g_mcmc=r["gmean"].tolist(),
                   post_mean_f_ep_ref=e["F"].mu.tolist(), post_mean_g_ep_ref=e["G"].mu.tolist(),
                   evals_per_iter=r["evals_per_iter"], seconds=time.time() - t0)
        out["cases"].append(rec)
        print("%-12s n=%d  |EP-MCMC| max %.4f mean %.4f  (max |gap|/se %.1f)  MC se max %.1e  R-hat max %.4f  "
              "ESS min %.0f  |f mean diff| max %.3f  |g mean diff| max %.3f  %.0fs"
              % (c["name"], c["n"], np.abs(gap).max(), np.abs(gap).mean(), (np.abs(gap) / r["se"]).max(),
                 r["se"].max(), r["rhat"].max(), r["ess"].min(), np.abs(r["fmean"] - e["F"].mu).max(),
                 np.abs(r["gmean"] - e["G"].mu).max(), rec["seconds"]))
        sys.stdout.flush()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ref_gpcplus_mcmc.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)
    print("wrote", path)


if __name__ == "__main__":
    if len(sys.argv) > 1:   # a quick trial: ITERS
        ITERS = int(sys.argv[1])
        BURN = ITERS // 10
    main()
