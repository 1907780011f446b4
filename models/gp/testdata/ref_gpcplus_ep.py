#!/usr/bin/python3
"""Independent EP reference for GPC+ (paper 002, Hernandez-Lobato et al. 2014).

Written from the paper's equations alone (it shares no code with models/gp or
models/solver/ep):

  model   (3)-(7)  y_n in {-1,+1},  p(y_n | f_n, g_n) = Phi(y_n f_n / sqrt(exp(g_n))),
                   f ~ GP(0, k_f),  g ~ GP(m_g, k_g)  (m_g: a constant prior mean,
                   0 in the paper; our model has it as the parameter "gmean"),
                   k(x, x') = theta exp(-|x - x'|^2 / (2 l))  -- the paper's l is
                   the square of the length-scale ell the Go API takes: l = ell^2.
  EP      (10)-(11) one factorised site per likelihood term,
                   gbar_n(f, g) = zbar_n N(f_n | mbar_f, vbar_f) N(g_n | mbar_g, vbar_g),
                   Q(f, g) = Q(f) Q(g) (two multivariate normals).
  moments (12)     Z_n = int Phi(y m_f / sqrt(v_f + e^g)) N(g | m_g, v_g) dg over the
                   cavity (m_f, v_f, m_g, v_g); f's tilted mean and variance from
                   d log Z_n / d m_f and d log Z_n / d v_f (m + v a, v - v^2 (a^2 - 2 b)),
                   g's from the tilted marginal of g (Phi-weighted averages of g and
                   g^2).  One-dimensional Gauss-Hermite quadrature with NODES nodes,
                   summed in the log domain; checked at the fixed point against
                   scipy's adaptive quad (check_quadrature).  Many nodes because
                   a wide g cavity (v_g = 16) needs them: 32 nodes err by 5e-3 in
                   f's tilted variance there, 96 by 4e-6, 300 by 3e-10.
  sites            the new site is Q_new / Q_old per block, in natural parameters
                   tau = 1 / vbar, nu = mbar / vbar (no clipping: a site may have a
                   negative precision, as the paper's "gbar_n proportional to
                   Q_new / Q_old" allows); zbar_n makes gbar_n integrate against the
                   cavity to Z_n.
  log Z            log of the normaliser Z of (11) (the EP evidence),
                   sum_n log Ztilde_n + sum_blocks [Psi(posterior) - Psi(prior)]
                   + sum_n sum_blocks [Psi(cavity_n) - Psi(marginal_n)],
                   Psi(mu, S) = 1/2 log|2 pi S| + 1/2 mu' S^-1 mu (Gaussian log-partition),
                   which is exact for any site parametrisation.
  prediction (9)   p(y* = 1 | x*) = int Phi(m* / sqrt(v* + e^g)) N(g | m_g, theta_g) dg:
                   f* from Q(f) and the GP conditional; the test point's privileged
                   features are unknown, so its noise is the same for every test
                   point ("homoscedastic noise at test time"): g* drawn from the g
                   prior's marginal N(m_g, theta_g), integrated out.

The EP schedule is sequential with rank-one updates of the posterior
covariance (recomputed from scratch every sweep), undamped unless told
otherwise; it stops when no site natural parameter moves by more than 1e-12 (relative
to max(1, |value|)).
Damping changes the path, not the fixed point.

Run:  /usr/bin/python3 models/gp/testdata/ref_gpcplus_ep.py   (writes ref_gpcplus_ep.json)
"""
import json
import warnings
import os
import sys

import numpy as np
from scipy import integrate
from scipy.special import log_ndtr, logsumexp, ndtr

NODES = 300
warnings.filterwarnings("ignore", category=integrate.IntegrationWarning)
_T, _W = np.polynomial.hermite.hermgauss(NODES)
_LOGW = np.log(_W / np.sqrt(np.pi))


def se_kernel(A, B, theta, ell):
    """theta exp(-|a-b|^2 / (2 l)) with the paper's l = ell^2."""
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return theta * np.exp(-0.5 * d2 / ell ** 2)


def _log_ratio(z):
    """log(N(z)/Phi(z)), stable for z << 0."""
    return -0.5 * z * z - 0.5 * np.log(2 * np.pi) - log_ndtr(z)


def tilted(y, mf, vf, mg, vg):
    """Eq (12) and the tilted moments for one site.

    Returns log Z_n, (mean, var) of f and (mean, var) of g under
    Phi(y f / sqrt(e^g)) N(f | mf, vf) N(g | mg, vg) / Z_n."""
    g = mg + np.sqrt(2 * vg) * _T
    s2 = vf + np.exp(g)
    s = np.sqrt(s2)
    z = y * mf / s
    lphi = log_ndtr(z)
    a = _LOGW + lphi
    logz = logsumexp(a)
    p = np.exp(a - logz)                      # posterior weights of the nodes
    r = np.exp(_log_ratio(z))                 # N(z)/Phi(z)
    dm = np.sum(p * r * y / s)                # d log Z / d m_f
    dv = np.sum(p * r * (-z / (2 * s2)))      # d log Z / d v_f
    fmean = mf + vf * dm
    fvar = vf - vf * vf * (dm * dm - 2 * dv)
    gmean = np.sum(p * g)
    gvar = np.sum(p * (g - gmean) ** 2)
    return logz, fmean, fvar, gmean, gvar


def tilted_quad(y, mf, vf, mg, vg):
    """The same moments by scipy's adaptive quadrature (a check of the nodes)."""
    sd = np.sqrt(vg)

    def w(g):
        return ndtr(y * mf / np.sqrt(vf + np.exp(g))) * np.exp(-0.5 * (g - mg) ** 2 / vg) / np.sqrt(2 * np.pi * vg)

    lo, hi = mg - 12 * sd, mg + 12 * sd
    kw = dict(epsabs=1e-15, epsrel=1e-13, limit=400)
    Z = integrate.quad(w, lo, hi, **kw)[0]
    g1 = integrate.quad(lambda g: g * w(g), lo, hi, **kw)[0] / Z
    g2 = integrate.quad(lambda g: (g - g1) ** 2 * w(g), lo, hi, **kw)[0] / Z

    def dfm(g):
        s = np.sqrt(vf + np.exp(g))
        z = y * mf / s
        return np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi) * y / s * np.exp(-0.5 * (g - mg) ** 2 / vg) / np.sqrt(2 * np.pi * vg)

    def dfv(g):
        s2 = vf + np.exp(g)
        z = y * mf / np.sqrt(s2)
        return np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi) * (-z / (2 * s2)) * np.exp(-0.5 * (g - mg) ** 2 / vg) / np.sqrt(2 * np.pi * vg)

    dm = integrate.quad(dfm, lo, hi, **kw)[0] / Z
    dv = integrate.quad(dfv, lo, hi, **kw)[0] / Z
    return np.log(Z), mf + vf * dm, vf - vf * vf * (dm * dm - 2 * dv), g1, g2


class Block:
    """One Gaussian block of Q (f or g): prior N(m0 1, K), sites (tau, nu)."""

    def __init__(self, K, m0):
        self.K, self.m0, self.n = K, m0, len(K)
        self.tau = np.zeros(self.n)
        self.nu = np.zeros(self.n)
        self.refresh()

    def refresh(self):
        n = self.n
        A = np.eye(n) + self.tau[:, None] * self.K           # I + T K
        self.Sigma = np.linalg.solve(A.T, self.K.T).T         # K (I + T K)^-1
        self.Sigma = 0.5 * (self.Sigma + self.Sigma.T)
        m0 = self.m0 * np.ones(n)
        self.mu = m0 + self.Sigma @ (self.nu - self.tau * m0)

    def cavity(self, i):
        tc = 1 / self.Sigma[i, i] - self.tau[i]
        nc = self.mu[i] / self.Sigma[i, i] - self.nu[i]
        return nc / tc, 1 / tc

    def set_site(self, i, tau, nu):
        dt = tau - self.tau[i]
        self.tau[i], self.nu[i] = tau, nu
        if dt != 0:
            s = self.Sigma[:, i].copy()
            self.Sigma -= (dt / (1 + dt * s[i])) * np.outer(s, s)
        m0 = self.m0 * np.ones(self.n)
        self.mu = m0 + self.Sigma @ (self.nu - self.tau * m0)

    def psi_post_minus_prior(self):
        """Psi(posterior) - Psi(prior) without inverting K."""
        n = self.n
        A = np.eye(n) + self.tau[:, None] * self.K
        sign, logdet = np.linalg.slogdet(A)
        assert sign > 0
        m0 = self.m0 * np.ones(n)
        x = np.linalg.solve(A, self.nu - self.tau * m0)      # K^-1 (mu - m0)
        return -0.5 * logdet + 0.5 * (m0 @ x + self.mu @ self.nu)


def psi1(m, v):
    return 0.5 * np.log(2 * np.pi * v) + 0.5 * m * m / v


def ep(Kf, Kg, y, gmean, damping=1.0, max_sweeps=2000, tol=1e-12, order=None):
    n = len(y)
    F, G = Block(Kf, 0.0), Block(Kg, gmean)
    for sweep in range(1, max_sweeps + 1):
        old = np.concatenate([F.tau, F.nu, G.tau, G.nu])
        for i in (range(n) if order is None else order):
            mf, vf = F.cavity(i)
            mg, vg = G.cavity(i)
            if vf <= 0 or vg <= 0:
                raise RuntimeError("improper cavity at site %d" % i)
            _, fm, fv, gm, gv = tilted(y[i], mf, vf, mg, vg)
            for B, m, v, c_m, c_v in ((F, fm, fv, mf, vf), (G, gm, gv, mg, vg)):
                t_new = 1 / v - 1 / c_v
                n_new = m / v - c_m / c_v
                t = (1 - damping) * B.tau[i] + damping * t_new
                nn = (1 - damping) * B.nu[i] + damping * n_new
                B.set_site(i, t, nn)
        F.refresh()
        G.refresh()
        new = np.concatenate([F.tau, F.nu, G.tau, G.nu])
        moved = (np.abs(new - old) / np.maximum(1, np.abs(new))).max()
        if moved < tol:
            return F, G, sweep
    raise RuntimeError("EP did not converge in %d sweeps (last move %g)" % (max_sweeps, moved))


def site_table(F, G, y):
    """Cavities, log Ztilde_n and the paper's site parameters (zbar, mbar, vbar)."""
    n = len(y)
    rows = []
    logz = F.psi_post_minus_prior() + G.psi_post_minus_prior()
    for i in range(n):
        mf, vf = F.cavity(i)
        mg, vg = G.cavity(i)
        lz, *_ = tilted(y[i], mf, vf, mg, vg)
        # log C_n: the scale of the unit-form site exp(-tau x^2/2 + nu x) per block
        logc = lz
        for B, m, v in ((F, mf, vf), (G, mg, vg)):
            qm, qv = B.mu[i], B.Sigma[i, i]
            logc -= psi1(qm, qv) - psi1(m, v)
        logz += logc
        # paper form gbar_n = zbar N(f|mbar_f, vbar_f) N(g|mbar_g, vbar_g):
        # C exp(-x^2/(2 vbar) + x mbar/vbar) = C sqrt(2 pi vbar) exp(mbar^2/(2 vbar)) N(x|mbar, vbar)
        logzbar = logc
        for B in (F, G):
            if B.tau[i] > 0:
                vb = 1 / B.tau[i]
                logzbar += 0.5 * np.log(2 * np.pi * vb) + 0.5 * (B.nu[i] * vb) ** 2 / vb
            else:
                logzbar = None
                break
        rows.append(dict(cav=(mf, vf, mg, vg), logz_n=lz, logc=logc, logzbar=logzbar))
    return logz, rows


def predict(F, Kfs, kss, gmean, gamp):
    """Eq (9): Q(f) predictive of f*, then p(y*=1) with g* ~ N(gmean, gamp)."""
    n = F.n
    A = np.eye(n) + F.tau[:, None] * F.K
    m = Kfs.T @ np.linalg.solve(A, F.nu)
    v = kss - np.einsum("ij,ij->j", Kfs, np.linalg.solve(A, F.tau[:, None] * Kfs))
    g = gmean + np.sqrt(2 * gamp) * _T
    p = np.array([np.exp(logsumexp(_LOGW + log_ndtr(mi / np.sqrt(vi + np.exp(g))))) for mi, vi in zip(m, v)])
    return m, v, p


def predict_quad(m, v, gmean, gamp):
    out = []
    for mi, vi in zip(m, v):
        def w(g):
            return ndtr(mi / np.sqrt(vi + np.exp(g))) * np.exp(-0.5 * (g - gmean) ** 2 / gamp) / np.sqrt(2 * np.pi * gamp)
        sd = np.sqrt(gamp)
        out.append(integrate.quad(w, gmean - 12 * sd, gmean + 12 * sd, epsabs=0, epsrel=1e-13, limit=400)[0])
    return np.array(out)


def check_quadrature(F, G, y):
    """Worst difference between the node rule and adaptive quadrature at the fixed point."""
    worst = 0.0
    for i in range(len(y)):
        mf, vf = F.cavity(i)
        mg, vg = G.cavity(i)
        a = np.array(tilted(y[i], mf, vf, mg, vg))
        b = np.array(tilted_quad(y[i], mf, vf, mg, vg))
        worst = max(worst, np.abs(a - b).max())
    return worst


def make_problem(seed, n, m):
    """2-D inputs x; 2-D privileged z whose first coordinate says how noisy
    the label is (|z1| large = hard), as in the LUPI generators."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    hard = np.abs(rng.normal(size=n))
    Z = np.column_stack([hard + 0.3 * rng.normal(size=n), rng.normal(size=n)])
    latent = np.sin(1.5 * X[:, 0]) + 0.8 * X[:, 1]
    y = np.where(latent + hard * rng.normal(size=n) > 0, 1.0, -1.0)
    Xt = rng.uniform(-2.5, 2.5, size=(m, 2))
    return X, Z, y, Xt


def solve_case(c, X, Z, y, Xt):
    Kf = se_kernel(X, X, c["amplitude"], c["lengthscale"])
    Kg = se_kernel(Z, Z, c["gamplitude"], c["glengthscale"])
    try:
        F, G, sweeps = ep(Kf, Kg, y, c["gmean"], damping=1.0)
        damping = 1.0
    except RuntimeError:
        F, G, sweeps = ep(Kf, Kg, y, c["gmean"], damping=0.5, max_sweeps=20000)
        damping = 0.5
    logz, rows = site_table(F, G, y)
    Kfs = se_kernel(X, Xt, c["amplitude"], c["lengthscale"])
    m, v, p = predict(F, Kfs, c["amplitude"] * np.ones(len(Xt)), c["gmean"], c["gamplitude"])
    pq = predict_quad(m, v, c["gmean"], c["gamplitude"])
    qerr = check_quadrature(F, G, y)
    # the same fixed point from another path: damping 0.5, sites in reverse order
    F2, G2, _ = ep(Kf, Kg, y, c["gmean"], damping=0.5, max_sweeps=20000, order=range(len(y) - 1, -1, -1))
    other = max(np.abs(np.concatenate([F.tau - F2.tau, F.nu - F2.nu, G.tau - G2.tau, G.nu - G2.nu])).max(),
                abs(logz - site_table(F2, G2, y)[0]))
    return dict(other_path=float(other), F=F, G=G, sweeps=sweeps, damping=damping, logz=logz, rows=rows, m=m, v=v, p=p,
                quad_check_sites=qerr, quad_check_pred=float(np.abs(p - pq).max()))


CASES = [
    # name, seed, n, hyper-parameters (ell = the Go API's length-scale; the paper's l = ell^2)
    dict(name="n20-unit", seed=1, n=20, amplitude=1.0, lengthscale=1.0, gamplitude=1.0, glengthscale=1.0, gmean=0.0),
    dict(name="n40-gmean-1", seed=2, n=40, amplitude=2.0, lengthscale=0.7, gamplitude=0.5, glengthscale=1.5, gmean=-1.0),
    dict(name="n60-sharp", seed=3, n=60, amplitude=4.0, lengthscale=1.3, gamplitude=2.0, glengthscale=0.8, gmean=-2.0),
    dict(name="n30-wide-g", seed=4, n=30, amplitude=10.0, lengthscale=0.6, gamplitude=4.0, glengthscale=0.5, gmean=-3.0),
    # the extreme hyper-parameters of issue 28 item 2 (on this generator's data EP converges undamped)
    dict(name="n50-extreme", seed=5, n=50, amplitude=50.0, lengthscale=0.3, gamplitude=16.0, glengthscale=0.1, gmean=-6.0),
]


def main():
    out = {"nodes": NODES, "cases": []}
    for c in CASES:
        X, Z, y, Xt = make_problem(c["seed"], c["n"], 15)
        r = solve_case(c, X, Z, y, Xt)
        F, G = r["F"], r["G"]
        rec = {k: c[k] for k in ("name", "amplitude", "lengthscale", "gamplitude", "glengthscale", "gmean")}
        rec.update(
            x=X.tolist(), z=Z.tolist(), y=y.tolist(), x_test=Xt.tolist(),
            log_z=float(r["logz"]), sweeps=r["sweeps"], damping=r["damping"],
            # natural site parameters per block: tau = 1/vbar, nu = mbar/vbar
            tau_f=F.tau.tolist(), nu_f=F.nu.tolist(), tau_g=G.tau.tolist(), nu_g=G.nu.tolist(),
            # the paper's (10): log zbar_n (null where a site precision is <= 0)
            log_zbar=[row["logzbar"] for row in r["rows"]],
            log_z_tilted=[float(row["logz_n"]) for row in r["rows"]],
            post_mean_f=F.mu.tolist(), post_var_f=np.diag(F.Sigma).tolist(),
            post_mean_g=G.mu.tolist(), post_var_g=np.diag(G.Sigma).tolist(),
            test_mean=r["m"].tolist(), test_var=r["v"].tolist(), test_prob=r["p"].tolist(),
            quad_check_sites=r["quad_check_sites"], quad_check_pred=r["quad_check_pred"],
            other_path_max_diff=r["other_path"],
            negative_site_precisions=int((F.tau < 0).sum() + (G.tau < 0).sum()),
        )
        out["cases"].append(rec)
        print("%-12s n=%d sweeps=%d damping=%g log Z=%.10f quad check %.1e / %.1e, other path %.1e, negative taus %d"
              % (c["name"], c["n"], r["sweeps"], r["damping"], r["logz"], r["quad_check_sites"],
                 r["quad_check_pred"], r["other_path"], rec["negative_site_precisions"]))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ref_gpcplus_ep.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)
    print("wrote", path)


if __name__ == "__main__":
    sys.exit(main())
