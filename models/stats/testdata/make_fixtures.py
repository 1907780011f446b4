#!/usr/bin/python3
"""Reference values for models/stats (run with /usr/bin/python3, scipy >= 1.7).

friedman.json: score tables (some with ties) with scipy.stats.rankdata average
ranks and scipy.stats.friedmanchisquare (tie-corrected χ² and p-value).
nemenyi_q.json: q_α = studentized_range.ppf(1 − α, k, ∞)/√2 for k = 2…10.
"""
import json
import numpy as np
from scipy import stats

rng = np.random.default_rng(2006)
cases = []
for n, k, rounding in [(14, 4, None), (45, 7, 0), (10, 5, 1), (30, 3, 0), (8, 10, None)]:
    s = rng.normal(80, 5, size=(n, k)) + np.linspace(0, 3, k)
    if rounding is not None:
        s = np.round(s, rounding)  # creates ties
    ranks = np.array([stats.rankdata(-row) for row in s])  # 1 = highest score
    chi, p = stats.friedmanchisquare(*s.T)
    cases.append({"scores": s.tolist(), "avg_ranks": ranks.mean(axis=0).tolist(),
                  "chi_square_ties": float(chi), "p_ties": float(p)})
json.dump(cases, open("friedman.json", "w"), indent=1)

q = {}
for alpha in (0.05, 0.10):
    q[str(alpha)] = [float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2)) for k in range(2, 11)]
json.dump(q, open("nemenyi_q.json", "w"), indent=1)
